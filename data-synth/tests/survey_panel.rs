//! `survey-panel`: calibrated shares and the month-of-birth estimate.

use crate::common;

use common::{figure, generate, near};
use intruder_synth::figures::{Table, survey_panel};

#[test]
fn missing_shares_and_month_of_birth_shares_match_the_paper() {
    // n = 6,000: the standard error of a share near 0.2 is about 0.005; tolerance ~4 s.e.
    let (dir, _) = generate("survey-panel", 11, &["n=6000"]);
    let f = survey_panel(dir.path()).expect("figures");
    assert_eq!(figure(&f, "respondents"), 6000.0);
    near(
        "net income missing",
        figure(&f, "net income missing"),
        0.162,
        0.02,
    );
    near(
        "income category missing",
        figure(&f, "income category missing"),
        0.037,
        0.01,
    );
    near("origin missing", figure(&f, "origin missing"), 0.206, 0.02);
    near(
        "religion missing",
        figure(&f, "religion missing"),
        0.789,
        0.02,
    );
    near(
        "MoB two",
        figure(&f, "month of birth: two candidates"),
        0.804,
        0.025,
    );
    near(
        "MoB one",
        figure(&f, "month of birth: one candidate"),
        0.180,
        0.025,
    );
    near(
        "MoB none",
        figure(&f, "month of birth: no estimate"),
        0.016,
        0.008,
    );
}

#[test]
fn estimated_month_always_contains_the_true_birth_month() {
    let (dir, _) = generate("survey-panel", 5, &["n=3000"]);
    let data = Table::read(&dir.path().join("survey-panel.csv")).expect("data");
    let truth = Table::read(&dir.path().join("survey-panel-truth.csv")).expect("truth");
    let est = data.column("birth_month_est");
    let ids = data.column("person_id");
    let tids = truth.column("person_id");
    let months = truth.column("birth_month");
    let mut single_correct = 0;
    for i in 0..est.len() {
        assert_eq!(ids[i], tids[i]);
        if est[i].is_empty() {
            continue;
        }
        let set: Vec<&str> = est[i].split('|').collect();
        assert!(set.len() <= 2, "row {i}: {}", est[i]);
        assert!(
            set.contains(&months[i]),
            "row {i}: {} vs {}",
            est[i],
            months[i]
        );
        if set.len() == 1 {
            single_correct += 1;
        }
    }
    assert!(single_correct > 0);
}

#[test]
fn missing_income_category_implies_missing_income() {
    let (dir, _) = generate("survey-panel", 3, &["n=2000"]);
    let t = Table::read(&dir.path().join("survey-panel.csv")).expect("data");
    let inc = t.column("net_income");
    let cat = t.column("income_cat");
    for (a, b) in inc.iter().zip(&cat) {
        assert!(!b.is_empty() || a.is_empty());
    }
}

#[test]
fn income_category_above_income_missing_is_rejected() {
    let g = intruder_synth::parse(
        "survey-panel",
        None,
        &["income_missing=0.1", "income_cat_missing=0.2"],
    )
    .expect("each value is in range");
    let dir = tempfile::tempdir().expect("tempdir");
    let err = g.generate(1, dir.path()).expect_err("inconsistent shares");
    assert!(err.to_string().contains("income_cat_missing"));
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
}

/// `missing_dependence = 1`: the same respondents skip the same questionnaires. The missing
/// sets are nested by their shares: origin (20.6%) within languages (44.1%) within education
/// field (46.7%) within no profession (not in work, about 48%) within social media (52.8%)
/// within religion (78.9%); each share stays the published one.
#[test]
fn missing_dependence_nests_the_questionnaires_and_keeps_each_share() {
    let (dir, _) = generate("survey-panel", 7, &["n=6000", "missing_dependence=1"]);
    let t = Table::read(&dir.path().join("survey-panel.csv")).expect("data");
    let chain = [
        "origin",
        "languages",
        "education_field",
        "profession",
        "social_media",
        "religion",
    ];
    let cols: Vec<Vec<String>> = chain
        .iter()
        .map(|c| t.column(c).into_iter().map(str::to_string).collect())
        .collect();
    let n = cols[0].len();
    assert_eq!(n, 6000);
    for w in cols.windows(2) {
        for i in 0..n {
            assert!(
                !w[0][i].is_empty() || w[1][i].is_empty(),
                "row {}: missing in a rarer variable but not in a commoner one",
                i + 2
            );
        }
    }
    let share = |c: usize| cols[c].iter().filter(|v| v.is_empty()).count() as f64 / n as f64;
    near("origin missing", share(0), 0.206, 0.02);
    near("languages missing", share(1), 4848.0 / 10997.0, 0.025);
    near("education field missing", share(2), 5131.0 / 10997.0, 0.025);
    near("social media missing", share(4), 5802.0 / 10997.0, 0.025);
    near("religion missing", share(5), 0.789, 0.02);
    // Missing completely at random (the default): far from nested.
    let (dir, _) = generate("survey-panel", 7, &["n=6000"]);
    let t = Table::read(&dir.path().join("survey-panel.csv")).expect("data");
    let (o, l) = (t.column("origin"), t.column("languages"));
    let outside = (0..n)
        .filter(|&i| o[i].is_empty() && !l[i].is_empty())
        .count();
    // About 20.6% × 55.9% of the respondents.
    assert!(outside > 500, "{outside}");
}

/// `rare_language_scale = 0`: nobody grew up with a language other than Dutch, so every
/// answered pattern is `dutch`, or `other` for the respondents of non-Western origin drawn
/// without Dutch; at the default scale several-language patterns occur.
#[test]
fn rare_language_scale_zero_leaves_dutch_or_other_only() {
    let (dir, _) = generate("survey-panel", 3, &["n=3000", "rare_language_scale=0"]);
    let t = Table::read(&dir.path().join("survey-panel.csv")).expect("data");
    let l = t.column("languages");
    let answered: Vec<&&str> = l.iter().filter(|v| !v.is_empty()).collect();
    assert!(answered.len() > 1000);
    assert!(answered.iter().all(|v| **v == "dutch" || **v == "other"));
    assert!(answered.iter().any(|v| **v == "other"));
    let (dir, _) = generate("survey-panel", 3, &["n=3000"]);
    let t = Table::read(&dir.path().join("survey-panel.csv")).expect("data");
    assert!(t.column("languages").iter().any(|v| v.contains('|')));
}
