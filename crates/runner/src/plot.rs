//! SVG plots (plotters): risk against a defence parameter, as Mitra et al.'s Figs. 4–6, and the
//! risk–utility map (Duncan et al.'s R-U confidentiality map: disclosure risk against
//! information loss, one point per defence setting). Means are points joined by lines; the
//! vertical bars are the 95% intervals over replicates.

use plotters::prelude::*;

/// A named series of points (x, y, interval low, interval high).
type Series = (String, Vec<(f64, f64, f64, f64)>);

use intruder_data::report::Unit;

use crate::RunnerError;
use crate::aggregate::SettingResult;
use crate::plan::Plan;
use crate::spec::Experiment;

const W: u32 = 760;
const H: u32 = 480;

fn perr<E: std::fmt::Display>(e: E) -> RunnerError {
    RunnerError::Plot(e.to_string())
}

fn file_part(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .trim_matches('-')
        .to_string()
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if (hi - lo).abs() < 1e-12 {
        let d = if lo.abs() > 1e-12 {
            lo.abs() * 0.1
        } else {
            0.5
        };
        return (lo - d, hi + d);
    }
    let d = (hi - lo) * 0.08;
    (lo - d, hi + d)
}

/// The metrics drawn against parameters.
pub fn plot_metrics(exp: &Experiment) -> Vec<String> {
    if !exp.report.plot.is_empty() {
        return exp.report.plot.clone();
    }
    exp.attacks
        .iter()
        .map(|a| format!("{}.correct_match_rate", a.name))
        .collect()
}

/// Every plot of an experiment: (file name, caption, SVG text).
pub fn plots(
    exp: &Experiment,
    plan: &Plan,
    results: &[SettingResult],
) -> Result<Vec<(String, String, String)>, RunnerError> {
    let mut out = Vec::new();
    let metrics = plot_metrics(exp);
    // 1. Risk against each numeric grid parameter of each defence.
    for d in &exp.defences {
        let idx: Vec<usize> = plan
            .settings
            .iter()
            .enumerate()
            .filter(|(_, s)| s.defence == d.name)
            .map(|(i, _)| i)
            .collect();
        if idx.len() < 2 {
            continue;
        }
        let names: Vec<String> = plan.settings[idx[0]]
            .params
            .iter()
            .map(|(k, _)| k.clone())
            .collect();
        for pname in &names {
            if !idx
                .iter()
                .all(|&i| plan.settings[i].param_f64(pname).is_some())
            {
                continue;
            }
            // Series: metric × the other grid values.
            let mut series: Vec<Series> = Vec::new();
            for m in &metrics {
                for &i in &idx {
                    let s = &plan.settings[i];
                    let Some(st) = results[i].get(m) else {
                        continue;
                    };
                    let others: Vec<String> = s
                        .params
                        .iter()
                        .filter(|(k, _)| k != pname)
                        .map(|(k, v)| format!("{}={v}", k.rsplit('.').next().unwrap_or(k)))
                        .collect();
                    let key = if others.is_empty() {
                        m.clone()
                    } else {
                        format!("{m} ({})", others.join(", "))
                    };
                    let x = s.param_f64(pname).unwrap_or(f64::NAN);
                    let pt = (x, st.mean, st.lo, st.hi);
                    match series.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, v)) => v.push(pt),
                        None => series.push((key, vec![pt])),
                    }
                }
            }
            if series.is_empty() {
                continue;
            }
            for (_, v) in &mut series {
                v.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            let short = pname.rsplit('.').next().unwrap_or(pname);
            let name = format!("risk-vs-{}-{}.svg", file_part(&d.name), file_part(short));
            let caption = format!(
                "{}: {} against {short} (defence '{}'; bars: 95% intervals over replicates)",
                exp.name,
                if metrics.len() == 1 {
                    metrics[0].clone()
                } else {
                    "risk".into()
                },
                d.name
            );
            let svg = line_plot(
                &format!("{} — {}", exp.name, d.name),
                short,
                if metrics.len() == 1 {
                    &metrics[0]
                } else {
                    "disclosure risk"
                },
                &series,
                metrics.iter().all(|m| is_proportion(results, m)),
            )?;
            out.push((name, caption, svg));
        }
    }
    // 2. The risk–utility map.
    let risk = exp.report.risk.clone().or_else(|| metrics.first().cloned());
    let loss = exp.report.loss.clone().or_else(|| {
        [
            "utility.il1s",
            "utility.pmse_ratio",
            "masking.records_changed_share",
        ]
        .into_iter()
        .find(|k| results.iter().any(|s| s.get(k).is_some()))
        .map(str::to_string)
    });
    if let (Some(risk), Some(loss)) = (risk, loss) {
        let pts: Vec<(String, f64, f64, f64, f64)> = results
            .iter()
            .filter_map(|s| {
                let r = s.get(&risk)?;
                let l = s.get(&loss)?;
                Some((s.label.clone(), l.mean, r.mean, r.lo, r.hi))
            })
            .collect();
        if pts.len() >= 2 {
            let svg = map_plot(
                &format!("{} — risk–utility map", exp.name),
                &loss,
                &risk,
                &pts,
                is_proportion(results, &risk),
            )?;
            out.push((
                "risk-utility.svg".into(),
                format!(
                    "{}: risk–utility map, {risk} against {loss}, one point per defence setting",
                    exp.name
                ),
                svg,
            ));
        }
    }
    Ok(out)
}

/// Whether `metric` is a proportion (its axis is bounded to [0, 1]).
fn is_proportion(results: &[SettingResult], metric: &str) -> bool {
    results
        .iter()
        .find_map(|r| r.unit(metric))
        .is_some_and(|u| u == Unit::Proportion)
}

fn line_plot(
    title: &str,
    xlab: &str,
    ylab: &str,
    series: &[Series],
    all_props: bool,
) -> Result<String, RunnerError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (W, H)).into_drawing_area();
        root.fill(&WHITE).map_err(perr)?;
        let all = series.iter().flat_map(|(_, v)| v.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, _, lo, hi) in all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(lo);
            y1 = y1.max(hi);
        }
        let (x0, x1) = padded(x0, x1);
        let (y0, y1) = padded(y0.min(0.0), y1);
        let (y0, y1) = if all_props {
            (y0.max(-0.02), y1.min(1.02))
        } else {
            (y0, y1)
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(perr)?;
        chart
            .configure_mesh()
            .x_desc(xlab)
            .y_desc(ylab)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(perr)?;
        for (i, (label, pts)) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p.0, p.1)),
                    color.stroke_width(2),
                ))
                .map_err(perr)?
                .label(label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart
                .draw_series(
                    pts.iter()
                        .map(|p| Circle::new((p.0, p.1), 3, color.filled())),
                )
                .map_err(perr)?;
            chart
                .draw_series(
                    pts.iter().filter(|p| p.3 > p.2).map(|p| {
                        PathElement::new(vec![(p.0, p.2), (p.0, p.3)], color.stroke_width(1))
                    }),
                )
                .map_err(perr)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .draw()
            .map_err(perr)?;
        root.present().map_err(perr)?;
    }
    Ok(buf)
}

fn map_plot(
    title: &str,
    xlab: &str,
    ylab: &str,
    pts: &[(String, f64, f64, f64, f64)],
    proportion: bool,
) -> Result<String, RunnerError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (W, H)).into_drawing_area();
        root.fill(&WHITE).map_err(perr)?;
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for p in pts {
            x0 = x0.min(p.1);
            x1 = x1.max(p.1);
            y0 = y0.min(p.3);
            y1 = y1.max(p.4);
        }
        let (x0, x1) = padded(x0.min(0.0), x1 + (x1 - x0.min(0.0)) * 0.25);
        let (y0, y1) = padded(y0.min(0.0), y1);
        let (y0, y1) = if proportion {
            (y0.max(-0.02), y1.min(1.02))
        } else {
            (y0, y1)
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(perr)?;
        chart
            .configure_mesh()
            .x_desc(format!("information loss: {xlab}"))
            .y_desc(format!("disclosure risk: {ylab}"))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(perr)?;
        for (i, p) in pts.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(std::iter::once(Circle::new((p.1, p.2), 4, color.filled())))
                .map_err(perr)?;
            if p.4 > p.3 {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(p.1, p.3), (p.1, p.4)],
                        color.stroke_width(1),
                    )))
                    .map_err(perr)?;
            }
            chart
                .draw_series(std::iter::once(Text::new(
                    p.0.clone(),
                    (p.1 + (x1 - x0) * 0.01, p.2),
                    ("sans-serif", 11).into_font().color(&BLACK),
                )))
                .map_err(perr)?;
        }
        root.present().map_err(perr)?;
    }
    Ok(buf)
}
