//! What `intruder panel` does, as library calls: a panel read from wave files, the attack and
//! its report (worked example E, docs/METHODS.md §2.1–2.2, with exact figures), the per-record file,
//! the altered last wave written and read back, and the study's tables.

use std::path::{Path, PathBuf};

use intruder_data::Input;
use intruder_data::report::{Format, Report};
use intruder_longitudinal::{
    AlterMethod, AlterationSpec, InheritanceModel, Intruder, Mode, PanelFiles, PanelSpec,
    PartnerScore, Pool, Scenario, Selection, StudyParams, WaveInput, alter, inheritance_overlap,
    reports, run_study,
};
use serde_json::{Value, json};

const W1: &str = "hh,area,bedrooms,wealth\nA,2,5,14000\nB,1,3,1\nC,2,5,1\nD,3,5,1\nE,3,2,1\nF,2,4,1\nG,2,4,1\nH,2,5,1\nI,1,6,1\n";
const W2: &str = "hh,split,area,bedrooms,wealth\nA,1,2,5,15000\nB,1,1,3,12200\nC,1,2,5,14800\nD,1,3,5,18600\nE,1,3,2,12100\nF,1,2,4,16800\nG,1,2,4,18000\nH,1,2,5,12500\nI,1,1,6,25000\n";

fn waves(paths: &[&Path]) -> Vec<WaveInput> {
    paths
        .iter()
        .map(|p| WaveInput {
            path: p.to_path_buf(),
            input: Input::default(),
        })
        .collect()
}

fn spec(link: &str, split: &str, sensitive: &str) -> PanelSpec {
    PanelSpec {
        link: link.into(),
        released_link: None,
        split: Some(split.into()),
        sensitive: sensitive.into(),
        nonunique: Default::default(),
        strict: false,
    }
}

fn figure(r: &Report, name: &str) -> Value {
    r.figure(name)
        .unwrap_or_else(|| panic!("no figure {name}"))
        .value
        .clone()
}

/// Worked example E in two files.
fn example(dir: &Path) -> PanelFiles {
    let (a, b) = (dir.join("w1.csv"), dir.join("w2.csv"));
    std::fs::write(&a, W1).unwrap();
    std::fs::write(&b, W2).unwrap();
    PanelFiles::load(&waves(&[&a, &b]), spec("hh", "split", "wealth")).unwrap()
}

#[test]
fn worked_example_e_report_has_the_exact_figures() {
    let dir = tempfile::tempdir().unwrap();
    let files = example(dir.path());
    // No link_id column: no released link.
    assert_eq!(files.panel.spec().released_link, None);
    let scenario = Scenario::from_arg("area@1,bedrooms@1", files.panel.t()).unwrap();
    let intruder = Intruder::new(scenario, Mode::Match, Pool::Split, 0.05);
    let report = intruder.attack(&files.panel).unwrap();
    let r = reports::attack_report(&files, &intruder, &report);
    // A, C, H share (2, 5); F, G share (2, 4); B, D, E, I are alone. Within 5%: A's matches
    // 15000, 14800 (not 12500) → p = 2/3; C likewise; H: only itself → 1/3; F, G: 1/2.
    assert_eq!(figure(&r, "records"), json!([9, 9]));
    for (name, v) in [
        ("targets", 9),
        ("pool", 9),
        ("with_candidates", 9),
        ("found", 9),
        ("c_i=1", 4),
        ("c_i<=2", 6),
        ("A", 8),
        ("excluded", 0),
    ] {
        assert_eq!(figure(&r, name), json!(v), "{name}");
    }
    assert!((figure(&r, "sum_1/c_i").as_f64().unwrap() - 6.0).abs() < 1e-12);
    assert!((figure(&r, "mean_p").as_f64().unwrap() - 20.0 / 27.0).abs() < 1e-12);
    assert_eq!(figure(&r, "tolerance"), json!(0.05));
    // JSON: figures, then the structured details.
    let j = r.to_json();
    assert_eq!(j["report"]["A"], json!(8));
    assert_eq!(j["candidate_pool"], json!("split"));
    assert_eq!(j["command"], json!("panel attack"));
    assert_eq!(j["waves"][1]["schema"], Value::Null);
    // Every format carries the same numbers.
    let csv = r.render(Format::Csv);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let values: Vec<&str> = lines.next().unwrap().split(',').collect();
    let a = header.iter().position(|h| *h == "A").unwrap();
    assert_eq!(values[a], "8");
    assert!(r.render(Format::Markdown).contains("| `c_i=1` | 4 |"));
    let text = r.render(Format::Table);
    assert!(text.starts_with("intruder panel attack — area@1,bedrooms@1 (area@1, bedrooms@1)"));
    let a_line = text.lines().find(|l| l.starts_with("  A ")).unwrap();
    assert!(a_line.contains(" 8  attribute disclosure"), "{text}");

    // The per-record file: 1-based rows, the link, c_i, found, p_i, r_i.
    let pr = dir.path().join("pr.csv");
    files.write_per_record(&pr, &report).unwrap();
    let rows: Vec<String> = std::fs::read_to_string(&pr)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(rows[0], "row,link,c,found,p,r");
    assert_eq!(rows.len(), 10);
    assert!(
        rows[1].starts_with("1,A,3,1,0.6666666666666666,"),
        "{}",
        rows[1]
    );
    assert!(
        rows[8].starts_with("8,H,3,1,0.3333333333333333,"),
        "{}",
        rows[8]
    );
    assert!(rows[2].starts_with("2,B,1,1,1,"), "{}", rows[2]);

    // Under a .parquet name: Parquet with the same cells (without Parquet support, an error).
    let pq = dir.path().join("pr.parquet");
    match files.write_per_record(&pq, &report) {
        Err(e) => assert!(e.to_string().contains("not compiled in"), "{e}"),
        Ok(()) => {
            assert!(std::fs::read(&pq).unwrap().starts_with(b"PAR1"));
            let cells = |p: &std::path::Path| {
                let ds = intruder_data::load(p, &intruder_data::Input::default()).unwrap();
                let cols = ds.table.columns();
                (0..ds.table.nrows())
                    .map(|i| {
                        cols.iter()
                            .map(|c| c.text(i).map(|t| t.into_owned()).unwrap_or_default())
                            .collect::<Vec<_>>()
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(cells(&pq), cells(&pr));
            assert_eq!(cells(&pq).len(), 9);
        }
    }
}

#[test]
fn an_intruder_that_cannot_attack_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let files = example(dir.path());
    let link = Intruder::new(Scenario::mitra1(), Mode::Link, Pool::Split, 0.05);
    let e = link.attack(&files.panel).unwrap_err().to_string();
    assert!(e.contains("mode link: no released link column"), "{e}");
    let bad = Intruder::new(Scenario::mitra1(), Mode::Match, Pool::Split, 0.0);
    let e = bad.attack(&files.panel).unwrap_err().to_string();
    assert!(e.contains("tolerance 0: expected a positive"), "{e}");
    // No split record at all.
    let (a, b) = (dir.path().join("n1.csv"), dir.path().join("n2.csv"));
    std::fs::write(&a, W1).unwrap();
    std::fs::write(&b, W2.replace(",1,", ",0,")).unwrap();
    let files = PanelFiles::load(&waves(&[&a, &b]), spec("hh", "split", "wealth")).unwrap();
    let m = Intruder::new(Scenario::mitra1(), Mode::Match, Pool::Split, 0.05);
    let e = m.attack(&files.panel).unwrap_err().to_string();
    assert!(e.contains("n2.csv: no split record to attack"), "{e}");
}

/// A generated household panel: wave files with their schemas beside them.
fn household_panel(dir: &Path, n: u64, seed: u64) -> (PathBuf, PathBuf) {
    intruder_synth::run("household-panel", Some(n), &[], seed, dir).unwrap();
    (
        dir.join("household-wave1.csv"),
        dir.join("household-wave2.csv"),
    )
}

fn load_household(w1: &Path, w2: &Path) -> PanelFiles {
    PanelFiles::load(
        &waves(&[w1, w2]),
        spec("household_id", "split", "total_wealth"),
    )
    .unwrap()
}

fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap()
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn the_altered_last_wave_is_written_whole_and_reads_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (w1, w2) = household_panel(dir.path(), 2000, 4);
    let files = load_household(&w1, &w2);
    assert_eq!(files.panel.spec().released_link.as_deref(), Some("link_id"));
    assert_eq!(
        files.files_json()[1]["schema"],
        json!(
            dir.path()
                .join("household-wave2.schema.toml")
                .display()
                .to_string()
        )
    );
    let intruder = Intruder::new(Scenario::mitra2(2), Mode::Match, Pool::Split, 0.05);
    let alteration = AlterationSpec {
        method: AlterMethod::Mix,
        rho: None,
        selection: Selection::Random,
        swap_share: None,
        min_leaf: 5,
        seed: 9,
        covariates: None,
        partner_score: PartnerScore::Selection,
    };
    let params = alteration.params(2).unwrap();
    assert_eq!(params.swap_share, 0.5);
    let alt = alter(&files.panel, &intruder, AlterMethod::Mix, params).unwrap();
    assert_eq!(alt.protected.selected.len(), files.panel.targets().len());
    assert!(alt.after.attribute_a < alt.before.attribute_a);

    let out = dir.path().join("released.csv");
    let changed = files.write_altered(&alt.protected, &out).unwrap();
    // Every field as read, except the sensitive one on altered rows.
    let (orig, new) = (csv_rows(&w2), csv_rows(&out));
    assert_eq!(orig.len(), new.len());
    assert_eq!(orig[0], new[0]);
    let y = orig[0].iter().position(|h| h == "total_wealth").unwrap();
    let mut differ = 0;
    for (a, b) in orig.iter().zip(&new).skip(1) {
        for j in (0..a.len()).filter(|&j| j != y) {
            assert_eq!(a[j], b[j]);
        }
        differ += usize::from(a[y] != b[y]);
    }
    assert_eq!(changed, differ);
    assert!(changed > 0);
    // Read back through the schema of the last wave: exactly the altered values.
    let back = files.read_altered(&out, &Input::default()).unwrap();
    assert_eq!(back.len(), alt.protected.y.len());
    for (a, b) in back.iter().zip(&alt.protected.y) {
        assert!(a == b || (a.is_nan() && b.is_nan()));
    }

    // The log names 1-based rows; the report's `selected` is the count, the rows are apart.
    let log = reports::protect_log(&files, &alt, &out, changed);
    assert_eq!(log["changed"], json!(changed));
    assert_eq!(log["command"], json!("panel protect"));
    let first = alt.protected.selected[0];
    assert_eq!(log["selected"][0]["row"], json!(first + 1));
    assert_eq!(log["selected"][0]["link"], json!(files.link_text(first)));
    let r = reports::protect_report(&files, &alt, &out, changed);
    let j = r.to_json();
    assert_eq!(j["selected"], json!(alt.protected.selected.len()));
    assert_eq!(j["selected_rows"], log["selected"]);
    assert_eq!(j["swaps"], log["swaps"]);
    assert_eq!(j["A_after"], json!(alt.after.attribute_a));
    assert_eq!(
        figure(&r, "swapped").as_u64().unwrap() + figure(&r, "synthesised").as_u64().unwrap(),
        alt.protected.selected.len() as u64
    );

    // Utility of the file equals utility of the values in memory.
    let model = InheritanceModel::default();
    let from_file = inheritance_overlap(&files.panel, &back, &model).unwrap();
    let in_memory = inheritance_overlap(&files.panel, &alt.protected.y, &model).unwrap();
    assert_eq!(from_file.mean_overlap, in_memory.mean_overlap);
    let u = reports::utility_report(&files, Some(&out), None, &model, &from_file);
    assert_eq!(figure(&u, "mean_overlap"), json!(from_file.mean_overlap));
    assert_eq!(u.tables[0].rows.len(), from_file.coefficients.len());
    assert_eq!(u.to_json()["alteration"], Value::Null);
    let u = reports::utility_report(&files, None, Some(&alt), &model, &in_memory);
    assert_eq!(figure(&u, "A_before"), json!(alt.before.attribute_a));
    assert_eq!(u.to_json()["alteration"]["method"], json!("mix"));
}

#[test]
fn altered_files_that_do_not_fit_the_last_wave_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (w1, w2) = household_panel(dir.path(), 400, 5);
    let files = load_household(&w1, &w2);
    // Another wave's records.
    let e = files
        .read_altered(&w1, &Input::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("household-wave1.csv") && e.contains("records"),
        "{e}"
    );
    // Two records out of order: the link column names the first row that differs (1-based).
    let mut rows = std::fs::read_to_string(&w2)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect::<Vec<_>>();
    let last = rows.len() - 1;
    rows.swap(1, last);
    let moved = dir.path().join("moved.csv");
    std::fs::write(&moved, rows.join("\n") + "\n").unwrap();
    let e = files
        .read_altered(&moved, &Input::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("moved.csv: column 'household_id': row 1 is"),
        "{e}"
    );
    // A gzip last wave cannot be copied field by field; nothing is written.
    let gz = dir.path().join("w2.csv.gz");
    let mut bytes = vec![0x1f, 0x8b];
    bytes.extend_from_slice(b"not really gzip");
    std::fs::write(&gz, bytes).unwrap();
    let mut gz_files = files.clone();
    gz_files.waves[1].path = gz;
    let intruder = Intruder::new(Scenario::mitra2(2), Mode::Match, Pool::Split, 0.05);
    let params = AlterationSpec {
        method: AlterMethod::Swap,
        rho: Some(0.2),
        selection: Selection::Targeted,
        swap_share: None,
        min_leaf: 5,
        seed: 1,
        covariates: None,
        partner_score: PartnerScore::Selection,
    }
    .params(2)
    .unwrap();
    let alt = alter(&files.panel, &intruder, AlterMethod::Swap, params).unwrap();
    let out = dir.path().join("out.csv");
    let e = gz_files
        .write_altered(&alt.protected, &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("gzip"), "{e}");
    assert!(!out.exists());
}

#[test]
fn the_study_report_holds_the_papers_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (w1, w2) = household_panel(dir.path(), 1500, 2);
    let files = load_household(&w1, &w2);
    let mut params = StudyParams::mitra(2, vec![1]);
    params.rhos = vec![0.1];
    params.shares = vec![0.5];
    let res = run_study(&files.panel, &params).unwrap();
    let r = reports::study_report(&files, &res);
    let names: Vec<&str> = r.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["baseline", "fig4", "fig5", "fig6", "table1", "utility"]
    );
    assert_eq!(figure(&r, "runs"), json!(res.rows.len()));
    let baseline = &r.tables[0];
    assert_eq!(baseline.rows.len(), 6);
    assert_eq!(baseline.rows[0][1], json!(1282));
    assert_eq!(baseline.rows[3][1], json!("563 / 871"));
    let s2 = &res.baseline[1];
    assert_eq!(
        baseline.rows[3][2],
        json!(format!("{} / {}", s2.unique_correct, s2.le2_correct))
    );
    // Fig. 4, one seed: the cell is that run's A.
    let fig4 = &r.tables[1];
    assert_eq!(fig4.header[1], "scenario 1 targeted");
    let run = res
        .rows
        .iter()
        .find(|x| {
            x.figure == "fig4"
                && x.scenario == "scenario 1"
                && x.selection == "targeted"
                && x.rho == Some(0.1)
        })
        .unwrap();
    assert_eq!(fig4.rows[0][0], json!(0.1));
    assert_eq!(fig4.rows[0][1], json!(run.attribute_a as f64));
    assert_eq!(r.tables[3].header[1], "scenario 1 0.5");
    // Table 1: mean A with the published value in parentheses.
    let t1 = &r.tables[4];
    let links = res
        .rows
        .iter()
        .find(|x| x.figure == "table1" && x.method == "swap" && x.scenario == "links")
        .unwrap();
    assert_eq!(
        t1.rows[0][3],
        json!(format!("{:.1} (40)", links.attribute_a as f64))
    );
    assert_eq!(r.tables[5].rows.len(), 2);
    let j = r.to_json();
    assert_eq!(j["published"]["links"]["A"], json!(1486));
    assert_eq!(
        j["result"]["rows"].as_array().unwrap().len(),
        res.rows.len()
    );
    assert!(
        r.render(Format::Table)
            .contains("Table 1 (every split household altered)")
    );
}
