//! Checks of an experiment against its data, before any run (`intruder run --dry-run` and the
//! start of every run): the truth columns, the scenario's keys in both files, the
//! measurement-error steps, every defence setting, every attack's keys and sensitive variable,
//! every risk and utility measure — each column checked to exist with the kind its method needs,
//! every problem reported at once with its key path, the file and the column.

use intruder_data::params::{ColumnNeed, ColumnSet, Problem, ReadContext};

use crate::data::Loaded;
use crate::grid::BLANK_PARAMS;
use crate::plan::Plan;
use crate::spec::{Experiment, RiskFile};

fn problem(path: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem {
        path: path.into(),
        message: message.into(),
    }
}

/// The columns of an experiment's files: read from the data, or declared by the generator that
/// would write them ([`Columns::declared`], a dry run that generates nothing).
#[derive(Debug, Clone)]
pub(crate) struct Columns {
    pub(crate) released: ColumnSet,
    pub(crate) source: ColumnSet,
    pub(crate) population: Option<ColumnSet>,
}

impl Columns {
    /// The columns of loaded data.
    pub(crate) fn of(data: &Loaded) -> Columns {
        let of = |l: &intruder_eval::Labelled| ColumnSet::of_parts(l.table(), l.truth().columns());
        Columns {
            released: of(&data.released),
            source: of(data.source()),
            population: data.population.as_ref().map(of),
        }
    }

    /// The columns a generator declares for its files (names, kinds, roles, levels), with
    /// the `[data]` truth columns given the truth role as loading gives it.
    pub(crate) fn declared(
        exp: &Experiment,
        files: &[(String, intruder_synth::Schema)],
    ) -> Result<Columns, crate::RunnerError> {
        let d = &exp.data;
        let set = |file: &str, truth: &str| -> Result<ColumnSet, crate::RunnerError> {
            let Some((_, schema)) = files.iter().find(|(f, _)| f == file) else {
                let names: Vec<&str> = files.iter().map(|(f, _)| f.as_str()).collect();
                return Err(crate::RunnerError::Invalid(format!(
                    "data: the generator writes no file '{file}'{}; it writes: {}",
                    intruder_data::params::did_you_mean(file, names.iter().copied()),
                    names.join(", ")
                )));
            };
            Ok(declared_set(file, schema, truth))
        };
        Ok(Columns {
            released: set(&d.released, &d.truth)?,
            source: set(
                d.intruder.as_deref().unwrap_or(&d.released),
                &d.truth_intruder,
            )?,
            population: d
                .population
                .as_deref()
                .map(|p| set(p, &d.truth))
                .transpose()?,
        })
    }
}

/// A generator's declared schema as the column set of the file it writes.
fn declared_set(file: &str, schema: &intruder_synth::Schema, truth: &str) -> ColumnSet {
    use intruder_data::{Kind, Role};
    use intruder_synth::schema::ColumnType;
    let mut columns = Vec::new();
    let mut levels = Vec::new();
    for c in &schema.columns {
        let kind = match c.ty {
            ColumnType::Categorical => Kind::Categorical,
            ColumnType::Integer => Kind::Integer,
            ColumnType::Float => Kind::Float,
            ColumnType::String => Kind::String,
            ColumnType::Set => Kind::Set,
        };
        let role = if c.name == truth {
            Role::Truth
        } else {
            c.role.as_str().parse().unwrap_or(Role::Other)
        };
        if let (Some(cats), Kind::Categorical) = (&c.categories, kind) {
            levels.push((c.name.clone(), cats.clone()));
        }
        columns.push((c.name.clone(), kind, role));
    }
    // Truth columns last, as a loaded table lists them.
    columns.sort_by_key(|(_, _, r)| *r == Role::Truth);
    ColumnSet {
        file: file.to_string(),
        columns,
        first_not_number: Vec::new(),
        levels,
    }
}

/// The columns of an experiment's data without reading or generating any: a generator's
/// declared schemas ([`intruder_synth::Generator::schemas`]) when its data are not stored under
/// `out` yet; `None` for files and stored data (read them).
pub(crate) fn declared_columns(
    exp: &Experiment,
    out: &std::path::Path,
) -> Result<Option<Columns>, crate::RunnerError> {
    let crate::spec::DataSource::Generator { name, n, params } = &exp.data.source else {
        return Ok(None);
    };
    if crate::data::stored_generated(exp, out).is_some() {
        return Ok(None);
    }
    let files = intruder_synth::schemas(name, *n, params, exp.seed)?;
    Columns::declared(exp, &files).map(Some)
}

/// Every problem of the experiment against its loaded data: its rows ([`check_rows`]) and
/// its columns ([`check_columns`]).
pub fn check_data(exp: &Experiment, plan: &Plan, data: &Loaded) -> Vec<Problem> {
    let mut out = check_rows(exp, data);
    out.extend(check_columns(exp, plan, &Columns::of(data)));
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.to_string()));
    out
}

/// What only the records can tell: filters that leave no record, more known records than the
/// source holds, duplicate truth ids in the released file.
fn check_rows(exp: &Experiment, data: &Loaded) -> Vec<Problem> {
    let mut out = Vec::new();
    let d = &exp.data;
    // The evaluator matches each intruder record to the released record with its truth id.
    if !exp.attacks.is_empty()
        && let Some(c) = data.released.truth().column(&d.truth)
    {
        let mut seen: std::collections::HashMap<String, usize> =
            std::collections::HashMap::with_capacity(c.len());
        for j in 0..c.len() {
            if let Some(t) = c.text(j)
                && let Some(prev) = seen.insert(t.to_string(), j)
            {
                out.push(problem(
                    "data.truth",
                    format!(
                        "{}: column '{}': truth id '{t}' appears on rows {} and {}: the released file's ids must be unique (one record per person), since the attacks are scored by them",
                        data.released.table().source(),
                        d.truth,
                        prev + 1,
                        j + 1
                    ),
                ));
                break;
            }
        }
    }
    for (key, ds) in [
        ("data.released_where", &data.released),
        ("data.intruder_where", data.source()),
    ] {
        if ds.nrows() == 0 {
            out.push(problem(
                key,
                format!(
                    "{}: no record is left (after the filter, if any)",
                    ds.table().source()
                ),
            ));
        }
    }

    check_control(exp, data, &mut out);
    // A fixed number of known records must be records of the intruder's source.
    if let Some(k) = exp.scenario.intruder_n {
        let src = data.source();
        if k == 0 {
            out.push(problem(
                "scenario.intruder_n",
                "0 records: the intruder must know at least one record",
            ));
        } else if k as usize > src.nrows() {
            out.push(problem(
                "scenario.intruder_n",
                format!(
                    "{k} records asked, but the intruder's source {} has {} records; expected at most {} (or give the share known instead)",
                    src.table().source(),
                    src.nrows(),
                    src.nrows()
                ),
            ));
        }
    }

    out
}

/// Checks the control set of `[scenario] control`: it must hold a record and leave one to
/// release, and hold as many records as each question attacks (a question draws `n_attacks`
/// targets from it, without replacement).
fn check_control(exp: &Experiment, data: &Loaded, out: &mut Vec<Problem>) {
    let share = exp.scenario.control;
    if share <= 0.0 {
        return;
    }
    let n = data.released.nrows();
    let k = crate::data::control_size(share, n);
    let file = data.released.table().source().to_string();
    if k == 0 || k == n {
        out.push(problem(
            "scenario.control",
            format!(
                "{file}: a share of {share} of its {n} records is {k} records; the control set and the release each need at least one"
            ),
        ));
        return;
    }
    for (i, q) in exp.questions.iter().enumerate() {
        let (key, what) = if q.question == intruder::questions::Question::Membership {
            ("n_targets", "non-members")
        } else {
            ("n_attacks", "attacks")
        };
        if q.n_attacks > k {
            out.push(problem(
                format!("question[{}].{key}", i + 1),
                format!(
                    "{} {what}, but the control set holds {k} records ({share} of the {n} records of {file}); expected at most {k}, or a larger control share",
                    q.n_attacks
                ),
            ));
        }
    }
}

/// Every problem of the experiment's columns: the truth columns, the scenario's keys in both
/// files, the measurement-error steps, every defence setting, every attack, risk and utility
/// measure — each column checked to exist with the kind (and a recode map's levels) its method
/// needs.
pub(crate) fn check_columns(exp: &Experiment, plan: &Plan, cols: &Columns) -> Vec<Problem> {
    let mut out = Vec::new();
    check_data_columns(exp, cols, &mut out);
    check_scenario_keys(exp, cols, &mut out);
    check_error_steps(exp, &cols.source, &mut out);
    let after = check_settings(exp, plan, &cols.released, &mut out);
    check_attacks(exp, cols, &after, &mut out);
    check_risks(exp, cols, &after, &mut out);
    check_utility(exp, &cols.released, &after, &mut out);
    check_questions(exp, &cols.released, &after, &mut out);
    // The same problem found for several files is reported once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.to_string()));
    out
}

/// Checks the `[data]` truth columns (they carry the truth role after loading) and the
/// columns its filters name.
fn check_data_columns(exp: &Experiment, cols: &Columns, out: &mut Vec<Problem>) {
    let (released, source) = (&cols.released, &cols.source);
    let d = &exp.data;
    for (key, set, name) in [
        ("data.truth", released, &d.truth),
        ("data.truth_intruder", source, &d.truth_intruder),
    ] {
        if let Err(e) = set.check(name, ColumnNeed::Any) {
            out.push(problem(key, e));
        }
    }
    for (key, set, filter) in [
        ("data.released_where", released, &d.released_where),
        ("data.intruder_where", source, &d.intruder_where),
    ] {
        for (name, _) in filter {
            if let Err(e) = set.check(name, ColumnNeed::Any) {
                out.push(problem(format!("{key}.{name}"), e));
            }
        }
    }
}

/// Checks the scenario's keys: intruder names in the source, released names in the released
/// file.
fn check_scenario_keys(exp: &Experiment, cols: &Columns, out: &mut Vec<Problem>) {
    let sc = &exp.scenario;
    let released_name = |k: &String| {
        sc.key_map
            .iter()
            .find(|(a, _)| a == k)
            .map_or(k.clone(), |(_, b)| b.clone())
    };
    for k in &sc.keys {
        if let Err(e) = cols.source.check_usable(k, ColumnNeed::Any) {
            out.push(problem("scenario.keys", e));
        }
        let r = released_name(k);
        if let Err(e) = cols.released.check_usable(&r, ColumnNeed::Any) {
            let path = if &r == k {
                "scenario.keys".to_string()
            } else {
                format!("scenario.key_map.{k}")
            };
            out.push(problem(path, e));
        }
    }
}

/// Checks the measurement-error steps on the intruder's copy against the source's columns.
fn check_error_steps(exp: &Experiment, source: &ColumnSet, out: &mut Vec<Problem>) {
    for (i, step) in exp.scenario.error.iter().enumerate() {
        let loc = format!("scenario.error[{}]", i + 1);
        let ctx = ReadContext {
            base_dir: Some(&exp.base_dir),
            columns: Some(source),
        };
        let mut params = step.params.clone();
        params.remove("method");
        if step.method == "blank" {
            let mut r = intruder_data::params::ParamReader::new(&params, loc, &[BLANK_PARAMS], ctx);
            let _: Option<Vec<String>> = r.get("variables");
            let _: Option<f64> = r.get("p");
            out.extend(r.finish().problems);
        } else if let Err(p) =
            intruder_defence::Pipeline::single_at(&step.method, params, &loc, ctx)
        {
            out.extend(p);
        }
    }
}

/// Checks every defence setting against the released file's columns (each problem once);
/// the released file's columns after each valid setting (the released columns themselves
/// when none is valid), for the measures.
fn check_settings(
    exp: &Experiment,
    plan: &Plan,
    released: &ColumnSet,
    out: &mut Vec<Problem>,
) -> Vec<ColumnSet> {
    let mut after: Vec<ColumnSet> = Vec::new();
    let mut reported = std::collections::HashSet::new();
    for st in &plan.settings {
        let di = exp
            .defences
            .iter()
            .position(|x| x.name == st.defence)
            .unwrap_or(0);
        let ctx = ReadContext {
            base_dir: Some(&exp.base_dir),
            columns: Some(released),
        };
        match st.pipeline_at(&format!("defence[{}].", di + 1), ctx) {
            Ok(p) => after.push(p.columns_after(released)),
            Err(ps) => {
                for p in ps {
                    let text = p.to_string();
                    if reported.insert(text) {
                        out.push(p);
                    }
                }
            }
        }
    }
    if after.is_empty() {
        after.push(released.clone());
    }
    after
}

/// Checks the attacks: keys in both files (in the released file after every setting), the
/// sensitive variable in the released file and in the source, whose original value the
/// evaluator scores against.
fn check_attacks(exp: &Experiment, cols: &Columns, after: &[ColumnSet], out: &mut Vec<Problem>) {
    let (released, source) = (&cols.released, &cols.source);
    for (i, a) in exp.attacks.iter().enumerate() {
        let loc = format!("attack[{}]", i + 1);
        for k in &a.keys {
            if let Err(e) = source.check_usable(k, ColumnNeed::Any) {
                out.push(problem(format!("{loc}.keys"), e));
            }
            let r = a
                .key_map
                .iter()
                .find(|(x, _)| x == k)
                .map_or(k.clone(), |(_, y)| y.clone());
            for set in after {
                if let Err(e) = set.check_usable(&r, ColumnNeed::Any) {
                    out.push(problem(format!("{loc}.keys"), e));
                    break;
                }
            }
        }
        if let Some(s) = &a.sensitive {
            for set in [released, source] {
                if let Err(e) = set.check_usable(s, ColumnNeed::Any) {
                    out.push(problem(format!("{loc}.sensitive"), e));
                }
            }
        }
    }
}

/// Checks the risk measures: every parameter re-read against the columns of the file they
/// assess (the released file after every setting, the source or the population).
fn check_risks(exp: &Experiment, cols: &Columns, after: &[ColumnSet], out: &mut Vec<Problem>) {
    for (i, r) in exp.risk.iter().enumerate() {
        let loc = format!("risk[{}]", i + 1);
        let sets: Vec<&ColumnSet> = match r.file {
            RiskFile::Released => after.iter().collect(),
            RiskFile::Source => vec![&cols.source],
            RiskFile::Population => match &cols.population {
                Some(p) => vec![p],
                None => {
                    out.push(problem(
                        format!("{loc}.file"),
                        "\"population\" needs [data] population: the file to read",
                    ));
                    continue;
                }
            },
        };
        for set in sets {
            let ctx = ReadContext {
                base_dir: Some(&exp.base_dir),
                columns: Some(set),
            };
            if let Err(ps) = intruder_risk::configure(&r.params, &loc, ctx, &[]) {
                out.extend(ps);
                break;
            }
        }
    }
}

/// Checks the columns the questions name (auxiliary columns, the secret) in the original
/// records (the released file before masking, whose records make the original and the control
/// set) and in the release after every setting; the path is `question[i].secret` for the
/// secret, `question[i].aux_cols` otherwise.
fn check_questions(
    exp: &Experiment,
    released: &ColumnSet,
    after: &[ColumnSet],
    out: &mut Vec<Problem>,
) {
    for (i, q) in exp.questions.iter().enumerate() {
        let secret = q.params.get("secret").and_then(toml::Value::as_str);
        for c in &q.columns {
            let key = if Some(c.as_str()) == secret {
                "secret"
            } else {
                "aux_cols"
            };
            for set in std::iter::once(released).chain(after.iter()) {
                if let Err(e) = set.check_usable(c, ColumnNeed::Any) {
                    out.push(problem(format!("question[{}].{key}", i + 1), e));
                    break;
                }
            }
        }
    }
}

/// Checks the utility measures against the original's columns and the released file's after
/// each setting.
fn check_utility(
    exp: &Experiment,
    released: &ColumnSet,
    after: &[ColumnSet],
    out: &mut Vec<Problem>,
) {
    let u = &exp.utility;
    if u.measures.is_empty() {
        return;
    }
    for set in std::iter::once(released).chain(after.iter()) {
        let ctx = ReadContext {
            base_dir: Some(&exp.base_dir),
            columns: Some(set),
        };
        if let Err(ps) = intruder_utility::configure(&u.measures, &u.table(), "utility", ctx, &[]) {
            out.extend(ps);
            break;
        }
    }
}
