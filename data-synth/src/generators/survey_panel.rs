//! `survey-panel`: a look-alike of the LISS panel as analysed by Mulder (*survey panel
//! anonymity*): 10,997 respondents with background variables, the published missingness, and
//! a month of birth estimated from simulated monthly background waves.
//!
//! Writes `survey-panel.csv` (+ schema) and `survey-panel-truth.csv` (+ schema) with the true
//! birth date and membership of each respondent, for the evaluator only.

use std::path::{Path, PathBuf};

use rand::Rng;
use rand_distr::{Distribution, Poisson};

use intruder_data::params::{Entry, ParamReader};

use crate::dist::{chance, normal, pick, rng};
use crate::mob::{AgeObservation, estimate_birth_months};
use crate::output::OutputSet;
use crate::schema::{ColumnType, Role, Schema};
use crate::{Generator, ParamKind, ParamSpec, Params, Range, SynthError};

/// The `survey-panel` generator.
#[derive(Debug, Clone)]
pub struct SurveyPanel {
    /// The validated parameters.
    params: Params,
}

/// Primary occupation (LISS `belbezig`, without "too young").
pub const OCCUPATIONS: [&str; 13] = [
    "employed",
    "family_business",
    "self_employed",
    "job_seeker",
    "first_job_seeker",
    "exempted",
    "student",
    "homemaker",
    "pensioner",
    "disabled",
    "unpaid_work",
    "volunteer",
    "other",
];
/// Profession, nine categories (LISS `beroep`).
pub const PROFESSIONS: [&str; 9] = [
    "higher_academic",
    "higher_supervisory",
    "intermediate_academic",
    "intermediate_supervisory",
    "other_mental",
    "skilled_manual",
    "semi_skilled_manual",
    "unskilled_manual",
    "agrarian",
];
/// The 17 education-field items, released as a set.
pub const EDUCATION_FIELDS: [&str; 17] = [
    "general",
    "teaching",
    "arts_humanities",
    "communication",
    "business_admin",
    "law",
    "social_behavioural",
    "computing",
    "engineering",
    "agriculture",
    "health_care",
    "transport",
    "hospitality",
    "personal_care",
    "public_safety",
    "science_maths",
    "other",
];
/// Net monthly income in categories (euro).
pub const INCOME_CATS: [&str; 13] = [
    "none",
    "0-500",
    "501-1000",
    "1001-1500",
    "1501-2000",
    "2001-2500",
    "2501-3000",
    "3001-3500",
    "3501-4000",
    "4001-4500",
    "4501-5000",
    "5001-7500",
    "7500+",
];
/// Ethnic origin in categories.
pub const ORIGINS: [&str; 5] = [
    "dutch",
    "first_gen_western",
    "first_gen_nonwestern",
    "second_gen_western",
    "second_gen_nonwestern",
];
/// Religion (follows a religion, and which).
pub const RELIGIONS: [&str; 11] = [
    "none",
    "roman_catholic",
    "protestant_pkn",
    "dutch_reformed",
    "reformed",
    "other_christian",
    "islam",
    "judaism",
    "hinduism",
    "buddhism",
    "other",
];
/// Languages grown up speaking (nine items, released as a set).
pub const LANGUAGES: [&str; 9] = [
    "dutch", "frisian", "dialect", "english", "german", "turkish", "arabic", "berber", "other",
];
/// Social-network profiles (released as a set; `none` when no profile).
pub const SOCIAL_MEDIA: [&str; 4] = ["facebook", "linkedin", "hyves", "none"];
/// Degree of urbanisation.
pub const URBANISATION: [&str; 5] = [
    "extremely_urban",
    "very_urban",
    "moderately_urban",
    "slightly_urban",
    "not_urban",
];
const MONTHS: [&str; 12] = [
    "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12",
];

/// First wave of the simulated background panel (January 2008) and number of monthly waves.
const PANEL_START_YEAR: i32 = 2008;
const PANEL_WAVES: i64 = 72;
/// Reference year for ages.
const REF_YEAR: i32 = 2013;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("n", ParamKind::Integer, "number of respondents")
        .default_value("10997")
        .within(Range::closed(1.0, 10_000_000.0)),
    ParamSpec::new(
        "income_missing",
        ParamKind::Number,
        "share with net income missing",
    )
    .default_value("0.162")
    .within(Range::SHARE),
    ParamSpec::new(
        "income_cat_missing",
        ParamKind::Number,
        "share with income category missing (a subset of income_missing)",
    )
    .default_value("0.037")
    .within(Range::SHARE),
    ParamSpec::new(
        "origin_missing",
        ParamKind::Number,
        "share with origin missing",
    )
    .default_value("0.206")
    .within(Range::SHARE),
    ParamSpec::new(
        "religion_missing",
        ParamKind::Number,
        "share with religion missing",
    )
    .default_value("0.789")
    .within(Range::SHARE),
    ParamSpec::new(
        "short_membership",
        ParamKind::Number,
        "share of members staying 2-11 months (drives 'no month estimate')",
    )
    .default_value("0.028")
    .within(Range::SHARE),
    ParamSpec::new(
        "fill_jitter",
        ParamKind::Number,
        "s.d. in days of the monthly fill-in day around the member's usual day \
                      (drives 'one month candidate')",
    )
    .default_value("3.9")
    .within(Range::closed(0.0, 15.0)),
    ParamSpec::new(
        "missing_dependence",
        ParamKind::Number,
        "how far the same respondents skip the same questionnaires: the share of each of origin, \
         religion, education field, languages and social media whose missingness follows one \
         non-response propensity per respondent, shared with profession (missing for people not \
         in work); 0 = missing completely at random, 1 = nested (whoever misses a rarer one of \
         these also misses every commoner one); each variable's own missing share is kept",
    )
    .default_value("0")
    .within(Range::SHARE),
    ParamSpec::new(
        "rare_language_scale",
        ParamKind::Number,
        "factor on the chance of each language other than Dutch (capped at 1): below 1 fewer \
         respondents grew up with several languages, so fewer rare answer patterns",
    )
    .default_value("1")
    .within(Range::closed(0.0, 10.0)),
];

const PUBLISHED: &[(&str, &str)] = &[
    ("respondents", "10,997"),
    ("net income missing", "16.2% (1,783)"),
    ("income category missing", "3.7% (406)"),
    ("origin missing", "20.6% (2,264)"),
    ("religion missing", "78.9% (8,683)"),
    ("urbanisation missing", "0.1% (8)"),
    ("month of birth: two candidates", "80.4% (8,845)"),
    ("month of birth: one candidate", "18.0% (1,979)"),
    ("month of birth: no estimate", "1.6% (173)"),
];

impl SurveyPanel {
    /// The parameters' checks beyond their ranges.
    fn check(&self, params: &Params) -> Result<(), SynthError> {
        let income_missing = params.float("income_missing");
        let cat_missing = params.float("income_cat_missing");
        if cat_missing > income_missing {
            return Err(SynthError::params(
                self.name(),
                format!(
                    "income_cat_missing={cat_missing} exceeds income_missing={income_missing}: \
                     a missing income category implies a missing income"
                ),
            ));
        }
        Ok(())
    }
}

/// Registry entry.
pub const ENTRY: Entry<dyn Generator> = Entry {
    name: NAME,
    summary: "LISS-like survey panel with set-valued variables and an estimated month of birth",
    reference: "Mulder (2014), LISS panel: missingness and month-of-birth figures",
    params: PARAMS,
    figures: &[],
    build,
};

/// The generator's name.
const NAME: &str = "survey-panel";

fn build(r: &mut ParamReader) -> Option<Box<dyn Generator>> {
    Some(Box::new(SurveyPanel {
        params: Params::read(r, NAME, PARAMS)?,
    }))
}

impl Generator for SurveyPanel {
    fn name(&self) -> &'static str {
        NAME
    }
    fn description(&self) -> &'static str {
        "LISS-like survey panel (Mulder): respondents with year of birth, gender, occupation, \
         profession, education field (set), net income and income category, origin, children \
         at home, religion, languages (set), social media (set), urbanisation, and a month of \
         birth estimated from simulated monthly waves (set: one month, two, or missing). \
         Writes survey-panel.csv and survey-panel-truth.csv (true birth dates) with schemas."
    }
    fn params(&self) -> &Params {
        &self.params
    }
    fn published(&self) -> &'static [(&'static str, &'static str)] {
        PUBLISHED
    }
    fn schemas(&self, _seed: u64) -> Result<Vec<(String, Schema)>, SynthError> {
        let params = &self.params;
        self.check(params)?;
        Ok(vec![
            ("survey-panel.csv".into(), data_schema()),
            ("survey-panel-truth.csv".into(), truth_schema()),
        ])
    }
    fn generate(&self, seed: u64, out_dir: &Path) -> Result<Vec<PathBuf>, SynthError> {
        let params = &self.params;
        self.check(params)?;
        let n = params.usize("n");
        let mut out = OutputSet::new(out_dir)?;
        let schema = data_schema();
        let truth_schema = truth_schema();
        let mut data = out.create("survey-panel.csv")?;
        let mut truth = out.create("survey-panel-truth.csv")?;
        data.header(&schema.header())?;
        truth.header(&truth_schema.header())?;

        let mut prng = rng(seed, 1);
        let mut wrng = rng(seed, 2);
        let mut mrng = rng(seed, 3);
        let width = n.to_string().len().max(5);
        let skips = Skips::of(params);
        let lang_scale = params.float("rare_language_scale");
        for i in 0..n {
            let p = person(&mut prng, lang_scale);
            let panel = simulate_panel(&mut wrng, &p, params);
            let miss = Missing::draw(&mut mrng, params, &skips, p.profession.is_some());
            let id = format!("P{:0width$}", i + 1);
            write_person(&mut data, &id, &p, &panel, &miss)?;
            truth
                .str(&id)
                .int(p.birth_year as u64)
                .int(u64::from(p.birth_month))
                .int(u64::from(p.birth_day))
                .str(&ym(panel.start))
                .str(&ym(panel.end))
                .int(u64::from(panel.fill_day));
            truth.end()?;
        }
        data.finish()?;
        truth.finish()?;
        let desc = params.describe();
        out.write_schema(
            "survey-panel.schema.toml",
            &schema,
            self.name(),
            seed,
            &desc,
        )?;
        out.write_schema(
            "survey-panel-truth.schema.toml",
            &truth_schema,
            self.name(),
            seed,
            &desc,
        )?;
        out.commit()
    }
}

fn data_schema() -> Schema {
    Schema::new()
        .col("person_id", ColumnType::String, Role::Truth)
        .col("year_of_birth", ColumnType::Integer, Role::Key)
        .cat("gender", Role::Key, &["male", "female"])
        .cat("occupation", Role::Key, &OCCUPATIONS)
        .cat("profession", Role::Key, &PROFESSIONS)
        .set("education_field", Role::Key, &EDUCATION_FIELDS)
        .col("net_income", ColumnType::Integer, Role::Sensitive)
        .cat("income_cat", Role::Key, &INCOME_CATS)
        .cat("origin", Role::Key, &ORIGINS)
        .col("children", ColumnType::Integer, Role::Key)
        .cat("religion", Role::Key, &RELIGIONS)
        .set("languages", Role::Key, &LANGUAGES)
        .set("social_media", Role::Key, &SOCIAL_MEDIA)
        .cat("urbanisation", Role::Other, &URBANISATION)
        .set("birth_month_est", Role::Key, &MONTHS)
}

fn truth_schema() -> Schema {
    Schema::new()
        .col("person_id", ColumnType::String, Role::Truth)
        .col("birth_year", ColumnType::Integer, Role::Other)
        .col("birth_month", ColumnType::Integer, Role::Other)
        .col("birth_day", ColumnType::Integer, Role::Other)
        .col("member_from", ColumnType::String, Role::Other)
        .col("member_to", ColumnType::String, Role::Other)
        .col("fill_day", ColumnType::Integer, Role::Other)
}

fn ym(t: i64) -> String {
    format!("{}-{:02}", i64::from(PANEL_START_YEAR) + t / 12, t % 12 + 1)
}

/// One simulated respondent (all values present; missingness is applied on writing).
#[derive(Debug, Clone)]
struct Person {
    birth_year: i32,
    birth_month: u8,
    birth_day: u8,
    female: bool,
    occupation: usize,
    profession: Option<usize>,
    education_fields: Vec<usize>,
    net_income: u64,
    origin: usize,
    children: u64,
    religion: usize,
    languages: Vec<usize>,
    social_media: Vec<usize>,
    urbanisation: usize,
}

fn days_in_month(m: u8) -> u8 {
    match m {
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Age bands in the reference year with their shares (the panel over-represents middle and
/// older ages).
const AGE_BANDS: [(u32, u32, f64); 7] = [
    (16, 24, 0.12),
    (25, 34, 0.13),
    (35, 44, 0.17),
    (45, 54, 0.19),
    (55, 64, 0.19),
    (65, 74, 0.13),
    (75, 92, 0.07),
];
/// Share of women.
const FEMALE: f64 = 0.54;
/// Occupations of people in work (they have a profession).
const WORKING: std::ops::RangeInclusive<usize> = 0..=2;

/// Weights of the primary occupation: it depends on age and gender.
fn occupation_weights(age: u32, female: bool) -> [f64; 13] {
    let mut w = [0.0f64; 13];
    if age < 18 {
        w[6] = 0.9;
        w[0] = 0.06;
        w[12] = 0.04;
    } else if age < 25 {
        w = [
            0.38, 0.005, 0.01, 0.03, 0.04, 0.0, 0.48, 0.01, 0.0, 0.01, 0.0, 0.005, 0.03,
        ];
    } else if age < 65 {
        let emp = if female { 0.55 } else { 0.68 };
        let home = if female { 0.15 } else { 0.02 };
        let pens = if age >= 60 { 0.35 } else { 0.0 };
        w = [
            emp, 0.01, 0.07, 0.04, 0.0, 0.01, 0.02, home, pens, 0.06, 0.005, 0.02, 0.02,
        ];
    } else {
        w = [
            0.02, 0.005, 0.02, 0.0, 0.0, 0.0, 0.0, 0.03, 0.88, 0.0, 0.0, 0.04, 0.01,
        ];
    }
    w
}

/// The chance that a respondent is not in work (has no profession), from the model's own age
/// bands, gender share and occupation weights.
fn not_working_share() -> f64 {
    let mut p = 0.0;
    for &(lo, hi, share) in &AGE_BANDS {
        let ages = f64::from(hi - lo + 1);
        for age in lo..=hi {
            for (female, pg) in [(true, FEMALE), (false, 1.0 - FEMALE)] {
                let w = occupation_weights(age, female);
                let total: f64 = w.iter().sum();
                let work: f64 = w[WORKING].iter().sum();
                p += share / ages * pg * (1.0 - work / total);
            }
        }
    }
    p
}

/// One simulated respondent, every value drawn from `r` in a fixed order.
fn person<R: Rng>(r: &mut R, lang_scale: f64) -> Person {
    let bands = AGE_BANDS;
    let b = bands[pick(r, &bands.map(|b| b.2))];
    let age = r.gen_range(b.0..=b.1);
    let birth_year = REF_YEAR - age as i32;
    let birth_month = r.gen_range(1..=12u8);
    let birth_day = r.gen_range(1..=days_in_month(birth_month));
    let female = chance(r, FEMALE);

    let w = occupation_weights(age, female);
    let occupation = pick(r, &w);
    let working = WORKING.contains(&occupation);

    let (level, education_fields) = education_of(r, age);
    let main_field = education_fields[0];
    // Profession (only for people in work) depends on education level and field.
    let profession = working.then(|| profession_of(r, level, main_field));
    let net_income = net_income_of(r, age, female, occupation, level, profession);

    let origin = pick(r, &[0.78, 0.05, 0.06, 0.06, 0.05]);
    let nonwestern = matches!(origin, 2 | 4);
    let children = children_of(r, age, nonwestern);
    let religion = religion_of(r, age, nonwestern);
    let languages = languages_of(r, age, origin, lang_scale);
    let social_media = social_media_of(r, age, profession);
    let urbanisation = pick(r, &[0.18, 0.26, 0.21, 0.2, 0.15]);
    Person {
        birth_year,
        birth_month,
        birth_day,
        female,
        occupation,
        profession,
        education_fields,
        net_income,
        origin,
        children,
        religion,
        languages,
        social_media,
        urbanisation,
    }
}

/// Education level (0 low, 1 middle, 2 high: younger cohorts are more educated) and one to
/// three education fields, sorted.
fn education_of<R: Rng>(r: &mut R, age: u32) -> (usize, Vec<usize>) {
    let high = if age < 45 { 0.33 } else { 0.24 };
    let low = if age >= 65 { 0.45 } else { 0.28 };
    let level = pick(r, &[low, 1.0 - low - high, high]);
    let field_w = field_weights(level);
    let n_fields = 1 + pick(r, &[0.88, 0.10, 0.02]);
    let mut education_fields = Vec::with_capacity(n_fields);
    while education_fields.len() < n_fields {
        let f = pick(r, &field_w);
        if !education_fields.contains(&f) {
            education_fields.push(f);
        }
    }
    education_fields.sort_unstable();
    (level, education_fields)
}

/// Weights of the education fields at an education level.
fn field_weights(level: usize) -> [f64; 17] {
    match level {
        0 => [
            0.25, 0.02, 0.01, 0.01, 0.1, 0.0, 0.02, 0.02, 0.2, 0.05, 0.1, 0.06, 0.07, 0.07, 0.02,
            0.0, 0.03,
        ],
        1 => [
            0.08, 0.05, 0.03, 0.03, 0.17, 0.02, 0.05, 0.06, 0.16, 0.04, 0.12, 0.04, 0.04, 0.04,
            0.03, 0.02, 0.02,
        ],
        _ => [
            0.02, 0.1, 0.07, 0.04, 0.15, 0.06, 0.1, 0.07, 0.1, 0.02, 0.1, 0.01, 0.01, 0.0, 0.01,
            0.07, 0.02,
        ],
    }
}

/// The profession of someone in work, from their education level and main field.
fn profession_of<R: Rng>(r: &mut R, level: usize, main_field: usize) -> usize {
    let mut pw: [f64; 9] = match level {
        0 => [0.0, 0.01, 0.02, 0.05, 0.2, 0.2, 0.25, 0.22, 0.05],
        1 => [0.02, 0.03, 0.15, 0.12, 0.3, 0.18, 0.12, 0.05, 0.03],
        _ => [0.35, 0.15, 0.3, 0.08, 0.1, 0.02, 0.0, 0.0, 0.0],
    };
    if matches!(main_field, 8 | 11 | 12 | 13) && level < 2 {
        pw[5] += 0.3;
        pw[6] += 0.1;
    }
    if main_field == 9 {
        pw[8] += 0.4;
    }
    if matches!(main_field, 1 | 5 | 10 | 15) {
        pw[2] += 0.2;
    }
    pick(r, &pw)
}

/// Net monthly income, from occupation, age, gender, education level and profession.
fn net_income_of<R: Rng>(
    r: &mut R,
    age: u32,
    female: bool,
    occupation: usize,
    level: usize,
    profession: Option<usize>,
) -> u64 {
    let working = WORKING.contains(&occupation);
    let base = [
        2000.0, 1500.0, 2600.0, 1100.0, 900.0, 1100.0, 350.0, 300.0, 1500.0, 1200.0, 900.0, 800.0,
        900.0,
    ][occupation];
    let mut mult = if female { 0.8 } else { 1.15 };
    mult *= [0.85, 1.0, 1.35][level];
    if working {
        mult *= 0.65 + 0.35 * ((f64::from(age) - 18.0) / 25.0).clamp(0.0, 1.0);
    }
    if let Some(p) = profession {
        mult *= [1.45, 1.5, 1.15, 1.1, 0.95, 0.9, 0.85, 0.75, 0.9][p];
    }
    let zero_income = matches!(occupation, 6 | 7) && chance(r, 0.3);
    if zero_income {
        0
    } else {
        (base * mult * (0.35 * normal(r)).exp()).round().max(1.0) as u64
    }
}

/// Number of children (at most 6), from age and origin.
fn children_of<R: Rng>(r: &mut R, age: u32, nonwestern: bool) -> u64 {
    let mean_children = match age {
        16..=24 => 0.05,
        25..=34 => 0.8,
        35..=44 => 1.6,
        45..=54 => 1.1,
        55..=64 => 0.3,
        _ => 0.03,
    } * if nonwestern { 1.3 } else { 1.0 };
    Poisson::new(mean_children)
        .map(|d| d.sample(r) as u64)
        .unwrap_or(0)
        .min(6)
}

/// Religion, from age and origin.
fn religion_of<R: Rng>(r: &mut R, age: u32, nonwestern: bool) -> usize {
    let mut rw = [
        0.42, 0.24, 0.09, 0.06, 0.03, 0.04, 0.05, 0.003, 0.01, 0.01, 0.02,
    ];
    if age >= 60 {
        rw[0] = 0.25;
    }
    if nonwestern {
        rw[6] = 0.5;
        rw[8] = 0.06;
    }
    pick(r, &rw)
}

/// Languages grown up speaking (at least one), from age and origin; every language but Dutch
/// is `lang_scale` times as likely.
fn languages_of<R: Rng>(r: &mut R, age: u32, origin: usize, lang_scale: f64) -> Vec<usize> {
    let nonwestern = matches!(origin, 2 | 4);
    let mut languages = Vec::new();
    let lang_p = [
        if nonwestern { 0.45 } else { 0.96 },
        0.03,
        if age > 50 { 0.2 } else { 0.1 },
        0.02,
        0.02,
        if nonwestern { 0.25 } else { 0.0 },
        if nonwestern { 0.2 } else { 0.0 },
        if nonwestern { 0.08 } else { 0.0 },
        if origin == 0 { 0.01 } else { 0.15 },
    ];
    for (l, p) in lang_p.iter().enumerate() {
        let p = if l == 0 {
            *p
        } else {
            (p * lang_scale).min(1.0)
        };
        if chance(r, p) {
            languages.push(l);
        }
    }
    if languages.is_empty() {
        languages.push(if nonwestern { 8 } else { 0 });
    }
    languages
}

/// Social-network profiles (`none` when no profile), from age and profession.
fn social_media_of<R: Rng>(r: &mut R, age: u32, profession: Option<usize>) -> Vec<usize> {
    let a = f64::from(age);
    let mut social_media = Vec::new();
    if chance(r, (0.85 - 0.012 * (a - 18.0)).clamp(0.05, 0.9)) {
        social_media.push(0);
    }
    let li = match profession {
        Some(0..=3) => 0.45,
        Some(_) => 0.12,
        None => 0.03,
    };
    if chance(r, li) {
        social_media.push(1);
    }
    if chance(r, (0.75 - 0.02 * (a - 16.0)).clamp(0.02, 0.8)) {
        social_media.push(2);
    }
    if social_media.is_empty() {
        social_media.push(3);
    }
    social_media
}

/// Membership and monthly fill-ins of one respondent.
#[derive(Debug, Clone)]
struct Panel {
    /// First and last wave index (0 = January 2008).
    start: i64,
    end: i64,
    fill_day: u8,
    estimate: String,
}

/// Age at (year, month, day) for someone born on (by, bm, bd).
fn age_at(by: i32, bm: u8, bd: u8, year: i32, month: u8, day: u8) -> u32 {
    let before = (month, day) < (bm, bd);
    (year - by - i32::from(before)).max(0) as u32
}

fn simulate_panel<R: Rng>(r: &mut R, p: &Person, params: &Params) -> Panel {
    let short = params.float("short_membership");
    let jitter = params.float("fill_jitter");
    let len = if chance(r, short) {
        r.gen_range(2..=11)
    } else {
        r.gen_range(12..=PANEL_WAVES)
    };
    let start = r.gen_range(0..=PANEL_WAVES - len);
    let end = start + len - 1;
    let fill_day = r.gen_range(1..=28u8);
    let obs: Vec<AgeObservation> = (start..=end)
        .map(|t| {
            let year = PANEL_START_YEAR + (t / 12) as i32;
            let month = (t % 12 + 1) as u8;
            let day = (f64::from(fill_day) + jitter * normal(r))
                .round()
                .clamp(1.0, 28.0) as u8;
            AgeObservation {
                year,
                month,
                age: age_at(p.birth_year, p.birth_month, p.birth_day, year, month, day),
            }
        })
        .collect();
    Panel {
        start,
        end,
        fill_day,
        estimate: estimate_birth_months(&obs).to_cell(),
    }
}

/// The shared non-response propensity behind `missing_dependence`: each respondent has one
/// uniform u0, below the model's not-working share for people not in work and above it for the
/// others (so u0 is uniform over respondents and profession, missing for people not in work,
/// is the lowest stratum); a questionnaire variable missing with share p is missing when its u
/// is below p, u being u0 with chance `dependence` and a fresh uniform otherwise. Its own
/// missing share stays p; at dependence 1 the missing sets are nested.
#[derive(Debug, Clone, Copy)]
struct Skips {
    dependence: f64,
    not_working: f64,
}

impl Skips {
    fn of(params: &Params) -> Skips {
        Skips {
            dependence: params.float("missing_dependence"),
            not_working: not_working_share(),
        }
    }
}

/// Which released values are set missing: drawn independently of the values and of each
/// other (missing completely at random), or, with `missing_dependence`, through one
/// non-response propensity per respondent ([`Skips`]).
#[derive(Debug, Clone, Copy)]
struct Missing {
    income: bool,
    income_cat: bool,
    origin: bool,
    religion: bool,
    education_field: bool,
    languages: bool,
    social_media: bool,
    urbanisation: bool,
}

impl Missing {
    fn draw<R: Rng>(r: &mut R, params: &Params, skips: &Skips, working: bool) -> Missing {
        let income_p = params.float("income_missing");
        let cat_p = params.float("income_cat_missing");
        let income = chance(r, income_p);
        // P(cat missing) = P(income missing) * P(cat missing | income missing).
        let income_cat = income && income_p > 0.0 && chance(r, cat_p / income_p);
        if skips.dependence > 0.0 {
            let q = skips.not_working;
            let u0 = if working {
                q + (1.0 - q) * r.r#gen::<f64>()
            } else {
                q * r.r#gen::<f64>()
            };
            let mut skipped = |p: f64| {
                let u = if chance(r, skips.dependence) {
                    u0
                } else {
                    r.r#gen::<f64>()
                };
                u < p
            };
            return Missing {
                income,
                income_cat,
                origin: skipped(params.float("origin_missing")),
                religion: skipped(params.float("religion_missing")),
                education_field: skipped(EDUCATION_FIELD_MISSING),
                languages: skipped(LANGUAGES_MISSING),
                social_media: skipped(SOCIAL_MEDIA_MISSING),
                urbanisation: chance(r, 8.0 / 10997.0),
            };
        }
        Missing {
            income,
            income_cat,
            origin: chance(r, params.float("origin_missing")),
            religion: chance(r, params.float("religion_missing")),
            education_field: chance(r, EDUCATION_FIELD_MISSING),
            languages: chance(r, LANGUAGES_MISSING),
            social_media: chance(r, SOCIAL_MEDIA_MISSING),
            urbanisation: chance(r, 8.0 / 10997.0),
        }
    }
}

// Shares of the paper's Table 3 (n_deleted / 10,997), not parameters.
const EDUCATION_FIELD_MISSING: f64 = 5131.0 / 10997.0;
const LANGUAGES_MISSING: f64 = 4848.0 / 10997.0;
const SOCIAL_MEDIA_MISSING: f64 = 5802.0 / 10997.0;

fn income_cat(v: u64) -> usize {
    match v {
        0 => 0,
        1..=500 => 1,
        501..=5000 => 2 + ((v - 501) / 500) as usize,
        5001..=7500 => 11,
        _ => 12,
    }
}

fn join(items: &[usize], labels: &[&str]) -> String {
    items
        .iter()
        .map(|&i| labels[i])
        .collect::<Vec<_>>()
        .join("|")
}

fn write_person(
    w: &mut crate::output::CsvSink,
    id: &str,
    p: &Person,
    panel: &Panel,
    m: &Missing,
) -> Result<(), SynthError> {
    w.str(id)
        .int(p.birth_year as u64)
        .str(if p.female { "female" } else { "male" })
        .str(OCCUPATIONS[p.occupation])
        .opt_str(p.profession.map(|i| PROFESSIONS[i]))
        .str(&if m.education_field {
            String::new()
        } else {
            join(&p.education_fields, &EDUCATION_FIELDS)
        })
        .opt_int((!m.income).then_some(p.net_income))
        .opt_str((!m.income_cat).then(|| INCOME_CATS[income_cat(p.net_income)]))
        .opt_str((!m.origin).then(|| ORIGINS[p.origin]))
        .int(p.children)
        .opt_str((!m.religion).then(|| RELIGIONS[p.religion]))
        .str(&if m.languages {
            String::new()
        } else {
            join(&p.languages, &LANGUAGES)
        })
        .str(&if m.social_media {
            String::new()
        } else {
            join(&p.social_media, &SOCIAL_MEDIA)
        })
        .opt_str((!m.urbanisation).then(|| URBANISATION[p.urbanisation]))
        .str(&panel.estimate);
    w.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn income_categories_have_the_published_bounds() {
        assert_eq!(INCOME_CATS[income_cat(0)], "none");
        assert_eq!(INCOME_CATS[income_cat(500)], "0-500");
        assert_eq!(INCOME_CATS[income_cat(501)], "501-1000");
        assert_eq!(INCOME_CATS[income_cat(1000)], "501-1000");
        assert_eq!(INCOME_CATS[income_cat(5000)], "4501-5000");
        assert_eq!(INCOME_CATS[income_cat(7500)], "5001-7500");
        assert_eq!(INCOME_CATS[income_cat(7501)], "7500+");
    }

    #[test]
    fn age_turns_on_the_birthday() {
        assert_eq!(age_at(1970, 3, 15, 2010, 3, 14), 39);
        assert_eq!(age_at(1970, 3, 15, 2010, 3, 15), 40);
        assert_eq!(age_at(1970, 3, 15, 2010, 4, 1), 40);
    }
}
