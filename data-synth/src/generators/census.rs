//! `census`: a large population with many skewed, mutually dependent categorical keys
//! (Dalenius, *finding a needle in a haystack*) and a weighted sample drawn from it; with the
//! preset `drug-survey`, the youth drug-use survey of the anonymisation introduction
//! (1,502 respondents, 126 possible classes of age x sex x region x minority/aboriginal status).
//!
//! Rows are streamed to disk: the population is generated row by row and the sample is drawn
//! on the fly by sequential selection (each row of stratum `h` is taken with probability
//! `samples still needed in h / rows still to come in h`), which yields exactly the requested
//! sample size with memory independent of `n`. Stratum sizes are drawn up front (multinomial)
//! and strata are interleaved at random, so the file is not sorted by stratum.
//!
//! Writes `population.csv` and `sample.csv` (with a design-weight column `weight` = N_h / n_h)
//! and their schemas; `person_id` (role truth) links a sample row to its population row.

use std::path::{Path, PathBuf};

use rand::Rng;
use rand::seq::SliceRandom;
use rand_distr::{Binomial, Distribution};

use intruder_data::params::{Entry, ParamReader};

use crate::dist::{Categorical, rng};
use crate::output::{CsvSink, OutputSet};
use crate::schema::{ColumnType, Role, Schema};
use crate::{Generator, ParamKind, ParamSpec, Params, Range, SynthError};

/// The `census` generator.
#[derive(Debug, Clone)]
pub struct Census {
    /// The validated parameters.
    params: Params,
}

/// Number of categories of keys `k01..k30`: skewed sizes, several above ten.
pub const KEY_CATEGORIES: [usize; 30] = [
    2, 7, 3, 12, 5, 2, 9, 4, 16, 3, 6, 2, 11, 5, 8, 3, 24, 4, 2, 10, 6, 3, 14, 2, 5, 7, 3, 20, 4, 9,
];
/// Number of latent classes that make the keys mutually dependent.
const LATENT: usize = 8;

/// Drug-survey preset: regions.
pub const DRUG_REGIONS: [&str; 7] = [
    "atlantic",
    "quebec",
    "toronto",
    "ontario_other",
    "prairies",
    "alberta",
    "british_columbia",
];
const DRUG_REGION_SHARE: [f64; 7] = [0.07, 0.23, 0.18, 0.20, 0.08, 0.11, 0.13];
/// Visible-minority and aboriginal shares by region (mutually exclusive).
const DRUG_MINORITY: [f64; 7] = [0.03, 0.03, 0.44, 0.04, 0.04, 0.09, 0.35];
const DRUG_ABORIGINAL: [f64; 7] = [0.025, 0.01, 0.01, 0.013, 0.18, 0.075, 0.04];
/// Sample allocation by region (1,502 in all; small regions over-sampled).
const DRUG_ALLOCATION: [u64; 7] = [265, 259, 181, 183, 262, 102, 250];
/// Drug-survey preset: status (visible minority and aboriginal are mutually exclusive).
pub const DRUG_STATUS: [&str; 3] = ["neither", "visible_minority", "aboriginal"];

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("n", ParamKind::Integer, "population size N")
        .default_value("1000000")
        .within(Range::closed(1.0, 1_000_000_000.0)),
    ParamSpec::new(
        "keys",
        ParamKind::Integer,
        "number of categorical keys P (ignored by the drug-survey preset)",
    )
    .default_value("20")
    .within(Range::closed(1.0, 30.0)),
    ParamSpec::new(
        "fraction",
        ParamKind::Number,
        "sampling fraction (used when sample=0)",
    )
    .default_value("0.01")
    .within(Range::SHARE),
    ParamSpec::new(
        "sample",
        ParamKind::Integer,
        "sample size; 0 = round(fraction x n), or 1,502 with the drug-survey preset",
    )
    .default_value("0")
    .within(Range::closed(0.0, 1_000_000_000.0)),
    ParamSpec::new(
        "skew",
        ParamKind::Number,
        "Zipf exponent of the key distributions (0 = uniform)",
    )
    .default_value("1.1")
    .within(Range::closed(0.0, 4.0)),
    ParamSpec::new(
        "dependence",
        ParamKind::Number,
        "weight of the latent-class component (0 = independent keys)",
    )
    .default_value("0.8")
    .within(Range::SHARE),
    ParamSpec::new(
        "preset",
        ParamKind::Choice(&["none", "drug-survey"]),
        "drug-survey: age x sex x region x status population, stratified sample",
    )
    .default_value("none"),
];

const PUBLISHED: &[(&str, &str)] = &[
    (
        "population (Dalenius)",
        "N ~ 10,000,000 records, P > 20 keys, some > 10 categories",
    ),
    ("drug-survey respondents", "1,502"),
    ("drug-survey possible classes", "126"),
    ("drug-survey sample uniques", "21"),
    ("drug-survey classes under 5", "42"),
    ("drug-survey classes under 5 without region", "0"),
    (
        "drug-survey smallest population class",
        "hundreds (each sample unique >= 369 twins)",
    ),
];

/// A row model: how to draw the keys of a row in stratum `h`.
enum Model {
    Generic {
        latent: Categorical,
        /// `tables[key][class]`.
        tables: Vec<Vec<Categorical>>,
    },
    Drug {
        status: Vec<Categorical>,
    },
}

struct Plan {
    names: Vec<String>,
    labels: Vec<Vec<String>>,
    model: Model,
    strata_pop: Vec<u64>,
    strata_sample: Vec<u64>,
}

impl Census {
    fn plan(&self, params: &Params, seed: u64) -> Result<Plan, SynthError> {
        let n = params.int("n");
        let drug = params.choice("preset") == "drug-survey";
        let sample = params.int("sample");
        let mut srng = rng(seed, 3);
        if drug {
            let target = if sample == 0 {
                DRUG_ALLOCATION.iter().sum()
            } else {
                sample
            };
            let alloc = scale_allocation(&DRUG_ALLOCATION, target);
            let pop = multinomial(&mut srng, n, &DRUG_REGION_SHARE);
            let short: Vec<String> = pop
                .iter()
                .zip(&alloc)
                .zip(DRUG_REGIONS)
                .filter(|((p, a), _)| a > p)
                .map(|((p, a), r)| format!("{r}: {a} > {p}"))
                .collect();
            if !short.is_empty() {
                return Err(SynthError::params(
                    self.name(),
                    format!(
                        "n={n}: too small for the drug-survey sample (sample > population in {})",
                        short.join(", ")
                    ),
                ));
            }
            let status = (0..7)
                .map(|h| {
                    let (vm, ab) = (DRUG_MINORITY[h], DRUG_ABORIGINAL[h]);
                    Categorical::new(&[1.0 - vm - ab, vm, ab])
                })
                .collect();
            return Ok(Plan {
                names: ["age", "sex", "region", "status"]
                    .map(String::from)
                    .to_vec(),
                labels: vec![
                    ["13", "14", "15"].map(String::from).to_vec(),
                    ["male", "female"].map(String::from).to_vec(),
                    DRUG_REGIONS.map(String::from).to_vec(),
                    DRUG_STATUS.map(String::from).to_vec(),
                ],
                model: Model::Drug { status },
                strata_pop: pop,
                strata_sample: alloc,
            });
        }
        let size = if sample == 0 {
            (params.float("fraction") * n as f64).round() as u64
        } else {
            sample
        };
        if size > n {
            return Err(SynthError::params(
                self.name(),
                format!("sample={size}: larger than the population n={n}"),
            ));
        }
        let p = params.usize("keys");
        let skew = params.float("skew");
        let dep = params.float("dependence");
        let mut tables = Vec::with_capacity(p);
        for &c in &KEY_CATEGORIES[..p] {
            let zipf: Vec<f64> = (0..c).map(|i| 1.0 / ((i + 1) as f64).powf(skew)).collect();
            let mut base_perm: Vec<usize> = (0..c).collect();
            base_perm.shuffle(&mut srng);
            // Each latent class promotes a different category to the top ranks (a local
            // re-ordering of the common order), so keys depend on each other through the class
            // while every marginal stays skewed.
            let per_class = (0..LATENT)
                .map(|z| {
                    let mut perm = base_perm.clone();
                    perm.swap(0, z % c);
                    perm.swap(1.min(c - 1), (3 * z + 1) % c);
                    let mut w = vec![0.0; c];
                    for (rank, (&a, &b)) in base_perm.iter().zip(&perm).enumerate() {
                        w[a] += (1.0 - dep) * zipf[rank];
                        w[b] += dep * zipf[rank];
                    }
                    Categorical::new(&w)
                })
                .collect();
            tables.push(per_class);
        }
        Ok(Plan {
            names: (1..=p).map(|j| format!("k{j:02}")).collect(),
            labels: KEY_CATEGORIES[..p]
                .iter()
                .map(|&c| (0..c).map(|v| v.to_string()).collect())
                .collect(),
            model: Model::Generic {
                latent: Categorical::zipf(LATENT, 0.7),
                tables,
            },
            strata_pop: vec![n],
            strata_sample: vec![size],
        })
    }
}

/// The schemas of the population and the sample: the truth id, the keys with their levels,
/// and the sample's design weight.
fn file_schemas(plan: &Plan) -> (Schema, Schema) {
    let mut pop = Schema::new().col("person_id", ColumnType::Integer, Role::Truth);
    for (name, labels) in plan.names.iter().zip(&plan.labels) {
        pop = pop.cat(name, Role::Key, labels);
    }
    let sample = pop.clone().col("weight", ColumnType::Float, Role::Weight);
    (pop, sample)
}

/// Scale an allocation to sum to `target` (largest remainders).
fn scale_allocation(alloc: &[u64], target: u64) -> Vec<u64> {
    let total: u64 = alloc.iter().sum();
    let exact: Vec<f64> = alloc
        .iter()
        .map(|&a| a as f64 * target as f64 / total as f64)
        .collect();
    let mut out: Vec<u64> = exact.iter().map(|x| x.floor() as u64).collect();
    let mut rest = target - out.iter().sum::<u64>();
    let mut order: Vec<usize> = (0..alloc.len()).collect();
    order.sort_by(|&a, &b| {
        (exact[b] - exact[b].floor())
            .total_cmp(&(exact[a] - exact[a].floor()))
            .then(a.cmp(&b))
    });
    for &i in order.iter().cycle() {
        if rest == 0 {
            break;
        }
        out[i] += 1;
        rest -= 1;
    }
    out
}

/// Multinomial counts of `n` over `shares` by sequential binomials.
fn multinomial(r: &mut impl Rng, n: u64, shares: &[f64]) -> Vec<u64> {
    let mut left = n;
    let mut mass = 1.0;
    let mut out = Vec::with_capacity(shares.len());
    for (i, &s) in shares.iter().enumerate() {
        if i + 1 == shares.len() {
            out.push(left);
            break;
        }
        let p = (s / mass).clamp(0.0, 1.0);
        let k = Binomial::new(left, p).map(|b| b.sample(r)).unwrap_or(0);
        out.push(k);
        left -= k;
        mass -= s;
    }
    out
}

/// Registry entry.
pub const ENTRY: Entry<dyn Generator> = Entry {
    name: NAME,
    summary: "Dalenius-style population with many skewed, dependent keys and a weighted sample; preset drug-survey",
    reference: "Dalenius (1986) population uniqueness; youth drug-use survey (1,502 respondents, 126 age x sex x region x status classes)",
    params: PARAMS,
    figures: &[],
    build,
};

/// The generator's name.
const NAME: &str = "census";

fn build(r: &mut ParamReader) -> Option<Box<dyn Generator>> {
    Some(Box::new(Census {
        params: Params::read(r, NAME, PARAMS)?,
    }))
}

impl Generator for Census {
    fn name(&self) -> &'static str {
        NAME
    }
    fn description(&self) -> &'static str {
        "Dalenius-style population: N records with P skewed, mutually dependent categorical \
         keys k01..kP (2 to 24 categories; dependence through latent classes), streamed to \
         disk with bounded memory, plus a simple random sample with design weights. \
         preset=drug-survey: the youth drug-use survey (age 3 x sex 2 x region 7 x visible \
         minority/aboriginal 3 = 126 classes; 1,502 respondents stratified by region). \
         Writes population.csv and sample.csv (+ schemas)."
    }
    fn params(&self) -> &Params {
        &self.params
    }
    fn published(&self) -> &'static [(&'static str, &'static str)] {
        PUBLISHED
    }
    fn schemas(&self, seed: u64) -> Result<Vec<(String, Schema)>, SynthError> {
        let params = &self.params;
        let (pop, sample) = file_schemas(&self.plan(params, seed)?);
        Ok(vec![
            ("population.csv".into(), pop),
            ("sample.csv".into(), sample),
        ])
    }
    fn generate(&self, seed: u64, out_dir: &Path) -> Result<Vec<PathBuf>, SynthError> {
        let params = &self.params;
        let plan = self.plan(params, seed)?;
        let mut out = OutputSet::new(out_dir)?;
        let (pop_schema, sample_schema) = file_schemas(&plan);
        let names = &plan.names;
        let mut pop = out.create("population.csv")?;
        let mut smp = out.create("sample.csv")?;
        pop.header(&pop_schema.header())?;
        smp.header(&sample_schema.header())?;
        let labels: Vec<Vec<Vec<u8>>> = plan
            .labels
            .iter()
            .map(|l| l.iter().map(|s| s.as_bytes().to_vec()).collect())
            .collect();
        let weights: Vec<Vec<u8>> = plan
            .strata_pop
            .iter()
            .zip(&plan.strata_sample)
            .map(|(&np, &ns)| {
                let w = if ns == 0 { 0.0 } else { np as f64 / ns as f64 };
                format!("{w:.4}").into_bytes()
            })
            .collect();

        let mut row_rng = rng(seed, 1);
        let mut sel_rng = rng(seed, 2);
        let mut pop_left = plan.strata_pop.clone();
        let mut smp_left = plan.strata_sample.clone();
        let mut total_left: u64 = pop_left.iter().sum();
        let mut row = vec![0usize; names.len()];
        let mut id = 0u64;
        while total_left > 0 {
            // Interleave strata: the next row is in stratum h with probability N_h left / N left.
            let h = if pop_left.len() == 1 {
                0
            } else {
                let mut u = row_rng.gen_range(0..total_left);
                let mut h = 0;
                while u >= pop_left[h] {
                    u -= pop_left[h];
                    h += 1;
                }
                h
            };
            match &plan.model {
                Model::Generic { latent, tables } => {
                    let z = latent.sample(&mut row_rng);
                    for (slot, t) in row.iter_mut().zip(tables) {
                        *slot = t[z].sample(&mut row_rng);
                    }
                }
                Model::Drug { status } => {
                    row[0] = row_rng.gen_range(0..3);
                    row[1] = usize::from(row_rng.r#gen::<f64>() < 0.49);
                    row[2] = h;
                    row[3] = status[h].sample(&mut row_rng);
                }
            }
            id += 1;
            let take = smp_left[h] > 0 && sel_rng.gen_range(0..pop_left[h]) < smp_left[h];
            pop_left[h] -= 1;
            total_left -= 1;
            write_row(&mut pop, id, &row, &labels);
            pop.end()?;
            if take {
                smp_left[h] -= 1;
                write_row(&mut smp, id, &row, &labels);
                smp.bytes(&weights[h]);
                smp.end()?;
            }
        }
        pop.finish()?;
        smp.finish()?;
        let desc = params.describe();
        out.write_schema(
            "population.schema.toml",
            &pop_schema,
            self.name(),
            seed,
            &desc,
        )?;
        out.write_schema(
            "sample.schema.toml",
            &sample_schema,
            self.name(),
            seed,
            &desc,
        )?;
        out.commit()
    }
}

fn write_row(w: &mut CsvSink, id: u64, row: &[usize], labels: &[Vec<Vec<u8>>]) {
    w.int(id);
    for (v, l) in row.iter().zip(labels) {
        w.bytes(&l[*v]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocation_scales_to_the_target() {
        assert_eq!(DRUG_ALLOCATION.iter().sum::<u64>(), 1502);
        let a = scale_allocation(&DRUG_ALLOCATION, 751);
        assert_eq!(a.iter().sum::<u64>(), 751);
        assert_eq!(scale_allocation(&[1, 1, 1], 4).iter().sum::<u64>(), 4);
    }

    #[test]
    fn multinomial_counts_add_up() {
        let mut r = rng(1, 0);
        let c = multinomial(&mut r, 100_000, &DRUG_REGION_SHARE);
        assert_eq!(c.iter().sum::<u64>(), 100_000);
        for (k, s) in c.iter().zip(DRUG_REGION_SHARE) {
            assert!((*k as f64 / 1e5 - s).abs() < 0.01);
        }
    }

    #[test]
    fn smallest_drug_survey_population_class_holds_hundreds_per_million() {
        let mut smallest = f64::INFINITY;
        for h in 0..7 {
            let vm = DRUG_MINORITY[h];
            let ab = DRUG_ABORIGINAL[h];
            for s in [1.0 - vm - ab, vm, ab] {
                // age 1/3, sex min(0.49, 0.51)
                smallest = smallest.min(DRUG_REGION_SHARE[h] * s / 3.0 * 0.49);
            }
        }
        assert!(smallest * 1e6 >= 250.0, "{}", smallest * 1e6);
    }
}
