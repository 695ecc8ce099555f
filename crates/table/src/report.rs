//! Results as data: named figures with their unit and meaning, and tables, rendered the same way
//! by every command (`--format table|json|csv|markdown`), the runner and the Python package.
//!
//! ```
//! use intruder_table::report::{Figure, Format, Report, Unit};
//! let mut r = Report::new("intruder risk — survey.csv");
//! r.push(Figure::new("sample_uniques", 3, Unit::Count, "records alone in their class"));
//! r.push(Figure::new("pr_su", 0.2, Unit::Proportion, "share of records that are unique"));
//! assert_eq!(r.render(Format::Csv), "sample_uniques,pr_su\n3,0.2\n");
//! assert!(r.render(Format::Json).contains("\"pr_su\": 0.2"));
//! ```

use std::fmt::Write as _;

use serde_json::{Map, Value};

pub use crate::unit::Unit;

/// One named figure with its unit and one-line meaning.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Figure {
    /// The name (the JSON field, the metric suffix).
    pub name: String,
    /// The value (`null` when undefined).
    pub value: Value,
    /// Its unit.
    pub unit: Unit,
    /// What it means, for people.
    pub meaning: String,
}

impl Figure {
    /// A figure.
    pub fn new(
        name: impl Into<String>,
        value: impl Into<Value>,
        unit: Unit,
        meaning: impl Into<String>,
    ) -> Figure {
        Figure {
            name: name.into(),
            value: value.into(),
            unit,
            meaning: meaning.into(),
        }
    }

    /// The value as a number, when it is one (a bool counts as 0/1).
    pub fn as_f64(&self) -> Option<f64> {
        match &self.value {
            Value::Number(n) => n.as_f64(),
            Value::Bool(b) => Some(f64::from(*b)),
            _ => None,
        }
    }
}

/// A table of a report (e.g. moments per variable, one row per record kind).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReportTable {
    /// Its name (the JSON field).
    pub name: String,
    /// A title for people.
    pub title: String,
    /// Column names.
    pub header: Vec<String>,
    /// Rows of values.
    pub rows: Vec<Vec<Value>>,
}

/// A report: a title, figures, tables, and details shown in JSON only.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Report {
    /// What it reports on.
    pub title: String,
    /// Figures in report order.
    pub figures: Vec<Figure>,
    /// Tables in report order.
    pub tables: Vec<ReportTable>,
    /// Structured details (a fitted model, a waterfall): JSON fields after the figures.
    pub details: Map<String, Value>,
    /// Extra text blocks shown in the table and markdown formats (a model summary).
    pub notes: Vec<String>,
}

/// Output format of every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Aligned text for people: each figure with its meaning (the default).
    #[default]
    Table,
    /// One JSON object.
    Json,
    /// A header row of figure names and one row of values (tables flattened into figures).
    Csv,
    /// Markdown tables, to paste into a paper.
    Markdown,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 4] = [Format::Table, Format::Json, Format::Csv, Format::Markdown];

    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| format!("unknown format '{s}'; expected table, json, csv or markdown"))
    }
}

/// A value as plain text (CSV): numbers as JSON writes them, lists joined by `+`, null empty.
pub fn plain(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(plain).collect::<Vec<_>>().join("+"),
        other => other.to_string(),
    }
}

/// A value for people: at most six decimals, trailing zeros trimmed, tiny numbers in
/// scientific notation, null as `–`.
pub fn human(v: &Value) -> String {
    match v {
        Value::Null => "–".into(),
        Value::Number(n) if n.is_f64() => human_f64(n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(a) => a.iter().map(plain).collect::<Vec<_>>().join(", "),
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| format!("{k}: {}", human(v)))
            .collect::<Vec<_>>()
            .join(", "),
        other => plain(other),
    }
}

/// A share as a percentage people can read: one decimal from 1% up (`30.0%`, `2.1%`), two
/// significant digits below (`0.33%`, `0.033%`: a global risk of 0.000333 is not "0.0%"),
/// scientific below 0.0001% (`1.5e-7%`), `0.0%` for zero and `–` for NaN or an infinity.
pub fn percent(x: f64) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    let p = x * 100.0;
    if p == 0.0 {
        return "0.0%".into();
    }
    if p.abs() < 1e-4 {
        return format!("{p:.1e}%");
    }
    // two significant digits first: rounding can carry into the next decade (0.0999 → 0.10)
    let mag = p.abs().log10().floor() as i32;
    let scale = 10f64.powi(1 - mag);
    let r = (p * scale).round() / scale;
    if r.abs() >= 1.0 {
        return format!("{p:.1}%");
    }
    let decimals = (1 - r.abs().log10().floor() as i32).max(1) as usize;
    format!("{r:.decimals$}%")
}

/// A number for people (see [`human`]).
pub fn human_f64(x: f64) -> String {
    if x.is_nan() {
        return "NA".into();
    }
    if x != 0.0 && x.abs() < 1e-4 {
        format!("{x:.3e}")
    } else {
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" { "0".into() } else { s.into() }
    }
}

impl Report {
    /// An empty report.
    pub fn new(title: impl Into<String>) -> Report {
        Report {
            title: title.into(),
            ..Report::default()
        }
    }

    /// Adds a figure.
    pub fn push(&mut self, f: Figure) {
        self.figures.push(f);
    }

    /// The figure called `name`.
    pub fn figure(&self, name: &str) -> Option<&Figure> {
        self.figures.iter().find(|f| f.name == name)
    }

    /// The report as one JSON object: figures by name, then tables (as lists of objects), then
    /// details.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        for f in &self.figures {
            o.insert(f.name.clone(), f.value.clone());
        }
        for t in &self.tables {
            let rows: Vec<Value> = t
                .rows
                .iter()
                .map(|r| {
                    Value::Object(
                        t.header
                            .iter()
                            .cloned()
                            .zip(r.iter().cloned())
                            .collect::<Map<_, _>>(),
                    )
                })
                .collect();
            o.insert(t.name.clone(), Value::Array(rows));
        }
        for (k, v) in &self.details {
            o.insert(k.clone(), v.clone());
        }
        Value::Object(o)
    }

    /// Figures plus the cells of every table as `table.row.column`, for one-row CSV. The first
    /// column names the row; when its values repeat (a key and its levels), as many leading
    /// columns as make the names unique do (`table.age.20s.percent`), else the 1-based row number.
    pub fn flat_figures(&self) -> Vec<(String, Value)> {
        let mut out: Vec<(String, Value)> = self
            .figures
            .iter()
            .map(|f| (f.name.clone(), f.value.clone()))
            .collect();
        for t in &self.tables {
            let label =
                |r: &[Value], m: usize| r.iter().take(m).map(plain).collect::<Vec<_>>().join(".");
            let unique = |m: usize| {
                let mut seen = std::collections::HashSet::new();
                t.rows.iter().all(|r| seen.insert(label(r, m)))
            };
            let lead = (1..t.header.len()).find(|&m| unique(m));
            for (i, r) in t.rows.iter().enumerate() {
                let (row, skip) = match lead {
                    Some(m) => (label(r, m), m),
                    None => ((i + 1).to_string(), 0),
                };
                for (h, v) in t.header.iter().zip(r).skip(skip) {
                    out.push((format!("{}.{row}.{h}", t.name), v.clone()));
                }
            }
        }
        out
    }

    /// Renders the report.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Json => {
                serde_json::to_string_pretty(&self.to_json()).unwrap_or_default() + "\n"
            }
            Format::Csv => {
                let flat = self.flat_figures();
                let mut w = csv::Writer::from_writer(Vec::new());
                let _ = w.write_record(flat.iter().map(|(n, _)| n.as_str()));
                let _ = w.write_record(flat.iter().map(|(_, v)| plain(v)));
                String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
            }
            Format::Table => self.text(),
            Format::Markdown => self.markdown(),
        }
    }

    fn text(&self) -> String {
        let mut out = String::new();
        if !self.title.is_empty() {
            let _ = writeln!(out, "{}", self.title);
        }
        let values: Vec<String> = self.figures.iter().map(|f| human(&f.value)).collect();
        let nw = self.figures.iter().map(|f| f.name.len()).max().unwrap_or(0);
        let vw = values
            .iter()
            .map(|v| v.chars().count())
            .max()
            .unwrap_or(0)
            .min(40);
        for (f, v) in self.figures.iter().zip(&values) {
            let _ = writeln!(out, "  {:<nw$}  {:>vw$}  {}", f.name, v, f.meaning);
        }
        for t in &self.tables {
            let _ = writeln!(out, "\n{}", t.title);
            out.push_str(&grid(t));
        }
        for n in &self.notes {
            out.push('\n');
            out.push_str(n);
            if !n.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }

    fn markdown(&self) -> String {
        let mut out = String::new();
        let esc = |s: &str| s.replace('|', "\\|");
        if !self.title.is_empty() {
            let _ = writeln!(out, "### {}\n", esc(&self.title));
        }
        if !self.figures.is_empty() {
            out.push_str("| figure | value | meaning |\n|---|---:|---|\n");
            for f in &self.figures {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} |",
                    f.name,
                    esc(&human(&f.value)),
                    esc(&f.meaning)
                );
            }
        }
        for t in &self.tables {
            let _ = writeln!(out, "\n**{}**\n", esc(&t.title));
            let _ = writeln!(
                out,
                "| {} |",
                t.header
                    .iter()
                    .map(|h| esc(h))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
            let _ = writeln!(
                out,
                "|{}",
                t.header.iter().map(|_| "---|").collect::<String>()
            );
            for r in &t.rows {
                let _ = writeln!(
                    out,
                    "| {} |",
                    r.iter()
                        .map(|v| esc(&human(v)))
                        .collect::<Vec<_>>()
                        .join(" | ")
                );
            }
        }
        for n in &self.notes {
            let _ = writeln!(out, "\n```text\n{}\n```", n.trim_end());
        }
        out
    }
}

/// An aligned text grid of a table (numbers right-aligned).
fn grid(t: &ReportTable) -> String {
    let cells: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.iter().map(human).collect())
        .collect();
    let numeric: Vec<bool> = (0..t.header.len())
        .map(|j| {
            t.rows
                .iter()
                .all(|r| r.get(j).is_none_or(|v| v.is_number() || v.is_null()))
        })
        .collect();
    let width: Vec<usize> = (0..t.header.len())
        .map(|j| {
            cells
                .iter()
                .map(|r| r.get(j).map_or(0, |c| c.chars().count()))
                .chain(std::iter::once(t.header[j].chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let line = |out: &mut String, row: &[String]| {
        let mut s = String::new();
        for (j, c) in row.iter().enumerate() {
            let w = width.get(j).copied().unwrap_or(0);
            if numeric.get(j).copied().unwrap_or(false) {
                let _ = write!(s, "  {c:>w$}");
            } else {
                let _ = write!(s, "  {c:<w$}");
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(&mut out, &t.header);
    for r in &cells {
        line(&mut out, r);
    }
    out
}

/// The values of one per-record column: one cell per record, `None` for a record the figure does
/// not apply to (written as an empty field).
#[derive(Debug, Clone, PartialEq)]
pub enum RecordValues {
    /// Whole numbers (class sizes, counts).
    Count(Vec<Option<u32>>),
    /// Numbers (risks, scores, probabilities).
    Number(Vec<Option<f64>>),
    /// Text (lists of key names, labels).
    Text(Vec<Option<String>>),
}

impl RecordValues {
    /// Number of cells.
    pub fn len(&self) -> usize {
        match self {
            RecordValues::Count(v) => v.len(),
            RecordValues::Number(v) => v.len(),
            RecordValues::Text(v) => v.len(),
        }
    }

    /// Whether there are no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cell `i` as a number, when it is one.
    pub fn as_f64(&self, i: usize) -> Option<f64> {
        match self {
            RecordValues::Count(v) => v.get(i).copied().flatten().map(f64::from),
            RecordValues::Number(v) => v.get(i).copied().flatten(),
            RecordValues::Text(_) => None,
        }
    }
}

impl From<Vec<Option<u32>>> for RecordValues {
    fn from(v: Vec<Option<u32>>) -> Self {
        RecordValues::Count(v)
    }
}

impl From<Vec<u32>> for RecordValues {
    fn from(v: Vec<u32>) -> Self {
        RecordValues::Count(v.into_iter().map(Some).collect())
    }
}

impl From<Vec<Option<f64>>> for RecordValues {
    fn from(v: Vec<Option<f64>>) -> Self {
        RecordValues::Number(v)
    }
}

impl From<Vec<f64>> for RecordValues {
    fn from(v: Vec<f64>) -> Self {
        RecordValues::Number(v.into_iter().map(Some).collect())
    }
}

impl From<Vec<Option<String>>> for RecordValues {
    fn from(v: Vec<Option<String>>) -> Self {
        RecordValues::Text(v)
    }
}

/// One named per-record column.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordColumn {
    /// Its name (the CSV header).
    pub name: String,
    /// Its cells, in record order.
    pub values: RecordValues,
}

/// Per-record figures: named, typed columns of one length, in record order (append-only).
/// Columnar and typed, so ten million records cost a few vectors, not a JSON value per cell.
///
/// ```
/// use intruder_table::report::Records;
/// let mut r = Records::default();
/// r.push("k", vec![Some(1u32), None]).unwrap();
/// r.push("risk", vec![Some(1.0f64), None]).unwrap();
/// let mut out = Vec::new();
/// r.write_csv_to(&mut out).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "row,k,risk\n1,1,1\n2,,\n");
/// assert!(r.push("short", vec![Some(1u32)]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Records {
    len: usize,
    columns: Vec<RecordColumn>,
}

impl Records {
    /// Records for `len` records, without columns yet.
    pub fn new(len: usize) -> Records {
        Records {
            len,
            columns: Vec::new(),
        }
    }

    /// Number of records (the length of every column; that of the first column pushed on a
    /// [`Records::default`]).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The columns, in the order pushed.
    pub fn columns(&self) -> &[RecordColumn] {
        &self.columns
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&RecordValues> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .map(|c| &c.values)
    }

    /// Appends a column; refuses a name used already or a length other than the records'.
    pub fn push(
        &mut self,
        name: impl Into<String>,
        values: impl Into<RecordValues>,
    ) -> Result<(), String> {
        let name = name.into();
        let values = values.into();
        if name == "row" || self.columns.iter().any(|c| c.name == name) {
            return Err(format!("per-record column '{name}' is given twice"));
        }
        if self.columns.is_empty() && self.len == 0 {
            self.len = values.len();
        } else if values.len() != self.len {
            return Err(format!(
                "per-record column '{name}' has {} values for {} records",
                values.len(),
                self.len
            ));
        }
        self.columns.push(RecordColumn { name, values });
        Ok(())
    }

    /// Writes the records as CSV: a first column `row` (1-based), then every column (numbers
    /// as Rust's `{}` renders them, `None` an empty field). Blocks of rows are formatted on
    /// every thread and written in order ([`crate::write::write_rows`]); the text is the `csv`
    /// crate's.
    pub fn write_csv_to(&self, mut w: impl std::io::Write) -> std::io::Result<()> {
        use crate::write::{Cells, FloatStyle, write_rows};
        fn count(v: &[Option<u32>]) -> Cells<'_> {
            Cells::Custom(Box::new(move |i, out: &mut Vec<u8>| {
                if let Some(x) = v[i] {
                    out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes());
                }
            }))
        }
        let mut header = vec!["row"];
        let mut cells = vec![Cells::Custom(Box::new(|i, out: &mut Vec<u8>| {
            out.extend_from_slice(itoa::Buffer::new().format(i + 1).as_bytes())
        }))];
        for col in &self.columns {
            header.push(&col.name);
            cells.push(match &col.values {
                RecordValues::Count(v) => count(v),
                RecordValues::Number(v) => Cells::OptFloat(v, FloatStyle::Display),
                RecordValues::Text(v) => Cells::OptText(v),
            });
        }
        write_rows(&mut w, Some(&header), &cells, self.len)?;
        w.flush()
    }

    /// Writes the records as CSV to `path`, whole or not at all ([`crate::write_atomically`]).
    pub fn write_csv(&self, path: &std::path::Path) -> Result<(), crate::DataError> {
        crate::write_atomically(path, |w| self.write_csv_to(w))
    }
}

#[cfg(test)]
mod percent_tests {
    use super::percent;

    #[test]
    fn shares_keep_two_significant_digits_below_one_percent() {
        assert_eq!(percent(0.0), "0.0%");
        assert_eq!(percent(0.30049), "30.0%");
        assert_eq!(percent(0.021), "2.1%");
        assert_eq!(percent(1.0), "100.0%");
        assert_eq!(percent(0.000333), "0.033%");
        assert_eq!(percent(0.0033), "0.33%");
        assert_eq!(percent(0.0005), "0.050%");
        assert_eq!(percent(0.00999), "1.0%");
        assert_eq!(percent(0.000999), "0.10%");
        assert_eq!(percent(1.5e-9), "1.5e-7%");
        assert_eq!(percent(1.0 / 3.0), "33.3%");
        assert_eq!(percent(f64::NAN), "–");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Report {
        let mut r = Report::new("t");
        r.push(Figure::new("n", 15, Unit::Count, "records"));
        r.push(Figure::new("theta", Value::Null, Unit::Score, "θ"));
        r.tables.push(ReportTable {
            name: "moments".into(),
            title: "means".into(),
            header: vec!["variable".into(), "mean".into()],
            rows: vec![vec![json!("age"), json!(40.5)]],
        });
        r
    }

    #[test]
    fn formats_agree_on_the_values() {
        let r = sample();
        assert_eq!(
            r.render(Format::Csv),
            "n,theta,moments.age.mean\n15,,40.5\n"
        );
        let j: Value = serde_json::from_str(&r.render(Format::Json)).unwrap();
        assert_eq!(j["n"], json!(15));
        assert_eq!(j["moments"][0]["mean"], json!(40.5));
        let t = r.render(Format::Table);
        assert!(t.contains("  n      15  records"), "{t}");
        assert!(t.contains("theta   –  θ"), "{t}");
        assert!(t.contains("  variable  mean\n  age       40.5\n"), "{t}");
        let m = r.render(Format::Markdown);
        assert!(m.contains("| `n` | 15 | records |"), "{m}");
        assert!(m.contains("| age | 40.5 |"), "{m}");
    }

    #[test]
    fn repeated_row_names_take_the_next_column() {
        let mut r = Report::new("t");
        r.tables.push(ReportTable {
            name: "levels".into(),
            title: "levels".into(),
            header: vec!["key".into(), "level".into(), "percent".into()],
            rows: vec![
                vec![json!("age"), json!("20s"), json!(40.0)],
                vec![json!("age"), json!("60s"), json!(60.0)],
            ],
        });
        assert_eq!(
            r.render(Format::Csv),
            "levels.age.20s.percent,levels.age.60s.percent\n40.0,60.0\n"
        );
    }

    #[test]
    fn records_write_a_one_based_row_and_empty_missing_cells() {
        let mut r = Records::new(3);
        r.push("k", vec![Some(2u32), None, Some(1)]).unwrap();
        r.push("risk", vec![0.5f64, 1.0 / 3.0, 1.0]).unwrap();
        r.push(
            "msus",
            vec![Some("a+b;c".to_string()), None, Some("x,y".into())],
        )
        .unwrap();
        let mut out = Vec::new();
        r.write_csv_to(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "row,k,risk,msus\n1,2,0.5,a+b;c\n2,,0.3333333333333333,\n3,1,1,\"x,y\"\n"
        );
        assert_eq!(r.column("risk").unwrap().as_f64(1), Some(1.0 / 3.0));
        assert!(r.push("k", vec![Some(1u32); 3]).is_err());
        assert!(r.push("row", vec![Some(1u32); 3]).is_err());
        assert!(r.push("n", vec![Some(1u32); 2]).is_err());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("per.csv");
        r.write_csv(&p).unwrap();
        assert!(
            std::fs::read_to_string(&p)
                .unwrap()
                .starts_with("row,k,risk,msus\n")
        );
    }

    /// The per-record writer against the `csv` crate writing each cell as Rust's `{}` renders
    /// it (the writer it replaced): awkward numbers and text, and more rows than one block.
    #[test]
    fn records_are_written_as_the_csv_crate_writes_them() {
        let floats = [
            0.5,
            1.0 / 3.0,
            0.1 + 0.2,
            -0.0,
            0.0,
            1e-7,
            -2.5e-12,
            1e21,
            123_456_789.125,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let texts = ["a+b", "x,y", "say \"hi\"", "two\nlines", "", "cr\r"];
        let n = 70_000;
        let mut r = Records::new(n);
        let count = |i: usize| (i % 5 != 3).then_some((i as u32).wrapping_mul(2_654_435_761));
        let float =
            |i: usize| (i % 7 != 2).then(|| floats[i % floats.len()] * (1 + i / 100) as f64);
        let text = |i: usize| (i % 4 != 1).then(|| texts[i % texts.len()].to_string());
        r.push("k", (0..n).map(count).collect::<Vec<_>>()).unwrap();
        r.push("risk", (0..n).map(float).collect::<Vec<_>>())
            .unwrap();
        r.push("why, \"this\"", (0..n).map(text).collect::<Vec<_>>())
            .unwrap();
        let mut got = Vec::new();
        r.write_csv_to(&mut got).unwrap();

        let mut expected = csv::Writer::from_writer(Vec::new());
        expected
            .write_record(["row", "k", "risk", "why, \"this\""])
            .unwrap();
        let show = |x: Option<String>| x.unwrap_or_default();
        for i in 0..n {
            expected
                .write_record([
                    (i + 1).to_string(),
                    show(count(i).map(|x| x.to_string())),
                    show(float(i).map(|x| x.to_string())),
                    show(text(i)),
                ])
                .unwrap();
        }
        let expected = expected.into_inner().unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }

    #[test]
    fn human_numbers() {
        assert_eq!(human_f64(0.052631578), "0.052632");
        assert_eq!(human_f64(2.0), "2");
        assert_eq!(human_f64(0.00001234), "1.234e-5");
        assert_eq!(human_f64(-0.0000001), "-1.000e-7");
    }
}
