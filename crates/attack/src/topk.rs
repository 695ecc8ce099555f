//! The running best list of a nearest-neighbour query, shared by the double-precision search
//! ([`crate::knn`]) and its single-precision filter (`knn32`).

/// The running best list of one query.
#[derive(Debug, Clone)]
pub(crate) struct TopK {
    k: usize,
    pub(crate) items: Vec<(f64, u32)>,
}

impl TopK {
    pub(crate) fn new(k: usize) -> Self {
        TopK {
            k,
            items: Vec::with_capacity(k + 1),
        }
    }

    /// Partial sums above this cannot enter the list.
    #[inline]
    pub(crate) fn threshold(&self) -> f64 {
        if self.items.len() < self.k {
            f64::INFINITY
        } else {
            self.items[self.k - 1].0
        }
    }

    /// Offers row `row` (rows arrive in increasing order) at squared distance `d`.
    #[inline]
    pub(crate) fn offer(&mut self, d: f64, row: u32) {
        let best = self.items.first().map_or(f64::INFINITY, |x| x.0);
        if !(self.items.len() < self.k || d < self.threshold() || d == best) {
            return;
        }
        let pos = self.items.partition_point(|x| x.0 <= d);
        self.items.insert(pos, (d, row));
        let best = self.items[0].0;
        let ties = self.items.iter().take_while(|x| x.0 == best).count();
        self.items.truncate(ties.max(self.k));
    }
}
