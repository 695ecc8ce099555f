//! The raw outcome of one run, as stored under `OUT/runs/<id>.json`: typed serde structs, written
//! by the executor and read back by the metrics, so a stored run that does not fit is an error
//! naming the file (never a silent default), and a new metric needs no rerun.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use intruder_data::report::{Report, Unit};

/// The version of the stored-run schema, part of every run id ([`crate::Plan`]): a change to
/// these structs bumps it, so runs stored under an older schema are not reused (they are rerun,
/// with the same seeds: the run *key* does not include it). 2: per-record `declared` links.
/// 3: the cross-examination (`checks`), `masking.records_recoded`, and `failures`, the
/// measures of a run that failed while the others' outcomes were kept. 4:
/// `masking.records_changed_or_recoded`.
pub const RECORD_SCHEMA: u32 = 4;

/// One run's raw outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// The stored-run id (configuration, replicate, toolkit version and the data's content).
    pub run: String,
    /// The configuration key every seed of the run derives from.
    pub key: String,
    /// The experiment's name.
    pub experiment: String,
    /// The toolkit version.
    pub version: String,
    /// The experiment seed.
    pub seed: u64,
    /// 0-based replicate.
    pub replicate: u32,
    /// The setting's label.
    pub setting: String,
    /// The defence's name.
    pub defence: String,
    /// The setting's grid values: (`method.param`, value).
    pub params: Vec<(String, Value)>,
    /// The resolved pipeline steps.
    pub steps: Vec<Value>,
    /// The intruder's file.
    pub intruder: IntruderRecord,
    /// What the masking did.
    pub masking: MaskingRecord,
    /// Every attack, in declaration order.
    pub attacks: Vec<AttackRecord>,
    /// Every risk measure, in declaration order.
    pub risk: Vec<RiskRecord>,
    /// Every utility measure, in the order listed.
    pub utility: Vec<UtilityRecord>,
    /// The cross-examination of the setting's promises (`intruder_eval::verdict`): one per
    /// promise, or one without a promise on the scenario's keys; absent with `scenario.check =
    /// false` and in runs stored before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckRecord>,
    /// Every `[[question]]`, in declaration order; absent in experiments without questions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<QuestionRecord>,
    /// The attacks and measures of this run that failed, with the reason; the others'
    /// outcomes above are kept (a failed one is absent from them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<FailureRecord>,
    /// The masking steps that searched a lattice (generalise), with what they reported; absent
    /// for other steps and in runs stored before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub searches: Vec<SearchRecord>,
}

/// A masking step that searched a lattice of transformations (generalise): the levels it chose,
/// their score, and the Pareto frontier of score against the attacks' rates over the nodes it
/// scored (`details` of the defence log's step).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRecord {
    /// The step's number in the pipeline, from 1.
    pub step: usize,
    /// The step's method.
    pub method: String,
    /// What the step reported: `levels`, `metric`, `score`, `frontier` (each node's `levels`,
    /// `score`, `suppressed` and `rates`), …
    pub details: Value,
}

/// An attack, risk measure or utility measure of a run that failed (a column of the wrong kind
/// after masking, a model that cannot be fitted): recorded with the reason, while the run's
/// other outcomes and the other settings' runs are kept and reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureRecord {
    /// `attack`, `risk`, `utility` or `question`.
    pub stage: String,
    /// The attack's label, the risk measure's label or the utility measure's registry name.
    pub name: String,
    /// What went wrong.
    pub message: String,
}

impl FailureRecord {
    /// `utility measure 'moments'`, `risk measure 'listwise'`, `attack 'exact'`, `question
    /// 'inference'`.
    pub fn what(&self) -> String {
        match self.stage.as_str() {
            "attack" | "question" => format!("{} '{}'", self.stage, self.name),
            stage => format!("{stage} measure '{}'", self.name),
        }
    }
}

/// One promise checked on a run's output, under every rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRecord {
    /// The step that made the promise (0: no promise).
    pub step: usize,
    /// Its method.
    pub method: String,
    /// The keys.
    pub keys: Vec<String>,
    /// The k promised (0: no promise).
    pub k: u32,
    /// The largest individual risk promised, for a risk promise.
    pub max_risk: Option<f64>,
    /// The rule the promise names (`all`, `listwise`, …; empty without a promise).
    pub protect_against: String,
    /// `holds`, `not-covered`, `contradicted` or `no-claim`.
    pub verdict: String,
    /// Key cells observed in the original and blank in the release.
    pub suppressed: usize,
    /// Key cells of the release.
    pub key_cells: usize,
    /// Per rule.
    pub rules: Vec<CheckRuleRecord>,
    /// The warnings, naming the step, the rule and the figures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The output under one rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRuleRecord {
    /// `listwise`, `as-value` or `wildcard`.
    pub rule: String,
    /// Whether the promise covers it.
    pub covered: bool,
    /// Released records judged.
    pub judged: usize,
    /// The smallest class.
    pub min_class: Option<u64>,
    /// Records below the promise.
    pub below: usize,
    /// The exact attack: targets, Σ 1/c_i, unique re-identifications (listwise and wildcard).
    pub attack: Option<(usize, f64, usize)>,
}

impl CheckRecord {
    /// The stored form of a check.
    pub fn of(c: &intruder_eval::verdict::Check) -> CheckRecord {
        let claim = c.claim.as_ref();
        CheckRecord {
            step: claim.map_or(0, |c| c.step),
            method: claim.map_or_else(String::new, |c| c.method.to_string()),
            keys: c.keys.clone(),
            k: claim.map_or(0, |c| c.k),
            max_risk: claim.and_then(|c| c.max_risk),
            protect_against: claim.map_or_else(String::new, |c| c.protect_against.to_string()),
            verdict: serde_json::to_value(c.verdict)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            suppressed: c.suppressed,
            key_cells: c.key_cells,
            rules: c
                .rules
                .iter()
                .map(|r| CheckRuleRecord {
                    rule: r.rule.to_string(),
                    covered: r.covered,
                    judged: r.judged,
                    min_class: r.min_class,
                    below: r.unsafe_records,
                    attack: r
                        .attack
                        .as_ref()
                        .map(|a| (a.targets, a.expected_correct, a.unique_correct)),
                })
                .collect(),
            warnings: c.warnings.clone(),
        }
    }

    /// The promise in words (`k = 3 (all)`), or `none`.
    pub fn promise(&self) -> String {
        match (self.step, self.max_risk) {
            (0, _) => "none".into(),
            (_, Some(t)) => format!("risk ≤ {t} ({})", self.protect_against),
            _ => format!("k = {} ({})", self.k, self.protect_against),
        }
    }
}

/// The intruder's file of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntruderRecord {
    /// Records of the intruder's source.
    pub source_records: usize,
    /// Records the intruder holds.
    pub records: usize,
}

/// What the masking did (the defence log's totals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaskingRecord {
    /// Records in.
    pub rows_in: usize,
    /// Records out.
    pub rows_out: usize,
    /// Cells changed.
    pub cells_changed: usize,
    /// Cells suppressed.
    pub suppressions: usize,
    /// Records with at least one cell changed by a step that is not a public recoding; every
    /// released record when a synthesiser made them (none is an input record).
    pub records_changed: usize,
    /// Records with a cell recoded by a public recoding (its loss is generalisation); absent in
    /// runs stored before it was kept.
    #[serde(default)]
    pub records_recoded: usize,
    /// Records changed or recoded, each once (absent in runs stored before it was kept).
    #[serde(default)]
    pub records_changed_or_recoded: usize,
}

/// One attack's outcome: the evaluator's file-level figures that cannot be recomputed from the
/// per-record outcomes, and those outcomes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttackRecord {
    /// The attack's label.
    pub name: String,
    /// Its registry name.
    pub method: String,
    /// Records of the released file searched (after twins-only selection).
    pub released_records: usize,
    /// Links declared at the attack's threshold.
    pub declared: usize,
    /// The threshold, on the attack's own score scale (e.g. Fellegi–Sunter's match weight).
    pub threshold: Option<f64>,
    /// Correct declared / declared.
    pub precision: Option<f64>,
    /// Correct declared / twins.
    pub recall: Option<f64>,
    /// Harmonic mean of precision and recall.
    pub f1: Option<f64>,
    /// Mitra's A (records with attribute disclosure), when a sensitive variable is scored.
    #[serde(rename = "attribute_A")]
    pub attribute_a: Option<usize>,
    /// Mean of Mitra's p_i.
    pub attribute_mean_p: Option<f64>,
    /// The attack's own figures (e.g. Fellegi–Sunter's EM iterations).
    pub notes: Vec<(String, f64)>,
    /// The evaluator's own counts, kept so that the figures recomputed from `records` can be
    /// checked against them.
    pub evaluator: EvaluatorCounts,
    /// Per intruder record.
    pub records: AttackOutcomes,
    /// The fitted model's JSON (m, u, weights, EM report) for an attack that fits one
    /// (Fellegi–Sunter); absent otherwise and in runs stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<serde_json::Value>,
    /// The evaluator's warnings about the inputs (e.g. intruder records sharing a truth id,
    /// each scored against the released record with that id); absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The evaluator's headline counts for one attack.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluatorCounts {
    /// Intruder records whose person is in the released file.
    pub twins: usize,
    /// Intruder records with at least one candidate.
    pub with_candidates: usize,
    /// Intruder records whose chosen candidate is their twin.
    pub correct_matches: usize,
    /// Σ 1/c_i over records whose twin ranks first.
    pub expected_correct: f64,
    /// Records whose twin is the only best candidate.
    pub unique_correct: usize,
    /// Records whose twin is among at most two best candidates.
    pub le2_correct: usize,
}

/// Per-record outcomes of an attack, column by column (one entry per intruder record).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttackOutcomes {
    /// Whether the record's person is in the released file.
    pub twin: Vec<bool>,
    /// Candidates listed.
    pub candidates: Vec<u32>,
    /// `c_i`: candidates tied at the best score.
    pub best_ties: Vec<u32>,
    /// Rank of the twin among the candidates (0: not listed).
    pub twin_rank: Vec<u32>,
    /// Whether the chosen candidate is the twin.
    pub correct: Vec<bool>,
    /// Whether the record's chosen candidate is a declared link (best score at or above the
    /// attack's threshold; every chosen candidate when the attack has none).
    pub declared: Vec<bool>,
    /// Mitra's p_i, when scored.
    pub p: Vec<Option<f64>>,
}

/// One risk measure's outcome: its report (figures with units, tables).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiskRecord {
    /// The label (`risk.<name>.<figure>`).
    pub name: String,
    /// The registry name of the measure.
    pub measure: String,
    /// The report.
    pub report: Report,
}

/// One question's answer (`intruder::questions::Answer::report`): the risk with its interval,
/// the rates of the main attack, the control attack and the baseline, the counts, and as
/// details the parameters, the seed and the warnings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionRecord {
    /// The label (`question.<name>.<figure>`).
    pub name: String,
    /// The question's method name (`singling-out`, `linkability`, `inference`).
    pub method: String,
    /// The answer as a report.
    pub report: Report,
    /// The question's warnings (e.g. a risk that is not significant, too few successes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One utility measure's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UtilityRecord {
    /// The registry name of the measure.
    pub measure: String,
    /// The report.
    pub report: Report,
}

/// Where a metric comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "scope", content = "name", rename_all = "kebab-case")]
pub enum Scope {
    /// The masking (`masking.<figure>`).
    Masking,
    /// The intruder's file (`intruder.<figure>`).
    Intruder,
    /// An attack (`<attack>.<figure>`).
    Attack(String),
    /// A risk measure (`risk.<name>.<figure>`).
    Risk(String),
    /// The utility measures (`utility.<figure>`).
    Utility,
    /// The cross-examination of the setting's promises (`check.<figure>`).
    Check,
    /// A question of anonymisation (`question.<name>.<figure>`).
    Question(String),
}

/// A metric's identity: its scope and figure; written `masking.rows_out`, `exact.twins`,
/// `risk.listwise.sample_uniques`, `utility.il1s`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MetricId {
    /// The scope.
    pub scope: Scope,
    /// The figure's name.
    pub figure: String,
}

impl MetricId {
    /// A metric of `scope`.
    pub fn new(scope: Scope, figure: impl Into<String>) -> MetricId {
        MetricId {
            scope,
            figure: figure.into(),
        }
    }
}

impl std::fmt::Display for MetricId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.scope {
            Scope::Masking => write!(f, "masking.{}", self.figure),
            Scope::Intruder => write!(f, "intruder.{}", self.figure),
            Scope::Attack(a) => write!(f, "{a}.{}", self.figure),
            Scope::Risk(r) => write!(f, "risk.{r}.{}", self.figure),
            Scope::Utility => write!(f, "utility.{}", self.figure),
            Scope::Check => write!(f, "check.{}", self.figure),
            Scope::Question(q) => write!(f, "question.{q}.{}", self.figure),
        }
    }
}

/// One metric of one run: its identity, value and unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// Identity.
    pub id: MetricId,
    /// Value.
    pub value: f64,
    /// Unit (decides the range its interval is clipped to and how it is printed).
    pub unit: Unit,
    /// For a proportion of records: (numerator, denominator), both counts, `value` = their
    /// ratio. Replicates are then pooled (Σ numerators / Σ denominators), with an interval
    /// that carries the variation between replicates ([`crate::Stat::pooled`]).
    pub ratio: Option<(f64, f64)>,
}

impl Metric {
    /// A metric.
    pub fn new(scope: Scope, figure: impl Into<String>, value: f64, unit: Unit) -> Metric {
        Metric {
            id: MetricId::new(scope, figure),
            value,
            unit,
            ratio: None,
        }
    }

    /// A proportion `num / den` of records (`None` when `den` is 0: undefined, not 0).
    pub fn ratio(
        scope: Scope,
        figure: impl Into<String>,
        num: usize,
        den: usize,
    ) -> Option<Metric> {
        (den > 0).then(|| Metric {
            id: MetricId::new(scope, figure),
            value: num as f64 / den as f64,
            unit: Unit::Proportion,
            ratio: Some((num as f64, den as f64)),
        })
    }

    /// The range of values of the unit: proportions in [0, 1], counts ≥ 0.
    pub fn range(unit: Unit) -> (f64, f64) {
        match unit {
            Unit::Proportion => (0.0, 1.0),
            Unit::Count => (0.0, f64::INFINITY),
            Unit::Score | Unit::Label => (f64::NEG_INFINITY, f64::INFINITY),
        }
    }
}
