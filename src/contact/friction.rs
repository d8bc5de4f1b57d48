//! Friction of the penalty family (000 §III-B).
//!
//! - **Sliding**: a face or line contact (two or more force-carrying points, each at
//!   its own lever) takes Coulomb's law integrated over its patch, a force at the
//!   centre and a moment about the normal ([`super::patch`]: a spin meets the
//!   patch's mean lever, not its corners'). Any other contact: at each
//!   force-carrying point a force of magnitude μ‖f(ψ)‖ opposite
//!   the tangential relative velocity there (regularized linearly below `v_stick` so
//!   that it vanishes continuously at rest). Spin about the normal is resisted by the
//!   same point forces. "There" is the point's lever (`ContactPoint::lever`): the
//!   point itself on a face, vertex or edge; a round cap's deepest point for all of
//!   the cap's points (the rigid ball's contact, at rest in rolling without slip; a
//!   ball's spin about the normal then meets no sliding moment, as a rigid ball's
//!   point contact has none). The centroid c below is the levers' too; the lever
//!   arm r of torsional sticking is the points' own spread (the patch's size).
//! - **Sticking**: a spring–damper between the two material points that coincided
//!   where sticking began (the anchor), acting at the force-weighted centroid c of
//!   the contact, on top of the tangential load L_t the contact carries (the weight
//!   it supports, [`super::support`], projected on the contact plane):
//!   f_t = −L_t − k δ_t − b v_t, limited to the cone ‖f_t‖ ≤ μ‖f‖. The feed-forward
//!   −L_t holds the load from the first step of contact, so the spring only takes
//!   the deviations: without it the spring has to stretch L_t/k before it holds,
//!   and on a slope at μ = tan θ the slip gathered meanwhile never stops (kinetic
//!   friction exactly balances the slope there); and a
//!   torsional spring–damper on the twist θ_n about the normal since sticking began,
//!   τ_n = −k r² θ_n − b r² ω_n, limited to μ‖f‖ r, with r the force-weighted mean
//!   distance of the contact points from c (the lever arm of torsional friction).
//! - **Transitions** (once per step, [`update_state`]): a sliding pair sticks when the
//!   speed of its fastest point falls below `v_stick`, or below what kinetic
//!   friction removes in one step (μ‖f‖ h / m, the stop decided on the impulse
//!   within the step: m the translational mass 1/(1/m_a + 1/m_b) for an explicit
//!   sticking force, which must not be handed momentum the kinetic force would
//!   still have removed; the free-body tangential mass m_t for the implicit rows,
//!   which stop it in their solve, and for the linear anchor at a round contact,
//!   whose point turns with the body);
//!   a sticking pair whose load and spring would exceed its limit is released to
//!   sliding if a point moves faster than `v_slip`, and otherwise its anchor is
//!   dragged toward the contact so that ‖L_t + k δ_t‖ sits on the limit (an
//!   elasto-plastic anchor: rounding noise at the exact threshold μ = tan θ cannot
//!   make a block creep); the drag only shortens δ_t, so a load the cone cannot hold
//!   yet (while the normal force builds up) leaves no stretch that would push back.
//!   With `[penalty.friction] solved_drag` (opt-in) the drag waits for the pair's
//!   last linear-anchor solve to have reached the cone
//!   (`StickAnchor::held_inside`): that solve's backward Euler counts the damper and
//!   the bodies' response against the spring, so it can hold a contact strictly
//!   inside the cone with ‖L_t + k δ_t‖ beyond it. Dragged before that solve every
//!   step, the anchors of a settled pile started each step stretched exactly to the
//!   cone while their solves applied 2–70 % of it, and the pile crept (pile_100:
//!   median 3.4 mm/s over 4–5 s; docs/EXPERIMENTS.md "scale20").

mod direct;

use super::patch::Patch;
use super::{PairContext, PointForce};
use crate::collision::ContactPoint;
use crate::data::{PairState, StickAnchor, REST_BLOCK_WORDS};
use crate::math::{tangent_basis, Mat3, Quat, Vec3};
use crate::model::{FrictionParams, OverRelaxation};

/// How a sticking pair's anchor spring–damper is integrated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StickMode {
    /// An explicit force at the step's start state, its gains clamped for explicit
    /// stability with the tangential mass m_t ([`stick_gains`]; the penalty stepper's
    /// explicit pairs: RK4 stages, robot links).
    Clamped,
    /// An explicit force linearly implicit in the pair's own tangential velocity
    /// ([`linear_stick`]; solved with the other sticking pairs of its bodies by
    /// [`LinearSticks`]): unclamped gains, stable at any h (penalty's default
    /// semi-implicit path, Hunt–Crossley). `tilt`: the contact's elastic tilt is
    /// not counted as slip ([`Tilt`]; only where both surfaces hold one,
    /// [`holds_tilt`]).
    Linear { tilt: bool },
    /// Two tangential rows of penalty's implicit solve ([`implicit_stick`]).
    Rows,
}

/// The sticking mode of the pairs of a stepper whose friction is `fp` (its
/// linearly implicit anchors on, `[…friction] linear`, or the clamped explicit
/// force) between surfaces of kinds `a` and `b`.
pub fn explicit_mode(
    fp: &FrictionParams,
    a: crate::collision::ShapeKind,
    b: crate::collision::ShapeKind,
) -> StickMode {
    if fp.linear {
        StickMode::Linear {
            tilt: holds_tilt(a, b),
        }
    } else {
        StickMode::Clamped
    }
}

/// Whether a contact between surfaces of kinds `a` and `b` holds an elastic tilt
/// ([`Tilt`]): not if either is round (sphere, capsule). Their contact points are
/// generated about the centre of curvature every step (`ContactPoint::lever`), so
/// turning the body presses no side of the patch: its rotation is rolling, which
/// the anchor must see (a ball's patch of points, counted as a held tilt, turned
/// the anchor into a brake on its centre of mass: a ball rolling on the floor
/// stopped in 3 s, and one in a pocket of four spun freely, measured).
pub fn holds_tilt(a: crate::collision::ShapeKind, b: crate::collision::ShapeKind) -> bool {
    use crate::collision::ShapeKind::{Capsule, Sphere};
    !matches!(a, Sphere | Capsule) && !matches!(b, Sphere | Capsule)
}

/// Force-weighted centroid of the force-carrying points, the total normal force and
/// the force-weighted mean distance of the points from the centroid.
#[inline]
pub fn centroid(ctx: &PairContext, forces: &[PointForce]) -> Option<(Vec3, f64, f64)> {
    let total: f64 = forces.iter().map(|f| f.f_n).sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let c = forces.iter().fold(Vec3::zeros(), |acc, f| {
        acc + ctx.points[f.point as usize].lever * f.f_n
    }) / total;
    let r = forces
        .iter()
        .map(|f| tangential(&ctx.normal, ctx.points[f.point as usize].p_w - c).norm() * f.f_n)
        .sum::<f64>()
        / total;
    Some((c, total, r))
}

#[inline]
fn tangential(n: &Vec3, v: Vec3) -> Vec3 {
    v - n * n.dot(&v)
}

/// Smallest tangential effective mass of the pair at `c` (rotation included: friction
/// acts away from the centres of mass), kg.
#[inline]
fn tangential_mass(ctx: &PairContext, c: &Vec3) -> f64 {
    let (t1, t2) = tangent_basis(&ctx.normal);
    1.0 / ctx
        .inv_effective_mass(c, &t1)
        .max(ctx.inv_effective_mass(c, &t2))
        .max(1e-300)
}

/// Effective moment of inertia of the pair's relative rotation about the normal.
#[inline]
fn normal_inertia(ctx: &PairContext) -> f64 {
    let n = ctx.normal;
    1.0 / (n.dot(&(ctx.inv_inertia_w[0] * n)) + n.dot(&(ctx.inv_inertia_w[1] * n))).max(1e-300)
}

/// Spring and damper of sticking contact at `c`, clamped for explicit stability with
/// the tangential effective mass m_t: k h²/m_t ≤ 0.3, b h/m_t ≤ 0.3 (0.8 was
/// measured to leave the paper_000 pile of twenty at 1.24e-3 J after 5 s).
#[inline]
fn stick_gains(fp: &FrictionParams, ctx: &PairContext, c: &Vec3) -> (f64, f64) {
    let (h, m) = (ctx.h, tangential_mass(ctx, c));
    (
        fp.k_stick.value(ctx.m_pair).min(0.3 * m / (h * h)),
        fp.b_stick.value(ctx.m_pair).min(0.3 * m / h),
    )
}

/// Translational effective mass of the pair, 1/(1/m_a + 1/m_b), kg: the mass a
/// kinetic force at a face contact decelerates (the normal springs hold the
/// tilt, so the contact moves with the centre of mass, not with the free-body
/// m_t of [`tangential_mass`]).
#[inline]
fn translational_mass(ctx: &PairContext) -> f64 {
    1.0 / (ctx.inv_mass[0] + ctx.inv_mass[1]).max(1e-300)
}

/// The inverse effective mass of the pair at `c` in the contact plane, as the
/// symmetric 2×2 block (w₁₁, w₁₂, w₂₂) along the tangents (t₁, t₂): wᵢⱼ =
/// tᵢ·K tⱼ, K = (1/m_a + 1/m_b) E − [r_a]× I_a⁻¹ [r_a]× − [r_b]× I_b⁻¹ [r_b]×.
#[inline]
fn tangent_inv_mass(ctx: &PairContext, c: &Vec3, t: [&Vec3; 2]) -> [f64; 3] {
    let im = ctx.inv_mass[0] + ctx.inv_mass[1];
    let (ra, rb) = (c - ctx.a.x, c - ctx.b.x);
    let w = |i: usize, j: usize| {
        let (ai, aj) = (ra.cross(t[i]), ra.cross(t[j]));
        let (bi, bj) = (rb.cross(t[i]), rb.cross(t[j]));
        im * t[i].dot(t[j])
            + ai.dot(&(ctx.inv_inertia_w[0] * aj))
            + bi.dot(&(ctx.inv_inertia_w[1] * bj))
    };
    [w(0, 0), w(0, 1), w(1, 1)]
}

/// The anchor's spring–damper force (without the load feed-forward) linearly
/// implicit in the pair's own tangential velocity at the centroid c
/// ([`StickMode::Linear`]): with D = h k + b,
///
///   g = −k (δ + h v⁺) − b v⁺,   v⁺ = v + h W g   ⇒   (E + h D W) g = −k δ − D v,
///
/// W the pair's tangential inverse effective mass at c ([`tangent_inv_mass`]; the
/// load −L_t balances the external tangential force, so only the deviation g
/// moves the pair). The penalty normal force's trick (`penalty_implicit`) on the
/// anchor: one 2×2 solve per sticking pair, no global system. Backward Euler on the
/// pair's own mass is stable at any k, b (the effective gains k/(1 + h D w) and
/// D/(1 + h D w) stay below m/h² and m/h along each tangent), so the gains are
/// the unclamped k_stick, b_stick (near-critical for the pair's gain mass) at any h.
/// W is the free-body response (rotation included): the normal springs that hold
/// a face contact's tilt only make the pair heavier, which under-relaxes the step
/// (no overshoot).
#[inline]
fn linear_stick(ctx: &PairContext, c: &Vec3, t: &StickTerms, v: Vec3) -> Vec3 {
    let (t1, t2) = tangent_basis(&ctx.normal);
    let d = ctx.h * t.k + t.b;
    let hd = ctx.h * d;
    // The slip velocity without the elastic tilt's rate, and its response W to a
    // force at c.
    let (v, [w11, w12, w21, w22]) = match &t.tilt {
        Some(tl) => {
            let v = v - tangential(
                &ctx.normal,
                (tl.axes * (ctx.a.w - ctx.b.w)).cross(&(c - tl.pivot)),
            );
            (v, tilted_inv_mass(ctx, c, [&t1, &t2], tl))
        }
        None => {
            let [w11, w12, w22] = tangent_inv_mass(ctx, c, [&t1, &t2]);
            (v, [w11, w12, w12, w22])
        }
    };
    let rhs = -t.k * t.slip - d * v;
    let (r1, r2) = (rhs.dot(&t1), rhs.dot(&t2));
    let (a11, a12, a21, a22) = (1.0 + hd * w11, hd * w12, hd * w21, 1.0 + hd * w22);
    let det = a11 * a22 - a12 * a21;
    if det.is_nan() || det <= 0.0 {
        return Vec3::zeros();
    }
    t1 * ((a22 * r1 - a12 * r2) / det) + t2 * ((a11 * r2 - a21 * r1) / det)
}

/// The rates a sticking block holds, of the body velocities (v_a, ω_a, v_b, ω_b):
/// the tilt-free slip rate at c (a relative to b), v_a(c) − v_b(c) less the
/// elastic tilt's rate P(ω_a − ω_b) × (c − p) ([`Tilt`]), in the contact plane,
/// and the relative spin about the normal n·(ω_a − ω_b).
#[inline(always)]
fn block_rates(blk: &LinearBlock, [va, wa, vb, wb]: [&Vec3; 4]) -> [f64; 3] {
    let mut v = va + wa.cross(&blk.r[0]) - vb - wb.cross(&blk.r[1]);
    if let Some(tl) = &blk.tilt {
        v -= (tl.axes * (wa - wb)).cross(&(blk.c - tl.pivot));
    }
    [v.dot(&blk.t[0]), v.dot(&blk.t[1]), blk.n.dot(&(wa - wb))]
}

/// What a sticking pair of [`LinearSticks`] banks after the solve
/// ([`bank_momentum`]): (μ, Σf, W_n), the cap and the anchor's normal motion.
#[derive(Clone, Copy, Debug)]
pub struct BankInputs {
    pub cone: (f64, f64, f64),
    pub cap: f64,
    pub motion: (f64, f64),
}

impl BankInputs {
    /// Nothing to bank (a block's inputs before its caller sets them).
    pub const NONE: BankInputs = BankInputs {
        cone: (0.0, 0.0, 0.0),
        cap: 0.0,
        motion: (0.0, 0.0),
    };
}

/// One sticking pair of the coupled anchor solve ([`LinearSticks`]): the
/// backward-Euler block of the anchor's spring–dampers at its centroid c — the two
/// tangential ones of [`linear_stick`] and the torsional one about the normal —
/// with what the other pairs' forces do to its bodies left to the solve.
#[derive(Clone, Copy, Debug)]
pub struct LinearBlock {
    /// The pair's bodies (a, b).
    pub bodies: [usize; 2],
    /// The caller's tags (the penalty stepper: manifold and pair index;
    /// Hunt–Crossley: pair and manifold index).
    pub tag: [usize; 2],
    pub bank: BankInputs,
    inv_mass: [f64; 2],
    inv_inertia_w: [Mat3; 2],
    n: Vec3,
    /// The centroid the force acts at, and c − x_a, c − x_b.
    pub c: Vec3,
    r: [Vec3; 2],
    t: [Vec3; 2],
    tilt: Option<Tilt>,
    /// −k δ − D y along t₁, t₂ and −k_t θ − D_t y₃ (y the start-of-step rates,
    /// [`block_rates`]), N and N·m.
    rhs: [f64; 3],
    /// (D, D, D_t): D = h k + b, D_t = h k_t + b_t (0: the torque is explicit).
    d: [f64; 3],
    /// (E + h diag(d) W_pp)⁻¹ (zero if singular).
    inv: Mat3,
    /// What the step h enters ([`LinearBlock::time`]): −k δ along t₁, t₂, N;
    /// the start-of-step rates y; the gains (k, b) and the torsional (k_t, b_t)
    /// (`None`: the torque is explicit, `rhs[2]` fixed) with the twist θ_n; W_pp.
    kd: [f64; 2],
    y: [f64; 3],
    gains: (f64, f64),
    twist: Option<(f64, f64, f64)>,
    w_pp: Mat3,
    /// The tangential load L_t fed forward, N.
    load: Vec3,
    /// The cone μ max(Σf, W_n) + C/h, N, and the lever of torsional friction, m.
    limit: f64,
    lever: f64,
    /// The force on a (g − L_t within the cone), N, and the torque on a about n,
    /// N·m.
    pub f: Vec3,
    pub tau: f64,
    /// The solve's event count at the block's last relaxation ([`LinearSticks::solve`]).
    last: u64,
    /// The x its last relaxation in [`LinearSticks::solve_cold`] returned: the
    /// block's [`LinearBlock::x`] until `f` or `tau` is set again (the next
    /// sweep's x_old, read instead of computed anew: the same bits).
    x_last: [f64; 3],
}

/// The sticking anchors of a step solved together where they share bodies
/// ([`StickMode::Linear`]). Each pair's block alone is backward Euler on its
/// spring–dampers, (E + h D W_pp) x_p = −K θ_p − D y_p (x = (g₁, g₂, τ_n) the
/// tangential force deviation and the torsional torque, y their rates, W_pp the
/// pair's response), stable at any gain on the pair's own mass. A body with
/// several sticking pairs (a sphere in a pocket of three to seven neighbours, a
/// capsule lying on the floor against two others) gets the sum of those forces,
/// each computed as if it alone moved the body: summed, n pairs each near their
/// own critical damping overshoot, and the body rocks at the Nyquist frequency
/// 1/(2h) (docs/BENCHMARKS.md, scale5's 500 Hz). Here the end-of-step rates of pair
/// p also count the other pairs' forces,
///
///   y_p⁺ = y_p + h Σ_q W_pq x_q,   (E + h D_p W_pp) x_p = −K θ_p − D_p (y_p + h Σ_{q≠p} W_pq x_q),
///
/// i.e. the island's system (D⁻¹ + h J M⁻¹ Jᵀ) x = −D⁻¹ K θ − y over its sticking
/// rows (SPD: each block's force acts through the transpose of the rate it
/// holds, [`LinearBlock::lever_torques`]), solved by block Gauss–Seidel: each block in
/// turn with the others' current forces carried as body velocity changes
/// h M⁻¹ Jᵀ x, its force projected on its cone ‖g − L_t‖ ≤ limit and its torque on
/// |τ| ≤ limit r (projected block Gauss–Seidel). A pair whose bodies carry no other
/// sticking pair converges in one sweep. Buffers are kept across steps (no
/// allocation once warm); the order is the caller's (deterministic).
///
/// Over-relaxed (`[penalty.friction] over_relaxation`, opt-in): x_p ← P_p(x_p +
/// ω (x̂_p − x_p)), x̂_p the block's own solve above. Its fixed points are
/// Gauss–Seidel's for every ω > 0 (x = P(x + ω (x̂ − x)) holds iff (x̂ − x)·(z − x)
/// ≤ 0 for every z of the cones, the condition of x = P(x̂)). Where no block sits
/// on its cone's edge this is block SOR on the SPD system above, which converges
/// for 0 < ω < 2 (Ostrowski–Reich); with the cones active the theorems for
/// projected SOR (Cryer 1971, Mangasarian 1977: 0 < ω < 2) need each block's
/// projection in the metric of its diagonal block A_pp = D_p⁻¹ + h W_pp, while P
/// here is Euclidean (the force's disc, the torque's interval; A_pp is not a
/// multiple of E), so they do not cover it: its fixed point is the Euclidean one
/// (not the QP's minimizer), and convergence there is tested
/// (`over_relaxed_sweeps_stop_at_the_gauss_seidel_fixed_point`), not proved.
#[derive(Clone, Debug, Default)]
pub struct LinearSticks {
    pub blocks: Vec<LinearBlock>,
    /// The rolling anchors of the sticking pairs with rolling resistance
    /// ([`RollBlock`]), swept with the blocks.
    pub rolls: Vec<RollBlock>,
    /// (Δv, Δω) of each body from the blocks' current forces over h, on top of
    /// `free`.
    dv: Vec<[Vec3; 2]>,
    /// (Δv, Δω) of each body over h from the step's other forces (gravity, the
    /// normal forces: [`LinearSticks::set_free`]); zero for a body not set.
    free: Vec<[Vec3; 2]>,
    /// The solve's event count at each body's last change of Δv or Δω by more
    /// than the tolerance ([`LinearSticks::solve`]).
    stamp: Vec<u64>,
    /// Sweeps of the last solve, and the block relaxations over them (the
    /// direct solve's back-substitutions and factorizations, [`direct`]).
    pub sweeps: usize,
    pub relaxations: usize,
    /// Warm start and per-block skip ([`LinearSticks::solve_warm`],
    /// `[penalty.friction] warm_start`; off by default).
    pub warm: bool,
    /// The coupled blocks solved directly ([`direct`], `[penalty.friction]
    /// direct`; off by default), the Gauss–Seidel its fallback; and its buffers
    /// and counts.
    pub direct: bool,
    pub exact: direct::DirectSolve,
    /// The cold sweeps' over-relaxation (`[penalty.friction] over_relaxation`,
    /// [`LinearSticks::solve_cold`]), and the ω the last cold solve ended with.
    pub omega: OverRelaxation,
    pub omega_used: f64,
}

/// Block Gauss–Seidel sweeps at most, and the relative change of the forces
/// (largest over the blocks, to the largest force) under which it stops.
const LINEAR_SWEEPS: usize = 30;
const LINEAR_TOL: f64 = 1e-6;

/// The adaptive over-relaxation ([`young_omega`]): the Gauss–Seidel sweeps
/// after the first (which starts from zero) before ω is set, and the largest
/// contraction it takes (ω ≤ 2/(1 + √0.01) ≈ 1.82).
const ADAPT_SWEEPS: usize = 6;
const ADAPT_RHO_MAX: f64 = 0.99;

/// Young's optimal ω = 2/(1 + √(1 − ρ)) (Young 1954: ρ = μ² the Gauss–Seidel
/// contraction of a consistently ordered matrix, μ the Jacobi spectral
/// radius), with ρ estimated from the largest changes of two Gauss–Seidel
/// sweeps two apart, ρ = √(c_b / c_a). No estimate (ω = 1) from changes that did
/// not contract (ρ ≥ 1: the cones' active set still moving) or are not finite.
fn young_omega(c_a: f64, c_b: f64) -> f64 {
    let rho = (c_b / c_a).sqrt();
    if !(rho.is_finite() && rho < 1.0) {
        return 1.0;
    }
    2.0 / (1.0 + (1.0 - rho.min(ADAPT_RHO_MAX)).sqrt())
}

impl LinearBlock {
    /// The block of a sticking pair at centroid `c` with terms `t`, cone `limit`
    /// and lever `lever`, integrated over `h` (the time its force is held, see
    /// [`linear_block`]); `twist`: the unclamped torsional gains (k_t, b_t) to
    /// solve the torque with, or `None` for the explicit clamped torque. Pushed
    /// onto `blocks` with its state-free fields and completed there in place (the
    /// ≈ 1 kB block is not built aside and moved in).
    fn push<'b>(
        blocks: &'b mut Vec<LinearBlock>,
        ctx: &PairContext,
        (c, lever): (&Vec3, f64),
        t: &StickTerms,
        (limit, h): (f64, f64),
        twist: Option<(f64, f64)>,
    ) -> Option<&'b mut LinearBlock> {
        let (t1, t2) = tangent_basis(&ctx.normal);
        blocks.push(LinearBlock {
            bodies: [0, 0],
            tag: [0, 0],
            bank: BankInputs::NONE,
            inv_mass: ctx.inv_mass,
            inv_inertia_w: ctx.inv_inertia_w,
            n: ctx.normal,
            c: *c,
            r: [c - ctx.a.x, c - ctx.b.x],
            t: [t1, t2],
            tilt: t.tilt,
            rhs: [0.0; 3],
            d: [0.0; 3],
            inv: Mat3::zeros(),
            kd: [0.0; 2],
            y: [0.0; 3],
            gains: (t.k, t.b),
            twist: twist.map(|(kt, bt)| (kt, bt, t.twist)),
            w_pp: Mat3::zeros(),
            load: t.load,
            limit,
            lever,
            f: -t.load,
            tau: 0.0,
            last: 0,
            x_last: [0.0; 3],
        });
        let blk = blocks.last_mut()?;
        blk.y = block_rates(blk, [&ctx.a.v, &ctx.a.w, &ctx.b.v, &ctx.b.w]);
        let kd = t.slip * -t.k;
        blk.kd = [kd.dot(&t1), kd.dot(&t2)];
        if twist.is_none() {
            let tau = -t.kt * t.twist - t.bt * blk.y[2];
            blk.rhs[2] = tau.clamp(-limit * lever, limit * lever);
        }
        blk.w_pp = blk.response_matrix();
        blk.time(h);
        Some(blk)
    }

    /// W_pp = J M⁻¹ Jᵀ: the rates ([`block_rates`], J) of the response
    /// ([`LinearBlock::response`], Jᵀ by [`LinearBlock::lever_torques`]) to a
    /// unit x_j. Row i of J on a body is (l_i, g_i): l = ±t_i for the tangents
    /// (+ on a, − on b) and 0 for the spin; g_i = r_a × t_i − P((c − p) × t_i) on
    /// a and −r_b × t_i + P((c − p) × t_i) on b for the tangents (P the held
    /// tilt's projector, p its pivot), ±n for the spin. So
    /// w_ij = (1/m_a + 1/m_b) t_i·t_j + g_aᵢ·I_a⁻¹ g_aⱼ + g_bᵢ·I_b⁻¹ g_bⱼ, the upper
    /// triangle computed and mirrored (exactly symmetric); a body with a zero
    /// inverse inertia (static) adds nothing. The same matrix as the three
    /// responses' rates up to round-off, at a third of their cost.
    fn response_matrix(&self) -> Mat3 {
        let g = self.angular_rows();
        let im = self.inv_mass[0] + self.inv_mass[1];
        let mut w = Mat3::zeros();
        for i in 0..2 {
            for j in i..2 {
                w[(i, j)] = im * self.t[i].dot(&self.t[j]);
            }
        }
        for (gb, inv_i) in g.iter().zip(&self.inv_inertia_w) {
            if *inv_i == Mat3::zeros() {
                continue;
            }
            let ig = [inv_i * gb[0], inv_i * gb[1], inv_i * gb[2]];
            for i in 0..3 {
                for j in i..3 {
                    w[(i, j)] += gb[i].dot(&ig[j]);
                }
            }
        }
        for i in 0..3 {
            for j in 0..i {
                w[(i, j)] = w[(j, i)];
            }
        }
        w
    }

    /// The angular parts g_i of J's rows ([`LinearBlock::response_matrix`]) on a
    /// and on b: r_a × t_i − P((c − p) × t_i), −r_b × t_i + P((c − p) × t_i) for
    /// the tangents, ±n for the spin (the linear parts are ±t_i and 0).
    #[inline]
    fn angular_rows(&self) -> [[Vec3; 3]; 2] {
        let held = |t: &Vec3| match &self.tilt {
            Some(tl) => tl.axes * (self.c - tl.pivot).cross(t),
            None => Vec3::zeros(),
        };
        let (h0, h1) = (held(&self.t[0]), held(&self.t[1]));
        [
            [
                self.r[0].cross(&self.t[0]) - h0,
                self.r[0].cross(&self.t[1]) - h1,
                self.n,
            ],
            [
                h0 - self.r[1].cross(&self.t[0]),
                h1 - self.r[1].cross(&self.t[1]),
                -self.n,
            ],
        ]
    }

    /// The block's backward Euler over a step `h` (the time its force is held,
    /// [`linear_block`]): D = h k + b, D_t = h k_t + b_t, the right-hand side
    /// −K θ − D y and (E + h diag(D) W_pp)⁻¹.
    pub fn time(&mut self, h: f64) {
        self.time_rhs(h);
        let mut a = Mat3::zeros();
        for j in 0..3 {
            for i in 0..3 {
                a[(i, j)] = f64::from(u8::from(i == j)) + h * self.d[i] * self.w_pp[(i, j)];
            }
        }
        self.inv = a
            .try_inverse()
            .filter(|m| m.iter().all(|v| v.is_finite()))
            .unwrap_or_else(Mat3::zeros);
    }

    /// The damping D (h k + b, h k_t + b_t) and the right-hand side
    /// −k δ − D y of [`LinearBlock::time`] (not the inverse).
    fn time_rhs(&mut self, h: f64) {
        let (k, b) = self.gains;
        let d = h * k + b;
        let y = self.y;
        self.d = [d, d, 0.0];
        self.rhs[0] = self.kd[0] - d * y[0];
        self.rhs[1] = self.kd[1] - d * y[1];
        if let Some((kt, bt, twist)) = self.twist {
            let dt = h * kt + bt;
            self.d[2] = dt;
            self.rhs[2] = -kt * twist - dt * y[2];
        }
    }

    /// A kept block ([`LinearBlock::kept_holds`]) at this step's state: what
    /// moves at rest — the anchor's stretch δ and twist θ_n (from the anchor's
    /// material points and orientation at the present poses) and the
    /// start-of-step rates y — evaluated anew; what the geometry and the normal
    /// forces fix (c, the tangents, the tilt, W_pp, (E + h D W_pp)⁻¹, the cone,
    /// the load) kept. The solve starts from zero as a fresh block does.
    pub fn refresh(&mut self, ctx: &PairContext, anchor: &StickAnchor, h: f64) {
        let rot = anchor_rotation(ctx, anchor);
        let slip = held_slip(ctx, anchor, &rot, &self.c, self.tilt.as_ref());
        let kd = slip * -self.gains.0;
        self.kd = [kd.dot(&self.t[0]), kd.dot(&self.t[1])];
        if let Some((_, _, twist)) = self.twist.as_mut() {
            *twist = rot.dot(&ctx.normal);
        }
        self.y = block_rates(self, [&ctx.a.v, &ctx.a.w, &ctx.b.v, &ctx.b.w]);
        self.f = -self.load;
        self.tau = 0.0;
        self.last = 0;
        self.time_rhs(h);
    }

    /// Whether a kept block's anchor still sticks (the cone test of
    /// [`update_state_at`] on its kept load and limit): ‖L_t + k δ‖ ≤ limit and
    /// k_t |θ_n| ≤ limit r. False: the pair goes the full way (the anchor is
    /// dragged or dropped there).
    pub fn kept_holds(&self) -> bool {
        let held = [
            self.load.dot(&self.t[0]) - self.kd[0],
            self.load.dot(&self.t[1]) - self.kd[1],
        ];
        let twist = self.twist.map_or(0.0, |(kt, _, tw)| kt * tw.abs());
        let (over_force, over_twist) =
            over_cone(held[0].hypot(held[1]), twist, (self.limit, self.lever));
        !(over_force || over_twist)
    }

    /// The block as the words of a kept block (`data::RestBlock::words`):
    /// everything but what [`LinearBlock::refresh`] sets anew (δ, θ_n, the
    /// rates, the force, the torque, the event count) and the caller's tags.
    /// [`LinearBlock::load`] reads them back bit for bit.
    pub fn save(&self, words: &mut [f64; REST_BLOCK_WORDS]) {
        let (mut blk, mut i) = (*self, 0);
        blk.words(|v| {
            if let Some(w) = words.get_mut(i..i + v.len()) {
                w.copy_from_slice(v);
            }
            i += v.len();
        });
        debug_assert!(i <= REST_BLOCK_WORDS, "{i} words");
    }

    /// Pushes the block saved as `words` ([`LinearBlock::save`]) onto `blocks`;
    /// its δ, θ_n, rates, force and tags are for the caller to set
    /// ([`LinearBlock::refresh`]).
    pub fn load<'b>(
        blocks: &'b mut Vec<LinearBlock>,
        words: &[f64; REST_BLOCK_WORDS],
    ) -> Option<&'b mut LinearBlock> {
        let zero3 = Vec3::zeros();
        blocks.push(LinearBlock {
            bodies: [0, 0],
            tag: [0, 0],
            bank: BankInputs::NONE,
            inv_mass: [0.0; 2],
            inv_inertia_w: [Mat3::zeros(); 2],
            n: zero3,
            c: zero3,
            r: [zero3; 2],
            t: [zero3; 2],
            tilt: None,
            rhs: [0.0; 3],
            d: [0.0; 3],
            inv: Mat3::zeros(),
            kd: [0.0; 2],
            y: [0.0; 3],
            gains: (0.0, 0.0),
            twist: None,
            w_pp: Mat3::zeros(),
            load: zero3,
            limit: 0.0,
            lever: 0.0,
            f: zero3,
            tau: 0.0,
            last: 0,
            x_last: [0.0; 3],
        });
        let (blk, mut i) = (blocks.last_mut()?, 0);
        blk.words(|v| {
            if let Some(w) = words.get(i..i + v.len()) {
                v.copy_from_slice(w);
            }
            i += v.len();
        });
        Some(blk)
    }

    /// The one layout of [`LinearBlock::save`] and [`LinearBlock::load`]:
    /// `io` given each group of kept fields in turn (the next words written
    /// from it or read into it; one monomorphic pass each way).
    #[inline(always)]
    fn words(&mut self, mut io: impl FnMut(&mut [f64])) {
        let (bank, tilt, twist) = (self.bank, self.tilt.as_ref(), self.twist);
        let mut head = [
            self.bodies[0] as f64,
            self.bodies[1] as f64,
            bank.cone.0,
            bank.cone.1,
            bank.cone.2,
            bank.cap,
            bank.motion.0,
            bank.motion.1,
            self.inv_mass[0],
            self.inv_mass[1],
            self.gains.0,
            self.gains.1,
            self.limit,
            self.lever,
            f64::from(u8::from(tilt.is_some())),
            f64::from(u8::from(twist.is_some())),
        ];
        // A held tilt's axes, pivot and Σf, and the torsional gains and twist
        // (k_t, b_t, θ_n), zero where there is none.
        let mut tl = [0.0; 13];
        if let Some(t) = tilt {
            tl[..9].copy_from_slice(t.axes.as_slice());
            tl[9..12].copy_from_slice(t.pivot.as_slice());
            tl[12] = t.fsum;
        }
        let mut tw = twist.map_or([0.0; 3], |(kt, bt, th)| [kt, bt, th]);
        io(&mut head);
        io(&mut tl);
        io(&mut tw);
        for m in &mut self.inv_inertia_w {
            io(m.as_mut_slice());
        }
        for v in [&mut self.n, &mut self.c, &mut self.load] {
            io(v.as_mut_slice());
        }
        for v in self.r.iter_mut().chain(self.t.iter_mut()) {
            io(v.as_mut_slice());
        }
        io(&mut self.rhs);
        io(&mut self.d);
        io(self.inv.as_mut_slice());
        io(self.w_pp.as_mut_slice());
        let h = head;
        self.bodies = [h[0] as usize, h[1] as usize];
        self.bank = BankInputs {
            cone: (h[2], h[3], h[4]),
            cap: h[5],
            motion: (h[6], h[7]),
        };
        self.inv_mass = [h[8], h[9]];
        self.gains = (h[10], h[11]);
        (self.limit, self.lever) = (h[12], h[13]);
        self.tilt = (h[14] != 0.0).then(|| Tilt {
            axes: Mat3::from_column_slice(&tl[..9]),
            pivot: Vec3::new(tl[9], tl[10], tl[11]),
            fsum: tl[12],
        });
        self.twist = (h[15] != 0.0).then_some((tw[0], tw[1], tw[2]));
    }

    /// The torques about the centres of mass of a and b of the tangential force
    /// `g` on a at c (−g on b): the transpose of [`block_rates`]' map, so that the
    /// anchor does work only on the rate it holds. Without a held tilt, r_a × g and
    /// −r_b × g. With one ([`Tilt`]: the rate is taken without the rotation
    /// P(ω_a − ω_b) about the pivot p), the moment P((c − p) × g) on the held axes
    /// is taken off a and given to b: that moment is the normal springs' (a face's
    /// normal forces shift to balance the friction moment; its tilt is their
    /// elastic deformation), and an anchor that neither sees nor drives the held
    /// rotation cannot feed it. Applied with the full lever while the rate ignored
    /// the held rotation, the anchor's force pumped it: a frustum resting on a side
    /// face rocked at |ω| ≈ 0.4 rad/s for 6 s under Hunt–Crossley (docs/EXPERIMENTS.md
    /// "The tilt rule from the contact's points"). Linear and angular momentum are
    /// kept (the two extra moments cancel).
    #[inline(always)]
    fn lever_torques(&self, g: &Vec3) -> [Vec3; 2] {
        let (mut ta, mut tb) = (self.r[0].cross(g), -self.r[1].cross(g));
        if let Some(tl) = &self.tilt {
            let held = tl.axes * (self.c - tl.pivot).cross(g);
            ta -= held;
            tb += held;
        }
        [ta, tb]
    }

    /// The block's force and torque on a and on b about their centres of mass
    /// (the force −f on b): f at c with [`LinearBlock::lever_torques`], and the
    /// torsional torque ±τ n. `points`: the pair's manifold points, those the
    /// block was built from (`PairContext::points`): a held tilt's patch is
    /// read from them here, only as far as [`Tilt::beyond_patch`] needs.
    pub fn wrenches(&self, points: &[ContactPoint]) -> [(Vec3, Vec3); 2] {
        let [mut ta, mut tb] = self.lever_torques(&self.f);
        if let Some(tl) = &self.tilt {
            // What the patch cannot hold of the held moment goes back to the
            // bodies (the solve's rates took it as held: it acts from the next
            // step, as the tipping it starts).
            let held = tl.axes * (self.c - tl.pivot).cross(&self.f);
            let excess = tl.beyond_patch(&held, (&self.n, &self.c, &self.t), points);
            ta += excess;
            tb -= excess;
        }
        let tq = self.torque();
        [(self.f, ta + tq), (-self.f, tb - tq)]
    }

    /// The bodies' velocity change per unit time, (v̇_a, ω̇_a, v̇_b, ω̇_b), of the
    /// block's x = (g₁, g₂, τ): the force g at c and the torque τ n on a, their
    /// opposites on b ([`LinearBlock::lever_torques`]).
    #[inline(always)]
    fn response(&self, x: [f64; 3]) -> [Vec3; 4] {
        let g = self.t[0] * x[0] + self.t[1] * x[1];
        let tq = self.n * x[2];
        let [ta, tb] = self.lever_torques(&g);
        [
            g * self.inv_mass[0],
            self.inv_inertia_w[0] * (ta + tq),
            -g * self.inv_mass[1],
            self.inv_inertia_w[1] * (tb - tq),
        ]
    }

    /// Whether the block's force lies strictly inside its cone (its solve held
    /// the contact without the projection), to the projection's rounding.
    #[inline]
    pub fn inside_cone(&self) -> bool {
        self.f.norm() < self.limit * (1.0 - 1e-9)
    }

    /// Whether the block's solve held the contact: its force strictly inside
    /// the cone and its torsional torque strictly inside |τ| ≤ limit r (a
    /// torque explicit and clamped counts as held). A trial anchor
    /// (`[penalty.friction] solved_stick`) sticks on this verdict.
    #[inline]
    pub fn holds(&self) -> bool {
        let lim_t = self.limit * self.lever * (1.0 - 1e-9);
        self.inside_cone() && (self.twist.is_none() || self.tau.abs() < lim_t)
    }

    /// The force deviation g = f + L_t (world), N: what the anchor stores for the
    /// next step's warm start (`StickAnchor::warm`).
    #[inline]
    pub fn deviation(&self) -> Vec3 {
        self.f + self.load
    }

    /// Starts the solve from `g` and `tau` (the pair's last solve,
    /// `StickAnchor::warm`), projected on the block's cones as [`LinearBlock::relax`]
    /// projects.
    pub fn warm(&mut self, g: &Vec3, tau: f64) {
        let g = self.t[0] * g.dot(&self.t[0]) + self.t[1] * g.dot(&self.t[1]);
        let mut f = g - self.load;
        let fm = f.norm();
        if fm > self.limit {
            f *= self.limit / fm;
        }
        let lim_t = self.limit * self.lever;
        let tau = tau.clamp(-lim_t, lim_t);
        if f.iter().all(|v| v.is_finite()) && tau.is_finite() {
            (self.f, self.tau) = (f, tau);
        }
    }

    /// The block's current x (the force deviation g = f + L_t, the torque).
    #[inline(always)]
    fn x(&self) -> [f64; 3] {
        let g = self.f + self.load;
        [g.dot(&self.t[0]), g.dot(&self.t[1]), self.tau]
    }

    /// The torque on a about the normal, N·m.
    #[inline]
    pub fn torque(&self) -> Vec3 {
        self.n * self.tau
    }

    /// Solves the block with the others' velocity change `dv` of its bodies,
    /// projects it on its cones and returns the new x.
    #[inline]
    fn relax(&mut self, dv: [&Vec3; 4]) -> [f64; 3] {
        let y = block_rates(self, dv);
        self.relax_at(y)
    }

    /// [`LinearBlock::relax`] from the rates `y` that the others' velocity
    /// changes give the block's bodies ([`block_rates`]).
    #[inline(always)]
    fn relax_at(&mut self, y: [f64; 3]) -> [f64; 3] {
        let x = self.local(y);
        self.project(x)
    }

    /// The block's own solve (E + h D W_pp)⁻¹ (−K θ − D y) from the rates `y`
    /// the others' velocity changes give its bodies, not projected.
    #[inline(always)]
    fn local(&self, y: [f64; 3]) -> [f64; 3] {
        let r: [f64; 3] = std::array::from_fn(|i| self.rhs[i] - self.d[i] * y[i]);
        (self.inv * Vec3::from(r)).into()
    }

    /// The over-relaxed relaxation: x = P(x_old + ω (x̂ − x_old)), x̂ the block's
    /// own solve from the rates `y` ([`LinearBlock::local`]), P the projection on
    /// its cones; ω = 1 is [`LinearBlock::relax_at`], bit for bit.
    #[inline(always)]
    fn over_relax_at(&mut self, y: [f64; 3], x_old: [f64; 3], omega: f64) -> [f64; 3] {
        if omega == 1.0 {
            return self.relax_at(y);
        }
        let xl = self.local(y);
        self.project(std::array::from_fn(|i| {
            x_old[i] + omega * (xl[i] - x_old[i])
        }))
    }

    /// Sets the block's force and torque to x projected on its cones (the force
    /// f = g − L_t on ‖f‖ ≤ limit, the torque on |τ| ≤ limit r; a non-finite x
    /// gives zero) and returns the projected x.
    #[inline(always)]
    fn project(&mut self, x: [f64; 3]) -> [f64; 3] {
        (self.f, self.tau) = self.projected(x);
        self.x()
    }

    /// x's force f = g − L_t and torque projected on the block's cones
    /// ([`LinearBlock::project`]).
    #[inline(always)]
    fn projected(&self, x: [f64; 3]) -> (Vec3, f64) {
        let mut f = self.t[0] * x[0] + self.t[1] * x[1] - self.load;
        let fm = f.norm();
        if fm > self.limit {
            f *= self.limit / fm;
        }
        let lim_t = self.limit * self.lever;
        let tau = x[2].clamp(-lim_t, lim_t);
        if !(f.iter().all(|v| v.is_finite()) && tau.is_finite()) {
            return (Vec3::zeros(), 0.0);
        }
        (f, tau)
    }

    /// Whether x is finite and inside the block's cones, so that
    /// [`LinearBlock::project`] keeps it as it is.
    #[inline]
    fn inside(&self, x: [f64; 3]) -> bool {
        let f = self.t[0] * x[0] + self.t[1] * x[1] - self.load;
        f.norm() <= self.limit && x[2].abs() <= self.limit * self.lever && x[2].is_finite()
    }

    /// Sets the block's force and torque from x (inside its cones).
    #[inline]
    fn set_x(&mut self, x: [f64; 3]) {
        self.f = self.t[0] * x[0] + self.t[1] * x[1] - self.load;
        self.tau = x[2];
    }
}

impl LinearSticks {
    /// Buffers for `blocks` sticking pairs in a world of `nbody` bodies.
    pub fn with_capacity(blocks: usize, nbody: usize) -> Self {
        LinearSticks {
            blocks: Vec::with_capacity(blocks),
            rolls: Vec::with_capacity(blocks),
            dv: vec![[Vec3::zeros(); 2]; nbody],
            free: vec![[Vec3::zeros(); 2]; nbody],
            stamp: vec![0; nbody],
            sweeps: 0,
            relaxations: 0,
            warm: false,
            direct: false,
            exact: direct::DirectSolve::default(),
            omega: OverRelaxation::default(),
            omega_used: 1.0,
        }
    }

    /// Empty, for a world of `nbody` bodies (sizes the per-body buffer once).
    pub fn clear(&mut self, nbody: usize) {
        // The free rates are set only for the bodies of the blocks
        // ([`LinearSticks::set_free`]): zero those, not every body.
        let bodies = self.blocks.iter().map(|b| b.bodies);
        for bs in bodies.chain(self.rolls.iter().map(|r| r.bodies)) {
            for b in bs {
                if let Some(f) = self.free.get_mut(b) {
                    *f = [Vec3::zeros(); 2];
                }
            }
        }
        self.blocks.clear();
        self.rolls.clear();
        if self.dv.len() < nbody {
            self.dv.resize(nbody, [Vec3::zeros(); 2]);
        }
        if self.free.len() < nbody {
            self.free.resize(nbody, [Vec3::zeros(); 2]);
        }
        if self.stamp.len() < nbody {
            self.stamp.resize(nbody, 0);
        }
    }

    /// The velocity change (Δv, Δω) = h M⁻¹ F over the step of body `b` from the
    /// step's forces other than the blocks' (gravity, applied wrenches, the normal
    /// forces of the contacts): the blocks' backward Euler then holds the
    /// end-of-step rate of the whole step, not of their own forces alone. Without
    /// it the anchors plan for a step with no other force; where those forces push
    /// a sticking contact along its plane (a sphere wedged between others: the
    /// top of a tetrahedron of spheres pushes the bottom ones apart), each block
    /// reverses the slip it sees, the push restores it, and the spring has to
    /// store the damper's overshoot D h W f on top of the force that holds —
    /// beyond the cone at W of a sphere's contact, so the anchor is dragged and the
    /// pile creeps (docs/EXPERIMENTS.md, "A tetrahedron of spheres that creeps").
    /// Only for a body of the step's blocks or rolling anchors (the solve reads
    /// no other, and [`LinearSticks::clear`] zeroes those bodies' only, not every
    /// body of the world); bodies not set stay at zero.
    pub fn set_free(&mut self, b: usize, dv: [Vec3; 2]) {
        if let Some(f) = self.free.get_mut(b) {
            *f = dv;
        }
    }

    /// The solve's start: each body of a block or rolling anchor at its free
    /// rates, with no change stamped ([`LinearSticks::solve_warm`]'s skips).
    fn start(&mut self) {
        let (dv, stamp, free) = (&mut self.dv, &mut self.stamp, &self.free);
        let bodies = self.blocks.iter().map(|b| b.bodies);
        for bs in bodies.chain(self.rolls.iter().map(|r| r.bodies)) {
            for b in bs {
                dv[b] = free[b];
                stamp[b] = 0;
            }
        }
        self.sweeps = 0;
        self.relaxations = 0;
    }

    /// Adds h M⁻¹ Jᵀ (s x) of block `blk`'s x to its bodies.
    #[inline(always)]
    fn shift(dv: &mut [[Vec3; 2]], blk: &LinearBlock, x: [f64; 3], s: f64) {
        let [va, wa, vb, wb] = blk.response(x);
        let [a, b] = blk.bodies;
        dv[a][0] += va * s;
        dv[a][1] += wa * s;
        dv[b][0] += vb * s;
        dv[b][1] += wb * s;
    }

    /// Every block's and rolling anchor's backward Euler over the step `h`
    /// ([`LinearBlock::time`]; a caller that learns the hold time only after
    /// building them: Hunt–Crossley's sub-step).
    pub fn time(&mut self, h: f64) {
        self.blocks.iter_mut().for_each(|b| b.time(h));
        self.rolls.iter_mut().for_each(|r| r.time(h));
    }

    /// Solves the blocks (projected block Gauss–Seidel, [`LinearSticks`]): each
    /// block's `f` and `tau` are its force and torque on a. From zero, every
    /// block every sweep; with `warm` ([`LinearSticks::solve_warm`]) from the
    /// pairs' last solve, relaxing only the blocks whose bodies changed.
    pub fn solve(&mut self, h: f64) {
        if self.direct && self.solve_direct(h) {
            return;
        }
        if self.warm {
            self.solve_warm(h);
        } else {
            self.solve_cold(h);
        }
    }

    /// [`LinearSticks::solve`] again after blocks were added to a solved set (the
    /// penalty stepper's late pairs: a sticking pair that the step's second normal
    /// solve closed): the sweeps continue from the last solve's x (the new blocks
    /// from their own start), as [`LinearSticks::solve_warm`] does, so that a new
    /// block with a vanishing force leaves the others where the first solve left
    /// them (a restart from zero would move them by the first solve's residual).
    /// The sweeps and relaxations add to the first solve's.
    pub fn resolve(&mut self, h: f64) {
        let (sweeps, relaxations) = (self.sweeps, self.relaxations);
        // The direct solve's answer does not depend on where it starts.
        if self.direct && self.solve_direct(h) {
            self.sweeps += sweeps;
            self.relaxations += relaxations;
            return;
        }
        self.solve_warm(h);
        self.sweeps += sweeps;
        self.relaxations += relaxations;
    }

    /// Whether no moving body carries two of the blocks (and there is no rolling
    /// anchor): each block is then alone on its bodies and the first sweep
    /// solves every block exactly — its relaxation is the closed-form solve of
    /// its own 3×3 system with its bodies' other rates fixed, then the
    /// projection on its cones, and no other block changes those rates — so a
    /// second sweep would only confirm it (it returns the same x up to the
    /// round-off of taking the block's own velocity change out and putting it
    /// back). A side counts as moving when its inverse mass or inverse inertia
    /// is not zero (a static or frozen body's velocity change is zero whatever
    /// the forces). Counts in `stamp`, which the cold solve does not otherwise
    /// use, and leaves it at zero.
    fn decoupled(&mut self) -> bool {
        if !self.rolls.is_empty() {
            return false;
        }
        let moving = |blk: &LinearBlock, k: usize| {
            blk.inv_mass[k] != 0.0 || blk.inv_inertia_w[k] != Mat3::zeros()
        };
        let mut alone = true;
        for blk in &self.blocks {
            for k in 0..2 {
                if moving(blk, k) {
                    let st = &mut self.stamp[blk.bodies[k]];
                    alone &= *st == 0;
                    *st += 1;
                }
            }
        }
        for blk in &self.blocks {
            for b in blk.bodies {
                self.stamp[b] = 0;
            }
        }
        alone
    }

    /// [`LinearSticks::solve`] from zero, every block every sweep (the default);
    /// one sweep when the blocks do not share a moving body
    /// ([`LinearSticks::decoupled`]: a resting box alone on the floor).
    fn solve_cold(&mut self, h: f64) {
        if self.omega == OverRelaxation::Fixed(1.0) {
            self.sweep_cold::<false>(h, LINEAR_SWEEPS, LINEAR_TOL);
        } else {
            self.sweep_cold::<true>(h, LINEAR_SWEEPS, LINEAR_TOL);
        }
    }

    /// [`LinearSticks::solve_cold`]'s sweeps with the cap `cap` and the stop
    /// tolerance `tol`; `OVER`: over-relaxed by `omega` (false: Gauss–Seidel,
    /// compiled without the over-relaxation's arithmetic and bookkeeping).
    fn sweep_cold<const OVER: bool>(&mut self, h: f64, cap: usize, tol: f64) {
        self.start();
        let one_sweep = self.decoupled();
        // ω = 1 where one sweep solves every block exactly (over-relaxed, it
        // would stop at ω times the answer) and for the adaptive rule's first
        // sweeps.
        let adaptive = OVER && self.omega == OverRelaxation::Adaptive && !one_sweep;
        let mut omega = match self.omega {
            OverRelaxation::Fixed(w) if OVER && !one_sweep => w,
            _ => 1.0,
        };
        // The adaptive rule's Gauss–Seidel sweeps' largest changes (the last
        // three).
        let mut changes = [0.0f64; 3];
        let (blocks, rolls, dv) = (&mut self.blocks, &mut self.rolls, &mut self.dv);
        for sweep in 0..cap {
            self.sweeps += 1;
            let (mut change, mut scale) = (0.0f64, 0.0f64);
            for blk in blocks.iter_mut() {
                // After the first sweep, the x the block's last relaxation
                // returned (its `x()`, unchanged since: the same bits).
                let x_old = if sweep == 0 { blk.x() } else { blk.x_last };
                self.relaxations += 1;
                // The others' rates at the block: the bodies' rates less the
                // block's own response to its old x, h W_pp x_old (W_pp the
                // rates of the response, `response_matrix`: a 3×3 product in
                // place of a second `response`); then the bodies move by the
                // response to x − x_old, one `response` per relaxation (was the
                // response to x_old taken out of the bodies and the one to x put
                // back: two). Equal to that up to round-off (the sums of the
                // velocity changes are grouped differently). A zero x_old (every
                // block's first sweep: the cold solve starts from f = −L_t)
                // takes nothing out and moves the bodies by the response to x,
                // as before, bit for bit (a one-sweep solve is unchanged).
                let [a, b] = blk.bodies;
                let (da, db) = (dv[a], dv[b]);
                let mut y = block_rates(blk, [&da[0], &da[1], &db[0], &db[1]]);
                let x = if x_old == [0.0; 3] {
                    let x = if OVER {
                        blk.over_relax_at(y, x_old, omega)
                    } else {
                        blk.relax_at(y)
                    };
                    Self::shift(dv, blk, x, h);
                    x
                } else {
                    let own = blk.w_pp * Vec3::from(x_old);
                    for (yi, oi) in y.iter_mut().zip(own.iter()) {
                        *yi -= h * oi;
                    }
                    let x = if OVER {
                        blk.over_relax_at(y, x_old, omega)
                    } else {
                        blk.relax_at(y)
                    };
                    let dx = [x[0] - x_old[0], x[1] - x_old[1], x[2] - x_old[2]];
                    Self::shift(dv, blk, dx, h);
                    x
                };
                blk.x_last = x;
                let (c, s) = Self::weighted(blk, x, x_old);
                change = change.max(c);
                scale = scale.max(s);
            }
            for rb in rolls.iter_mut() {
                let [a, b] = rb.bodies;
                let x_old = rb.tau;
                self.relaxations += 1;
                rb.shift(dv, -h);
                let (da, db) = (dv[a][1], dv[b][1]);
                rb.relax([&da, &db]);
                rb.shift(dv, h);
                // A moment over the resistance length μ_r: a force, N.
                let w = 1.0 / rb.length.max(1e-9);
                change = change.max((rb.tau - x_old).norm() * w);
                scale = scale.max(rb.tau.norm() * w);
            }
            if one_sweep || change <= tol * scale {
                break;
            }
            if OVER && adaptive && sweep > 0 && sweep <= ADAPT_SWEEPS {
                changes.rotate_left(1);
                changes[2] = change;
                if sweep == ADAPT_SWEEPS {
                    omega = young_omega(changes[0], changes[2]);
                }
            }
        }
        self.omega_used = omega;
    }

    /// [`LinearSticks::solve`] under `[penalty.friction] warm_start`.
    ///
    /// The sweeps start from the blocks' current x (zero, or the pair's last solve
    /// set by [`LinearBlock::warm`] / [`RollBlock::warm`]: a resting pile's
    /// anchors change little from step to step), carried into the bodies'
    /// velocity changes first. A block is relaxed again only if a body of its
    /// pair changed since its last relaxation by a block whose x moved by more
    /// than the stop tolerance (LINEAR_TOL of the largest x of the sweep before):
    /// relaxing it otherwise would return its x to within that tolerance. Static
    /// bodies carry no change. The stop is unchanged: a sweep whose largest
    /// change is ≤ LINEAR_TOL of the largest x. The order is the caller's
    /// (deterministic), and so is every skip.
    fn solve_warm(&mut self, h: f64) {
        self.start();
        let (blocks, rolls, dv, stamp) = (
            &mut self.blocks,
            &mut self.rolls,
            &mut self.dv,
            &mut self.stamp,
        );
        // The starting x (warm start) in the bodies' velocity changes, and its
        // scale (the tolerance of the first sweep's skips).
        let mut scale = 0.0f64;
        for blk in blocks.iter_mut() {
            blk.last = 0;
            let x = blk.x();
            if x != [0.0; 3] {
                Self::shift(dv, blk, x, h);
            }
            scale = scale.max(Self::weighted(blk, x, [0.0; 3]).1);
        }
        for rb in rolls.iter_mut() {
            rb.last = 0;
            if rb.tau != Vec3::zeros() {
                rb.shift(dv, h);
            }
            scale = scale.max(rb.tau.norm() / rb.length.max(1e-9));
        }
        let mut event = 0u64;
        for sweep in 0..LINEAR_SWEEPS {
            self.sweeps += 1;
            let skip = LINEAR_TOL * scale;
            let (mut change, mut next) = (0.0f64, 0.0f64);
            for blk in blocks.iter_mut() {
                let [a, b] = blk.bodies;
                let x_old = blk.x();
                if sweep > 0 && stamp[a] <= blk.last && stamp[b] <= blk.last {
                    next = next.max(Self::weighted(blk, x_old, [0.0; 3]).1);
                    continue;
                }
                Self::shift(dv, blk, x_old, -h);
                let (da, db) = (dv[a], dv[b]);
                let x = blk.relax([&da[0], &da[1], &db[0], &db[1]]);
                Self::shift(dv, blk, x, h);
                let (c, s) = Self::weighted(blk, x, x_old);
                change = change.max(c);
                next = next.max(s);
                event += 1;
                self.relaxations += 1;
                if c > skip {
                    for (k, body) in [a, b].into_iter().enumerate() {
                        if blk.inv_mass[k] > 0.0 {
                            stamp[body] = event;
                        }
                    }
                }
                blk.last = event;
            }
            for rb in rolls.iter_mut() {
                let [a, b] = rb.bodies;
                // A moment over the resistance length μ_r: a force, N.
                let w = 1.0 / rb.length.max(1e-9);
                let x_old = rb.tau;
                if sweep > 0 && stamp[a] <= rb.last && stamp[b] <= rb.last {
                    next = next.max(x_old.norm() * w);
                    continue;
                }
                rb.shift(dv, -h);
                let (da, db) = (dv[a][1], dv[b][1]);
                rb.relax([&da, &db]);
                rb.shift(dv, h);
                let c = (rb.tau - x_old).norm() * w;
                change = change.max(c);
                next = next.max(rb.tau.norm() * w);
                event += 1;
                self.relaxations += 1;
                if c > skip {
                    for (k, body) in [a, b].into_iter().enumerate() {
                        if rb.inv_inertia_w[k] != Mat3::zeros() {
                            stamp[body] = event;
                        }
                    }
                }
                rb.last = event;
            }
            scale = next;
            if change <= LINEAR_TOL * scale {
                break;
            }
        }
    }

    /// The change of a block's x from `x_old` and its size, each the largest
    /// component with the torque over the lever (a force, N).
    #[inline(always)]
    fn weighted(blk: &LinearBlock, x: [f64; 3], x_old: [f64; 3]) -> (f64, f64) {
        let (mut change, mut scale) = (0.0f64, 0.0f64);
        for i in 0..3 {
            let w = if i == 2 {
                1.0 / blk.lever.max(1e-9)
            } else {
                1.0
            };
            change = change.max((x[i] - x_old[i]).abs() * w);
            scale = scale.max(x[i].abs() * w);
        }
        (change, scale)
    }
}

/// The rolling anchor of a sticking pair with rolling resistance μ_r (000's
/// rolling friction as a set-valued law, `[…friction] linear` only): the moment
/// τ on a (−τ on b) in the contact plane that holds the relative rolling rotation
/// θ_r of a against b since sticking began (`StickAnchor::roll`) with an angular
/// spring–damper integrated by backward Euler like the tangential anchor,
///
///   τ = −k_r (θ_r + h y⁺) − b_r y⁺,   y⁺ = P_t(ω_a⁺ − ω_b⁺),
///
/// projected on the disc ‖τ‖ ≤ μ_r Σf: while the moment the rest needs is within
/// μ_r Σf the rotation is held (a body whose centre sits d_h ≤ μ_r off its support
/// point's vertical stays at rest: m g d_h ≤ μ_r N); beyond it the moment is the
/// kinetic μ_r Σf against the rolling (the angle is dragged to k_r ‖θ_r‖ = μ_r Σf
/// by [`update_roll`], an elasto-plastic angular anchor). The viscous
/// regularization of [`rolling_torque`] cannot hold a steady moment: it lets such
/// a body creep at ω = m g d_h / c (docs/EXPERIMENTS.md, "paper_000's pile under
/// `linear`"). Gains: those of the tangential anchor per unit mass times ρ² =
/// I_t / m_pair (I_t the pair's effective inertia about the tangent axes), so the
/// rotation about the centre of mass alone has the tangential anchor's frequency
/// and damping ratio.
#[derive(Clone, Copy, Debug)]
pub struct RollBlock {
    /// The pair's bodies (a, b).
    pub bodies: [usize; 2],
    inv_inertia_w: [Mat3; 2],
    t: [Vec3; 2],
    /// −k_r θ_r − D_r y along t₁, t₂ (y the start-of-step rates), N·m.
    rhs: [f64; 2],
    /// D_r = h k_r + b_r, N·m·s.
    d: f64,
    /// (E + h D_r W)⁻¹ (zero if singular).
    inv: [[f64; 2]; 2],
    /// What the step h enters ([`RollBlock::time`]): (k_r, b_r), −k_r θ_r and
    /// the start-of-step rates y along t₁, t₂, the response W.
    gains: (f64, f64),
    k_theta: [f64; 2],
    y: [f64; 2],
    w: [[f64; 2]; 2],
    /// μ_r Σf, N·m, and μ_r, m.
    limit: f64,
    pub length: f64,
    /// The moment on a, N·m.
    pub tau: Vec3,
    /// The caller's tag (the pair index), and the solve's event count at the
    /// block's last relaxation.
    pub tag: usize,
    last: u64,
}

/// The rolling anchor's tangent basis, gains (k_r, b_r) and the pair's angular
/// response W (2 × 2, rad/s² per N·m) on the tangent axes.
fn roll_terms(fp: &FrictionParams, ctx: &PairContext) -> ([Vec3; 2], f64, f64, [[f64; 2]; 2]) {
    let (t1, t2) = tangent_basis(&ctx.normal);
    let t = [t1, t2];
    let w_inv = ctx.inv_inertia_w[0] + ctx.inv_inertia_w[1];
    let w: [[f64; 2]; 2] =
        std::array::from_fn(|i| std::array::from_fn(|j| t[i].dot(&(w_inv * t[j]))));
    let mean = 0.5 * (w[0][0] + w[1][1]);
    // ρ² = I_t / m_pair with I_t = 1 / mean.
    let rho2 = if mean > 0.0 && ctx.m_pair > 0.0 {
        1.0 / (mean * ctx.m_pair)
    } else {
        0.0
    };
    let (k, b) = (
        fp.k_stick.value(ctx.m_pair) * rho2,
        fp.b_stick.value(ctx.m_pair) * rho2,
    );
    (t, k, b, w)
}

/// Once per step at the start state, after [`update_state`] (anchor kept or
/// set): θ_r ← P_t(θ_r + h (ω_a − ω_b)) (the angle at this step's start, as the
/// positions of semi-implicit Euler), dragged to k_r ‖θ_r‖ ≤ μ_r Σf (the rolling
/// anchor slips plastically beyond the resistance, [`RollBlock`]).
pub fn update_roll(
    fp: &FrictionParams,
    rolling: f64,
    ctx: &PairContext,
    forces: &[PointForce],
    anchor: &mut StickAnchor,
) {
    let n = &ctx.normal;
    let total: f64 = forces.iter().map(|f| f.f_n).sum();
    let (_, k, _, _) = roll_terms(fp, ctx);
    let th = anchor.roll + (ctx.a.w - ctx.b.w) * ctx.h;
    let mut th = th - n * n.dot(&th);
    let (lim, tn) = (rolling * total.max(0.0), th.norm());
    if k * tn > lim {
        th *= if tn > 0.0 { lim / (k * tn) } else { 0.0 };
    }
    if th.iter().all(|v| v.is_finite()) {
        anchor.roll = th;
    } else {
        anchor.roll = Vec3::zeros();
    }
}

/// The rolling anchor of a sticking pair with rolling resistance `rolling` > 0
/// (`anchor` its [`StickAnchor`] after [`update_roll`]), or `None` without force;
/// `h` the time its moment is held, as for [`linear_block`].
pub fn roll_block(
    fp: &FrictionParams,
    rolling: f64,
    ctx: &PairContext,
    forces: &[PointForce],
    (anchor, h): (&StickAnchor, f64),
) -> Option<RollBlock> {
    let total: f64 = forces.iter().map(|f| f.f_n).sum();
    if !(rolling > 0.0 && total > 0.0) {
        return None;
    }
    let (t, k, b, w) = roll_terms(fp, ctx);
    let y0 = ctx.a.w - ctx.b.w;
    let mut rb = RollBlock {
        bodies: [0, 0],
        inv_inertia_w: ctx.inv_inertia_w,
        t,
        rhs: [0.0; 2],
        d: 0.0,
        inv: [[0.0; 2]; 2],
        gains: (k, b),
        k_theta: std::array::from_fn(|i| -k * anchor.roll.dot(&t[i])),
        y: std::array::from_fn(|i| y0.dot(&t[i])),
        w,
        limit: rolling * total,
        length: rolling,
        tau: Vec3::zeros(),
        tag: 0,
        last: 0,
    };
    rb.time(h);
    if anchor.warm_roll != Vec3::zeros() {
        rb.warm(&anchor.warm_roll);
    }
    Some(rb)
}

impl RollBlock {
    /// Starts the solve from the moment `tau` (`StickAnchor::warm_roll`),
    /// projected on the disc.
    pub fn warm(&mut self, tau: &Vec3) {
        let n = self.t[0].cross(&self.t[1]);
        let mut tau = tau - n * n.dot(tau);
        let m = tau.norm();
        if m > self.limit {
            tau *= self.limit / m;
        }
        if tau.iter().all(|v| v.is_finite()) {
            self.tau = tau;
        }
    }

    /// The block's backward Euler over a step `h` ([`LinearBlock::time`]).
    pub fn time(&mut self, h: f64) {
        let (k, b) = self.gains;
        let (d, w) = (h * k + b, &self.w);
        self.d = d;
        self.rhs = std::array::from_fn(|i| self.k_theta[i] - d * self.y[i]);
        let a = [
            [1.0 + h * d * w[0][0], h * d * w[0][1]],
            [h * d * w[1][0], 1.0 + h * d * w[1][1]],
        ];
        let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
        self.inv = if det.is_finite() && det > 0.0 {
            [
                [a[1][1] / det, -a[0][1] / det],
                [-a[1][0] / det, a[0][0] / det],
            ]
        } else {
            [[0.0; 2]; 2]
        };
    }

    /// Adds h M⁻¹ (s τ) of the block's moment to its bodies' angular velocity.
    #[inline]
    fn shift(&self, dv: &mut [[Vec3; 2]], s: f64) {
        let [a, b] = self.bodies;
        dv[a][1] += self.inv_inertia_w[0] * self.tau * s;
        dv[b][1] -= self.inv_inertia_w[1] * self.tau * s;
    }

    /// Solves the block with the others' angular velocity changes `dw` of a and b,
    /// projected on the disc ‖τ‖ ≤ μ_r Σf.
    #[inline]
    fn relax(&mut self, [dwa, dwb]: [&Vec3; 2]) {
        let y = dwa - dwb;
        let r: [f64; 2] = std::array::from_fn(|i| self.rhs[i] - self.d * y.dot(&self.t[i]));
        let x0 = self.inv[0][0] * r[0] + self.inv[0][1] * r[1];
        let x1 = self.inv[1][0] * r[0] + self.inv[1][1] * r[1];
        let mut tau = self.t[0] * x0 + self.t[1] * x1;
        let m = tau.norm();
        if m > self.limit {
            tau *= self.limit / m;
        }
        if !tau.iter().all(|v| v.is_finite()) {
            tau = Vec3::zeros();
        }
        self.tau = tau;
    }
}

/// A sticking pair's [`LinearBlock`] (anchor set, `cen` its centroid), pushed
/// onto `blocks` and lent back for the caller to complete in place (the
/// ≈ 850-byte block is not returned by value), or `None` — nothing pushed —
/// when it slides or carries no force (the caller applies
/// [`tangential_forces_at`] then). `terms`: as for [`tangential_forces_at`].
/// `h`: the time the block's force is held before it is evaluated again, the
/// step of its backward Euler (and of [`LinearSticks::solve`]): the tick for
/// penalty (`ctx.h`); Hunt–Crossley's sub-step, which re-evaluates the force
/// after every sub-step τ ≪ dt. Taken over the tick there, the block is backward
/// Euler for a step of dt applied over τ: a spring k/(1 + h D w) and damper
/// D/(1 + h D w), at h = 1e-2 a tenth of k_stick at damping ratio 0.6 (from
/// 0.95), which rang after the sliding box's stop (docs/EXPERIMENTS.md "The
/// sliding stop's last two figures"). The cone's banked impulse is still spent
/// over the tick (C/`ctx.h`).
pub fn linear_block<'b>(
    fp: &FrictionParams,
    mu: f64,
    ctx: &PairContext,
    cen: Option<(Vec3, f64, f64)>,
    (anchor, mode): (Option<&StickAnchor>, StickMode),
    (terms, h): (Option<&StickTerms>, f64),
    blocks: &'b mut Vec<LinearBlock>,
) -> Option<&'b mut LinearBlock> {
    let (anchor, (c, total, r)) = (anchor?, cen.filter(|_| mu > 0.0)?);
    let own;
    let t = match terms {
        Some(t) => t,
        None => {
            own = StickTerms::new(fp, ctx, (&c, r), anchor, mode);
            &own
        }
    };
    let limit = mu * stick_normal(ctx, total) + anchor.credit / ctx.h;
    let r2 = r * r;
    let twist = Some((
        fp.k_stick.value(ctx.m_pair) * r2,
        fp.b_stick.value(ctx.m_pair) * r2,
    ));
    let blk = LinearBlock::push(blocks, ctx, (&c, r), t, (limit, h), twist)?;
    if let Some(tl) = &mut blk.tilt {
        tl.fsum = stick_normal(ctx, total);
    }
    // The pair's last solve, if its stepper keeps one (warm start,
    // [`LinearSticks::solve`]).
    if anchor.warm != Vec3::zeros() || anchor.warm_tau != 0.0 {
        blk.warm(&anchor.warm, anchor.warm_tau);
    }
    Some(blk)
}

/// The response (w₁₁, w₁₂, w₂₁, w₂₂) of the tilt-free slip velocity
/// v(c) − P(ω_a − ω_b) × (c − p) to a unit force along t_j at c (a pushed, b
/// pulled): wᵢⱼ = tᵢ·Δv for F = tⱼ.
#[inline]
fn tilted_inv_mass(ctx: &PairContext, c: &Vec3, t: [&Vec3; 2], tl: &Tilt) -> [f64; 4] {
    let im = ctx.inv_mass[0] + ctx.inv_mass[1];
    let (ra, rb, rp) = (c - ctx.a.x, c - ctx.b.x, c - tl.pivot);
    let resp = |f: &Vec3| {
        let wa = ctx.inv_inertia_w[0] * ra.cross(f);
        let wb = -(ctx.inv_inertia_w[1] * rb.cross(f));
        f * im + wa.cross(&ra) - wb.cross(&rb) - (tl.axes * (wa - wb)).cross(&rp)
    };
    let (r1, r2) = (resp(t[0]), resp(t[1]));
    [t[0].dot(&r1), t[0].dot(&r2), t[1].dot(&r1), t[1].dot(&r2)]
}

/// Torsional spring and damper (k r², b r²), clamped with the normal inertia.
#[inline]
fn twist_gains(fp: &FrictionParams, ctx: &PairContext, r: f64) -> (f64, f64) {
    let (h, i) = (ctx.h, normal_inertia(ctx));
    let r2 = r * r;
    (
        (fp.k_stick.value(ctx.m_pair) * r2).min(0.3 * i / (h * h)),
        (fp.b_stick.value(ctx.m_pair) * r2).min(0.3 * i / h),
    )
}

/// World displacement between the anchor's material points, tangential part.
#[inline]
fn anchor_slip(ctx: &PairContext, anchor: &StickAnchor) -> Vec3 {
    let pa = ctx.a.x + ctx.a.q * anchor.p_a_body;
    let pb = ctx.b.x + ctx.b.q * anchor.p_b_body;
    tangential(&ctx.normal, pa - pb)
}

/// The anchor's stretch δ that its spring holds: [`anchor_slip`] less the held
/// tilt's part ([`tilt_slip_of`] of the relative rotation `rot` =
/// [`anchor_rotation`] about centroid `c`) where the contact holds a tilt.
#[inline]
fn held_slip(
    ctx: &PairContext,
    anchor: &StickAnchor,
    rot: &Vec3,
    c: &Vec3,
    tilt: Option<&Tilt>,
) -> Vec3 {
    match tilt {
        Some(tl) => anchor_slip(ctx, anchor) - tilt_slip_of(ctx, rot, c, tl),
        None => anchor_slip(ctx, anchor),
    }
}

/// The anchor's cone test: whether the held tangential force `held` =
/// ‖L_t + k δ‖ exceeds the cone `limit`, and whether the torsional spring's
/// torque `twist` = k_t |θ_n| exceeds limit r (`lever` r): the anchor sticks
/// while neither does ([`update_state_at`], [`LinearBlock::kept_holds`]).
#[inline]
fn over_cone(held: f64, twist: f64, (limit, lever): (f64, f64)) -> (bool, bool) {
    (held > limit, twist > limit * lever)
}

/// The elastic tilt of a contact: the relative rotations about tangent axes that
/// its normal springs hold, and the point they turn about.
///
/// Only the points in contact (depth > 0: the ones whose springs carry force)
/// resist a rotation, each by pressing or lifting as the body turns; a rotation
/// about the in-plane axis u = n × e is resisted where those points spread along
/// e. With S = (1/N) Σ (p − c)(p − c)ᵀ their second moment in the tangent plane
/// about the force centroid c, the tilt about n × e is held for each
/// eigen-direction e of S whose eigenvalue exceeds d², d the deepest point's
/// depth: a patch no wider than its own penetration along e could only be
/// turned through an angle of order one before a side lifts, which is not an
/// elastic tilt. So a face in contact (≥ 3 non-collinear points) holds both
/// axes, a line of points (a box on an edge, a frustum or cylinder on its side)
/// only the axis perpendicular to the line — rotation about the line itself is
/// rolling and counts as slip — and a single point (a vertex, a rim) none. The
/// edge crossings of a penetrating vertex (depth 0) do not count: with them a
/// vertex's patch spreads both ways at the scale of its depth. Round bodies
/// hold none whatever their points ([`holds_tilt`]). (S is taken about c, not
/// about the points' own mean: c is pulled off a line of penetrating points by
/// 000's integral force at its crossings, so a box on its front edge whose whole
/// face carries force — the sliding box's pitch — counts as a face.)
///
/// And a tilt is held only while the pivot lies over the patch along e
/// ([`over_patch`]): a body whose centre of mass is beyond the patch's edge is
/// not resting on it — it turns about that edge as a rigid body (a rocking
/// block, a box tipping over), and that rotation is motion the anchor must see.
///
/// Such a tilt is the normal springs' elastic deformation, not slip: a rigid
/// contact would not have it, and a body freed of tangential force tilts about
/// its centre of mass, not about c. Kinetic friction at the base pitches a
/// sliding box ≈ 1e-4 rad on its normal springs; an anchor that holds the
/// material point at c turns the release of that pitch into a rocking of the
/// centre of mass about the held base (−4 to −8 mm/s for the 1 m box after its
/// stop at 1 kHz). The anchor's force leaves its moment on the held axes to the
/// normal springs ([`LinearBlock::lever_torques`]), so it does no work on the
/// rotation it does not see.
///
/// The normal springs hold that moment only while their resultant can shift to
/// balance it inside the patch: a moment M on the held axes needs the resultant Σf
/// moved by |M|/Σf along M × n, and the patch reaches s(d) = max (p − c)·d that
/// way. Beyond, the excess is the body's ([`Tilt::beyond_patch`]): a box on a slope
/// steeper than atan(w/h) tips over its downhill edge (it stood at twice that
/// angle while the whole moment was held).
#[derive(Clone, Copy, Debug)]
pub struct Tilt {
    /// Projector onto the held tilt axes (world, in the contact plane).
    axes: Mat3,
    /// The point the tilt turns about: the centres of mass weighted by inverse
    /// mass (a's centre when b is static).
    pivot: Vec3,
    /// The normal force Σf the patch carries, N (set with the anchor's block).
    fsum: f64,
}

/// Points of a [`Tilt`]'s patch kept for its support.
const TILT_PATCH: usize = 8;

impl Tilt {
    /// The part of the held moment `held` (on a, about the pivot, of the anchor's
    /// force) that the normal springs cannot hold inside the patch (module doc of
    /// [`Tilt`]); zero while the patch holds it all. The patch is the offsets
    /// p − c of the points in contact (depth > 0) of `points`, tangential to `n`
    /// (at most `TILT_PATCH`: the extremes along as many directions of the
    /// tangent basis `t` when there are more, [`patch_extremes`]); its reach
    /// along d is max(0, max (p − c)·d). Read lazily: the points are visited in
    /// order and the answer is zero as soon as Σf times the running maximum
    /// holds `held` — the running maximum only grows and rounding is monotone,
    /// so that is exactly when the whole patch's reach would hold it; otherwise
    /// the full maximum gives the excess, as a patch built beforehand did.
    fn beyond_patch(
        &self,
        held: &Vec3,
        (n, c, t): (&Vec3, &Vec3, &[Vec3; 2]),
        points: &[ContactPoint],
    ) -> Vec3 {
        let m = held.norm();
        let touching = || points.iter().filter(|p| p.depth > 0.0);
        if m == 0.0 {
            return Vec3::zeros();
        }
        let d = held.cross(n);
        let dn = d.norm();
        if dn == 0.0 {
            return Vec3::zeros();
        }
        let d = d / dn;
        let fsum = self.fsum.max(0.0);
        let npatch = touching().take(TILT_PATCH + 1).count();
        if npatch == 0 {
            return Vec3::zeros();
        }
        let reach = if npatch > TILT_PATCH {
            patch_extremes(n, c, t, points)
                .iter()
                .map(|p| p.dot(&d))
                .fold(0.0, f64::max)
        } else {
            let mut reach = 0.0f64;
            for p in touching() {
                reach = reach.max(tangential(n, p.p_w - c).dot(&d));
                if m <= fsum * reach {
                    return Vec3::zeros();
                }
            }
            reach
        };
        let hold = fsum * reach;
        if m <= hold {
            Vec3::zeros()
        } else {
            held * (1.0 - hold / m)
        }
    }
}

/// A [`Tilt`]'s patch when more than `TILT_PATCH` points touch (depth > 0): for
/// each of `TILT_PATCH` directions u of the tangent basis `t` (evenly spaced),
/// the offset p − c, tangential to `n`, that reaches furthest along u (zero if
/// none reaches past the centroid).
fn patch_extremes(
    n: &Vec3,
    c: &Vec3,
    [t1, t2]: &[Vec3; 2],
    points: &[ContactPoint],
) -> [Vec3; TILT_PATCH] {
    let mut patch = [Vec3::zeros(); TILT_PATCH];
    let touching = || points.iter().filter(|p| p.depth > 0.0);
    for (k, slot) in patch.iter_mut().enumerate() {
        let a = std::f64::consts::TAU * k as f64 / TILT_PATCH as f64;
        let u = t1 * a.cos() + t2 * a.sin();
        *slot = touching()
            .map(|p| tangential(n, p.p_w - c))
            .fold(Vec3::zeros(), |best, q| {
                if q.dot(&u) > best.dot(&u) {
                    q
                } else {
                    best
                }
            });
    }
    patch
}

/// The contact's [`Tilt`] at centroid `c`.
pub fn tilt(ctx: &PairContext, c: &Vec3) -> Tilt {
    let (t1, t2) = tangent_basis(&ctx.normal);
    let (mut s11, mut s12, mut s22, mut total, mut deepest) = (0.0, 0.0, 0.0, 0.0, 0.0f64);
    // The patch of points is not kept: [`Tilt::beyond_patch`] reads it from
    // the points when the held moment asks.
    for p in ctx.points.iter().filter(|p| p.depth > 0.0) {
        let d = p.p_w - c;
        let (x, y) = (d.dot(&t1), d.dot(&t2));
        s11 += x * x;
        s12 += x * y;
        s22 += y * y;
        total += 1.0;
        deepest = deepest.max(p.depth);
    }
    let [ia, ib] = ctx.inv_mass;
    let pivot = if ia + ib > 0.0 {
        (ctx.a.x * ia + ctx.b.x * ib) / (ia + ib)
    } else {
        ctx.a.x
    };
    let mut axes = Mat3::zeros();
    if total > 0.0 {
        // Eigen-decomposition of the symmetric 2×2 S = Σ (p − c)(p − c)ᵀ / N.
        let (s11, s12, s22) = (s11 / total, s12 / total, s22 / total);
        let (m, d) = (
            0.5 * (s11 + s22),
            (0.25 * (s11 - s22).powi(2) + s12 * s12).sqrt(),
        );
        let (l1, l2) = (m + d, m - d);
        if l1 > 0.0 {
            let e1 = if s12.abs() > 1e-300 || s11 >= s22 {
                let v = if s12.abs() > 1e-300 {
                    t1 * s12 + t2 * (l1 - s11)
                } else {
                    t1
                };
                v.normalize()
            } else {
                t2
            };
            let e2 = ctx.normal.cross(&e1);
            for (l, e) in [(l1, e1), (l2, e2)] {
                // Spread along e, and the pivot over the patch along e: the
                // tilt about n × e is held.
                if l > deepest * deepest && over_patch(ctx, c, &pivot, &e) {
                    let u = ctx.normal.cross(&e);
                    axes += u * u.transpose();
                }
            }
        }
    }
    Tilt {
        axes,
        pivot,
        fsum: 0.0,
    }
}

/// Whether the pivot (the centres of mass, [`Tilt::pivot`]) lies over the
/// contact patch along the tangent `e`: between the least and the greatest
/// (p − c)·e of the manifold's points in contact or at its edge (depth ≥ 0:
/// the crossings at depth 0 bound the patch and carry 000's integral force).
/// A body whose centre of mass is over its patch rests on it, and its tilt about
/// n × e is the normal springs' deformation; one whose centre lies beyond the
/// patch's edge turns about that edge as a rigid body (Housner's rocking block,
/// a box tipping over): the rotation is the motion, the patch its pivot, and the
/// anchor must see it. Held regardless, the anchor took the rotation for a tilt
/// about the centre of mass and held the centre instead: the rocking block's
/// edge slid 21 mm without friction before its first impact, which came at
/// 0.084 s instead of 0.144 s (docs/EXPERIMENTS.md "Outside scenes, session 32").
/// Read lazily: true as soon as points on both sides of the pivot were seen.
#[inline]
fn over_patch(ctx: &PairContext, c: &Vec3, pivot: &Vec3, e: &Vec3) -> bool {
    let sp = (pivot - c).dot(e);
    let (mut below, mut above) = (false, false);
    for p in ctx.points.iter().filter(|p| p.depth >= 0.0) {
        let s = (p.p_w - c).dot(e);
        below |= s <= sp;
        above |= s >= sp;
        if below && above {
            return true;
        }
    }
    false
}

/// The tangential displacement of the anchor's point at `c` made by the elastic
/// tilt since the anchor was last recentred (the tangential part of the relative
/// rotation since then, on the held axes, about the pivot).
#[inline]
fn tilt_slip(ctx: &PairContext, anchor: &StickAnchor, c: &Vec3, tilt: &Tilt) -> Vec3 {
    tilt_slip_of(ctx, &anchor_rotation(ctx, anchor), c, tilt)
}

/// [`tilt_slip`] of the relative rotation `rot` = [`anchor_rotation`].
#[inline]
fn tilt_slip_of(ctx: &PairContext, rot: &Vec3, c: &Vec3, tilt: &Tilt) -> Vec3 {
    let phi = tilt.axes * rot;
    tangential(&ctx.normal, phi.cross(&(c - tilt.pivot)))
}

/// The world-frame rotation from the anchored relative orientation to the
/// current one, as its scaled axis (what [`tilt_slip`] and [`anchor_twist`] read).
#[inline]
fn anchor_rotation(ctx: &PairContext, anchor: &StickAnchor) -> Vec3 {
    let dq = ctx.a.q * (ctx.b.q * anchor.q_ba).inverse();
    dq.scaled_axis()
}

/// Twist of a relative to b about the normal since the anchor was set, rad.
#[inline]
fn anchor_twist(ctx: &PairContext, anchor: &StickAnchor) -> f64 {
    anchor_rotation(ctx, anchor).dot(&ctx.normal)
}

/// Relative angular velocity about the normal, rad/s.
#[inline]
fn twist_rate(ctx: &PairContext) -> f64 {
    ctx.normal.dot(&(ctx.a.w - ctx.b.w))
}

/// The slip of contact point `pt` (a relative to b, in the contact plane): the
/// relative velocity at its lever ([`ContactPoint::lever`](crate::collision::ContactPoint::lever)),
/// plus, for a point off its lever (a round cap's ring), what the relative spin
/// about the normal moves it by, ω_n n × (p − lever): the patch's drilling. Rolling
/// (rotation about a tangent) moves the lever's material point, not the
/// regenerated ring, so only the drilling of the ring is its own.
#[inline]
fn point_slip(ctx: &PairContext, pt: &crate::collision::ContactPoint) -> Vec3 {
    let v = ctx.a.velocity_at(&pt.lever) - ctx.b.velocity_at(&pt.lever);
    let arm = pt.p_w - pt.lever;
    if arm == Vec3::zeros() {
        return tangential(&ctx.normal, v);
    }
    let spin = ctx.normal * twist_rate(ctx);
    tangential(&ctx.normal, v + spin.cross(&arm))
}

/// Fastest tangential point speed of the contact, m/s.
#[inline]
fn max_point_speed(ctx: &PairContext, forces: &[PointForce]) -> f64 {
    forces
        .iter()
        .map(|f| point_slip(ctx, &ctx.points[f.point as usize]).norm())
        .fold(0.0, f64::max)
}

/// Tangential forces on body a (body b takes the opposite), passed to `apply` as
/// (world point, world force), and the torsional torque about the normal on a,
/// returned (when sliding: a face or line contact's patch moment about its centre,
/// [`Patch::sliding`]; else the drilling moment of the round caps' ring points,
/// whose forces are applied at their lever, [`point_slip`]).
pub fn tangential_forces(
    fp: &FrictionParams,
    mu: f64,
    ctx: &PairContext,
    forces: &[PointForce],
    (anchor, mode): (Option<&StickAnchor>, StickMode),
    apply: impl FnMut(Vec3, Vec3),
) -> Vec3 {
    if mu <= 0.0 {
        return Vec3::zeros();
    }
    let cen = centroid(ctx, forces);
    tangential_forces_at(fp, mu, ctx, forces, cen, (anchor, mode), None, apply)
}

/// [`tangential_forces`] given `cen = centroid(ctx, forces)` (computed once per
/// pair by the caller) and, if [`update_state_at`] returned them at this state for
/// this anchor, the sticking terms.
#[allow(clippy::too_many_arguments)]
pub fn tangential_forces_at(
    fp: &FrictionParams,
    mu: f64,
    ctx: &PairContext,
    forces: &[PointForce],
    cen: Option<(Vec3, f64, f64)>,
    (anchor, mode): (Option<&StickAnchor>, StickMode),
    terms: Option<&StickTerms>,
    mut apply: impl FnMut(Vec3, Vec3),
) -> Vec3 {
    if mu <= 0.0 {
        return Vec3::zeros();
    }
    let Some((c, total, r)) = cen else {
        return Vec3::zeros();
    };
    match anchor {
        Some(anchor) => {
            // Sticking: spring–damper at the centroid, limited to the cone.
            let own;
            let t = match terms {
                Some(t) => t,
                None => {
                    own = StickTerms::new(fp, ctx, (&c, r), anchor, mode);
                    &own
                }
            };
            let v_t = tangential(&ctx.normal, ctx.a.velocity_at(&c) - ctx.b.velocity_at(&c));
            let mut f = if matches!(mode, StickMode::Linear { .. }) {
                linear_stick(ctx, &c, t, v_t) - t.load
            } else {
                -t.k * t.slip - t.b * v_t - t.load
            };
            // The cone, widened by the impulse the pair banked over its transient
            // ([`bank`]; 0 unless its stepper banks).
            let limit = mu * stick_normal(ctx, total) + anchor.credit / ctx.h;
            let fm = f.norm();
            if fm > limit {
                f *= limit / fm;
            }
            apply(c, f);
            // Torsional spring–damper about the normal, limited to μ‖f‖ r.
            let tau = -t.kt * t.twist - t.bt * twist_rate(ctx);
            ctx.normal * tau.clamp(-limit * r, limit * r)
        }
        None => {
            // Sliding: a face or line contact's Coulomb law integrated over its
            // patch ([`Patch`]: the force at the centre, the moment about n).
            if let Some(patch) = Patch::new(ctx, forces) {
                let (f, twist) = patch.sliding(ctx, mu, fp.v_stick);
                apply(patch.centre(), f);
                return twist;
            }
            // Else Coulomb at each point against its own slip, applied at its
            // lever; a ring point's moment about the normal (its drilling) as a
            // torque, so that its force has the moment it would have at the point
            // about n and none about the tangents (rolling).
            let mut twist = Vec3::zeros();
            for pf in forces {
                let pt = &ctx.points[pf.point as usize];
                let v_t = point_slip(ctx, pt);
                let speed = v_t.norm();
                if speed > 0.0 {
                    let scale = (speed / fp.v_stick).min(1.0);
                    let f = -(mu * pf.f_n * scale / speed) * v_t;
                    apply(pt.lever, f);
                    let arm = pt.p_w - pt.lever;
                    if arm != Vec3::zeros() {
                        twist += ctx.normal * ctx.normal.dot(&arm.cross(&f));
                    }
                }
            }
            twist
        }
    }
}

/// The sliding Coulomb force on a at point `pt` per newton of its normal force
/// (the per-point sliding branch of [`tangential_forces_at`] divided by f_n), for a
/// point at its own lever (a vertex's or edge's point, or a face point outside a
/// patch; `None` for a round cap's ring point, whose drilling moment goes as a
/// torque). A patch's points take [`Patch::sliding_per_newton`] instead.
pub fn sliding_per_newton(
    fp: &FrictionParams,
    mu: f64,
    ctx: &PairContext,
    pt: &crate::collision::ContactPoint,
) -> Option<Vec3> {
    if mu <= 0.0 || pt.p_w != pt.lever {
        return None;
    }
    let v_t = point_slip(ctx, pt);
    let speed = v_t.norm();
    (speed > 0.0).then(|| -(mu * (speed / fp.v_stick).min(1.0) / speed) * v_t)
}

/// Stick/slip transitions of one pair, once per step at the step's start state.
pub fn update_state(
    fp: &FrictionParams,
    mu: f64,
    ctx: &PairContext,
    forces: &[PointForce],
    pair: &mut PairState,
    mode: StickMode,
) {
    update_state_at(fp, mu, ctx, (forces, centroid(ctx, forces)), pair, mode);
}

/// The sticking spring–damper terms of a pair at one state (centroid `c`, lever
/// arm `r`, anchor): gains, tangential slip and twist of the anchor.
#[derive(Clone, Copy, Debug)]
pub struct StickTerms {
    /// Tangential load L_t on a (the supported weight in the contact plane), N.
    load: Vec3,
    k: f64,
    b: f64,
    kt: f64,
    bt: f64,
    slip: Vec3,
    twist: f64,
    /// The contact's elastic tilt ([`StickMode::Linear`] only): the slip and its
    /// rate are measured without it.
    tilt: Option<Tilt>,
}

impl StickTerms {
    /// Gains clamped for explicit stability only in [`StickMode::Clamped`]: the
    /// other modes solve the spring–damper with the end-of-step velocity (the
    /// pair's own, or the whole system's), stable at any gain.
    fn new(
        fp: &FrictionParams,
        ctx: &PairContext,
        (c, r): (&Vec3, f64),
        anchor: &StickAnchor,
        mode: StickMode,
    ) -> Self {
        let (k, b) = if mode == StickMode::Clamped {
            stick_gains(fp, ctx, c)
        } else {
            (fp.k_stick.value(ctx.m_pair), fp.b_stick.value(ctx.m_pair))
        };
        let (kt, bt) = twist_gains(fp, ctx, r);
        let tilt = (mode == StickMode::Linear { tilt: true }).then(|| tilt(ctx, c));
        // The relative rotation since the anchor was set, once for the tilt's
        // slip and the twist (the same value either would compute).
        let rot = anchor_rotation(ctx, anchor);
        let slip = held_slip(ctx, anchor, &rot, c, tilt.as_ref());
        StickTerms {
            load: tangential(&ctx.normal, ctx.weight),
            k,
            b,
            kt,
            bt,
            slip,
            twist: rot.dot(&ctx.normal),
            tilt,
        }
    }
}

/// [`update_state`] given `cen = centroid(ctx, forces)` (computed once per pair by
/// the caller). Returns the sticking terms it evaluated when it left a sticking
/// pair's anchor unchanged (the forces at the same state reuse them).
/// `mode`: how the pair's sticking spring–damper is integrated; the anchor's
/// limit is checked with the gains that mode uses.
pub fn update_state_at(
    fp: &FrictionParams,
    mu: f64,
    ctx: &PairContext,
    (forces, cen): (&[PointForce], Option<(Vec3, f64, f64)>),
    pair: &mut PairState,
    mode: StickMode,
) -> Option<StickTerms> {
    let implicit = mode == StickMode::Rows;
    // `[penalty.friction] solved_stick`: the transitions decided on the linear
    // anchors' coupled solve (module doc, "Transitions").
    let solved = fp.solved_stick && matches!(mode, StickMode::Linear { .. });
    let Some((c, total, r)) = cen.filter(|_| mu > 0.0) else {
        pair.anchor = None;
        return None;
    };
    // The fastest point's slip speed, read only where a pair may stick or slip
    // (not by a sticking pair inside its cone, most of them at rest).
    let speed = || max_point_speed(ctx, forces);
    let limit = mu * total;
    match &mut pair.anchor {
        None => {
            // Stick when slow, or when kinetic friction would remove the motion within
            // one step (it would overshoot otherwise).
            let v_c = tangential(&ctx.normal, ctx.a.velocity_at(&c) - ctx.b.velocity_at(&c)).norm();
            // The stop is decided on the impulse within the step: the kinetic
            // impulse μ‖f‖ h would reverse the contact's motion, measured with the
            // mass it decelerates ([`translational_mass`] where the normal springs
            // hold a face's tilt; the free-body m_t where the rows or the linear
            // anchor stop it in their solve, and at a round contact, which holds
            // no tilt ([`holds_tilt`]): its point moves with the body's rotation,
            // so a ball's contact reverses under μ‖f‖ h / m_t, 3.5× the
            // translational figure — measured with m there, the kinetic force of a
            // ball turning in a pocket of four supports reversed the slip every
            // step at ±7.4 mm/s, above the stick threshold, for ever:
            // docs/EXPERIMENTS.md "Friction that comes to rest").
            let m_stop = if implicit || mode == (StickMode::Linear { tilt: false }) {
                tangential_mass(ctx, &c)
            } else {
                translational_mass(ctx)
            };
            let dv_step = limit * ctx.h / m_stop;
            let dw_step = limit * r * ctx.h / normal_inertia(ctx);
            // Under `solved_stick` the stop is not decided here, on the pair
            // alone: every pair slower than `v_slip` enters the coupled solve
            // with a trial anchor at c, and that solve decides (000 §III-B's
            // static friction as the linear solve of the sticking contacts,
            // with Yamane–Nakamura's transition: the contact sticks while the
            // force that holds it is inside the cone). A wedged body's pairs
            // then stop together or slide together: each pair's kinetic
            // impulse alone, μ‖f‖ h / m_t, is defeated by the others' push
            // (the sphere in pile_100 turning at period 2, docs/EXPERIMENTS.md
            // "scale25").
            let slow = if solved {
                speed() < fp.v_slip
            } else {
                speed() < fp.v_stick
                    || (v_c < dv_step.max(fp.v_stick)
                        && twist_rate(ctx).abs() < dw_step.max(fp.v_stick / r.max(1e-9)))
            };
            if slow {
                pair.anchor = Some(StickAnchor {
                    p_a_body: ctx.a.q.inverse() * (c - ctx.a.x),
                    p_b_body: ctx.b.q.inverse() * (c - ctx.b.x),
                    q_ba: ctx.b.q.inverse() * ctx.a.q,
                    credit: 0.0,
                    vn: None,
                    roll: Vec3::zeros(),
                    warm: Vec3::zeros(),
                    warm_tau: 0.0,
                    warm_roll: Vec3::zeros(),
                    held_inside: false,
                    trial: solved,
                });
            }
            None
        }
        Some(anchor) => {
            // The explicit spring–damper may use the banked impulse ([`bank`]) in
            // its cone; the implicit rows check their cone (with the bank) in the
            // solve, and here only against the per-step cone.
            let spend = if implicit { 0.0 } else { anchor.credit / ctx.h };
            let limit = mu * stick_normal(ctx, total) + spend;
            let terms = StickTerms::new(fp, ctx, (&c, r), anchor, mode);
            let (k, kt) = (terms.k, terms.kt);
            let (delta, twist) = (terms.slip, terms.twist);
            let held = terms.load + delta * k;
            let (over_force, over_twist) = over_cone(held.norm(), kt * twist.abs(), (limit, r));
            if !(over_force || over_twist) {
                recentre(ctx, &c, delta, twist, anchor);
                return Some(terms);
            }
            if speed() > fp.v_slip {
                pair.anchor = None;
                return None;
            }
            // With `[penalty.friction] solved_drag`, the drag only where the
            // pair's last solve reached the cone (module doc, "Transitions"): a
            // spring stretched beyond the cone whose solve held the contact
            // inside it is the solve's to use.
            let over_force = over_force && !((fp.solved_drag || solved) && anchor.held_inside);
            if !(over_force || over_twist) {
                recentre(ctx, &c, delta, twist, anchor);
                return Some(terms);
            }
            let tilt_off = terms
                .tilt
                .as_ref()
                .map_or(Vec3::zeros(), |tl| tilt_slip(ctx, anchor, &c, tl));
            if over_force {
                // Drag a's anchor point toward b's, δ → s δ with the largest s ∈ [0, 1]
                // such that ‖L_t + s k δ‖ ≤ μ‖f‖ (s = 0 when the load alone exceeds it).
                let pb = ctx.b.x + ctx.b.q * anchor.p_b_body;
                let pa_w = ctx.a.x + ctx.a.q * anchor.p_a_body;
                let normal_part = ctx.normal * ctx.normal.dot(&(pa_w - pb));
                let s = if terms.load == Vec3::zeros() {
                    limit / (k * delta.norm())
                } else {
                    shrink(&terms.load, &(delta * k), limit)
                };
                let new_pa = pb + normal_part + delta * s;
                anchor.p_a_body = ctx.a.q.inverse() * (new_pa - ctx.a.x);
            }
            if over_twist {
                // Turn the anchored orientation about the normal so that kt |θ| = μ‖f‖ r.
                let keep = (limit * r / kt).min(twist.abs()) * twist.signum();
                let turn = Quat::from_scaled_axis(ctx.normal * (twist - keep));
                // q_a = (turn · q_b q_ba') → q_ba' = q_b⁻¹ turn q_b q_ba.
                anchor.q_ba = ctx.b.q.inverse() * turn * ctx.b.q * anchor.q_ba;
            }
            // The drag leaves a tilt-free stretch; else the tilt is taken off here.
            let mut delta = anchor_slip(ctx, anchor);
            if !over_force {
                delta -= tilt_off;
            }
            let twist = anchor_twist(ctx, anchor);
            recentre(ctx, &c, delta, twist, anchor);
            None
        }
    }
}

/// A sticking pair's anchor spring–damper as two implicit tangential rows at the
/// centroid c (penalty under semi-implicit Euler, `pipeline::penalty_implicit`):
/// along each tangent t_i of the contact plane
///
///   f_i = −(L_t + k δ)·t_i − (h k + b) s_i⁺,   s_i⁺ = t_i·(v_a⁺(c) − v_b⁺(c)),
///
/// i.e. f_t = −L_t − k (δ + h s⁺) − b s⁺ with the end-of-step slip velocity s⁺,
/// k and b unclamped (backward Euler is stable at any gain). The cone
/// ‖f_t‖ ≤ μ max(Σf⁺, W_n) is checked by the solve on its own end-of-step normal
/// forces. The torsional spring–damper stays explicit (`twist`, on a).
#[derive(Clone, Copy, Debug)]
pub struct ImplicitStick {
    pub c: Vec3,
    pub t: [Vec3; 2],
    /// −(L_t + k δ)·t_i, N.
    pub f0: [f64; 2],
    /// h k + b, N·s/m.
    pub damp: f64,
    /// W_n, the normal part of the carried weight (the cone's floor), N.
    pub w_n: f64,
    /// The explicit torsional torque on a.
    pub twist: Vec3,
    /// The anchor's banked cone impulse, N·s.
    pub credit: f64,
    /// The largest bank the pair keeps ([`bank_cap`]), N·s.
    pub cap: f64,
}

/// The implicit rows of a sticking pair (`pair.anchor` set by
/// [`update_state_at`] with `implicit`); `None` if it slides or carries no force.
pub fn implicit_stick(
    fp: &FrictionParams,
    mu: f64,
    ctx: &PairContext,
    cen: Option<(Vec3, f64, f64)>,
    anchor: Option<&StickAnchor>,
) -> Option<ImplicitStick> {
    let (anchor, (c, total, r)) = (anchor?, cen.filter(|_| mu > 0.0)?);
    let terms = StickTerms::new(fp, ctx, (&c, r), anchor, StickMode::Rows);
    let (t1, t2) = tangent_basis(&ctx.normal);
    let held = terms.load + terms.slip * terms.k;
    let limit = mu * stick_normal(ctx, total);
    let tau = -terms.kt * terms.twist - terms.bt * twist_rate(ctx);
    Some(ImplicitStick {
        c,
        t: [t1, t2],
        f0: [-held.dot(&t1), -held.dot(&t2)],
        damp: ctx.h * terms.k + terms.b,
        w_n: -ctx.normal.dot(&ctx.weight),
        twist: ctx.normal * tau.clamp(-limit * r, limit * r),
        credit: anchor.credit,
        cap: bank_cap(fp, ctx),
    })
}

/// The normal force a sticking contact's cone is taken on, N: the larger of the
/// penalty force ‖f‖ and the normal part of the weight the contact carries,
/// W_n = −n·W (the quasi-static load a rigid contact would carry). The penalty
/// force oscillates about W_n while a placed or struck body settles, and below it
/// the cone μ‖f‖ is smaller than the tangential load μ W_n a slope at μ = tan θ
/// puts on it: the slip gathered there is never given back, since kinetic
/// friction at that threshold only balances the slope. Sliding contacts keep
/// μ‖f‖ (a sliding box decelerates with the force it is pressed with).
#[inline]
fn stick_normal(ctx: &PairContext, total: f64) -> f64 {
    total.max(-ctx.normal.dot(&ctx.weight))
}

/// Coulomb's law on the impulses of a contact transient, one sticking pair per
/// step (or sub-step) of length `h`. A compliant normal force delivers the impulse
/// a rigid contact would deliver at once over a transient, so the per-step cone
/// μ max(Σf, W_n) can be short exactly when friction must take back the momentum
/// the body gathered meanwhile (a box placed on a slope pitches on its normal
/// springs and its centre of mass moves downhill about the held contact; when the
/// pitch returns, Σf is falling back to W_n and at μ = tan θ the cone is the
/// load). Over the transient the cone holds on the impulses instead: each step a
/// sticking pair banks the part of its cone that the normal force's excess over
/// the carried weight W_n gave it and its force ‖f_t‖ did not use,
///
///   C += min(μ max(Σf, W_n) − ‖f_t‖, μ (Σf − W_n)) h   while Σf > W_n,
///
/// its force may exceed the cone by C/h in a later step (what it uses above the
/// cone is taken off C), and C is cleared once Σf is back at or below W_n with
/// nothing spent. So ∫‖f_t‖ ≤ μ ∫max(Σf, W_n) over the transient; a body at rest
/// banks nothing, nor does a pair whose force sits on its cone (kinetic friction
/// is untouched).
///
/// The bank is capped at `cap` = M v_slip ([`bank_cap`]): a sticking anchor holds
/// only while its contact slips slower than v_slip (faster, it is released to
/// sliding), so it never has to take back more than the momentum M v_slip of the
/// mass M it moves; a normal excess that lasts (a body pressed by a force the
/// support graph does not carry, or a bank never cleared after a hard impact)
/// cannot build a static friction above Coulomb's by more than that impulse.
///
/// `(mu, total, w_n)`: the pair's μ, Σf and W_n; `ft`: the sticking force's
/// magnitude this step. Returns the new bank, N·s.
#[inline]
pub fn bank(credit: f64, (mu, total, w_n): (f64, f64, f64), ft: f64, h: f64, cap: f64) -> f64 {
    let excess = if total > w_n {
        mu * (total - w_n) * h
    } else {
        0.0
    };
    bank_step(credit, mu * total.max(w_n), ft, h, Some(excess), cap)
}

/// One step of the bank, shared by [`bank`] and [`bank_momentum`]: spend what the
/// force `ft` takes above the per-step cone `lim0`, else bank the unused cone
/// impulse up to `excess` (μ times the normal impulse beyond the carried load, N·s;
/// `None`: no measure yet, keep the bank), else clear; kept within [0, cap]. A NaN
/// from a degenerate state banks nothing (`max`/`min` drop it, `clamp` would keep it).
#[inline]
fn bank_step(credit: f64, lim0: f64, ft: f64, h: f64, excess: Option<f64>, cap: f64) -> f64 {
    let c = match excess {
        _ if ft > lim0 => credit - (ft - lim0) * h,
        Some(e) if e > 0.0 => credit + ((lim0 - ft) * h).min(e),
        Some(_) => 0.0,
        None => credit,
    };
    c.max(0.0).min(cap.max(0.0))
}

/// The normal velocity (a relative to b, along n) of the anchor's material points
/// at this state and the pair's normal effective mass there: what
/// [`bank_momentum`] measures the normal impulse by.
#[inline]
pub fn anchor_normal_motion(ctx: &PairContext, anchor: &StickAnchor) -> (f64, f64) {
    let pa = ctx.a.x + ctx.a.q * anchor.p_a_body;
    let pb = ctx.b.x + ctx.b.q * anchor.p_b_body;
    let vn = ctx
        .normal
        .dot(&(ctx.a.velocity_at(&pa) - ctx.b.velocity_at(&pb)));
    let c = (pa + pb) * 0.5;
    (
        vn,
        1.0 / ctx.inv_effective_mass(&c, &ctx.normal).max(1e-300),
    )
}

/// [`bank`] for an explicit sticking force (the penalty default path per step,
/// Hunt–Crossley per sub-step), with the normal excess measured as momentum: the
/// impulse the normal force gave beyond the quasi-static load over the last step is
/// m_n Δv_n, Δv_n the change of the anchor's normal velocity since the last banked
/// state (`(vn, m_n)` from [`anchor_normal_motion`]):
///
///   C += min((μ max(Σf, W_n) − ‖f_t‖) h, μ m_n Δv_n)   while Δv_n > 0,
///
/// spent and cleared as in [`bank`] (cleared once Δv_n ≤ 0 with nothing spent).
/// Why not Σf − W_n as the excess: W_n from the support graph is the quasi-static
/// load only where one pair carries a body; in a pile (equal shares over several
/// supports, leaning neighbours) Σf ≠ W_n at rest, and every pair with Σf > W_n
/// banked up to the cap while resting (measured: a row pile pushed after resting
/// ended 2 mm from the same run with sleeping on, tests/sleep.rs). Δv_n is 0 at
/// rest whatever the support graph says. A fresh anchor (vn `None`) banks nothing on
/// its first state.
#[inline]
pub fn bank_momentum(
    anchor: &mut StickAnchor,
    (mu, total, w_n): (f64, f64, f64),
    ft: f64,
    h: f64,
    cap: f64,
    (vn, m_n): (f64, f64),
) {
    let excess = anchor.vn.map(|v0| mu * (m_n * (vn - v0)));
    anchor.credit = bank_step(anchor.credit, mu * total.max(w_n), ft, h, excess, cap);
    anchor.vn = vn.is_finite().then_some(vn);
}

/// The largest bank a sticking pair keeps ([`bank`]): M v_slip, M the pair's gain
/// mass (m1 + m2, or the load it carries if larger), N·s.
#[inline]
pub fn bank_cap(fp: &FrictionParams, ctx: &PairContext) -> f64 {
    ctx.m_pair * fp.v_slip
}

/// The normal part W_n = −n·W of the weight a pair carries (the cone's floor), N.
#[inline]
pub fn carried_normal(ctx: &PairContext) -> f64 {
    -ctx.normal.dot(&ctx.weight)
}

/// Largest s ∈ [0, 1] with ‖l + s e‖ ≤ limit (0 if ‖l‖ > limit already): the root
/// of ‖e‖² s² + 2 (l·e) s + ‖l‖² − limit² = 0 that is ≥ 0.
#[inline]
fn shrink(l: &Vec3, e: &Vec3, limit: f64) -> f64 {
    let (ee, le, ll) = (e.norm_squared(), l.dot(e), l.norm_squared());
    let c = ll - limit * limit;
    if c >= 0.0 || ee <= 0.0 {
        return 0.0;
    }
    ((-le + (le * le - ee * c).sqrt()) / ee).clamp(0.0, 1.0)
}

/// The anchor moved to the current contact centroid `c` with the same tangential
/// stretch δ and twist θ: material points `c ± δ/2` and the relative orientation
/// that gives twist θ now. Done once per step, it makes the anchor follow the
/// contact point as the bodies roll: the stretch then grows only with the slip
/// velocity at the contact, not with the cycloid of a material point on a rolling
/// body (which would brake a rolling wheel at ~μ g), and the twist only with the
/// relative spin about the normal (rolling about a tangent leaves it alone). For a
/// body that does not roll it changes nothing to first order in h.
/// Moved in place (its bank, rolling angle and warm start kept): the ≈ 190-byte
/// anchor is neither copied out of the pair nor rebuilt.
#[inline]
fn recentre(ctx: &PairContext, c: &Vec3, delta: Vec3, twist: f64, anchor: &mut StickAnchor) {
    let (pa, pb) = (c + delta * 0.5, c - delta * 0.5);
    anchor.p_a_body = ctx.a.q.inverse() * (pa - ctx.a.x);
    anchor.p_b_body = ctx.b.q.inverse() * (pb - ctx.b.x);
    // dq = q_a (q_b q_ba)⁻¹ = R(n, θ)  ⇔  q_ba = q_b⁻¹ R(n, −θ) q_a.
    anchor.q_ba = ctx.b.q.inverse() * Quat::from_scaled_axis(ctx.normal * -twist) * ctx.a.q;
}

/// Angular speed (rad/s) below which rolling resistance is scaled down linearly.
const OMEGA_REG: f64 = 0.05;

/// Rolling resistance torque on body a (body b takes the opposite): magnitude
/// μ_r‖f‖ against the relative angular velocity in the contact plane, linear below
/// `OMEGA_REG` and clamped so that one explicit step cannot reverse the rolling.
pub fn rolling_torque(rolling: f64, ctx: &PairContext, forces: &[PointForce]) -> Option<Vec3> {
    if rolling <= 0.0 {
        return None;
    }
    let total: f64 = forces.iter().map(|f| f.f_n).sum();
    let w = ctx.a.w - ctx.b.w;
    let w_t = w - ctx.normal * ctx.normal.dot(&w);
    let speed = w_t.norm();
    if !(total > 0.0 && speed > 0.0) {
        return None;
    }
    let dir = w_t / speed;
    let inv_i = dir.dot(&(ctx.inv_inertia_w[0] * dir)) + dir.dot(&(ctx.inv_inertia_w[1] * dir));
    // Viscous coefficient of the regularized law, at most 0.5 I_eff / h.
    let c = (rolling * total / OMEGA_REG).min(0.5 / (inv_i.max(1e-300) * ctx.h));
    Some(-dir * (c * speed).min(rolling * total))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block between `bodies` at centroid `c` (bodies at `xa`, `xb`, inverse
    /// mass and isotropic inverse inertia `im`, `ii` per side, 0 for a static
    /// side), normal `n`, anchor gains (k, b) and torsional (k_t, b_t) solved
    /// implicitly; optionally a held tilt about `xa`. No cone (limit 1e12): the
    /// solve is then the island's linear system.
    #[allow(clippy::type_complexity)]
    fn block(
        (bodies, im, ii): ([usize; 2], [f64; 2], [f64; 2]),
        (n, c, xa, xb): (Vec3, Vec3, Vec3, Vec3),
        (slip, y0, tilt): (Vec3, [f64; 3], bool),
        h: f64,
    ) -> LinearBlock {
        let n = n.normalize();
        let (t1, t2) = tangent_basis(&n);
        let (k, b, kt, bt) = (2.0e4, 150.0, 40.0, 0.3);
        let kd = slip * -k;
        let mut blk = LinearBlock {
            bodies,
            tag: [0, 0],
            bank: BankInputs::NONE,
            inv_mass: im,
            inv_inertia_w: [Mat3::identity() * ii[0], Mat3::identity() * ii[1]],
            n,
            c,
            r: [c - xa, c - xb],
            t: [t1, t2],
            tilt: tilt.then(|| Tilt {
                axes: t1 * t1.transpose() + t2 * t2.transpose(),
                pivot: xa,
                fsum: 10.0,
            }),
            rhs: [0.0; 3],
            d: [0.0; 3],
            inv: Mat3::zeros(),
            kd: [kd.dot(&t1), kd.dot(&t2)],
            y: y0,
            gains: (k, b),
            twist: Some((kt, bt, 0.01)),
            w_pp: Mat3::zeros(),
            load: Vec3::zeros(),
            limit: 1e12,
            lever: 0.1,
            f: Vec3::zeros(),
            tau: 0.0,
            last: 0,
            x_last: [0.0; 3],
        };
        blk.w_pp = blk.response_matrix();
        blk.time(h);
        blk
    }

    /// A kept block's words (`data::RestBlock::words`) give back the block
    /// bit for bit (`LinearBlock::save`, `load`): every field but those
    /// `refresh` sets anew (δ, θ_n's rates, the force, the torque, the event
    /// count) and the caller's tags — with and without a held tilt and a
    /// solved torque, all within `REST_BLOCK_WORDS` (a layout that outgrew
    /// them would lose its last fields silently in a release build).
    #[test]
    fn saved_block_loads_bit_for_bit() {
        for (tilt, twist) in [(true, true), (false, false), (true, false)] {
            let mut blk = block(
                ([3, 7], [0.5, 0.25], [2.0, 3.0]),
                (
                    Vec3::new(0.1, -0.2, 1.0),
                    Vec3::new(0.3, 0.1, 0.02),
                    Vec3::new(0.35, 0.05, 0.1),
                    Vec3::new(0.2, 0.2, -0.4),
                ),
                (Vec3::new(1e-7, -2e-7, 0.0), [1e-3, -2e-3, 5e-4], tilt),
                1e-3,
            );
            if !twist {
                blk.twist = None;
            }
            blk.bank = BankInputs {
                cone: (0.4, 9.81, 2.5),
                cap: 1e-3,
                motion: (-1e-9, 3e-9),
            };
            blk.load = Vec3::new(0.7, -0.1, 1e-17);
            let mut words = [f64::NAN; REST_BLOCK_WORDS];
            blk.save(&mut words);
            let mut blocks = Vec::new();
            let loaded = *LinearBlock::load(&mut blocks, &words).expect("pushed");
            // What `refresh` and the caller set anew, as `load` leaves it: zero.
            let expect = LinearBlock {
                tag: [0, 0],
                kd: [0.0; 2],
                y: [0.0; 3],
                f: Vec3::zeros(),
                tau: 0.0,
                last: 0,
                ..blk
            };
            assert_eq!(
                format!("{expect:?}"),
                format!("{loaded:?}"),
                "tilt {tilt}, twist {twist}"
            );
            // `{:?}` prints each f64 to its shortest round trip: equal strings
            // are equal bits, but for the sign of a zero — compared apart.
            let bits = |b: &LinearBlock| {
                let mut w = [0.0; REST_BLOCK_WORDS];
                b.save(&mut w);
                w.map(f64::to_bits)
            };
            assert_eq!(bits(&blk), bits(&loaded));
        }
    }

    /// Five coupled sticking blocks on three moving bodies and a static one,
    /// with their free rates set, at step h = 2e-3 s.
    fn island(h: f64) -> (LinearSticks, [[Vec3; 2]; 4]) {
        let (s, m) = (0.0, 1.0);
        let z = Vec3::z();
        let x = [
            Vec3::new(0.0, 0.0, -0.5),
            Vec3::new(0.0, 0.0, 0.1),
            Vec3::new(0.2, 0.05, 0.1),
            Vec3::new(0.1, 0.02, 0.3),
        ];
        let blocks = [
            (
                [0, 1],
                [s, m],
                [s, 12.0],
                z,
                Vec3::new(0.01, 0.0, 0.0),
                true,
            ),
            (
                [0, 2],
                [s, 0.5],
                [s, 20.0],
                z,
                Vec3::new(0.2, 0.05, 0.0),
                false,
            ),
            (
                [1, 2],
                [m, 0.5],
                [12.0, 20.0],
                Vec3::new(1.0, 0.2, 0.1),
                Vec3::new(0.1, 0.03, 0.1),
                false,
            ),
            (
                [1, 3],
                [m, 2.0],
                [12.0, 30.0],
                Vec3::new(0.1, 0.1, 1.0),
                Vec3::new(0.05, 0.01, 0.2),
                false,
            ),
            (
                [2, 3],
                [0.5, 2.0],
                [20.0, 30.0],
                Vec3::new(0.3, -1.0, 0.5),
                Vec3::new(0.15, 0.03, 0.2),
                false,
            ),
        ];
        let mut ls = LinearSticks::with_capacity(blocks.len(), 4);
        ls.clear(4);
        for (i, (bs, im, ii, n, c, tilt)) in blocks.into_iter().enumerate() {
            let slip = Vec3::new(1e-4 * (i as f64 + 1.0), -2e-4, 5e-5 * i as f64);
            let y0 = [0.01 * i as f64, -0.02, 0.05];
            let (xa, xb) = (x[bs[0]], x[bs[1]]);
            ls.blocks
                .push(block((bs, im, ii), (n, c, xa, xb), (slip, y0, tilt), h));
        }
        let free = [
            [Vec3::zeros(), Vec3::zeros()],
            [Vec3::new(0.0, 0.01, -0.0196), Vec3::new(0.1, 0.0, 0.02)],
            [Vec3::new(0.003, 0.0, -0.0196), Vec3::new(0.0, -0.05, 0.0)],
            [
                Vec3::new(-0.002, 0.004, -0.0196),
                Vec3::new(0.02, 0.03, -0.01),
            ],
        ];
        for (b, f) in free.iter().enumerate().skip(1) {
            ls.set_free(b, *f);
        }
        (ls, free)
    }

    /// The cold solve's sweeps move the bodies by one response of x − x_old per
    /// relaxation (the block's own old response taken out of its rates through
    /// W_pp): on a coupled island of five sticking blocks over three moving bodies
    /// and the floor (one block with a held tilt), (1) the bodies' accumulated
    /// velocity changes equal the free ones plus h Σ_q M⁻¹ J_qᵀ x_q of the final
    /// forces to round-off (bound 1e-12 of the largest change), and (2) each
    /// block's x solves its own system with the others' final forces to the
    /// sweeps' stop tolerance (bound 1e-5 of the largest x, LINEAR_TOL 1e-6 per
    /// sweep); the solve needs more than one sweep and converges before the cap.
    #[test]
    fn coupled_sweeps_keep_the_velocity_changes_and_solve_the_island() {
        let h = 2e-3;
        let (mut ls, free) = island(h);
        ls.solve(h);
        assert!(
            ls.sweeps > 1 && ls.sweeps < LINEAR_SWEEPS,
            "sweeps {}",
            ls.sweeps
        );
        // (1) The velocity changes from the final forces.
        let mut dv = free;
        for blk in &ls.blocks {
            LinearSticks::shift(&mut dv, blk, blk.x(), h);
        }
        let big = dv
            .iter()
            .flatten()
            .chain(ls.dv.iter().flatten())
            .fold(0.0f64, |a, v| a.max(v.amax()));
        let err = dv
            .iter()
            .zip(&ls.dv)
            .flat_map(|(a, b)| [(a[0] - b[0]).amax(), (a[1] - b[1]).amax()])
            .fold(0.0f64, f64::max);
        println!("velocity changes: largest {big:.3e}, kept vs recomputed {err:.3e}");
        assert!(err <= 1e-12 * big, "{err:e} of {big:e}");
        // (2) Each block solves its system with the others' final forces.
        let (worst, scale) = block_residual(&ls, &dv, h);
        println!(
            "sweeps {}, largest x {scale:.3e} N, worst block residual {worst:.3e} N ({:.2e})",
            ls.sweeps,
            worst / scale
        );
        assert!(
            scale > 0.0 && worst <= 1e-5 * scale,
            "{worst:e} of {scale:e}"
        );
    }

    /// The bodies' velocity changes u = u_free + h Σ M⁻¹ Jᵀ x of the blocks'
    /// final forces.
    fn final_rates(ls: &LinearSticks, free: &[[Vec3; 2]; 4], h: f64) -> [[Vec3; 2]; 4] {
        let mut dv = *free;
        for blk in &ls.blocks {
            LinearSticks::shift(&mut dv, blk, blk.x(), h);
        }
        dv
    }

    /// The largest change of a block's relaxation (its own solve from the
    /// others' final forces, projected: block Gauss–Seidel's fixed point) from
    /// its x, and the largest x (weighted, N).
    fn block_residual(ls: &LinearSticks, dv: &[[Vec3; 2]; 4], h: f64) -> (f64, f64) {
        let scale = ls.blocks.iter().fold(0.0f64, |a, b| {
            a.max(LinearSticks::weighted(b, b.x(), [0.0; 3]).1)
        });
        let mut worst = 0.0f64;
        for &blk in &ls.blocks {
            let mut others = *dv;
            LinearSticks::shift(&mut others, &blk, blk.x(), -h);
            let [a, b] = blk.bodies;
            let mut again = blk;
            let xp = again.relax([&others[a][0], &others[a][1], &others[b][0], &others[b][1]]);
            worst = worst.max(LinearSticks::weighted(&blk, xp, blk.x()).0);
        }
        (worst, scale)
    }

    /// Over-relaxation (`[penalty.friction] over_relaxation`) changes the path,
    /// not the answer: x = P(x_old + ω (x̂ − x_old)) is at rest exactly where
    /// x = P(x̂) is (for ω > 0 the Euclidean projection's condition
    /// (x̂ − x)·(z − x) ≤ 0 for every z of the cone is the same), so on the
    /// island — all blocks sticking, and with cones of 0.4 of each block's
    /// sticking force (some on their edge) — ω = 0.7, 1.3, 1.5 and the adaptive
    /// rule stop before the cap at Gauss–Seidel's fixed point (ω = 1.7 does
    /// not within the cap here: above the optimum SOR contracts by ω − 1 a
    /// sweep, 0.7³⁰ ≈ 2e-5; it was 3.8e-5 of the largest x at 30): each block's
    /// relaxation from the others' final forces gives its x back within 1e-5
    /// of the largest x (the bound of the sweeps' test above: their stop is a
    /// change of 1e-6 of the largest x per sweep), and the bodies' velocity
    /// changes are those of the final forces to round-off (1e-12). On one block
    /// alone (one sweep solves it) ω is not applied: the same bits as ω = 1.
    #[test]
    fn over_relaxed_sweeps_stop_at_the_gauss_seidel_fixed_point() {
        let h = 2e-3;
        let (base, free) = island(h);
        let mut stick = base.clone();
        stick.direct = true;
        stick.solve(h);
        let mut clamped = base.clone();
        for (blk, s) in clamped.blocks.iter_mut().zip(&stick.blocks) {
            blk.limit = 0.4 * s.f.norm();
        }
        for (cones, start) in [("sticking", &base), ("clamped", &clamped)] {
            for omega in [
                OverRelaxation::Fixed(0.7),
                OverRelaxation::Fixed(1.0),
                OverRelaxation::Fixed(1.3),
                OverRelaxation::Fixed(1.5),
                OverRelaxation::Adaptive,
            ] {
                let mut ls = start.clone();
                ls.omega = omega;
                ls.solve(h);
                let dv = final_rates(&ls, &free, h);
                let (worst, scale) = block_residual(&ls, &dv, h);
                let kept = dv
                    .iter()
                    .zip(&ls.dv)
                    .flat_map(|(a, b)| [(a[0] - b[0]).amax(), (a[1] - b[1]).amax()])
                    .fold(0.0f64, f64::max);
                let big = dv.iter().flatten().fold(0.0f64, |a, v| a.max(v.amax()));
                let edge = ls.blocks.iter().filter(|b| !b.inside_cone()).count();
                println!(
                    "{cones} {omega:?}: sweeps {} (omega used {:.3}), residual {:.2e} of {scale:.3e} N, \
                     {edge} on the cone's edge",
                    ls.sweeps,
                    ls.omega_used,
                    worst / scale
                );
                assert!(
                    ls.sweeps < LINEAR_SWEEPS,
                    "{cones} {omega:?}: {}",
                    ls.sweeps
                );
                assert!(
                    worst <= 1e-5 * scale,
                    "{cones} {omega:?}: {worst:e} of {scale:e}"
                );
                assert!(
                    kept <= 1e-12 * big,
                    "{cones} {omega:?}: {kept:e} of {big:e}"
                );
                if cones == "clamped" {
                    assert!(edge > 0, "{omega:?}: no block on its cone's edge");
                }
            }
        }
        // One block: one sweep, ω not applied.
        let mut one = base.clone();
        one.blocks.truncate(1);
        let mut over = one.clone();
        over.omega = OverRelaxation::Fixed(1.3);
        one.solve(h);
        over.solve(h);
        assert_eq!((one.sweeps, over.sweeps), (1, 1));
        assert_eq!(one.blocks[0].x(), over.blocks[0].x());
    }

    /// `[penalty.friction] direct` on the island where every anchor sticks
    /// (cones 1e12 N): one factorization and one solve, no fallback; its forces
    /// are the converged sweeps' within the sweeps' own stop (1e-5 of the
    /// largest x, as the test above bounds the sweeps' residual), and it solves
    /// every block's system to round-off (1e-12 of the largest x: a direct solve
    /// of a 4 × 6 system whose condition is ≈ 1e3).
    #[test]
    fn direct_solve_is_the_converged_sweeps_where_every_anchor_sticks() {
        let h = 2e-3;
        let (mut gs, free) = island(h);
        let mut ds = gs.clone();
        gs.solve(h);
        ds.direct = true;
        ds.solve(h);
        assert!(!ds.exact.fell_back);
        assert_eq!((ds.exact.factors, ds.exact.solves), (1, 1));
        let dv = final_rates(&ds, &free, h);
        let (worst, scale) = block_residual(&ds, &dv, h);
        let apart = gs.blocks.iter().zip(&ds.blocks).fold(0.0f64, |a, (g, d)| {
            a.max(LinearSticks::weighted(g, g.x(), d.x()).0)
        });
        println!("direct: residual {worst:.3e} of {scale:.3e} N; from the sweeps {apart:.3e} N");
        assert!(worst <= 1e-12 * scale, "{worst:e} of {scale:e}");
        assert!(apart <= 1e-5 * scale, "{apart:e} of {scale:e}");
    }

    /// The island with cones that hold only part of the forces the sticking
    /// solution asks (each cone 0.4 of that block's force; torques' levers 0.1
    /// m): the direct solve converges without falling back, to the projected
    /// block Gauss–Seidel's fixed point — each block's relaxation from the
    /// others' final forces gives its x back within 1e-5 of the largest x (the
    /// sweeps' bound above; its stop is LINEAR_TOL 1e-6 of a solve's change) —
    /// with some block clamped on its cone's edge.
    #[test]
    fn direct_solve_takes_the_cones_as_an_active_set() {
        let h = 2e-3;
        let (mut ds, free) = island(h);
        let mut stick = ds.clone();
        stick.direct = true;
        stick.solve(h);
        for (blk, s) in ds.blocks.iter_mut().zip(&stick.blocks) {
            blk.limit = 0.4 * s.f.norm();
        }
        ds.direct = true;
        ds.solve(h);
        let dv = final_rates(&ds, &free, h);
        let scale = ds.blocks.iter().fold(0.0f64, |a, b| {
            a.max(LinearSticks::weighted(b, b.x(), [0.0; 3]).1)
        });
        let (worst, _) = block_residual(&ds, &dv, h);
        let on_edge = ds
            .blocks
            .iter()
            .filter(|b| (b.f.norm() - b.limit).abs() <= 1e-9 * b.limit)
            .count();
        println!(
            "direct with cones: factors {}, solves {}, residual {worst:.3e} of {scale:.3e} N, {on_edge} of {} on the edge",
            ds.exact.factors,
            ds.exact.solves,
            ds.blocks.len()
        );
        assert!(!ds.exact.fell_back);
        assert!(on_edge > 0);
        assert!(worst <= 1e-5 * scale, "{worst:e} of {scale:e}");
    }
}
