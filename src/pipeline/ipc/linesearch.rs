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
//! boxes meet is a CCD query (`ipc::ccd`, interval arithmetic, never late).

use super::newton::{vars, BodyBuf};
use super::IpcBody;
use crate::ipc::ccd::{edge_edge_with, vertex_face_with, CcdParams, CcdScratch, Trajectory};
use crate::math::Vec3;

/// Working memory of the filter.
#[derive(Clone, Debug)]
pub struct CcdFilter {
    pub params: CcdParams,
    scratch: CcdScratch,
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
            for (i, w) in b.world.iter().enumerate() {
                let grow = b.xt[i].norm() * turn + delta;
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
                            let toi = vertex_face_with(
                                &mut self.scratch,
                                &self.traj[a],
                                &xa[vi],
                                &self.traj[b],
                                f.map(|i| &xb[i as usize]),
                                &self.params,
                            );
                            if let Some(t) = toi.t {
                                t_min = t_min.min(t);
                            }
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
                        let toi = edge_edge_with(
                            &mut self.scratch,
                            &self.traj[k],
                            ea.map(|i| &bk.xt[i as usize]),
                            &self.traj[l],
                            eb.map(|i| &bl.xt[i as usize]),
                            &self.params,
                        );
                        if let Some(t) = toi.t {
                            t_min = t_min.min(t);
                        }
                    }
                }
            }
        }
        (t_min.clamp(0.0, 1.0), queries)
    }
}
