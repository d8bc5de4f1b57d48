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
        let mut n_dynamic = 0;
        for (b, l) in load.iter_mut().enumerate() {
            *l = if dynamic(b) {
                n_dynamic += 1;
                model.bodies[b].mass
            } else {
                0.0
            };
            n_lower[b] = 0;
        }
        // The dynamic bodies, in the last step's order where they are the same
        // set (as many, each dynamic, distinct): a world at rest then comes
        // sorted and the sort only checks it. The comparator is a strict total
        // order, so the sorted result is the same whatever the input order.
        if order.len() != n_dynamic || !order.iter().all(|&b| b < load.len() && dynamic(b)) {
            order.clear();
            order.extend((0..load.len()).filter(|&b| dynamic(b)));
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

    /// "Up" of the graph: against gravity (z in a weightless scene).
    pub fn up(&self) -> Vec3 {
        self.up
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

/// One contact of a [`NormalSplit`]: the body u it holds up (the upper one), the
/// caller's index k, its unit normal toward u and the weight share it is given,
/// as a force on u.
#[derive(Clone, Copy, Debug)]
struct SplitEntry {
    u: u32,
    k: u32,
    /// Whether u is the pair's body a (the normal and the load are then a's).
    on_a: bool,
    n: Vec3,
    w: Vec3,
}

/// Coordinate-descent sweeps of the split's non-negative least squares at most, and
/// the relative change (of a normal force, to the weight) under which it stops.
const SPLIT_SWEEPS: usize = 64;
const SPLIT_TOL: f64 = 1e-12;

/// The tangential loads of contacts that hold a body up together: the part of the
/// weight their NORMALS cannot carry.
///
/// [`SupportLoads::pair_weight`] gives each of body u's n lower pairs the vertical
/// share W_k = load(u) g / n, and sticking friction feeds its projection on the
/// contact plane forward as the tangential load L_t (`contact::friction`). With one
/// lower pair that is the force friction must hold (a box on an incline: the
/// tangential part of its weight). With several pairs whose normals are tilted it
/// is not: a ball in a pocket of four supports 45° from the vertical is carried by
/// the four normal forces alone (tangential load zero), while the projections push
/// each contact up its plane by (m g / 4) sin 45° — at or beyond the sticking cone,
/// and together they lift the ball by m g / 2 (docs/EXPERIMENTS.md, "Friction that
/// comes to rest").
///
/// Per body u with contacts k = 1 … n below it (normals n_k toward u, shares W_k
/// as forces on u), the normal forces λ_k ≥ 0 that carry the most of the weight,
///
///   min_λ ‖−ΣW_k − Σ λ_k n_k‖²   subject to λ ≥ 0
///
/// (non-negative least squares, by projected coordinate descent: fixed order, at
/// most [`SPLIT_SWEEPS`] sweeps, no allocation), leave the residual
/// R = −ΣW_k − Σ λ_k n_k, the force on u only friction can supply; each contact's
/// tangential load is its share of it on its plane, L_t,k = −P_k R / n as a force on
/// u (the feed-forward −L_t then supplies R). At the optimum R·n_k = 0 on every
/// contact that carries a normal force, so the projection P_k = E − n_k n_kᵀ keeps
/// all of R there. A body with one lower contact keeps today's load (no entry is
/// written: the caller uses the projection of W itself, bit for bit), and a lone
/// slope contact is its single-contact case: λ = −W·n, R = −P W.
#[derive(Clone, Debug, Default)]
pub struct NormalSplit {
    entries: Vec<SplitEntry>,
    lambda: Vec<f64>,
    /// Per caller index: the tangential load on the pair's body a, N, or `None`
    /// where the caller keeps the projection of the pair's weight.
    pub load: Vec<Option<Vec3>>,
}

impl NormalSplit {
    /// Buffers for `n` contacts (grown only when a step has more).
    pub fn with_capacity(n: usize) -> Self {
        NormalSplit {
            entries: Vec::with_capacity(n),
            lambda: Vec::with_capacity(n),
            load: Vec::with_capacity(n),
        }
    }

    /// Empty, for caller indices 0..n (all `None`).
    pub fn clear(&mut self, n: usize) {
        self.entries.clear();
        if self.entries.capacity() < n {
            self.entries.reserve(n);
        }
        if self.lambda.capacity() < n {
            self.lambda.reserve(n);
        }
        self.load.clear();
        self.load.resize(n, None);
    }

    /// Contact `k` between bodies (a, b) with unit normal `normal` toward a and the
    /// weight share `weight` as a force on a relative to b
    /// ([`SupportLoads::pair_weight`]: +M g when a rests on b, −M g when b rests on
    /// a, zero otherwise; a contact with no weight is not part of the split); `up`
    /// against gravity ([`SupportLoads::up`]).
    pub fn push(&mut self, k: usize, (a, b): (usize, usize), normal: Vec3, weight: Vec3, up: Vec3) {
        if weight == Vec3::zeros() || k >= self.load.len() {
            return;
        }
        // a is the upper body when its share points down (+M g).
        let on_a = weight.dot(&up) < 0.0;
        let (u, n, w) = if on_a {
            (a, normal, weight)
        } else {
            (b, -normal, -weight)
        };
        self.entries.push(SplitEntry {
            u: u as u32,
            k: k as u32,
            on_a,
            n,
            w,
        });
    }

    /// The weight `weight` of contact `k` (normal `normal`) as the friction
    /// feed-forward reads it: its normal part kept (the cone's floor W_n) and its
    /// tangential part replaced by the split's load L_t where the split wrote one.
    pub fn weight(&self, k: usize, normal: Vec3, weight: Vec3) -> Vec3 {
        match self.load.get(k).copied().flatten() {
            Some(l) => normal * normal.dot(&weight) + l,
            None => weight,
        }
    }

    /// Solves every body's split and writes `load` for the contacts of bodies with
    /// two or more lower contacts.
    pub fn solve(&mut self) {
        let NormalSplit {
            entries,
            lambda,
            load,
        } = self;
        entries.sort_unstable_by(|x, y| x.u.cmp(&y.u).then(x.k.cmp(&y.k)));
        let mut i = 0;
        while i < entries.len() {
            let u = entries[i].u;
            let mut j = i;
            while j < entries.len() && entries[j].u == u {
                j += 1;
            }
            let group = &entries[i..j];
            i = j;
            if group.len() < 2 {
                continue;
            }
            // The force the normals must supply, T = −ΣW_k, and the residual r.
            let t = -group.iter().fold(Vec3::zeros(), |s, e| s + e.w);
            let scale = t.norm();
            if scale <= 0.0 || !scale.is_finite() {
                continue;
            }
            lambda.clear();
            lambda.resize(group.len(), 0.0);
            let mut r = t;
            for _ in 0..SPLIT_SWEEPS {
                let mut change = 0.0f64;
                for (e, l) in group.iter().zip(lambda.iter_mut()) {
                    let nn = e.n.norm_squared();
                    if nn <= 0.0 {
                        continue;
                    }
                    let new = (*l + e.n.dot(&r) / nn).max(0.0);
                    let d = new - *l;
                    r -= e.n * d;
                    *l = new;
                    change = change.max(d.abs());
                }
                if change <= SPLIT_TOL * scale {
                    break;
                }
            }
            let share = r / group.len() as f64;
            for e in group {
                let p = share - e.n * e.n.dot(&share);
                // L_t on u is −P share; on a it is that, or its opposite when u = b.
                let l = if e.on_a { -p } else { p };
                if l.iter().all(|v| v.is_finite()) {
                    load[e.k as usize] = Some(l);
                }
            }
        }
    }
}
