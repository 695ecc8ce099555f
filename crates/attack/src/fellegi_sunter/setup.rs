//! Set-up of a run: the specification (given or inferred) checked against the two files, each
//! comparison's values interned ([`Prepared`]), each blocking rule's keys encoded.

use intruder_table::Table;

use super::FsParams;
use super::compare::Prepared;
use super::em::Layout;
use super::encode::{self, RuleKeys};
use super::spec::LinkageSpec;
use crate::Knowledge;
use crate::error::{AttackError, ParamError};
use crate::keys::KeyPair;

/// What every later step reads.
pub(crate) struct Setup {
    /// The specification used (given or inferred from the keys).
    pub spec: LinkageSpec,
    /// Each comparison resolved against both files.
    pub prepared: Vec<Prepared>,
    /// Levels and null level of each comparison.
    pub layout: Layout,
    /// Each blocking rule's keys.
    pub rule_keys: Vec<RuleKeys>,
    /// Each training session's rule keys (`training.blocking`; empty: the blocking rules).
    pub training_keys: Vec<RuleKeys>,
    /// λ from the deterministic rules (`training.deterministic`): pairs agreeing on any of
    /// them / recall / (n_I × n_R), with that number of pairs.
    pub deterministic: Option<(f64, usize)>,
    /// Intruder and released records.
    pub ni: usize,
    pub nr: usize,
}

/// The intruder columns a given specification reads (comparisons, then blocking terms), each
/// once; their released names where the specification gives them.
pub(crate) fn spec_keys(spec: &LinkageSpec) -> Vec<KeyPair> {
    spec.columns()
        .into_iter()
        .map(|c| {
            let released = spec
                .comparisons
                .iter()
                .find(|x| x.column == c)
                .and_then(|x| x.released.clone())
                .unwrap_or_else(|| c.clone());
            KeyPair {
                intruder: c,
                released,
                recode: None,
            }
        })
        .collect()
}

/// Refuses a specification reading a column that is not a key: the attack sees the intruder's
/// key columns only.
fn check_keys(spec: &LinkageSpec, knowledge: &Knowledge) -> Result<(), AttackError> {
    let keys = knowledge.keys();
    let missing: Vec<String> = spec_keys(spec)
        .into_iter()
        .filter(|p| !keys.pairs().iter().any(|k| k.intruder == p.intruder))
        .map(|p| p.intruder)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(ParamError::Unsupported(format!(
        "fellegi-sunter: the linkage specification reads {}, which {} not among the keys ({}); an attack sees the intruder's key columns only: add {} to the keys, or leave the keys out (they are then the specification's columns)",
        missing.iter().map(|m| format!("'{m}'")).collect::<Vec<_>>().join(", "),
        if missing.len() == 1 { "is" } else { "are" },
        keys.pairs().iter().map(|p| p.intruder.as_str()).collect::<Vec<_>>().join(", "),
        if missing.len() == 1 { "it" } else { "them" },
    ))
    .into())
}

/// Refuses an empty file or one with more records than the kernel's `u32` row numbers hold.
fn check_sizes(intruder: &Table, released: &Table) -> Result<(), AttackError> {
    for (t, which) in [(intruder, "intruder"), (released, "released")] {
        let n = t.nrows();
        if n == 0 {
            return Err(AttackError::Empty {
                file: t.source().to_string(),
                which,
            });
        }
        if n >= u32::MAX as usize {
            return Err(AttackError::Column {
                file: t.source().to_string(),
                name: String::new(),
                message: format!("{n} records: at most {} are supported", u32::MAX - 1),
            });
        }
    }
    Ok(())
}

impl Setup {
    /// Checks the specification against the files and encodes what the kernel reads.
    pub fn new(
        params: &FsParams,
        knowledge: &Knowledge,
        released: &Table,
    ) -> Result<Setup, AttackError> {
        let (intruder, keys) = (knowledge.table(), knowledge.keys());
        if let Some(spec) = &params.spec {
            check_keys(spec, knowledge)?;
        }
        check_sizes(intruder, released)?;
        let released_name = |n: &str| -> String {
            keys.pairs()
                .iter()
                .find(|p| p.intruder == n)
                .map_or(n.to_string(), |p| p.released.clone())
        };
        let spec = match &params.spec {
            Some(s) => s.clone(),
            None => LinkageSpec::default_for(intruder, released, keys)?,
        };
        spec.validate(intruder, released, &released_name)?;
        let prepared: Vec<Prepared> = spec
            .comparisons
            .iter()
            .map(|c| {
                let rn = c
                    .released
                    .clone()
                    .unwrap_or_else(|| released_name(&c.column));
                Prepared::with_names(c, intruder, released, &rn, &released_name)
            })
            .collect::<Result<_, _>>()?;
        let layout = Layout {
            levels: prepared.iter().map(|p| p.spec.levels.len()).collect(),
            null: prepared.iter().map(|p| p.null_level()).collect(),
        };
        let keys_of = |rules: &[Vec<super::spec::Term>]| -> Result<Vec<RuleKeys>, AttackError> {
            rules
                .iter()
                .map(|rule| encode::rule_keys(intruder, released, rule, &released_name))
                .collect()
        };
        let rule_keys = keys_of(&spec.blocking)?;
        let training_keys = match &spec.training {
            Some(t) => keys_of(&t.blocking)?,
            None => Vec::new(),
        };
        let (ni, nr) = (intruder.nrows(), released.nrows());
        let deterministic = match &spec.training {
            Some(t) if !t.deterministic.is_empty() => {
                let pairs = super::blocking::candidate_pairs(
                    intruder,
                    released,
                    &t.deterministic,
                    &released_name,
                )?
                .len();
                Some(deterministic_lambda(pairs, t.recall, (ni, nr)))
            }
            _ => None,
        };
        Ok(Setup {
            spec,
            prepared,
            layout,
            rule_keys,
            training_keys,
            deterministic,
            ni,
            nr,
        })
    }
}

/// λ from the deterministic rules (`training.deterministic`, Splink's
/// `estimate_probability_two_random_records_match`): the `pairs` agreeing on any of them /
/// `recall` (1 when not given) / (n_I × n_R), with that number of pairs.
pub(crate) fn deterministic_lambda(
    pairs: usize,
    recall: Option<f64>,
    (ni, nr): (usize, usize),
) -> (f64, usize) {
    let recall = recall.unwrap_or(1.0);
    (pairs as f64 / recall / (ni as f64 * nr as f64), pairs)
}
