//! Waves `1..T` of a household panel linked by a household id, and the households that split
//! between waves `T−1` and `T` (Mitra et al. §3: a member leaves the household).
//!
//! Every wave-`T` record is followed back through the link to its record in each earlier wave.
//! A record is *split* when the split indicator says so, or when several wave-`T` records carry
//! the same link (a household followed up twice after a split, "non-unique links"; Mitra: 12.3%
//! of WAS split households). Nothing is dropped silently: split records that cannot be attacked
//! (no earlier record, no wave-`T` sensitive value, or a non-unique link when those are excluded)
//! are listed in [`Panel::exclusions`], or turn into an error in strict mode.

use std::collections::HashMap;

use intruder_data::numeric::{stores_numbers, values};
use intruder_data::{Column, Dataset, Kind};
use serde::{Deserialize, Serialize};

use crate::error::PanelError;

/// What to do with split records whose link is shared by several wave-`T` records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NonUnique {
    /// Every such record is an intruder target (either leaver could be the intruder); following
    /// the link then yields all of them (`c_i` = the number sharing the link).
    #[default]
    Include,
    /// Only split households with a unique link are attacked (Mitra's main analysis, 87.7%);
    /// the others are reported as exclusions.
    Exclude,
}

impl std::str::FromStr for NonUnique {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "include" => Ok(NonUnique::Include),
            "exclude" => Ok(NonUnique::Exclude),
            _ => Err(format!(
                "unknown non-unique policy '{s}'; expected include or exclude"
            )),
        }
    }
}

/// How the waves are linked and what is sensitive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PanelSpec {
    /// The column linking the waves (the true household id; may be a truth column). Link ids
    /// must be unique within every wave but the last.
    pub link: String,
    /// The released link column, followed in mode "links released"; `None` when links are
    /// withheld (then only exact matching is possible).
    pub released_link: Option<String>,
    /// The split indicator of wave `T` (1/0, true/false, yes/no); `None`: only repeated links
    /// reveal splits.
    pub split: Option<String>,
    /// The sensitive variable `y`, numeric, with the same name in every wave.
    pub sensitive: String,
    /// Non-unique links.
    #[serde(default)]
    pub nonunique: NonUnique,
    /// Turn exclusions into an error.
    #[serde(default)]
    pub strict: bool,
}

/// Why a split record of wave `T` is not attacked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum ExclusionReason {
    /// Its link id has no record in this earlier wave (1-based).
    NoEarlierRecord {
        /// The wave.
        wave: usize,
    },
    /// Its wave-`T` sensitive value is missing, so disclosure cannot be scored.
    MissingSensitive,
    /// Its link is shared by other wave-`T` records and [`NonUnique::Exclude`] was asked for.
    NonUniqueLink {
        /// Records sharing the link.
        records: usize,
    },
}

/// A split record of wave `T` left out of the attack, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exclusion {
    /// Row of the wave-`T` file (1-based, header not counted).
    pub row: usize,
    /// The link id.
    pub link: String,
    /// Why.
    #[serde(flatten)]
    pub reason: ExclusionReason,
}

impl std::fmt::Display for Exclusion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.reason {
            ExclusionReason::NoEarlierRecord { wave } => write!(
                f,
                "row {} (link '{}'): no record with this link in wave {wave}",
                self.row, self.link
            ),
            ExclusionReason::MissingSensitive => write!(
                f,
                "row {} (link '{}'): the sensitive value is missing",
                self.row, self.link
            ),
            ExclusionReason::NonUniqueLink { records } => write!(
                f,
                "row {} (link '{}'): link shared by {records} records (non-unique links excluded)",
                self.row, self.link
            ),
        }
    }
}

/// Counts describing the panel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PanelSummary {
    /// Waves.
    pub waves: usize,
    /// Records per wave.
    pub records: Vec<usize>,
    /// Wave-`T` records linked to a record in every earlier wave.
    pub in_all_waves: usize,
    /// Wave-`T` records without a record in some earlier wave (new households).
    pub not_in_all_waves: usize,
    /// Split records of wave `T`.
    pub split_records: usize,
    /// Split records flagged by the indicator.
    pub split_by_indicator: usize,
    /// Split records found only through a repeated link.
    pub split_by_repeated_link_only: usize,
    /// Earlier households with several wave-`T` records.
    pub nonunique_links: usize,
    /// Wave-`T` records sharing a link with another.
    pub nonunique_records: usize,
    /// Split records attacked (intruder targets).
    pub targets: usize,
    /// Split records excluded (see [`Panel::exclusions`]).
    pub excluded: usize,
}

/// Linked waves with their split households; built by [`Panel::new`].
#[derive(Debug, Clone)]
pub struct Panel {
    waves: Vec<Dataset>,
    spec: PanelSpec,
    /// `origin[t][i]`: row in wave `t+1` of wave-`T` row `i` (`t < T−1`).
    origin: Vec<Vec<Option<usize>>>,
    split: Vec<bool>,
    link_count: Vec<usize>,
    targets: Vec<usize>,
    exclusions: Vec<Exclusion>,
    summary: PanelSummary,
}

fn file(ds: &Dataset) -> String {
    ds.table.source().to_string()
}

/// A column of a wave's table or, failing that, its ground truth.
pub(crate) fn wave_column<'a>(ds: &'a Dataset, name: &str) -> Result<&'a Column, PanelError> {
    if let Some(c) = ds.table.position(name).map(|p| &ds.table.columns()[p]) {
        return Ok(c);
    }
    if let Some(c) = ds.truth_column(name) {
        return Ok(c);
    }
    let mut names: Vec<String> = ds.table.names().iter().map(|s| s.to_string()).collect();
    names.extend(ds.truth.iter().map(|c| c.name().to_string()));
    Err(PanelError::Column {
        file: file(ds),
        column: name.to_string(),
        message: format!("no such column; the file has: {}", names.join(", ")),
    })
}

fn link_values(ds: &Dataset, name: &str) -> Result<Vec<String>, PanelError> {
    let c = wave_column(ds, name)?;
    (0..c.len())
        .map(|i| {
            c.text(i)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .ok_or_else(|| PanelError::Column {
                    file: file(ds),
                    column: name.to_string(),
                    message: format!(
                        "row {}: the link id is missing; every record needs one",
                        i + 1
                    ),
                })
        })
        .collect()
}

fn flag(c: &Column, i: usize) -> Option<bool> {
    if let Some(x) = c.as_f64(i) {
        return if x == 1.0 {
            Some(true)
        } else if x == 0.0 {
            Some(false)
        } else {
            None
        };
    }
    match c.text(i)?.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "y" | "t" => Some(true),
        "false" | "no" | "n" | "f" => Some(false),
        _ => None,
    }
}

/// The values of a numeric column (`NaN` when missing); an error names file, column and kind.
pub(crate) fn numeric_values(ds: &Dataset, name: &str) -> Result<Vec<f64>, PanelError> {
    let c = wave_column(ds, name)?;
    if !stores_numbers(c) {
        return Err(PanelError::Column {
            file: file(ds),
            column: name.to_string(),
            message: format!(
                "is {}; expected a numeric column{}",
                c.kind(),
                intruder_data::params::not_a_number_note(c)
            ),
        });
    }
    Ok(values(c))
}

impl Panel {
    /// Links `waves` (wave 1 first, wave `T` last; `T ≥ 2`) and finds the split households.
    ///
    /// Errors: fewer than two waves; a missing column; a missing link id; a link id repeated
    /// within a wave before the last; a split indicator that is not 0/1; a sensitive variable that
    /// is not numeric; in strict mode, any excluded split record.
    pub fn new(waves: Vec<Dataset>, spec: PanelSpec) -> Result<Panel, PanelError> {
        if waves.len() < 2 {
            return Err(PanelError::Params(vec![format!(
                "a panel needs at least two waves; {} given",
                waves.len()
            )]));
        }
        let t_last = waves.len() - 1;
        let last = &waves[t_last];
        let n = last.table.nrows();
        // Earlier waves: unique link ids.
        let mut origin = Vec::with_capacity(t_last);
        let mut maps = Vec::with_capacity(t_last);
        for ds in &waves[..t_last] {
            let ids = link_values(ds, &spec.link)?;
            let mut map: HashMap<String, usize> = HashMap::with_capacity(ids.len());
            for (i, id) in ids.into_iter().enumerate() {
                if let Some(prev) = map.insert(id.clone(), i) {
                    return Err(PanelError::Column {
                        file: file(ds),
                        column: spec.link.clone(),
                        message: format!(
                            "link id '{id}' repeats on rows {} and {}: within a wave before the \
                             last, each household must appear once",
                            prev + 1,
                            i + 1
                        ),
                    });
                }
            }
            maps.push(map);
        }
        if let Some(r) = &spec.released_link {
            for ds in &waves {
                wave_column(ds, r)?;
            }
        }
        let ids = link_values(last, &spec.link)?;
        for map in &maps {
            origin.push(
                ids.iter()
                    .map(|id| map.get(id).copied())
                    .collect::<Vec<_>>(),
            );
        }
        let mut count: HashMap<&str, usize> = HashMap::new();
        for id in &ids {
            *count.entry(id.as_str()).or_default() += 1;
        }
        let link_count: Vec<usize> = ids.iter().map(|id| count[id.as_str()]).collect();
        // Split records.
        let by_flag: Vec<bool> = match &spec.split {
            Some(name) => {
                let c = wave_column(last, name)?;
                (0..n)
                    .map(|i| {
                        flag(c, i).ok_or_else(|| PanelError::Column {
                            file: file(last),
                            column: name.clone(),
                            message: format!(
                                "row {}: '{}' is not a split indicator; expected 1/0, true/false or yes/no",
                                i + 1,
                                c.text(i).unwrap_or_default()
                            ),
                        })
                    })
                    .collect::<Result<_, _>>()?
            }
            None => vec![false; n],
        };
        let split: Vec<bool> = (0..n).map(|i| by_flag[i] || link_count[i] > 1).collect();
        let y = numeric_values(last, &spec.sensitive)?;
        for ds in &waves[..t_last] {
            numeric_values(ds, &spec.sensitive)?;
        }
        let mut targets = Vec::new();
        let mut exclusions = Vec::new();
        for i in (0..n).filter(|&i| split[i]) {
            let reason = if let Some(t) = origin.iter().position(|o| o[i].is_none()) {
                Some(ExclusionReason::NoEarlierRecord { wave: t + 1 })
            } else if y[i].is_nan() {
                Some(ExclusionReason::MissingSensitive)
            } else if link_count[i] > 1 && spec.nonunique == NonUnique::Exclude {
                Some(ExclusionReason::NonUniqueLink {
                    records: link_count[i],
                })
            } else {
                None
            };
            match reason {
                None => targets.push(i),
                Some(reason) => exclusions.push(Exclusion {
                    row: i + 1,
                    link: ids[i].clone(),
                    reason,
                }),
            }
        }
        if spec.strict && !exclusions.is_empty() {
            return Err(PanelError::Strict {
                count: exclusions.len(),
                first: format!("{}: {}", file(last), exclusions[0]),
            });
        }
        let in_all = (0..n)
            .filter(|&i| origin.iter().all(|o| o[i].is_some()))
            .count();
        let summary = PanelSummary {
            waves: waves.len(),
            records: waves.iter().map(|w| w.table.nrows()).collect(),
            in_all_waves: in_all,
            not_in_all_waves: n - in_all,
            split_records: split.iter().filter(|&&s| s).count(),
            split_by_indicator: by_flag.iter().filter(|&&s| s).count(),
            split_by_repeated_link_only: (0..n)
                .filter(|&i| !by_flag[i] && link_count[i] > 1)
                .count(),
            nonunique_links: count.values().filter(|&&c| c > 1).count(),
            nonunique_records: link_count.iter().filter(|&&c| c > 1).count(),
            targets: targets.len(),
            excluded: exclusions.len(),
        };
        Ok(Panel {
            waves,
            spec,
            origin,
            split,
            link_count,
            targets,
            exclusions,
            summary,
        })
    }

    /// The waves, wave 1 first.
    pub fn waves(&self) -> &[Dataset] {
        &self.waves
    }

    /// The last wave `T`.
    pub fn last(&self) -> &Dataset {
        &self.waves[self.waves.len() - 1]
    }

    /// Number of waves `T`.
    pub fn t(&self) -> usize {
        self.waves.len()
    }

    /// The specification.
    pub fn spec(&self) -> &PanelSpec {
        &self.spec
    }

    /// Row of wave `wave` (1-based) of wave-`T` row `i`: `i` itself for `T`, the linked record
    /// for an earlier wave (`None` when absent).
    pub fn row_in(&self, wave: usize, i: usize) -> Option<usize> {
        if wave == self.t() {
            Some(i)
        } else {
            self.origin[wave - 1][i]
        }
    }

    /// Whether wave-`T` row `i` is a split record.
    pub fn is_split(&self, i: usize) -> bool {
        self.split[i]
    }

    /// Wave-`T` records sharing row `i`'s link (1 = unique).
    pub fn link_count(&self, i: usize) -> usize {
        self.link_count[i]
    }

    /// Wave-`T` rows of the split records attacked (the intruder targets), ascending.
    pub fn targets(&self) -> &[usize] {
        &self.targets
    }

    /// Split records that cannot be attacked, with the reason.
    pub fn exclusions(&self) -> &[Exclusion] {
        &self.exclusions
    }

    /// Counts.
    pub fn summary(&self) -> &PanelSummary {
        &self.summary
    }

    /// Wave-`T` rows linked to a record in every earlier wave (the population of the propensity
    /// and synthesis models), ascending.
    pub fn in_all_waves(&self) -> Vec<usize> {
        (0..self.last().table.nrows())
            .filter(|&i| self.origin.iter().all(|o| o[i].is_some()))
            .collect()
    }

    /// The sensitive values of wave `T` (`NaN` when missing).
    pub fn sensitive_last(&self) -> Vec<f64> {
        numeric_values(self.last(), &self.spec.sensitive).unwrap_or_default()
    }

    /// The sensitive values of wave `wave` (1-based), aligned on wave-`T` rows (`NaN` when the
    /// record or the value is missing).
    pub fn sensitive_aligned(&self, wave: usize) -> Vec<f64> {
        let v = numeric_values(&self.waves[wave - 1], &self.spec.sensitive).unwrap_or_default();
        (0..self.last().table.nrows())
            .map(|i| self.row_in(wave, i).map_or(f64::NAN, |r| v[r]))
            .collect()
    }

    /// Column `name` of wave `wave` aligned on wave-`T` rows: `rows` of wave-`T` records; each
    /// must be linked to that wave.
    pub(crate) fn aligned_column(
        &self,
        wave: usize,
        name: &str,
        rows: &[usize],
    ) -> Result<Column, PanelError> {
        let ds = &self.waves[wave - 1];
        let c = wave_column(ds, name)?;
        let src: Vec<usize> = rows
            .iter()
            .map(|&i| {
                self.row_in(wave, i).ok_or_else(|| PanelError::Column {
                    file: file(ds),
                    column: name.to_string(),
                    message: format!(
                        "wave-{} row {} has no record in wave {wave}",
                        self.t(),
                        i + 1
                    ),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(c.take(&src))
    }

    /// Checks that column `name` has the same type family in wave `wave` and in wave `T`
    /// (numbers with numbers, categories/strings with categories/strings).
    pub(crate) fn check_same_type(&self, wave: usize, name: &str) -> Result<(), PanelError> {
        let a = wave_column(&self.waves[wave - 1], name)?;
        let b = wave_column(self.last(), name)?;
        let fam = |k: Kind| match k {
            Kind::Integer | Kind::Float => Some(0),
            Kind::Categorical | Kind::String => Some(1),
            Kind::Set => None,
        };
        match (fam(a.kind()), fam(b.kind())) {
            (Some(x), Some(y)) if x == y => Ok(()),
            _ => Err(PanelError::Column {
                file: file(&self.waves[wave - 1]),
                column: name.to_string(),
                message: format!(
                    "is {} in wave {wave} but {} in wave {} ({}); a key must have the same type in \
                     every wave (declare it in the schemas)",
                    a.kind(),
                    b.kind(),
                    self.t(),
                    file(self.last())
                ),
            }),
        }
    }
}
