//! All-or-nothing output: every file is written to a temporary name in the target directory
//! and renamed into place only when the whole generator has succeeded.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::SynthError;
use crate::schema::Schema;

/// A set of output files that appear together or not at all.
#[derive(Debug)]
pub struct OutputSet {
    dir: PathBuf,
    pending: Vec<(PathBuf, PathBuf)>,
    committed: bool,
}

impl OutputSet {
    /// Prepare to write into `dir` (created if needed).
    pub fn new(dir: &Path) -> Result<Self, SynthError> {
        fs::create_dir_all(dir).map_err(|e| SynthError::io(dir, e))?;
        Ok(OutputSet {
            dir: dir.to_path_buf(),
            pending: Vec::new(),
            committed: false,
        })
    }

    /// A temporary path in the target directory that becomes `dir/name` on
    /// [`OutputSet::commit`].
    fn pending(&mut self, name: &str) -> PathBuf {
        let final_path = self.dir.join(name);
        let tmp = self.dir.join(format!(".{name}.tmp-{}", std::process::id()));
        self.pending.push((tmp.clone(), final_path));
        tmp
    }

    /// Open a CSV file (a temporary file that becomes `dir/name` on [`OutputSet::commit`]).
    pub fn create(&mut self, name: &str) -> Result<CsvSink, SynthError> {
        let tmp = self.pending(name);
        let file = File::create(&tmp).map_err(|e| SynthError::io(&tmp, e))?;
        Ok(CsvSink {
            out: csv::WriterBuilder::new()
                .buffer_capacity(1 << 20)
                .from_writer(file),
            path: tmp,
            num: Vec::with_capacity(32),
            error: None,
        })
    }

    /// Write a whole small text file (e.g. a schema).
    pub fn write_text(&mut self, name: &str, text: &str) -> Result<(), SynthError> {
        let tmp = self.pending(name);
        let mut file = File::create(&tmp).map_err(|e| SynthError::io(&tmp, e))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| SynthError::io(&tmp, e))
    }

    /// Write `schema` as `name` with the standard header comment.
    pub fn write_schema(
        &mut self,
        name: &str,
        schema: &Schema,
        generator: &str,
        seed: u64,
        params: &str,
    ) -> Result<(), SynthError> {
        let text = schema.to_toml(
            &format!(
                "{generator} (seed {seed}, data version {})",
                crate::DATA_VERSION
            ),
            params,
        );
        self.write_text(name, &text)
    }

    /// Rename every temporary file into place; returns the final paths.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, SynthError> {
        let mut done = Vec::new();
        for (tmp, fin) in &self.pending {
            fs::rename(tmp, fin).map_err(|e| SynthError::io(fin, e))?;
            done.push(fin.clone());
        }
        self.committed = true;
        Ok(done)
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        if !self.committed {
            for (tmp, _) in &self.pending {
                let _ = fs::remove_file(tmp);
            }
        }
    }
}

/// A CSV writer (the `csv` crate, RFC 4180: fields quoted only when they hold `,`, `"` or a
/// line break; `\n` line ends) for one temporary file. Fields are appended to the current
/// record and [`CsvSink::end`] terminates it; a write error is kept and reported by the next
/// [`CsvSink::end`] or [`CsvSink::finish`].
#[derive(Debug)]
pub struct CsvSink {
    out: csv::Writer<File>,
    path: PathBuf,
    /// Scratch space for formatting numbers.
    num: Vec<u8>,
    error: Option<csv::Error>,
}

impl CsvSink {
    fn field(&mut self, v: &[u8]) -> &mut Self {
        if self.error.is_none()
            && let Err(e) = self.out.write_field(v)
        {
            self.error = Some(e);
        }
        self
    }

    fn fail(&mut self) -> Result<(), SynthError> {
        match self.error.take() {
            Some(e) => Err(SynthError::io(&self.path, e.into())),
            None => Ok(()),
        }
    }

    /// Append a text field.
    pub fn str(&mut self, v: &str) -> &mut Self {
        self.field(v.as_bytes())
    }

    /// Append a field given as bytes.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.field(v)
    }

    /// Append an unsigned integer.
    pub fn int(&mut self, v: u64) -> &mut Self {
        self.num.clear();
        let _ = write!(self.num, "{v}");
        let num = std::mem::take(&mut self.num);
        self.field(&num);
        self.num = num;
        self
    }

    /// Append a real number with `decimals` digits after the point.
    pub fn float(&mut self, v: f64, decimals: usize) -> &mut Self {
        self.num.clear();
        let _ = write!(self.num, "{v:.decimals$}");
        let num = std::mem::take(&mut self.num);
        self.field(&num);
        self.num = num;
        self
    }

    /// Append an optional value: `None` is an empty (missing) field.
    pub fn opt_int(&mut self, v: Option<u64>) -> &mut Self {
        match v {
            Some(v) => self.int(v),
            None => self.str(""),
        }
    }

    /// Append an optional text value: `None` is an empty (missing) field.
    pub fn opt_str(&mut self, v: Option<&str>) -> &mut Self {
        self.str(v.unwrap_or(""))
    }

    /// Write a header line.
    pub fn header(&mut self, names: &[&str]) -> Result<(), SynthError> {
        for n in names {
            self.str(n);
        }
        self.end()
    }

    /// Terminate the current record.
    pub fn end(&mut self) -> Result<(), SynthError> {
        self.fail()?;
        self.out
            .write_record(None::<&[u8]>)
            .map_err(|e| SynthError::io(&self.path, e.into()))
    }

    /// Flush and close the file.
    pub fn finish(mut self) -> Result<(), SynthError> {
        self.fail()?;
        self.out
            .flush()
            .map_err(|e| SynthError::io(&self.path, e))?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| SynthError::io(&self.path, e.into_error()))?;
        file.sync_all().map_err(|e| SynthError::io(&self.path, e))
    }
}
