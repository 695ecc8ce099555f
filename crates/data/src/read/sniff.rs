//! What a CSV file does not say about itself, read from its first lines before parsing: its
//! encoding (UTF-16 with a byte-order mark, as Excel's "Unicode text" is saved, is decoded to
//! UTF-8), its delimiter and its decimal mark (when neither the command line nor a schema gives
//! them). Every choice that is not the default (`,` and `.`) is said in a note
//! ([`crate::Dataset::notes`]), which the command line prints and Python raises as a warning.
//!
//! **Delimiter.** Of `,`, `;`, tab and `|`, the one that splits the header into more than one
//! field and every sampled line (the first [`SAMPLE_LINES`]) into as many fields as the header,
//! quotes respected; several such: the one giving the most fields, then in that order. None
//! such: `,` (a one-column file, or a ragged one whose error the parser then reports).
//!
//! **Decimal mark.** A comma when the delimiter is not a comma and the sampled cells hold
//! numbers written with a decimal comma (`12,5`, `-0,25`, `3,0e2`) and none written with a
//! decimal point. Such cells are then read as numbers: their comma becomes a point before
//! parsing (same length, so every line and column a message names is the file's own).

use std::borrow::Cow;
use std::path::Path;

use crate::params::delimiter_name;
use crate::read::ReadOptions;
use crate::{DataError, Location};

/// Lines read to choose the delimiter and the decimal mark.
pub(crate) const SAMPLE_LINES: usize = 200;

/// The delimiters tried, in order of preference.
const CANDIDATES: [u8; 4] = [b',', b';', b'\t', b'|'];

/// A CSV text made ready for the parser: UTF-8, with the delimiter and decimal mark decided.
pub(crate) struct Prepared<'a> {
    pub(crate) text: Cow<'a, [u8]>,
    pub(crate) options: Cow<'a, ReadOptions>,
    pub(crate) notes: Vec<String>,
}

/// Decodes UTF-16, sniffs the delimiter and the decimal mark, as the module says.
pub(crate) fn prepare<'a>(
    text: &'a [u8],
    label: &Path,
    options: &'a ReadOptions,
) -> Result<Prepared<'a>, DataError> {
    let mut notes = Vec::new();
    let mut text: Cow<'a, [u8]> = match utf16(text) {
        Some(big_endian) => Cow::Owned(decode_utf16(text, big_endian, label)?),
        None => Cow::Borrowed(text),
    };
    let schema = options.schema.as_ref();
    let given = options.delimiter.or(schema.and_then(|s| s.delimiter));
    let mut options: Cow<'a, ReadOptions> = Cow::Borrowed(options);
    let delimiter = match given {
        Some(d) => d,
        None => {
            let d = sniff_delimiter(&text);
            if d != b',' {
                notes.push(format!(
                    "{}: fields are separated by {} (detected from the first lines; --delimiter, or delimiter in a schema, says otherwise)",
                    label.display(),
                    delimiter_name(d)
                ));
                options.to_mut().delimiter = Some(d);
            }
            d
        }
    };
    let decimal = options
        .decimal
        .or(options.schema.as_ref().and_then(|s| s.decimal));
    let comma = match decimal {
        Some(m) => m == b',',
        None if delimiter != b',' => match sniff_decimal_comma(&text, delimiter) {
            Some(example) => {
                notes.push(format!(
                    "{}: numbers are written with a decimal comma (detected: cells such as '{example}'; --decimal ., or decimal = \".\" in a schema, says otherwise)",
                    label.display()
                ));
                true
            }
            None => false,
        },
        None => false,
    };
    if comma && delimiter != b',' {
        let mut fixed = Vec::new();
        if decimal_points(&text, delimiter, &mut fixed) {
            text = Cow::Owned(fixed);
        }
    }
    Ok(Prepared {
        text,
        options,
        notes,
    })
}

/// `Some(big_endian)` when the text starts with a UTF-16 byte-order mark.
fn utf16(text: &[u8]) -> Option<bool> {
    match text {
        [0xff, 0xfe, ..] => Some(false),
        [0xfe, 0xff, ..] => Some(true),
        _ => None,
    }
}

/// UTF-16 (after its byte-order mark) as UTF-8; an odd length or an unpaired surrogate is an
/// error naming the line.
fn decode_utf16(text: &[u8], big_endian: bool, label: &Path) -> Result<Vec<u8>, DataError> {
    let body = &text[2..];
    let err = |line: u64, what: &str| {
        DataError::input(
            Location {
                file: label.to_path_buf(),
                line: Some(line),
                column: None,
            },
            format!("the file is UTF-16 (it starts with a byte-order mark) but {what}"),
        )
    };
    let units = body.chunks(2).map(|c| match c {
        [a, b] if big_endian => u16::from_be_bytes([*a, *b]),
        [a, b] => u16::from_le_bytes([*a, *b]),
        [a] => u16::from(*a),
        _ => 0,
    });
    let mut out = String::with_capacity(body.len() / 2 + 16);
    let mut line = 1u64;
    for c in char::decode_utf16(units) {
        match c {
            Ok(c) => {
                if c == '\n' {
                    line += 1;
                }
                out.push(c);
            }
            Err(_) => return Err(err(line, "holds an unpaired surrogate (damaged text)")),
        }
    }
    if body.len() % 2 == 1 {
        return Err(err(line, "its length is odd (the last character is cut)"));
    }
    Ok(out.into_bytes())
}

/// The first `SAMPLE_LINES` records' fields split by `delimiter`, quotes respected: the number
/// of fields of each (a record cut by the end of the sample is left out).
fn field_counts(text: &[u8], delimiter: u8) -> Vec<usize> {
    #[derive(PartialEq)]
    enum S {
        FieldStart,
        Unquoted,
        Quoted,
        QuoteSeen,
    }
    let mut counts = Vec::new();
    let mut fields = 1usize;
    let mut state = S::FieldStart;
    let mut empty_line = true;
    let body = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    for &b in body {
        match state {
            S::Quoted => {
                if b == b'"' {
                    state = S::QuoteSeen;
                }
                continue;
            }
            S::QuoteSeen if b == b'"' => {
                state = S::Quoted;
                continue;
            }
            _ => {}
        }
        match b {
            b'"' if state == S::FieldStart => {
                state = S::Quoted;
                empty_line = false;
            }
            b'\n' => {
                if !empty_line {
                    counts.push(fields);
                    if counts.len() == SAMPLE_LINES {
                        return counts;
                    }
                }
                fields = 1;
                state = S::FieldStart;
                empty_line = true;
            }
            b'\r' => {}
            b if b == delimiter => {
                fields += 1;
                state = S::FieldStart;
                empty_line = false;
            }
            _ => {
                state = S::Unquoted;
                empty_line = false;
            }
        }
    }
    if !empty_line && state != S::Quoted {
        counts.push(fields);
    }
    counts
}

/// The delimiter of the module's rule.
pub(crate) fn sniff_delimiter(text: &[u8]) -> u8 {
    let sample = &text[..text.len().min(1 << 20)];
    let mut best: Option<(usize, u8)> = None;
    for &d in &CANDIDATES {
        let counts = field_counts(sample, d);
        let Some(&header) = counts.first() else {
            continue;
        };
        if header < 2 || counts.iter().any(|&c| c != header) {
            continue;
        }
        if best.is_none_or(|(n, _)| header > n) {
            best = Some((header, d));
        }
    }
    best.map_or(b',', |(_, d)| d)
}

/// Whether `cell` is a number written with a decimal comma (`12,5`, `-,5`, `3,0e2`).
fn decimal_comma_number(cell: &[u8]) -> bool {
    number_with_mark(cell, b',')
}

fn number_with_mark(cell: &[u8], mark: u8) -> bool {
    let cell = cell.trim_ascii();
    let cell = cell
        .strip_prefix(b"-")
        .or(cell.strip_prefix(b"+"))
        .unwrap_or(cell);
    let Some(m) = cell.iter().position(|&b| b == mark) else {
        return false;
    };
    let (int, rest) = (&cell[..m], &cell[m + 1..]);
    let (frac, exp) = match rest.iter().position(|&b| b == b'e' || b == b'E') {
        Some(e) => (&rest[..e], Some(&rest[e + 1..])),
        None => (rest, None),
    };
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let exp_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(b"-").or(e.strip_prefix(b"+")).unwrap_or(e);
        digits(e)
    });
    (int.is_empty() || int.iter().all(u8::is_ascii_digit)) && digits(frac) && exp_ok
}

/// Calls `f(start, end)` for the content of every field of the first `lines` records (`None`:
/// every record), quotes respected (a quoted field's content is inside its quotes).
fn for_fields(text: &[u8], delimiter: u8, lines: Option<usize>, mut f: impl FnMut(usize, usize)) {
    let start = if text.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    let mut i = start;
    let mut records = 0usize;
    let n = text.len();
    while i < n {
        // One field.
        if text[i] == b'"' {
            let s = i + 1;
            let mut j = s;
            loop {
                match memchr::memchr(b'"', &text[j..]) {
                    Some(q) if j + q + 1 < n && text[j + q + 1] == b'"' => j += q + 2,
                    Some(q) => {
                        f(s, j + q);
                        i = j + q + 1;
                        break;
                    }
                    None => return,
                }
            }
            // Skip to the end of the field.
            while i < n && text[i] != delimiter && text[i] != b'\n' {
                i += 1;
            }
        } else {
            let s = i;
            while i < n && text[i] != delimiter && text[i] != b'\n' {
                i += 1;
            }
            let e = if i > s && text[i - 1] == b'\r' {
                i - 1
            } else {
                i
            };
            f(s, e);
        }
        if i < n && text[i] == b'\n' {
            records += 1;
            if lines.is_some_and(|l| records >= l) {
                return;
            }
        }
        i += 1;
    }
}

/// An example of a decimal-comma number when the sampled cells (header excluded) hold some and
/// no number with a decimal point.
fn sniff_decimal_comma(text: &[u8], delimiter: u8) -> Option<String> {
    let sample = &text[..text.len().min(1 << 20)];
    let mut example: Option<(usize, usize)> = None;
    let mut point = false;
    let mut header_end = None;
    if let Some(nl) = memchr::memchr(b'\n', sample) {
        header_end = Some(nl + 1);
    }
    let header_end = header_end?;
    for_fields(
        &sample[header_end..],
        delimiter,
        Some(SAMPLE_LINES),
        |s, e| {
            let cell = &sample[header_end + s..header_end + e];
            if example.is_none() && decimal_comma_number(cell) {
                example = Some((header_end + s, header_end + e));
            }
            if number_with_mark(cell, b'.') {
                point = true;
            }
        },
    );
    match (example, point) {
        (Some((s, e)), false) => Some(String::from_utf8_lossy(&sample[s..e]).trim().to_string()),
        _ => None,
    }
}

/// Writes into `out` the text with the comma of every decimal-comma number (after the header)
/// made a point; false when there was none.
fn decimal_points(text: &[u8], delimiter: u8, out: &mut Vec<u8>) -> bool {
    let Some(header_end) = memchr::memchr(b'\n', text).map(|p| p + 1) else {
        return false;
    };
    let mut at = Vec::new();
    for_fields(&text[header_end..], delimiter, None, |s, e| {
        let cell = &text[header_end + s..header_end + e];
        if decimal_comma_number(cell)
            && let Some(c) = cell.iter().position(|&b| b == b',')
        {
            at.push(header_end + s + c);
        }
    });
    if at.is_empty() {
        return false;
    }
    *out = text.to_vec();
    for p in at {
        out[p] = b'.';
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters_are_sniffed_from_consistent_field_counts() {
        assert_eq!(sniff_delimiter(b"a;b;c\n1;2;3\n4;5;6\n"), b';');
        assert_eq!(sniff_delimiter(b"a,b\n1,2\n"), b',');
        assert_eq!(sniff_delimiter(b"a\tb\n1\t2\n"), b'\t');
        assert_eq!(sniff_delimiter(b"a|b|c\n1|2|3\n"), b'|');
        // A comma inside quotes does not count; a semicolon in text does not win when it is
        // not in every line.
        assert_eq!(sniff_delimiter(b"a;b\n\"1,5\";2\n"), b';');
        assert_eq!(sniff_delimiter(b"a,b\nx;y,2\n3,4\n"), b',');
        // An escaped quote inside a quoted field keeps the field quoted.
        assert_eq!(sniff_delimiter(b"a;b\n\"x\"\"y,z\";2\n"), b';');
        // One column, or nothing consistent: ','.
        assert_eq!(sniff_delimiter(b"a\n1\n"), b',');
        assert_eq!(sniff_delimiter(b""), b',');
    }

    #[test]
    fn decimal_commas_are_sniffed_and_made_points() {
        let text = b"a;b;c\n1,5;x;2\n-0,25;y;3,0e2\n";
        assert_eq!(sniff_decimal_comma(text, b';').as_deref(), Some("1,5"));
        let mut out = Vec::new();
        assert!(decimal_points(text, b';', &mut out));
        assert_eq!(out, b"a;b;c\n1.5;x;2\n-0.25;y;3.0e2\n");
        // A number with a decimal point anywhere: no decimal comma.
        assert_eq!(sniff_decimal_comma(b"a;b\n1,5;2.5\n", b';'), None);
        // Text with commas is not a number.
        assert_eq!(sniff_decimal_comma(b"a;b\nx,y;1\n", b';'), None);
        assert!(!decimal_comma_number(b"1,2,3"));
        assert!(decimal_comma_number(b" 12,5 "));
    }

    #[test]
    fn utf16_is_decoded_and_damage_named() {
        let le: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain("a,b\n1,é\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(
            decode_utf16(&le, false, Path::new("x")).unwrap(),
            "a,b\n1,é\n".as_bytes()
        );
        let be: Vec<u8> = [0xfe, 0xff]
            .into_iter()
            .chain("a\n".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(decode_utf16(&be, true, Path::new("x")).unwrap(), b"a\n");
        let odd = [0xff, 0xfe, b'a', 0, b'\n', 0, b'b'];
        let e = decode_utf16(&odd, false, Path::new("x.csv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.csv:2") && e.contains("odd"), "{e}");
    }
}
