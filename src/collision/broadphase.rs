//! Broad phase: sweep-and-prune along the world x axis.
//!
//! The sort order persists between calls and is restored by insertion sort, so a
//! scene whose bodies move little between steps costs O(N + k) (k overlapping
//! pairs) and a scrambled one O(N log N) at worst through the fallback sort. The
//! output is sorted by `(a, b)` with `a < b`, so the rest of the step never
//! depends on the sweep order (determinism).

use crate::math::Vec3;

/// Axis-aligned bounding box in world coordinates (may be unbounded for planes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    #[inline]
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min.x <= o.max.x
            && o.min.x <= self.max.x
            && self.min.y <= o.max.y
            && o.min.y <= self.max.y
            && self.min.z <= o.max.z
            && o.min.z <= self.max.z
    }

    /// Grown by `margin` on every side.
    #[inline]
    pub fn inflated(&self, margin: f64) -> Aabb {
        Aabb {
            min: self.min - Vec3::repeat(margin),
            max: self.max + Vec3::repeat(margin),
        }
    }
}

/// Sweep-and-prune state; keep one per `Data` and reuse it every step.
#[derive(Clone, Debug, Default)]
pub struct BroadPhase {
    /// Geom indices sorted by `aabb.min.x` (persisted between calls).
    order: Vec<u32>,
    /// Indices into `order` of the boxes still open during the sweep.
    active: Vec<u32>,
}

impl BroadPhase {
    pub fn new() -> Self {
        Self::default()
    }

    /// All overlapping pairs `(a, b)`, `a < b`, for which `wanted(a, b)` holds,
    /// written to `out` sorted ascending.
    pub fn find_pairs(
        &mut self,
        aabbs: &[Aabb],
        wanted: impl Fn(usize, usize) -> bool,
        out: &mut Vec<(u32, u32)>,
    ) {
        out.clear();
        let n = aabbs.len();
        if self.order.len() != n {
            self.order.clear();
            self.order.extend(0..n as u32);
        }
        // Restore the sort by min.x: insertion sort is linear on nearly sorted input;
        // bail out to the O(N log N) sort when the input is scrambled.
        let key = |i: u32| aabbs[i as usize].min.x;
        let mut moves = 0usize;
        let mut scrambled = false;
        for i in 1..n {
            let mut j = i;
            while j > 0 && key(self.order[j - 1]) > key(self.order[j]) {
                self.order.swap(j - 1, j);
                j -= 1;
                moves += 1;
            }
            if moves > 8 * n + 64 {
                scrambled = true;
                break;
            }
        }
        if scrambled {
            self.order
                .sort_unstable_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
        }
        // Sweep.
        self.active.clear();
        for &gi in &self.order {
            let bi = &aabbs[gi as usize];
            let mut k = 0;
            while k < self.active.len() {
                let gj = self.active[k];
                let bj = &aabbs[gj as usize];
                if bj.max.x < bi.min.x {
                    self.active.swap_remove(k);
                    continue;
                }
                if bi.overlaps(bj) {
                    let (a, b) = if gi < gj { (gi, gj) } else { (gj, gi) };
                    if wanted(a as usize, b as usize) {
                        out.push((a, b));
                    }
                }
                k += 1;
            }
            self.active.push(gi);
        }
        out.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::SplitMix64;

    #[test]
    fn sweep_matches_brute_force() {
        let mut rng = SplitMix64::new(7);
        let mut bp = BroadPhase::new();
        let mut out = Vec::new();
        for round in 0..5 {
            let aabbs: Vec<Aabb> = (0..300)
                .map(|_| {
                    let c = Vec3::new(
                        rng.uniform(-5.0, 5.0),
                        rng.uniform(-5.0, 5.0),
                        rng.uniform(-5.0, 5.0),
                    );
                    let h = Vec3::repeat(rng.uniform(0.05, 0.6));
                    Aabb {
                        min: c - h,
                        max: c + h,
                    }
                })
                .collect();
            bp.find_pairs(&aabbs, |a, b| (a + b + round) % 7 != 0, &mut out);
            let mut brute = Vec::new();
            for a in 0..aabbs.len() {
                for b in a + 1..aabbs.len() {
                    if aabbs[a].overlaps(&aabbs[b]) && (a + b + round) % 7 != 0 {
                        brute.push((a as u32, b as u32));
                    }
                }
            }
            assert_eq!(out, brute);
        }
    }
}
