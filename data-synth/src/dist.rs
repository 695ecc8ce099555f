//! Small sampling helpers shared by the generators.

use rand::Rng;
use rand::distributions::WeightedIndex;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use rand_distr::{Distribution, StandardNormal, Zipf};

/// The generators' random number generator: ChaCha8, seeded from the user's seed and a
/// per-purpose stream number so that independent parts draw independent numbers.
pub type SynthRng = ChaCha8Rng;

/// A generator for stream `stream` of `seed`.
pub fn rng(seed: u64, stream: u64) -> SynthRng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

/// A categorical distribution over `0..len`: by non-negative weights (`rand`'s
/// [`WeightedIndex`]) or Zipf frequencies (`rand_distr`'s [`Zipf`]).
#[derive(Debug, Clone)]
pub struct Categorical {
    draw: Draw,
    len: usize,
}

#[derive(Debug, Clone)]
enum Draw {
    Weighted(WeightedIndex<f64>),
    Zipf(Zipf<f64>),
}

impl Categorical {
    /// Build from weights (need not sum to one; negative or NaN weights count as zero); at least
    /// one must be positive.
    pub fn new(weights: &[f64]) -> Self {
        let w = WeightedIndex::new(weights.iter().map(|w| w.max(0.0)))
            .expect("categorical weights must not all be zero");
        Categorical {
            draw: Draw::Weighted(w),
            len: weights.len(),
        }
    }

    /// Zipf frequencies `1 / (i + 1)^s` over `k ≥ 1` categories (`s ≥ 0`; 0 is uniform).
    pub fn zipf(k: usize, s: f64) -> Self {
        let z = Zipf::new(k as u64, s).expect("Zipf needs k >= 1 and s >= 0");
        Categorical {
            draw: Draw::Zipf(z),
            len: k,
        }
    }

    /// Number of categories.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no categories (never true once built).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Draw a category index.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        match &self.draw {
            Draw::Weighted(w) => w.sample(rng),
            // rand_distr's Zipf returns a rank in 1..=k as a float; clamped because its
            // rejection-inversion sampler can very rarely round to k + 1
            // (rust-random/rand_distr#54).
            Draw::Zipf(z) => (z.sample(rng) as usize).clamp(1, self.len) - 1,
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

/// Sample by weights given inline (negative weights count as zero; the last index when all
/// are zero).
pub fn pick<R: Rng + ?Sized>(rng: &mut R, weights: &[f64]) -> usize {
    match WeightedIndex::new(weights.iter().map(|w| w.max(0.0))) {
        Ok(w) => w.sample(rng),
        Err(_) => weights.len() - 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draw frequencies close to the weights (a chi-square-free check: every share within
    /// five standard errors).
    fn close_to(counts: &[usize], probs: &[f64]) {
        let n: usize = counts.iter().sum();
        for (i, (&c, &p)) in counts.iter().zip(probs).enumerate() {
            let se = (p * (1.0 - p) / n as f64).sqrt();
            let share = c as f64 / n as f64;
            assert!(
                (share - p).abs() <= 5.0 * se + 1e-12,
                "category {i}: {share} vs {p}"
            );
        }
    }

    #[test]
    fn weighted_draws_follow_the_weights_and_skip_zeros() {
        let mut r = rng(7, 0);
        let d = Categorical::new(&[1.0, 0.0, 3.0, -2.0, 4.0]);
        assert_eq!(d.len(), 5);
        let mut counts = [0usize; 5];
        for _ in 0..80_000 {
            counts[d.sample(&mut r)] += 1;
        }
        assert_eq!(counts[1] + counts[3], 0);
        close_to(&counts, &[0.125, 0.0, 0.375, 0.0, 0.5]);
        let mut counts = [0usize; 3];
        for _ in 0..30_000 {
            counts[pick(&mut r, &[2.0, 1.0, 0.0])] += 1;
        }
        assert_eq!(counts[2], 0);
        close_to(&counts, &[2.0 / 3.0, 1.0 / 3.0, 0.0]);
        assert_eq!(pick(&mut r, &[0.0, 0.0]), 1);
    }

    #[test]
    fn zipf_draws_follow_one_over_rank_to_the_s() {
        let mut r = rng(7, 1);
        for (k, s) in [(1usize, 0.9), (6, 0.0), (6, 0.7), (30, 1.0), (30, 1.3)] {
            let d = Categorical::zipf(k, s);
            let w: Vec<f64> = (0..k).map(|i| 1.0 / ((i + 1) as f64).powf(s)).collect();
            let total: f64 = w.iter().sum();
            let probs: Vec<f64> = w.iter().map(|x| x / total).collect();
            let mut counts = vec![0usize; k];
            for _ in 0..60_000 {
                counts[d.sample(&mut r)] += 1;
            }
            close_to(&counts, &probs);
        }
    }
}
