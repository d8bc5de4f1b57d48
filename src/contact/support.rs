//! The weight each contact carries: the support graph of a resting pile, shared by
//! Hunt–Crossley's load-following λ (002 §5) and the friction feed-forward of the
//! penalty family ([`super::friction`]).
//!
//! Bodies are visited from the highest down (against gravity); each passes its load
//! (its own mass plus what rests on it) in equal shares to the touching bodies whose
//! centre of mass lies lower (static ones take theirs out of the graph). The pair
//! between an upper body u and a lower one carries M = load(u) / n(u), n(u) the
//! number of u's lower pairs; the force that pushes u along the contact plane is
//! then the tangential part of M g, which sticking friction has to hold.

use crate::data::{BodyState, PairState};
use crate::math::Vec3;
use crate::model::Model;

/// Working memory of the support graph (sized once, no per-tick allocation).
#[derive(Clone, Debug, Default)]
pub struct SupportLoads {
    /// Mass each body carries (its own and what rests on it), kg; 0 for static bodies.
    pub load: Vec<f64>,
    /// Number of touching pairs below each body.
    pub n_lower: Vec<u32>,
    /// Moving bodies ordered from the highest down.
    order: Vec<usize>,
    /// Touching pairs of each body, ascending (compressed rows: body b's are
    /// `adj[adj_start[b]..adj_start[b + 1]]`), so that the graph costs
    /// O(bodies log bodies + pairs) rather than O(bodies × pairs).
    adj_start: Vec<u32>,
    adj: Vec<u32>,
    /// "Up" of the graph (against gravity; z in a weightless scene).
    up: Vec3,
}

impl SupportLoads {
    pub fn new(nbody: usize) -> Self {
        SupportLoads {
            load: vec![0.0; nbody],
            n_lower: vec![0; nbody],
            order: Vec::with_capacity(nbody),
            adj_start: vec![0; nbody + 1],
            adj: Vec::with_capacity(2 * crate::collision::capacity::PAIRS_PER_GEOM * nbody),
            up: Vec3::z(),
        }
    }

    /// The loads of every body, from the pairs touching now (`PairState::touching`,
    /// part of the state) and the bodies' heights against gravity. A body with
    /// nothing on it carries its own mass; the bottom of a stack of n equal boxes
    /// carries n of them; side-by-side bodies at one height pass nothing to each
    /// other. O(bodies log bodies + pairs) through each body's list of touching pairs
    /// (the same sums in the same order as a scan of every pair per body); no
    /// allocation after the first calls.
    pub fn compute(
        &mut self,
        model: &Model,
        state: &[BodyState],
        dynamic: impl Fn(usize) -> bool,
        pairs: &[PairState],
    ) {
        let g = model.opt.gravity.norm();
        self.up = if g > 0.0 {
            -model.opt.gravity / g
        } else {
            Vec3::z()
        };
        let up = self.up;
        let height = |b: usize| up.dot(&state[b].x);
        let SupportLoads {
            load,
            n_lower,
            order,
            adj_start,
            adj,
            ..
        } = self;
        // Each body's touching pairs, in pair order (counting sort).
        let ends = |q: &PairState| {
            let ba = model.geoms[q.geom_a as usize].body;
            let bb = model.geoms[q.geom_b as usize].body;
            (q.touching && ba != bb).then_some((ba, bb))
        };
        adj_start.iter_mut().for_each(|s| *s = 0);
        let mut total = 0usize;
        for (ba, bb) in pairs.iter().filter_map(ends) {
            adj_start[ba + 1] += 1;
            adj_start[bb + 1] += 1;
            total += 2;
        }
        for b in 0..load.len() {
            adj_start[b + 1] += adj_start[b];
        }
        adj.clear();
        adj.resize(total, 0);
        // Fill with a running cursor per body: n_lower doubles as the cursor and is
        // reset below.
        n_lower.iter_mut().for_each(|n| *n = 0);
        for (k, q) in pairs.iter().enumerate() {
            if let Some((ba, bb)) = ends(q) {
                for b in [ba, bb] {
                    adj[(adj_start[b] + n_lower[b]) as usize] = k as u32;
                    n_lower[b] += 1;
                }
            }
        }
        order.clear();
        for (b, l) in load.iter_mut().enumerate() {
            *l = if dynamic(b) {
                model.bodies[b].mass
            } else {
                0.0
            };
            n_lower[b] = 0;
            if dynamic(b) {
                order.push(b);
            }
        }
        // Highest first; ties by index (deterministic, allocation-free sort).
        order.sort_unstable_by(|&a, &b| height(b).total_cmp(&height(a)).then(a.cmp(&b)));
        let lower = |u: usize, q: &PairState| -> Option<usize> {
            if !q.touching {
                return None;
            }
            let (ba, bb) = (
                model.geoms[q.geom_a as usize].body,
                model.geoms[q.geom_b as usize].body,
            );
            let v = match (ba == u, bb == u) {
                (true, false) => bb,
                (false, true) => ba,
                _ => return None,
            };
            // A static body (a floor, a plane) is below whatever touches it.
            (!dynamic(v) || height(v) < height(u)).then_some(v)
        };
        for &u in order.iter() {
            let incident = &adj[adj_start[u] as usize..adj_start[u + 1] as usize];
            let n = incident
                .iter()
                .filter(|&&k| lower(u, &pairs[k as usize]).is_some())
                .count();
            n_lower[u] = n as u32;
            if n == 0 {
                continue;
            }
            let share = load[u] / n as f64;
            for &k in incident {
                if let Some(v) = lower(u, &pairs[k as usize]) {
                    if dynamic(v) {
                        load[v] += share;
                    }
                }
            }
        }
    }

    /// The weight the pair of bodies (a, b) carries, as a force on a relative to b,
    /// N: +M g when a rests on b, −M g when b rests on a, zero for side-by-side
    /// bodies or a pair the graph does not hold. `dynamic` as in [`Self::compute`].
    pub fn pair_weight(
        &self,
        model: &Model,
        state: &[BodyState],
        dynamic: impl Fn(usize) -> bool,
        a: usize,
        b: usize,
    ) -> Vec3 {
        let height = |x: usize| self.up.dot(&state[x].x);
        let on = |u: usize, v: usize| {
            dynamic(u) && self.n_lower[u] > 0 && (!dynamic(v) || height(v) < height(u))
        };
        let share = |u: usize| self.load[u] / self.n_lower[u] as f64;
        if on(a, b) {
            model.opt.gravity * share(a)
        } else if on(b, a) {
            -model.opt.gravity * share(b)
        } else {
            Vec3::zeros()
        }
    }
}
