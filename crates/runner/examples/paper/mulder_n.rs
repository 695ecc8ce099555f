//! The population size N of Mulder's θ, from his own tables. Mulder does not state N, but his
//! YoB row fixes the class structure θ is computed from, and θ's printed value then bounds N.
//! Shared by the paper example (the derivation in paper.md §2) and
//! `tests/mulder_theta.rs` (which checks it and θ at the experiment's N).
#![allow(dead_code)]

/// The respondents of Mulder's working data set (Tables 3 and 4).
pub const N_SAMPLE: f64 = 10_997.0;

/// Mulder's YoB row as printed: Table 3 (listwise) k = 1 records, classes of size ≤ 5, θ;
/// Table 4 (n_match) records with n_match = 1 and ≤ 5, θ. Year of birth is never missing, so
/// n_match = k and Table 4 counts the same classes in records.
pub struct YobRow {
    /// Table 3: records with k = 1.
    pub uniques: u32,
    /// Table 3: classes of size ≤ 5.
    pub classes_le_5: u32,
    /// Table 4: records with n_match ≤ 5.
    pub records_le_5: u32,
    /// Table 3's θ as printed (four decimals).
    pub theta_listwise: f64,
    /// Table 4's θ as printed (four decimals).
    pub theta_n_match: f64,
}

/// Mulder (2014), Tables 3 and 4, row "YoB".
pub const YOB: YobRow = YobRow {
    uniques: 3,
    classes_le_5: 5,
    records_le_5: 8,
    theta_listwise: 0.0010,
    theta_n_match: 0.0005,
};

/// Every multiset of class sizes 2..=5 (as sorted lists) that fills the classes of size ≤ 5
/// beyond the uniques: `classes_le_5 − uniques` classes holding `records_le_5 − uniques`
/// records.
pub fn small_classes(row: &YobRow) -> Vec<Vec<u32>> {
    let classes = row.classes_le_5 - row.uniques;
    let records = row.records_le_5 - row.uniques;
    let mut out = Vec::new();
    fn fill(left: u32, records: u32, min: u32, acc: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if left == 0 {
            if records == 0 {
                out.push(acc.clone());
            }
            return;
        }
        for size in min..=5 {
            if size <= records {
                acc.push(size);
                fill(left - 1, records - size, size, acc, out);
                acc.pop();
            }
        }
    }
    fill(classes, records, 2, &mut Vec::new(), &mut out);
    out
}

/// Skinner and Elliot's θ = n₁π / (n₁π + 2(1 − π)n₂) with π = n / N.
pub fn theta(n1: f64, n2: f64, big_n: f64) -> f64 {
    let pi = N_SAMPLE / big_n;
    n1 * pi / (n1 * pi + 2.0 * (1.0 - pi) * n2)
}

/// The N at which θ(n₁, n₂) equals `th` (θ rises with π = n/N):
/// π = 2n₂θ / (n₁(1 − θ) + 2n₂θ).
pub fn n_at(n1: f64, n2: f64, th: f64) -> f64 {
    let pi = 2.0 * n2 * th / (n1 * (1.0 - th) + 2.0 * n2 * th);
    N_SAMPLE / pi
}

/// The N for which θ(n₁, n₂) prints as `printed` at four decimals (θ within half a unit of
/// the last digit, ends included), as an interval (low, high).
pub fn n_interval(n1: f64, n2: f64, printed: f64) -> (f64, f64) {
    let half = 0.00005;
    (n_at(n1, n2, printed + half), n_at(n1, n2, printed - half))
}

/// The derivation: the YoB row's class structure (its one solution), n₂ for each table (Table
/// 3: classes of size 2; Table 4: records with n_match = 2, as the toolkit and, by his θ,
/// Mulder count them), each table's interval of N, and their intersection.
pub struct Derivation {
    /// The sizes of the small classes beyond the uniques (the only solution).
    pub small: Vec<u32>,
    /// Table 3's n₂ (pairs).
    pub n2_listwise: f64,
    /// Table 4's n₂ (records with n_match = 2).
    pub n2_n_match: f64,
    /// N for Table 3's θ.
    pub listwise: (f64, f64),
    /// N for Table 4's θ.
    pub n_match: (f64, f64),
    /// Both.
    pub both: (f64, f64),
}

/// Derives N's interval from [`YOB`]; `None` when the structure is not unique.
pub fn derive() -> Option<Derivation> {
    let solutions = small_classes(&YOB);
    let [small] = solutions.as_slice() else {
        return None;
    };
    let pairs = small.iter().filter(|&&s| s == 2).count() as f64;
    let n1 = f64::from(YOB.uniques);
    let listwise = n_interval(n1, pairs, YOB.theta_listwise);
    let n_match = n_interval(n1, 2.0 * pairs, YOB.theta_n_match);
    Some(Derivation {
        small: small.clone(),
        n2_listwise: pairs,
        n2_n_match: 2.0 * pairs,
        listwise,
        n_match,
        both: (listwise.0.max(n_match.0), listwise.1.min(n_match.1)),
    })
}
