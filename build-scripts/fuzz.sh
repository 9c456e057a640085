#!/usr/bin/env bash
# Builds the libFuzzer targets (preset native-asan, also named fuzz: clang, AddressSanitizer + UndefinedBehaviorSanitizer,
# the core instrumented for coverage; the same tree test.sh runs the sanitizer ctest in, so test.sh builds once), runs
# every kept input (tests/fuzz/corpus/<target>/ and tests/fuzz/regressions/<target>/), then fuzzes each
# target for SECONDS with the schema dictionary, two targets at a time (HWPLAN_FUZZ_JOBS). New inputs go to build/fuzz/corpus/<target>/ (not into the
# repository); a crash is written to build/fuzz/crashes/<target>/ and fails the run: copy it into
# tests/fuzz/regressions/<target>/ with the fix. Safe to rerun; recovers from a half-finished configure.
# Usage: build-scripts/fuzz.sh [SECONDS per target, default 600] [TARGET ...]   (test.sh runs it with 5)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(fuzz_workload fuzz_catalog fuzz_json_api fuzz_hf_config fuzz_measurement fuzz_fragment
  fuzz_calibrate fuzz_config_import fuzz_extension fuzz_sweep fuzz_team)
[ -f build/native-asan/Makefile ] || cmake --preset native-asan >/dev/null
cmake --build --preset native-asan --target "${targets[@]}" >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# One target: replay its kept inputs, then fuzz it; its report line goes to build/fuzz/<target>.result, its exit code
# is the function's. Each target is one process on one core, so targets run HWPLAN_FUZZ_JOBS at a time (default 2:
# the machine's cores); each keeps its own logs, corpus and crash folder, and the report keeps the targets' order.
fuzz_one() {
  local t=$1 seconds=$2
  local bin=build/native-asan/tests/fuzz/$t work=build/fuzz/corpus/$t crashes=build/fuzz/crashes/$t/ result=build/fuzz/$t.result
  mkdir -p "$work" "$crashes" "tests/fuzz/regressions/$t"
  local kept; kept=$(find "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" -type f | wc -l)
  # -timeout=60: a hang, not a slow input. One whole-catalog plan with its flip points takes several seconds here
  # (the core at -O0 under ASan, UBSan and coverage); at 10 s a kept seed timed out on a busy 2-core machine.
  # Every kept input runs first: libFuzzer executes the corpus folders it is given before it mutates anything (a
  # separate -runs=0 replay ran them all twice: half of this step's time), and a crash there fails the run as any does.
  if "$bin" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 -dict=tests/fuzz/hwplan.dict \
       -artifact_prefix="$crashes" -print_final_stats=1 "$work" "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" >"build/fuzz/$t.log" 2>&1; then
    local runs; runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "build/fuzz/$t.log" | grep -oE '[0-9]+$' || echo "?")
    echo "fuzz: $t: ${seconds}s, $runs runs, $kept kept inputs replayed, no crash ($(ls "$work" | wc -l) inputs in $work)" >"$result"
  else
    { tail -40 "build/fuzz/$t.log"; echo "fuzz: $t: CRASH (a kept input or a new one), input saved in $crashes"; } >"$result"; return 1
  fi
}
export -f fuzz_one
mkdir -p build/fuzz
rm -f build/fuzz/*.result
status=0
printf '%s\n' "${targets[@]}" | xargs -P "${HWPLAN_FUZZ_JOBS:-2}" -I{} bash -c 'fuzz_one "$1" "$2"' _ {} "$seconds" || status=1
for t in "${targets[@]}"; do
  if [ -f "build/fuzz/$t.result" ]; then cat "build/fuzz/$t.result"; else echo "fuzz: $t: did not run"; status=1; fi
done
exit $status
