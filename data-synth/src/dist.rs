//! Small sampling helpers shared by the generators.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

/// The generators' random number generator: ChaCha8, seeded from the user's seed and a
/// per-purpose stream number so that independent parts draw independent numbers.
pub type SynthRng = ChaCha8Rng;

/// A generator for stream `stream` of `seed`.
pub fn rng(seed: u64, stream: u64) -> SynthRng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

/// A categorical distribution given by non-negative weights (need not sum to one).
#[derive(Debug, Clone)]
pub struct Categorical {
    cum: Vec<f64>,
}

impl Categorical {
    /// Build from weights; at least one must be positive.
    pub fn new(weights: &[f64]) -> Self {
        let mut cum = Vec::with_capacity(weights.len());
        let mut acc = 0.0;
        for w in weights {
            acc += w.max(0.0);
            cum.push(acc);
        }
        assert!(acc > 0.0, "categorical weights must not all be zero");
        for c in &mut cum {
            *c /= acc;
        }
        Categorical { cum }
    }

    /// Zipf-like weights `1 / (i + 1)^s` over `k` categories.
    pub fn zipf(k: usize, s: f64) -> Self {
        let w: Vec<f64> = (0..k).map(|i| 1.0 / ((i + 1) as f64).powf(s)).collect();
        Categorical::new(&w)
    }

    /// Number of categories.
    pub fn len(&self) -> usize {
        self.cum.len()
    }

    /// Whether there are no categories (never true once built).
    pub fn is_empty(&self) -> bool {
        self.cum.is_empty()
    }

    /// Draw a category index.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let u: f64 = rng.r#gen();
        self.index_of(u)
    }

    /// The category whose cumulative interval holds `u` in `[0, 1)`.
    pub fn index_of(&self, u: f64) -> usize {
        if self.cum.len() <= 16 {
            self.cum
                .iter()
                .position(|&c| u < c)
                .unwrap_or(self.cum.len() - 1)
        } else {
            self.cum
                .partition_point(|&c| c <= u)
                .min(self.cum.len() - 1)
        }
    }
}

/// A standard normal draw.
pub fn normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}

/// A Bernoulli draw with probability `p`.
pub fn chance<R: Rng + ?Sized>(rng: &mut R, p: f64) -> bool {
    rng.r#gen::<f64>() < p
}

/// Sample by weights given inline.
pub fn pick<R: Rng + ?Sized>(rng: &mut R, weights: &[f64]) -> usize {
    let total: f64 = weights.iter().map(|w| w.max(0.0)).sum();
    let mut u = rng.r#gen::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        let w = w.max(0.0);
        if u < w {
            return i;
        }
        u -= w;
    }
    weights.len() - 1
}
