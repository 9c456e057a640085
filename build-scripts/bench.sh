#!/usr/bin/env bash
# Builds the native Release preset and runs the Google Benchmark programs. Record results in BENCHMARKS.md
# together with this command and the machine. Usage: build-scripts/bench.sh [benchmark args...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash build-scripts/setup.sh
[ -f build/native/Makefile ] || cmake --preset native >/dev/null
cmake --build --preset native --target hwplan_bench >/dev/null
exec build/native/bench/hwplan_bench "$@"
