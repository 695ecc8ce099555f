//! The parallel CSV reader.
//!
//! 1. **Chunking.** After the header, the text is cut into chunks of about equal size, each cut
//!    right after a `\n`. A cut is a guess: the `\n` may lie inside a quoted field. Every chunk
//!    is parsed as if it started a record; a chunk whose parse does not end exactly at its end
//!    between two records (it ends inside a quoted field) proves the next cut wrong. Chunk 0
//!    starts at a true record boundary, so by induction all cuts are right when every chunk ends
//!    between records. When one does not, the cuts are recomputed by one exact sequential scan
//!    of the quoting state and the chunks parsed again.
//! 2. **Parsing** (every thread, one chunk each): the parser is the state machine of `csv-core`
//!    as the one-pass reader configures it (quote `"`, doubled quotes, `\r`, `\n` and `\r\n` end
//!    records, blank lines skipped), written out over byte slices so that unquoted fields are
//!    borrowed, not copied. Each column has a chunk builder: chunk-local dictionaries for
//!    categorical and inferred columns (an inferred column whose local dictionary outgrows
//!    65,536 values keeps its raw text instead), plain vectors for declared numbers and text.
//!    A chunk stops at its first error, remembered with the record's position.
//! 3. **Merging** (every thread, one column each): local dictionaries are merged in chunk order,
//!    which is the order of first appearance in the file, and codes are remapped. Inference is
//!    reconciled with the one-pass rules: a column is integer (float) when every observed cell
//!    is an integer (a number); otherwise text stays a dictionary unless it is mostly distinct;
//!    levels are sorted as the one-pass reader sorts them. The only outcome that depends on the
//!    order of values (the one-pass reader's switch to numeric storage followed by text, which
//!    keeps numbers formatted before the first text value) is rebuilt by replaying the cells
//!    through the one-pass column builder.
//! 4. **Errors**: the first chunk (in file order) that stopped at an error gives the error, with
//!    its line counted as the one-pass reader counts lines.
//!
//! Results never depend on the number of threads or on where the cuts fall.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

mod keys;
mod plain;

pub use keys::{CsvFile, CsvKeys};

use super::intern::{Interner, Key};
use super::onepass::{self, ColBuilder, Config};
use super::textcheck;
use super::{NUMERIC_SWITCH, ReadOptions};
use crate::Bitmap;
use crate::ColumnSpec;
use crate::Dataset;
use crate::{Column, ColumnData, Kind, Role};
use crate::{DataError, Location};

const BOM: &[u8] = b"\xef\xbb\xbf";

/// Reads CSV text in parallel with chunks sized for the current rayon pool.
pub(crate) fn read(text: &[u8], label: &Path, options: &ReadOptions) -> Result<Dataset, DataError> {
    read_with(text, label, options, chunk_bytes(text.len()))
}

/// Chunks of a text of `len` bytes: four per thread of the current rayon pool, 256 KiB to 64 MiB.
pub(crate) fn chunk_bytes(len: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    (len / (threads * 4)).clamp(1 << 18, 64 << 20)
}

/// Reads CSV text in parallel with chunks of about `chunk_bytes`.
pub(crate) fn read_with(
    text: &[u8],
    label: &Path,
    options: &ReadOptions,
    chunk_bytes: usize,
) -> Result<Dataset, DataError> {
    match parse_with(text, label, options, chunk_bytes, &|_, _| false)? {
        Parse::Ready(ds) => Ok(ds),
        Parse::Chunks(parsed) => parsed.into_dataset(),
    }
}

/// A CSV text parsed: a table already (read in one pass), or its chunks' column builders.
pub(crate) enum Parse {
    Ready(Dataset),
    Chunks(Parsed),
}

/// A column's chunk builders with their missing masks, in file order.
pub(crate) type Parts = Vec<(ColChunk, Bits)>;

/// A CSV text parsed by chunks: every column finished into its [`Column`] but those held back
/// (left as chunk builders, finished by [`Parsed::into_dataset`] as they would have been).
pub(crate) struct Parsed {
    pub(crate) label: PathBuf,
    cfg: Config,
    pub(crate) plans: Vec<ColPlan>,
    /// Rows of each chunk, in file order.
    pub(crate) chunk_rows: Vec<usize>,
    pub(crate) columns: Vec<Slot>,
    /// The reader's notes ([`Dataset::notes`]).
    pub(crate) notes: Vec<String>,
}

/// A column of [`Parsed`].
pub(crate) enum Slot {
    Done(Column),
    Held(Parts),
}

impl Parsed {
    pub(crate) fn nrows(&self) -> usize {
        self.chunk_rows.iter().sum()
    }

    /// The table, as [`read_with`] gives it.
    pub(crate) fn into_dataset(self) -> Result<Dataset, DataError> {
        let nrows = self.nrows();
        let Parsed {
            label,
            cfg,
            plans,
            columns,
            notes,
            ..
        } = self;
        let columns = columns
            .into_par_iter()
            .zip(plans.par_iter())
            .map(|(slot, plan)| match slot {
                Slot::Done(c) => Ok(c),
                Slot::Held(parts) => finish_column(plan, parts, nrows, &cfg, &label),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut ds = Dataset::split_truth(label, columns)?;
        ds.notes = notes;
        Ok(ds)
    }
}

/// Parses CSV text in parallel with chunks of about `chunk_bytes`, finishing every column but
/// those `hold` keeps as chunk builders.
pub(crate) fn parse_with(
    text: &[u8],
    label: &Path,
    options: &ReadOptions,
    chunk_bytes: usize,
    hold: &(dyn Fn(&ColPlan, &Parts) -> bool + Sync),
) -> Result<Parse, DataError> {
    // UTF-16 decoded; delimiter and decimal mark decided when not given (`sniff`).
    let prepared = super::sniff::prepare(text, label, options)?;
    let notes = prepared.notes.clone();
    let parse = parse_prepared(&prepared.text, label, &prepared.options, chunk_bytes, hold)?;
    Ok(match parse {
        Parse::Ready(mut ds) => {
            ds.notes = notes;
            Parse::Ready(ds)
        }
        Parse::Chunks(mut parsed) => {
            parsed.notes = notes;
            Parse::Chunks(parsed)
        }
    })
}

/// [`parse_with`] of a text made ready by [`super::sniff::prepare`].
fn parse_prepared(
    text: &[u8],
    label: &Path,
    options: &ReadOptions,
    chunk_bytes: usize,
    hold: &(dyn Fn(&ColPlan, &Parts) -> bool + Sync),
) -> Result<Parse, DataError> {
    let cfg = Config::new(options);
    if matches!(cfg.delimiter, b'"' | b'\r' | b'\n') {
        // Degenerate delimiters make records undecidable from a cut; read them in one pass.
        return onepass::read(text, label, options).map(Parse::Ready);
    }
    let body = text.strip_prefix(BOM).unwrap_or(text);
    textcheck::check_text(text, label, cfg.delimiter)?;
    let mut parser = Parser::new(body, cfg.delimiter, true);
    let mut fields = Fields::default();
    if parser.record(&mut fields) != Rec::Record {
        return Err(onepass::empty_file(label));
    }
    let names = onepass::header_names((0..fields.len()).map(|i| fields.get(body, i)), label)?;
    let specs = onepass::column_specs(&names, label, options)?;
    let plans: Vec<ColPlan> = names
        .iter()
        .zip(specs)
        .enumerate()
        .map(|(j, (name, spec))| ColPlan::new(name, j + 1, spec, &cfg.file_missing))
        .collect();
    let ctx = Ctx {
        body,
        delim: cfg.delimiter,
        plans: &plans,
        label,
    };
    let data_start = parser.pos;
    let lines = Lines {
        nl_before: parser.nl,
        first_line: 1 + parser.nl,
    };

    let cuts = guess_cuts(body, data_start, chunk_bytes);
    let mut chunks = parse_chunks(&ctx, &cuts);
    let outcome = match check(&ctx, &chunks, lines) {
        Check::Ok => None,
        Check::Error(e) => return Err(e),
        Check::BadCut => {
            let cuts = exact_cuts(body, data_start, chunk_bytes, cfg.delimiter);
            chunks = parse_chunks(&ctx, &cuts);
            match check(&ctx, &chunks, lines) {
                Check::Ok => None,
                Check::Error(e) => return Err(e),
                // Exact cuts always end between records; keep the one-pass result if not.
                Check::BadCut => Some(onepass::read(text, label, options)),
            }
        }
    };
    if let Some(result) = outcome {
        return result.map(Parse::Ready);
    }

    // Transpose chunk-major builders into column-major lists, then merge columns in parallel.
    let chunk_rows: Vec<usize> = chunks.iter().map(|c| c.rows).collect();
    let nrows: usize = chunk_rows.iter().sum();
    let mut per_column: Vec<Parts> = (0..plans.len())
        .map(|_| Vec::with_capacity(chunks.len()))
        .collect();
    for chunk in chunks {
        for (j, col) in chunk.cols.into_iter().enumerate() {
            per_column[j].push(col);
        }
    }
    let columns = per_column
        .into_par_iter()
        .zip(plans.par_iter())
        .map(|(parts, plan)| {
            if hold(plan, &parts) {
                Ok(Slot::Held(parts))
            } else {
                finish_column(plan, parts, nrows, &cfg, label).map(Slot::Done)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Parse::Chunks(Parsed {
        label: PathBuf::from(label),
        cfg,
        plans,
        chunk_rows,
        columns,
        notes: Vec::new(),
    }))
}

struct Ctx<'a> {
    body: &'a [u8],
    delim: u8,
    plans: &'a [ColPlan],
    label: &'a Path,
}

#[derive(Clone, Copy)]
struct Lines {
    /// `\n` bytes before the first data chunk.
    nl_before: u64,
    /// The line the one-pass reader reports for the first data record.
    first_line: u64,
}

// ---------------------------------------------------------------------------------------------
// Cuts

/// Cut points `[data_start, …, body.len()]`: each inner cut right after the first `\n` at or past
/// an equal share of the text.
fn guess_cuts(body: &[u8], data_start: usize, chunk_bytes: usize) -> Vec<usize> {
    let len = body.len() - data_start;
    let n = len.div_ceil(chunk_bytes.max(1)).max(1);
    let mut cuts = vec![data_start];
    for i in 1..n {
        let target = data_start + len / n * i;
        let from = target.max(*cuts.last().expect("non-empty"));
        match memchr::memchr(b'\n', &body[from..]) {
            Some(p) if from + p + 1 < body.len() => {
                let cut = from + p + 1;
                if cut > *cuts.last().expect("non-empty") {
                    cuts.push(cut);
                }
            }
            _ => break,
        }
    }
    cuts.push(body.len());
    cuts.dedup();
    if cuts.len() == 1 {
        cuts.push(body.len());
    }
    cuts
}

/// Cut points known to lie between records: one sequential scan of the quoting state.
fn exact_cuts(body: &[u8], data_start: usize, chunk_bytes: usize, delimiter: u8) -> Vec<usize> {
    #[derive(PartialEq)]
    enum S {
        FieldStart,
        Unquoted,
        Quoted,
        AfterQuote,
    }
    let step = chunk_bytes.max(1);
    let mut cuts = vec![data_start];
    let mut next = data_start + step;
    let mut s = S::FieldStart;
    let mut i = data_start;
    while i < body.len() {
        let b = body[i];
        s = match s {
            S::Quoted => {
                if b == b'"' {
                    S::AfterQuote
                } else {
                    S::Quoted
                }
            }
            S::FieldStart if b == b'"' => S::Quoted,
            S::AfterQuote if b == b'"' => S::Quoted,
            _ if b == delimiter => S::FieldStart,
            _ if b == b'\n' || b == b'\r' => {
                if b == b'\n' && i + 1 >= next && i + 1 < body.len() {
                    cuts.push(i + 1);
                    next = i + 1 + step;
                }
                S::FieldStart
            }
            _ => S::Unquoted,
        };
        i += 1;
    }
    cuts.push(body.len());
    cuts.dedup();
    if cuts.len() == 1 {
        cuts.push(body.len());
    }
    cuts
}

// ---------------------------------------------------------------------------------------------
// The record parser

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rec {
    /// A record was read (its terminator consumed).
    Record,
    /// No more records.
    End,
    /// The chunk ended inside a record (only when the chunk is not the last).
    Incomplete,
}

enum FieldEnd {
    Delim,
    Term,
    Eof,
}

/// The fields of one record: spans into the input, or into `scratch` for quoted fields that had
/// to be unescaped.
#[derive(Default)]
struct Fields {
    spans: Vec<(usize, usize, bool)>,
    scratch: Vec<u8>,
}

impl Fields {
    fn len(&self) -> usize {
        self.spans.len()
    }

    #[inline]
    fn get<'a>(&'a self, input: &'a [u8], i: usize) -> &'a [u8] {
        let (a, b, s) = self.spans[i];
        if s { &self.scratch[a..b] } else { &input[a..b] }
    }
}

struct Parser<'a> {
    buf: &'a [u8],
    pos: usize,
    /// `\n` bytes consumed.
    nl: u64,
    delim: u8,
    last: bool,
    stop: [bool; 256],
}

impl<'a> Parser<'a> {
    fn new(buf: &'a [u8], delim: u8, last: bool) -> Self {
        let mut stop = [false; 256];
        stop[delim as usize] = true;
        stop[b'\r' as usize] = true;
        stop[b'\n' as usize] = true;
        Parser {
            buf,
            pos: 0,
            nl: 0,
            delim,
            last,
            stop,
        }
    }

    #[inline]
    fn eof(&self) -> Rec {
        if self.last {
            Rec::Record
        } else {
            Rec::Incomplete
        }
    }

    /// Consumes the record terminator at `pos` (`\r`, `\n` or `\r\n`, so that the line count
    /// after a record includes its own line end).
    #[inline]
    fn term(&mut self) {
        if self.buf[self.pos] == b'\r' && self.buf.get(self.pos + 1) == Some(&b'\n') {
            self.pos += 1;
        }
        self.nl += (self.buf[self.pos] == b'\n') as u64;
        self.pos += 1;
    }

    #[inline]
    fn scan_unquoted(&self, mut p: usize) -> usize {
        while p < self.buf.len() && !self.stop[self.buf[p] as usize] {
            p += 1;
        }
        p
    }

    /// After an unquoted field ending at `pos`: the delimiter, a terminator or the end.
    #[inline]
    fn end_of_field(&mut self) -> FieldEnd {
        if self.pos == self.buf.len() {
            FieldEnd::Eof
        } else if self.buf[self.pos] == self.delim {
            self.pos += 1;
            FieldEnd::Delim
        } else {
            self.term();
            FieldEnd::Term
        }
    }

    fn count_nl(&mut self, a: usize, b: usize) {
        self.nl += memchr::memchr_iter(b'\n', &self.buf[a..b]).count() as u64;
    }

    /// A quoted field; `pos` is just past the opening quote.
    fn quoted(&mut self, f: &mut Fields) -> FieldEnd {
        let buf = self.buf;
        let mut seg = self.pos;
        let mut escaped = false;
        let scratch_start = f.scratch.len();
        let push = |f: &mut Fields, escaped: bool, a: usize, b: usize| {
            if escaped {
                f.scratch.extend_from_slice(&buf[a..b]);
                f.spans.push((scratch_start, f.scratch.len(), true));
            } else {
                f.spans.push((a, b, false));
            }
        };
        loop {
            match memchr::memchr(b'"', &buf[self.pos..]) {
                None => {
                    self.count_nl(self.pos, buf.len());
                    push(f, escaped, seg, buf.len());
                    self.pos = buf.len();
                    return FieldEnd::Eof;
                }
                Some(i) => {
                    let q = self.pos + i;
                    self.count_nl(self.pos, q);
                    if q + 1 == buf.len() {
                        push(f, escaped, seg, q);
                        self.pos = buf.len();
                        return FieldEnd::Eof;
                    }
                    let c = buf[q + 1];
                    if c == b'"' {
                        f.scratch.extend_from_slice(&buf[seg..q + 1]);
                        escaped = true;
                        self.pos = q + 2;
                        seg = self.pos;
                    } else if c == self.delim {
                        push(f, escaped, seg, q);
                        self.pos = q + 2;
                        return FieldEnd::Delim;
                    } else if c == b'\r' || c == b'\n' {
                        push(f, escaped, seg, q);
                        self.pos = q + 1;
                        self.term();
                        return FieldEnd::Term;
                    } else {
                        // Text after the closing quote continues the field, unquoted.
                        f.scratch.extend_from_slice(&buf[seg..q]);
                        let end = self.scan_unquoted(q + 1);
                        f.scratch.extend_from_slice(&buf[q + 1..end]);
                        f.spans.push((scratch_start, f.scratch.len(), true));
                        self.pos = end;
                        return self.end_of_field();
                    }
                }
            }
        }
    }

    /// Reads the next record into `f`.
    fn record(&mut self, f: &mut Fields) -> Rec {
        f.spans.clear();
        f.scratch.clear();
        let buf = self.buf;
        loop {
            match buf.get(self.pos) {
                None => return Rec::End,
                Some(b'\n') => {
                    self.nl += 1;
                    self.pos += 1;
                }
                Some(b'\r') => self.pos += 1,
                Some(_) => break,
            }
        }
        loop {
            let Some(&b) = buf.get(self.pos) else {
                f.spans.push((0, 0, false));
                return self.eof();
            };
            let end = if b == b'"' {
                self.pos += 1;
                self.quoted(f)
            } else if b == self.delim {
                f.spans.push((0, 0, false));
                self.pos += 1;
                FieldEnd::Delim
            } else if b == b'\r' || b == b'\n' {
                f.spans.push((0, 0, false));
                self.term();
                FieldEnd::Term
            } else {
                let start = self.pos;
                self.pos = self.scan_unquoted(start + 1);
                f.spans.push((start, self.pos, false));
                self.end_of_field()
            };
            match end {
                FieldEnd::Delim => {}
                FieldEnd::Term => return Rec::Record,
                FieldEnd::Eof => return self.eof(),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Column plans and chunk builders

/// Declared categories: value → declared code (the last listing wins, as in the one-pass
/// dictionary), and the labels.
pub(crate) struct Fixed {
    index: Interner,
    code: Vec<u32>,
    labels: Vec<String>,
}

impl Fixed {
    fn new(categories: &[String]) -> Self {
        let mut index = Interner::with_capacity(categories.len());
        let mut code = Vec::new();
        for (i, c) in categories.iter().enumerate() {
            let (k, new) = index.intern(c.as_bytes());
            if new {
                code.push(i as u32);
            } else {
                code[k as usize] = i as u32;
            }
        }
        Fixed {
            index,
            code,
            labels: categories.to_vec(),
        }
    }

    fn code(&self, field: &[u8]) -> Result<u32, String> {
        match self.index.find(field) {
            Some(k) => Ok(self.code[k as usize]),
            None => {
                let text = std::str::from_utf8(field).map_err(onepass::utf8_message)?;
                Err(onepass::not_declared(
                    text,
                    self.labels.iter().map(String::as_str),
                ))
            }
        }
    }
}

pub(crate) enum Plan {
    Infer,
    Cat(Option<Arc<Fixed>>),
    Int,
    Float,
    Str,
    Set(Option<Arc<Fixed>>, Vec<u8>),
}

pub(crate) struct ColPlan {
    pub(crate) name: String,
    pub(crate) position: usize,
    pub(crate) role: Role,
    pub(crate) weight: bool,
    missing: Vec<Vec<u8>>,
    pub(crate) missing_keys: Vec<Key>,
    pub(crate) plan: Plan,
    spec: ColumnSpec,
}

impl ColPlan {
    /// The same decisions as [`ColBuilder::new`].
    pub(crate) fn new(
        name: &str,
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
        let fixed = || spec.categories.as_deref().map(|c| Arc::new(Fixed::new(c)));
        let plan = match kind {
            None => Plan::Infer,
            Some(Kind::Categorical) => Plan::Cat(fixed()),
            Some(Kind::Integer) => Plan::Int,
            Some(Kind::Float) => Plan::Float,
            Some(Kind::String) => Plan::Str,
            Some(Kind::Set) => Plan::Set(
                fixed(),
                spec.separator
                    .clone()
                    .unwrap_or_else(|| "|".into())
                    .into_bytes(),
            ),
        };
        let missing: Vec<Vec<u8>> = tokens.into_iter().map(String::into_bytes).collect();
        ColPlan {
            name: name.to_string(),
            position,
            role,
            weight,
            missing_keys: missing.iter().map(|t| Key::of(t)).collect(),
            missing,
            plan,
            spec,
        }
    }

    /// The kind the schema or an override declares.
    #[cfg(feature = "parquet")]
    pub(crate) fn declared_kind(&self) -> Option<Kind> {
        self.spec.kind
    }

    /// This plan for a column that arrives as categories (an Arrow dictionary: a pandas
    /// category, a polars Categorical or Enum; a labelled variable of a statistical file) when
    /// its kind was not declared: declared categorical, so that it stays categorical whatever
    /// its labels look like (`1`, `2`, … are categories, not integers). Its levels are ordered
    /// as for any declared categorical column without categories (numbers in numeric order,
    /// else text order), so every reader and key path gives the same codes.
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    pub(crate) fn as_categorical(&self, file_missing: &[String]) -> Self {
        if !matches!(self.plan, Plan::Infer) {
            return ColPlan::new(&self.name, self.position, self.spec.clone(), file_missing);
        }
        let mut spec = self.spec.clone();
        spec.kind = Some(Kind::Categorical);
        ColPlan::new(&self.name, self.position, spec, file_missing)
    }

    #[inline]
    pub(crate) fn is_missing(&self, field: &[u8], key: Key) -> bool {
        self.missing_keys
            .iter()
            .zip(&self.missing)
            .any(|(&k, t)| k == key && (key.is_short() || t.as_slice() == field))
    }

    pub(crate) fn builder(&self) -> ColChunk {
        match &self.plan {
            Plan::Infer => ColChunk::Infer(Infer::default()),
            Plan::Cat(Some(_)) => ColChunk::Fixed(Vec::new()),
            Plan::Cat(None) => ColChunk::Cat(Interner::default(), Vec::new()),
            Plan::Int => ColChunk::Int(Vec::new()),
            Plan::Float => ColChunk::Float(Vec::new()),
            Plan::Str => ColChunk::Str(Raw::default()),
            Plan::Set(fixed, _) => ColChunk::Set {
                dict: if fixed.is_some() {
                    None
                } else {
                    Some(Interner::default())
                },
                offsets: vec![0],
                items: Vec::new(),
            },
        }
    }
}

/// Cells as text in one arena (a missing cell is empty).
#[derive(Default)]
pub(crate) struct Raw {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Raw {
    #[inline]
    fn push(&mut self, v: &[u8]) {
        self.bytes.extend_from_slice(v);
        self.ends.push(self.bytes.len());
    }

    #[inline]
    fn get(&self, i: usize) -> &[u8] {
        let a = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[a..self.ends[i]]
    }

    fn len(&self) -> usize {
        self.ends.len()
    }
}

/// A chunk of an inferred column: a local dictionary while it is small, raw text after.
pub(crate) struct Infer {
    dict: Interner,
    /// Integer and number of each dictionary entry.
    ints: Vec<Option<i64>>,
    nums: Vec<Option<f64>>,
    /// One code per cell (`u32::MAX` when missing) while in dictionary mode.
    codes: Vec<u32>,
    raw: Option<Raw>,
    all_int: bool,
    all_num: bool,
}

impl Default for Infer {
    fn default() -> Self {
        Infer {
            dict: Interner::default(),
            ints: Vec::new(),
            nums: Vec::new(),
            codes: Vec::new(),
            raw: None,
            all_int: true,
            all_num: true,
        }
    }
}

const MISSING: u32 = u32::MAX;

impl Infer {
    #[inline]
    fn push(&mut self, field: &[u8], key: Key, missing: bool) -> Result<(), String> {
        if let Some(raw) = &mut self.raw {
            if missing {
                raw.push(b"");
                return Ok(());
            }
            let text = std::str::from_utf8(field).map_err(onepass::utf8_message)?;
            let (int, num) = onepass::number_of(text);
            self.all_int &= int.is_some();
            self.all_num &= num.is_some();
            raw.push(field);
            return Ok(());
        }
        if missing {
            self.codes.push(MISSING);
            return Ok(());
        }
        if let Some(c) = self.dict.find_key(field, key) {
            self.codes.push(c);
            return Ok(());
        }
        let text = std::str::from_utf8(field).map_err(onepass::utf8_message)?;
        let (int, num) = onepass::number_of(text);
        self.all_int &= int.is_some();
        self.all_num &= num.is_some();
        let (c, _) = self.dict.intern_key(field, key);
        self.ints.push(int);
        self.nums.push(num);
        self.codes.push(c);
        if self.dict.len() > NUMERIC_SWITCH {
            let mut raw = Raw::default();
            for &c in &self.codes {
                raw.push(if c == MISSING { b"" } else { self.dict.get(c) });
            }
            self.raw = Some(raw);
            self.codes = Vec::new();
            self.dict = Interner::default();
            self.ints = Vec::new();
            self.nums = Vec::new();
        }
        Ok(())
    }

    fn rows(&self) -> usize {
        match &self.raw {
            Some(r) => r.len(),
            None => self.codes.len(),
        }
    }

    /// The text of row `i` (empty when missing).
    fn text(&self, i: usize) -> &[u8] {
        match &self.raw {
            Some(r) => r.get(i),
            None if self.codes[i] == MISSING => b"",
            None => self.dict.get(self.codes[i]),
        }
    }
}

pub(crate) enum ColChunk {
    Infer(Infer),
    /// Declared categorical with declared categories: declared codes.
    Fixed(Vec<u32>),
    /// Declared categorical: local dictionary and codes.
    Cat(Interner, Vec<u32>),
    Int(Vec<i64>),
    Float(Vec<f64>),
    Str(Raw),
    Set {
        dict: Option<Interner>,
        offsets: Vec<u32>,
        items: Vec<u32>,
    },
}

/// A missing mask being built.
#[derive(Default)]
pub(crate) struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    #[inline]
    pub(crate) fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        if bit {
            *self.words.last_mut().expect("pushed above") |= 1u64 << (self.len % 64);
        }
        self.len += 1;
    }
}

impl ColChunk {
    /// Room for `rows` more values (the codes or numbers; text and set items grow as read).
    pub(crate) fn reserve(&mut self, rows: usize) {
        match self {
            ColChunk::Infer(inf) => inf.codes.reserve(rows),
            ColChunk::Fixed(codes) | ColChunk::Cat(_, codes) => codes.reserve(rows),
            ColChunk::Int(v) => v.reserve(rows),
            ColChunk::Float(v) => v.reserve(rows),
            ColChunk::Str(raw) => raw.ends.reserve(rows),
            ColChunk::Set { offsets, .. } => offsets.reserve(rows),
        }
    }

    #[inline]
    pub(crate) fn push(
        &mut self,
        plan: &ColPlan,
        field: &[u8],
        key: Key,
        missing: bool,
    ) -> Result<(), String> {
        match self {
            ColChunk::Infer(inf) => inf.push(field, key, missing)?,
            ColChunk::Fixed(codes) => {
                let Plan::Cat(Some(fixed)) = &plan.plan else {
                    unreachable!("a fixed chunk has fixed categories")
                };
                codes.push(if missing { MISSING } else { fixed.code(field)? });
            }
            ColChunk::Cat(dict, codes) => {
                if missing {
                    codes.push(MISSING);
                } else {
                    codes.push(intern_checked(dict, field)?);
                }
            }
            ColChunk::Int(v) => {
                if missing {
                    v.push(0);
                } else {
                    let text = std::str::from_utf8(field).map_err(onepass::utf8_message)?;
                    v.push(onepass::int_cell(text, plan.weight)?);
                }
            }
            ColChunk::Float(v) => {
                if missing {
                    v.push(f64::NAN);
                } else {
                    let text = std::str::from_utf8(field).map_err(onepass::utf8_message)?;
                    v.push(onepass::float_cell(text, plan.weight)?);
                }
            }
            ColChunk::Str(raw) => {
                if missing {
                    raw.push(b"");
                } else {
                    std::str::from_utf8(field).map_err(onepass::utf8_message)?;
                    raw.push(field);
                }
            }
            ColChunk::Set {
                dict,
                offsets,
                items,
            } => {
                let Plan::Set(fixed, sep) = &plan.plan else {
                    unreachable!("a set chunk has a set plan")
                };
                if !missing {
                    let start = items.len();
                    for part in onepass::split_bytes(field, sep) {
                        if part.is_empty() {
                            return Err(onepass::empty_candidate(field, sep));
                        }
                        let c = match (fixed, dict.as_mut()) {
                            (Some(f), _) => f.code(part)?,
                            (None, Some(d)) => intern_checked(d, part)?,
                            (None, None) => unreachable!("a set chunk has a dictionary"),
                        };
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
}

/// The local code of `value`, checking UTF-8 when it is new.
#[inline]
fn intern_checked(dict: &mut Interner, value: &[u8]) -> Result<u32, String> {
    if let Some(c) = dict.find(value) {
        return Ok(c);
    }
    std::str::from_utf8(value).map_err(onepass::utf8_message)?;
    Ok(dict.intern(value).0)
}

// ---------------------------------------------------------------------------------------------
// Parsing chunks

/// The line of a record, relative to its chunk.
#[derive(Debug, Clone, Copy)]
enum RecLine {
    /// The chunk's first record: the line after the previous chunk's last record.
    First,
    /// After a record completed with this many `\n` consumed in the chunk.
    After(u64),
}

struct ChunkError {
    line: RecLine,
    /// Column index, or `None` for a record-level error.
    column: Option<usize>,
    message: String,
    /// For a field-count error: the number of fields found.
    found: Option<usize>,
}

struct ChunkOut {
    cols: Vec<(ColChunk, Bits)>,
    rows: usize,
    /// `\n` bytes in the chunk.
    nl: u64,
    /// `\n` bytes consumed when the chunk's last record completed.
    last_done: Option<u64>,
    /// Whether the chunk ended between two records.
    complete: bool,
    error: Option<ChunkError>,
}

fn parse_chunks(ctx: &Ctx<'_>, cuts: &[usize]) -> Vec<ChunkOut> {
    let n = cuts.len() - 1;
    (0..n)
        .into_par_iter()
        .map(|k| parse_chunk(ctx, &ctx.body[cuts[k]..cuts[k + 1]], k + 1 == n))
        .collect()
}

fn parse_chunk(ctx: &Ctx<'_>, buf: &[u8], last: bool) -> ChunkOut {
    plain::parse(ctx, buf, last).unwrap_or_else(|| parse_general(ctx, buf, last))
}

/// [`parse_chunk`] by the record parser, whatever the chunk holds.
fn parse_general(ctx: &Ctx<'_>, buf: &[u8], last: bool) -> ChunkOut {
    let ncols = ctx.plans.len();
    let mut cols: Vec<(ColChunk, Bits)> = ctx
        .plans
        .iter()
        .map(|p| (p.builder(), Bits::default()))
        .collect();
    let mut parser = Parser::new(buf, ctx.delim, last);
    let mut fields = Fields::default();
    let mut rows = 0usize;
    let mut last_done: Option<u64> = None;
    let mut error = None;
    let complete = loop {
        let line = match last_done {
            None => RecLine::First,
            Some(n) => RecLine::After(n),
        };
        match parser.record(&mut fields) {
            Rec::End => break true,
            Rec::Incomplete => break false,
            Rec::Record => {}
        }
        last_done = Some(parser.nl);
        if fields.len() != ncols {
            if fields.len() == 1 && fields.get(buf, 0).is_empty() {
                continue;
            }
            error = Some(ChunkError {
                line,
                column: None,
                message: String::new(),
                found: Some(fields.len()),
            });
            break false;
        }
        let mut failed = None;
        for (j, ((col, bits), plan)) in cols.iter_mut().zip(ctx.plans).enumerate() {
            let field = fields.get(buf, j);
            let key = Key::of(field);
            let missing = plan.is_missing(field, key);
            bits.push(missing);
            if let Err(message) = col.push(plan, field, key, missing) {
                failed = Some(ChunkError {
                    line,
                    column: Some(j),
                    message,
                    found: None,
                });
                break;
            }
        }
        if failed.is_some() {
            error = failed;
            break false;
        }
        rows += 1;
    };
    ChunkOut {
        cols,
        rows,
        nl: parser.nl,
        last_done,
        complete,
        error,
    }
}

enum Check {
    Ok,
    Error(DataError),
    BadCut,
}

/// Walks the chunks in file order: the first error, or a wrong cut, or all good.
fn check(ctx: &Ctx<'_>, chunks: &[ChunkOut], lines: Lines) -> Check {
    let mut nl_before = lines.nl_before;
    let mut carry = lines.first_line;
    for (k, c) in chunks.iter().enumerate() {
        if let Some(e) = &c.error {
            let line = match e.line {
                RecLine::First => carry,
                RecLine::After(n) => 1 + nl_before + n,
            };
            let err = match (e.column, e.found) {
                (None, Some(found)) => onepass::field_count(
                    ctx.label,
                    line,
                    &ctx.plans.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
                    found,
                ),
                (Some(j), _) => DataError::Input {
                    location: Location {
                        file: ctx.label.to_path_buf(),
                        line: Some(line),
                        column: Some(format!(
                            "'{}' ({})",
                            ctx.plans[j].name, ctx.plans[j].position
                        )),
                    },
                    message: e.message.clone(),
                },
                (None, None) => unreachable!("a record error has a field count"),
            };
            return Check::Error(err);
        }
        if !c.complete && k + 1 < chunks.len() {
            return Check::BadCut;
        }
        if let Some(n) = c.last_done {
            carry = 1 + nl_before + n;
        }
        nl_before += c.nl;
    }
    Check::Ok
}

// ---------------------------------------------------------------------------------------------
// Merging

pub(crate) fn finish_column(
    plan: &ColPlan,
    parts: Vec<(ColChunk, Bits)>,
    nrows: usize,
    cfg: &Config,
    label: &Path,
) -> Result<Column, DataError> {
    let mut missing = Bitmap::default();
    let mut chunks = Vec::with_capacity(parts.len());
    for (c, bits) in parts {
        missing.append(&Bitmap::from_words(bits.words, bits.len));
        chunks.push(c);
    }
    debug_assert_eq!(missing.len(), nrows);
    let data = match &plan.plan {
        Plan::Int => ColumnData::Integer(concat(chunks, |c| match c {
            ColChunk::Int(v) => v,
            _ => unreachable!(),
        })),
        Plan::Float => ColumnData::Float(concat(chunks, |c| match c {
            ColChunk::Float(v) => v,
            _ => unreachable!(),
        })),
        Plan::Str => {
            let raws: Vec<Raw> = chunks
                .into_iter()
                .map(|c| match c {
                    ColChunk::Str(r) => r,
                    _ => unreachable!(),
                })
                .collect();
            ColumnData::String(fill(&raws, Raw::len, |r, out: &mut [String]| {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = text_of(r.get(i)).to_string();
                }
            }))
        }
        Plan::Cat(Some(fixed)) => {
            let codes = concat(chunks, |c| match c {
                ColChunk::Fixed(v) => v,
                _ => unreachable!(),
            });
            ColumnData::Categorical {
                codes: codes
                    .into_par_iter()
                    .map(|c| if c == MISSING { 0 } else { c })
                    .collect(),
                levels: fixed.labels.clone(),
            }
        }
        Plan::Cat(None) => {
            let (dicts, codes): (Vec<Interner>, Vec<Vec<u32>>) = chunks
                .into_iter()
                .map(|c| match c {
                    ColChunk::Cat(d, v) => (d, v),
                    _ => unreachable!(),
                })
                .unzip();
            let merged = Merged::new(&dicts);
            let (levels, order) = merged.levels();
            let maps = merged.final_maps(&order);
            ColumnData::Categorical {
                codes: remap_codes(&codes, &maps),
                levels,
            }
        }
        Plan::Set(fixed, _) => finish_set(fixed.as_deref(), chunks),
        Plan::Infer => return finish_inferred(plan, chunks, missing, cfg, label),
    };
    Column::new(plan.name.clone(), plan.role, data, missing)
}

/// The text of a cell known to be UTF-8 (checked when the chunk was parsed).
#[inline]
fn text_of(b: &[u8]) -> &str {
    std::str::from_utf8(b).expect("validated while parsing")
}

/// Concatenates per-chunk vectors.
fn concat<T: Send + Sync + Copy + Default>(
    chunks: Vec<ColChunk>,
    take: impl Fn(ColChunk) -> Vec<T>,
) -> Vec<T> {
    let parts: Vec<Vec<T>> = chunks.into_iter().map(take).collect();
    if parts.len() == 1 {
        return parts.into_iter().next().expect("one part");
    }
    fill(&parts, Vec::len, |p, out: &mut [T]| out.copy_from_slice(p))
}

/// A vector of `sum(len(part))` values, each part's slice filled by `f` in parallel.
fn fill<P: Sync, T: Send + Default + Clone>(
    parts: &[P],
    len: impl Fn(&P) -> usize,
    f: impl Fn(&P, &mut [T]) + Sync + Send,
) -> Vec<T> {
    let total: usize = parts.iter().map(&len).sum();
    let mut out = vec![T::default(); total];
    let mut slices = Vec::with_capacity(parts.len());
    let mut rest = out.as_mut_slice();
    for p in parts {
        let (a, b) = rest.split_at_mut(len(p));
        slices.push(a);
        rest = b;
    }
    slices
        .into_par_iter()
        .zip(parts.par_iter())
        .for_each(|(s, p)| f(p, s));
    out
}

/// Codes through per-chunk maps (missing → 0).
fn remap_codes(codes: &[Vec<u32>], maps: &[Vec<u32>]) -> Vec<u32> {
    let parts: Vec<(&Vec<u32>, &Vec<u32>)> = codes.iter().zip(maps).collect();
    fill(
        &parts,
        |p| p.0.len(),
        |(v, map), out: &mut [u32]| {
            for (o, &c) in out.iter_mut().zip(v.iter()) {
                *o = if c == MISSING { 0 } else { map[c as usize] };
            }
        },
    )
}

/// Chunk-local dictionaries merged in chunk order: global codes follow the order of first
/// appearance in the file, as the one-pass dictionary's do.
struct Merged {
    dict: Interner,
    /// Per chunk: local code → global code.
    maps: Vec<Vec<u32>>,
}

impl Merged {
    fn new<'a>(dicts: impl IntoIterator<Item = &'a Interner>) -> Self {
        let dicts: Vec<&Interner> = dicts.into_iter().collect();
        let mut dict = Interner::with_capacity(dicts.first().map_or(16, |d| d.len()));
        let maps = dicts
            .iter()
            .map(|d| d.iter().map(|v| dict.intern(v).0).collect())
            .collect();
        Merged { dict, maps }
    }

    fn text(&self, code: usize) -> &str {
        text_of(self.dict.get(code as u32))
    }

    /// The integer and number of every global entry.
    fn numbers(&self) -> Vec<(Option<i64>, Option<f64>)> {
        (0..self.dict.len())
            .into_par_iter()
            .map(|i| onepass::number_of(self.text(i)))
            .collect()
    }

    /// Levels (numeric order when every entry is a number, else by text) and global → final.
    fn levels(&self) -> (Vec<String>, Vec<u32>) {
        let nums = self.numbers();
        let all_num = nums.iter().all(|n| n.1.is_some());
        onepass::level_order(
            self.dict.len(),
            false,
            all_num,
            |i| nums[i].1,
            |i| self.text(i),
        )
    }

    /// Per chunk: local code → final code through `order` (global → final).
    fn final_maps(&self, order: &[u32]) -> Vec<Vec<u32>> {
        self.maps
            .iter()
            .map(|m| m.iter().map(|&g| order[g as usize]).collect())
            .collect()
    }
}

fn finish_set(fixed: Option<&Fixed>, chunks: Vec<ColChunk>) -> ColumnData {
    let mut dicts = Vec::new();
    let mut parts = Vec::new();
    for c in chunks {
        let ColChunk::Set {
            dict,
            offsets,
            items,
        } = c
        else {
            unreachable!("set chunks")
        };
        dicts.extend(dict);
        parts.push((offsets, items));
    }
    let (levels, maps) = match fixed {
        Some(f) => (f.labels.clone(), None),
        None => {
            let merged = Merged::new(&dicts);
            let (levels, order) = merged.levels();
            (levels, Some(merged.final_maps(&order)))
        }
    };
    let mut offsets = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum::<usize>() + 1);
    let mut items = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    offsets.push(0u32);
    for (k, (o, it)) in parts.iter().enumerate() {
        let base = items.len() as u32;
        offsets.extend(o[1..].iter().map(|&x| x + base));
        match &maps {
            Some(m) => items.extend(it.iter().map(|&c| m[k][c as usize])),
            None => items.extend_from_slice(it),
        }
    }
    ColumnData::Set {
        offsets,
        items,
        levels,
    }
}

fn finish_inferred(
    plan: &ColPlan,
    chunks: Vec<ColChunk>,
    missing: Bitmap,
    cfg: &Config,
    label: &Path,
) -> Result<Column, DataError> {
    let infs: Vec<Infer> = chunks
        .into_iter()
        .map(|c| match c {
            ColChunk::Infer(i) => i,
            _ => unreachable!("inferred chunks"),
        })
        .collect();
    let nrows = missing.len();
    let non_missing = nrows - missing.count_ones();
    let all_int = infs.iter().all(|c| c.all_int);
    let all_num = infs.iter().all(|c| c.all_num);
    let column = |data| Column::new(plan.name.clone(), plan.role, data, missing.clone());
    if non_missing > 0 && all_num {
        // Every observed cell is a number: integer or float, whatever the order of values.
        if all_int {
            return column(ColumnData::Integer(fill(
                &infs,
                Infer::rows,
                |inf, out: &mut [i64]| match &inf.raw {
                    None => {
                        for (o, &c) in out.iter_mut().zip(&inf.codes) {
                            *o = if c == MISSING {
                                0
                            } else {
                                inf.ints[c as usize].unwrap_or(0)
                            };
                        }
                    }
                    Some(raw) => {
                        for (i, o) in out.iter_mut().enumerate() {
                            *o = onepass::number_of(text_of(raw.get(i))).0.unwrap_or(0);
                        }
                    }
                },
            )));
        }
        return column(ColumnData::Float(fill(
            &infs,
            Infer::rows,
            |inf, out: &mut [f64]| match &inf.raw {
                None => {
                    for (o, &c) in out.iter_mut().zip(&inf.codes) {
                        *o = if c == MISSING {
                            f64::NAN
                        } else {
                            inf.nums[c as usize].unwrap_or(f64::NAN)
                        };
                    }
                }
                Some(raw) => {
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = onepass::number_of(text_of(raw.get(i)))
                            .1
                            .unwrap_or(f64::NAN);
                    }
                }
            },
        )));
    }
    if infs.iter().all(|c| c.raw.is_none()) {
        let merged = Merged::new(infs.iter().map(|c| &c.dict));
        let distinct = merged.dict.len();
        let nums = merged.numbers();
        let first_text = nums.iter().position(|n| n.1.is_none());
        // The one-pass reader switches to numeric storage when its 65,537th distinct value
        // arrives while every value so far is a number.
        let switched = distinct > NUMERIC_SWITCH && first_text.is_none_or(|k| k > NUMERIC_SWITCH);
        if !switched {
            if distinct > 1000 && distinct * 2 > non_missing {
                // Mostly distinct text (names, ids): plain strings.
                return column(ColumnData::String(fill(
                    &infs,
                    Infer::rows,
                    |inf, out: &mut [String]| {
                        for (i, o) in out.iter_mut().enumerate() {
                            *o = text_of(inf.text(i)).to_string();
                        }
                    },
                )));
            }
            let (levels, order) = merged.levels();
            let maps = merged.final_maps(&order);
            let codes: Vec<Vec<u32>> = infs.into_iter().map(|c| c.codes).collect();
            return column(ColumnData::Categorical {
                codes: remap_codes(&codes, &maps),
                levels,
            });
        }
    }
    // The result depends on the order in which values appear: replay the cells, in file order,
    // through the one-pass builder.
    let mut b = ColBuilder::new(
        plan.name.clone(),
        plan.position,
        plan.spec.clone(),
        &cfg.file_missing,
    );
    let token: &[u8] = plan.missing.first().map_or(b"", Vec::as_slice);
    let mut row = 0;
    for inf in &infs {
        for i in 0..inf.rows() {
            let field = if missing.get(row) { token } else { inf.text(i) };
            b.push(field, 0, label)?;
            row += 1;
        }
    }
    b.finish()
}
