//! SPSS (`.sav`, `.zsav`), Stata (`.dta`, every release 104–119) and SAS (`.sas7bdat`) files,
//! where statistical offices keep microdata (cargo feature `statfiles`), told apart by their
//! first bytes as every input is.
//!
//! The files are decoded by well-kept pure-Rust readers — `ambers` (SPSS), `dta` (Stata) and
//! `sas7bdat` (SAS) — and what a statistical package means by them is kept:
//!
//! - **Value labels are categories.** A numeric variable with value labels on values that
//!   occur (not on user-missing codes alone) is categorical: each labelled value reads as its label, an unlabelled value
//!   as its number (`4`), the levels ordered by value (labels first, then unlabelled values),
//!   as R's `haven::as_factor` and Stata's `decode` order them. A schema or a flag that
//!   declares another kind wins (`type = "integer"` keeps the codes).
//! - **User-missing values are missing.** SPSS's discrete missing values and missing ranges,
//!   Stata's extended missing values `.a`–`.z` and SAS's special missing values `.A`–`.Z`
//!   read as missing cells, like system-missing ones.
//! - Numbers that are all whole are integers, others floats; text is typed as CSV text is;
//!   dates and times read as ISO text (`2024-03-01`, `2024-03-01 12:30:00`, `12:30:00`).
//!   SAS data files carry no value labels (SAS keeps formats in a catalog): a catalog beside
//!   the file (`formats.sas7bcat`, or the data file's name with `.sas7bcat`) supplies them.
//!
//! The columns then go through the Arrow reader's column builders (`crate::columnar`), so that
//! schemas, roles, missing tokens and their errors are those of every other format.

use std::path::Path;

use crate::Dataset;
use crate::read::ReadOptions;
use crate::{DataError, Location};

/// The statistical formats (told by their first bytes: [`crate::FileFormat::sniff`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatFormat {
    Spss,
    Stata,
    Sas,
}

impl StatFormat {
    #[cfg_attr(feature = "statfiles", allow(dead_code))]
    fn name(self) -> &'static str {
        match self {
            StatFormat::Spss => "SPSS",
            StatFormat::Stata => "Stata",
            StatFormat::Sas => "SAS",
        }
    }
}

fn unreadable(path: &Path, what: &str, e: impl std::fmt::Display) -> DataError {
    DataError::Input {
        location: Location {
            file: path.to_path_buf(),
            line: None,
            column: None,
        },
        message: format!("not a readable {what} file: {e}"),
    }
}

/// Reads a statistical file (without the `statfiles` feature: an error saying so).
#[cfg(not(feature = "statfiles"))]
pub(crate) fn read(
    path: &Path,
    format: StatFormat,
    _options: &ReadOptions,
) -> Result<Dataset, DataError> {
    Err(unreadable(
        path,
        format.name(),
        format!(
            "{} support is not compiled in: build with --features statfiles",
            format.name()
        ),
    ))
}

#[cfg(feature = "statfiles")]
pub(crate) use imp::read;

#[cfg(feature = "statfiles")]
mod imp {
    use std::collections::HashMap;
    use std::sync::Arc;

    use arrow_array::types::Int32Type;
    use arrow_array::{
        ArrayRef, DictionaryArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    };
    use arrow_schema::{Field, Schema as ArrowSchema};

    use super::*;
    use crate::Kind;

    /// The cells of one variable as the file holds them (`None`: missing, user-missing too).
    enum Cells {
        Numbers(Vec<Option<f64>>),
        Texts(Vec<Option<String>>),
    }

    /// One variable: its cells and its value labels (numeric values, or texts, with labels).
    struct Var {
        name: String,
        cells: Cells,
        number_labels: Vec<(f64, String)>,
        text_labels: Vec<(String, String)>,
    }

    impl Var {
        fn numbers(name: String, cells: Vec<Option<f64>>) -> Var {
            Var {
                name,
                cells: Cells::Numbers(cells),
                number_labels: Vec::new(),
                text_labels: Vec::new(),
            }
        }

        fn texts(name: String, cells: Vec<Option<String>>) -> Var {
            Var {
                name,
                cells: Cells::Texts(cells),
                number_labels: Vec::new(),
                text_labels: Vec::new(),
            }
        }
    }

    /// A number as its level: `4`, `2.5`.
    fn number_text(x: f64) -> String {
        crate::format_float(if x == 0.0 { 0.0 } else { x })
    }

    /// Reads a statistical file as a data set.
    pub(crate) fn read(
        path: &Path,
        format: StatFormat,
        options: &ReadOptions,
    ) -> Result<Dataset, DataError> {
        let vars = match format {
            StatFormat::Spss => spss(path)?,
            StatFormat::Stata => stata(path)?,
            StatFormat::Sas => sas(path)?,
        };
        to_dataset(path, vars, options)
    }

    /// The variables as Arrow arrays, and the categories of the labelled ones.
    fn to_dataset(
        path: &Path,
        vars: Vec<Var>,
        options: &ReadOptions,
    ) -> Result<Dataset, DataError> {
        let mut options = options.clone();
        let mut fields = Vec::with_capacity(vars.len());
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(vars.len());
        for v in vars {
            // A kind the user declares wins over the file's value labels (the codes are read).
            let declared = options
                .schema
                .as_ref()
                .and_then(|s| s.get(&v.name))
                .is_some_and(|s| s.kind.is_some())
                || options
                    .overrides
                    .iter()
                    .any(|(n, s)| *n == v.name && s.kind.is_some());
            let (array, categories) = match v.cells {
                Cells::Numbers(cells)
                    if !declared && labelled_numbers(&cells, &v.number_labels) =>
                {
                    let (a, c) = number_categories(&cells, &v.number_labels);
                    (a, Some(c))
                }
                Cells::Numbers(cells) => {
                    let whole = cells
                        .iter()
                        .flatten()
                        .all(|x| x.fract() == 0.0 && x.abs() < 9.0e15);
                    let a: ArrayRef = if whole {
                        Arc::new(
                            cells
                                .iter()
                                .map(|x| x.map(|x| x as i64))
                                .collect::<Int64Array>(),
                        )
                    } else {
                        Arc::new(cells.into_iter().collect::<Float64Array>())
                    };
                    (a, None)
                }
                Cells::Texts(cells) if !declared && !v.text_labels.is_empty() => {
                    let (a, c) = text_categories(&cells, &v.text_labels);
                    (a, Some(c))
                }
                Cells::Texts(cells) => (
                    Arc::new(cells.into_iter().collect::<StringArray>()) as ArrayRef,
                    None,
                ),
            };
            // Value labels make categories in the labels' order.
            if let Some(categories) = categories {
                let spec = options.override_spec(&v.name);
                spec.kind = Some(Kind::Categorical);
                spec.categories = Some(categories);
            }
            fields.push(Field::new(&v.name, array.data_type().clone(), true));
            arrays.push(array);
        }
        let schema = Arc::new(ArrowSchema::new(fields));
        let batch = RecordBatch::try_new(schema.clone(), arrays)
            .map_err(|e| unreadable(path, "statistical", e))?;
        crate::columnar::from_batches(path, &schema, vec![batch], &options)
    }

    /// Whether a numeric variable's labels name a value that occurs (labels on user-missing
    /// codes alone, such as "Refused" on 98, leave a variable such as age numeric).
    fn labelled_numbers(cells: &[Option<f64>], labels: &[(f64, String)]) -> bool {
        if labels.is_empty() {
            return false;
        }
        let present: std::collections::HashSet<u64> =
            cells.iter().flatten().map(|x| x.to_bits()).collect();
        labels.iter().any(|(v, _)| present.contains(&v.to_bits()))
    }

    /// A labelled numeric variable as a dictionary array and its categories: labelled values
    /// in increasing order (a label shared by two values is one category), then the
    /// unlabelled values that occur, in increasing order.
    fn number_categories(
        cells: &[Option<f64>],
        labels: &[(f64, String)],
    ) -> (ArrayRef, Vec<String>) {
        let mut sorted: Vec<(f64, String)> = labels.to_vec();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut categories: Vec<String> = Vec::new();
        let mut index: HashMap<String, i32> = HashMap::new();
        let mut of_value: HashMap<u64, i32> = HashMap::new();
        let mut add = |text: String, categories: &mut Vec<String>| -> i32 {
            *index.entry(text.clone()).or_insert_with(|| {
                categories.push(text);
                categories.len() as i32 - 1
            })
        };
        for (v, l) in &sorted {
            let k = add(l.clone(), &mut categories);
            of_value.insert(v.to_bits(), k);
        }
        let mut unlabelled: Vec<f64> = cells
            .iter()
            .flatten()
            .copied()
            .filter(|x| !of_value.contains_key(&x.to_bits()))
            .collect();
        unlabelled.sort_by(f64::total_cmp);
        unlabelled.dedup();
        for x in unlabelled {
            let k = add(number_text(x), &mut categories);
            of_value.insert(x.to_bits(), k);
        }
        let keys: Int32Array = cells
            .iter()
            .map(|c| c.map(|x| of_value[&x.to_bits()]))
            .collect();
        let values = Arc::new(StringArray::from_iter_values(categories.iter()));
        let dict = DictionaryArray::<Int32Type>::try_new(keys, values)
            .expect("every key indexes a category");
        (Arc::new(dict), categories)
    }

    /// A labelled text variable: labelled texts in the labels' order, then the others in
    /// text order.
    fn text_categories(
        cells: &[Option<String>],
        labels: &[(String, String)],
    ) -> (ArrayRef, Vec<String>) {
        let label_of: HashMap<&str, &str> = labels
            .iter()
            .map(|(v, l)| (v.as_str(), l.as_str()))
            .collect();
        let mut categories: Vec<String> = Vec::new();
        for (_, l) in labels {
            if !categories.contains(l) {
                categories.push(l.clone());
            }
        }
        let mut others: Vec<&str> = cells
            .iter()
            .flatten()
            .map(String::as_str)
            .filter(|t| !label_of.contains_key(t))
            .collect();
        others.sort_unstable();
        others.dedup();
        for t in others {
            if !categories.iter().any(|c| c == t) {
                categories.push(t.to_string());
            }
        }
        let index: HashMap<&str, i32> = categories
            .iter()
            .enumerate()
            .map(|(i, c)| (c.as_str(), i as i32))
            .collect();
        let keys: Int32Array = cells
            .iter()
            .map(|c| {
                c.as_deref()
                    .map(|t| index[label_of.get(t).copied().unwrap_or(t)])
            })
            .collect();
        let values = Arc::new(StringArray::from_iter_values(categories.iter()));
        let dict = DictionaryArray::<Int32Type>::try_new(keys, values)
            .expect("every key indexes a category");
        (Arc::new(dict), categories)
    }

    /// Days since 1970-01-01 as an ISO date (proleptic Gregorian; Hinnant's algorithm).
    fn iso_date(days: i64) -> String {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        format!("{y:04}-{m:02}-{d:02}")
    }

    fn clock(seconds: i64) -> String {
        let s = seconds.rem_euclid(86_400);
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }

    /// Seconds since 1970-01-01 as ISO date and time.
    fn iso_datetime(seconds: i64) -> String {
        format!(
            "{} {}",
            iso_date(seconds.div_euclid(86_400)),
            clock(seconds)
        )
    }

    // -----------------------------------------------------------------------------------------
    // SPSS

    fn spss(path: &Path) -> Result<Vec<Var>, DataError> {
        use a57::Array;
        use arrow_array_57 as a57;
        let (batch, meta) = ambers::read_sav(path).map_err(|e| unreadable(path, "SPSS", e))?;
        let n = batch.num_rows();
        let mut vars = Vec::with_capacity(batch.num_columns());
        for (j, name) in meta.variable_names.iter().enumerate() {
            let col = batch.column(j);
            let missing = meta
                .variable_missing_values
                .get(name)
                .cloned()
                .unwrap_or_default();
            let user_missing_number = |x: f64| {
                missing.iter().any(|m| match m {
                    ambers::MissingSpec::Value(v) => *v == x,
                    ambers::MissingSpec::Range { lo, hi } => *lo <= x && x <= *hi,
                    ambers::MissingSpec::StringValue(_) => false,
                })
            };
            let user_missing_text = |t: &str| {
                missing.iter().any(|m| match m {
                    ambers::MissingSpec::StringValue(s) => s.trim_end() == t.trim_end(),
                    _ => false,
                })
            };
            let any = col.as_any();
            let var = if let Some(f) = any.downcast_ref::<a57::Float64Array>() {
                let cells = (0..n)
                    .map(|i| {
                        (f.is_valid(i) && !user_missing_number(f.value(i))).then(|| f.value(i))
                    })
                    .collect();
                let mut var = Var::numbers(name.clone(), cells);
                if let Some(labels) = meta.value_labels(name) {
                    var.number_labels = labels
                        .iter()
                        .filter_map(|(v, l)| match v {
                            ambers::Value::Numeric(x) if !user_missing_number(*x) => {
                                Some((*x, l.clone()))
                            }
                            _ => None,
                        })
                        .collect();
                }
                var
            } else if let Some(s) = any.downcast_ref::<a57::StringViewArray>() {
                let cells = (0..n)
                    .map(|i| {
                        let t = s.value(i).trim_end();
                        (s.is_valid(i) && !user_missing_text(t)).then(|| t.to_string())
                    })
                    .collect();
                let mut var = Var::texts(name.clone(), cells);
                if let Some(labels) = meta.value_labels(name) {
                    var.text_labels = labels
                        .iter()
                        .filter_map(|(v, l)| match v {
                            ambers::Value::String(t) if !user_missing_text(t) => {
                                Some((t.trim_end().to_string(), l.clone()))
                            }
                            _ => None,
                        })
                        .collect();
                }
                var
            } else if let Some(d) = any.downcast_ref::<a57::Date32Array>() {
                let cells = (0..n)
                    .map(|i| d.is_valid(i).then(|| iso_date(i64::from(d.value(i)))))
                    .collect();
                Var::texts(name.clone(), cells)
            } else if let Some(t) = any.downcast_ref::<a57::TimestampMicrosecondArray>() {
                let cells = (0..n)
                    .map(|i| {
                        t.is_valid(i)
                            .then(|| iso_datetime(t.value(i).div_euclid(1_000_000)))
                    })
                    .collect();
                Var::texts(name.clone(), cells)
            } else if let Some(t) = any.downcast_ref::<a57::DurationMicrosecondArray>() {
                let cells = (0..n)
                    .map(|i| {
                        t.is_valid(i)
                            .then(|| clock(t.value(i).div_euclid(1_000_000)))
                    })
                    .collect();
                Var::texts(name.clone(), cells)
            } else {
                return Err(unreadable(
                    path,
                    "SPSS",
                    format!("variable '{name}' has a type this reader does not know"),
                ));
            };
            vars.push(var);
        }
        Ok(vars)
    }

    // -----------------------------------------------------------------------------------------
    // Stata

    fn stata(path: &Path) -> Result<Vec<Var>, DataError> {
        use dta::stata::dta::dta_reader::DtaReader;
        use dta::stata::dta::long_string_table::LongStringTable;
        use dta::stata::dta::value::Value;
        let bad = |e: &dyn std::fmt::Display| unreadable(path, "Stata", e);
        let mut characteristics = DtaReader::new()
            .from_path(path)
            .map_err(|e| bad(&e))?
            .read_header()
            .map_err(|e| bad(&e))?
            .read_schema()
            .map_err(|e| bad(&e))?;
        characteristics.skip_to_end().map_err(|e| bad(&e))?;
        let mut records = characteristics.into_record_reader().map_err(|e| bad(&e))?;
        let schema = records.schema().clone();
        let k = schema.variables().len();
        enum Col {
            Numbers(Vec<Option<f64>>),
            Texts(Vec<Option<String>>),
            Long(Vec<Option<(u32, u64)>>),
        }
        let mut cols: Vec<Option<Col>> = (0..k).map(|_| None).collect();
        while let Some(record) = records.read_record().map_err(|e| bad(&e))? {
            for (j, v) in record.values().iter().enumerate() {
                let number = match v {
                    Value::Byte(x) => Some(match x {
                        dta::stata::stata_byte::StataByte::Present(v) => Some(f64::from(*v)),
                        dta::stata::stata_byte::StataByte::Missing(_) => None,
                    }),
                    Value::Int(x) => Some(match x {
                        dta::stata::stata_int::StataInt::Present(v) => Some(f64::from(*v)),
                        dta::stata::stata_int::StataInt::Missing(_) => None,
                    }),
                    Value::Long(x) => Some(match x {
                        dta::stata::stata_long::StataLong::Present(v) => Some(f64::from(*v)),
                        dta::stata::stata_long::StataLong::Missing(_) => None,
                    }),
                    Value::Float(x) => Some(match x {
                        dta::stata::stata_float::StataFloat::Present(v) => Some(f64::from(*v)),
                        dta::stata::stata_float::StataFloat::Missing(_) => None,
                    }),
                    Value::Double(x) => Some(match x {
                        dta::stata::stata_double::StataDouble::Present(v) => Some(*v),
                        dta::stata::stata_double::StataDouble::Missing(_) => None,
                    }),
                    _ => None,
                };
                let slot = &mut cols[j];
                match (v, number) {
                    (_, Some(x)) => match slot.get_or_insert_with(|| Col::Numbers(Vec::new())) {
                        Col::Numbers(c) => c.push(x),
                        _ => return Err(bad(&"a variable changes type between records")),
                    },
                    (Value::String(s), None) => {
                        match slot.get_or_insert_with(|| Col::Texts(Vec::new())) {
                            Col::Texts(c) => c.push((!s.is_empty()).then(|| s.to_string())),
                            _ => return Err(bad(&"a variable changes type between records")),
                        }
                    }
                    (Value::LongStringRef(r), None) => {
                        match slot.get_or_insert_with(|| Col::Long(Vec::new())) {
                            Col::Long(c) => c.push(Some((r.variable(), r.observation()))),
                            _ => return Err(bad(&"a variable changes type between records")),
                        }
                    }
                    _ => return Err(bad(&"a value of an unknown type")),
                }
            }
        }
        let mut long_strings = records.into_long_string_reader().map_err(|e| bad(&e))?;
        let mut table = LongStringTable::for_reading();
        long_strings
            .read_remaining_into(&mut table)
            .map_err(|e| bad(&e))?;
        let long: HashMap<(u32, u64), String> = table
            .iter()
            .map(|s| {
                let text = String::from_utf8_lossy(s.data())
                    .trim_end_matches('\0')
                    .to_string();
                ((s.variable(), s.observation()), text)
            })
            .collect();
        let mut label_reader = long_strings
            .into_value_label_reader()
            .map_err(|e| bad(&e))?;
        let mut sets: HashMap<String, Vec<(f64, String)>> = HashMap::new();
        while let Some(set) = label_reader.read_value_label_set().map_err(|e| bad(&e))? {
            // Labels of the extended missing values (.a–.z, stored from 2,147,483,621 on)
            // label missing cells, not categories.
            sets.insert(
                set.name().to_string(),
                set.entries()
                    .iter()
                    .filter(|e| e.value() < 2_147_483_621)
                    .map(|e| (f64::from(e.value()), e.label().to_string()))
                    .collect(),
            );
        }
        let mut vars = Vec::with_capacity(k);
        for (j, variable) in schema.variables().iter().enumerate() {
            let name = variable.name().to_string();
            let var = match cols[j].take() {
                None => Var::numbers(name, Vec::new()),
                Some(Col::Numbers(c)) => {
                    let mut var = Var::numbers(name, c);
                    if let Some(labels) = sets.get(variable.value_label_name()) {
                        var.number_labels = labels.clone();
                    }
                    var
                }
                Some(Col::Texts(c)) => Var::texts(name, c),
                Some(Col::Long(refs)) => {
                    let cells = refs
                        .into_iter()
                        .map(|r| long.get(&r?).filter(|t| !t.is_empty()).cloned())
                        .collect();
                    Var::texts(name, cells)
                }
            };
            vars.push(var);
        }
        Ok(vars)
    }

    // -----------------------------------------------------------------------------------------
    // SAS

    fn sas(path: &Path) -> Result<Vec<Var>, DataError> {
        use sas7bdat::OwnedCellValue as C;
        let bad = |e: &dyn std::fmt::Display| unreadable(path, "SAS", e);
        let mut ds = sas7bdat::Dataset::open(path).map_err(|e| bad(&e))?;
        // A format catalog beside the file supplies value labels.
        let mut catalogs = vec![path.with_file_name("formats.sas7bcat")];
        catalogs.push(path.with_extension("sas7bcat"));
        for c in catalogs.iter().filter(|c| c.is_file()) {
            ds.attach_catalog(c)
                .map_err(|e| unreadable(c, "SAS catalog", e))?;
        }
        let columns = ds.columns().to_vec();
        let rows = ds.collect_rows().map_err(|e| bad(&e))?;
        let label_sets = &ds.metadata().label_sets;
        let mut vars = Vec::with_capacity(columns.len());
        for (j, meta) in columns.iter().enumerate() {
            let cells = rows.iter().map(|r| r.cells.get(j).unwrap_or(&C::Null));
            let numeric = rows.iter().all(|r| {
                matches!(
                    r.cells.get(j),
                    None | Some(C::Null | C::Int32(_) | C::Int64(_) | C::Float64(_))
                )
            });
            let labels = meta
                .format
                .as_deref()
                .map(|f| f.trim().trim_start_matches('$').to_uppercase())
                .and_then(|f| {
                    label_sets
                        .iter()
                        .find(|(k, _)| k.trim_start_matches('$').eq_ignore_ascii_case(&f))
                        .map(|(_, s)| s)
                });
            let var = if numeric {
                let cells: Vec<Option<f64>> = cells
                    .map(|c| match c {
                        C::Int32(v) => Some(f64::from(*v)),
                        C::Int64(v) => Some(*v as f64),
                        C::Float64(v) if v.is_finite() => Some(*v),
                        _ => None,
                    })
                    .collect();
                let mut var = Var::numbers(meta.name.clone(), cells);
                if let Some(set) = labels {
                    var.number_labels = set
                        .labels
                        .iter()
                        .filter_map(|l| match &l.key {
                            sas7bdat::ValueKey::Numeric(x) => Some((*x, l.label.clone())),
                            sas7bdat::ValueKey::Integer(x) => {
                                Some((f64::from(*x), l.label.clone()))
                            }
                            _ => None,
                        })
                        .collect();
                }
                var
            } else {
                let cells: Vec<Option<String>> = cells
                    .map(|c| match c {
                        C::Null => None,
                        C::Int32(v) => Some(v.to_string()),
                        C::Int64(v) => Some(v.to_string()),
                        C::Float64(v) => Some(number_text(*v)),
                        C::String(s) => Some(s.trim_end().to_string()).filter(|s| !s.is_empty()),
                        C::Bytes(b) => Some(String::from_utf8_lossy(b).trim_end().to_string())
                            .filter(|s| !s.is_empty()),
                        C::Date(d) => Some(iso_date(i64::from(d.days_since_sas_epoch) - 3653)),
                        C::DateTime(t) => {
                            Some(iso_datetime(t.seconds_since_sas_epoch - 3653 * 86_400))
                        }
                        C::Time(t) => Some(clock(i64::from(t.seconds_since_midnight))),
                    })
                    .collect();
                let mut var = Var::texts(meta.name.clone(), cells);
                if let Some(set) = labels {
                    var.text_labels = set
                        .labels
                        .iter()
                        .filter_map(|l| match &l.key {
                            sas7bdat::ValueKey::String(s) => {
                                Some((s.trim_end().to_string(), l.label.clone()))
                            }
                            _ => None,
                        })
                        .collect();
                }
                var
            };
            vars.push(var);
        }
        Ok(vars)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn dates_are_iso() {
            assert_eq!(iso_date(0), "1970-01-01");
            assert_eq!(iso_date(-3653), "1960-01-01");
            assert_eq!(iso_date(19_783), "2024-03-01");
            assert_eq!(
                iso_datetime(19_783 * 86_400 + 45_000),
                "2024-03-01 12:30:00"
            );
        }
    }
}
