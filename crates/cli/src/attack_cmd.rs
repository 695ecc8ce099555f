//! `intruder attack`: link an intruder's file to a released file and score the attack against
//! the ground truth (crate `intruder-attack`).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use intruder_attack::fellegi_sunter::{
    Assignment, FellegiSunter, FsRun, LinkageSpec, weight_of_probability,
};
use intruder_attack::{
    AttackConfig, DEFAULT_TOLERANCE, EvalOptions, KeyMap, Metric, MissingPolicy, Sensitive,
    StringMetric, TruthIds, attack_by_name, evaluate, write_per_record,
};
use intruder_data::{Dataset, ReadOptions, Role, Schema, read_csv, write_atomically};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Machine-readable JSON.
    Json,
    /// Aligned figures, each with a one-line meaning.
    Table,
}

/// Link an intruder's file to a released file and report how many people were re-identified
/// and what was learned about them.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The intruder's file (CSV, plain or gzip).
    #[arg(long)]
    pub intruder: PathBuf,
    /// The released (masked) file (CSV, plain or gzip).
    #[arg(long)]
    pub released: PathBuf,
    /// Key variables, as named in the intruder's file (comma-separated).
    /// Not needed with `--method fellegi-sunter --linkage-spec FILE` (the compared columns are the keys).
    #[arg(long, value_delimiter = ',', required_unless_present = "linkage_spec")]
    pub keys: Vec<String>,
    /// Keys named differently in the released file: intruder=released, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub key_map: Vec<String>,
    /// The attack: exact, nearest, kmeans, link or fellegi-sunter.
    #[arg(long, default_value = "exact")]
    pub method: String,
    /// Truth column holding the person id in both files.
    #[arg(long, conflicts_with_all = ["truth_intruder", "truth_released"])]
    pub truth: Option<String>,
    /// Truth id column of the intruder's file.
    #[arg(long, requires = "truth_released")]
    pub truth_intruder: Option<String>,
    /// Truth id column of the released file.
    #[arg(long, requires = "truth_intruder")]
    pub truth_released: Option<String>,
    /// Sensitive variable of the released file (attribute disclosure).
    #[arg(long, requires = "sensitive_truth")]
    pub sensitive: Option<String>,
    /// Column of the intruder's file with the true original value of the sensitive variable
    /// (read as ground truth: only the evaluator sees it).
    #[arg(long, requires = "sensitive")]
    pub sensitive_truth: Option<String>,
    /// Relative tolerance of attribute disclosure (Mitra: 5%).
    #[arg(long, default_value_t = DEFAULT_TOLERANCE)]
    pub tolerance: f64,
    /// Per-key weights, by intruder key name: a=10,b=2 (nearest, kmeans).
    #[arg(long, value_delimiter = ',')]
    pub weights: Vec<String>,
    /// z-score numeric keys (both files pooled) before distances.
    #[arg(long)]
    pub standardize: bool,
    /// Distance: euclidean or gower.
    #[arg(long, default_value = "euclidean")]
    pub metric: String,
    /// String distance for text keys: jaro-winkler or levenshtein.
    #[arg(long, default_value = "jaro-winkler")]
    pub string_metric: String,
    /// Global one-to-one assignment (Hungarian; nearest only).
    #[arg(long)]
    pub one_to_one: bool,
    /// Number of k-means clusters (default: one per complete intruder record).
    #[arg(long)]
    pub clusters: Option<usize>,
    /// Ranked candidates kept per record beyond the ties at the best (nearest).
    #[arg(long, default_value_t = 5)]
    pub top_k: usize,
    /// Search only released records that have a twin in the intruder's file (response
    /// knowledge of both files; uses the truth, applied before the attack).
    #[arg(long)]
    pub twins_only: bool,
    /// Declare a link only when its best score is at least this (precision/recall); for
    /// fellegi-sunter a match probability in (0, 1), default 0.5.
    #[arg(long, allow_negative_numbers = true)]
    pub threshold: Option<f64>,
    /// Missing key values: listwise, as-value or wildcard.
    #[arg(long, default_value = "listwise")]
    pub missing: String,
    /// Schema (TOML) of the intruder's file.
    #[arg(long)]
    pub intruder_schema: Option<PathBuf>,
    /// Schema (TOML) of the released file.
    #[arg(long)]
    pub released_schema: Option<PathBuf>,
    /// Field delimiter of both files (one character; `tab` for a tab).
    #[arg(long, value_parser = crate::delimiter::parse)]
    pub delimiter: Option<u8>,
    /// Seed of every random step (tie-breaks, k-means with --clusters).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
    /// Write one CSV row per intruder record here.
    #[arg(long)]
    pub per_record: Option<PathBuf>,
    /// Write the report here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// fellegi-sunter: the linkage specification (TOML: blocking rules and comparison levels);
    /// without it, defaults are inferred from the keys' types.
    #[arg(long, alias = "spec")]
    pub linkage_spec: Option<PathBuf>,
    /// fellegi-sunter: write id_intruder,id_released,match_weight,match_probability for every
    /// scored pair at or above --pairs-floor.
    #[arg(long)]
    pub pairs_out: Option<PathBuf>,
    /// fellegi-sunter: the match probability floor of --pairs-out.
    #[arg(long, default_value_t = 0.01)]
    pub pairs_floor: f64,
    /// fellegi-sunter: EM iteration cap.
    #[arg(long, default_value_t = 25)]
    pub em_max_iter: usize,
    /// fellegi-sunter: EM stops when no parameter moves by more than this.
    #[arg(long, default_value_t = 1e-4)]
    pub em_tolerance: f64,
    /// fellegi-sunter: random pairs drawn to estimate the u probabilities.
    #[arg(long, default_value_t = 1_000_000)]
    pub u_sample: usize,
    /// fellegi-sunter: keep u at the sampled values during EM (Splink's convention).
    #[arg(long)]
    pub fix_u: bool,
    /// fellegi-sunter: one-to-one assignment: greedy, optimal or none.
    #[arg(long, default_value = "greedy")]
    pub assignment: String,
    /// fellegi-sunter: write the fitted model (m, u, weights, EM report) as JSON here.
    #[arg(long)]
    pub model_out: Option<PathBuf>,
    /// fellegi-sunter: print the weight breakdown of one pair, INTRUDER_ROW,RELEASED_ROW (1-based).
    #[arg(long)]
    pub explain_pair: Option<String>,
}

fn pairs(list: &[String], what: &str) -> anyhow::Result<Vec<(String, String)>> {
    list.iter()
        .map(|s| {
            let (a, b) = s
                .split_once('=')
                .with_context(|| format!("{what}: '{s}' is not of the form name=value"))?;
            Ok((a.trim().to_string(), b.trim().to_string()))
        })
        .collect()
}

fn load(
    path: &Path,
    schema: Option<&Path>,
    delimiter: Option<u8>,
    truth: &[&str],
    keys: &[&str],
) -> anyhow::Result<Dataset> {
    let mut opts = ReadOptions::default();
    if let Some(s) = schema {
        opts.schema = Some(Schema::from_file(s)?);
    }
    opts.delimiter = delimiter;
    for k in keys {
        opts.override_spec(k).role = Some(Role::Key);
    }
    for t in truth {
        opts.override_spec(t).role = Some(Role::Truth);
    }
    Ok(read_csv(path, &opts)?)
}

/// Runs `intruder attack`.
pub fn run(args: Args) -> anyhow::Result<()> {
    // Parameters first, before reading any data.
    let info = attack_by_name(&args.method)?;
    let mut cfg = AttackConfig::default();
    cfg.missing = args
        .missing
        .parse::<MissingPolicy>()
        .map_err(anyhow::Error::msg)?;
    cfg.metric = args.metric.parse::<Metric>().map_err(anyhow::Error::msg)?;
    cfg.string_metric = args
        .string_metric
        .parse::<StringMetric>()
        .map_err(anyhow::Error::msg)?;
    cfg.standardize = args.standardize;
    cfg.one_to_one = args.one_to_one;
    cfg.clusters = args.clusters;
    cfg.top_k = args.top_k;
    cfg.seed = args.seed;
    cfg.weights = pairs(&args.weights, "--weights")?
        .into_iter()
        .map(|(k, v)| {
            v.parse::<f64>()
                .map(|w| (k.clone(), w))
                .map_err(|_| anyhow::anyhow!("--weights: '{v}' for '{k}' is not a number"))
        })
        .collect::<anyhow::Result<_>>()?;
    let key_map = pairs(&args.key_map, "--key-map")?;
    let fs = args.method == "fellegi-sunter";
    if !fs && args.linkage_spec.is_some() {
        bail!("--linkage-spec is for --method fellegi-sunter");
    }
    let explain: Option<(usize, usize)> = match &args.explain_pair {
        Some(s) => {
            let parsed = s.split_once(',').and_then(|(a, b)| {
                Some((
                    a.trim().parse::<usize>().ok()?,
                    b.trim().parse::<usize>().ok()?,
                ))
            });
            match parsed {
                Some((a, b)) if a >= 1 && b >= 1 => Some((a - 1, b - 1)),
                _ => bail!("--explain-pair: '{s}' is not INTRUDER_ROW,RELEASED_ROW (1-based rows)"),
            }
        }
        None => None,
    };
    let mut key_names = args.keys.clone();
    let mut key_map = key_map;
    if fs {
        let p = &mut cfg.fellegi_sunter;
        if let Some(path) = &args.linkage_spec {
            let spec = LinkageSpec::from_file(path)?;
            if key_names.is_empty() {
                for c in &spec.comparisons {
                    key_names.push(c.column.clone());
                    if let Some(r) = &c.released {
                        key_map.push((c.column.clone(), r.clone()));
                    }
                }
            }
            p.spec = Some(spec);
        }
        p.threshold = args.threshold.unwrap_or(0.5);
        p.em_max_iter = args.em_max_iter;
        p.em_tolerance = args.em_tolerance;
        p.u_sample = args.u_sample;
        p.fix_u_in_em = args.fix_u;
        p.assignment = args
            .assignment
            .parse::<Assignment>()
            .map_err(anyhow::Error::msg)?;
    } else if args.pairs_out.is_some() || args.model_out.is_some() || explain.is_some() {
        bail!("--pairs-out, --model-out and --explain-pair are for --method fellegi-sunter");
    }
    let keys = KeyMap::with_map(&key_names, &key_map)?;
    let attack = (info.build)(&cfg)?;
    if !(args.tolerance.is_finite() && args.tolerance > 0.0) {
        bail!("--tolerance must be a number > 0, got {}", args.tolerance);
    }
    let delimiter = args.delimiter;
    let truth = match (&args.truth, &args.truth_intruder, &args.truth_released) {
        (Some(t), _, _) => Some(TruthIds {
            intruder: t.clone(),
            released: t.clone(),
        }),
        (None, Some(a), Some(b)) => Some(TruthIds {
            intruder: a.clone(),
            released: b.clone(),
        }),
        _ => None,
    };
    if args.twins_only && truth.is_none() {
        bail!(
            "--twins-only needs the truth ids (--truth, or --truth-intruder and --truth-released)"
        );
    }
    if truth.is_none() && args.sensitive.is_none() {
        bail!(
            "nothing to score: give the truth ids (--truth or --truth-intruder/--truth-released) and/or --sensitive with --sensitive-truth"
        );
    }

    let mut intruder_truth: Vec<&str> = Vec::new();
    let mut released_truth: Vec<&str> = Vec::new();
    if let Some(t) = &truth {
        intruder_truth.push(&t.intruder);
        released_truth.push(&t.released);
    }
    if let Some(s) = &args.sensitive_truth {
        intruder_truth.push(s);
    }
    let ikeys: Vec<&str> = keys.pairs().iter().map(|p| p.intruder.as_str()).collect();
    let rkeys: Vec<&str> = keys.pairs().iter().map(|p| p.released.as_str()).collect();
    let intruder = load(
        &args.intruder,
        args.intruder_schema.as_deref(),
        delimiter,
        &intruder_truth,
        &ikeys,
    )?;
    let released = load(
        &args.released,
        args.released_schema.as_deref(),
        delimiter,
        &released_truth,
        &rkeys,
    )?;

    // Twins only: restrict the released file with the truth, before the attack.
    let restricted: Option<Vec<usize>> = match (&truth, args.twins_only) {
        (Some(t), true) => {
            let ic = intruder.truth.column(&t.intruder).with_context(|| {
                format!(
                    "{}: no truth column '{}'",
                    args.intruder.display(),
                    t.intruder
                )
            })?;
            let rc = released.truth.column(&t.released).with_context(|| {
                format!(
                    "{}: no truth column '{}'",
                    args.released.display(),
                    t.released
                )
            })?;
            let ids: std::collections::HashSet<String> = (0..ic.len())
                .filter_map(|i| ic.text(i).map(|s| s.into_owned()))
                .collect();
            Some(
                (0..rc.len())
                    .filter(|&j| rc.text(j).is_some_and(|s| ids.contains(s.as_ref())))
                    .collect(),
            )
        }
        _ => None,
    };
    let link =
        |rel: &intruder_data::Table| -> anyhow::Result<(intruder_attack::Linkage, Option<FsRun>)> {
            if fs {
                let run = FellegiSunter::new(cfg.fellegi_sunter.clone(), cfg.seed)?.run(
                    &intruder.table,
                    rel,
                    &keys,
                )?;
                if let Some(p) = &args.pairs_out {
                    run.write_pairs(p, &intruder.table, rel, args.pairs_floor)?;
                }
                Ok((run.linkage.clone(), Some(run)))
            } else {
                Ok((attack.link(&intruder.table, rel, &keys)?, None))
            }
        };
    let (mut linkage, fs_run) = match &restricted {
        Some(rows) => {
            let sub = released.take(rows);
            link(&sub.table)?
        }
        None => link(&released.table)?,
    };
    let waterfall = match (&fs_run, explain) {
        (Some(run), Some((i, j))) => {
            let j = match &restricted {
                Some(rows) => rows.iter().position(|&r| r == j).with_context(|| {
                    format!(
                        "--explain-pair: released row {} is not searched with --twins-only",
                        j + 1
                    )
                })?,
                None => j,
            };
            Some(run.explain_pair(i, j)?)
        }
        _ => None,
    };
    if let (Some(run), Some(p)) = (&fs_run, &args.model_out) {
        let text = serde_json::to_string_pretty(&run.model)? + "\n";
        write_atomically(p, |w| std::io::Write::write_all(w, text.as_bytes()))?;
    }
    if let Some(rows) = &restricted {
        linkage.remap_rows(rows, released.table.nrows());
    }
    let opts = EvalOptions {
        truth,
        sensitive: args
            .sensitive
            .as_ref()
            .zip(args.sensitive_truth.as_ref())
            .map(|(r, t)| Sensitive {
                released: r.clone(),
                truth: t.clone(),
                tolerance: args.tolerance,
            }),
        threshold: if fs {
            Some(weight_of_probability(cfg.fellegi_sunter.threshold))
        } else {
            args.threshold
        },
        seed: args.seed,
    };
    let mut ev = evaluate(
        &linkage,
        &intruder.table,
        &intruder.truth,
        &released.table,
        &released.truth,
        &opts,
    )?;
    if let Some(rows) = &restricted {
        ev.notes
            .push(("twins_only_released_records".into(), rows.len() as f64));
    }
    if let Some(p) = &args.per_record {
        write_per_record(p, &ev, None)?;
    }
    let text = match args.format {
        Format::Json => {
            let mut v = serde_json::to_value(&ev)?;
            if let Some(obj) = v.as_object_mut() {
                obj.insert("config".into(), serde_json::to_value(&cfg)?);
                obj.insert("keys".into(), serde_json::to_value(&keys)?);
                obj.insert(
                    "twins_only".into(),
                    serde_json::Value::Bool(args.twins_only),
                );
                if let Some(run) = &fs_run {
                    obj.insert("model".into(), serde_json::to_value(&run.model)?);
                }
                if let Some(w) = &waterfall {
                    obj.insert("explain_pair".into(), serde_json::to_value(w)?);
                }
                obj.insert(
                    "version".into(),
                    serde_json::Value::String(env!("CARGO_PKG_VERSION").into()),
                );
            }
            serde_json::to_string_pretty(&v)? + "\n"
        }
        Format::Table => {
            let mut t = ev.to_table();
            if let Some(run) = &fs_run {
                t.push('\n');
                t.push_str(&run.model.to_table());
            }
            if let Some(w) = &waterfall {
                t.push('\n');
                t.push_str(&w.to_table());
            }
            t
        }
    };
    match &args.out {
        Some(p) => write_atomically(p, |w| std::io::Write::write_all(w, text.as_bytes()))?,
        None => print!("{text}"),
    }
    Ok(())
}
