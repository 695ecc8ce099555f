"""Raw outputs of a linkage benchmark run, kept small for the repository: the figures of
intruder.json (not its precision/recall curve), splink.json, and the /usr/bin/time -v lines of
each tool. Usage: python3 summarize.py WORKDIR OUT.json"""
import json
import os
import platform
import sys
import time

d, out = sys.argv[1], sys.argv[2]


def timing(path):
    keep = ("User time", "System time", "Elapsed", "Maximum resident", "Exit status")
    if not os.path.exists(path):
        return None
    lines = [l.strip() for l in open(path) if l.strip().startswith(keep) or l.startswith("fellegi-sunter:")]
    return lines


res = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
       "load_average_at_summary": os.getloadavg()}
p = os.path.join(d, "intruder.json")
if os.path.exists(p):
    r = json.load(open(p))
    res["intruder"] = {k: r[k] for k in ["twins", "declared", "precision", "recall", "f1"] if k in r}
    res["intruder"]["levels"] = {c["column"]: [[l["level"], l["m"], l["u"], l["weight"], l["pairs"]] for l in c["levels"]]
                                 for c in r.get("model", {}).get("comparisons", [])}
    res["intruder"]["notes"] = dict(r["notes"])
    res["intruder"]["time"] = timing(os.path.join(d, "intruder.time"))
p = os.path.join(d, "splink.json")
if os.path.exists(p):
    res["splink"] = json.load(open(p))
    res["splink"]["time"] = timing(os.path.join(d, "splink.time"))
p = os.path.join(d, "blocking.json")
if os.path.exists(p):
    res["blocking"] = json.load(open(p))
json.dump(res, open(out, "w"), indent=1)
print(json.dumps({k: res[k] for k in res if k != 'intruder'} | {'intruder': {k: v for k, v in res.get('intruder', {}).items() if k not in ('notes', 'levels')}}, indent=1))
