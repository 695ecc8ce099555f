//! Fast CSV output: cells formatted straight into byte buffers (integers by `itoa`, floats by
//! `ryu` rendered the way Rust's `{}` renders them), rows formatted in parallel blocks and
//! written in order, the file written whole or not at all.
//!
//! The text is byte-identical to what the `csv` crate writes (`,` delimiter, `\n` terminator,
//! a field quoted when it holds `,`, `"`, `\r` or `\n`, quotes doubled, a record of one empty
//! field written `""`) with cells rendered as [`Column::text`] renders them, or as
//! `x.to_string()` renders numbers.
//!
//! A result table with one column per measure is written with [`write_csv`]:
//!
//! ```
//! use intruder_table::write::{Cells, FloatStyle, write_csv};
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("per_record.csv");
//! let row: Vec<i64> = vec![1, 2, 3];
//! let fk: Vec<Option<i64>> = vec![Some(2), None, Some(1)];
//! let risk = vec![0.5, f64::NAN, 1.0];
//! let note = vec!["a,b".to_string(), String::new(), "c".into()];
//! write_csv(
//!     &path,
//!     &["row", "f_k", "risk", "note"],
//!     &[
//!         Cells::Int(&row),
//!         Cells::OptInt(&fk),
//!         Cells::Float(&risk, FloatStyle::Display),
//!         Cells::Text(&note),
//!     ],
//! )
//! .unwrap();
//! let text = std::fs::read_to_string(&path).unwrap();
//! assert_eq!(text, "row,f_k,risk,note\n1,2,0.5,\"a,b\"\n2,,NaN,\n3,1,1,c\n");
//! ```

use std::io::Write;
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use crate::column::{Column, ColumnData};
use crate::error::DataError;

/// How a float cell is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatStyle {
    /// As `format!("{x}")` / `x.to_string()`: shortest text that reads back to the same value,
    /// no exponent, no trailing `.0` (`NaN`, `inf`, `-0` as Rust writes them).
    Display,
    /// As [`crate::format_float`], the data files' rendering: like `Display` except that zero
    /// is always `0`.
    Data,
}

/// Appends the unquoted text of row `i` to the buffer.
pub type CellFn<'a> = Box<dyn Fn(usize, &mut Vec<u8>) + Sync + 'a>;

/// One output column: values for every row.
pub enum Cells<'a> {
    /// Integers.
    Int(&'a [i64]),
    /// Optional integers (`None` is an empty field).
    OptInt(&'a [Option<i64>]),
    /// Unsigned integers (counts, row numbers).
    UInt(&'a [u64]),
    /// Floats.
    Float(&'a [f64], FloatStyle),
    /// Optional floats (`None` is an empty field).
    OptFloat(&'a [Option<f64>], FloatStyle),
    /// Text (quoted when needed).
    Text(&'a [String]),
    /// Optional text (`None` is an empty field).
    OptText(&'a [Option<String>]),
    /// A data column, rendered as [`Column::text`] renders it (missing is an empty field).
    Column(&'a Column),
    /// Anything else: the closure appends the unquoted text of row `i` to the buffer; the
    /// writer quotes it when needed.
    Custom(CellFn<'a>),
}

impl Cells<'_> {
    /// Number of rows, when the cells know it (`Custom` does not).
    pub fn len(&self) -> Option<usize> {
        Some(match self {
            Cells::Int(v) => v.len(),
            Cells::OptInt(v) => v.len(),
            Cells::UInt(v) => v.len(),
            Cells::Float(v, _) => v.len(),
            Cells::OptFloat(v, _) => v.len(),
            Cells::Text(v) => v.len(),
            Cells::OptText(v) => v.len(),
            Cells::Column(c) => c.len(),
            Cells::Custom(_) => return None,
        })
    }

    /// Whether the cells are known to hold no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }
}

/// Appends `field` to `out`, quoted as the `csv` crate quotes (`,` `"` `\r` `\n` force quotes;
/// quotes are doubled).
#[inline]
pub fn push_field(out: &mut Vec<u8>, field: &[u8]) {
    if field
        .iter()
        .any(|&b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        out.push(b'"');
        for &b in field {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(field);
    }
}

/// Appends an integer.
#[inline]
pub fn push_i64(out: &mut Vec<u8>, x: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes());
}

/// Appends a float in `style`.
#[inline]
pub fn push_f64(out: &mut Vec<u8>, x: f64, style: FloatStyle) {
    if style == FloatStyle::Data && x == 0.0 {
        out.push(b'0');
        return;
    }
    if !x.is_finite() {
        out.extend_from_slice(if x.is_nan() {
            b"NaN"
        } else if x > 0.0 {
            b"inf"
        } else {
            b"-inf"
        });
        return;
    }
    if x == x.trunc() && x.abs() < 1e15 {
        if x == 0.0 && x.is_sign_negative() {
            out.extend_from_slice(b"-0");
        } else {
            push_i64(out, x as i64);
        }
        return;
    }
    let mut buf = ryu::Buffer::new();
    if !plain_decimal(out, buf.format_finite(x).as_bytes()) {
        // 16 or 17 significant digits: more than one shortest rendering may read back to `x`,
        // and ryu and Rust's formatter can pick different ones; use Rust's.
        write!(out, "{x}").expect("writing to a Vec cannot fail");
    }
}

/// Renders ryu's shortest digits (`-1.2345e-7`, `1e16`, `12.5`) without an exponent and without
/// a trailing `.0`, as Rust's `{}` does, when they are at most 15 significant digits (then the
/// shortest rendering that reads back is unique: two 15-digit decimals are further apart than
/// the doubles that round to one value). Returns false, writing nothing, otherwise.
fn plain_decimal(out: &mut Vec<u8>, s: &[u8]) -> bool {
    let (neg, s) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    let (mantissa, exp) = match s.iter().position(|&b| b == b'e') {
        Some(e) => (
            &s[..e],
            std::str::from_utf8(&s[e + 1..])
                .ok()
                .and_then(|t| t.parse::<i32>().ok())
                .unwrap_or(0),
        ),
        None => (s, 0),
    };
    // Digits without the point; `point` = digits before the decimal point.
    let mut digits: Vec<u8> = Vec::with_capacity(24);
    let mut point = None;
    for &b in mantissa {
        if b == b'.' {
            point = Some(digits.len());
        } else {
            digits.push(b);
        }
    }
    let mut point = point.unwrap_or(digits.len()) as i32 + exp;
    // Strip leading zeros (0.00123 → 123 with the point moved) and trailing zeros.
    let lead = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..lead);
    point -= lead as i32;
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.len() > 15 {
        return false;
    }
    if neg {
        out.push(b'-');
    }
    if digits.is_empty() {
        out.push(b'0');
        return true;
    }
    let n = digits.len() as i32;
    if point <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-point) as usize));
        out.extend_from_slice(&digits);
    } else if point >= n {
        out.extend_from_slice(&digits);
        out.extend(std::iter::repeat_n(b'0', (point - n) as usize));
    } else {
        out.extend_from_slice(&digits[..point as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[point as usize..]);
    }
    true
}

/// Per-column state prepared once: level labels already quoted.
enum Prepared<'a> {
    Cells(&'a Cells<'a>),
    Levels(&'a Column, Vec<Vec<u8>>),
}

fn prepare<'a>(columns: &'a [Cells<'a>]) -> Vec<Prepared<'a>> {
    columns
        .iter()
        .map(|c| match c {
            Cells::Column(col) => match col.data() {
                ColumnData::Categorical { levels, .. } => Prepared::Levels(
                    col,
                    levels
                        .iter()
                        .map(|l| {
                            let mut v = Vec::new();
                            push_field(&mut v, l.as_bytes());
                            v
                        })
                        .collect(),
                ),
                _ => Prepared::Cells(c),
            },
            _ => Prepared::Cells(c),
        })
        .collect()
}

#[inline]
fn push_cell(out: &mut Vec<u8>, col: &Prepared<'_>, i: usize, scratch: &mut Vec<u8>) {
    match col {
        Prepared::Levels(c, quoted) => {
            if !c.is_missing(i)
                && let ColumnData::Categorical { codes, .. } = c.data()
            {
                out.extend_from_slice(&quoted[codes[i] as usize]);
            }
        }
        Prepared::Cells(cells) => match cells {
            Cells::Int(v) => push_i64(out, v[i]),
            Cells::OptInt(v) => {
                if let Some(x) = v[i] {
                    push_i64(out, x)
                }
            }
            Cells::UInt(v) => out.extend_from_slice(itoa::Buffer::new().format(v[i]).as_bytes()),
            Cells::Float(v, style) => push_f64(out, v[i], *style),
            Cells::OptFloat(v, style) => {
                if let Some(x) = v[i] {
                    push_f64(out, x, *style)
                }
            }
            Cells::Text(v) => push_field(out, v[i].as_bytes()),
            Cells::OptText(v) => {
                if let Some(s) = &v[i] {
                    push_field(out, s.as_bytes())
                }
            }
            Cells::Column(c) => {
                if c.is_missing(i) {
                    return;
                }
                match c.data() {
                    ColumnData::Integer(v) => push_i64(out, v[i]),
                    ColumnData::Float(v) => push_f64(out, v[i], FloatStyle::Data),
                    ColumnData::String(v) => push_field(out, v[i].as_bytes()),
                    ColumnData::Categorical { codes, levels } => {
                        push_field(out, levels[codes[i] as usize].as_bytes())
                    }
                    ColumnData::Set { levels, .. } => {
                        scratch.clear();
                        for (k, &c) in c.set_items(i).iter().enumerate() {
                            if k > 0 {
                                scratch.push(b'|');
                            }
                            scratch.extend_from_slice(levels[c as usize].as_bytes());
                        }
                        push_field(out, scratch);
                    }
                }
            }
            Cells::Custom(f) => {
                scratch.clear();
                f(i, scratch);
                push_field(out, scratch);
            }
        },
    }
}

fn format_prepared(columns: &[Prepared<'_>], rows: Range<usize>, out: &mut Vec<u8>) {
    let mut scratch = Vec::new();
    for i in rows {
        let start = out.len();
        for (j, c) in columns.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            push_cell(out, c, i, &mut scratch);
        }
        if out.len() == start {
            // A record of one empty field.
            out.extend_from_slice(b"\"\"");
        }
        out.push(b'\n');
    }
}

/// Appends rows `rows` of `columns` as CSV records to `out`.
pub fn format_rows(columns: &[Cells<'_>], rows: Range<usize>, out: &mut Vec<u8>) {
    format_prepared(&prepare(columns), rows, out);
}

/// Appends the header record.
pub fn format_header(header: &[&str], out: &mut Vec<u8>) {
    let start = out.len();
    for (j, h) in header.iter().enumerate() {
        if j > 0 {
            out.push(b',');
        }
        push_field(out, h.as_bytes());
    }
    if out.len() == start {
        out.extend_from_slice(b"\"\"");
    }
    out.push(b'\n');
}

/// Rows per parallel block.
const BLOCK: usize = 1 << 15;

/// Writes the header (when given) and `nrows` rows of `columns` to `w`: blocks of rows are
/// formatted in parallel and written in row order, a bounded number of blocks at a time.
pub fn write_rows<W: Write>(
    w: &mut W,
    header: Option<&[&str]>,
    columns: &[Cells<'_>],
    nrows: usize,
) -> std::io::Result<()> {
    if let Some(h) = header {
        let mut out = Vec::new();
        format_header(h, &mut out);
        w.write_all(&out)?;
    }
    let prepared = prepare(columns);
    let window = BLOCK * 4 * rayon::current_num_threads().max(1);
    let mut at = 0;
    while at < nrows {
        let end = (at + window).min(nrows);
        let blocks: Vec<Vec<u8>> = (at..end)
            .step_by(BLOCK)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|a| {
                let mut out = Vec::with_capacity(BLOCK * 8 * prepared.len().max(1));
                format_prepared(&prepared, a..(a + BLOCK).min(end), &mut out);
                out
            })
            .collect();
        for b in &blocks {
            w.write_all(b)?;
        }
        at = end;
    }
    Ok(())
}

/// Writes a CSV file of `columns` under `header`, whole or not at all (a temporary file beside
/// `path`, then renamed). Every column must have the same number of rows (`Custom` columns take
/// the others' count; with only `Custom` columns, use [`write_rows`]).
pub fn write_csv(path: &Path, header: &[&str], columns: &[Cells<'_>]) -> Result<(), DataError> {
    let lens: Vec<usize> = columns.iter().filter_map(Cells::len).collect();
    let nrows = lens.first().copied().unwrap_or(0);
    if header.len() != columns.len() || lens.iter().any(|&n| n != nrows) {
        return Err(DataError::Invalid(format!(
            "{}: {} header names for {} columns of {:?} rows",
            path.display(),
            header.len(),
            columns.len(),
            lens
        )));
    }
    write_atomically(path, |w| write_rows(w, Some(header), columns, nrows))
}

/// Writes data columns as CSV (header of their names, text as [`Column::text`]).
pub fn write_columns(path: &Path, columns: &[&Column], nrows: usize) -> Result<(), DataError> {
    let names: Vec<&str> = columns.iter().map(|c| c.name()).collect();
    let cells: Vec<Cells<'_>> = columns.iter().map(|c| Cells::Column(c)).collect();
    write_atomically(path, |w| write_rows(w, Some(&names), &cells, nrows))
}

/// Runs `write` into a temporary file beside `path` and renames it into place, so that `path`
/// is written whole or not at all.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), DataError> {
    let io = |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    remove_stale_temporaries(dir, &name);
    let result = (|| {
        let file = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::new(file);
        write(&mut w)?;
        w.flush()?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Removes the temporary files an interrupted write to `dir/name` left behind
/// (`.NAME.PID.tmp`), except those of a process still running (on systems with `/proc`), so
/// that a killed run does not leave its partial output for ever. Errors are ignored: the
/// write itself reports any problem with the directory.
fn remove_stale_temporaries(dir: &Path, name: &str) {
    let prefix = format!(".{name}.");
    let own = std::process::id();
    let proc_fs = Path::new("/proc/self").exists();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(file) = file.to_str() else { continue };
        let Some(pid) = file
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let running = pid == own || (proc_fs && Path::new("/proc").join(pid.to_string()).exists());
        if !running && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn display(x: f64) -> Vec<u8> {
        let mut v = Vec::new();
        push_f64(&mut v, x, FloatStyle::Display);
        v
    }

    #[test]
    fn stale_temporaries_of_the_target_are_removed_on_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        // A process id that cannot be running (above the kernel's pid_max limit of 2^22).
        let stale = dir.path().join(".out.csv.999999999.tmp");
        let other = dir.path().join(".other.csv.999999999.tmp");
        let live = dir
            .path()
            .join(format!(".out.csv.{}.tmp.keep", std::process::id()));
        for p in [&stale, &other, &live] {
            std::fs::write(p, "partial").unwrap();
        }
        write_atomically(&target, |w| w.write_all(b"x\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "x\n");
        assert!(!stale.exists());
        assert!(other.exists() && live.exists());
    }

    #[test]
    fn floats_render_as_rust_displays_them() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            1e-7,
            1.2345e-300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            1e15,
            1e16,
            123456789012345.6,
            999999999999999.9,
            1e21,
            1e22,
            0.3,
            2.0f64.powi(60),
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(
                String::from_utf8(display(x)).unwrap(),
                format!("{x}"),
                "{x:e}"
            );
            let mut v = Vec::new();
            push_f64(&mut v, x, FloatStyle::Data);
            assert_eq!(String::from_utf8(v).unwrap(), crate::format_float(x));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn any_float_renders_as_display(bits in any::<u64>(), small in -1e6f64..1e6) {
            for x in [f64::from_bits(bits), small, small / 1024.0, (small * 1000.0).round() / 1000.0] {
                prop_assert_eq!(String::from_utf8(display(x)).unwrap(), format!("{}", x));
                let mut v = Vec::new();
                push_f64(&mut v, x, FloatStyle::Data);
                prop_assert_eq!(String::from_utf8(v).unwrap(), crate::format_float(x));
            }
        }

        #[test]
        fn integers_render_as_display(x in any::<i64>()) {
            let mut v = Vec::new();
            push_i64(&mut v, x);
            prop_assert_eq!(String::from_utf8(v).unwrap(), x.to_string());
        }
    }
}
