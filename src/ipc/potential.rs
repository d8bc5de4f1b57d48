//! The rigid-body incremental potential of 004 §4.1 and a body pair's barrier term,
//! as functions of the bodies' coordinates (θ, q): rotation vector and translation.
//!
//! - Translation (eq. 10): E_q = ½ m qᵀq − m qᵀq̃, q̃ = qᵗ + h q̇ᵗ + h²(g + f/m).
//! - Rotation (eq. 9): E_Q = ½ tr(Q J Qᵀ) − tr(Q J Q̃ᵀ) with Q = R(θ),
//!   Q̃ = Qᵗ + h Q̇ᵗ + ½h²[τ] Qᵗ J⁻¹, Q̇ᵗ = (Qᵗ − Qᵗ⁻¹)/h, and the inertia of the
//!   rotation matrix J = ½ diag(−I_x + I_y + I_z, I_x − I_y + I_z, I_x + I_y − I_z)
//!   (principal moments I of the body frame). The torque term is the generalized force
//!   of a world-frame torque τ on Q, F_Q = ½[τ]Q (tr(F_Qᵀ δQ) = τ·δφ for δQ = [δφ]Q);
//!   the stored copy of 004 prints it as h²[τ]J⁻¹. With it a body at rest under τ about
//!   a principal axis turns by atan(h²τ/I) in one step (tested).
//!
//! Their minimizer over (θ, q) is the implicit-Euler rigid step of eqs. (5)–(8); the
//! barrier terms κ b(d_k, d̂) (eq. 2) add the contact. Each is evaluated on any
//! [`Real`], so [`D2`] gives the exact gradient and Hessian for Newton's method.

use super::ad::{Real, D2};
use super::geom::{
    barrier, d_edge_edge, d_point_edge, d_point_point, d_point_triangle, edge_mollifier,
    world_point, EdgeEdge, PointEdge, PointTriangle, V3,
};
use crate::math::{Mat3, Vec3};

/// The inertia of the rotation matrix, J = ½ diag(−I_x + I_y + I_z, …) (§4.1), from
/// the principal moments.
pub fn rotation_inertia(principal: &Vec3) -> Vec3 {
    let s = principal.x + principal.y + principal.z;
    (Vec3::new(s, s, s) - principal * 2.0) * 0.5
}

/// What the incremental potential of one body is measured against: its mass, J, and
/// the predicted pose (q̃, Q̃) of an unconstrained implicit-Euler step.
#[derive(Clone, Copy, Debug)]
pub struct Inertial {
    pub mass: f64,
    pub j: Vec3,
    pub q_tilde: Vec3,
    pub rot_tilde: Mat3,
}

impl Inertial {
    /// The prediction from the last two poses (q̇ᵗ and Q̇ᵗ by differences, eq. 7), the
    /// force f at the centre of mass (gravity included as m g) and the torque τ
    /// (world frame), over a step h.
    pub fn predict(
        (mass, principal): (f64, &Vec3),
        (q_prev, q_now): (&Vec3, &Vec3),
        (rot_prev, rot_now): (&Mat3, &Mat3),
        (force, torque): (&Vec3, &Vec3),
        h: f64,
    ) -> Inertial {
        let j = rotation_inertia(principal);
        let q_tilde = q_now + (q_now - q_prev) + force * (h * h / mass);
        let j_inv = Mat3::from_diagonal(&j.map(|x| if x > 0.0 { 1.0 / x } else { 0.0 }));
        let rot_tilde = rot_now
            + (rot_now - rot_prev)
            + torque.cross_matrix() * rot_now * j_inv * (0.5 * h * h);
        Inertial {
            mass,
            j,
            q_tilde,
            rot_tilde,
        }
    }

    /// The same prediction with the rotation's free part taken from the torque-free
    /// flow instead of implicit Euler's extrapolation: Q̃ = `rot_free` + ½h²[τ]Qᵗ J⁻¹
    /// (`rot_free` = R(h ω̄) Qᵗ, [`free_flow_omega`]). With no contact and no torque the
    /// minimizer of E_Q is Q̃ itself (tr(Q J Q̃ᵀ) is largest at Q = Q̃ for J ≥ 0), so
    /// a free body turns by h ω̄ and keeps its spin; the translation is unchanged.
    pub fn predict_free(
        (mass, principal): (f64, &Vec3),
        (q_prev, q_now): (&Vec3, &Vec3),
        (rot_now, rot_free): (&Mat3, &Mat3),
        (force, torque): (&Vec3, &Vec3),
        h: f64,
    ) -> Inertial {
        let j = rotation_inertia(principal);
        let q_tilde = q_now + (q_now - q_prev) + force * (h * h / mass);
        let j_inv = Mat3::from_diagonal(&j.map(|x| if x > 0.0 { 1.0 / x } else { 0.0 }));
        let rot_tilde = rot_free + torque.cross_matrix() * rot_now * j_inv * (0.5 * h * h);
        Inertial {
            mass,
            j,
            q_tilde,
            rot_tilde,
        }
    }

    /// E_q + E_Q at (θ, q) (eqs. 9–10).
    pub fn energy<T: Real>(&self, theta: &V3<T>, q: &V3<T>) -> T {
        let qt = V3::cst(&self.q_tilde);
        let mut e = (q.norm2() * 0.5 - q.dot(&qt)) * self.mass;
        for k in 0..3 {
            // Column k of Q = R(θ) and of Q̃.
            let col = world_point(theta, &V3::cst(&Vec3::zeros()), &Vec3::ith(k, 1.0));
            let col_t = V3::cst(&self.rot_tilde.column(k).into_owned());
            e = e + (col.norm2() * 0.5 - col.dot(&col_t)) * self.j[k];
        }
        e
    }
}

/// The mean angular velocity ω̄ (world) of a torque-free step of length h from the
/// principal frame `rot_now` (columns: the principal axes in the world) with moments
/// `moments` and angular velocity ω: the one that keeps the angular momentum
/// L = I(Qᵗ) ω at the step's middle pose, ω̄ = I(R(½hω̄) Qᵗ)⁻¹ L (a fixed point, three
/// iterations from ω̄ = ω). For a body spinning about a principal axis, or with equal
/// moments, ω̄ = ω. A degenerate inertia (a zero moment) keeps ω.
pub fn free_flow_omega(rot_now: &Mat3, moments: &Vec3, w: &Vec3, h: f64) -> Vec3 {
    if moments.iter().any(|m| *m <= 0.0 || !m.is_finite()) {
        return *w;
    }
    let inv = moments.map(|m| 1.0 / m);
    let l = rot_now * moments.component_mul(&(rot_now.transpose() * w));
    let mut wb = *w;
    for _ in 0..3 {
        let r_half = rodrigues(&(wb * (0.5 * h))) * rot_now;
        wb = r_half * inv.component_mul(&(r_half.transpose() * l));
    }
    wb
}

/// The angular velocity at the end of a step that turned the principal frame
/// `rot_now` (Qᵗ) by the rotation vector θ, read from the step's momentum balance.
///
/// The free prediction Q_f = R(h ω̄) Qᵗ ([`free_flow_omega`]) carries the start
/// momentum L = I(Qᵗ) ω exactly; what turns the end pose Q = R(θ) Qᵗ away from it is
/// the step's torque impulse (contact barrier and applied torque), which the
/// minimizer balances against E_Q's restoring term. That term's gradient at Q with
/// respect to a world rotation ε of Q, measured against Q_f,
///   g = −∂/∂ε tr(R(ε) Q J Q_fᵀ) = −(M₂₃ − M₃₂, M₃₁ − M₁₃, M₁₂ − M₂₁),  M = Q J Q_fᵀ,
/// is h² times the torque that held Q off Q_f (g = I_w δ + O(δ²) for Q = R(δ) Q_f,
/// and exactly 0 at Q = Q_f). So L⁺ = L + g/h and ω = I(Q)⁻¹ L⁺: a free body keeps
/// L, and a torque changes it by its impulse alone. (Reading ω from the middle pose's
/// momentum I(R(½θ)Qᵗ) θ/h, as before session 37, composes the impulse's turn with
/// the spin's, ½ δ × h ω̄: a heavy top spinning at 150 rad/s at h = 1 ms fell from
/// 30° to 46° and lost 19 % of its vertical momentum in 3 s; tests/contact_top.rs.)
/// A degenerate inertia (a zero moment) gives θ/h.
pub fn momentum_end_omega(
    rot_now: &Mat3,
    moments: &Vec3,
    w: &Vec3,
    w_mean: &Vec3,
    theta: &Vec3,
    h: f64,
) -> Vec3 {
    if moments.iter().any(|m| *m <= 0.0 || !m.is_finite()) {
        return theta / h;
    }
    let l = rot_now * moments.component_mul(&(rot_now.transpose() * w));
    let q_f = rodrigues(&(w_mean * h)) * rot_now;
    let q = rodrigues(theta) * rot_now;
    let m = q * Mat3::from_diagonal(&rotation_inertia(moments)) * q_f.transpose();
    let g = -Vec3::new(
        m[(1, 2)] - m[(2, 1)],
        m[(2, 0)] - m[(0, 2)],
        m[(0, 1)] - m[(1, 0)],
    );
    let l_end = l + g / h;
    q * moments
        .map(|m| 1.0 / m)
        .component_mul(&(q.transpose() * l_end))
}

/// R(θ) of a rotation vector (Rodrigues), f64.
pub fn rodrigues(theta: &Vec3) -> Mat3 {
    let t = V3::<f64>::cst(theta);
    let c = |k: usize| super::geom::rotate(&t, &V3::cst(&Vec3::ith(k, 1.0))).val();
    Mat3::from_columns(&[c(0), c(1), c(2)])
}

/// The twelve coordinates of a body pair as variables: (θ_a, q_a, θ_b, q_b).
pub fn pair_vars(
    (theta_a, q_a): (&Vec3, &Vec3),
    (theta_b, q_b): (&Vec3, &Vec3),
) -> [V3<D2<12>>; 4] {
    let v = |x: &Vec3, o: usize| V3([D2::var(x.x, o), D2::var(x.y, o + 1), D2::var(x.z, o + 2)]);
    [v(theta_a, 0), v(q_a, 3), v(theta_b, 6), v(q_b, 9)]
}

/// The barrier distance (√D − r)² of a squared distance D offset by the radii r of
/// round vertices (`ipc::mesh`, "Round vertices"); D itself when r = 0. Evaluated at
/// intersection-free iterates only (√D > r).
#[inline]
fn offset<T: Real>(dd: T, r: f64) -> T {
    if r == 0.0 {
        return dd;
    }
    let s = dd.sqrt() - r;
    s * s
}

/// κ b(d, d̂) for a vertex of body a (body frame `p`, radius `r`: 0, or a round
/// vertex's) against a triangle of body b (body frame `tri`), with the distance type
/// classified at the current poses.
pub fn point_triangle_term<T: Real>(
    (theta_a, q_a): (&V3<T>, &V3<T>),
    (theta_b, q_b): (&V3<T>, &V3<T>),
    (p, r, tri): (&Vec3, f64, [&Vec3; 3]),
    ty: PointTriangle,
    (kappa, d_hat): (f64, f64),
) -> T {
    let x = world_point(theta_a, q_a, p);
    let t = tri.map(|v| world_point(theta_b, q_b, v));
    barrier(
        offset(d_point_triangle(ty, &x, [&t[0], &t[1], &t[2]]), r),
        d_hat,
    ) * kappa
}

/// κ b(d, d̂) for a round vertex of body a (body frame `p`) against a round edge of
/// body b (`e`), their radii summing to `r`: a sphere (or a capsule's end) and a
/// capsule's axis.
pub fn vertex_edge_term<T: Real>(
    (theta_a, q_a): (&V3<T>, &V3<T>),
    (theta_b, q_b): (&V3<T>, &V3<T>),
    (p, e, r): (&Vec3, [&Vec3; 2], f64),
    ty: PointEdge,
    (kappa, d_hat): (f64, f64),
) -> T {
    let x = world_point(theta_a, q_a, p);
    let e = e.map(|v| world_point(theta_b, q_b, v));
    barrier(offset(d_point_edge(ty, &x, [&e[0], &e[1]]), r), d_hat) * kappa
}

/// κ b(d, d̂) for a round vertex of body a (body frame `pa`) against one of body b
/// (`pb`), their radii summing to `r`: two spheres.
pub fn vertex_vertex_term<T: Real>(
    (theta_a, q_a): (&V3<T>, &V3<T>),
    (theta_b, q_b): (&V3<T>, &V3<T>),
    (pa, pb, r): (&Vec3, &Vec3, f64),
    (kappa, d_hat): (f64, f64),
) -> T {
    let x = world_point(theta_a, q_a, pa);
    let y = world_point(theta_b, q_b, pb);
    barrier(offset(d_point_point(&x, &y), r), d_hat) * kappa
}

/// κ m(x) b(d, d̂) for an edge of body a against an edge of body b (body frames), with
/// the mollifier of nearly parallel edges (threshold ε_× from the rest lengths); `r`
/// the sum of the edges' radii (round edges: capsules' axes; 0 for mesh edges).
pub fn edge_edge_term<T: Real>(
    (theta_a, q_a): (&V3<T>, &V3<T>),
    (theta_b, q_b): (&V3<T>, &V3<T>),
    (ea, eb, r): ([&Vec3; 2], [&Vec3; 2], f64),
    ty: EdgeEdge,
    (kappa, d_hat, eps_x): (f64, f64, f64),
) -> T {
    let a = ea.map(|v| world_point(theta_a, q_a, v));
    let b = eb.map(|v| world_point(theta_b, q_b, v));
    let (a, b) = ([&a[0], &a[1]], [&b[0], &b[1]]);
    let d = offset(d_edge_edge(ty, a, b), r);
    if d.val() >= d_hat {
        return T::cst(0.0);
    }
    edge_mollifier(a, b, eps_x) * barrier(d, d_hat) * kappa
}

#[cfg(test)]
mod tests {
    use super::super::geom::{classify_edge_edge, classify_point_triangle, mollifier_threshold};
    use super::*;
    use nalgebra::{SMatrix, SVector};

    fn c3(v: &Vec3) -> V3<f64> {
        V3::cst(v)
    }

    /// Newton's method on E over θ alone (q fixed at q̃), with the AD Hessian.
    fn newton_theta(inert: &Inertial, theta0: Vec3) -> (Vec3, usize) {
        let mut th = theta0;
        for it in 0..50 {
            let v = V3([D2::<3>::var(th.x, 0), D2::var(th.y, 1), D2::var(th.z, 2)]);
            let e = inert.energy(&v, &V3::cst(&inert.q_tilde));
            let g = SVector::<f64, 3>::from_row_slice(&e.g);
            if g.norm() < 1e-13 {
                return (th, it);
            }
            let h = SMatrix::<f64, 3, 3>::from_fn(|i, j| e.h[i][j]);
            let step = h.lu().solve(&(-g)).expect("Hessian invertible");
            th += Vec3::new(step[0], step[1], step[2]);
        }
        (th, 50)
    }

    /// A body spinning about a principal axis at ω with no torque: the implicit-Euler
    /// step of eqs. (5)–(8) turns it by φ = atan(sin α / (2 − cos α)), α = ω h (the
    /// maximizer of tr(Q J Q̃ᵀ) over rotations about the axis, Q̃ = 2I − R(−α)); the
    /// Newton minimizer of E over θ lands there to 1e-12.
    #[test]
    fn spin_about_a_principal_axis_is_the_implicit_euler_rotation() {
        let (w, h) = (3.0, 0.01);
        let alpha = w * h;
        let principal = Vec3::new(0.2, 0.3, 0.4);
        let rot_prev = crate::math::Quat::from_scaled_axis(Vec3::new(0.0, 0.0, -alpha))
            .to_rotation_matrix()
            .into_inner();
        let inert = Inertial::predict(
            (2.0, &principal),
            (&Vec3::zeros(), &Vec3::zeros()),
            (&rot_prev, &Mat3::identity()),
            (&Vec3::zeros(), &Vec3::zeros()),
            h,
        );
        let (th, iters) = newton_theta(&inert, Vec3::new(0.0, 0.0, alpha));
        let phi = (alpha.sin() / (2.0 - alpha.cos())).atan();
        assert!(iters < 10, "{iters} Newton iterations");
        assert!(
            (th - Vec3::new(0.0, 0.0, phi)).norm() < 1e-12,
            "θ = {th:?}, φ = {phi}"
        );
    }

    /// A body at rest under a torque τ about its principal z axis turns by
    /// φ = atan(h²τ/I_z) in one step (the maximizer of I_z cos φ + h²τ sin φ): the
    /// angular acceleration τ/I_z of Euler's equations, to first order.
    #[test]
    fn torque_about_a_principal_axis() {
        let (tau, h) = (0.7, 0.01);
        let principal = Vec3::new(0.2, 0.3, 0.4);
        let inert = Inertial::predict(
            (2.0, &principal),
            (&Vec3::zeros(), &Vec3::zeros()),
            (&Mat3::identity(), &Mat3::identity()),
            (&Vec3::zeros(), &Vec3::new(0.0, 0.0, tau)),
            h,
        );
        let (th, _) = newton_theta(&inert, Vec3::zeros());
        let phi = (h * h * tau / principal.z).atan();
        assert!(
            (th - Vec3::new(0.0, 0.0, phi)).norm() < 1e-14,
            "θ = {th:?}, φ = {phi}"
        );
    }

    /// The translation part is minimized at q̃: free fall under gravity from rest
    /// gives q̃ = qᵗ + h² g, and ∇E = 0 there.
    #[test]
    fn translation_minimum_is_the_prediction() {
        let g = Vec3::new(0.0, 0.0, -9.81);
        let m = 3.0;
        let q = Vec3::new(0.1, 0.2, 1.0);
        let inert = Inertial::predict(
            (m, &Vec3::new(1.0, 1.0, 1.0)),
            (&q, &q),
            (&Mat3::identity(), &Mat3::identity()),
            (&(g * m), &Vec3::zeros()),
            0.01,
        );
        assert!((inert.q_tilde - (q + g * 1e-4)).norm() < 1e-15);
        let vars = pair_vars(
            (&Vec3::zeros(), &inert.q_tilde),
            (&Vec3::zeros(), &Vec3::zeros()),
        );
        let e = inert.energy(&vars[0], &vars[1]);
        assert!(
            e.g[..6].iter().all(|x| x.abs() < 1e-12),
            "∇E = {:?}",
            &e.g[..6]
        );
        // The Hessian in q is m I.
        for i in 3..6 {
            assert!((e.h[i][i] - m).abs() < 1e-12);
        }
    }

    /// A pair term's gradient and Hessian (AD over the twelve coordinates, through
    /// Rodrigues) against central differences of its f64 value, for a rotated vertex
    /// over a rotated triangle and for two skew edges; and the barrier pushes the
    /// bodies apart (the gradient in q_a points away from b along the gap).
    #[test]
    fn pair_terms_derivatives_and_direction() {
        let (kappa, d_hat) = (1e3, 0.04);
        let tri = [
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        let p = Vec3::new(0.05, -0.02, -0.1);
        let x0: [Vec3; 4] = [
            Vec3::new(0.1, -0.05, 0.2),
            Vec3::new(0.0, 0.0, 0.21),
            Vec3::new(-0.03, 0.02, 0.01),
            Vec3::new(0.01, 0.0, 0.0),
        ];
        // Classification at x0 (f64), then held fixed as in one Newton iteration.
        let world = |th: &Vec3, q: &Vec3, v: &Vec3| world_point(&c3(th), &c3(q), v).val();
        let pw = world(&x0[0], &x0[1], &p);
        let tw = tri.map(|v| world(&x0[2], &x0[3], &v));
        let ty = classify_point_triangle(&pw, [&tw[0], &tw[1], &tw[2]]);
        assert_eq!(ty, PointTriangle::Face);
        let f64_term = |x: &[Vec3; 4]| {
            point_triangle_term(
                (&c3(&x[0]), &c3(&x[1])),
                (&c3(&x[2]), &c3(&x[3])),
                (&p, 0.0, [&tri[0], &tri[1], &tri[2]]),
                ty,
                (kappa, d_hat),
            )
        };
        let v = pair_vars((&x0[0], &x0[1]), (&x0[2], &x0[3]));
        let ad = point_triangle_term(
            (&v[0], &v[1]),
            (&v[2], &v[3]),
            (&p, 0.0, [&tri[0], &tri[1], &tri[2]]),
            ty,
            (kappa, d_hat),
        );
        assert!(ad.v > 0.0, "inside d̂: the barrier is active");
        check_against_fd(&ad, &x0, f64_term);
        assert!(
            ad.g[5] < 0.0,
            "the vertex above the face is pushed up: ∂B/∂q_a,z = {}",
            ad.g[5]
        );
        assert!(ad.g[11] > 0.0, "and the face down");

        // Edge–edge: two skew edges 0.15 apart.
        let ea = [Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0)];
        let eb = [Vec3::new(0.0, -1.0, 0.0), Vec3::new(0.1, 1.0, 0.0)];
        let x0: [Vec3; 4] = [
            Vec3::new(0.02, 0.0, 0.1),
            Vec3::new(0.0, 0.0, 0.15),
            Vec3::new(0.0, -0.04, 0.3),
            Vec3::zeros(),
        ];
        let aw = ea.map(|v| world(&x0[0], &x0[1], &v));
        let bw = eb.map(|v| world(&x0[2], &x0[3], &v));
        let ty = classify_edge_edge(&aw[0], &aw[1], &bw[0], &bw[1]);
        assert_eq!(ty, EdgeEdge::Lines);
        let eps_x = mollifier_threshold(&ea[0], &ea[1], &eb[0], &eb[1]);
        let f64_term = |x: &[Vec3; 4]| {
            edge_edge_term(
                (&c3(&x[0]), &c3(&x[1])),
                (&c3(&x[2]), &c3(&x[3])),
                ([&ea[0], &ea[1]], [&eb[0], &eb[1]], 0.0),
                ty,
                (kappa, d_hat, eps_x),
            )
        };
        let v = pair_vars((&x0[0], &x0[1]), (&x0[2], &x0[3]));
        let ad = edge_edge_term(
            (&v[0], &v[1]),
            (&v[2], &v[3]),
            ([&ea[0], &ea[1]], [&eb[0], &eb[1]], 0.0),
            ty,
            (kappa, d_hat, eps_x),
        );
        assert!(ad.v > 0.0);
        check_against_fd(&ad, &x0, f64_term);
    }

    /// Central differences of `f` around `x0` (h = 1e-5) against the AD gradient and
    /// Hessian, relative to their largest entry (1e-6 and 1e-4).
    /// The round-vertex terms (a sphere's centre, radius offset): their AD gradient and
    /// Hessian against central differences, and the barrier's distance is the surface
    /// gap √D − r (the term equals the plain term at the gap's squared length).
    #[test]
    fn round_vertex_terms_derivatives() {
        let (kappa, d_hat) = (1e3, 0.04);
        let tri = [
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        let (p, r) = (Vec3::new(0.01, 0.02, 0.0), 0.1);
        let x0: [Vec3; 4] = [
            Vec3::new(0.05, -0.03, 0.02),
            Vec3::new(0.0, 0.0, 0.22),
            Vec3::new(-0.02, 0.01, 0.01),
            Vec3::new(0.01, 0.0, 0.0),
        ];
        let world = |th: &Vec3, q: &Vec3, v: &Vec3| world_point(&c3(th), &c3(q), v).val();
        let pw = world(&x0[0], &x0[1], &p);
        let tw = tri.map(|v| world(&x0[2], &x0[3], &v));
        let ty = classify_point_triangle(&pw, [&tw[0], &tw[1], &tw[2]]);
        assert_eq!(ty, PointTriangle::Face);
        let f64_term = |x: &[Vec3; 4]| {
            point_triangle_term(
                (&c3(&x[0]), &c3(&x[1])),
                (&c3(&x[2]), &c3(&x[3])),
                (&p, r, [&tri[0], &tri[1], &tri[2]]),
                ty,
                (kappa, d_hat),
            )
        };
        let v = pair_vars((&x0[0], &x0[1]), (&x0[2], &x0[3]));
        let ad = point_triangle_term(
            (&v[0], &v[1]),
            (&v[2], &v[3]),
            (&p, r, [&tri[0], &tri[1], &tri[2]]),
            ty,
            (kappa, d_hat),
        );
        // The surface gap: the plane distance of the centre minus r.
        let dd = d_point_triangle(ty, &c3(&pw), tw.map(|t| c3(&t)).each_ref());
        let gap = dd.sqrt() - r;
        assert!(gap > 0.0 && gap * gap < d_hat);
        assert!((ad.v - kappa * barrier(gap * gap, d_hat)).abs() <= 1e-12 * ad.v);
        check_against_fd(&ad, &x0, f64_term);
        assert!(ad.g[5] < 0.0, "the sphere above the face is pushed up");

        // Two round vertices (spheres of radii 0.1 and 0.05, centres 0.27 apart).
        let (pa, pb, rr) = (Vec3::new(0.01, 0.0, 0.0), Vec3::new(0.0, -0.02, 0.0), 0.15);
        let x0: [Vec3; 4] = [
            Vec3::new(0.1, 0.2, -0.1),
            Vec3::new(0.27, 0.0, 0.0),
            Vec3::new(-0.2, 0.05, 0.3),
            Vec3::new(0.0, 0.01, 0.0),
        ];
        let f64_term = |x: &[Vec3; 4]| {
            vertex_vertex_term(
                (&c3(&x[0]), &c3(&x[1])),
                (&c3(&x[2]), &c3(&x[3])),
                (&pa, &pb, rr),
                (kappa, d_hat),
            )
        };
        let v = pair_vars((&x0[0], &x0[1]), (&x0[2], &x0[3]));
        let ad = vertex_vertex_term(
            (&v[0], &v[1]),
            (&v[2], &v[3]),
            (&pa, &pb, rr),
            (kappa, d_hat),
        );
        assert!(ad.v > 0.0);
        check_against_fd(&ad, &x0, f64_term);
        assert!(ad.g[3] < 0.0, "a (at +x of b) is pushed toward +x");
    }

    fn check_against_fd(ad: &D2<12>, x0: &[Vec3; 4], f: impl Fn(&[Vec3; 4]) -> f64) {
        let h = 1e-5;
        let shift = |x: &[Vec3; 4], i: usize, s: f64| {
            let mut y = *x;
            y[i / 3][i % 3] += s;
            y
        };
        let gmax = ad.g.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let hmax = ad.h.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!((f(x0) - ad.v).abs() <= 1e-12 * ad.v.abs());
        for i in 0..12 {
            let gi = (f(&shift(x0, i, h)) - f(&shift(x0, i, -h))) / (2.0 * h);
            assert!(
                (gi - ad.g[i]).abs() <= 1e-6 * gmax,
                "g[{i}]: {gi} vs {}",
                ad.g[i]
            );
            for j in 0..12 {
                let pp = shift(&shift(x0, i, h), j, h);
                let pm = shift(&shift(x0, i, h), j, -h);
                let mp = shift(&shift(x0, i, -h), j, h);
                let mm = shift(&shift(x0, i, -h), j, -h);
                let hij = (f(&pp) - f(&pm) - f(&mp) + f(&mm)) / (4.0 * h * h);
                assert!(
                    (hij - ad.h[i][j]).abs() <= 1e-4 * hmax,
                    "h[{i}][{j}]: {hij} vs {}",
                    ad.h[i][j]
                );
            }
        }
    }
}
