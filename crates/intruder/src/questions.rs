//! The questions asked without ground truth — the three questions of anonymisation (singling
//! out, linkability, inference), membership inference and the distances to the closest record —
//! as every surface asks them (`intruder attack --method singling-out`, `intruder.attack(...,
//! method="linkability", control=df)`, an experiment's `[[question]]` tables).
//!
//! A question needs no ground truth: it attacks the **original** records the release was made
//! from, and compares with a **control** set of real records the release never saw (the three
//! questions also with a random **baseline**). The definitions, the parameters (anonymeter's and
//! SDMetrics' names) and the risk are those of `intruder-questions`; this module picks the
//! question from a method name, reads its parameters from one TOML table (with
//! `confidence_level`, which the three questions share), runs it and turns its result into a
//! [`Report`] whose figures are listed once per question ([`Question::figures`]).
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

/// A question asked without ground truth.
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
                "Giomi et al., \"A Unified Framework for Quantifying Privacy Risk in Synthetic Data\", PoPETs 2023 (anonymeter); Article 29 Working Party, Opinion 05/2014"
            }
            Question::Membership => {
                "Shokri et al., \"Membership Inference Attacks against Machine Learning Models\", IEEE S&P 2017; Carlini et al., \"Membership Inference Attacks From First Principles\", IEEE S&P 2022 (TPR at low FPR); van Breugel et al., \"Membership Inference Attacks against Synthetic Data through Overfitting Detection\", AISTATS 2023 (DOMIAS)"
            }
            Question::Distances => {
                "SDMetrics 0.32, DCROverfittingProtection and DCRBaselineProtection (docs.sdv.dev/sdmetrics); Zhao et al., \"CTAB-GAN\", 2021 (NNDR)"
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
            // The questions' figures are the runner's (risk, its interval, the attacks' counts).
            figures: &[],
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
        for f in self.question.figures() {
            report.push(Figure::new(
                f.figure,
                self.outcome.value(f.figure),
                f.unit,
                f.meaning,
            ));
        }
        if let Outcome::Membership(m) = &self.outcome {
            report
                .details
                .insert("attack".into(), m.attack.as_str().into());
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

/// One figure a question reports: its name (the JSON field, the metric's last part), unit, a
/// label for table headers, a one-line meaning (the command line's table) and its full
/// definition (the experiment report's glossary).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuestionFigure {
    /// The name.
    pub figure: &'static str,
    /// Its unit.
    pub unit: Unit,
    /// A short label.
    pub label: &'static str,
    /// What it means, in one line.
    pub meaning: &'static str,
    /// What it is, precisely.
    pub definition: &'static str,
}

/// A figure of the table below.
const fn figure(
    figure: &'static str,
    unit: Unit,
    label: &'static str,
    meaning: &'static str,
    definition: &'static str,
) -> QuestionFigure {
    QuestionFigure {
        figure,
        unit,
        label,
        meaning,
        definition,
    }
}

/// The figures of singling out, linkability and inference, in report order.
pub static RATE_FIGURES: &[QuestionFigure] = &[
    figure(
        "risk",
        Unit::Proportion,
        "risk",
        "(attack − control) / (1 − control): what the release adds to what the population alone gives away",
        "(attack rate − control rate) / (1 − control rate), clipped to [0, 1]: the share of what the attack achieves on the original records that the release adds to what the population alone gives away (the control set is original records the release never saw)",
    ),
    figure(
        "risk_ci_low",
        Unit::Proportion,
        "risk, interval low",
        "lower end of the risk's interval (confidence_level)",
        "lower end of the risk's interval (confidence_level, default 95%), from the Wilson intervals of the attack and control rates",
    ),
    figure(
        "risk_ci_high",
        Unit::Proportion,
        "risk, interval high",
        "upper end of the risk's interval (confidence_level)",
        "upper end of the risk's interval (confidence_level, default 95%)",
    ),
    figure(
        "attack_rate",
        Unit::Proportion,
        "attack rate",
        "success rate of the main attack, against the original (Wilson centre)",
        "success rate of the main attack, against the original records the release was made from (centre of the Wilson interval)",
    ),
    figure(
        "attack_rate_error",
        Unit::Score,
        "attack rate ±",
        "half-width of attack_rate's interval",
        "half-width of the attack rate's Wilson interval",
    ),
    figure(
        "control_rate",
        Unit::Proportion,
        "control rate",
        "success rate of the same attack against the control set (Wilson centre)",
        "success rate of the same attack against the control set: original records held back before any defence ran, so what the attack achieves without the release having seen the target",
    ),
    figure(
        "control_rate_error",
        Unit::Score,
        "control rate ±",
        "half-width of control_rate's interval",
        "half-width of the control rate's Wilson interval",
    ),
    figure(
        "baseline_rate",
        Unit::Proportion,
        "baseline rate",
        "success rate of random guessing (Wilson centre)",
        "success rate of random guessing (a predicate, a link or a secret drawn at random); an attack that does not beat it says nothing about the release",
    ),
    figure(
        "baseline_rate_error",
        Unit::Score,
        "baseline rate ±",
        "half-width of baseline_rate's interval",
        "half-width of the baseline rate's Wilson interval",
    ),
    figure(
        "n_attacks",
        Unit::Count,
        "attacks",
        "attacks of each kind",
        "attacks of each kind (main, control, baseline)",
    ),
    figure(
        "n_success",
        Unit::Count,
        "successes",
        "successes of the main attack",
        "successes of the main attack",
    ),
    figure(
        "n_control",
        Unit::Score,
        "control successes",
        "successes against the control set (size-corrected for singling out)",
        "successes against the control set (for singling out, corrected for the control set's size)",
    ),
    figure(
        "n_baseline",
        Unit::Count,
        "baseline successes",
        "successes of the baseline",
        "successes of the baseline",
    ),
];

/// The figures of membership inference, in report order.
pub static MEMBERSHIP_FIGURES: &[QuestionFigure] = &[
    figure(
        "auc",
        Unit::Proportion,
        "membership AUC",
        "chance that a member scores above a non-member (0.5: a coin toss)",
        "area under the ROC curve of the membership attack: the chance that an original record (a member) scores above a control record (a non-member), ties counting one half; 0.5 is a coin toss",
    ),
    figure(
        "tpr_at_fpr_1",
        Unit::Proportion,
        "TPR at 1% FPR",
        "share of members caught while at most 1% of non-members are",
        "share of members the attack catches with a threshold that catches at most 1% of non-members",
    ),
    figure(
        "tpr_at_fpr_10",
        Unit::Proportion,
        "TPR at 10% FPR",
        "share of members caught while at most 10% of non-members are",
        "share of members the attack catches with a threshold that catches at most 10% of non-members",
    ),
    figure(
        "advantage",
        Unit::Proportion,
        "membership advantage",
        "largest true-positive rate minus false-positive rate over thresholds",
        "largest true-positive rate minus false-positive rate over the attack's thresholds",
    ),
    figure(
        "n_members",
        Unit::Count,
        "members",
        "original records scored (members)",
        "original records scored (members of the data the release was made from)",
    ),
    figure(
        "n_non_members",
        Unit::Count,
        "non-members",
        "control records scored (non-members)",
        "control records scored (held back before any defence ran)",
    ),
];

/// The figures of the distances to the closest record, in report order.
pub static DISTANCE_FIGURES: &[QuestionFigure] = &[
    figure(
        "overfitting_protection",
        Unit::Proportion,
        "DCR overfitting protection",
        "min(2 × (1 − closer_to_training), 1): 1 when the release lies no closer to the original than to the control set",
        "min(2 × (1 − closer to training), 1): 1 when the release lies no closer to the original records than to the control set; the distance is the mean over columns of |x − y| / range (capped at 1) for numbers and 0/1 for categories (SDMetrics' DCROverfittingProtection)",
    ),
    figure(
        "closer_to_training",
        Unit::Proportion,
        "closer to training",
        "share of release records strictly closer to the original than to the control set",
        "share of release records strictly closer to their nearest original record than to their nearest control record",
    ),
    figure(
        "baseline_protection",
        Unit::Proportion,
        "DCR baseline protection",
        "min(median DCR of the release / median DCR of random records, 1) (null when the random median is 0)",
        "min(median DCR of the release / median DCR of uniformly random records, 1), both to the original records (SDMetrics' DCRBaselineProtection)",
    ),
    figure(
        "median_dcr_release",
        Unit::Score,
        "median DCR, release",
        "median distance of a release record to its closest original record",
        "median distance of a release record to its closest original record",
    ),
    figure(
        "median_dcr_holdout",
        Unit::Score,
        "median DCR to the control set",
        "median distance of a release record to its closest control record",
        "median distance of a release record to its closest control record",
    ),
    figure(
        "median_dcr_random",
        Unit::Score,
        "median DCR, random records",
        "median distance of a uniformly random record to its closest original record",
        "median distance of a uniformly random record to its closest original record",
    ),
    figure(
        "median_nndr_release",
        Unit::Score,
        "median NNDR, release",
        "median ratio of the nearest to the second-nearest original record's distance, from the release",
        "median ratio of the distances to the nearest and the second-nearest original record, from the release's records",
    ),
    figure(
        "median_nndr_holdout",
        Unit::Score,
        "median NNDR, control set",
        "the same ratio from the control records (what real records of the population show)",
        "the same ratio from the control records: what real records of the population show",
    ),
    figure(
        "exact_copies",
        Unit::Proportion,
        "exact copies",
        "share of release records equal to an original record on every compared column",
        "share of release records equal to an original record on every compared column",
    ),
    figure(
        "n_release",
        Unit::Count,
        "release records compared",
        "release records compared",
        "release records compared (all, or num_rows_subsample of them)",
    ),
];

impl Question {
    /// The figures the question reports, in report order.
    pub fn figures(self) -> &'static [QuestionFigure] {
        match self {
            Question::Membership => MEMBERSHIP_FIGURES,
            Question::Distances => DISTANCE_FIGURES,
            _ => RATE_FIGURES,
        }
    }
}

impl Outcome {
    /// The value of `figure` (one of the question's [`QuestionFigure`]s; `null` otherwise).
    pub fn value(&self, figure: &str) -> Value {
        match self {
            Outcome::Rates(r) => match figure {
                "risk" => json!(r.risk),
                "risk_ci_low" => json!(r.risk_ci.0),
                "risk_ci_high" => json!(r.risk_ci.1),
                "attack_rate" => json!(r.attack_rate.value),
                "attack_rate_error" => json!(r.attack_rate.error),
                "control_rate" => json!(r.control_rate.value),
                "control_rate_error" => json!(r.control_rate.error),
                "baseline_rate" => json!(r.baseline_rate.value),
                "baseline_rate_error" => json!(r.baseline_rate.error),
                "n_attacks" => json!(r.n_attacks),
                "n_success" => json!(r.n_success),
                "n_control" => json!(r.n_control),
                "n_baseline" => json!(r.n_baseline),
                _ => Value::Null,
            },
            Outcome::Membership(m) => match figure {
                "auc" => json!(m.auc),
                "tpr_at_fpr_1" => json!(m.tpr_at_fpr_1),
                "tpr_at_fpr_10" => json!(m.tpr_at_fpr_10),
                "advantage" => json!(m.advantage),
                "n_members" => json!(m.n_members),
                "n_non_members" => json!(m.n_non_members),
                _ => Value::Null,
            },
            Outcome::Distances(d) => match figure {
                "overfitting_protection" => json!(d.overfitting_protection),
                "closer_to_training" => json!(d.closer_to_training),
                "baseline_protection" => json!(d.baseline_protection),
                "median_dcr_release" => json!(d.median_dcr_release),
                "median_dcr_holdout" => json!(d.median_dcr_holdout),
                "median_dcr_random" => json!(d.median_dcr_random),
                "median_nndr_release" => json!(d.median_nndr_release),
                "median_nndr_holdout" => json!(d.median_nndr_holdout),
                "exact_copies" => json!(d.exact_copies),
                "n_release" => json!(d.n_release),
                _ => Value::Null,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Outcome, Question};
    use intruder_questions::{DistanceResult, MembershipAttack, MembershipResult, QuestionResult};

    /// Every figure a question lists has a value in its outcome: the table and the values
    /// cannot drift apart.
    #[test]
    fn every_listed_figure_has_a_value() {
        let rates = Outcome::Rates(QuestionResult::from_counts(10, 5, 2.0, 1, 0.95, Vec::new()));
        let membership = Outcome::Membership(MembershipResult {
            attack: MembershipAttack::Distance,
            n_members: 1,
            n_non_members: 1,
            auc: 0.5,
            tpr_at_fpr_1: 0.0,
            tpr_at_fpr_10: 0.0,
            advantage: 0.0,
            warnings: Vec::new(),
        });
        let distances = Outcome::Distances(DistanceResult {
            n_release: 1,
            closer_to_training: 0.0,
            overfitting_protection: 1.0,
            median_dcr_release: 0.0,
            median_dcr_holdout: 0.0,
            median_dcr_random: 0.0,
            baseline_protection: Some(1.0),
            median_nndr_release: 0.0,
            median_nndr_holdout: 0.0,
            exact_copies: 0.0,
            warnings: Vec::new(),
        });
        for (q, o) in [
            (Question::Inference, &rates),
            (Question::Membership, &membership),
            (Question::Distances, &distances),
        ] {
            for f in q.figures() {
                assert!(!o.value(f.figure).is_null(), "{}: {}", q.name(), f.figure);
            }
        }
    }
}
