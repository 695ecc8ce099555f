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
//! assert_eq!(answer.result.n_success, 4); // a copy links every record
//! let report = answer.report("linkability");
//! assert_eq!(report.figure("attack_rate").unwrap().as_f64().unwrap(), answer.result.attack_rate.value);
//! # anyhow::Ok(())
//! ```

use anyhow::Result;
use intruder_data::Table;
use intruder_data::params::{MethodDoc, ParamKind, ParamSpec, Range};
use intruder_data::report::{Figure, Report, Unit};
use intruder_questions::{
    InferenceParams, LinkabilityParams, QuestionResult, SinglingOutParams, inference, linkability,
    singling_out,
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
}

/// The parameters every question shares (shown once above the questions by `--list`).
pub static QUESTION_COMMON: &[ParamSpec] = &[ParamSpec::new(
    "confidence_level",
    ParamKind::Number,
    "confidence level of the rates' errors and of the risk's interval (Wilson score intervals)",
)
.default_value("0.95")
.within(Range::OPEN_UNIT)];

impl Question {
    /// Every question, in the order regulators ask them.
    pub const ALL: [Question; 3] = [
        Question::SinglingOut,
        Question::Linkability,
        Question::Inference,
    ];

    /// The method name of the question (`singling-out`, `linkability`, `inference`).
    pub fn name(self) -> &'static str {
        match self {
            Question::SinglingOut => "singling-out",
            Question::Linkability => "linkability",
            Question::Inference => "inference",
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
        }
    }

    /// The question's documentation, as `--list` and `methods()` show it.
    pub fn doc(self) -> MethodDoc {
        MethodDoc {
            name: self.name(),
            summary: self.summary(),
            reference: "Giomi et al., PoPETs 2023 (anonymeter); Article 29 Working Party, Opinion 05/2014",
            params: self.params(),
            common: QUESTION_COMMON,
        }
    }
}

/// The documentation of every question.
pub fn docs() -> Vec<MethodDoc> {
    Question::ALL.into_iter().map(Question::doc).collect()
}

/// A question's answer: the result and the parameters it ran with.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The question asked.
    pub question: Question,
    /// Rates, risk, interval and warnings.
    pub result: QuestionResult,
    /// The parameters as read (defaults filled in), for the report.
    pub params: Value,
    /// The seed.
    pub seed: u64,
}

/// Asks `question` of `released` about `original`, with `control` as the records the release
/// never saw. `params` holds the question's parameters under anonymeter's names plus
/// `confidence_level` (and, ignored, `method` and `name`); every problem is reported at once
/// under `source_name`, before any work.
pub fn ask(
    question: Question,
    params: &toml::Table,
    source_name: &str,
    (original, control, released): (&Table, &Table, &Table),
    seed: u64,
) -> Result<Answer> {
    let (confidence_level, own) = split_common(params, source_name)?;
    let (result, resolved) = match question {
        Question::SinglingOut => {
            let p = SinglingOutParams::from_table(&own, source_name)?;
            let resolved = json!({
                "n_attacks": p.n_attacks, "mode": p.mode.as_str(), "n_cols": p.n_cols,
                "max_attempts": p.max_attempts,
            });
            (
                singling_out(original, control, released, &p, seed)?,
                resolved,
            )
        }
        Question::Linkability => {
            let p = LinkabilityParams::from_table(&own, source_name)?;
            let resolved = json!({
                "n_attacks": p.n_attacks, "aux_cols": [p.aux_cols.0, p.aux_cols.1],
                "n_neighbors": p.n_neighbors,
            });
            (
                linkability(original, control, released, &p, seed)?,
                resolved,
            )
        }
        Question::Inference => {
            let p = InferenceParams::from_table(&own, source_name)?;
            let resolved = json!({
                "n_attacks": p.n_attacks, "aux_cols": p.aux_cols, "secret": p.secret,
                "regression": p.regression, "tolerance": p.tolerance,
            });
            (inference(original, control, released, &p, seed)?, resolved)
        }
    };
    let mut resolved = resolved;
    resolved["confidence_level"] = json!(confidence_level);
    Ok(Answer {
        question,
        result: result.at_confidence(confidence_level),
        params: resolved,
        seed,
    })
}

/// `confidence_level` read and checked, and the table without the shared parameters.
fn split_common(params: &toml::Table, source_name: &str) -> Result<(f64, toml::Table)> {
    let mut own = params.clone();
    for shared in ["method", "name"] {
        own.remove(shared);
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
    /// The answer as a report: anonymeter's fields as figures (`attack_rate` with
    /// `attack_rate_error`, …, `risk`, `risk_ci_low`, `risk_ci_high`, `n_attacks`), and as
    /// details the interval (`risk_ci`), the warnings, the parameters and the seed.
    pub fn report(&self, title: impl Into<String>) -> Report {
        let r = &self.result;
        let mut report = Report::new(title);
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
            &mut report,
            "attack_rate",
            r.attack_rate,
            "the main attack, against the original",
        );
        rate(
            &mut report,
            "control_rate",
            r.control_rate,
            "the same attack against the control set",
        );
        rate(
            &mut report,
            "baseline_rate",
            r.baseline_rate,
            "random guessing",
        );
        report.push(Figure::new(
            "n_attacks",
            r.n_attacks as u64,
            Unit::Count,
            "attacks of each kind",
        ));
        report.push(Figure::new(
            "n_success",
            r.n_success as u64,
            Unit::Count,
            "successes of the main attack",
        ));
        report.push(Figure::new(
            "n_control",
            r.n_control,
            Unit::Score,
            "successes against the control set (size-corrected for singling out)",
        ));
        report.push(Figure::new(
            "n_baseline",
            r.n_baseline as u64,
            Unit::Count,
            "successes of the baseline",
        ));
        let d = &mut report.details;
        d.insert("question".into(), self.question.name().into());
        d.insert("risk_ci".into(), json!([r.risk_ci.0, r.risk_ci.1]));
        d.insert("confidence_level".into(), json!(r.confidence_level));
        d.insert("warnings".into(), json!(r.warnings));
        d.insert("params".into(), self.params.clone());
        d.insert("seed".into(), json!(self.seed));
        report
    }
}
