//! Linkage charts of a fitted Fellegi–Sunter model, as Splink users know them: the match
//! weight of every comparison level (Splink's `match_weights_chart`), m and u per level
//! (`m_u_parameters_chart`), the waterfall of one pair (`waterfall_chart`), EM's convergence
//! (the largest parameter change per iteration), the records that cannot be linked even to an
//! exact copy of themselves (`unlinkables_chart`) and, when the truth is known, precision,
//! recall and F1 against the threshold (Splink's `accuracy_analysis_from_labels_column`, for
//! choosing the threshold).
//!
//! Two steps, as for the experiment's figures: the chart data ([`match_weight_rows`],
//! [`m_u_rows`], [`waterfall_rows`], [`em_trace`]) are plain numbers read off the model, tested
//! exactly; the layout ([`Chart`]) places every bar and every text box before any SVG is
//! written, so tests check that no text overlaps another on the rectangles that are drawn.
//! Here and not in the attack crate so the CLI (`intruder attack --charts`) and the runner's
//! report share one drawing code with the other figures (the CLI depends on the runner).

use crate::markup::escape as esc;
use intruder_attack::Waterfall;
use serde::Deserialize;

use crate::plot::{PALETTE, Rect, text_width};

/// What the charts read of a fitted model: the fields of its JSON (`intruder attack
/// --model-out`, `LinkModel::to_json`) they need, so the CLI and the runner, which hold only
/// that JSON, draw the same charts. Unknown fields are ignored; a weight that JSON could not
/// hold (±∞, written as null) is `None`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ModelSummary {
    /// `log2(λ/(1−λ))`.
    pub prior_weight: f64,
    /// Per comparison.
    pub comparisons: Vec<ComparisonSummary>,
    /// EM's outcome.
    #[serde(default)]
    pub em: EmSummary,
    /// The threshold as a match weight (absent in older models).
    #[serde(default)]
    pub threshold_weight: Option<f64>,
    /// Match weight of each intruder record against an exact copy of itself, with counts.
    #[serde(default)]
    pub self_match_weights: Vec<(f64, u64)>,
    /// The waterfall of the declared link closest to the threshold.
    #[serde(default)]
    pub borderline: Option<Waterfall>,
    /// Precision and recall against the threshold, when the truth was known (added by the
    /// runner or the CLI after evaluation).
    #[serde(default)]
    pub threshold_curve: Vec<ThresholdPoint>,
}

/// One comparison of a [`ModelSummary`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ComparisonSummary {
    /// The intruder column.
    pub column: String,
    /// Its levels.
    pub levels: Vec<LevelSummary>,
}

/// One level of a [`ComparisonSummary`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LevelSummary {
    /// The level's condition.
    pub level: String,
    /// P(level | match).
    pub m: Option<f64>,
    /// P(level | non-match).
    pub u: Option<f64>,
    /// `log2(m/u)`.
    pub weight: Option<f64>,
}

/// Self-match weights and the threshold in a [`ModelSummary`] (absent in older models).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct Unlinkables {
    /// (match weight of a record against an exact copy of itself, records at that weight).
    pub weights: Vec<(f64, u64)>,
}

/// One point of the threshold-selection curve: links declared at match weight ≥ `weight`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, serde::Serialize)]
pub struct ThresholdPoint {
    /// The threshold, as a match weight.
    pub weight: f64,
    /// Correct declared links / declared links.
    pub precision: f64,
    /// Correct declared links / twins.
    pub recall: f64,
}

/// EM's trace in a [`ModelSummary`].
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct EmSummary {
    /// Largest parameter change per iteration (absent in models written before it existed).
    #[serde(default)]
    pub change_history: Vec<Option<f64>>,
}

impl ModelSummary {
    /// Reads the summary from a model's JSON.
    pub fn from_json(v: &serde_json::Value) -> Result<Self, serde_json::Error> {
        Self::deserialize(v)
    }
}

const FONT: f64 = 12.0;
const ROW: f64 = 22.0;
const TOP: f64 = 58.0;
const PAD: f64 = 12.0;
const PLOT_W: f64 = 420.0;

/// One row of a horizontal bar chart: a label and up to two bars (start, end) in data units.
#[derive(Debug, Clone, PartialEq)]
pub struct BarRow {
    /// Row label (a comparison's name for a group header, a level's condition otherwise).
    pub label: String,
    /// Whether the row is a group header (bold, no bar).
    pub header: bool,
    /// Bars as (from, to) in data units: one, or two (m then u).
    pub bars: Vec<(f64, f64)>,
    /// Value text printed to the right of the plot.
    pub value: String,
}

/// The match weight `log2(m/u)` of every level of every comparison, one group per comparison,
/// after the prior `log2(λ/(1−λ))` (Splink's match weights chart). Levels without m and u
/// (the null level) are shown at weight 0.
pub fn match_weight_rows(comparisons: &[ComparisonSummary], prior_weight: f64) -> Vec<BarRow> {
    let mut rows = vec![
        BarRow {
            label: "prior (λ)".into(),
            header: true,
            bars: vec![],
            value: String::new(),
        },
        BarRow {
            label: "log2(λ/(1−λ))".into(),
            header: false,
            bars: vec![(0.0, prior_weight)],
            value: format!("{prior_weight:+.3}"),
        },
    ];
    for c in comparisons {
        rows.push(header(&c.column));
        for l in &c.levels {
            rows.push(BarRow {
                label: l.level.clone(),
                header: false,
                bars: vec![(0.0, l.weight.unwrap_or(f64::NAN))],
                value: l.weight.map_or("±∞".into(), |w| format!("{w:+.3}")),
            });
        }
    }
    rows
}

/// m = P(level | match) and u = P(level | non-match) of every level with both, one group per
/// comparison (Splink's m/u parameters chart): two bars per level, m above u.
pub fn m_u_rows(comparisons: &[ComparisonSummary]) -> Vec<BarRow> {
    let mut rows = Vec::new();
    for c in comparisons {
        rows.push(header(&c.column));
        for l in &c.levels {
            if let (Some(m), Some(u)) = (l.m, l.u) {
                rows.push(BarRow {
                    label: l.level.clone(),
                    header: false,
                    bars: vec![(0.0, m), (0.0, u)],
                    value: format!("m {} · u {}", short(m), short(u)),
                });
            }
        }
    }
    rows
}

/// The waterfall of one pair: the prior, then each comparison's weight from the running total
/// before it to the running total after it, then the final match weight (from 0).
pub fn waterfall_rows(w: &Waterfall) -> Vec<BarRow> {
    let mut rows = vec![BarRow {
        label: "prior".into(),
        header: false,
        bars: vec![(0.0, w.prior_weight)],
        value: format!("{:+.3}", w.prior_weight),
    }];
    let mut at = w.prior_weight;
    for s in &w.steps {
        rows.push(BarRow {
            label: format!("{}: {}", s.comparison, s.level),
            header: false,
            bars: vec![(at, s.cumulative)],
            value: format!("{:+.3} → {:+.3}", s.cumulative - at, s.cumulative),
        });
        at = s.cumulative;
    }
    rows.push(BarRow {
        label: "match weight".into(),
        header: true,
        bars: vec![(0.0, w.match_weight)],
        value: format!(
            "{:+.3} (p = {})",
            w.match_weight,
            short(w.match_probability)
        ),
    });
    rows
}

/// EM's convergence trace: (iteration, largest change of m, u or λ in that iteration).
pub fn em_trace(em: &EmSummary) -> Vec<(usize, f64)> {
    em.change_history
        .iter()
        .enumerate()
        .map(|(i, c)| (i + 1, c.unwrap_or(f64::NAN)))
        .collect()
}

fn header(name: &str) -> BarRow {
    BarRow {
        label: name.into(),
        header: true,
        bars: vec![],
        value: String::new(),
    }
}

fn short(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-3 {
        format!("{x:.2e}")
    } else {
        format!("{x:.4}")
    }
}

/// A placed text: its string, box and anchor point.
#[derive(Debug, Clone, PartialEq)]
pub struct TextEl {
    /// Text.
    pub text: String,
    /// Its box (estimated as for the report's figures: 0.6 em per character).
    pub rect: Rect,
    /// `start`, `middle` or `end`.
    pub anchor: &'static str,
    /// Bold.
    pub bold: bool,
}

/// A placed bar.
#[derive(Debug, Clone, PartialEq)]
pub struct BarEl {
    /// Its rectangle.
    pub rect: Rect,
    /// Fill colour.
    pub color: &'static str,
    /// Hover text (exact values).
    pub hover: String,
}

/// A laid-out linkage chart: every bar, line and text placed before drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// File name (`*.svg`).
    pub file: String,
    /// Size in pixels.
    pub width: f64,
    /// Height.
    pub height: f64,
    /// The data area.
    pub area: Rect,
    /// Every text (title, axis title, ticks, row labels, values, legend).
    pub texts: Vec<TextEl>,
    /// Bars.
    pub bars: Vec<BarEl>,
    /// Grid and axis lines (x1, y1, x2, y2, dashed).
    pub lines: Vec<(f64, f64, f64, f64, bool)>,
    /// A polyline with its points (the EM trace), pixels.
    pub trace: Vec<(f64, f64)>,
    /// Further polylines without markers (colour, points in pixels).
    pub series: Vec<(&'static str, Vec<(f64, f64)>)>,
}

fn text_el(text: &str, x: f64, baseline: f64, anchor: &'static str, bold: bool) -> TextEl {
    let w = text_width(text);
    let left = match anchor {
        "start" => x,
        "middle" => x - w / 2.0,
        _ => x - w,
    };
    TextEl {
        text: text.into(),
        rect: Rect {
            x: left,
            y: baseline - FONT,
            w,
            h: FONT * 1.25,
        },
        anchor,
        bold,
    }
}

/// Ticks over `[lo, hi]`: a step of 1, 2 or 5 × 10^k giving at most about six ticks.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|f| f * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag);
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi + step * 1e-9 {
        out.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
        v += step;
    }
    out
}

fn tick_label(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// Lays out a horizontal bar chart: row labels on the left, bars in the middle, value texts
/// on the right; x from the data (always including 0) or `fixed`.
pub fn bar_chart(
    file: &str,
    title: &str,
    x_title: &str,
    rows: &[BarRow],
    fixed: Option<(f64, f64)>,
    legend: &[(&'static str, &str)],
) -> Chart {
    let label_w = rows
        .iter()
        .map(|r| text_width(&r.label) + if r.header { 0.0 } else { 12.0 })
        .fold(0.0, f64::max);
    let value_w = rows
        .iter()
        .map(|r| text_width(&r.value))
        .fold(0.0, f64::max);
    let (lo, hi) = fixed.unwrap_or_else(|| {
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for r in rows {
            for &(a, b) in &r.bars {
                if a.is_finite() && b.is_finite() {
                    lo = lo.min(a.min(b));
                    hi = hi.max(a.max(b));
                }
            }
        }
        if hi - lo < 1e-9 {
            hi = lo + 1.0;
        }
        let t = ticks(lo, hi);
        let step = if t.len() > 1 { t[1] - t[0] } else { 1.0 };
        ((lo / step).floor() * step, (hi / step).ceil() * step)
    });
    let area = Rect {
        x: PAD + label_w + PAD,
        y: TOP,
        w: PLOT_W,
        h: rows.len().max(1) as f64 * ROW,
    };
    let px = |v: f64| area.x + (v.clamp(lo, hi) - lo) / (hi - lo) * area.w;
    let legend_w: f64 = legend
        .iter()
        .map(|(_, t)| 18.0 + text_width(t) + 16.0)
        .sum();
    let width = (area.x + area.w + PAD + value_w + PAD)
        .max(PAD + text_width(title) + PAD)
        .max(area.x + legend_w + PAD)
        .ceil();
    let mut texts = vec![text_el(title, PAD, 22.0, "start", true)];
    let mut bars = Vec::new();
    let mut lines = Vec::new();
    // Legend, between the title and the data area.
    let mut lx = area.x;
    for (color, name) in legend {
        bars.push(BarEl {
            rect: Rect {
                x: lx,
                y: 34.0,
                w: 12.0,
                h: 12.0,
            },
            color,
            hover: (*name).into(),
        });
        let t = text_el(name, lx + 18.0, 45.0, "start", false);
        lx = t.rect.x + t.rect.w + 16.0;
        texts.push(t);
    }
    for t in ticks(lo, hi) {
        let x = px(t);
        lines.push((x, area.y, x, area.y + area.h, t != 0.0));
        texts.push(text_el(
            &tick_label(t),
            x,
            area.y + area.h + 16.0,
            "middle",
            false,
        ));
    }
    texts.push(text_el(
        x_title,
        area.x + area.w / 2.0,
        area.y + area.h + 36.0,
        "middle",
        false,
    ));
    for (i, r) in rows.iter().enumerate() {
        let y = area.y + i as f64 * ROW;
        let indent = if r.header { 0.0 } else { 12.0 };
        texts.push(text_el(&r.label, PAD + indent, y + 15.0, "start", r.header));
        if !r.value.is_empty() {
            texts.push(text_el(
                &r.value,
                area.x + area.w + PAD,
                y + 15.0,
                "start",
                r.header,
            ));
        }
        let n = r.bars.len().max(1) as f64;
        let h = (ROW - 6.0) / n;
        for (k, &(a, b)) in r.bars.iter().enumerate() {
            if !(a.is_finite() && b.is_finite()) {
                continue;
            }
            let (x0, x1) = (px(a.min(b)), px(a.max(b)));
            let color = if r.bars.len() > 1 {
                PALETTE[k]
            } else if b >= a {
                PALETTE[0]
            } else {
                PALETTE[1]
            };
            bars.push(BarEl {
                rect: Rect {
                    x: x0,
                    y: y + 3.0 + k as f64 * h,
                    w: (x1 - x0).max(1.0),
                    h,
                },
                color,
                hover: format!("{}: {}", r.label, r.value),
            });
        }
    }
    Chart {
        file: file.into(),
        width,
        height: (area.y + area.h + 48.0).ceil(),
        area,
        texts,
        bars,
        lines,
        trace: Vec::new(),
        series: Vec::new(),
    }
}

/// Lays out EM's convergence: the largest parameter change per iteration on a log10 axis.
pub fn em_chart(trace: &[(usize, f64)], tolerance: Option<f64>) -> Chart {
    let title = "EM convergence: largest change of m, u or λ per iteration";
    let area = Rect {
        x: 80.0,
        y: TOP,
        w: 480.0,
        h: 260.0,
    };
    let pos: Vec<f64> = trace
        .iter()
        .map(|t| t.1)
        .chain(tolerance)
        .filter(|v| *v > 0.0 && v.is_finite())
        .collect();
    let (ylo, yhi) = if pos.is_empty() {
        (-6.0, 0.0)
    } else {
        let lo = pos
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min)
            .log10()
            .floor();
        let hi = pos.iter().cloned().fold(0.0, f64::max).log10().ceil();
        (lo, if hi > lo { hi } else { lo + 1.0 })
    };
    let n = trace.len().max(1) as f64;
    let px = |i: f64| area.x + if n > 1.0 { (i - 1.0) / (n - 1.0) } else { 0.5 } * area.w;
    let py = |v: f64| {
        let l = if v > 0.0 { v.log10() } else { ylo };
        area.y + area.h - (l.clamp(ylo, yhi) - ylo) / (yhi - ylo) * area.h
    };
    let mut texts = vec![text_el(title, PAD, 22.0, "start", true)];
    let mut lines = Vec::new();
    let every = ((yhi - ylo) / 8.0).ceil().max(1.0) as i32;
    let mut e = ylo as i32;
    while e as f64 <= yhi {
        let y = py(10f64.powi(e));
        lines.push((area.x, y, area.x + area.w, y, true));
        texts.push(text_el(
            &format!("1e{e}"),
            area.x - 6.0,
            y + 4.0,
            "end",
            false,
        ));
        e += every;
    }
    // Integer iterations only: 1, then every `step` (1, 2 or 5 × 10^k) up to n.
    let count = trace.len().max(1);
    let step = [1usize, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
        .into_iter()
        .find(|s| count / s <= 8)
        .unwrap_or(count);
    let its = std::iter::once(1).chain((step..=count).step_by(step).filter(|&i| i > 1));
    for t in its.map(|i| i as f64) {
        {
            let x = px(t);
            lines.push((x, area.y + area.h, x, area.y + area.h + 4.0, false));
            texts.push(text_el(
                &tick_label(t),
                x,
                area.y + area.h + 18.0,
                "middle",
                false,
            ));
        }
    }
    texts.push(text_el(
        "EM iteration",
        area.x + area.w / 2.0,
        area.y + area.h + 38.0,
        "middle",
        false,
    ));
    if let Some(t) = tolerance.filter(|t| *t > 0.0) {
        let y = py(t);
        lines.push((area.x, y, area.x + area.w, y, false));
        texts.push(text_el(
            &format!("tolerance {t:e}"),
            area.x + area.w + 6.0,
            y + 4.0,
            "start",
            false,
        ));
    }
    let trace_px = trace.iter().map(|&(i, v)| (px(i as f64), py(v))).collect();
    Chart {
        file: "em.svg".into(),
        width: (area.x + area.w + 140.0).max(PAD + text_width(title) + PAD),
        height: area.y + area.h + 50.0,
        area,
        texts,
        bars: Vec::new(),
        lines,
        trace: trace_px,
        series: Vec::new(),
    }
}

/// One line of a [`line_chart`]: colour, legend text and points in data units.
pub type Series<'a> = (&'static str, &'a str, Vec<(f64, f64)>);

/// Lays out a line chart: y in [0, 1] (shares), x from the data; a dashed vertical line at
/// `marker` (the threshold), labelled.
pub fn line_chart(
    file: &str,
    title: &str,
    x_title: &str,
    y_title: &str,
    series: &[Series],
    marker: Option<(f64, &str)>,
) -> Chart {
    // Title, legend, then the y axis's title above the plot.
    let area = Rect {
        x: 70.0,
        y: TOP + 26.0,
        w: 480.0,
        h: 260.0,
    };
    let xs = series
        .iter()
        .flat_map(|s| s.2.iter().map(|p| p.0))
        .chain(marker.map(|m| m.0))
        .filter(|x| x.is_finite());
    let (mut lo, mut hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    let t = ticks(lo, hi);
    let step = if t.len() > 1 { t[1] - t[0] } else { 1.0 };
    let (lo, hi) = ((lo / step).floor() * step, (hi / step).ceil() * step);
    let px = |v: f64| area.x + (v.clamp(lo, hi) - lo) / (hi - lo) * area.w;
    let py = |v: f64| area.y + area.h - v.clamp(0.0, 1.0) * area.h;
    let mut texts = vec![text_el(title, PAD, 22.0, "start", true)];
    let mut bars = Vec::new();
    let mut lines = Vec::new();
    let mut lx = area.x;
    for (color, name, _) in series {
        bars.push(BarEl {
            rect: Rect {
                x: lx,
                y: 34.0,
                w: 12.0,
                h: 12.0,
            },
            color,
            hover: (*name).into(),
        });
        let t = text_el(name, lx + 18.0, 45.0, "start", false);
        lx = t.rect.x + t.rect.w + 16.0;
        texts.push(t);
    }
    for v in ticks(lo, hi) {
        let x = px(v);
        lines.push((x, area.y, x, area.y + area.h, v != lo));
        texts.push(text_el(
            &tick_label(v),
            x,
            area.y + area.h + 22.0,
            "middle",
            false,
        ));
    }
    for k in 0..=5 {
        let v = k as f64 / 5.0;
        let y = py(v);
        lines.push((area.x, y, area.x + area.w, y, k != 0));
        texts.push(text_el(&tick_label(v), area.x - 6.0, y + 4.0, "end", false));
    }
    texts.push(text_el(
        x_title,
        area.x + area.w / 2.0,
        area.y + area.h + 42.0,
        "middle",
        false,
    ));
    texts.push(text_el(y_title, PAD, area.y - 14.0, "start", false));
    if let Some((m, label)) = marker {
        // The threshold: a line across the plot, labelled near its foot.
        let x = px(m);
        lines.push((x, area.y, x, area.y + area.h, false));
        texts.push(text_el(
            label,
            x + 4.0,
            area.y + area.h - 8.0,
            "start",
            false,
        ));
    }
    let series_px = series
        .iter()
        .map(|(c, _, pts)| (*c, pts.iter().map(|&(x, y)| (px(x), py(y))).collect()))
        .collect();
    let width = (area.x + area.w + 150.0)
        .max(PAD + text_width(title) + PAD)
        .max(lx + PAD)
        .ceil();
    Chart {
        file: file.into(),
        width,
        height: area.y + area.h + 56.0,
        area,
        texts,
        bars,
        lines,
        trace: Vec::new(),
        series: series_px,
    }
}

/// The share of intruder records whose match weight against an exact copy of themselves is
/// below each weight (Splink's unlinkables chart): a step at every distinct self-match weight.
pub fn unlinkable_steps(weights: &[(f64, u64)]) -> Vec<(f64, f64)> {
    let total: u64 = weights.iter().map(|w| w.1).sum();
    let mut out = Vec::with_capacity(2 * weights.len());
    let mut below = 0u64;
    for &(w, n) in weights {
        let share = below as f64 / total.max(1) as f64;
        out.push((w, share));
        below += n;
        out.push((w, below as f64 / total.max(1) as f64));
    }
    out
}

/// The unlinkables chart: share of records that cannot reach a threshold even against an
/// exact copy of themselves, against the threshold (match weight).
pub fn unlinkables_chart(weights: &[(f64, u64)], threshold_weight: Option<f64>) -> Chart {
    let steps = unlinkable_steps(weights);
    let share_at = threshold_weight.map(|t| {
        let total: u64 = weights.iter().map(|w| w.1).sum();
        let below: u64 = weights.iter().filter(|w| w.0 < t).map(|w| w.1).sum();
        below as f64 / total.max(1) as f64
    });
    let label = match (threshold_weight, share_at) {
        (Some(t), Some(s)) => format!("threshold {t:+.2}: {:.2}% unlinkable", 100.0 * s),
        _ => String::new(),
    };
    line_chart(
        "unlinkables.svg",
        "Unlinkable records: match weight of each record against an exact copy of itself",
        "threshold (match weight)",
        "share of records below the threshold",
        &[(PALETTE[0], "records unlinkable at the threshold", steps)],
        threshold_weight.map(|t| (t, label.as_str())),
    )
}

/// F1 of a precision and a recall.
fn f1(p: f64, r: f64) -> f64 {
    if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
}

/// The threshold-selection chart: precision, recall and F1 of the declared links against the
/// threshold (match weight), from the evaluation against the truth.
pub fn threshold_chart(points: &[ThresholdPoint], threshold_weight: Option<f64>) -> Chart {
    let mut pts: Vec<ThresholdPoint> = points
        .iter()
        .filter(|p| p.weight.is_finite())
        .copied()
        .collect();
    pts.sort_by(|a, b| a.weight.total_cmp(&b.weight));
    let p: Vec<(f64, f64)> = pts.iter().map(|x| (x.weight, x.precision)).collect();
    let r: Vec<(f64, f64)> = pts.iter().map(|x| (x.weight, x.recall)).collect();
    let f: Vec<(f64, f64)> = pts
        .iter()
        .map(|x| (x.weight, f1(x.precision, x.recall)))
        .collect();
    let best = pts
        .iter()
        .max_by(|a, b| f1(a.precision, a.recall).total_cmp(&f1(b.precision, b.recall)));
    let title = match best {
        Some(b) => format!(
            "Threshold selection: precision, recall, F1 (best F1 {:.4} at weight {:+.2})",
            f1(b.precision, b.recall),
            b.weight
        ),
        None => "Threshold selection: precision, recall, F1".into(),
    };
    let label = threshold_weight.map(|t| format!("threshold {t:+.2}"));
    line_chart(
        "threshold.svg",
        &title,
        "threshold (match weight; links declared at or above it)",
        "share",
        &[
            (PALETTE[0], "precision", p),
            (PALETTE[1], "recall", r),
            (PALETTE[2], "F1", f),
        ],
        threshold_weight.zip(label.as_deref()),
    )
}

/// At most `n` points of a threshold curve, evenly spread over its points, the first and last
/// kept (for storing the curve with a model).
pub fn thin_curve(points: &[ThresholdPoint], n: usize) -> Vec<ThresholdPoint> {
    if points.len() <= n || n < 2 {
        return points.to_vec();
    }
    (0..n)
        .map(|k| points[k * (points.len() - 1) / (n - 1)])
        .collect()
}

/// Adds the threshold-selection curve of an evaluation (at most 400 points) to a fitted
/// model's JSON, so that the report and `--charts` draw precision, recall and F1 against the
/// threshold. A model without an object, or an evaluation without a curve, is left as it is.
pub fn attach_threshold_curve(model: &mut serde_json::Value, curve: &[intruder_eval::PrPoint]) {
    let points: Vec<ThresholdPoint> = curve
        .iter()
        .map(|p| ThresholdPoint {
            weight: p.threshold,
            precision: p.precision,
            recall: p.recall,
        })
        .collect();
    if let (Some(o), false) = (model.as_object_mut(), points.is_empty()) {
        o.insert(
            "threshold_curve".into(),
            serde_json::to_value(thin_curve(&points, 400)).unwrap_or_default(),
        );
    }
}

/// The charts of a fitted model: match weights, m/u and EM, then — when the model holds their
/// data — the unlinkables, the threshold selection (truth known) and the waterfall of the
/// borderline link, in that order.
pub fn model_charts(model: &ModelSummary, tolerance: Option<f64>) -> Vec<Chart> {
    let mut out = vec![
        bar_chart(
            "match_weights.svg",
            "Match weight log2(m/u) of each comparison level",
            "match weight (bits; > 0 favours a match)",
            &match_weight_rows(&model.comparisons, model.prior_weight),
            None,
            &[(PALETTE[0], "for a match"), (PALETTE[1], "against")],
        ),
        bar_chart(
            "m_u.svg",
            "m = P(level | match) and u = P(level | non-match)",
            "probability",
            &m_u_rows(&model.comparisons),
            Some((0.0, 1.0)),
            &[(PALETTE[0], "m"), (PALETTE[1], "u")],
        ),
        em_chart(&em_trace(&model.em), tolerance),
    ];
    if !model.self_match_weights.is_empty() {
        out.push(unlinkables_chart(
            &model.self_match_weights,
            model.threshold_weight,
        ));
    }
    if !model.threshold_curve.is_empty() {
        out.push(threshold_chart(
            &model.threshold_curve,
            model.threshold_weight,
        ));
    }
    if let Some(w) = &model.borderline {
        let mut c = waterfall_chart(w);
        c.file = "borderline_waterfall.svg".into();
        out.push(c);
    }
    out
}

/// What each model chart shows, for a caption.
pub fn chart_caption(file: &str) -> &'static str {
    match file {
        "match_weights.svg" => {
            "the match weight log2(m/u) of every comparison level, after the prior log2(λ/(1−λ)) (Splink's match weights chart)"
        }
        "m_u.svg" => {
            "m = P(level | match) and u = P(level | non-match) of every level (Splink's m/u parameters chart)"
        }
        "em.svg" => {
            "EM's convergence: the largest change of any m, u or λ per iteration, log scale"
        }
        "unlinkables.svg" => {
            "the share of intruder records whose match weight against an exact copy of themselves stays below each threshold: they cannot be linked at it (Splink's unlinkables chart)"
        }
        "threshold.svg" => {
            "precision, recall and F1 of the declared links against the threshold, from the truth (Splink's accuracy analysis from labels): where to set the threshold"
        }
        "borderline_waterfall.svg" => {
            "the weight of each comparison for the declared link closest to the threshold (Splink's waterfall chart)"
        }
        _ => {
            "the waterfall of one pair: the weight of each comparison, running total (Splink's waterfall chart)"
        }
    }
}

/// The waterfall chart of one pair.
pub fn waterfall_chart(w: &Waterfall) -> Chart {
    bar_chart(
        "waterfall.svg",
        &format!(
            "Waterfall: intruder row {} / released row {} — match probability {}",
            w.intruder_row + 1,
            w.released_row + 1,
            short(w.match_probability)
        ),
        "match weight (bits), running total",
        &waterfall_rows(w),
        None,
        &[(PALETTE[0], "raises"), (PALETTE[1], "lowers")],
    )
}

/// The linkage charts of the report: for every attack that stored a fitted model, the charts
/// of the first replicate of the unmasked setting (or of the first setting when every setting
/// masks), as (file, caption, SVG). One model per attack, not per setting: the charts explain
/// how the attack scores pairs; the tables compare the settings.
pub fn report_charts(
    plan: &crate::plan::Plan,
    runs: &[crate::record::RunRecord],
) -> Vec<(String, String, String)> {
    let setting = crate::plot::unmasked(plan).unwrap_or(0);
    let Some((run, rec)) = plan
        .runs
        .iter()
        .zip(runs)
        .filter(|(r, _)| r.setting == setting)
        .min_by_key(|(r, _)| r.replicate)
    else {
        return Vec::new();
    };
    let label = &plan.settings[run.setting].label;
    let mut out = Vec::new();
    for a in &rec.attacks {
        let Some(summary) = a
            .model
            .as_ref()
            .and_then(|m| ModelSummary::from_json(m).ok())
        else {
            continue;
        };
        for c in model_charts(&summary, None) {
            out.push((
                format!("linkage-{}-{}", a.name, c.file),
                format!(
                    "Attack {}, setting {label}, replicate {}: {}",
                    a.name,
                    run.replicate,
                    chart_caption(&c.file)
                ),
                c.svg(),
            ));
        }
    }
    out
}

impl Chart {
    /// Pairs of texts whose boxes overlap (empty for a good layout).
    pub fn text_overlaps(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (i, a) in self.texts.iter().enumerate() {
            for b in &self.texts[i + 1..] {
                if a.rect.overlaps(&b.rect) {
                    out.push((a.text.clone(), b.text.clone()));
                }
            }
        }
        out
    }

    /// The chart as an SVG document.
    pub fn svg(&self) -> String {
        let mut s = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="{FONT}" role="img"><title>{t}</title><rect width="{w:.0}" height="{h:.0}" fill="white"/>"#,
            w = self.width,
            h = self.height,
            t = esc(self.texts.first().map(|t| t.text.as_str()).unwrap_or(""))
        );
        for &(x1, y1, x2, y2, dashed) in &self.lines {
            s.push_str(&format!(
                r##"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{}"{}/>"##,
                if dashed { "#ddd" } else { "#555" },
                if dashed {
                    r#" stroke-dasharray="3 3""#
                } else {
                    ""
                }
            ));
        }
        for b in &self.bars {
            s.push_str(&format!(
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}</title></rect>"#,
                b.rect.x,
                b.rect.y,
                b.rect.w,
                b.rect.h,
                b.color,
                esc(&b.hover)
            ));
        }
        for (color, pts) in &self.series {
            let pts: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            s.push_str(&format!(
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#,
                pts.join(" ")
            ));
        }
        if !self.trace.is_empty() {
            let pts: Vec<String> = self
                .trace
                .iter()
                .map(|(x, y)| format!("{x:.1},{y:.1}"))
                .collect();
            s.push_str(&format!(
                r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
                pts.join(" "),
                PALETTE[0]
            ));
            for (x, y) in &self.trace {
                s.push_str(&format!(
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{}"/>"#,
                    PALETTE[0]
                ));
            }
        }
        for t in &self.texts {
            let x = match t.anchor {
                "start" => t.rect.x,
                "middle" => t.rect.x + t.rect.w / 2.0,
                _ => t.rect.x + t.rect.w,
            };
            s.push_str(&format!(
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="{}"{}>{}</text>"#,
                t.rect.y + FONT,
                t.anchor,
                if t.bold { r#" font-weight="bold""# } else { "" },
                esc(&t.text)
            ));
        }
        s.push_str("</svg>\n");
        s
    }
}
