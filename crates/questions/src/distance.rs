//! Distance to the closest record (DCR) and the nearest-neighbour distance ratio (NNDR): how
//! close a release's records lie to the records it was made from, against how close they lie to
//! records it never saw (SDMetrics 0.32's `DCROverfittingProtection` and
//! `DCRBaselineProtection`; the NNDR of Zhao et al., "CTAB-GAN", 2021, and synthcity).
//!
//! **The distance** (SDMetrics' `calculate_dcr`): between a record `x` and a reference record
//! `r`, the mean over the columns of
//! - numbers: `min(|x − r| / range, 1)`, `range` the column's range in the *reference* table
//!   (a range of 0: 0 when equal, else 1);
//! - categories: 0 when equal, else 1;
//! - missing values: 0 when both are missing, 1 when one is.
//!
//! The DCR of `x` is its distance to the nearest reference record; the NNDR is that distance
//! divided by the distance to the second nearest (1 when both are 0: `x` sits among copies).
//!
//! **The figures**, with the original as the training data and the control set as the holdout:
//! - `closer_to_training`: the share of release records whose DCR to the training data is
//!   smaller (strictly) than their DCR to the holdout; `overfitting_protection = min(2 × (1 −
//!   closer_to_training), 1)` — 1 when the release is no closer to the people it was made from
//!   than to other people of the population. SDMetrics recommends a holdout at least half the
//!   size of the training data (a warning says so).
//! - `median_dcr_release` (release → training) against `median_dcr_random`: records drawn
//!   uniformly within each column's observed values (integers, ranges or categories, with the
//!   column's share of missing values), as many as the release has, to the training data;
//!   `baseline_protection = min(median_dcr_release / median_dcr_random, 1)` (undefined when the
//!   random median is 0).
//! - `median_nndr_release` (release → training) beside `median_nndr_holdout` (holdout →
//!   training): a release that copies its records has ratios near 0 where real records of the
//!   population have ratios near those of the holdout.
//!
//! "DCR alone passes releases that membership inference breaks": read these beside
//! [`membership`](crate::membership).

use intruder_table::Table;
use intruder_table::params::{ParamKind, ParamReader, ParamSpec, Range};
use rand::Rng;
use rand::seq::index::sample;
use rayon::prelude::*;

use crate::coded::{Coded, MISSING, Named, code_column, question_tables, require_columns};
use crate::error::QuestionError;
use crate::stream;

/// The checked parameters of [`distances`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DistanceParams {
    /// The columns compared (`None`: every column of the release).
    pub columns: Option<Vec<String>>,
    /// Compare at most this many records of each table, drawn at random (SDMetrics'
    /// `num_rows_subsample`, one iteration); `None`: every record.
    pub num_rows_subsample: Option<usize>,
}

impl DistanceParams {
    /// Reads the parameters declared in [`PARAMS`], recording every problem in `r`.
    pub fn read(r: &mut ParamReader<'_>) -> Option<DistanceParams> {
        let columns = r.get::<Vec<String>>("columns");
        let num_rows_subsample = r.get::<usize>("num_rows_subsample");
        r.ok().then_some(DistanceParams {
            columns,
            num_rows_subsample,
        })
    }

    /// Reads the parameters from a TOML table; every problem is reported at once under
    /// `source_name`.
    pub fn from_table(
        table: &toml::Table,
        source_name: &str,
    ) -> Result<DistanceParams, intruder_table::params::ParamError> {
        crate::read_table(table, source_name, PARAMS, DistanceParams::read)
    }
}

/// The parameters of `dcr`.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "columns",
        ParamKind::Columns,
        "the columns compared (default: every column of the release)",
    ),
    ParamSpec::new(
        "num_rows_subsample",
        ParamKind::Integer,
        "compare at most this many records of each table, drawn at random (SDMetrics' name; default: every record — the search is brute force)",
    )
    .within(Range::at_least(1.0)),
];

/// The distances of a release to its training data and to a holdout.
#[derive(Debug, Clone, PartialEq)]
pub struct DistanceResult {
    /// Release records compared.
    pub n_release: usize,
    /// Share of release records strictly closer to the training data than to the holdout.
    pub closer_to_training: f64,
    /// `min(2 × (1 − closer_to_training), 1)`.
    pub overfitting_protection: f64,
    /// Median DCR of the release to the training data.
    pub median_dcr_release: f64,
    /// Median DCR of the release to the holdout.
    pub median_dcr_holdout: f64,
    /// Median DCR of uniformly random records to the training data.
    pub median_dcr_random: f64,
    /// `min(median_dcr_release / median_dcr_random, 1)`; `None` when the random median is 0.
    pub baseline_protection: Option<f64>,
    /// Median NNDR of the release to the training data.
    pub median_nndr_release: f64,
    /// Median NNDR of the holdout to the training data.
    pub median_nndr_holdout: f64,
    /// Share of release records that copy a training record (DCR 0).
    pub exact_copies: f64,
    /// What makes the result doubtful (a small holdout).
    pub warnings: Vec<String>,
}

/// The columns of several tables in one encoding, for distances from the records of one table
/// to those of another.
pub(crate) struct Space<'a> {
    columns: &'a [Coded],
}

impl<'a> Space<'a> {
    /// The space of `columns`, each coded over the same tables.
    pub(crate) fn new(columns: &'a [Coded]) -> Space<'a> {
        Space { columns }
    }

    /// Each column's smallest value and range in table `reference` (numbers; `None` for
    /// categories).
    fn ranges(&self, reference: usize) -> Vec<Option<(f64, f64)>> {
        self.columns
            .iter()
            .map(|c| match c {
                Coded::Numbers(v) => {
                    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                    for &x in &v[reference] {
                        if !x.is_nan() {
                            lo = lo.min(x);
                            hi = hi.max(x);
                        }
                    }
                    Some(if hi >= lo { (lo, hi - lo) } else { (0.0, 0.0) })
                }
                Coded::Codes(_) => None,
            })
            .collect()
    }

    /// The distances from every row `rows` of table `data` to its nearest and second nearest
    /// rows of table `reference` (the second is +∞ when the reference has one record).
    ///
    /// Brute force over blocks: the reference's columns are scaled once (numbers shifted by
    /// their smallest value and divided by their range; a range of 0 divides by the smallest
    /// positive number, so that any difference counts 1), then chunks of targets scan blocks of reference records that stay
    /// in cache, one column at a time, so each inner loop is a plain pass over an array.
    pub(crate) fn two_nearest(
        &self,
        data: usize,
        rows: &[usize],
        reference: usize,
        n_reference: usize,
    ) -> Vec<(f64, f64)> {
        let scaled = Scaled::new(self.columns, self.ranges(reference), data, rows, reference);
        let d = self.columns.len() as f64;
        rows.par_chunks(TARGET_CHUNK)
            .enumerate()
            .flat_map_iter(|(c, chunk)| {
                let mut best = vec![(f64::INFINITY, f64::INFINITY); chunk.len()];
                let mut sums = vec![0.0; BLOCK];
                for start in (0..n_reference).step_by(BLOCK) {
                    let end = (start + BLOCK).min(n_reference);
                    for (t, slot) in best.iter_mut().enumerate() {
                        let sums = &mut sums[..end - start];
                        sums.fill(0.0);
                        scaled.add_terms(c * TARGET_CHUNK + t, start..end, sums);
                        for &s in sums.iter() {
                            let dist = s / d;
                            if dist < slot.0 {
                                slot.1 = slot.0;
                                slot.0 = dist;
                            } else if dist < slot.1 {
                                slot.1 = dist;
                            }
                        }
                    }
                }
                best
            })
            .collect()
    }
}

/// Targets that scan the reference together.
const TARGET_CHUNK: usize = 32;
/// Reference records per block.
const BLOCK: usize = 2048;

/// One column of [`Scaled`]: the reference's values and the targets', in one scale.
enum ScaledColumn {
    /// Numbers divided by the reference's range (NaN: missing).
    Numbers {
        reference: Vec<f64>,
        targets: Vec<f64>,
    },
    /// Category codes.
    Codes {
        reference: Vec<u32>,
        targets: Vec<u32>,
    },
}

/// The columns of a distance search in one scale.
struct Scaled {
    columns: Vec<ScaledColumn>,
}

impl Scaled {
    /// The columns of `reference` and of the rows `rows` of `data`, numbers divided by `ranges`.
    fn new(
        columns: &[Coded],
        ranges: Vec<Option<(f64, f64)>>,
        data: usize,
        rows: &[usize],
        reference: usize,
    ) -> Scaled {
        let columns = columns
            .iter()
            .zip(ranges)
            .map(|(c, range)| match c {
                Coded::Numbers(v) => {
                    let (lo, range) = range.unwrap_or((0.0, 0.0));
                    let scale = if range > 0.0 {
                        range
                    } else {
                        f64::MIN_POSITIVE
                    };
                    ScaledColumn::Numbers {
                        reference: v[reference].iter().map(|x| (x - lo) / scale).collect(),
                        targets: rows.iter().map(|&r| (v[data][r] - lo) / scale).collect(),
                    }
                }
                Coded::Codes(v) => ScaledColumn::Codes {
                    reference: v[reference].clone(),
                    targets: rows.iter().map(|&r| v[data][r]).collect(),
                },
            })
            .collect();
        Scaled { columns }
    }

    /// Adds each column's term between target `t` and the reference records `block` to `sums`,
    /// column after column.
    fn add_terms(&self, t: usize, block: std::ops::Range<usize>, sums: &mut [f64]) {
        for c in &self.columns {
            match c {
                ScaledColumn::Numbers { reference, targets } => {
                    let x = targets[t];
                    let ys = &reference[block.clone()];
                    if x.is_nan() {
                        for (s, y) in sums.iter_mut().zip(ys) {
                            *s += if y.is_nan() { 0.0 } else { 1.0 };
                        }
                    } else {
                        // `f64::min` returns 1 when the difference is NaN (a missing reference
                        // value), and caps an overflow from a range of 0 at 1.
                        for (s, y) in sums.iter_mut().zip(ys) {
                            *s += (x - y).abs().min(1.0);
                        }
                    }
                }
                ScaledColumn::Codes { reference, targets } => {
                    let x = targets[t];
                    for (s, &y) in sums.iter_mut().zip(&reference[block.clone()]) {
                        *s += f64::from(u8::from(x != y));
                    }
                }
            }
        }
    }
}

/// The median of `values` (the mean of the two middle ones for an even count; NaN when empty).
pub(crate) fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The nearest-neighbour distance ratio of a pair of distances.
fn nndr((first, second): (f64, f64)) -> f64 {
    if first == 0.0 {
        if second == 0.0 { 1.0 } else { 0.0 }
    } else if second.is_infinite() {
        1.0
    } else {
        first / second
    }
}

/// The columns compared: those given, else every column of the release; each checked in every
/// table.
pub(crate) fn compared_columns(
    columns: Option<&[String]>,
    tables: &[Named<'_>],
    released: &Table,
) -> Result<Vec<String>, QuestionError> {
    let names: Vec<String> = match columns {
        Some(c) => c.to_vec(),
        None => released.names().into_iter().map(str::to_string).collect(),
    };
    for t in tables {
        require_columns(*t, &names, "a compared column")?;
    }
    Ok(names)
}

/// Uniformly random values of every column of table `source`, `n` of them, with the column's
/// share of missing values (SDMetrics' `_generate_random_data`): numbers with only whole values
/// as whole numbers in `[min, max]`, other numbers in `[min, max)`, categories among those
/// observed. Appended to each column as one more table.
fn with_random_table(columns: &mut [Coded], source: usize, n: usize, seed: u64) {
    let mut rng = stream(seed, 1);
    for c in columns.iter_mut() {
        match c {
            Coded::Numbers(v) => {
                let observed: Vec<f64> =
                    v[source].iter().copied().filter(|x| !x.is_nan()).collect();
                let missing_share = 1.0 - observed.len() as f64 / v[source].len().max(1) as f64;
                let lo = observed.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = observed.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let whole = observed.iter().all(|x| x.fract() == 0.0);
                let values = (0..n)
                    .map(|_| {
                        let value = if observed.is_empty() {
                            f64::NAN
                        } else if whole {
                            rng.gen_range(lo as i64..=hi as i64) as f64
                        } else if hi > lo {
                            rng.gen_range(lo..hi)
                        } else {
                            lo
                        };
                        if rng.r#gen::<f64>() < missing_share {
                            f64::NAN
                        } else {
                            value
                        }
                    })
                    .collect();
                v.push(values);
            }
            Coded::Codes(v) => {
                let mut seen: Vec<u32> = v[source]
                    .iter()
                    .copied()
                    .filter(|&k| k != MISSING)
                    .collect();
                seen.sort_unstable();
                seen.dedup();
                let missing_share = v[source].iter().filter(|&&k| k == MISSING).count() as f64
                    / v[source].len().max(1) as f64;
                let values = (0..n)
                    .map(|_| {
                        let value = if seen.is_empty() {
                            MISSING
                        } else {
                            seen[rng.gen_range(0..seen.len())]
                        };
                        if rng.r#gen::<f64>() < missing_share {
                            MISSING
                        } else {
                            value
                        }
                    })
                    .collect();
                v.push(values);
            }
        }
    }
}

/// How close `released` lies to `original` (its training data) against `control` (a holdout
/// the release never saw) and against random records; see the [module docs](self).
pub fn distances<'a>(
    original: &'a Table,
    control: &'a Table,
    released: &'a Table,
    params: &DistanceParams,
    seed: u64,
) -> Result<DistanceResult, QuestionError> {
    let [ori, ctl, rel] = question_tables(original, control, released)?;
    let subsampled: Vec<Option<Table>> = [released, original, control]
        .iter()
        .enumerate()
        .map(|(k, t)| match params.num_rows_subsample {
            Some(n) if n < t.nrows() => {
                let mut rows = sample(&mut stream(seed, 10 + k as u64), t.nrows(), n).into_vec();
                rows.sort_unstable();
                Some(t.take(&rows))
            }
            _ => None,
        })
        .collect();
    let pick = |k: usize, t: &'a Table| subsampled[k].as_ref().unwrap_or(t);
    let (released, original, control) = (pick(0, released), pick(1, original), pick(2, control));
    let tables = [
        Named {
            table: released,
            ..rel
        },
        Named {
            table: original,
            ..ori
        },
        Named {
            table: control,
            ..ctl
        },
    ];
    let names = compared_columns(params.columns.as_deref(), &tables, released)?;
    let mut columns: Vec<Coded> = names
        .iter()
        .map(|c| code_column(c, &tables))
        .collect::<Result<_, _>>()?;
    let (n_rel, n_ori, n_ctl) = (released.nrows(), original.nrows(), control.nrows());
    with_random_table(&mut columns, 1, n_rel, seed);
    let space = Space::new(&columns);
    let release_rows: Vec<usize> = (0..n_rel).collect();
    let to_training = space.two_nearest(0, &release_rows, 1, n_ori);
    let to_holdout = space.two_nearest(0, &release_rows, 2, n_ctl);
    let holdout_rows: Vec<usize> = (0..n_ctl).collect();
    let holdout_to_training = space.two_nearest(2, &holdout_rows, 1, n_ori);
    let random_to_training = space.two_nearest(3, &release_rows, 1, n_ori);
    let closer = to_training
        .iter()
        .zip(&to_holdout)
        .filter(|(t, h)| t.0 < h.0)
        .count() as f64
        / n_rel as f64;
    let dcr = |pairs: &[(f64, f64)]| median(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
    let ratio = |pairs: &[(f64, f64)]| median(&pairs.iter().map(|&p| nndr(p)).collect::<Vec<_>>());
    let (median_dcr_release, median_dcr_random) = (dcr(&to_training), dcr(&random_to_training));
    let mut warnings = Vec::new();
    if (n_ctl as f64) < 0.5 * n_ori as f64 {
        warnings.push(format!(
            "the control set (holdout) has {n_ctl} records and the original {n_ori}: SDMetrics recommends a holdout at least half the size of the training data"
        ));
    }
    Ok(DistanceResult {
        n_release: n_rel,
        closer_to_training: closer,
        overfitting_protection: (2.0 * (1.0 - closer)).min(1.0),
        median_dcr_release,
        median_dcr_holdout: dcr(&to_holdout),
        median_dcr_random,
        baseline_protection: (median_dcr_random != 0.0)
            .then(|| (median_dcr_release / median_dcr_random).min(1.0)),
        median_nndr_release: ratio(&to_training),
        median_nndr_holdout: ratio(&holdout_to_training),
        exact_copies: to_training.iter().filter(|p| p.0 == 0.0).count() as f64 / n_rel as f64,
        warnings,
    })
}
