//! SVG figures, laid out here and drawn by hand (no plotting library): every element is placed
//! first into a [`Figure`] — the data area, ticks, points with their interval bars, labels,
//! the legend, reference lines — and only then written as SVG, so tests can check the layout
//! (no legend or label box overlaps another label or a data point; integer grids get integer
//! ticks) on the very rectangles that are drawn.
//!
//! Figures of an experiment ([`plots`]):
//! - the headline: correct re-identifications per target (every record the intruder holds),
//!   one row per setting, one marker per attack (a Cleveland dot plot);
//! - per attack, the intruder's three questions side by side: correct re-identifications per
//!   target, per twin, and the precision of its declared links;
//! - risk against each numeric grid parameter of a defence (as Mitra et al.'s Figs. 4–6);
//! - the risk–utility map (Duncan et al.'s R-U confidentiality map: one point per setting,
//!   labels placed greedily without overlap, with leader lines when moved away, the Pareto
//!   frontier of settings no other beats on both risk and loss).
//!
//! Conventions: 95% intervals as bars with caps; a dashed line marks the unmasked setting's
//! value; the Okabe–Ito colour-blind-safe palette with a distinct marker per series; legends
//! outside the data area; axis titles and legends from the glossary's human names; share
//! axes within [0, 1] and printed as percentages; each point carries a `<title>` with its exact
//! values (hover text in a browser). Text widths are estimated (0.6 em per character, wider
//! than most sans-serif glyphs), so the boxes tested are at least as large as the text drawn.
//!
//! Why no plotting library (issue 33 asked for one; looked at on 2026-12-03): `plotters` 0.3.7
//! draws through `plotters-backend`'s `DrawingBackend`, whose coordinates are whole pixels
//! (`BackendCoord = (i32, i32)`) and whose SVG backend (`plotters-svg`) writes eight elements
//! (`svg`, `circle`, `line`, `polyline`, `rect`, `text`, `image`, `polygon`) — no `<title>`
//! (the hover values every point carries here), no `<g>`, no `stroke-dasharray` (its dashed
//! series are separate segments); without a font feature it measures text as 0.45 em per
//! *byte* (`size / 1.24² × 0.7`), narrower than ASCII glyphs and three times too wide for `≤`,
//! `ℓ` or `—`, so the layout tests above could not hold. Vega-Lite needs a
//! JavaScript engine to render static SVG (`vl-convert` embeds Deno/V8, whose prebuilt library
//! is downloaded at build time: not buildable offline here, and far heavier than this module).
//! The escape is the report's (askama's, through [`crate::markup::escape`]), so figures and
//! report escape alike.

use crate::markup::escape as esc;
use intruder_data::report::Unit;

use crate::RunnerError;
use crate::aggregate::{HEADLINE, SettingResult};
use crate::glossary::{figure_name, human_name};
use crate::plan::Plan;
use crate::spec::Experiment;
use crate::stats::{IntervalKind, Stat, fmt_unit};

/// Okabe & Ito's colour-blind-safe palette (blue, vermillion, bluish green, reddish purple,
/// orange, sky blue, black, yellow: yellow last, it is faint on white).
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

/// Marker shapes, one per series together with its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// ●
    Circle,
    /// ■
    Square,
    /// ▲
    TriangleUp,
    /// ◆
    Diamond,
    /// ▼
    TriangleDown,
    /// ⬟ drawn as a hollow circle
    Ring,
}

const MARKERS: [Marker; 6] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Ring,
];

/// The colour and marker of series `i`.
pub fn style(i: usize) -> Style {
    Style {
        color: PALETTE[i % PALETTE.len()],
        marker: MARKERS[i % MARKERS.len()],
    }
}

/// A series' look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Colour (hex).
    pub color: &'static str,
    /// Marker.
    pub marker: Marker,
}

/// An axis-aligned rectangle in pixels (y grows downwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// Whether the two rectangles share any interior point.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }

    /// Whether `self` lies within `o`.
    pub fn inside(&self, o: &Rect) -> bool {
        self.x >= o.x
            && self.y >= o.y
            && self.x + self.w <= o.x + o.w
            && self.y + self.h <= o.y + o.h
    }

    /// The distance from the point (`px`, `py`) to the rectangle (0 inside it).
    fn distance(&self, px: f64, py: f64) -> f64 {
        let dx = (self.x - px).max(0.0).max(px - (self.x + self.w));
        let dy = (self.y - py).max(0.0).max(py - (self.y + self.h));
        dx.hypot(dy)
    }

    fn around(cx: f64, cy: f64, r: f64) -> Rect {
        Rect {
            x: cx - r,
            y: cy - r,
            w: 2.0 * r,
            h: 2.0 * r,
        }
    }
}

const FONT: f64 = 12.0;
const CHAR_W: f64 = 0.6 * FONT;
const MARKER_R: f64 = 4.5;
const CAP: f64 = 4.0;
const W: f64 = 1000.0;

/// The estimated width of `text` at the report's font size.
pub fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_W
}

/// One tick of an axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    /// Its value.
    pub value: f64,
    /// Its label.
    pub label: String,
    /// Its position in pixels along the axis.
    pub px: f64,
}

/// An axis: title, range and ticks.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Title (a glossary name).
    pub title: String,
    /// Lower end of the range.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Ticks.
    pub ticks: Vec<Tick>,
    /// Logarithmic (base 10): values at or below `lo` are drawn at `lo`.
    pub log: bool,
}

impl Axis {
    /// Where `v` falls along the axis, from 0 (`lo`) to 1 (`hi`).
    pub fn frac(&self, v: f64) -> f64 {
        if self.log {
            let v = v.max(self.lo);
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }
}

/// A drawn point (pixels) with its interval bar and hover text.
#[derive(Debug, Clone, PartialEq)]
pub struct PointEl {
    /// Centre, x.
    pub x: f64,
    /// Centre, y.
    pub y: f64,
    /// Series index (style).
    pub series: usize,
    /// Vertical interval bar (pixel y from, to).
    pub ybar: Option<(f64, f64)>,
    /// Horizontal interval bar (pixel x from, to).
    pub xbar: Option<(f64, f64)>,
    /// Hover text: exact values.
    pub hover: String,
}

impl PointEl {
    /// The marker's box.
    pub fn rect(&self) -> Rect {
        Rect::around(self.x, self.y, MARKER_R + 1.0)
    }
}

/// A series: its name, style and points, joined by a line or not.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesEl {
    /// Legend text.
    pub name: String,
    /// Style.
    pub style: Style,
    /// Joined by a line.
    pub line: bool,
    /// Points.
    pub points: Vec<PointEl>,
}

/// A dashed reference line (the unmasked setting's value), horizontal or vertical.
#[derive(Debug, Clone, PartialEq)]
pub struct RefLine {
    /// Horizontal (at pixel y = `at`) or vertical (pixel x = `at`).
    pub horizontal: bool,
    /// Position in pixels.
    pub at: f64,
    /// Colour.
    pub color: &'static str,
    /// Hover text.
    pub hover: String,
    /// Dash pattern (SVG `stroke-dasharray`): one per series, so lines that fall together stay
    /// apart.
    pub dash: &'static str,
    /// A value label drawn beside the line's end (its box), when there is room.
    pub label: Option<(String, Rect)>,
}

/// The dash pattern of series `i`'s reference line.
pub fn dash(i: usize) -> &'static str {
    ["6 4", "2 3", "10 3 2 3", "4 2 1 2"][i % 4]
}

/// A text label of a point, perhaps moved away and joined to it by a leader line.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelEl {
    /// Text.
    pub text: String,
    /// Its box.
    pub rect: Rect,
    /// The point it labels.
    pub anchor: (f64, f64),
    /// Whether a leader line joins box and point.
    pub leader: bool,
}

/// What a legend entry shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swatch {
    /// A series' marker (and line).
    Series(Style, bool),
    /// A dashed reference line.
    Dashed,
    /// A plain grey line (the Pareto frontier).
    Frontier,
    /// An interval bar with caps.
    Interval,
}

/// The legend, outside the data area.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEl {
    /// Its box.
    pub rect: Rect,
    /// Entries.
    pub items: Vec<(Swatch, String)>,
}

/// A laid-out figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// File name (`*.svg`).
    pub file: String,
    /// Caption (plain text).
    pub caption: String,
    /// Title drawn above the data area.
    pub title: String,
    /// Size in pixels.
    pub width: f64,
    /// Height.
    pub height: f64,
    /// The data area.
    pub area: Rect,
    /// x axis.
    pub x: Axis,
    /// y axis (its ticks are the categories of a dot plot).
    pub y: Axis,
    /// Series.
    pub series: Vec<SeriesEl>,
    /// Dashed reference lines.
    pub refs: Vec<RefLine>,
    /// Pareto frontier (pixels), empty when none.
    pub frontier: Vec<(f64, f64)>,
    /// Point labels.
    pub labels: Vec<LabelEl>,
    /// The legend.
    pub legend: Option<LegendEl>,
}

impl Figure {
    /// Every point of every series.
    pub fn points(&self) -> impl Iterator<Item = &PointEl> {
        self.series.iter().flat_map(|s| s.points.iter())
    }
}

/// Nice ticks covering [lo, hi]: steps of 1, 2 or 5 × 10^k, about `target` of them.
fn nice(lo: f64, hi: f64, target: f64) -> (f64, f64, f64) {
    let span = (hi - lo).max(1e-9);
    let raw = span / target;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| span / s <= target + 0.5)
        .unwrap_or(10.0 * mag);
    ((lo / step).floor() * step, (hi / step).ceil() * step, step)
}

fn tick_values(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let n = ((hi - lo) / step).round() as i64;
    (0..=n).map(|i| lo + i as f64 * step).collect()
}

/// A value axis over data in [lo, hi] (finite); a share stays within [0, 1] and reads in %.
fn value_axis(title: String, lo: f64, hi: f64, unit: Unit, from_zero: bool) -> Axis {
    let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    if from_zero {
        lo = lo.min(0.0);
    }
    if unit == Unit::Proportion {
        lo = lo.max(0.0);
        hi = hi.min(1.0);
    }
    if hi - lo < 1e-9 {
        hi = if unit == Unit::Proportion {
            (lo + 0.1).min(1.0)
        } else {
            lo + lo.abs().max(1.0)
        };
        if hi - lo < 1e-9 {
            lo = hi - 0.1;
        }
    }
    let (mut a, mut b, step) = nice(lo, hi, 5.0);
    if unit == Unit::Proportion {
        a = a.max(0.0);
        b = b.min(1.0);
    }
    let ticks = tick_values(a, b, step)
        .into_iter()
        .map(|v| Tick {
            value: v,
            label: match unit {
                Unit::Proportion => {
                    let pct = v * 100.0;
                    if (pct - pct.round()).abs() < 1e-6 {
                        format!("{}%", pct.round() as i64)
                    } else {
                        format!("{pct:.1}%")
                    }
                }
                Unit::Count => format!("{}", v.round() as i64),
                _ => crate::stats::sig3(v),
            },
            px: 0.0,
        })
        .collect();
    Axis {
        title,
        lo: a,
        hi: b,
        ticks,
        log: false,
    }
}

/// Whether the finite positive values span more than two decades (largest / smallest > 100):
/// then a linear axis crushes all but the largest against zero.
pub fn spans_decades(values: impl IntoIterator<Item = f64>) -> bool {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    lo.is_finite() && hi / lo > 100.0
}

/// A logarithmic axis from the decade at or below `lo` (> 0) to the one at or above `hi` (to
/// `hi` itself with `exact_hi`, for room beside the largest point); ticks at powers of ten (and
/// 2 and 5 times them over three decades or fewer). A share stays at most 100%.
fn log_axis(title: String, lo: f64, hi: f64, unit: Unit, exact_hi: bool) -> Axis {
    let mut a = lo.log10().floor() as i32;
    let mut b = hi.log10().ceil() as i32;
    if unit == Unit::Proportion {
        b = b.min(0);
        a = a.min(b - 1);
    }
    if b <= a {
        b = a + 1;
    }
    let mults: &[f64] = if b - a <= 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let mut ticks = Vec::new();
    for e in a..=b {
        for &m in mults {
            let v = m * 10f64.powi(e);
            if v > 10f64.powi(b) * (1.0 + 1e-9) || (exact_hi && v > hi * (1.0 + 1e-9)) {
                break;
            }
            ticks.push(Tick {
                value: v,
                label: short_label(v, unit),
                px: 0.0,
            });
        }
    }
    let top = 10f64.powi(b);
    Axis {
        title: format!("{title} (log scale)"),
        lo: 10f64.powi(a),
        hi: if exact_hi { hi.min(top) } else { top },
        ticks,
        log: true,
    }
}

/// A tick label without trailing zeros: `0.01%`, `20%`, `0.005`, `300`.
fn short_label(v: f64, unit: Unit) -> String {
    let (x, suffix) = if unit == Unit::Proportion {
        (v * 100.0, "%")
    } else {
        (v, "")
    };
    let s = if x >= 1.0 && x.fract().abs() < 1e-9 {
        format!("{}", x.round() as i64)
    } else {
        let d = (-(x.log10().floor()) as i32).max(0) as usize + 1;
        let t = format!("{x:.d$}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    format!("{s}{suffix}")
}

/// The axis of a grid parameter: ticks at the grid values when there are few (≤ 8), integer
/// ticks when every value is an integer.
fn param_axis(title: String, values: &[f64]) -> Axis {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    let integer = v.iter().all(|x| x.fract() == 0.0);
    let (lo, hi) = (
        v.first().copied().unwrap_or(0.0),
        v.last().copied().unwrap_or(1.0),
    );
    let pad = if hi > lo { (hi - lo) * 0.08 } else { 0.5 };
    // The grid value as written (0.7, not 0.700); integers without a decimal point.
    let label = |x: f64| {
        if integer {
            format!("{}", x as i64)
        } else {
            let s = crate::stats::sig3(x);
            if s.contains('.') && !s.contains('e') {
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                s
            }
        }
    };
    let ticks: Vec<f64> = if v.len() <= 8 {
        v.clone()
    } else {
        let (a, b, step) = nice(lo, hi, 6.0);
        let step = if integer { step.max(1.0).round() } else { step };
        tick_values(a, b, step)
            .into_iter()
            .filter(|t| *t >= lo - pad && *t <= hi + pad)
            .collect()
    };
    Axis {
        log: false,
        title,
        lo: lo - pad,
        hi: hi + pad,
        ticks: ticks
            .into_iter()
            .map(|x| Tick {
                value: x,
                label: label(x),
                px: 0.0,
            })
            .collect(),
    }
}

fn sx(area: &Rect, axis: &Axis, v: f64) -> f64 {
    area.x + axis.frac(v) * area.w
}

fn place_x(area: &Rect, axis: &mut Axis) {
    let px: Vec<f64> = axis.ticks.iter().map(|t| sx(area, axis, t.value)).collect();
    for (t, p) in axis.ticks.iter_mut().zip(px) {
        t.px = p;
    }
}

fn place_y(area: &Rect, axis: &mut Axis) {
    let px: Vec<f64> = axis.ticks.iter().map(|t| sy(area, axis, t.value)).collect();
    for (t, p) in axis.ticks.iter_mut().zip(px) {
        t.px = p;
    }
}

fn sy(area: &Rect, axis: &Axis, v: f64) -> f64 {
    area.y + area.h - axis.frac(v) * area.h
}

fn legend_size(items: &[(Swatch, String)]) -> (f64, f64) {
    let w = items.iter().map(|(_, t)| text_width(t)).fold(0.0, f64::max) + 44.0;
    (w, items.len() as f64 * 18.0 + 12.0)
}

/// What the bars of an attack's shares are, by the number of replicates.
pub fn bars_caption(replicates: u32) -> &'static str {
    if replicates > 1 {
        "95% intervals over the replicates (the wider of the between-replicate t-interval and the Wilson interval of the pooled counts)"
    } else {
        "95% Wilson intervals (one replicate)"
    }
}

/// A point's hover text: the setting, the series and the figure with its interval, and how the
/// interval was computed (with the pooled counts of a Wilson interval).
fn hover(setting: &str, series: &str, metric: &str, st: &Stat, unit: Unit) -> String {
    let mut s = format!(
        "{setting} — {series}\n{metric}: {}",
        crate::stats::cell_unit(Some(st), unit)
    );
    match (st.interval, st.pooled) {
        (IntervalKind::Wilson, Some((k, n))) => s.push_str(&format!(
            "\npooled {k}/{n} over {} replicate(s), Wilson interval",
            st.n
        )),
        (IntervalKind::Replicates, Some((k, n))) => s.push_str(&format!(
            "\npooled {k}/{n} over {} replicates ({}), the wider of the Wilson and the between-replicate t-interval",
            st.n,
            st.values
                .iter()
                .map(|v| crate::stats::fmt_unit(*v, Unit::Proportion))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        (IntervalKind::T, _) => s.push_str(&format!(
            "\nmean of {} replicates ({}), t-interval",
            st.n,
            st.values
                .iter()
                .map(|v| format!("{v}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => s.push_str("\none replicate, no interval"),
    }
    s
}

/// One dot-plot series: its name and, per category, the statistic (absent: not drawn).
pub struct DotSeries<'a> {
    /// Legend text.
    pub name: String,
    /// Per category.
    pub stats: Vec<Option<&'a Stat>>,
}

/// A Cleveland dot plot: categories (settings) down the y axis, one marker per series, dodged
/// within the row, with horizontal interval bars, and a dashed vertical line at each series'
/// value in category `reference` (the unmasked setting).
#[allow(clippy::too_many_arguments)]
pub fn dot_plot(
    file: String,
    caption: String,
    title: String,
    x_title: String,
    unit: Unit,
    categories: &[String],
    series: &[DotSeries],
    reference: Option<usize>,
) -> Figure {
    let row_h = 26.0 + 4.0 * series.len().saturating_sub(1) as f64;
    let left = categories.iter().map(|c| text_width(c)).fold(0.0, f64::max) + 22.0;
    let mut items: Vec<(Swatch, String)> = series
        .iter()
        .enumerate()
        .map(|(i, s)| (Swatch::Series(style(i), false), s.name.clone()))
        .collect();
    items.push((Swatch::Interval, "95% interval".into()));
    if reference.is_some() {
        items.push((Swatch::Dashed, "no masking".into()));
    }
    let (lw, lh) = legend_size(&items);
    let top = 44.0;
    let area_h = (categories.len().max(1) as f64 * row_h).max(lh);
    let area = Rect {
        x: left,
        y: top,
        w: (W - left - lw - 36.0).max(200.0),
        h: area_h,
    };
    let width = area.x + area.w + 24.0 + lw + 12.0;
    let height = top + area_h + 58.0;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for s in series {
        for st in s.stats.iter().flatten() {
            for v in [st.mean, st.lo, st.hi] {
                if v.is_finite() {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
        }
    }
    let mut x = value_axis(x_title.clone(), lo, hi, unit, true);
    place_x(&area, &mut x);
    let y = Axis {
        log: false,
        title: String::new(),
        lo: 0.0,
        hi: categories.len() as f64,
        ticks: categories
            .iter()
            .enumerate()
            .map(|(i, c)| Tick {
                value: i as f64,
                label: c.clone(),
                px: area.y + (i as f64 + 0.5) * row_h,
            })
            .collect(),
    };
    let k = series.len().max(1) as f64;
    let dodge = ((row_h - 8.0) / k).min(2.0 * MARKER_R + 3.0);
    let mut out_series = Vec::new();
    let mut refs = Vec::new();
    for (j, s) in series.iter().enumerate() {
        let off = (j as f64 - (k - 1.0) / 2.0) * dodge;
        let mut points = Vec::new();
        for (i, st) in s.stats.iter().enumerate() {
            let Some(st) = st else { continue };
            if !st.mean.is_finite() {
                continue;
            }
            let py = area.y + (i as f64 + 0.5) * row_h + off;
            points.push(PointEl {
                x: sx(&area, &x, st.mean),
                y: py,
                series: j,
                ybar: None,
                xbar: st
                    .has_interval()
                    .then(|| (sx(&area, &x, st.lo), sx(&area, &x, st.hi))),
                hover: hover(&categories[i], &s.name, &x_title, st, unit),
            });
        }
        if let Some(r) = reference
            && let Some(Some(st)) = s.stats.get(r)
            && st.mean.is_finite()
        {
            refs.push(RefLine {
                horizontal: false,
                at: sx(&area, &x, st.mean),
                color: style(j).color,
                hover: format!("no masking — {}: {}", s.name, fmt_unit(st.mean, unit)),
                dash: dash(j),
                label: None,
            });
        }
        out_series.push(SeriesEl {
            name: s.name.clone(),
            style: style(j),
            line: false,
            points,
        });
    }
    let legend = LegendEl {
        rect: Rect {
            x: area.x + area.w + 24.0,
            y: area.y,
            w: lw,
            h: lh,
        },
        items,
    };
    Figure {
        file,
        caption,
        title,
        width,
        height,
        area,
        x,
        y,
        series: out_series,
        refs,
        frontier: Vec::new(),
        labels: Vec::new(),
        legend: Some(legend),
    }
}

/// One line-plot series: its name, and per x value the statistic.
pub struct LineSeries<'a> {
    /// Legend text.
    pub name: String,
    /// (x, statistic, setting label), in any order.
    pub points: Vec<(f64, &'a Stat, String)>,
    /// The unmasked setting's statistic, drawn as a dashed line.
    pub reference: Option<&'a Stat>,
}

/// Risk against a grid parameter: one line per series, vertical interval bars with caps, a
/// dashed line per series at its unmasked value.
pub fn line_plot(
    file: String,
    caption: String,
    title: String,
    x_title: String,
    y_title: String,
    unit: Unit,
    series: &[LineSeries],
) -> Figure {
    let mut items: Vec<(Swatch, String)> = series
        .iter()
        .enumerate()
        .map(|(i, s)| (Swatch::Series(style(i), true), s.name.clone()))
        .collect();
    items.push((Swatch::Interval, "95% interval".into()));
    if series.iter().any(|s| s.reference.is_some()) {
        items.push((Swatch::Dashed, "no masking (same colour)".into()));
    }
    let (lw, lh) = legend_size(&items);
    let left = 74.0;
    let top = 44.0;
    let area = Rect {
        x: left,
        y: top,
        w: (W - left - lw - 36.0).max(240.0),
        h: 320.0_f64.max(lh),
    };
    let width = area.x + area.w + 24.0 + lw + 12.0;
    let height = top + area.h + 58.0;
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let mut x = param_axis(x_title, &xs);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for s in series {
        let refs = s.reference.into_iter();
        for st in s.points.iter().map(|p| p.1).chain(refs) {
            for v in [st.mean, st.lo, st.hi] {
                if v.is_finite() {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
        }
    }
    let mut y = value_axis(y_title.clone(), lo, hi, unit, true);
    place_x(&area, &mut x);
    place_y(&area, &mut y);
    let mut out = Vec::new();
    let mut refs = Vec::new();
    for (j, s) in series.iter().enumerate() {
        let mut pts: Vec<&(f64, &Stat, String)> = s
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.mean.is_finite())
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let points = pts
            .iter()
            .map(|(xv, st, label)| PointEl {
                x: sx(&area, &x, *xv),
                y: sy(&area, &y, st.mean),
                series: j,
                ybar: st
                    .has_interval()
                    .then(|| (sy(&area, &y, st.lo), sy(&area, &y, st.hi))),
                xbar: None,
                hover: hover(label, &s.name, &y_title, st, unit),
            })
            .collect();
        if let Some(st) = s.reference
            && st.mean.is_finite()
        {
            refs.push(RefLine {
                horizontal: true,
                at: sy(&area, &y, st.mean),
                color: style(j).color,
                hover: format!("no masking — {}: {}", s.name, fmt_unit(st.mean, unit)),
                dash: dash(j),
                label: Some((
                    fmt_unit(st.mean, unit),
                    Rect {
                        x: 0.0,
                        y: 0.0,
                        w: 0.0,
                        h: 0.0,
                    },
                )),
            });
        }
        out.push(SeriesEl {
            name: s.name.clone(),
            style: style(j),
            line: true,
            points,
        });
    }
    place_ref_labels(&area, &mut refs);
    Figure {
        file,
        caption,
        title,
        width,
        height,
        area,
        x,
        y,
        series: out,
        refs,
        frontier: Vec::new(),
        labels: Vec::new(),
        legend: Some(LegendEl {
            rect: Rect {
                x: area.x + area.w + 24.0,
                y: area.y,
                w: lw,
                h: lh,
            },
            items,
        }),
    }
}

/// Places the value labels of horizontal reference lines at the right end of the data area,
/// just above their lines, pushed apart vertically so that lines that (nearly) coincide keep
/// readable labels in their own colours.
fn place_ref_labels(area: &Rect, refs: &mut [RefLine]) {
    let h = FONT + 2.0;
    let mut order: Vec<usize> = (0..refs.len())
        .filter(|&i| refs[i].horizontal && refs[i].label.is_some())
        .collect();
    order.sort_by(|&a, &b| refs[a].at.total_cmp(&refs[b].at));
    let mut last_bottom = f64::NEG_INFINITY;
    for i in order {
        let Some((text, _)) = refs[i].label.clone() else {
            continue;
        };
        let w = text_width(&text) + 4.0;
        let y = (refs[i].at - h - 1.0).max(last_bottom).max(area.y);
        let rect = Rect {
            x: area.x + area.w - w - 4.0,
            y,
            w,
            h,
        };
        last_bottom = y + h;
        refs[i].label = Some((text, rect));
    }
}

/// One point of the risk–utility map.
pub struct MapPoint<'a> {
    /// The setting's label (the point's label).
    pub label: String,
    /// Its defence (colour and marker, legend).
    pub group: String,
    /// Information loss.
    pub loss: &'a Stat,
    /// Risk.
    pub risk: &'a Stat,
}

/// The settings no other setting beats on both risk and loss (lower is better on both), by
/// increasing loss: indices into `pts`.
pub fn pareto(pts: &[(f64, f64)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..pts.len())
        .filter(|&i| pts[i].0.is_finite() && pts[i].1.is_finite())
        .collect();
    idx.sort_by(|&a, &b| {
        pts[a]
            .0
            .total_cmp(&pts[b].0)
            .then(pts[a].1.total_cmp(&pts[b].1))
    });
    let mut best = f64::INFINITY;
    let mut out = Vec::new();
    for i in idx {
        if pts[i].1 < best {
            best = pts[i].1;
            out.push(i);
        }
    }
    out
}

/// Greedy label placement: for each point in turn, the first candidate box (right, left,
/// above, below and the diagonals, at growing distances) inside the data area that overlaps no
/// point and no label placed before; one further than the nearest ring gets a leader line.
/// When nothing fits, the candidate overlapping the fewest boxes.
pub fn place_labels(
    area: &Rect,
    points: &[(f64, f64, String)],
    obstacles: &[Rect],
) -> Vec<LabelEl> {
    let mut placed: Vec<LabelEl> = Vec::new();
    let h = FONT + 4.0;
    for (i, (px, py, text)) in points.iter().enumerate() {
        let w = text_width(text) + 4.0;
        // A label nearer another point than its own reads as that point's: a position with no
        // overlap is preferred, then one where the label's own point is the nearest.
        let ambiguous =
            |r: &Rect| -> usize {
                let own = r.distance(*px, *py);
                usize::from(points.iter().enumerate().any(|(j, q)| {
                    j != i && (q.0 != *px || q.1 != *py) && r.distance(q.0, q.1) < own
                }))
            };
        let mut best: Option<((usize, usize), Rect, bool)> = None;
        'rings: for ring in 1..=8 {
            let d = MARKER_R + 3.0 + (ring - 1) as f64 * 14.0;
            let cands = [
                (px + d, py - h / 2.0),
                (px - d - w, py - h / 2.0),
                (px - w / 2.0, py - d - h),
                (px - w / 2.0, py + d),
                (px + d * 0.7, py - d * 0.7 - h),
                (px + d * 0.7, py + d * 0.7),
                (px - d * 0.7 - w, py - d * 0.7 - h),
                (px - d * 0.7 - w, py + d * 0.7),
            ];
            for (x, y) in cands {
                let r = Rect { x, y, w, h };
                if !r.inside(area) {
                    continue;
                }
                let hits = (
                    obstacles.iter().filter(|o| o.overlaps(&r)).count()
                        + placed.iter().filter(|l| l.rect.overlaps(&r)).count(),
                    ambiguous(&r),
                );
                if best.as_ref().is_none_or(|b| hits < b.0) {
                    best = Some((hits, r, ring > 1));
                }
                if hits == (0, 0) {
                    break 'rings;
                }
            }
        }
        let (rect, leader) = match best {
            Some((_, r, l)) => (r, l),
            None => (
                Rect {
                    x: px + MARKER_R + 3.0,
                    y: py - h / 2.0,
                    w,
                    h,
                },
                false,
            ),
        };
        placed.push(LabelEl {
            text: text.clone(),
            rect,
            anchor: (*px, *py),
            leader,
        });
    }
    placed
}

/// The risk–utility map: information loss across, risk up, one labelled point per setting
/// (colour and marker by defence), interval bars both ways, the Pareto frontier.
pub fn map_plot(
    file: String,
    caption: String,
    title: String,
    (x_title, x_unit): (String, Unit),
    (y_title, y_unit): (String, Unit),
    pts: &[MapPoint],
) -> Figure {
    let mut groups: Vec<String> = Vec::new();
    for p in pts {
        if !groups.contains(&p.group) {
            groups.push(p.group.clone());
        }
    }
    let mut items: Vec<(Swatch, String)> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (Swatch::Series(style(i), false), g.clone()))
        .collect();
    // One replicate (or a frontier of single nodes) draws no bar: then the legend shows none.
    if pts
        .iter()
        .any(|p| p.loss.interval != IntervalKind::None || p.risk.interval != IntervalKind::None)
    {
        items.push((Swatch::Interval, "95% interval".into()));
    }
    items.push((Swatch::Frontier, "Pareto frontier".into()));
    let (lw, lh) = legend_size(&items);
    let left = 74.0;
    let top = 44.0;
    let area = Rect {
        x: left,
        y: top,
        w: (W - left - lw - 36.0).max(300.0),
        h: 400.0_f64.max(lh),
    };
    let width = area.x + area.w + 24.0 + lw + 12.0;
    let height = top + area.h + 58.0;
    let (x, y) = map_axes(&area, pts, (&x_title, x_unit), (&y_title, y_unit));
    let marks = MapMarks::place(
        pts,
        &groups,
        (&area, &x, &y),
        (&x_title, x_unit),
        (&y_title, y_unit),
    );
    let frontier = pareto(&marks.raw)
        .into_iter()
        .map(|i| (sx(&area, &x, marks.raw[i].0), sy(&area, &y, marks.raw[i].1)))
        .collect();
    let obstacles: Vec<Rect> = marks
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(PointEl::rect))
        .collect();
    let labels = place_labels(&area, &marks.labelled, &obstacles);
    Figure {
        file,
        caption,
        title,
        width,
        height,
        area,
        x,
        y,
        series: marks.series,
        refs: Vec::new(),
        frontier,
        labels,
        legend: Some(LegendEl {
            rect: Rect {
                x: area.x + area.w + 24.0,
                y: area.y,
                w: lw,
                h: lh,
            },
            items,
        }),
    }
}

/// The risk–utility map's axes placed on `area`: loss across (with room on the right for
/// labels), risk up; each logarithmic when its means span more than two decades.
fn map_axes(
    area: &Rect,
    pts: &[MapPoint],
    (x_title, x_unit): (&str, Unit),
    (y_title, y_unit): (&str, Unit),
) -> (Axis, Axis) {
    let range = |f: &dyn Fn(&MapPoint) -> [f64; 3]| {
        pts.iter()
            .flat_map(f)
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            })
    };
    let (x0, x1) = range(&|p| [p.loss.mean, p.loss.lo, p.loss.hi]);
    let (y0, y1) = range(&|p| [p.risk.mean, p.risk.lo, p.risk.hi]);
    // Positive means (and interval ends) spanning more than two decades get a log axis, so one
    // extreme setting does not crush the others against zero; zeros then sit on the axis.
    let positive_min = |f: &dyn Fn(&MapPoint) -> [f64; 3]| {
        pts.iter()
            .flat_map(f)
            .filter(|v| v.is_finite() && *v > 0.0)
            .fold(f64::INFINITY, f64::min)
    };
    let x_log = spans_decades(pts.iter().map(|p| p.loss.mean));
    let y_log = spans_decades(pts.iter().map(|p| p.risk.mean));
    // Room on the right for labels: the loss axis runs a fifth past the largest loss (on a log
    // axis, a factor of 1.6).
    let mut x = if x_log {
        log_axis(
            x_title.to_string(),
            positive_min(&|p| [p.loss.mean, p.loss.lo, p.loss.hi]),
            x1 * 1.6,
            x_unit,
            true,
        )
    } else {
        value_axis(
            x_title.to_string(),
            x0,
            x1 + (x1 - x0.min(0.0)) * 0.2,
            x_unit,
            true,
        )
    };
    let mut y = if y_log {
        log_axis(
            y_title.to_string(),
            positive_min(&|p| [p.risk.mean, p.risk.lo, p.risk.hi]),
            y1,
            y_unit,
            false,
        )
    } else {
        value_axis(y_title.to_string(), y0, y1, y_unit, true)
    };
    place_x(area, &mut x);
    place_y(area, &mut y);
    (x, y)
}

/// The risk–utility map's points placed on its axes.
struct MapMarks {
    /// One series per defence (group), its points with interval bars and hover text.
    series: Vec<SeriesEl>,
    /// Each drawn point's position and label, for label placement.
    labelled: Vec<(f64, f64, String)>,
    /// Each point's (loss, risk) (NaN when not drawn), for the Pareto frontier.
    raw: Vec<(f64, f64)>,
}

impl MapMarks {
    /// Places `pts` on the data area and its axes, one series per group of `groups`; the
    /// axes' titles and units go into the hover text.
    fn place(
        pts: &[MapPoint],
        groups: &[String],
        (area, x, y): (&Rect, &Axis, &Axis),
        (x_title, x_unit): (&str, Unit),
        (y_title, y_unit): (&str, Unit),
    ) -> MapMarks {
        let mut series: Vec<SeriesEl> = groups
            .iter()
            .enumerate()
            .map(|(i, g)| SeriesEl {
                name: g.clone(),
                style: style(i),
                line: false,
                points: Vec::new(),
            })
            .collect();
        let mut labelled = Vec::new();
        let mut raw = Vec::new();
        for p in pts {
            let gi = groups.iter().position(|g| *g == p.group).unwrap_or(0);
            if !(p.loss.mean.is_finite() && p.risk.mean.is_finite()) {
                raw.push((f64::NAN, f64::NAN));
                continue;
            }
            let (px, py) = (sx(area, x, p.loss.mean), sy(area, y, p.risk.mean));
            raw.push((p.loss.mean, p.risk.mean));
            series[gi].points.push(PointEl {
                x: px,
                y: py,
                series: gi,
                ybar: p
                    .risk
                    .has_interval()
                    .then(|| (sy(area, y, p.risk.lo), sy(area, y, p.risk.hi))),
                xbar: p
                    .loss
                    .has_interval()
                    .then(|| (sx(area, x, p.loss.lo), sx(area, x, p.loss.hi))),
                hover: format!(
                    "{}\n{y_title}: {}\n{x_title}: {}",
                    p.label,
                    crate::stats::cell_unit(Some(p.risk), y_unit),
                    crate::stats::cell_unit(Some(p.loss), x_unit)
                ),
            });
            labelled.push((px, py, p.label.clone()));
        }
        MapMarks {
            series,
            labelled,
            raw,
        }
    }
}

fn marker_svg(m: Marker, x: f64, y: f64, color: &str) -> String {
    let r = MARKER_R;
    match m {
        Marker::Circle => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{color}"/>"#),
        Marker::Ring => format!(
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="white" stroke="{color}" stroke-width="2"/>"#,
            r - 0.5
        ),
        Marker::Square => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{color}"/>"#,
            x - r * 0.85,
            y - r * 0.85,
            r * 1.7,
            r * 1.7
        ),
        Marker::Diamond => format!(
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{color}"/>"#,
            x,
            y - r,
            x + r,
            y,
            x,
            y + r,
            x - r,
            y
        ),
        Marker::TriangleUp => format!(
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{color}"/>"#,
            x,
            y - r,
            x + r,
            y + r * 0.8,
            x - r,
            y + r * 0.8
        ),
        Marker::TriangleDown => format!(
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{color}"/>"#,
            x,
            y + r,
            x + r,
            y - r * 0.8,
            x - r,
            y - r * 0.8
        ),
    }
}

fn line(x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, extra: &str) -> String {
    format!(
        r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}"{extra}/>"#
    )
}

fn text(x: f64, y: f64, anchor: &str, s: &str, extra: &str) -> String {
    format!(
        r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}"{extra}>{}</text>"#,
        esc(s)
    )
}

impl Figure {
    /// The figure as an SVG document.
    pub fn svg(&self) -> String {
        let a = &self.area;
        let mut s = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="{FONT}" role="img"><title>{t}</title>"#,
            w = self.width,
            h = self.height,
            t = esc(&self.title)
        );
        s.push_str(&format!(
            r#"<rect width="{:.0}" height="{:.0}" fill="white"/>"#,
            self.width, self.height
        ));
        s.push_str(&text(
            a.x,
            24.0,
            "start",
            &self.title,
            r#" font-size="15" font-weight="bold""#,
        ));
        s.push_str(&self.axes_svg());
        s.push_str(&self.refs_svg());
        s.push_str(&self.frontier_svg());
        s.push_str(&self.series_svg());
        s.push_str(&self.labels_svg());
        s.push_str(&self.legend_svg());
        s.push_str("</svg>\n");
        s
    }

    /// The grid, the ticks with their labels, the data area's frame and the axis titles.
    fn axes_svg(&self) -> String {
        let a = &self.area;
        let mut s = String::new();
        let dot = self.y.title.is_empty();
        for t in &self.x.ticks {
            s.push_str(&line(t.px, a.y, t.px, a.y + a.h, "#e6e6e6", ""));
            s.push_str(&line(t.px, a.y + a.h, t.px, a.y + a.h + 5.0, "#444", ""));
            s.push_str(&text(t.px, a.y + a.h + 18.0, "middle", &t.label, ""));
        }
        for t in &self.y.ticks {
            if dot {
                s.push_str(&line(a.x, t.px, a.x + a.w, t.px, "#f0f0f0", ""));
            } else {
                s.push_str(&line(a.x, t.px, a.x + a.w, t.px, "#e6e6e6", ""));
            }
            s.push_str(&line(a.x - 5.0, t.px, a.x, t.px, "#444", ""));
            s.push_str(&text(a.x - 8.0, t.px + 4.0, "end", &t.label, ""));
        }
        s.push_str(&format!(
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#444"/>"##,
            a.x, a.y, a.w, a.h
        ));
        s.push_str(&text(
            a.x + a.w / 2.0,
            a.y + a.h + 40.0,
            "middle",
            &self.x.title,
            "",
        ));
        if !self.y.title.is_empty() {
            let (cx, cy) = (16.0, a.y + a.h / 2.0);
            s.push_str(&text(
                cx,
                cy,
                "middle",
                &self.y.title,
                &format!(r#" transform="rotate(-90 {cx:.1} {cy:.1})""#),
            ));
        }
        s
    }

    /// The dashed reference lines, each with its hover text and value label.
    fn refs_svg(&self) -> String {
        let a = &self.area;
        let mut s = String::new();
        for r in &self.refs {
            let l = if r.horizontal {
                line(a.x, r.at, a.x + a.w, r.at, r.color, "")
            } else {
                line(r.at, a.y, r.at, a.y + a.h, r.color, "")
            };
            let l = l.replace(
                "/>",
                &format!(
                    r#" stroke-dasharray="{}" stroke-width="1.2" opacity="0.8"/>"#,
                    r.dash
                ),
            );
            let label = r.label.as_ref().map_or(String::new(), |(t, rect)| {
                text(
                    rect.x + 2.0,
                    rect.y + rect.h - 3.0,
                    "start",
                    t,
                    &format!(r#" fill="{}" font-size="11""#, r.color),
                )
            });
            s.push_str(&format!(
                "<g><title>{}</title>{l}{label}</g>",
                esc(&r.hover)
            ));
        }
        s
    }

    /// The Pareto frontier as a grey polyline (empty with fewer than two points).
    fn frontier_svg(&self) -> String {
        if self.frontier.len() < 2 {
            return String::new();
        }
        let pts: Vec<String> = self
            .frontier
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        format!(
            r##"<polyline points="{}" fill="none" stroke="#888" stroke-width="1.5"><title>Pareto frontier</title></polyline>"##,
            pts.join(" ")
        )
    }

    /// The series: lines, bars with caps, markers with hover text.
    fn series_svg(&self) -> String {
        let mut s = String::new();
        for se in &self.series {
            let c = se.style.color;
            if se.line && se.points.len() >= 2 {
                let pts: Vec<String> = se
                    .points
                    .iter()
                    .map(|p| format!("{:.1},{:.1}", p.x, p.y))
                    .collect();
                s.push_str(&format!(
                    r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#,
                    pts.join(" ")
                ));
            }
            for p in &se.points {
                s.push_str("<g>");
                s.push_str(&format!("<title>{}</title>", esc(&p.hover)));
                if let Some((y1, y2)) = p.ybar {
                    s.push_str(&line(p.x, y1, p.x, y2, c, ""));
                    s.push_str(&line(p.x - CAP, y1, p.x + CAP, y1, c, ""));
                    s.push_str(&line(p.x - CAP, y2, p.x + CAP, y2, c, ""));
                }
                if let Some((x1, x2)) = p.xbar {
                    s.push_str(&line(x1, p.y, x2, p.y, c, ""));
                    s.push_str(&line(x1, p.y - CAP, x1, p.y + CAP, c, ""));
                    s.push_str(&line(x2, p.y - CAP, x2, p.y + CAP, c, ""));
                }
                s.push_str(&marker_svg(se.style.marker, p.x, p.y, c));
                s.push_str("</g>");
            }
        }
        s
    }

    /// The point labels, with leader lines to the points they were moved away from.
    fn labels_svg(&self) -> String {
        let mut s = String::new();
        for l in &self.labels {
            if l.leader {
                let r = &l.rect;
                let tx = l.anchor.0.clamp(r.x, r.x + r.w);
                let ty = l.anchor.1.clamp(r.y, r.y + r.h);
                s.push_str(&line(
                    l.anchor.0,
                    l.anchor.1,
                    tx,
                    ty,
                    "#777",
                    r#" stroke-width="0.8""#,
                ));
            }
            s.push_str(&text(
                l.rect.x + 2.0,
                l.rect.y + l.rect.h - 4.0,
                "start",
                &l.text,
                "",
            ));
        }
        s
    }

    /// The legend: its box, and per entry its swatch and text (empty without a legend).
    fn legend_svg(&self) -> String {
        let Some(lg) = &self.legend else {
            return String::new();
        };
        let r = &lg.rect;
        let mut s = format!(
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="white" stroke="#bbb"/>"##,
            r.x, r.y, r.w, r.h
        );
        for (i, (sw, t)) in lg.items.iter().enumerate() {
            let y = r.y + 14.0 + i as f64 * 18.0;
            let x = r.x + 8.0;
            s.push_str(&swatch_svg(sw, x, y));
            s.push_str(&text(x + 30.0, y + 4.0, "start", t, ""));
        }
        s
    }
}

/// A legend entry's swatch with its left end at (`x`, `y`).
fn swatch_svg(sw: &Swatch, x: f64, y: f64) -> String {
    let mut s = String::new();
    match sw {
        Swatch::Series(st, with_line) => {
            if *with_line {
                s.push_str(&line(x, y, x + 22.0, y, st.color, r#" stroke-width="2""#));
            }
            s.push_str(&marker_svg(st.marker, x + 11.0, y, st.color));
        }
        Swatch::Dashed => s.push_str(&line(
            x,
            y,
            x + 22.0,
            y,
            "#444",
            r#" stroke-dasharray="6 4""#,
        )),
        Swatch::Frontier => s.push_str(&line(x, y, x + 22.0, y, "#888", r#" stroke-width="1.5""#)),
        Swatch::Interval => {
            s.push_str(&line(x + 2.0, y, x + 20.0, y, "#444", ""));
            s.push_str(&line(x + 2.0, y - CAP, x + 2.0, y + CAP, "#444", ""));
            s.push_str(&line(x + 20.0, y - CAP, x + 20.0, y + CAP, "#444", ""));
        }
    }
    s
}

fn file_part(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .trim_matches('-')
        .to_string()
}

/// The metrics drawn against grid parameters: `[report] plot`, else every attack's correct
/// re-identifications per target (the headline).
pub fn plot_metrics(exp: &Experiment) -> Vec<String> {
    if !exp.report.plot.is_empty() {
        return exp.report.plot.clone();
    }
    exp.attacks
        .iter()
        .map(|a| format!("{}.{HEADLINE}", a.name))
        .collect()
}

/// The risk axis of the risk–utility map: `[report] risk`, else the first attack's correct
/// re-identifications per target.
pub fn map_risk(exp: &Experiment) -> Option<String> {
    exp.report.risk.clone().or_else(|| {
        exp.attacks
            .first()
            .map(|a| format!("{}.{HEADLINE}", a.name))
    })
}

/// The loss axis of the risk–utility map: `[report] loss`, else the first of IL1s, the pMSE
/// ratio, the information lost per key cell and the share of records changed, recoded or removed
/// (a generalised record is not shown as it was) that the runs have.
pub fn map_loss(exp: &Experiment, results: &[SettingResult]) -> Option<String> {
    exp.report.loss.clone().or_else(|| {
        [
            "utility.il1s",
            "utility.pmse_ratio",
            "utility.cell_loss",
            "masking.records_altered_share",
        ]
        .into_iter()
        .find(|k| results.iter().any(|s| s.get(k).is_some()))
        .map(str::to_string)
    })
}

fn unit_of(results: &[SettingResult], metric: &str) -> Unit {
    results
        .iter()
        .find_map(|r| r.unit(metric))
        .unwrap_or(Unit::Score)
}

/// The unmasked setting (no steps), if the plan has one.
pub fn unmasked(plan: &Plan) -> Option<usize> {
    plan.settings.iter().position(|s| s.steps.is_empty())
}

/// A study's line plot ([`crate::study::StudyPlot`]) laid out like the risk-by-parameter
/// figures (counts, intervals as bars, no unmasked reference).
pub fn study_plot(p: &crate::study::StudyPlot) -> Figure {
    let series: Vec<LineSeries> = p
        .series
        .iter()
        .map(|(name, pts)| LineSeries {
            name: name.clone(),
            points: pts
                .iter()
                .map(|(x, st)| (*x, st, format!("{name}, x = {x}")))
                .collect(),
            reference: None,
        })
        .collect();
    line_plot(
        p.file.clone(),
        p.caption.clone(),
        p.title.clone(),
        p.x_title.clone(),
        p.y_title.clone(),
        Unit::Count,
        &series,
    )
}

/// Every figure of an experiment, in report order: the headline, one per attack, risk against
/// each grid parameter, the risk–utility map.
pub fn plots(
    exp: &Experiment,
    plan: &Plan,
    results: &[SettingResult],
) -> Result<Vec<Figure>, RunnerError> {
    let inputs = PlotInputs {
        exp,
        plan,
        results,
        labels: results.iter().map(|s| s.label.clone()).collect(),
        reference: unmasked(plan),
    };
    let mut out = Vec::new();
    // 1. The headline: per target, every attack.
    out.extend(inputs.headline());
    // 2. Per attack: per target, per twin, precision of declared links.
    for a in &exp.attacks {
        out.extend(inputs.attack(a));
    }
    // 3. Risk against each numeric grid parameter of each defence.
    let metrics = plot_metrics(exp);
    for d in &exp.defences {
        out.extend(inputs.against_parameters(d, &metrics));
    }
    // 4. The risk–utility map.
    out.extend(inputs.risk_utility());
    Ok(out)
}

/// What an experiment's figures are drawn from: the experiment, its plan, the aggregated
/// results, the settings' labels and the unmasked setting.
struct PlotInputs<'a> {
    /// The experiment.
    exp: &'a Experiment,
    /// Its plan.
    plan: &'a Plan,
    /// The results per setting, in plan order.
    results: &'a [SettingResult],
    /// The settings' labels, in plan order.
    labels: Vec<String>,
    /// The unmasked setting, if the plan has one.
    reference: Option<usize>,
}

impl<'a> PlotInputs<'a> {
    /// The headline dot plot: correct re-identifications per target of every attack, by
    /// setting; `None` without attacks or values.
    fn headline(&self) -> Option<Figure> {
        let (exp, results) = (self.exp, self.results);
        if exp.attacks.is_empty() || results.is_empty() {
            return None;
        }
        let series: Vec<DotSeries> = exp
            .attacks
            .iter()
            .map(|a| DotSeries {
                name: a.name.clone(),
                stats: results
                    .iter()
                    .map(|s| s.get(&format!("{}.{HEADLINE}", a.name)))
                    .collect(),
            })
            .collect();
        if !series.iter().any(|s| s.stats.iter().any(Option::is_some)) {
            return None;
        }
        Some(dot_plot(
            "reidentification-per-target.svg".into(),
            format!(
                "{}: correct re-identifications per target — the share of every record the intruder holds that it re-identifies correctly — by setting and attack; bars: {}; dashed: the unmasked value",
                exp.name,
                bars_caption(exp.replicates)
            ),
            "Correct re-identifications per target".into(),
            "correct re-identifications per target (share of the intruder's records)".into(),
            Unit::Proportion,
            &self.labels,
            &series,
            self.reference,
        ))
    }

    /// Attack `a`'s dot plot: per target, per twin and the precision of its declared links,
    /// by setting; `None` without values.
    fn attack(&self, a: &crate::spec::AttackSpec) -> Option<Figure> {
        let exp = self.exp;
        let figs = [HEADLINE, "correct_match_rate", "precision"];
        let series: Vec<DotSeries> = figs
            .iter()
            .map(|f| {
                let id = format!("{}.{f}", a.name);
                DotSeries {
                    name: figure_name(exp, &id),
                    stats: self.results.iter().map(|s| s.get(&id)).collect(),
                }
            })
            .collect();
        if !series.iter().any(|s| s.stats.iter().any(Option::is_some)) {
            return None;
        }
        Some(dot_plot(
            format!("attack-{}.svg", file_part(&a.name)),
            format!(
                "{}: attack {}{} — correct re-identifications per target (every record the intruder holds), per twin (targets whose person is in the release) and the precision of its declared links; bars: {}; dashed: the unmasked values",
                exp.name,
                a.name,
                if a.name == a.method {
                    String::new()
                } else {
                    format!(" ({})", a.method)
                },
                bars_caption(exp.replicates)
            ),
            format!("Attack {}: the intruder's success three ways", a.name),
            "share".into(),
            Unit::Proportion,
            &self.labels,
            &series,
            self.reference,
        ))
    }

    /// Defence `d`'s line plots: `metrics` against each of its numeric grid parameters (none
    /// when the defence has fewer than two settings).
    fn against_parameters(&self, d: &crate::grid::DefenceSpec, metrics: &[String]) -> Vec<Figure> {
        let plan = self.plan;
        let idx: Vec<usize> = plan
            .settings
            .iter()
            .enumerate()
            .filter(|(_, s)| s.defence == d.name)
            .map(|(i, _)| i)
            .collect();
        if idx.len() < 2 {
            return Vec::new();
        }
        let names: Vec<String> = plan.settings[idx[0]]
            .params
            .iter()
            .map(|(k, _)| k.clone())
            .collect();
        let mut out = Vec::new();
        for pname in &names {
            if !idx
                .iter()
                .all(|&i| plan.settings[i].param_f64(pname).is_some())
            {
                continue;
            }
            let series = self.parameter_series(&idx, pname, metrics);
            if series.is_empty() {
                continue;
            }
            out.push(self.parameter_plot(d, pname, metrics, &series));
        }
        out
    }

    /// The lines of `metrics` against grid parameter `pname` over the settings `idx`: one per
    /// metric and combination of the other parameters.
    fn parameter_series(
        &self,
        idx: &[usize],
        pname: &str,
        metrics: &[String],
    ) -> Vec<LineSeries<'a>> {
        let results = self.results;
        let mut series: Vec<LineSeries> = Vec::new();
        for m in metrics {
            for &i in idx {
                let s = &self.plan.settings[i];
                let Some(st) = results[i].get(m) else {
                    continue;
                };
                let others: Vec<String> = s
                    .params
                    .iter()
                    .filter(|(k, _)| k != pname)
                    .map(|(k, v)| format!("{}={v}", k.rsplit('.').next().unwrap_or(k)))
                    .collect();
                let base = self.series_name(m, metrics);
                let key = if others.is_empty() {
                    base
                } else {
                    format!("{base} ({})", others.join(", "))
                };
                let x = s.param_f64(pname).unwrap_or(f64::NAN);
                match series.iter_mut().find(|l| l.name == key) {
                    Some(l) => l.points.push((x, st, s.label.clone())),
                    None => series.push(LineSeries {
                        name: key,
                        points: vec![(x, st, s.label.clone())],
                        reference: self.reference.and_then(|r| results[r].get(m)),
                    }),
                }
            }
        }
        series
    }

    /// The legend name of metric `m` among `metrics`: its figure name when it is alone, the
    /// attack's name when every metric is a headline, else its human name.
    fn series_name(&self, m: &str, metrics: &[String]) -> String {
        let exp = self.exp;
        if metrics.len() == 1 {
            figure_name(exp, m)
        } else {
            match crate::glossary::kind(exp, m) {
                Some(crate::glossary::Kind::Attack(a, _))
                    if metrics.iter().all(|x| x.ends_with(HEADLINE)) =>
                {
                    a.to_string()
                }
                _ => human_name(exp, m),
            }
        }
    }

    /// The line plot of `series` (of `metrics`) against defence `d`'s grid parameter `pname`.
    fn parameter_plot(
        &self,
        d: &crate::grid::DefenceSpec,
        pname: &str,
        metrics: &[String],
        series: &[LineSeries],
    ) -> Figure {
        let (exp, results) = (self.exp, self.results);
        let short = pname.rsplit('.').next().unwrap_or(pname);
        let unit = unit_of(results, &metrics[0]);
        let same_unit = metrics.iter().all(|m| unit_of(results, m) == unit);
        let y_title = if metrics.iter().all(|m| m.ends_with(HEADLINE)) {
            "correct re-identifications per target".to_string()
        } else if metrics.len() == 1 {
            human_name(exp, &metrics[0])
        } else {
            "disclosure risk".to_string()
        };
        line_plot(
            format!("risk-vs-{}-{}.svg", file_part(&d.name), file_part(short)),
            format!(
                "{}: {y_title} against {short} (defence {}); bars: 95% intervals; dashed: the unmasked value in the series' colour",
                exp.name, d.name
            ),
            format!("{} — {y_title} against {short}", d.name),
            format!("{short} ({pname})"),
            y_title.clone(),
            if same_unit { unit } else { Unit::Score },
            series,
        )
    }

    /// The risk–utility map; `None` without both axes or with fewer than two settings on it.
    fn risk_utility(&self) -> Option<Figure> {
        let (exp, results) = (self.exp, self.results);
        let (risk, loss) = (map_risk(exp)?, map_loss(exp, results)?);
        let pts: Vec<MapPoint> = results
            .iter()
            .filter_map(|s| {
                Some(MapPoint {
                    label: s.label.clone(),
                    group: s.defence.clone(),
                    loss: s.get(&loss)?,
                    risk: s.get(&risk)?,
                })
            })
            .collect();
        if pts.len() < 2 {
            return None;
        }
        let (rn, ln) = (human_name(exp, &risk), human_name(exp, &loss));
        let lead = if risk.ends_with(HEADLINE) {
            " (the headline figure: per target, every record the intruder holds)"
        } else {
            ""
        };
        Some(map_plot(
            "risk-utility.svg".into(),
            format!(
                "{}: risk–utility map — disclosure risk, {rn}{lead}, against information loss, {ln}; one point per defence setting; bars: 95% intervals; grey line: the Pareto frontier (settings no other beats on both)",
                exp.name
            ),
            "Risk–utility map".into(),
            (ln, unit_of(results, &loss)),
            (rn, unit_of(results, &risk)),
            &pts,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(mean: f64, lo: f64, hi: f64) -> Stat {
        Stat {
            mean,
            lo,
            hi,
            n: 2,
            interval: IntervalKind::T,
            values: vec![mean, mean],
            pooled: None,
        }
    }

    #[test]
    fn odd_data_draws_without_panic_or_nan() {
        // No settings, no series.
        let f = dot_plot(
            "e.svg".into(),
            String::new(),
            String::new(),
            "x".into(),
            Unit::Proportion,
            &[],
            &[],
            None,
        );
        assert!(!f.svg().contains("NaN"));
        // One replicate (no interval) and a NaN estimate.
        let one = Stat::new(vec![0.25]);
        let nan = Stat::new(vec![f64::NAN]);
        let series = [LineSeries {
            name: "a".into(),
            points: vec![(2.0, &one, "k=2".into()), (3.0, &nan, "k=3".into())],
            reference: Some(&nan),
        }];
        let f = line_plot(
            "l.svg".into(),
            String::new(),
            String::new(),
            "k".into(),
            "y".into(),
            Unit::Proportion,
            &series,
        );
        assert_eq!(f.points().count(), 1);
        assert!(f.points().all(|p| p.ybar.is_none()));
        assert!(!f.svg().contains("NaN"));
        let pts = [
            MapPoint {
                label: "a".into(),
                group: "a".into(),
                loss: &one,
                risk: &nan,
            },
            MapPoint {
                label: "b".into(),
                group: "b".into(),
                loss: &one,
                risk: &one,
            },
        ];
        let f = map_plot(
            "m.svg".into(),
            String::new(),
            String::new(),
            ("loss".into(), Unit::Proportion),
            ("risk".into(), Unit::Proportion),
            &pts,
        );
        assert_eq!(f.labels.len(), 1);
        assert!(!f.svg().contains("NaN"));
    }

    #[test]
    fn pareto_keeps_the_undominated_settings() {
        // (loss, risk): 0 = (0, 0.5), 1 = (0.1, 0.3), 2 = (0.2, 0.4) dominated by 1,
        // 3 = (0.5, 0.1), 4 = (0.5, 0.2) dominated by 3, 5 = NaN left out.
        let pts = [
            (0.0, 0.5),
            (0.1, 0.3),
            (0.2, 0.4),
            (0.5, 0.1),
            (0.5, 0.2),
            (f64::NAN, 0.0),
        ];
        assert_eq!(pareto(&pts), vec![0, 1, 3]);
        assert!(pareto(&[]).is_empty());
    }

    #[test]
    fn integer_grids_get_integer_ticks_at_the_grid_values() {
        let a = param_axis("k".into(), &[2.0, 3.0, 5.0, 3.0]);
        let v: Vec<f64> = a.ticks.iter().map(|t| t.value).collect();
        assert_eq!(v, vec![2.0, 3.0, 5.0]);
        let l: Vec<&str> = a.ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(l, vec!["2", "3", "5"]);
        // Many integer values: integer steps, integer labels.
        let many: Vec<f64> = (1..=20).map(f64::from).collect();
        let a = param_axis("k".into(), &many);
        assert!(a.ticks.len() <= 8);
        assert!(a.ticks.iter().all(|t| t.value.fract() == 0.0));
        assert!(a.ticks.iter().all(|t| !t.label.contains('.')));
        // Fractions keep their values.
        let a = param_axis("pd".into(), &[0.9, 0.7]);
        let l: Vec<&str> = a.ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(l, vec!["0.7", "0.9"]);
    }

    #[test]
    fn share_axes_stay_within_0_and_1() {
        let a = value_axis("x".into(), -0.2, 1.3, Unit::Proportion, true);
        assert_eq!((a.lo, a.hi), (0.0, 1.0));
        assert_eq!(a.ticks.first().unwrap().label, "0%");
        assert_eq!(a.ticks.last().unwrap().label, "100%");
        let a = value_axis("x".into(), 0.01, 0.07, Unit::Proportion, true);
        assert_eq!(a.lo, 0.0);
        assert!(a.hi >= 0.07 && a.hi <= 0.1, "{}", a.hi);
        // All zero: a visible range, no division by zero.
        let a = value_axis("x".into(), 0.0, 0.0, Unit::Proportion, true);
        assert!(a.hi > a.lo);
        let a = value_axis("x".into(), f64::NAN, f64::NAN, Unit::Count, true);
        assert!(a.hi > a.lo);
    }

    #[test]
    fn labels_avoid_points_labels_and_leave_the_area_never() {
        let area = Rect {
            x: 0.0,
            y: 0.0,
            w: 400.0,
            h: 300.0,
        };
        // Six points on top of each other and one near the right edge.
        let mut pts: Vec<(f64, f64, String)> = (0..6)
            .map(|i| (150.0 + i as f64 * 3.0, 150.0, format!("setting {i}")))
            .collect();
        pts.push((395.0, 150.0, "edge".into()));
        let obstacles: Vec<Rect> = pts
            .iter()
            .map(|p| Rect::around(p.0, p.1, MARKER_R + 1.0))
            .collect();
        let labels = place_labels(&area, &pts, &obstacles);
        assert_eq!(labels.len(), 7);
        for (i, l) in labels.iter().enumerate() {
            assert!(l.rect.inside(&area), "{}", l.text);
            for o in &obstacles {
                assert!(!l.rect.overlaps(o), "{} covers a point", l.text);
            }
            for m in &labels[..i] {
                assert!(!l.rect.overlaps(&m.rect), "{} on {}", l.text, m.text);
            }
        }
        assert!(
            labels.iter().any(|l| l.leader),
            "crowded labels get leader lines"
        );
        assert!(
            labels[6].rect.x + labels[6].rect.w <= 395.0,
            "the edge label goes left"
        );
    }

    #[test]
    fn each_label_is_nearest_its_own_point() {
        // The quickstart map's three k-anonymity settings: close together on a diagonal, where
        // the first free position of k=5's label sat nearer k=3's point than its own.
        let area = Rect {
            x: 74.0,
            y: 44.0,
            w: 730.0,
            h: 400.0,
        };
        let pts: Vec<(f64, f64, String)> = vec![
            (211.0, 390.0, "k-anonymity (k=2)".into()),
            (258.0, 428.0, "k-anonymity (k=3)".into()),
            (299.0, 440.0, "k-anonymity (k=5)".into()),
        ];
        let obstacles: Vec<Rect> = pts
            .iter()
            .map(|p| Rect::around(p.0, p.1, MARKER_R + 1.0))
            .collect();
        let labels = place_labels(&area, &pts, &obstacles);
        for (l, p) in labels.iter().zip(&pts) {
            let own = l.rect.distance(p.0, p.1);
            for q in &pts {
                assert!(
                    l.rect.distance(q.0, q.1) >= own,
                    "{} at {:?} is nearer ({}, {}) than its own point",
                    l.text,
                    l.rect,
                    q.0,
                    q.1
                );
            }
        }
    }

    #[test]
    fn dot_plot_legend_outside_hover_text_and_reference() {
        let a = [stat(0.2, 0.1, 0.3), stat(0.1, 0.05, 0.15)];
        let b = [stat(0.5, 0.5, 0.5), stat(0.4, 0.3, 0.45)];
        let series = [
            DotSeries {
                name: "exact".into(),
                stats: vec![Some(&a[0]), Some(&a[1]), None],
            },
            DotSeries {
                name: "nearest".into(),
                stats: vec![Some(&b[0]), Some(&b[1]), None],
            },
        ];
        let cats = [
            "none".to_string(),
            "k-anonymity (k=2)".into(),
            "empty".into(),
        ];
        let f = dot_plot(
            "f.svg".into(),
            "caption".into(),
            "title".into(),
            "share".into(),
            Unit::Proportion,
            &cats,
            &series,
            Some(0),
        );
        let lg = f.legend.as_ref().unwrap();
        assert!(!lg.rect.overlaps(&f.area), "legend outside the data area");
        assert!(lg.rect.x + lg.rect.w <= f.width);
        for p in f.points() {
            assert!(!lg.rect.overlaps(&p.rect()));
            let a = &f.area;
            assert!(p.x >= a.x && p.x <= a.x + a.w && p.y >= a.y && p.y <= a.y + a.h);
        }
        assert_eq!(f.points().count(), 4);
        assert_eq!(f.refs.len(), 2, "a dashed no-masking line per series");
        let svg = f.svg();
        assert_eq!(svg.matches("<title>none — exact").count(), 1);
        assert!(svg.contains("stroke-dasharray=\"6 4\""));
        assert!(svg.contains(PALETTE[0]) && svg.contains(PALETTE[1]));
        // Interval caps: two short lines per bar besides the bar.
        assert!(svg.contains("95% interval"));
        assert!(!svg.contains("NaN"));
    }
}
