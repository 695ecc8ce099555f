//! Recompute the calibrated figures from written files.
//!
//! Used by the tests, by `examples/calibrate.rs` (which produced the README tables) and by
//! anyone who wants to check a generated data set against the published values. The files
//! are read back from disk, so the figures describe exactly what was written.

use std::collections::HashMap;
use std::path::Path;

use crate::SynthError;

/// A small in-memory table read from one of our CSV files (by the `csv` crate).
#[derive(Debug, Clone)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Read `path`.
    pub fn read(path: &Path) -> Result<Table, SynthError> {
        let err = |e: csv::Error| SynthError::io(path, e.into());
        let mut r = csv::Reader::from_path(path).map_err(err)?;
        let header = r
            .headers()
            .map_err(err)?
            .iter()
            .map(str::to_string)
            .collect();
        let rows = r
            .records()
            .map(|rec| rec.map(|rec| rec.iter().map(str::to_string).collect()))
            .collect::<Result<_, _>>()
            .map_err(err)?;
        Ok(Table { header, rows })
    }

    /// Index of column `name` (panics if absent: the generators write fixed headers).
    pub fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }

    /// The cells of column `name`.
    pub fn column(&self, name: &str) -> Vec<&str> {
        let i = self.col(name);
        self.rows.iter().map(|r| r[i].as_str()).collect()
    }

    /// Share of empty cells in column `name`.
    pub fn missing_share(&self, name: &str) -> f64 {
        let c = self.column(name);
        c.iter().filter(|v| v.is_empty()).count() as f64 / c.len().max(1) as f64
    }
}

/// One recomputed figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// What it is, in the words of [`crate::Generator::published`].
    pub name: String,
    /// The value from the generated files.
    pub value: f64,
}

fn fig(name: &str, value: f64) -> Figure {
    Figure {
        name: name.to_string(),
        value,
    }
}

/// Figures of a `survey-panel` output directory.
pub fn survey_panel(dir: &Path) -> Result<Vec<Figure>, SynthError> {
    let t = Table::read(&dir.join("survey-panel.csv"))?;
    let n = t.rows.len() as f64;
    let mob = t.column("birth_month_est");
    let count = |k: usize| {
        mob.iter()
            .filter(|v| if v.is_empty() { 0 } else { v.split('|').count() } == k)
            .count() as f64
            / n
    };
    Ok(vec![
        fig("respondents", n),
        fig("net income missing", t.missing_share("net_income")),
        fig("income category missing", t.missing_share("income_cat")),
        fig("origin missing", t.missing_share("origin")),
        fig("religion missing", t.missing_share("religion")),
        fig("urbanisation missing", t.missing_share("urbanisation")),
        fig("profession missing", t.missing_share("profession")),
        fig("month of birth: two candidates", count(2)),
        fig("month of birth: one candidate", count(1)),
        fig("month of birth: no estimate", count(0)),
    ])
}

/// Sizes of the equivalence classes of `rows` on columns `cols` (class key -> count).
pub fn class_sizes<'a>(t: &'a Table, cols: &[&str]) -> HashMap<Vec<&'a str>, usize> {
    let idx: Vec<usize> = cols.iter().map(|c| t.col(c)).collect();
    let mut m = HashMap::new();
    for r in &t.rows {
        let key: Vec<&str> = idx.iter().map(|&i| r[i].as_str()).collect();
        *m.entry(key).or_insert(0) += 1;
    }
    m
}

/// Figures of the output of generator `name` in `dir`.
pub fn compute(name: &str, dir: &Path) -> Result<Vec<Figure>, SynthError> {
    match name {
        "survey-panel" => survey_panel(dir),
        "household-panel" => household_panel(dir),
        "register-survey" => register_survey(dir),
        "census" => census(dir),
        "linkage-pair" => linkage_pair(dir),
        _ => Ok(Vec::new()),
    }
}

/// Figures of a `household-panel` output directory: sizes, and the exact-matching counts of
/// the split households (Mitra section 3.1). For each wave-2 split record the intruder knows
/// the wave-1 keys of its household (scenario 1) plus its wave-2 children and household type
/// (scenario 2); `c` is the number of wave-2 split records with those keys, and the record
/// counts when it is among them.
pub fn household_panel(dir: &Path) -> Result<Vec<Figure>, SynthError> {
    let w1 = Table::read(&dir.join("household-wave1.csv"))?;
    let w2 = Table::read(&dir.join("household-wave2.csv"))?;
    let id1 = w1.col("household_id");
    let by_id: HashMap<&str, &Vec<String>> = w1.rows.iter().map(|r| (r[id1].as_str(), r)).collect();
    let split: Vec<&Vec<String>> = w2
        .rows
        .iter()
        .filter(|r| r[w2.col("split")] == "1")
        .collect();
    let s1 = ["area", "accommodation", "bedrooms"];
    let s2 = ["children", "household_type"];
    let c1: Vec<usize> = s1.iter().map(|c| w1.col(c)).collect();
    let c1w2: Vec<usize> = s1.iter().map(|c| w2.col(c)).collect();
    let c2w2: Vec<usize> = s2.iter().map(|c| w2.col(c)).collect();
    let key = |r: &Vec<String>, idx: &[usize]| -> Vec<String> {
        idx.iter().map(|&i| r[i].clone()).collect()
    };
    let mut counts1: HashMap<Vec<String>, usize> = HashMap::new();
    let mut counts2: HashMap<Vec<String>, usize> = HashMap::new();
    for r in &split {
        let k1 = key(r, &c1w2);
        let mut k2 = k1.clone();
        k2.extend(key(r, &c2w2));
        *counts1.entry(k1).or_default() += 1;
        *counts2.entry(k2).or_default() += 1;
    }
    let (mut a1, mut b1, mut a2, mut b2, mut correct) = (0, 0, 0, 0, 0);
    let hid = w2.col("household_id");
    for r in &split {
        let Some(orig) = by_id.get(r[hid].as_str()) else {
            continue;
        };
        let x1 = key(orig, &c1);
        if x1 != key(r, &c1w2) {
            continue; // the household's keys changed: it is not among its matches
        }
        correct += 1;
        let c = counts1.get(&x1).copied().unwrap_or(0);
        a1 += usize::from(c == 1);
        b1 += usize::from(c <= 2);
        let mut x2 = x1;
        x2.extend(key(r, &c2w2));
        let c = counts2.get(&x2).copied().unwrap_or(0);
        a2 += usize::from(c == 1);
        b2 += usize::from(c <= 2);
    }
    Ok(vec![
        fig("wave-1 households", w1.rows.len() as f64),
        fig("wave-2 households", w2.rows.len() as f64),
        fig("split households", split.len() as f64),
        fig("scenario 1: c_i = 1", a1 as f64),
        fig("scenario 1: c_i <= 2", b1 as f64),
        fig("scenario 2: c_i = 1", a2 as f64),
        fig("scenario 2: c_i <= 2", b2 as f64),
        fig("correct household among matches", correct as f64),
    ])
}

/// Figures of a `register-survey` output directory: survey income heaping, exact agreement
/// between each twin's register and survey values, and register sample uniques on the 14
/// keys (earnings in 7 classes).
pub fn register_survey(dir: &Path) -> Result<Vec<Figure>, SynthError> {
    let reg = Table::read(&dir.join("register.csv"))?;
    let sur = Table::read(&dir.join("survey.csv"))?;
    let inc: Vec<u64> = sur
        .column("earnings")
        .iter()
        .filter_map(|v| v.parse().ok())
        .collect();
    let share = |m: u64, e: u64| {
        inc.iter().filter(|&&v| v % m == e).count() as f64 / inc.len().max(1) as f64
    };
    let mut figs = vec![
        fig("register records", reg.rows.len() as f64),
        fig("survey records", sur.rows.len() as f64),
        fig("survey income last digit 0", share(10, 0)),
        fig("survey income last digits 00", share(100, 0)),
        fig("survey income last digits 000", share(1000, 0)),
        fig("survey income last digits 500", share(1000, 500)),
        fig("survey income last digits 800", share(1000, 800)),
    ];
    let rid = reg.col("person_id");
    let by_id: HashMap<&str, &Vec<String>> =
        reg.rows.iter().map(|r| (r[rid].as_str(), r)).collect();
    let sid = sur.col("person_id");
    let vars = [
        "earnings",
        "birth_cohort",
        "sex",
        "occupation",
        "region",
        "nationality",
        "schooling",
        "occ_status",
        "part_time",
        "interruption",
        "months_worked",
        "last_duration",
        "married",
        "children",
    ];
    for v in vars {
        let (ci, cr) = (sur.col(v), reg.col(v));
        let agree = sur
            .rows
            .iter()
            .filter(|s| {
                let v = &s[ci];
                !v.is_empty() && by_id.get(s[sid].as_str()).is_some_and(|r| &r[cr] == v)
            })
            .count();
        figs.push(fig(
            &format!("agree: {v}"),
            agree as f64 / sur.rows.len().max(1) as f64,
        ));
    }
    let keys = [
        "occupation",
        "birth_cohort",
        "earnings_class",
        "sex",
        "region",
        "nationality",
        "schooling",
        "occ_status",
        "part_time",
        "interruption",
        "months_worked",
        "last_duration",
        "married",
        "children",
    ];
    let sizes = class_sizes(&reg, &keys);
    let uniques = sizes.values().filter(|&&c| c == 1).count();
    figs.push(fig(
        "register sample uniques (14 keys)",
        uniques as f64 / reg.rows.len().max(1) as f64,
    ));
    // With `population = N`: the population's records and its uniques on the same keys.
    let pop_path = dir.join("population.csv");
    if pop_path.exists() {
        let pop = Table::read(&pop_path)?;
        let sizes = class_sizes(&pop, &keys);
        let uniques = sizes.values().filter(|&&c| c == 1).count();
        figs.push(fig("population records", pop.rows.len() as f64));
        figs.push(fig(
            "population uniques (14 keys)",
            uniques as f64 / pop.rows.len().max(1) as f64,
        ));
    }
    Ok(figs)
}

/// Figures of a `census` output directory. For the drug-survey preset (columns age, sex,
/// region, status): sample uniques, classes with 1-4 members, the same without region, and
/// the smallest population class among the 126 possible. For the generic census: sizes,
/// population and sample uniques on all keys, and the weighted sample total.
pub fn census(dir: &Path) -> Result<Vec<Figure>, SynthError> {
    let pop = Table::read(&dir.join("population.csv"))?;
    let smp = Table::read(&dir.join("sample.csv"))?;
    let wi = smp.col("weight");
    let wsum: f64 = smp
        .rows
        .iter()
        .map(|r| r[wi].parse::<f64>().unwrap_or(0.0))
        .sum();
    let mut figs = vec![
        fig("population records", pop.rows.len() as f64),
        fig("sample records", smp.rows.len() as f64),
        fig("weighted sample total", wsum.round()),
    ];
    let keys: Vec<&str> = pop
        .header
        .iter()
        .map(String::as_str)
        .filter(|h| *h != "person_id")
        .collect();
    if keys == ["age", "sex", "region", "status"] {
        let s = class_sizes(&smp, &keys);
        let p = class_sizes(&pop, &keys);
        let s3 = class_sizes(&smp, &["age", "sex", "status"]);
        let under5 = |m: &HashMap<Vec<&str>, usize>| m.values().filter(|&&c| c < 5).count() as f64;
        figs.push(fig("drug-survey respondents", smp.rows.len() as f64));
        figs.push(fig("drug-survey possible classes", 126.0));
        figs.push(fig(
            "drug-survey sample uniques",
            s.values().filter(|&&c| c == 1).count() as f64,
        ));
        figs.push(fig("drug-survey classes under 5", under5(&s)));
        figs.push(fig(
            "drug-survey classes under 5 without region",
            under5(&s3),
        ));
        figs.push(fig("drug-survey population classes", p.len() as f64));
        figs.push(fig(
            "drug-survey smallest population class",
            p.values().copied().min().unwrap_or(0) as f64,
        ));
    } else {
        let p = class_sizes(&pop, &keys);
        let s = class_sizes(&smp, &keys);
        figs.push(fig(
            "population uniques",
            p.values().filter(|&&c| c == 1).count() as f64,
        ));
        figs.push(fig(
            "sample uniques",
            s.values().filter(|&&c| c == 1).count() as f64,
        ));
    }
    Ok(figs)
}

/// Figures of a `linkage-pair` output directory, over the persons in both files: overlap,
/// share of names differing (typo or swap), swapped records, missing fields, years off by one.
pub fn linkage_pair(dir: &Path) -> Result<Vec<Figure>, SynthError> {
    let a = Table::read(&dir.join("file-a.csv"))?;
    let b = Table::read(&dir.join("file-b.csv"))?;
    let ai = a.col("person_id");
    let by_id: HashMap<&str, &Vec<String>> = a.rows.iter().map(|r| (r[ai].as_str(), r)).collect();
    let (fi, si, yi) = (b.col("first_name"), b.col("surname"), b.col("birth_year"));
    let bi = b.col("person_id");
    let (mut pairs, mut names, mut typos, mut swaps, mut years, mut year_off) = (0, 0, 0, 0, 0, 0);
    for r in &b.rows {
        let Some(ar) = by_id.get(r[bi].as_str()) else {
            continue;
        };
        pairs += 1;
        // A swap is recognised from either name (the other may carry a typo or be missing).
        let swapped = ar[fi] != ar[si]
            && ((!r[fi].is_empty() && r[fi] == ar[si]) || (!r[si].is_empty() && r[si] == ar[fi]));
        swaps += usize::from(swapped);
        if !swapped {
            for (bv, av) in [(&r[fi], &ar[fi]), (&r[si], &ar[si])] {
                if !bv.is_empty() {
                    names += 1;
                    typos += usize::from(bv != av);
                }
            }
        }
        if !r[yi].is_empty() {
            years += 1;
            year_off += usize::from(r[yi] != ar[yi]);
        }
    }
    let cells: usize = b.rows.len() * (b.header.len() - 2);
    let missing: usize = b
        .rows
        .iter()
        .map(|r| r[2..].iter().filter(|v| v.is_empty()).count())
        .sum();
    let share = |a: usize, b: usize| a as f64 / b.max(1) as f64;
    Ok(vec![
        fig("file A records", a.rows.len() as f64),
        fig("file B records", b.rows.len() as f64),
        fig("persons in both files", pairs as f64),
        fig("names with a typo", share(typos, names)),
        fig("fields missing", share(missing, cells)),
        fig("first-name/surname swaps", share(swaps, pairs)),
        fig("birth years off by one", share(year_off, years)),
    ])
}
