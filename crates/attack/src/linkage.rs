//! What every attack returns: for each intruder record, released candidates ranked by score.
//!
//! A candidate set (exact matching) may be listed in part: the smallest `max_listed` rows and
//! the exact number of the others ([`Candidates::unlisted`]), so that a key matching n²/2 pairs
//! takes memory O(n · max_listed), not O(n²). The evaluator then asks the attack's
//! [`Lister`] for the whole set of one record at a time, so every figure stays exact.

use std::sync::Arc;

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
    /// Candidates not listed (a set listed in part: every candidate ties at score 1, and the
    /// listed ones are the smallest rows); 0 when the list is whole.
    #[serde(skip_serializing_if = "is_zero")]
    pub unlisted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
        Candidates { list, unlisted: 0 }
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
            unlisted: 0,
        }
    }

    /// An unscored candidate set of `total` rows of which `rows` (the smallest, in any order)
    /// are listed.
    ///
    /// # Panics
    /// When `rows` holds more distinct rows than `total`.
    pub fn set_in_part(rows: Vec<usize>, total: usize) -> Self {
        let mut c = Candidates::set(rows);
        assert!(c.list.len() <= total, "more rows listed than candidates");
        c.unlisted = total - c.list.len();
        c
    }

    /// The listed candidates tied at the best score (every candidate of `c_i` when the list is
    /// whole; see [`Candidates::unlisted`]).
    pub fn best(&self) -> &[Candidate] {
        let n = self.list.iter().take_while(|c| c.rank == 1).count();
        &self.list[..n]
    }

    /// Number of candidates tied at the best score (Mitra's c_i), listed or not.
    pub fn best_ties(&self) -> usize {
        self.best().len() + self.unlisted
    }

    /// Number of candidates, listed or not.
    pub fn total(&self) -> usize {
        self.list.len() + self.unlisted
    }

    /// Whether some candidates are not listed.
    pub fn in_part(&self) -> bool {
        self.unlisted > 0
    }

    /// True when there is no candidate.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.unlisted == 0
    }
}

/// Lists every candidate of intruder records whose [`Candidates`] are listed in part (exact
/// matching keeps its index for this): one batch of records at a time, so memory stays the
/// size of the batch.
pub trait ListCandidates: Send + Sync + std::fmt::Debug {
    /// Every candidate row (rows of the table the attack was run on) of each of `records`
    /// (intruder rows), in increasing order.
    fn list(&self, records: &[usize]) -> Vec<Vec<usize>>;
}

/// An attack's [`ListCandidates`], with the row map of [`Linkage::remap_rows`].
#[derive(Debug, Clone)]
pub struct Lister {
    inner: Arc<dyn ListCandidates>,
    rows: Option<Arc<[usize]>>,
}

impl Lister {
    /// Wraps an attack's lister.
    pub fn new(inner: Arc<dyn ListCandidates>) -> Self {
        Lister { inner, rows: None }
    }

    /// Every candidate row of each of `records`, as rows of the linkage (after any
    /// [`Linkage::remap_rows`]), in the order a whole list would hold them: increasing rows of
    /// the table the attack was run on.
    pub fn list(&self, records: &[usize]) -> Vec<Vec<usize>> {
        let mut out = self.inner.list(records);
        if let Some(map) = &self.rows {
            for rows in &mut out {
                for r in rows.iter_mut() {
                    *r = map[*r];
                }
            }
        }
        out
    }
}

/// Two linkages are equal when their listed figures are: the lister is a way to read the rest,
/// not part of the result.
impl PartialEq for Lister {
    fn eq(&self, _other: &Lister) -> bool {
        true
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
    /// Whether each list holds every candidate the attack considered (exact matching, clusters;
    /// a set listed in part counts the others in [`Candidates::unlisted`]), or only the best
    /// ones (`nearest` keeps the ties at the best score plus `top_k`).
    pub complete: bool,
    /// Number of rows of the released table the rows refer to.
    pub released_rows: usize,
    /// Per intruder record.
    pub records: Vec<Candidates>,
    /// Attack-specific figures (e.g. k-means: clusters used, records dropped), as name → value.
    pub notes: Vec<(String, f64)>,
    /// Lists the whole candidate set of records listed in part ([`Candidates::unlisted`]);
    /// `None` when every list is whole.
    #[serde(skip)]
    pub lister: Option<Lister>,
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
        if let Some(l) = &mut self.lister {
            l.rows = Some(match &l.rows {
                Some(m) => m.iter().map(|&r| rows[r]).collect(),
                None => rows.into(),
            });
        }
        self.released_rows = released_rows;
    }
}
