//! `register-survey`: a look-alike of the IAB employment register sample and the MPI life
//! history survey as linked by Bender et al. (*re-identification of register data*): a
//! register sample plus "real twins" who also answered the survey, with the 14 shared
//! variables of the paper's Table 1 and survey measurement error reproducing its Tables 2
//! and 3 (income heaping, per-variable exact agreement).
//!
//! Writes `register.csv` and `survey.csv` (+ schemas) sharing the truth column `person_id`;
//! with `population = N`, also `population.csv`: the N persons of the two cohorts as the
//! register records them, the register sample (with the twins) being its first n + twins
//! persons, for population uniques and Bender's R.

use std::path::{Path, PathBuf};

use rand::Rng;
use rand::seq::SliceRandom;

use intruder_data::params::{Entry, ParamReader};

use crate::dist::{Categorical, chance, normal, pick, rng};
use crate::output::{CsvSink, OutputSet};
use crate::schema::{ColumnType, Role, Schema};
use crate::{Generator, ParamKind, ParamSpec, Params, Range, SynthError};

/// The `register-survey` generator.
#[derive(Debug, Clone)]
pub struct RegisterSurvey {
    /// The validated parameters.
    params: Params,
}

/// Zipf exponent of occupation frequencies (calibrated to ~69% register sample uniques).
const OCCUPATION_ZIPF: f64 = 1.7;
/// Number of occupation codes.
pub const OCCUPATION_CODES: usize = 327;
/// Federal states of (West) Germany in the data, largest first.
pub const REGIONS: [&str; 11] = [
    "nordrhein_westfalen",
    "bayern",
    "baden_wuerttemberg",
    "niedersachsen",
    "hessen",
    "rheinland_pfalz",
    "schleswig_holstein",
    "berlin_west",
    "hamburg",
    "saarland",
    "bremen",
];
const REGION_WEIGHTS: [f64; 11] = [
    0.27, 0.18, 0.16, 0.11, 0.09, 0.06, 0.04, 0.03, 0.03, 0.02, 0.01,
];
/// Schooling / training.
pub const SCHOOLING: [&str; 3] = ["no_abitur", "abitur", "university"];
/// Occupational status.
pub const OCC_STATUS: [&str; 4] = [
    "unskilled_blue_collar",
    "skilled_blue_collar",
    "craftsman",
    "white_collar",
];
/// Monthly earnings classes (DM), as used for the uniqueness approach.
pub const EARNINGS_CLASSES: [&str; 7] = [
    "<1500",
    "1500-2499",
    "2500-3499",
    "3500-4499",
    "4500-5499",
    "5500-6999",
    "7000+",
];

/// Survey heaping: the ending of a reported income and its share (the paper's Table 2).
/// Endings: (modulus, allowed residues); the shares add up to one.
const HEAPING: [(f64, u64, &[u64]); 8] = [
    (0.1832, 1000, &[0]),
    (0.1575, 1000, &[500]),
    (0.1136, 1000, &[800]),
    (0.0733, 1000, &[300]),
    (0.3112, 1000, &[100, 200, 400, 600, 700, 900]),
    (0.0623, 100, &[50]),
    (0.0366, 100, &[10, 20, 30, 40, 60, 70, 80, 90]),
    (0.0623, 10, &[1, 2, 3, 4, 5, 6, 7, 8, 9]),
];

/// Exact agreement between register and survey among the 273 twins (Table 3), for the
/// variables perturbed symmetrically.
const AGREE: Agree = Agree {
    occupation: 151.0 / 273.0,
    region: 262.0 / 273.0,
    nationality: 272.0 / 273.0,
    schooling: 215.0 / 273.0,
    occ_status: 215.0 / 273.0,
    part_time: 261.0 / 273.0,
    interruption: 255.0 / 273.0,
    months_worked: 187.0 / 273.0,
    last_duration: 189.0 / 273.0,
};

struct Agree {
    occupation: f64,
    region: f64,
    nationality: f64,
    schooling: f64,
    occ_status: f64,
    part_time: f64,
    interruption: f64,
    months_worked: f64,
    last_duration: f64,
}

/// Survey missingness (45 of 273 twins have a missing value in the paper's cluster step).
const SURVEY_EARNINGS_MISSING: f64 = 0.12;
const SURVEY_OCCUPATION_MISSING: f64 = 0.05;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "n",
        ParamKind::Integer,
        "register sample size, without the twins",
    )
    .default_value("19082")
    .within(Range::closed(0.0, 10_000_000.0)),
    ParamSpec::new(
        "twins",
        ParamKind::Integer,
        "persons in both the register and the survey",
    )
    .default_value("273")
    .within(Range::closed(1.0, 1_000_000.0)),
    ParamSpec::new(
        "exact_income",
        ParamKind::Number,
        "share of reported survey incomes equal to the register value \
                      (2 of 273 in the paper, among the 88% reporting)",
    )
    .default_value("0.0083")
    .within(Range::SHARE),
    ParamSpec::new(
        "population",
        ParamKind::Integer,
        "also write population.csv with this many persons as the register records them \
                      (the two cohorts: 934,152 in the paper); the register sample and the \
                      twins are its first n + twins persons, so at least n + twins; 0 = no \
                      population file",
    )
    .default_value("0")
    .within(Range::closed(0.0, 100_000_000.0)),
];

const PUBLISHED: &[(&str, &str)] = &[
    ("register records", "19,355 (19,082 + 273 twins)"),
    ("survey records", "273"),
    ("survey income last digit 0", "93.8%"),
    ("survey income last digits 00", "83.9%"),
    ("survey income last digits 000", "18.3%"),
    ("survey income last digits 500", "15.8%"),
    ("survey income last digits 800", "11.4%"),
    ("agree: earnings", "2/273 (0.7%)"),
    ("agree: birth_cohort", "273/273"),
    ("agree: sex", "273/273"),
    ("agree: occupation", "151/273 (55.3%)"),
    ("agree: region", "262/273 (96.0%)"),
    ("agree: nationality", "272/273 (99.6%)"),
    ("agree: schooling", "215/273 (78.8%)"),
    ("agree: occ_status", "215/273 (78.8%)"),
    ("agree: part_time", "261/273 (95.6%)"),
    ("agree: interruption", "255/273 (93.4%)"),
    ("agree: months_worked", "187/273 (68.5%)"),
    ("agree: last_duration", "189/273 (69.2%)"),
    ("agree: married", "238/273 (87.2%)"),
    ("agree: children", "183/273 (67.0%)"),
    ("register sample uniques (14 keys)", "~69%"),
    ("population uniques (14 keys, N = 934,152)", "22.5%"),
];

/// One person's values as recorded in one source.
#[derive(Debug, Clone)]
struct Record {
    occupation: Option<usize>,
    cohort: u64,
    earnings: Option<u64>,
    male: bool,
    region: usize,
    german: bool,
    schooling: usize,
    occ_status: usize,
    part_time: bool,
    interruption: bool,
    months_worked: u64,
    last_duration: u64,
    married: bool,
    children: u64,
}

fn months(r: &mut impl Rng) -> u64 {
    match pick(r, &[0.64, 0.12, 0.06, 0.06, 0.12]) {
        0 => 24,
        1 => 12,
        2 => 18,
        3 => 6,
        _ => r.gen_range(1..=23),
    }
}

/// The true person: what the survey records when it records correctly. Returns the true
/// record and the register's record (children and marital status are notified by the
/// employer and differ systematically).
fn person(r: &mut impl Rng, occ: &Categorical) -> (Record, Record) {
    let male = chance(r, 0.62);
    let schooling = pick(r, &[0.62, 0.23, 0.15]);
    let occ_status = if schooling == 2 {
        3
    } else {
        pick(r, &[0.08, 0.09, 0.03, 0.80])
    };
    let part_time = chance(r, if male { 0.02 } else { 0.23 });
    let mu = 8.3 + 0.12 * f64::from(male as u8) + 0.18 * schooling as f64
        - if occ_status == 0 { 0.25 } else { 0.0 }
        - if part_time { 0.7 } else { 0.0 };
    let earnings = (mu + 0.3 * normal(r)).exp().round().max(300.0) as u64;
    let children_true = if chance(r, 0.645) {
        0
    } else {
        1 + pick(r, &[0.55, 0.36, 0.07, 0.02]) as u64
    };
    let married_true = chance(r, 0.43);
    // Most people worked continuously in one job: the two durations often coincide.
    let months_worked = months(r);
    let last_duration = if chance(r, 0.75) {
        months_worked
    } else {
        months(r).min(months_worked)
    };
    let truth = Record {
        occupation: Some(occ.sample(r)),
        cohort: if chance(r, 0.517) { 1964 } else { 1971 },
        earnings: Some(earnings),
        male,
        region: pick(r, &REGION_WEIGHTS),
        german: chance(r, 0.98),
        schooling,
        occ_status,
        part_time,
        interruption: chance(r, 0.38),
        months_worked,
        last_duration,
        married: married_true,
        children: children_true,
    };
    let mut reg = truth.clone();
    // Children are known to the register only when notified by the employer.
    reg.children = if chance(r, 0.07) { children_true } else { 0 };
    // Marital status: solves agreement 0.872 and register mean 0.37 given survey mean 0.43.
    reg.married = if married_true {
        chance(r, 0.781)
    } else {
        chance(r, 0.0596)
    };
    (truth, reg)
}

/// A value other than `v` among `0..k`, drawn by `weights` when given.
fn other(r: &mut impl Rng, v: usize, k: usize, weights: Option<&[f64]>) -> usize {
    loop {
        let c = match weights {
            Some(w) => pick(r, w),
            None => r.gen_range(0..k),
        };
        if c != v {
            return c;
        }
    }
}

/// Nearest number to `v` that ends in one of `residues` modulo `m`.
fn nearest_ending(v: f64, m: u64, residues: &[u64]) -> u64 {
    let mut best = (f64::INFINITY, 0u64);
    for &e in residues {
        let k = ((v - e as f64) / m as f64).round().max(0.0);
        for kk in [k - 1.0, k, k + 1.0] {
            if kk < 0.0 {
                continue;
            }
            let x = kk * m as f64 + e as f64;
            if x <= 0.0 {
                continue;
            }
            let d = (x - v).abs();
            if d < best.0 {
                best = (d, x as u64);
            }
        }
    }
    best.1
}

/// The survey's report of register earnings `reg`: misremembered and heaped.
fn reported_earnings(r: &mut impl Rng, reg: u64, exact: f64) -> u64 {
    if chance(r, exact) {
        return reg;
    }
    let v = reg as f64 * (-0.03 + 0.12 * normal(r)).exp();
    let weights: Vec<f64> = HEAPING.iter().map(|h| h.0).collect();
    let (_, m, residues) = HEAPING[pick(r, &weights)];
    nearest_ending(v, m, residues)
}

/// The survey record of a twin, from the truth and the register record.
fn survey_record(r: &mut impl Rng, truth: &Record, reg: &Record, exact: f64) -> Record {
    let mut s = truth.clone();
    s.earnings = if chance(r, SURVEY_EARNINGS_MISSING) {
        None
    } else {
        Some(reported_earnings(r, reg.earnings.unwrap_or(0), exact))
    };
    // Occupation: agreement among reporters = AGREE / (1 - missing); errors stay close
    // (a neighbouring code, as open answers coded by hand).
    let occ_ok = AGREE.occupation / (1.0 - SURVEY_OCCUPATION_MISSING);
    s.occupation = if chance(r, SURVEY_OCCUPATION_MISSING) {
        None
    } else if chance(r, occ_ok) {
        reg.occupation
    } else {
        let o = reg.occupation.unwrap_or(0) as i64;
        let mut c = o;
        while c == o {
            c = (o + r.gen_range(-6..=6)).clamp(0, OCCUPATION_CODES as i64 - 1);
        }
        Some(c as usize)
    };
    if !chance(r, AGREE.region) {
        s.region = other(r, reg.region, 11, Some(&REGION_WEIGHTS));
    }
    if !chance(r, AGREE.nationality) {
        s.german = !reg.german;
    }
    if !chance(r, AGREE.schooling) {
        s.schooling = match reg.schooling {
            0 => 1,
            2 => 1,
            _ => [0, 2][r.gen_range(0..2)],
        };
    }
    if !chance(r, AGREE.occ_status) {
        // The survey over-reports white-collar status (means 3.90 vs 3.57).
        s.occ_status = if reg.occ_status == 3 {
            r.gen_range(0..3)
        } else {
            3
        };
    }
    if !chance(r, AGREE.part_time) {
        s.part_time = !reg.part_time;
    }
    if !chance(r, AGREE.interruption) {
        s.interruption = !reg.interruption;
    }
    let shift = |r: &mut dyn rand::RngCore, v: u64| -> u64 {
        let mut c = v;
        while c == v {
            c = (v as i64 + [-3, -2, -1, 1, 2, 3, 4][r.gen_range(0..7)]).clamp(1, 24) as u64;
        }
        c
    };
    if !chance(r, AGREE.months_worked) {
        s.months_worked = shift(r, reg.months_worked);
    }
    if !chance(r, AGREE.last_duration) {
        s.last_duration = shift(r, reg.last_duration);
    }
    s
}

fn earnings_class(v: u64) -> usize {
    match v {
        0..=1499 => 0,
        1500..=2499 => 1,
        2500..=3499 => 2,
        3500..=4499 => 3,
        4500..=5499 => 4,
        5500..=6999 => 5,
        _ => 6,
    }
}

impl RegisterSurvey {
    /// The parameters' checks beyond their ranges.
    fn check(&self, population: usize, total: usize) -> Result<(), SynthError> {
        if population > 0 && population < total {
            return Err(SynthError::Params {
                generator: self.name().into(),
                problems: vec![intruder_data::params::Problem {
                    path: "population".into(),
                    message: format!(
                        "{population} persons cannot hold the register sample and its twins \
                         (n + twins = {total}): expected 0 or at least {total}"
                    ),
                }],
            });
        }
        Ok(())
    }
}

/// Registry entry.
pub const ENTRY: Entry<dyn Generator> = Entry {
    name: NAME,
    summary: "IAB/MPI-like register sample and retrospective survey sharing real twins",
    reference: "Bender, Brand & Bacher (2001), IAB employment register and MPI survey (Tables 1-3)",
    params: PARAMS,
    figures: &[],
    build,
};

/// The generator's name.
const NAME: &str = "register-survey";

fn build(r: &mut ParamReader) -> Option<Box<dyn Generator>> {
    Some(Box::new(RegisterSurvey {
        params: Params::read(r, NAME, PARAMS)?,
    }))
}

impl Generator for RegisterSurvey {
    fn name(&self) -> &'static str {
        NAME
    }
    fn description(&self) -> &'static str {
        "IAB/MPI-like register sample and survey (Bender et al.): a register sample of \
         employees born 1964 or 1971 plus real twins who also answered a retrospective \
         survey, with the 14 shared variables of the paper's Table 1 (occupation 327 codes, \
         cohort, earnings, sex, federal state, nationality, schooling, occupational status, \
         part time, interruption, months worked, duration of last employment, married, \
         children). The survey heaps incomes and disagrees with the register as in Tables 2-3. \
         Writes register.csv and survey.csv sharing the truth column person_id, and with \
         population = N the cohorts' population.csv (the register sample its first persons)."
    }
    fn params(&self) -> &Params {
        &self.params
    }
    fn published(&self) -> &'static [(&'static str, &'static str)] {
        PUBLISHED
    }
    fn schemas(&self, _seed: u64) -> Result<Vec<(String, Schema)>, SynthError> {
        let params = &self.params;
        let population = params.usize("population");
        let total = params.usize("n") + params.usize("twins");
        self.check(population, total)?;
        let mut files = vec!["register.csv", "survey.csv"];
        if population > 0 {
            files.push("population.csv");
        }
        Ok(files
            .into_iter()
            .map(|f| (f.to_string(), schema()))
            .collect())
    }
    fn generate(&self, seed: u64, out_dir: &Path) -> Result<Vec<PathBuf>, SynthError> {
        let params = &self.params;
        let n = params.usize("n");
        let twins = params.usize("twins");
        let exact = params.float("exact_income");
        let population = params.usize("population");
        let total = n + twins;
        self.check(population, total)?;
        let mut r = rng(seed, 1);
        let mut sr = rng(seed, 2);
        // Occupation frequencies: Zipf over a seeded order of the codes.
        let mut order: Vec<usize> = (0..OCCUPATION_CODES).collect();
        order.shuffle(&mut r);
        let mut weights = vec![0.0; OCCUPATION_CODES];
        for (rank, &code) in order.iter().enumerate() {
            weights[code] = 1.0 / ((rank + 1) as f64).powf(OCCUPATION_ZIPF);
        }
        let occ = Categorical::new(&weights);

        let mut register: Vec<(usize, Record)> = Vec::with_capacity(total);
        let mut survey: Vec<(usize, Record)> = Vec::with_capacity(twins);
        for i in 0..total {
            let (truth, reg) = person(&mut r, &occ);
            if i < twins {
                survey.push((i, survey_record(&mut sr, &truth, &reg, exact)));
            }
            register.push((i, reg));
        }
        // The population file starts with the sampled persons in id order (iid draws, so the
        // register is a simple random sample of the population).
        let sampled: Vec<Record> = if population > 0 {
            register.iter().map(|(_, rec)| rec.clone()).collect()
        } else {
            Vec::new()
        };
        register.shuffle(&mut r);
        survey.shuffle(&mut r);

        let mut out = OutputSet::new(out_dir)?;
        let schema = schema();
        let width = total.max(population).to_string().len().max(5);
        for (file, rows) in [("register.csv", &register), ("survey.csv", &survey)] {
            let mut w = out.create(file)?;
            w.header(&schema.header())?;
            for (id, rec) in rows.iter() {
                w.str(&format!("I{:0width$}", id + 1));
                write_record(&mut w, rec);
                w.end()?;
            }
            w.finish()?;
        }
        let desc = params.describe();
        if population > 0 {
            // The persons outside the sample come from their own stream, so the register and
            // the survey are the same with or without the population file (up to the id
            // width).
            let mut pr = rng(seed, 3);
            let mut w = out.create("population.csv")?;
            w.header(&schema.header())?;
            for i in 0..population {
                let drawn;
                let rec = match sampled.get(i) {
                    Some(rec) => rec,
                    None => {
                        drawn = person(&mut pr, &occ).1;
                        &drawn
                    }
                };
                w.str(&format!("I{:0width$}", i + 1));
                write_record(&mut w, rec);
                w.end()?;
            }
            w.finish()?;
            out.write_schema("population.schema.toml", &schema, self.name(), seed, &desc)?;
        }
        out.write_schema("register.schema.toml", &schema, self.name(), seed, &desc)?;
        out.write_schema("survey.schema.toml", &schema, self.name(), seed, &desc)?;
        out.commit()
    }
}

/// Occupation code labels (three digits).
pub fn occupation_label(i: usize) -> String {
    format!("{:03}", 11 + 3 * i)
}

fn schema() -> Schema {
    let occ: Vec<String> = (0..OCCUPATION_CODES).map(occupation_label).collect();
    Schema::new()
        .col("person_id", ColumnType::String, Role::Truth)
        .cat("occupation", Role::Key, &occ)
        .cat("birth_cohort", Role::Key, &["1964", "1971"])
        .col("earnings", ColumnType::Integer, Role::Key)
        .cat("earnings_class", Role::Other, &EARNINGS_CLASSES)
        .cat("sex", Role::Key, &["male", "female"])
        .cat("region", Role::Key, &REGIONS)
        .cat("nationality", Role::Key, &["german", "other"])
        .cat("schooling", Role::Key, &SCHOOLING)
        .cat("occ_status", Role::Key, &OCC_STATUS)
        .col("part_time", ColumnType::Integer, Role::Key)
        .col("interruption", ColumnType::Integer, Role::Key)
        .col("months_worked", ColumnType::Integer, Role::Key)
        .col("last_duration", ColumnType::Integer, Role::Key)
        .col("married", ColumnType::Integer, Role::Key)
        .col("children", ColumnType::Integer, Role::Key)
}

fn write_record(w: &mut CsvSink, r: &Record) {
    w.opt_str(r.occupation.map(occupation_label).as_deref())
        .int(r.cohort)
        .opt_int(r.earnings)
        .opt_str(r.earnings.map(|e| EARNINGS_CLASSES[earnings_class(e)]))
        .str(if r.male { "male" } else { "female" })
        .str(REGIONS[r.region])
        .str(if r.german { "german" } else { "other" })
        .str(SCHOOLING[r.schooling])
        .str(OCC_STATUS[r.occ_status])
        .int(u64::from(r.part_time))
        .int(u64::from(r.interruption))
        .int(r.months_worked)
        .int(r.last_duration)
        .int(u64::from(r.married))
        .int(r.children);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_ending_finds_the_closest_heaped_value() {
        assert_eq!(nearest_ending(4380.0, 1000, &[0]), 4000);
        assert_eq!(nearest_ending(4380.0, 1000, &[500]), 4500);
        assert_eq!(nearest_ending(4380.0, 1000, &[800]), 4800);
        assert_eq!(nearest_ending(4380.0, 100, &[50]), 4350);
        assert_eq!(nearest_ending(4384.0, 10, &[1, 9]), 4381);
        assert_eq!(nearest_ending(120.0, 1000, &[0]), 1000);
    }

    #[test]
    fn heaping_shares_add_up_to_one() {
        let s: f64 = HEAPING.iter().map(|h| h.0).sum();
        assert!((s - 1.0).abs() < 1e-9, "{s}");
    }
}
