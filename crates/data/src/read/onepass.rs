//! The one-pass CSV reader: the reference semantics of CSV input.
//!
//! Reading is one pass over the records. Every inferred column starts dictionary-encoded (cheap
//! for the categorical keys that dominate microdata); a column whose dictionary grows past
//! 65,536 distinct numeric values switches to plain numeric storage so that continuous variables
//! do not hold a dictionary as large as the file.
//!
//! The parallel reader ([`super::chunked`]) must give the same tables and the same errors as this
//! one on every input; it uses this reader's column builder ([`ColBuilder`]) to replay the rare
//! columns whose result depends on the order in which values first appear (a switch to numeric
//! storage followed by text), and the property tests compare both readers.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use foldhash::fast::FixedState;

use super::textcheck::Checked;
use super::{NUMERIC_SWITCH, ReadOptions};
use crate::{Bitmap, Column, ColumnData, ColumnSpec, DataError, Dataset, Kind, Location, Role};
use intruder_table::{unknown_column, unknown_columns};

/// Reads CSV from any reader in one pass; `label` names it in errors.
pub(crate) fn read<R: Read>(
    mut reader: R,
    label: &Path,
    options: &ReadOptions,
) -> Result<Dataset, DataError> {
    // The text is decided on as the parallel reader decides it (`sniff`): read whole first.
    let mut text = Vec::new();
    reader
        .read_to_end(&mut text)
        .map_err(|source| DataError::Io {
            path: label.to_path_buf(),
            source,
        })?;
    let prepared = super::sniff::prepare(&text, label, options)?;
    let mut ds = read_prepared(&prepared.text[..], label, &prepared.options)?;
    ds.notes = prepared.notes;
    Ok(ds)
}

/// [`read`] of a text made ready by [`super::sniff::prepare`].
fn read_prepared<R: Read>(
    reader: R,
    label: &Path,
    options: &ReadOptions,
) -> Result<Dataset, DataError> {
    let cfg = Config::new(options);
    // The text check sees every byte the parser reads, then the rest of the stream: a NUL
    // byte or an unclosed quote anywhere is the file's error, as in the parallel reader.
    let mut checked = Checked::new(reader, cfg.delimiter);
    let result = parse(&mut checked, label, options, &cfg);
    checked.finish(label)?;
    result
}

fn parse<R: Read>(
    reader: &mut Checked<R>,
    label: &Path,
    options: &ReadOptions,
    cfg: &Config,
) -> Result<Dataset, DataError> {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(cfg.delimiter)
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(reader);
    let at = |line: Option<u64>, column: Option<String>| Location {
        file: label.to_path_buf(),
        line,
        column,
    };
    let csv_err = |e: csv::Error| -> DataError {
        let line = e.position().map(|p| p.line());
        match e.into_kind() {
            csv::ErrorKind::Io(source) => DataError::Io {
                path: label.to_path_buf(),
                source,
            },
            other => DataError::input(at(line, None), format!("malformed CSV: {other:?}")),
        }
    };

    let mut record = csv::ByteRecord::new();
    if !rdr.read_byte_record(&mut record).map_err(csv_err)? {
        return Err(empty_file(label));
    }
    let names = header_names(record.iter(), label)?;
    let mut builders = column_builders(&names, label, options, cfg)?;

    let ncols = names.len();
    while rdr.read_byte_record(&mut record).map_err(csv_err)? {
        // The csv crate starts a record after `\r\n` at its `\n`, before counting that line.
        let line = record.position().map_or(0, |p| {
            p.line() + rdr.get_mut().is_crlf_newline(p.byte()) as u64
        });
        if record.len() != ncols {
            // A trailing completely blank line is not a record.
            if record.len() == 1 && record.get(0).is_some_and(<[u8]>::is_empty) {
                continue;
            }
            return Err(field_count(label, line, &names, record.len()));
        }
        for (b, field) in builders.iter_mut().zip(record.iter()) {
            b.push(field, line, label)?;
        }
    }

    let columns = builders
        .into_iter()
        .map(|b| b.finish())
        .collect::<Result<Vec<_>, _>>()?;
    Dataset::split_truth(PathBuf::from(label), columns)
}

/// The delimiter and the file-wide missing tokens that apply to a read.
pub(crate) struct Config {
    pub(crate) delimiter: u8,
    pub(crate) file_missing: Vec<String>,
}

impl Config {
    pub(crate) fn new(options: &ReadOptions) -> Self {
        let schema = options.schema.as_ref();
        Config {
            delimiter: options
                .delimiter
                .or(schema.and_then(|s| s.delimiter))
                .unwrap_or(b','),
            file_missing: options
                .missing
                .clone()
                .or_else(|| schema.and_then(|s| s.missing.clone()))
                .unwrap_or_else(|| {
                    super::DEFAULT_MISSING
                        .iter()
                        .map(|s| s.to_string())
                        .collect()
                }),
        }
    }
}

/// The error for a file without a header row.
pub(crate) fn empty_file(label: &Path) -> DataError {
    DataError::input(
        Location {
            file: label.to_path_buf(),
            line: None,
            column: None,
        },
        "the file is empty: expected a header row naming the columns",
    )
}

/// The error for a record whose number of fields differs from the header's.
pub(crate) fn field_count(label: &Path, line: u64, names: &[String], found: usize) -> DataError {
    let ncols = names.len();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let hint = crate::params::one_column_hint(&refs);
    DataError::input(
        Location {
            file: label.to_path_buf(),
            line: Some(line),
            column: None,
        },
        format!("expected {ncols} fields as in the header, found {found}{hint}"),
    )
}

/// The column names of the header record (a UTF-8 BOM before the first is dropped).
pub(crate) fn header_names<'a>(
    fields: impl Iterator<Item = &'a [u8]>,
    label: &Path,
) -> Result<Vec<String>, DataError> {
    let at = |column: String| Location {
        file: label.to_path_buf(),
        line: Some(1),
        column: Some(column),
    };
    let mut names: Vec<String> = Vec::new();
    // Names seen so far: a hash set, so a header of n columns is checked in O(n), not O(n²).
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (j, field) in fields.enumerate() {
        let field = if j == 0 {
            field.strip_prefix(b"\xef\xbb\xbf").unwrap_or(field)
        } else {
            field
        };
        let name = std::str::from_utf8(field)
            .map_err(|e| {
                DataError::input(
                    at(format!("{}", j + 1)),
                    format!("header is not valid UTF-8 ({e})"),
                )
            })?
            .trim()
            .to_string();
        if name.is_empty() {
            return Err(DataError::input(
                at(format!("{}", j + 1)),
                "empty column name in the header",
            ));
        }
        if !seen.insert(name.clone()) {
            return Err(DataError::input(
                at(format!("'{name}' ({})", j + 1)),
                "this column name appears twice in the header",
            ));
        }
        names.push(name);
    }
    Ok(names)
}

/// The declared spec of every column (schema, then overrides), after checking that every column
/// the schema or the overrides name exists.
pub(crate) fn column_specs(
    names: &[String],
    label: &Path,
    options: &ReadOptions,
) -> Result<Vec<ColumnSpec>, DataError> {
    let default_schema = crate::Schema::default();
    let schema = options.schema.as_ref().unwrap_or(&default_schema);
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    // Hashed look-ups both ways: linear in the number of columns (a file may have 200,000).
    let in_file: std::collections::HashSet<&str> = name_refs.iter().copied().collect();
    let shown = || {
        let mut list = names
            .iter()
            .take(20)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        if names.len() > 20 {
            list.push_str(&format!(", … ({} columns)", names.len()));
        }
        list
    };
    let mut unknown_in_schema = Vec::new();
    for (n, _) in &schema.columns {
        if !in_file.contains(n.as_str()) {
            unknown_in_schema.push(format!(
                "columns.{n}: the file has no such column (columns: {})",
                shown()
            ));
        }
    }
    if !unknown_in_schema.is_empty() {
        return Err(DataError::Schema {
            path: label.to_path_buf(),
            problems: unknown_in_schema,
        });
    }
    // Optional overrides are those that only set a role other than the truth (a declared
    // kind, e.g. set-valued, and a truth column are always checked).
    let absent: Vec<&str> = options
        .overrides
        .iter()
        .filter(|(_, spec)| {
            !(options.optional_overrides && spec.kind.is_none() && spec.role != Some(Role::Truth))
        })
        .map(|(n, _)| n.as_str())
        .filter(|n| !in_file.contains(n))
        .collect();
    match absent[..] {
        [] => {}
        [one] => return Err(unknown_column(label, one, name_refs)),
        _ => return Err(unknown_columns(label, &absent, name_refs)),
    }
    // The first declaration of a name wins, as a linear search finds it.
    let mut declared: std::collections::HashMap<&str, &ColumnSpec> =
        std::collections::HashMap::with_capacity(schema.columns.len());
    for (n, spec) in &schema.columns {
        declared.entry(n.as_str()).or_insert(spec);
    }
    let mut overridden: std::collections::HashMap<&str, &ColumnSpec> =
        std::collections::HashMap::with_capacity(options.overrides.len());
    for (n, spec) in &options.overrides {
        overridden.entry(n.as_str()).or_insert(spec);
    }
    Ok(names
        .iter()
        .map(|name| {
            let mut spec = declared
                .get(name.as_str())
                .map(|s| (*s).clone())
                .unwrap_or_default();
            if let Some(o) = overridden.get(name.as_str()) {
                merge(&mut spec, o);
            }
            spec
        })
        .collect())
}

fn column_builders(
    names: &[String],
    label: &Path,
    options: &ReadOptions,
    cfg: &Config,
) -> Result<Vec<ColBuilder>, DataError> {
    let specs = column_specs(names, label, options)?;
    Ok(names
        .iter()
        .zip(specs)
        .enumerate()
        .map(|(j, (name, spec))| ColBuilder::new(name.clone(), j + 1, spec, &cfg.file_missing))
        .collect())
}

pub(crate) fn merge(spec: &mut ColumnSpec, o: &ColumnSpec) {
    if o.kind.is_some() {
        spec.kind = o.kind;
    }
    if o.role.is_some() {
        spec.role = o.role;
    }
    if o.categories.is_some() {
        spec.categories = o.categories.clone();
    }
    if o.missing.is_some() {
        spec.missing = o.missing.clone();
    }
    if o.separator.is_some() {
        spec.separator = o.separator.clone();
    }
}

struct Entry {
    text: Box<str>,
    int: Option<i64>,
    num: Option<f64>,
}

#[derive(Default)]
struct Dict {
    map: HashMap<Box<[u8]>, u32, FixedState>,
    entries: Vec<Entry>,
    all_int: bool,
    all_num: bool,
    fixed: bool,
}

impl Dict {
    fn new(categories: Option<&[String]>) -> Self {
        let mut d = Dict {
            all_int: true,
            all_num: true,
            ..Default::default()
        };
        if let Some(cats) = categories {
            for c in cats {
                d.insert(c.as_bytes(), c);
            }
            d.fixed = true;
        }
        d
    }

    fn insert(&mut self, bytes: &[u8], text: &str) -> u32 {
        let code = self.entries.len() as u32;
        let (int, num) = number_of(text);
        self.all_int &= int.is_some();
        self.all_num &= num.is_some();
        self.entries.push(Entry {
            text: text.into(),
            int,
            num,
        });
        self.map.insert(bytes.into(), code);
        code
    }

    /// The code of `field`, adding it when new (an error when the categories are fixed).
    fn code(&mut self, field: &[u8], loc: impl Fn() -> Location) -> Result<u32, DataError> {
        if let Some(&c) = self.map.get(field) {
            return Ok(c);
        }
        let text = utf8(field, &loc)?;
        if self.fixed {
            return Err(DataError::input(
                loc(),
                not_declared(text, self.entries.iter().map(|e| &*e.text)),
            ));
        }
        Ok(self.insert(field, text))
    }

    /// Level order: declared order when fixed; numeric order when every level is a number;
    /// lexicographic otherwise. Returns the levels and old code → new code.
    fn levels(&self) -> (Vec<String>, Vec<u32>) {
        level_order(
            self.entries.len(),
            self.fixed,
            self.all_num,
            |i| self.entries[i].num,
            |i| &self.entries[i].text,
        )
    }
}

/// Level order of a dictionary of `n` entries: declared (entry) order when fixed; numeric order
/// when every level is a number (ties by text); lexicographic otherwise. Returns the levels and
/// old code → new code.
pub(crate) fn level_order<'a>(
    n: usize,
    fixed: bool,
    all_num: bool,
    num: impl Fn(usize) -> Option<f64>,
    text: impl Fn(usize) -> &'a str,
) -> (Vec<String>, Vec<u32>) {
    let mut order: Vec<usize> = (0..n).collect();
    if !fixed {
        if all_num {
            order.sort_by(|&a, &b| {
                let (x, y) = (num(a).unwrap_or(0.0), num(b).unwrap_or(0.0));
                x.total_cmp(&y).then_with(|| text(a).cmp(text(b)))
            });
        } else {
            order.sort_by(|&a, &b| text(a).cmp(text(b)));
        }
    }
    let mut remap = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new as u32;
    }
    (order.iter().map(|&i| text(i).to_string()).collect(), remap)
}

/// The integer and the finite number that the text of a cell reads as (surrounding blanks
/// ignored): how inference decides whether a column is integer, float or text.
pub(crate) fn number_of(text: &str) -> (Option<i64>, Option<f64>) {
    let t = text.trim();
    let int = t.parse::<i64>().ok();
    let num = int
        .map(|i| i as f64)
        .or_else(|| t.parse::<f64>().ok().filter(|x| x.is_finite()));
    (int, num)
}

/// The message for a value outside the declared categories (the first 20 are shown).
pub(crate) fn not_declared<'a>(text: &str, categories: impl Iterator<Item = &'a str>) -> String {
    let shown: Vec<&str> = categories.take(20).collect();
    format!(
        "'{text}' is not one of the declared categories [{}]",
        shown.join(", ")
    )
}

/// The message for an empty candidate in a set-valued cell.
pub(crate) fn empty_candidate(field: &[u8], sep: &[u8]) -> String {
    format!(
        "empty candidate in set-valued cell '{}'; expected values separated by '{}'",
        String::from_utf8_lossy(field),
        String::from_utf8_lossy(sep)
    )
}

/// The largest sampling weight read: a weight counts population units, and no population is
/// larger than this (a larger value is a mistake, e.g. a column of identifiers read as weights).
pub(crate) const MAX_WEIGHT: f64 = 1e12;

/// A cell of a declared integer column (or an integer weight).
pub(crate) fn int_cell(text: &str, weight: bool) -> Result<i64, String> {
    let t = text.trim();
    let parsed = t.parse::<i64>().ok().or_else(|| {
        t.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15)
            .map(|x| x as i64)
    });
    match parsed {
        Some(i) if weight && i <= 0 => Err(format!(
            "weight '{text}' is not positive; expected a weight > 0 (the number of population units the record stands for)"
        )),
        Some(i) if weight && i as f64 > MAX_WEIGHT => Err(format!(
            "weight '{text}' is larger than {MAX_WEIGHT:e}; expected the number of population units the record stands for"
        )),
        Some(i) => Ok(i),
        None => Err(format!("expected an integer, found '{text}'")),
    }
}

/// A cell of a declared float column (or a weight).
pub(crate) fn float_cell(text: &str, weight: bool) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if !x.is_finite() => Err(format!("expected a finite number, found '{text}'")),
        Ok(x) if weight && x <= 0.0 => Err(format!(
            "weight '{text}' is not positive; expected a weight > 0 (the number of population units the record stands for)"
        )),
        Ok(x) if weight && x > MAX_WEIGHT => Err(format!(
            "weight '{text}' is larger than {MAX_WEIGHT:e}; expected the number of population units the record stands for"
        )),
        Ok(x) => Ok(x),
        Err(_) => {
            let what = if weight {
                "a weight (a number ≥ 0)"
            } else {
                "a number"
            };
            Err(format!("expected {what}, found '{text}'"))
        }
    }
}

pub(crate) fn utf8<'a>(field: &'a [u8], loc: &impl Fn() -> Location) -> Result<&'a str, DataError> {
    std::str::from_utf8(field).map_err(|e| DataError::input(loc(), utf8_message(e)))
}

/// The message for a field that is not UTF-8.
pub(crate) fn utf8_message(e: std::str::Utf8Error) -> String {
    format!(
        "invalid UTF-8 at byte {} of the field; expected UTF-8 text",
        e.valid_up_to() + 1
    )
}

enum State {
    /// Inferred (kind unknown) or declared categorical: dictionary codes.
    Dict {
        dict: Dict,
        codes: Vec<u32>,
        declared: bool,
    },
    /// Inferred numeric column that outgrew its dictionary.
    Numeric {
        floats: Vec<f64>,
        ints: Option<Vec<i64>>,
    },
    Int(Vec<i64>),
    Float(Vec<f64>),
    Str(Vec<String>),
    Set {
        dict: Dict,
        offsets: Vec<u32>,
        items: Vec<u32>,
        sep: Vec<u8>,
    },
}

pub(crate) struct ColBuilder {
    name: String,
    position: usize,
    role: Role,
    weight: bool,
    missing_tokens: Vec<Vec<u8>>,
    missing: Bitmap,
    state: State,
}

impl ColBuilder {
    pub(crate) fn new(
        name: String,
        position: usize,
        spec: ColumnSpec,
        file_missing: &[String],
    ) -> Self {
        let role = spec.role.unwrap_or(Role::Other);
        let tokens = spec
            .missing
            .clone()
            .unwrap_or_else(|| file_missing.to_vec());
        let weight = role == Role::Weight;
        let kind = if weight && !matches!(spec.kind, Some(Kind::Integer)) {
            Some(Kind::Float)
        } else {
            spec.kind
        };
        let state = match kind {
            None => State::Dict {
                dict: Dict::new(None),
                codes: Vec::new(),
                declared: false,
            },
            Some(Kind::Categorical) => State::Dict {
                dict: Dict::new(spec.categories.as_deref()),
                codes: Vec::new(),
                declared: true,
            },
            Some(Kind::Integer) => State::Int(Vec::new()),
            Some(Kind::Float) => State::Float(Vec::new()),
            Some(Kind::String) => State::Str(Vec::new()),
            Some(Kind::Set) => State::Set {
                dict: Dict::new(spec.categories.as_deref()),
                offsets: vec![0],
                items: Vec::new(),
                sep: spec
                    .separator
                    .clone()
                    .unwrap_or_else(|| "|".into())
                    .into_bytes(),
            },
        };
        ColBuilder {
            name,
            position,
            role,
            weight,
            missing_tokens: tokens.into_iter().map(String::into_bytes).collect(),
            missing: Bitmap::default(),
            state,
        }
    }

    pub(crate) fn push(&mut self, field: &[u8], line: u64, label: &Path) -> Result<(), DataError> {
        let is_missing = self.missing_tokens.iter().any(|t| t.as_slice() == field);
        self.missing.push(is_missing);
        let loc = || Location {
            file: label.to_path_buf(),
            line: Some(line),
            column: Some(format!("'{}' ({})", self.name, self.position)),
        };
        match &mut self.state {
            State::Dict {
                dict,
                codes,
                declared,
            } => {
                if is_missing {
                    codes.push(u32::MAX);
                    return Ok(());
                }
                let c = dict.code(field, loc)?;
                codes.push(c);
                if !*declared && dict.entries.len() > NUMERIC_SWITCH && dict.all_num {
                    let floats: Vec<f64> = codes
                        .iter()
                        .map(|&c| {
                            if c == u32::MAX {
                                f64::NAN
                            } else {
                                dict.entries[c as usize].num.unwrap_or(f64::NAN)
                            }
                        })
                        .collect();
                    let ints = dict.all_int.then(|| {
                        codes
                            .iter()
                            .map(|&c| {
                                if c == u32::MAX {
                                    0
                                } else {
                                    dict.entries[c as usize].int.unwrap_or(0)
                                }
                            })
                            .collect()
                    });
                    self.state = State::Numeric { floats, ints };
                }
            }
            State::Numeric { floats, ints } => {
                if is_missing {
                    floats.push(f64::NAN);
                    if let Some(v) = ints {
                        v.push(0);
                    }
                    return Ok(());
                }
                let text = utf8(field, &loc)?;
                let (int, num) = number_of(text);
                match num {
                    Some(x) => {
                        floats.push(x);
                        match (ints.as_mut(), int) {
                            (Some(v), Some(i)) => v.push(i),
                            (Some(_), None) => *ints = None,
                            _ => {}
                        }
                    }
                    None => {
                        // A text value after many numbers: keep everything as text.
                        let mut strings: Vec<String> = match ints {
                            Some(v) => v.iter().map(i64::to_string).collect(),
                            None => floats.iter().map(|x| crate::format_float(*x)).collect(),
                        };
                        strings.push(text.to_string());
                        self.state = State::Str(strings);
                    }
                }
            }
            State::Int(v) => {
                if is_missing {
                    v.push(0);
                    return Ok(());
                }
                let text = utf8(field, &loc)?;
                v.push(int_cell(text, self.weight).map_err(|m| DataError::input(loc(), m))?);
            }
            State::Float(v) => {
                if is_missing {
                    v.push(f64::NAN);
                    return Ok(());
                }
                let text = utf8(field, &loc)?;
                v.push(float_cell(text, self.weight).map_err(|m| DataError::input(loc(), m))?);
            }
            State::Str(v) => {
                if is_missing {
                    v.push(String::new());
                    return Ok(());
                }
                v.push(utf8(field, &loc)?.to_string());
            }
            State::Set {
                dict,
                offsets,
                items,
                sep,
            } => {
                if !is_missing {
                    let start = items.len();
                    for part in split_bytes(field, sep) {
                        if part.is_empty() {
                            return Err(DataError::input(loc(), empty_candidate(field, sep)));
                        }
                        let c = dict.code(part, loc)?;
                        if !items[start..].contains(&c) {
                            items.push(c);
                        }
                    }
                }
                offsets.push(items.len() as u32);
            }
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<Column, DataError> {
        let ColBuilder {
            name,
            role,
            missing,
            state,
            ..
        } = self;
        let n = missing.len();
        let data = match state {
            State::Dict {
                dict,
                codes,
                declared,
            } => {
                let distinct = dict.entries.len();
                let non_missing = n - missing.count_ones();
                if !declared && distinct > 0 && dict.all_int {
                    ColumnData::Integer(
                        codes
                            .iter()
                            .map(|&c| {
                                if c == u32::MAX {
                                    0
                                } else {
                                    dict.entries[c as usize].int.unwrap_or(0)
                                }
                            })
                            .collect(),
                    )
                } else if !declared && distinct > 0 && dict.all_num {
                    ColumnData::Float(
                        codes
                            .iter()
                            .map(|&c| {
                                if c == u32::MAX {
                                    f64::NAN
                                } else {
                                    dict.entries[c as usize].num.unwrap_or(f64::NAN)
                                }
                            })
                            .collect(),
                    )
                } else if !declared && distinct > 1000 && distinct * 2 > non_missing {
                    // Mostly distinct text (names, ids): plain strings.
                    ColumnData::String(
                        codes
                            .iter()
                            .map(|&c| {
                                if c == u32::MAX {
                                    String::new()
                                } else {
                                    dict.entries[c as usize].text.to_string()
                                }
                            })
                            .collect(),
                    )
                } else {
                    let (levels, remap) = dict.levels();
                    ColumnData::Categorical {
                        codes: codes
                            .iter()
                            .map(|&c| if c == u32::MAX { 0 } else { remap[c as usize] })
                            .collect(),
                        levels,
                    }
                }
            }
            State::Numeric { floats, ints } => match ints {
                Some(v) => ColumnData::Integer(v),
                None => ColumnData::Float(floats),
            },
            State::Int(v) => ColumnData::Integer(v),
            State::Float(v) => ColumnData::Float(v),
            State::Str(v) => ColumnData::String(v),
            State::Set {
                dict,
                offsets,
                items,
                ..
            } => {
                let (levels, remap) = dict.levels();
                ColumnData::Set {
                    offsets,
                    items: items.iter().map(|&c| remap[c as usize]).collect(),
                    levels,
                }
            }
        };
        Column::new(name, role, data, missing)
    }
}

pub(crate) fn split_bytes<'a>(
    field: &'a [u8],
    sep: &'a [u8],
) -> impl Iterator<Item = &'a [u8]> + 'a {
    let mut rest = Some(field);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.windows(sep.len()).position(|w| w == sep) {
            Some(p) => {
                rest = Some(&r[p + sep.len()..]);
                Some(&r[..p])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}
