//! Issue 17: linkage charts of a Fellegi–Sunter model (match weights, m/u, waterfall, EM) —
//! chart data read exactly off a hand-written model, well-formed SVG, no text overlaps.

use intruder_attack::Waterfall;
use intruder_attack::fellegi_sunter::WaterfallStep;
use intruder_runner::linkage::{
    Chart, ModelSummary, em_trace, m_u_rows, match_weight_rows, model_charts, waterfall_chart,
    waterfall_rows,
};
use serde_json::json;

/// Two comparisons: `age` (exact: m = 0.9, u = 0.1; else: m = 0.1, u = 0.9) and `zip`
/// (exact: m = 0.8, u = 0.01; else m = 0.2, u = 0.99), prior λ = 1/9 (weight log2(1/8) = −3).
fn model() -> ModelSummary {
    let v = json!({
        "prior_weight": -3.0,
        "lambda": 0.1111,
        "comparisons": [
            {"column": "age", "released": "age", "levels": [
                {"level": "null", "m": null, "u": null, "weight": 0.0, "pairs": 0},
                {"level": "exact", "m": 0.9, "u": 0.1, "weight": 9f64.log2(), "pairs": 10},
                {"level": "else", "m": 0.1, "u": 0.9, "weight": (1.0f64 / 9.0).log2(), "pairs": 80}
            ]},
            {"column": "zip", "released": "zip", "levels": [
                {"level": "exact", "m": 0.8, "u": 0.01, "weight": 80f64.log2()},
                {"level": "else", "m": 0.2, "u": 0.99, "weight": null}
            ]}
        ],
        "em": {"iterations": 3, "converged": true, "change_history": [0.5, 0.01, 1e-7]}
    });
    ModelSummary::from_json(&v).unwrap()
}

fn waterfall() -> Waterfall {
    let step = |c: &str, l: &str, w: f64, cum: f64| WaterfallStep {
        comparison: c.into(),
        intruder_value: Some("x".into()),
        released_value: Some("x".into()),
        level: l.into(),
        weight: w,
        tf_adjustment: 0.0,
        cumulative: cum,
    };
    let w1 = 9f64.log2();
    let w2 = 80f64.log2();
    let total = -3.0 + w1 + w2;
    Waterfall {
        intruder_row: 0,
        released_row: 4,
        candidate: true,
        prior_weight: -3.0,
        steps: vec![
            step("age", "exact", w1, -3.0 + w1),
            step("zip", "exact", w2, total),
        ],
        match_weight: total,
        match_probability: 2f64.powf(total) / (1.0 + 2f64.powf(total)),
    }
}

/// Tags balance, attributes are quoted, one root `<svg>`: enough for a writer of our own.
fn well_formed(svg: &str) {
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').expect("unclosed tag") + i;
        let tag = &rest[i + 1..j];
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in <{tag}>"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_string());
        }
        // Text between tags holds no raw '&' other than entities.
        let text = &rest[j + 1..rest[j + 1..].find('<').map_or(rest.len(), |k| k + j + 1)];
        for (k, _) in text.match_indices('&') {
            assert!(
                ["&#38;", "&#60;", "&#62;", "&#34;", "&#39;"]
                    .iter()
                    .any(|e| text[k..].starts_with(e)),
                "raw & in {text}"
            );
        }
        rest = &rest[j + 1..];
        if stack.is_empty() {
            assert_eq!(rest.trim(), "", "content after the root element");
        }
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
}

fn laid_out(c: &Chart) {
    assert!(
        c.text_overlaps().is_empty(),
        "{}: {:?}",
        c.file,
        c.text_overlaps()
    );
    for t in &c.texts {
        assert!(
            t.rect.x >= 0.0 && t.rect.x + t.rect.w <= c.width && t.rect.y >= 0.0,
            "{}: '{}' outside the canvas",
            c.file,
            t.text
        );
        // Row labels and values stay off the bars.
        for b in &c.bars {
            assert!(
                !t.rect.overlaps(&b.rect),
                "{}: '{}' on a bar",
                c.file,
                t.text
            );
        }
    }
    well_formed(&c.svg());
}

#[test]
fn match_weights_are_log2_m_over_u_with_the_prior_first() {
    let m = model();
    let rows = match_weight_rows(&m.comparisons, m.prior_weight);
    let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "prior (λ)",
            "log2(λ/(1−λ))",
            "age",
            "null",
            "exact",
            "else",
            "zip",
            "exact",
            "else"
        ]
    );
    assert_eq!(rows[1].bars, vec![(0.0, -3.0)]);
    assert_eq!(rows[4].bars, vec![(0.0, 9f64.log2())]);
    assert_eq!(rows[4].value, "+3.170"); // log2(9) = 3.169925…
    assert_eq!(rows[5].value, "-3.170");
    assert_eq!(rows[7].value, "+6.322"); // log2(80) = 6.321928…
    assert_eq!(rows[8].value, "±∞"); // a weight JSON could not hold
    assert!(rows[8].bars[0].1.is_nan());
    assert!(rows[2].header && rows[2].bars.is_empty());
}

#[test]
fn m_u_rows_pair_m_and_u_and_skip_the_null_level() {
    let rows = m_u_rows(&model().comparisons);
    let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["age", "exact", "else", "zip", "exact", "else"]);
    assert_eq!(rows[1].bars, vec![(0.0, 0.9), (0.0, 0.1)]);
    assert_eq!(rows[4].bars, vec![(0.0, 0.8), (0.0, 0.01)]);
    assert_eq!(rows[1].value, "m 0.9000 · u 0.1000");
}

#[test]
fn waterfall_steps_run_from_the_prior_to_the_match_weight() {
    let w = waterfall();
    let rows = waterfall_rows(&w);
    let w1 = 9f64.log2();
    let total = -3.0 + w1 + 80f64.log2();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0].bars, vec![(0.0, -3.0)]);
    assert_eq!(rows[1].bars, vec![(-3.0, -3.0 + w1)]);
    assert_eq!(rows[1].label, "age: exact");
    assert_eq!(rows[1].value, "+3.170 → +0.170");
    assert_eq!(rows[2].bars, vec![(-3.0 + w1, total)]);
    assert_eq!(rows[3].bars, vec![(0.0, total)]);
    // 2^6.491853 / (1 + 2^6.491853) = 90/91 = 0.98901…
    assert_eq!(rows[3].value, "+6.492 (p = 0.9890)");
    assert!((w.match_probability - 90.0 / 91.0).abs() < 1e-12);
}

#[test]
fn em_trace_is_the_change_per_iteration() {
    assert_eq!(em_trace(&model().em), vec![(1, 0.5), (2, 0.01), (3, 1e-7)]);
    // A model written before the trace existed still reads, with an empty trace.
    let old = ModelSummary::from_json(&json!({"prior_weight": 0.0, "comparisons": []})).unwrap();
    assert!(em_trace(&old.em).is_empty());
}

#[test]
fn charts_are_well_formed_and_keep_text_apart() {
    let m = model();
    let charts = model_charts(&m, Some(1e-4));
    let files: Vec<&str> = charts.iter().map(|c| c.file.as_str()).collect();
    assert_eq!(files, ["match_weights.svg", "m_u.svg", "em.svg"]);
    for c in &charts {
        laid_out(c);
    }
    // EM's iterations are labelled 1, 2, 3 (integers only).
    let em = &charts[2];
    for i in ["1", "2", "3"] {
        assert!(em.texts.iter().any(|t| t.text == i), "no tick {i}");
    }
    assert!(em.texts.iter().any(|t| t.text == "tolerance 1e-4"));
    let w = waterfall_chart(&waterfall());
    assert_eq!(w.file, "waterfall.svg");
    laid_out(&w);
    // The bars of the match weights chart: zero at the same pixel; log2(9) to the right,
    // log2(1/9) as far to the left.
    let c = &charts[0];
    let exact = c.bars.iter().find(|b| b.hover == "exact: +3.170").unwrap();
    let other = c.bars.iter().find(|b| b.hover == "else: -3.170").unwrap();
    assert!((exact.rect.x - (other.rect.x + other.rect.w)).abs() < 1e-9);
    assert!((exact.rect.w - other.rect.w).abs() < 1e-9);
    assert!(c.svg().contains("<title>exact: +3.170</title>"));
}

#[test]
fn an_empty_model_still_draws() {
    let m = ModelSummary::from_json(&json!({"prior_weight": -1.0, "comparisons": []})).unwrap();
    for c in model_charts(&m, None) {
        laid_out(&c);
    }
}

/// Splink's unlinkables: three records with self-match weights 2, 5 and 5 (counts 1 and 2);
/// below a threshold of 3, one record in three cannot be linked even to itself.
#[test]
fn unlinkables_are_the_share_below_each_threshold() {
    use intruder_runner::linkage::{unlinkable_steps, unlinkables_chart};
    let w = [(2.0, 1), (5.0, 2)];
    let third = 1.0 / 3.0;
    assert_eq!(
        unlinkable_steps(&w),
        vec![(2.0, 0.0), (2.0, third), (5.0, third), (5.0, 1.0)]
    );
    let c = unlinkables_chart(&w, Some(3.0));
    laid_out(&c);
    assert!(
        c.texts
            .iter()
            .any(|t| t.text == "threshold +3.00: 33.33% unlinkable")
    );
    assert_eq!(c.series.len(), 1);
}

/// Threshold selection: precision, recall and F1 at each threshold, the best F1 in the title;
/// a stored curve keeps its ends when thinned.
#[test]
fn threshold_chart_shows_precision_recall_and_f1() {
    use intruder_runner::linkage::{ThresholdPoint, thin_curve, threshold_chart};
    let pts = [
        ThresholdPoint {
            weight: 10.0,
            precision: 1.0,
            recall: 0.5,
        },
        ThresholdPoint {
            weight: 0.0,
            precision: 0.9,
            recall: 0.9,
        },
        ThresholdPoint {
            weight: -5.0,
            precision: 0.5,
            recall: 1.0,
        },
    ];
    let c = threshold_chart(&pts, Some(0.0));
    laid_out(&c);
    // F1 at weight 0: 2 · 0.9 · 0.9 / 1.8 = 0.9, the best of 2/3, 0.9, 2/3.
    assert!(
        c.texts[0].text.contains("best F1 0.9000 at weight +0.00"),
        "{}",
        c.texts[0].text
    );
    assert_eq!(c.series.len(), 3);
    let many: Vec<ThresholdPoint> = (0..1000)
        .map(|k| ThresholdPoint {
            weight: k as f64,
            precision: 1.0,
            recall: k as f64 / 999.0,
        })
        .collect();
    let thin = thin_curve(&many, 400);
    assert_eq!(thin.len(), 400);
    assert_eq!((thin[0].weight, thin[399].weight), (0.0, 999.0));
}
