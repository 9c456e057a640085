#!/usr/bin/env bash
# Sets everything up if needed, builds the web planner and serves dist/ on http://127.0.0.1:8080.
# Usage: build-scripts/run.sh [--port N]      (or PORT=N build-scripts/run.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-8080}
while [ $# -gt 0 ]; do
  case "$1" in
    --port) [ $# -ge 2 ] || { echo "run: --port needs a value" >&2; exit 2; }; port=$2; shift 2 ;;
    -h|--help) sed -n '2,3p' "$0"; exit 0 ;;
    *) echo "run: unknown argument '$1' (expected --port N)" >&2; exit 2 ;;
  esac
done
bash build-scripts/setup.sh
bash build-scripts/build-web.sh
echo "run: also works offline: open dist/hwplan.html straight from disk"
exec node build-scripts/serve.mjs --dir dist --port "$port"
