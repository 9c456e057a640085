#!/usr/bin/env bash
# Builds the web planner into dist/: index.html + hwplan_web.js + hwplan_web.wasm (served), hwplan.html (one self-contained
# file that also works opened from disk) and hwplan_js.js (the JSON module). Incremental: ImGui and
# unchanged sources are not recompiled. Usage: build-scripts/build-web.sh   (run setup.sh first, or run.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # emcc's link step needs Debian's acorn module
# Configure unless a configure finished: a failed one (say, before setup fetched ImGui) leaves a
# CMakeCache.txt without a Makefile, and rerunning configure is what recovers from it.
[ -f build/wasm/Makefile ] || cmake --preset wasm >/dev/null
cmake --build --preset wasm --target dist   # the site only; bench.sh builds the WebAssembly layout timer when it needs it
echo "build-web: dist/index.html, dist/hwplan.html, dist/hwplan_js.js"
