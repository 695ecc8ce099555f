//! The `--delimiter` and `--decimal` arguments shared by the subcommands that read CSV files.

/// Parses `--delimiter`: one ASCII character, or `tab` (also `\t`) for a tab. Used as a clap
/// `value_parser`, so every subcommand accepts and rejects the same values.
pub fn parse(d: &str) -> Result<u8, String> {
    match d {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        "\"" | "\n" | "\r" | "\0" => Err(format!(
            "'{}' cannot be the delimiter: it is the quote character or ends a line",
            d.escape_default()
        )),
        s if s.len() == 1 && s.is_ascii() => Ok(s.as_bytes()[0]),
        s => Err(format!(
            "expected one ASCII character or 'tab', found '{s}'"
        )),
    }
}

/// Parses `--decimal`: `.` or `,`.
pub fn parse_decimal(d: &str) -> Result<u8, String> {
    match d {
        "." => Ok(b'.'),
        "," => Ok(b','),
        s => Err(format!("expected '.' or ',', found '{s}'")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn accepts_characters_and_tab_only() {
        assert_eq!(super::parse(";"), Ok(b';'));
        assert_eq!(super::parse("tab"), Ok(b'\t'));
        assert_eq!(super::parse("\\t"), Ok(b'\t'));
        assert!(super::parse(";;").is_err());
        assert!(super::parse("é").is_err());
    }
}
