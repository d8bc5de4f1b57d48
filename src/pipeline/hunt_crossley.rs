//! The Hunt–Crossley stepper of 002 (Deguet, Joukhadar, Laugier): the visco-elastic
//! contact of §2.2 ([`crate::contact::hunt_crossley`]) inside an explicit integrator
//! whose step is chosen by the energy monitor of §4.2.
//!
//! One tick of `dt` is integrated as adaptive sub-steps τ ≤ dt:
//!
//! ```text
//! tick
//! ├─ kinematics, broad phase (AABBs grown by one tick of motion; pair memory merged)
//! ├─ evaluate at the tick's start state: narrow phase, Hunt–Crossley forces (λx at
//! │  the volume's centroid, the damping λ c x δ̇ spread over the manifold points by
//! │  depth), friction (stick/slip transitions once per tick), E, P_diss
//! └─ while t < dt:                                    (002 §4.2, the algorithm box)
//!    ├─ τ' = min(τ, dt − t); integrate one sub-step of τ' (semi-implicit Euler or RK4)
//!    ├─ evaluate at the end state: E′ = kinetic + gravitational + elastic (contacts)
//!    ├─ err = (E′ − E) − W_ext − W_diss
//!    ├─ |err| > ε·E_s  →  τ' ← τ'/2, retry (never below `min_substep`)
//!    └─ accepted: t += τ'; τ ← 3/2 τ (≤ dt) if no halving was needed, else τ ← τ'
//! ```
//!
//! **What the monitor measures.** E is a function of the state: kinetic energy,
//! gravitational potential and the elastic energy stored in the contacts,
//! U = λ ∫ depth dV for a volume pair (exactly the potential of the force λV at the
//! volume's centroid for a plane contact) and λδ²/2 for a depth pair. Over an exact
//! step E changes only by the work of what is not in it: the external wrenches
//! (`Data::xfrc`, held constant through the tick: W_ext = F·Δx + T·ω̄ τ) and the
//! dissipative forces — the Hunt–Crossley damping term λx·c·δ̇ and friction (its
//! sliding part and its static spring–damper, whose stored energy is not in E). Their
//! work W_diss is integrated alongside the state: the trapezoid rule over the
//! sub-step's end points for semi-implicit Euler (the end point's evaluation is the
//! next sub-step's start, so it costs nothing extra), the RK4 weights over the RK4
//! stages. So `err` is the non-physical energy change, two-sided: numerical energy
//! gain *and* loss halve the step, while legitimate dissipation and input do not.
//!
//! **Tolerance.** ε is relative (`energy_tolerance`) and, as in 002's algorithm, per
//! sub-step: a sub-step may change the energy non-physically by ε·E_s, with E_s =
//! kinetic + elastic energy at the tick's start + Σ m g L over the moving bodies
//! (L = V^(1/3)). A run of N sub-steps therefore drifts by at most N·ε·E_s (the sum
//! of the accepted errors, `StepStats::energy_error` per tick); with the first-order
//! semi-implicit Euler the local energy error is ~ (ωτ)² E for a contact of natural
//! frequency ω, so the accepted sub-step is τ ~ √ε/ω, and the symplectic integrator's
//! errors largely cancel over a contact instead of adding up.
//! At the floor `min_substep` a sub-step is accepted whatever its error and counted
//! (`StepStats::substep_floor_hits`); a non-finite error is accepted at once and left
//! to the quarantine.
//!
//! **Damping bound.** The energy balance sees an explicit damper that overshoots only
//! through the work it fails to dissipate, which a loose ε (relative to a heavy
//! body's m g L) can accept: a resting box then keeps a period-2 rocking at the
//! tick rate. So adaptive sub-steps are also capped at 1.5/Σ_i b_i K_i over the
//! pairs (b_i = λ c w_i the damping of a point, K_i the inverse effective mass along
//! the normal there), inside explicit Euler's stability bound b K τ < 2. Large c —
//! small e, or contacts that begin at rest, whose c is set at `min_impact_speed` —
//! therefore costs sub-steps.
//!
//! **Memory.** The step a tick ends with is stored in the pairs touching at its end
//! (`PairState::hc_substep`); the next tick starts from the smallest of them (dt if
//! none), so the controller's state rides in snapshots. The damping c of a pair is
//! fixed when it first touches, from its restitution and approach speed.
//!
//! No heap allocation once warmed up; no panic on any state.

use super::bodies::{derivatives, free_inertia, report_contacts};
use super::collide::{self, CollideWorkspace};
use super::integrator::{self, Deriv};
use super::{Stepper, Tick};
use crate::collision::volume::VolumeScratch;
use crate::collision::{ContactSet, NarrowScratch};
use crate::contact::friction::StickMode;
use crate::contact::hunt_crossley::{self as hc, Measure};
use crate::contact::{friction, PairContext, PointForce, SupportLoads};
use crate::data::{kinetic_energy, potential_energy, BodyState, Data, PairState, Stage};
use crate::math::{Mat3, Pose, Wrench};
use crate::model::{BodyKind, HuntCrossleyParams, Integrator, Material, Model};
use std::time::Instant;

/// Standard gravity, m/s²: the weight of the §5 stiffness rule in a weightless scene.
const G_STANDARD: f64 = 9.80665;

pub struct HuntCrossleyStepper<'a> {
    pub params: &'a HuntCrossleyParams,
}

/// Forces, derivatives, energy and dissipated power at one state.
#[derive(Clone, Debug, Default)]
struct Eval {
    contacts: ContactSet,
    contact_pair: Vec<usize>,
    /// Per manifold: the damping c (s/m) and impact speed used, whether they were
    /// chosen at this evaluation (a pair touching for the first time), and the
    /// stiffness λ used (0: no force).
    fresh: Vec<(f64, f64, bool, f64)>,
    wrench: Vec<Wrench>,
    deriv: Vec<Deriv>,
    /// Kinetic + gravitational + elastic, J.
    energy: f64,
    /// Elastic energy in the contacts, J.
    elastic: f64,
    /// The smallest pair energy scale over the penetrating pairs (kinetic energy
    /// of the pair's moving bodies + its elastic energy + m g L of its lighter
    /// moving body), J; ∞ without one or with `pair_energy_scale` off.
    pair_scale: f64,
    /// Power of the damping and friction forces on the bodies, W (≤ 0 when they
    /// dissipate).
    p_diss: f64,
    /// Largest sub-step for which explicit integration of the Hunt–Crossley damping
    /// is stable with margin: 1.5/max over pairs of Σ_i b_i K_i (b_i = λ c w_i the
    /// damping of point i, K_i the pair's inverse effective mass along the normal
    /// there; Σ bounds the largest eigenvalue, explicit Euler needs b K τ < 2), s.
    tau_damp: f64,
    /// The sticking pairs' friction at this state, for the bank of the sub-step
    /// that applies it ([`bank_substep`]).
    bank: Vec<Banked>,
    /// The sticking anchors linearly implicit (`StickMode::Linear`), solved where
    /// they share bodies (`friction::LinearSticks`).
    linear: friction::LinearSticks,
    /// The linear anchors' tangential loads where several contacts hold a body up
    /// (`contact::support::NormalSplit`).
    split: crate::contact::support::NormalSplit,
}

/// One sticking pair's friction at an evaluated state: what `friction::bank`
/// needs once the sub-step that applies it is accepted.
#[derive(Clone, Copy, Debug)]
struct Banked {
    pair: usize,
    /// (μ, Σf, W_n).
    cone: (f64, f64, f64),
    /// ‖f_t‖ of the sticking spring–damper, N.
    ft: f64,
    /// `friction::bank_cap`, N·s.
    cap: f64,
}

impl Eval {
    fn with_capacity(model: &Model) -> Self {
        use crate::collision::capacity::{MANIFOLDS_PER_GEOM, POINTS_PER_GEOM};
        let ng = model.geoms.len().max(1);
        let nm = MANIFOLDS_PER_GEOM * ng;
        Eval {
            contacts: ContactSet::with_capacity(nm, POINTS_PER_GEOM * ng),
            contact_pair: Vec::with_capacity(nm),
            fresh: Vec::with_capacity(nm),
            bank: Vec::with_capacity(nm),
            wrench: Vec::with_capacity(model.nbody()),
            deriv: Vec::with_capacity(model.nbody()),
            linear: friction::LinearSticks::with_capacity(nm, model.nbody()),
            split: crate::contact::support::NormalSplit::with_capacity(nm),
            ..Default::default()
        }
    }
}

/// Working memory of [`HuntCrossleyStepper`] (not part of the state).
#[derive(Clone, Debug, Default)]
pub struct HuntCrossleyWorkspace {
    start: Eval,
    end: Eval,
    stage: Eval,
    trial: Vec<BodyState>,
    stage_state: Vec<BodyState>,
    k: [Vec<Deriv>; 4],
    vol: VolumeScratch,
    point_forces: Vec<PointForce>,
    /// Volume of every body, m³ (from its shapes; 0 for static bodies).
    body_volume: Vec<f64>,
    /// Mass each body carries at the tick's start (its own and what rests on it)
    /// and the weight each pair carries (`contact::support`).
    support: SupportLoads,
    /// Per body: how many penetrating pairs touch it at an evaluation (the damper
    /// bound, [`evaluate`]).
    touches: Vec<u32>,
}

impl HuntCrossleyWorkspace {
    pub fn new(model: &Model) -> Self {
        let nb = model.nbody();
        HuntCrossleyWorkspace {
            // The three evaluations' contact buffers sized like `Data`'s
            // (`collision::capacity`), so that a contact configuration first met
            // after warm-up in an intermediate RK4 stage does not allocate.
            start: Eval::with_capacity(model),
            end: Eval::with_capacity(model),
            stage: Eval::with_capacity(model),
            k: std::array::from_fn(|_| vec![Deriv::default(); nb]),
            // Volume of every body (0 for static bodies and links).
            body_volume: model
                .bodies
                .iter()
                .map(|b| match b.kind {
                    BodyKind::Static | BodyKind::Link { .. } => 0.0,
                    BodyKind::Free => model.geoms[b.geoms.clone()]
                        .iter()
                        .map(|g| g.shape.volume())
                        .sum(),
                })
                .collect(),
            support: SupportLoads::new(nb),
            touches: vec![0; nb],
            // One pair's manifold holds at most the raw points budgeted for its
            // two geoms (`collision::capacity::POINTS_PER_GEOM` each), so the first
            // large intersection met after warm-up does not grow the hull buffers
            // (`hunt_crossley_alloc`); nor the per-point forces (a manifold cut at
            // a seam holds the section's vertices too: `seams_alloc`).
            vol: VolumeScratch::with_capacity(2 * crate::collision::capacity::POINTS_PER_GEOM),
            point_forces: Vec::with_capacity(2 * crate::collision::capacity::POINTS_PER_GEOM),
            ..Default::default()
        }
    }
}

/// Read-only context of one evaluation.
struct Ctx<'a> {
    model: &'a Model,
    /// The tick, s.
    h: f64,
    p: &'a HuntCrossleyParams,
    body_volume: &'a [f64],
    /// Mass each body and pair carries this tick (`contact::support`).
    support: &'a SupportLoads,
    frozen: &'a [bool],
    xfrc: &'a [Wrench],
    candidates: &'a [(u32, u32)],
    g_ref: f64,
    /// The energy a pair's change of stiffness may add or remove at the tick's
    /// start, J ([`budgeted_stiffness`]): ε · (kinetic energy + Σ m g L over the
    /// moving bodies), the monitor's own per-sub-step tolerance without the
    /// elastic term (which depends on the λ being chosen).
    stiffness_budget: f64,
    /// The smallest sub-step, s (`min_substep`, at most the tick).
    tau_min: f64,
}

/// Mutable buffers of one evaluation.
struct Bufs<'a> {
    geom_pose: &'a mut Vec<Pose>,
    narrow: &'a mut NarrowScratch,
    vol: &'a mut VolumeScratch,
    pf: &'a mut Vec<PointForce>,
    touches: &'a mut Vec<u32>,
    narrow_ns: u64,
    contact_ns: u64,
}

impl Stepper for HuntCrossleyStepper<'_> {
    type Workspace = HuntCrossleyWorkspace;

    fn name(&self) -> &'static str {
        "hunt_crossley"
    }

    fn contacts_at_start(&self) -> bool {
        // The narrow phase runs inside every energy evaluation, the first at the
        // tick's start state.
        false
    }

    fn advance(
        &self,
        tick: &Tick<'_>,
        data: &mut Data,
        col: &mut CollideWorkspace,
        w: &mut HuntCrossleyWorkspace,
    ) {
        let p = self.params;
        let (model, dt) = (tick.model, tick.h);
        let Data {
            state,
            xfrc,
            frozen,
            pairs,
            contacts,
            contact_pair,
            contact_wrench,
            stats,
            ..
        } = data;
        let nb = model.nbody();
        for v in [&mut w.trial, &mut w.stage_state] {
            v.clear();
            v.extend_from_slice(state);
        }
        let HuntCrossleyWorkspace {
            start,
            end,
            stage,
            trial,
            stage_state,
            k,
            vol,
            point_forces,
            body_volume,
            support,
            touches,
        } = w;
        let CollideWorkspace {
            geom_pose,
            narrow,
            candidates,
            ..
        } = col;
        let frozen: &[bool] = frozen;
        let dynamic = |b: usize| model.bodies[b].kind == BodyKind::Free && !frozen[b];

        let g = model.opt.gravity.norm();
        let g_ref = if g > 0.0 { g } else { G_STANDARD };
        support.compute(model, state, dynamic, pairs);
        // Σ m g L over the moving bodies: the floor of the monitor's energy scale
        // E_s and of the stiffness budget.
        let mgl = (0..nb)
            .filter(|&b| dynamic(b))
            .map(|b| model.bodies[b].mass * g_ref * body_volume_len(body_volume[b]))
            .sum::<f64>();
        let stiffness_budget = p.energy_tolerance * (kinetic_energy(model, state, frozen) + mgl);
        let tau_min = p.min_substep.min(dt);
        let cx = Ctx {
            model,
            h: dt,
            p,
            body_volume,
            support,
            frozen,
            xfrc,
            candidates,
            g_ref,
            stiffness_budget,
            tau_min,
        };
        let mut bufs = Bufs {
            geom_pose,
            narrow,
            vol,
            pf: point_forces,
            touches,
            narrow_ns: 0,
            contact_ns: 0,
        };

        // The controller's sub-step from the pairs' memory: the start state's
        // sticking forces are held over the first sub-step, at most 3/2 of it
        // (`friction::linear_block`).
        let first = |pairs: &[PairState]| {
            pairs
                .iter()
                .filter(|q| q.touching && q.hc_substep > 0.0)
                .map(|q| q.hc_substep)
                .fold(dt, f64::min)
                .max(tau_min)
        };
        // The tick's start state: contacts, friction transitions, energy.
        let h0 = hold(first(pairs), dt);
        evaluate(&cx, &mut bufs, state, pairs, (true, h0), start);
        let touch = touching_at_start(
            model,
            state,
            &dynamic,
            &start.contacts,
            &start.contact_pair,
            pairs,
        );
        commit(pairs, start);
        // (Field by field: the derived `clone_from` of `ContactSet` would reallocate.)
        contacts.manifolds.clear();
        contacts
            .manifolds
            .extend_from_slice(&start.contacts.manifolds);
        contacts.points.clear();
        contacts.points.extend_from_slice(&start.contacts.points);
        contact_pair.clear();
        contact_pair.extend_from_slice(&start.contact_pair);
        contact_wrench.copy_from_slice(&start.wrench);
        report_contacts(contacts, stats);
        stats.impulses = 0;

        let t_int = Instant::now();
        let e_scale = start.energy - potential_energy(model, state, frozen) + mgl;
        let mut tau = first(pairs);
        // A contact touching at the tick's start (depth 0, not separating) has no
        // force there yet: a first sub-step of dt would free-fall through the whole
        // tick. Start at the floor instead, so that the force λx builds up inside
        // this tick (the controller grows the sub-step by 1.5× per accepted one).
        if touch {
            tau = tau_min;
        }
        let (mut t, mut n_sub, mut n_rej, mut n_floor) = (0.0, 0u32, 0u32, 0u32);
        let (mut err_sum, mut min_sub) = (0.0, f64::INFINITY);
        while dt - t > 1e-12 * dt {
            let remaining = dt - t;
            // The damping bound caps the step (adaptive runs): the energy balance sees
            // an overshooting damper only through the work it fails to dissipate.
            let cap = if p.adaptive {
                tau.min(start.tau_damp.max(tau_min))
            } else {
                tau
            };
            let mut tau_try = if remaining <= cap * 1.01 {
                remaining
            } else {
                cap
            };
            let mut halved = false;
            loop {
                // One sub-step from the accepted state.
                trial.copy_from_slice(state);
                let w_diss = match model.opt.integrator {
                    Integrator::SemiImplicitEuler | Integrator::Implicit => {
                        let d0 = &start.deriv;
                        integrator::semi_implicit_euler(
                            tau_try,
                            trial,
                            |b| free_inertia(model, frozen, b),
                            &mut k[0],
                            |_, _, out: &mut [Deriv]| out.copy_from_slice(d0),
                        );
                        evaluate(&cx, &mut bufs, trial, pairs, (false, hold(tau, dt)), end);
                        0.5 * tau_try * (start.p_diss + end.p_diss)
                    }
                    Integrator::Rk4 => {
                        let mut pw = [start.p_diss, 0.0, 0.0, 0.0];
                        integrator::rk4(
                            tau_try,
                            trial,
                            dynamic,
                            stage_state,
                            k,
                            |i: usize, st: &[BodyState], out: &mut [Deriv]| {
                                if i == 0 {
                                    out.copy_from_slice(&start.deriv);
                                } else {
                                    evaluate(&cx, &mut bufs, st, pairs, (false, tau_try), stage);
                                    out.copy_from_slice(&stage.deriv);
                                    pw[i] = stage.p_diss;
                                }
                            },
                        );
                        evaluate(&cx, &mut bufs, trial, pairs, (false, hold(tau, dt)), end);
                        tau_try / 6.0 * (pw[0] + 2.0 * (pw[1] + pw[2]) + pw[3])
                    }
                };
                let w_ext = external_work(model, xfrc, frozen, state, trial, tau_try);
                let err = end.energy - start.energy - w_ext - w_diss;
                // The scale per pair (opt-in): the smallest over the penetrating
                // pairs at the sub-step's start and end states, never above E_s.
                let scale = if p.pair_energy_scale {
                    e_scale.min(start.pair_scale).min(end.pair_scale)
                } else {
                    e_scale
                };
                let tol = p.energy_tolerance * scale;
                let at_floor = tau_try <= tau_min * (1.0 + 1e-9);
                let ok = !p.adaptive || !err.is_finite() || err.abs() <= tol;
                if ok || at_floor {
                    if !ok {
                        n_floor += 1;
                    }
                    if err.is_finite() {
                        err_sum += err.abs();
                    }
                    break;
                }
                tau_try = (0.5 * tau_try).max(tau_min);
                halved = true;
                n_rej += 1;
            }
            // Accept: the start state's sticking forces acted over this sub-step
            // (bank their unused cone), and the end state becomes the start of the
            // next sub-step.
            bank_substep(pairs, &start.bank, tau_try);
            state.copy_from_slice(trial);
            std::mem::swap(start, end);
            commit(pairs, start);
            t += tau_try;
            n_sub += 1;
            min_sub = min_sub.min(tau_try);
            tau = if p.adaptive {
                if halved {
                    tau_try
                } else {
                    (1.5 * tau).min(dt)
                }
            } else {
                dt
            };
        }
        // The controller's step rides in the memory of the pairs still touching.
        for q in pairs.iter_mut().filter(|q| q.touching) {
            q.hc_substep = tau;
        }
        let total = t_int.elapsed().as_nanos() as u64;
        stats.stage_ns[Stage::NarrowPhase as usize] += bufs.narrow_ns;
        stats.stage_ns[Stage::Contact as usize] += bufs.contact_ns;
        stats.stage_ns[Stage::Integrate as usize] +=
            total.saturating_sub(bufs.narrow_ns + bufs.contact_ns);
        stats.substeps = n_sub;
        stats.substep_rejections = n_rej;
        stats.substep_floor_hits = n_floor;
        stats.min_substep = min_sub;
        stats.substeps_total += n_sub as u64;
        stats.energy_error = err_sum;
        stats.contact_energy = start.elastic;
    }
}

/// Separation (m) up to which geoms count as touching at the tick's start: a body
/// placed touching another up to the rounding of its coordinates.
const TOUCH: f64 = 1e-9;

/// Whether a manifold of the start state touches (gap or depth of at most `TOUCH`)
/// and does not separate, for a pair that did not touch before: a body placed exactly touching, or one that came to touch at the end of
/// the last tick. Its force λx is 0 at the start, so it only acts inside the tick.
fn touching_at_start(
    model: &Model,
    state: &[BodyState],
    dynamic: &dyn Fn(usize) -> bool,
    set: &ContactSet,
    set_pair: &[usize],
    pairs: &[PairState],
) -> bool {
    set.manifolds.iter().zip(set_pair).any(|(m, &pi)| {
        let (ba, bb) = (model.geoms[m.geom_a].body, model.geoms[m.geom_b].body);
        let d = m.max_depth(set);
        if !(dynamic(ba) || dynamic(bb)) || pairs[pi].hc_impact_speed > 0.0 || d.abs() > TOUCH {
            return false;
        }
        let p = set.points[m.deepest].lever;
        let v = state[ba].velocity_at(&p) - state[bb].velocity_at(&p);
        m.normal.dot(&v) <= 0.0
    })
}

/// Kinetic energy of body `b` (translation and rotation), J.
fn body_kinetic_energy(model: &Model, s: &BodyState, b: usize) -> f64 {
    let body = &model.bodies[b];
    let r = s.q.to_rotation_matrix();
    let i_w = r.matrix() * body.inertia * r.matrix().transpose();
    0.5 * body.mass * s.v.norm_squared() + 0.5 * s.w.dot(&(i_w * s.w))
}

/// Size L = V^(1/3) of a body of volume V, m.
#[inline]
fn body_volume_len(v: f64) -> f64 {
    v.max(0.0).cbrt()
}

/// Pair memory at an accepted state: touching flags, the damping of pairs touching
/// for the first time, and a reset of the pairs that no longer touch.
fn commit(pairs: &mut [PairState], ev: &Eval) {
    for q in pairs.iter_mut() {
        q.touching = false;
    }
    for (&pi, &(c, v_i, fresh, lambda)) in ev.contact_pair.iter().zip(&ev.fresh) {
        let q = &mut pairs[pi];
        q.touching = true;
        if fresh && q.hc_impact_speed <= 0.0 {
            q.hc_damping = c;
            q.hc_impact_speed = v_i;
        }
        if lambda > 0.0 {
            q.hc_stiffness = lambda;
        }
    }
    for q in pairs.iter_mut().filter(|q| !q.touching) {
        *q = PairState::new(q.geom_a, q.geom_b);
    }
}

/// λ of a pair: the scene's value for its measure, or the §5 rule applied to the
/// load each body carries (the larger of its moving bodies' M g/(f V) for a
/// volume, M g/(f L) for a depth, M the body's mass plus what rests on it,
/// `contact::support`): every contact then sinks at most about f L under the weight
/// it supports — the bottom box of a stack as little as the top one, and a light
/// box under a heavy one as little as under its own weight — instead of n f L at
/// the bottom of a stack of n. Stiffer pairs cost sub-steps, which the energy
/// monitor chooses (τ ∝ √(M/m)).
fn stiffness(cx: &Ctx, measure: Measure, bodies: [(usize, bool); 2]) -> f64 {
    let p = cx.p;
    let explicit = match measure {
        Measure::Volume => p.stiffness_volume,
        Measure::Depth => p.stiffness_depth,
    };
    if let Some(l) = explicit {
        return l;
    }
    let f = p.penetration_fraction;
    bodies
        .iter()
        .filter(|(_, dynamic)| *dynamic)
        .map(|&(b, _)| {
            let v = cx.body_volume[b];
            let w = cx.support.load[b] * cx.g_ref;
            match measure {
                Measure::Volume => w / (f * v),
                Measure::Depth => w / (f * body_volume_len(v)),
            }
        })
        .filter(|l| l.is_finite())
        .fold(0.0, f64::max)
}

/// λ of a pair at an evaluation: the rule's value `rule` ([`stiffness`]) for a
/// pair touching for the first time; for a pair already touching, the λ it has
/// (`held`, [`PairState::hc_stiffness`]) moved toward the rule's value at the
/// tick's start (`at_start`) only as far as the energy budget allows, and kept
/// through the tick's sub-steps.
///
/// Why: the rule's load changes while a pair is compressed — a body comes to
/// rest on another, or the support graph sees an oblique impact's normal turn
/// upward — and λ u (u = ∫ depth dV or δ²/2, `energy_per_lambda`) then jumps by
/// Δλ u with no work done: energy from nothing, which the monitor cannot see
/// since each tick's energy is evaluated with that tick's λ. Mid-impact u is
/// large (an oblique 7.5 m/s impact of two 1 kg spheres gained 9.4 % of its
/// kinetic energy, a 0.1 kg cylinder on a 1 kg sphere 17 %). So a change may move
/// the stored energy by at most the monitor's tolerance ε E_s, shared among the
/// `n_pen` penetrating pairs: |Δλ| u ≤ ε E_s / n_pen. A resting contact (u at
/// its rest value, f L deep) takes a new load within a few ticks; an impact
/// keeps its λ until it has let go.
fn budgeted_stiffness(
    cx: &Ctx,
    (held, rule): (f64, f64),
    (u, n_pen): (f64, usize),
    at_start: bool,
) -> f64 {
    if held <= 0.0 {
        return rule;
    }
    if !at_start {
        return held;
    }
    if u <= 0.0 {
        return rule;
    }
    let step = cx.stiffness_budget / (n_pen.max(1) as f64 * u);
    held + (rule - held).clamp(-step, step)
}

/// The longest sub-step a force evaluated now is held over: the controller's
/// next sub-step is at most 3/2 of its current `tau` (and the tick `dt`).
#[inline]
fn hold(tau: f64, dt: f64) -> f64 {
    (1.5 * tau).min(dt)
}

/// Contact forces, derivatives, energy and dissipated power at state `st`.
/// `update_friction`: run the stick/slip transitions (once per tick, at its start).
/// `hold`: the time these forces are held before the next evaluation (a
/// sub-step, [`hold`]): the step of the linearly implicit anchors' backward Euler
/// (`friction::linear_block`).
fn evaluate(
    cx: &Ctx,
    b: &mut Bufs,
    st: &[BodyState],
    pairs: &mut [PairState],
    (update_friction, hold): (bool, f64),
    ev: &mut Eval,
) {
    let model = cx.model;
    let tn = Instant::now();
    collide::geom_poses(model, st, b.geom_pose);
    // At the tick's start, geoms within `TOUCH` of each other are also reported (a
    // gap manifold, no force): a pair touching there starts the tick at the floor
    // sub-step (`touching_at_start`).
    let ctx = collide::NarrowCtx {
        poses: b.geom_pose,
        candidates: cx.candidates,
        speed: &[],
        speculative: update_friction.then_some(collide::Speculative {
            h: 0.0,
            gravity_reach: TOUCH,
            window: 0.0,
        }),
        cut_seams: true,
    };
    collide::narrow_phase_within(
        model,
        &ctx,
        b.narrow,
        &mut ev.contacts,
        &mut ev.contact_pair,
    );
    let tc = Instant::now();
    b.narrow_ns += (tc - tn).as_nanos() as u64;

    let Eval {
        contacts,
        contact_pair,
        fresh,
        wrench,
        deriv,
        energy,
        elastic,
        pair_scale,
        p_diss,
        tau_damp,
        bank,
        linear,
        split,
    } = ev;
    bank.clear();
    linear.clear(model.nbody());
    let dynamic = |i: usize| model.bodies[i].kind == BodyKind::Free && !cx.frozen[i];
    // The linear anchors' tangential loads: what the normals of the contacts that
    // hold a body up together cannot carry (`contact::support::NormalSplit`).
    let split_on = cx.p.friction.linear;
    split.clear(if split_on {
        contacts.manifolds.capacity()
    } else {
        0
    });
    if split_on {
        let up = cx.support.up();
        for (mi, m) in contacts.manifolds.iter().enumerate() {
            let (ba, bb) = (model.geoms[m.geom_a].body, model.geoms[m.geom_b].body);
            if !(dynamic(ba) || dynamic(bb)) || m.max_depth(contacts) <= 0.0 {
                continue;
            }
            let w = cx.support.pair_weight(model, st, dynamic, ba, bb);
            split.push(mi, (ba, bb), m.normal, w, up);
        }
        split.solve();
    }
    // The penetrating manifolds: the stiffness budget is shared among them, and
    // each moving body's count bounds its pairs' dampers.
    let touches = &mut *b.touches;
    touches.iter_mut().for_each(|t| *t = 0);
    let mut n_pen = 0;
    for m in &contacts.manifolds {
        let (ba, bb) = (model.geoms[m.geom_a].body, model.geoms[m.geom_b].body);
        if (dynamic(ba) || dynamic(bb)) && m.max_depth(contacts) > 0.0 {
            n_pen += 1;
            for x in [ba, bb].into_iter().filter(|&x| dynamic(x)) {
                touches[x] += 1;
            }
        }
    }
    let tau_min = cx.tau_min;
    let mut rate_damp = 0.0f64;
    wrench.clear();
    wrench.resize(model.nbody(), Wrench::ZERO);
    fresh.clear();
    let (mut u_sum, mut p_sum) = (0.0, 0.0);
    *pair_scale = f64::INFINITY;
    for (mi, (m, &pi)) in contacts
        .manifolds
        .iter()
        .zip(contact_pair.iter())
        .enumerate()
    {
        let (ga, gb) = (&model.geoms[m.geom_a], &model.geoms[m.geom_b]);
        let (ba, bb) = (ga.body, gb.body);
        let (da, db) = (dynamic(ba), dynamic(bb));
        // No force from a manifold that does not penetrate (depth ≤ 0: a touching or
        // speculative gap manifold), and no damping fixed for it.
        if !(da || db) || m.max_depth(contacts) <= 0.0 {
            fresh.push((0.0, 0.0, false, 0.0));
            continue;
        }
        let mat = Material::combine(&ga.material, &gb.material);
        let measure = hc::measure_of(ga.shape.kind(), gb.shape.kind());
        let points = contacts.points_of(m);
        let ip = hc::interpenetration(measure, points, b.vol);
        let lambda = budgeted_stiffness(
            cx,
            (
                pairs[pi].hc_stiffness,
                stiffness(cx, measure, [(ba, da), (bb, db)]),
            ),
            (ip.energy_per_lambda, n_pen),
            update_friction,
        );
        let (sa, sb) = (&st[ba], &st[bb]);
        let n = m.normal;
        let v_rel = sa.velocity_at(&ip.point) - sb.velocity_at(&ip.point);
        let approach = -n.dot(&v_rel);
        // The damping fixed at first touch, or chosen now for a new pair.
        let q = &pairs[pi];
        let (c, v_i, is_new) = if q.hc_impact_speed > 0.0 {
            (q.hc_damping, q.hc_impact_speed, false)
        } else {
            let v_i = approach.max(cx.p.min_impact_speed);
            (
                hc::damping(cx.p.damping_rule, mat.restitution, v_i),
                v_i,
                true,
            )
        };
        fresh.push((c, v_i, is_new, lambda));
        // Elastic force λx at the force point (the volume's centroid): the exact
        // gradient of U = λ ∫ depth dV for a plane contact (002 §2.2, §3.3).
        let f_el = lambda * ip.x;
        wrench[ba].add_force_at(n * f_el, ip.point, sa.x);
        wrench[bb].add_force_at(-n * f_el, ip.point, sb.x);
        u_sum += lambda * ip.energy_per_lambda;
        if cx.p.pair_energy_scale {
            let mut scale = lambda * ip.energy_per_lambda;
            let mut mgl = f64::INFINITY;
            for (x, dx) in [(ba, da), (bb, db)] {
                if dx {
                    scale += body_kinetic_energy(model, &st[x], x);
                    mgl = mgl
                        .min(model.bodies[x].mass * cx.g_ref * body_volume_len(cx.body_volume[x]));
                }
            }
            *pair_scale = pair_scale.min(scale + mgl);
        }
        // The Hunt–Crossley damping λ c x δ̇, spread over the manifold's points in
        // proportion to depth (the local law p = λ d (1 + c ḋ) of the elastic
        // foundation): the same total as at the centroid for a translation, and a
        // damping moment against rocking, which the centroid's δ̇ does not see. Each
        // point's pressure λ w (1 + c ḋ) is clamped at 0, so the pair never pulls.
        let (inv_ma, inv_ia) = inverse_inertia(model, sa, ba, da);
        let (inv_mb, inv_ib) = inverse_inertia(model, sb, bb, db);
        let inv_eff = |p: &crate::math::Vec3| {
            let (ra, rb) = ((p - sa.x).cross(&n), (p - sb.x).cross(&n));
            inv_ma + inv_mb + ra.dot(&(inv_ia * ra)) + rb.dot(&(inv_ib * rb))
        };
        b.pf.clear();
        let wsum: f64 = points.iter().map(|p| p.depth.max(0.0)).sum();
        let deepest = m.deepest - m.points.start;
        let weight = |i: usize, depth: f64| {
            if wsum > 0.0 {
                ip.x * depth.max(0.0) / wsum
            } else if i == deepest {
                ip.x
            } else {
                0.0
            }
        };
        // The damper within explicit Euler's bound at the smallest sub-step. The
        // sub-step cap 1.5/Σ b_i K_i (`tau_damp`) cannot go below `min_substep`:
        // a light body pressed by a heavy one (λ from the heavy load, K from the
        // light mass) with a small restitution (c ≈ 1/(e v_i)) asked for b K τ
        // far above 2 there, and the explicit damper threw the heavy body off at
        // 25 km/s (0.1 kg under 100 kg, e = 0). Where the pair's rate
        // Σ λ c w_i K_i exceeds 1.5/(τ_min n), n the most penetrating pairs on
        // either of its moving bodies (their dampers add on that body), c is
        // scaled down to it: still at least critically damped at τ_min, no
        // longer unstable. Elsewhere c is the rule's, unchanged.
        let n_b = [(ba, da), (bb, db)]
            .iter()
            .filter(|(_, d)| *d)
            .map(|&(x, _)| touches[x])
            .max()
            .unwrap_or(1)
            .max(1) as f64;
        let raw: f64 = points
            .iter()
            .enumerate()
            .map(|(i, pt)| lambda * c * weight(i, pt.depth).max(0.0) * inv_eff(&pt.lever))
            .sum();
        let c = if raw * tau_min * n_b > 1.5 {
            c * (1.5 / (raw * tau_min * n_b))
        } else {
            c
        };
        let (mut f_n, mut rate) = (0.0, 0.0);
        let mut wl = crate::math::Vec3::zeros();
        for (i, pt) in points.iter().enumerate() {
            let w = weight(i, pt.depth);
            if w <= 0.0 {
                continue;
            }
            // At the point's lever (`ContactPoint::lever`): a round cap's points
            // act on the line through its centre.
            let v_n = n.dot(&(sa.velocity_at(&pt.lever) - sb.velocity_at(&pt.lever)));
            let f_i = hc::normal_force(lambda, w, c, -v_n);
            let f_d = f_i - lambda * w;
            wl += pt.lever * w;
            rate += lambda * c * w * inv_eff(&pt.lever);
            wrench[ba].add_force_at(n * f_d, pt.lever, sa.x);
            wrench[bb].add_force_at(-n * f_d, pt.lever, sb.x);
            p_sum += f_d * v_n;
            f_n += f_i;
            if f_i > 0.0 {
                b.pf.push(PointForce {
                    point: i as u32,
                    f_n: f_i,
                });
            }
        }

        rate_damp = rate_damp.max(rate);

        // Coulomb friction over the points, with their Hunt–Crossley pressures.
        if mat.mu <= 0.0 || f_n <= 0.0 {
            if update_friction {
                pairs[pi].anchor = None;
            }
            continue;
        }
        let (ma, mb) = (model.bodies[ba].mass, model.bodies[bb].mass);
        let (m_pair, m_reduced) = match (da, db) {
            (true, true) => (ma + mb, ma * mb / (ma + mb)),
            (true, false) => (ma, ma),
            _ => (mb, mb),
        };
        let mut ctx = PairContext {
            normal: n,
            points,
            deepest,
            a: sa,
            b: sb,
            m_pair,
            m_reduced,
            h: cx.h,
            integral: 0.0,
            weight: cx.support.pair_weight(
                model,
                st,
                |x| model.bodies[x].kind == BodyKind::Free && !cx.frozen[x],
                ba,
                bb,
            ),
            inv_mass: [inv_ma, inv_mb],
            inv_inertia_w: [inv_ia, inv_ib],
            flat: crate::contact::modal::flat_pair(ga.shape.kind(), gb.shape.kind()),
        };
        ctx.weight = split.weight(mi, n, ctx.weight);
        let fp = &cx.p.friction;
        let mode = friction::explicit_mode(fp, ga.shape.kind(), gb.shape.kind());
        if update_friction {
            friction::update_state(fp, mat.mu, &ctx, b.pf, &mut pairs[pi], mode);
        }
        let anchor = pairs[pi].anchor;
        let block = if matches!(mode, StickMode::Linear { .. }) {
            let cen = friction::centroid(&ctx, b.pf);
            let a = (anchor.as_ref(), mode);
            friction::linear_block(fp, mat.mu, &ctx, cen, a, (None, hold), &mut linear.blocks)
        } else {
            None
        };
        let mut rolled = false;
        let twist = if let Some(blk) = block {
            // Sticking, linearly implicit: solved with the other sticking pairs
            // of its bodies after this loop (pushed by `linear_block`).
            blk.bodies = [ba, bb];
            blk.tag = [pi, mi];
            blk.bank.cone = (mat.mu, f_n, friction::carried_normal(&ctx));
            blk.bank.cap = friction::bank_cap(fp, &ctx);
            // Rolling resistance held by its angular anchor, solved with them
            // (`friction::RollBlock`).
            if let Some(a) = pairs[pi].anchor.as_mut().filter(|_| mat.rolling > 0.0) {
                if update_friction {
                    friction::update_roll(fp, mat.rolling, &ctx, b.pf, a);
                }
                if let Some(mut rb) = friction::roll_block(fp, mat.rolling, &ctx, b.pf, (a, hold)) {
                    rb.bodies = [ba, bb];
                    linear.rolls.push(rb);
                    rolled = true;
                }
            }
            crate::math::Vec3::zeros()
        } else {
            let mut ft = crate::math::Vec3::zeros();
            let twist = friction::tangential_forces(
                fp,
                mat.mu,
                &ctx,
                b.pf,
                (anchor.as_ref(), mode),
                |pt, f| {
                    ft += f;
                    wrench[ba].add_force_at(f, pt, sa.x);
                    wrench[bb].add_force_at(-f, pt, sb.x);
                    p_sum += f.dot(&(sa.velocity_at(&pt) - sb.velocity_at(&pt)));
                },
            );
            if anchor.is_none() && measure == Measure::Volume {
                // The sliding forces' resultant moved onto the normal force's line:
                // their points carry the depth-weighted pressures λ w_i, centred at
                // Σ w_i p_i / x, while the elastic force λ x acts at the volume's
                // centroid (002 §3.3); where the two differ across the line of
                // motion (a face partly lifted by friction's pitching moment, at a
                // heading other than 0° or 45° to its edges) the difference
                // (λ x c_V − λ Σ w_i p_i)/Σf × F_t was a yaw moment that spun a
                // sliding box up to 8.8 rad/s (docs/EXPERIMENTS.md, "A box that
                // slides the same way in every heading"). Only its component about
                // the normal: the pitching moment stays at the points. (A depth
                // pair's force point is the points' own depth-weighted centroid.)
                let shift = (ip.point * ip.x - wl) * (lambda / f_n);
                let tau = n * n.dot(&shift.cross(&ft));
                wrench[ba].torque += tau;
                wrench[bb].torque -= tau;
                p_sum += tau.dot(&(sa.w - sb.w));
            }
            if anchor.is_some() {
                bank.push(Banked {
                    pair: pi,
                    cone: (mat.mu, f_n, friction::carried_normal(&ctx)),
                    ft: ft.norm(),
                    cap: friction::bank_cap(fp, &ctx),
                });
            }
            twist
        };
        let w_rel = sa.w - sb.w;
        wrench[ba].torque += twist;
        wrench[bb].torque -= twist;
        p_sum += twist.dot(&w_rel);
        if let Some(tau) = friction::rolling_torque(mat.rolling, &ctx, b.pf).filter(|_| !rolled) {
            wrench[ba].torque += tau;
            wrench[bb].torque -= tau;
            p_sum += tau.dot(&w_rel);
        }
    }
    // The linearly implicit anchors, solved where they share bodies, over the
    // sub-step their forces are held: the controller's next one is also capped
    // by the damping bound of this state (an adaptive run).
    let tau_cap = if rate_damp > 0.0 {
        1.5 / rate_damp
    } else {
        f64::INFINITY
    };
    let held = if cx.p.adaptive {
        hold.min(tau_cap.max(cx.p.min_substep.min(cx.h)))
    } else {
        hold
    };
    if held != hold {
        linear.time(held);
    }
    linear.solve(held);
    for blk in &linear.blocks {
        let [ba, bb] = blk.bodies;
        let (sa, sb) = (&st[ba], &st[bb]);
        // f at c, its moment on a held tilt left to the normal springs
        // (`friction::LinearBlock::wrenches`, its patch read from the
        // manifold's points: `tag` is (pair, manifold)); its power on both bodies.
        let points = contacts
            .manifolds
            .get(blk.tag[1])
            .map_or(&[][..], |m| contacts.points_of(m));
        let [(fa, ta), (fb, tb)] = blk.wrenches(points);
        wrench[ba].force += fa;
        wrench[ba].torque += ta;
        wrench[bb].force += fb;
        wrench[bb].torque += tb;
        p_sum += fa.dot(&sa.v) + ta.dot(&sa.w) + fb.dot(&sb.v) + tb.dot(&sb.w);
        bank.push(Banked {
            pair: blk.tag[0],
            cone: blk.bank.cone,
            ft: blk.f.norm(),
            cap: blk.bank.cap,
        });
    }
    for rb in &linear.rolls {
        let [ba, bb] = rb.bodies;
        wrench[ba].torque += rb.tau;
        wrench[bb].torque -= rb.tau;
        p_sum += rb.tau.dot(&(st[ba].w - st[bb].w));
    }
    deriv.resize(model.nbody(), Deriv::default());
    derivatives(model, st, cx.frozen, None, cx.xfrc, wrench, deriv);
    *elastic = u_sum;
    *p_diss = p_sum;
    *tau_damp = if rate_damp > 0.0 {
        1.5 / rate_damp
    } else {
        f64::INFINITY
    };
    *energy = kinetic_energy(model, st, cx.frozen) + potential_energy(model, st, cx.frozen) + u_sum;
    b.contact_ns += tc.elapsed().as_nanos() as u64;
}

/// Coulomb on the transient's impulses per sub-step (`friction::bank`, the
/// force-measured excess Σf − W_n): the sticking forces evaluated at a sub-step's
/// start acted over its length `tau`; each pair banks what its cone left unused
/// while its normal force exceeds the weight it carries, and spends what its force
/// used above the cone. The explicit spring–damper reads the bank as C/h (h the
/// tick) in its cone, so a bank is spent over at least a tick.
///
/// Not the momentum-measured excess of the penalty default path
/// (`friction::bank_momentum`): measured here on the placed incline (tan θ = μ = 0.5,
/// 1 kHz, 5 s) it held the box to 3.87 mm (3.15 mm with a dip below the load
/// subtracting instead of clearing), against 0.65 mm with Σf − W_n; not traced in
/// the time. Its cost: where W_n is not the pair's quasi-static load (a body on
/// several supports), a resting pair with Σf > W_n banks up to the cap M v_slip.
fn bank_substep(pairs: &mut [PairState], banked: &[Banked], tau: f64) {
    for e in banked {
        if let Some(a) = pairs.get_mut(e.pair).and_then(|q| q.anchor.as_mut()) {
            a.credit = friction::bank(a.credit, e.cone, e.ft, tau, e.cap);
        }
    }
}

/// Inverse mass and world inverse inertia of a body (zero if it does not move).
fn inverse_inertia(model: &Model, s: &BodyState, b: usize, dynamic: bool) -> (f64, Mat3) {
    if !dynamic {
        return (0.0, Mat3::zeros());
    }
    let r = s.q.to_rotation_matrix();
    let body = &model.bodies[b];
    (
        body.inv_mass,
        r.matrix() * body.inv_inertia * r.matrix().transpose(),
    )
}

/// Work of the external wrenches (constant through the tick) over a sub-step from
/// `s0` to `s1`: F·Δx exactly, and T·(ω0 + ω1)/2·τ.
fn external_work(
    model: &Model,
    xfrc: &[Wrench],
    frozen: &[bool],
    s0: &[BodyState],
    s1: &[BodyState],
    tau: f64,
) -> f64 {
    let mut w = 0.0;
    for (b, body) in model.bodies.iter().enumerate() {
        if body.kind != BodyKind::Free || frozen[b] {
            continue;
        }
        let f = &xfrc[b];
        w += f.force.dot(&(s1[b].x - s0[b].x)) + f.torque.dot(&(s0[b].w + s1[b].w)) * (0.5 * tau);
    }
    w
}
