//! What every attack returns: for each intruder record, released candidates ranked by score.

/// A released record proposed for an intruder record.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Candidate {
    /// Row of the released table.
    pub row: usize,
    /// Score: **higher is better** (distance attacks report `−distance`; exact matching 1).
    pub score: f64,
    /// Competition rank: 1 + the number of candidates with a strictly higher score. Tied
    /// candidates share a rank, so ties are marked, never hidden.
    pub rank: u32,
}

/// The ranked candidates of one intruder record.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Candidates {
    /// Best first; equal scores in increasing released row order.
    pub list: Vec<Candidate>,
}

impl Candidates {
    /// Builds a ranked list from `(row, score)` pairs in any order (NaN scores are dropped).
    pub fn from_scored(mut pairs: Vec<(usize, f64)>) -> Self {
        pairs.retain(|p| !p.1.is_nan());
        pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut list = Vec::with_capacity(pairs.len());
        let mut rank = 1u32;
        for (i, &(row, score)) in pairs.iter().enumerate() {
            if i > 0 && score != pairs[i - 1].1 {
                rank = i as u32 + 1;
            }
            list.push(Candidate { row, score, rank });
        }
        Candidates { list }
    }

    /// An unscored candidate set (every member ties at score 1), as exact matching returns.
    pub fn set(mut rows: Vec<usize>) -> Self {
        rows.sort_unstable();
        rows.dedup();
        Candidates {
            list: rows
                .into_iter()
                .map(|row| Candidate {
                    row,
                    score: 1.0,
                    rank: 1,
                })
                .collect(),
        }
    }

    /// The candidates tied at the best score (`c_i` = its length; empty when no candidate).
    pub fn best(&self) -> &[Candidate] {
        let n = self.list.iter().take_while(|c| c.rank == 1).count();
        &self.list[..n]
    }

    /// Number of candidates tied at the best score (Mitra's c_i).
    pub fn best_ties(&self) -> usize {
        self.best().len()
    }

    /// True when there is no candidate.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// The output of an attack: one [`Candidates`] per intruder record, in the intruder's row order.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Linkage {
    /// The attack's registry name.
    pub method: String,
    /// Whether scores grade candidates (distances) rather than only mark a set (exact matching):
    /// precision/recall curves are reported for scored attacks only.
    pub scored: bool,
    /// Whether each list holds every candidate the attack considered (exact matching, clusters),
    /// or only the best ones (`nearest` keeps the ties at the best score plus `top_k`).
    pub complete: bool,
    /// Number of rows of the released table the rows refer to.
    pub released_rows: usize,
    /// Per intruder record.
    pub records: Vec<Candidates>,
    /// Attack-specific figures (e.g. k-means: clusters used, records dropped), as name → value.
    pub notes: Vec<(String, f64)>,
}

impl Linkage {
    /// Maps candidate rows through `rows` (row `r` of the attacked table is row `rows[r]` of the
    /// full released file), e.g. after a "twins only" restriction.
    pub fn remap_rows(&mut self, rows: &[usize], released_rows: usize) {
        for rec in &mut self.records {
            for c in &mut rec.list {
                c.row = rows[c.row];
            }
        }
        self.released_rows = released_rows;
    }
}
