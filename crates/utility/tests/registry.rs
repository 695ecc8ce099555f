//! The registry of utility measures: every measure built from a TOML table, its report's
//! figures on hand-computed cases, every problem at once with its path, the default measures,
//! (the README's registry section is a generated doc: crates/cli/tests/generated_docs.rs).

use intruder_data::params::{ColumnSet, ReadContext, figure_mismatches};
use intruder_data::report::Format;
use intruder_data::{Column, Kind, Role, Table};
use intruder_utility::{UTILITY_MEASURES, configure, default_measures, measure_all, merge_reports};

fn table(name: &str, cols: &[(&str, &[f64])]) -> Table {
    Table::new(
        name,
        cols.iter()
            .map(|(n, v)| {
                Column::float(
                    *n,
                    Role::Sensitive,
                    &v.iter().map(|x| Some(*x)).collect::<Vec<_>>(),
                )
            })
            .collect(),
    )
    .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12 * (1.0 + b.abs())
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn fig(r: &intruder_data::report::Report, name: &str) -> f64 {
    r.figure(name)
        .unwrap_or_else(|| panic!("no figure {name}"))
        .as_f64()
        .unwrap_or(f64::NAN)
}

/// Original x = (1, 2, 3), y = (2, 4, 7); masked x = (1, 2, 4), y = (3, 4, 6).
fn three_by_two() -> (Table, Table) {
    (
        table(
            "orig.csv",
            &[("x", &[1.0, 2.0, 3.0]), ("y", &[2.0, 4.0, 7.0])],
        ),
        table(
            "masked.csv",
            &[("x", &[1.0, 2.0, 4.0]), ("y", &[3.0, 4.0, 6.0])],
        ),
    )
}

#[test]
fn every_measure_from_one_toml_table_with_exact_figures() {
    let (o, m) = three_by_two();
    let t: toml::Table = "variables = [\"x\", \"y\"]\nmodel = \"y ~ x\"\nfamily = \"linear\""
        .parse()
        .unwrap();
    // Every measure of the registry, in its order; the figures are looked up by measure name.
    let all: Vec<String> = UTILITY_MEASURES
        .iter()
        .map(|e| e.name.to_string())
        .collect();
    let c = configure(&all, &t, "utility", ReadContext::default(), &[]).unwrap();
    assert!(c.warnings.is_empty());
    let got: Vec<&str> = c.measures.iter().map(|m| m.name()).collect();
    assert_eq!(got, all, "every measure is built, in the registry's order");
    let reports = measure_all(&c.measures, &o, &m, None).unwrap();
    let report = |name: &str| {
        let i = all
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no measure {name} in the registry"));
        &reports[i]
    };
    // moments: mean of x 2 → 7/3 (+1/6), of y unchanged; var of x 1 → 7/3, of y 19/3 → 7/3
    let r = report("moments");
    assert!(close(fig(r, "mean_rel_diff_max"), 1.0 / 6.0));
    assert!(close(fig(r, "var_rel_diff_max"), 4.0 / 3.0));
    assert_eq!(r.tables[0].name, "moments");
    assert_eq!(r.tables[0].rows.len(), 2);
    assert_eq!(r.tables[0].rows[1][0], "y");
    assert!(close(
        r.tables[0].rows[1][8].as_f64().unwrap(),
        -12.0 / 19.0
    ));
    // correlations: 15/√228 → 1
    let r = report("correlations");
    assert!(close(
        fig(r, "cor_max_abs_diff"),
        1.0 - 15.0 / 228f64.sqrt()
    ));
    assert!(close(
        fig(r, "cor_mean_abs_diff"),
        1.0 - 15.0 / 228f64.sqrt()
    ));
    assert_eq!(r.tables[0].rows[0][0], "x:y");
    // il1s: 1/√2 + √(6/19), a sum over 6 cells
    let r = report("il1s");
    let il = 1.0 / 2f64.sqrt() + (6.0f64 / 19.0).sqrt();
    assert!(close(fig(r, "il1s"), il));
    assert!(close(fig(r, "il1s_per_cell"), il / 6.0));
    assert_eq!(r.tables[0].rows[0][2], 3, "x: 3 cells");
    // pmse: the library's value and its ratio to the null expectation
    let r = report("pmse");
    let p = intruder_utility::pmse(&o, &m, &names(&["x", "y"])).unwrap();
    assert_eq!(fig(r, "pmse"), p.pmse);
    assert_eq!(fig(r, "pmse_ratio"), p.ratio);
    assert!(close(p.null_expectation, 2.0 * 0.25 * 0.5 / 6.0));
    // information loss: the library's figures
    let r = report("information-loss");
    let l = intruder_utility::information_loss(&o, &m, None, &names(&["x", "y"])).unwrap();
    assert_eq!(fig(r, "cell_loss"), l.cell_loss);
    assert_eq!(fig(r, "ncp"), l.ncp);
    assert_eq!(fig(r, "discernibility"), l.discernibility);
    // ci-overlap: the library's overlaps
    let r = report("ci-overlap");
    let ci = intruder_utility::ci_overlap(
        &o,
        &m,
        &"y ~ x".parse().unwrap(),
        intruder_utility::Family::Linear,
    )
    .unwrap();
    assert_eq!(fig(r, "ci_overlap_mean"), ci.mean_overlap);
    assert_eq!(
        fig(r, "ci_overlap_min"),
        ci.coefficients
            .iter()
            .map(|c| c.overlap)
            .fold(f64::INFINITY, f64::min)
    );
    assert_eq!(r.tables[0].rows.len(), 2);
    assert_eq!(r.tables[0].rows[1][0], "x");
}

#[test]
fn ci_overlap_of_a_shifted_response_is_exact() {
    // y ~ x on 4 points: slope 2.1, intercept 1, s² = 0.35; se(intercept) = √(0.35·1.5).
    // Shifting y by 1 moves the intercept's interval by 1 and leaves the slope's.
    let o = table(
        "o.csv",
        &[("x", &[1.0, 2.0, 3.0, 4.0]), ("y", &[3.0, 5.0, 8.0, 9.0])],
    );
    let m = table(
        "m.csv",
        &[("x", &[1.0, 2.0, 3.0, 4.0]), ("y", &[4.0, 6.0, 9.0, 10.0])],
    );
    let t: toml::Table = "model = \"y ~ x\"".parse().unwrap();
    let c = configure(&names(&["ci-overlap"]), &t, "", ReadContext::default(), &[]).unwrap();
    let r = &measure_all(&c.measures, &o, &m, None).unwrap()[0];
    let w = 2.0 * 4.302652729749464 * (0.35f64 * 1.5).sqrt();
    let j = (w - 1.0) / w;
    assert!(
        (fig(r, "ci_overlap_min") - j).abs() < 1e-9,
        "{}",
        fig(r, "ci_overlap_min")
    );
    assert!((fig(r, "ci_overlap_mean") - (1.0 + j) / 2.0).abs() < 1e-9);
    let row = &r.tables[0].rows[0];
    assert_eq!(row[0], "(Intercept)");
    assert!((row[1].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert!((row[4].as_f64().unwrap() - 2.0).abs() < 1e-12);
    assert!((row[3].as_f64().unwrap() - row[2].as_f64().unwrap() - w).abs() < 1e-9);
    assert_eq!(r.details["ci_overlap_model"]["formula"], "y ~ x");
}

#[test]
fn problems_are_reported_at_once_with_their_paths() {
    let t: toml::Table = "variabels = [\"x\"]\nmodel = \"y x\"\nfamily = \"probit\"\nlevel = 0.9"
        .parse()
        .unwrap();
    let e = configure(
        &names(&["moments", "ci-overlap", "pmes"]),
        &t,
        "utility",
        ReadContext::default(),
        &[],
    )
    .unwrap_err();
    let text: Vec<String> = e.iter().map(ToString::to_string).collect();
    // the unknown measure's message lists the registry
    let every: Vec<&str> = UTILITY_MEASURES.iter().map(|e| e.name).collect();
    assert_eq!(
        text[0],
        format!(
            "utility.measures: item 3: unknown utility measure 'pmes' (did you mean 'pmse'?); the utility measures are: {}",
            every.join(", ")
        )
    );
    assert_eq!(
        text[1..],
        [
            "utility.level: unknown key; the keys of moments, ci-overlap are: variables, model, family",
            "utility.variabels: unknown key (did you mean 'variables'?); the keys of moments, ci-overlap are: variables, model, family",
            "utility.variables: is required but missing (the variables compared: numeric for moments, correlations (two or more) and il1s; numeric or categorical for pmse; required by every measure but ci-overlap, which takes the model's columns)",
            "utility.family: unknown value 'probit'; expected one of: linear, logistic",
            "utility.model: model formula 'y x': expected 'response ~ predictor + predictor'",
        ]
    );
    // a parameter of a measure that is not named
    let t: toml::Table = "variables = [\"x\"]\nfamily = \"logistic\""
        .parse()
        .unwrap();
    let e = configure(&names(&["il1s"]), &t, "", ReadContext::default(), &[]).unwrap_err();
    assert_eq!(
        e[0].to_string(),
        "family: is a parameter of ci-overlap, which is not among the measures (il1s); add it to the measures or leave 'family' out"
    );
    // named twice; an empty list of variables
    let t: toml::Table = "variables = []".parse().unwrap();
    let e = configure(
        &names(&["il1s", "il1s"]),
        &t,
        "u",
        ReadContext::default(),
        &[],
    )
    .unwrap_err();
    let text: Vec<String> = e.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        vec![
            "u.measures: 'il1s' is named twice",
            "u.variables: must name at least one variable"
        ]
    );
}

#[test]
fn columns_are_checked_against_the_data_when_known() {
    let cols = ColumnSet {
        file: "o.csv".into(),
        columns: vec![
            ("x".into(), Kind::Float, Role::Sensitive),
            ("sex".into(), Kind::Categorical, Role::Key),
        ],
        first_not_number: Vec::new(),
        levels: Vec::new(),
    };
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(&cols),
    };
    let t: toml::Table = "variables = [\"x\", \"sex\"]\nmodel = \"y ~ x + sexx\""
        .parse()
        .unwrap();
    let e = configure(&names(&["moments", "pmse", "ci-overlap"]), &t, "", ctx, &[]).unwrap_err();
    let text: Vec<String> = e.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        vec![
            "variables: o.csv: column 'sex' is categorical; moments needs numeric variables",
            "model: o.csv: no column named 'y'; the columns are: x, sex",
            "model: o.csv: no column named 'sexx' (did you mean 'sex'?); the columns are: x, sex",
        ]
    );
    // pmse takes categorical variables
    assert!(configure(&names(&["pmse"]), &t, "", ctx, &["model"]).is_ok());
}

#[test]
fn only_il1s_compares_the_kept_records() {
    // the masked file kept records 1 and 3 (0-based 0 and 2) of the original
    let o = table("o.csv", &[("x", &[1.0, 5.0, 3.0])]);
    let m = table("m.csv", &[("x", &[1.0, 4.0])]);
    let t: toml::Table = "variables = \"x\"".parse().unwrap();
    let c = configure(
        &names(&["il1s", "moments"]),
        &t,
        "",
        ReadContext::default(),
        &[],
    )
    .unwrap();
    assert!(c.measures[0].one_to_one() && !c.measures[1].one_to_one());
    let r = measure_all(&c.measures, &o, &m, Some(&[0, 2])).unwrap();
    // il1s on (1, 3) vs (1, 4): |3 − 4| / (√2 · sd(1, 3)) = 1 / (√2·√2) = 0.5
    assert!(close(fig(&r[0], "il1s"), 0.5));
    // moments on the whole original: mean 3 → 2.5
    assert!(close(fig(&r[1], "mean_rel_diff_max"), 0.5 / 3.0));
    // without kept rows il1s cannot pair the records
    let e = measure_all(&c.measures, &o, &m, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("one to one"), "{e}");
    // merged, the figures keep their names in every format
    let merged = merge_reports("u", r);
    assert_eq!(
        merged.render(Format::Csv).lines().next().unwrap(),
        "il1s,il1s_per_cell,mean_rel_diff_max,var_rel_diff_max,il1s_per_variable.x.il1s,il1s_per_variable.x.cells,moments.x.mean_original,moments.x.mean_masked,moments.x.mean_diff,moments.x.mean_rel_diff,moments.x.var_original,moments.x.var_masked,moments.x.var_diff,moments.x.var_rel_diff"
    );
}

#[test]
fn default_measures_are_the_ones_that_apply() {
    let (o, _) = three_by_two();
    assert_eq!(
        default_measures(&o, &names(&["x", "y"]), true, true),
        ["moments", "correlations", "il1s", "pmse", "ci-overlap"]
    );
    assert_eq!(
        default_measures(&o, &names(&["x"]), false, false),
        ["moments", "pmse"]
    );
    let mut t = o.clone();
    t.push(Column::categorical("g", Role::Key, &[Some("a"), Some("b"), Some("a")], None).unwrap())
        .unwrap();
    assert_eq!(
        default_measures(&t, &names(&["x", "g"]), true, false),
        ["pmse"]
    );
    assert_eq!(default_measures(&t, &[], true, true), ["ci-overlap"]);
}

/// Every number a measure reports is declared in its registry entry with the same unit (the
/// runner takes its human name, reference and bounds from there), and every declared figure is
/// reported: the declarations cannot go stale unnoticed. Run on numbers and, for the measures
/// of categorical keys, on a generalised file with a suppressed cell; with only the parameters
/// a measure takes (a measure refuses another's).
#[test]
fn every_reported_figure_is_declared_in_the_entry_and_no_other() {
    use intruder_data::report::Unit;
    let (o, m) = three_by_two();
    let t: toml::Table = "variables = [\"x\", \"y\"]\nmodel = \"y ~ x\"\nfamily = \"linear\""
        .parse()
        .unwrap();
    let cat = |name: &str, a: &[Option<&str>], b: &[Option<&str>]| {
        Table::new(
            name,
            vec![
                Column::categorical("a", Role::Key, a, None).unwrap(),
                Column::categorical("b", Role::Key, b, None).unwrap(),
            ],
        )
        .unwrap()
    };
    let co = cat(
        "orig.csv",
        &[Some("1"), Some("2"), Some("3"), Some("4")],
        &[Some("x"), Some("y"), Some("x"), Some("y")],
    );
    let cm = cat(
        "masked.csv",
        &[Some("1-2"), Some("1-2"), Some("3-4"), Some("3-4")],
        &[Some("x"), None, Some("x"), Some("y")],
    );
    let tc: toml::Table = "variables = [\"a\", \"b\"]".parse().unwrap();
    let tv: toml::Table = "variables = [\"x\", \"y\"]".parse().unwrap();
    let mut problems = Vec::new();
    for e in UTILITY_MEASURES {
        let mut reported: Vec<(String, Unit)> = Vec::new();
        for (t, o, m) in [(&tv, &o, &m), (&t, &o, &m), (&tc, &co, &cm)] {
            let Ok(c) = configure(
                &[e.name.to_string()],
                t,
                "utility",
                ReadContext::default(),
                &[],
            ) else {
                continue;
            };
            let Ok(reports) = measure_all(&c.measures, o, m, None) else {
                continue;
            };
            for f in reports.iter().flat_map(|r| &r.figures) {
                if f.unit != Unit::Label && !reported.iter().any(|(n, _)| *n == f.name) {
                    reported.push((f.name.clone(), f.unit));
                }
            }
        }
        problems.extend(figure_mismatches(e.name, e.figures, &reported));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
