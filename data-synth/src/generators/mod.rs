//! The generators, one module each.

pub mod census;
pub mod household_panel;
pub mod linkage_pair;
mod names;
pub mod register_survey;
pub mod survey_panel;
