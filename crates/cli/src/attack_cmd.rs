//! `intruder attack`: link an intruder's file to a released file and score the attack against
//! the ground truth (crate `intruder-attack`). Parsing and rendering only: the parameters go
//! through `intruder_attack::configure`, the same path as an experiment's `[[attack]]`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use intruder_attack::{
    ATTACK_COMMON, Knowledge, TruthIds, configure, docs, evaluate, twin_rows, write_per_record,
};
use intruder_data::params::{self, ColumnSet, ReadContext};
use intruder_data::{Dataset, Role, Table, schema_beside};
use serde_json::Value;

use crate::common::{
    self, MethodArgs, OutputArgs, ReadArgs, flag, flag_list, flag_opt, refuse_overwrite,
};

/// Link an intruder's file to a released file and report how many people were re-identified
/// and what was learned about them. `--list` shows every attack and its parameters.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The intruder's file (CSV, plain or gzip).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    pub intruder: Option<PathBuf>,
    /// The released (masked) file (CSV, plain or gzip).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    pub released: Option<PathBuf>,
    /// Schema (TOML) of the intruder's file (default: the FILE.schema.toml beside it).
    #[arg(long, value_name = "FILE")]
    pub intruder_schema: Option<PathBuf>,
    /// Schema (TOML) of the released file (default: the FILE.schema.toml beside it).
    #[arg(long, value_name = "FILE")]
    pub released_schema: Option<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// The attack (default exact); `--list` shows them all.
    #[arg(long, value_name = "NAME")]
    pub method: Option<String>,
    #[command(flatten)]
    pub params: MethodArgs,
    /// keys: key variables as named in the intruder's file, comma-separated (default: the
    /// intruder schema's columns with role key).
    #[arg(long, value_delimiter = ',')]
    pub keys: Vec<String>,
    /// key_map: keys named differently in the released file, intruder=released,…
    #[arg(long, value_delimiter = ',', value_name = "A=X")]
    pub key_map: Vec<String>,
    /// twins_only: search only released records with a twin in the intruder's file.
    #[arg(long)]
    pub twins_only: bool,
    /// sensitive: released sensitive variable of attribute disclosure (with --sensitive-truth).
    #[arg(long, value_name = "COL")]
    pub sensitive: Option<String>,
    /// tolerance: relative tolerance of attribute disclosure (default 0.05).
    #[arg(long, allow_negative_numbers = true)]
    pub tolerance: Option<f64>,
    /// missing: listwise, as-value or wildcard.
    #[arg(long)]
    pub missing: Option<String>,
    /// metric: euclidean or gower (nearest).
    #[arg(long)]
    pub metric: Option<String>,
    /// string_metric: jaro-winkler or levenshtein (nearest).
    #[arg(long)]
    pub string_metric: Option<String>,
    /// standardize: z-score numeric keys before distances.
    #[arg(long)]
    pub standardize: bool,
    /// weights: per-key weights by intruder key name, a=10,b=2 (nearest, kmeans).
    #[arg(long, value_delimiter = ',', value_name = "A=W")]
    pub weights: Vec<String>,
    /// top_k: ranked candidates kept beyond the ties at the best (nearest).
    #[arg(long, allow_negative_numbers = true)]
    pub top_k: Option<i64>,
    /// one_to_one: global one-to-one assignment (nearest).
    #[arg(long)]
    pub one_to_one: bool,
    /// clusters: number of k-means clusters (kmeans).
    #[arg(long, allow_negative_numbers = true)]
    pub clusters: Option<i64>,
    /// threshold: declare links at a best score ≥ this (fellegi-sunter: a match probability).
    #[arg(long, allow_negative_numbers = true)]
    pub threshold: Option<f64>,
    /// linkage_spec: the linkage specification TOML (fellegi-sunter).
    #[arg(long, alias = "spec", value_name = "FILE")]
    pub linkage_spec: Option<PathBuf>,
    /// u_sample: random pairs for the u probabilities (fellegi-sunter).
    #[arg(long, allow_negative_numbers = true)]
    pub u_sample: Option<i64>,
    /// em_max_iter: EM iteration cap (fellegi-sunter).
    #[arg(long, allow_negative_numbers = true)]
    pub em_max_iter: Option<i64>,
    /// em_tolerance: EM convergence tolerance (fellegi-sunter).
    #[arg(long, allow_negative_numbers = true)]
    pub em_tolerance: Option<f64>,
    /// fix_u: keep u at the sampled values during EM (fellegi-sunter).
    #[arg(long)]
    pub fix_u: bool,
    /// assignment: greedy, optimal or none (fellegi-sunter).
    #[arg(long)]
    pub assignment: Option<String>,
    /// Truth column holding the person id in both files (default: the one truth column the two
    /// files share, when there is exactly one).
    #[arg(long, conflicts_with_all = ["truth_intruder", "truth_released"])]
    pub truth: Option<String>,
    /// Truth id column of the intruder's file.
    #[arg(long, requires = "truth_released")]
    pub truth_intruder: Option<String>,
    /// Truth id column of the released file.
    #[arg(long, requires = "truth_intruder")]
    pub truth_released: Option<String>,
    /// Column of the intruder's file with the true original value of the sensitive variable
    /// (read as ground truth: only the evaluator sees it).
    #[arg(long, value_name = "COL")]
    pub sensitive_truth: Option<String>,
    /// Seed of every random step (tie-breaks, k-means with --clusters, the u sample).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write one CSV row per intruder record here (rows 1-based).
    #[arg(long, value_name = "FILE")]
    pub per_record: Option<PathBuf>,
    /// Write id_intruder,id_released,match_weight,match_probability for every scored pair at or
    /// above --pairs-floor (attacks with a fitted model: fellegi-sunter).
    #[arg(long, value_name = "FILE")]
    pub pairs_out: Option<PathBuf>,
    /// The match probability floor of --pairs-out.
    #[arg(long, default_value_t = 0.01)]
    pub pairs_floor: f64,
    /// Write the fitted model (m, u, weights, EM report) as JSON here (fellegi-sunter).
    #[arg(long, value_name = "FILE")]
    pub model_out: Option<PathBuf>,
    /// The weight breakdown of one pair, INTRUDER_ROW,RELEASED_ROW (1-based; fellegi-sunter).
    #[arg(long, value_name = "I,R")]
    pub explain_pair: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `a=x,b=y` items as a TOML table of strings (`numbers`: of numbers).
fn assignments(items: &[String], what: &str, numbers: bool) -> Result<toml::Table> {
    let mut t = toml::Table::new();
    for s in items {
        let (a, b) = s
            .split_once('=')
            .with_context(|| format!("{what}: '{s}' is not of the form name=value"))?;
        let v = if numbers {
            toml::Value::Float(b.trim().parse::<f64>().map_err(|_| {
                anyhow::anyhow!("{what}: '{}' for '{}' is not a number", b.trim(), a.trim())
            })?)
        } else {
            toml::Value::String(b.trim().to_string())
        };
        t.insert(a.trim().to_string(), v);
    }
    Ok(t)
}

/// The one parameter table: `--set` items, then each flag given (a key given both ways is an
/// error); defaults live in the registry only.
fn parameter_table(a: &Args) -> Result<toml::Table> {
    let mut t = a.params.table()?;
    match &a.method {
        Some(m) => flag(&mut t, "method", m.as_str())?,
        None if !t.contains_key("method") => {
            t.insert("method".into(), "exact".into());
        }
        None => {}
    }
    flag_list(&mut t, "keys", &a.keys)?;
    if !a.key_map.is_empty() {
        flag(
            &mut t,
            "key_map",
            assignments(&a.key_map, "--key-map", false)?,
        )?;
    }
    if !a.weights.is_empty() {
        flag(
            &mut t,
            "weights",
            assignments(&a.weights, "--weights", true)?,
        )?;
    }
    for (key, on) in [
        ("twins_only", a.twins_only),
        ("standardize", a.standardize),
        ("one_to_one", a.one_to_one),
        ("fix_u", a.fix_u),
    ] {
        if on {
            flag(&mut t, key, true)?;
        }
    }
    let text = |v: &Option<String>| v.clone().map(toml::Value::from);
    let values: [(&str, Option<toml::Value>); 12] = [
        ("sensitive", text(&a.sensitive)),
        ("missing", text(&a.missing)),
        ("metric", text(&a.metric)),
        ("string_metric", text(&a.string_metric)),
        ("assignment", text(&a.assignment)),
        ("top_k", a.top_k.map(Into::into)),
        ("clusters", a.clusters.map(Into::into)),
        ("u_sample", a.u_sample.map(Into::into)),
        ("em_max_iter", a.em_max_iter.map(Into::into)),
        ("tolerance", a.tolerance.map(Into::into)),
        ("threshold", a.threshold.map(Into::into)),
        ("em_tolerance", a.em_tolerance.map(Into::into)),
    ];
    for (key, v) in values {
        flag_opt(&mut t, key, v)?;
    }
    let spec = a.linkage_spec.as_ref().map(|p| p.display().to_string());
    flag_opt(&mut t, "linkage_spec", spec)?;
    Ok(t)
}

/// The truth ids: the flags, else the single truth column both files share.
fn truth_ids(a: &Args, intruder: &Dataset, released: &Dataset) -> Option<TruthIds> {
    match (&a.truth, &a.truth_intruder, &a.truth_released) {
        (Some(t), _, _) => Some(TruthIds {
            intruder: t.clone(),
            released: t.clone(),
        }),
        (None, Some(i), Some(r)) => Some(TruthIds {
            intruder: i.clone(),
            released: r.clone(),
        }),
        _ => {
            let names = |d: &Dataset| -> Vec<String> {
                d.truth
                    .columns()
                    .iter()
                    .map(|c| c.name().to_string())
                    .filter(|n| Some(n) != a.sensitive_truth.as_ref())
                    .collect()
            };
            let (i, r) = (names(intruder), names(released));
            (i.len() == 1 && r == i).then(|| TruthIds {
                intruder: i[0].clone(),
                released: i[0].clone(),
            })
        }
    }
}

/// The name of row `row` of `t`: its first identifier column, else the 1-based row number of
/// `rows[row]` (the file's row when the released table was restricted to twins).
fn row_id<'a>(t: &'a Table, rows: Option<&'a [usize]>) -> impl Fn(usize) -> String + 'a {
    let id = t.columns().iter().find(|c| c.role() == Role::Identifier);
    move |row| {
        id.and_then(|c| c.text(row).map(|s| s.into_owned()))
            .unwrap_or_else(|| (rows.map_or(row, |r| r[row]) + 1).to_string())
    }
}

/// Runs `intruder attack`.
pub fn run(a: Args) -> Result<()> {
    if a.params.list {
        print!(
            "{}",
            params::list_text("intruder attack --method NAME: the attacks", &docs())
        );
        return Ok(());
    }
    let (Some(ipath), Some(rpath)) = (a.intruder.clone(), a.released.clone()) else {
        bail!("--intruder FILE and --released FILE are required");
    };
    let explain = match &a.explain_pair {
        Some(s) => match s.split_once(',').and_then(|(i, r)| {
            Some((
                i.trim().parse::<usize>().ok()?,
                r.trim().parse::<usize>().ok()?,
            ))
        }) {
            Some((i, r)) if i >= 1 && r >= 1 => Some((i - 1, r - 1)),
            _ => bail!("--explain-pair: '{s}' is not INTRUDER_ROW,RELEASED_ROW (1-based rows)"),
        },
        None => None,
    };
    // Every parameter problem at once, before any data is read.
    let mut table = parameter_table(&a)?;
    let surface = "intruder attack (--set and flags)";
    let mut configured =
        configure(&table, "", ReadContext::default()).map_err(|p| common::problems(surface, p))?;
    common::warn(&configured.warnings);
    if !configured.attack.fits_model()
        && (a.pairs_out.is_some() || a.model_out.is_some() || explain.is_some())
    {
        bail!(
            "--pairs-out, --model-out and --explain-pair need an attack that fits a model (fellegi-sunter); '{}' does not",
            configured.method
        );
    }
    let mut inputs: Vec<PathBuf> = vec![ipath.clone(), rpath.clone()];
    inputs.extend(
        [a.intruder_schema.clone(), a.released_schema.clone()]
            .into_iter()
            .flatten(),
    );
    inputs.extend([schema_beside(&ipath), schema_beside(&rpath)]);
    inputs.extend(a.linkage_spec.clone());
    // A linkage specification named with --set is an input too.
    if let Ok(t) = a.params.table()
        && let Some(spec) = t.get("linkage_spec").and_then(toml::Value::as_str)
    {
        inputs.push(PathBuf::from(spec));
    }
    let input_refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    for (out, name) in [
        (&a.output.out, "--out"),
        (&a.per_record, "--per-record"),
        (&a.pairs_out, "--pairs-out"),
        (&a.model_out, "--model-out"),
    ] {
        if let Some(p) = out {
            refuse_overwrite(p, &input_refs, name)?;
        }
    }

    // Truth columns named on the command line are read as ground truth (never seen by an attack).
    let mut itruth: Vec<&String> = a.truth.iter().chain(&a.truth_intruder).collect();
    itruth.extend(&a.sensitive_truth);
    let rtruth: Vec<&String> = a.truth.iter().chain(&a.truth_released).collect();
    let iinput = a
        .read
        .input(a.intruder_schema.as_deref())
        .with_role(&itruth, Role::Truth);
    let rinput = a
        .read
        .input(a.released_schema.as_deref())
        .with_role(&rtruth, Role::Truth);
    let intruder = intruder_data::load(&ipath, &iinput)?;
    let released = intruder_data::load(&rpath, &rinput)?;

    // Keys: given, else the linkage specification's, else the schema's key columns.
    if configured.key_names(&[]).is_none() {
        params::fill_from_roles(&mut table, &[ATTACK_COMMON], &ColumnSet::of(&intruder));
        configured = configure(&table, "", ReadContext::default())
            .map_err(|p| common::problems(surface, p))?;
    }
    if configured.key_names(&[]).is_none() {
        bail!(
            "no key variables: give --keys (or --set keys=…), or declare role = \"key\" columns in the schema of {}",
            ipath.display()
        );
    }
    let keys = configured.key_map(&[], &[])?;
    let truth = truth_ids(&a, &intruder, &released);
    let sensitive = &configured.common.sensitive;
    match (sensitive, &a.sensitive_truth) {
        (Some(s), None) => bail!(
            "sensitive = '{s}' needs --sensitive-truth COL: the intruder file's column with the true value"
        ),
        (None, Some(_)) => bail!("--sensitive-truth needs --sensitive COL (the released variable)"),
        _ => {}
    }
    if truth.is_none() && sensitive.is_none() {
        bail!(
            "nothing to score: give the truth ids (--truth or --truth-intruder/--truth-released; a schema's truth column shared by both files is used alone) and/or --sensitive with --sensitive-truth"
        );
    }

    // Twins only: the released rows with a twin, selected with the truth before the attack.
    let twins: Option<Vec<usize>> = match (&truth, configured.common.twins_only) {
        (Some(t), true) => Some(twin_rows(
            &intruder.table,
            &intruder.truth,
            &released.table,
            &released.truth,
            t,
        )?),
        (None, true) => bail!(
            "twins_only needs the truth ids (--truth, or --truth-intruder and --truth-released)"
        ),
        _ => None,
    };
    let restricted = twins.as_ref().map(|rows| released.table.take(rows));
    let attacked = restricted.as_ref().unwrap_or(&released.table);
    let knowledge = Knowledge::new(&intruder.table, keys.clone())?;
    let linked = configured.attack.link(&knowledge, attacked, a.seed)?;
    let mut linkage = linked.linkage;
    let mut waterfall = None;
    if let Some(model) = &linked.model {
        if let Some(p) = &a.pairs_out {
            let (iid, rid) = (
                row_id(&intruder.table, None),
                row_id(attacked, twins.as_deref()),
            );
            model.write_pairs(p, &iid, &rid, a.pairs_floor)?;
        }
        if let Some(p) = &a.model_out {
            let text = serde_json::to_string_pretty(&model.to_json())? + "\n";
            intruder_data::write_atomically(p, |w| std::io::Write::write_all(w, text.as_bytes()))?;
        }
        if let Some((i, j)) = explain {
            let j = match &twins {
                Some(rows) => rows.iter().position(|&r| r == j).with_context(|| {
                    format!(
                        "--explain-pair: released row {} is not searched with twins_only",
                        j + 1
                    )
                })?,
                None => j,
            };
            waterfall = Some(model.explain_pair(i, j)?);
        }
    }
    if let Some(rows) = &twins {
        linkage.remap_rows(rows, released.table.nrows());
    }
    let opts = configured.eval_options(truth, a.sensitive_truth.clone(), a.seed);
    let mut ev = evaluate(
        &linkage,
        &intruder.table,
        &intruder.truth,
        &released.table,
        &released.truth,
        &opts,
    )?;
    if let Some(rows) = &twins {
        ev.notes
            .push(("twins_only_released_records".into(), rows.len() as f64));
    }
    if let Some(p) = &a.per_record {
        write_per_record(p, &ev, None)?;
    }

    let mut report = ev.report(format!(
        "intruder attack — {} on {} / {}",
        configured.name(),
        ipath.display(),
        rpath.display()
    ));
    let d = &mut report.details;
    d.insert("config".into(), configured.resolved(Some(&keys)));
    d.insert("keys".into(), serde_json::to_value(&keys)?);
    d.insert("twins_only".into(), configured.common.twins_only.into());
    if let Some(m) = &linked.model {
        d.insert("model".into(), m.to_json());
        report.notes.push(m.to_text());
    }
    if let Some(w) = &waterfall {
        report
            .details
            .insert("explain_pair".into(), serde_json::to_value(w)?);
        report.notes.push(w.to_table());
    }
    report
        .details
        .insert("version".into(), Value::from(env!("CARGO_PKG_VERSION")));
    a.output.emit(&report)
}
