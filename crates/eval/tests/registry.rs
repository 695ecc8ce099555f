//! The registry and `configure`: every attack from a TOML table, every problem at once with its
//! path, did-you-means, aliases, the linkage specification as a file (relative to the base
//! directory) or inline, absurd sizes refused without a panic, keys resolved in order, twins
//! selected with the truth, links declared at the attack's threshold.

use crate::common;
use common::*;
use intruder_attack::fellegi_sunter::{FellegiSunter, FsParams, LinkageSpec, MAX_U_SAMPLE};
use intruder_attack::{ATTACK_COMMON, ATTACKS, KeyMap, Knowledge, configure, docs};
use intruder_data::params::{ReadContext, list_text};
use intruder_eval::{EvalOptions, Labelled, TruthIds, twin_rows};
use serde_json::json;

const SPEC: &str = r#"
blocking = [["area"]]
[[comparison]]
column = "area"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "else" }]
[[comparison]]
column = "beds"
released = "bedrooms"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else" }]
"#;

fn table(text: &str) -> toml::Table {
    text.parse().expect("test TOML parses")
}

fn problems(text: &str, prefix: &str, ctx: ReadContext<'_>) -> Vec<String> {
    configure(&table(text), prefix, ctx)
        .expect_err("the parameters have problems")
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn every_attack_builds_from_a_table_and_reports_its_parameters() {
    // The first attacks keep their place in `--list`; a new one is added after them.
    assert_eq!(
        ATTACKS.iter().take(5).map(|e| e.name).collect::<Vec<_>>(),
        vec!["exact", "nearest", "kmeans", "link", "fellegi-sunter"]
    );
    for e in ATTACKS {
        let c = configure(
            &table(&format!("method = \"{}\"", e.name)),
            "",
            ReadContext::default(),
        )
        .unwrap_or_else(|p| panic!("{}: {p:?}", e.name));
        assert_eq!(c.method, e.name);
        assert_eq!(c.attack.name(), e.name);
        assert_eq!(c.name(), e.name, "the label defaults to the method");
        // Every declared parameter is reported with its resolved value, and nothing else.
        let params = c.attack.params();
        let declared: Vec<&str> = e.params.iter().map(|p| p.name).collect();
        let mut reported: Vec<&str> = params.keys().map(String::as_str).collect();
        if e.name == "fellegi-sunter" {
            // linkage_spec is read into linkage (the specification used).
            reported.push("linkage_spec");
        }
        let mut d = declared.clone();
        d.sort_unstable();
        reported.sort_unstable();
        assert_eq!(reported, d, "{}", e.name);
        assert!(!e.summary.is_empty() && !e.reference.is_empty());
        assert!(e.params.iter().all(|p| !p.doc.is_empty()));
    }
    let c = configure(
        &table(
            "method = \"nearest\"\nname = \"d\"\nkeys = [\"a\", \"b\"]\nmetric = \"gower\"\ntop_k = 2\nweights = { a = 10 }\nthreshold = -0.5\nsensitive = \"y\"\ntolerance = 0.1\ntwins_only = true",
        ),
        "",
        ReadContext::default(),
    )
    .unwrap();
    assert_eq!(c.name(), "d");
    assert_eq!(c.common.keys, Some(vec!["a".to_string(), "b".to_string()]));
    assert!(c.common.twins_only);
    assert_eq!(c.attack.declared_threshold(), Some(-0.5));
    assert_eq!(
        c.resolved(None),
        json!({
            "method": "nearest", "name": "d", "keys": ["a", "b"], "key_map": {},
            "twins_only": true, "sensitive": "y", "tolerance": 0.1,
            "missing": "listwise", "metric": "gower", "string_metric": "jaro-winkler",
            "standardize": false, "category_codes": false, "weights": { "a": 10.0 }, "top_k": 2,
            "one_to_one": false,
            "threshold": -0.5
        })
    );
    let opts = EvalOptions::for_attack(&c, None, Some("y_true".into()), 4);
    assert_eq!(opts.threshold, Some(-0.5));
    assert_eq!(opts.seed, 4);
    let s = opts.sensitive.unwrap();
    assert_eq!(
        (s.released.as_str(), s.truth.as_str(), s.tolerance),
        ("y", "y_true", 0.1)
    );
}

#[test]
fn every_problem_at_once_with_its_path() {
    let p = problems(
        "method = \"nearest\"\ntop_k = 0\nmetric = \"gowr\"\nweights = { a = -1 }\nmising = \"wildcard\"\ntolerance = 0\nkeys = 3",
        "attack[2]",
        ReadContext::default(),
    );
    assert_eq!(
        p,
        vec![
            "attack[2].keys: expected a list of strings, found the integer 3",
            "attack[2].tolerance: expected a value > 0, found 0",
            "attack[2].metric: unknown value 'gowr' (did you mean 'gower'?); expected one of: euclidean, gower",
            "attack[2].weights: expected a value > 0, found -1",
            "attack[2].top_k: expected a value ≥ 1, found 0",
            "attack[2].mising: unknown key (did you mean 'missing'?); the keys are: name, keys, key_map, twins_only, sensitive, tolerance, missing, metric, string_metric, standardize, category_codes, weights, top_k, one_to_one, threshold",
        ]
    );
    // A combination the declarations cannot express is a problem too, under its key.
    assert_eq!(
        problems(
            "method = \"kmeans\"\nmissing = \"as-value\"\nclusters = 0",
            "attack[1]",
            ReadContext::default()
        ),
        vec![
            "attack[1].missing: missing 'as-value' has no meaning for the Euclidean distance: use listwise or wildcard (a missing key then adds nothing), or the Gower metric",
            "attack[1].clusters: expected a value ≥ 1, found 0",
        ]
    );
    // kmeans has no metric: an unknown key there.
    assert!(
        problems(
            "method = \"kmeans\"\nmetric = \"euclidean\"",
            "",
            ReadContext::default()
        )[0]
        .starts_with("metric: unknown key")
    );
}

/// The registry's attacks, as messages list them (an attack added to the registry is listed).
fn attack_names() -> String {
    ATTACKS
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn unknown_or_missing_method() {
    let p = problems(
        "method = \"neerest\"\ntolerance = -1\ntop_k = 3",
        "attack[3]",
        ReadContext::default(),
    );
    assert_eq!(
        p,
        vec![
            format!(
                "attack[3].method: unknown attack 'neerest' (did you mean 'nearest'?); the attacks are: {}",
                attack_names()
            ),
            "attack[3].tolerance: expected a value > 0, found -1".to_string(),
        ],
        "the common parameters are still checked; the method's are not known"
    );
    assert_eq!(
        problems("keys = [\"a\"]", "attack[1]", ReadContext::default()),
        vec![format!(
            "attack[1].method: is required but missing (the attack: {})",
            attack_names()
        )]
    );
    assert_eq!(
        problems("method = 1", "", ReadContext::default()),
        vec!["method: expected the name of an attack, found the integer 1"]
    );
}

#[test]
fn match_probability_is_the_old_name_of_the_threshold() {
    let c = configure(
        &table("method = \"fellegi-sunter\"\nmatch_probability = 0.9"),
        "attack[5]",
        ReadContext::default(),
    )
    .unwrap();
    assert_eq!(
        c.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        vec![
            "attack[5].match_probability: 'match_probability' is deprecated: use 'threshold' (the old name is accepted until the next release)"
        ]
    );
    assert_eq!(c.attack.params()["threshold"], json!(0.9));
    // Links are declared at the weight of the probability: log2(0.9 / 0.1).
    let w = c.attack.declared_threshold().unwrap();
    assert!((w - 9f64.log2()).abs() < 1e-12, "{w}");
    assert_eq!(
        problems(
            "method = \"fellegi-sunter\"\nmatch_probability = 0.9\nthreshold = 0.8",
            "",
            ReadContext::default()
        ),
        vec![
            "threshold: given twice: as 'threshold' and as its old name 'match_probability'; keep 'threshold'"
        ]
    );
    assert_eq!(
        problems(
            "method = \"fellegi-sunter\"\nthreshold = 1",
            "",
            ReadContext::default()
        ),
        vec!["threshold: expected a value in (0, 1), found 1"]
    );
}

#[test]
fn linkage_spec_is_relative_to_the_base_directory_and_inline_is_the_same() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("specs")).unwrap();
    std::fs::write(dir.path().join("specs/link.toml"), SPEC).unwrap();
    let ctx = ReadContext {
        base_dir: Some(dir.path()),
        columns: None,
    };
    let from_file = configure(
        &table("method = \"fellegi-sunter\"\nlinkage_spec = \"specs/link.toml\""),
        "attack[1]",
        ctx,
    )
    .unwrap();
    let expected = LinkageSpec::from_toml(SPEC, "x").unwrap();
    assert_eq!(
        from_file.attack.params()["linkage"],
        serde_json::to_value(&expected).unwrap()
    );
    // The same specification inline.
    let mut t = table("method = \"fellegi-sunter\"");
    t.insert("linkage".into(), toml::Value::Table(table(SPEC)));
    let inline = configure(&t, "attack[1]", ctx).unwrap();
    assert_eq!(inline.attack.params(), from_file.attack.params());
    assert_eq!(
        LinkageSpec::from_table(&table(SPEC), "linkage").unwrap(),
        expected
    );
    // The keys are the specification's columns when not given, with its released names.
    let keys = inline.key_map(&["other".into()], &[]).unwrap();
    assert_eq!(
        keys,
        KeyMap::with_map(&["area", "beds"], &[("beds".into(), "bedrooms".into())]).unwrap()
    );
    // Both: a problem.
    t.insert("linkage_spec".into(), "specs/link.toml".into());
    assert_eq!(
        problems_of(&t, "attack[1]", ctx),
        vec![
            "attack[1].linkage: the linkage specification is given twice: as a file (linkage_spec) and inline (linkage); keep one"
        ]
    );
    // A missing file names the resolved path.
    let p = problems(
        "method = \"fellegi-sunter\"\nlinkage_spec = \"nope.toml\"",
        "attack[2]",
        ctx,
    );
    let path = dir.path().join("nope.toml");
    assert_eq!(p.len(), 1);
    assert!(
        p[0].starts_with(&format!(
            "attack[2].linkage_spec: {}: cannot read:",
            path.display()
        )),
        "{p:?}"
    );
}

fn problems_of(t: &toml::Table, prefix: &str, ctx: ReadContext<'_>) -> Vec<String> {
    configure(t, prefix, ctx)
        .expect_err("problems")
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn problems_inside_a_linkage_specification_carry_the_parameter_path() {
    let dir = tempfile::tempdir().unwrap();
    let bad = "blocking = [[]]\n[[comparison]]\ncolumn = \"area\"\nlevels = [{ kind = \"exact\" }, { kind = \"jaro-winkler\", threshold = 2 }]\n";
    std::fs::write(dir.path().join("bad.toml"), bad).unwrap();
    let ctx = ReadContext {
        base_dir: Some(dir.path()),
        columns: None,
    };
    let file = dir.path().join("bad.toml").display().to_string();
    assert_eq!(
        problems(
            "method = \"fellegi-sunter\"\nlinkage_spec = \"bad.toml\"\nu_sample = 0",
            "attack[2]",
            ctx
        ),
        vec![
            format!(
                "attack[2].linkage_spec: {file}: blocking[0]: empty rule; name at least one column"
            ),
            format!(
                "attack[2].linkage_spec: {file}: comparison[0].levels: no 'else' level; end the list with {{ kind = \"else\" }}"
            ),
            format!(
                "attack[2].linkage_spec: {file}: comparison[0].levels[1].threshold: 2 is outside [0, 1]"
            ),
            "attack[2].u_sample: expected a value in [1, 1000000000], found 0".to_string(),
        ]
    );
    let mut t = table("method = \"fellegi-sunter\"");
    t.insert("linkage".into(), toml::Value::Table(table(bad)));
    assert_eq!(
        problems_of(&t, "attack[2]", ctx),
        vec![
            "attack[2].linkage: blocking[0]: empty rule; name at least one column",
            "attack[2].linkage: comparison[0].levels: no 'else' level; end the list with { kind = \"else\" }",
            "attack[2].linkage: comparison[0].levels[1].threshold: 2 is outside [0, 1]",
        ]
    );
    // An unknown key inside the inline table.
    let mut t = table("method = \"fellegi-sunter\"");
    t.insert(
        "linkage".into(),
        toml::Value::Table(table("blocking = [[\"a\"]]\nblockng = 1")),
    );
    let p = problems_of(&t, "attack[2]", ctx);
    assert!(
        p[0].starts_with("attack[2].linkage: unknown field `blockng`"),
        "{p:?}"
    );
}

#[test]
fn absurd_sizes_are_refused_or_capped_without_a_panic() {
    let p = problems(
        "method = \"fellegi-sunter\"\nu_sample = 9000000000000000000\nem_max_iter = 99999999999",
        "attack[1]",
        ReadContext::default(),
    );
    assert_eq!(
        p,
        vec![
            "attack[1].u_sample: expected a value in [1, 1000000000], found 9000000000000000000",
            "attack[1].em_max_iter: expected a value in [1, 1000000], found 99999999999",
        ]
    );
    // The library refuses them too, before any work.
    let e = FellegiSunter::new(FsParams {
        u_sample: usize::MAX,
        ..FsParams::default()
    })
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(&format!("at most {MAX_U_SAMPLE} are supported")),
        "{e}"
    );
    // A huge top_k keeps every released record, allocating nothing absurd.
    let i = load("id,a\n1,5\n2,1\n", "i.csv", &["id"]);
    let r = load("id,a\n1,5\n2,2\n3,9\n", "r.csv", &["id"]);
    let keys = KeyMap::same(&["a"]).unwrap();
    let huge = run(
        "method = \"nearest\"\ntop_k = 9223372036854775807",
        &i,
        &r,
        &keys,
    );
    let all = run("method = \"nearest\"\ntop_k = 3", &i, &r, &keys);
    assert_eq!(huge, all);
    assert_eq!(huge.records[0].list.len(), 3);
}

#[test]
fn keys_given_implied_or_defaulted_and_key_maps() {
    let c = configure(&table("method = \"exact\""), "", ReadContext::default()).unwrap();
    assert_eq!(c.key_names(&[]), None);
    let scenario = vec!["a".to_string(), "b".to_string()];
    let km = c
        .key_map(
            &scenario,
            &[("b".into(), "B".into()), ("z".into(), "Z".into())],
        )
        .unwrap();
    assert_eq!(
        km,
        KeyMap::with_map(&["a", "b"], &[("b".into(), "B".into())]).unwrap()
    );
    assert_eq!(
        c.key_map(&[], &[]).unwrap_err().to_string(),
        "no key variables given: name at least one key shared by both files"
    );
    let c = configure(
        &table("method = \"exact\"\nkeys = [\"b\"]\nkey_map = { b = \"bb\" }"),
        "",
        ReadContext::default(),
    )
    .unwrap();
    // The attack's key_map wins over the scenario's.
    assert_eq!(
        c.key_map(&scenario, &[("b".into(), "B".into())]).unwrap(),
        KeyMap::with_map(&["b"], &[("b".into(), "bb".into())]).unwrap()
    );
    let c = configure(
        &table("method = \"exact\"\nkeys = [\"a\"]\nkey_map = { b = \"bb\" }"),
        "",
        ReadContext::default(),
    )
    .unwrap();
    assert_eq!(
        c.key_map(&[], &[]).unwrap_err().to_string(),
        "key map names 'b', which is not one of the keys (a)"
    );
}

#[test]
fn fellegi_sunter_refuses_a_specification_column_that_is_not_a_key() {
    let mut t = table("method = \"fellegi-sunter\"\nkeys = [\"area\"]\nu_sample = 100");
    t.insert("linkage".into(), toml::Value::Table(table(SPEC)));
    let c = configure(&t, "", ReadContext::default()).unwrap();
    let i = load("pid,area,beds\n1,2,5\n", "intruder.csv", &["pid"]);
    let r = load("pid,area,bedrooms\n1,2,5\n", "released.csv", &["pid"]);
    let k = Knowledge::new(&i.table, c.key_map(&[], &[]).unwrap()).unwrap();
    let err = c.attack.link(&k, &r.table, 0).unwrap_err().to_string();
    assert!(
        err.contains("reads 'beds', which is not among the keys (area)"),
        "{err}"
    );
}

#[test]
fn twins_only_rows_come_from_the_truth() {
    let i = load("pid,a\n3,1\n9,2\n5,3\n", "i.csv", &["pid"]);
    let r = load("pid,a\n1,1\n5,2\n2,3\n3,4\n", "r.csv", &["pid"]);
    let ids = TruthIds {
        intruder: "pid".into(),
        released: "pid".into(),
    };
    assert_eq!(
        twin_rows(
            &Labelled::from_dataset(i.clone()),
            &Labelled::from_dataset(r.clone()),
            &ids
        )
        .unwrap(),
        vec![1, 3]
    );
    let bad = TruthIds {
        intruder: "pid".into(),
        released: "person".into(),
    };
    let e = twin_rows(
        &Labelled::from_dataset(i.clone()),
        &Labelled::from_dataset(r.clone()),
        &bad,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("r.csv") && e.contains("'person'"), "{e}");
}

#[test]
fn links_are_declared_at_the_attack_threshold() {
    let i = load("id,a\n1,5\n2,7\n", "i.csv", &["id"]);
    let r = load("id,a\n1,5\n2,7\n", "r.csv", &["id"]);
    let keys = KeyMap::same(&["a"]).unwrap();
    let ids = || {
        Some(TruthIds {
            intruder: "id".into(),
            released: "id".into(),
        })
    };
    for (params, declared) in [
        ("method = \"exact\"", 2),
        ("method = \"exact\"\nthreshold = 1", 2),
        ("method = \"exact\"\nthreshold = 1.5", 0),
    ] {
        let c = configure(&table(params), "", ReadContext::default()).unwrap();
        let l = link(c.attack.as_ref(), &i.table, &r.table, &keys, 0);
        let ev = intruder_eval::evaluate(
            &l,
            &Labelled::from_dataset(i.clone()),
            &Labelled::from_dataset(r.clone()),
            &EvalOptions::for_attack(&c, ids(), None, 0),
        )
        .unwrap();
        assert_eq!(ev.declared, declared, "{params}");
    }
}

#[test]
fn list_shows_common_parameters_once_then_every_attack() {
    let text = list_text("attacks", &docs());
    assert!(text.starts_with("attacks\n\ncommon parameters (every method):\n"));
    for p in ATTACK_COMMON {
        assert_eq!(text.matches(&format!("\n  {:<16} ", p.name)).count(), 1);
    }
    for e in ATTACKS {
        assert!(text.contains(&format!("\n{}  —  {}\n", e.name, e.summary)));
    }
    assert!(text.contains("(old name: match_probability)"));
}
