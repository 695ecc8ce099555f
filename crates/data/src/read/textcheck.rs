//! Text no CSV reader should guess at: a NUL byte (a binary or UTF-16 file, or a damaged one)
//! and a quoted field that is never closed (which would otherwise swallow the rest of the file
//! into one field, or be cut short at its end).
//!
//! One state machine, fed in pieces, so that the parallel reader (the whole text at once) and
//! the one-pass reader (a stream) refuse the same files with the same messages. A NUL byte
//! anywhere wins over an unclosed quote, which wins over any other error of the file.

use std::io::{self, Read};
use std::path::Path;

use crate::{DataError, Location};

const BOM: &[u8] = b"\xef\xbb\xbf";

#[derive(Clone, Copy, PartialEq)]
enum State {
    Start,
    Unquoted,
    Quoted,
    QuoteSeen,
}

/// The checker's state between pieces of text.
pub(crate) struct TextCheck {
    delimiter: u8,
    state: State,
    /// Newlines seen so far.
    newlines: u64,
    /// Line of the quote that opened the current quoted field.
    opened_line: u64,
    /// Line of the first NUL byte.
    nul_line: Option<u64>,
    /// Bytes of a leading byte-order mark seen so far (the mark is not text).
    bom_seen: usize,
    bom_done: bool,
}

impl TextCheck {
    pub(crate) fn new(delimiter: u8) -> Self {
        Self {
            delimiter,
            state: State::Start,
            newlines: 0,
            opened_line: 0,
            nul_line: None,
            bom_seen: 0,
            bom_done: false,
        }
    }

    /// Feeds the next piece of text.
    pub(crate) fn feed(&mut self, mut piece: &[u8]) {
        while !self.bom_done && !piece.is_empty() {
            if piece[0] == BOM[self.bom_seen] {
                self.bom_seen += 1;
                piece = &piece[1..];
                self.bom_done = self.bom_seen == BOM.len();
            } else {
                // Not a byte-order mark after all: its first bytes are text.
                self.bom_done = true;
                let held = &BOM[..self.bom_seen];
                self.scan(held);
            }
        }
        self.scan(piece);
    }

    fn scan(&mut self, piece: &[u8]) {
        if self.nul_line.is_none()
            && let Some(i) = memchr::memchr(0, piece)
        {
            self.nul_line =
                Some(1 + self.newlines + memchr::memchr_iter(b'\n', &piece[..i]).count() as u64);
        }
        if self.state != State::Quoted
            && self.state != State::QuoteSeen
            && memchr::memchr(b'"', piece).is_none()
        {
            // No quote to open: only the line count and where the last field stands matter.
            self.newlines += memchr::memchr_iter(b'\n', piece).count() as u64;
            if let Some(&last) = piece.last() {
                self.state = if last == self.delimiter || last == b'\n' || last == b'\r' {
                    State::Start
                } else {
                    State::Unquoted
                };
            }
            return;
        }
        let d = self.delimiter;
        for &b in piece {
            self.state = match self.state {
                State::Start | State::Unquoted | State::QuoteSeen
                    if b == d || b == b'\n' || b == b'\r' =>
                {
                    State::Start
                }
                State::Start if b == b'"' => {
                    self.opened_line = 1 + self.newlines;
                    State::Quoted
                }
                // A doubled quote inside a quoted field is an escaped quote: still quoted.
                State::QuoteSeen if b == b'"' => State::Quoted,
                State::Start | State::Unquoted | State::QuoteSeen => State::Unquoted,
                State::Quoted if b == b'"' => State::QuoteSeen,
                State::Quoted => State::Quoted,
            };
            self.newlines += (b == b'\n') as u64;
        }
    }

    /// The error the text as a whole deserves, if any.
    pub(crate) fn finish(mut self, label: &Path) -> Result<(), DataError> {
        if !self.bom_done {
            // The text was a prefix of a byte-order mark: those bytes are text.
            self.bom_done = true;
            let held = &BOM[..self.bom_seen];
            self.scan(held);
        }
        let at = |line: u64, message: &str| {
            DataError::input(
                Location {
                    file: label.to_path_buf(),
                    line: Some(line),
                    column: None,
                },
                message.to_string(),
            )
        };
        if let Some(line) = self.nul_line {
            return Err(at(
                line,
                "a NUL byte (\\0): expected text (is this a binary, UTF-16 or damaged file?)",
            ));
        }
        if self.state == State::Quoted {
            return Err(at(
                self.opened_line,
                "a quoted field starts here and is never closed: expected a closing quote (\")",
            ));
        }
        Ok(())
    }
}

/// Checks a whole text (a leading byte-order mark is skipped).
pub(crate) fn check_text(text: &[u8], label: &Path, delimiter: u8) -> Result<(), DataError> {
    // The common case, decided on every thread: with no NUL byte and no quote anywhere there
    // is nothing to refuse (and no line to count for a message).
    use rayon::prelude::*;
    if text
        .par_chunks(1 << 20)
        .all(|piece| memchr::memchr2(0, b'"', piece).is_none())
    {
        return Ok(());
    }
    let mut check = TextCheck::new(delimiter);
    check.feed(text);
    check.finish(label)
}

/// A reader that checks the text passing through it.
pub(crate) struct Checked<R> {
    inner: R,
    check: TextCheck,
    /// Bytes passed through so far.
    offset: u64,
    /// Whether the last byte passed through was `\r`.
    after_cr: bool,
    /// Offsets of the `\n` of each `\r\n` passed through and not yet asked about.
    crlf: std::collections::VecDeque<u64>,
}

impl<R: Read> Checked<R> {
    pub(crate) fn new(inner: R, delimiter: u8) -> Self {
        Self {
            inner,
            check: TextCheck::new(delimiter),
            offset: 0,
            after_cr: false,
            crlf: Default::default(),
        }
    }

    /// Whether the byte at `offset` is the `\n` of a `\r\n`. Offsets must be asked in
    /// increasing order (earlier ones are forgotten).
    pub(crate) fn is_crlf_newline(&mut self, offset: u64) -> bool {
        while self.crlf.front().is_some_and(|&o| o < offset) {
            self.crlf.pop_front();
        }
        self.crlf.front() == Some(&offset)
    }
}

impl<R: Read> Read for &mut Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let piece = &buf[..n];
        self.check.feed(piece);
        if self.after_cr && piece.first() == Some(&b'\n') {
            self.crlf.push_back(self.offset);
        }
        for i in memchr::memchr_iter(b'\r', piece) {
            if piece.get(i + 1) == Some(&b'\n') {
                self.crlf.push_back(self.offset + i as u64 + 1);
            }
        }
        if n > 0 {
            self.after_cr = piece[n - 1] == b'\r';
        }
        self.offset += n as u64;
        Ok(n)
    }
}

impl<R: Read> Checked<R> {
    /// Reads the rest of the stream through the checker and gives its verdict.
    pub(crate) fn finish(mut self, label: &Path) -> Result<(), DataError> {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match self.inner.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => self.check.feed(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // An I/O error is reported by the parse that met it (or meets it now).
                Err(_) => break,
            }
        }
        self.check.finish(label)
    }
}
