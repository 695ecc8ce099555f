//! Checks of a linkage specification: without the data ([`LinkageSpec::problems`]) and
//! against the two files ([`LinkageSpec::validate`]); every problem is reported at once, each
//! with its key.

use intruder_table::Table;

use super::spec::{
    Comparison, DateMetric, Level, LevelKind, LinkageSpec, MAX_RULES, SpecError, column_is_numeric,
};

/// The most comparisons (a pair's levels are packed 4 bits a comparison in a `u64`).
pub const MAX_COMPARISONS: usize = 16;

/// The most levels of a comparison (4 bits).
pub const MAX_LEVELS: usize = 15;

fn prob_ok(p: f64) -> bool {
    p.is_finite() && p > 0.0 && p <= 1.0
}

/// The problems of the comparison's list of levels as a whole.
fn list_problems(key: &str, cmp: &Comparison, p: &mut Vec<String>) {
    if cmp.levels.len() > MAX_LEVELS {
        p.push(format!(
            "{key}.levels: at most {MAX_LEVELS} levels are supported"
        ));
    }
    match cmp.levels.iter().position(|l| l.kind == LevelKind::Else) {
        None => p.push(format!(
            "{key}.levels: no 'else' level; end the list with {{ kind = \"else\" }}"
        )),
        Some(e) if e + 1 != cmp.levels.len() => {
            p.push(format!("{key}.levels[{e}]: 'else' must be the last level"))
        }
        _ => {}
    }
    let count = |f: &dyn Fn(&Level) -> bool| cmp.levels.iter().filter(|l| f(l)).count();
    if count(&|l| l.kind == LevelKind::Null) > 1 {
        p.push(format!("{key}.levels: more than one 'null' level"));
    }
    if count(&|l| l.kind != LevelKind::Null) < 2 {
        p.push(format!(
            "{key}.levels: at least two levels besides 'null' are needed (a condition and 'else')"
        ));
    }
    if cmp.term_frequency && cmp.exact_level().is_none() {
        p.push(format!(
            "{key}.term_frequency: the adjustment applies to the 'exact' level on the value itself, and there is none"
        ));
    }
    for (name, fixed) in [
        (
            "m",
            cmp.levels.iter().filter_map(|l| l.m).collect::<Vec<_>>(),
        ),
        (
            "u",
            cmp.levels.iter().filter_map(|l| l.u).collect::<Vec<_>>(),
        ),
    ] {
        let s: f64 = fixed.iter().sum();
        if s > 1.0 + 1e-9 {
            p.push(format!(
                "{key}.levels: the fixed {name} probabilities sum to {s} > 1"
            ));
        }
    }
}

/// The problems of one level of comparison `cmp`.
fn level_problems(lkey: &str, cmp: &Comparison, lev: &Level, p: &mut Vec<String>) {
    match (&lev.kind, &lev.column) {
        (LevelKind::ColumnsReversed, None) => p.push(format!(
            "{lkey}.column: missing; a columns-reversed level names the other column, e.g. column = \"surname\""
        )),
        (LevelKind::ColumnsReversed, Some(c)) if c.is_empty() || *c == cmp.column => p.push(format!(
            "{lkey}.column: '{c}' must be another column than the comparison's ('{}')",
            cmp.column
        )),
        (LevelKind::ColumnsReversed, Some(_)) | (_, None) => {}
        (k, Some(_)) => p.push(format!(
            "{lkey}.column: a '{}' level takes no column (only columns-reversed does)",
            k.name()
        )),
    }
    if lev.symmetrical.is_some() && lev.kind != LevelKind::ColumnsReversed {
        p.push(format!(
            "{lkey}.symmetrical: only a columns-reversed level takes it"
        ));
    }
    if let Some(m) = lev.metric
        && !matches!(lev.kind, LevelKind::Date(_))
    {
        p.push(format!(
            "{lkey}.metric: '{}' is the unit of a 'date' level, not of '{}'",
            m.name(),
            lev.kind.name()
        ));
    }
    if let Some(e) = &lev.on {
        if e.column != cmp.column {
            p.push(format!(
                "{lkey}.on: '{e}' reads column '{}'; a level reads its comparison's column ('{}')",
                e.column, cmp.column
            ));
        }
        if e.side.is_some() {
            p.push(format!("{lkey}.on: '{e}': no l./r. prefix in a level"));
        }
        if matches!(
            lev.kind,
            LevelKind::Else
                | LevelKind::ColumnsReversed
                | LevelKind::Absolute(_)
                | LevelKind::Relative(_)
        ) {
            p.push(format!(
                "{lkey}.on: a '{}' level reads the value itself",
                lev.kind.name()
            ));
        }
    }
    match lev.kind {
        LevelKind::JaroWinkler(t) | LevelKind::Jaro(t) | LevelKind::Relative(t)
            if !(t.is_finite() && (0.0..=1.0).contains(&t)) =>
        {
            p.push(format!("{lkey}.threshold: {t} is outside [0, 1]"))
        }
        LevelKind::Levenshtein(t)
        | LevelKind::DamerauLevenshtein(t)
        | LevelKind::Absolute(t)
        | LevelKind::Date(t)
        | LevelKind::ArrayIntersect(t)
            if !(t.is_finite() && t >= 0.0) =>
        {
            p.push(format!("{lkey}.threshold: {t} must be a finite number ≥ 0"))
        }
        _ => {}
    }
    for (name, v) in [("m", lev.m), ("u", lev.u)] {
        if let Some(v) = v {
            if lev.kind == LevelKind::Null {
                p.push(format!(
                    "{lkey}.{name}: a null level has no {name} (its weight is 0)"
                ));
            } else if !prob_ok(v) {
                p.push(format!("{lkey}.{name}: {v} is not a probability in (0, 1]"));
            }
        }
    }
}

impl LinkageSpec {
    /// The rule lists with their keys: `blocking`, `training.blocking`,
    /// `training.deterministic`.
    fn named_rules(&self) -> Vec<(&'static str, &[Vec<super::spec::Term>])> {
        let mut out: Vec<(&'static str, &[Vec<super::spec::Term>])> =
            vec![("blocking", &self.blocking)];
        if let Some(t) = &self.training {
            out.push(("training.blocking", &t.blocking));
            out.push(("training.deterministic", &t.deterministic));
        }
        out
    }

    /// Problems found without the data (every one, with its key).
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        if self.blocking.is_empty() {
            p.push("blocking: empty; give at least one rule".into());
        }
        if self.blocking.len() > MAX_RULES {
            p.push(format!(
                "blocking: {} rules given; at most {MAX_RULES} are supported",
                self.blocking.len()
            ));
        }
        if self.comparisons.is_empty() {
            p.push("comparison: empty; give at least one comparison".into());
        }
        if self.comparisons.len() > MAX_COMPARISONS {
            p.push(format!(
                "comparison: {} comparisons given; at most {MAX_COMPARISONS} are supported",
                self.comparisons.len()
            ));
        }
        for (name, rules) in self.named_rules() {
            for (r, rule) in rules.iter().enumerate() {
                for (t, term) in rule.iter().enumerate() {
                    let (a, b) = term.exprs();
                    for e in [a, b] {
                        if let Err(m) = e.compile() {
                            p.push(format!("{name}[{r}][{t}]: {m}"));
                        }
                    }
                }
            }
        }
        if let Some(t) = &self.training
            && t.blocking.len() > MAX_RULES
        {
            p.push(format!(
                "training.blocking: {} rules given; at most {MAX_RULES} are supported",
                t.blocking.len()
            ));
        }
        for (c, cmp) in self.comparisons.iter().enumerate() {
            let key = format!("comparison[{c}]");
            if let Some(prev) = self.comparisons[..c]
                .iter()
                .position(|o| o.column == cmp.column && !cmp.column.is_empty())
            {
                p.push(format!(
                    "{key}.column: '{}' is already compared in comparison[{prev}]",
                    cmp.column
                ));
            }
            if cmp.levels.is_empty() {
                p.push(format!(
                    "{key}.levels: empty; end the list with an 'else' level"
                ));
                continue;
            }
            list_problems(&key, cmp, &mut p);
            for (l, lev) in cmp.levels.iter().enumerate() {
                level_problems(&format!("{key}.levels[{l}]"), cmp, lev, &mut p);
            }
        }
        p
    }

    /// Every problem against the two tables (unknown columns, numeric levels on text), plus the
    /// problems of [`problems`](Self::problems), reported at once.
    pub fn validate(
        &self,
        intruder: &Table,
        released: &Table,
        released_name: &dyn Fn(&str) -> String,
    ) -> Result<(), SpecError> {
        let mut p = self.problems();
        let file = |t: &Table| t.source().to_string();
        let check_col = |key: &str, t: &Table, name: &str, p: &mut Vec<String>| -> bool {
            if name.is_empty() {
                return false;
            }
            if t.position(name).is_some() {
                true
            } else {
                p.push(format!(
                    "{key}: no column '{name}' in {} (columns: {})",
                    file(t),
                    t.names().join(", ")
                ));
                false
            }
        };
        for (c, cmp) in self.comparisons.iter().enumerate() {
            let key = format!("comparison[{c}].column");
            let rname = cmp
                .released
                .clone()
                .unwrap_or_else(|| released_name(&cmp.column));
            let ok_i = check_col(&key, intruder, &cmp.column, &mut p);
            let ok_r = check_col(
                &format!("comparison[{c}].released"),
                released,
                &rname,
                &mut p,
            );
            if !(ok_i && ok_r) {
                continue;
            }
            for (l, lev) in cmp.levels.iter().enumerate() {
                if let (LevelKind::ColumnsReversed, Some(other)) = (&lev.kind, &lev.column) {
                    let k = format!("comparison[{c}].levels[{l}].column");
                    check_col(&k, intruder, other, &mut p);
                    check_col(&k, released, &released_name(other), &mut p);
                }
            }
            for (t, name) in [(intruder, cmp.column.as_str()), (released, rname.as_str())] {
                let Ok(col) = t.column(name) else { continue };
                for (l, lev) in cmp.levels.iter().enumerate() {
                    if lev.kind.needs_numbers() && !column_is_numeric(col) {
                        p.push(format!(
                            "comparison[{c}].levels[{l}]: '{}' compares numbers, but column '{}' of {} is {} with non-numeric values",
                            lev.kind.label(),
                            col.name(),
                            file(t),
                            col.kind()
                        ));
                    }
                }
            }
        }
        for (name, rules) in self.named_rules() {
            for (r, rule) in rules.iter().enumerate() {
                for (t, term) in rule.iter().enumerate() {
                    let key = format!("{name}[{r}][{t}]");
                    check_col(&key, intruder, term.column(), &mut p);
                    check_col(
                        &key,
                        released,
                        &released_name(term.released_column()),
                        &mut p,
                    );
                }
            }
        }
        if p.is_empty() {
            Ok(())
        } else {
            Err(SpecError {
                source_name: "linkage specification".into(),
                problems: p,
            })
        }
    }
}

/// The unit of a date level, days by default.
pub(crate) fn metric_of(l: &Level) -> DateMetric {
    l.metric.unwrap_or(DateMetric::Day)
}
