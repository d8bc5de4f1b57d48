//! The multi-point PID force of 000 spread over its points by the pair's
//! contact-space inverse mass instead of 1/r (`[penalty] distribution = "modal"`).
//!
//! 000 eq. (3) gives each of the r bottom points the force
//! F_i / r, F_i = max{kp d_i − kv v_i + ki I, 0}, with kp = k̂p (m1 + m2). The pair
//! is then one spring of stiffness kp spread evenly over its points: its
//! translation along n has the frequency √k̂p, but a tilt of the patch is held only
//! by kp a² (a the patch's half-width) while the body's inertia about the tilt axis
//! is I ≫ m a² for a thin body. A body of half-thickness a whose centre of mass
//! stands b above its face is then held upright only while k̂p a² > g b: a 1 cm
//! domino 10 cm tall is at that edge for the default k̂p = 2e4, and an 8 mm phone
//! 15 cm tall falls over from rest (docs/EXPERIMENTS.md, "A standing domino").
//!
//! Here the point forces are
//!
//!   f = (m_r A)⁺ F,
//!
//! A the normal Delassus matrix of the points, A_ij = Σ_b (w_b + (r_bi × n)ᵀ
//! I_b⁻¹ (r_bj × n)) over the pair's moving bodies (w_b = 1/m_b, r_bi = p_i − x_b),
//! m_r the pair's reduced mass and ⁺ the pseudo-inverse. The contact-space
//! acceleration the force gives is A f = F / m_r: every mode of the patch —
//! translation and both tilts — relaxes at the same rate the pair's translation
//! does, so the patch holds a tilt as stiffly (per unit of inertia) as it holds
//! the load. Where 1/r and (m_r A)⁺ agree: a single point without lever arm
//! (A = 1/m_r), and a patch symmetric about the centre of mass under uniform
//! depth (the 1/r share is then the pure translation): a box resting flat rests
//! as deep as under 1/r.
//!
//! **Three modes.** For the normal rows r × n lies in the plane ⊥ n, so with
//! (e₁, e₂) a basis of that plane and φ_i = ((p_i × n)·e₁, (p_i × n)·e₂) − φ̄ (φ̄ the
//! points' mean), A = Φ S Φᵀ with Φ_i = (1, φ_i) and S (3 × 3) the pair's inverse
//! mass in that basis:
//!   S = Σ_b [[w_b + c_bᵀ K_b c_b, −(K_b c_b)ᵀ], [−K_b c_b, K_b]],
//!   K_b = Eᵀ I_b⁻¹ E (E = [e₁ e₂]), c_b = ((x_b × n)·e₁, (x_b × n)·e₂) − φ̄.
//! With G = ΦᵀΦ = V Λ Vᵀ and V_k, Λ_k its modes above round-off (3 for a patch,
//! 2 for points on a line, 1 for a point), A⁺ = Φ V_k Λ_k⁻¹ (V_kᵀ S V_k)⁻¹
//! Λ_k⁻¹ V_kᵀ Φᵀ: O(r) per evaluation, no r × r matrix.
//!
//! **Flat pairs.** The share is taken where both geoms are bounded by flat faces
//! (plane, box, polytope): their points are a plane section, and the spread of
//! the patch is the support the bodies really have. On a round surface the
//! patch is spread by the penetration itself (a cylinder's rim on a plane covers
//! an arc of chord ≈ √(8 R d)), and its depths, d₀ − s²/(2R) along the arc, are an
//! affine function of the arc's sagitta: the modal share reads them as a tilt of
//! the patch and drives the body to "flatten" the arc — a torque without a rigid
//! counterpart. Measured: a 52 kg cylinder leaning on its rim in the paper's
//! 20-pile (RK4) rolled up to 0.2 m/s at 5 s under that reading, against
//! creep (1.5e-4 m/s) under 1/r. Round pairs keep 1/r.
//!
//! **Unilateral.** A point whose share comes out pulling leaves the set (the most
//! pulling first) and the rest is solved again, so every force pushes — the patch
//! lifts off on the side that would pull, which is how a rigid block starts to
//! turn about its edge.
//!
//! **Integration: RK4 only, for now.** RK4's explicit path takes the force as is,
//! with the explicit clamps of [`super::PidGains::resolve`]. The linearly implicit
//! rows of semi-implicit Euler (`pipeline::penalty_implicit`) carry one diagonal
//! stiffness (h kp + kv)/r per point; the modal share couples a pair's points
//! (its stiffness is (h kp + kv)(m_r A)⁺, three mode rows per pair), which those
//! rows do not have yet, so the scene is refused there. Taking the force explicit
//! under semi-implicit Euler instead loses what the rows give (gap rows, the
//! impact rewinds, the anchors' implicit interplay): measured, the pile and the
//! placed-incline tests fail that way (docs/EXPERIMENTS.md, "A standing domino").

use super::multipoint::{share_by_count, MultiPoint};
use super::{pid_at, ContactModel, PairContext, PidGains, PointForce, SelectScratch};
use crate::collision::ShapeKind;
use crate::math::{Mat3, Vec3};

/// Whether a pair of these shapes takes the modal share: both bounded by flat
/// faces (module doc, "Flat pairs").
pub fn flat_pair(a: ShapeKind, b: ShapeKind) -> bool {
    let flat = |k| matches!(k, ShapeKind::Plane | ShapeKind::Box | ShapeKind::Polytope);
    flat(a) && flat(b)
}

/// Modes of G below this fraction of its largest are round-off (points on a
/// line, a single point).
const MODE_TOL: f64 = 1e-12;

pub struct MultiPointModal;

impl ContactModel for MultiPointModal {
    fn name(&self) -> &'static str {
        "multi_point_modal"
    }

    /// Points on the bottom of the intersection volume, 000 §III-A (1/r's).
    fn candidates(&self, ctx: &PairContext, scratch: &mut SelectScratch, out: &mut Vec<u32>) {
        MultiPoint.candidates(ctx, scratch, out);
    }

    fn forces_at(
        &self,
        ctx: &PairContext,
        gains: &PidGains,
        candidates: &[u32],
        out: &mut Vec<PointForce>,
    ) {
        let first = out.len();
        // F_i, the un-normalized PID force of eq. (3) at each bottom point.
        pid_at(ctx, gains, candidates, out);
        if !ctx.flat {
            // 000's 1/r share (module doc, "Flat pairs").
            share_by_count(&mut out[first..]);
            return;
        }
        let kept = distribute(ctx, &mut out[first..]);
        out.truncate(first + kept);
    }
}

/// The in-plane basis (e₁, e₂) ⊥ n.
fn plane_basis(n: &Vec3) -> (Vec3, Vec3) {
    let t = if n.x.abs() < 0.9 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let e1 = (t - n * n.dot(&t)).normalize();
    (e1, n.cross(&e1))
}

/// Replaces the un-normalized forces F_i in `pf` by f = (m_r A)⁺ F over the
/// points whose shares push; those points are moved to the front, the others
/// dropped. Returns how many push.
pub fn distribute(ctx: &PairContext, pf: &mut [PointForce]) -> usize {
    let n = ctx.normal;
    let (e1, e2) = plane_basis(&n);
    let coords = |p: &PointForce| {
        let q = ctx.points[p.point as usize].lever.cross(&n);
        (e1.dot(&q), e2.dot(&q))
    };
    let mut k = pf.len();
    while k > 0 {
        let on = &pf[..k];
        // φ̄, then Φ_i = (1, φ_i − φ̄): G = ΦᵀΦ and ΦᵀF.
        let (mut s1, mut s2) = (0.0, 0.0);
        for p in on {
            let (a, b) = coords(p);
            s1 += a;
            s2 += b;
        }
        let mean = (s1 / k as f64, s2 / k as f64);
        let phi = |p: &PointForce| {
            let (a, b) = coords(p);
            Vec3::new(1.0, a - mean.0, b - mean.1)
        };
        let mut g = Mat3::zeros();
        let mut phi_f = Vec3::zeros();
        for p in on {
            let r = phi(p);
            g += r * r.transpose();
            phi_f += r * p.f_n;
        }
        let coef = modal_coefficients(ctx, (&e1, &e2), mean, &g, &phi_f);
        // f_i = Φ_i · coef; the most pulling point leaves the set.
        let mut worst = (0.0, usize::MAX);
        for (i, p) in on.iter().enumerate() {
            let f = phi(p).dot(&coef);
            if f < worst.0 {
                worst = (f, i);
            }
        }
        if worst.1 == usize::MAX {
            for p in &mut pf[..k] {
                p.f_n = phi(p).dot(&coef);
            }
            return k;
        }
        pf.swap(worst.1, k - 1);
        k -= 1;
    }
    0
}

/// (1/m_r) V_k Λ_k⁻¹ (V_kᵀ S V_k)⁻¹ Λ_k⁻¹ V_kᵀ (ΦᵀF): the forces are Φ_i · this.
fn modal_coefficients(
    ctx: &PairContext,
    (e1, e2): (&Vec3, &Vec3),
    mean: (f64, f64),
    g: &Mat3,
    phi_f: &Vec3,
) -> Vec3 {
    let n = ctx.normal;
    // S, the pair's inverse mass in the basis (1, φ − φ̄).
    let mut s = Mat3::zeros();
    let bodies = [(ctx.a, 0), (ctx.b, 1)];
    for (body, j) in bodies {
        let w = ctx.inv_mass[j];
        if w == 0.0 {
            continue;
        }
        let ii = &ctx.inv_inertia_w[j];
        let (ie1, ie2) = (ii * e1, ii * e2);
        let kk = [[e1.dot(&ie1), e1.dot(&ie2)], [e2.dot(&ie1), e2.dot(&ie2)]];
        let xc = body.x.cross(&n);
        let c = [e1.dot(&xc) - mean.0, e2.dot(&xc) - mean.1];
        let kc = [
            kk[0][0] * c[0] + kk[0][1] * c[1],
            kk[1][0] * c[0] + kk[1][1] * c[1],
        ];
        s[(0, 0)] += w + c[0] * kc[0] + c[1] * kc[1];
        for a in 0..2 {
            s[(0, a + 1)] -= kc[a];
            s[(a + 1, 0)] -= kc[a];
            for b in 0..2 {
                s[(a + 1, b + 1)] += kk[a][b];
            }
        }
    }
    // G's modes above round-off.
    let eig = g.symmetric_eigen();
    let top = eig.eigenvalues.max();
    let mut vk = Mat3::zeros();
    let mut lam = [1.0; 3];
    let mut dim = 0;
    for j in 0..3 {
        if eig.eigenvalues[j] > MODE_TOL * top {
            vk.set_column(dim, &eig.eigenvectors.column(j));
            lam[dim] = eig.eigenvalues[j];
            dim += 1;
        }
    }
    // V_kᵀ S V_k on the kept modes, the identity on the others (their
    // right-hand side is 0).
    let mut sk = vk.transpose() * s * vk;
    for j in dim..3 {
        for l in 0..3 {
            sk[(j, l)] = 0.0;
            sk[(l, j)] = 0.0;
        }
        sk[(j, j)] = 1.0;
    }
    let Some(sk_inv) = sk.try_inverse() else {
        return Vec3::zeros();
    };
    let mut y = vk.transpose() * phi_f;
    for j in 0..3 {
        y[j] = if j < dim { y[j] / lam[j] } else { 0.0 };
    }
    let mut z = sk_inv * y;
    for j in 0..3 {
        z[j] = if j < dim { z[j] / lam[j] } else { 0.0 };
    }
    vk * z / ctx.m_reduced
}
