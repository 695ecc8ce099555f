//! The one escape of every text the reports put into HTML or SVG (element text and attribute
//! values alike): the template engine's own (askama's HTML escaper, which writes `&`, `<`, `>`,
//! `"` and `'` as numeric character references), so the figures' SVG, drawn in code, escapes
//! exactly as the templates of `report.html` do.

use askama::filters::Escaper;

/// `s` with the characters markup gives a meaning to replaced by character references.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    askama::filters::Html
        .write_escaped_str(&mut out, s)
        .expect("writing into a String cannot fail");
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn every_markup_character_is_escaped_and_nothing_else() {
        assert_eq!(
            escape(r#"a < b & c > "d" 'e' — θ"#),
            "a &#60; b &#38; c &#62; &#34;d&#34; &#39;e&#39; — θ"
        );
        // escaping twice escapes the references (the caller escapes raw text once)
        assert_eq!(escape("&#38;"), "&#38;#38;");
    }
}
