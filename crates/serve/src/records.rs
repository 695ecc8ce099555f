//! The records an attack re-identified, and why: for one setting, replicate and attack of a
//! finished experiment, every intruder record with its key values, its candidates in the
//! release (c_i of them tied at the best score, each with its values), whether the attack's
//! pick is the true record, and for Fellegi–Sunter the agreement pattern of the best pair.
//!
//! The stored runs keep per-record counts only, so the run's attack is redone once by the
//! runner ([`intruder_runner::attack_records`]: the same release, intruder, seeds and
//! evaluation as the run), and pages are cut from memory. The attack sees the intruder's key
//! columns and the release only; whether a pick is correct comes from the evaluator, which
//! reads the truth afterwards — the runner keeps that separation, and this module only shows
//! what both returned. The agreement pattern is the attack's own explanation of a pair
//! ([`intruder_attack::LinkModel::explain_pair`], the waterfall of the linkage charts): of the
//! pair it picked and, when the pick is wrong, of the pair with the true record.

use intruder_attack::Candidate;
use intruder_runner::AttackRecords;
use serde_json::{Value, json};

/// The most records one page holds.
pub const MAX_PAGE: usize = 500;

/// The most candidates shown per record (the pick is shown too when it is not among them).
pub const CANDIDATES_SHOWN: usize = 10;

/// What a records view is of: setting label, replicate (1-based) and attack name.
pub type RecordsKey = (String, u32, String);

/// What became of an intruder record, in the order the page lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A declared link to the true record: re-identified.
    Correct,
    /// A declared link to another record.
    Wrong,
    /// No declared link (no candidate, or the best below the attack's threshold).
    NotLinked,
}

impl Status {
    /// Every status, in listing order.
    pub const ALL: [Status; 3] = [Status::Correct, Status::Wrong, Status::NotLinked];

    /// The name the API uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Correct => "correct",
            Status::Wrong => "wrong",
            Status::NotLinked => "not-linked",
        }
    }

    /// The status named `name`.
    pub fn parse(name: &str) -> Result<Status, String> {
        Status::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or_else(|| {
                format!("status: '{name}' is not one of correct, wrong, not-linked (or all)")
            })
    }
}

/// One attack of one run, record by record, ordered for the page.
pub struct RecordsView {
    /// The setting's label.
    pub setting: String,
    /// The replicate, 1-based.
    pub replicate: u32,
    /// The attack's name in the experiment.
    pub attack: String,
    /// The attack's method.
    pub method: String,
    /// The attack redone.
    out: AttackRecords,
    /// Each record's status.
    status: Vec<Status>,
    /// Intruder rows: correct, then wrong, then not linked, each in row order.
    order: Vec<u32>,
    /// Records per status, in [`Status::ALL`] order.
    counts: [usize; 3],
}

impl RecordsView {
    /// Orders the records of an attack redone: re-identified first, then wrong links, then
    /// records not linked.
    pub fn new(
        setting: String,
        replicate: u32,
        attack: String,
        method: String,
        out: AttackRecords,
    ) -> RecordsView {
        let status: Vec<Status> = out
            .evaluation
            .records
            .iter()
            .zip(&out.declared)
            .map(|(r, &declared)| match (declared, r.correct) {
                (true, true) => Status::Correct,
                (true, false) => Status::Wrong,
                (false, _) => Status::NotLinked,
            })
            .collect();
        let mut counts = [0usize; 3];
        let mut order: Vec<u32> = Vec::with_capacity(status.len());
        for (k, s) in Status::ALL.into_iter().enumerate() {
            let before = order.len();
            order.extend((0..status.len() as u32).filter(|&i| status[i as usize] == s));
            counts[k] = order.len() - before;
        }
        RecordsView {
            setting,
            replicate,
            attack,
            method,
            out,
            status,
            order,
            counts,
        }
    }

    /// The intruder rows with `status` (all records for `None`), in listing order.
    fn listed(&self, status: Option<Status>) -> &[u32] {
        let Some(s) = status else {
            return &self.order;
        };
        let k = Status::ALL.iter().position(|x| *x == s).unwrap_or(0);
        let start: usize = self.counts[..k].iter().sum();
        &self.order[start..start + self.counts[k]]
    }

    /// A page: `limit` records from `offset` of those with `status`, with the view's header
    /// (keys, counts, the evaluator's figures). An offset past the end gives no records.
    pub fn page(&self, status: Option<Status>, offset: usize, limit: usize) -> Value {
        let listed = self.listed(status);
        let rows: Vec<Value> = listed
            .iter()
            .skip(offset)
            .take(limit)
            .map(|&i| self.record_json(i as usize))
            .collect();
        let ev = &self.out.evaluation;
        let keys: Vec<Value> = self
            .out
            .keys
            .pairs()
            .iter()
            .map(|p| json!({"intruder": p.intruder, "released": p.released}))
            .collect();
        json!({
            "setting": self.setting,
            "replicate": self.replicate,
            "attack": self.attack,
            "method": self.method,
            "keys": keys,
            "intruder_records": ev.intruder_records,
            "released_records": ev.released_records,
            "counts": {
                "correct": self.counts[0],
                "wrong": self.counts[1],
                "not-linked": self.counts[2],
            },
            "evaluator": {
                "twins": ev.twins,
                "correct_matches": ev.correct_matches,
                "expected_correct": ev.expected_correct,
                "unique_correct": ev.unique_correct,
                "declared": ev.declared,
                "threshold": ev.threshold,
            },
            "fitted_model": self.out.linked.model.is_some(),
            "status": status.map_or("all", Status::as_str),
            "total": listed.len(),
            "offset": offset,
            "limit": limit,
            "rows": rows,
        })
    }

    /// One intruder record: its key values, its candidates (best first, with their values),
    /// its c_i, the pick and whether it is the true record, and the pattern of the best pair
    /// when the attack fitted a model.
    fn record_json(&self, i: usize) -> Value {
        let out = &self.out;
        let r = &out.evaluation.records[i];
        let pairs = out.keys.pairs();
        let values: Vec<Value> = pairs
            .iter()
            .map(|p| cell(out.intruder.table(), &p.intruder, i))
            .collect();
        let cands = &out.linked.linkage.records[i];
        let mut shown: Vec<&Candidate> = cands.list.iter().take(CANDIDATES_SHOWN).collect();
        if let Some(c) = r
            .chosen_row
            .and_then(|j| cands.list.iter().find(|c| c.row == j))
            && !shown.iter().any(|s| s.row == c.row)
        {
            shown.push(c);
        }
        let candidates: Vec<Value> = shown
            .iter()
            .map(|c| {
                let values: Vec<Value> = pairs
                    .iter()
                    .map(|p| cell(out.released.table(), &p.released, c.row))
                    .collect();
                json!({
                    "row": c.row + 1,
                    "score": finite(c.score),
                    "rank": c.rank,
                    "values": values,
                    "picked": r.chosen_row == Some(c.row),
                    "true_record": r.twin_row == Some(c.row),
                })
            })
            .collect();
        // the model's own breakdown of the pair it picked and, when the pick is wrong, of the
        // pair with the true record (why that one lost)
        let pattern = r
            .chosen_row
            .map_or(Value::Null, |j| self.pattern_json(i, j));
        let true_pattern = match (r.twin_row, r.chosen_row) {
            (Some(t), picked) if picked != Some(t) => self.pattern_json(i, t),
            _ => Value::Null,
        };
        json!({
            "row": i + 1,
            "status": self.status[i].as_str(),
            "declared": out.declared[i],
            "correct": r.correct,
            "values": values,
            "c_i": r.best_ties,
            "candidates_total": cands.total(),
            "candidates": candidates,
            "more_candidates": cands.total().saturating_sub(shown.len()),
            "best_score": finite(r.best_score),
            "picked_row": r.chosen_row.map(|j| j + 1),
            "true_row": r.twin_row.map(|j| j + 1),
            "true_rank": r.twin_rank,
            "pattern": pattern,
            "true_pattern": true_pattern,
        })
    }

    /// The fitted model's breakdown of intruder row `i` and released row `j` (its waterfall:
    /// each comparison's level and weight, the total weight and the match probability), rows
    /// 1-based; null for an attack without a model.
    fn pattern_json(&self, i: usize, j: usize) -> Value {
        let Some(m) = &self.out.linked.model else {
            return Value::Null;
        };
        match m.explain_pair(i, j) {
            Ok(w) => {
                let mut v = serde_json::to_value(&w).unwrap_or(Value::Null);
                v["intruder_row"] = json!(w.intruder_row + 1);
                v["released_row"] = json!(w.released_row + 1);
                v
            }
            Err(e) => json!({"error": e.to_string()}),
        }
    }
}

/// The text of `column` at row `i` of `table` (null when missing or not a column of it).
fn cell(table: &intruder_data::Table, column: &str, i: usize) -> Value {
    table
        .column(column)
        .ok()
        .and_then(|c| c.text(i))
        .map_or(Value::Null, |t| Value::String(t.into_owned()))
}

/// A score as JSON: null when not finite.
fn finite(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}
