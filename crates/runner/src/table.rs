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
        let mut s = format!("**{}**\n\n| {} |\n|", self.title, self.header.join(" | "));
        for _ in &self.header {
            s.push_str("---|");
        }
        s.push('\n');
        for r in &self.rows {
            s.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        s
    }

    /// As an HTML table.
    pub fn html(&self) -> String {
        let mut s = format!("<table><caption>{}</caption><thead><tr>", esc(&self.title));
        for h in &self.header {
            s.push_str(&format!("<th>{}</th>", esc(h)));
        }
        s.push_str("</tr></thead><tbody>");
        for r in &self.rows {
            s.push_str("<tr>");
            for c in r {
                s.push_str(&format!("<td>{}</td>", esc(c)));
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>\n");
        s
    }
}

/// HTML-escapes text.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
