#!/usr/bin/env bash
# A long local run of the differential test: CHUNKS chunks of CASES bodies, each from its own
# seed (one huge crate compiles slowly), then a summary.
#
#   bash tests/differential/scripts/differential.sh            # 17 x 300 = 5,100 bodies
#   CHUNKS=4 CASES=200 FIRST_SEED=100 bash tests/differential/scripts/differential.sh
#   MRTR_DIFF_FEATURES=all bash tests/differential/scripts/differential.sh   # every feature but
#       those that reproduce an open finding (OPEN_FINDINGS in gen/generator.rs; name them: +name)
#
# A body the macro refuses by design (a kept value hidden where it must be kept, see
# FINDINGS.md) fails its whole chunk to compile: the chunk is run again without it, and the
# summary counts it. Any other compile error fails the chunk.
#
# Logs go to $LOG_DIR (default target/differential-logs). Exit status: 0 when every chunk
# passed.
set -u
cd "$(dirname "$0")/../../.."
CHUNKS=${CHUNKS:-17}
CASES=${CASES:-300}
FIRST_SEED=${FIRST_SEED:-1}
LOG_DIR=${LOG_DIR:-${CARGO_TARGET_DIR:-target}/differential-logs}
# Each chunk is a new crate: incremental caches of 17 chunks would only fill the disk.
export CARGO_INCREMENTAL=0
REFUSAL='is kept across an ask!, but another binding named'
mkdir -p "$LOG_DIR"
passed=0 failed=0 bodies=0 questions=0 refused=0
failing=()
start=$(date +%s)

# The numbers of the bodies a failed build refused by design, or nothing if any other error
# is in the log.
refused_bodies() {
    local log=$1
    local others
    others=$(grep -E '^error' "$log" | grep -v -e "$REFUSAL" -e '^error: could not compile' -e '^error: aborting' | head -1)
    [[ -n "$others" ]] && return 0
    grep -A1 -e "$REFUSAL" "$log" | sed -n 's/^ *--> \(.*cases\.rs\):\([0-9]*\):.*/\1 \2/p' |
        while read -r file line; do
            # The body is the last `case_N` function that starts at or before the error.
            awk -v line="$line" 'NR <= line && match($0, /fn case_[0-9]+\(/) { n = substr($0, RSTART + 8, RLENGTH - 9) } NR == line { print n; exit }' "$file"
        done | sort -un | paste -sd, -
}

for ((i = 0; i < CHUNKS; i++)); do
    seed=$((FIRST_SEED + i))
    log="$LOG_DIR/seed-$seed.log"
    skip=""
    for attempt in 1 2 3; do
        if MRTR_DIFF_CASES=$CASES MRTR_DIFF_SEED=$seed MRTR_DIFF_SKIP=$skip \
            cargo test -q -p mrtr-differential --test differential -- --nocapture >"$log" 2>&1; then
            status=ok
            break
        fi
        status=FAILED
        more=$(refused_bodies "$log")
        [[ -z "$more" ]] && break
        skip=${skip:+$skip,}$more
    done
    dropped=0
    [[ -n "$skip" ]] && dropped=$(tr ',' '\n' <<<"$skip" | wc -l)
    if [[ $status == ok ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failing+=("$seed")
    fi
    summary=$(grep -m1 '^differential: [0-9]* bodies' "$log" || echo "did not run (compile error?)")
    asked=$(sed -n 's/.* \([0-9]*\) questions answered.*/\1/p' "$log" | head -1)
    if [[ -n "$asked" ]]; then
        bodies=$((bodies + CASES - dropped))
        questions=$((questions + asked))
        refused=$((refused + dropped))
    fi
    echo "seed $seed: $status — $summary${skip:+ (refused by design and left out: bodies $skip)}"
done
echo "----"
echo "differential: $((passed + failed)) chunks, $bodies bodies compared, $questions questions answered, $refused bodies refused by design, $failed failing chunk(s) in $(( $(date +%s) - start ))s; features: ${MRTR_DIFF_FEATURES:-default}"
if ((failed > 0)); then
    echo "failing seeds: ${failing[*]} (logs in $LOG_DIR)"
    exit 1
fi
