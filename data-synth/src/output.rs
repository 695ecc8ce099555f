//! All-or-nothing output: every file is written to a temporary name in the target directory
//! and renamed into place only when the whole generator has succeeded.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
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

    /// Open a temporary file that becomes `dir/name` on [`OutputSet::commit`].
    pub fn create(&mut self, name: &str) -> Result<CsvSink, SynthError> {
        let final_path = self.dir.join(name);
        let tmp = self.dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let file = File::create(&tmp).map_err(|e| SynthError::io(&tmp, e))?;
        self.pending.push((tmp.clone(), final_path));
        Ok(CsvSink {
            out: BufWriter::with_capacity(1 << 20, file),
            path: tmp,
            line: Vec::with_capacity(256),
            first: true,
        })
    }

    /// Write a whole small text file (e.g. a schema).
    pub fn write_text(&mut self, name: &str, text: &str) -> Result<(), SynthError> {
        let mut sink = self.create(name)?;
        sink.raw(text.as_bytes())?;
        sink.finish()
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
        let text = schema.to_toml(&format!("{generator} (seed {seed})"), params);
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

/// A buffered CSV writer for one temporary file. Fields are appended to the current line
/// and [`CsvSink::end`] terminates it; text fields are quoted only when needed.
#[derive(Debug)]
pub struct CsvSink {
    out: BufWriter<File>,
    path: PathBuf,
    line: Vec<u8>,
    first: bool,
}

impl CsvSink {
    fn sep(&mut self) {
        if !self.first {
            self.line.push(b',');
        }
        self.first = false;
    }

    /// Append a text field (quoted if it contains `,`, `"` or a line break).
    pub fn str(&mut self, v: &str) -> &mut Self {
        self.sep();
        if v.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
            self.line.push(b'"');
            for b in v.bytes() {
                if b == b'"' {
                    self.line.push(b'"');
                }
                self.line.push(b);
            }
            self.line.push(b'"');
        } else {
            self.line.extend_from_slice(v.as_bytes());
        }
        self
    }

    /// Append pre-escaped bytes as a field.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.sep();
        self.line.extend_from_slice(v);
        self
    }

    /// Append an unsigned integer.
    pub fn int(&mut self, v: u64) -> &mut Self {
        self.sep();
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        let mut x = v;
        loop {
            i -= 1;
            buf[i] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        self.line.extend_from_slice(&buf[i..]);
        self
    }

    /// Append a real number with `decimals` digits after the point.
    pub fn float(&mut self, v: f64, decimals: usize) -> &mut Self {
        self.sep();
        use std::io::Write as _;
        let _ = write!(self.line, "{v:.decimals$}");
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

    /// Terminate the current line and hand it to the buffer.
    pub fn end(&mut self) -> Result<(), SynthError> {
        self.line.push(b'\n');
        let r = self.out.write_all(&self.line);
        self.line.clear();
        self.first = true;
        r.map_err(|e| SynthError::io(&self.path, e))
    }

    /// Write raw bytes (no field handling).
    pub fn raw(&mut self, b: &[u8]) -> Result<(), SynthError> {
        self.out
            .write_all(b)
            .map_err(|e| SynthError::io(&self.path, e))
    }

    /// Flush and close the file.
    pub fn finish(mut self) -> Result<(), SynthError> {
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
