//! The figures several risk measures report, declared once (each measure's entry lists the
//! ones it reports; a measure's own figures are declared in its file). A test runs every
//! measure and checks that each number it reports is declared with the same unit.

use intruder_table::params::FigureSpec;
use intruder_table::report::Unit::{Count, Proportion, Score};

const MULDER_LISTWISE: &str = "Mulder (listwise deletion)";
const SDCMICRO_RISK: &str = "Benedetti & Franconi (1998); sdcMicro indivRisk";
const HOUSEHOLD: &str = "sdcMicro measure_hierarchical";
const DIVERSITY: &str = "Machanavajjhala et al. (2007); sdcMicro ldiversity";

/// Records in the file.
pub(crate) const N_TOTAL: FigureSpec =
    FigureSpec::new("n_total", "records in the file", Count, "–");
/// Records dropped for a missing key.
pub(crate) const N_DELETED: FigureSpec = FigureSpec::new(
    "n_deleted",
    "records dropped for a missing key",
    Count,
    MULDER_LISTWISE,
);
/// Records counted.
pub(crate) const N: FigureSpec = FigureSpec::new("n", "records counted", Count, MULDER_LISTWISE);
/// Sample uniques.
pub(crate) const SAMPLE_UNIQUES: FigureSpec = FigureSpec::new(
    "sample_uniques",
    "sample uniques (records with f_k = 1)",
    Count,
    "Dalenius (1986); Mulder, Table 3",
);
/// Equivalence classes.
pub(crate) const CLASSES: FigureSpec = FigureSpec::new(
    "classes",
    "equivalence classes (a count of classes)",
    Count,
    "Dalenius (1986)",
);
/// The counts of records and classes by class size (frequency).
pub(crate) const CLASS_SIZES: &[FigureSpec] = &[
    FigureSpec::new(
        "k_le_5",
        "records with f_k ≤ 5 (not f_k < 5)",
        Count,
        "Mulder, Table 4; sdcMicro",
    ),
    FigureSpec::new(
        "k_le_10",
        "records with f_k ≤ 10 (not f_k < 10)",
        Count,
        "Mulder, Table 4; sdcMicro",
    ),
    FigureSpec::new(
        "records_k_le_5",
        "records in classes of size ≤ 5",
        Count,
        "Mulder, Table 4",
    ),
    FigureSpec::new(
        "records_k_le_10",
        "records in classes of size ≤ 10",
        Count,
        "Mulder, Table 4",
    ),
    FigureSpec::new(
        "classes_k_le_5",
        "classes of size ≤ 5 (a count of classes)",
        Count,
        "Mulder, Table 3",
    ),
    FigureSpec::new(
        "classes_k_le_10",
        "classes of size ≤ 10 (a count of classes)",
        Count,
        "Mulder, Table 3",
    ),
    FigureSpec::new(
        "pr_su_new",
        "share unique among counted",
        Proportion,
        "Mulder",
    ),
    FigureSpec::new("pr_su_full", "share unique among all", Proportion, "Mulder"),
    FigureSpec::new(
        "min_k",
        "the file's k (smallest f_k)",
        Count,
        "Samarati & Sweeney (1998)",
    ),
    FigureSpec::new(
        "pairs",
        "classes of size 2 (a count of classes)",
        Count,
        "Skinner & Elliot (2002)",
    ),
    FigureSpec::new(
        "uniques_at_threshold",
        "records in classes at or below the uniqueness threshold",
        Count,
        "Dalenius (1986)",
    ),
    FigureSpec::new(
        "classes_at_threshold",
        "classes at or below the uniqueness threshold (a count of classes)",
        Count,
        "Dalenius (1986)",
    ),
    FigureSpec::new(
        "records_fk_below_k",
        "records violating k-anonymity (f_k < k)",
        Count,
        "sdcMicro print(sdc, \"kAnon\")",
    ),
    FigureSpec::new(
        "records_fk_at_most_k",
        "records with f_k ≤ k",
        Count,
        "Mulder, Table 4",
    ),
];
/// Skinner and Elliot's θ (needs the population size).
pub(crate) const THETA: FigureSpec = FigureSpec::new(
    "theta",
    "Skinner–Elliot θ",
    Proportion,
    "Skinner & Elliot (2002)",
);
/// Bender's R.
pub(crate) const BENDER_R: FigureSpec =
    FigureSpec::new("bender_r", "Bender's R", Proportion, "Bender et al. (2001)");
/// Individual risk from the weights (frequency, individual, household).
pub(crate) const INDIVIDUAL: &[FigureSpec] = &[
    FigureSpec::new(
        "expected_reidentifications",
        "expected re-identifications (Σ r_i)",
        Score,
        SDCMICRO_RISK,
    )
    .non_negative(),
    FigureSpec::new("global_risk", "global risk", Proportion, SDCMICRO_RISK),
    FigureSpec::new(
        "max_individual_risk",
        "largest individual risk",
        Proportion,
        SDCMICRO_RISK,
    ),
];
/// sdcMicro's threshold on the individual risk for a largest global risk, and the records
/// above it (frequency, individual).
pub(crate) const THRESHOLD: &[FigureSpec] = &[
    FigureSpec::new(
        "global_threshold",
        "individual-risk threshold for the largest global risk",
        Proportion,
        "sdcMicro (the threshold of indivRisk and localSupp)",
    ),
    FigureSpec::new(
        "records_above_threshold",
        "records above the individual-risk threshold",
        Count,
        "sdcMicro",
    ),
];
/// Household risk (with a group column).
pub(crate) const HOUSEHOLD_RISK: &[FigureSpec] = &[
    FigureSpec::new(
        "household_expected_reidentifications",
        "expected household re-identifications",
        Score,
        HOUSEHOLD,
    )
    .non_negative(),
    FigureSpec::new(
        "household_global_risk",
        "household global risk",
        Proportion,
        HOUSEHOLD,
    ),
];
/// ℓ-diversity's smallest values over the classes (frequency, l-diversity).
pub(crate) const DIVERSITY_MIN: &[FigureSpec] = &[
    FigureSpec::new("l_distinct_min", "smallest distinct ℓ", Count, DIVERSITY),
    FigureSpec::new("l_entropy_min", "smallest entropy ℓ", Score, DIVERSITY).non_negative(),
];
/// Mulder's wildcard matching: n_match counts.
pub(crate) const WILDCARD: &[FigureSpec] = &[
    FigureSpec::new(
        "n_match_1",
        "records with n_match = 1",
        Count,
        "Mulder, Table 3",
    ),
    FigureSpec::new(
        "n_match_2",
        "records with n_match = 2",
        Count,
        "Mulder, Table 3",
    ),
    FigureSpec::new("n_match_le_5", "records with n_match ≤ 5", Count, "Mulder"),
    FigureSpec::new(
        "n_match_le_10",
        "records with n_match ≤ 10",
        Count,
        "Mulder",
    ),
    FigureSpec::new("pr_su", "share unique (wildcard)", Proportion, "Mulder"),
];
