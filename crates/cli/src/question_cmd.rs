//! `intruder attack --method singling-out|linkability|inference|membership|dcr`: the three
//! questions of anonymisation, membership inference and the distances to the closest record,
//! asked of a release about the original it was made from, against a control set the release
//! never saw (`intruder::questions`). Parsing and rendering only.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use intruder::questions::{Question, ask};
use intruder_data::{Timings, schema_beside};
use serde_json::Value;

use crate::attack_args::Args;
use crate::common::{self, refuse_output_file};

/// The flags of a linkage attack that a question has no use for, when given.
fn linkage_flags(a: &Args) -> Vec<&'static str> {
    let given = [
        (a.intruder_schema.is_some(), "--intruder-schema"),
        (a.truth.is_some(), "--truth"),
        (a.truth_intruder.is_some(), "--truth-intruder"),
        (a.truth_released.is_some(), "--truth-released"),
        (a.sensitive_truth.is_some(), "--sensitive-truth"),
        (a.per_record.is_some(), "--per-record"),
        (a.pairs_out.is_some(), "--pairs-out"),
        (a.model_out.is_some(), "--model-out"),
        (a.explain_pair.is_some(), "--explain-pair"),
        (a.charts.is_some(), "--charts"),
    ];
    given
        .into_iter()
        .filter_map(|(on, flag)| on.then_some(flag))
        .collect()
}

/// Runs `intruder attack` for one of the questions without truth; `params` is the command's
/// parameter table (`--set` items and the flags that map to parameters). Flags of linkage
/// attacks (`--keys`, `--metric`, …) that land in it are reported as unknown parameters by the
/// question's own reader; `method` is ignored there.
pub fn run(a: &Args, question: Question, params: toml::Table) -> Result<()> {
    let method = question.name();
    let unused = linkage_flags(a);
    if !unused.is_empty() {
        bail!(
            "{} apply to linkage attacks against the truth, not to --method {method}",
            unused.join(", ")
        );
    }
    if a.intruder.is_some() {
        bail!(
            "--method {method} attacks the original records, not an intruder's file: give --original FILE and --control FILE instead of --intruder"
        );
    }
    let (Some(opath), Some(rpath)) = (a.original.clone(), a.released.clone()) else {
        bail!("--method {method} needs --original FILE, --control FILE and --released FILE");
    };
    let Some(cpath) = a.control.clone() else {
        bail!(
            "--method {method} needs --control FILE: real records of the same population that the release never saw (without them the risk cannot separate what the release says about these people from what it says about everyone)"
        );
    };
    if a.engine.spec()?.is_some() {
        bail!("--engine runs linkage attacks; --method {method} runs in this process");
    }
    check_outputs(a, [&opath, &cpath, &rpath])?;
    let mut timings = Timings::new();
    let original = common::load(
        &opath,
        &a.read.input(a.original_schema.as_deref()),
        &mut timings,
    )?;
    let control = common::load(
        &cpath,
        &a.read.input(a.control_schema.as_deref()),
        &mut timings,
    )?;
    let released = common::load(
        &rpath,
        &a.read.input(a.released_schema.as_deref()),
        &mut timings,
    )?;
    let surface_name = "intruder attack (--set and flags)";
    let answer = timings.time(method, || {
        ask(
            question,
            &params,
            surface_name,
            (&original.table, &control.table, &released.table),
            a.seed,
        )
    })?;
    for w in answer.warnings() {
        eprintln!("warning: {w}");
    }
    let mut report = answer.report(format!(
        "intruder attack — {method} of {} about {} (control {})",
        rpath.display(),
        opath.display(),
        cpath.display()
    ));
    report
        .notes
        .extend(answer.warnings().iter().map(|w| format!("warning: {w}")));
    report
        .details
        .insert("version".into(), Value::from(env!("CARGO_PKG_VERSION")));
    timings.time(Timings::WRITE, || a.output.emit(&report))?;
    common::print_timings(a.output.timings, &timings);
    Ok(())
}

/// Refuses an `--out` that would overwrite an input (the files or their schemas).
fn check_outputs(a: &Args, files: [&PathBuf; 3]) -> Result<()> {
    let mut inputs: Vec<PathBuf> = files.iter().map(|p| p.to_path_buf()).collect();
    inputs.extend(files.iter().map(|p| schema_beside(p)));
    inputs.extend(
        [&a.original_schema, &a.control_schema, &a.released_schema]
            .into_iter()
            .flatten()
            .cloned(),
    );
    let input_refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    if let Some(p) = &a.output.out {
        refuse_output_file(p, &input_refs, "--out")?;
    }
    Ok(())
}
