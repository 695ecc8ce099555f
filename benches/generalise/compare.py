"""Prints ARX's and intruder's optima side by side (one row per metric and k) and exits non-zero
when a score differs by more than 1e-9 (relative, for the large discernibility and entropy
scores) or the suppressed counts differ.

Usage: python3 compare.py arx.jsonl intruder.jsonl
"""
import json
import sys

arx = [json.loads(l) for l in open(sys.argv[1])]
ours = [json.loads(l) for l in open(sys.argv[2])]
bad = 0
print("| metric | k | ARX score | intruder score | same levels | suppressed (ARX / intruder) "
      "| nodes checked (ARX / intruder) | ARX s | intruder s | ratio |")
print("|---|---|---|---|---|---|---|---|---|---|")
for a, b in zip(arx, ours, strict=True):
    assert (a["metric"], a["k"]) == (b["metric"], b["k"]), (a, b)
    diff = abs(a["score"] - b["score"]) / max(1.0, abs(a["score"]))
    same = a["levels"] == b["levels"]
    if diff > 1e-9 or a["suppressed"] != b["suppressed"]:
        bad += 1
    print(f"| {a['metric']} | {a['k']} | {a['score']!r} | {b['score']!r} | {'yes' if same else 'no'} "
          f"| {a['suppressed']} / {b['suppressed']} | {a['nodes_checked']} / {b['nodes_checked']} "
          f"| {a['seconds']:.3f} | {b['seconds']:.3f} | {b['seconds'] / a['seconds']:.2f} |")
sys.exit(1 if bad else 0)
