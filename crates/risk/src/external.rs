//! Every file-level frequency figure from counts made elsewhere: by a query engine's `GROUP BY`
//! (the `intruder-engine` crate's DataFusion and Ballista plans) instead of [`crate::assess`]'s
//! in-memory coding. The figures are made by the same functions as [`crate::assess`]'s, from
//! the same histograms, so an engine that counts the same classes gets the same report.
//!
//! What the counts give ([`counts_suffice`]): the summary (no per-record figures), with or
//! without weights, under every missing-value policy (wildcard with Mulder's rule, no `alpha`,
//! no `incomplete_pairs = never`), without a group, sensitive or whole-set column. Set-valued
//! keys are the caller's to refuse.

use crate::Encoding;
use crate::assess::{
    Assessment, RecordRisk, RiskParams, Summary, bender_r_of, check_population, class_summary,
    k_anonymity_of, n_match_k_anonymity, n_match_risk_summary, risk_levels_summary,
    unweighted_summary, wildcard_summary_of,
};
pub use crate::assess::{WeightFacts, weight_facts_warnings};
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::sizes::SizeCounts;
use crate::wildcard::IncompletePairs;

/// The counts of a file under listwise or as-value.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassCounts {
    /// Records in the file.
    pub n_total: usize,
    /// Records dropped (listwise) for a missing key.
    pub n_deleted: usize,
    /// (class size f_k, number of classes of that size), in any order; no size 0.
    pub sizes: Vec<(u32, usize)>,
    /// How the local engine would have coded the tuples (a figure of the report).
    pub encoding: Encoding,
    /// With weights: (individual risk of a class, records of the classes at that risk), in
    /// any order, and the sum of the risks over the records counted.
    pub risk_levels: Option<(Vec<(f64, usize)>, f64)>,
}

/// The counts of a file under wildcard.
#[derive(Debug, Clone, PartialEq)]
pub struct NMatchCounts {
    /// Records in the file.
    pub n_total: usize,
    /// (n_match, records with that n_match), in any order; no n_match 0.
    pub n_match: Vec<(u32, usize)>,
    /// With weights: (individual risk from n_match and its weighted count, records at that
    /// risk), in any order, and the sum of the risks over every record.
    pub risk_levels: Option<(Vec<(f64, usize)>, f64)>,
}

/// `None` when the counts give every figure `params` asks for; otherwise what they do not
/// give, in words.
pub fn counts_suffice(params: &RiskParams) -> Option<String> {
    let mut no = Vec::new();
    if params.per_record {
        no.push("per-record figures");
    }
    if params.with_n_match && params.missing != MissingPolicy::Wildcard {
        no.push("n_match outside the wildcard policy");
    }
    if params.group.is_some() {
        no.push("household risk (a group column)");
    }
    if params.sensitive.is_some() || params.recursive_cl.is_some() {
        no.push("ℓ-diversity (a sensitive column)");
    }
    if !params.whole_sets.is_empty() {
        no.push("whole-set keys");
    }
    if params.wildcard_alpha.is_some() {
        no.push("wildcard alpha");
    }
    if params.incomplete_pairs == IncompletePairs::Never {
        no.push("incomplete_pairs = never");
    }
    (!no.is_empty()).then(|| no.join(", "))
}

fn sorted(mut v: Vec<(u32, usize)>) -> Vec<(u32, usize)> {
    v.sort_unstable();
    v.dedup_by(|next, kept| {
        let same = next.0 == kept.0;
        if same {
            kept.1 += next.1;
        }
        same
    });
    v.retain(|&(s, c)| s > 0 && c > 0);
    v
}

/// Risk levels by decreasing risk, equal risks merged (as [`crate::assess`] makes them).
fn levels(mut v: Vec<(f64, usize)>) -> Vec<(f64, usize)> {
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    v.dedup_by(|next, kept| {
        let same = next.0 == kept.0;
        if same {
            kept.1 += next.1;
        }
        same
    });
    v
}

fn refuse(params: &RiskParams) -> Result<(), RiskError> {
    params.check()?;
    match counts_suffice(params) {
        Some(what) => Err(RiskError::Param(format!(
            "these figures need the records, not only their counts: {what}"
        ))),
        None => Ok(()),
    }
}

/// The warnings [`crate::assess`] gives from counts: weights below 1 or far from the
/// population size, keys missing in every record (`observed_per_key`: the records where each
/// key is observed).
pub fn warnings(
    file: &str,
    params: &RiskParams,
    n_total: usize,
    observed_per_key: &[usize],
    weights: Option<&WeightFacts>,
) -> Vec<String> {
    let mut out = weights.map_or_else(Vec::new, |w| {
        weight_facts_warnings(w, file, params.population_size)
    });
    if n_total > 0 {
        let empty: Vec<&str> = observed_per_key
            .iter()
            .zip(&params.keys)
            .filter(|&(&observed, _)| observed == 0)
            .map(|(_, k)| k.as_str())
            .collect();
        out.extend(crate::assess::empty_keys_warning(file, &empty));
    }
    out
}

/// The assessment of a file from its class counts (listwise or as-value), as
/// [`crate::assess`] makes it from the records.
pub fn assess_class_counts(
    counts: ClassCounts,
    file: &str,
    params: &RiskParams,
) -> Result<Assessment, RiskError> {
    refuse(params)?;
    if params.missing == MissingPolicy::Wildcard {
        return Err(RiskError::Param(
            "class counts are for listwise or as-value; wildcard takes n_match counts".into(),
        ));
    }
    let n_total = counts.n_total;
    check_population(params.population_size, n_total)?;
    let sc = SizeCounts {
        counts: sorted(counts.sizes),
        n_deleted: counts.n_deleted,
        encoding: counts.encoding,
    };
    let classes = class_summary(&sc, n_total, params);
    let weights = match counts.risk_levels {
        None => unweighted_summary(&sc, n_total, params),
        Some((lv, sum)) => risk_levels_summary(
            &levels(lv),
            sum,
            n_total - sc.n_deleted,
            n_total,
            params,
            true,
        ),
    };
    let bender_r = bender_r_of(params, Some(&classes), n_total, file)?;
    Ok(Assessment {
        summary: Summary {
            policy: params.missing,
            keys: params.keys.clone(),
            n_total,
            unique_threshold: params.unique_threshold,
            k_anonymity: k_anonymity_of(&sc, params.k_anonymity),
            weights: Some(weights),
            classes: Some(classes),
            wildcard: None,
            household: None,
            diversity: None,
            bender_r,
        },
        records: RecordRisk::default(),
        warnings: Vec::new(),
    })
}

/// The assessment of a file from its n_match counts (wildcard), as [`crate::assess`] makes it
/// from the records.
pub fn assess_n_match_counts(
    counts: NMatchCounts,
    file: &str,
    params: &RiskParams,
) -> Result<Assessment, RiskError> {
    refuse(params)?;
    if params.missing != MissingPolicy::Wildcard {
        return Err(RiskError::Param(
            "n_match counts are for the wildcard policy".into(),
        ));
    }
    let n_total = counts.n_total;
    check_population(params.population_size, n_total)?;
    let hist = sorted(counts.n_match);
    let weights = match counts.risk_levels {
        None => n_match_risk_summary(&hist, n_total, params),
        Some((lv, sum)) => risk_levels_summary(&levels(lv), sum, n_total, n_total, params, true),
    };
    Ok(Assessment {
        summary: Summary {
            policy: params.missing,
            keys: params.keys.clone(),
            n_total,
            unique_threshold: params.unique_threshold,
            classes: None,
            wildcard: Some(wildcard_summary_of(&hist, n_total, params)),
            k_anonymity: n_match_k_anonymity(&hist, params.k_anonymity),
            weights: Some(weights),
            household: None,
            diversity: None,
            bender_r: bender_r_of(params, None, n_total, file)?,
        },
        records: RecordRisk::default(),
        warnings: Vec::new(),
    })
}

/// The checks [`crate::assess`] makes of the keys and records before counting: at least one
/// key, none named twice, at most 64; a file with records, fewer than 2³² − 1.
pub fn check_file(file: &str, keys: &[String], n_total: usize) -> Result<(), RiskError> {
    crate::keys::check_names(keys)?;
    crate::keys::check_rows(file, n_total)
}
