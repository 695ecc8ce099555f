//! A panel read from wave files, and the files written from it: the per-record attack file and
//! the altered last wave.
//!
//! Every wave is read the way every command reads a file ([`intruder_data::load`]): its own
//! schema, else the schema beside it (`X.schema.toml` for `X.csv`), then the delimiter and
//! missing tokens asked for. The altered last wave is written field by field from the input
//! file, whole or not at all, and checked against the altered values before anything is
//! written; rows shown to people are 1-based.

use intruder_data::WriteFile;
use std::path::{Path, PathBuf};

use intruder_data::{Column, Dataset, Input, load, write_atomically};
use serde_json::{Value, json};

use crate::attack::AttackReport;
use crate::error::PanelError;
use crate::panel::{Panel, PanelSpec};
use crate::protect::Protected;

/// The released link column taken when none is named and every wave has it (the column the
/// `household-panel` generator writes with `links=true`).
pub const DEFAULT_RELEASED_LINK: &str = "link_id";

/// One wave file and how to read it.
#[derive(Debug, Clone, PartialEq)]
pub struct WaveInput {
    /// The file (CSV, plain or gzip).
    pub path: PathBuf,
    /// Its schema (when `input.schema` is `None`, the one beside the file when present),
    /// delimiter and missing tokens.
    pub input: Input,
}

/// A wave as read: the file, the schema that applied, and how it was read.
#[derive(Debug, Clone)]
pub struct WaveFile {
    /// The file.
    pub path: PathBuf,
    /// The schema that applied (named, or found beside the file).
    pub schema: Option<PathBuf>,
    /// How it was read.
    pub input: Input,
    /// The field delimiter that applied (the one asked for, else the schema's, else `,`).
    pub delimiter: u8,
}

/// A panel with the files it was read from; built by [`PanelFiles::load`].
#[derive(Debug, Clone)]
pub struct PanelFiles {
    /// The linked waves.
    pub panel: Panel,
    /// The wave files, wave 1 first.
    pub waves: Vec<WaveFile>,
}

fn has_column(ds: &Dataset, name: &str) -> bool {
    ds.table.position(name).is_some() || ds.truth_column(name).is_some()
}

fn find_column(ds: &Dataset, name: &str) -> Option<Column> {
    ds.table
        .position(name)
        .map(|p| ds.table.columns()[p].clone())
        .or_else(|| ds.truth_column(name).cloned())
}

fn read_wave(w: &WaveInput) -> Result<(Dataset, WaveFile), PanelError> {
    let opts = w.input.read_options(&w.path)?;
    let delimiter = opts
        .delimiter
        .or(opts.schema.as_ref().and_then(|s| s.delimiter))
        .unwrap_or(b',');
    let data = load(&w.path, &w.input)?;
    Ok((
        data,
        WaveFile {
            path: w.path.clone(),
            schema: w.input.schema_for(&w.path),
            input: w.input.clone(),
            delimiter,
        },
    ))
}

impl PanelFiles {
    /// Reads the waves (wave 1 first, the last wave `T` last) and links them by `spec`. When
    /// `spec.released_link` is `None`, [`DEFAULT_RELEASED_LINK`] is followed if every wave has
    /// that column.
    pub fn load(waves: &[WaveInput], mut spec: PanelSpec) -> Result<PanelFiles, PanelError> {
        let mut data = Vec::with_capacity(waves.len());
        let mut files = Vec::with_capacity(waves.len());
        for w in waves {
            let (d, f) = read_wave(w)?;
            data.push(d);
            files.push(f);
        }
        if spec.released_link.is_none()
            && !data.is_empty()
            && data.iter().all(|d| has_column(d, DEFAULT_RELEASED_LINK))
        {
            spec.released_link = Some(DEFAULT_RELEASED_LINK.to_string());
        }
        let panel = Panel::new(data, spec)?;
        Ok(PanelFiles {
            panel,
            waves: files,
        })
    }

    /// The last wave's file.
    pub fn last(&self) -> &WaveFile {
        &self.waves[self.waves.len() - 1]
    }

    /// The wave files and their schemas, as JSON (`[{file, schema}]`).
    pub fn files_json(&self) -> Value {
        Value::Array(
            self.waves
                .iter()
                .map(|w| {
                    json!({
                        "file": w.path.display().to_string(),
                        "schema": w.schema.as_ref().map(|p| p.display().to_string()),
                    })
                })
                .collect(),
        )
    }

    /// The waves' file names joined by ` → `, for titles.
    pub fn files_text(&self) -> String {
        self.waves
            .iter()
            .map(|w| w.path.display().to_string())
            .collect::<Vec<_>>()
            .join(" → ")
    }

    /// The link id of last-wave row `row` (0-based) as text (empty when missing).
    pub fn link_text(&self, row: usize) -> String {
        let ds = self.panel.last();
        let name = &self.panel.spec().link;
        let col = ds
            .table
            .position(name)
            .map(|p| &ds.table.columns()[p])
            .or_else(|| ds.truth_column(name));
        col.and_then(|c| c.text(row))
            .map(|t| t.into_owned())
            .unwrap_or_default()
    }

    /// Writes one row per attacked split record: `row` (1-based last-wave row), `link`,
    /// `c` (`c_i`), `found` (1/0), `p` (`p_i`) and `r` (`r_i`, empty without matches); Parquet
    /// when the name ends in `.parquet` (integers, doubles, `link` as text, empty `r` as null),
    /// CSV otherwise.
    pub fn write_per_record(&self, path: &Path, report: &AttackReport) -> Result<(), PanelError> {
        if intruder_data::is_parquet_name(path) {
            use intruder_data::{Role, Table};
            let recs = &report.records;
            let int = |name: &str, f: &dyn Fn(usize) -> i64| {
                let v: Vec<Option<i64>> = (0..recs.len()).map(|i| Some(f(i))).collect();
                Column::integer(name, Role::Other, &v)
            };
            let links: Vec<Option<String>> =
                recs.iter().map(|t| Some(self.link_text(t.row))).collect();
            let p: Vec<Option<f64>> = recs.iter().map(|t| Some(t.p)).collect();
            let r: Vec<Option<f64>> = recs.iter().map(|t| t.r).collect();
            let columns = vec![
                int("row", &|i| recs[i].row as i64 + 1),
                Column::string("link", Role::Other, &links),
                int("c", &|i| recs[i].c as i64),
                int("found", &|i| i64::from(recs[i].found)),
                Column::float("p", Role::Other, &p),
                Column::float("r", Role::Other, &r),
            ];
            Table::new(path, columns)?.write_file(path)?;
            return Ok(());
        }
        write_atomically(path, |w| {
            let io = |e: csv::Error| std::io::Error::other(e.to_string());
            let mut c = csv::Writer::from_writer(w);
            c.write_record(["row", "link", "c", "found", "p", "r"])
                .map_err(io)?;
            for t in &report.records {
                c.write_record([
                    (t.row + 1).to_string(),
                    self.link_text(t.row),
                    t.c.to_string(),
                    u8::from(t.found).to_string(),
                    t.p.to_string(),
                    t.r.map(|x| x.to_string()).unwrap_or_default(),
                ])
                .map_err(io)?;
            }
            c.flush()
        })?;
        Ok(())
    }

    /// Writes the last-wave file with the altered sensitive values of `prot`: every field is
    /// copied as read except the sensitive one, which takes the text of the record its value
    /// came from (so the formatting is the input's). Checked against the altered values before
    /// anything is written; written whole or not at all. Returns the number of records whose
    /// sensitive field changed.
    pub fn write_altered(&self, prot: &Protected, out: &Path) -> Result<usize, PanelError> {
        let w = self.last();
        let src = &w.path;
        let sensitive = &self.panel.spec().sensitive;
        let io_err = |source| intruder_data::DataError::Io {
            path: src.clone(),
            source,
        };
        let bytes = std::fs::read(src).map_err(io_err)?;
        let err = |message: String| PanelError::Column {
            file: src.display().to_string(),
            column: sensitive.clone(),
            message,
        };
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Err(err(
                "the file is gzip-compressed; the altered last wave is copied field by field \
                 from it, so it must be uncompressed (gunzip it first)"
                    .into(),
            ));
        }
        let d = w.delimiter;
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(d)
            .has_headers(false)
            .from_reader(&bytes[..]);
        let mut records = Vec::new();
        for r in rdr.byte_records() {
            records.push(r.map_err(|e| err(format!("cannot read the file back: {e}")))?);
        }
        let Some((header, rows)) = records.split_first() else {
            return Err(err("the file is empty".into()));
        };
        let name_of = |f: &[u8], j: usize| {
            let f = if j == 0 {
                f.strip_prefix(b"\xef\xbb\xbf").unwrap_or(f)
            } else {
                f
            };
            String::from_utf8_lossy(f).trim().to_string()
        };
        let col = header
            .iter()
            .enumerate()
            .position(|(j, f)| name_of(f, j) == *sensitive)
            .ok_or_else(|| err("no such column in the file's header".into()))?;
        if rows.len() != prot.y.len() {
            return Err(err(format!(
                "{} data rows read back, {} expected (blank lines?)",
                rows.len(),
                prot.y.len()
            )));
        }
        let orig: Vec<&[u8]> = rows.iter().map(|r| r.get(col).unwrap_or(b"")).collect();
        let mut text = orig.clone();
        for &(s, p) in &prot.swaps {
            text[s] = orig[p];
            text[p] = orig[s];
        }
        for &(s, from) in &prot.draws {
            text[s] = orig[from];
        }
        let mut changed = 0;
        for (i, t) in text.iter().enumerate() {
            let v = std::str::from_utf8(t)
                .ok()
                .and_then(|s| s.trim().parse::<f64>().ok());
            let same = match v {
                Some(v) => v == prot.y[i],
                None => prot.y[i].is_nan(),
            };
            if !same {
                return Err(PanelError::Model(format!(
                    "internal error: row {} of {} would read back as '{}' but the altered value is {}",
                    i + 1,
                    out.display(),
                    String::from_utf8_lossy(t),
                    prot.y[i]
                )));
            }
            changed += usize::from(*t != orig[i]);
        }
        write_atomically(out, |f| {
            let io = |e: csv::Error| std::io::Error::other(e.to_string());
            let mut c = csv::WriterBuilder::new().delimiter(d).from_writer(f);
            c.write_byte_record(header).map_err(io)?;
            let mut rec = csv::ByteRecord::new();
            for (r, t) in rows.iter().zip(&text) {
                rec.clear();
                for (j, field) in r.iter().enumerate() {
                    rec.push_field(if j == col { t } else { field });
                }
                c.write_byte_record(&rec).map_err(io)?;
            }
            c.flush()
        })?;
        Ok(changed)
    }

    /// The sensitive values of an altered last-wave file (from [`PanelFiles::write_altered`]
    /// or elsewhere), aligned on the last wave's rows (`NaN` when missing). The file must keep
    /// the last wave's records in order (checked through the link column when it has one). Its
    /// schema: `input.schema`, else the one beside it, else the last wave's.
    pub fn read_altered(&self, path: &Path, input: &Input) -> Result<Vec<f64>, PanelError> {
        let mut input = input.clone();
        if input.schema_for(path).is_none() {
            input.schema = self.last().schema.clone();
        }
        let data = load(path, &input)?;
        let last = self.panel.last();
        let file = path.display().to_string();
        let n = last.table.nrows();
        let in_order = "the altered file must keep the last wave's records in order";
        if data.table.nrows() != n {
            return Err(PanelError::Params(vec![format!(
                "{file}: {} records, but the last wave {} has {n}; {in_order}",
                data.table.nrows(),
                self.last().path.display()
            )]));
        }
        let link = &self.panel.spec().link;
        if let (Some(a), Some(b)) = (find_column(&data, link), find_column(last, link)) {
            for i in 0..n {
                if a.text(i) != b.text(i) {
                    return Err(PanelError::Column {
                        file,
                        column: link.clone(),
                        message: format!(
                            "row {} is '{}' but '{}' in {}; {in_order}",
                            i + 1,
                            a.text(i).unwrap_or_default(),
                            b.text(i).unwrap_or_default(),
                            self.last().path.display()
                        ),
                    });
                }
            }
        }
        let name = &self.panel.spec().sensitive;
        let Some(c) = find_column(&data, name) else {
            return Err(PanelError::Column {
                file,
                column: name.clone(),
                message: "no such column (the sensitive variable)".into(),
            });
        };
        let mut y = Vec::with_capacity(n);
        for i in 0..n {
            if c.is_missing(i) {
                y.push(f64::NAN);
                continue;
            }
            match c.as_f64(i) {
                Some(v) => y.push(v),
                None => {
                    return Err(PanelError::Column {
                        file,
                        column: name.clone(),
                        message: format!(
                            "row {}: '{}' is not a number",
                            i + 1,
                            c.text(i).unwrap_or_default()
                        ),
                    });
                }
            }
        }
        Ok(y)
    }
}

/// Writes `value` as pretty JSON (with a final newline), whole or not at all.
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<(), PanelError> {
    write_atomically(path, |w| {
        serde_json::to_writer_pretty(&mut *w, value).map_err(std::io::Error::other)?;
        std::io::Write::write_all(w, b"\n")
    })?;
    Ok(())
}
