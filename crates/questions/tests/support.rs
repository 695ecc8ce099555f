//! Small tables for the tests, and the population behind the acceptance tests.

use intruder_data::{Column, Role, Table};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An integer column.
pub fn int(name: &str, values: &[i64]) -> Column {
    let v: Vec<Option<i64>> = values.iter().map(|&x| Some(x)).collect();
    Column::integer(name, Role::Other, &v)
}

/// A float column.
pub fn float(name: &str, values: &[f64]) -> Column {
    let v: Vec<Option<f64>> = values.iter().map(|&x| Some(x)).collect();
    Column::float(name, Role::Other, &v)
}

/// A categorical column, one label per character of `labels`.
pub fn cat(name: &str, labels: &str) -> Column {
    let v: Vec<Option<String>> = labels.chars().map(|c| Some(c.to_string())).collect();
    Column::categorical(name, Role::Other, &v, None).unwrap()
}

/// A table from a file name and columns.
pub fn table(file: &str, columns: Vec<Column>) -> Table {
    Table::new(file, columns).unwrap()
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u: f64 = rng.r#gen::<f64>().max(1e-300);
    let v: f64 = rng.r#gen();
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// A category drawn from weights.
fn pick(rng: &mut ChaCha8Rng, weights: &[f64]) -> usize {
    let total: f64 = weights.iter().sum();
    let mut x = rng.r#gen::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.len() - 1
}

/// `n` people of a mixed-type population (integers, floats, categories; education depends on
/// age, income on education and hours), drawn with `seed`: original and control sets are two
/// draws.
pub fn population(file: &str, n: usize, seed: u64) -> Table {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut age, mut sex, mut region, mut education, mut hours, mut income, mut weight) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..n {
        let a = (18.0 + 60.0 * rng.r#gen::<f64>().powf(1.3)).round() as i64;
        let s = if rng.gen_bool(0.52) { "F" } else { "M" };
        let r = pick(
            &mut rng,
            &[5.0, 4.0, 3.0, 3.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.5],
        );
        let young = if a < 30 { 2.0 } else { 1.0 };
        let e = pick(&mut rng, &[young, 3.0, 2.5, 2.0, 1.0, 0.7, 0.4, 0.2]);
        let h = (20.0 + 25.0 * rng.r#gen::<f64>() + 5.0 * normal(&mut rng))
            .round()
            .max(1.0) as i64;
        let inc = (9.5 + 0.15 * e as f64 + 0.01 * h as f64 + 0.5 * normal(&mut rng)).exp();
        let w = 50.0 + 15.0 * normal(&mut rng) + if s == "M" { 12.0 } else { 0.0 };
        age.push(Some(a));
        sex.push(Some(s.to_string()));
        region.push(Some(format!("r{r}")));
        education.push(Some(format!("e{e}")));
        hours.push(Some(h));
        income.push(Some((inc * 100.0).round() / 100.0));
        weight.push(Some((w * 10.0).round() / 10.0));
    }
    Table::new(
        file,
        vec![
            Column::integer("age", Role::Other, &age),
            Column::categorical("sex", Role::Other, &sex, None).unwrap(),
            Column::categorical("region", Role::Other, &region, None).unwrap(),
            Column::categorical("education", Role::Other, &education, None).unwrap(),
            Column::integer("hours", Role::Other, &hours),
            Column::float("income", Role::Other, &income),
            Column::float("weight", Role::Other, &weight),
        ],
    )
    .unwrap()
}

/// A release of `n` records whose every column is drawn independently from the population's
/// marginal: a fresh draw of the population (no original record's values, beyond chance
/// coincidences of discrete values) with each column shuffled on its own (no dependence between
/// columns either).
pub fn independent_marginals(file: &str, n: usize, seed: u64) -> Table {
    let fresh = population(file, n, seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let columns = fresh
        .columns()
        .iter()
        .map(|c| {
            let mut rows: Vec<usize> = (0..n).collect();
            rows.shuffle(&mut rng);
            c.take(&rows)
        })
        .collect();
    Table::new(file, columns).unwrap()
}

/// `table` under another file name.
pub fn renamed(table: &Table, file: &str) -> Table {
    let mut t = table.clone();
    t.relabel(file);
    t
}
