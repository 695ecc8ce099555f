"""The realistic-names variant of a linkage-pair: the same two files (persons, overlap, missing
values, swaps, birth years, postcodes, occupations), with first names and surnames drawn from
realistic distributions with many distinct values, and the typos of file B re-made on them.

Usage: python3 realistic_names.py IN_DIR OUT_DIR [SEED]   (needs `pip install faker`)

Names: Faker's person lists (pip package `faker`), lower case. Surnames: 70% from the US census
surname list with its frequencies (Faker en_US: 1,000 surnames, Smith 2.2%), 30% uniform over
the surnames of 24 other Latin-script locales (about 9,000 more); first names likewise from the
en_US lists with their weights and the other locales' lists. File A holds each person's name;
in file B a name that equalled A's stays the person's new name, a swapped one is swapped, a
missing one stays missing, and one with a typo gets a new typo (one insertion, deletion,
substitution or transposition of adjacent letters) on the new name.
"""
import csv
import difflib
import os
import random
import sys

from faker.providers.person.en_US import Provider as US
import importlib

src, dst = sys.argv[1], sys.argv[2]
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = random.Random(seed)
LOCALES = ["en_GB", "en_IE", "de_DE", "de_AT", "fr_FR", "it_IT", "es_ES", "es_MX", "pt_PT",
           "pt_BR", "nl_NL", "nl_BE", "sv_SE", "no_NO", "da_DK", "fi_FI", "pl_PL", "cs_CZ",
           "sk_SK", "hu_HU", "ro_RO", "hr_HR", "sl_SI", "tr_TR"]


def names(attr):
    out = set()
    for loc in LOCALES:
        p = importlib.import_module(f"faker.providers.person.{loc}").Provider
        v = getattr(p, attr, ())
        out.update(v.keys() if hasattr(v, "keys") else v)
    return sorted({n.lower() for n in out if n.isalpha()})


def weighted(d):
    keys = [k.lower() for k in d]
    return keys, list(d.values())


us_last, us_last_w = weighted(US.last_names)
us_first, us_first_w = weighted({**US.first_names_male, **US.first_names_female})
other_last, other_first = names("last_names"), names("first_names")


def draw(us, w, other):
    if rng.random() < 0.7:
        return rng.choices(us, w)[0]
    return rng.choice(other)


def typo(s):
    if len(s) < 2:
        return s + rng.choice("abcdefghijklmnopqrstuvwxyz")
    c = list(s)
    k = rng.randrange(len(c) - 1)
    op = rng.randrange(4)
    if op == 0:
        c[k] = rng.choice("abcdefghijklmnopqrstuvwxyz")
    elif op == 1:
        del c[k]
    elif op == 2:
        c.insert(k, rng.choice("abcdefghijklmnopqrstuvwxyz"))
    else:
        c[k], c[k + 1] = c[k + 1], c[k]
    return "".join(c)


def read(name):
    with open(os.path.join(src, name), newline="") as f:
        r = csv.DictReader(f)
        return r.fieldnames, list(r)


os.makedirs(dst, exist_ok=True)
head_a, a = read("file-a.csv")
head_b, b = read("file-b.csv")
new = {}
orig = {}
for r in a:
    p = r["person_id"]
    orig[p] = (r["first_name"], r["surname"])
    new[p] = (draw(us_first, us_first_w, other_first), draw(us_last, us_last_w, other_last))
    r["first_name"] = new[p][0] if r["first_name"] else ""
    r["surname"] = new[p][1] if r["surname"] else ""
for r in b:
    p = r["person_id"]
    if p not in new:
        new[p] = (draw(us_first, us_first_w, other_first), draw(us_last, us_last_w, other_last))
        orig[p] = (None, None)
    (of, ol), (nf, nl) = orig[p], new[p]
    out = []
    for v in (r["first_name"], r["surname"]):
        if v == "":
            out.append("")
        elif v == of:
            out.append(nf)
        elif v == ol:
            out.append(nl)
        elif of is None:
            out.append(nf if not out else nl)
        else:
            # A typo of the original first name or surname (the closer of the two; a
            # swapped name may carry one too): a new typo of the new name.
            sim = lambda x: difflib.SequenceMatcher(None, v, x or "").ratio()
            out.append(typo(nf if sim(of) >= sim(ol) else nl))
    r["first_name"], r["surname"] = out
for name, head, rows in [("file-a.csv", head_a, a), ("file-b.csv", head_b, b)]:
    with open(os.path.join(dst, name), "w", newline="") as f:
        w = csv.DictWriter(f, head)
        w.writeheader()
        w.writerows(rows)
for s in ["file-a.schema.toml", "file-b.schema.toml"]:
    with open(os.path.join(src, s)) as f, open(os.path.join(dst, s), "w") as g:
        g.write(f.read())
print(f"{len({x for v in new.values() for x in [v[1]]})} distinct surnames, "
      f"{len({v[0] for v in new.values()})} distinct first names", file=sys.stderr)
