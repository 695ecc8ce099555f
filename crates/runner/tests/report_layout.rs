//! Issue 17: the report answers the intruder's question (correct re-identifications per target,
//! per twin, precision of declared links), counts record removal as information loss, and its
//! figures keep legends and labels off the data and each other; every metric shown has a
//! glossary entry; report.html has no markdown leftovers.

use intruder_runner::{
    Experiment, Figure, RunOptions, glossary_entry, load_runs, plots, run_experiment,
    shown_in_report,
};

const EXP: &str = r#"
name = "layout"
seed = 11
replicates = 2
[data]
generator = "survey-panel"
n = 300
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender", "occupation", "origin"]
known = 1.0
[[defence]]
name = "none"
[[defence]]
name = "k-anonymity"
[[defence.step]]
method = "local-suppression"
keys = ["year_of_birth", "gender", "occupation", "origin"]
k = [2, 3, 5]
[[defence]]
name = "pram"
[[defence.step]]
method = "pram"
variables = ["occupation", "origin"]
pd = [0.9, 0.7]
[[defence]]
name = "subsample"
[[defence.step]]
method = "subsample"
fraction = 0.5
[[attack]]
method = "exact"
[[attack]]
method = "nearest"
metric = "gower"
"#;

fn check_layout(f: &Figure) {
    let points: Vec<_> = f.points().map(|p| p.rect()).collect();
    if let Some(lg) = &f.legend {
        assert!(
            !lg.rect.overlaps(&f.area),
            "{}: legend inside the data area",
            f.file
        );
        for p in &points {
            assert!(!lg.rect.overlaps(p), "{}: legend over a point", f.file);
        }
        for l in &f.labels {
            assert!(
                !lg.rect.overlaps(&l.rect),
                "{}: legend over a label",
                f.file
            );
        }
    }
    for (i, l) in f.labels.iter().enumerate() {
        assert!(
            l.rect.inside(&f.area),
            "{}: label {} outside",
            f.file,
            l.text
        );
        for p in &points {
            assert!(
                !l.rect.overlaps(p),
                "{}: label {} over a point",
                f.file,
                l.text
            );
        }
        for m in &f.labels[..i] {
            assert!(
                !l.rect.overlaps(&m.rect),
                "{}: label {} over label {}",
                f.file,
                l.text,
                m.text
            );
        }
    }
    assert!(!f.x.title.contains("correct_match_rate") && !f.x.title.contains("_per_"));
    assert!(!f.y.title.contains("correct_match_rate") && !f.y.title.contains("_per_"));
    let svg = f.svg();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(!svg.contains("NaN") && !svg.contains("inf"), "{}", f.file);
    assert_eq!(
        svg.matches("<g><title>").count(),
        f.points().count() + f.refs.len(),
        "{}: every point and reference line has hover text",
        f.file
    );
}

#[test]
fn issue_17_report_answers_the_intruders_question() {
    let dir = tempfile::tempdir().unwrap();
    let exp = Experiment::from_toml(EXP, "layout.toml".as_ref()).unwrap();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let results = &done.written.results;
    let runs = load_runs(&done.plan, dir.path()).unwrap();

    // Per target = correct / every record held; per twin = correct / twins; pooled exactly.
    for s in results {
        for a in ["exact", "nearest"] {
            let pt = s.get(&format!("{a}.correct_per_target")).unwrap();
            let (k, n) = pt.pooled.unwrap();
            let correct: f64 = s
                .get(&format!("{a}.correct_matches"))
                .unwrap()
                .values
                .iter()
                .sum();
            let targets: f64 = s
                .get(&format!("{a}.intruder_records"))
                .unwrap()
                .values
                .iter()
                .sum();
            assert_eq!((k, n), (correct, targets), "{}", s.label);
            assert!(pt.lo <= pt.mean && pt.mean <= pt.hi && pt.lo >= 0.0 && pt.hi <= 1.0);
            let twins: f64 = s.get(&format!("{a}.twins")).unwrap().values.iter().sum();
            let pw = s.get(&format!("{a}.correct_match_rate")).unwrap();
            assert_eq!(pw.pooled.unwrap(), (correct, twins));
        }
    }
    // The intruder knows everyone (known = 1.0): unmasked, every target has a twin.
    let none = &results[0];
    assert_eq!(none.get("exact.twins").unwrap().mean, 300.0);
    // Subsampling halves the release: half the targets have no twin, and the loss counts it.
    let sub = results.iter().find(|s| s.label == "subsample").unwrap();
    assert_eq!(sub.get("exact.twins").unwrap().mean, 150.0);
    let loss = sub.get("masking.records_changed_or_removed_share").unwrap();
    assert_eq!(loss.mean, 0.5);
    assert_eq!(sub.get("masking.records_changed_share").unwrap().mean, 0.0);
    assert_eq!(
        none.get("masking.records_changed_or_removed_share")
            .unwrap()
            .mean,
        0.0
    );

    // Figures: headline first, one per attack, the grids, the map.
    let figs = plots(&exp, &done.plan, results).unwrap();
    let names: Vec<&str> = figs.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(
        names,
        [
            "reidentification-per-target.svg",
            "attack-exact.svg",
            "attack-nearest.svg",
            "risk-vs-k-anonymity-k.svg",
            "risk-vs-pram-pd.svg",
            "risk-utility.svg"
        ]
    );
    for f in &figs {
        check_layout(f);
    }
    let k = figs
        .iter()
        .find(|f| f.file == "risk-vs-k-anonymity-k.svg")
        .unwrap();
    let ticks: Vec<&str> = k.x.ticks.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(
        ticks,
        ["2", "3", "5"],
        "integer grid: integer ticks at the grid values"
    );
    let map = figs.iter().find(|f| f.file == "risk-utility.svg").unwrap();
    assert!(map.x.lo >= 0.0 && map.x.hi <= 1.0 && map.y.lo >= 0.0 && map.y.hi <= 1.0);
    assert_eq!(map.labels.len(), results.len());
    assert!(map.frontier.len() >= 2);
    assert!(
        map.y
            .title
            .starts_with("correct re-identifications per target")
    );
    assert!(
        map.x
            .title
            .starts_with("share of records changed, recoded or removed")
    );
    // The subsample is not at zero loss on the map.
    let sub_label = map.labels.iter().find(|l| l.text == "subsample").unwrap();
    assert!(sub_label.anchor.0 > map.area.x + map.area.w * 0.3);

    // Every metric shown has a glossary entry, with a definition and a reference.
    let shown = shown_in_report(&exp, results);
    assert!(shown.len() > 20);
    for id in &shown {
        let e = glossary_entry(&exp, &runs, id).unwrap_or_else(|| panic!("{id}: no entry"));
        assert!(!e.definition.is_empty() && !e.name.is_empty(), "{id}");
    }

    // report.html: plain captions, wrapped plan, nowrap intervals, glossary, a reading guide.
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(!html.contains('`'), "markdown leftovers in report.html");
    assert!(html.contains("<h2>How to read this report</h2>"));
    assert!(html.contains("<caption>Glossary: every figure shown</caption>"));
    assert!(html.contains("<span class=\"ci\">["));
    assert!(html.contains("white-space:pre-wrap"));
    assert!(html.contains("intruder knows all (100%) of the source records"));
    assert!(!html.contains("knows 1 of"));
    assert_eq!(html.matches("<svg").count(), figs.len());
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    let headline = md
        .find("## Headline: correct re-identifications per target")
        .unwrap();
    assert!(headline < md.find("## Tables").unwrap());
    assert!(md.contains("| setting | exact | nearest |"));
}

#[test]
fn non_negative_scores_keep_their_intervals_at_zero_or_above() {
    let dir = tempfile::tempdir().unwrap();
    let toml = format!(
        "{EXP}[utility]\nvariables = [\"gender\", \"occupation\", \"origin\"]\nmeasures = [\"pmse\"]\n"
    );
    let exp = Experiment::from_toml(&toml, "layout.toml".as_ref()).unwrap();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let results = &done.written.results;
    let mut seen = 0;
    for s in results {
        if let Some(p) = s.get("utility.pmse_ratio") {
            assert!(p.lo >= 0.0, "{}: {}", s.label, p.lo);
            seen += 1;
        }
    }
    assert_eq!(seen, results.len());
    // With a utility measure the map's loss is the pMSE ratio (a score: from 0, not capped).
    let figs = plots(&exp, &done.plan, results).unwrap();
    let map = figs.iter().find(|f| f.file == "risk-utility.svg").unwrap();
    assert_eq!(map.x.title, "pMSE ratio");
    assert!(map.x.lo >= 0.0);
    check_layout(map);
}

/// Issue 32: a loss that spans more than two decades gets a log axis (zeros on the axis), so
/// one extreme setting does not crush the others against zero; labels stay apart and inside.
#[test]
fn a_map_spanning_decades_switches_to_a_log_axis() {
    use intruder_data::report::Unit;
    use intruder_runner::{MapPoint, Stat, map_plot, spans_decades};
    let stats: Vec<(String, Stat, Stat)> = [
        ("none", 0.0, 0.62),
        ("recode water", 780.0, 0.40),
        ("k=2", 0.9, 0.10),
        ("k=3", 1.4, 0.03),
        ("k=5", 2.1, 0.009),
        ("pram", 0.3, 0.47),
    ]
    .into_iter()
    .map(|(l, loss, risk)| {
        (
            l.to_string(),
            Stat::new(vec![loss * 0.95, loss * 1.05]),
            Stat::pooled(&[(risk * 1000.0, 1000.0), (risk * 1100.0, 1000.0)]),
        )
    })
    .collect();
    assert!(spans_decades(stats.iter().map(|s| s.1.mean)));
    let pts: Vec<MapPoint> = stats
        .iter()
        .map(|(l, loss, risk)| MapPoint {
            label: l.clone(),
            group: l.clone(),
            loss,
            risk,
        })
        .collect();
    let f = map_plot(
        "map.svg".into(),
        "caption".into(),
        "title".into(),
        ("pMSE ratio".into(), Unit::Score),
        (
            "correct re-identifications per target".into(),
            Unit::Proportion,
        ),
        &pts,
    );
    assert!(f.x.log, "the loss axis is logarithmic");
    assert!(f.x.title.ends_with("(log scale)"));
    assert!(!f.y.log, "risk spans 0.9% to 62%: under two decades");
    // the ticks are powers of ten, in order, and every point is inside the data area
    let v: Vec<f64> = f.x.ticks.iter().map(|t| t.value).collect();
    assert_eq!(v, vec![0.1, 1.0, 10.0, 100.0, 1000.0]);
    assert!(
        f.x.hi > 1000.0 && f.x.hi < 10000.0,
        "room for labels past the largest loss, not a whole decade"
    );
    assert_eq!(f.x.ticks[0].label, "0.1");
    for p in f.points() {
        assert!(p.x >= f.area.x - 1e-9 && p.x <= f.area.x + f.area.w + 1e-9);
    }
    // the unmasked setting's zero loss sits on the axis
    let none = f.series[0].points[0].x;
    assert!((none - f.area.x).abs() < 1e-9);
    // k = 2, 3, 5 (losses 0.9 to 2.1) take 7% of the width, not 0.13% as on a linear axis
    // up to 780
    let xs: Vec<f64> = f.series[2..5].iter().map(|s| s.points[0].x).collect();
    assert!(xs[2] - xs[0] > 0.05 * f.area.w, "{xs:?}");
    check_layout(&f);
    // to look at it: INTRUDER_FIGURES=DIR cargo test … a_map_spanning_decades
    if let Some(dir) = std::env::var_os("INTRUDER_FIGURES") {
        std::fs::write(std::path::Path::new(&dir).join("log-map.svg"), f.svg()).unwrap();
    }
}

/// A generalised release is not free: the map's default loss and the verdict table's cost count
/// recoded records (a published recoding keeps no record as it was), where the share of records
/// changed or removed, blind to recoding, says 0.
#[test]
fn generalisation_costs_what_it_recodes_on_the_map_and_in_the_verdict() {
    let toml = r#"
name = "recoding-cost"
seed = 5
[data]
generator = "survey-panel"
n = 300
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender"]
known = 1.0
[[defence]]
name = "none"
[[defence]]
name = "generalise"
[[defence.step]]
method = "generalise"
hierarchies = { year_of_birth = { interval = [10, 20, 40] }, gender = { mask = true } }
k = 3
[[attack]]
method = "exact"
"#;
    let dir = tempfile::tempdir().unwrap();
    let exp = Experiment::from_toml(toml, "cost.toml".as_ref()).unwrap();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let results = &done.written.results;
    let g = results.iter().find(|s| s.label == "generalise").unwrap();
    let mean = |k: &str| g.get(k).unwrap().mean;
    // Every record's year of birth is banded (the search chose a level above the original).
    assert_eq!(mean("masking.records_recoded"), 300.0);
    assert_eq!(mean("masking.records_changed_or_removed_share"), 0.0);
    let altered = mean("masking.records_altered_share");
    assert_eq!(
        altered,
        mean("masking.records_changed_or_recoded") / 300.0,
        "no record removed: the altered share is the changed or recoded one"
    );
    assert_eq!(altered, 1.0);
    let none = &results[0];
    assert_eq!(none.get("masking.records_altered_share").unwrap().mean, 0.0);
    // The map puts it at that loss, not at zero.
    let figs = plots(&exp, &done.plan, results).unwrap();
    let map = figs.iter().find(|f| f.file == "risk-utility.svg").unwrap();
    assert!(
        map.x
            .title
            .starts_with("share of records changed, recoded or removed")
    );
    let label = map.labels.iter().find(|l| l.text == "generalise").unwrap();
    assert!(
        label.anchor.0 > map.area.x + map.area.w * 0.5,
        "{:?}",
        label.anchor
    );
    // The verdict table's cost column says so too.
    let verdict = done.written.verdict.as_ref().unwrap();
    let col = verdict
        .header
        .iter()
        .position(|h| h == "records changed, recoded or removed")
        .unwrap();
    let row = verdict.rows.iter().find(|r| r[0] == "generalise").unwrap();
    assert_eq!(row[col], "100.0%");
}
