//! Metrics computed from the stored raw outcome of a run, so a new metric needs no rerun: add
//! it here and run `intruder run FILE` again (stored runs are reused).

use serde_json::Value;

/// Every metric of one run, in a fixed order: `masking.*`, then `<attack>.*`, `risk.<name>.*`
/// and `utility.*`.
pub fn metrics(raw: &Value) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    let num = |v: &Value| v.as_f64();
    if let Some(m) = raw.get("masking").and_then(Value::as_object) {
        for (k, v) in m {
            if let Some(x) = num(v) {
                out.push((format!("masking.{k}"), x));
            }
        }
        if let (Some(a), Some(b)) = (
            m.get("records_changed").and_then(Value::as_f64),
            m.get("rows_out").and_then(Value::as_f64),
        ) && b > 0.0
        {
            out.push(("masking.records_changed_share".into(), a / b));
        }
    }
    if let Some(x) = raw.pointer("/intruder/records").and_then(Value::as_f64) {
        out.push(("intruder.records".into(), x));
    }
    for a in raw
        .get("attacks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = a.get("name").and_then(Value::as_str).unwrap_or("attack");
        out.extend(
            attack_metrics(a)
                .into_iter()
                .map(|(k, v)| (format!("{name}.{k}"), v)),
        );
    }
    for r in raw
        .get("risk")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = r.get("name").and_then(Value::as_str).unwrap_or("risk");
        if let Some(s) = r.get("summary").and_then(Value::as_object) {
            for (k, v) in s {
                match v {
                    Value::Number(n) => {
                        if let Some(x) = n.as_f64() {
                            out.push((format!("risk.{name}.{k}"), x));
                        }
                    }
                    Value::Bool(b) => out.push((format!("risk.{name}.{k}"), f64::from(*b))),
                    _ => {}
                }
            }
        }
    }
    if let Some(u) = raw.get("utility").and_then(Value::as_object) {
        out.extend(utility_metrics(u));
    }
    out
}

/// `utility.<figure>` for every numeric figure of the stored reports, in the order the measures
/// were listed; runs stored by toolkit 0.1.0 (the measures' raw structures) are read as then.
fn utility_metrics(u: &serde_json::Map<String, Value>) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    if u.values()
        .any(|r| r.get("figures").is_some_and(Value::is_array))
    {
        for r in u.values() {
            for f in r
                .get("figures")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(name) = f.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let x = match f.get("value") {
                    Some(Value::Number(n)) => n.as_f64(),
                    Some(Value::Bool(b)) => Some(f64::from(*b)),
                    _ => None,
                };
                if let Some(x) = x {
                    out.push((format!("utility.{name}"), x));
                }
            }
        }
        return out;
    }
    {
        if let Some(il) = u.get("il1s") {
            if let Some(x) = il.get("total").and_then(Value::as_f64) {
                out.push(("utility.il1s".into(), x));
            }
            if let Some(x) = il.get("per_cell").and_then(Value::as_f64) {
                out.push(("utility.il1s_per_cell".into(), x));
            }
        }
        if let Some(ms) = u.get("moments").and_then(Value::as_array) {
            let max_abs = |field: &str| {
                ms.iter()
                    .filter_map(|m| m.get(field).and_then(Value::as_f64))
                    .map(f64::abs)
                    .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
            };
            if let Some(x) = max_abs("mean_rel_diff") {
                out.push(("utility.mean_rel_diff_max".into(), x));
            }
            if let Some(x) = max_abs("var_rel_diff") {
                out.push(("utility.var_rel_diff_max".into(), x));
            }
        }
        if let Some(c) = u.get("correlations") {
            if let Some(x) = c.get("max_abs_diff").and_then(Value::as_f64) {
                out.push(("utility.cor_max_abs_diff".into(), x));
            }
            if let Some(x) = c.get("mean_abs_diff").and_then(Value::as_f64) {
                out.push(("utility.cor_mean_abs_diff".into(), x));
            }
        }
        if let Some(p) = u.get("pmse") {
            if let Some(x) = p.get("pmse").and_then(Value::as_f64) {
                out.push(("utility.pmse".into(), x));
            }
            if let Some(x) = p.get("ratio").and_then(Value::as_f64) {
                out.push(("utility.pmse_ratio".into(), x));
            }
        }
    }
    out
}

fn u64s(v: Option<&Value>) -> Vec<u64> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|x| x.as_u64().unwrap_or(0)).collect())
        .unwrap_or_default()
}

/// An attack's figures, recomputed from its per-record outcomes (METHODS.md §2): twins,
/// correct matches and their rate, Mitra's `Σ 1/c_i` over records whose twin is among the tied
/// best, `c_i = 1` and `c_i ≤ 2` counts, rank-1 and in-candidates rates; precision, recall and
/// attribute disclosure come from the evaluator's figures.
pub fn attack_metrics(a: &Value) -> Vec<(String, f64)> {
    let r = a.get("records");
    let twin = u64s(r.and_then(|r| r.get("twin")));
    let ties = u64s(r.and_then(|r| r.get("best_ties")));
    let rank = u64s(r.and_then(|r| r.get("twin_rank")));
    let correct = u64s(r.and_then(|r| r.get("correct")));
    let cand = u64s(r.and_then(|r| r.get("candidates")));
    let n = twin.len();
    let twins = twin.iter().filter(|&&t| t == 1).count();
    let n_correct = correct.iter().filter(|&&c| c == 1).count();
    let mut expected = 0.0;
    let mut unique = 0usize;
    let mut le2 = 0usize;
    let mut rank1 = 0usize;
    let mut in_cand = 0usize;
    for i in 0..n {
        if rank.get(i).copied().unwrap_or(0) == 1 {
            rank1 += 1;
            let c = ties.get(i).copied().unwrap_or(1).max(1);
            expected += 1.0 / c as f64;
            if c == 1 {
                unique += 1;
            }
            if c <= 2 {
                le2 += 1;
            }
        }
        if rank.get(i).copied().unwrap_or(0) >= 1 {
            in_cand += 1;
        }
    }
    let with_cand = cand.iter().filter(|&&c| c > 0).count();
    let mut out = vec![
        ("intruder_records".to_string(), n as f64),
        ("twins".to_string(), twins as f64),
        ("with_candidates".to_string(), with_cand as f64),
        ("correct_matches".to_string(), n_correct as f64),
    ];
    if twins > 0 {
        let t = twins as f64;
        out.push(("correct_match_rate".into(), n_correct as f64 / t));
        out.push(("expected_rate".into(), expected / t));
        out.push(("rank1_rate".into(), rank1 as f64 / t));
        out.push(("in_candidates_rate".into(), in_cand as f64 / t));
    }
    out.push(("expected_correct".into(), expected));
    out.push(("unique_correct".into(), unique as f64));
    out.push(("le2_correct".into(), le2 as f64));
    if let Some(x) = a.get("released_records").and_then(Value::as_f64) {
        out.push(("released_records".into(), x));
    }
    if let Some(ev) = a.get("evaluation") {
        for k in ["precision", "recall", "f1", "declared", "attribute_A"] {
            if let Some(x) = ev.get(k).and_then(Value::as_f64) {
                out.push((k.to_string(), x));
            }
        }
        if let Some(x) = ev.pointer("/attribute/mean_p").and_then(Value::as_f64) {
            out.push(("attribute_mean_p".into(), x));
        }
    }
    out
}
