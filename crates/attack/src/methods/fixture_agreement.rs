//! Agreement counting (a fixture, compiled with the feature `fixture-methods` only, for the test
//! that a new method is one file and one registry line): the candidates of intruder record `i`
//! are the released records that agree with it on at least `min_agree` keys, scored by the
//! number of keys they agree on — the simplest of the comparison vectors Fellegi and Sunter
//! (1969) weigh, with every agreement weighing 1. Values are compared as text; a missing cell
//! agrees with nothing. It scans every pair (O(n·m·keys)).

use intruder_table::Table;
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};
use serde_json::{Map, Value};

use crate::error::AttackError;
use crate::linkage::{Candidates, Linkage};
use crate::{Attack, Knowledge, Linked};

const NAME: &str = "fixture-agreement";

/// The attack's own parameters (the common ones are [`crate::ATTACK_COMMON`]).
const PARAMS: &[ParamSpec] = &[ParamSpec::new(
    "min_agree",
    ParamKind::Integer,
    "fewest keys a released record must agree on to be a candidate",
)
.default_value("1")
.within(Range::at_least(1.0))];

/// Registry entry.
pub const ENTRY: Entry<dyn Attack> = Entry {
    name: NAME,
    summary: "candidates agree on at least min_agree keys, scored by the number of agreeing keys",
    reference: "Fellegi & Sunter (1969), comparison vectors with unit weights",
    params: PARAMS,
    figures: &[],
    build,
};

/// Agreement counting; see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// Fewest agreeing keys of a candidate.
    min_agree: usize,
}

fn build(r: &mut ParamReader<'_>) -> Option<Box<dyn Attack>> {
    let min_agree = r.get_or("min_agree", 1usize);
    r.ok()
        .then(|| Box::new(Agreement { min_agree }) as Box<dyn Attack>)
}

/// Each row's keys as text (`None`: missing), the intruder's through its key's recoding.
fn texts(table: &Table, names: &[(&str, Option<&std::collections::HashMap<String, String>>)]) -> Result<Vec<Vec<Option<String>>>, AttackError> {
    let columns = names
        .iter()
        .map(|(n, _)| table.column(n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((0..table.nrows())
        .map(|i| {
            columns
                .iter()
                .zip(names)
                .map(|(c, (_, recode))| {
                    let t = c.text(i)?.into_owned();
                    Some(recode.and_then(|m| m.get(&t).cloned()).unwrap_or(t))
                })
                .collect()
        })
        .collect())
}

impl Attack for Agreement {
    fn name(&self) -> &'static str {
        NAME
    }

    fn link(&self, knowledge: &Knowledge, released: &Table, _seed: u64) -> Result<Linked, AttackError> {
        let pairs = knowledge.keys().pairs();
        let mine: Vec<_> = pairs
            .iter()
            .map(|p| (p.intruder.as_str(), p.recode.as_ref()))
            .collect();
        let theirs: Vec<_> = pairs.iter().map(|p| (p.released.as_str(), None)).collect();
        let intruder = texts(knowledge.table(), &mine)?;
        let release = texts(released, &theirs)?;
        let records = intruder
            .iter()
            .map(|a| {
                let scored = release
                    .iter()
                    .enumerate()
                    .filter_map(|(row, b)| {
                        let agree = a.iter().zip(b).filter(|(x, y)| x.is_some() && x == y).count();
                        (agree >= self.min_agree).then_some((row, agree as f64))
                    })
                    .collect();
                Candidates::from_scored(scored)
            })
            .collect();
        Ok(Linked::from(Linkage {
            method: NAME.into(),
            scored: true,
            complete: true,
            released_rows: released.nrows(),
            records,
            notes: Vec::new(),
            lister: None,
        }))
    }

    fn params(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("min_agree".into(), self.min_agree.into());
        m
    }
}
