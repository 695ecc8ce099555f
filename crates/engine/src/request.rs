//! What the exact attack is asked to link, whatever the engine.

use std::path::PathBuf;

use intruder_attack::{KeyMap, KeyPair, MissingPolicy};
use intruder_data::Input;

use crate::EngineError;

/// The exact-key attack of one intruder file on one released file.
#[derive(Debug, Clone)]
pub struct ExactRequest {
    /// The intruder's file.
    pub intruder: PathBuf,
    /// How to read it.
    pub intruder_input: Input,
    /// The released file.
    pub released: PathBuf,
    /// How to read it.
    pub released_input: Input,
    /// (intruder column, released column) of each key.
    pub keys: Vec<(String, String)>,
    /// The missing-value policy.
    pub missing: MissingPolicy,
    /// Candidates listed per intruder record (the smallest rows; c_i stays exact).
    pub max_listed: usize,
}

impl ExactRequest {
    /// The key map of the request.
    pub fn key_map(&self) -> Result<KeyMap, EngineError> {
        let pairs = self
            .keys
            .iter()
            .map(|(i, r)| KeyPair {
                intruder: i.clone(),
                released: r.clone(),
                recode: None,
            })
            .collect();
        KeyMap::new(pairs).map_err(|e| EngineError::Attack(e.into()))
    }
}
