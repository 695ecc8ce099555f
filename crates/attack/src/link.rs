//! Following released links (Mitra et al. §3, "links released").
//!
//! When a released file carries a link id across waves (a household id kept from wave T−1 to
//! wave T), an intruder who has identified the household in wave T−1 simply follows the link:
//! the candidates of intruder record `i` are the released records whose link id equals `i`'s.
//! This is exact matching on the link id column alone (name it as the only key, possibly mapped
//! to another name in the released file); an intruder record without a link id has no candidate.
//! Compare with `exact` on the substantive keys for the "links removed" mode (worked example F:
//! `p_i = 2/3` without links, `0` with the link).

use intruder_table::Table;
use intruder_table::params::{Entry, ParamReader, ParamSpec};

use crate::config::MissingPolicy;
use crate::error::{AttackError, ParamError};
use crate::exact::ExactMatch;
use crate::keys::KeyMap;
use crate::{Attack, Knowledge, Linked};

/// Follows an explicit link id column; see the [module docs](self).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FollowLink;

/// The parameters of `link` in the registry: none beyond the common ones (its one key is the
/// link id; every candidate scores 1, so no threshold).
pub(crate) static PARAMS: &[ParamSpec] = &[];

/// The registry entry (`ATTACKS`).
pub const ENTRY: Entry<dyn Attack> = Entry {
    name: "link",
    summary: "follow a released link id column (the 'links released' mode); its one key is the link id",
    reference: "Mitra et al. 2020, §3 (links released)",
    params: PARAMS,
    figures: &[],
    build: FollowLink::build,
};

impl FollowLink {
    /// Reads the (no) parameters.
    pub(crate) fn build(r: &mut ParamReader<'_>) -> Option<Box<dyn Attack>> {
        r.ok().then(|| Box::new(FollowLink) as Box<dyn Attack>)
    }

    /// Follows the link of `keys` (one key) from any table holding it to `released`.
    pub(crate) fn link_tables(
        &self,
        intruder: &Table,
        released: &Table,
        keys: &KeyMap,
    ) -> Result<crate::Linkage, AttackError> {
        if keys.len() != 1 {
            return Err(ParamError::Unsupported(format!(
                "'link' follows one link id column; {} keys were given ({})",
                keys.len(),
                keys.pairs()
                    .iter()
                    .map(|p| p.intruder.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .into());
        }
        let mut l =
            ExactMatch::new(MissingPolicy::Listwise).link_tables(intruder, released, keys)?;
        l.method = "link".into();
        Ok(l)
    }
}

impl Attack for FollowLink {
    fn name(&self) -> &'static str {
        "link"
    }

    fn link(
        &self,
        knowledge: &Knowledge,
        released: &Table,
        _seed: u64,
    ) -> Result<Linked, AttackError> {
        Ok(Linked::from(self.link_tables(
            knowledge.table(),
            released,
            knowledge.keys(),
        )?))
    }

    fn params(&self) -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }
}
