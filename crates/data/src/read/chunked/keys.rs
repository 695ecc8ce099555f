//! A CSV file's integer keys counted from the reader's chunks ([`PartedCodes`]), for engines
//! that need only the key codes (class sizes counted chunk by chunk, or wildcard matching on
//! the codes made whole): no integer column is made for them and nothing is encoded again.
//!
//! The reader parses a chunk of the file per task; an inferred column holds, per chunk, a
//! dictionary of the distinct cells (each one's integer value when it has one) and one
//! dictionary code per row. When every cell of a column is an integer, the table reader turns
//! those into one `i64` per row, and the key encoder then codes each as value − minimum over
//! the column's range ([`crate::keys::ColumnCodes`]). [`CsvFile::keys`] gives the same codes
//! and cardinalities straight from the chunk codes, through a per-chunk map from dictionary
//! code to key code: the counts, and the encoding a report shows, are the table path's.
//!
//! This is the table reader, stopped short, never a second one: [`CsvFile::read`] parses the
//! file with the same code and finishes every column except the inferred integer ones, which
//! [`CsvFile::into_dataset`] finishes as the reader would have; every error is the reader's.

use std::path::Path;

use super::{ColChunk, Infer, MISSING as CELL_MISSING, Parse, Parsed, Parts, Slot};
use crate::DataError;
use crate::Dataset;
use crate::keys::offset_of_bounds;
use crate::keys::{CodeSource, MISSING, PartedCodes};
use crate::params::{ColumnSet, first_not_finite};
use crate::read::chunked::{ColPlan, Plan, chunk_bytes, parse_with};
use crate::read::{FileFormat, ReadOptions};
use crate::{Column, Kind, Role};

/// A plain (uncompressed) CSV file parsed, its inferred integer columns left as the chunks'
/// codes until asked for as keys ([`CsvFile::keys`]) or as a table ([`CsvFile::into_dataset`]).
pub struct CsvFile {
    parse: Parse,
}

impl std::fmt::Debug for CsvFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (label, kind) = match &self.parse {
            Parse::Ready(ds) => (
                std::path::PathBuf::from(ds.table.source().as_str()),
                "table",
            ),
            Parse::Chunks(p) => (p.label.clone(), "chunks"),
        };
        f.debug_struct("CsvFile")
            .field("path", &label)
            .field("parsed as", &kind)
            .finish_non_exhaustive()
    }
}

/// The chunks of an inferred column whose every observed cell is an integer, one dictionary
/// per chunk: the table reader makes it an integer column.
fn integer_chunks<'a>(plan: &ColPlan, parts: &'a Parts) -> Option<Vec<&'a Infer>> {
    if !matches!(plan.plan, Plan::Infer) {
        return None;
    }
    let infs: Vec<&Infer> = parts
        .iter()
        .map(|(c, _)| match c {
            ColChunk::Infer(inf) if inf.raw.is_none() && inf.all_int && inf.all_num => Some(inf),
            _ => None,
        })
        .collect::<Option<_>>()?;
    // At least one observed cell (otherwise the reader infers the kind another way).
    infs.iter().any(|inf| !inf.ints.is_empty()).then_some(infs)
}

impl CsvFile {
    /// Parses `path` when it is a plain CSV file (told by its first bytes, as the table reader
    /// tells it) that can be mapped; `Ok(None)` for any other file, which the table reader
    /// then reads (or refuses). A parse error is the table reader's error.
    pub fn read(path: &Path, options: &ReadOptions) -> Result<Option<CsvFile>, DataError> {
        let Ok(file) = std::fs::File::open(path) else {
            return Ok(None);
        };
        if file.metadata().map_or(true, |m| m.len() == 0) {
            return Ok(None);
        }
        // SAFETY: read only, as the table reader maps it (see `files::read_any`).
        let Ok(map) = (unsafe { memmap2::Mmap::map(&file) }) else {
            return Ok(None);
        };
        if FileFormat::sniff(&map[..map.len().min(32)]) != FileFormat::Csv {
            return Ok(None);
        }
        let file = CsvFile::parse(&map, path, options, chunk_bytes(map.len()))?;
        let rows = match &file.parse {
            Parse::Ready(ds) => ds.table.nrows(),
            Parse::Chunks(p) => p.nrows(),
        };
        if rows == 0 {
            // The table reader's error for a file without records.
            return crate::read::no_records(path, file.into_dataset()?).map(|_| None);
        }
        Ok(Some(file))
    }

    /// What the reader chose that the file and the user did not say ([`Dataset::notes`]).
    pub fn notes(&self) -> &[String] {
        match &self.parse {
            Parse::Ready(ds) => &ds.notes,
            Parse::Chunks(p) => &p.notes,
        }
    }

    /// Parses CSV text in chunks of about `chunk_bytes`; `label` names it in errors.
    pub(crate) fn parse(
        text: &[u8],
        label: &Path,
        options: &ReadOptions,
        chunk_bytes: usize,
    ) -> Result<CsvFile, DataError> {
        let hold = |plan: &ColPlan, parts: &Parts| integer_chunks(plan, parts).is_some();
        let parse = parse_with(text, label, options, chunk_bytes, &hold)?;
        Ok(CsvFile { parse })
    }

    /// The table the file makes, as [`crate::read_csv`] gives it.
    pub fn into_dataset(self) -> Result<Dataset, DataError> {
        match self.parse {
            Parse::Ready(ds) => Ok(ds),
            Parse::Chunks(parsed) => parsed.into_dataset(),
        }
    }

    /// The columns as [`ColumnSet::of`] gives them for the table, for configuring a method
    /// before the table is made.
    pub fn columns(&self) -> ColumnSet {
        let parsed = match &self.parse {
            Parse::Ready(ds) => return ds.column_set(),
            Parse::Chunks(p) => p,
        };
        let mut columns = Vec::new();
        let mut truth = Vec::new();
        let mut first_not_number = Vec::new();
        let mut truth_not_number = Vec::new();
        let mut levels = Vec::new();
        for (plan, slot) in parsed.plans.iter().zip(&parsed.columns) {
            if plan.role != Role::Truth {
                let known = match slot {
                    Slot::Done(c) => crate::params::column_levels(c),
                    // The distinct integers of the chunks' dictionaries, as the table's column
                    // would give them.
                    Slot::Held(parts) => {
                        let mut seen = std::collections::BTreeSet::new();
                        for (c, _) in parts {
                            if let ColChunk::Infer(inf) = c {
                                seen.extend(inf.ints.iter().flatten().copied());
                            }
                        }
                        (seen.len() <= ColumnSet::MAX_LEVELS)
                            .then(|| seen.into_iter().map(|x| x.to_string()).collect())
                    }
                };
                if let Some(l) = known {
                    levels.push((plan.name.clone(), l));
                }
            }
            let (kind, not_number) = match slot {
                Slot::Held(_) => (Kind::Integer, None),
                Slot::Done(c) => (
                    c.kind(),
                    (!c.kind().is_numeric())
                        .then(|| first_not_finite(c))
                        .flatten()
                        .map(|(i, t)| (c.name().to_string(), i + 1, t)),
                ),
            };
            if plan.role == Role::Truth {
                truth.push((plan.name.clone(), kind, Role::Truth));
                truth_not_number.extend(not_number);
            } else {
                columns.push((plan.name.clone(), kind, plan.role));
                first_not_number.extend(not_number);
            }
        }
        columns.extend(truth);
        first_not_number.extend(truth_not_number);
        ColumnSet {
            file: parsed.label.display().to_string(),
            columns,
            first_not_number,
            levels,
        }
    }

    /// The columns `names` as key codes by chunks, when every one is an inferred integer
    /// column (not the weight nor a truth column) whose range is below 2²⁴ wide, so that the
    /// key encoder codes it by offset; `None` otherwise.
    pub fn keys(&self, names: &[String]) -> Option<CsvKeys<'_>> {
        let Parse::Chunks(parsed) = &self.parse else {
            return None;
        };
        let mut keys = Vec::with_capacity(names.len());
        let mut cards = Vec::with_capacity(names.len());
        let mut maps = Vec::with_capacity(names.len());
        for name in names {
            let j = parsed.plans.iter().position(|p| &p.name == name)?;
            let plan = &parsed.plans[j];
            let Slot::Held(parts) = &parsed.columns[j] else {
                return None;
            };
            if plan.weight || plan.role == Role::Truth {
                return None;
            }
            let infs = integer_chunks(plan, parts)?;
            let (mut min, mut max) = (i64::MAX, i64::MIN);
            for &v in infs.iter().flat_map(|inf| &inf.ints) {
                let v = v.expect("every entry of an integer chunk is an integer");
                min = min.min(v);
                max = max.max(v);
            }
            let any_missing = parts
                .iter()
                .any(|(_, bits)| bits.words.iter().any(|&w| w != 0));
            let (lo, card) = offset_of_bounds(min, max, any_missing)?;
            maps.push(
                infs.iter()
                    .map(|inf| {
                        inf.ints
                            .iter()
                            .map(|v| (v.expect("an integer") - lo) as u32)
                            .collect()
                    })
                    .collect(),
            );
            keys.push(infs);
            cards.push(card);
        }
        Some(CsvKeys {
            parsed,
            rows: parsed.chunk_rows.clone(),
            keys,
            maps,
            cards,
        })
    }
}

/// The integer keys of a CSV file by the reader's chunks ([`CsvFile::keys`]): codes and
/// cardinalities are those [`crate::keys::ColumnCodes`] gives the columns the table reader
/// makes.
pub struct CsvKeys<'a> {
    /// The parsed file, for its finished columns.
    parsed: &'a Parsed,
    rows: Vec<usize>,
    /// Per key, per chunk: the column's builder.
    keys: Vec<Vec<&'a Infer>>,
    /// Per key, per chunk: dictionary code → key code.
    maps: Vec<Vec<Vec<u32>>>,
    cards: Vec<u32>,
}

impl std::fmt::Debug for CsvKeys<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvKeys")
            .field("chunks", &self.rows.len())
            .field("cards", &self.cards)
            .finish_non_exhaustive()
    }
}

/// A chunk's codes of one key through its map.
struct Mapped<'a> {
    codes: &'a [u32],
    map: &'a [u32],
    card: u32,
}

impl CodeSource for Mapped<'_> {
    fn len(&self) -> usize {
        self.codes.len()
    }
    fn card(&self) -> u32 {
        self.card
    }
    fn fill(&self, start: usize, out: &mut [u32]) {
        for (o, &c) in out.iter_mut().zip(&self.codes[start..]) {
            *o = if c == CELL_MISSING {
                MISSING
            } else {
                self.map[c as usize]
            };
        }
    }
}

impl PartedCodes for CsvKeys<'_> {
    fn part_rows(&self) -> &[usize] {
        &self.rows
    }
    fn cards(&self) -> &[u32] {
        &self.cards
    }
    fn for_each_piece(
        &self,
        part: usize,
        piece: &mut dyn FnMut(usize, &[&dyn CodeSource]),
    ) -> Result<bool, DataError> {
        let sources: Vec<Mapped<'_>> = (0..self.keys.len())
            .map(|k| Mapped {
                codes: &self.keys[k][part].codes,
                map: &self.maps[k][part],
                card: self.cards[k],
            })
            .collect();
        let refs: Vec<&dyn CodeSource> = sources.iter().map(|s| s as &dyn CodeSource).collect();
        piece(0, &refs);
        Ok(true)
    }
    fn column(&self, name: &str) -> Option<&Column> {
        self.parsed
            .plans
            .iter()
            .zip(&self.parsed.columns)
            .find(|(plan, _)| plan.name == name && plan.role != Role::Truth)
            .and_then(|(_, slot)| match slot {
                Slot::Done(c) => Some(c),
                Slot::Held(_) => None,
            })
    }
}
