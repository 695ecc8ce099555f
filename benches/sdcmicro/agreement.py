#!/usr/bin/env python3
"""sdcMicro agreement checks: the same figures from sdcMicro (agreement.R) and from `intruder`.

Usage:
  python3 benches/sdcmicro/agreement.py [--intruder BIN] [--out DIR] [--skip-r]

Runs `Rscript agreement.R DIR` (sdcMicro's side: data sets exported from the installed package,
per-record and scalar figures, a manifest of the cases), then `intruder` on the same files and
settings (its per-record CSVs and JSON reports go to DIR/intruder/), and writes the comparison
to DIR/summary.md and DIR/summary.json: per figure the number of values compared, how many
differ, the largest absolute and relative difference, and "exact" when every value agrees to
1e-12 relative, else the explanation of the difference found (checked where it can be).

INTRUDER_BIN (or --intruder) names the binary; default target/release/intruder of this checkout.
Needs R with sdcMicro (benches/sdcmicro/install.sh) and Python 3 (standard library only).
"""
import argparse, csv, gzip, json, math, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
REL = 1e-12

def as_list(v):
    return v if isinstance(v, list) else [v]


def read_csv(path):
    """A CSV as dicts; PATH.gz when PATH itself is absent (results are kept gzipped)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        with gzip.open(path + ".gz", "rt", newline="") as f:
            return list(csv.DictReader(f))
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def gzip_csvs(folder):
    """Replaces every FILE.csv in folder by FILE.csv.gz (reproducible: no name, no time)."""
    for name in sorted(os.listdir(folder)):
        if name.endswith(".csv"):
            src = os.path.join(folder, name)
            with open(src, "rb") as f, open(src + ".gz", "wb") as raw:
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as g:
                    g.write(f.read())
            os.remove(src)


def col(rows, name):
    out = []
    for r in rows:
        v = r.get(name, "")
        out.append(None if v in ("", "NA", None) else float(v))
    return out


def compare(a, b):
    """Largest absolute / relative difference of two equal-length lists (None = missing)."""
    assert len(a) == len(b), f"lengths differ: {len(a)} vs {len(b)}"
    n = differ = 0
    max_abs = max_rel = 0.0
    first = None
    for i, (x, y) in enumerate(zip(a, b)):
        n += 1
        if x is None or y is None:
            if (x is None) != (y is None):
                differ += 1
                max_abs = max_rel = math.inf
                first = first if first is not None else (i + 1, x, y)
            continue
        d = abs(x - y)
        scale = max(abs(x), abs(y))
        rel = d / scale if scale > 0 else 0.0
        if rel > REL and d > 0:
            differ += 1
            first = first if first is not None else (i + 1, x, y)
        max_abs = max(max_abs, d)
        max_rel = max(max_rel, rel)
    return {"n": n, "differ": differ, "max_abs": max_abs, "max_rel": max_rel,
            "first_difference": first}


class Runner:
    def __init__(self, binary, out):
        self.bin, self.out = binary, out
        self.idir = os.path.join(out, "intruder")
        os.makedirs(self.idir, exist_ok=True)

    def risk(self, tag, data, keys, measure="frequency", missing="listwise", weight=None,
             group=None, sensitive=None, sets=(), per_record=True):
        per = os.path.join(self.idir, f"{tag}.csv")
        cmd = [self.bin, "risk", "--data", os.path.join(self.out, data), "--keys", ",".join(keys),
               "--measure", measure, "--missing", missing, "--format", "json"]
        if per_record:
            cmd += ["--per-record", per]
        if weight:
            cmd += ["--weight", weight]
        if group:
            cmd += ["--group", group]
        if sensitive:
            cmd += ["--sensitive", sensitive]
        for s in sets:
            cmd += ["--set", s]
        out, shown = self._run(tag, cmd)
        return out, (read_csv(per) if per_record else None), shown

    def mask(self, tag, data, method, sets):
        outp = os.path.join(self.idir, f"{tag}.csv")
        cmd = [self.bin, "mask", "--data", os.path.join(self.out, data), "--method", method,
               "--seed", "1", "--out", outp, "--format", "json"]
        for s in sets:
            cmd += ["--set", s]
        out, shown = self._run(tag, cmd)
        return out, read_csv(outp), shown

    def _run(self, tag, cmd):
        """Runs one command; keeps its JSON output as TAG.json; (parsed output, command shown)."""
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}\n{p.stderr}")
        with open(os.path.join(self.idir, f"{tag}.json"), "w") as f:
            f.write(p.stdout)
        return json.loads(p.stdout), " ".join(cmd[1:]).replace(self.out + "/", "")


def scalar(x):
    return None if x is None else float(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--intruder", default=os.environ.get(
        "INTRUDER_BIN", os.path.join(ROOT, "target", "release", "intruder")))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--skip-r", action="store_true", help="reuse the sdcMicro outputs in --out")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    if not a.skip_r:
        subprocess.run(["Rscript", os.path.join(HERE, "agreement.R"), out], check=True)
    with open(os.path.join(out, "manifest.json")) as f:
        man = json.load(f)
    version = subprocess.run([a.intruder, "--version"], capture_output=True, text=True).stdout.strip()
    run = Runner(a.intruder, out)
    rows = []  # one per (case, figure)

    def add(case, figure, sdc, ours, note="", command="", explain=""):
        """One comparison; `explain` is the reason for a difference, used only if they differ."""
        if isinstance(sdc, list):
            c = compare(sdc, ours)
        else:
            c = compare([scalar(sdc)], [scalar(ours)])
        c.update(case=case, figure=figure, note=note, command=command, explain=explain)
        rows.append(c)
        return c

    for cs in man["cases"]:
        name, data, keys = cs["name"], cs["data"], as_list(cs["keys"])
        w, g, s = cs.get("weight"), cs.get("group"), cs.get("sensitive")
        sdc = read_csv(os.path.join(out, "sdcmicro", f"{name}.csv"))
        with open(os.path.join(out, "sdcmicro", f"{name}.json")) as f:
            sj = json.load(f)
        na = cs["has_missing_keys"]
        policy = "wildcard" if na else "listwise"
        for alpha in as_list(cs["alphas"]):
            atag = "" if alpha == 1 else f"_a{alpha:g}"
            sets = ["global_risk_denominator=all"] + ([f"alpha={alpha}"] if na else [])
            rep, per, cmd = run.risk(f"{name}{atag}", data, keys, missing=policy, weight=w,
                                     group=g, sets=sets)
            fk_ours = col(per, "n_match_alpha") if na else col(per, "k")
            add(name, f"f_k (freqCalc fk){atag}", col(sdc, f"fk{atag}"), fk_ours, command=cmd)
            if w:
                add(name, f"F_k (freqCalc Fk){atag}", col(sdc, f"Fk{atag}"), col(per, "weighted_k"))
                add(name, f"individual risk (indivRisk rk){atag}", col(sdc, f"indivRisk{atag}"),
                    col(per, "individual_risk"))
            if alpha == 1 and na:
                # Mulder's n_match (every wildcard match counts 1) against freqCalc alpha = 1.
                rep_m, per_m, cmd_m = run.risk(f"{name}_nmatch", data, keys, missing="wildcard")
                add(name, "n_match (wildcard) vs freqCalc fk, alpha = 1", col(sdc, "fk"),
                    col(per_m, "n_match"), command=cmd_m)
            for k in as_list(cs["ks"]):
                rep_k, _, _ = run.risk(f"{name}{atag}_k{k}", data, keys, missing=policy,
                                       sets=[f"k_anonymity={k}"] + ([f"alpha={alpha}"] if na else []),
                                       per_record=False)
                add(name, f"violating {k}-anonymity (fk < {k}){atag}", sj[f"fk_below_{k}{atag}"],
                    rep_k["records_fk_below_k"])
            if alpha != 1:
                continue
            # measure_risk: per-record risk, global risk, threshold, household risk.
            add(name, "measure_risk risk", col(sdc, "mr_risk"), col(per, "individual_risk"))
            add(name, "measure_risk fk", col(sdc, "mr_fk"), fk_ours)
            if w:
                add(name, "measure_risk Fk", col(sdc, "mr_Fk"), col(per, "weighted_k"))
            add(name, "global_risk_ER (expected re-identifications)", sj["global_risk_ER"],
                rep["expected_reidentifications"])
            add(name, "global_risk", sj["global_risk"], rep["global_risk"])
            add(name, "global_threshold (max_global_risk 0.01)", sj["global_threshold"],
                rep["global_threshold"])
            add(name, "records above global_threshold", sj["records_above_threshold"],
                rep["records_above_threshold"])
            for mgr in as_list(cs["max_global_risk"]):
                if mgr == 0.01:
                    continue
                t = f"_mgr{mgr:g}"
                rep_t, _, cmd_t = run.risk(f"{name}{t}", data, keys, missing=policy, weight=w,
                                           sets=["global_risk_denominator=all",
                                                 f"max_global_risk={mgr}"])
                add(name, f"global_threshold (max_global_risk {mgr:g})", sj[f"global_threshold{t}"],
                    rep_t["global_threshold"], command=cmd_t)
                add(name, f"records above global_threshold (max_global_risk {mgr:g})",
                    sj[f"records_above_threshold{t}"], rep_t["records_above_threshold"])
            if g:
                add(name, "household risk (hier_risk) per record", col(sdc, "hier_risk"),
                    col(per, "household_risk"),
                    explain="rounding: 1 − Π(1 − r_i) is formed in another order (sdcMicro: by() "
                            "over households sorted by id); on household risks near 0 one unit in "
                            "the last place of 1 − x (2.2e-16) exceeds 1e-12 relative")
                add(name, "hier_risk_ER", sj["hier_risk_ER"],
                    rep["household_expected_reidentifications"])
                add(name, "hier_risk", sj["hier_risk"], rep["household_global_risk"])
            if w:
                rep_u, per_u, cmd_u = run.risk(f"{name}_unweighted", data, keys, missing=policy,
                                               sets=["global_risk_denominator=all"]
                                               + (["alpha=1"] if na else []))
                add(name, "unweighted risk 1/f_k per record", col(sdc, "mr_risk_unweighted"),
                    col(per_u, "individual_risk"), command=cmd_u)
                add(name, "unweighted Σ 1/f_k (global_risk_ER without w)",
                    sj["global_risk_ER_unweighted"], rep_u["expected_reidentifications"])
        if s:
            # sdcMicro's ldiversity keeps a missing key as a value of its own (its C++ groups
            # NA with NA): intruder's as-value policy; on complete keys the same as listwise.
            lpol = "as-value" if na else "listwise"
            ours = {}
            for l in (2, 3):
                rep_l, per_l, cmd_l = run.risk(f"{name}_ldiv_l{l}", data, keys, measure="l-diversity",
                                               missing=lpol, sensitive=s,
                                               sets=[f"recursive_c={cs['l_recurs_c']}",
                                                     f"recursive_l={l}"])
                ours[l] = (per_l, cmd_l)
            per_l, cmd_l = ours[2]
            # Missing sensitive values per class (classes as sdcMicro forms them: a missing key
            # is a value), to check the explanations of the differences.
            src = read_csv(os.path.join(out, data))
            cls = [tuple(r[k] for k in keys) for r in src]
            miss = {}
            for c_, r in zip(cls, src):
                miss[c_] = miss.get(c_, 0) + (r[s] == "")
            nmiss = [miss[c_] for c_ in cls]
            ld = col(per_l, "l_distinct")
            raw = col(sdc, "l_distinct")
            if "l_distinct_m999" in sdc[0]:
                ok = all(t == o + m for t, o, m in zip(raw, ld, nmiss))
                add(name, f"ℓ-diversity distinct ({s}), sdcMicro as called", raw, ld, command=cmd_l,
                    explain="sdcMicro bug: ldiversity hands NA to its C++ code as NA, not as its "
                            "missing code -999, and NA never equals a stored category, so every "
                            "missing sensitive value is a category of its own "
                            f"(sdcMicro = intruder + missing values in the class: "
                            f"{'holds for every record' if ok else 'DOES NOT hold'})")
                m999 = col(sdc, "l_distinct_m999")
                ok = all(t == o + (1 if m and o > 0 else 0) for t, o, m in zip(m999, ld, nmiss))
                add(name, f"ℓ-diversity distinct ({s}), sdcMicro with NA recoded to -999", m999, ld,
                    explain="sdcMicro counts a missing sensitive value as one more category when "
                            "the class has an observed one; intruder counts observed values only "
                            f"(sdcMicro = intruder + 1 exactly in the classes with a missing value: "
                            f"{'holds for every record' if ok else 'DOES NOT hold'})")
                add(name, f"ℓ-diversity distinct ({s}), observed values (R, by class)",
                    col(sdc, "l_distinct_observed"), ld)
                add(name, f"ℓ-diversity entropy ({s}), sdcMicro with NA recoded to -999",
                    col(sdc, "l_entropy_m999"), col(per_l, "l_entropy"),
                    explain="sdcMicro's entropy includes the missing share as one more category; "
                            "intruder's is over the observed values")
                rec_col = "l_recursive_m999"
            else:
                add(name, f"ℓ-diversity distinct ({s})", raw, ld, command=cmd_l)
                add(name, f"ℓ-diversity entropy ({s})", col(sdc, "l_entropy"),
                    col(per_l, "l_entropy"))
                rec_col = "l_recursive"
            for l in (2, 3):
                theirs = [None if v is None else float(v >= l) for v in col(sdc, rec_col)]
                add(name, f"recursive (c = 2, ℓ = {l})-diverse (sdcMicro Recursive_Ldiversity ≥ {l})"
                    + (", NA recoded to -999" if rec_col.endswith("m999") else ""), theirs,
                    col(ours[l][0], "recursive_cl_diverse"), command=ours[l][1])
        if cs.get("suda2"):
            if cs.get("has_missing_keys"):
                # sdcMicro's rule for missing keys: MSUs holding a key the record is missing are
                # dropped, U and P counted with missing as a value.
                rep_s, per_s, cmd_s = run.risk(f"{name}_suda2", data, keys, measure="suda2",
                                               missing="as-value",
                                               sets=["dis_fraction=0.01",
                                                     "drop_msus_with_missing=true"])
            else:
                rep_s, per_s, cmd_s = run.risk(f"{name}_suda2", data, keys, measure="suda2",
                                               sets=["dis_fraction=0.01"])
            add(name, "SUDA2 score", col(sdc, "suda_score"), col(per_s, "score"), command=cmd_s)
            add(name, "DIS-SUDA score", col(sdc, "dis_suda_score"), col(per_s, "dis_score"),
                explain="single precision in sdcMicro: its C++ takes DisFraction as a float "
                        "(Rcpp::as<float>, 0.01f = 0.0099999998) and forms the DIS probability in "
                        "float (Suda2.h); intruder uses double")

    # MDAV: same partition (records grouped by their aggregated values), same values.
    for mc in man["mdav"]:
        name, vars_ = mc["name"], as_list(mc["variables"])
        theirs = read_csv(os.path.join(out, "sdcmicro", f"mdav_{name}.csv"))
        _, ours, cmd = run.mask(f"mdav_{name}", mc["data"], "mdav",
                                [f"variables={','.join(vars_)}", f"k={mc['k']}"])

        def partition(rows):
            groups = {}
            for i, r in enumerate(rows):
                groups.setdefault(tuple(round(float(r[v]), 6) for v in vars_), []).append(i)
            return sorted(tuple(x) for x in groups.values())

        pt, po = partition(theirs), partition(ours)
        same = pt == po
        add(f"mdav {name}", "MDAV groups (number)", float(len(pt)), float(len(po)), command=cmd)
        moved = 0
        if not same:
            # Records whose group differs: for each record, its group as a set of records.
            gt, go = {}, {}
            for g_ in pt:
                for i in g_:
                    gt[i] = g_
            for g_ in po:
                for i in g_:
                    go[i] = g_
            moved = sum(1 for i in gt if gt[i] != go[i])
        # The same groups up to exchanging identical input records? (Groups as multisets of
        # input tuples.)
        src = read_csv(os.path.join(out, mc["data"]))

        def value_groups(p):
            return sorted(tuple(sorted(tuple(src[i][v] for v in vars_) for i in g_)) for g_ in p)

        same_values = value_groups(pt) == value_groups(po)
        why = ("ties between identical input records: of equal distances sdcMicro's hash sort "
               "takes the later record first, intruder the lower row, so identical records trade "
               "groups; as groups of input values the partitions are the same (mdav_precision.py "
               "replays both tie orders)") if same_values else ""
        note = "" if same else (f"{moved} of {len(theirs)} records in another group; as groups of "
                                f"input values: {'identical' if same_values else 'DIFFERENT'}")
        add(f"mdav {name}", "MDAV partition identical (1 = yes)", 1.0, float(same), explain=why,
            note=note)
        add(f"mdav {name}", "MDAV values (every variable and record)",
            [x for v in vars_ for x in col(theirs, v)], [x for v in vars_ for x in col(ours, v)],
            explain=why)

    # Local suppression: sdcMicro's importance passed to intruder; both must reach k-anonymity.
    for lc in man["kanon"]:
        name, keys, k = lc["name"], as_list(lc["keys"]), lc["k"]
        with open(os.path.join(out, "sdcmicro", f"kanon_{name}.json")) as f:
            sj = json.load(f)
        orig = read_csv(os.path.join(out, lc["data"]))
        imp = ",".join(str(i) for i in as_list(lc["importance"]))
        # sdcMicro's rule (missing matches anything): like with like. What the attacks achieve
        # against both outputs, and against intruder's default (protect_against = all), is
        # benches/verdicts/compare.py's table.
        summ, ours, cmd = run.mask(f"kanon_{name}", lc["data"], "local-suppression",
                                   [f"keys={','.join(keys)}", f"k={k}", f"importance=[{imp}]",
                                    "protect_against=wildcard"])
        per_key = {}
        for key in keys:
            per_key[key] = sum(1 for o, m in zip(orig, ours) if o[key] != "" and m[key] == "")
        total = sum(per_key.values())
        # k-anonymity of intruder's output under the wildcard rule, measured by intruder.
        rep_k, _, _ = run.risk(f"kanon_{name}_check", f"intruder/kanon_{name}.csv", keys,
                               missing="wildcard", sets=[f"k_anonymity={k}"], per_record=False)
        rows.append({"case": f"kAnon {name}", "figure": "suppressions (total)",
                     "n": 1, "differ": int(total != sj["total_supps"]),
                     "max_abs": abs(total - sj["total_supps"]), "max_rel": None,
                     "first_difference": None, "command": cmd,
                     "explain": ("different heuristics; both leave no record below k (missing = "
                                 "wildcard)" + ("; intruder suppresses fewer cells"
                                                if total < sj["total_supps"] else ""))
                     if rep_k["records_fk_below_k"] == 0 and sj["min_fk_after"] >= k else "",
                     "note": f"sdcMicro {sj['total_supps']} "
                             f"({', '.join(f'{k_}: {v}' for k_, v in sj['supps'].items())}); "
                             f"intruder {total} ({', '.join(f'{k_}: {v}' for k_, v in per_key.items())}); "
                             f"importance {imp}; records below {k} after intruder's suppression "
                             f"(wildcard n_match): {rep_k['records_fk_below_k']}; sdcMicro's "
                             f"smallest freqCalc fk after: {sj['min_fk_after']:g}",
                     "sdcmicro": sj["total_supps"], "intruder": total})

    # Summary.
    for r in rows:
        if r["differ"] == 0:
            r["verdict"] = "exact"
        elif r.get("explain"):
            r["verdict"] = "explained: " + r["explain"]
        else:
            r["verdict"] = "DIFFERS (unexplained)"
    summary = {"sdcmicro": man["sdcmicro_version"], "r": man["r_version"], "intruder": version,
               "rows": rows}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, default=str)
    lines = [f"sdcMicro {man['sdcmicro_version']} ({man['r_version']}) vs {version}; "
             f"exact = every value within 1e-12 relative.", "",
             "| case | figure | values | differ | max abs diff | max rel diff | verdict |",
             "|---|---|---|---|---|---|---|"]

    def fmt(x):
        return "–" if x is None else ("NA vs value" if x == math.inf else f"{x:.3g}")

    for r in rows:
        verdict = r["verdict"] + (f" ({r['note']})" if r.get("note") else "")
        lines.append(f"| {r['case']} | {r['figure']} | {r['n']} | {r['differ']} | {fmt(r['max_abs'])} "
                     f"| {fmt(r['max_rel'])} | {verdict} |")
    # Condensed: one line per figure over the cases.
    fam = {}
    for r in rows:
        f_ = r["figure"]
        case = r["case"]
        if case.startswith("mdav ") or case.startswith("kAnon "):
            f_, case = case.split(" ")[0] + ": " + f_, case.split(" ", 1)[1]
        e = fam.setdefault(f_, {"exact": [], "explained": [], "unexplained": [], "values": 0,
                                "max_abs": 0.0, "why": []})
        e["values"] += r["n"]
        key = ("exact" if r["verdict"] == "exact" else
               "explained" if r["verdict"].startswith("explained") else "unexplained")
        e[key].append(case)
        if key != "exact":
            if r["max_abs"] is not None:
                e["max_abs"] = max(e["max_abs"], r["max_abs"])
            if r.get("explain") and r["explain"] not in e["why"]:
                e["why"].append(r["explain"])
    short = ["| figure | values compared | exact in | differs in (max abs diff): why |",
             "|---|---|---|---|"]
    for f_, e in fam.items():
        d = e["explained"] + e["unexplained"]
        why = "; ".join(e["why"]) if e["why"] else ("UNEXPLAINED" if e["unexplained"] else "")
        diff = f"{', '.join(d)} ({fmt(e['max_abs'])}): {why}" if d else "–"
        short.append(f"| {f_} | {e['values']} | {', '.join(e['exact']) or '–'} | {diff} |")
    lines = lines[:1] + ["", "## By figure", ""] + short + ["", "## Every comparison", ""] + lines[2:]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # Raw outputs kept, gzipped (read back transparently by read_csv and mdav_precision.py).
    gzip_csvs(run.idir)
    gzip_csvs(os.path.join(out, "sdcmicro"))
    print("\n".join(lines))
    exact = sum(r["verdict"] == "exact" for r in rows)
    expl = sum(r["verdict"].startswith("explained") for r in rows)
    print(f"\n{len(rows)} comparisons: {exact} exact, {expl} explained differences, "
          f"{len(rows) - exact - expl} unexplained", file=sys.stderr)


if __name__ == "__main__":
    main()
