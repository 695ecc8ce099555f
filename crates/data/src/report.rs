//! Results as data: named figures with their unit and meaning, and tables, rendered the same way
//! by every command (`--format table|json|csv|markdown`), the runner and the Python package.
//!
//! ```
//! use intruder_data::report::{Figure, Format, Report, Unit};
//! let mut r = Report::new("intruder risk — survey.csv");
//! r.push(Figure::new("sample_uniques", 3, Unit::Count, "records alone in their class"));
//! r.push(Figure::new("pr_su", 0.2, Unit::Proportion, "share of records that are unique"));
//! assert_eq!(r.render(Format::Csv), "sample_uniques,pr_su\n3,0.2\n");
//! assert!(r.render(Format::Json).contains("\"pr_su\": 0.2"));
//! ```

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// What a figure counts or measures; the runner's metrics carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// A number of records, classes, pairs (a whole number).
    Count,
    /// A share in [0, 1].
    Proportion,
    /// A score or measure without a fixed scale (a weight, a distance, a risk sum, θ).
    Score,
    /// Text, a list, a flag: reported, not averaged.
    Label,
}

impl Unit {
    /// The name used in results files.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Count => "count",
            Unit::Proportion => "proportion",
            Unit::Score => "score",
            Unit::Label => "label",
        }
    }
}

/// One named figure with its unit and one-line meaning.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
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
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
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
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
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

    /// Figures plus the cells of every table as `table.row.column` (the first column names the
    /// row), for one-row CSV.
    pub fn flat_figures(&self) -> Vec<(String, Value)> {
        let mut out: Vec<(String, Value)> = self
            .figures
            .iter()
            .map(|f| (f.name.clone(), f.value.clone()))
            .collect();
        for t in &self.tables {
            for r in &t.rows {
                let row = r.first().map(plain).unwrap_or_default();
                for (h, v) in t.header.iter().zip(r).skip(1) {
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
    fn human_numbers() {
        assert_eq!(human_f64(0.052631578), "0.052632");
        assert_eq!(human_f64(2.0), "2");
        assert_eq!(human_f64(0.00001234), "1.234e-5");
        assert_eq!(human_f64(-0.0000001), "-1.000e-7");
    }
}
