#!/usr/bin/env bash
# Linkage benchmark: intruder fellegi-sunter vs Splink (DuckDB, its recommended training recipe)
# on the same files, same comparisons, same blocking, same one-to-one rule and scorer.
# Usage: benches/linkage/run.sh [WORKDIR] [N] [SEED]   (from the repository root; needs a release
# build: cargo build --release -p intruder-cli, and `pip install splink duckdb`)
# Writes the raw figures to benches/linkage/results/linkage_N.json (RESULT=NAME: NAME.json;
# SKIP_SPLINK=1: ours only). The realistic-names variant: realistic_names.py makes the files
# (pip install faker), then run.sh on their directory:
#   python3 benches/linkage/realistic_names.py target/linkage-bench/data target/linkage-bench-real/data 1
#   RESULT=linkage_100000_realistic_names benches/linkage/run.sh target/linkage-bench-real 100000 1
set -euo pipefail
DIR=${1:-target/linkage-bench}
N=${2:-100000}
SEED=${3:-1}
BIN=${BIN:-target/release/intruder}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
if [ ! -f "$DIR/data/file-b.csv" ]; then
  # N x N records, half of A's persons in B; ~10% name typos, ~5% missing per field,
  # ~2% first-name/surname swaps, 5% birth years off by one (the generator's defaults).
  "$BIN" synth linkage-pair --out "$DIR/data" --seed "$SEED" --set n="$N" --set n_b="$N" --set overlap=0.5
fi
echo "== intruder fellegi-sunter"
INTRUDER_FS_TIMING=1 /usr/bin/time -v "$BIN" attack --method fellegi-sunter \
  --intruder "$DIR/data/file-a.csv" --released "$DIR/data/file-b.csv" \
  --intruder-schema "$DIR/data/file-a.schema.toml" --released-schema "$DIR/data/file-b.schema.toml" \
  --linkage-spec "$HERE/linkage.toml" --truth person_id --threshold 0.5 --assignment greedy \
  --seed "$SEED" --format json --out "$DIR/intruder.json" 2> "$DIR/intruder.time"
grep -E "fellegi-sunter:|User time|System time|Elapsed|Maximum resident" "$DIR/intruder.time"
if [ -z "${SKIP_SPLINK:-}" ]; then
  echo "== splink"
  /usr/bin/time -v python3 "$HERE/peers/splink_run.py" "$DIR/data/file-a.csv" "$DIR/data/file-b.csv" "$SEED" \
    > "$DIR/splink.json" 2> "$DIR/splink.time"
  grep -E "User time|System time|Elapsed|Maximum resident" "$DIR/splink.time"
fi
python3 "$HERE/summarize.py" "$DIR" "$HERE/results/${RESULT:-linkage_$N}.json"
