//! CART synthesis (Reiter 2005; Mitra et al. §4.2): a regression tree of `y^(T)` on `x` and
//! `y^(1..T−1)` with a minimum leaf size; a selected household's `y^(T)` is replaced by a draw
//! from the observed values of its leaf.
//!
//! The tree is grown by `smartcore`'s `DecisionTreeRegressor` (best split by squared error,
//! `min_samples_leaf`, seeded). Its nodes are private, and a draw needs the *leaf* of each record,
//! not only the leaf mean (two leaves may share a mean), so the fitted tree is read through its
//! serde form (split feature, threshold, children) and every record is routed to its leaf here.
//! The routing is checked against `smartcore`'s own prediction for every training record: a
//! mismatch (a future change of smartcore's format) is an error, never a silent wrong leaf.

use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::tree::decision_tree_regressor::{
    DecisionTreeRegressor, DecisionTreeRegressorParameters,
};

use crate::error::PanelError;

#[derive(Debug, Clone)]
struct Node {
    feature: usize,
    threshold: f64,
    children: Option<(usize, usize)>,
}

/// A fitted tree with the training records of every leaf.
#[derive(Debug, Clone)]
pub struct LeafTree {
    nodes: Vec<Node>,
    /// Leaf of every training record.
    leaf_of: Vec<usize>,
    /// Training records of each leaf (by node id; empty for internal nodes).
    members: Vec<Vec<usize>>,
}

fn model_err(m: impl std::fmt::Display) -> PanelError {
    PanelError::Model(format!("CART synthesis: {m}"))
}

impl LeafTree {
    /// Fits the tree on column-major `cols` (n rows each) and `y`, with at least `min_leaf`
    /// records per leaf; `seed` fixes smartcore's order of trying variables.
    pub fn fit(
        cols: &[Vec<f64>],
        y: &[f64],
        min_leaf: usize,
        seed: u64,
    ) -> Result<Self, PanelError> {
        let n = y.len();
        if n == 0 {
            return Err(model_err("no records to fit the tree on"));
        }
        if min_leaf == 0 {
            return Err(PanelError::Params(vec![
                "min_leaf must be at least 1".into(),
            ]));
        }
        let p = cols.len().max(1);
        let mut values = Vec::with_capacity(n * p);
        if cols.is_empty() {
            values.resize(n, 0.0);
        }
        for c in cols {
            values.extend_from_slice(c);
        }
        let x = DenseMatrix::new(n, p, values, true).map_err(model_err)?;
        let mut params = DecisionTreeRegressorParameters::default()
            .with_min_samples_leaf(min_leaf)
            .with_min_samples_split(2 * min_leaf);
        params.seed = Some(seed);
        let yv: Vec<f64> = y.to_vec();
        let tree = DecisionTreeRegressor::fit(&x, &yv, params).map_err(model_err)?;
        let pred = tree.predict(&x).map_err(model_err)?;
        let json = serde_json::to_value(&tree).map_err(model_err)?;
        let raw = json
            .get("tree_regressor")
            .and_then(|t| t.get("nodes"))
            .and_then(|n| n.as_array())
            .ok_or_else(|| model_err("unexpected serialised tree (no nodes)"))?;
        let mut nodes = Vec::with_capacity(raw.len());
        for node in raw {
            let f = |k: &str| node.get(k).and_then(|v| v.as_u64()).map(|v| v as usize);
            let children = match (f("true_child"), f("false_child")) {
                (Some(a), Some(b)) => Some((a, b)),
                _ => None,
            };
            nodes.push(Node {
                feature: f("split_feature").unwrap_or(0),
                threshold: node
                    .get("split_value")
                    .and_then(|v| v.as_f64())
                    .unwrap_or(f64::NAN),
                children,
            });
        }
        if nodes.is_empty() {
            return Err(model_err("the fitted tree has no nodes"));
        }
        let mut out = LeafTree {
            members: vec![Vec::new(); nodes.len()],
            nodes,
            leaf_of: Vec::with_capacity(n),
        };
        let mut row = vec![0.0; p];
        for i in 0..n {
            for (j, c) in cols.iter().enumerate() {
                row[j] = c[i];
            }
            let leaf = out.route(&row)?;
            out.leaf_of.push(leaf);
            out.members[leaf].push(i);
        }
        // Check the routing against smartcore's prediction (the leaf means).
        #[allow(clippy::needless_range_loop)] // i indexes several parallel arrays
        for i in 0..n {
            let m = &out.members[out.leaf_of[i]];
            let mean = m.iter().map(|&k| y[k]).sum::<f64>() / m.len() as f64;
            let tol = 1e-9 * mean.abs().max(1.0);
            if (mean - pred[i]).abs() > tol {
                return Err(model_err(format!(
                    "leaf routing disagrees with smartcore's prediction at record {} ({} vs {})",
                    i + 1,
                    mean,
                    pred[i]
                )));
            }
        }
        Ok(out)
    }

    fn route(&self, row: &[f64]) -> Result<usize, PanelError> {
        let mut id = 0;
        for _ in 0..=self.nodes.len() {
            let node = self
                .nodes
                .get(id)
                .ok_or_else(|| model_err("bad child index"))?;
            match node.children {
                None => return Ok(id),
                Some((t, f)) => {
                    let v = *row
                        .get(node.feature)
                        .ok_or_else(|| model_err("bad feature"))?;
                    id = if v <= node.threshold { t } else { f };
                }
            }
        }
        Err(model_err("the tree has a cycle"))
    }

    /// The leaf (node id) of training record `i`.
    pub fn leaf_of(&self, i: usize) -> usize {
        self.leaf_of[i]
    }

    /// Training records of leaf `leaf`.
    pub fn members(&self, leaf: usize) -> &[usize] {
        &self.members[leaf]
    }

    /// Number of leaves.
    pub fn leaves(&self) -> usize {
        self.members.iter().filter(|m| !m.is_empty()).count()
    }

    /// The smallest leaf.
    pub fn min_leaf_size(&self) -> usize {
        self.members
            .iter()
            .filter(|m| !m.is_empty())
            .map(Vec::len)
            .min()
            .unwrap_or(0)
    }
}
