//! Record removal (Dalenius 1986, "destruction" of unique records): records whose class on the
//! keys has fewer than `k` records are removed (Dalenius' uniques with threshold k − 1: k = 2
//! removes sample uniques, k = 4 also colluding pairs and triples). Classes use the wildcard rule
//! of [`crate::wildcard_counts`]; since removing a record can shrink another's class when missing cells
//! match, removal repeats until every remaining record is in a class of at least k.

use intruder_data::Table;
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, key_index};
use crate::{Defence, DefenceError, Masked};
use intruder_data::Role;
use intruder_data::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "remove-records";

/// Parameters of record removal.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoveRecords {
    /// Key variables.
    pub keys: Vec<String>,
    /// Records in classes smaller than `k` are removed (k ≥ 2).
    pub k: u32,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "keys",
        ParamKind::Columns,
        "key variables (missing = wildcard), 1 to 64",
    )
    .required()
    .from_role(Role::Key),
    ParamSpec::new(
        "k",
        ParamKind::Integer,
        "records whose class has fewer than k records are removed (k = 2 removes sample uniques)",
    )
    .required()
    .within(Range::at_least(2.0)),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "removes records in classes smaller than k (Dalenius' destruction)",
    reference: "Dalenius (1986) §4",
    params: PARAMS,
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let keys: Option<Vec<String>> = r.require("keys");
    let k: Option<i64> = r.require("k");
    let k = k.and_then(|k| match u32::try_from(k) {
        Ok(k) => Some(k),
        Err(_) => {
            r.problem("k", format!("is {k}; expected at most {}", u32::MAX));
            None
        }
    });
    if let Some(keys) = &keys {
        r.check(
            "keys",
            !keys.is_empty() && keys.len() <= 64,
            "must name 1 to 64 keys",
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(RemoveRecords { keys: keys?, k: k? }))
}

impl Defence for RemoveRecords {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.keys)?;
        let mut kept: Vec<usize> = (0..table.nrows()).collect();
        let mut rounds = 0;
        loop {
            let t = table.take(&kept);
            let counts = key_index(&t, NAME, &self.keys, None)?.self_join();
            let next: Vec<usize> = kept
                .iter()
                .zip(&counts)
                .filter(|(_, c)| c.0 >= self.k as u64)
                .map(|(&r, _)| r)
                .collect();
            rounds += 1;
            if next.len() == kept.len() {
                break;
            }
            kept = next;
        }
        Ok(Masked {
            table: table.take(&kept),
            notes: vec![format!(
                "{} records removed in {} rounds",
                table.nrows() - kept.len(),
                rounds
            )],
            kept_rows: Some(kept),
        })
    }
}
