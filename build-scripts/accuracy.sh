#!/usr/bin/env bash
# Regenerates the measured table in ACCURACY.md (between the "generated" markers) from the validation
# suite, with the same binary test.sh gates on. Run after changing a formula, an efficiency, an overhead or
# a measurement. Usage: build-scripts/accuracy.sh        (builds the CLI first if needed)
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset native >/dev/null && cmake --build --preset native --target hwplan >/dev/null
# The table goes through a file: past 128 KiB one command-line argument is refused (MAX_ARG_STRLEN).
table=$(mktemp)
trap 'rm -f "$table"' EXIT
build/native/core/hwplan validate --format markdown > "$table"
python3 - "$table" <<'PY'
import sys, re
table = open(sys.argv[1]).read()
text = open('ACCURACY.md').read()
begin, end = '<!-- generated:begin (build-scripts/accuracy.sh) -->', '<!-- generated:end -->'
i, j = text.index(begin) + len(begin), text.index(end)
open('ACCURACY.md', 'w').write(text[:i] + '\n' + table.rstrip('\n') + '\n' + text[j:])
PY
echo "ACCURACY.md: table regenerated"
