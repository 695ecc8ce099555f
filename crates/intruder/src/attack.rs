//! An attack from start to score: configure it, choose its keys and the truth ids, restrict the
//! search to twins when asked, link on the chosen engine, then evaluate against the truth.
//!
//! ```text
//! configure(params)                 every parameter problem at once, before any data is read
//!   → AttackRun::link(intruder, released, …)
//!       keys: given, else the linkage specification's, else the schema's key columns
//!       truth ids: given, else the one truth column both tables share
//!       twins_only: the released records with a twin (read from the truth) before the attack
//!       link: the local engine, or DataFusion / Ballista (the exact attack as plans)
//!       evaluate: the linkage scored against the truth (the only step that reads it)
//! ```

use std::path::Path;

use anyhow::{Context, Result, bail};
use intruder_attack::{ATTACK_COMMON, Configured, KeyMap, LinkModel, Linkage, Waterfall};
use intruder_data::params::{self, Problem, ReadContext};
use intruder_data::report::Report;
use intruder_data::{ColumnarFile, Input, ReadOptions, Role, Select, Table, Timings};
use intruder_engine::EngineSpec;
use intruder_eval::{
    EvalOptions, Evaluation, Labelled, TruthIds, check_key_columns, evaluate, twin_rows,
};

use crate::Surface;

/// The truth columns a caller names: the person id in both tables (`truth`) or in each
/// (`truth_intruder`, `truth_released`), and the intruder table's column with the true value of
/// a sensitive variable (`sensitive_truth`). All are read as ground truth: no attack sees them.
#[derive(Debug, Clone, Default)]
pub struct TruthNames {
    /// The person id column of both tables.
    pub truth: Option<String>,
    /// The person id column of the intruder's table.
    pub truth_intruder: Option<String>,
    /// The person id column of the released table.
    pub truth_released: Option<String>,
    /// The intruder table's column with the true value of the attack's `sensitive` variable.
    pub sensitive_truth: Option<String>,
}

impl TruthNames {
    /// Refuses names that contradict each other: `truth` with the pair, or half of the pair.
    pub fn check(&self, surface: Surface) -> Result<()> {
        let a = |n: &str| surface.arg(n);
        if self.truth.is_some() && (self.truth_intruder.is_some() || self.truth_released.is_some())
        {
            bail!(
                "give {} (one column in both tables) or {} with {}, not both",
                a("truth"),
                a("truth_intruder"),
                a("truth_released")
            );
        }
        if self.truth_intruder.is_some() != self.truth_released.is_some() {
            bail!(
                "{} and {} go together",
                a("truth_intruder"),
                a("truth_released")
            );
        }
        Ok(())
    }

    /// The intruder table's columns to read as ground truth (each once).
    pub fn intruder_columns(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for n in [&self.truth, &self.truth_intruder, &self.sensitive_truth]
            .into_iter()
            .flatten()
        {
            if !v.contains(n) {
                v.push(n.clone());
            }
        }
        v
    }

    /// The released table's columns to read as ground truth (each once).
    pub fn released_columns(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for n in [&self.truth, &self.truth_released].into_iter().flatten() {
            if !v.contains(n) {
                v.push(n.clone());
            }
        }
        v
    }

    /// The truth ids: the names given, else the single truth column both tables share (a
    /// sensitive variable's true value aside).
    pub fn ids(&self, intruder: &Labelled, released: &Labelled) -> Option<TruthIds> {
        let names = |d: &Labelled| -> Vec<String> {
            let cols = d.truth().columns().iter().map(|c| c.name().to_string());
            cols.filter(|n| Some(n) != self.sensitive_truth.as_ref())
                .collect()
        };
        let (i, r) = (names(intruder), names(released));
        let (i, r): (Vec<&str>, Vec<&str>) = (
            i.iter().map(String::as_str).collect(),
            r.iter().map(String::as_str).collect(),
        );
        TruthIds::choose(
            self.truth.as_deref(),
            self.truth_intruder.as_deref(),
            self.truth_released.as_deref(),
            &i,
            &r,
        )
    }
}

/// Where the linkage runs: the local engine, or another engine reading the tables in memory
/// (written to temporary Parquet copies) or the files themselves.
pub enum Placement<'a> {
    /// The toolkit's in-process engines.
    Local,
    /// DataFusion or Ballista, reading `files` (the intruder's, the released) when given,
    /// else temporary copies of the tables.
    Engine {
        /// The engine and its settings.
        spec: EngineSpec,
        /// The files and how to read them, when the tables came from files.
        files: Option<[(&'a Path, &'a Input); 2]>,
    },
}

impl Placement<'_> {
    /// The placement of an engine specification: local stays local.
    pub fn of(spec: Option<EngineSpec>) -> Placement<'static> {
        match spec {
            Some(spec) if !spec.engine.is_local() => Placement::Engine { spec, files: None },
            _ => Placement::Local,
        }
    }
}

/// Configures an attack from its parameter table (`method` and the parameters, as an
/// experiment's `[[attack]]`): every problem at once, named for `surface_name`.
pub fn configure(table: &toml::Table, surface_name: &str) -> Result<Configured> {
    intruder_attack::configure(table, "", ReadContext::default())
        .map_err(|p| problems(surface_name, p))
}

/// Several parameter problems as one error (a [`params::ParamError`]), named for the surface.
pub fn problems(surface_name: &str, problems: Vec<Problem>) -> anyhow::Error {
    anyhow::Error::new(params::ParamError {
        source_name: surface_name.to_string(),
        problems,
    })
}

/// What one attack needs besides the two tables.
pub struct AttackRequest<'a> {
    /// The attack's parameter table (`method` and its parameters).
    pub params: toml::Table,
    /// The attack, configured from `params` by [`configure`].
    pub configured: Configured,
    /// The truth columns named by the caller.
    pub truth: TruthNames,
    /// The seed of the attack's and the evaluator's draws.
    pub seed: u64,
    /// Where the linkage runs.
    pub placement: Placement<'a>,
    /// Who calls (how messages spell its arguments).
    pub surface: Surface,
    /// How the surface names itself in a parameter problem (`intruder attack (--set and flags)`).
    pub surface_name: &'a str,
    /// How the surface names the intruder's table (its file, or `intruder`).
    pub intruder_label: String,
}

/// One attack run and scored.
pub struct AttackRun {
    /// The attack as it ran (its keys filled in when the caller gave none).
    pub configured: Configured,
    /// The key variables matched.
    pub keys: KeyMap,
    /// The released rows searched when the search was restricted to twins (0-based).
    pub twins: Option<Vec<usize>>,
    /// The released table restricted to `twins`, as the attack saw it.
    pub restricted: Option<Table>,
    /// The candidates of every intruder record, with rows of the whole released table.
    pub linkage: Linkage,
    /// The fitted model of a model-based attack (Fellegi–Sunter).
    pub model: Option<Box<dyn LinkModel>>,
    /// The linkage scored against the truth.
    pub evaluation: Evaluation,
}

impl AttackRun {
    /// The released table as the attack saw it: restricted to twins, or whole.
    pub fn attacked<'a>(&'a self, released: &'a Labelled) -> &'a Table {
        self.restricted.as_ref().unwrap_or(released.table())
    }

    /// The evaluation's report with the run's configuration: `config`, `keys`, `twins_only`,
    /// the fitted `model` and the toolkit's `version`.
    pub fn report(&self, title: impl Into<String>) -> Result<Report> {
        let mut report = self.evaluation.report(title);
        let d = &mut report.details;
        d.insert("config".into(), self.configured.resolved(Some(&self.keys)));
        d.insert("keys".into(), serde_json::to_value(&self.keys)?);
        d.insert(
            "twins_only".into(),
            self.configured.common.twins_only.into(),
        );
        if let Some(m) = &self.model {
            d.insert("model".into(), m.to_json());
        }
        Ok(report)
    }
}

/// The attack's keys: given, else the linkage specification's, else the intruder table's key
/// columns (role key); each checked against both tables.
fn choose_keys(
    request: &mut AttackRequest<'_>,
    intruder: &Labelled,
    released: &Labelled,
) -> Result<KeyMap> {
    if request.configured.key_names(&[]).is_none() {
        let columns = intruder.column_set();
        params::fill_from_roles(&mut request.params, &[ATTACK_COMMON], &columns);
        request.configured = configure(&request.params, request.surface_name)?;
    }
    if request.configured.key_names(&[]).is_none() {
        bail!(
            "no key variables: give {}, or declare role = \"key\" columns in the schema of {}",
            request.surface.list_arg("keys"),
            request.intruder_label
        );
    }
    let keys = request.configured.key_map(&[], &[])?;
    // Every key either table lacks, or that is a truth column, at once.
    let bad = intruder.check_keys(released, &keys, "keys");
    if !bad.is_empty() {
        return Err(problems(request.surface_name, bad));
    }
    Ok(keys)
}

/// The attack's keys checked against the columns of each file that is Parquet, read from its
/// footer before its table is (`files`: the intruder's and the released file, each as the
/// path and the options it will be read with, truth roles included; `None` for a table that
/// is not a file): the problems [`attack`] reports once the tables are read, without reading
/// them (a misspelt key took 8.6 s and 2.4 GB to report on two 10,000,000-record files). Keys
/// that come from the tables' roles are checked once the tables are read.
pub fn check_keys_before_reading(
    configured: &Configured,
    files: [Option<(&Path, &ReadOptions)>; 2],
    surface_name: &str,
) -> Result<()> {
    // No keys given (they come from the roles), or a key map in error: both reported where
    // the run makes its key map.
    let Ok(keys) = configured.key_map(&[], &[]) else {
        return Ok(());
    };
    let columns = |file: Option<(&Path, &ReadOptions)>| {
        file.and_then(|(path, options)| ColumnarFile::open(path, options))
            .map(|f| f.columns())
    };
    let (intruder, released) = (columns(files[0]), columns(files[1]));
    let bad = check_key_columns(intruder.as_ref(), released.as_ref(), &keys, "keys");
    if !bad.is_empty() {
        return Err(problems(surface_name, bad));
    }
    Ok(())
}

/// What the driver of an engine run reads of each file (the intruder's, the released), when
/// the engine reads the files themselves: the truth columns (the evaluator's), the released
/// sensitive variable (attribute disclosure) and, with `row_ids` (`--pairs-out` names records
/// so), the identifier columns; none of the key columns, which the engine reads on its own.
/// `None` when the run needs the keys' values on the driver (Fellegi–Sunter without a linkage
/// specification, which is inferred from the values) or restricts the released table to
/// twins.
pub fn engine_selection(
    configured: &Configured,
    truth: &TruthNames,
    row_ids: bool,
) -> Option<[Select; 2]> {
    use intruder_attack::fellegi_sunter::FellegiSunter;
    let inferred = configured
        .attack
        .as_any()
        .and_then(|a| a.downcast_ref::<FellegiSunter>())
        .is_some_and(|fs| fs.params().spec.is_none());
    if inferred || configured.common.twins_only {
        return None;
    }
    let mut roles = vec![Role::Truth];
    if row_ids {
        roles.push(Role::Identifier);
    }
    Some([
        Select {
            names: truth.intruder_columns(),
            roles: roles.clone(),
        },
        Select {
            names: truth
                .released_columns()
                .into_iter()
                .chain(configured.common.sensitive.clone())
                .collect(),
            roles,
        },
    ])
}

/// Refuses an attack with nothing to score: neither truth ids nor a sensitive variable with
/// its true values; a sensitive variable and its truth come together.
fn check_scoring(request: &AttackRequest<'_>, truth: Option<&TruthIds>) -> Result<()> {
    let a = |n: &str| request.surface.arg(n);
    let sensitive = request.configured.common.sensitive.as_deref();
    match (sensitive, &request.truth.sensitive_truth) {
        (Some(s), None) => bail!(
            "sensitive = '{s}' needs {}COL: the intruder table's column with the true value",
            match request.surface {
                Surface::Cli => "--sensitive-truth ".to_string(),
                Surface::Python | Surface::Page => a("sensitive_truth"),
            }
        ),
        (None, Some(_)) => bail!(
            "{} needs {} (the released variable)",
            a("sensitive_truth"),
            match request.surface {
                Surface::Cli => "--sensitive COL".to_string(),
                Surface::Python => "sensitive=COL".to_string(),
                Surface::Page => a("sensitive"),
            }
        ),
        _ => {}
    }
    if truth.is_none() && sensitive.is_none() {
        bail!(
            "nothing to score: give the truth ids ({} or {} with {}; a schema's truth column shared by both tables is used alone) and/or {} with {}",
            a("truth"),
            a("truth_intruder"),
            a("truth_released"),
            a("sensitive"),
            a("sensitive_truth")
        );
    }
    Ok(())
}

/// The released rows with a twin in the intruder's table when the attack searches twins only.
fn twins(
    request: &AttackRequest<'_>,
    truth: Option<&TruthIds>,
    intruder: &Labelled,
    released: &Labelled,
) -> Result<Option<Vec<usize>>> {
    if !request.configured.common.twins_only {
        return Ok(None);
    }
    let Some(ids) = truth else {
        bail!(
            "twins_only needs the truth ids ({}, or {} and {})",
            request.surface.arg("truth"),
            request.surface.arg("truth_intruder"),
            request.surface.arg("truth_released")
        );
    };
    if let Placement::Engine { spec, .. } = &request.placement {
        bail!(
            "twins_only runs on the local engine only (engine = {})",
            spec.engine
        );
    }
    Ok(Some(twin_rows(intruder, released, ids)?))
}

/// Runs the attack of `request` by the intruder's table on the released one and scores it
/// against their truth. `timings` gets the phases `attack` and `evaluate`.
pub fn attack(
    mut request: AttackRequest<'_>,
    intruder: &Labelled,
    released: &Labelled,
    timings: &mut Timings,
) -> Result<AttackRun> {
    let keys = choose_keys(&mut request, intruder, released)?;
    let truth = request.truth.ids(intruder, released);
    check_scoring(&request, truth.as_ref())?;
    let twins = twins(&request, truth.as_ref(), intruder, released)?;
    let restricted = twins.as_ref().map(|rows| released.table().take(rows));
    let attacked = restricted.as_ref().unwrap_or(released.table());
    let attack = request.configured.attack.as_ref();
    let linked = timings.time("attack", || match &request.placement {
        Placement::Local => attack
            .link(&intruder.knowledge(keys.clone())?, attacked, request.seed)
            .map_err(anyhow::Error::from),
        Placement::Engine {
            spec,
            files: Some([i, r]),
        } => {
            let inferred = intruder_engine::with_spec(attack, intruder.table(), attacked, &keys)?;
            let attack: &dyn intruder_attack::Attack = inferred
                .as_ref()
                .map_or(attack, |f| f as &dyn intruder_attack::Attack);
            intruder_engine::link_on_engine(spec, attack, &keys, *i, *r, request.seed)
                .map_err(anyhow::Error::from)
        }
        Placement::Engine { spec, files: None } => {
            let knowledge = intruder.knowledge(keys.clone())?;
            intruder_engine::link_tables(spec, attack, &knowledge, attacked, request.seed)
                .map_err(anyhow::Error::from)
        }
    })?;
    let mut linkage = linked.linkage;
    if let Some(rows) = &twins {
        linkage.remap_rows(rows, released.nrows());
    }
    let opts = EvalOptions::for_attack(
        &request.configured,
        truth,
        request.truth.sensitive_truth.clone(),
        request.seed,
    );
    let mut evaluation =
        timings.time("evaluate", || evaluate(&linkage, intruder, released, &opts))?;
    if let Some(rows) = &twins {
        evaluation
            .notes
            .push(("twins_only_released_records".into(), rows.len() as f64));
    }
    Ok(AttackRun {
        configured: request.configured,
        keys,
        twins,
        restricted,
        linkage,
        model: linked.model,
        evaluation,
    })
}

/// The fitted model's explanation of the pair (intruder row `i`, released row `j`, 0-based in
/// the whole released file), with `j` located among the twins when the search was restricted.
pub fn explain_pair(run: &AttackRun, (i, j): (usize, usize)) -> Result<Option<Waterfall>> {
    let Some(model) = &run.model else {
        return Ok(None);
    };
    let j = match &run.twins {
        Some(rows) => rows
            .iter()
            .position(|&r| r == j)
            .with_context(|| format!("released row {} is not searched with twins_only", j + 1))?,
        None => j,
    };
    Ok(Some(model.explain_pair(i, j)?))
}
