//! The masking methods, one module each; each exposes its parameter type (public fields, read
//! and validated by its registry entry `METHOD`) implementing [`crate::Defence`].

pub mod generalise;
pub mod marginals;
pub mod mdav;
pub mod noise;
pub mod pram;
pub mod privbayes;
pub mod rankswap;
pub mod recode;
pub mod record_swap;
pub mod remove;
pub mod round;
pub mod subsample;
pub mod suppress;
pub mod topcode;
