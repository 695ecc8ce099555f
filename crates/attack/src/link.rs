//! Following released links (Mitra et al. §3, "links released").
//!
//! When a released file carries a link id across waves (a household id kept from wave T−1 to
//! wave T), an intruder who has identified the household in wave T−1 simply follows the link:
//! the candidates of intruder record `i` are the released records whose link id equals `i`'s.
//! This is exact matching on the link id column alone (name it as the only key, possibly mapped
//! to another name in the released file); an intruder record without a link id has no candidate.
//! Compare with `exact` on the substantive keys for the "links removed" mode (worked example F:
//! `p_i = 2/3` without links, `0` with the link).

use intruder_data::Table;

use crate::Attack;
use crate::config::{AttackConfig, MissingPolicy};
use crate::error::{AttackError, ParamError};
use crate::exact::ExactMatch;
use crate::keys::KeyMap;
use crate::linkage::Linkage;

/// Follows an explicit link id column; see the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct FollowLink;

impl FollowLink {
    pub(crate) fn build(cfg: &AttackConfig) -> Result<Box<dyn Attack>, AttackError> {
        cfg.check()?;
        Ok(Box::new(FollowLink))
    }
}

impl Attack for FollowLink {
    fn name(&self) -> &'static str {
        "link"
    }

    fn link(
        &self,
        intruder: &Table,
        released: &Table,
        keys: &KeyMap,
    ) -> Result<Linkage, AttackError> {
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
        let mut l = ExactMatch::new(MissingPolicy::Listwise).link(intruder, released, keys)?;
        l.method = "link".into();
        Ok(l)
    }
}
