#!/usr/bin/env bash
# Linkage benchmark: intruder fellegi-sunter vs Splink (DuckDB) on the same files, same model.
# Usage: benches/linkage/run.sh [WORKDIR] [N] [SEED]   (from the repository root; needs a release
# build: cargo build --release -p intruder-cli, and `pip install splink`)
set -euo pipefail
DIR=${1:-/tmp/linkage-bench}
N=${2:-100000}
SEED=${3:-1}
BIN=${BIN:-target/release/intruder}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
if [ ! -f "$DIR/data/file-b.csv" ]; then
  # 100,000 x 100,000 records, 50,000 persons in both; ~10% name typos, ~5% missing per field,
  # ~2% first-name/surname swaps, 5% birth years off by one (the generator's defaults).
  "$BIN" synth linkage-pair --out "$DIR/data" --seed "$SEED" --set n="$N" --set n_b="$N" --set overlap=0.5
fi
echo "== intruder fellegi-sunter"
/usr/bin/time -v "$BIN" attack --method fellegi-sunter \
  --intruder "$DIR/data/file-a.csv" --released "$DIR/data/file-b.csv" \
  --intruder-schema "$DIR/data/file-a.schema.toml" --released-schema "$DIR/data/file-b.schema.toml" \
  --linkage-spec "$HERE/linkage.toml" --truth person_id --threshold 0.5 --assignment greedy \
  --seed "$SEED" --format json --out "$DIR/intruder.json" 2> "$DIR/intruder.time"
python3 - "$DIR/intruder.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
notes = dict(r["notes"])
print(json.dumps({k: r[k] for k in ["declared", "precision", "recall", "f1"]} | {
    "candidate_pairs": notes["candidate_pairs"], "em_iterations": notes["em_iterations"],
    "em_converged": notes["em_converged"]}))
PY
grep -E "User time|System time|Elapsed|Maximum resident" "$DIR/intruder.time"
echo "== splink"
/usr/bin/time -v python3 "$HERE/peers/splink_run.py" "$DIR/data/file-a.csv" "$DIR/data/file-b.csv" "$SEED" \
  > "$DIR/splink.json" 2> "$DIR/splink.time"
cat "$DIR/splink.json"
grep -E "User time|System time|Elapsed|Maximum resident" "$DIR/splink.time"
