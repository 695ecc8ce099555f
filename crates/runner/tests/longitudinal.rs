//! The `[longitudinal]` section: `experiments/mitra-longitudinal.toml` at its tiny size runs
//! Mitra's study through the runner (tables of the expected shape, targeted swapping no riskier
//! than random in scenario 2 at the largest ρ, the stored result reused unless forced and
//! reproduced byte for byte), and a malformed section lists every problem with its key path.

use std::path::{Path, PathBuf};

use intruder_runner::{
    Experiment, Plan, RunOptions, fingerprint, load_study, run_experiment, study_path,
};

fn file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/mitra-longitudinal.toml")
}

fn mean_a(stored: &serde_json::Value, fig: &str, scenario: &str, sel: &str, rho: f64) -> f64 {
    let v: Vec<f64> = stored["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["figure"] == fig
                && r["scenario"] == scenario
                && r["selection"] == sel
                && (r["rho"].as_f64().unwrap() - rho).abs() < 1e-12
        })
        .map(|r| r["A"].as_f64().unwrap())
        .collect();
    assert!(!v.is_empty(), "no {fig} {scenario} {sel} rows at rho {rho}");
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn mitra_longitudinal_tiny_runs_with_expected_tables() {
    let mut exp = Experiment::from_file(&file()).unwrap();
    let tiny = exp.tiny.clone();
    exp.resize(&tiny);
    let l = exp.study.clone().expect("the file declares [longitudinal]");
    assert_eq!(l.name(), "mitra");
    assert_eq!(l.config()["params"]["seeds"], serde_json::json!([1, 2]));
    let fp = fingerprint(&exp).unwrap();
    let plan = Plan::new(&exp, &fp).unwrap();
    let described = plan.describe(&exp);
    assert!(
        described.contains("longitudinal: study mitra"),
        "{described}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let opts = RunOptions {
        out: Some(out.clone()),
        threads: Some(2),
        ..Default::default()
    };
    let done = run_experiment(&exp, &opts).unwrap();
    assert!(done.study_ran);
    let path = study_path(&exp, &*l, &fp, &out);
    let first = std::fs::read(&path).unwrap();
    let stored = load_study(&exp, &*l, &fp, &out).unwrap();
    let rows = stored["rows"].as_array().unwrap();
    // Per seed: 2 scenarios × 6 ρ × (2 selections × 2 methods + 5 shares) + Table 1 (2 methods ×
    // 3 attacks).
    assert_eq!(rows.len(), 2 * (2 * 6 * (4 + 5) + 2 * 3));

    let tables = l.tables(&stored);
    let find = |prefix: &str| {
        tables
            .iter()
            .find(|t| t.title.starts_with(prefix))
            .unwrap_or_else(|| panic!("no table '{prefix}'"))
    };
    let base = find("Longitudinal baseline");
    assert_eq!(base.rows.len(), 3, "scenario 1, scenario 2, links");
    assert_eq!(base.header.len(), 8 + 3, "three published figures");
    for (fig, cols) in [
        ("Fig. 4", 1 + 2 * 2),
        ("Fig. 5", 1 + 2 * 2),
        ("Fig. 6", 1 + 2 * 5),
    ] {
        let t = find(fig);
        assert_eq!(t.rows.len(), 6, "{fig}: one row per ρ");
        assert_eq!(t.header.len(), cols, "{fig}: {:?}", t.header);
        assert!(t.rows.iter().all(|r| r.len() == cols));
        assert_eq!(t.rows[5][0], "0.30");
    }
    let t1 = find("Table 1");
    assert_eq!(t1.rows.len(), 2);
    assert_eq!(
        t1.header,
        [
            "method",
            "scenario 1",
            "scenario 1 (published)",
            "scenario 2",
            "scenario 2 (published)",
            "links",
            "links (published)"
        ]
    );
    assert_eq!(t1.rows[0][2], "6");
    assert_eq!(t1.rows[1][6], "56");
    assert_eq!(base.rows[1][9], "871");
    let util = find("Utility");
    assert_eq!(util.rows.len(), 2);
    // The synthesis grid of the file: 6 leaves with the whole leaf, 3 without the household,
    // 1 Bayesian bootstrap; each cell Table 1's synthesis on the same panel and seeds, so the
    // cell of the study's own setting (leaf 5, whole leaf) repeats Table 1's synthesis row.
    let grid = stored["synthesis_grid"].as_array().unwrap();
    let cells: Vec<(u64, &str)> = grid
        .iter()
        .map(|g| {
            (
                g["min_leaf"].as_u64().unwrap(),
                g["donors"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        cells,
        [
            (5, "leaf"),
            (20, "leaf"),
            (50, "leaf"),
            (100, "leaf"),
            (500, "leaf"),
            (2000, "leaf"),
            (5, "leaf-without-self"),
            (20, "leaf-without-self"),
            (50, "leaf-without-self"),
            (100, "leaf-bootstrap")
        ]
    );
    let synth_a = |rows: &serde_json::Value| -> Vec<(String, u64, u64)> {
        let mut v: Vec<(String, u64, u64)> = rows
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["figure"] == "table1" && r["method"] == "synth")
            .map(|r| {
                (
                    r["scenario"].as_str().unwrap().to_string(),
                    r["seed"].as_u64().unwrap(),
                    r["A"].as_u64().unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(synth_a(&grid[0]["rows"]), synth_a(&stored["rows"]));
    assert_eq!(
        synth_a(&grid[9]["rows"]).len(),
        2 * 3,
        "2 seeds × 3 attacks"
    );
    let g = find("Table 1's synthesis");
    assert_eq!(
        g.header,
        [
            "minimum leaf",
            "donors",
            "scenario 1",
            "scenario 2",
            "links"
        ]
    );
    assert_eq!(g.rows.len(), 1 + 10, "the published row and one per cell");
    assert_eq!(g.rows[0], ["(published)", "", "4", "55", "56"]);
    assert_eq!(
        g.rows[10][..2],
        ["100".to_string(), "leaf-bootstrap".to_string()]
    );
    // Two seeds: the random selections differ, so some cells carry a 95% interval.
    assert!(
        find("Fig. 4").rows.iter().any(|r| r[2].contains('[')),
        "{:?}",
        find("Fig. 4").rows
    );

    // Targeted swapping is no riskier than random in scenario 2 at the largest ρ.
    let targeted = mean_a(&stored, "fig4", "scenario 2", "targeted", 0.30);
    let random = mean_a(&stored, "fig4", "scenario 2", "random", 0.30);
    eprintln!("scenario 2, rho 0.30: targeted {targeted}, random {random}");
    assert!(targeted <= random, "targeted {targeted} > random {random}");

    // The reports carry the tables.
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for h in [
        "## Longitudinal study (mitra)",
        "**Fig. 4",
        "**Fig. 5",
        "**Fig. 6",
        "**Table 1",
        "**Utility",
    ] {
        assert!(md.contains(h), "summary.md lacks {h}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<caption>Table 1: every split household altered"));
    // Figs. 4–6 are drawn as well as tabulated (issue 17).
    for f in ["fig4", "fig5", "fig6"] {
        let name = format!("longitudinal-{f}.svg");
        let svg = std::fs::read_to_string(out.join(&name)).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(
            md.contains(&format!("]({name})")),
            "summary.md lacks {name}"
        );
        if let Ok(keep) = std::env::var("INTRUDER_KEEP_FIGURES") {
            std::fs::copy(out.join(&name), std::path::Path::new(&keep).join(&name)).unwrap();
        }
    }
    assert!(
        html.contains("<figcaption>Fig. 4: propensity-score swapping: attribute disclosures A")
    );

    // Stored: not rerun; forced: rerun with the same bytes.
    let again = run_experiment(&exp, &opts).unwrap();
    assert!(!again.study_ran);
    let forced = run_experiment(
        &exp,
        &RunOptions {
            force: true,
            threads: Some(1),
            ..opts.clone()
        },
    )
    .unwrap();
    assert!(forced.study_ran);
    assert_eq!(std::fs::read(&path).unwrap(), first);
}

#[test]
fn malformed_longitudinal_section_lists_every_problem() {
    let text = std::fs::read_to_string(file()).unwrap();
    let bad = text
        .replace("study = \"mitra\"", "study = \"mitra\"\nrho = [0.1]")
        .replace("tolerance = 0.05", "tolerance = \"5%\"")
        .replace(
            "rhos = [0.05, 0.10, 0.15, 0.20, 0.25, 0.30]",
            "rhos = [0.05, 0.7]",
        )
        .replace("links = 40", "linkz = 40")
        .replace("seeds = [1, 2]", "seeds = [-1]")
        .replace("min_leaf = [100]", "min_leaf = [0]\nminleaf = 3")
        .replace("donors = [\"leaf-bootstrap\"]", "donors = [\"bootstrap\"]");
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("bad.toml");
    std::fs::write(&p, bad).unwrap();
    let err = Experiment::from_file(&p).unwrap_err().to_string();
    for want in [
        "longitudinal.rho: unknown key (did you mean 'rhos'?)",
        "longitudinal.tolerance: expected a number, found a string",
        "longitudinal.rhos: 0.7 is not a proportion in (0, 0.5]",
        "longitudinal.published.table1.swap.linkz: unknown scenario",
        "tiny.seeds: expected a list of whole numbers",
        "longitudinal.synthesis_grid[3].min_leaf: expected leaf sizes of at least 1",
        "longitudinal.synthesis_grid[3].minleaf: unknown key (did you mean 'min_leaf'?)",
        "longitudinal.synthesis_grid[3].donors: unknown donor pool 'bootstrap'",
    ] {
        assert!(err.contains(want), "missing '{want}' in:\n{err}");
    }
    // An unknown study is named with the registered ones (its keys cannot be checked).
    std::fs::write(&p, text.replace("study = \"mitra\"", "study = \"mitre\"")).unwrap();
    let err = Experiment::from_file(&p).unwrap_err().to_string();
    assert!(
        err.contains(
            "longitudinal.study: unknown study 'mitre' (did you mean 'mitra'?); the studies are: mitra"
        ),
        "{err}"
    );
}
