//! Privacy models as constraints on the classes of a transformation, to ARX's definitions
//! (package `org.deidentifier.arx.criteria`). A class that breaks any model is suppressed; a
//! transformation satisfies the models when the records suppressed stay within the limit.
//!
//! `q` is a class's distribution of a sensitive variable (its `count` records), `p` the
//! distribution over the whole file, `m` the sensitive values of the file.
//!
//! - **k-anonymity**: `count ≥ k`.
//! - **ℓ-diversity**, *distinct*: at least ℓ sensitive values; *entropy* (Shannon, natural log):
//!   `−Σ q_v ln q_v ≥ ln ℓ`; *recursive (c, ℓ)*: with the frequencies sorted `r_1 ≥ r_2 ≥ …`,
//!   at least ℓ values and `r_1 < c·(r_ℓ + r_{ℓ+1} + … )`.
//! - **t-closeness**, the earth mover's distance between `q` and `p` at most `t`: *equal*
//!   ground distance `½ Σ_v |q_v − p_v|`; *ordered* `(1/(m−1)) Σ_i |Σ_{j ≤ i} (q_j − p_j)|`
//!   over the values in order (numeric when every value is a number, else text order);
//!   *hierarchical* over a hierarchy of the sensitive variable of height `H`: `Σ_N
//!   (level(N)/H)·min(pos(N), neg(N))` over its inner labels `N`, with `pos`/`neg` the summed
//!   positive/negative surpluses `q − p` of `N`'s children (Li et al. 2007).
//! - **δ-presence** (with a population table holding the file's records): every class's share
//!   of the population class `count / population_count` within `[δ_min, δ_max]`; a population
//!   class without sample records that breaks it cannot be suppressed.
//! - **k-map**: every class's population count at least `k` (from the population table, or
//!   estimated as `count / sampling_fraction`).
//! - **β-likeness**, *basic*: `(q_v − p_v)/p_v ≤ β` for every value of the class; *enhanced*:
//!   `≤ min(β, −ln p_v)`.
//! - **δ-disclosure privacy**: `|log2(q_v / p_v)| < δ` for every value of the class.
//! - **(α, k)-anonymity**: `count ≥ k` and every sensitive value's share of the class `≤ α`.

/// A histogram of sensitive codes: `(code, count)` sorted by code.
pub type Hist = Vec<(u32, u32)>;

/// Merges histogram `b` into `a` (both sorted by code).
pub fn merge_hist(a: &mut Hist, b: &[(u32, u32)]) {
    if b.is_empty() {
        return;
    }
    if a.is_empty() {
        a.extend_from_slice(b);
        return;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((a[i].0, a[i].1 + b[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    *a = out;
}

/// The ℓ-diversity variants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Diversity {
    /// At least ℓ distinct values.
    Distinct,
    /// Shannon entropy at least ln ℓ.
    Entropy,
    /// Recursive (c, ℓ)-diversity.
    Recursive {
        /// The constant c.
        c: f64,
    },
}

/// The ground distances of t-closeness.
#[derive(Debug, Clone, PartialEq)]
pub enum Distance {
    /// Every pair of values at distance 1.
    Equal,
    /// Values in order.
    Ordered {
        /// The sensitive codes of the file's values, in order.
        order: Vec<u32>,
    },
    /// Along a hierarchy of the sensitive variable.
    Hierarchical {
        /// `parent[level][id]`: the id at `level + 1` of an id at `level`; level 0 ids are the
        /// sensitive codes.
        parent: Vec<Vec<u32>>,
    },
}

/// One privacy model.
#[derive(Debug, Clone, PartialEq)]
pub enum Model {
    /// k-anonymity.
    KAnonymity {
        /// k.
        k: u32,
    },
    /// ℓ-diversity of a sensitive variable.
    LDiversity {
        /// Index of the sensitive variable.
        sensitive: usize,
        /// ℓ.
        l: f64,
        /// The variant.
        variant: Diversity,
    },
    /// t-closeness of a sensitive variable.
    TCloseness {
        /// Index of the sensitive variable.
        sensitive: usize,
        /// t.
        t: f64,
        /// The ground distance.
        distance: Distance,
    },
    /// δ-presence against a population table.
    DeltaPresence {
        /// δ_min.
        min: f64,
        /// δ_max.
        max: f64,
    },
    /// k-map against a population table or an estimate.
    KMap {
        /// k.
        k: u32,
        /// `None`: the population table's counts; `Some(f)`: `count / f`.
        sampling_fraction: Option<f64>,
    },
    /// β-likeness of a sensitive variable.
    BetaLikeness {
        /// Index of the sensitive variable.
        sensitive: usize,
        /// β.
        beta: f64,
        /// Enhanced (bounded by −ln p) rather than basic.
        enhanced: bool,
    },
    /// δ-disclosure privacy of a sensitive variable.
    DeltaDisclosure {
        /// Index of the sensitive variable.
        sensitive: usize,
        /// δ.
        delta: f64,
    },
    /// (α, k)-anonymity of a sensitive variable.
    AlphaK {
        /// Index of the sensitive variable.
        sensitive: usize,
        /// α.
        alpha: f64,
        /// k.
        k: u32,
    },
}

/// What a model reads of one class.
pub struct ClassFacts<'a> {
    /// Records of the class.
    pub count: u32,
    /// Records of the population class (population table), else 0.
    pub pcount: u64,
    /// The class's histogram of each sensitive variable.
    pub hists: &'a [Hist],
}

/// What a model reads of the whole file.
#[derive(Debug, Clone, Default)]
pub struct FileFacts {
    /// Per sensitive variable, the share of each code over the whole file.
    pub p: Vec<Vec<f64>>,
}

impl Model {
    /// A short name for messages.
    pub fn describe(&self, sensitive: &[String]) -> String {
        let s = |i: &usize| sensitive.get(*i).cloned().unwrap_or_default();
        match self {
            Model::KAnonymity { k } => format!("k-anonymity (k = {k})"),
            Model::LDiversity {
                sensitive: a,
                l,
                variant,
            } => match variant {
                Diversity::Distinct => format!("distinct {l}-diversity of '{}'", s(a)),
                Diversity::Entropy => format!("entropy {l}-diversity of '{}'", s(a)),
                Diversity::Recursive { c } => {
                    format!("recursive ({c}, {l})-diversity of '{}'", s(a))
                }
            },
            Model::TCloseness {
                sensitive: a,
                t,
                distance,
            } => {
                let d = match distance {
                    Distance::Equal => "equal",
                    Distance::Ordered { .. } => "ordered",
                    Distance::Hierarchical { .. } => "hierarchical",
                };
                format!("{t}-closeness of '{}' ({d} distance)", s(a))
            }
            Model::DeltaPresence { min, max } => format!("({min}, {max})-presence"),
            Model::KMap {
                k,
                sampling_fraction,
            } => match sampling_fraction {
                None => format!("k-map (k = {k}, population table)"),
                Some(f) => format!("k-map (k = {k}, estimated with sampling fraction {f})"),
            },
            Model::BetaLikeness {
                sensitive: a,
                beta,
                enhanced,
            } => format!(
                "{} {beta}-likeness of '{}'",
                if *enhanced { "enhanced" } else { "basic" },
                s(a)
            ),
            Model::DeltaDisclosure {
                sensitive: a,
                delta,
            } => {
                format!("{delta}-disclosure privacy of '{}'", s(a))
            }
            Model::AlphaK {
                sensitive: a,
                alpha,
                k,
            } => format!("({alpha}, {k})-anonymity of '{}'", s(a)),
        }
    }

    /// Whether a transformation that satisfies the model with suppression keeps satisfying it,
    /// with no more records suppressed, when generalised further: true when merging a class
    /// that breaks the model with any other class gives a class that keeps it (the search then
    /// prunes by it).
    pub fn monotone_with_suppression(&self) -> bool {
        match self {
            Model::KAnonymity { .. } => true,
            Model::LDiversity { variant, .. } => *variant == Diversity::Distinct,
            Model::KMap {
                sampling_fraction, ..
            } => sampling_fraction.is_none(),
            _ => false,
        }
    }

    /// Whether the model needs a population table.
    pub fn needs_population(&self) -> bool {
        matches!(
            self,
            Model::DeltaPresence { .. }
                | Model::KMap {
                    sampling_fraction: None,
                    ..
                }
        )
    }

    /// The sensitive variable the model reads, if any.
    pub fn sensitive(&self) -> Option<usize> {
        match self {
            Model::LDiversity { sensitive, .. }
            | Model::TCloseness { sensitive, .. }
            | Model::BetaLikeness { sensitive, .. }
            | Model::DeltaDisclosure { sensitive, .. }
            | Model::AlphaK { sensitive, .. } => Some(*sensitive),
            _ => None,
        }
    }

    /// Whether a class with records keeps the model.
    pub fn holds(&self, c: &ClassFacts, file: &FileFacts) -> bool {
        let count = c.count as f64;
        match self {
            Model::KAnonymity { k } => c.count >= *k,
            Model::LDiversity {
                sensitive,
                l,
                variant,
            } => diversity(&c.hists[*sensitive], *l, *variant),
            Model::TCloseness {
                sensitive,
                t,
                distance,
            } => emd(&c.hists[*sensitive], &file.p[*sensitive], distance) <= *t,
            Model::DeltaPresence { min, max } => {
                if c.pcount == 0 {
                    return true;
                }
                let d = count / c.pcount as f64;
                d >= *min && d <= *max
            }
            Model::KMap {
                k,
                sampling_fraction,
            } => match sampling_fraction {
                None => c.pcount >= *k as u64,
                Some(f) => count / f >= *k as f64,
            },
            Model::BetaLikeness {
                sensitive,
                beta,
                enhanced,
            } => c.hists[*sensitive].iter().all(|&(v, f)| {
                let p = file.p[*sensitive][v as usize];
                let q = f as f64 / count;
                let bound = if *enhanced { beta.min(-p.ln()) } else { *beta };
                (q - p) / p <= bound
            }),
            Model::DeltaDisclosure { sensitive, delta } => {
                c.hists[*sensitive].iter().all(|&(v, f)| {
                    let p = file.p[*sensitive][v as usize];
                    ((f as f64 / count) / p).log2().abs() < *delta
                })
            }
            Model::AlphaK {
                sensitive,
                alpha,
                k,
            } => {
                c.count >= *k
                    && c.hists[*sensitive]
                        .iter()
                        .all(|&(_, f)| f as f64 / count <= *alpha)
            }
        }
    }

    /// Whether a class of the population table without records in the file keeps the model (a
    /// class that does not cannot be suppressed: the transformation fails; ARX's rule).
    pub fn holds_empty(&self, pcount: u64) -> bool {
        match self {
            Model::DeltaPresence { min, .. } => pcount == 0 || *min <= 0.0,
            _ => true,
        }
    }
}

/// ℓ-diversity of a class's histogram.
pub fn diversity(h: &Hist, l: f64, variant: Diversity) -> bool {
    let min_size = l.floor() as usize;
    match variant {
        Diversity::Distinct => h.len() >= min_size,
        Diversity::Entropy => {
            if h.len() < min_size {
                return false;
            }
            let total: f64 = h.iter().map(|x| x.1 as f64).sum();
            if total == 0.0 {
                return false;
            }
            let entropy: f64 = h
                .iter()
                .map(|&(_, f)| {
                    let q = f as f64 / total;
                    -q * q.ln()
                })
                .sum();
            entropy >= l.ln()
        }
        Diversity::Recursive { c } => {
            if h.len() < min_size || h.is_empty() {
                return false;
            }
            let mut f: Vec<u32> = h.iter().map(|x| x.1).collect();
            f.sort_unstable_by(|a, b| b.cmp(a));
            let tail: f64 = f[min_size.max(1) - 1..].iter().map(|&x| x as f64).sum();
            (f[0] as f64) < c * tail
        }
    }
}

/// The earth mover's distance between a class's histogram and the file's distribution `p`.
pub fn emd(h: &Hist, p: &[f64], distance: &Distance) -> f64 {
    let total: f64 = h.iter().map(|x| x.1 as f64).sum();
    let mut q = vec![0.0; p.len()];
    for &(v, f) in h {
        q[v as usize] = f as f64 / total;
    }
    match distance {
        Distance::Equal => 0.5 * q.iter().zip(p).map(|(a, b)| (a - b).abs()).sum::<f64>(),
        Distance::Ordered { order } => {
            let m = order.len();
            if m < 2 {
                return 0.0;
            }
            let (mut cum, mut dist) = (0.0, 0.0);
            for &code in order {
                cum += q[code as usize] - p[code as usize];
                dist += cum.abs();
            }
            dist / (m as f64 - 1.0)
        }
        Distance::Hierarchical { parent } => {
            let height = parent.len() as f64;
            // surplus q − p of each node, level by level
            let mut extra: Vec<f64> = q.iter().zip(p).map(|(a, b)| a - b).collect();
            let mut cost = 0.0;
            for (level, up) in parent.iter().enumerate() {
                let size = up.iter().map(|&x| x as usize + 1).max().unwrap_or(0);
                let mut pos = vec![0.0; size];
                let mut neg = vec![0.0; size];
                for (id, &e) in extra.iter().enumerate() {
                    let par = up[id] as usize;
                    if e > 0.0 {
                        pos[par] += e;
                    } else {
                        neg[par] -= e;
                    }
                }
                for i in 0..size {
                    cost += (level as f64 + 1.0) / height * pos[i].min(neg[i]);
                }
                extra = pos.iter().zip(&neg).map(|(a, b)| a - b).collect();
            }
            cost
        }
    }
}
