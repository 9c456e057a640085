#!/usr/bin/env bash
# Benchmarks and budgets. Builds the native Release preset and the web build, runs the Google Benchmark
# programs (arguments go to them), then bench/budgets.mjs: native and WebAssembly plan times for the same
# workloads as a ratio (bench/plan_speed.cpp, one program built both ways), the single file's and the served page's gzip sizes, each checked against its
# budget (exit 1 when one is exceeded), then bench/load_time.mjs: the page's load time and CPU per frame in
# headless Chromium, with the idle budget. Without --budgets it also times the layout search natively and in
# WebAssembly (bench/layout_speed.cpp). Record results in BENCHMARKS.md with this command and the machine.
# Usage: build-scripts/bench.sh [benchmark args...]     build-scripts/bench.sh --budgets   (budgets only)
#        build-scripts/bench.sh --budgets --quick   (test.sh's report: the plan-time, size and what-if budget lines
#        from fewer repetitions, no page loads; record BENCHMARKS.md figures without --quick)
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
bash build-scripts/setup.sh >/dev/null
[ -f build/native/Makefile ] || cmake --preset native >/dev/null   # also recovers from a half-finished configure
cmake --build --preset native --target hwplan_bench hwplan_plan_speed >/dev/null
bash build-scripts/build-web.sh >/dev/null
cmake --build --preset wasm --target hwplan_plan_speed >/dev/null # the like-for-like plan timer (a link: ~20 s)
if [ "${1:-}" != --budgets ]; then # the layout search timer only here: --budgets (test.sh's report) does not run it
  cmake --build --preset native --target hwplan_layout_speed >/dev/null
  cmake --build --preset wasm --target hwplan_layout_speed >/dev/null
  build/native/bench/hwplan_bench "$@"; echo
  # Layout search, like for like: the same program natively and in WebAssembly under Node.
  echo "layout search, native:"; build/native/bench/hwplan_layout_speed
  echo "layout search, WebAssembly (Node):"; node build/wasm/bench/hwplan_layout_speed.js; echo
fi
quick=() loads=3
if [ "${2:-}" = --quick ]; then quick=(--quick); fi
rc=0
node bench/budgets.mjs "${quick[@]}" || rc=1
echo
# Load time (navigation to first frame and first plan, split) and CPU per frame and when idle, in headless
# Chromium, for the served page and the single file; checks the idle budget. Not in --quick (test.sh's report):
# one cold load on a machine that is also running the suite says little, and the idle property (no frame drawn
# without input) is asserted by tests/e2e/page.test.mjs in every run.
if [ ${#quick[@]} -eq 0 ]; then node bench/load_time.mjs --runs "$loads" || rc=1; fi
exit $rc
