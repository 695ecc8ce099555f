//! CSV input: header row, a delimiter, missing tokens, set-valued cells, gzip, declared or
//! inferred types, and errors that name the file, line and column.
//!
//! Reading is one pass. Every inferred column starts dictionary-encoded (cheap for the
//! categorical keys that dominate microdata); a column whose dictionary grows past 65,536
//! distinct numeric values switches to plain numeric storage so that continuous variables do
//! not hold a dictionary as large as the file.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use foldhash::fast::FixedState;

use crate::bitmap::Bitmap;
use crate::column::{Column, ColumnData, Kind, Role};
use crate::error::{DataError, Location};
use crate::schema::{ColumnSpec, Schema};
use crate::table::{Dataset, unknown_column};

/// The default missing tokens: the empty field, `NA` and `.`.
pub const DEFAULT_MISSING: [&str; 3] = ["", "NA", "."];

const NUMERIC_SWITCH: usize = 1 << 16;

/// How to read a CSV file. Later sources win: inference, then the schema, then `overrides`
/// (what a command line says, e.g. `--keys` sets the key role).
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Field delimiter (default: the schema's, else `,`).
    pub delimiter: Option<u8>,
    /// Missing tokens for every column (default: the schema's, else [`DEFAULT_MISSING`]).
    pub missing: Option<Vec<String>>,
    /// A declared schema.
    pub schema: Option<Schema>,
    /// Per-column overrides, applied field by field over the schema.
    pub overrides: Vec<(String, ColumnSpec)>,
}

impl ReadOptions {
    /// Sets `role` on each of `names` as an override.
    pub fn with_role(mut self, names: &[impl AsRef<str>], role: Role) -> Self {
        for n in names {
            self.override_spec(n.as_ref()).role = Some(role);
        }
        self
    }

    /// Declares each of `names` set-valued.
    pub fn with_set_valued(mut self, names: &[impl AsRef<str>]) -> Self {
        for n in names {
            self.override_spec(n.as_ref()).kind = Some(Kind::Set);
        }
        self
    }

    /// The override entry of a column, created empty when absent.
    pub fn override_spec(&mut self, name: &str) -> &mut ColumnSpec {
        let i = match self.overrides.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.overrides
                    .push((name.to_string(), ColumnSpec::default()));
                self.overrides.len() - 1
            }
        };
        &mut self.overrides[i].1
    }
}

/// Reads a CSV file (plain or gzip, detected by its first bytes).
pub fn read_csv(path: &Path, options: &ReadOptions) -> Result<Dataset, DataError> {
    let io = |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut buf = BufReader::with_capacity(1 << 20, file);
    let head = buf.fill_buf().map_err(io)?;
    if head.starts_with(&[0x1f, 0x8b]) {
        let gz = flate2::read::MultiGzDecoder::new(buf);
        read_csv_from(BufReader::with_capacity(1 << 20, gz), path, options)
    } else {
        read_csv_from(buf, path, options)
    }
}

/// Reads CSV from any reader; `label` names it in errors.
pub fn read_csv_from<R: Read>(
    reader: R,
    label: &Path,
    options: &ReadOptions,
) -> Result<Dataset, DataError> {
    let schema = options.schema.clone().unwrap_or_default();
    let delimiter = options.delimiter.or(schema.delimiter).unwrap_or(b',');
    let file_missing: Vec<String> = options
        .missing
        .clone()
        .or_else(|| schema.missing.clone())
        .unwrap_or_else(|| DEFAULT_MISSING.iter().map(|s| s.to_string()).collect());

    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
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
        return Err(DataError::input(
            at(None, None),
            "the file is empty: expected a header row naming the columns",
        ));
    }
    let mut names = Vec::with_capacity(record.len());
    for (j, field) in record.iter().enumerate() {
        let field = if j == 0 {
            field.strip_prefix(b"\xef\xbb\xbf").unwrap_or(field)
        } else {
            field
        };
        let name = std::str::from_utf8(field)
            .map_err(|e| {
                DataError::input(
                    at(Some(1), Some(format!("{}", j + 1))),
                    format!("header is not valid UTF-8 ({e})"),
                )
            })?
            .trim()
            .to_string();
        if name.is_empty() {
            return Err(DataError::input(
                at(Some(1), Some(format!("{}", j + 1))),
                "empty column name in the header",
            ));
        }
        if names.contains(&name) {
            return Err(DataError::input(
                at(Some(1), Some(format!("'{name}' ({})", j + 1))),
                "this column name appears twice in the header",
            ));
        }
        names.push(name);
    }

    // Every column the schema or the overrides name must exist.
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut unknown_in_schema = Vec::new();
    for (n, _) in &schema.columns {
        if !names.contains(n) {
            unknown_in_schema.push(format!(
                "columns.{n}: the file has no such column (columns: {})",
                names.join(", ")
            ));
        }
    }
    if !unknown_in_schema.is_empty() {
        return Err(DataError::Schema {
            path: label.to_path_buf(),
            problems: unknown_in_schema,
        });
    }
    for (n, _) in &options.overrides {
        if !names.contains(n) {
            return Err(unknown_column(label, n, name_refs));
        }
    }

    let mut builders: Vec<ColBuilder> = names
        .iter()
        .enumerate()
        .map(|(j, name)| {
            let mut spec = schema.get(name).cloned().unwrap_or_default();
            if let Some((_, o)) = options.overrides.iter().find(|(n, _)| n == name) {
                merge(&mut spec, o);
            }
            ColBuilder::new(name.clone(), j + 1, spec, &file_missing)
        })
        .collect();

    let ncols = names.len();
    while rdr.read_byte_record(&mut record).map_err(csv_err)? {
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != ncols {
            // A trailing completely blank line is not a record.
            if record.len() == 1 && record.get(0).is_some_and(<[u8]>::is_empty) {
                continue;
            }
            return Err(DataError::input(
                at(Some(line), None),
                format!(
                    "expected {ncols} fields as in the header, found {}",
                    record.len()
                ),
            ));
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

fn merge(spec: &mut ColumnSpec, o: &ColumnSpec) {
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
        let t = text.trim();
        let int = t.parse::<i64>().ok();
        let num = int
            .map(|i| i as f64)
            .or_else(|| t.parse::<f64>().ok().filter(|x| x.is_finite()));
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
            let shown: Vec<&str> = self.entries.iter().take(20).map(|e| &*e.text).collect();
            return Err(DataError::input(
                loc(),
                format!(
                    "'{text}' is not one of the declared categories [{}]",
                    shown.join(", ")
                ),
            ));
        }
        Ok(self.insert(field, text))
    }

    /// Level order: declared order when fixed; numeric order when every level is a number;
    /// lexicographic otherwise. Returns the levels and old code → new code.
    fn levels(&self) -> (Vec<String>, Vec<u32>) {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        if !self.fixed {
            if self.all_num {
                order.sort_by(|&a, &b| {
                    let (x, y) = (
                        self.entries[a].num.unwrap_or(0.0),
                        self.entries[b].num.unwrap_or(0.0),
                    );
                    x.total_cmp(&y)
                        .then_with(|| self.entries[a].text.cmp(&self.entries[b].text))
                });
            } else {
                order.sort_by(|&a, &b| self.entries[a].text.cmp(&self.entries[b].text));
            }
        }
        let mut remap = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            remap[old] = new as u32;
        }
        (
            order
                .iter()
                .map(|&i| self.entries[i].text.to_string())
                .collect(),
            remap,
        )
    }
}

fn utf8<'a>(field: &'a [u8], loc: &impl Fn() -> Location) -> Result<&'a str, DataError> {
    std::str::from_utf8(field).map_err(|e| {
        DataError::input(
            loc(),
            format!(
                "invalid UTF-8 at byte {} of the field; expected UTF-8 text",
                e.valid_up_to() + 1
            ),
        )
    })
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

struct ColBuilder {
    name: String,
    position: usize,
    role: Role,
    weight: bool,
    missing_tokens: Vec<Vec<u8>>,
    missing: Bitmap,
    state: State,
}

impl ColBuilder {
    fn new(name: String, position: usize, spec: ColumnSpec, file_missing: &[String]) -> Self {
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

    fn push(&mut self, field: &[u8], line: u64, label: &Path) -> Result<(), DataError> {
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
                let t = text.trim();
                let int = t.parse::<i64>().ok();
                match int
                    .map(|i| i as f64)
                    .or_else(|| t.parse::<f64>().ok().filter(|x| x.is_finite()))
                {
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
                            None => floats
                                .iter()
                                .map(|x| crate::column::format_float(*x))
                                .collect(),
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
                let t = text.trim();
                let parsed = t.parse::<i64>().ok().or_else(|| {
                    t.parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15)
                        .map(|x| x as i64)
                });
                match parsed {
                    Some(i) if self.weight && i < 0 => {
                        return Err(DataError::input(
                            loc(),
                            format!("weight '{text}' is negative; expected a weight ≥ 0"),
                        ));
                    }
                    Some(i) => v.push(i),
                    None => {
                        return Err(DataError::input(
                            loc(),
                            format!("expected an integer, found '{text}'"),
                        ));
                    }
                }
            }
            State::Float(v) => {
                if is_missing {
                    v.push(f64::NAN);
                    return Ok(());
                }
                let text = utf8(field, &loc)?;
                match text.trim().parse::<f64>() {
                    Ok(x) if !x.is_finite() => {
                        return Err(DataError::input(
                            loc(),
                            format!("expected a finite number, found '{text}'"),
                        ));
                    }
                    Ok(x) if self.weight && x < 0.0 => {
                        return Err(DataError::input(
                            loc(),
                            format!("weight '{text}' is negative; expected a weight ≥ 0"),
                        ));
                    }
                    Ok(x) => v.push(x),
                    Err(_) => {
                        let what = if self.weight {
                            "a weight (a number ≥ 0)"
                        } else {
                            "a number"
                        };
                        return Err(DataError::input(
                            loc(),
                            format!("expected {what}, found '{text}'"),
                        ));
                    }
                }
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
                            return Err(DataError::input(
                                loc(),
                                format!(
                                    "empty candidate in set-valued cell '{}'; expected values separated by '{}'",
                                    String::from_utf8_lossy(field),
                                    String::from_utf8_lossy(sep)
                                ),
                            ));
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

    fn finish(self) -> Result<Column, DataError> {
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

fn split_bytes<'a>(field: &'a [u8], sep: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
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
