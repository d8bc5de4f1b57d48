//! Lagged smoothed friction of 004 §5 (IPC's friction, Li et al. 2020 §5).
//!
//! For each pair k of the constraint set at the lag iterate (the start of the step,
//! then each pass's solution): the normal force magnitude
//! λ_k = κ |∂b/∂dist| = −κ b′(d) 2√d, the closest material points p_a, p_b (a vertex
//! and the barycentric point of a face, or the closest points of two edges — each a
//! fixed body-frame point of its body) and a tangent basis T_k ⊥ n_k. All three
//! are held fixed through the pass. The friction potential is
//!
//!   D_k(x) = μ λ_k f₀(‖T_kᵀ (u_a − u_b)‖),  u = φ(p, x) − φ(p, xᵗ)
//!
//! the tangential relative displacement over the step, with IPC's smoothing
//! f₀(y) = −y³/(3ε²) + y²/ε + ε/3 below ε = ε_v h and y above (f₁ = f₀′ is the
//! mollifier: f₁(y) = 2y/ε − y²/ε², 1 beyond ε). Its gradient is the friction force
//! μ λ f₁ (opposing the slip), so a sliding pair feels exactly μλ once it slips
//! faster than ε_v, and a sticking pair is held by a stiff slope (it creeps at most
//! ε_v).

use super::newton::{rotation, vars, BodyBuf, Newton};
use super::IpcBody;
use crate::collision::pairs::segment_segment;
use crate::ipc::ad::Real;
use crate::ipc::geom::{
    closest_on_segment, edge_mollifier, mollifier_threshold, rotate, EdgeEdge, V3,
};
use crate::ipc::mesh::Candidate;
use crate::math::Vec3;
use crate::model::Material;

/// One lagged friction pair.
#[derive(Clone, Copy, Debug)]
pub struct FrictionContact {
    pub body_a: u32,
    pub body_b: u32,
    /// Material points in the pre-rotated body frames (Xₜ coordinates).
    pub pa: Vec3,
    pub pb: Vec3,
    /// Tangent basis (world), orthonormal, ⊥ n.
    pub t: [Vec3; 2],
    /// μ λ, N·s² (the step's h²-scaled units, as the barrier).
    pub mu_lambda: f64,
    /// μ λ of the term whose geometry this is (= `mu_lambda` unless gathered).
    pub lead: f64,
    /// The pair's set has max-approximator weights other than 1: its friction terms
    /// are summed before their Hessian is projected, as its barrier terms.
    pub weighted: bool,
    /// Midpoint of the two world contact points at the lag iterate (where a weighted
    /// pair's terms are gathered, [`gather_weighted`]).
    pub at: Vec3,
}

/// Barycentric coordinates of the point of triangle (a, b, c) closest to p
/// (Ericson, Real-Time Collision Detection §5.1.5).
pub fn closest_on_triangle(p: &Vec3, a: &Vec3, b: &Vec3, c: &Vec3) -> [f64; 3] {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return [0.0, 1.0, 0.0];
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return [1.0 - v, v, 0.0];
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return [0.0, 0.0, 1.0];
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return [1.0 - w, 0.0, w];
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return [0.0, 1.0 - w, w];
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    [1.0 - v - w, v, w]
}

/// An orthonormal pair ⊥ n.
fn tangents(n: &Vec3) -> [Vec3; 2] {
    let a = if n.x.abs() < 0.6 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let t1 = n.cross(&a).normalize();
    [t1, n.cross(&t1)]
}

/// Rebuild the lagged friction pairs at the current iterate (world vertices placed,
/// constraint set collected) of `nw`.
pub fn lag(nw: &mut Newton, bodies: &[IpcBody], dhat2: f64) {
    nw.contacts.clear();
    for ri in 0..nw.ranges.len() {
        let (k, l, s, e) = nw.ranges[ri];
        let (ku, lu) = (k as usize, l as usize);
        let mu = Material::combine(&bodies[ku].material, &bodies[lu].material).mu;
        if mu <= 0.0 {
            continue;
        }
        let weighted = nw.weights[s..e].iter().any(|&w| w != 1.0);
        let first = nw.contacts.len();
        for ci in s..e {
            let (b_vertex, c) = nw.cands[ci];
            let (bk, bl) = (&nw.bufs[ku], &nw.bufs[lu]);
            // (material point on k, on l, world point on k, on l, d)
            // The edge–edge mollifier m scales that pair's barrier, so its normal
            // force (the 1 for point–triangle pairs).
            let mut moll = 1.0;
            // Radii of round vertices on k and on l (the material points are their
            // centres until moved to the surface below).
            let (mut rk, mut rl) = (0.0, 0.0);
            let (mut pk, mut pl, wk, wl, d) = match c {
                Candidate::VertexFace {
                    vertex, face, d, ..
                } => {
                    let (bv, bf, mf) = if b_vertex {
                        (bl, bk, &bodies[ku].mesh)
                    } else {
                        (bk, bl, &bodies[lu].mesh)
                    };
                    let f = mf.faces[face as usize].map(|i| i as usize);
                    let wp = bv.world[vertex as usize];
                    let w =
                        closest_on_triangle(&wp, &bf.world[f[0]], &bf.world[f[1]], &bf.world[f[2]]);
                    let on = |v: &[Vec3]| v[f[0]] * w[0] + v[f[1]] * w[1] + v[f[2]] * w[2];
                    let (mv, mo) = (bv.xt[vertex as usize], on(&bf.xt));
                    let (wv, wo) = (wp, on(&bf.world));
                    if b_vertex {
                        rl = bodies[lu].mesh.radii[vertex as usize];
                        (mo, mv, wo, wv, d)
                    } else {
                        rk = bodies[ku].mesh.radii[vertex as usize];
                        (mv, mo, wv, wo, d)
                    }
                }
                Candidate::VertexEdge {
                    vertex, edge, d, ..
                } => {
                    let (bv, be, mv, me) = if b_vertex {
                        (bl, bk, &bodies[lu].mesh, &bodies[ku].mesh)
                    } else {
                        (bk, bl, &bodies[ku].mesh, &bodies[lu].mesh)
                    };
                    let e = me.edges[edge as usize].map(|i| i as usize);
                    let wp = bv.world[vertex as usize];
                    let t = closest_on_segment(&wp, &be.world[e[0]], &be.world[e[1]]);
                    let on = |v: &[Vec3]| v[e[0]] * (1.0 - t) + v[e[1]] * t;
                    let (rv, re) = (mv.radii[vertex as usize], me.radii[e[0]]);
                    let (mvp, mo) = (bv.xt[vertex as usize], on(&be.xt));
                    let (wv, wo) = (wp, on(&be.world));
                    if b_vertex {
                        (rk, rl) = (re, rv);
                        (mo, mvp, wo, wv, d)
                    } else {
                        (rk, rl) = (rv, re);
                        (mvp, mo, wv, wo, d)
                    }
                }
                Candidate::VertexVertex {
                    vertex_a,
                    vertex_b,
                    d,
                } => {
                    let (va, vb) = (vertex_a as usize, vertex_b as usize);
                    rk = bodies[ku].mesh.radii[va];
                    rl = bodies[lu].mesh.radii[vb];
                    (bk.xt[va], bl.xt[vb], bk.world[va], bl.world[vb], d)
                }
                Candidate::EdgeEdge {
                    edge_a,
                    edge_b,
                    ty,
                    d,
                } => {
                    let ea = bodies[ku].mesh.edges[edge_a as usize].map(|i| i as usize);
                    let eb = bodies[lu].mesh.edges[edge_b as usize].map(|i| i as usize);
                    let (a0, a1) = (&bk.world[ea[0]], &bk.world[ea[1]]);
                    let (b0, b1) = (&bl.world[eb[0]], &bl.world[eb[1]]);
                    // The max approximator's edge–edge terms have a forced type (an
                    // end of one edge against the other's line, or two ends): their
                    // friction acts between the points their distance is taken at,
                    // as the point–edge and point–point terms they stand beside.
                    let on_line = |p: &Vec3, e0: &Vec3, e1: &Vec3| {
                        let de = e1 - e0;
                        (p - e0).dot(&de) / de.norm_squared().max(1e-300)
                    };
                    let end = |i: u8| f64::from(i);
                    let (s, u) = match ty {
                        EdgeEdge::PointA(i) if nw.count_once => {
                            (end(i), on_line(&bk.world[ea[i as usize]], b0, b1))
                        }
                        EdgeEdge::PointB(j) if nw.count_once => {
                            (on_line(&bl.world[eb[j as usize]], a0, a1), end(j))
                        }
                        EdgeEdge::Points(i, j) if nw.count_once => (end(i), end(j)),
                        _ => segment_segment(a0, a1, b0, b1),
                    };
                    let eps = mollifier_threshold(
                        &bk.xt[ea[0]],
                        &bk.xt[ea[1]],
                        &bl.xt[eb[0]],
                        &bl.xt[eb[1]],
                    );
                    let a = ea.map(|i| V3::<f64>::cst(&bk.world[i]));
                    let b = eb.map(|i| V3::<f64>::cst(&bl.world[i]));
                    moll = edge_mollifier([&a[0], &a[1]], [&b[0], &b[1]], eps);
                    rk = bodies[ku].mesh.radii[ea[0]];
                    rl = bodies[lu].mesh.radii[eb[0]];
                    let lerp =
                        |v: &[Vec3], e: [usize; 2], s: f64| v[e[0]] * (1.0 - s) + v[e[1]] * s;
                    (
                        lerp(&bk.xt, ea, s),
                        lerp(&bl.xt, eb, u),
                        lerp(&bk.world, ea, s),
                        lerp(&bl.world, eb, u),
                        d,
                    )
                }
            };
            let gap = wk - wl;
            let dist = gap.norm();
            if dist.is_nan() || dist <= 0.0 || d <= 0.0 {
                continue;
            }
            // A round vertex touches at its surface, r along the normal from its
            // centre: friction acts there, so that a ball rolls (the point's slip is
            // v + ω × (−r n), zero in rolling), not at the centre (where it would
            // slide forever). The material point is fixed in the body for the pass.
            let n = gap / dist;
            if rk > 0.0 {
                let (th, _) = vars(bk, &nw.x);
                pk -= rotation(&th).transpose() * (n * rk);
            }
            if rl > 0.0 {
                let (th, _) = vars(bl, &nw.x);
                pl += rotation(&th).transpose() * (n * rl);
            }
            let (b1, _) = super::newton::barrier_derivatives(d, dhat2);
            // A max-approximator term's weight scales its normal force as its barrier
            // (negative for the terms that take repeats out).
            let lambda = -nw.kappa * nw.weights[ci] * moll * b1 * 2.0 * d.sqrt();
            if lambda == 0.0 || !lambda.is_finite() {
                continue;
            }
            nw.contacts.push(FrictionContact {
                body_a: k,
                body_b: l,
                pa: pk,
                pb: pl,
                t: tangents(&n),
                mu_lambda: mu * lambda,
                lead: mu * lambda,
                weighted,
                at: (wk + wl) * 0.5,
            });
        }
        if weighted {
            gather_weighted(&mut nw.contacts, first, dhat2.sqrt());
        }
    }
}

/// One friction term per contact of a weighted pair (`contacts[first..]`, one body
/// pair's terms). The max approximator's terms for one contact (within d̂ of each
/// other: every term it adds lies within d̂ of the feature it corrects) carry
/// weights that sum to one count, but their closest points and normals differ at
/// round-off or by up to d̂, so their friction terms — some with a negative μλ —
/// would not cancel: a sticking contact would get anti-friction in the directions
/// where a negative term's tangent plane leans past the positive ones', and Newton
/// fails at rest (the stack of `ipc_stack5`). Each group of terms within d̂ (of its
/// first term) becomes one term with the group's summed μλ at the point and tangent
/// plane of its largest term; a group whose sum is not positive (no contact left
/// after the repeats are taken out) is dropped. In place, order kept.
fn gather_weighted(contacts: &mut Vec<FrictionContact>, first: usize, d_hat: f64) {
    let mut kept = first;
    for i in first..contacts.len() {
        let c = contacts[i];
        match (first..kept).find(|&j| (contacts[j].at - c.at).norm() <= d_hat) {
            Some(j) => {
                let g = &mut contacts[j];
                // The group's largest term lends its geometry; its sum is kept
                // in `mu_lambda`, its largest term's in `lead`.
                let sum = g.mu_lambda + c.mu_lambda;
                if c.lead > g.lead {
                    *g = c;
                }
                g.mu_lambda = sum;
            }
            None => {
                contacts[kept] = c;
                kept += 1;
            }
        }
    }
    // The groups left with no contact go; the pairs before `first` are not read.
    let mut out = first;
    for j in first..kept {
        if contacts[j].mu_lambda > 0.0 {
            contacts[out] = contacts[j];
            out += 1;
        }
    }
    contacts.truncate(out);
}

/// f₀ of the squared slip s = y² (written in s so that it is smooth at s = 0).
fn f0<T: Real>(s: T, eps: f64) -> T {
    if s.val() >= eps * eps {
        return s.sqrt();
    }
    let cubic = if s.val() > 1e-60 {
        s * s.sqrt() * (1.0 / (3.0 * eps * eps))
    } else {
        T::cst(0.0)
    };
    s * (1.0 / eps) - cubic + eps / 3.0
}

/// D_k over the pair's variables (θ, q absolute) — generic, so that [`crate::ipc::ad::D2`]
/// gives its gradient and Hessian.
pub fn term<T: Real>(
    c: &FrictionContact,
    (th_a, q_a, q0_a): (&V3<T>, &V3<T>, &Vec3),
    (th_b, q_b, q0_b): (&V3<T>, &V3<T>, &Vec3),
    eps_vh: f64,
) -> T {
    let ua = rotate(th_a, &V3::cst(&c.pa))
        .sub(&V3::cst(&c.pa))
        .add(&q_a.sub(&V3::cst(q0_a)));
    let ub = rotate(th_b, &V3::cst(&c.pb))
        .sub(&V3::cst(&c.pb))
        .add(&q_b.sub(&V3::cst(q0_b)));
    let r = ua.sub(&ub);
    let s1 = r.dot(&V3::cst(&c.t[0]));
    let s2 = r.dot(&V3::cst(&c.t[1]));
    f0(s1 * s1 + s2 * s2, eps_vh) * c.mu_lambda
}

/// Σ D_k at variables `x` (f64).
pub fn energy(contacts: &[FrictionContact], bufs: &[BodyBuf], x: &[f64], eps_vh: f64) -> f64 {
    let mut e = 0.0;
    for c in contacts {
        let (ba, bb) = (&bufs[c.body_a as usize], &bufs[c.body_b as usize]);
        let (ta, da) = vars(ba, x);
        let (tb, db) = vars(bb, x);
        // u = R(θ) p − p + Δq.
        let ua = rotation(&ta) * c.pa - c.pa + da;
        let ub = rotation(&tb) * c.pb - c.pb + db;
        let r = ua - ub;
        let s = r.dot(&c.t[0]).powi(2) + r.dot(&c.t[1]).powi(2);
        e += c.mu_lambda * f0(s, eps_vh);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::ad::D2;

    /// f₀ is C¹ at ε (value and slope 1 match) and its slope below is f₁ = 2y/ε − y²/ε².
    #[test]
    fn smoothing_is_c1_with_the_mollifier_slope() {
        let eps = 1e-6;
        let val = |y: f64| f0(y * y, eps);
        assert!((val(eps * (1.0 - 1e-9)) - val(eps * (1.0 + 1e-9))).abs() < 1e-14);
        for y in [0.1 * eps, 0.5 * eps, 0.9 * eps] {
            let s = f0(D2::<1>::var(y * y, 0), eps);
            // d f0/dy = 2 y ∂f0/∂s
            let slope = 2.0 * y * s.g[0];
            let f1 = 2.0 * y / eps - y * y / (eps * eps);
            assert!((slope - f1).abs() < 1e-9, "{slope} vs {f1}");
        }
    }

    #[test]
    fn closest_points() {
        let (a, b, c) = (Vec3::zeros(), Vec3::x(), Vec3::y());
        let w = closest_on_triangle(&Vec3::new(0.2, 0.3, 1.0), &a, &b, &c);
        assert!((w[1] - 0.2).abs() < 1e-15 && (w[2] - 0.3).abs() < 1e-15);
        let (s, u) = segment_segment(
            &Vec3::new(-1.0, 0.0, 0.0),
            &Vec3::new(1.0, 0.0, 0.0),
            &Vec3::new(0.5, -1.0, 1.0),
            &Vec3::new(0.5, 1.0, 1.0),
        );
        assert!((s - 0.75).abs() < 1e-15 && (u - 0.5).abs() < 1e-15);
    }
}
