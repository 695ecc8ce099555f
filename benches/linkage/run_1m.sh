#!/usr/bin/env bash
# The 1,000,000 x 1,000,000 linkage benchmark, intruder only, on 2 cores (taskset -c 0,1):
# the comparisons of linkage.toml, the blocking of linkage_1m.toml (blocking recall >= 0.95,
# checked by blocking_recall.py with duckdb). Usage: benches/linkage/run_1m.sh [WORKDIR] [SEED]
# Writes the raw figures to benches/linkage/results/linkage_1000000.json. Delete WORKDIR after.
set -euo pipefail
DIR=${1:-target/linkage-bench-1m}
SEED=${2:-1}
BIN=${BIN:-target/release/intruder}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
if [ ! -f "$DIR/data/file-b.csv" ]; then
  "$BIN" synth linkage-pair --out "$DIR/data" --seed "$SEED" --set n=1000000 --set n_b=1000000 --set overlap=0.5
fi
python3 "$HERE/blocking_recall.py" "$DIR/data/file-a.csv" "$DIR/data/file-b.csv" > "$DIR/blocking.json"
INTRUDER_FS_TIMING=1 /usr/bin/time -v taskset -c 0,1 "$BIN" attack --method fellegi-sunter \
  --intruder "$DIR/data/file-a.csv" --released "$DIR/data/file-b.csv" \
  --intruder-schema "$DIR/data/file-a.schema.toml" --released-schema "$DIR/data/file-b.schema.toml" \
  --linkage-spec "$HERE/linkage_1m.toml" --truth person_id --threshold 0.5 --assignment greedy \
  --seed "$SEED" --format json --out "$DIR/intruder.json" 2> "$DIR/intruder.time"
grep -E "fellegi-sunter:|User time|System time|Elapsed|Maximum resident" "$DIR/intruder.time"
python3 "$HERE/summarize.py" "$DIR" "$HERE/results/linkage_1000000.json"
