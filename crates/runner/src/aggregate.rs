//! Aggregation of stored runs by setting, and the summary tables built from it.

use serde_json::Value;

use intruder_data::report::Unit;

use crate::glossary::{figure_name, human_name, measure_figure};
use crate::metrics::{FigureDoc, metrics, question_figures};
use crate::plan::Plan;
use crate::record::{Metric, RunRecord};
use crate::spec::{Experiment, QuestionSpec};
use crate::stats::{Stat, cell_unit, fmt, fmt_unit};
use crate::table::TableData;
use intruder::questions::Question;

/// One metric of one setting: its unit and its statistic over the replicates.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MetricStat {
    /// The metric's name (`exact.correct_match_rate`).
    pub name: String,
    /// Its unit.
    pub unit: Unit,
    /// Mean and interval over the replicates (clipped to the unit's range).
    pub stat: Stat,
}

/// The aggregated figures of one setting.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SettingResult {
    /// Setting label.
    pub label: String,
    /// Defence name.
    pub defence: String,
    /// Grid values.
    pub params: Vec<(String, Value)>,
    /// Stored-run ids, by replicate.
    pub runs: Vec<String>,
    /// Every metric, in first-seen order.
    pub metrics: Vec<MetricStat>,
}

impl SettingResult {
    /// The statistic of `metric`.
    pub fn get(&self, metric: &str) -> Option<&Stat> {
        self.metrics
            .iter()
            .find(|m| m.name == metric)
            .map(|m| &m.stat)
    }

    /// The unit of `metric`.
    pub fn unit(&self, metric: &str) -> Option<Unit> {
        self.metrics
            .iter()
            .find(|m| m.name == metric)
            .map(|m| m.unit)
    }
}

/// Aggregates stored runs by setting. A proportion of records (a [`Metric`] with its
/// numerator and denominator) is pooled over the replicates (Σ numerators / Σ denominators)
/// with a 95% interval that carries the replicates ([`Stat::pooled`]); any other figure is the mean over replicates with a 95%
/// t-interval clipped to its range (proportions in [0, 1], counts ≥ 0, and ≥ 0 for a score its
/// measure's registry entry declares non-negative). NaN values are left
/// out (a replicate where a rate is undefined does not count).
pub fn aggregate(exp: &Experiment, plan: &Plan, runs: &[RunRecord]) -> Vec<SettingResult> {
    let mut out: Vec<SettingResult> = plan
        .settings
        .iter()
        .map(|s| SettingResult {
            label: s.label.clone(),
            defence: s.defence.clone(),
            params: s.params.clone(),
            runs: Vec::new(),
            metrics: Vec::new(),
        })
        .collect();
    type Values = (String, Unit, Vec<f64>, Vec<Option<(f64, f64)>>);
    let mut values: Vec<Vec<Values>> = vec![Vec::new(); plan.settings.len()];
    for (run, rec) in plan.runs.iter().zip(runs) {
        out[run.setting].runs.push(run.id.clone());
        let vs = &mut values[run.setting];
        for m in metrics(rec) {
            if !m.value.is_finite() {
                continue;
            }
            let name = m.id.to_string();
            match vs.iter_mut().find(|(n, ..)| *n == name) {
                Some((_, _, list, ratios)) => {
                    list.push(m.value);
                    ratios.push(m.ratio);
                }
                None => vs.push((name, m.unit, vec![m.value], vec![m.ratio])),
            }
        }
    }
    for (o, vs) in out.iter_mut().zip(values) {
        o.metrics = vs
            .into_iter()
            .map(|(name, unit, v, ratios)| {
                let (mut lo, hi) = Metric::range(unit);
                if unit == Unit::Score && measure_figure(exp, &name).is_some_and(|d| d.non_negative)
                {
                    lo = 0.0;
                }
                let pooled: Option<Vec<(f64, f64)>> = ratios.into_iter().collect();
                let stat = match pooled {
                    Some(r) if unit == Unit::Proportion => Stat::pooled(&r),
                    _ => Stat::new(v).clipped(lo, hi),
                };
                MetricStat { name, unit, stat }
            })
            .collect();
    }
    out
}

/// The headline figure of an attack: correct re-identifications per target (every record the
/// intruder holds), docs/METHODS.md §7.
pub const HEADLINE: &str = "correct_per_target";

/// The headline table: correct re-identifications per target, one row per setting, one column
/// per attack.
pub fn headline_table(exp: &Experiment, results: &[SettingResult]) -> Option<TableData> {
    if exp.attacks.is_empty() {
        return None;
    }
    let mut header = vec!["setting".to_string()];
    header.extend(exp.attacks.iter().map(|a| a.name.clone()));
    let rows = results
        .iter()
        .map(|s| {
            let mut r = vec![s.label.clone()];
            r.extend(exp.attacks.iter().map(|a| {
                let k = format!("{}.{HEADLINE}", a.name);
                cell_unit(s.get(&k), Unit::Proportion)
            }));
            r
        })
        .collect();
    Some(TableData {
        title: "Correct re-identifications per target (every record the intruder holds), by attack"
            .into(),
        header,
        rows,
    })
}

/// The figures of a question's rates table ([`question_tables`]): each rate with the half-width
/// of its interval, in order.
pub const QUESTION_RATES: &[(&str, &str)] = &[
    ("attack_rate", "attack_rate_error"),
    ("control_rate", "control_rate_error"),
    ("baseline_rate", "baseline_rate_error"),
];

/// A question's risk as a cell: the mean risk over replicates with the question's own interval
/// (each end averaged over replicates) in brackets.
fn risk_cell(s: &SettingResult, q: &str) -> String {
    let get = |f: &str| s.get(&format!("question.{q}.{f}")).map(|x| x.mean);
    match (get("risk"), get("risk_ci_low"), get("risk_ci_high")) {
        (Some(r), Some(lo), Some(hi)) => format!(
            "{} [{}, {}]",
            fmt_unit(r, Unit::Proportion),
            fmt_unit(lo, Unit::Proportion),
            fmt_unit(hi, Unit::Proportion)
        ),
        _ => "–".into(),
    }
}

/// A rate and the half-width of its interval as a cell (`12.0% ± 2.9%`), means over replicates.
fn rate_cell(s: &SettingResult, q: &str, rate: &str, error: &str) -> String {
    let get = |f: &str| s.get(&format!("question.{q}.{f}")).map(|x| x.mean);
    match (get(rate), get(error)) {
        (Some(r), Some(e)) => format!(
            "{} ± {}",
            fmt_unit(r, Unit::Proportion),
            fmt_unit(e, Unit::Proportion)
        ),
        (Some(r), None) => fmt_unit(r, Unit::Proportion),
        _ => "–".into(),
    }
}

/// The questions' tables (none without `[[question]]`): first the risk of every question per
/// setting beside each attack's correct re-identifications per twin, then per question the
/// rates of the main attack, the control attack and the baseline with the successes.
pub fn question_tables(exp: &Experiment, results: &[SettingResult]) -> Vec<TableData> {
    let with_risk: Vec<&QuestionSpec> = exp
        .questions
        .iter()
        .filter(|q| q.question.has_risk())
        .collect();
    let mut tables = Vec::new();
    if !with_risk.is_empty() {
        tables.push(risk_table(exp, &with_risk, results));
    }
    for q in &exp.questions {
        let table = match q.question {
            Question::Membership => figures_table(
                q,
                results,
                "membership inference",
                question_figures(q.question),
            ),
            Question::Distances => figures_table(
                q,
                results,
                "distances to the closest record",
                question_figures(q.question),
            ),
            _ => rates_table(q, results),
        };
        tables.push(table);
    }
    tables
}

/// The risk of every question that has one, with its interval, beside each attack's correct
/// re-identifications per twin.
fn risk_table(
    exp: &Experiment,
    questions: &[&QuestionSpec],
    results: &[SettingResult],
) -> TableData {
    let mut header = vec!["setting".to_string()];
    header.extend(questions.iter().map(|q| format!("{} risk", q.name)));
    header.extend(exp.attacks.iter().map(|a| format!("{} per twin", a.name)));
    let rows = results
        .iter()
        .map(|s| {
            let mut r = vec![s.label.clone()];
            r.extend(questions.iter().map(|q| risk_cell(s, &q.name)));
            r.extend(exp.attacks.iter().map(|a| {
                cell_unit(
                    s.get(&format!("{}.correct_match_rate", a.name)),
                    Unit::Proportion,
                )
            }));
            r
        })
        .collect();
    TableData {
        title: if exp.attacks.is_empty() {
            "Risk of each question, with its interval".into()
        } else {
            "Risk of each question, with its interval, beside each attack's correct re-identifications per twin".into()
        },
        header,
        rows,
    }
}

/// A question's title: its name, with its method when the name differs.
fn question_title(q: &QuestionSpec, what: &str) -> String {
    if q.name == q.question.name() {
        format!("Question {}: {what}", q.name)
    } else {
        format!("Question {} ({}): {what}", q.name, q.question.name())
    }
}

/// The success rates of one of the three questions per setting.
fn rates_table(q: &QuestionSpec, results: &[SettingResult]) -> TableData {
    let mut header = vec!["setting".to_string()];
    header.extend(
        [
            "attack rate",
            "control rate",
            "baseline rate",
            "successes",
            "attacks",
        ]
        .map(String::from),
    );
    let rows = results
        .iter()
        .map(|s| {
            let mut r = vec![s.label.clone()];
            r.extend(
                QUESTION_RATES
                    .iter()
                    .map(|(rate, e)| rate_cell(s, &q.name, rate, e)),
            );
            for f in ["n_success", "n_attacks"] {
                r.push(cell_unit(
                    s.get(&format!("question.{}.{f}", q.name)),
                    Unit::Count,
                ));
            }
            r
        })
        .collect();
    TableData {
        title: question_title(q, "success rates"),
        header,
        rows,
    }
}

/// Every figure of a membership or distances question per setting, headed by the glossary's
/// names.
fn figures_table(
    q: &QuestionSpec,
    results: &[SettingResult],
    what: &str,
    figures: &[FigureDoc],
) -> TableData {
    let mut header = vec!["setting".to_string()];
    header.extend(figures.iter().map(|d| d.name.to_string()));
    let rows =
        results
            .iter()
            .map(|s| {
                let mut r = vec![s.label.clone()];
                r.extend(figures.iter().map(|d| {
                    cell_unit(s.get(&format!("question.{}.{}", q.name, d.figure)), d.unit)
                }));
                r
            })
            .collect();
    TableData {
        title: question_title(q, what),
        header,
        rows,
    }
}

/// The figures of an attack's first summary table (the intruder's three questions), in order.
pub const ATTACK_TABLE: &[&str] = &[
    "intruder_records",
    "twins",
    "correct_matches",
    "correct_per_target",
    "correct_match_rate",
    "declared",
    "precision",
];

/// The figures of an attack's second summary table (ties and ranks), in order; two tables
/// rather than one wide one keep the report readable at 1000 px.
pub const ATTACK_TIES_TABLE: &[&str] = &[
    "expected_correct",
    "unique_correct",
    "le2_correct",
    "rank1_rate",
    "in_candidates_rate",
];

/// The summary tables: one per attack (its headline figures), one for risk, one for utility;
/// the `[report] metrics` list replaces them with a single table.
pub fn summary_tables(exp: &Experiment, results: &[SettingResult]) -> Vec<TableData> {
    let groups = summary_groups(exp, results);

    groups
        .into_iter()
        .filter(|(_, m)| !m.is_empty())
        .map(|(title, m)| {
            // Within one attack's or risk measure's table the scope is in the title.
            let scoped = m.len() > 1 && common_prefix(&m) > 0;
            let mut header = vec!["setting".to_string()];
            header.extend(m.iter().map(|k| {
                if scoped {
                    figure_name(exp, k)
                } else {
                    human_name(exp, k)
                }
            }));
            let rows = results
                .iter()
                .map(|s| {
                    let mut r = vec![s.label.clone()];
                    r.extend(m.iter().map(|k| {
                        let unit = s.unit(k).unwrap_or(Unit::Score);
                        cell_unit(s.get(k), unit)
                    }));
                    r
                })
                .collect();
            TableData {
                title,
                header,
                rows,
            }
        })
        .collect()
}

/// The summary tables' titles and metric ids.
fn summary_groups(exp: &Experiment, results: &[SettingResult]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    if !exp.report.metrics.is_empty() {
        groups.push(("Selected figures".into(), exp.report.metrics.clone()));
    } else {
        for a in &exp.attacks {
            let ids = |t: &[&str]| {
                t.iter()
                    .map(|k| format!("{}.{k}", a.name))
                    .collect::<Vec<_>>()
            };
            let mut ties = ids(ATTACK_TIES_TABLE);
            if a.sensitive.is_some() {
                ties.push(format!("{}.attribute_A", a.name));
            }
            let title = if a.name == a.method {
                format!("Attack {}", a.name)
            } else {
                format!("Attack {} ({})", a.name, a.method)
            };
            groups.push((
                format!("{title}: correct re-identifications and declared links"),
                ids(ATTACK_TABLE),
            ));
            groups.push((format!("{title}: ties (c_i) and ranks"), ties));
        }
        for r in &exp.risk {
            let m = [
                "n",
                "n_deleted",
                "sample_uniques",
                "k_le_5",
                "k_le_10",
                "theta",
                "n_match_1",
                "global_risk",
                "bender_r",
                "household_global_risk",
                "l_distinct_min",
                "score_max",
                "dis_score_max",
                "rule_estimate",
                "tau1",
            ]
            .into_iter()
            .map(|k| format!("risk.{}.{k}", r.name))
            .filter(|k| results.iter().any(|s| s.get(k).is_some()))
            .collect();
            let how = if r.measure_name() == intruder_risk::DEFAULT_MEASURE {
                r.missing().to_string()
            } else {
                format!("{}, {}", r.measure_name(), r.missing())
            };
            let title = if how == r.name {
                format!("Risk {}", r.name)
            } else {
                format!("Risk {} ({how})", r.name)
            };
            groups.push((title, m));
        }
        let um: Vec<String> = [
            "utility.il1s",
            "utility.il1s_per_cell",
            "utility.mean_rel_diff_max",
            "utility.var_rel_diff_max",
            "utility.cor_max_abs_diff",
            "utility.pmse_ratio",
            "utility.cell_loss",
            "utility.ncp",
            "utility.ci_overlap_mean",
            "masking.records_altered_share",
            "masking.records_changed_or_removed_share",
            "masking.records_removed_share",
            "masking.records_changed_share",
            "masking.suppressions",
        ]
        .into_iter()
        .filter(|k| results.iter().any(|s| s.get(k).is_some()))
        .map(str::to_string)
        .collect();
        if !um.is_empty() {
            groups.push(("Information loss".into(), um));
        }
    }
    groups
}

/// Every metric id the summary tables show, in order (for the glossary).
pub fn shown_metrics(exp: &Experiment, results: &[SettingResult]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, m) in summary_groups(exp, results) {
        for k in m {
            if !out.contains(&k) && results.iter().any(|s| s.get(&k).is_some()) {
                out.push(k);
            }
        }
    }
    out
}

fn common_prefix(m: &[String]) -> usize {
    let Some(first) = m.first() else { return 0 };
    let Some(dot) = first.rfind('.') else {
        return 0;
    };
    let p = &first[..=dot];
    if m.len() > 1
        && m.iter()
            .all(|k| k.starts_with(p) && !k[p.len()..].contains('.'))
    {
        p.len()
    } else {
        0
    }
}

/// Ours beside the published values (`[[published]]`).
pub fn published_table(exp: &Experiment, results: &[SettingResult]) -> Option<TableData> {
    if exp.published.is_empty() {
        return None;
    }
    let rows = exp
        .published
        .iter()
        .map(|p| {
            let setting = results.iter().find(|s| s.label == p.setting);
            let ours = setting.and_then(|s| s.get(&p.metric));
            let unit = setting.and_then(|s| s.unit(&p.metric));
            let show = |x: f64| unit.map_or_else(|| fmt(x), |u| fmt_unit(x, u));
            vec![
                p.setting.clone(),
                p.metric.clone(),
                show(p.value),
                cell_unit(ours, unit.unwrap_or(Unit::Score)),
                ours.map_or("–".into(), |o| show(o.mean - p.value)),
                p.source.clone(),
                p.note.clone(),
            ]
        })
        .collect();
    Some(TableData {
        title: "Published values beside ours".into(),
        header: [
            "setting",
            "figure",
            "published",
            "ours (95% interval)",
            "difference",
            "source",
            "why they differ",
        ]
        .map(str::to_string)
        .to_vec(),
        rows,
    })
}

/// The verdict table: per setting, what its defence promised and whether the promise held
/// (over the replicates), the smallest class under each rule, what the cross-examination's exact
/// attack and the experiment's first attack achieved, and what the masking cost; and the
/// distinct warnings of the cross-examinations, each prefixed with its setting. `None` when no
/// run was cross-examined (`scenario.check = false`).
pub fn verdict_table(
    exp: &Experiment,
    plan: &Plan,
    runs: &[RunRecord],
    results: &[SettingResult],
) -> Option<(TableData, Vec<String>)> {
    if runs.iter().all(|r| r.checks.is_empty()) {
        return None;
    }
    let mut warnings: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    let loss: Vec<&str> = ["utility.cell_loss", "utility.pmse_ratio", "utility.il1s"]
        .into_iter()
        .filter(|k| results.iter().any(|s| s.get(k).is_some()))
        .collect();
    for (i, s) in results.iter().enumerate() {
        let checks: Vec<&crate::record::CheckRecord> = plan
            .runs
            .iter()
            .zip(runs)
            .filter(|(r, _)| r.setting == i)
            .filter_map(|(_, rec)| rec.checks.first())
            .collect();
        for (r, rec) in plan.runs.iter().zip(runs) {
            if r.setting != i {
                continue;
            }
            for c in &rec.checks {
                for w in &c.warnings {
                    let w = format!("{}: {w}", s.label);
                    if !warnings.contains(&w) {
                        warnings.push(w);
                    }
                }
            }
        }
        let promise = checks.first().map_or("–".into(), |c| c.promise());
        let reps = checks.len();
        let count = |v: &str| checks.iter().filter(|c| c.verdict == v).count();
        let verdict = if checks.is_empty() || checks.iter().all(|c| c.step == 0) {
            "no promise".to_string()
        } else if count("contradicted") > 0 {
            format!("contradicted ({} of {reps})", count("contradicted"))
        } else if count("not-covered") > 0 {
            format!(
                "holds only under the rule promised ({} of {reps})",
                count("not-covered")
            )
        } else {
            format!("holds ({reps} of {reps})")
        };
        let smallest = |rule: &str| {
            s.get(&format!("check.{rule}_min_class"))
                .and_then(|st| st.values.iter().copied().reduce(f64::min))
                .map_or("–".into(), fmt)
        };
        let mut row = vec![
            s.label.clone(),
            promise,
            verdict,
            smallest("listwise"),
            smallest("as_value"),
            smallest("wildcard"),
            cell_unit(s.get("check.listwise_rate"), Unit::Proportion),
            cell_unit(s.get("check.wildcard_rate"), Unit::Proportion),
        ];
        if let Some(a) = exp.attacks.first() {
            row.push(cell_unit(
                s.get(&format!("{}.{HEADLINE}", a.name)),
                Unit::Proportion,
            ));
        }
        row.push(cell_unit(
            s.get("check.key_cells_suppressed"),
            Unit::Proportion,
        ));
        row.push(cell_unit(
            s.get("masking.records_altered_share"),
            Unit::Proportion,
        ));
        for k in &loss {
            row.push(cell_unit(s.get(k), s.unit(k).unwrap_or(Unit::Score)));
        }
        rows.push(row);
    }
    let mut header: Vec<String> = [
        "setting",
        "promise",
        "verdict",
        "smallest class, listwise",
        "smallest class, as-value",
        "smallest class, wildcard",
        "exact attack, listwise (all known)",
        "exact attack, wildcard (all known)",
    ]
    .map(str::to_string)
    .to_vec();
    if let Some(a) = exp.attacks.first() {
        header.push(format!("{} (scenario)", a.name));
    }
    header.push("key cells suppressed".into());
    header.push("records changed, recoded or removed".into());
    header.extend(loss.iter().map(|k| human_name(exp, k)));
    Some((
        TableData {
            title: "Verdict: what each setting promised, what the attacks achieved against it, and what it cost".into(),
            header,
            rows,
        },
        warnings,
    ))
}
