//! The surface every subcommand shares: input flags, method selection (`--list`, `--method`,
//! `--set`), output format and destination. Parsing and rendering only; the work is in the
//! library crates.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use intruder_data::params::{self, Problem};
use intruder_data::report::{Format, Report};
use intruder_data::{Input, Timings, write_atomically};

/// How to read input files (shared by every command that reads data).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ReadArgs {
    /// Field delimiter of the input files (one character; `tab` for a tab). Default: the
    /// schema's, else detected from the first lines (`,`, `;`, tab or `|`; a note says so).
    #[arg(long, value_name = "C", value_parser = crate::delimiter::parse)]
    pub delimiter: Option<u8>,
    /// Decimal mark of numbers in the input files: `.` or `,`. Default: the schema's, else `,`
    /// when the delimiter is not a comma and the first lines hold numbers such as 12,5 (a note
    /// says so), else `.`.
    #[arg(long, value_name = "MARK", value_parser = crate::delimiter::parse_decimal)]
    pub decimal: Option<u8>,
    /// Missing-value tokens, comma-separated (default: the schema's, else the empty field, NA
    /// and .).
    #[arg(long, value_name = "TOKENS", allow_hyphen_values = true)]
    pub missing_tokens: Option<String>,
}

impl ReadArgs {
    /// The input options for a file with the given explicit schema.
    pub fn input(&self, schema: Option<&Path>) -> Input {
        Input {
            schema: schema.map(Path::to_path_buf),
            delimiter: self.delimiter,
            decimal: self.decimal,
            missing_tokens: self
                .missing_tokens
                .as_ref()
                .map(|t| t.split(',').map(str::to_string).collect()),
            roles: Vec::new(),
            set_valued: Vec::new(),
            optional_roles: false,
            select: None,
        }
    }
}

/// One data file and its schema.
#[derive(Debug, Clone, clap::Args)]
pub struct DataArgs {
    /// The data file (CSV, plain or gzip).
    #[arg(long, value_name = "FILE")]
    pub data: Option<PathBuf>,
    /// Schema TOML declaring types, roles, missing tokens and category order (default: the
    /// `FILE.schema.toml` beside the data file, when present).
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
}

impl DataArgs {
    /// The data file, or an error saying it is required.
    pub fn data(&self) -> Result<&Path> {
        match &self.data {
            Some(d) => Ok(d),
            None => bail!("--data FILE is required"),
        }
    }

    /// The input options of the data file.
    pub fn input(&self) -> Input {
        self.read.input(self.schema.as_deref())
    }
}

/// Choosing a method of a registry and its parameters.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct MethodArgs {
    /// A parameter of the method as KEY=VALUE (repeatable); the value is read as TOML (k=3,
    /// p=2.5, keys='["a","b"]'), a bare comma-separated list as a list (keys=a,b). `--list`
    /// shows every parameter.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// List the methods with their parameters, then exit.
    #[arg(long)]
    pub list: bool,
}

impl MethodArgs {
    /// The `--set` parameters as a table.
    pub fn table(&self) -> Result<toml::Table> {
        params::parse_assignments(&self.set).map_err(anyhow::Error::msg)
    }
}

/// The output format (every command has the same formats and default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FormatArg {
    /// Aligned text for people, each figure with its meaning.
    #[default]
    Table,
    /// One JSON object.
    Json,
    /// A header row of figure names and one row of values.
    Csv,
    /// Markdown tables, to paste into a paper.
    Markdown,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Markdown => Format::Markdown,
        }
    }
}

/// Where and how the report goes.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
    /// Write the report to this file (whole or not at all) instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print the wall time of each phase on standard error when done: read, the command's own
    /// phases (risk: encode and count; attack: attack and evaluate; utility: utility), write.
    #[arg(long)]
    pub timings: bool,
}

impl OutputArgs {
    /// Renders and writes the report.
    pub fn emit(&self, report: &Report) -> Result<()> {
        let text = report.render(self.format.into());
        match &self.out {
            Some(p) => write_atomically(p, |w| w.write_all(text.as_bytes()))
                .with_context(|| format!("writing {}", p.display()))?,
            None => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes())?;
                out.flush()?;
            }
        }
        Ok(())
    }
}

/// Prints `timings: read 1.234 s, …, total …` on standard error when `--timings` was given.
pub fn print_timings(asked: bool, timings: &Timings) {
    if asked {
        eprintln!("timings: {timings}");
    }
}

/// Refuses an output file that is one of the inputs ([`refuse_overwrite`]), is a directory, or
/// lies in a directory that does not exist: checked before any work, so a command with several
/// outputs never writes one and then fails on the next.
pub fn refuse_output_file(output: &Path, inputs: &[&Path], flag: &str) -> Result<()> {
    if output.is_dir() {
        bail!(
            "{flag} {}: this is a directory; expected a file name",
            output.display()
        );
    }
    if let Some(parent) = output.parent().filter(|d| !d.as_os_str().is_empty())
        && !parent.is_dir()
    {
        bail!(
            "{flag} {}: the directory {} does not exist; create it first or write elsewhere",
            output.display(),
            parent.display()
        );
    }
    refuse_overwrite(output, inputs, flag)
}

/// Refuses an output path that is one of the inputs (inputs are never modified).
pub fn refuse_overwrite(output: &Path, inputs: &[&Path], flag: &str) -> Result<()> {
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    let Some(out) = canon(output) else {
        return Ok(());
    };
    for i in inputs {
        if canon(i).as_ref() == Some(&out) {
            bail!(
                "{flag} {}: this is an input file; inputs are never modified — write elsewhere",
                output.display()
            );
        }
    }
    Ok(())
}

/// Whether two paths name the same file: equal canonical paths, or — for a file not written
/// yet — equal canonical parents and file names (`o.csv` and `./o.csv`).
pub fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    canonical_target(a).is_some_and(|x| canonical_target(b).is_some_and(|y| x == y))
}

/// The canonical path of a file, or of its parent joined with its name when it does not exist.
fn canonical_target(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(c);
    }
    let name = p.file_name()?;
    let parent = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Some(std::fs::canonicalize(parent).ok()?.join(name))
}

/// Prints the reader's notes (a delimiter or decimal mark it detected) on standard error.
pub fn notes(notes: &[String]) {
    for n in notes {
        eprintln!("note: {n}");
    }
}

/// Loads a data file as every command does, printing the reader's notes.
pub fn load(
    path: &Path,
    input: &Input,
    timings: &mut Timings,
) -> Result<intruder_data::Dataset, intruder_data::DataError> {
    let ds = intruder_data::load_timed(path, input, timings)?;
    notes(&ds.notes);
    Ok(ds)
}

/// Prints deprecation warnings on standard error.
pub fn warn(warnings: &[Problem]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// Turns parameter problems into one error naming the surface.
pub fn problems(source: &str, problems: Vec<Problem>) -> anyhow::Error {
    anyhow::Error::new(params::ParamError {
        source_name: source.to_string(),
        problems,
    })
}

/// Adds a flag's value to the method's parameter table (a key given both ways is an error).
pub fn flag(table: &mut toml::Table, key: &str, value: impl Into<toml::Value>) -> Result<()> {
    params::insert_flag(table, key, value.into()).map_err(anyhow::Error::msg)
}

/// Adds an optional flag.
pub fn flag_opt<T: Into<toml::Value>>(
    table: &mut toml::Table,
    key: &str,
    value: Option<T>,
) -> Result<()> {
    match value {
        Some(v) => flag(table, key, v),
        None => Ok(()),
    }
}

/// Adds a list flag when it is not empty.
pub fn flag_list(table: &mut toml::Table, key: &str, values: &[String]) -> Result<()> {
    if values.is_empty() {
        return Ok(());
    }
    flag(
        table,
        key,
        toml::Value::Array(values.iter().cloned().map(toml::Value::String).collect()),
    )
}

/// Parses `--explain-pair INTRUDER_ROW,RELEASED_ROW` (1-based rows) into 0-based rows.
pub fn row_pair(s: &str) -> anyhow::Result<(usize, usize)> {
    let parsed = s.split_once(',').and_then(|(i, r)| {
        Some((
            i.trim().parse::<usize>().ok()?,
            r.trim().parse::<usize>().ok()?,
        ))
    });
    match parsed {
        Some((i, r)) if i >= 1 && r >= 1 => Ok((i - 1, r - 1)),
        _ => anyhow::bail!("--explain-pair: '{s}' is not INTRUDER_ROW,RELEASED_ROW (1-based rows)"),
    }
}
