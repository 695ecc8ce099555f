//! `intruder attack`: link an intruder's file to a released file and score the attack against
//! the ground truth (crates `intruder-attack` and `intruder-eval`). Parsing and rendering only: the parameters go
//! through `intruder_attack::configure`, the same path as an experiment's `[[attack]]`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use intruder::Surface;
use intruder::attack::{
    AttackRequest, AttackRun, Placement, TruthNames, attack, check_keys_before_reading, configure,
    engine_selection, explain_pair,
};
use intruder::questions::Question;
use intruder_attack::{Waterfall, docs};
use intruder_data::params;
use intruder_data::{Input, Role, Table, Timings, schema_beside};
use intruder_eval::{Labelled, write_per_record};
use intruder_runner::linkage;
use serde_json::Value;

pub use crate::attack_args::Args;
use crate::attack_args::parameter_table;
use crate::common::{self, refuse_output_file, refuse_overwrite};

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
    // A linkage specification (named with --linkage-spec or --set) is an input too.
    if let Ok(t) = parameter_table(a)
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

/// The truth columns named on the command line.
fn truth_names(a: &Args) -> TruthNames {
    TruthNames {
        truth: a.truth.clone(),
        truth_intruder: a.truth_intruder.clone(),
        truth_released: a.truth_released.clone(),
        sensitive_truth: a.sensitive_truth.clone(),
    }
}

/// Reads both files; the truth columns named on the command line are read as ground truth
/// (never seen by an attack).
fn load_files(
    (ipath, rpath): (&Path, &Path),
    (iinput, rinput): (&Input, &Input),
    timings: &mut Timings,
) -> Result<(Labelled, Labelled)> {
    let intruder = Labelled::from_dataset(common::load(ipath, iinput, timings)?);
    let released = Labelled::from_dataset(common::load(rpath, rinput, timings)?);
    Ok((intruder, released))
}

/// Each file's input with the truth columns named on the command line given the role truth,
/// as [`load_files`] reads them.
fn with_truth(a: &Args, (iinput, rinput): &(Input, Input)) -> (Input, Input) {
    let names = truth_names(a);
    (
        iinput
            .clone()
            .with_role(&names.intruder_columns(), Role::Truth),
        rinput
            .clone()
            .with_role(&names.released_columns(), Role::Truth),
    )
}

/// The fitted model's outputs: `--pairs-out`, `--model-out`, and the waterfall of
/// `--explain-pair` (released row numbered in the whole file even with twins only).
fn model_outputs(
    a: &Args,
    run: &AttackRun,
    (intruder, released): (&Labelled, &Labelled),
    explain: Option<(usize, usize)>,
) -> Result<Option<Waterfall>> {
    let Some(model) = &run.model else {
        return Ok(None);
    };
    if let Some(p) = &a.pairs_out {
        let attacked = run.attacked(released);
        let (iid, rid) = (
            row_id(intruder.table(), None),
            row_id(attacked, run.twins.as_deref()),
        );
        model.write_pairs(p, &iid, &rid, a.pairs_floor)?;
    }
    if let Some(p) = &a.model_out {
        let text = serde_json::to_string_pretty(&model.to_json())? + "\n";
        intruder_data::write_atomically(p, |w| std::io::Write::write_all(w, text.as_bytes()))?;
    }
    match explain {
        Some(pair) => explain_pair(run, pair).context("--explain-pair"),
        None => Ok(None),
    }
}

/// The documentation of the questions that carry anonymeter's risk (`risk`) or not.
fn docs_where(risk: bool) -> Vec<params::MethodDoc> {
    Question::ALL
        .into_iter()
        .filter(|q| q.has_risk() == risk)
        .map(Question::doc)
        .collect()
}

/// Runs `intruder attack`.
pub fn run(a: Args) -> Result<()> {
    if a.params.list {
        print!(
            "{}\n{}",
            params::list_text("intruder attack --method NAME: the attacks", &docs()),
            params::list_text(
                "intruder attack --method NAME --original FILE --control FILE --released FILE: the three questions",
                &docs_where(true)
            ),
        );
        print!(
            "\n{}",
            params::list_text(
                "intruder attack --method NAME --original FILE --control FILE --released FILE: membership inference and distances",
                &docs_where(false)
            )
        );
        return Ok(());
    }
    let params = parameter_table(&a)?;
    if let Some(question) = params
        .get("method")
        .and_then(toml::Value::as_str)
        .and_then(Question::named)
    {
        return crate::question_cmd::run(&a, question, params);
    }
    if a.original.is_some() || a.control.is_some() {
        bail!(
            "--original and --control belong to the questions without truth (--method singling-out, linkability, inference, membership or dcr); a linkage attack takes --intruder FILE"
        );
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
    let surface_name = "intruder attack (--set and flags)";
    let configured = configure(&params, surface_name)?;
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
    let inputs = engine_inputs(&a);
    let engine = a.engine.spec()?;
    let mut read_as = with_truth(&a, &inputs);
    // An engine reads the files itself: the command line reads only what it scores with.
    if engine.is_some()
        && let Some([i, r]) = engine_selection(&configured, &truth_names(&a), a.pairs_out.is_some())
    {
        (read_as.0.select, read_as.1.select) = (Some(i), Some(r));
    }
    let options = (
        read_as.0.read_options(&ipath)?,
        read_as.1.read_options(&rpath)?,
    );
    check_keys_before_reading(
        &configured,
        [Some((&ipath, &options.0)), Some((&rpath, &options.1))],
        surface_name,
    )?;
    let (intruder, released) =
        load_files((&ipath, &rpath), (&read_as.0, &read_as.1), &mut timings)?;
    let placement = match engine {
        None => Placement::Local,
        Some(spec) => Placement::Engine {
            spec,
            files: Some([(&ipath, &inputs.0), (&rpath, &inputs.1)]),
        },
    };
    let request = AttackRequest {
        params,
        configured,
        truth: truth_names(&a),
        seed: a.seed,
        placement,
        surface: Surface::Cli,
        surface_name,
        intruder_label: ipath.display().to_string(),
    };
    let run = attack(request, &intruder, &released, &mut timings)?;
    let ev = &run.evaluation;
    for w in &ev.warnings {
        eprintln!("warning: {w}");
    }
    let waterfall = model_outputs(&a, &run, (&intruder, &released), explain)?;
    if let (Some(dir), Some(model)) = (&a.charts, &run.model) {
        write_charts(dir, &model.to_json(), &ev.pr_curve, waterfall.as_ref())?;
    }
    if let Some(p) = &a.per_record {
        timings.time(Timings::WRITE, || write_per_record(p, ev, None))?;
    }
    let mut report = run.report(format!(
        "intruder attack — {} on {} / {}",
        run.configured.name(),
        ipath.display(),
        rpath.display()
    ))?;
    if let Some(m) = &run.model {
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
