//! `household-panel`: a look-alike of two waves of the Wealth and Assets Survey as analysed by
//! Mitra (*longitudinal linked data*): wave-1 households, attrition, households that split in
//! wave 2 (a member leaves), and a link id between waves.
//!
//! Calibration target: exact matching of the split households' wave-1 keys against the wave-2
//! split households, on scenario-1 keys (area, accommodation, bedrooms) and scenario-2 keys
//! (plus wave-2 children and household type), gives counts of the published order.
//!
//! Writes `household-wave1.csv`, `household-wave2.csv` and their schemas.

use std::path::{Path, PathBuf};

use rand::Rng;
use rand::seq::SliceRandom;

use intruder_data::params::{Entry, ParamReader};

use crate::dist::{Categorical, chance, normal, pick, rng};
use crate::output::{CsvSink, OutputSet};
use crate::schema::{ColumnType, Role, Schema};
use crate::{Generator, ParamKind, ParamSpec, Params, Range, SynthError};

/// The `household-panel` generator.
#[derive(Debug, Clone)]
pub struct HouseholdPanel {
    /// The validated parameters.
    params: Params,
}

/// Number of output areas.
pub const AREAS: usize = 53;
/// Accommodation types.
pub const ACCOMMODATION: [&str; 3] = ["house", "flat", "other"];
/// Household types.
pub const HOUSEHOLD_TYPES: [&str; 10] = [
    "single_pensioner",
    "single_adult",
    "couple_pensioners",
    "couple_no_children",
    "couple_dependent_children",
    "couple_nondependent_children",
    "lone_parent_dependent_children",
    "lone_parent_nondependent_children",
    "multi_family",
    "other",
];

/// Calibration constants (tuned with `examples/calibrate.rs household-panel`).
const AREA_ZIPF: f64 = 0.6;
const ACC_WEIGHTS: [f64; 3] = [0.80, 0.18, 0.02];
/// Relative propensity to split, by accommodation (people leave houses more than flats).
const SPLIT_BY_ACC: [f64; 3] = [1.0, 0.3, 0.2];
/// Bedrooms 1..=10 by accommodation.
const BEDROOMS: [[f64; 10]; 3] = [
    [
        0.004, 0.22, 0.58, 0.18, 0.013, 0.002, 0.0006, 0.0002, 0.0001, 0.0001,
    ],
    [0.35, 0.60, 0.05, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.30, 0.50, 0.20, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
];
const TYPE_WEIGHTS: [f64; 10] = [0.14, 0.15, 0.13, 0.17, 0.19, 0.07, 0.06, 0.03, 0.02, 0.04];
/// Share of split households whose composition changes beyond the departure.
const RESHUFFLE: f64 = 0.5;
/// Relative propensity to split, by household type.
const SPLIT_PROPENSITY: [f64; 10] = [0.1, 0.3, 0.3, 1.0, 1.2, 3.0, 1.0, 3.0, 2.5, 2.0];

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("n", ParamKind::Integer, "wave-1 households")
        .default_value("30587")
        .within(Range::closed(10.0, 10_000_000.0)),
    ParamSpec::new(
        "retention",
        ParamKind::Number,
        "wave-2 households as a share of wave 1 (30,587 -> 20,165)",
    )
    .default_value("0.659267")
    .within(Range::SHARE),
    ParamSpec::new(
        "split",
        ParamKind::Number,
        "share of wave-2 households that split (1,486 of 20,165)",
    )
    .default_value("0.073692")
    .within(Range::SHARE),
    ParamSpec::new(
        "nonunique",
        ParamKind::Number,
        "share of split households whose wave-1 household was followed up twice",
    )
    .default_value("0.123")
    .within(Range::SHARE),
    ParamSpec::new(
        "moved",
        ParamKind::Number,
        "share of split households whose area, accommodation or bedrooms changed \
                      (includes the second household of each non-unique link)",
    )
    .default_value("0.137")
    .within(Range::SHARE),
    ParamSpec::new(
        "links",
        ParamKind::Bool,
        "release the link id between waves",
    )
    .default_value("true"),
    ParamSpec::new(
        "wealth_change",
        ParamKind::Number,
        "s.d. of log(wave-2 / wave-1 wealth) of households that did not split (mean +0.03)",
    )
    .default_value("0.15")
    .within(Range::closed(0.0, 5.0)),
    ParamSpec::new(
        "split_wealth_change",
        ParamKind::Number,
        "s.d. of log(wave-2 / wave-1 wealth) of households that split (mean -0.25)",
    )
    .default_value("0.35")
    .within(Range::closed(0.0, 5.0)),
];

const PUBLISHED: &[(&str, &str)] = &[
    ("wave-1 households", "30,587"),
    ("wave-2 households", "20,165"),
    ("split households", "1,486"),
    ("scenario 1: c_i = 1", "56"),
    ("scenario 1: c_i <= 2", "121"),
    ("scenario 2: c_i = 1", "563"),
    ("scenario 2: c_i <= 2", "871"),
    ("correct household among matches", "1,282"),
];

#[derive(Debug, Clone)]
struct Household {
    area: usize,
    acc: usize,
    bedrooms: usize,
    htype: usize,
    children: u64,
    ref_age: u64,
    female: bool,
    wealth: f64,
}

fn children_for(r: &mut impl Rng, htype: usize) -> u64 {
    match htype {
        4 => 1 + pick(r, &[0.38, 0.42, 0.14, 0.04, 0.015, 0.005]) as u64,
        6 => 1 + pick(r, &[0.5, 0.33, 0.12, 0.04, 0.01, 0.0]) as u64,
        8 => pick(r, &[0.3, 0.3, 0.2, 0.1, 0.06, 0.03, 0.01]) as u64,
        9 => pick(r, &[0.8, 0.15, 0.05]) as u64,
        _ => 0,
    }
}

fn household(r: &mut impl Rng, area_dist: &Categorical) -> Household {
    let area = area_dist.sample(r);
    let acc = pick(r, &ACC_WEIGHTS);
    let bedrooms = pick(r, &BEDROOMS[acc]);
    let htype = pick(r, &TYPE_WEIGHTS);
    let children = children_for(r, htype);
    let ref_age = match htype {
        0 | 2 => r.gen_range(65..=95),
        1 | 3 => r.gen_range(18..=64),
        4 | 6 => r.gen_range(22..=60),
        5 | 7 => r.gen_range(40..=75),
        _ => r.gen_range(20..=80),
    };
    let female = chance(
        r,
        if matches!(htype, 6 | 7 | 0) {
            0.75
        } else {
            0.4
        },
    );
    let age = ref_age as f64;
    let mu = 10.8 + 0.9 * (-(((age - 62.0) / 18.0).powi(2))).exp() + 0.25 * bedrooms as f64
        - if acc == 0 { 0.0 } else { 0.8 };
    let wealth = (mu + 1.2 * normal(r)).exp();
    Household {
        area,
        acc,
        bedrooms,
        htype,
        children,
        ref_age,
        female,
        wealth,
    }
}

/// Type and children after a member leaves.
fn after_split(r: &mut impl Rng, h: &Household) -> (usize, u64) {
    if chance(r, RESHUFFLE) {
        // Recomposition beyond a simple departure (new partner, returning children, ...).
        let t = pick(r, &TYPE_WEIGHTS);
        return (t, children_for(r, t));
    }
    let t = match h.htype {
        2 => 0,
        3 => 1,
        4 => 6,
        5 => {
            if chance(r, 0.5) {
                3
            } else {
                7
            }
        }
        7 => 1,
        8 => [3, 4, 5, 6][pick(r, &[0.3, 0.4, 0.1, 0.2])],
        other => other,
    };
    let c = match t {
        4 | 6 => h.children.max(1),
        8 | 9 => h.children,
        _ => 0,
    };
    (t, c)
}

/// Efraimidis–Spirakis weighted sampling without replacement: indices of the `k` largest
/// keys `u^(1/w)` among `candidates`.
fn weighted_sample(
    r: &mut impl Rng,
    candidates: &[usize],
    weight: impl Fn(usize) -> f64,
    k: usize,
) -> Vec<usize> {
    let mut keyed: Vec<(f64, usize)> = candidates
        .iter()
        .map(|&i| {
            let u: f64 = r.r#gen::<f64>().max(f64::MIN_POSITIVE);
            (u.ln() / weight(i), i)
        })
        .collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    keyed.truncate(k);
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// One wave-2 record.
#[derive(Debug, Clone)]
struct Wave2 {
    origin: usize,
    split: bool,
    h: Household,
}

impl HouseholdPanel {
    /// The sizes the parameters give, checked beyond their ranges: (n, wave-2 households,
    /// split households, non-unique pairs, households that moved).
    fn sizes(&self, params: &Params) -> Result<(usize, usize, usize, usize, usize), SynthError> {
        let n = params.usize("n");
        let wave2_n = (n as f64 * params.float("retention")).round() as usize;
        let split_n = (wave2_n as f64 * params.float("split")).round() as usize;
        let pairs = (split_n as f64 * params.float("nonunique") / 2.0).round() as usize;
        let moved_n = (split_n as f64 * params.float("moved")).round() as usize;
        let split_w1 = split_n - pairs;
        let stay_n = wave2_n - split_n;
        let mut problems = Vec::new();
        if split_w1 + stay_n > n {
            problems.push(format!(
                "retention/split: {wave2_n} wave-2 households need more than n={n} wave-1 households"
            ));
        }
        if moved_n < pairs {
            problems.push(format!(
                "moved={}: must be at least half of nonunique ({})",
                params.float("moved"),
                params.float("nonunique") / 2.0
            ));
        }
        if !problems.is_empty() {
            return Err(SynthError::Params {
                generator: self.name().into(),
                problems: problems
                    .into_iter()
                    .map(|message| intruder_data::params::Problem {
                        path: String::new(),
                        message,
                    })
                    .collect(),
            });
        }
        Ok((n, wave2_n, split_n, pairs, moved_n))
    }
}

/// Registry entry.
pub const ENTRY: Entry<dyn Generator> = Entry {
    name: NAME,
    summary: "WAS-like two-wave household panel with split households and a releasable link",
    reference: "Mitra, Blanchard, Dove, Tudor & Spicer (2020), Wealth and Assets Survey waves 1-2 (§3, Table 1)",
    params: PARAMS,
    figures: &[],
    build,
};

/// The generator's name.
const NAME: &str = "household-panel";

fn build(r: &mut ParamReader) -> Option<Box<dyn Generator>> {
    Some(Box::new(HouseholdPanel {
        params: Params::read(r, NAME, PARAMS)?,
    }))
}

impl Generator for HouseholdPanel {
    fn name(&self) -> &'static str {
        NAME
    }
    fn description(&self) -> &'static str {
        "WAS-like two-wave household panel (Mitra): wave-1 households with output area (53), \
         accommodation (3), bedrooms (10), children (7), household type (10), reference \
         person age and sex and total wealth (heavy-tailed); wave 2 after attrition, with \
         households that split (a member left; some followed up twice), wealth strongly \
         correlated across waves, an inheritance indicator depending on wealth decile, age and \
         sex, and a releasable link id. Writes household-wave1.csv and household-wave2.csv."
    }
    fn params(&self) -> &Params {
        &self.params
    }
    fn published(&self) -> &'static [(&'static str, &'static str)] {
        PUBLISHED
    }
    fn schemas(&self, _seed: u64) -> Result<Vec<(String, Schema)>, SynthError> {
        let params = &self.params;
        self.sizes(params)?;
        let (s1, s2) = schemas(params.bool("links"));
        Ok(vec![
            ("household-wave1.csv".into(), s1),
            ("household-wave2.csv".into(), s2),
        ])
    }
    fn generate(&self, seed: u64, out_dir: &Path) -> Result<Vec<PathBuf>, SynthError> {
        let params = &self.params;
        let (n, wave2_n, split_n, pairs, moved_n) = self.sizes(params)?;
        let split_w1 = split_n - pairs;
        let stay_n = wave2_n - split_n;
        let links = params.bool("links");
        let (stay_sd, split_sd) = (
            params.float("wealth_change"),
            params.float("split_wealth_change"),
        );

        let mut r = rng(seed, 1);
        let area_dist = Categorical::zipf(AREAS, AREA_ZIPF);
        // Area labels are a seeded permutation so that area size does not follow the code.
        let mut area_codes: Vec<usize> = (1..=AREAS).collect();
        area_codes.shuffle(&mut r);
        let w1: Vec<Household> = (0..n).map(|_| household(&mut r, &area_dist)).collect();
        let mut link_ids: Vec<usize> = (1..=n).collect();
        link_ids.shuffle(&mut r);

        // Who splits, who stays without splitting, who drops out.
        let mut sr = rng(seed, 2);
        let all: Vec<usize> = (0..n).collect();
        let splitters = weighted_sample(
            &mut sr,
            &all,
            |i| SPLIT_PROPENSITY[w1[i].htype] * SPLIT_BY_ACC[w1[i].acc],
            split_w1,
        );
        let mut is_split = vec![false; n];
        for &i in &splitters {
            is_split[i] = true;
        }
        let rest: Vec<usize> = all.iter().copied().filter(|&i| !is_split[i]).collect();
        let stayers = weighted_sample(
            &mut sr,
            &rest,
            |i| if w1[i].ref_age >= 30 { 1.0 } else { 0.6 },
            stay_n,
        );

        let mut wave2: Vec<Wave2> = Vec::with_capacity(wave2_n);
        for &i in &stayers {
            let mut h = w1[i].clone();
            h.ref_age += 2;
            h.wealth *= (0.03 + stay_sd * normal(&mut sr)).exp();
            wave2.push(Wave2 {
                origin: i,
                split: false,
                h,
            });
        }
        // Split households: the first `pairs` are followed up twice (the second record is the
        // leaver's new household, which has moved); `moved_n - pairs` more move.
        let extra_movers = moved_n - pairs;
        for (k, &i) in splitters.iter().enumerate() {
            let orig = &w1[i];
            let mut h = orig.clone();
            let (t, c) = after_split(&mut sr, orig);
            h.htype = t;
            h.children = c;
            h.ref_age += 2;
            h.wealth *= (-0.25 + split_sd * normal(&mut sr)).exp();
            if k >= pairs && k < pairs + extra_movers {
                relocate(&mut sr, &mut h, &area_dist);
            }
            wave2.push(Wave2 {
                origin: i,
                split: true,
                h,
            });
            if k < pairs {
                let mut leaver = household(&mut sr, &area_dist);
                leaver.htype = 1;
                leaver.children = 0;
                leaver.wealth = orig.wealth * (-1.5 + 0.6 * normal(&mut sr)).exp();
                relocate(&mut sr, &mut leaver, &area_dist);
                wave2.push(Wave2 {
                    origin: i,
                    split: true,
                    h: leaver,
                });
            }
        }
        wave2.shuffle(&mut sr);

        // Inheritance depends on the wave-2 wealth decile (baseline: 5th), age and sex.
        let mut sorted: Vec<f64> = wave2.iter().map(|w| w.h.wealth).collect();
        sorted.sort_by(f64::total_cmp);
        let decile_effect = [-0.6, -0.5, -0.3, -0.15, 0.0, 0.1, 0.25, 0.4, 0.6, 1.0];
        let mut ir = rng(seed, 3);
        let inherit: Vec<bool> = wave2
            .iter()
            .map(|w| {
                let rank = sorted.partition_point(|&v| v < w.h.wealth);
                let decile = (rank * 10 / sorted.len().max(1)).min(9);
                let logit = -2.6
                    + decile_effect[decile]
                    + 0.015 * (w.h.ref_age as f64 - 50.0)
                    + if w.h.female { 0.1 } else { 0.0 };
                chance(&mut ir, 1.0 / (1.0 + (-logit).exp()))
            })
            .collect();

        let mut out = OutputSet::new(out_dir)?;
        let (s1, s2) = schemas(links);
        let mut f1 = out.create("household-wave1.csv")?;
        f1.header(&s1.header())?;
        let width = n.to_string().len().max(5);
        for (i, h) in w1.iter().enumerate() {
            f1.str(&format!("H{:0width$}", i + 1));
            if links {
                f1.str(&format!("L{:0width$}", link_ids[i]));
            }
            f1.int(1);
            write_household(&mut f1, h, &area_codes);
            f1.end()?;
        }
        f1.finish()?;
        let mut f2 = out.create("household-wave2.csv")?;
        f2.header(&s2.header())?;
        for (k, w) in wave2.iter().enumerate() {
            f2.str(&format!("R{:0width$}", k + 1))
                .str(&format!("H{:0width$}", w.origin + 1));
            if links {
                f2.str(&format!("L{:0width$}", link_ids[w.origin]));
            }
            f2.int(2).int(u64::from(w.split));
            write_household(&mut f2, &w.h, &area_codes);
            f2.int(u64::from(inherit[k]));
            f2.end()?;
        }
        f2.finish()?;
        let desc = params.describe();
        out.write_schema("household-wave1.schema.toml", &s1, self.name(), seed, &desc)?;
        out.write_schema("household-wave2.schema.toml", &s2, self.name(), seed, &desc)?;
        out.commit()
    }
}

/// Give a household a different (area, accommodation, bedrooms).
fn relocate(r: &mut impl Rng, h: &mut Household, area_dist: &Categorical) {
    let before = (h.area, h.acc, h.bedrooms);
    while (h.area, h.acc, h.bedrooms) == before {
        if chance(r, 0.5) {
            h.area = area_dist.sample(r);
        }
        h.acc = pick(r, &ACC_WEIGHTS);
        h.bedrooms = pick(r, &BEDROOMS[h.acc]);
    }
}

fn area_label(area: usize, codes: &[usize]) -> String {
    format!("OA{:02}", codes[area])
}

fn write_household(w: &mut CsvSink, h: &Household, codes: &[usize]) {
    w.str(&area_label(h.area, codes))
        .str(ACCOMMODATION[h.acc])
        .int(h.bedrooms as u64 + 1)
        .int(h.children)
        .str(HOUSEHOLD_TYPES[h.htype])
        .int(h.ref_age)
        .str(if h.female { "female" } else { "male" })
        .int(h.wealth.round() as u64);
}

fn schemas(links: bool) -> (Schema, Schema) {
    let areas: Vec<String> = (1..=AREAS).map(|a| format!("OA{a:02}")).collect();
    let body = |s: Schema| {
        s.cat("area", Role::Key, &areas)
            .cat("accommodation", Role::Key, &ACCOMMODATION)
            .col("bedrooms", ColumnType::Integer, Role::Key)
            .col("children", ColumnType::Integer, Role::Key)
            .cat("household_type", Role::Key, &HOUSEHOLD_TYPES)
            .col("ref_age", ColumnType::Integer, Role::Other)
            .cat("ref_sex", Role::Other, &["male", "female"])
            .col("total_wealth", ColumnType::Integer, Role::Sensitive)
    };
    let mut s1 = Schema::new().col("household_id", ColumnType::String, Role::Truth);
    if links {
        s1 = s1.col("link_id", ColumnType::String, Role::Identifier);
    }
    let s1 = body(s1.col("wave", ColumnType::Integer, Role::Wave));
    let mut s2 = Schema::new()
        .col("record_id", ColumnType::String, Role::Identifier)
        .col("household_id", ColumnType::String, Role::Truth);
    if links {
        s2 = s2.col("link_id", ColumnType::String, Role::Identifier);
    }
    let s2 = body(s2.col("wave", ColumnType::Integer, Role::Wave).col(
        "split",
        ColumnType::Integer,
        Role::Group,
    ))
    .col("inheritance", ColumnType::Integer, Role::Other);
    (s1, s2)
}
