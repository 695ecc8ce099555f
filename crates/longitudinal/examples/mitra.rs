//! Reproduces Mitra et al.'s Figs. 4–6, Table 1 and the utility comparison on the
//! `household-panel` look-alike: `cargo run --release -p intruder-longitudinal --example mitra --
//! DATA_SEED N_SEEDS [OUT.json]` prints markdown tables (means over seeds) and writes the raw
//! rows as JSON.
// Config types are #[non_exhaustive]: outside their crate they are built from Default.
#![allow(clippy::field_reassign_with_default)]

use std::collections::BTreeMap;

use intruder_data::{ReadOptions, Schema, read_csv};
use intruder_longitudinal::{NonUnique, Panel, PanelSpec, StudyParams, run_study};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data_seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let n_seeds: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let dir = tempfile::tempdir().expect("tempdir");
    intruder_synth::run("household-panel", None, &[], data_seed, dir.path()).expect("generate");
    let load = |w: u32| {
        let mut o = ReadOptions::default();
        o.schema = Some(
            Schema::from_file(&dir.path().join(format!("household-wave{w}.schema.toml")))
                .expect("schema"),
        );
        read_csv(&dir.path().join(format!("household-wave{w}.csv")), &o).expect("read")
    };
    let spec = PanelSpec {
        link: "household_id".into(),
        released_link: Some("link_id".into()),
        split: Some("split".into()),
        sensitive: "total_wealth".into(),
        nonunique: NonUnique::Include,
        strict: false,
    };
    let panel = Panel::new(vec![load(1), load(2)], spec).expect("panel");
    let params = StudyParams::mitra(2, (1..=n_seeds).collect());
    let t0 = std::time::Instant::now();
    let res = run_study(&panel, &params).expect("study");
    eprintln!("study: {:.1}s", t0.elapsed().as_secs_f64());
    println!("panel: {}", serde_json::to_string(&res.panel).unwrap());
    println!(
        "\n| attack | targets | found | c_i=1 | c_i<=2 | Σ1/c_i | A |\n|---|---|---|---|---|---|---|"
    );
    for b in &res.baseline {
        println!(
            "| {} ({}) | {} | {} | {} | {} | {:.1} | {} |",
            b.scenario,
            b.mode,
            b.targets,
            b.found,
            b.unique_correct,
            b.le2_correct,
            b.expected_correct,
            b.attribute_a
        );
    }
    #[allow(clippy::type_complexity)]
    let mut agg: BTreeMap<(String, String, String, String, String, String), (f64, f64, usize)> =
        BTreeMap::new();
    for r in &res.rows {
        let k = (
            r.figure.clone(),
            r.scenario.clone(),
            r.method.clone(),
            r.selection.clone(),
            r.rho.map_or("all".into(), |x| format!("{x:.2}")),
            format!("{:.2}", r.swap_share),
        );
        let e = agg.entry(k).or_default();
        e.0 += r.attribute_a as f64;
        e.1 += (r.attribute_a as f64).powi(2);
        e.2 += 1;
    }
    println!(
        "\n| figure | scenario | method | selection | rho | swap share | mean A | sd A |\n|---|---|---|---|---|---|---|---|"
    );
    for ((f, s, m, sel, rho, share), (sum, sq, n)) in &agg {
        let n = *n as f64;
        let mean = sum / n;
        let sd = if n > 1.0 {
            ((sq - n * mean * mean) / (n - 1.0)).max(0.0).sqrt()
        } else {
            0.0
        };
        println!("| {f} | {s} | {m} | {sel} | {rho} | {share} | {mean:.1} | {sd:.1} |");
    }
    for u in res.utility.iter().filter(|u| u.seed == 1) {
        println!(
            "\nutility ({}), mean CI overlap {:.3}\n\n| coefficient | original | 95% CI | altered | 95% CI | overlap |\n|---|---|---|---|---|---|",
            u.method, u.overlap.mean_overlap
        );
        for c in &u.overlap.coefficients {
            println!(
                "| {} | {:.3} | ({:.3}, {:.3}) | {:.3} | ({:.3}, {:.3}) | {:.3} |",
                c.name,
                c.estimate_original,
                c.ci_original.0,
                c.ci_original.1,
                c.estimate_masked,
                c.ci_masked.0,
                c.ci_masked.1,
                c.overlap
            );
        }
    }
    if let Some(out) = args.get(3) {
        std::fs::write(out, serde_json::to_string_pretty(&res).unwrap()).expect("write");
    }
}
