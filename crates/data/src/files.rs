//! Data files in every format: reading tells the format by the file's first bytes (CSV, gzip
//! CSV, Parquet, Arrow IPC, SPSS, Stata, SAS), writing by the name (`.parquet` or CSV). The one module that knows
//! both the CSV reader/writer ([`crate::read`], [`crate::write`]) and the columnar formats
//! ([`crate::columnar`]).

use std::io::Read;
use std::path::Path;
use std::time::Instant;

use crate::dataset::Dataset;
use crate::read::{FileFormat, ReadOptions, chunked};
use crate::{Column, DataError, Table, Timings};

/// Reads a data file: CSV, gzip-compressed CSV, Parquet or Arrow IPC, told by its first bytes.
pub fn read_csv(path: &Path, options: &ReadOptions) -> Result<Dataset, DataError> {
    read_timed(path, options, &mut Timings::default())
}

/// [`read_csv`], adding the time it took to `timings` under [`Timings::READ`].
pub fn read_timed(
    path: &Path,
    options: &ReadOptions,
    timings: &mut Timings,
) -> Result<Dataset, DataError> {
    crate::install_table_reader();
    let start = Instant::now();
    let result = read_any(path, options)
        .and_then(|ds| match &options.select {
            Some(select) => ds.selected(select),
            None => Ok(ds),
        })
        .and_then(|ds| crate::read::no_records(path, ds));
    timings.add(Timings::READ, start.elapsed());
    result
}

fn read_any(path: &Path, options: &ReadOptions) -> Result<Dataset, DataError> {
    let io = |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut head = [0u8; 32];
    let mut got = 0;
    while got < head.len() {
        match file.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(e)),
        }
    }
    match FileFormat::sniff(&head[..got]) {
        FileFormat::Parquet | FileFormat::Arrow => crate::columnar::read(path, options),
        FileFormat::Spss => crate::statfile::read(path, crate::statfile::StatFormat::Spss, options),
        FileFormat::Stata => {
            crate::statfile::read(path, crate::statfile::StatFormat::Stata, options)
        }
        FileFormat::Sas => crate::statfile::read(path, crate::statfile::StatFormat::Sas, options),
        FileFormat::Gzip => {
            let file = std::fs::File::open(path).map_err(io)?;
            let mut text = Vec::new();
            flate2::read::MultiGzDecoder::new(std::io::BufReader::with_capacity(1 << 20, file))
                .read_to_end(&mut text)
                .map_err(io)?;
            chunked::read(&text, path, options)
        }
        FileFormat::Csv => {
            let file = std::fs::File::open(path).map_err(io)?;
            let len = file.metadata().map_err(io)?.len();
            if len == 0 {
                return chunked::read(&[], path, options);
            }
            // SAFETY: the map is read-only and dropped before this function returns; a file
            // truncated by another process while it is read can make the process fault, which
            // is the documented hazard of memory-mapped input (the same as for any tool that
            // maps its input). Plain files are mapped rather than copied so that a 10-million-
            // record file is parsed in place by every thread without a second copy in memory.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
            chunked::read(&map, path, options)
        }
    }
}

/// Writing to a file the user named: Parquet when the name ends in `.parquet` (an error when
/// Parquet support is not compiled in), CSV otherwise; whole or not at all. The Parquet writer
/// lives in this crate, so writing by name is a trait of this crate over the model's types.
pub trait WriteFile {
    /// Writes `self` to `path`.
    fn write_file(&self, path: &Path) -> Result<(), DataError>;
}

impl WriteFile for Table {
    /// The table, as Parquet or as CSV ([`Table::write_csv`]).
    fn write_file(&self, path: &Path) -> Result<(), DataError> {
        if is_parquet_name(path) {
            let cols: Vec<&Column> = self.columns().iter().collect();
            crate::columnar::write_columns(path, &cols, self.nrows(), self.schema())
        } else {
            self.write_csv(path)
        }
    }
}

impl WriteFile for crate::report::Records {
    /// Writes the records to `path`, whole or not at all: Parquet when the name ends in
    /// `.parquet` (`row` and the counts as 64-bit integers, numbers as doubles, text as
    /// strings, `None` and NaN as null; an error when Parquet support is not compiled in), CSV
    /// otherwise ([`crate::report::Records::write_csv`]).
    fn write_file(&self, path: &Path) -> Result<(), DataError> {
        use crate::Role;
        if !crate::files::is_parquet_name(path) {
            return self.write_csv(path);
        }
        let rows: Vec<Option<i64>> = (1..=self.len() as i64).map(Some).collect();
        let mut columns = vec![Column::integer("row", Role::Other, &rows)];
        drop(rows);
        for c in self.columns() {
            columns.push(match &c.values {
                crate::report::RecordValues::Count(v) => {
                    let v: Vec<Option<i64>> = v.iter().map(|x| x.map(i64::from)).collect();
                    Column::integer(&c.name, Role::Other, &v)
                }
                crate::report::RecordValues::Number(v) => Column::float(&c.name, Role::Other, v),
                crate::report::RecordValues::Text(v) => Column::string(&c.name, Role::Other, v),
            });
        }
        Table::new(path, columns)?.write_file(path)
    }
}

impl Dataset {
    /// Writes table and truth columns as one CSV, whole or not at all.
    pub fn write_csv(&self, path: &Path) -> Result<(), DataError> {
        let cols: Vec<&Column> = self.table.columns().iter().chain(&self.truth).collect();
        crate::write::write_columns(path, &cols, self.table.nrows())
    }

    /// Writes table and truth columns to `path`, whole or not at all: Parquet when the name
    /// ends in `.parquet` (an error when Parquet support is not compiled in), CSV otherwise.
    pub fn write_file(&self, path: &Path) -> Result<(), DataError> {
        if is_parquet_name(path) {
            crate::columnar::write_parquet(path, self)
        } else {
            self.write_csv(path)
        }
    }
}

/// Whether an output named `path` is written as Parquet (its extension is `parquet`).
pub fn is_parquet_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}
