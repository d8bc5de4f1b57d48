//! Contact models of the penalty family, one file each behind [`ContactModel`].
//!
//! A contact model turns one [`Manifold`](crate::collision::Manifold) (normal +
//! intersection-volume points) into normal forces at chosen points. Friction
//! ([`friction`]) and impacts ([`impulse`]) are shared by every model of the family.
//!
//! | file | model | paper |
//! |---|---|---|
//! | `multipoint.rs` | PID force on the bottom of the intersection volume | 000 §III-A, eqs. (1)–(3) |
//! | `modal.rs` | the same force shared by the pair's contact-space inverse mass, (m_r A)⁺ | 000 eq. (3) with its 1/r replaced |
//! | `deepest_point.rs` | the same PID law at the deepest point (baseline) | 000 §III-B |
//! | `bottom.rs` | O(N lg N) selection of the bottom points | 000 §III-A, Fig. 5 |
//! | `friction.rs` | Coulomb sliding + static spring–damper | 000 §III-B |
//! | `patch.rs` | a face or line contact's patch: Coulomb integrated over its area (sliding, the torsional lever) | Contensou's coupling |
//! | `impulse.rs` | impulses for new impacts, contact-phase machine | 000 §III, Fig. 2 |
//! | `support.rs` | the weight each contact carries (support graph) | 002 §5 |
//!
//! The time-stepping schemes that are not force models (LCP, PEG, Rigid IPC) are
//! whole steppers in `crate::pipeline`, not contact models.

pub mod bottom;
pub mod deepest_point;
pub mod friction;
pub mod hunt_crossley;
pub mod impulse;
pub mod modal;
pub mod multipoint;
pub mod patch;
pub mod support;

pub use bottom::SelectScratch;
pub use support::SupportLoads;

use crate::collision::ContactPoint;
use crate::data::BodyState;
use crate::math::Vec3;
use crate::model::{Distribution, Gain, PenaltyParams, PenaltyPoints};

/// What a contact model sees of one penetrating pair at one evaluation.
#[derive(Clone, Copy, Debug)]
pub struct PairContext<'a> {
    /// Unit normal toward body a (000's body *p*), away from body b (*q*).
    pub normal: Vec3,
    pub points: &'a [ContactPoint],
    /// Index into `points` of the deepest point.
    pub deepest: usize,
    pub a: &'a BodyState,
    pub b: &'a BodyState,
    /// m1 + m2 with a static body counted as 0 kg (the paper's gain scale), kg.
    pub m_pair: f64,
    /// Reduced mass 1/(1/m1 + 1/m2) with a static body of infinite mass, kg.
    pub m_reduced: f64,
    /// Step size, s.
    pub h: f64,
    /// Integral term I of eq. (2) for this pair, m.
    pub integral: f64,
    /// The weight the pair carries as a force on a relative to b (+M g when a rests
    /// on b, [`support`]), N: the tangential load sticking friction holds.
    pub weight: Vec3,
    /// Inverse masses and world-frame inverse inertias (zero for a static body), for
    /// effective masses at contact points.
    pub inv_mass: [f64; 2],
    pub inv_inertia_w: [crate::math::Mat3; 2],
    /// Both geoms are bounded by flat faces (plane, box, polytope): the points are
    /// a plane section of the bodies, so a rigid motion moves their depths as an
    /// affine function over the patch ([`modal`] shares the force by mode there
    /// only).
    pub flat: bool,
}

impl PairContext<'_> {
    /// Inverse effective mass of the pair along unit direction `d` at world point
    /// `p`: dᵀ K d with K = (1/m_a + 1/m_b) E − [r_a]× I_a⁻¹ [r_a]× − [r_b]× I_b⁻¹ [r_b]×.
    #[inline]
    pub fn inv_effective_mass(&self, p: &Vec3, d: &Vec3) -> f64 {
        let ra = (p - self.a.x).cross(d);
        let rb = (p - self.b.x).cross(d);
        self.inv_mass[0]
            + self.inv_mass[1]
            + ra.dot(&(self.inv_inertia_w[0] * ra))
            + rb.dot(&(self.inv_inertia_w[1] * rb))
    }

    /// Relative normal velocity at world point `p` (eq. (1)'s v(ψ); > 0 separating).
    #[inline]
    pub fn normal_velocity(&self, p: &Vec3) -> f64 {
        self.normal
            .dot(&(self.a.velocity_at(p) - self.b.velocity_at(p)))
    }
}

/// The PID gains of a pair, resolved from the scene's [`Gain`]s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PidGains {
    pub kp: f64,
    pub kv: f64,
    pub ki: f64,
}

impl PidGains {
    /// kp, kv, ki for a pair of mass `m_pair`; kv clamped to `damping_limit·m_r/h`
    /// and kp to `stiffness_limit·m_r/h²` (explicit-integration stability); ki
    /// scaled down with kp, so that the integral term never outweighs the spring it
    /// corrects (an integral gain left at its value while kp is clamped pumps
    /// energy into a contact whose damping is clamped too).
    pub fn resolve(p: &PenaltyParams, m_pair: f64, m_reduced: f64, h: f64) -> PidGains {
        let kv_max = p.damping_limit * m_reduced / h;
        let kp_max = p.stiffness_limit * m_reduced / (h * h);
        let kp = p.kp.value(m_pair);
        let scale = if kp > kp_max { kp_max / kp } else { 1.0 };
        PidGains {
            kp: kp * scale,
            kv: Gain::value(&p.kv, m_pair).min(kv_max),
            ki: p.ki.value(m_pair) * scale,
        }
    }

    /// kp, kv, ki for a pair of mass `m_pair` as the scene gives them (no clamp): for
    /// a force integrated implicitly (`pipeline::penalty_implicit`).
    pub fn unclamped(p: &PenaltyParams, m_pair: f64) -> PidGains {
        PidGains {
            kp: p.kp.value(m_pair),
            kv: p.kv.value(m_pair),
            ki: p.ki.value(m_pair),
        }
    }

    /// The un-normalized PID force of eq. (3): max{kp d − kv v + ki I, 0}, N, and
    /// exactly 0 at a point outside the other body (d < 0: a speculative gap point),
    /// whatever its approach speed or the integral. A point at d = 0 of a
    /// penetrating manifold (an edge crossing the contact plane, on the rim of the
    /// intersection volume) keeps eq. (3) with its integral term; a manifold with no
    /// point below d = 0 gets no force at all (`pipeline::penalty`).
    #[inline]
    pub fn force(&self, depth: f64, v_n: f64, integral: f64) -> f64 {
        if depth < 0.0 {
            return 0.0;
        }
        (self.kp * depth - self.kv * v_n + self.ki * integral).max(0.0)
    }
}

/// A normal force at a point of the manifold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointForce {
    /// Index into the manifold's points.
    pub point: u32,
    /// Normal force magnitude on body a (along +normal), N.
    pub f_n: f64,
}

/// A penalty-family contact model: which points carry force and how much.
///
/// Two stages: [`ContactModel::candidates`] picks the points that may carry force
/// from the manifold's geometry alone (positions, depths, normal), and
/// [`ContactModel::forces_at`] puts eq. (3)'s force on them from the velocities,
/// gains and integral. A caller that evaluates one manifold many times while its
/// geometry is unchanged (the impact sweeps: only velocities change between
/// visits) picks once and reuses the candidates.
pub trait ContactModel {
    fn name(&self) -> &'static str;
    /// Indices (into `ctx.points`) of the points that may carry force, written to
    /// `out`. Reads only the points' positions and depths and the normal.
    fn candidates(&self, ctx: &PairContext, scratch: &mut SelectScratch, out: &mut Vec<u32>);
    /// Normal forces at `candidates` (from [`ContactModel::candidates`] of the
    /// same geometry), appended to `out` (only non-zero forces).
    fn forces_at(
        &self,
        ctx: &PairContext,
        gains: &PidGains,
        candidates: &[u32],
        out: &mut Vec<PointForce>,
    );
    /// Normal forces of one pair, appended to `out` (only non-zero forces):
    /// the candidates, then the forces at them.
    fn normal_forces(
        &self,
        ctx: &PairContext,
        gains: &PidGains,
        scratch: &mut SelectScratch,
        out: &mut Vec<PointForce>,
    ) {
        let mut selected = std::mem::take(&mut scratch.selected);
        self.candidates(ctx, scratch, &mut selected);
        self.forces_at(ctx, gains, &selected, out);
        scratch.selected = selected;
    }
}

/// Eq. (3)'s force at each candidate point (un-normalized: r = 1), appended to
/// `out` where it is non-zero.
fn pid_at(ctx: &PairContext, gains: &PidGains, candidates: &[u32], out: &mut Vec<PointForce>) {
    for &i in candidates {
        let p = &ctx.points[i as usize];
        let f = gains.force(p.depth, ctx.normal_velocity(&p.lever), ctx.integral);
        if f > 0.0 {
            out.push(PointForce { point: i, f_n: f });
        }
    }
}

/// The contact model a penalty scene selects.
pub fn model_for(points: PenaltyPoints, distribution: Distribution) -> &'static dyn ContactModel {
    match (points, distribution) {
        (PenaltyPoints::Multi, Distribution::Count) => &multipoint::MultiPoint,
        (PenaltyPoints::Multi, Distribution::Modal) => &modal::MultiPointModal,
        (PenaltyPoints::Deepest, _) => &deepest_point::DeepestPoint,
    }
}
