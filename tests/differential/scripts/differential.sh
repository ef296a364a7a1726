#!/usr/bin/env bash
# A long local run of the differential test: CHUNKS chunks of CASES bodies, each from its own
# seed (one huge crate compiles slowly), then a summary.
#
#   bash tests/differential/scripts/differential.sh            # 17 x 300 = 5,100 bodies
#   CHUNKS=4 CASES=200 FIRST_SEED=100 bash tests/differential/scripts/differential.sh
#   MRTR_DIFF_FEATURES=all bash tests/differential/scripts/differential.sh   # every feature
#
# Logs go to $LOG_DIR (default target/differential-logs). Exit status: 0 when every chunk
# passed.
set -u
cd "$(dirname "$0")/../../.."
CHUNKS=${CHUNKS:-17}
CASES=${CASES:-300}
FIRST_SEED=${FIRST_SEED:-1}
LOG_DIR=${LOG_DIR:-${CARGO_TARGET_DIR:-target}/differential-logs}
mkdir -p "$LOG_DIR"
passed=0 failed=0 bodies=0 questions=0
failing=()
start=$(date +%s)
for ((i = 0; i < CHUNKS; i++)); do
    seed=$((FIRST_SEED + i))
    log="$LOG_DIR/seed-$seed.log"
    if MRTR_DIFF_CASES=$CASES MRTR_DIFF_SEED=$seed \
        cargo test -q -p mrtr-differential --test differential -- --nocapture >"$log" 2>&1; then
        passed=$((passed + 1))
        status=ok
    else
        failed=$((failed + 1))
        failing+=("$seed")
        status=FAILED
    fi
    summary=$(grep -m1 '^differential: [0-9]* bodies' "$log" || echo "did not run (compile error?)")
    asked=$(sed -n 's/.* \([0-9]*\) questions answered.*/\1/p' "$log" | head -1)
    if [[ -n "$asked" ]]; then
        bodies=$((bodies + CASES))
        questions=$((questions + asked))
    fi
    echo "seed $seed: $status — $summary"
done
echo "----"
echo "differential: $((passed + failed)) chunks, $bodies bodies run, $questions questions answered, $failed failing chunk(s) in $(( $(date +%s) - start ))s; features: ${MRTR_DIFF_FEATURES:-default}"
if ((failed > 0)); then
    echo "failing seeds: ${failing[*]} (logs in $LOG_DIR)"
    exit 1
fi
