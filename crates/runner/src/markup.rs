//! The one escape of every text the reports put into HTML or SVG (element text and attribute
//! values alike, every attribute being written in double quotes): `&`, `<`, `>` and `"`.

/// `s` with the characters markup gives a meaning to replaced by their entities.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn every_markup_character_is_escaped_and_nothing_else() {
        assert_eq!(
            escape(r#"a < b & c > "d" 'e' — θ"#),
            "a &lt; b &amp; c &gt; &quot;d&quot; 'e' — θ"
        );
        // escaping twice escapes the entities (the caller escapes raw text once)
        assert_eq!(escape("&amp;"), "&amp;amp;");
    }
}
