//! `linkage-pair`: two person files with a known overlap, the second one dirty — the test bed
//! for Fellegi–Sunter record linkage.
//!
//! File A is clean. File B holds a share of A's persons plus others; its records carry
//! typos in names, missing values, first-name/surname swaps and birth years off by one.
//! Writes `file-a.csv` and `file-b.csv` (+ schemas) sharing the truth column `person_id`.

use std::path::{Path, PathBuf};

use rand::Rng;
use rand::seq::SliceRandom;

use intruder_data::params::{Entry, ParamReader};

use super::names;
use crate::dist::{Categorical, chance, rng};
use crate::output::{CsvSink, OutputSet};
use crate::schema::{ColumnType, Role, Schema};
use crate::{Generator, ParamKind, ParamSpec, Params, Range, SynthError};

/// The `linkage-pair` generator.
#[derive(Debug, Clone)]
pub struct LinkagePair {
    /// The validated parameters.
    params: Params,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("n", ParamKind::Integer, "records in file A")
        .default_value("10000")
        .within(Range::closed(1.0, 50_000_000.0)),
    ParamSpec::new("n_b", ParamKind::Integer, "records in file B")
        .default_value("10000")
        .within(Range::closed(1.0, 50_000_000.0)),
    ParamSpec::new(
        "overlap",
        ParamKind::Number,
        "share of file A's persons also in file B",
    )
    .default_value("0.5")
    .within(Range::SHARE),
    ParamSpec::new(
        "typo",
        ParamKind::Number,
        "share of file-B names (each of first name, surname) with a typo",
    )
    .default_value("0.10")
    .within(Range::SHARE),
    ParamSpec::new(
        "missing",
        ParamKind::Number,
        "share of each file-B field (except ids) left missing",
    )
    .default_value("0.05")
    .within(Range::SHARE),
    ParamSpec::new(
        "swap",
        ParamKind::Number,
        "share of file-B records with first name and surname swapped",
    )
    .default_value("0.02")
    .within(Range::SHARE),
    ParamSpec::new(
        "year_error",
        ParamKind::Number,
        "share of file-B birth years off by one",
    )
    .default_value("0.05")
    .within(Range::SHARE),
];

const PUBLISHED: &[(&str, &str)] = &[
    ("names with a typo", "~10% (brief)"),
    ("fields missing", "~5% (brief)"),
    ("first-name/surname swaps", "~2% (brief)"),
];

fn words(s: &'static str) -> Vec<&'static str> {
    s.split_whitespace().collect()
}

#[derive(Debug, Clone)]
struct Person {
    id: usize,
    first: String,
    surname: String,
    year: u64,
    month: u64,
    female: bool,
    postcode: String,
    occupation: usize,
}

struct Pools {
    male: Vec<&'static str>,
    female: Vec<&'static str>,
    surnames: Vec<&'static str>,
    areas: Vec<&'static str>,
    male_d: Categorical,
    female_d: Categorical,
    surname_d: Categorical,
    area_d: Categorical,
    district_d: Categorical,
    occ_d: Categorical,
    year_d: Categorical,
}

impl Pools {
    fn new() -> Self {
        let male = words(names::MALE);
        let female = words(names::FEMALE);
        let surnames = words(names::SURNAMES);
        let areas = words(names::POSTCODE_AREAS);
        // Birth years 1930..=2005, fewer at the oldest ages.
        let years: Vec<f64> = (1930..=2005)
            .map(|y| {
                if y < 1950 {
                    0.4 + 0.03 * (y - 1930) as f64
                } else {
                    1.0
                }
            })
            .collect();
        Pools {
            male_d: Categorical::zipf(male.len(), 0.9),
            female_d: Categorical::zipf(female.len(), 0.9),
            surname_d: Categorical::zipf(surnames.len(), 0.8),
            area_d: Categorical::zipf(areas.len(), 0.7),
            district_d: Categorical::zipf(30, 0.6),
            occ_d: Categorical::zipf(names::OCCUPATIONS.len(), 0.8),
            year_d: Categorical::new(&years),
            male,
            female,
            surnames,
            areas,
        }
    }

    fn person(&self, r: &mut impl Rng, id: usize) -> Person {
        let female = chance(r, 0.51);
        let first = if female {
            self.female[self.female_d.sample(r)]
        } else {
            self.male[self.male_d.sample(r)]
        };
        Person {
            id,
            first: first.to_string(),
            surname: self.surnames[self.surname_d.sample(r)].to_string(),
            year: 1930 + self.year_d.sample(r) as u64,
            month: r.gen_range(1..=12),
            female,
            postcode: format!(
                "{}{}",
                self.areas[self.area_d.sample(r)].to_uppercase(),
                1 + self.district_d.sample(r)
            ),
            occupation: self.occ_d.sample(r),
        }
    }
}

/// One typing error: substitution, deletion, insertion or transposition of letters.
pub fn typo(r: &mut impl Rng, s: &str) -> String {
    let mut c: Vec<char> = s.chars().collect();
    if c.is_empty() {
        return s.to_string();
    }
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    let letter = |r: &mut dyn rand::RngCore| LETTERS[r.gen_range(0..LETTERS.len())] as char;
    loop {
        let mut d = c.clone();
        let i = r.gen_range(0..d.len());
        match r.gen_range(0..4) {
            0 => d[i] = letter(r),
            1 if d.len() > 2 => {
                d.remove(i);
            }
            2 => d.insert(i, letter(r)),
            3 if d.len() > 1 => {
                let j = if i + 1 < d.len() { i + 1 } else { i - 1 };
                d.swap(i, j);
            }
            _ => continue,
        }
        if d != c {
            c = d;
            break;
        }
    }
    c.into_iter().collect()
}

/// A file-B record: the person's values after corruption (`None` = missing).
struct Dirty {
    id: usize,
    first: Option<String>,
    surname: Option<String>,
    year: Option<u64>,
    month: Option<u64>,
    female: Option<bool>,
    postcode: Option<String>,
    occupation: Option<usize>,
}

fn corrupt(r: &mut impl Rng, p: &Person, params: &Params) -> Dirty {
    let typo_p = params.float("typo");
    let miss = params.float("missing");
    let mut first = p.first.clone();
    let mut surname = p.surname.clone();
    if chance(r, typo_p) {
        first = typo(r, &first);
    }
    if chance(r, typo_p) {
        surname = typo(r, &surname);
    }
    if chance(r, params.float("swap")) {
        std::mem::swap(&mut first, &mut surname);
    }
    let mut year = p.year;
    if chance(r, params.float("year_error")) {
        year = if chance(r, 0.5) { year + 1 } else { year - 1 };
    }
    let keep = |r: &mut dyn rand::RngCore| !chance(r, miss);
    Dirty {
        id: p.id,
        first: keep(r).then_some(first),
        surname: keep(r).then_some(surname),
        year: keep(r).then_some(year),
        month: keep(r).then_some(p.month),
        female: keep(r).then_some(p.female),
        postcode: keep(r).then(|| p.postcode.clone()),
        occupation: keep(r).then_some(p.occupation),
    }
}

fn schema() -> Schema {
    Schema::new()
        .col("record_id", ColumnType::String, Role::Identifier)
        .col("person_id", ColumnType::String, Role::Truth)
        .col("first_name", ColumnType::String, Role::Key)
        .col("surname", ColumnType::String, Role::Key)
        .col("birth_year", ColumnType::Integer, Role::Key)
        .col("birth_month", ColumnType::Integer, Role::Key)
        .cat("sex", Role::Key, &["male", "female"])
        .col("postcode", ColumnType::String, Role::Key)
        .cat("occupation", Role::Key, &names::OCCUPATIONS)
}

fn write(w: &mut CsvSink, rec: &str, id: &str, d: &Dirty) {
    w.str(rec)
        .str(id)
        .opt_str(d.first.as_deref())
        .opt_str(d.surname.as_deref())
        .opt_int(d.year)
        .opt_int(d.month)
        .opt_str(d.female.map(|f| if f { "female" } else { "male" }))
        .opt_str(d.postcode.as_deref())
        .opt_str(d.occupation.map(|o| names::OCCUPATIONS[o]));
}

impl LinkagePair {
    /// The persons in both files, checked to fit in file B.
    fn common(&self, params: &Params) -> Result<usize, SynthError> {
        let (n_a, n_b) = (params.usize("n"), params.usize("n_b"));
        let common = (n_a as f64 * params.float("overlap")).round() as usize;
        if common > n_b {
            return Err(SynthError::params(
                self.name(),
                format!(
                    "overlap={}: {common} shared persons do not fit in n_b={n_b}",
                    params.float("overlap")
                ),
            ));
        }
        Ok(common)
    }
}

/// Registry entry.
pub const ENTRY: Entry<dyn Generator> = Entry {
    name: NAME,
    summary: "Two person files for record linkage, file B with typos, missing values, swaps and year errors",
    reference: "Fellegi & Sunter (1969) test bed; error rates from the brief",
    params: PARAMS,
    figures: &[],
    build,
};

/// The generator's name.
const NAME: &str = "linkage-pair";

fn build(r: &mut ParamReader) -> Option<Box<dyn Generator>> {
    Some(Box::new(LinkagePair {
        params: Params::read(r, NAME, PARAMS)?,
    }))
}

impl Generator for LinkagePair {
    fn name(&self) -> &'static str {
        NAME
    }
    fn description(&self) -> &'static str {
        "Two person files for record linkage (Fellegi-Sunter test bed): first name, surname \
         (Zipf-like frequencies over typed lists), birth year and month, sex, postcode \
         district, occupation. File B shares a known part of file A's persons and carries \
         typos, missing values, first-name/surname swaps and off-by-one birth years. Writes \
         file-a.csv and file-b.csv sharing the truth column person_id."
    }
    fn params(&self) -> &Params {
        &self.params
    }
    fn published(&self) -> &'static [(&'static str, &'static str)] {
        PUBLISHED
    }
    fn schemas(&self, _seed: u64) -> Result<Vec<(String, Schema)>, SynthError> {
        let params = &self.params;
        self.common(params)?;
        Ok(vec![
            ("file-a.csv".into(), schema()),
            ("file-b.csv".into(), schema()),
        ])
    }
    fn generate(&self, seed: u64, out_dir: &Path) -> Result<Vec<PathBuf>, SynthError> {
        let params = &self.params;
        let n_a = params.usize("n");
        let n_b = params.usize("n_b");
        let common = self.common(params)?;
        let pools = Pools::new();
        let mut r = rng(seed, 1);
        let mut cr = rng(seed, 2);
        let a: Vec<Person> = (0..n_a).map(|i| pools.person(&mut r, i)).collect();
        let mut in_b: Vec<usize> = (0..n_a).collect();
        in_b.shuffle(&mut r);
        in_b.truncate(common);
        in_b.sort_unstable();
        let mut b: Vec<Dirty> = in_b
            .iter()
            .map(|&i| corrupt(&mut cr, &a[i], params))
            .collect();
        for k in 0..n_b - common {
            let p = pools.person(&mut r, n_a + k);
            b.push(corrupt(&mut cr, &p, params));
        }
        b.shuffle(&mut r);
        let mut a_order: Vec<usize> = (0..n_a).collect();
        a_order.shuffle(&mut r);

        let width = (n_a + n_b).to_string().len().max(5);
        let pid = |i: usize| format!("P{:0width$}", i + 1);
        let mut out = OutputSet::new(out_dir)?;
        let schema = schema();
        let mut fa = out.create("file-a.csv")?;
        fa.header(&schema.header())?;
        for (k, &i) in a_order.iter().enumerate() {
            let p = &a[i];
            let clean = Dirty {
                id: p.id,
                first: Some(p.first.clone()),
                surname: Some(p.surname.clone()),
                year: Some(p.year),
                month: Some(p.month),
                female: Some(p.female),
                postcode: Some(p.postcode.clone()),
                occupation: Some(p.occupation),
            };
            write(&mut fa, &format!("A{:0width$}", k + 1), &pid(p.id), &clean);
            fa.end()?;
        }
        fa.finish()?;
        let mut fb = out.create("file-b.csv")?;
        fb.header(&schema.header())?;
        for (k, d) in b.iter().enumerate() {
            write(&mut fb, &format!("B{:0width$}", k + 1), &pid(d.id), d);
            fb.end()?;
        }
        fb.finish()?;
        let desc = params.describe();
        out.write_schema("file-a.schema.toml", &schema, self.name(), seed, &desc)?;
        out.write_schema("file-b.schema.toml", &schema, self.name(), seed, &desc)?;
        out.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_changes_the_name_by_one_edit() {
        let mut r = rng(3, 0);
        for _ in 0..200 {
            let t = typo(&mut r, "smith");
            assert_ne!(t, "smith");
            let dl = t.len() as i64 - 5;
            assert!(dl.abs() <= 1, "{t}");
        }
    }

    #[test]
    fn name_lists_are_a_few_hundred_distinct_names() {
        let m = words(names::MALE);
        let f = words(names::FEMALE);
        let s = words(names::SURNAMES);
        assert!(m.len() + f.len() >= 200 && s.len() >= 200);
        let mut all = s.clone();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), s.len());
    }
}
