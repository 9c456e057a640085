#!/usr/bin/env bash
# Sets everything up if needed and runs every test: the unit and CLI tests under AddressSanitizer + UndefinedBehaviorSanitizer
# (clang), the invariants natively (Release) and sanitized, the validation suite, the libFuzzer targets built in the
# sanitizer tree (build-scripts/fuzz.sh, briefly),
# the WebAssembly build, the JavaScript API under Node, and the browser end-to-end test in headless Chromium. Incremental on a second run.
# Ends with one line "N passed, M failed"; exits non-zero on any failure.
# Usage: build-scripts/test.sh        (HWPLAN_SKIP_ASAN=1 skips the sanitizer pass and the fuzzing for a quick local run,
#                                      and runs the unit tests natively instead)
set -uo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
log_dir=build/test-logs
passed=0; failed=0; failures=()

note_fail() { failed=$((failed + ${2:-1})); failures+=("$1"); }

# CPU seconds (user + sys) of every child this shell has waited for so far, into $cpu_now: bash's `times`, run in
# this shell (a $(...) subshell would count from zero). What a step cost the machine holds when others share it;
# wall times do not. The browser tests run under bench/cputime.py, which reaps the Chromium processes that leave
# node's process tree, so they count too. Usage: cpu_mark; echo $cpu_now
cpu_now=0
# CPU time the virtual machine's host gave to others while this ran ("steal", /proc/stat's eighth figure, over every
# CPU, in seconds): a 2-core CI machine whose host is busy runs the same work slower (25 % of the machine's time was
# stolen during one clean-clone run of 2026-12-03 morning), so the run's wall time is read beside it.
steal_s() { awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" '$1 == "cpu" { printf "%d", $9 / hz; exit }' /proc/stat 2>/dev/null || echo 0; }
steal0=$(steal_s)
cpu_mark() {
  times >"${TMPDIR:-/tmp}/hwplan-test-times.$$"
  cpu_now=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }' \
            "${TMPDIR:-/tmp}/hwplan-test-times.$$")
  rm -f "${TMPDIR:-/tmp}/hwplan-test-times.$$"
}
# "(N s, CPU M s)": the wall and CPU seconds since START and CPU0 (cpu_mark's reading then).
took() { local start=$1 cpu0=$2; cpu_mark; printf '      (%ds, CPU %ds)\n' $((SECONDS - start)) $((cpu_now - cpu0)); }

# Runs one step quietly and says how long it took (CI's time limit is read from these); on failure prints
# its log tail. Usage: step NAME LOGFILE command...
step() {
  local name=$1 log=$2 start=$SECONDS rc=0 cpu0; shift 2
  cpu_mark; cpu0=$cpu_now
  printf 'test: %s\n' "$name"
  "$@" >"$log" 2>&1 || rc=$?
  took "$start" "$cpu0"
  if [ $rc -ne 0 ]; then
    tail -40 "$log"
    return 1
  fi
}

bash build-scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }
cpu_mark; printf 'test: setup took %ds (CPU %ds)\n' $SECONDS "$cpu_now"
mkdir -p "$log_dir"

# ctest over one preset: configure, build (the targets named after the preset, or all), run the tests whose names match
# the regex (or all), count. Usage: ctest_preset PRESET [REGEX [TARGET...]]
ctest_preset() {
  local preset=$1 regex=${2:-} log="$log_dir/$1.log"; shift; shift || true
  local targets=""; [ $# -gt 0 ] && targets="--target $*"
  if ! step "$preset: configure and build${targets:+ ($*)}" "$log.build" bash -c "cmake --preset $preset && cmake --build --preset $preset $targets"; then
    note_fail "$preset build"; return
  fi
  step "$preset: ctest${regex:+ -R $regex}" "$log" ctest --preset "$preset" ${regex:+-R "$regex"}
  local summary; summary=$(grep -E 'tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -z "$summary" ]; then note_fail "$preset ctest (no summary)"; return; fi
  local f t; f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary"); t=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
  passed=$((passed + t - f))
  [ "$f" -gt 0 ] && { note_fail "$preset ctest" "$f"; grep -E '^\s+[0-9]+ - ' "$log"; }
  echo "      $summary"
}

# Counts one node --test TAP log into the totals and names what failed (CI shows only the end of the output).
report_tap() { # NAME LOG
  local name=$1 log=$2 p f
  p=$(grep -E '^# pass [0-9]+' "$log" | tail -1 | awk '{print $3}'); f=$(grep -E '^# fail [0-9]+' "$log" | tail -1 | awk '{print $3}')
  if [ -z "$p" ]; then note_fail "$name (no summary)"; tail -20 "$log"; return; fi
  passed=$((passed + p)); [ "$f" -gt 0 ] && note_fail "$name" "$f"
  echo "      $p passed, $f failed"
  # Each failure with the first lines of its error (node's TAP block after "not ok").
  awk '/^ *not ok [0-9]+ - /{sub(/^ *not ok [0-9]+ - /, "      not ok: "); print; n=8; next}
       /^ *\.\.\.$/{n=0; e=0}
       e>0 {sub(/^ */, "          "); print substr($0, 1, 300); e--; next}
       n>0 && /^ *(error|location|expected|actual):/{e=(/\|-?$/ ? 3 : 0); sub(/^ */, "        "); print substr($0, 1, 300); n--}' "$log" || true
}

# node --test over a folder, counting the TAP summary.
node_tests() {
  local name=$1 dir=$2 log="$log_dir/$(basename "$2").log"
  step "$name" "$log" node --test --test-reporter=tap "$dir"/
  report_tap "$name" "$log"
}

# The browser tests in HWPLAN_E2E_JOBS node --test processes side by side (default 1), the files dealt largest first to
# each in turn. On this 2-core machine kind the tests are CPU-bound (software WebGL, the planner in WebAssembly): three
# processes made each test about three times slower and the step no shorter (360 s against 342 s), so one is the default;
# a machine with more cores can set more. Each file loads its page once; no test depends on another file.
browser_tests() {
  local name=$1 dir=$2 start=$SECONDS files=() jobs=${HWPLAN_E2E_JOBS:-1} cpu0
  cpu_mark; cpu0=$cpu_now
  mapfile -t files < <(ls -S "$dir"/*.test.mjs)
  printf 'test: %s (%d files in %d processes)\n' "$name" "${#files[@]}" "$jobs"
  local j i
  for ((j = 0; j < jobs; j++)); do
    local mine=()
    for ((i = j; i < ${#files[@]}; i += jobs)); do mine+=("${files[$i]}"); done
    [ ${#mine[@]} -gt 0 ] && python3 bench/cputime.py --label "e2e process $((j + 1))" \
      node --test --test-reporter=tap "${mine[@]}" >"$log_dir/e2e.$((j + 1)).log" 2>&1 &
  done
  wait
  took "$start" "$cpu0"
  for ((j = 0; j < jobs && j < ${#files[@]}; j++)); do report_tap "$name (process $((j + 1)))" "$log_dir/e2e.$((j + 1)).log"; done
}

# The WebAssembly build (emcc: about a third of the suite's compile CPU) starts here, beside the native and sanitizer
# steps, at the same CPU priority: the browser tests wait for it, so it must not wait for them. At nice 19 it took only
# what they left idle and was still building when the fuzzing ended (a clean-clone run of 2026-12-03 afternoon waited
# 431 s for it there, 26 min 55 s in all). The step "wasm" waits for it and reports it with its own CPU seconds. It runs detached (not a child of this shell,
# so its CPU is not counted in whichever step it ends during), under bench/cputime.py, which writes its CPU line to
# its log; its exit status goes to wasm.rc. HWPLAN_WASM_AHEAD=0 builds it in the step instead, as before.
# BENCHMARKS.md, "The suite's CPU per step".
wasm_ahead=0 wasm_cpu=0
if [ "${HWPLAN_WASM_AHEAD:-1}" = 1 ]; then
  wasm_ahead=1; rm -f "$log_dir/wasm.rc"
  ( ( python3 bench/cputime.py --label wasm bash build-scripts/build-web.sh >"$log_dir/wasm.log" 2>&1
      echo $? >"$log_dir/wasm.rc.tmp" && mv "$log_dir/wasm.rc.tmp" "$log_dir/wasm.rc" ) & ) # the inner one outlives its parent
fi
# The WebAssembly build: waits for the one started above (its log is $log_dir/wasm.log), or builds now.
wasm_build() {
  if [ "$wasm_ahead" != 1 ]; then bash build-scripts/build-web.sh; return; fi
  until [ -f "$log_dir/wasm.rc" ]; do sleep 1; done # a background build's end, not a test's timing
  echo "(built in the background since setup; its log:)"; cat "$log_dir/wasm.log"
  wasm_cpu=$(sed -nE 's/^cputime: wasm .* cpu ([0-9]+)(\.[0-9]+)? s .*/\1/p' "$log_dir/wasm.log" | tail -1)
  return "$(cat "$log_dir/wasm.rc")"
}

# The unit tests are compiled and run once, in the sanitizer tree below (the same tests, under ASan + UBSan: what they
# prove natively they prove there too, and more). The native Release tree builds what runs natively: the CLI (validation,
# the browser tests' reference), the benchmarks (budgets) and the invariants, which run their full 5,000 seeded random
# workloads here (a tenth under the sanitizers). HWPLAN_SKIP_ASAN=1 builds and runs every test natively instead.
# Not the layout search timer (bench/layout_speed.cpp): nothing here runs it (bench.sh builds it when it does).
if [ "${HWPLAN_SKIP_ASAN:-0}" != 1 ]; then
  ctest_preset native '^Invariants[.]' hwplan hwplan_invariants hwplan_bench
else
  ctest_preset native
fi
# Validation suite (issue 9): published measurements against the plan; fails if accuracy fell below the
# level recorded in tests/validation/baseline.json (ACCURACY.md shows the scores, docs/accuracy-report.md every case).
if step "validate: published measurements against the recorded accuracy" "$log_dir/validate.log" \
     build/native/core/hwplan validate --check tests/validation/baseline.json; then
  passed=$((passed + 1)); grep -o "hwplan: validate: .*" "$log_dir/validate.log" | tail -1
else
  note_fail "validate (accuracy below tests/validation/baseline.json)"
fi
# The sanitizer pass: the same tests, built with clang under ASan + UBSan. Each GoogleTest binary runs whole, in one
# process (ctest would start one process per test, each reading the catalog again: 122 s of the 2-core machine's time
# against 35 s), the two at once; the CLI tests run through ctest as natively. Counts are GoogleTest's own.
gtest_whole() { # NAME BINARY LOG [SHARD SHARDS]: runs every test of BINARY (or GoogleTest's shard SHARD of SHARDS); writes "N M"
  local name=$1 bin=$2 log=$3 shard=${4:-0} shards=${5:-1}
  GTEST_SHARD_INDEX=$shard GTEST_TOTAL_SHARDS=$shards \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$bin" --gtest_brief=1 >"$log" 2>&1
  local rc=$? p f
  p=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  f=$(grep -oE '^\[  FAILED  \] [0-9]+ tests?, listed below' "$log" | grep -oE '^\[  FAILED  \] [0-9]+' | grep -oE '[0-9]+$' || echo 0)
  [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1 # a crash or a sanitizer report ends the binary without GoogleTest's summary
  echo "$p $f" >"$log.count"
}
asan_tests() {
  local log="$log_dir/native-asan.log"
  if ! step "native-asan: configure and build" "$log.build" bash -c "cmake --preset native-asan && cmake --build --preset native-asan"; then
    note_fail "native-asan build"; return
  fi
  # Three processes on the two cores: the unit tests in two GoogleTest shards, and the invariants followed by the CLI tests.
  printf 'test: native-asan: the test binaries whole, and the CLI tests through ctest\n'; local start=$SECONDS cpu0
  cpu_mark; cpu0=$cpu_now
  local pids=() # waited for by id: the WebAssembly build may still be running in the background
  gtest_whole hwplan_tests build/native-asan/tests/hwplan_tests "$log.unit" 0 2 & pids+=($!)
  gtest_whole hwplan_tests build/native-asan/tests/hwplan_tests "$log.unit2" 1 2 & pids+=($!)
  { gtest_whole hwplan_invariants build/native-asan/tests/hwplan_invariants "$log.invariants"
    ctest --preset native-asan -R '^cli[.]' -j1 >"$log" 2>&1; } & pids+=($!)
  wait "${pids[@]}"
  took "$start" "$cpu0"
  for part in unit unit2 invariants; do
    local p f; read -r p f <"$log.$part.count"
    passed=$((passed + p))
    echo "      $part: $p passed, $f failed"
    if [ "$f" -gt 0 ]; then note_fail "native-asan $part" "$f"; grep -E '^\[  FAILED  \] [A-Za-z]|ERROR: (Address|Undefined)Sanitizer|runtime error' "$log.$part" | head -20; fi
  done
  local summary; summary=$(grep -E 'tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -z "$summary" ]; then note_fail "native-asan CLI ctest (no summary)"; tail -20 "$log"; return; fi
  local f t; f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary"); t=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
  passed=$((passed + t - f))
  [ "$f" -gt 0 ] && { note_fail "native-asan CLI ctest" "$f"; grep -E '^\s+[0-9]+ - ' "$log"; }
  echo "      CLI: $summary"
}
if [ "${HWPLAN_SKIP_ASAN:-0}" != 1 ]; then asan_tests; fi
# libFuzzer (clang, ASan + UBSan; also skipped by HWPLAN_SKIP_ASAN=1): replay every kept input, then 5 s per target.
# The targets were built with the sanitizer tree above (preset native-asan), so this step only runs them. It runs
# beside the JavaScript and browser tests, started here and reported after them: those leave a core idle for about
# a tenth of their time (pages waiting on frames), which the fuzzers' fixed 5 s per target fills, where on their
# own the fuzzers took 46 s of the run (BENCHMARKS.md, "The suite's CPU per step"). libFuzzer replays the kept inputs
# before its time box starts, so a busier machine fuzzes fewer new inputs in the 5 s, never fewer kept ones; the
# browser tests wait on the page's own idle state, never on time. Detached like the WebAssembly build (its CPU is
# its own line, added to the total); the budgets wait for it, so nothing runs beside their timings.
fuzz_started=0 fuzz_cpu=0 fuzz_start=0
if [ "${HWPLAN_SKIP_ASAN:-0}" != 1 ]; then
  fuzz_started=1 fuzz_start=$SECONDS; rm -f "$log_dir/fuzz.rc"
  printf 'test: fuzz: replay the kept inputs, then fuzz each target for 5 s (beside the JavaScript and browser tests)\n'
  ( ( python3 bench/cputime.py --label fuzz bash build-scripts/fuzz.sh 5 >"$log_dir/fuzz.log" 2>&1
      echo $? >"$log_dir/fuzz.rc.tmp" && mv "$log_dir/fuzz.rc.tmp" "$log_dir/fuzz.rc" ) & )
fi
# The fuzzing started above: waits for it (a background job's end, not a test's timing) and reports it.
fuzz_report() {
  [ "$fuzz_started" = 1 ] || return 0
  until [ -f "$log_dir/fuzz.rc" ]; do sleep 1; done
  fuzz_cpu=$(sed -nE 's/^cputime: fuzz .* cpu ([0-9]+)(\.[0-9]+)? s .*/\1/p' "$log_dir/fuzz.log" | tail -1)
  printf 'test: fuzz (started %ds before its report; CPU %ss)\n' $((SECONDS - fuzz_start)) "${fuzz_cpu:-?}"
  if [ "$(cat "$log_dir/fuzz.rc")" = 0 ]; then
    passed=$((passed + 1)); grep '^fuzz:' "$log_dir/fuzz.log" | sed 's/^/      /'
  else
    note_fail "fuzz"; tail -40 "$log_dir/fuzz.log"
  fi
}
wasm_step_name="wasm: build the web planner into dist/"; [ "$wasm_ahead" = 1 ] && wasm_step_name+=" (started after setup, beside the native steps; this waits for it)"
if step "$wasm_step_name" "$log_dir/wasm.step.log" wasm_build; then
  [ "$wasm_ahead" = 1 ] && printf '      (the build: CPU %ss)\n' "${wasm_cpu:-?}"
  node_tests "node: JavaScript API (hwplan_js)" tests/js
  browser_tests "browser: end-to-end in headless Chromium" tests/e2e
  fuzz_report
  # Budgets (BENCHMARKS.md): reported, not counted; timings on a shared CI machine are not a gate.
  # --quick: the plan-time, size and what-if budget lines from fewer repetitions, no page loads (BENCHMARKS.md, Budgets).
  printf 'test: budgets (build-scripts/bench.sh --budgets --quick; reported only)\n'; budgets_start=$SECONDS
  cpu_mark; budgets_cpu0=$cpu_now
  bash build-scripts/bench.sh --budgets --quick >"$log_dir/budgets.log" 2>&1 || true
  grep '^budget:' "$log_dir/budgets.log" | sed 's/^/      /' || echo "      budgets: no report (see $log_dir/budgets.log)"
  took "$budgets_start" "$budgets_cpu0"
else
  note_fail "wasm build"
  fuzz_report
fi

for f in "${failures[@]}"; do echo "FAILED: $f"; done
# The run's own time (issue 22: under 15 minutes on a clean clone of this 2-core machine kind), and its CPU: the
# whole run's CPU over two cores is the least wall time it could take here.
cpu_mark
echo "test: all steps took $((SECONDS / 60)) min $((SECONDS % 60)) s (${SECONDS} s), CPU $((cpu_now + ${wasm_cpu:-0} + ${fuzz_cpu:-0})) s (user + sys), $(( $(steal_s) - steal0 )) s of the machine's CPU time stolen by its host"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
