#!/usr/bin/env bash
# What the cross-examination adds to `intruder mask` (issue 32): a census look-alike of
# 1,000,000 records x 8 keys (data-synth `census`, seed 3), local suppression to k = 3
# (protect_against = all), seven times each way in turn, timed by the command's own --timings and
# by GNU time (user + system CPU); the medians, and the machine's load, go to
# results/check_overhead.json.
#   benches/verdicts/check_overhead.sh [INTRUDER] [WORKDIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
bin="${1:-$root/target/release/intruder}"
work="${2:-$root/target/verdicts}"
mkdir -p "$work"
[[ -f "$work/census8/population.csv" ]] || "$bin" synth census --n 1000000 --set keys=8 --set fraction=1 --seed 3 --out "$work/census8" >/dev/null
keys=k01,k02,k03,k04,k05,k06,k07,k08
one() { # extra args... -> "timings: ... cpu U S"
  /usr/bin/time -f "cpu: %U %S" "$bin" mask --data "$work/census8/population.csv" --method local-suppression \
    --set keys=$keys --set k=3 --seed 1 --out "$work/census8_ls.csv" --timings "$@" 2>&1 >/dev/null \
    | grep -E '^(timings|cpu):' | tr '\n' ' '
  echo
}
# with and without the check in turn, so a change in the machine's load falls on both alike
with=""; without=""
for i in 1 2 3 4 5 6 7; do
  with+="$(one)"$'\n'
  without+="$(one --no-check)"$'\n'
done
python3 - "$with" "$without" "$(cat /proc/loadavg)" <<'PY' > "$here/results/check_overhead.json"
import json, re, statistics, sys
def parse(block):
    rows = []
    for line in block.strip().splitlines():
        row = {k: float(v) for k, v in re.findall(r"(\w+) ([0-9.]+) s", line)}
        u, s = re.search(r"cpu: ([0-9.]+) ([0-9.]+)", line).groups()
        row["cpu"] = round(float(u) + float(s), 3)
        rows.append(row)
    return rows
w, wo = parse(sys.argv[1]), parse(sys.argv[2])
med = lambda rows, k: statistics.median(r.get(k, 0.0) for r in rows)
out = {
    "file": "data-synth census, n = 1,000,000, keys = 8, seed 3; local-suppression k = 3, protect_against = all",
    "runs": "seven each way, in turn; wall phases from --timings, cpu = the process's user + system (GNU time)",
    "load_average_after": sys.argv[3],
    "with_check": w, "without_check": wo,
    "median_total_with": med(w, "total"), "median_total_without": med(wo, "total"),
    "median_cpu_with": med(w, "cpu"), "median_cpu_without": med(wo, "cpu"),
    "median_check": med(w, "check"), "median_mask": med(wo, "mask"),
}
out["overhead"] = out["median_total_with"] / out["median_total_without"] - 1
out["check_share"] = out["median_check"] / out["median_total_without"]
out["cpu_overhead"] = out["median_cpu_with"] / out["median_cpu_without"] - 1
print(json.dumps(out, indent=1))
PY
cat "$here/results/check_overhead.json" | grep -E '"(median|overhead|check_share|cpu_overhead|load)'
