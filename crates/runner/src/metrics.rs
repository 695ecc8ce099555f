//! Metrics computed from the stored raw outcome of a run ([`RunRecord`]), so a new metric needs
//! no rerun: add it here and run `intruder run FILE` again (stored runs are reused). Every
//! metric carries its unit.

use intruder_data::report::{Report, Unit};

use crate::record::{AttackRecord, Metric, RunRecord, Scope};

/// Every metric of one run, in a fixed order: `masking.*`, `intruder.*`, then `<attack>.*`,
/// `risk.<name>.*`, `utility.*`, `check.*` and `question.<name>.*`.
pub fn metrics(run: &RunRecord) -> Vec<Metric> {
    let m = &run.masking;
    let removed = m.rows_in.saturating_sub(m.rows_out);
    let count = |k: &str, x: usize| Metric::new(Scope::Masking, k, x as f64, Unit::Count);
    let mut out = vec![
        count("rows_in", m.rows_in),
        count("rows_out", m.rows_out),
        count("records_removed", removed),
        count("cells_changed", m.cells_changed),
        count("suppressions", m.suppressions),
        count("records_changed", m.records_changed),
        count("records_recoded", m.records_recoded),
        count("records_changed_or_recoded", m.records_changed_or_recoded),
    ];
    // Shares of the file's own records: no sampling behind them, so they are averaged over
    // replicates (t-interval) rather than pooled with a binomial (Wilson) interval, which would
    // put a spurious interval around a subsample's exact 50%.
    let share = |k: &str, num: usize, den: usize| {
        Metric::ratio(Scope::Masking, k, num, den).map(|mut m| {
            m.ratio = None;
            m
        })
    };
    out.extend(share(
        "records_changed_share",
        m.records_changed,
        m.rows_out,
    ));
    out.extend(share("records_removed_share", removed, m.rows_in));
    out.extend(share(
        "records_changed_or_removed_share",
        (m.records_changed + removed).min(m.rows_in),
        m.rows_in,
    ));
    out.extend(share(
        ALTERED_SHARE,
        (m.records_changed_or_recoded + removed).min(m.rows_in),
        m.rows_in,
    ));
    out.push(Metric::new(
        Scope::Intruder,
        "records",
        run.intruder.records as f64,
        Unit::Count,
    ));
    for a in &run.attacks {
        out.extend(attack_metrics(a));
    }
    for r in &run.risk {
        out.extend(report_metrics(&r.report, || Scope::Risk(r.name.clone())));
    }
    for u in &run.utility {
        out.extend(report_metrics(&u.report, || Scope::Utility));
    }
    out.extend(check_metrics(run));
    for q in &run.questions {
        out.extend(report_metrics(&q.report, || {
            Scope::Question(q.name.clone())
        }));
    }
    out
}

/// The cross-examination's figures (`check.*`), of the first check (the first promise of the
/// pipeline, or the scenario's keys when nothing is promised): per rule the smallest class and
/// the records below the promise, the exact attack's expected correct re-identifications per
/// target (pooled over replicates like an attack's rate) and unique re-identifications;
/// `check.holds` is 1 when every promise of the run holds under every rule, `check.key_cells_suppressed`
/// the share of key cells blanked.
pub fn check_metrics(run: &RunRecord) -> Vec<Metric> {
    let Some(c) = run.checks.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in &c.rules {
        let id = r.rule.replace('-', "_");
        if let Some(m) = r.min_class {
            out.push(Metric::new(
                Scope::Check,
                format!("{id}_min_class"),
                m as f64,
                Unit::Count,
            ));
        }
        if c.step > 0 {
            out.push(Metric::new(
                Scope::Check,
                format!("{id}_below"),
                r.below as f64,
                Unit::Count,
            ));
        }
        if let Some((targets, expected, unique)) = r.attack
            && targets > 0
        {
            out.push(Metric {
                ratio: Some((expected, targets as f64)),
                ..Metric::new(
                    Scope::Check,
                    format!("{id}_rate"),
                    expected / targets as f64,
                    Unit::Proportion,
                )
            });
            out.push(Metric::new(
                Scope::Check,
                format!("{id}_unique"),
                unique as f64,
                Unit::Count,
            ));
        }
    }
    if c.key_cells > 0 {
        out.push(Metric::new(
            Scope::Check,
            "key_cells_suppressed",
            c.suppressed as f64 / c.key_cells as f64,
            Unit::Proportion,
        ));
    }
    if run.checks.iter().any(|c| c.step > 0) {
        let holds = run
            .checks
            .iter()
            .filter(|c| c.step > 0)
            .all(|c| c.verdict == "holds");
        out.push(Metric::new(
            Scope::Check,
            "holds",
            if holds { 1.0 } else { 0.0 },
            Unit::Proportion,
        ));
    }
    out
}

/// The numeric figures of a report (a bool counts as 0/1), with their units.
fn report_metrics(report: &Report, scope: impl Fn() -> Scope) -> Vec<Metric> {
    report
        .figures
        .iter()
        .filter_map(|f| {
            f.as_f64()
                .map(|x| Metric::new(scope(), f.name.clone(), x, f.unit))
        })
        .collect()
}

/// An attack's figures, recomputed from its per-record outcomes (docs/METHODS.md §2 and §7): the
/// intruder's targets (every record it holds), twins, correct matches per target and per twin,
/// Mitra's `Σ 1/c_i` over records whose twin is among the tied best, `c_i = 1` and `c_i ≤ 2`
/// counts, rank-1 and in-candidates rates, and the precision and recall of the declared links;
/// attribute disclosure comes from the evaluator's figures.
pub fn attack_metrics(a: &AttackRecord) -> Vec<Metric> {
    let r = &a.records;
    let n = r.twin.len();
    let twins = r.twin.iter().filter(|&&t| t).count();
    let n_correct = r.correct.iter().filter(|&&c| c).count();
    let correct_declared = r
        .correct
        .iter()
        .zip(&r.declared)
        .filter(|&(&c, &d)| c && d)
        .count();
    let mut expected = 0.0;
    let mut unique = 0usize;
    let mut le2 = 0usize;
    let mut rank1 = 0usize;
    let mut rank2_3 = 0usize;
    let mut in_cand = 0usize;
    for i in 0..n {
        let rank = r.twin_rank.get(i).copied().unwrap_or(0);
        if rank == 1 {
            rank1 += 1;
            let c = r.best_ties.get(i).copied().unwrap_or(1).max(1);
            expected += 1.0 / c as f64;
            if c == 1 {
                unique += 1;
            }
            if c <= 2 {
                le2 += 1;
            }
        }
        if rank == 2 || rank == 3 {
            rank2_3 += 1;
        }
        if rank >= 1 {
            in_cand += 1;
        }
    }
    let with_cand = r.candidates.iter().filter(|&&c| c > 0).count();
    let scope = || Scope::Attack(a.name.clone());
    let count = |k: &str, x: f64| Metric::new(scope(), k, x, Unit::Count);
    let share = |k: &str, x: f64| Metric::new(scope(), k, x, Unit::Proportion);
    let ratio = |k: &str, num: usize, den: usize| Metric::ratio(scope(), k, num, den);
    let mut out = vec![
        count("intruder_records", n as f64),
        count("twins", twins as f64),
        count("with_candidates", with_cand as f64),
        count("correct_matches", n_correct as f64),
    ];
    out.extend(ratio("correct_per_target", n_correct, n));
    out.extend(ratio("correct_match_rate", n_correct, twins));
    if twins > 0 {
        out.push(share("expected_rate", expected / twins as f64));
    }
    out.extend(ratio("rank1_rate", rank1, twins));
    out.extend(ratio("rank_2_3_rate", rank2_3, twins));
    out.extend(ratio("in_candidates_rate", in_cand, twins));
    out.push(count("expected_correct", expected));
    out.push(count("unique_correct", unique as f64));
    out.push(count("le2_correct", le2 as f64));
    out.push(count("released_records", a.released_records as f64));
    out.push(count("declared", a.declared as f64));
    out.push(count("correct_declared", correct_declared as f64));
    let precision = ratio("precision", correct_declared, a.declared);
    let recall = ratio("recall", correct_declared, twins);
    let f1 = match (&precision, &recall) {
        (Some(p), Some(r)) if p.value + r.value > 0.0 => {
            Some(2.0 * p.value * r.value / (p.value + r.value))
        }
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    };
    out.extend(precision);
    out.extend(recall);
    if let Some(f1) = f1 {
        out.push(share("f1", f1));
    }
    if let Some(x) = a.attribute_a {
        out.push(count("attribute_A", x as f64));
    }
    if let Some(x) = a.attribute_mean_p {
        out.push(share("attribute_mean_p", x));
    }
    out
}

/// A figure of the registry: its name, unit and glossary entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FigureDoc {
    /// The figure's name (the metric id's last part; `masking.…`, `intruder.…` in full).
    pub figure: &'static str,
    /// Its unit.
    pub unit: Unit,
    /// The human name, for axis titles, legends and table headers.
    pub name: &'static str,
    /// What it is, precisely.
    pub definition: &'static str,
    /// Who uses it (paper, section), or the docs/METHODS.md section that defines it.
    pub reference: &'static str,
}

const fn doc(
    figure: &'static str,
    unit: Unit,
    name: &'static str,
    definition: &'static str,
    reference: &'static str,
) -> FigureDoc {
    FigureDoc {
        figure,
        unit,
        name,
        definition,
        reference,
    }
}

/// The figures every attack produces (`<attack>.<figure>`), with their units and glossary
/// entries (for checking `[report]` names and for the report's glossary).
pub const ATTACK_FIGURES: &[FigureDoc] = &[
    doc(
        "intruder_records",
        Unit::Count,
        "targets",
        "records the intruder holds (its targets), whether or not their person is in the release",
        "docs/METHODS.md §7",
    ),
    doc(
        "twins",
        Unit::Count,
        "twins",
        "targets whose person is in the released file (known to the simulator only)",
        "Bender et al. (2001); Mitra et al.",
    ),
    doc(
        "with_candidates",
        Unit::Count,
        "targets with a candidate",
        "targets for which the attack listed at least one released record",
        "docs/METHODS.md §2",
    ),
    doc(
        "correct_matches",
        Unit::Count,
        "correct re-identifications",
        "targets whose chosen candidate (ties broken at random, seeded) is their twin",
        "docs/METHODS.md §2",
    ),
    doc(
        "correct_per_target",
        Unit::Proportion,
        "correct re-identifications per target",
        "correct re-identifications / targets: what the intruder achieves over everyone it holds",
        "docs/METHODS.md §7 (per target)",
    ),
    doc(
        "correct_match_rate",
        Unit::Proportion,
        "correct re-identifications per twin",
        "correct re-identifications / twins: the rate when the intruder knows who is in the release (response knowledge)",
        "Bender et al. (2001); Mitra et al. (per twin)",
    ),
    doc(
        "expected_rate",
        Unit::Proportion,
        "expected re-identifications per twin",
        "Σ 1/c_i over twins ranked first (c_i: candidates tied at the best score) / twins",
        "Mitra et al. (1/c_i)",
    ),
    doc(
        "rank1_rate",
        Unit::Proportion,
        "twins ranked first",
        "twins among the best-scored candidates (tied or not) / twins",
        "Bender et al. (2001)",
    ),
    doc(
        "rank_2_3_rate",
        Unit::Proportion,
        "twins with one or two closer candidates",
        "twins at competition rank 2 or 3 (one or two candidates scored strictly better) / twins; Bender's \"in nearly all other cases more than two distances were smaller\" puts it near 0",
        "Bender et al. (2001), distance criterion",
    ),
    doc(
        "in_candidates_rate",
        Unit::Proportion,
        "twins among the candidates",
        "twins listed among the candidates at any rank (k-means: in the twin's cluster) / twins",
        "Bender et al. (2001), k-means",
    ),
    doc(
        "expected_correct",
        Unit::Count,
        "expected re-identifications",
        "Σ 1/c_i over targets whose twin is among the c_i tied best candidates",
        "Mitra et al. (1/c_i)",
    ),
    doc(
        "unique_correct",
        Unit::Count,
        "unique correct (c_i = 1)",
        "targets whose twin is the only best candidate",
        "Mitra et al.",
    ),
    doc(
        "le2_correct",
        Unit::Count,
        "correct among ≤ 2 (c_i ≤ 2)",
        "targets whose twin is among at most two tied best candidates",
        "Mitra et al.",
    ),
    doc(
        "released_records",
        Unit::Count,
        "released records searched",
        "records of the released file the attack searched (fewer under twins-only)",
        "Bender et al. (2001)",
    ),
    doc(
        "declared",
        Unit::Count,
        "declared links",
        "targets whose best score reaches the attack's threshold (every chosen candidate when it has none)",
        "Fellegi & Sunter (1969)",
    ),
    doc(
        "correct_declared",
        Unit::Count,
        "correct declared links",
        "declared links whose candidate is the twin",
        "Fellegi & Sunter (1969)",
    ),
    doc(
        "precision",
        Unit::Proportion,
        "precision of declared links",
        "correct declared links / declared links: how far the intruder can trust a link it declares",
        "Fellegi & Sunter (1969); docs/METHODS.md §7",
    ),
    doc(
        "recall",
        Unit::Proportion,
        "recall of declared links",
        "correct declared links / twins",
        "Fellegi & Sunter (1969)",
    ),
    doc(
        "f1",
        Unit::Proportion,
        "F1 of declared links",
        "harmonic mean of precision and recall",
        "docs/METHODS.md §2",
    ),
    doc(
        "attribute_A",
        Unit::Count,
        "attribute disclosures (A)",
        "targets with p_i ≥ 0.5: at least half of the tied best candidates carry a sensitive value within 5% of the truth",
        "Mitra et al., eq. 1 and 3",
    ),
    doc(
        "attribute_mean_p",
        Unit::Proportion,
        "mean attribute disclosure p_i",
        "mean over targets of p_i, the share of tied best candidates within 5% of the true sensitive value",
        "Mitra et al., eq. 1",
    ),
];

/// The cross-examination's figures (`check.*`, [`check_metrics`]).
pub const CHECK_FIGURES: &[FigureDoc] = &[
    doc(
        "check.listwise_rate",
        Unit::Proportion,
        "exact attack, listwise (all known)",
        "the cross-examination's exact attack under the listwise rule, every original record known on the promise's keys (public recodings applied): Σ 1/c_i over the targets whose own released record is among their c_i candidates (complete released records equal to them), divided by the targets; a promise of k under this rule bounds it by 1/k",
        "Mitra et al. §3.1; intruder_eval::verdict",
    ),
    doc(
        "check.wildcard_rate",
        Unit::Proportion,
        "exact attack, wildcard (all known)",
        "the same attack under the wildcard rule: a blank released cell matches any value",
        "Mulder (n_match); intruder_eval::verdict",
    ),
    doc(
        "check.listwise_unique",
        Unit::Count,
        "unique re-identifications, listwise",
        "targets whose only listwise candidate is their own released record",
        "intruder_eval::verdict",
    ),
    doc(
        "check.wildcard_unique",
        Unit::Count,
        "unique re-identifications, wildcard",
        "targets whose only wildcard candidate is their own released record",
        "intruder_eval::verdict",
    ),
    doc(
        "check.listwise_min_class",
        Unit::Count,
        "smallest class, listwise",
        "the smallest class among the complete released records (the release's k under the listwise rule)",
        "Samarati & Sweeney (1998)",
    ),
    doc(
        "check.as_value_min_class",
        Unit::Count,
        "smallest class, as-value",
        "the smallest class of records sharing their visible values and their blanks (missing as a category)",
        "intruder_eval::verdict",
    ),
    doc(
        "check.wildcard_min_class",
        Unit::Count,
        "smallest class, wildcard",
        "the fewest released records matching a released record when a blank matches anything (Mulder's n_match, sdcMicro's freqCalc)",
        "Mulder; sdcMicro freqCalc",
    ),
    doc(
        "check.listwise_below",
        Unit::Count,
        "records below the promise, listwise",
        "complete released records in classes below the promised k (or above the promised risk)",
        "intruder_eval::verdict",
    ),
    doc(
        "check.as_value_below",
        Unit::Count,
        "records below the promise, as-value",
        "released records whose class of visible values and blanks is below the promised k (or above the promised risk)",
        "intruder_eval::verdict",
    ),
    doc(
        "check.wildcard_below",
        Unit::Count,
        "records below the promise, wildcard",
        "released records matched by fewer than k released records when a blank matches anything (or above the promised risk)",
        "intruder_eval::verdict",
    ),
    doc(
        "check.key_cells_suppressed",
        Unit::Proportion,
        "key cells suppressed",
        "key cells of the release that were observed in the original and are blank",
        "–",
    ),
    doc(
        "check.holds",
        Unit::Proportion,
        "promises kept",
        "share of replicates in which every promise of the setting held under every rule",
        "intruder_eval::verdict",
    ),
];

/// The figures a `[[question]]` of `question` produces (`question.<name>.<figure>`), with their
/// glossary entries: the facade's list (`intruder::questions::QuestionFigure`, the figures of
/// `Answer::report`), with the question's reference.
pub fn question_figures(question: intruder::questions::Question) -> &'static [FigureDoc] {
    use intruder::questions::Question;
    static DOCS: std::sync::LazyLock<Vec<(Question, Vec<FigureDoc>)>> =
        std::sync::LazyLock::new(|| {
            Question::ALL
                .into_iter()
                .map(|q| {
                    let docs = q
                        .figures()
                        .iter()
                        .map(|f| doc(f.figure, f.unit, f.label, f.definition, q.reference()))
                        .collect();
                    (q, docs)
                })
                .collect()
        });
    DOCS.iter()
        .find(|(q, _)| *q == question)
        .map_or(&[], |(_, d)| d.as_slice())
}

/// The glossary entry of a question's figure, whichever question reports it.
pub fn question_figure_doc(figure: &str) -> Option<&'static FigureDoc> {
    intruder::questions::Question::ALL
        .into_iter()
        .flat_map(question_figures)
        .find(|d| d.figure == figure)
}

/// The masking figure the risk–utility map and the verdict table show as the cost when no
/// utility measure says more: the share of records changed, recoded or removed.
pub const ALTERED_SHARE: &str = "records_altered_share";

/// The masking and intruder figures, with their glossary entries.
pub const MASKING_FIGURES: &[FigureDoc] = &[
    doc(
        "masking.rows_in",
        Unit::Count,
        "records before masking",
        "records of the original file",
        "–",
    ),
    doc(
        "masking.rows_out",
        Unit::Count,
        "records released",
        "records of the released (masked) file",
        "–",
    ),
    doc(
        "masking.records_removed",
        Unit::Count,
        "records removed",
        "records before masking − records released (record removal, subsampling)",
        "Dalenius (1986), destruction",
    ),
    doc(
        "masking.cells_changed",
        Unit::Count,
        "cells changed",
        "cells of the released records whose value differs from the original",
        "–",
    ),
    doc(
        "masking.suppressions",
        Unit::Count,
        "cells suppressed",
        "cells set missing by local suppression",
        "sdcMicro localSuppression",
    ),
    doc(
        "masking.records_changed",
        Unit::Count,
        "records changed",
        "released records with a cell changed by a step that is not a public recoding (a recoded value is the original on the released scale: its loss is generalisation, utility information-loss)",
        "–",
    ),
    doc(
        "masking.records_recoded",
        Unit::Count,
        "records recoded",
        "released records with a cell recoded by a public recoding (global recoding, rounding, top and bottom coding)",
        "–",
    ),
    doc(
        "masking.records_changed_or_recoded",
        Unit::Count,
        "records changed or recoded",
        "released records with a cell changed or recoded by any step, each counted once",
        "–",
    ),
    doc(
        "masking.records_changed_share",
        Unit::Proportion,
        "share of released records changed",
        "records changed / records released (blind to removed records)",
        "–",
    ),
    doc(
        "masking.records_removed_share",
        Unit::Proportion,
        "share of records removed",
        "records removed / records before masking",
        "–",
    ),
    doc(
        "masking.records_changed_or_removed_share",
        Unit::Proportion,
        "share of records changed or removed",
        "(records changed + records removed) / records before masking: information loss that counts record removal and subsampling",
        "–",
    ),
    doc(
        "masking.records_altered_share",
        Unit::Proportion,
        "share of records changed, recoded or removed",
        "(records changed or recoded + records removed) / records before masking: every record the release does not show as it was — perturbed, generalised (a recoded cell counts: the recoding is published, but the detail is lost) or left out; the default information loss of the risk–utility map and the verdict table",
        "–",
    ),
    doc(
        "intruder.records",
        Unit::Count,
        "intruder's records",
        "records the intruder holds",
        "–",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{AttackOutcomes, EvaluatorCounts, IntruderRecord, MaskingRecord};

    fn attack() -> AttackRecord {
        // Five targets; four have a twin in the release. Targets 0 and 1 are re-identified
        // correctly (0 alone at the best score, 1 among two tied); 2 picks a wrong record;
        // 3 has no candidate; 4 has no twin and a (necessarily wrong) candidate. Declared
        // links: 0, 2 and 4 (1's best score is under the threshold).
        AttackRecord {
            name: "a".into(),
            method: "exact".into(),
            released_records: 9,
            declared: 3,
            threshold: Some(0.5),
            precision: Some(1.0 / 3.0),
            recall: Some(0.25),
            f1: None,
            attribute_a: None,
            attribute_mean_p: None,
            notes: Vec::new(),
            evaluator: EvaluatorCounts::default(),
            records: AttackOutcomes {
                twin: vec![true, true, true, true, false],
                candidates: vec![1, 2, 3, 0, 1],
                best_ties: vec![1, 2, 1, 0, 1],
                twin_rank: vec![1, 1, 2, 0, 0],
                correct: vec![true, true, false, false, false],
                declared: vec![true, false, true, false, true],
                p: vec![None; 5],
            },
            model: None,
            warnings: Vec::new(),
        }
    }

    fn get<'a>(m: &'a [Metric], k: &str) -> &'a Metric {
        m.iter().find(|x| x.id.figure == k).unwrap()
    }

    #[test]
    fn three_denominators_of_correct_reidentification() {
        let m = attack_metrics(&attack());
        // Per target: 2 correct / 5 targets; per twin: 2 / 4; precision: 1 correct declared
        // link (target 0) / 3 declared; recall 1 / 4 twins.
        assert_eq!(get(&m, "correct_per_target").value, 0.4);
        assert_eq!(get(&m, "correct_per_target").ratio, Some((2.0, 5.0)));
        assert_eq!(get(&m, "correct_match_rate").value, 0.5);
        assert_eq!(get(&m, "correct_match_rate").ratio, Some((2.0, 4.0)));
        assert_eq!(get(&m, "correct_declared").value, 1.0);
        assert_eq!(get(&m, "precision").value, 1.0 / 3.0);
        assert_eq!(get(&m, "precision").ratio, Some((1.0, 3.0)));
        assert_eq!(get(&m, "recall").value, 0.25);
        // F1 = 2 · (1/3) · (1/4) / (1/3 + 1/4) = (1/6) / (7/12) = 2/7.
        assert!((get(&m, "f1").value - 2.0 / 7.0).abs() < 1e-15);
        // Σ 1/c_i over twins ranked first: 1/1 + 1/2.
        assert_eq!(get(&m, "expected_correct").value, 1.5);
        assert_eq!(get(&m, "expected_rate").value, 1.5 / 4.0);
        assert_eq!(get(&m, "expected_rate").ratio, None);
        // Twin ranks 1, 1, 2 and absent: one twin of four at rank 2 or 3.
        assert_eq!(get(&m, "rank_2_3_rate").ratio, Some((1.0, 4.0)));
        // Every attack figure is documented, under its unit.
        for x in &m {
            let d = ATTACK_FIGURES
                .iter()
                .find(|d| d.figure == x.id.figure)
                .unwrap_or_else(|| panic!("{} has no glossary entry", x.id));
            assert_eq!(d.unit, x.unit, "{}", x.id);
        }
    }

    #[test]
    fn no_targets_no_rates_and_no_panic() {
        let mut a = attack();
        a.declared = 0;
        a.records = AttackOutcomes::default();
        let m = attack_metrics(&a);
        for k in [
            "correct_per_target",
            "correct_match_rate",
            "precision",
            "recall",
            "f1",
        ] {
            assert!(m.iter().all(|x| x.id.figure != k), "{k} is undefined");
        }
        assert_eq!(get(&m, "intruder_records").value, 0.0);
    }

    #[test]
    fn removal_and_subsampling_count_as_loss() {
        let run = RunRecord {
            run: "r".into(),
            key: "k".into(),
            experiment: "e".into(),
            version: "v".into(),
            seed: 1,
            replicate: 0,
            setting: "subsample".into(),
            defence: "subsample".into(),
            params: Vec::new(),
            steps: Vec::new(),
            intruder: IntruderRecord {
                source_records: 10,
                records: 2,
            },
            masking: MaskingRecord {
                rows_in: 10,
                rows_out: 5,
                cells_changed: 1,
                suppressions: 0,
                records_changed: 1,
                records_recoded: 2,
                records_changed_or_recoded: 2,
            },
            attacks: Vec::new(),
            risk: Vec::new(),
            utility: Vec::new(),
            checks: Vec::new(),
            questions: Vec::new(),
            failures: Vec::new(),
            searches: Vec::new(),
        };
        let m = metrics(&run);
        let v = |k: &str| m.iter().find(|x| x.id.to_string() == k).unwrap().value;
        assert_eq!(v("masking.records_removed"), 5.0);
        assert_eq!(v("masking.records_removed_share"), 0.5);
        // (1 changed + 5 removed) / 10 records before masking.
        assert_eq!(v("masking.records_changed_or_removed_share"), 0.6);
        // The old share, over the released records only, is blind to the removal.
        assert_eq!(v("masking.records_changed_share"), 0.2);
        // 2 records changed or recoded (one of them both) + 5 removed, of 10: what the map and
        // the verdict table show as the cost.
        assert_eq!(v("masking.records_altered_share"), 0.7);
        assert_eq!(v("masking.records_recoded"), 2.0);
        for x in m.iter().filter(|x| x.id.scope == Scope::Masking) {
            let id = x.id.to_string();
            assert!(
                MASKING_FIGURES
                    .iter()
                    .any(|d| d.figure == id && d.unit == x.unit),
                "{id}"
            );
        }
        // Nothing released, nothing in: no share, no panic.
        let mut empty = run.clone();
        empty.masking = MaskingRecord {
            rows_in: 0,
            rows_out: 0,
            cells_changed: 0,
            suppressions: 0,
            records_changed: 0,
            records_recoded: 0,
            records_changed_or_recoded: 0,
        };
        let m = metrics(&empty);
        assert!(m.iter().all(|x| !x.id.figure.ends_with("_share")));
    }
}
