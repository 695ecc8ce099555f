//! A rendered table (caption, header, cells) shared by the summary, the report and the studies;
//! markdown and HTML.

/// A rendered table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableData {
    /// Caption.
    pub title: String,
    /// Column names.
    pub header: Vec<String>,
    /// Cells.
    pub rows: Vec<Vec<String>>,
}

impl TableData {
    /// As a markdown table.
    pub fn markdown(&self) -> String {
        let cells = |r: &[String]| {
            r.iter()
                .map(|c| c.replace('|', "\\|"))
                .collect::<Vec<_>>()
                .join(" | ")
        };
        let mut s = format!("**{}**\n\n| {} |\n|", self.title, cells(&self.header));
        for _ in &self.header {
            s.push_str("---|");
        }
        s.push('\n');
        for r in &self.rows {
            s.push_str(&format!("| {} |\n", cells(r)));
        }
        s
    }

    /// As aligned plain text (for a terminal): the title, then columns padded to their widest
    /// cell, the first left-aligned, the others right-aligned.
    pub fn text(&self) -> String {
        let ncol = self.header.len();
        let mut w = vec![0usize; ncol];
        for r in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in r.iter().enumerate().take(ncol) {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let line = |r: &[String]| {
            let mut s = String::new();
            for (i, c) in r.iter().enumerate().take(ncol) {
                let pad = " ".repeat(w[i] - c.chars().count());
                if i == 0 {
                    s.push_str(&format!("  {c}{pad}"));
                } else {
                    s.push_str(&format!("  {pad}{c}"));
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut s = format!("{}\n", self.title);
        s.push_str(&line(&self.header));
        for r in &self.rows {
            s.push_str(&line(r));
        }
        s
    }

    /// As an HTML table (`templates/table.html`, the report's table macro); `class` is the
    /// table's class attribute (none when empty).
    pub fn html(&self, class: &str) -> String {
        askama::Template::render(&TableHtml { t: self, class })
            .expect("writing a table into a String cannot fail")
    }
}

/// One table in HTML.
#[derive(askama::Template)]
#[template(path = "table.html")]
struct TableHtml<'a> {
    t: &'a TableData,
    class: &'a str,
}

/// A cell that holds an interval (`12.3% [10.1%, 14.8%]`), split into the value and the
/// bracketed interval, which HTML keeps on one line; `None` for any other cell.
pub(crate) fn split_interval(c: &str) -> Option<(&str, &str)> {
    match c.find(" [") {
        Some(i) if c.ends_with(']') => Some((&c[..i], &c[i + 1..])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_aligns_columns() {
        let t = TableData {
            title: "T".into(),
            header: vec!["setting".into(), "exact".into()],
            rows: vec![
                vec!["none".into(), "12.3%".into()],
                vec!["k-anonymity (k=2)".into(), "1.0%".into()],
            ],
        };
        assert_eq!(
            t.text(),
            "T\n  setting            exact\n  none               12.3%\n  k-anonymity (k=2)   1.0%\n"
        );
    }

    #[test]
    fn intervals_do_not_wrap_and_text_is_escaped() {
        let t = TableData {
            title: "Attack a<b".into(),
            header: vec!["setting".into(), "x".into()],
            rows: vec![vec!["none".into(), "12.3% [10.1%, 14.8%]".into()]],
        };
        let h = t.html("");
        assert!(h.contains("<caption>Attack a&#60;b</caption>"), "{h}");
        assert!(
            h.contains("<td>12.3% <span class=\"ci\">[10.1%, 14.8%]</span></td>"),
            "{h}"
        );
        assert!(!h.contains('`'));
    }
}
