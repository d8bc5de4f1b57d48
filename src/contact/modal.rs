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
//! **Integration.** RK4's explicit path takes the force as is, with the
//! explicit clamps of [`super::PidGains::resolve`]. Under semi-implicit Euler
//! the share is taken in the linearly implicit rows: the pair's stiffness
//! (h kp + kv)(m_r A)⁺ = (h kp + kv) Φ B Bᵀ Φᵀ is three mode rows per pair
//! ([`Modes`]), its active set taken on the end-of-step law at each solve
//! (`pipeline::penalty_implicit`, "Modal pairs"). A modal pair's linear
//! friction anchor holds no elastic tilt (`friction::StickMode::Linear { tilt:
//! false }`): the share holds the patch's tilt at the translational rate, and
//! the tilt the anchor discounts under 1/r read a domino's turn about its edge
//! as slip (docs/EXPERIMENTS.md, "modal1").

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

/// Pulling shares within this fraction of the most pulling one tie with it
/// (round-off of a symmetric patch: ~1e-15) and leave the set together.
const TIE_TOL: f64 = 1e-9;

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

/// Eq. (3)'s force F_i at each candidate point, un-normalized (r = 1), where it
/// is positive: what the share is taken of. The implicit rows take it as the
/// base of their end-of-step law (`pipeline::penalty_implicit`, "Modal pairs").
pub fn unshared(
    ctx: &PairContext,
    gains: &PidGains,
    candidates: &[u32],
    out: &mut Vec<PointForce>,
) {
    pid_at(ctx, gains, candidates, out);
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

/// What the share reads of a pair: its normal, its bodies' inverse masses,
/// world inverse inertias and positions (a static body's inverse mass 0) and
/// its reduced mass m_r.
#[derive(Clone, Copy, Debug)]
pub struct ModalPair {
    pub normal: Vec3,
    pub inv_mass: [f64; 2],
    pub inv_inertia_w: [Mat3; 2],
    pub x: [Vec3; 2],
    pub m_reduced: f64,
}

impl ModalPair {
    pub fn of(ctx: &PairContext) -> Self {
        ModalPair {
            normal: ctx.normal,
            inv_mass: ctx.inv_mass,
            inv_inertia_w: ctx.inv_inertia_w,
            x: [ctx.a.x, ctx.b.x],
            m_reduced: ctx.m_reduced,
        }
    }
}

/// The modes of a point set: (m_r A)⁺ = Φ B Bᵀ Φᵀ, Φ_i = (1, φ_i − φ̄) in the
/// basis (e₁, e₂) (module doc, "Three modes"): B = V_k Λ_k⁻¹ L⁻ᵀ / √m_r with
/// V_kᵀ S V_k = L Lᵀ, its columns past `dim` zero. Column m of Φ B is the m-th
/// mode's weight per point: the implicit rows' mode rows
/// (`pipeline::penalty_implicit`, "Modal pairs").
#[derive(Clone, Copy, Debug)]
pub struct Modes {
    /// The pair's normal and the in-plane basis (e₁, e₂) ⊥ n.
    pub n: Vec3,
    pub e: (Vec3, Vec3),
    pub mean: (f64, f64),
    pub b: Mat3,
    /// The modes above round-off: 3 for a patch, 2 for points on a line, 1 for
    /// a point, 0 for none.
    pub dim: usize,
}

impl Modes {
    /// Φ_i of the point at `lever` for normal `n`.
    #[inline]
    pub fn phi(&self, lever: &Vec3, n: &Vec3) -> Vec3 {
        let q = lever.cross(n);
        Vec3::new(
            1.0,
            self.e.0.dot(&q) - self.mean.0,
            self.e.1.dot(&q) - self.mean.1,
        )
    }

    /// The modes of the points at `levers` (their φ̄, G = ΦᵀΦ, then B).
    pub fn of(pair: &ModalPair, levers: impl Iterator<Item = Vec3> + Clone) -> Modes {
        let n = pair.normal;
        let e = plane_basis(&n);
        let (mut s1, mut s2, mut k) = (0.0, 0.0, 0usize);
        for l in levers.clone() {
            let q = l.cross(&n);
            s1 += e.0.dot(&q);
            s2 += e.1.dot(&q);
            k += 1;
        }
        let mut modes = Modes {
            n,
            e,
            mean: (0.0, 0.0),
            b: Mat3::zeros(),
            dim: 0,
        };
        if k == 0 {
            return modes;
        }
        modes.mean = (s1 / k as f64, s2 / k as f64);
        let mut g = Mat3::zeros();
        for l in levers {
            let r = modes.phi(&l, &n);
            g += r * r.transpose();
        }
        if let Some((b, dim)) = modal_factor(pair, e, modes.mean, &g) {
            modes.b = b;
            modes.dim = dim;
        }
        modes
    }
}

/// Replaces the un-normalized forces F_i in `pf` by f = (m_r A)⁺ F over the
/// points whose shares push; those points are moved to the front, the others
/// dropped. Returns how many push.
pub fn distribute(ctx: &PairContext, pf: &mut [PointForce]) -> usize {
    distribute_by(&ModalPair::of(ctx), |i| ctx.points[i as usize].lever, pf).0
}

/// [`distribute`] for points named by `lever(point)`: the unilateral share
/// (module doc, "Unilateral") — the most pulling point leaves and the rest is
/// shared again. Returns how many push and the modes of that set.
pub fn distribute_by(
    pair: &ModalPair,
    lever: impl Fn(u32) -> Vec3,
    pf: &mut [PointForce],
) -> (usize, Modes) {
    let n = pair.normal;
    let mut k = pf.len();
    loop {
        let on = &pf[..k];
        let modes = Modes::of(pair, on.iter().map(|p| lever(p.point)));
        if k == 0 {
            return (0, modes);
        }
        let phi = |p: &PointForce| modes.phi(&lever(p.point), &n);
        let coef = share_coef(&modes, &lever, on);
        // The most pulling point leaves the set, with the points that tie with
        // it (within `TIE_TOL` of its force: a mirror-symmetric patch's two
        // corners, equal to round-off) — one of a tied pair left alone would
        // break the symmetry the scene has.
        let worst = on.iter().map(|p| phi(p).dot(&coef)).fold(0.0f64, f64::min);
        if worst >= 0.0 {
            for p in &mut pf[..k] {
                p.f_n = phi(p).dot(&coef);
            }
            return (k, modes);
        }
        let tie = worst * (1.0 - TIE_TOL);
        for i in (0..k).rev() {
            if phi(&pf[i]).dot(&coef) <= tie {
                pf.swap(i, k - 1);
                k -= 1;
            }
        }
    }
}

/// The share f = Φ B Bᵀ Φᵀ F of the points `pf` (F their `f_n`) under `modes`
/// (of the same points, `n` their pair's normal): f_i = Φ_i · the returned
/// B Bᵀ ΦᵀF.
pub fn share_coef(modes: &Modes, lever: &impl Fn(u32) -> Vec3, pf: &[PointForce]) -> Vec3 {
    let n = modes.n;
    let mut phi_f = Vec3::zeros();
    for p in pf {
        phi_f += modes.phi(&lever(p.point), &n) * p.f_n;
    }
    modes.b * (modes.b.transpose() * phi_f)
}

/// B with (m_r A)⁺ = Φ B Bᵀ Φᵀ ([`Modes`]) and the number of modes kept, from
/// G = ΦᵀΦ; `None` if V_kᵀ S V_k is not positive definite.
fn modal_factor(
    pair: &ModalPair,
    (e1, e2): (Vec3, Vec3),
    mean: (f64, f64),
    g: &Mat3,
) -> Option<(Mat3, usize)> {
    let n = pair.normal;
    // S, the pair's inverse mass in the basis (1, φ − φ̄).
    let mut s = Mat3::zeros();
    for j in 0..2 {
        let w = pair.inv_mass[j];
        if w == 0.0 {
            continue;
        }
        let ii = &pair.inv_inertia_w[j];
        let (ie1, ie2) = (ii * e1, ii * e2);
        let kk = [[e1.dot(&ie1), e1.dot(&ie2)], [e2.dot(&ie1), e2.dot(&ie2)]];
        let xc = pair.x[j].cross(&n);
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
    // G's modes above round-off, scaled by Λ_k⁻¹.
    let eig = g.symmetric_eigen();
    let top = eig.eigenvalues.max();
    let mut vk = Mat3::zeros();
    let mut dim = 0;
    for j in 0..3 {
        if eig.eigenvalues[j] > MODE_TOL * top {
            vk.set_column(dim, &eig.eigenvectors.column(j));
            dim += 1;
        }
    }
    if dim == 0 {
        return None;
    }
    // V_kᵀ S V_k on the kept modes, the identity on the others.
    let mut sk = vk.transpose() * s * vk;
    for j in dim..3 {
        for l in 0..3 {
            sk[(j, l)] = 0.0;
            sk[(l, j)] = 0.0;
        }
        sk[(j, j)] = 1.0;
    }
    let l = sk.cholesky()?.unpack();
    let l_inv = l.try_inverse()?;
    // V_k Λ_k⁻¹ (rows past `dim` zero) L⁻ᵀ: L is block diagonal (the identity
    // past `dim`), so the columns past `dim` come out zero.
    let mut vl = vk;
    let mut d = 0;
    for j in 0..3 {
        if eig.eigenvalues[j] > MODE_TOL * top {
            vl.set_column(d, &(vk.column(d) / eig.eigenvalues[j]));
            d += 1;
        }
    }
    Some((vl * l_inv.transpose() / pair.m_reduced.sqrt(), dim))
}
