//! The registry: every measure built from a TOML table with hand-checked values, every problem
//! reported at once with its path, did-you-mean on a misspelled key or measure, schema roles
//! filling absent parameters, and the per-record columns.

use intruder_data::params::{ColumnSet, ReadContext, figure_mismatches};
use intruder_data::report::{RecordValues, Unit};
use intruder_data::{Kind, ReadOptions, Role, Table, read_csv_from};
use intruder_risk::{RISK_MEASURES, RiskOutcome, configure, fill_roles};

/// Keys a, b: classes (1,x) = rows 1–2, (1,y) = row 3, (2,y) = row 4. Weights 10, 20, 5, 8;
/// households {1, 2}, {3}, {4}; sensitive s: Y N | Y | Y.
const SMALL: &str = "a,b,w,hh,s\n1,x,10,1,Y\n1,x,20,1,N\n1,y,5,2,Y\n2,y,8,3,Y\n";

/// sdcMicro's suda2 "book example" (tests/testthat/test_suda2.R): scores 4, 2, 6, 8 for rows 5–8.
const BOOK: &str = "age,gender,income,education
20s,male,50k+,highschool
20s,male,50k+,highschool
20s,male,50k-,highschool
20s,male,50k-,highschool
20s,female,50k-,university
20s,female,50k-,highschool
20s,female,50k-,middleschool
60s,male,50k-,university
";

fn table(csv: &str) -> Table {
    read_csv_from(csv.as_bytes(), "t.csv".as_ref(), &ReadOptions::default())
        .unwrap()
        .table
}

fn run(csv: &str, toml_text: &str, per_record: bool) -> RiskOutcome {
    let t: toml::Table = toml_text.parse().unwrap();
    let m = configure(&t, "risk[1]", ReadContext::default(), &[])
        .unwrap_or_else(|p| panic!("{p:?}"))
        .method;
    m.assess(&table(csv), per_record).unwrap()
}

fn problems(toml_text: &str, ctx: ReadContext<'_>) -> Vec<String> {
    let t: toml::Table = toml_text.parse().unwrap();
    configure(&t, "risk[2]", ctx, &[])
        .map(|_| ())
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn num(o: &RiskOutcome, name: &str) -> f64 {
    o.report
        .figure(name)
        .unwrap_or_else(|| panic!("no figure {name}"))
        .as_f64()
        .unwrap()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-12, "{a} vs {b}");
}

/// Benedetti–Franconi individual risks of SMALL (f, F): (2, 30), (1, 5), (1, 8).
fn small_risks() -> [f64; 4] {
    let pair = {
        let p: f64 = 2.0 / 30.0;
        let odds = p / (1.0 - p);
        odds - odds * odds * (1.0 / p).ln()
    };
    let one = |big: f64| {
        let p = 1.0 / big;
        p / (1.0 - p) * (1.0 / p).ln()
    };
    [pair, pair, one(5.0), one(8.0)]
}

#[test]
fn frequency_measures_classes_weights_households_and_diversity() {
    let o = run(
        SMALL,
        "keys = [\"a\", \"b\"]\nweight = \"w\"\ngroup = \"hh\"\nsensitive = \"s\"\npopulation_size = 40",
        false,
    );
    assert_eq!(num(&o, "sample_uniques"), 2.0);
    assert_eq!(num(&o, "classes"), 3.0);
    assert_eq!(num(&o, "pairs"), 1.0);
    // θ = n₁π / (n₁π + 2(1−π)n₂), π = 4/40.
    close(num(&o, "theta"), 0.2 / (0.2 + 2.0 * 0.9));
    let r = small_risks();
    close(num(&o, "expected_reidentifications"), r.iter().sum());
    close(num(&o, "global_risk"), r.iter().sum::<f64>() / 4.0);
    let hh1 = 1.0 - (1.0 - r[0]) * (1.0 - r[1]);
    close(
        num(&o, "household_expected_reidentifications"),
        2.0 * hh1 + r[2] + r[3],
    );
    assert_eq!(num(&o, "l_distinct_min"), 1.0);
    assert_eq!(o.report.figure("sample_uniques").unwrap().unit, Unit::Count);
    assert_eq!(o.report.figure("theta").unwrap().unit, Unit::Proportion);
    assert!(o.records.is_empty(), "no per-record figures unless asked");
}

#[test]
fn individual_reports_the_weighted_figures_only() {
    let o = run(
        SMALL,
        "measure = \"individual\"\nkeys = [\"a\", \"b\"]\nweight = \"w\"",
        true,
    );
    let r = small_risks();
    close(num(&o, "max_individual_risk"), r[2]);
    assert!(o.report.figure("theta").is_none());
    assert!(o.report.figure("weights").is_none());
    let names: Vec<&str> = o
        .records
        .columns()
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["k", "n_match", "individual_risk", "weighted_k"]);
    // Without weights individual risk is 1/f_k (per record), and the report says so.
    let o = run(
        SMALL,
        "method = \"individual\"\nkeys = [\"a\", \"b\"]",
        true,
    );
    assert!(o.report.figure("weights").unwrap().value.is_null());
    // Σ 1/f_k = ½ + ½ + 1 + 1 (issue 19: sdcMicro reports it without weights too).
    close(num(&o, "expected_reidentifications"), 3.0);
    close(num(&o, "global_risk"), 0.75);
    assert_eq!(
        o.records.column("individual_risk"),
        Some(&RecordValues::Number(vec![
            Some(0.5),
            Some(0.5),
            Some(1.0),
            Some(1.0)
        ]))
    );
}

#[test]
fn household_risk_combines_the_members() {
    let o = run(
        SMALL,
        "measure = \"household\"\nkeys = [\"a\", \"b\"]\ngroup = \"hh\"\nweight = \"w\"",
        true,
    );
    let r = small_risks();
    let hh1 = 1.0 - (1.0 - r[0]) * (1.0 - r[1]);
    assert_eq!(num(&o, "households"), 3.0);
    close(
        num(&o, "household_global_risk"),
        (2.0 * hh1 + r[2] + r[3]) / 4.0,
    );
    close(num(&o, "household_max_risk"), hh1.max(r[2]).max(r[3]));
    let Some(RecordValues::Number(h)) = o.records.column("household_risk") else {
        panic!("household_risk column");
    };
    close(h[0].unwrap(), hh1);
    close(h[1].unwrap(), hh1);
    close(h[3].unwrap(), r[3]);
    // Without weights: r = 1/f_k, so household 1 has 1 − (1/2)² = 3/4.
    let o = run(
        SMALL,
        "measure = \"household\"\nkeys = [\"a\", \"b\"]\ngroup = \"hh\"",
        false,
    );
    close(
        num(&o, "household_expected_reidentifications"),
        0.75 * 2.0 + 2.0,
    );
}

#[test]
fn l_diversity_finds_the_disclosing_classes() {
    let o = run(
        SMALL,
        "measure = \"l-diversity\"\nkeys = [\"a\", \"b\"]\nsensitive = \"s\"",
        true,
    );
    assert_eq!(num(&o, "l_distinct_min"), 1.0);
    assert_eq!(num(&o, "l_entropy_min"), 1.0);
    // (1,y) and (2,y) hold one value each; (1,x) holds Y and N.
    assert_eq!(num(&o, "classes_l_distinct_1"), 2.0);
    assert_eq!(num(&o, "records_l_distinct_1"), 2.0);
    assert_eq!(
        o.records.column("l_distinct"),
        Some(&RecordValues::Count(vec![
            Some(2),
            Some(2),
            Some(1),
            Some(1)
        ]))
    );
    // Entropy ℓ per record: (1,x) holds Y and N once each → exp(ln 2) = 2; the others 1.
    let Some(RecordValues::Number(e)) = o.records.column("l_entropy") else {
        panic!("l_entropy is a number column")
    };
    assert!((e[0].unwrap() - 2.0).abs() < 1e-12 && (e[1].unwrap() - 2.0).abs() < 1e-12);
    assert_eq!(&e[2..], &[Some(1.0), Some(1.0)]);
}

#[test]
fn suda2_scores_the_book_example() {
    let o = run(
        BOOK,
        "measure = \"suda2\"\nkeys = [\"age\", \"gender\", \"income\", \"education\"]",
        true,
    );
    assert_eq!(num(&o, "sample_uniques"), 4.0);
    assert_eq!(num(&o, "msus"), 6.0);
    assert_eq!(num(&o, "score_max"), 8.0);
    assert_eq!(
        o.records.column("score"),
        Some(&RecordValues::Number(
            [0.0, 0.0, 0.0, 0.0, 4.0, 2.0, 6.0, 8.0].map(Some).to_vec()
        ))
    );
    let levels = &o.report.tables[0];
    assert_eq!(levels.name, "level_contributions");
    assert_eq!(levels.header, ["key", "level", "percent"]);
    // MSUs limited to size 1: row 8's {age} (60s) and row 7's {education} (middleschool).
    let o = run(
        BOOK,
        "measure = \"suda2\"\nkeys = [\"age\", \"gender\", \"income\", \"education\"]\nmax_msu_size = 1",
        false,
    );
    assert_eq!(num(&o, "msus"), 2.0);
}

#[test]
fn population_estimates_from_a_size_or_the_weights() {
    // (1,x) twice, (1,y), (2,y); N = 8. Main effects: μ = 1.5 and 0.5, λ = μ/π = 3 and 1,
    // τ₁ = e^−1.5 + e^−0.5.
    let csv = "a,b,w\n1,x,2\n1,x,2\n1,y,2\n2,y,2\n";
    let o = run(
        csv,
        "measure = \"population\"\nkeys = [\"a\", \"b\"]\npopulation_size = 8",
        true,
    );
    close(num(&o, "sampling_fraction"), 0.5);
    close(num(&o, "tau1"), (-1.5f64).exp() + (-0.5f64).exp());
    assert_eq!(o.report.tables[0].name, "parameters");
    let header = &o.report.tables[0].header;
    assert_eq!(header[0], "estimator");
    // JSON keeps the parameters as an object by estimator.
    let json = o.report.to_json();
    let params = json["parameters"].as_object().unwrap();
    assert_eq!(
        params.keys().collect::<Vec<_>>(),
        ["zayatz", "pitman", "snb"]
    );
    assert_eq!(o.records.len(), 4);
    // π = n / Σw = 4 / 8 from the weights.
    let w = run(
        csv,
        "measure = \"population\"\nkeys = [\"a\", \"b\"]\nweight = \"w\"",
        false,
    );
    close(num(&w, "sampling_fraction"), 0.5);
    close(num(&w, "tau1"), num(&o, "tau1"));
}

#[test]
fn every_problem_at_once_with_its_path() {
    let p = problems(
        "measure = \"suda2\"\nkeys = [\"a\"]\nmissing = \"wildcard\"\nmax_msu_size = 0\ndis_fraction = 1.5\ncost_limt = 5",
        ReadContext::default(),
    );
    assert_eq!(
        p,
        [
            "risk[2].max_msu_size: expected a value ≥ 1, found 0",
            "risk[2].dis_fraction: expected a value in (0, 1), found 1.5",
            "risk[2].missing: SUDA2 needs equivalence classes: use listwise or as-value, not wildcard",
            "risk[2].cost_limt: unknown key (did you mean 'cost_limit'?); the keys are: keys, missing, set_match, max_msu_size, dis_fraction, cost_limit, drop_msus_with_missing",
        ]
    );
    let p = problems(
        "keys = []\nmissing = \"listwse\"\nunique_threshold = 0\nintruder_share = 2\npopulation_uniques = 5",
        ReadContext::default(),
    );
    assert_eq!(
        p,
        [
            "risk[2].keys: is empty: name at least one key variable",
            "risk[2].missing: unknown value 'listwse' (did you mean 'listwise'?); expected one of: listwise, as-value, wildcard",
            "risk[2].unique_threshold: expected a value ≥ 1, found 0",
            "risk[2].intruder_share: expected a value in [0, 1], found 2",
            "risk[2].population_uniques: Bender's R needs population_size too (for the sampling fraction)",
        ]
    );
}

#[test]
fn required_columns_unknown_measures_and_conflicts() {
    let none = ReadContext::default();
    assert_eq!(
        problems("measure = \"household\"\nkeys = [\"a\"]", none),
        [
            "risk[2].group: is required but missing (household (group) column: household risk 1 − Π(1 − r_i) over its members)"
        ]
    );
    assert_eq!(
        problems("measure = \"l-diversity\"", none),
        [
            "risk[2].keys: is required but missing (key variables (quasi-identifiers) the classes are formed on)",
            "risk[2].sensitive: is required but missing (sensitive column: distinct and entropy ℓ-diversity within the classes)",
        ]
    );
    let every: Vec<&str> = RISK_MEASURES.iter().map(|e| e.name).collect();
    assert_eq!(
        problems("measure = \"sdua2\"\nkeys = [\"a\"]", none),
        [format!(
            "risk[2].measure: unknown risk measure 'sdua2' (did you mean 'suda2'?); the risk measures are: {}",
            every.join(", ")
        )]
    );
    assert_eq!(
        problems(
            "measure = \"suda2\"\nmethod = \"suda2\"\nkeys = [\"a\"]",
            none
        ),
        ["risk[2].method: given twice: as 'measure' and as 'method'; keep 'measure'"]
    );
    let p = problems(
        "measure = \"population\"\nkeys = [\"a\"]\nsampling_fraction = 0",
        none,
    );
    assert_eq!(
        p,
        ["risk[2].sampling_fraction: expected a value in (0, 1], found 0"]
    );
    let p = problems("measure = \"population\"\nkeys = [\"a\"]", none);
    assert_eq!(p.len(), 1);
    assert!(
        p[0].starts_with("risk[2]: the estimators need the sampling fraction"),
        "{p:?}"
    );
    let p = problems(
        "measure = \"population\"\nkeys = [\"a\"]\npopulation_size = 10\nsampling_fraction = 0.5\nloglinear = \"quadratic\"",
        none,
    );
    assert_eq!(
        p,
        [
            "risk[2].loglinear: unknown value 'quadratic'; expected one of: main-effects, two-way",
            "risk[2].sampling_fraction: give population_size or sampling_fraction, not both",
        ]
    );
    // Measures without a parameter refuse it instead of ignoring it.
    let p = problems("measure = \"suda2\"\nkeys = [\"a\"]\nweight = \"w\"", none);
    assert!(p[0].starts_with("risk[2].weight: unknown key"), "{p:?}");
}

#[test]
fn columns_are_checked_when_known() {
    let cols = ColumnSet {
        file: "d.csv".into(),
        columns: vec![
            ("age".into(), Kind::Integer, Role::Key),
            ("sex".into(), Kind::Categorical, Role::Key),
            ("hh".into(), Kind::Integer, Role::Group),
        ],
        first_not_number: Vec::new(),
        levels: Vec::new(),
    };
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(&cols),
    };
    assert_eq!(
        problems("keys = [\"age\", \"sexx\"]\nweight = \"sex\"", ctx),
        [
            "risk[2].keys: d.csv: no column named 'sexx' (did you mean 'sex'?); the columns are: age, sex, hh",
            "risk[2].weight: d.csv: column 'sex' is categorical; expected a numeric (integer or float) column",
        ]
    );
}

#[test]
fn schema_roles_fill_absent_parameters_and_given_ones_win() {
    let cols = small_columns();
    let mut t = toml::Table::new();
    let mut filled = fill_roles(&mut t, &cols);
    filled.sort();
    assert_eq!(filled, ["group", "keys", "sensitive", "weight"]);
    assert_eq!(t["keys"], toml::Value::Array(vec!["a".into(), "b".into()]));
    // A given parameter is kept; suda2 declares only the keys.
    let mut t: toml::Table = "measure = \"suda2\"\nkeys = [\"b\"]".parse().unwrap();
    assert!(fill_roles(&mut t, &cols).is_empty());
    let mut t: toml::Table = "measure = \"population\"".parse().unwrap();
    let filled = fill_roles(&mut t, &cols);
    assert_eq!(filled, ["keys", "weight"]);
}

/// SMALL's columns with their schema roles: keys a and b, weight w, household hh, sensitive s.
fn small_columns() -> ColumnSet {
    ColumnSet {
        file: "t.csv".into(),
        columns: vec![
            ("a".into(), Kind::Integer, Role::Key),
            ("b".into(), Kind::Categorical, Role::Key),
            ("w".into(), Kind::Integer, Role::Weight),
            ("hh".into(), Kind::Integer, Role::Group),
            ("s".into(), Kind::Categorical, Role::Sensitive),
        ],
        first_not_number: Vec::new(),
        levels: Vec::new(),
    }
}

/// Every entry of the registry, with the columns its parameters take from a schema role filled
/// in as the command line fills them (keys, and the weight, group or sensitive column a measure
/// declares), builds and measures SMALL with per-record figures: a new measure is run here
/// without naming it.
#[test]
fn every_measure_builds_from_a_table_and_runs() {
    let columns = small_columns();
    for e in RISK_MEASURES {
        let mut t: toml::Table = format!("measure = \"{}\"", e.name).parse().unwrap();
        assert!(!fill_roles(&mut t, &columns).is_empty(), "{}", e.name);
        let m = configure(&t, "risk[1]", ReadContext::default(), &[])
            .unwrap_or_else(|p| panic!("{}: {p:?}", e.name))
            .method;
        assert_eq!(m.name(), e.name);
        let o = m.assess(&table(SMALL), true).unwrap();
        assert_eq!(o.records.len(), 4, "{}", e.name);
        assert!(
            o.report
                .figures
                .iter()
                .any(|f| f.unit == Unit::Count && f.as_f64().is_some()),
            "{}",
            e.name
        );
    }
}

/// Recursive (c, ℓ)-diversity through the registry. SMALL's classes: (1,x) holds Y and N once
/// each (r = 1, 1), the others one value. c = 2, ℓ = 2: 1 < 2·1 → (1,x) diverse; a class of one
/// value has fewer than ℓ values → not.
#[test]
fn recursive_cl_diversity_per_record() {
    let o = run(
        SMALL,
        "measure = \"l-diversity\"\nkeys = [\"a\", \"b\"]\nsensitive = \"s\"\nrecursive_c = 2\nrecursive_l = 2",
        true,
    );
    assert_eq!(
        o.records.column("recursive_cl_diverse"),
        Some(&RecordValues::Count(vec![
            Some(1),
            Some(1),
            Some(0),
            Some(0)
        ]))
    );
}

/// SMALL with a fifth record missing b (for the wildcard and as-value figures).
const SMALL_MISSING: &str = "a,b,w,hh,s\n1,x,10,1,Y\n1,x,20,1,N\n1,y,5,2,Y\n2,y,8,3,Y\n2,,4,3,N\n";

/// Parameter settings that bring out every figure some measure reports only on request; each
/// is tried on every measure (a setting a measure refuses is skipped for it).
const VARIANTS: &[&str] = &[
    "",
    "missing = \"as-value\"",
    "missing = \"wildcard\"",
    "missing = \"wildcard\"\nalpha = 0.5",
    "with_n_match = true",
    "population_size = 100",
    "population_size = 100\npopulation_uniques = 1",
    "sample_size = 3",
    "unique_threshold = 2",
    "recursive_c = 2\nrecursive_l = 2",
    "t = 0.2",
    "sampling_fraction = 0.5",
    "loglinear = \"two-way\"",
    "max_global_risk = 0.01",
    "per_key = true",
    "max_msu_size = 1",
];

/// The numbers (not labels) each measure reports under every setting of [`VARIANTS`] that it
/// accepts, on SMALL and SMALL_MISSING, with their units.
fn reported_figures(
    e: &intruder_data::params::Entry<dyn intruder_risk::RiskMeasure>,
) -> Vec<(String, Unit)> {
    let columns = small_columns();
    let mut out: Vec<(String, Unit)> = Vec::new();
    for v in VARIANTS {
        let mut t: toml::Table = format!("measure = \"{}\"\n{v}", e.name).parse().unwrap();
        fill_roles(&mut t, &columns);
        let Ok(m) = configure(&t, "risk[1]", ReadContext::default(), &[]) else {
            continue;
        };
        for csv in [SMALL, SMALL_MISSING] {
            let Ok(o) = m.method.assess(&table(csv), true) else {
                continue;
            };
            for f in o.report.figures.iter().filter(|f| f.unit != Unit::Label) {
                if !out.iter().any(|(n, _)| *n == f.name) {
                    out.push((f.name.clone(), f.unit));
                }
            }
        }
    }
    out
}

/// Every number a measure reports is declared in its registry entry with the same unit (the
/// runner takes its human name, reference and bounds from there), and every declared figure is
/// reported under some setting: the declarations cannot go stale unnoticed.
#[test]
fn every_reported_figure_is_declared_in_the_entry_and_no_other() {
    let mut problems = Vec::new();
    for e in RISK_MEASURES {
        let reported = reported_figures(e);
        problems.extend(figure_mismatches(e.name, e.figures, &reported));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
