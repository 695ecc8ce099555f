//! Columns: typed storage, an explicit missing mask, and a role.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::bitmap::Bitmap;
use crate::error::DataError;

/// What a variable is for. Only the evaluator of attacks may read `Truth` columns, which is why a
/// [`Table`](crate::Table) cannot hold one: they are set apart as [`Dataset::truth`](crate::Dataset::truth).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// A direct identifier (name, address): never released.
    Identifier,
    /// A key variable (quasi-identifier) an intruder can know.
    Key,
    /// A sensitive variable the intruder wants to learn.
    Sensitive,
    /// A sampling (design) weight.
    Weight,
    /// A group such as a household id.
    Group,
    /// A wave (time point) of a panel.
    Wave,
    /// Ground truth (true person id, true original value): evaluator only.
    Truth,
    /// Anything else.
    Other,
}

impl Role {
    /// Every role, in the order above.
    pub const ALL: [Role; 8] = [
        Role::Identifier,
        Role::Key,
        Role::Sensitive,
        Role::Weight,
        Role::Group,
        Role::Wave,
        Role::Truth,
        Role::Other,
    ];

    /// The name used in schema files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Identifier => "identifier",
            Role::Key => "key",
            Role::Sensitive => "sensitive",
            Role::Weight => "weight",
            Role::Group => "group",
            Role::Wave => "wave",
            Role::Truth => "truth",
            Role::Other => "other",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .iter()
            .copied()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown role '{s}'; expected one of: {}",
                    Role::ALL.map(Role::as_str).join(", ")
                )
            })
    }
}

/// The storage type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Dictionary-encoded categories with a declared or sorted level order.
    Categorical,
    /// 64-bit integers.
    Integer,
    /// 64-bit floats.
    Float,
    /// Free text (names, addresses), not dictionary-encoded.
    String,
    /// Set-valued categorical: a cell holds one or more possible levels, e.g. `{3,4}`.
    Set,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 5] = [
        Kind::Categorical,
        Kind::Integer,
        Kind::Float,
        Kind::String,
        Kind::Set,
    ];

    /// The name used in schema files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Categorical => "categorical",
            Kind::Integer => "integer",
            Kind::Float => "float",
            Kind::String => "string",
            Kind::Set => "set",
        }
    }

    /// Whether values are numbers.
    pub fn is_numeric(self) -> bool {
        matches!(self, Kind::Integer | Kind::Float)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::ALL
            .iter()
            .copied()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown type '{s}'; expected one of: {}",
                    Kind::ALL.map(Kind::as_str).join(", ")
                )
            })
    }
}

/// The values of a column. Values at missing cells are unspecified placeholders (0, NaN, "" or
/// an empty set): always consult [`Column::is_missing`].
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnData {
    /// `codes[i]` indexes `levels`.
    Categorical {
        /// One code per row.
        codes: Vec<u32>,
        /// Level labels in their order.
        levels: Vec<String>,
    },
    /// Integers.
    Integer(Vec<i64>),
    /// Floats.
    Float(Vec<f64>),
    /// Text.
    String(Vec<String>),
    /// Row `i` holds `items[offsets[i]..offsets[i + 1]]`, codes into `levels`, in the order written.
    Set {
        /// `n + 1` offsets into `items`.
        offsets: Vec<u32>,
        /// Level codes.
        items: Vec<u32>,
        /// Level labels in their order.
        levels: Vec<String>,
    },
}

/// A named, typed column with an explicit missing mask and a role.
///
/// Two columns are equal when their names, roles, kinds, levels, missing masks and observed
/// values are equal; the placeholders at missing cells do not count.
#[derive(Debug, Clone)]
pub struct Column {
    name: String,
    role: Role,
    data: ColumnData,
    missing: Bitmap,
}

impl PartialEq for Column {
    fn eq(&self, other: &Self) -> bool {
        if self.name != other.name
            || self.role != other.role
            || self.kind() != other.kind()
            || self.levels() != other.levels()
            || self.missing != other.missing
        {
            return false;
        }
        let observed = |i: &usize| !self.missing.get(*i);
        let n = self.len();
        match (&self.data, &other.data) {
            (
                ColumnData::Categorical { codes: a, .. },
                ColumnData::Categorical { codes: b, .. },
            ) => (0..n).filter(observed).all(|i| a[i] == b[i]),
            (ColumnData::Integer(a), ColumnData::Integer(b)) => {
                (0..n).filter(observed).all(|i| a[i] == b[i])
            }
            (ColumnData::Float(a), ColumnData::Float(b)) => (0..n)
                .filter(observed)
                .all(|i| a[i].to_bits() == b[i].to_bits()),
            (ColumnData::String(a), ColumnData::String(b)) => {
                (0..n).filter(observed).all(|i| a[i] == b[i])
            }
            (ColumnData::Set { .. }, ColumnData::Set { .. }) => {
                (0..n).all(|i| self.set_items(i) == other.set_items(i))
            }
            _ => false,
        }
    }
}

impl Column {
    /// Builds a column, checking that the data and mask agree in length and codes are in range.
    pub fn new(
        name: impl Into<String>,
        role: Role,
        data: ColumnData,
        missing: Bitmap,
    ) -> Result<Self, DataError> {
        let name = name.into();
        let len = match &data {
            ColumnData::Categorical { codes, levels } => {
                for (i, &c) in codes.iter().enumerate() {
                    if !missing.get_or(i) && c as usize >= levels.len() {
                        return Err(DataError::Invalid(format!(
                            "column '{name}' row {}: code {c} but only {} levels",
                            i + 1,
                            levels.len()
                        )));
                    }
                }
                codes.len()
            }
            ColumnData::Integer(v) => v.len(),
            ColumnData::Float(v) => v.len(),
            ColumnData::String(v) => v.len(),
            ColumnData::Set {
                offsets,
                items,
                levels,
            } => {
                if offsets.is_empty()
                    || offsets[0] != 0
                    || *offsets.last().unwrap_or(&0) as usize != items.len()
                {
                    return Err(DataError::Invalid(format!(
                        "column '{name}': set offsets do not cover the items"
                    )));
                }
                if offsets.windows(2).any(|w| w[0] > w[1]) {
                    return Err(DataError::Invalid(format!(
                        "column '{name}': set offsets decrease"
                    )));
                }
                if items.iter().any(|&c| c as usize >= levels.len()) {
                    return Err(DataError::Invalid(format!(
                        "column '{name}': set item out of level range"
                    )));
                }
                offsets.len() - 1
            }
        };
        if len != missing.len() {
            return Err(DataError::Invalid(format!(
                "column '{name}': {len} values but a missing mask of {}",
                missing.len()
            )));
        }
        Ok(Column {
            name,
            role,
            data,
            missing,
        })
    }

    /// A categorical column from optional labels; levels in order of first appearance unless
    /// `levels` is given (then every label must be one of them).
    pub fn categorical<S: AsRef<str>>(
        name: impl Into<String>,
        role: Role,
        values: &[Option<S>],
        levels: Option<Vec<String>>,
    ) -> Result<Self, DataError> {
        let name = name.into();
        let mut levels = levels.unwrap_or_default();
        let fixed = !levels.is_empty();
        let mut index: std::collections::HashMap<String, u32> = levels
            .iter()
            .enumerate()
            .map(|(i, l)| (l.clone(), i as u32))
            .collect();
        let mut codes = Vec::with_capacity(values.len());
        let mut missing = Bitmap::new(values.len());
        for (i, v) in values.iter().enumerate() {
            match v {
                None => {
                    missing.set(i);
                    codes.push(0);
                }
                Some(s) => {
                    let s = s.as_ref();
                    let code = match index.get(s) {
                        Some(&c) => c,
                        None if fixed => {
                            return Err(DataError::Invalid(format!(
                                "column '{name}' row {}: '{s}' is not a declared level",
                                i + 1
                            )));
                        }
                        None => {
                            let c = levels.len() as u32;
                            levels.push(s.to_string());
                            index.insert(s.to_string(), c);
                            c
                        }
                    };
                    codes.push(code);
                }
            }
        }
        Column::new(
            name,
            role,
            ColumnData::Categorical { codes, levels },
            missing,
        )
    }

    /// An integer column from optional values.
    pub fn integer(name: impl Into<String>, role: Role, values: &[Option<i64>]) -> Self {
        let missing = Bitmap::from_bools(&values.iter().map(Option::is_none).collect::<Vec<_>>());
        let data = ColumnData::Integer(values.iter().map(|v| v.unwrap_or(0)).collect());
        Column {
            name: name.into(),
            role,
            data,
            missing,
        }
    }

    /// A float column from optional values (NaN is also taken as missing).
    pub fn float(name: impl Into<String>, role: Role, values: &[Option<f64>]) -> Self {
        let missing = Bitmap::from_bools(
            &values
                .iter()
                .map(|v| v.is_none_or(f64::is_nan))
                .collect::<Vec<_>>(),
        );
        let data = ColumnData::Float(values.iter().map(|v| v.unwrap_or(f64::NAN)).collect());
        Column {
            name: name.into(),
            role,
            data,
            missing,
        }
    }

    /// A text column from optional values.
    pub fn string<S: AsRef<str>>(
        name: impl Into<String>,
        role: Role,
        values: &[Option<S>],
    ) -> Self {
        let missing = Bitmap::from_bools(&values.iter().map(Option::is_none).collect::<Vec<_>>());
        let data = ColumnData::String(
            values
                .iter()
                .map(|v| {
                    v.as_ref()
                        .map(|s| s.as_ref().to_string())
                        .unwrap_or_default()
                })
                .collect(),
        );
        Column {
            name: name.into(),
            role,
            data,
            missing,
        }
    }

    /// A set-valued column; an empty set is missing. Levels as for [`Column::categorical`].
    pub fn set<S: AsRef<str>>(
        name: impl Into<String>,
        role: Role,
        values: &[Vec<S>],
        levels: Option<Vec<String>>,
    ) -> Result<Self, DataError> {
        let name = name.into();
        let mut levels = levels.unwrap_or_default();
        let fixed = !levels.is_empty();
        let mut offsets = vec![0u32];
        let mut items = Vec::new();
        let mut missing = Bitmap::new(values.len());
        for (i, cell) in values.iter().enumerate() {
            if cell.is_empty() {
                missing.set(i);
            }
            for s in cell {
                let s = s.as_ref();
                let code = match levels.iter().position(|l| l == s) {
                    Some(c) => c as u32,
                    None if fixed => {
                        return Err(DataError::Invalid(format!(
                            "column '{name}' row {}: '{s}' is not a declared level",
                            i + 1
                        )));
                    }
                    None => {
                        levels.push(s.to_string());
                        (levels.len() - 1) as u32
                    }
                };
                if !items[*offsets.last().unwrap_or(&0) as usize..].contains(&code) {
                    items.push(code);
                }
            }
            offsets.push(items.len() as u32);
        }
        Column::new(
            name,
            role,
            ColumnData::Set {
                offsets,
                items,
                levels,
            },
            missing,
        )
    }

    /// The column's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The column's role.
    pub fn role(&self) -> Role {
        self.role
    }

    pub(crate) fn set_role_unchecked(&mut self, role: Role) {
        self.role = role;
    }

    /// The column with another role (a [`Table`](crate::Table) still refuses role truth).
    pub fn with_role(mut self, role: Role) -> Column {
        self.role = role;
        self
    }

    /// Renames the column.
    pub fn rename(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }

    /// The storage kind.
    pub fn kind(&self) -> Kind {
        match self.data {
            ColumnData::Categorical { .. } => Kind::Categorical,
            ColumnData::Integer(_) => Kind::Integer,
            ColumnData::Float(_) => Kind::Float,
            ColumnData::String(_) => Kind::String,
            ColumnData::Set { .. } => Kind::Set,
        }
    }

    /// The values.
    pub fn data(&self) -> &ColumnData {
        &self.data
    }

    /// The missing mask (set bit = missing).
    pub fn missing(&self) -> &Bitmap {
        &self.missing
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.missing.len()
    }

    /// True when the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty()
    }

    /// Whether row `i` is missing.
    #[inline]
    pub fn is_missing(&self, i: usize) -> bool {
        self.missing.get(i)
    }

    /// Number of missing cells.
    pub fn missing_count(&self) -> usize {
        self.missing.count_ones()
    }

    /// The level labels of a categorical or set-valued column.
    pub fn levels(&self) -> Option<&[String]> {
        match &self.data {
            ColumnData::Categorical { levels, .. } | ColumnData::Set { levels, .. } => Some(levels),
            _ => None,
        }
    }

    /// The level codes of row `i` of a set-valued column (a categorical cell gives one code).
    pub fn set_items(&self, i: usize) -> &[u32] {
        match &self.data {
            ColumnData::Set { offsets, items, .. } => {
                &items[offsets[i] as usize..offsets[i + 1] as usize]
            }
            ColumnData::Categorical { codes, .. } if !self.is_missing(i) => {
                std::slice::from_ref(&codes[i])
            }
            _ => &[],
        }
    }

    /// Row `i` as a number: integers and floats as they are, categorical levels when the label
    /// parses as a number. `None` when missing or not numeric.
    pub fn as_f64(&self, i: usize) -> Option<f64> {
        if self.is_missing(i) {
            return None;
        }
        match &self.data {
            ColumnData::Integer(v) => Some(v[i] as f64),
            ColumnData::Float(v) => Some(v[i]),
            ColumnData::Categorical { codes, levels } => {
                levels[codes[i] as usize].trim().parse().ok()
            }
            ColumnData::String(v) => v[i].trim().parse().ok(),
            ColumnData::Set { .. } => None,
        }
    }

    /// Row `i` as text, as it would be written to CSV (`None` when missing). Set cells are
    /// joined with `|`.
    pub fn text(&self, i: usize) -> Option<Cow<'_, str>> {
        if self.is_missing(i) {
            return None;
        }
        Some(match &self.data {
            ColumnData::Categorical { codes, levels } => {
                Cow::Borrowed(levels[codes[i] as usize].as_str())
            }
            ColumnData::Integer(v) => Cow::Owned(v[i].to_string()),
            ColumnData::Float(v) => Cow::Owned(format_float(v[i])),
            ColumnData::String(v) => Cow::Borrowed(v[i].as_str()),
            ColumnData::Set { levels, .. } => {
                let parts: Vec<&str> = self
                    .set_items(i)
                    .iter()
                    .map(|&c| levels[c as usize].as_str())
                    .collect();
                Cow::Owned(parts.join("|"))
            }
        })
    }

    /// A new column holding rows `rows` in that order.
    pub fn take(&self, rows: &[usize]) -> Column {
        let data = match &self.data {
            ColumnData::Categorical { codes, levels } => ColumnData::Categorical {
                codes: rows.iter().map(|&r| codes[r]).collect(),
                levels: levels.clone(),
            },
            ColumnData::Integer(v) => ColumnData::Integer(rows.iter().map(|&r| v[r]).collect()),
            ColumnData::Float(v) => ColumnData::Float(rows.iter().map(|&r| v[r]).collect()),
            ColumnData::String(v) => {
                ColumnData::String(rows.iter().map(|&r| v[r].clone()).collect())
            }
            ColumnData::Set { levels, .. } => {
                let mut offsets = Vec::with_capacity(rows.len() + 1);
                offsets.push(0u32);
                let mut items = Vec::new();
                for &r in rows {
                    items.extend_from_slice(self.set_items(r));
                    offsets.push(items.len() as u32);
                }
                ColumnData::Set {
                    offsets,
                    items,
                    levels: levels.clone(),
                }
            }
        };
        Column {
            name: self.name.clone(),
            role: self.role,
            data,
            missing: self.missing.take(rows),
        }
    }
}

/// Formats a float so that it reads back to the same value, without a trailing `.0` on whole
/// numbers.
pub fn format_float(x: f64) -> String {
    if x.is_finite() && x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

trait BitmapExt {
    fn get_or(&self, i: usize) -> bool;
}
impl BitmapExt for Bitmap {
    fn get_or(&self, i: usize) -> bool {
        i < self.len() && self.get(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_and_kinds_round_trip_and_reject_unknown() {
        for r in Role::ALL {
            assert_eq!(r.as_str().parse::<Role>().unwrap(), r);
        }
        for k in Kind::ALL {
            assert_eq!(k.as_str().parse::<Kind>().unwrap(), k);
        }
        let e = "quasi".parse::<Role>().unwrap_err();
        assert!(
            e.contains("unknown role 'quasi'") && e.contains("key"),
            "{e}"
        );
        assert!("text".parse::<Kind>().unwrap_err().contains("categorical"));
    }

    #[test]
    fn set_cells_keep_their_candidates_in_order() {
        let c = Column::set(
            "m",
            Role::Key,
            &[vec!["3", "4"], vec!["3"], vec![], vec!["4", "3"]],
            None,
        )
        .unwrap();
        assert!(c.is_missing(2));
        assert_eq!(c.text(0).unwrap(), "3|4");
        assert_eq!(c.set_items(3), &[1, 0]);
    }

    #[test]
    fn categorical_with_declared_levels_rejects_others() {
        let c = Column::categorical(
            "g",
            Role::Key,
            &[Some("F"), None],
            Some(vec!["M".into(), "F".into()]),
        )
        .unwrap();
        assert_eq!(
            c.data(),
            &ColumnData::Categorical {
                codes: vec![1, 0],
                levels: vec!["M".into(), "F".into()]
            }
        );
        assert!(Column::categorical("g", Role::Key, &[Some("X")], Some(vec!["M".into()])).is_err());
    }

    #[test]
    fn take_keeps_rows_in_order() {
        let c = Column::string("s", Role::Other, &[Some("a"), None, Some("c")]);
        let t = c.take(&[2, 1, 2]);
        assert_eq!(t.text(0).unwrap(), "c");
        assert!(t.is_missing(1));
        assert_eq!(t.len(), 3);
    }
}
