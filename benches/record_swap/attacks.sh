#!/usr/bin/env bash
# Record swapping judged by the toolkit's attacks: `intruder mask --method record-swap` on
# sdcMicro's createDat(10000) (results/data.csv, written by compare.R) and the cross-examination
# of each output (the exact attack, every original record known, on the keys given to
# --check-keys). Writes results/attacks/NAME.json (the mask summary, JSON) and prints a table.
#
#   benches/record_swap/attacks.sh [INTRUDER_BIN]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BIN="${1:-${INTRUDER_BIN:-$HERE/../../target/debug/intruder}}"
DATA="$HERE/results/data.csv"
OUT="$HERE/results/attacks"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
[[ -f "$DATA" ]] || { echo "no $DATA: run Rscript benches/record_swap/compare.R first" >&2; exit 1; }
mkdir -p "$OUT"
PERSON=ageGroup,gender,national,hsize

run() { # name, then --set/--check-keys arguments
  local name="$1"; shift
  "$BIN" mask --data "$DATA" --method record-swap --set hid=hid --set similar=hsize \
    --set risk_variables=ageGroup,national --seed 1 --out "$TMP/$name.csv" --format json "$@" \
    > "$OUT/$name.json"
}

run baseline        --set hierarchy=nuts1,nuts2,nuts3 --set k_anonymity=0 --set swaprate=0 --check-keys lau2,$PERSON
run k0_rate05       --set hierarchy=nuts1,nuts2,nuts3 --set carry_along=lau2 --set k_anonymity=0 --check-keys lau2,$PERSON
run k0_rate10       --set hierarchy=nuts1,nuts2,nuts3 --set carry_along=lau2 --set k_anonymity=0 --set swaprate=0.1 --check-keys lau2,$PERSON
run k3_rate05       --set hierarchy=nuts1,nuts2,nuts3 --set carry_along=lau2 --check-keys lau2,$PERSON
run k3_rate05_lau2  --set hierarchy=nuts1,nuts2,nuts3,lau2 --check-keys lau2,$PERSON
run k3_rate05_lau2_not_carried --set hierarchy=nuts1,nuts2,nuts3 --check-keys lau2,$PERSON
run baseline_nuts3  --set hierarchy=nuts1,nuts2,nuts3 --set k_anonymity=0 --set swaprate=0 --check-keys nuts3,$PERSON
run k3_rate05_lau2_not_carried_nuts3 --set hierarchy=nuts1,nuts2,nuts3 --check-keys nuts3,$PERSON

python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
print("| run | households swapped | records changed | exact attack rate | unique correct |")
print("|---|---|---|---|---|")
for name in ["baseline", "k0_rate05", "k0_rate10", "k3_rate05", "k3_rate05_lau2",
             "k3_rate05_lau2_not_carried", "baseline_nuts3", "k3_rate05_lau2_not_carried_nuts3"]:
    d = json.load(open(os.path.join(out, name + ".json")))
    swapped = d["steps"][0]["notes"].split(";")[2].strip().split(" households")[0]
    x = d["cross_examination_1"][0]
    print(f"| {name} | {swapped} | {d['records_changed']} | {100 * d['check_listwise_rate']:.1f}% | {x['unique_reidentifications']} |")
PY
