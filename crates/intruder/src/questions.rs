//! The three questions of anonymisation — singling out, linkability, inference — as every
//! surface asks them (`intruder attack --method singling-out`, `intruder.attack(...,
//! method="linkability", control=df)`, an experiment's `[[question]]` tables).
//!
//! A question needs no ground truth: it attacks the **original** records the release was made
//! from, the same attack runs against a **control** set of real records the release never saw,
//! and a random **baseline** guesses. The definitions, the parameters (anonymeter's names) and
//! the risk are those of `intruder-questions`; this module picks the question from a method
//! name, reads its parameters from one TOML table (with `confidence_level`, which every
//! question shares), runs it and turns its result into a [`Report`] whose figures carry
//! anonymeter's names.
//!
//! # Example
//! ```
//! use intruder::questions::{Question, ask};
//! use intruder_data::{Column, Role, Table};
//!
//! let table = |name: &str, ages: &[i64], towns: &[&str]| {
//!     let age: Vec<Option<i64>> = ages.iter().map(|&a| Some(a)).collect();
//!     let town: Vec<Option<&str>> = towns.iter().map(|&t| Some(t)).collect();
//!     Table::new(name, vec![
//!         Column::integer("age", Role::Key, &age),
//!         Column::categorical("town", Role::Key, &town, None).unwrap(),
//!     ]).unwrap()
//! };
//! let original = table("original.csv", &[20, 35, 50, 65], &["a", "b", "c", "d"]);
//! let control = table("control.csv", &[22, 37, 52, 67], &["b", "c", "d", "a"]);
//! let params = toml::toml! { aux_cols = [["age"], ["town"]]
//! n_attacks = 4 };
//! let question = Question::named("linkability").unwrap();
//! let answer = ask(question, &params, "example", (&original, &control, &original), 7)?;
//! assert_eq!(answer.rates().unwrap().n_success, 4); // a copy links every record
//! let report = answer.report("linkability");
//! assert_eq!(report.figure("attack_rate").unwrap().as_f64().unwrap(), answer.rates().unwrap().attack_rate.value);
//! # anyhow::Ok(())
//! ```

use anyhow::Result;
use intruder_data::Table;
use intruder_data::params::{MethodDoc, ParamKind, ParamSpec, Range};
use intruder_data::report::{Figure, Report, Unit};
use intruder_questions::{
    DistanceParams, DistanceResult, InferenceParams, LinkabilityParams, MembershipParams,
    MembershipResult, QuestionResult, SinglingOutParams, distances, inference, linkability,
    membership, singling_out,
};
use serde_json::{Value, json};

/// One of the three questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Question {
    /// Can a record be singled out: does a predicate drawn from the release match exactly one
    /// original record?
    SinglingOut,
    /// Can records be linked: do a target's two halves point to the same release record?
    Linkability,
    /// Can an attribute be inferred: is a target's secret its nearest release record's?
    Inference,
    /// Does a person's presence in the original show: do an attack's scores separate original
    /// records (members) from control records (non-members)?
    Membership,
    /// How close the release lies to the original against the control set and random records
    /// (distance to the closest record, nearest-neighbour distance ratio).
    Distances,
}

/// The parameters the three questions share (shown once above them by `--list`).
pub static QUESTION_COMMON: &[ParamSpec] = &[ParamSpec::new(
    "confidence_level",
    ParamKind::Number,
    "confidence level of the rates' errors and of the risk's interval (Wilson score intervals)",
)
.default_value("0.95")
.within(Range::OPEN_UNIT)];

impl Question {
    /// Every question: the three regulators ask, in their order, then membership inference and
    /// the distances.
    pub const ALL: [Question; 5] = [
        Question::SinglingOut,
        Question::Linkability,
        Question::Inference,
        Question::Membership,
        Question::Distances,
    ];

    /// The method name of the question (`singling-out`, `linkability`, `inference`).
    pub fn name(self) -> &'static str {
        match self {
            Question::SinglingOut => "singling-out",
            Question::Linkability => "linkability",
            Question::Inference => "inference",
            Question::Membership => "membership",
            Question::Distances => "dcr",
        }
    }

    /// The question called `name` (`singling_out` is read as `singling-out`).
    pub fn named(name: &str) -> Option<Question> {
        let name = name.replace('_', "-");
        Question::ALL.into_iter().find(|q| q.name() == name)
    }

    /// Its own parameters (anonymeter's names and defaults).
    pub fn params(self) -> &'static [ParamSpec] {
        use intruder_questions::params;
        match self {
            Question::SinglingOut => params::SINGLING_OUT,
            Question::Linkability => params::LINKABILITY,
            Question::Inference => params::INFERENCE,
            Question::Membership => params::MEMBERSHIP,
            Question::Distances => params::DCR,
        }
    }

    /// What counts as a success, in one line.
    pub fn summary(self) -> &'static str {
        match self {
            Question::SinglingOut => {
                "singling out: predicates drawn from the release; a success is a predicate that matches exactly one original record"
            }
            Question::Linkability => {
                "linkability: a target's two sets of auxiliary columns; a success is a shared nearest release record (within n_neighbors)"
            }
            Question::Inference => {
                "inference: a target's secret guessed from its nearest release record on the auxiliary columns"
            }
            Question::Membership => {
                "membership inference: original records (members) against control records (non-members), scored by distance to the release or by density ratio; AUC and TPR at low FPR"
            }
            Question::Distances => {
                "distance to the closest record: the release against the original, the control set (holdout) and random records; overfitting and baseline protection, NNDR"
            }
        }
    }

    /// Where the definitions come from.
    pub fn reference(self) -> &'static str {
        match self {
            Question::SinglingOut | Question::Linkability | Question::Inference => {
                "Giomi et al., PoPETs 2023 (anonymeter); Article 29 Working Party, Opinion 05/2014"
            }
            Question::Membership => {
                "Shokri et al. 2017; Carlini et al. 2022 (TPR at low FPR); van Breugel et al., AISTATS 2023 (DOMIAS)"
            }
            Question::Distances => {
                "SDMetrics 0.32 (DCROverfittingProtection, DCRBaselineProtection); Zhao et al. 2021 (NNDR)"
            }
        }
    }

    /// Whether the answer carries anonymeter's rates and risk (the three questions).
    pub fn has_risk(self) -> bool {
        matches!(
            self,
            Question::SinglingOut | Question::Linkability | Question::Inference
        )
    }

    /// The question's documentation, as `--list` and `methods()` show it.
    pub fn doc(self) -> MethodDoc {
        MethodDoc {
            name: self.name(),
            summary: self.summary(),
            reference: self.reference(),
            params: self.params(),
            common: if self.has_risk() {
                QUESTION_COMMON
            } else {
                &[]
            },
        }
    }
}

/// The documentation of every question.
pub fn docs() -> Vec<MethodDoc> {
    Question::ALL.into_iter().map(Question::doc).collect()
}

/// What a question found.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The three questions: rates, risk and interval.
    Rates(QuestionResult),
    /// Membership inference: AUC and true-positive rates.
    Membership(MembershipResult),
    /// Distances to the closest record.
    Distances(DistanceResult),
}

/// A question's answer: what it found and the parameters it ran with.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The question asked.
    pub question: Question,
    /// What it found.
    pub outcome: Outcome,
    /// The parameters as read (defaults filled in), for the report.
    pub params: Value,
    /// The seed.
    pub seed: u64,
}

impl Answer {
    /// The rates and risk of the three questions (`None` for membership and distances).
    pub fn rates(&self) -> Option<&QuestionResult> {
        match &self.outcome {
            Outcome::Rates(r) => Some(r),
            _ => None,
        }
    }

    /// What makes the answer doubtful.
    pub fn warnings(&self) -> &[String] {
        match &self.outcome {
            Outcome::Rates(r) => &r.warnings,
            Outcome::Membership(m) => &m.warnings,
            Outcome::Distances(d) => &d.warnings,
        }
    }
}

/// A question's parameters as read, before any data is seen.
#[derive(Debug, Clone, PartialEq)]
enum Parsed {
    /// `singling-out`'s.
    SinglingOut(SinglingOutParams),
    /// `linkability`'s.
    Linkability(LinkabilityParams),
    /// `inference`'s.
    Inference(InferenceParams),
    /// `membership`'s.
    Membership(MembershipParams),
    /// `dcr`'s.
    Distances(DistanceParams),
}

/// Reads the question's own parameters (without `confidence_level`, `method` and `name`): the
/// parameters and their resolved form (defaults filled in), for the report.
fn read_own(question: Question, own: &toml::Table, source_name: &str) -> Result<(Parsed, Value)> {
    Ok(match question {
        Question::SinglingOut => {
            let p = SinglingOutParams::from_table(own, source_name)?;
            let resolved = json!({
                "n_attacks": p.n_attacks, "mode": p.mode.as_str(), "n_cols": p.n_cols,
                "max_attempts": p.max_attempts,
            });
            (Parsed::SinglingOut(p), resolved)
        }
        Question::Linkability => {
            let p = LinkabilityParams::from_table(own, source_name)?;
            let resolved = json!({
                "n_attacks": p.n_attacks, "aux_cols": [p.aux_cols.0, p.aux_cols.1],
                "n_neighbors": p.n_neighbors,
            });
            (Parsed::Linkability(p), resolved)
        }
        Question::Inference => {
            let p = InferenceParams::from_table(own, source_name)?;
            let resolved = json!({
                "n_attacks": p.n_attacks, "aux_cols": p.aux_cols, "secret": p.secret,
                "regression": p.regression, "tolerance": p.tolerance,
            });
            (Parsed::Inference(p), resolved)
        }
        Question::Membership => {
            let p = MembershipParams::from_table(own, source_name)?;
            let resolved = json!({
                "n_targets": p.n_targets, "attack": p.attack.as_str(), "columns": p.columns,
            });
            (Parsed::Membership(p), resolved)
        }
        Question::Distances => {
            let p = DistanceParams::from_table(own, source_name)?;
            let resolved =
                json!({ "columns": p.columns, "num_rows_subsample": p.num_rows_subsample });
            (Parsed::Distances(p), resolved)
        }
    })
}

/// A question's parameters checked without data ([`check_params`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The question.
    pub question: Question,
    /// The parameters as read, defaults filled in (as [`Answer::params`] holds them).
    pub params: Value,
    /// The columns the parameters name (the auxiliary columns then the secret, or the columns
    /// compared), each once: what the original, the control set and the release must all have.
    pub columns: Vec<String>,
    /// The targets each attack draws from the original and from the control set (`n_attacks`,
    /// membership's `n_targets`); `None` for the distances, which use every record.
    pub n_attacks: Option<usize>,
}

/// Checks `question`'s parameters in `params` as [`ask`] reads them, without any data: every
/// problem is reported at once under `source_name` (an [`intruder_data::params::ParamError`]
/// inside the error carries each problem's key, for a caller that reports key paths).
pub fn check_params(
    question: Question,
    params: &toml::Table,
    source_name: &str,
) -> Result<Checked> {
    let (confidence_level, own) = split_common(question, params, source_name)?;
    let (parsed, mut resolved) = read_own(question, &own, source_name)?;
    let (columns, n_attacks) = match parsed {
        Parsed::SinglingOut(p) => (Vec::new(), Some(p.n_attacks)),
        Parsed::Linkability(p) => {
            let (mut a, b) = p.aux_cols;
            a.extend(b);
            (a, Some(p.n_attacks))
        }
        Parsed::Inference(p) => {
            let mut c = p.aux_cols;
            c.push(p.secret);
            (c, Some(p.n_attacks))
        }
        Parsed::Membership(p) => (p.columns.unwrap_or_default(), Some(p.n_targets)),
        Parsed::Distances(p) => (p.columns.unwrap_or_default(), None),
    };
    if question.has_risk() {
        resolved["confidence_level"] = json!(confidence_level);
    }
    Ok(Checked {
        question,
        params: resolved,
        columns,
        n_attacks,
    })
}

/// Asks `question` of `released` about `original`, with `control` as the records the release
/// never saw. `params` holds the question's parameters under anonymeter's names plus
/// `confidence_level` (the three questions; `method` and `name` are ignored); every problem is
/// reported at once under `source_name`, before any work.
pub fn ask(
    question: Question,
    params: &toml::Table,
    source_name: &str,
    (original, control, released): (&Table, &Table, &Table),
    seed: u64,
) -> Result<Answer> {
    let (confidence_level, own) = split_common(question, params, source_name)?;
    let (parsed, mut resolved) = read_own(question, &own, source_name)?;
    let outcome = match &parsed {
        Parsed::SinglingOut(p) => Outcome::Rates(
            singling_out(original, control, released, p, seed)?.at_confidence(confidence_level),
        ),
        Parsed::Linkability(p) => Outcome::Rates(
            linkability(original, control, released, p, seed)?.at_confidence(confidence_level),
        ),
        Parsed::Inference(p) => Outcome::Rates(
            inference(original, control, released, p, seed)?.at_confidence(confidence_level),
        ),
        Parsed::Membership(p) => {
            Outcome::Membership(membership(original, control, released, p, seed)?)
        }
        Parsed::Distances(p) => {
            Outcome::Distances(distances(original, control, released, p, seed)?)
        }
    };
    if question.has_risk() {
        resolved["confidence_level"] = json!(confidence_level);
    }
    Ok(Answer {
        question,
        outcome,
        params: resolved,
        seed,
    })
}

/// `confidence_level` read and checked (the three questions only), and the table without the
/// shared parameters.
fn split_common(
    question: Question,
    params: &toml::Table,
    source_name: &str,
) -> Result<(f64, toml::Table)> {
    let mut own = params.clone();
    for shared in ["method", "name"] {
        own.remove(shared);
    }
    if !question.has_risk() {
        return Ok((0.95, own));
    }
    let level = match own.remove("confidence_level") {
        None => 0.95,
        Some(v) => {
            let level = v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
            match level {
                Some(l) if l > 0.0 && l < 1.0 => l,
                _ => anyhow::bail!(
                    "{source_name}: confidence_level must be a number strictly between 0 and 1, got {v}"
                ),
            }
        }
    };
    Ok((level, own))
}

impl Answer {
    /// The answer as a report. The three questions: anonymeter's fields as figures
    /// (`attack_rate` with `attack_rate_error`, …, `risk`, `risk_ci_low`, `risk_ci_high`,
    /// `n_attacks`) and the interval as `risk_ci`; membership: `auc`, `tpr_at_fpr_1`,
    /// `tpr_at_fpr_10`, `advantage`; distances: SDMetrics' figures and the NNDR. Every report
    /// carries the question, the warnings, the parameters and the seed as details.
    pub fn report(&self, title: impl Into<String>) -> Report {
        let mut report = Report::new(title);
        match &self.outcome {
            Outcome::Rates(r) => rates_figures(&mut report, r),
            Outcome::Membership(m) => membership_figures(&mut report, m),
            Outcome::Distances(d) => distance_figures(&mut report, d),
        }
        let d = &mut report.details;
        d.insert("question".into(), self.question.name().into());
        if let Some(r) = self.rates() {
            d.insert("risk_ci".into(), json!([r.risk_ci.0, r.risk_ci.1]));
            d.insert("confidence_level".into(), json!(r.confidence_level));
        }
        d.insert("warnings".into(), json!(self.warnings()));
        d.insert("params".into(), self.params.clone());
        d.insert("seed".into(), json!(self.seed));
        report
    }
}

/// The figures of the three questions.
fn rates_figures(report: &mut Report, r: &QuestionResult) {
    let pct = format!("{:.0}%", r.confidence_level * 100.0);
    let rate = |report: &mut Report, name: &str, rate: intruder_questions::Rate, what: &str| {
        report.push(Figure::new(
            name,
            rate.value,
            Unit::Proportion,
            format!("success rate of {what} (Wilson centre)"),
        ));
        report.push(Figure::new(
            format!("{name}_error"),
            rate.error,
            Unit::Score,
            format!("half-width of the {pct} interval of {name}"),
        ));
    };
    report.push(Figure::new(
        "risk",
        r.risk,
        Unit::Proportion,
        "(attack − control) / (1 − control): what the release adds to what the population alone gives away",
    ));
    report.push(Figure::new(
        "risk_ci_low",
        r.risk_ci.0,
        Unit::Proportion,
        format!("lower end of the risk's {pct} interval"),
    ));
    report.push(Figure::new(
        "risk_ci_high",
        r.risk_ci.1,
        Unit::Proportion,
        format!("upper end of the risk's {pct} interval"),
    ));
    rate(
        report,
        "attack_rate",
        r.attack_rate,
        "the main attack, against the original",
    );
    rate(
        report,
        "control_rate",
        r.control_rate,
        "the same attack against the control set",
    );
    rate(report, "baseline_rate", r.baseline_rate, "random guessing");
    let counts = [
        (
            "n_attacks",
            r.n_attacks as f64,
            Unit::Count,
            "attacks of each kind",
        ),
        (
            "n_success",
            r.n_success as f64,
            Unit::Count,
            "successes of the main attack",
        ),
        (
            "n_control",
            r.n_control,
            Unit::Score,
            "successes against the control set (size-corrected for singling out)",
        ),
        (
            "n_baseline",
            r.n_baseline as f64,
            Unit::Count,
            "successes of the baseline",
        ),
    ];
    for (name, value, unit, meaning) in counts {
        let value = if unit == Unit::Count {
            json!(value as u64)
        } else {
            json!(value)
        };
        report.push(Figure::new(name, value, unit, meaning));
    }
}

/// The figures of membership inference.
fn membership_figures(report: &mut Report, m: &MembershipResult) {
    let figures = [
        (
            "auc",
            m.auc,
            Unit::Proportion,
            "area under the ROC curve: the chance that a member scores above a non-member (0.5: the release gives membership away no better than a coin)",
        ),
        (
            "tpr_at_fpr_1",
            m.tpr_at_fpr_1,
            Unit::Proportion,
            "share of members caught while at most 1% of non-members are",
        ),
        (
            "tpr_at_fpr_10",
            m.tpr_at_fpr_10,
            Unit::Proportion,
            "share of members caught while at most 10% of non-members are",
        ),
        (
            "advantage",
            m.advantage,
            Unit::Proportion,
            "largest true-positive rate minus false-positive rate over thresholds",
        ),
    ];
    for (name, value, unit, meaning) in figures {
        report.push(Figure::new(name, value, unit, meaning));
    }
    report.push(Figure::new(
        "n_members",
        m.n_members as u64,
        Unit::Count,
        "original records scored (members)",
    ));
    report.push(Figure::new(
        "n_non_members",
        m.n_non_members as u64,
        Unit::Count,
        "control records scored (non-members)",
    ));
    report
        .details
        .insert("attack".into(), m.attack.as_str().into());
}

/// The figures of the distances to the closest record.
fn distance_figures(report: &mut Report, d: &DistanceResult) {
    let figures = [
        (
            "overfitting_protection",
            json!(d.overfitting_protection),
            "min(2 × (1 − closer_to_training), 1): 1 when the release lies no closer to the original than to the control set (SDMetrics' DCROverfittingProtection)",
        ),
        (
            "closer_to_training",
            json!(d.closer_to_training),
            "share of release records strictly closer to the original than to the control set",
        ),
        (
            "baseline_protection",
            json!(d.baseline_protection),
            "min(median DCR of the release / median DCR of random records, 1) (SDMetrics' DCRBaselineProtection; null when the random median is 0)",
        ),
        (
            "median_dcr_release",
            json!(d.median_dcr_release),
            "median distance of a release record to its closest original record",
        ),
        (
            "median_dcr_holdout",
            json!(d.median_dcr_holdout),
            "median distance of a release record to its closest control record",
        ),
        (
            "median_dcr_random",
            json!(d.median_dcr_random),
            "median distance of a uniformly random record to its closest original record",
        ),
        (
            "median_nndr_release",
            json!(d.median_nndr_release),
            "median ratio of the nearest to the second-nearest original record's distance, from the release",
        ),
        (
            "median_nndr_holdout",
            json!(d.median_nndr_holdout),
            "the same ratio from the control records (what real records of the population show)",
        ),
        (
            "exact_copies",
            json!(d.exact_copies),
            "share of release records equal to an original record on every compared column",
        ),
    ];
    for (name, value, meaning) in figures {
        let unit = if name.starts_with("median") {
            Unit::Score
        } else {
            Unit::Proportion
        };
        report.push(Figure::new(name, value, unit, meaning));
    }
    report.push(Figure::new(
        "n_release",
        d.n_release as u64,
        Unit::Count,
        "release records compared",
    ));
}
