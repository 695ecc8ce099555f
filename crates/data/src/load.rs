//! Loading a data file the way every command and the runner do: the schema named by the user,
//! else the schema beside the file (`x.schema.toml` for `x.csv` or `x.csv.gz`), then the
//! command line's delimiter, missing tokens and roles over both. The format (CSV, gzip, Parquet,
//! Arrow IPC) is told by the file's content.

use std::path::{Path, PathBuf};

use crate::DataError;
use crate::Dataset;
use crate::Schema;
use crate::Timings;
use crate::files::{read_csv, read_timed};
use crate::read::ReadOptions;
use crate::{Kind, Role};

/// The schema conventionally beside a data file: `x.schema.toml` for `x.csv`, `x.csv.gz`,
/// `x.tsv`, `x.parquet`, `x.arrow`, `x.sav`, `x.dta`, `x.sas7bdat` or `x`.
pub fn schema_beside(data: &Path) -> PathBuf {
    let name = data
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = [
        ".csv.gz",
        ".tsv.gz",
        ".csv",
        ".tsv",
        ".txt",
        ".parquet",
        ".gz",
        ".arrow",
        ".feather",
        ".sav",
        ".zsav",
        ".dta",
        ".sas7bdat",
    ]
    .iter()
    .find_map(|suffix| name.strip_suffix(suffix))
    .unwrap_or(&name);
    data.with_file_name(format!("{stem}.schema.toml"))
}

/// How to read one input file: what the user said on the command line or in an experiment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    /// A schema file; when `None`, the schema beside the data file is used if there is one.
    pub schema: Option<PathBuf>,
    /// Field delimiter (overrides the schema's).
    pub delimiter: Option<u8>,
    /// Decimal mark, `.` or `,` (overrides the schema's).
    pub decimal: Option<u8>,
    /// Missing-value tokens (override the schema's).
    pub missing_tokens: Option<Vec<String>>,
    /// Roles set by the user (`--keys`, `--weight`, `truth = "pid"`): they win over the schema.
    pub roles: Vec<(String, Role)>,
    /// Columns declared set-valued by the user.
    pub set_valued: Vec<String>,
    /// Roles naming a column the file lacks are skipped ([`ReadOptions::optional_overrides`]):
    /// the caller reports every such name with its parameter.
    pub optional_roles: bool,
    /// Read only some columns ([`ReadOptions::select`]): every column when `None`.
    pub select: Option<crate::Select>,
}

impl Input {
    /// Sets `role` on each of `names`.
    pub fn with_role(mut self, names: &[impl AsRef<str>], role: Role) -> Self {
        for n in names {
            self.roles.push((n.as_ref().to_string(), role));
        }
        self
    }

    /// The schema that applies to `data`: the one named, else the one beside it when present.
    pub fn schema_for(&self, data: &Path) -> Option<PathBuf> {
        match &self.schema {
            Some(s) => Some(s.clone()),
            None => {
                let beside = schema_beside(data);
                beside.is_file().then_some(beside)
            }
        }
    }

    /// The read options for `data` (reads the schema file).
    pub fn read_options(&self, data: &Path) -> Result<ReadOptions, DataError> {
        let mut opts = ReadOptions::default();
        if let Some(s) = self.schema_for(data) {
            opts.schema = Some(Schema::from_file(&s)?);
        }
        opts.delimiter = self.delimiter;
        opts.decimal = self.decimal;
        opts.missing = self.missing_tokens.clone();
        opts.optional_overrides = self.optional_roles;
        opts.select = self.select.clone();
        for (name, role) in &self.roles {
            opts.override_spec(name).role = Some(*role);
        }
        for name in &self.set_valued {
            opts.override_spec(name).kind = Some(Kind::Set);
        }
        Ok(opts)
    }
}

/// Loads a data file as [`Input`] says: CSV, gzip-compressed CSV, Parquet or Arrow IPC, told
/// by the file's first bytes (not its name).
pub fn load(data: &Path, input: &Input) -> Result<Dataset, DataError> {
    read_csv(data, &input.read_options(data)?)
}

/// [`load`], adding the reading time to `timings` under [`Timings::READ`].
pub fn load_timed(data: &Path, input: &Input, timings: &mut Timings) -> Result<Dataset, DataError> {
    read_timed(data, &input.read_options(data)?, timings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_beside_data_files() {
        for (data, schema) in [
            ("d/x.csv", "d/x.schema.toml"),
            ("d/x.csv.gz", "d/x.schema.toml"),
            ("x.parquet", "x.schema.toml"),
            ("d/survey.sav", "d/survey.schema.toml"),
            ("survey.dta", "survey.schema.toml"),
            ("survey.sas7bdat", "survey.schema.toml"),
            ("x", "x.schema.toml"),
        ] {
            assert_eq!(schema_beside(Path::new(data)), PathBuf::from(schema));
        }
    }

    #[test]
    fn the_schema_beside_is_used_and_roles_win() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("s.csv");
        std::fs::write(&csv, "a,b,w\n1,x,2.5\n2,y,1.5\n").unwrap();
        std::fs::write(
            dir.path().join("s.schema.toml"),
            "[columns.a]\nrole = \"key\"\n[columns.w]\nrole = \"weight\"\n",
        )
        .unwrap();
        let ds = load(&csv, &Input::default()).unwrap();
        assert_eq!(ds.table.column("a").unwrap().role(), Role::Key);
        assert_eq!(ds.table.column("w").unwrap().role(), Role::Weight);
        let ds = load(&csv, &Input::default().with_role(&["a"], Role::Truth)).unwrap();
        assert!(ds.table.column("a").is_err());
        assert!(ds.truth_column("a").is_some());
        let missing = Input {
            schema: Some(dir.path().join("none.toml")),
            ..Input::default()
        };
        assert!(load(&csv, &missing).is_err());
    }
}
