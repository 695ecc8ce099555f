//! Record removal (Dalenius 1986, "destruction" of unique records): records whose class on the
//! keys has fewer than `k` records are removed (Dalenius' uniques with threshold k − 1: k = 2
//! removes sample uniques, k = 4 also colluding pairs and triples). Classes follow
//! `protect_against` ([`crate::claim`]): under `all` and `as-value` a class is a combination of
//! visible values and blanks, and removing a whole class leaves every other class as it was;
//! under `listwise` only complete records are judged (a record with a missing key stays); under
//! `wildcard` a missing cell matches anything ([`crate::wildcard_counts`]), and since removing a
//! record can shrink another's matches, removal repeats until every remaining record has at
//! least k.

use intruder_table::Table;
use rand_chacha::ChaCha20Rng;

use crate::claim::{Claim, ProtectAgainst};
use crate::common::{check_columns, key_codes, key_index};
use crate::methods::suppress::PROTECT_AGAINST;
use crate::{Defence, DefenceError, Masked};
use intruder_table::Role;
use intruder_table::keys::{MISSING, tuple_ids};
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "remove-records";

/// Parameters of record removal.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoveRecords {
    /// Key variables.
    pub(crate) keys: Vec<String>,
    /// Records in classes smaller than `k` are removed (k ≥ 2).
    pub(crate) k: u32,
    /// The rule the remaining records are k-anonymous under.
    pub(crate) protect_against: ProtectAgainst,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("keys", ParamKind::Columns, "key variables, 1 to 64")
        .required()
        .from_role(Role::Key),
    ParamSpec::new(
        "k",
        ParamKind::Integer,
        "records whose class has fewer than k records are removed (k = 2 removes sample uniques)",
    )
    .example("3")
    .required()
    .within(Range::at_least(2.0)),
    PROTECT_AGAINST,
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "removes records in classes smaller than k (Dalenius' destruction)",
    reference: "Dalenius (1986) §4",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let keys: Option<Vec<String>> = r.require("keys");
    let k: Option<i64> = r.require("k");
    let protect_against = r
        .choice::<ProtectAgainst>("protect_against")
        .unwrap_or_default();
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
    Some(Box::new(RemoveRecords {
        keys: keys?,
        k: k?,
        protect_against,
    }))
}

impl Defence for RemoveRecords {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.keys)?;
        let (kept, rounds) = match self.protect_against {
            ProtectAgainst::Wildcard => self.kept_wildcard(table)?,
            rule => (self.kept_classes(table, rule)?, 1),
        };
        Ok(Masked {
            table: table.take(&kept),
            notes: vec![
                format!(
                    "{} records removed in {} rounds",
                    table.nrows() - kept.len(),
                    rounds
                ),
                format!("protect_against = {}", self.protect_against),
            ],
            kept_rows: Some(kept),
            details: None,
        })
    }

    fn claims(&self) -> Vec<Claim> {
        vec![Claim::k_anonymity(
            NAME,
            &self.keys,
            self.k,
            self.protect_against,
        )]
    }
}

impl RemoveRecords {
    /// Rows kept under the wildcard rule, and the rounds of removal it took.
    fn kept_wildcard(&self, table: &Table) -> Result<(Vec<usize>, usize), DefenceError> {
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
                return Ok((kept, rounds));
            }
            kept = next;
        }
    }

    /// Rows kept under the listwise or as-value rule: whole classes go, so one round.
    fn kept_classes(
        &self,
        table: &Table,
        rule: ProtectAgainst,
    ) -> Result<Vec<usize>, DefenceError> {
        let coded = key_codes(table, NAME, &self.keys)?;
        let codes: Vec<&[u32]> = coded.codes.iter().map(Vec::as_slice).collect();
        let listwise = rule == ProtectAgainst::Listwise;
        let (ids, n_ids) = tuple_ids(&codes, listwise);
        let mut size = vec![0u64; n_ids as usize];
        for &id in &ids {
            if id != MISSING {
                size[id as usize] += 1;
            }
        }
        Ok((0..table.nrows())
            .filter(|&r| ids[r] == MISSING || size[ids[r] as usize] >= self.k as u64)
            .collect())
    }
}
