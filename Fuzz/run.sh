#!/usr/bin/env bash
# Builds the fuzzing harnesses with libFuzzer and AddressSanitizer and runs each for a bounded
# time: `Fuzz/run.sh [SECONDS] [TARGET...]` (30 s each and every target by default). A crash,
# a sanitizer report, a leak or an input slower than 10 s fails the run; the input that did it
# is left in .build/fuzz/artifacts/ (replay it with `.build/debug/workbench-fuzz TARGET FILE`).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(scenario-loader command-line protocol-host protocol-kit document-decoder expectation-matcher
    language-server)
fi

swift build --build-path .build/fuzz --product workbench-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
binary=.build/fuzz/debug/workbench-fuzz
mkdir -p .build/fuzz/artifacts

status=0
for target in "${targets[@]}"; do
  case "$target" in
    scenario-loader) seeds=(Scenarios Tests/WorkbenchScenariosTests/Broken); dict=Fuzz/yaml.dict ;;
    language-server) seeds=(Fuzz/corpus/language-server Scenarios); dict=Fuzz/lsp.dict ;;
    command-line) seeds=(Fuzz/corpus/command-line); dict=Fuzz/commands.dict ;;
    *) seeds=("Fuzz/corpus/$target"); dict=Fuzz/json.dict ;;
  esac
  # libFuzzer reads seed folders flat: gather the seed files into a fresh working corpus.
  corpus=$(mktemp -d)
  # (The repeat and alias bombs are left out: each takes a second to refuse, which would
  # spend the fuzzing time on them; BrokenFilesTests covers them.)
  find "${seeds[@]}" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.txt' -o -name '*.bin' \) \
    ! -name '*-bomb.yaml' -exec cp {} "$corpus/" \; 2>/dev/null || true
  log=.build/fuzz/$target.log
  printf '%-20s ' "$target"
  if WORKBENCH_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=Fuzz/lsan.supp "$binary" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -dict="$dict" -print_final_stats=1 \
    -artifact_prefix=.build/fuzz/artifacts/"$target"- "$corpus" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    echo "ok: $runs executions, $rate per second"
  else
    echo "FAILED (see $log):"
    grep -E "ERROR|SUMMARY|Test unit written|deadly signal|timeout" "$log" | head -8
    status=1
  fi
  rm -rf "$corpus"
done
exit $status
