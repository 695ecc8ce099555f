#!/usr/bin/env bash
# Instruction counts (callgrind, one thread) of the key-coding engines in keys_bench: the count
# of a run minus the count of its setup alone. Repeatable to ~0.01% whatever else the machine
# is doing, so before/after comparisons of a refactoring hold on a shared machine.
#   cargo build --release -p intruder-benches --bin keys_bench && benches/keys/instructions.sh
# BIN=path/to/keys_bench counts another build (e.g. one of an earlier commit).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${BIN:-target/release/keys_bench}
count() {
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 \
        | awk '/Collected/ {print $4}'
}
echo "{"
first=1
for c in classes n_match suppression exact; do
    run=$(count --once --only "$c")
    setup=$(count --setup-only --only "$c")
    [ $first = 1 ] || echo ","
    first=0
    printf '  "%s": %d' "$c" $((run - setup))
done
echo
echo "}"
