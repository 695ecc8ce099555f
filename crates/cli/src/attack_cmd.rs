//! `intruder attack`: link an intruder's file to a released file and score the attack against
//! the ground truth (crates `intruder-attack` and `intruder-eval`). Parsing and rendering only: the parameters go
//! through `intruder_attack::configure`, the same path as an experiment's `[[attack]]`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use intruder_attack::{ATTACK_COMMON, Waterfall, configure, docs};
use intruder_data::params::{self, ColumnSet, ReadContext};
use intruder_data::{Role, Table, Timings, schema_beside};
use intruder_eval::{EvalOptions, Labelled, TruthIds, evaluate, twin_rows, write_per_record};
use intruder_runner::linkage;
use serde_json::Value;

pub use crate::attack_args::Args;
use crate::attack_args::parameter_table;
use crate::common::{self, refuse_output_file, refuse_overwrite};

/// The truth ids: the flags, else the single truth column both files share.
fn truth_ids(a: &Args, intruder: &Labelled, released: &Labelled) -> Option<TruthIds> {
    let names = |d: &Labelled| -> Vec<String> {
        let cols = d.truth().columns().iter().map(|c| c.name().to_string());
        cols.filter(|n| Some(n) != a.sensitive_truth.as_ref())
            .collect()
    };
    let (i, r) = (names(intruder), names(released));
    fn refs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    TruthIds::choose(
        a.truth.as_deref(),
        a.truth_intruder.as_deref(),
        a.truth_released.as_deref(),
        &refs(&i),
        &refs(&r),
    )
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

/// The files `--charts DIR` may write.
const CHART_FILES: [&str; 7] = [
    "match_weights.svg",
    "m_u.svg",
    "em.svg",
    "unlinkables.svg",
    "threshold.svg",
    "borderline_waterfall.svg",
    "waterfall.svg",
];

/// Writes the linkage charts of a fitted model (and of one pair) into `dir`, each file
/// atomically; the threshold-selection chart when the evaluation has a precision–recall curve.
fn write_charts(
    dir: &Path,
    model: &Value,
    curve: &[intruder_eval::PrPoint],
    waterfall: Option<&Waterfall>,
) -> Result<()> {
    let mut model = model.clone();
    linkage::attach_threshold_curve(&mut model, curve);
    let summary = linkage::ModelSummary::from_json(&model).context("--charts: model summary")?;
    let mut charts = linkage::model_charts(&summary, None);
    charts.extend(waterfall.map(linkage::waterfall_chart));
    std::fs::create_dir_all(dir).with_context(|| format!("--charts: {}", dir.display()))?;
    for c in charts {
        let svg = c.svg();
        intruder_data::write_atomically(&dir.join(&c.file), |w| {
            std::io::Write::write_all(w, svg.as_bytes())
        })?;
    }
    Ok(())
}

/// Refuses outputs that would overwrite an input (the files, their schemas, the linkage
/// specification) before anything is read.
fn check_outputs(a: &Args, ipath: &Path, rpath: &Path) -> Result<()> {
    let mut inputs: Vec<PathBuf> = vec![ipath.to_path_buf(), rpath.to_path_buf()];
    inputs.extend(
        [a.intruder_schema.clone(), a.released_schema.clone()]
            .into_iter()
            .flatten(),
    );
    inputs.extend([schema_beside(ipath), schema_beside(rpath)]);
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
            refuse_output_file(p, &input_refs, name)?;
        }
    }
    if let Some(dir) = &a.charts {
        for f in CHART_FILES {
            refuse_overwrite(&dir.join(f), &input_refs, "--charts")?;
        }
    }
    Ok(())
}

/// How both files are read, as [`load_files`] reads them.
fn engine_inputs(a: &Args) -> (intruder_data::Input, intruder_data::Input) {
    (
        a.read.input(a.intruder_schema.as_deref()),
        a.read.input(a.released_schema.as_deref()),
    )
}

/// Reads both files; the truth columns named on the command line are read as ground truth
/// (never seen by an attack).
fn load_files(
    a: &Args,
    ipath: &Path,
    rpath: &Path,
    timings: &mut Timings,
) -> Result<(Labelled, Labelled)> {
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
    let intruder = Labelled::from_dataset(common::load(ipath, &iinput, timings)?);
    let released = Labelled::from_dataset(common::load(rpath, &rinput, timings)?);
    Ok((intruder, released))
}

/// The fitted model's outputs: `--pairs-out`, `--model-out`, and the waterfall of
/// `--explain-pair` (released row numbered in the whole file even with twins only).
fn model_outputs(
    a: &Args,
    model: &dyn intruder_attack::LinkModel,
    (intruder, attacked): (&Table, &Table),
    twins: Option<&[usize]>,
    explain: Option<(usize, usize)>,
) -> Result<Option<Waterfall>> {
    if let Some(p) = &a.pairs_out {
        let (iid, rid) = (row_id(intruder, None), row_id(attacked, twins));
        model.write_pairs(p, &iid, &rid, a.pairs_floor)?;
    }
    if let Some(p) = &a.model_out {
        let text = serde_json::to_string_pretty(&model.to_json())? + "\n";
        intruder_data::write_atomically(p, |w| std::io::Write::write_all(w, text.as_bytes()))?;
    }
    let Some((i, j)) = explain else {
        return Ok(None);
    };
    let j = match twins {
        Some(rows) => rows.iter().position(|&r| r == j).with_context(|| {
            format!(
                "--explain-pair: released row {} is not searched with twins_only",
                j + 1
            )
        })?,
        None => j,
    };
    Ok(Some(model.explain_pair(i, j)?))
}

/// Runs `intruder attack`.
/// What the attack is scored on: the truth ids, a sensitive variable with its true values, or
/// both; a sensitive variable and its truth come together.
fn check_scoring(a: &Args, has_truth: bool, sensitive: Option<&str>) -> Result<()> {
    match (sensitive, &a.sensitive_truth) {
        (Some(s), None) => bail!(
            "sensitive = '{s}' needs --sensitive-truth COL: the intruder file's column with the true value"
        ),
        (None, Some(_)) => bail!("--sensitive-truth needs --sensitive COL (the released variable)"),
        _ => {}
    }
    if !has_truth && sensitive.is_none() {
        bail!(
            "nothing to score: give the truth ids (--truth or --truth-intruder/--truth-released; a schema's truth column shared by both files is used alone) and/or --sensitive with --sensitive-truth"
        );
    }
    Ok(())
}

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
    let explain = a
        .explain_pair
        .as_deref()
        .map(common::row_pair)
        .transpose()?;
    // Every parameter problem at once, before any data is read.
    let mut table = parameter_table(&a)?;
    let surface = "intruder attack (--set and flags)";
    let mut configured =
        configure(&table, "", ReadContext::default()).map_err(|p| common::problems(surface, p))?;
    common::warn(&configured.warnings);
    if !configured.attack.fits_model()
        && (a.pairs_out.is_some()
            || a.model_out.is_some()
            || explain.is_some()
            || a.charts.is_some())
    {
        bail!(
            "--pairs-out, --model-out, --explain-pair and --charts need an attack that fits a model (fellegi-sunter); '{}' does not",
            configured.method
        );
    }
    check_outputs(&a, &ipath, &rpath)?;
    let mut timings = Timings::new();
    let (intruder, released) = load_files(&a, &ipath, &rpath, &mut timings)?;

    // Keys: given, else the linkage specification's, else the schema's key columns.
    if configured.key_names(&[]).is_none() {
        let columns = ColumnSet::of_parts(intruder.table(), intruder.truth().columns());
        params::fill_from_roles(&mut table, &[ATTACK_COMMON], &columns);
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
    // Every key either file lacks, or that is a truth column, at once.
    let bad = intruder.check_keys(&released, &keys, "keys");
    if !bad.is_empty() {
        return Err(common::problems(surface, bad));
    }
    let truth = truth_ids(&a, &intruder, &released);
    check_scoring(&a, truth.is_some(), configured.common.sensitive.as_deref())?;

    // Twins only: the released rows with a twin, selected with the truth before the attack.
    let twins: Option<Vec<usize>> = match (&truth, configured.common.twins_only) {
        (Some(t), true) => Some(twin_rows(&intruder, &released, t)?),
        (None, true) => bail!(
            "twins_only needs the truth ids (--truth, or --truth-intruder and --truth-released)"
        ),
        _ => None,
    };
    let restricted = twins.as_ref().map(|rows| released.table().take(rows));
    let attacked = restricted.as_ref().unwrap_or(released.table());
    let knowledge = intruder.knowledge(keys.clone())?;
    let linked = match a.engine.spec()? {
        None => timings.time("attack", || {
            configured.attack.link(&knowledge, attacked, a.seed)
        })?,
        Some(_) if twins.is_some() => bail!("twins_only runs on the local engine only"),
        Some(spec) => timings.time("attack", || {
            let (i, r) = engine_inputs(&a);
            intruder_engine::link_on_engine(
                &spec,
                configured.attack.as_ref(),
                &keys,
                (&ipath, &i),
                (&rpath, &r),
            )
        })?,
    };
    let mut linkage = linked.linkage;
    let waterfall = match &linked.model {
        Some(model) => model_outputs(
            &a,
            model.as_ref(),
            (intruder.table(), attacked),
            twins.as_deref(),
            explain,
        )?,
        None => None,
    };
    if let Some(rows) = &twins {
        linkage.remap_rows(rows, released.nrows());
    }
    let opts = EvalOptions::for_attack(&configured, truth, a.sensitive_truth.clone(), a.seed);
    let mut ev = timings.time("evaluate", || {
        evaluate(&linkage, &intruder, &released, &opts)
    })?;
    for w in &ev.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(rows) = &twins {
        ev.notes
            .push(("twins_only_released_records".into(), rows.len() as f64));
    }
    if let (Some(dir), Some(model)) = (&a.charts, &linked.model) {
        write_charts(dir, &model.to_json(), &ev.pr_curve, waterfall.as_ref())?;
    }
    if let Some(p) = &a.per_record {
        timings.time(Timings::WRITE, || write_per_record(p, &ev, None))?;
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
    timings.time(Timings::WRITE, || a.output.emit(&report))?;
    common::print_timings(a.output.timings, &timings);
    Ok(())
}
