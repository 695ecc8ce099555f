//! A lattice search's frontier as a masking step reports it (generalise's `details`: the
//! levels chosen, the quality model, and `frontier`, the nodes no other scored node beats on
//! the score and every attack rate), read once for every surface: `intruder mask` prints it as
//! a table, the experiment report shows it as a table and a figure.

use serde_json::{Value, json};

/// One node of the frontier.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontierNode {
    /// Its level per key (in [`Frontier::keys`]' order; 0 = the original values).
    pub levels: Vec<i64>,
    /// Its score under the quality model.
    pub score: f64,
    /// Records suppressed (when reported).
    pub suppressed: Option<u64>,
    /// Each attack's rate, by name; `None` where the search reported none (no target).
    pub rates: Vec<(String, Option<f64>)>,
}

/// A search's frontier.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontier {
    /// The keys, in the order of the chosen levels.
    pub keys: Vec<String>,
    /// The quality model's name (`loss`, `discernibility`, …).
    pub metric: String,
    /// The levels chosen.
    pub chosen: Vec<i64>,
    /// The nodes, by score.
    pub nodes: Vec<FrontierNode>,
}

impl Frontier {
    /// The frontier of a step's `details`; `None` when they are not a search's (no `levels`,
    /// `metric` or `frontier`).
    pub fn of(details: &Value) -> Option<Frontier> {
        let chosen = details.get("levels")?.as_object()?;
        let keys: Vec<String> = chosen.keys().cloned().collect();
        let levels_of = |m: &serde_json::Map<String, Value>| -> Option<Vec<i64>> {
            keys.iter()
                .map(|k| m.get(k).and_then(Value::as_i64))
                .collect()
        };
        let chosen_levels = levels_of(chosen)?;
        let metric = details.get("metric")?.as_str()?.to_string();
        let nodes = details
            .get("frontier")?
            .as_array()?
            .iter()
            .map(|v| {
                Some(FrontierNode {
                    levels: levels_of(v.get("levels")?.as_object()?)?,
                    score: v.get("score")?.as_f64()?,
                    suppressed: v.get("suppressed").and_then(Value::as_u64),
                    rates: v
                        .get("rates")?
                        .as_object()?
                        .iter()
                        .map(|(k, x)| (k.clone(), x.as_f64()))
                        .collect(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Frontier {
            keys,
            metric,
            chosen: chosen_levels,
            nodes,
        })
    }

    /// The attacks' names, in the order the nodes report them.
    pub fn rate_names(&self) -> Vec<String> {
        self.nodes
            .first()
            .map(|n| n.rates.iter().map(|(k, _)| k.clone()).collect())
            .unwrap_or_default()
    }

    /// The table's header: `chosen`, a level per key, the score, the suppressed records, a rate
    /// per attack.
    pub fn header(&self) -> Vec<String> {
        let mut h: Vec<String> = vec!["chosen".into()];
        h.extend(self.keys.iter().map(|k| format!("level of {k}")));
        h.push(format!("{} score", self.metric));
        h.push("records suppressed".into());
        h.extend(self.rate_names().iter().map(|r| format!("{r} rate")));
        h
    }

    /// The table's rows as JSON cells (`"yes"` or `""` for chosen; `null` for what was not
    /// reported), one per node.
    pub fn rows(&self) -> Vec<Vec<Value>> {
        let names = self.rate_names();
        self.nodes
            .iter()
            .map(|n| {
                let mut row = vec![json!(if n.levels == self.chosen { "yes" } else { "" })];
                row.extend(n.levels.iter().map(|l| json!(l)));
                row.push(json!(n.score));
                row.push(json!(n.suppressed));
                for r in &names {
                    let x = n.rates.iter().find(|(k, _)| k == r).and_then(|(_, x)| *x);
                    row.push(json!(x));
                }
                row
            })
            .collect()
    }

    /// The table's title.
    pub const TITLE: &'static str = "the nodes no other scored node beats on the score and every rate (levels: 0 = the original values)";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frontier_is_read_from_a_steps_details_and_tabled() {
        let details = json!({
            "levels": {"age": 2, "sex": 0},
            "metric": "loss",
            "score": 0.25,
            "frontier": [
                {"levels": {"age": 2, "sex": 0}, "score": 0.25, "suppressed": 3,
                 "rates": {"exact listwise": 0.1, "exact wildcard": null}},
                {"levels": {"age": 3, "sex": 1}, "score": 0.5, "suppressed": 0,
                 "rates": {"exact listwise": 0.05, "exact wildcard": 0.02}},
            ],
        });
        let f = Frontier::of(&details).unwrap();
        assert_eq!(f.keys, ["age", "sex"]);
        assert_eq!(f.chosen, [2, 0]);
        assert_eq!(
            f.header(),
            [
                "chosen",
                "level of age",
                "level of sex",
                "loss score",
                "records suppressed",
                "exact listwise rate",
                "exact wildcard rate"
            ]
        );
        assert_eq!(
            f.rows(),
            [
                vec![
                    json!("yes"),
                    json!(2),
                    json!(0),
                    json!(0.25),
                    json!(3),
                    json!(0.1),
                    Value::Null
                ],
                vec![
                    json!(""),
                    json!(3),
                    json!(1),
                    json!(0.5),
                    json!(0),
                    json!(0.05),
                    json!(0.02)
                ],
            ]
        );
        // Details of a step that does not search.
        assert_eq!(Frontier::of(&json!({"pairs": 3})), None);
        let mut no_metric = details.clone();
        no_metric.as_object_mut().unwrap().remove("metric");
        assert_eq!(Frontier::of(&no_metric), None);
    }
}
