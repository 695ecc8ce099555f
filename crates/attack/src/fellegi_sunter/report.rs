//! What a run explains: the fitted model (m, u and weight of every level, EM sessions, the
//! prior), the weight breakdown of one pair (a waterfall) and the records the model cannot
//! link even to an exact copy of themselves (Splink's unlinkables), as data that serialises to
//! JSON and prints as aligned text.

use super::Training;
use super::em::EmReport;
use super::predict::Assignment;
use super::spec::LinkageSpec;
use super::train::TrainingSession;

/// One level of one comparison in the fitted model.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LevelReport {
    /// The level's condition.
    pub level: String,
    /// P(level | match) (`None` for the null level).
    pub m: Option<f64>,
    /// P(level | non-match), from random pairs.
    pub u: Option<f64>,
    /// P(level | non-match) among the candidate pairs, as EM found it.
    pub u_candidates: Option<f64>,
    /// `log2(m / u)` (0 for the null level).
    pub weight: f64,
    /// Candidate pairs at this level.
    pub pairs: u64,
    /// Whether m / u were fixed by the specification.
    pub fixed: bool,
    /// Whether the term-frequency adjustment applies.
    pub term_frequency: bool,
}

/// One comparison in the fitted model.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ComparisonReport {
    /// Intruder column.
    pub column: String,
    /// Released column.
    pub released: String,
    /// Whether u came from the values' frequencies over every record pair (exactly) rather
    /// than from the random pairs.
    pub u_from_frequencies: bool,
    /// Its levels.
    pub levels: Vec<LevelReport>,
}

/// The fitted model: what was estimated and how; serialisable as the explanation of the run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FsModel {
    /// The specification used (given or inferred).
    pub spec: LinkageSpec,
    /// Candidate pairs per blocking rule (after removing pairs of earlier rules).
    pub pairs_per_rule: Vec<usize>,
    /// Candidate pairs.
    pub candidate_pairs: usize,
    /// Distinct agreement patterns among them.
    pub patterns: usize,
    /// Random pairs requested for u (`u_sample`).
    pub u_sample: usize,
    /// Pairs compared for u: `u_sample`, or every possible pair when there are no more.
    pub u_pairs: usize,
    /// Whether u came from every pair once (`u_sample ≥ n_I × n_R`) rather than a sample.
    pub u_every_pair: bool,
    /// How m was trained.
    pub training: Training,
    /// The per-rule training sessions (empty for pooled training).
    pub sessions: Vec<TrainingSession>,
    /// The EM outcome (m, u among candidates, λ_C, iterations, converged). Per-rule training:
    /// the final EM over every candidate pair with the trained m fixed (it estimates λ_C, u
    /// among candidates, and m only for comparisons left out of every session).
    pub em: EmReport,
    /// λ: probability that two random records match (`λ_C |C| / (n_I n_R)`).
    pub lambda: f64,
    /// `log2(λ / (1 − λ))`, the weight every pair starts from.
    pub prior_weight: f64,
    /// The threshold as match probability and as weight.
    pub threshold: f64,
    /// `log2(threshold / (1 − threshold))`.
    pub threshold_weight: f64,
    /// The assignment.
    pub assignment: Assignment,
    /// Links declared (one-to-one links, or pairs, at or above the threshold).
    pub links: usize,
    /// Per comparison and level: m, u, weight.
    pub comparisons: Vec<ComparisonReport>,
    /// What the user should know before reading the links (e.g. that no pair can reach the
    /// threshold), found while training.
    pub warnings: Vec<String>,
    /// The records that cannot be linked even to an exact copy of themselves (Splink's
    /// unlinkables): the match weight of each intruder record paired with itself, rounded to
    /// 0.01, with the number of records at that weight, ascending.
    pub self_match_weights: Vec<(f64, u64)>,
    /// The weight breakdown of the declared link with the smallest match weight (the link
    /// closest to the threshold), when there is one.
    pub borderline: Option<Waterfall>,
}

impl FsModel {
    /// The m, u and weight of every level of every comparison, aligned for people.
    pub fn to_table(&self) -> String {
        let mut rows: Vec<[String; 7]> = vec![[
            "comparison".into(),
            "level".into(),
            "m".into(),
            "u".into(),
            "weight".into(),
            "pairs".into(),
            "notes".into(),
        ]];
        let f = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.6}"));
        for c in &self.comparisons {
            for l in &c.levels {
                let mut notes = Vec::new();
                if l.fixed {
                    notes.push("fixed");
                }
                if l.term_frequency {
                    notes.push("tf-adjusted");
                }
                rows.push([
                    if c.column == c.released {
                        c.column.clone()
                    } else {
                        format!("{}/{}", c.column, c.released)
                    },
                    l.level.clone(),
                    f(l.m),
                    f(l.u),
                    format!("{:+.3}", l.weight),
                    l.pairs.to_string(),
                    notes.join(", "),
                ]);
            }
        }
        let widths: Vec<usize> = (0..7)
            .map(|k| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        out.push_str(&format!(
            "Fellegi-Sunter model: {} candidate pairs ({} per rule), {} patterns; EM {} after {} iterations (last change {:.2e}); lambda among candidates {:.6}, prior lambda {:.3e} (weight {:+.3}); threshold p >= {} (weight {:+.3}), {:?} assignment, {} links\n",
            self.candidate_pairs,
            self.pairs_per_rule.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" + "),
            self.patterns,
            if self.em.converged { "converged" } else { "stopped at the iteration cap (not converged)" },
            self.em.iterations,
            self.em.last_change,
            self.em.lambda,
            self.lambda,
            self.prior_weight,
            self.threshold,
            self.threshold_weight,
            self.assignment,
            self.links,
        ));
        out.push_str(&if self.u_every_pair {
            format!(
                "u from every pair once ({} pairs: u_sample {} reaches the intruder x released records)\n",
                self.u_pairs, self.u_sample
            )
        } else {
            format!("u from {} random pairs\n", self.u_pairs)
        });
        for w in &self.warnings {
            out.push_str(&format!("warning: {w}\n"));
        }
        out.push_str(&self.sessions_text());
        for r in rows {
            let line: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(k, s)| format!("{s:<w$}", w = widths[k]))
                .collect();
            out.push_str(line.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}

impl FsModel {
    /// The per-rule training sessions, a line each (empty for pooled training).
    fn sessions_text(&self) -> String {
        let mut out = String::new();
        if !self.sessions.is_empty() {
            out.push_str(&format!(
                "m trained per blocking rule (mean over the sessions where a comparison was free); the EM above estimates lambda with m fixed{}\n",
                if self.sessions.len() == 1 && self.sessions[0].left_out.is_empty() {
                    " (single session over every pair: it is that session)"
                } else {
                    ""
                }
            ));
            for (r, t) in self.sessions.iter().enumerate() {
                out.push_str(&format!(
                    "  session {} [{}]: {} pairs, {} patterns, left out: {}; {}\n",
                    r + 1,
                    t.rule,
                    t.pairs,
                    t.patterns,
                    if t.left_out.is_empty() {
                        "none".to_string()
                    } else {
                        t.left_out.join(", ")
                    },
                    match t.last_change {
                        None => "EM not run (no pair or no comparison left free)".to_string(),
                        Some(ch) => format!(
                            "EM {} after {} iterations (last change {:.2e}), lambda {:.6} (cap {:.6})",
                            if t.converged {
                                "converged"
                            } else {
                                "stopped at the iteration cap (not converged)"
                            },
                            t.iterations,
                            ch,
                            t.lambda,
                            t.lambda_max
                        ),
                    }
                ));
            }
        }
        out
    }

    /// The share of intruder records whose match weight against an exact copy of themselves
    /// is below `weight` (Splink's unlinkables chart at that threshold).
    pub fn unlinkable_share(&self, weight: f64) -> f64 {
        let total: u64 = self.self_match_weights.iter().map(|x| x.1).sum();
        let below: u64 = self
            .self_match_weights
            .iter()
            .filter(|x| x.0 < weight)
            .map(|x| x.1)
            .sum();
        if total == 0 {
            0.0
        } else {
            below as f64 / total as f64
        }
    }
}

/// One step of a pair's weight breakdown.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WaterfallStep {
    /// The comparison's intruder column.
    pub comparison: String,
    /// The intruder's value.
    pub intruder_value: Option<String>,
    /// The released value.
    pub released_value: Option<String>,
    /// The level the pair falls in.
    pub level: String,
    /// `log2(m / u)` of the level.
    pub weight: f64,
    /// Term-frequency adjustment `log2(u_exact / tf(v))` (0 when none).
    pub tf_adjustment: f64,
    /// Running total after this step.
    pub cumulative: f64,
}

/// The weight breakdown of one pair (a waterfall in numbers).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Waterfall {
    /// Intruder row (0-based).
    pub intruder_row: usize,
    /// Released row (0-based).
    pub released_row: usize,
    /// Whether blocking made it a candidate pair.
    pub candidate: bool,
    /// The prior weight `log2(λ/(1−λ))`.
    pub prior_weight: f64,
    /// Per comparison.
    pub steps: Vec<WaterfallStep>,
    /// The match weight.
    pub match_weight: f64,
    /// The match probability.
    pub match_probability: f64,
}

impl Waterfall {
    /// The breakdown as aligned text.
    pub fn to_table(&self) -> String {
        let mut out = format!(
            "pair intruder row {} / released row {}{}\n  prior                         {:+.3}\n",
            self.intruder_row + 1,
            self.released_row + 1,
            if self.candidate {
                ""
            } else {
                " (not a candidate pair: blocking would not compare it)"
            },
            self.prior_weight
        );
        for s in &self.steps {
            out.push_str(&format!(
                "  {:<12} {:>14} | {:<14} {:<24} {:+.3}{}  = {:+.3}\n",
                s.comparison,
                s.intruder_value.as_deref().unwrap_or("(missing)"),
                s.released_value.as_deref().unwrap_or("(missing)"),
                s.level,
                s.weight,
                if s.tf_adjustment != 0.0 {
                    format!(" tf {:+.3}", s.tf_adjustment)
                } else {
                    String::new()
                },
                s.cumulative
            ));
        }
        out.push_str(&format!(
            "  match weight {:+.3}, match probability {:.6}\n",
            self.match_weight, self.match_probability
        ));
        out
    }
}
