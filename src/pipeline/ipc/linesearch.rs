//! The line search's CCD filter (004 §4.3): the largest fraction α ∈ [0, 1] of a
//! Newton step p from the iterate x such that no vertex–face or edge–edge pair of
//! two bodies comes within δ along the curved rigid trajectories
//! θ(t) = θ + t p_θ, q(t) = q + t p_q.
//!
//! Broad phase over swept bounds: a point X (pre-rotated body frame) moves within
//! |X| |p_θ| of its translated start (the rotation-vector map is 1-Lipschitz into
//! the rotation angle), so its swept box is the box of φ(0) and φ(0) + p_q grown by
//! |X| |p_θ| + δ; a face's or an edge's box is the union of its vertices'. Body
//! pairs whose swept boxes miss are skipped whole; every primitive pair whose
//! boxes meet is a CCD query.
//!
//! A round vertex (a sphere's centre, `ipc::mesh` "Round vertices") is a point
//! whose distances are offset by its radius: its box is grown by it, and its
//! queries measure the surface gap (the centre's distance less the radii), with
//! the centre's rate.
//!
//! The query is conservative advancement along the curved trajectories: the
//! distance between the two primitives can shrink at most at the rate
//! L = (|p_q,a| + r_a |p_θ,a|) + (|p_q,b| + r_b |p_θ,b|) (r the largest |X| of the
//! primitive's vertices; a face point is a convex combination of its vertices), so
//! from a time t with distance d(t) the pair is safe until t + (d(t) − s)/L for any
//! separation s. A pair with d(0) − L > s never meets; otherwise t is advanced by
//! that bound, d re-measured at the true curved positions, until the distance is
//! down to s = max(δ, d(0)/10) (the answer, never late) or t reaches 1.
//!
//! The interval-arithmetic search of `ipc::ccd` (also conservative) is exact but
//! was measured too slow here: on the 10 m slab of the incline scene each query
//! exhausted its 10⁵-box budget (a vertex 1 mm from a tilted 10 m triangle needs
//! u, v boxes ~10⁻⁴ wide before any component of F excludes 0), 3,060 queries and
//! > 60 s for one step; advancement answers the same queries in microseconds.

use super::friction::closest_on_triangle;
use super::newton::{vars, BodyBuf};
use super::IpcBody;
use crate::collision::pairs::segment_segment;
use crate::ipc::ccd::{CcdParams, CcdScratch, Trajectory};
use crate::ipc::geom::closest_on_segment;
use crate::math::Vec3;

/// Working memory of the filter.
#[derive(Clone, Debug)]
pub struct CcdFilter {
    pub params: CcdParams,
    pub scratch: CcdScratch,
    /// Per body: swept box of each vertex.
    boxes: Vec<Vec<(Vec3, Vec3)>>,
    traj: Vec<Trajectory>,
    body_box: Vec<(Vec3, Vec3)>,
}

impl Default for CcdFilter {
    fn default() -> Self {
        CcdFilter {
            params: CcdParams {
                delta: 1e-9,
                t_tol: 1e-6,
                max_boxes: 100_000,
            },
            scratch: CcdScratch::default(),
            boxes: Vec::new(),
            traj: Vec::new(),
            body_box: Vec::new(),
        }
    }
}

#[inline]
fn meet(a: &(Vec3, Vec3), b: &(Vec3, Vec3)) -> bool {
    (0..3).all(|i| a.0[i] <= b.1[i] && b.0[i] <= a.1[i])
}

#[inline]
fn union(a: &(Vec3, Vec3), b: &(Vec3, Vec3)) -> (Vec3, Vec3) {
    (a.0.inf(&b.0), a.1.sup(&b.1))
}

/// Bound on the speed (per unit t) of any point of a primitive with body-frame
/// vertices `x` along trajectory `tr`.
fn rate(tr: &Trajectory, x: &[&Vec3]) -> f64 {
    let r = x.iter().map(|v| v.norm()).fold(0.0, f64::max);
    (tr.q1 - tr.q0).norm() + r * (tr.theta1 - tr.theta0).norm()
}

/// Conservative advancement (module doc): a time in [0, 1] no later than the first
/// at which `dist` falls to max(δ, d(0)/10); 1 if it never does.
fn advance(dist: impl Fn(f64) -> f64, rate: f64, delta: f64) -> f64 {
    let d0 = dist(0.0);
    let s = delta.max(0.1 * d0);
    if rate <= 0.0 || d0 - rate > s {
        return 1.0;
    }
    let mut t = 0.0;
    let mut d = d0;
    for _ in 0..64 {
        if d <= s {
            return t;
        }
        t += (d - s) / rate;
        if t >= 1.0 {
            return 1.0;
        }
        d = dist(t);
    }
    t
}

impl CcdFilter {
    /// Size the buffers for the bodies' meshes (once).
    pub fn size(&mut self, bufs: &[BodyBuf]) {
        self.boxes.resize(bufs.len(), Vec::new());
        for (b, bb) in self.boxes.iter_mut().zip(bufs) {
            b.resize(bb.xt.len(), (Vec3::zeros(), Vec3::zeros()));
        }
        self.traj
            .resize(bufs.len(), Trajectory::fixed(Vec3::zeros(), Vec3::zeros()));
        self.body_box
            .resize(bufs.len(), (Vec3::zeros(), Vec3::zeros()));
    }

    /// (α_max, queries): the earliest conservative time of impact over all
    /// candidate pairs (1 if none), and the number of CCD queries run.
    pub fn max_step(
        &mut self,
        bodies: &[IpcBody],
        bufs: &[BodyBuf],
        x: &[f64],
        p: &[f64],
    ) -> (f64, usize) {
        let delta = self.params.delta;
        for (k, b) in bufs.iter().enumerate() {
            let (th, dq) = vars(b, x);
            let (pth, pq) = vars(b, p);
            self.traj[k] = Trajectory {
                theta0: th,
                theta1: th + pth,
                q0: b.q0 + dq,
                q1: b.q0 + dq + pq,
            };
            let turn = pth.norm();
            let mut bb = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
            let radii = &bodies[k].mesh.radii;
            for (i, w) in b.world.iter().enumerate() {
                // A round vertex's box holds its sphere.
                let grow = b.xt[i].norm() * turn + delta + radii[i];
                let lo = w.inf(&(w + pq)).add_scalar(-grow);
                let hi = w.sup(&(w + pq)).add_scalar(grow);
                self.boxes[k][i] = (lo, hi);
                bb = union(&bb, &(lo, hi));
            }
            self.body_box[k] = bb;
        }
        let mut t_min: f64 = 1.0;
        let mut queries = 0;
        let n = bufs.len();
        for k in 0..n {
            for l in k + 1..n {
                let (bk, bl) = (&bufs[k], &bufs[l]);
                if bk.dof.is_none() && bl.dof.is_none() {
                    continue;
                }
                if bk.xt.is_empty() || bl.xt.is_empty() {
                    continue;
                }
                if !meet(&self.body_box[k], &self.body_box[l]) {
                    continue;
                }
                let (mk, ml) = (&bodies[k].mesh, &bodies[l].mesh);
                // Vertices of one against faces of the other, both ways.
                for (a, b) in [(k, l), (l, k)] {
                    let mb = if b == l { ml } else { mk };
                    let xa = &bufs[a].xt;
                    let xb = &bufs[b].xt;
                    let ra = &bodies[a].mesh.radii;
                    for (vi, vbox) in self.boxes[a].iter().enumerate() {
                        if !meet(vbox, &self.body_box[b]) {
                            continue;
                        }
                        for f in &mb.faces {
                            let fb = union(
                                &union(
                                    &self.boxes[b][f[0] as usize],
                                    &self.boxes[b][f[1] as usize],
                                ),
                                &self.boxes[b][f[2] as usize],
                            );
                            if !meet(vbox, &fb) {
                                continue;
                            }
                            queries += 1;
                            let (ta, tb) = (&self.traj[a], &self.traj[b]);
                            let tri = f.map(|i| &xb[i as usize]);
                            let rate = rate(ta, &[&xa[vi]]) + rate(tb, &tri);
                            let dist = |t: f64| {
                                let p = ta.point_at(&xa[vi], t);
                                let [u, v, w] = tri.map(|x| tb.point_at(x, t));
                                let c = closest_on_triangle(&p, &u, &v, &w);
                                (p - (u * c[0] + v * c[1] + w * c[2])).norm() - ra[vi]
                            };
                            t_min = t_min.min(advance(dist, rate, delta));
                        }
                    }
                }
                for ea in &mk.edges {
                    let ba = union(
                        &self.boxes[k][ea[0] as usize],
                        &self.boxes[k][ea[1] as usize],
                    );
                    if !meet(&ba, &self.body_box[l]) {
                        continue;
                    }
                    for eb in &ml.edges {
                        let bb = union(
                            &self.boxes[l][eb[0] as usize],
                            &self.boxes[l][eb[1] as usize],
                        );
                        if !meet(&ba, &bb) {
                            continue;
                        }
                        queries += 1;
                        let (ta, tb) = (&self.traj[k], &self.traj[l]);
                        let xa = ea.map(|i| &bk.xt[i as usize]);
                        let xb = eb.map(|i| &bl.xt[i as usize]);
                        let rate = rate(ta, &xa) + rate(tb, &xb);
                        let rr = mk.radii[ea[0] as usize] + ml.radii[eb[0] as usize];
                        let dist = |t: f64| {
                            let [a0, a1] = xa.map(|x| ta.point_at(x, t));
                            let [b0, b1] = xb.map(|x| tb.point_at(x, t));
                            let (s, u) = segment_segment(&a0, &a1, &b0, &b1);
                            ((a0 + (a1 - a0) * s) - (b0 + (b1 - b0) * u)).norm() - rr
                        };
                        t_min = t_min.min(advance(dist, rate, delta));
                    }
                }
                // Round vertices against round edges (a sphere or a capsule's end and
                // a capsule's axis): the point–segment distance less the radii.
                for (a, b) in [(k, l), (l, k)] {
                    let (ma, mb) = (&bodies[a].mesh, &bodies[b].mesh);
                    for &va in &ma.round {
                        let va = va as usize;
                        for &ei in &mb.round_edges {
                            let e = mb.edges[ei as usize].map(|i| i as usize);
                            let eb = union(&self.boxes[b][e[0]], &self.boxes[b][e[1]]);
                            if !meet(&self.boxes[a][va], &eb) {
                                continue;
                            }
                            queries += 1;
                            let (ta, tb) = (&self.traj[a], &self.traj[b]);
                            let xa = &bufs[a].xt[va];
                            let xe = e.map(|i| &bufs[b].xt[i]);
                            let rate = rate(ta, &[xa]) + rate(tb, &xe);
                            let rr = ma.radii[va] + mb.radii[e[0]];
                            let dist = |t: f64| {
                                let p = ta.point_at(xa, t);
                                let [e0, e1] = xe.map(|x| tb.point_at(x, t));
                                let s = closest_on_segment(&p, &e0, &e1);
                                (p - (e0 + (e1 - e0) * s)).norm() - rr
                            };
                            t_min = t_min.min(advance(dist, rate, delta));
                        }
                    }
                }
                // Round vertices against round vertices (two spheres): the centres'
                // distance less the radii.
                for &va in &mk.round {
                    for &vb in &ml.round {
                        let (va, vb) = (va as usize, vb as usize);
                        if !meet(&self.boxes[k][va], &self.boxes[l][vb]) {
                            continue;
                        }
                        queries += 1;
                        let (ta, tb) = (&self.traj[k], &self.traj[l]);
                        let (xa, xb) = (&bk.xt[va], &bl.xt[vb]);
                        let rate = rate(ta, &[xa]) + rate(tb, &[xb]);
                        let rr = mk.radii[va] + ml.radii[vb];
                        let dist = |t: f64| (ta.point_at(xa, t) - tb.point_at(xb, t)).norm() - rr;
                        t_min = t_min.min(advance(dist, rate, delta));
                    }
                }
            }
        }
        (t_min.clamp(0.0, 1.0), queries)
    }
}
