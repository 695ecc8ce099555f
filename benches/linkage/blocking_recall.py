"""Blocking rules of the 1,000,000 x 1,000,000 linkage benchmark: candidate pairs per rule (pairs
of earlier rules excluded) and blocking recall (share of the persons in both files whose two
records agree on some rule). Usage: python3 blocking_recall.py FILE_A FILE_B (needs duckdb)."""
import json
import sys

import duckdb

# The rules of linkage_1m.toml.
RULES = [
    ["postcode", "birth_year"],
    ["postcode", "first_name"],
    ["first_name", "surname", "birth_month"],
]
a, b = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET threads = 2")
for t, f in [("a", a), ("b", b)]:
    con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_csv('{f}', all_varchar = true)")


def agree(rule):
    return " AND ".join(f"(a.{e} IS NOT NULL AND a.{e} = b.{e})".replace("a.substr(surname, 1, 1)", "substr(a.surname, 1, 1)").replace("b.substr(surname, 1, 1)", "substr(b.surname, 1, 1)") for e in rule)


def key(t, rule):
    return ", ".join(e.replace("surname", f"{t}.surname") if e.startswith("substr") else f"{t}.{e}" for e in rule)


out = {"rules": [" + ".join(r) for r in RULES], "pairs_per_rule": []}
for r, rule in enumerate(RULES):
    # Pairs agreeing on rule r and on no earlier rule: count by joining on the key.
    ka, kb = key("a", rule), key("b", rule)
    earlier = " OR ".join(f"({agree(e)})" for e in RULES[:r]) or "false"
    n = con.execute(
        f"SELECT count(*) FROM a JOIN b ON {agree(rule)} WHERE NOT coalesce({earlier}, false)"
    ).fetchone()[0]
    out["pairs_per_rule"].append(n)
    print(rule, n, file=sys.stderr, flush=True)
any_rule = " OR ".join(f"({agree(e)})" for e in RULES)
twins, kept = con.execute(
    f"SELECT count(*), count(*) FILTER (WHERE {any_rule}) FROM a JOIN b ON a.person_id = b.person_id"
).fetchone()
out |= {"candidate_pairs": sum(out["pairs_per_rule"]), "twins": twins, "twins_blocked": kept, "blocking_recall": kept / twins}
print(json.dumps(out, indent=1))
