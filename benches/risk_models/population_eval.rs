//! Population-uniqueness estimators scored against the truth (issue 9, part 3).
//!
//! For each replicate seed and sampling fraction, the `census` generator of data-synth writes a
//! population of N records and a simple random sample of it (the population is the same for a
//! seed whatever the fraction). The true number of population uniques is counted on the
//! population; every estimator (Zayatz, Pitman, SNB, Dankar et al.'s rule, Skinner–Holmes τ₁)
//! is run on the sample alone, with N known. Raw rows go to `--raw OUT.csv`; a markdown table
//! of the mean estimate, the mean truth, the bias (mean of estimate − truth), the relative bias
//! and the spread (standard deviation of estimate − truth over replicates) goes to stdout.
//!
//! τ₁ estimates a different quantity — the number of *sample* uniques that are population
//! unique — and is scored against that truth (`true_su_pu`).
//!
//! With `--drug-survey`, the preset's sample (1,502 respondents, 4 keys) is compared with its
//! population: sample uniques, and the population class size of each (the slides: "each of 21
//! sample uniques had at least 369 population twins").
//!
//! ```text
//! cargo run --release -p intruder-benches --bin population_eval -- \
//!     --n 1000000 --keys 8 --fractions 0.001,0.01,0.05,0.1,0.2,0.5 --replicates 5 \
//!     --raw /tmp/population_eval.csv
//! cargo run --release -p intruder-benches --bin population_eval -- --drug-survey --n 1000000 --replicates 4
//! ```

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use intruder_data::{ColumnData, ReadOptions, Schema, read_csv};
use intruder_risk::population::estimate_all;
use intruder_risk::{
    MissingPolicy, PopulationParams, SetMatch, equivalence_classes, population_uniqueness,
};

struct Row {
    seed: u64,
    fraction: f64,
    n: f64,
    n1: u64,
    true_pu: u64,
    true_su_pu: u64,
    est: Vec<Option<f64>>, // zayatz, pitman, snb, rule, tau1
    rule: String,
}

const NAMES: [&str; 5] = ["zayatz", "pitman", "snb", "rule", "tau1"];

fn generate(dir: &Path, n: u64, sets: &[String], seed: u64) -> Result<()> {
    intruder_synth::run("census", Some(n), sets, seed, dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

fn read(dir: &Path, name: &str) -> Result<intruder_data::Dataset> {
    let schema = Schema::from_file(&dir.join(format!("{name}.schema.toml")))?;
    let opts = ReadOptions {
        schema: Some(schema),
        ..ReadOptions::default()
    };
    Ok(read_csv(&dir.join(format!("{name}.csv")), &opts)?)
}

/// Population class size of each population row (row i = person_id i + 1).
fn population_sizes(dir: &Path, keys: &[String]) -> Result<Vec<u32>> {
    let pop = read(dir, "population")?;
    let c = equivalence_classes(&pop.table, keys, MissingPolicy::Listwise, SetMatch::Overlap)?;
    Ok(c.class_of.iter().map(|&k| c.sizes[k as usize]).collect())
}

fn person_ids(ds: &intruder_data::Dataset) -> Result<Vec<usize>> {
    let col = ds
        .truth_column("person_id")
        .context("sample.csv has no person_id")?;
    match col.data() {
        ColumnData::Integer(v) => Ok(v.iter().map(|&x| x as usize - 1).collect()),
        _ => bail!("person_id is not an integer column"),
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| -> Option<&String> {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let n: u64 = opt("--n")
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let p: usize = opt("--keys").map(|s| s.parse()).transpose()?.unwrap_or(8);
    let reps: u64 = opt("--replicates")
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(5);
    let fractions: Vec<f64> = opt("--fractions")
        .map(|s| s.split(',').map(|x| x.parse()).collect::<Result<_, _>>())
        .transpose()?
        .unwrap_or_else(|| vec![0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.5]);
    let work = opt("--work-dir")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("intruder-population-eval"));
    if args.iter().any(|a| a == "--drug-survey") {
        return drug_survey(n, reps, &work);
    }
    let keys: Vec<String> = (1..=p).map(|j| format!("k{j:02}")).collect();
    let mut rows = Vec::new();
    for seed in 1..=reps {
        let mut truth: Option<Vec<u32>> = None;
        for &f in &fractions {
            let dir = work.join(format!("s{seed}-f{f}"));
            generate(
                &dir,
                n,
                &[format!("keys={p}"), format!("fraction={f}")],
                seed,
            )?;
            if truth.is_none() {
                truth = Some(population_sizes(&dir, &keys)?);
            }
            let sizes = truth.as_ref().context("truth")?;
            let true_pu = sizes.iter().filter(|&&s| s == 1).count() as u64;
            let smp = read(&dir, "sample")?;
            let ids = person_ids(&smp)?;
            let true_su_pu_all: Vec<bool> = ids.iter().map(|&i| sizes[i] == 1).collect();
            let mut params = PopulationParams::new(keys.clone());
            params.population_size = Some(n as f64);
            let r = population_uniqueness(&smp.table, &params)?;
            let true_su_pu = true_su_pu_all.iter().filter(|&&b| b).count() as u64;
            let est: Vec<Option<f64>> = ["zayatz", "pitman", "snb"]
                .iter()
                .map(|e| r.estimate(e).and_then(|x| x.population_uniques))
                .chain([r.rule.map(|x| x.1), Some(r.log_linear.tau1)])
                .collect();
            rows.push(Row {
                seed,
                fraction: f,
                n: r.frequencies.n,
                n1: r.frequencies.n_of(1),
                true_pu,
                true_su_pu,
                est,
                rule: r.rule.map(|x| x.0.to_string()).unwrap_or_default(),
            });
            std::fs::remove_dir_all(&dir).ok();
            eprintln!("seed {seed} fraction {f}: done");
        }
    }
    if let Some(out) = opt("--raw") {
        let mut s = String::from(
            "seed,fraction,n,sample_uniques,true_population_uniques,true_su_population_unique,zayatz,pitman,snb,rule,tau1,rule_model\n",
        );
        for r in &rows {
            let e: Vec<String> = r
                .est
                .iter()
                .map(|x| x.map(|v| format!("{v:.3}")).unwrap_or_default())
                .collect();
            s.push_str(&format!(
                "{},{},{},{},{},{},{},{}\n",
                r.seed,
                r.fraction,
                r.n,
                r.n1,
                r.true_pu,
                r.true_su_pu,
                e.join(","),
                r.rule
            ));
        }
        std::fs::write(out, s)?;
    }
    println!(
        "census N = {n}, {p} keys, {reps} replicates (seeds 1..={reps}); estimates of the number of population uniques\n"
    );
    println!(
        "| π | n | sample uniques | true PU | estimator | mean estimate | bias | rel. bias | spread (sd) | valid |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &f in &fractions {
        let rs: Vec<&Row> = rows.iter().filter(|r| r.fraction == f).collect();
        let mean = |x: &dyn Fn(&Row) -> f64| rs.iter().map(|r| x(r)).sum::<f64>() / rs.len() as f64;
        let n_mean = mean(&|r| r.n);
        let n1 = mean(&|r| r.n1 as f64);
        for (k, name) in NAMES.iter().enumerate() {
            let truth = |r: &Row| {
                if k == 4 {
                    r.true_su_pu as f64
                } else {
                    r.true_pu as f64
                }
            };
            let ok: Vec<(&Row, f64)> = rs
                .iter()
                .filter_map(|r| r.est[k].map(|e| (*r, e)))
                .collect();
            let t_mean = mean(&|r| truth(r));
            if ok.is_empty() {
                println!(
                    "| {f} | {n_mean:.0} | {n1:.0} | {t_mean:.0} | {name} | – | – | – | – | 0/{} |",
                    rs.len()
                );
                continue;
            }
            let m = ok.len() as f64;
            let e_mean = ok.iter().map(|(_, e)| e).sum::<f64>() / m;
            let d: Vec<f64> = ok.iter().map(|(r, e)| e - truth(r)).collect();
            let bias = d.iter().sum::<f64>() / m;
            let rel = ok
                .iter()
                .map(|(r, e)| (e - truth(r)) / truth(r).max(1.0))
                .sum::<f64>()
                / m;
            let sd = if ok.len() > 1 {
                (d.iter().map(|x| (x - bias).powi(2)).sum::<f64>() / (m - 1.0)).sqrt()
            } else {
                0.0
            };
            let label = if k == 4 {
                "τ₁ (vs true SU∩PU)"
            } else {
                name
            };
            println!(
                "| {f} | {n_mean:.0} | {n1:.0} | {t_mean:.0} | {label} | {e_mean:.1} | {bias:+.1} | {:+.1}% | {sd:.1} | {}/{} |",
                100.0 * rel,
                ok.len(),
                rs.len()
            );
        }
    }
    let mut picks: Vec<(f64, String)> = rows.iter().map(|r| (r.fraction, r.rule.clone())).collect();
    picks.dedup();
    println!("\nDankar rule picks (fraction, model): {picks:?}");
    Ok(())
}

fn drug_survey(n: u64, reps: u64, work: &Path) -> Result<()> {
    let keys: Vec<String> = ["age", "sex", "region", "status"]
        .map(String::from)
        .to_vec();
    println!("drug-survey preset, population N = {n}, sample 1,502 (stratified by region)\n");
    println!(
        "| seed | sample uniques | classes < 5 | min F of a sample unique | harmonic mean F of sample uniques | overstatement Σ1 / Σ(1/F) | Zayatz | Pitman | SNB | τ₁ |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for seed in 1..=reps {
        let dir = work.join(format!("drug-s{seed}"));
        generate(&dir, n, &["preset=drug-survey".to_string()], seed)?;
        let sizes = population_sizes(&dir, &keys)?;
        let smp = read(&dir, "sample")?;
        let ids = person_ids(&smp)?;
        let c = equivalence_classes(
            &smp.table,
            &keys,
            MissingPolicy::Listwise,
            SetMatch::Overlap,
        )?;
        let su: Vec<usize> = (0..ids.len())
            .filter(|&i| c.sizes[c.class_of[i] as usize] == 1)
            .collect();
        let under5 = c.sizes.iter().filter(|&&s| s < 5).count();
        let fs: Vec<f64> = su.iter().map(|&i| sizes[ids[i]] as f64).collect();
        let min_f = fs.iter().copied().fold(f64::INFINITY, f64::min);
        let inv: f64 = fs.iter().map(|f| 1.0 / f).sum();
        let hm = fs.len() as f64 / inv;
        let mut params = PopulationParams::new(keys.clone());
        params.population_size = Some(n as f64);
        let r = population_uniqueness(&smp.table, &params)?;
        let est: Vec<String> = estimate_all(&r.frequencies)
            .iter()
            .map(|(_, e)| {
                e.population_uniques
                    .map(|v| format!("{v:.2}"))
                    .unwrap_or("–".into())
            })
            .collect();
        println!(
            "| {seed} | {} | {under5} | {min_f:.0} | {hm:.0} | {:.0}× | {} | {:.4} |",
            su.len(),
            if inv > 0.0 {
                su.len() as f64 / inv
            } else {
                f64::NAN
            },
            est.join(" | "),
            r.log_linear.tau1
        );
        std::fs::remove_dir_all(&dir).ok();
    }
    Ok(())
}
