//! The penalty stepper of 000: impulses for new impacts, the multi-point (or
//! deepest-point) PID force for continuing contact, friction, all inside an explicit
//! integrator (RK4 as in the paper's experiments, or semi-implicit Euler).

use super::bodies::{body_mass_props, derivatives, free_inertia, report_contacts};
use super::collide::CollideWorkspace;
use super::integrator::{self, Deriv, StageBuffers};
use super::penalty_implicit::{ImplicitContact, Row, StickGroup};
use super::penalty_robot::{RobotContact, RobotOut, RobotRow};
use super::robots::{self, RobotLoad};
use super::{lap, Stepper, Tick};
use crate::collision::ContactSet;
use crate::contact::impulse::{
    apply_impulse, displace, impact_impulse, impact_rewind, time_of_closing, ImpulseBody,
};
use crate::contact::patch::{self, Patch, PerNewton};
use crate::contact::{
    friction::{self, StickMode},
    model_for, ContactModel, PairContext, PidGains, PointForce, SelectScratch, SupportLoads,
};
use crate::data::{
    BodyState, ContactPhase, Data, PairState, RestBlock, RestRows, Stage, StepStats, NO_REST_BLOCK,
    REST_BLOCK_WORDS, REST_ROW_POINTS,
};
use crate::kinematics::link_states;
use crate::math::{Vec3, Wrench};
use crate::model::{BodyKind, Integrator, Material, Model, PenaltyParams};
use crate::pipeline::clock::Instant;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct PenaltyStepper<'a> {
    pub params: &'a PenaltyParams,
    /// Speculative gap points (the complementarity methods' margin with no extra
    /// window: one step of relative motion plus gravity's reach): under
    /// semi-implicit Euler they enter the implicit normal force as gap rows, so
    /// that a body placed touching is held from its first step.
    pub speculative: bool,
}

/// Working memory of [`PenaltyStepper`] (not part of the state).
#[derive(Clone, Debug)]
pub struct PenaltyWorkspace {
    /// The integrator's stage state and derivatives (bodies and robots).
    stages: StageBuffers,
    /// Contacts at an intermediate integrator stage.
    stage_contacts: ContactSet,
    stage_contact_pair: Vec<usize>,
    /// Contact wrench on every body at the stage being evaluated.
    wrench: Vec<Wrench>,
    /// World-frame inverse mass properties of every body at the state being
    /// evaluated (once per force evaluation).
    bodies: Vec<ImpulseBody>,
    /// The step's impacts per body (impulses, times of impact, rewinds).
    impacts: ImpactMemory,
    /// The contact model's buffers: bottom-of-volume selection, the normal forces of
    /// one manifold.
    sel: SelectScratch,
    point_forces: Vec<PointForce>,
    /// The load each body carries (its own mass and what rests on it): the gain mass
    /// of its pairs.
    support: SupportLoads,
    /// The linearly implicit normal force (semi-implicit Euler), and the explicit
    /// rates it corrects (with friction on its first solve's forces).
    implicit: ImplicitContact,
    k_explicit: Vec<Deriv>,
    /// The robot links' pairs' linearly implicit normal force (`[penalty]
    /// robot_implicit`, `penalty_robot`).
    robot_contact: RobotContact,
    /// The rates of the first normal solve, kept for the late pairs' anchor
    /// solve (`late_friction`; copied only in a step with candidates).
    k_free: Vec<Deriv>,
    /// The free bodies (a world none of which moves, all asleep, has nothing to
    /// advance: [`quiet_step`]).
    free: Vec<u32>,
    /// The energy and impulse probe (off unless a test or tool turns it on:
    /// `Pipeline::penalty_probe_mut`).
    pub probe: PenaltyProbe,
}

/// A per-step account of the penalty stepper's energy and impulses, for
/// finding what drives a pile that does not come to rest (issue 18, scale25):
/// off by default (one branch per stage then), on it reads the bodies' states
/// between the stages (O(bodies), no allocation). Energies are KE + PE of
/// the moving bodies (gravitational PE, the contacts' springs not counted).
#[derive(Clone, Copy, Debug, Default)]
pub struct PenaltyProbe {
    pub on: bool,
    /// KE + PE at the step's start, after the impact stage's impulses (before
    /// its rewind), after its rewind, with the first normal solve's rates (the
    /// step as if it ended there: v' = v + h k, x' = x + h v'), and at the end
    /// of the step (friction and the second normal solve in), J.
    pub energy: [f64; 5],
    /// The kinetic part of `energy`, J.
    pub kinetic: [f64; 5],
    /// Pass 0's impulses by kind — a new penetrating contact approaching at its
    /// centroid, a bounce (last step's impact, some points separating while
    /// others approach), a gap closing within the step — and the kinetic
    /// energy each kind's impulses changed, J.
    pub pass0: [usize; 3],
    pub pass0_de: [f64; 3],
    /// The sweeps' impulses by the sweep they came in (1, 2–3, 4–7, …, 64–127,
    /// 128), on resting and on impact pairs, and the kinetic energy they
    /// changed, J.
    pub sweep_by_pass: [usize; 8],
    pub sweep_kind: [usize; 2],
    pub sweep_de: f64,
}

impl PenaltyProbe {
    fn clear(&mut self) {
        *self = PenaltyProbe {
            on: self.on,
            ..Default::default()
        };
    }
}

/// Kinetic and gravitational energy of body `b` in state `s`, J.
fn body_energy(model: &Model, b: usize, s: &BodyState) -> [f64; 2] {
    let body = &model.bodies[b];
    let r = s.q.to_rotation_matrix();
    let i_w = r.matrix() * body.inertia * r.matrix().transpose();
    [
        0.5 * body.mass * s.v.norm_squared() + 0.5 * s.w.dot(&(i_w * s.w)),
        -body.mass * model.opt.gravity.dot(&s.x),
    ]
}

/// Σ [`body_energy`] over the moving bodies, each taken at `at(b, state)`:
/// (KE + PE, KE).
fn world_energy(
    model: &Model,
    state: &[BodyState],
    moving: impl Fn(usize) -> bool,
    at: impl Fn(usize, &BodyState) -> BodyState,
) -> (f64, f64) {
    (0..state.len())
        .filter(|&b| moving(b))
        .map(|b| body_energy(model, b, &at(b, &state[b])))
        .fold((0.0, 0.0), |(e, k), [ke, pe]| (e + ke + pe, k + ke))
}

impl PenaltyWorkspace {
    /// The resting pairs' linear-anchor blocks served from the state at the
    /// last step (`Data::rest_blocks`, [`kept_block`]).
    pub fn kept_blocks(&self) -> usize {
        self.implicit.kept_served
    }

    /// The implicit solve's last block factorization ([`ImplicitContact::chol_stats`];
    /// all zero while every island is one body).
    pub fn direct_stats(&self) -> crate::solver::block_cholesky::BlockCholeskyStats {
        if self.implicit.solved_single() {
            Default::default()
        } else {
            self.implicit.chol_stats()
        }
    }

    pub fn new(model: &Model) -> Self {
        let nb = model.nbody();
        PenaltyWorkspace {
            stages: StageBuffers::new(nb, model.nq, model.nv),
            stage_contacts: ContactSet::default(),
            stage_contact_pair: Vec::new(),
            wrench: vec![Wrench::ZERO; nb],
            bodies: Vec::with_capacity(nb),
            impacts: ImpactMemory::new(
                nb,
                crate::collision::capacity::MANIFOLDS_PER_GEOM * model.ngeom(),
                crate::collision::capacity::POINTS_PER_GEOM * model.ngeom(),
            ),
            sel: SelectScratch::default(),
            point_forces: Vec::new(),
            support: SupportLoads::new(nb),
            implicit: ImplicitContact::new(nb),
            k_explicit: vec![Deriv::default(); nb],
            robot_contact: RobotContact::new(model),
            k_free: vec![Deriv::default(); nb],
            free: (0..nb as u32)
                .filter(|&b| model.bodies[b as usize].kind == BodyKind::Free)
                .collect(),
            probe: PenaltyProbe::default(),
        }
    }
}

/// What the contact passes of one evaluation read: the model, the method's
/// parameters and contact model, the step, and the bodies' mass properties at the
/// state evaluated.
struct ForceCtx<'a> {
    model: &'a Model,
    p: &'a PenaltyParams,
    cm: &'a dyn ContactModel,
    h: f64,
    bodies: &'a [ImpulseBody],
    /// Mass each body carries (0 for static bodies), kg.
    loads: &'a [f64],
    /// Normal forces of free-body pairs linearly implicit (semi-implicit Euler).
    implicit: bool,
    /// The rest tolerance under which a resting pair keeps its contact
    /// model's candidates (`PairState::rest_rows`, [`rest_rows_hold`]), m —
    /// the memo's; 0: they are selected every step.
    rest_tol: f64,
    /// A resting sticking pair keeps its linear anchor's block in the state
    /// (`Data::rest_blocks`, [`kept_block`]): with `rest_tol` > 0 unless a
    /// test turned it off (`collide::NarrowMemo::blocks_off`).
    keep_blocks: bool,
}

/// The contact model's buffers of one evaluation.
struct ModelBufs<'a> {
    sel: &'a mut SelectScratch,
    pf: &'a mut Vec<PointForce>,
}

/// What [`resolve_impacts`] remembers of one step's impulses, per body: whether it
/// received one, its velocities (v, ω) before the first, the time of impact τ
/// of the impact it took part in (0: at the start of the step; < 0: before it), and
/// the rewind (Δx, Δθ) that puts it where an impact at
/// τ would.
#[derive(Clone, Debug)]
struct ImpactMemory {
    impacted: Vec<bool>,
    start: Vec<[Vec3; 2]>,
    tau: Vec<f64>,
    rewind: Vec<[Vec3; 2]>,
    /// The bodies impacted in this step, in the order of their first impulse
    /// (`impacted`, `tau` and `rewind` are at rest for every other body: the
    /// memory is cleared and rewound over these only, O(struck) rather than
    /// O(bodies)).
    hit: Vec<u32>,
    /// The manifolds the Gauss–Seidel sweeps visit.
    work: ImpactWorklist,
    /// Per manifold, the contact model's candidate points (`ContactModel::candidates`)
    /// as (start, length) in `cand`, picked at the manifold's first visit of the
    /// step (start `u32::MAX`: not yet). The sweeps change only velocities, and the
    /// candidates read only the manifold's geometry (positions, depths, normal), so
    /// a manifold revisited by every sweep is selected once per step, not once per
    /// visit (the bottom-of-volume selection was 17 % of the 1,000-body pile's
    /// mid-drop run).
    cand_at: Vec<(u32, u32)>,
    cand: Vec<u32>,
    /// The step's sweeps after pass 0 and manifold visits (`StepStats`).
    sweeps: usize,
    visits: usize,
}

impl ImpactMemory {
    fn new(nb: usize, manifolds: usize, points: usize) -> Self {
        ImpactMemory {
            impacted: vec![false; nb],
            start: vec![[Vec3::zeros(); 2]; nb],
            tau: vec![0.0; nb],
            rewind: vec![[Vec3::zeros(); 2]; nb],
            hit: Vec::with_capacity(nb),
            work: ImpactWorklist::with_capacity(manifolds),
            cand_at: Vec::with_capacity(manifolds),
            cand: Vec::with_capacity(points),
            sweeps: 0,
            visits: 0,
        }
    }

    fn clear(&mut self) {
        for &b in &self.hit {
            let b = b as usize;
            self.impacted[b] = false;
            self.tau[b] = 0.0;
            self.rewind[b] = [Vec3::zeros(); 2];
        }
        self.hit.clear();
        self.sweeps = 0;
        self.visits = 0;
    }

    /// Forgets the candidates of the last step's `manifolds` manifolds.
    fn begin_candidates(&mut self, manifolds: usize) {
        self.cand.clear();
        self.cand_at.clear();
        self.cand_at.resize(manifolds, (u32::MAX, 0));
    }

    /// Manifold `mi`'s candidate points: picked by `cm` at its first visit of the
    /// step, the same slice at every later one.
    fn candidates(
        &mut self,
        mi: usize,
        cm: &dyn ContactModel,
        ctx: &PairContext<'_>,
        sel: &mut SelectScratch,
    ) -> &[u32] {
        if self.cand_at[mi].0 == u32::MAX {
            let mut picked = std::mem::take(&mut sel.selected);
            cm.candidates(ctx, sel, &mut picked);
            self.cand_at[mi] = (self.cand.len() as u32, picked.len() as u32);
            self.cand.extend_from_slice(&picked);
            sel.selected = picked;
        }
        let (start, len) = self.cand_at[mi];
        &self.cand[start as usize..(start + len) as usize]
    }

    /// The times of an impact at τ between `ba` and `bb` that [`Self::apply`] would
    /// give the two bodies (a body keeps the first τ ≠ 0 it gets; a pair with τ = 0
    /// takes its bodies' time), without recording them.
    fn times(&self, (ba, bb): (usize, usize), tau: f64) -> [f64; 2] {
        let t = [tau, self.tau[ba], self.tau[bb]]
            .into_iter()
            .find(|&t| t != 0.0)
            .unwrap_or(0.0);
        [ba, bb].map(|b| if self.tau[b] != 0.0 { self.tau[b] } else { t })
    }

    /// Body `b` as it is at its impact time τ_b of the step: its centre of mass
    /// moved by τ_b times the velocity it had before the step's impulses (the
    /// motion the rewind gives it until the impact, [`impact_rewind`]); its
    /// orientation and velocities as they are.
    fn at_impact(&self, state: &[BodyState], b: usize, tau_b: f64) -> BodyState {
        let mut s = state[b];
        let v0 = if self.impacted[b] {
            self.start[b][0]
        } else {
            s.v
        };
        s.x += v0 * tau_b;
        s
    }

    /// Impulse `j` at `at` between `ba` and `bb` at time τ of the step (τ < 0: an
    /// impact the last step carried past the surface), its moments about the
    /// bodies' centres of mass at their impact times, `origins` ([`Self::times`],
    /// [`Self::at_impact`]). A body keeps the first τ ≠ 0 it gets; a pair with τ = 0
    /// (a resting pair struck by a third body) takes its bodies' time: the impact
    /// that struck them.
    fn apply(
        &mut self,
        state: &mut [BodyState],
        (ba, bb): (usize, usize),
        (ia, ib): (&ImpulseBody, &ImpulseBody),
        (origins, at, j): ([Vec3; 2], &Vec3, &Vec3),
        tau: f64,
    ) {
        let times = self.times((ba, bb), tau);
        for (b, t) in [(ba, times[0]), (bb, times[1])] {
            if !self.impacted[b] {
                self.impacted[b] = true;
                self.hit.push(b as u32);
                self.start[b] = [state[b].v, state[b].w];
            }
            self.tau[b] = t;
        }
        for (b, ib, o, sign) in [(ba, ia, origins[0], 1.0), (bb, ib, origins[1], -1.0)] {
            let mut at_o = state[b];
            at_o.x = o;
            apply_impulse(&mut at_o, ib, at, j, sign);
            (state[b].v, state[b].w) = (at_o.v, at_o.w);
        }
    }

    /// Rewinds every body of an impact at τ ≠ 0 to where that impact puts it at the
    /// end of the step ([`impact_rewind`]) and moves the depths
    /// of the start-of-step contact points with it (a point's depth changes by
    /// −n·(δp_a − δp_b), δp the displacement of the body's material point), a gap
    /// manifold's points kept at d ≤ 0 and a penetrating one's at d ≥ 0: the
    /// landed contact is at its surface, not the gap or overlap it had before the
    /// impulse — and a penetrating pair's remembered depth (the integral's next
    /// term, eq. (2)) with them. Returns whether a body moved.
    fn rewind(
        &mut self,
        state: &mut [BodyState],
        (set, set_pair): (&mut ContactSet, &[usize]),
        pairs: &mut [PairState],
        model: &Model,
    ) -> bool {
        let mut any = false;
        for &b in &self.hit {
            let b = b as usize;
            let (s, tau, [v0, w0]) = (&state[b], self.tau[b], self.start[b]);
            if tau == 0.0 {
                continue;
            }
            self.rewind[b] = impact_rewind((s.v - v0, s.w - w0), tau);
            any = true;
        }
        if !any {
            return false;
        }
        let still = [Vec3::zeros(); 2];
        let disp = |b: usize, p: &Vec3| {
            let [dx, dth] = self.rewind[b];
            dx + dth.cross(&(p - state[b].x))
        };
        let ContactSet { manifolds, points } = set;
        for (m, &pi) in manifolds.iter_mut().zip(set_pair) {
            let (ba, bb) = (model.geoms[m.geom_a].body, model.geoms[m.geom_b].body);
            if self.rewind[ba] == still && self.rewind[bb] == still {
                continue;
            }
            let gap = points[m.deepest].depth <= 0.0;
            for pt in &mut points[m.points.clone()] {
                let d = pt.depth - m.normal.dot(&(disp(ba, &pt.lever) - disp(bb, &pt.lever)));
                pt.depth = if gap { d.min(0.0) } else { d.max(0.0) };
            }
            m.deepest = m.points.clone().fold(m.points.start, |k, i| {
                if points[i].depth > points[k].depth {
                    i
                } else {
                    k
                }
            });
            if !gap {
                pairs[pi].last_max_depth = points[m.deepest].depth;
            }
        }
        for &b in &self.hit {
            let r = self.rewind[b as usize];
            if r != still {
                displace(&mut state[b as usize], r);
            }
        }
        true
    }
}

/// The manifolds the Gauss–Seidel sweeps of [`resolve_impacts`] visit: those of a
/// body whose velocity an impulse changed since the manifold's last visit (and,
/// once, those of a body struck for the first time in the step: a static body's
/// resting pairs get their first sweep's check). A manifold visited with no
/// impulse changed nothing, and its check reads only its two bodies' velocities
/// and its own phase, so a visit the worklist skips would have found what the
/// last one found: the impulses are those of sweeping every manifold of a
/// struck body (the sweeps before `ImpactWorklist`), bit for bit, in the same
/// order — a sweep pops its queue in manifold order (backwards every other
/// sweep), and a manifold queued ahead of the sweep is visited in it, the others
/// in the next sweep.
#[derive(Clone, Debug, Default)]
struct ImpactWorklist {
    /// (body, manifold) for both bodies of every manifold, sorted: each body's
    /// manifolds, found by bisection.
    by_body: Vec<(u32, u32)>,
    /// Per manifold: 0 not queued, 1 queued in this sweep, 2 in the next.
    queued: Vec<u8>,
    /// This sweep's queue by visiting key (the manifold index, n − 1 − index on
    /// a backward sweep), smallest first; the next sweep's manifolds.
    now: BinaryHeap<Reverse<u32>>,
    next: Vec<u32>,
    forward: bool,
    /// The manifold being visited, and the number of manifolds.
    at: u32,
    n: u32,
}

impl ImpactWorklist {
    fn with_capacity(manifolds: usize) -> Self {
        ImpactWorklist {
            by_body: Vec::with_capacity(2 * manifolds),
            queued: Vec::with_capacity(manifolds),
            now: BinaryHeap::with_capacity(manifolds),
            next: Vec::with_capacity(manifolds),
            ..Default::default()
        }
    }

    /// Index the manifolds of `set` by body; nothing queued. (Only once pass 0
    /// struck something: O(M log M) then, nothing otherwise.)
    fn index(&mut self, model: &Model, set: &ContactSet) {
        let n = set.manifolds.len();
        self.by_body.clear();
        self.by_body.reserve(2 * n);
        for (mi, m) in set.manifolds.iter().enumerate() {
            let (ba, bb) = (model.geoms[m.geom_a].body, model.geoms[m.geom_b].body);
            self.by_body.push((ba as u32, mi as u32));
            self.by_body.push((bb as u32, mi as u32));
        }
        self.by_body.sort_unstable();
        self.queued.clear();
        self.queued.resize(n, 0);
        self.now.clear();
        self.now.reserve(n);
        self.next.clear();
        self.next.reserve(n);
        self.n = n as u32;
        self.forward = true;
        self.at = 0;
    }

    /// The visiting key of manifold `mi` in this sweep's direction.
    #[inline]
    fn key(&self, mi: u32) -> u32 {
        if self.forward {
            mi
        } else {
            self.n - 1 - mi
        }
    }

    /// Queue every manifold of body `b`: in this sweep those it has not reached
    /// (`in_sweep`: a sweep is under way), the others in the next.
    fn queue_body(&mut self, b: usize, in_sweep: bool) {
        let b = b as u32;
        let lo = self.by_body.partition_point(|&(x, _)| x < b);
        for i in lo..self.by_body.len() {
            let (x, mi) = self.by_body[i];
            if x != b {
                break;
            }
            let ahead = in_sweep && self.key(mi) > self.key(self.at);
            let k = self.key(mi);
            let q = &mut self.queued[mi as usize];
            match (*q, ahead) {
                (0, true) => {
                    *q = 1;
                    self.now.push(Reverse(k));
                }
                (0, false) => {
                    *q = 2;
                    self.next.push(mi);
                }
                // Already queued: ahead in this sweep, or behind it in the next.
                _ => {}
            }
        }
    }

    /// Start a sweep (forward or backward) over the manifolds queued for it.
    fn begin_sweep(&mut self, forward: bool) {
        self.forward = forward;
        self.now.clear();
        for i in 0..self.next.len() {
            let mi = self.next[i];
            self.queued[mi as usize] = 1;
            let k = self.key(mi);
            self.now.push(Reverse(k));
        }
        self.next.clear();
    }

    /// The next manifold of this sweep.
    fn pop(&mut self) -> Option<usize> {
        let Reverse(k) = self.now.pop()?;
        let mi = if self.forward { k } else { self.n - 1 - k };
        self.queued[mi as usize] = 0;
        self.at = mi;
        Some(mi as usize)
    }
}

/// Whether an impulse changes this body's velocity (not static, frozen or asleep).
#[inline]
fn moves(ib: &ImpulseBody) -> bool {
    ib.inv_mass != 0.0 || ib.inv_inertia_w != crate::math::Mat3::zeros()
}

impl Stepper for PenaltyStepper<'_> {
    type Workspace = PenaltyWorkspace;

    fn name(&self) -> &'static str {
        "penalty"
    }

    fn contacts_at_start(&self) -> bool {
        true
    }

    fn speculative_window(&self) -> Option<f64> {
        self.speculative.then_some(0.0)
    }

    fn advance(
        &self,
        tick: &Tick<'_>,
        data: &mut Data,
        col: &mut CollideWorkspace,
        ws: &mut PenaltyWorkspace,
    ) {
        let (model, h) = (tick.model, tick.h);
        let p = self.params;
        let cm = model_for(p.points, p.distribution);
        let Data {
            state,
            xfrc,
            frozen,
            pairs,
            rest_blocks,
            contacts,
            contact_pair,
            contact_wrench,
            stats,
            qpos,
            qvel,
            qfrc_cmd,
            qfrc_actuator,
            qfrc_passive,
            qacc,
            robots,
            contact_force,
            ..
        } = data;
        let PenaltyWorkspace {
            stages,
            stage_contacts,
            stage_contact_pair,
            wrench,
            bodies,
            impacts,
            sel,
            point_forces,
            support,
            implicit,
            k_explicit,
            robot_contact,
            k_free,
            free,
            probe,
        } = ws;
        let dynamic = |b: usize| model.bodies[b].kind == BodyKind::Free && !frozen[b];
        let t = Instant::now();
        if probe.on {
            probe.clear();
            (probe.energy[0], probe.kinetic[0]) = world_energy(model, state, dynamic, |_, s| *s);
        }
        // The step's manifolds as the pairs' rest poses say (`collide::NarrowMemo`).
        rest_manifolds(model, p, col, pairs, (contacts, contact_pair));

        // Nothing moves (every free body asleep or frozen, no robot, no contact):
        // the step's outputs without its passes.
        if model.robots.is_empty()
            && contacts.manifolds.is_empty()
            && free.iter().all(|&b| frozen[b as usize])
        {
            update_pair_memory(p, contacts, contact_pair, pairs);
            keep_rest_poses(col, contact_pair, pairs);
            report_contacts(contacts, stats);
            quiet_step(contact_wrench, contact_force, stats);
            lap(stats, Stage::Integrate, t);
            return;
        }

        // Contact: pair memory (eq. (2)), impacts (Fig. 2). Impulses change
        // velocities only, so the world inertias stay valid for stage 0.
        update_pair_memory(p, contacts, contact_pair, pairs);
        keep_rest_poses(col, contact_pair, pairs);
        report_contacts(contacts, stats);
        body_mass_props(model, state, frozen, robots, contacts, bodies);
        let semi_implicit = model.opt.integrator.first_order();
        // The support loads are read per manifold only (a pair's masses, its
        // weight, the normal split): with no contact at the step's start and no
        // intermediate stage to find one (semi-implicit Euler evaluates stage 0
        // only), nothing reads them and they are not computed (a robot or a body
        // in free flight). `compute` keeps no state that this changes: its height
        // order is sorted by a strict total order, whatever its input order.
        if !(semi_implicit && contacts.manifolds.is_empty()) {
            support.compute(model, state, dynamic, pairs);
        }
        let weights = &*support;
        let loads = &weights.load[..];
        // The normal rows are kept at rest where the narrow phase's memo keeps
        // the manifolds (the same tolerance, `[penalty] rest_tol`).
        let rest_tol = if col.memo.off || col.memo.rows_off {
            0.0
        } else {
            col.memo.tol
        };
        let cx = ForceCtx {
            model,
            p,
            cm,
            h,
            bodies,
            loads,
            implicit: semi_implicit,
            rest_tol,
            keep_blocks: rest_tol > 0.0 && !col.memo.blocks_off,
        };
        let mut mb = ModelBufs {
            sel: &mut *sel,
            pf: &mut *point_forces,
        };
        stats.impulses = resolve_impacts(
            &cx,
            state,
            (&mut *contacts, contact_pair),
            pairs,
            &mut mb,
            (impacts, &mut *probe),
        );
        if probe.on {
            (probe.energy[2], probe.kinetic[2]) = world_energy(model, state, dynamic, |_, s| *s);
        }
        stats.impact_sweeps = impacts.sweeps;
        stats.impact_visits = impacts.visits;
        let t = lap(stats, Stage::Contact, t);

        // Integrate, evaluating the force model at every stage.
        let mut narrow_ns = 0u64;
        implicit.iterations = 0;
        implicit.late_pairs = 0;
        robot_contact.clear_counters();
        let mut eval = |stage: usize,
                        st: &mut [BodyState],
                        q: &[f64],
                        v: &[f64],
                        k: &mut [Deriv],
                        kq: &mut [f64],
                        kv: &mut [f64]| {
            let (set, set_pair) = if stage == 0 {
                (&*contacts, &contact_pair[..])
            } else {
                // Intermediate stages: pose the links and collide again at the stage
                // state.
                let tn = Instant::now();
                link_states(model, robots, q, v, st);
                col.pose_geoms(model, st);
                col.narrow_phase_stage(model, stage_contacts, stage_contact_pair);
                narrow_ns += tn.elapsed().as_nanos() as u64;
                (&*stage_contacts, &stage_contact_pair[..])
            };
            if stage != 0 {
                body_mass_props(model, st, frozen, robots, set, bodies);
            }
            let cx = ForceCtx {
                model,
                p,
                cm,
                h,
                bodies,
                loads,
                implicit: semi_implicit,
                rest_tol,
                keep_blocks: rest_tol > 0.0 && !col.memo.blocks_off,
            };
            let mut mb = ModelBufs {
                sel: &mut *sel,
                pf: &mut *point_forces,
            };
            implicit.clear_rows();
            robot_contact.rows.clear();
            robot_contact.pairs.clear();
            let robot_rows = stage == 0 && semi_implicit && p.robot_implicit;
            contact_wrenches(
                &cx,
                st,
                (set, set_pair),
                pairs,
                &mut mb,
                (wrench, (stage == 0).then_some(&mut *contact_force)),
                (
                    semi_implicit.then_some(&mut *implicit),
                    robot_rows.then_some(&mut *robot_contact),
                ),
            );
            if stage == 0 {
                contact_wrench.copy_from_slice(wrench);
            }
            derivatives(model, st, frozen, Some(bodies), xfrc, wrench, k);
            if stage == 0 && semi_implicit {
                // The normal force, then friction on it, then the normal force
                // again with friction's wrench in the rates (it pitches the bodies:
                // the normal rows take that moment in the same step).
                k_explicit.copy_from_slice(k);
                let memory = !p.modal();
                if memory {
                    start_active_set(implicit, set_pair, pairs);
                }
                implicit.solve(model, h, st, bodies, (k, false));
                if memory {
                    remember_active_set(implicit, set_pair, pairs);
                }
                if probe.on {
                    (probe.energy[3], probe.kinetic[3]) =
                        world_energy(model, st, dynamic, |b, s| {
                            let mut e = *s;
                            e.v += k[b].dv * h;
                            e.x += e.v * h;
                            e.w += k[b].dw * h;
                            e
                        });
                }
                let any = implicit_friction(
                    &cx,
                    st,
                    (set, set_pair),
                    (&mut *pairs, &mut *rest_blocks),
                    (&mut *implicit, &mut *point_forces),
                    (contact_wrench, contact_force, k_explicit),
                    (weights, &dynamic, &*k),
                );
                if any {
                    let late = !implicit.late.is_empty();
                    if late {
                        k_free.copy_from_slice(k);
                    }
                    k.copy_from_slice(k_explicit);
                    implicit.solve(model, h, st, bodies, (k, true));
                    if p.friction.implicit {
                        bank_credit(implicit, pairs, h);
                    }
                    // Sticking pairs the solve with friction closed: their
                    // anchors, and the normal forces once more.
                    let n_late = if late {
                        late_friction(
                            &cx,
                            st,
                            (set, set_pair),
                            (&mut *pairs, &mut *rest_blocks),
                            (&mut *implicit, &mut *point_forces),
                            (contact_wrench, contact_force, k_explicit),
                            (weights, &dynamic, &*k_free),
                        )
                    } else {
                        0
                    };
                    if n_late > 0 {
                        implicit.late_pairs += n_late;
                        k.copy_from_slice(k_explicit);
                        implicit.solve(model, h, st, bodies, (k, true));
                    }
                    slide_follow(&cx, st, implicit, (contact_wrench, contact_force, k));
                }
                linear_finish(p, h, &implicit.linear, pairs);
                implicit.report(st, (contact_wrench, contact_force));
            }
            let record = (stage == 0).then_some(robots::Record {
                actuator: &mut qfrc_actuator[..],
                passive: &mut qfrc_passive[..],
                qacc: &mut qacc[..],
            });
            let load = RobotLoad {
                q,
                v,
                cmd: qfrc_cmd,
                state: st,
                contact: wrench,
                xfrc,
            };
            // Semi-implicit Euler recomputes q̇ at v⁺ (`configuration_rates`):
            // the stage's q̇ is not wanted (an empty `kq`, `robots::derivatives`).
            let kq = if semi_implicit { &mut [][..] } else { kq };
            robots::derivatives(model, h, robots, &load, kq, kv, record);
            if robot_rows {
                // The link pairs' normal force at the end of the step
                // (`penalty_robot`), after the robots' and free bodies' rates.
                let mut out = RobotOut {
                    k,
                    kv,
                    contact_wrench,
                    contact_force,
                };
                robot_contact.solve(model, h, robots, (q, st, bodies), &mut out);
                if robot_contact.solved() {
                    // The friction on the solved forces as a trial (no stick
                    // state moved), its rates into the rows, the normal again.
                    robot_friction(&cx, st, (set, pairs), point_forces, robot_contact, None);
                    robot_contact.resolve_with_friction(model, h, st, bodies);
                }
                robot_contact.apply(model, st, bodies, &mut out);
                let out = Some(&mut out);
                robot_friction(&cx, st, (set, pairs), point_forces, robot_contact, out);
                // The records (torques' implicit parts, q̈, sensors) at the
                // corrected q̈ under the reported contact wrenches.
                let load = RobotLoad {
                    q,
                    v,
                    cmd: qfrc_cmd,
                    state: st,
                    contact: contact_wrench,
                    xfrc,
                };
                let mut rec = robots::Record {
                    actuator: &mut qfrc_actuator[..],
                    passive: &mut qfrc_passive[..],
                    qacc: &mut qacc[..],
                };
                for (ri, (r, rd)) in model.robots.iter().zip(robots.iter_mut()).enumerate() {
                    if robot_contact.touched(ri) {
                        let qdd = &kv[r.v_offset..r.v_offset + r.nv()];
                        robots::records_at(r, rd, &load, h, qdd, &mut rec);
                    }
                }
            }
        };
        let gen = integrator::GenState {
            q: qpos,
            v: qvel,
            quat_at: &model.quat_at,
        };
        match model.opt.integrator {
            Integrator::Rk4 => {
                integrator::rk4_system(h, state, gen, dynamic, stages.stages(), &mut eval)
            }
            Integrator::SemiImplicitEuler | Integrator::Implicit => {
                integrator::semi_implicit_euler_system(
                    h,
                    state,
                    gen,
                    |b| free_inertia(model, frozen, b),
                    stages.euler(),
                    &mut eval,
                    |q, v, out| robots::configuration_rates(model, q, v, out),
                )
            }
        }
        // The links at the end-of-step state.
        link_states(model, robots, qpos, qvel, state);
        if probe.on {
            (probe.energy[4], probe.kinetic[4]) = world_energy(model, state, dynamic, |_, s| *s);
        }
        stats.solver_iterations = implicit.iterations;
        stats.friction_sweeps = implicit.linear.sweeps;
        stats.friction_relaxations = implicit.linear.relaxations;
        stats.friction_late_pairs = implicit.late_pairs;
        stats.robot_contact_rows = robot_contact.last_rows;
        stats.robot_contact_passes = robot_contact.last_passes;
        stats.robot_contact_failures += robot_contact.last_failures;
        let total = t.elapsed().as_nanos() as u64;
        stats.stage_ns[Stage::NarrowPhase as usize] += narrow_ns;
        stats.stage_ns[Stage::Integrate as usize] += total.saturating_sub(narrow_ns);
    }
}

/// The outputs of a step in which nothing moves and nothing touches: no wrench,
/// no manifold force, no impulse, no solver iteration (what the full passes give
/// then, bit for bit; the states are left as they are, as the integrator leaves
/// frozen bodies).
fn quiet_step(contact_wrench: &mut [Wrench], contact_force: &mut Vec<Vec3>, stats: &mut StepStats) {
    contact_wrench.iter_mut().for_each(|w| *w = Wrench::ZERO);
    contact_force.clear();
    stats.impulses = 0;
    stats.impact_sweeps = 0;
    stats.impact_visits = 0;
    stats.solver_iterations = 0;
}

/// The narrow phase's rest memo under the penalty stepper
/// (`collide::NarrowMemo`, tolerance [`collide::REST_TOL`]): the step's contact
/// set must be the one the state's `PairState::rest_poses` say — a pair whose
/// geoms are within the tolerance of its rest poses has the manifold found at
/// those, the others the one found at their poses — whatever the pipeline's
/// memo held (a fresh pipeline, a restored world, another world stepped by the
/// same pipeline): checked, and the narrow phase redone so if it was not.
fn rest_manifolds(
    model: &Model,
    p: &PenaltyParams,
    col: &mut CollideWorkspace,
    pairs: &[PairState],
    (contacts, contact_pair): (&mut ContactSet, &mut Vec<usize>),
) {
    if col.memo.off {
        return;
    }
    // The world's key, or (a test that turned the memo on) `REST_TOL`.
    col.memo.tol = if p.rest_tol > 0.0 {
        p.rest_tol
    } else {
        super::collide::REST_TOL
    };
    if !col.rest_consistent(pairs, contact_pair) {
        col.narrow_phase_rest(model, pairs, contacts, contact_pair);
    }
    // The served manifolds' depths at the present poses (to first order), so
    // that the forces keep their stiffness within the tolerance.
    col.carry_to_present(contacts, contact_pair);
}

/// The poses each pair's manifold of the step was found at, for the next
/// step's narrow phase (`PairState::rest_poses`: the pair routine's penetrating
/// manifolds; `None` for gap manifolds; pairs without a manifold were reset by
/// [`update_pair_memory`]).
fn keep_rest_poses(col: &CollideWorkspace, contact_pair: &[usize], pairs: &mut [PairState]) {
    if col.memo.off {
        return;
    }
    for (m, &pi) in contact_pair.iter().enumerate() {
        let found = col.found_at(m);
        let pair = &mut pairs[pi];
        // Rows kept are those of the manifold found at the rest poses: found
        // anew elsewhere, they are built anew.
        if found != pair.rest_poses {
            pair.rest_rows = None;
        }
        pair.rest_poses = found;
    }
}

/// Integral term of eq. (2) of 000, I_t = λ I_{t−1} + max_y d(y, t−1), and the
/// reset of pairs that no longer touch (phase back to New, memory cleared).
/// (Keeping a resting pair's whole memory while it is within the speculative
/// margin was measured and not kept: docs/BENCHMARKS.md "Piles that sleep,
/// sleeping worlds that cost ≈ 0 (scale4)".)
fn update_pair_memory(
    p: &PenaltyParams,
    set: &ContactSet,
    set_pair: &[usize],
    pairs: &mut [PairState],
) {
    for pair in pairs.iter_mut() {
        pair.touching = false;
    }
    for (m, &pi) in set.manifolds.iter().zip(set_pair) {
        let depth = m.max_depth(set);
        if depth <= 0.0 {
            continue;
        }
        let pair = &mut pairs[pi];
        pair.touching = true;
        pair.integral = p.forgetting * pair.integral + pair.last_max_depth;
        pair.last_max_depth = depth;
    }
    // A pair that does not penetrate starts over (phase New, no integral); one
    // within the speculative margin (a gap manifold) keeps its friction anchor,
    // and is in contact for the support graph (the load it is about to carry:
    // its gap rows hold it from this step on). Marked from the manifolds (not a
    // search of the manifold list per pair: that was O(pairs × manifolds)).
    for (m, &pi) in set.manifolds.iter().zip(set_pair) {
        let pair = &mut pairs[pi];
        if m.max_depth(set) <= 0.0 && !pair.touching {
            let (anchor, rows, on) = (pair.anchor, pair.implicit_rows, pair.implicit_on);
            *pair = PairState::new(pair.geom_a, pair.geom_b);
            pair.anchor = anchor;
            // (Its gap rows' active set too: where the next solve starts.)
            pair.implicit_rows = rows;
            pair.implicit_on = on;
            pair.touching = true;
        }
    }
    for pair in pairs.iter_mut().filter(|p| !p.touching) {
        *pair = PairState::new(pair.geom_a, pair.geom_b);
    }
}

/// The step's first implicit normal solve starts each point row where its pair
/// ended the last step's first solve (`PairState::implicit_on`; a point that was
/// no row then takes the default start): `pipeline::penalty_implicit`, "The
/// active set's start". Normal rows only (the first solve has no sticking
/// rows); not under the modal share. A manifold's rows are consecutive: its
/// pair's memory is read once per run of them.
fn start_active_set(implicit: &mut ImplicitContact, set_pair: &[usize], pairs: &[PairState]) {
    let (mut manifold, mut rows, mut on) = (u32::MAX, 0u64, 0u64);
    for row in implicit.rows.iter_mut() {
        if row.manifold != manifold {
            manifold = row.manifold;
            let pair = &pairs[set_pair[manifold as usize]];
            (rows, on) = (pair.implicit_rows, pair.implicit_on);
        }
        let bit = 1u64.checked_shl(row.point).unwrap_or(0);
        row.start = (rows & bit != 0).then_some(on & bit != 0);
    }
}

/// After the step's first implicit normal solve: each pair with rows keeps which
/// of its points were rows and which of them ended active, for the next step's
/// start ([`start_active_set`]); written once per run of a manifold's rows.
fn remember_active_set(implicit: &ImplicitContact, set_pair: &[usize], pairs: &mut [PairState]) {
    let (mut manifold, mut rows, mut on) = (u32::MAX, 0u64, 0u64);
    let mut keep = |m: u32, rows: u64, on: u64| {
        if m != u32::MAX {
            let pair = &mut pairs[set_pair[m as usize]];
            (pair.implicit_rows, pair.implicit_on) = (rows, on);
        }
    };
    for row in &implicit.rows[..implicit.normal_rows()] {
        if row.manifold != manifold {
            keep(manifold, rows, on);
            (manifold, rows, on) = (row.manifold, 0, 0);
        }
        let bit = 1u64.checked_shl(row.point).unwrap_or(0);
        rows |= bit;
        if row.is_on() {
            on |= bit;
        }
    }
    keep(manifold, rows, on);
}

/// Masses of a pair as the gains see them: (m1 + m2 with static = 0, reduced mass
/// with static = ∞). `None` if neither body moves.
#[inline]
fn pair_masses(
    model: &Model,
    bodies: &[ImpulseBody],
    loads: &[f64],
    ba: usize,
    bb: usize,
) -> Option<(f64, f64)> {
    // A body moves iff its mass properties are not those of a static body (see
    // `impulse_body`); gains scale with the mass each contact carries.
    let m = |b: usize| {
        let body = &model.bodies[b];
        (bodies[b].inv_mass > 0.0).then_some((body.gain_mass, body.mass))
    };
    // The gain mass is m1 + m2, or the load either body carries if larger (the
    // bottom of a stack carries what rests on it: 002 §5's rule as in
    // `contact::support`), so that every contact sinks about as deep under the
    // weight it supports as a lone body under its own.
    let load = loads[ba].max(loads[bb]);
    match (m(ba), m(bb)) {
        (Some((ga, a)), Some((gb, b))) => Some(((ga + gb).max(load), a * b / (a + b))),
        (Some((g, a)), None) | (None, Some((g, a))) => Some((g.max(load), a)),
        (None, None) => None,
    }
}

/// Everything the contact model needs for manifold `mi`.
#[inline]
fn context<'a>(
    cx: &ForceCtx<'_>,
    state: &'a [BodyState],
    set: &'a ContactSet,
    mi: usize,
    pair: &PairState,
) -> Option<(PairContext<'a>, usize, usize, Material)> {
    let (model, bodies) = (cx.model, cx.bodies);
    let m = &set.manifolds[mi];
    let (ga, gb) = (&model.geoms[m.geom_a], &model.geoms[m.geom_b]);
    let (m_pair, m_reduced) = pair_masses(model, bodies, cx.loads, ga.body, gb.body)?;
    let (ia, ib) = (&bodies[ga.body], &bodies[gb.body]);
    let ctx = PairContext {
        inv_mass: [ia.inv_mass, ib.inv_mass],
        inv_inertia_w: [ia.inv_inertia_w, ib.inv_inertia_w],
        flat: crate::contact::modal::flat_pair(ga.shape.kind(), gb.shape.kind()),
        normal: m.normal,
        points: set.points_of(m),
        deepest: m.deepest - m.points.start,
        a: &state[ga.body],
        b: &state[gb.body],
        m_pair,
        m_reduced,
        h: cx.h,
        integral: pair.integral,
        // No supported weight: friction's load feed-forward and weight-floored stick
        // cone are Hunt–Crossley's only for now. With the PID force of eq. (3) they
        // deepen 000's block penetration (mean 2.037 → 2.062 mm) and the 20-pile's
        // maximum penetration (0.39 → 0.45 mm), tests/paper_000.rs.
        weight: Vec3::zeros(),
    };
    Some((
        ctx,
        ga.body,
        gb.body,
        Material::combine(&ga.material, &gb.material),
    ))
}

/// The gap rows of a speculative manifold `mi` (every point depth d ≤ 0) of a
/// linearly implicit pair: each point enters the implicit solve with the law
/// f = (kp (d − h s⁺) − kv s⁺)/r (r the manifold's point count, the gains of the
/// pair; under the modal share f = (m_r A)⁺ (kp (d − h s⁺) − kv s⁺) over the
/// points, `penalty_implicit` "Modal pairs"), applies no explicit force and is
/// active only if f > 0 — a body placed
/// touching, or about to touch within the step, is held from that step on instead of
/// free-falling into the surface first. Only contacts that approach slower than the
/// impact threshold ε of 000's Fig. 2: a faster approach is an impact, which the
/// impulse of `resolve_impacts` takes in the step its gap closes (and a gap it
/// does not close within the step is free flight).
fn gap_rows(
    cx: &ForceCtx<'_>,
    state: &[BodyState],
    set: &ContactSet,
    mi: usize,
    pair: &PairState,
    implicit: &mut ImplicitContact,
) {
    let Some((ctx, ba, bb, _)) = context(cx, state, set, mi, pair) else {
        return;
    };
    if !implicit_pair(cx, ba, bb) || ctx.points.is_empty() {
        return;
    }
    let deepest = ctx.points[ctx.deepest].lever;
    if cx.p.impacts.enabled && ctx.normal_velocity(&deepest) < -cx.p.impacts.epsilon {
        return;
    }
    let gains = pair_gains(cx, &ctx, ba, bb);
    let rows = &mut implicit.rows;
    if cx.p.modal() && ctx.flat {
        let start = rows.len();
        for (i, pt) in ctx.points.iter().enumerate() {
            rows.push(Row::modal_point(
                (ba, bb),
                (pt.lever, pt.lever, ctx.normal),
                (gains.kp * pt.depth.min(0.0), true),
                (mi, i as u32),
            ));
        }
        let c = cx.h * gains.kp + gains.kv;
        implicit.push_modal(start, (c, 0.0), ctx.m_reduced);
        return;
    }
    let r = ctx.points.len() as f64;
    let (kp_r, c) = (gains.kp / r, (cx.h * gains.kp + gains.kv) / r);
    for (i, pt) in ctx.points.iter().enumerate() {
        rows.push(Row::gap(
            (ba, bb),
            (pt.lever, pt.lever, ctx.normal),
            (kp_r, c),
            pt.depth.min(0.0),
            (mi, i as u32),
        ));
    }
}

/// Friction of the linearly implicit pairs, taken on their end-of-step normal
/// forces (the rows' f_end after [`ImplicitContact::solve`]): the stick/slip update
/// and the tangential forces of `contact::friction` with f_i⁺ in place of the
/// explicit f_i, added to the explicit rates `k` (Δv̇ = M⁻¹ F_t) and to the reported
/// wrenches and manifold forces. A contact whose normal force the implicit solve
/// creates (a gap row, or a point the explicit force under-estimates while a body
/// lands) has its friction cone μ f⁺ from that step on.
/// `(rows, pf)`: the solved rows and a point-force scratch buffer; `(wrench,
/// manifold_force, k)`: what the friction is added to; `(support, dynamic,
/// free)`: the support graph, which bodies move, and the rates of the step's
/// normal solve without friction (the linear anchors' other forces).
fn implicit_friction(
    cx: &ForceCtx<'_>,
    state: &[BodyState],
    (set, set_pair): (&ContactSet, &[usize]),
    (pairs, kept): (&mut [PairState], &mut Vec<RestBlock>),
    (implicit, pf): (&mut ImplicitContact, &mut Vec<PointForce>),
    (wrench, manifold_force, k): (&mut [Wrench], &mut [Vec3], &mut [Deriv]),
    (support, dynamic, free): (&SupportLoads, &dyn Fn(usize) -> bool, &[Deriv]),
) -> bool {
    let p = cx.p;
    let mut any = false;
    let mut i = 0;
    // The point rows (the modal pairs' mode rows follow them).
    let n_rows = implicit.normal_rows();
    // One normal row per point and at most two sticking rows per manifold: sized
    // by the contact set's capacity, not by this step's count (a warm-up's
    // high-water mark let a later step with more rows allocate), so the buffers
    // grow only when the contact set itself did.
    let (np, nm) = (set.points.capacity(), set.manifolds.capacity());
    // (And three mode rows per modal pair.)
    let modes = if p.modal() { 3 * nm } else { 0 };
    let rows = np + 2 * nm + modes;
    if implicit.rows.capacity() < rows {
        implicit.rows.reserve(rows - implicit.rows.len());
    }
    if implicit.sticks.capacity() < nm {
        implicit.sticks.reserve(nm - implicit.sticks.len());
    }
    implicit.linear.clear(state.len());
    implicit.linear.warm = p.friction.warm_start;
    implicit.linear.direct = p.friction.direct;
    implicit.linear.omega = p.friction.over_relaxation;
    if implicit.linear.blocks.capacity() < nm {
        implicit
            .linear
            .blocks
            .reserve(nm - implicit.linear.blocks.len());
    }
    if implicit.linear.rolls.capacity() < nm {
        implicit
            .linear
            .rolls
            .reserve(nm - implicit.linear.rolls.len());
    }
    // The linear anchors' tangential loads: what the normals of the contacts that
    // hold a body up together cannot carry (`contact::support::NormalSplit`).
    let split_on = !p.friction.implicit && p.friction.linear;
    implicit.split.clear(if split_on { nm } else { 0 });
    // Each carrying pair's weight share, computed once for the split and for
    // its friction (`pair_friction`): the same call on the same inputs.
    implicit.pair_weights.clear();
    implicit
        .pair_weights
        .resize(if split_on { nm } else { 0 }, None);
    // The sticking pairs open at this solve, on the default path (linear
    // anchors) with `late_pairs` (`late_friction`).
    let late_on = split_on && p.friction.late_pairs;
    implicit.late.clear();
    implicit.kept_served = 0;
    if cx.keep_blocks {
        // Sized as the step's other per-manifold buffers (by the contact set's
        // capacity): a slot per manifold.
        if kept.capacity() < nm {
            kept.reserve(nm - kept.len());
        }
        if implicit.kept_live.capacity() < nm {
            implicit.kept_live.reserve(nm - implicit.kept_live.len());
        }
        free_unheld_blocks(set_pair, pairs, kept, implicit);
    }
    if implicit.late.capacity() < nm {
        implicit.late.reserve(nm - implicit.late.len());
    }
    if split_on {
        let up = support.up();
        let mut j = 0;
        while j < n_rows {
            let mi = implicit.rows[j].manifold as usize;
            let mut carries = false;
            while j < n_rows && implicit.rows[j].manifold as usize == mi {
                carries |= implicit.rows[j].f_end > 0.0;
                j += 1;
            }
            if !carries {
                continue;
            }
            let m = &set.manifolds[mi];
            let (ba, bb) = (cx.model.geoms[m.geom_a].body, cx.model.geoms[m.geom_b].body);
            let w = support.pair_weight(cx.model, state, dynamic, ba, bb);
            if let Some(slot) = implicit.pair_weights.get_mut(mi) {
                *slot = Some(w);
            }
            implicit.split.push(mi, (ba, bb), m.normal, w, up);
        }
        implicit.split.solve();
    }
    while i < n_rows {
        let rows = &implicit.rows;
        let mi = rows[i].manifold as usize;
        let (start, mut end) = (i, i);
        pf.clear();
        while end < n_rows && rows[end].manifold as usize == mi {
            if rows[end].f_end > 0.0 {
                pf.push(PointForce {
                    point: rows[end].point,
                    f_n: rows[end].f_end,
                });
            }
            end += 1;
        }
        i = end;
        let pi = set_pair[mi];
        // Kept whole and lent to `pair_friction` (not destructured: no copy).
        let Some(mut pc) = context(cx, state, set, mi, &pairs[pi]) else {
            continue;
        };
        if pf.is_empty() {
            // No force-carrying point at this solve: a sticking pair may still
            // close at the solve with friction's wrench (`late_friction`).
            if late_on && pairs[pi].anchor.is_some() {
                implicit.late.push([mi as u32, start as u32, end as u32]);
            }
            continue;
        }
        any |= pair_friction(
            cx,
            (set, mi, pi, (start, end)),
            (&mut pc.0, pc.1, pc.2, pc.3),
            (&mut *pairs, &mut *kept),
            (&mut *implicit, &*pf),
            (&mut *wrench, &mut *manifold_force, &mut *k),
            (state, support, dynamic),
        );
    }
    // The linearly implicit anchors, solved where they share bodies, over the
    // step's end-of-step rates: the rates `free` of the normal solve (gravity, applied and explicit forces, the
    // implicit normal forces) enter each block's backward Euler
    // (`friction::LinearSticks::set_free`).
    let linear = &mut implicit.linear;
    set_free_rates(linear, dynamic, free, cx.h);
    linear.solve(cx.h);
    any |= linear_apply((cx, set), linear, k, Some((wrench, manifold_force)), 1.0);
    any
}

/// The late pairs of a step (`[penalty.friction] late_pairs`, opt-in; linear
/// anchors, not `implicit`): a sticking pair
/// (anchor set) that had no force-carrying point at the first normal solve, so
/// got no friction in [`implicit_friction`], but carries force at the second (the
/// other pairs' friction pressed it shut: in a tetrahedron of spheres the two
/// bottom spheres that touch are pushed apart by the top's normal forces alone and
/// pressed together by the anchors that hold them, and a pair closed without
/// friction lets the load swap between them every step, a period-2 chatter,
/// docs/EXPERIMENTS.md). Each gets its friction on the second solve's forces
/// ([`pair_friction`]: its block in the linear anchors' solve), the anchors are
/// solved again from the first solve's rates `free` with the first solve's
/// wrenches taken out of `k` and the reports, and the caller solves the normal
/// forces once more. One such pass per step (bounded). Returns the number of late
/// pairs (0: nothing changed).
fn late_friction(
    cx: &ForceCtx<'_>,
    state: &[BodyState],
    (set, set_pair): (&ContactSet, &[usize]),
    (pairs, kept): (&mut [PairState], &mut Vec<RestBlock>),
    (implicit, pf): (&mut ImplicitContact, &mut Vec<PointForce>),
    (wrench, manifold_force, k): (&mut [Wrench], &mut [Vec3], &mut [Deriv]),
    (support, dynamic, free): (&SupportLoads, &dyn Fn(usize) -> bool, &[Deriv]),
) -> usize {
    let closed = |implicit: &ImplicitContact, c: usize| {
        let [_, start, end] = implicit.late[c];
        implicit.rows[start as usize..end as usize]
            .iter()
            .any(|r| r.f_end > 0.0)
    };
    if !(0..implicit.late.len()).any(|c| closed(implicit, c)) {
        return 0;
    }
    // The first friction solve's anchor wrenches out of the rates and reports:
    // the solve of every block together replaces them.
    linear_apply(
        (cx, set),
        &implicit.linear,
        k,
        Some((&mut *wrench, &mut *manifold_force)),
        -1.0,
    );
    let mut added = 0;
    for c in 0..implicit.late.len() {
        let [mi, start, end] = implicit.late[c].map(|v| v as usize);
        pf.clear();
        for r in &implicit.rows[start..end] {
            if r.f_end > 0.0 {
                pf.push(PointForce {
                    point: r.point,
                    f_n: r.f_end,
                });
            }
        }
        if pf.is_empty() {
            continue;
        }
        let pi = set_pair[mi];
        // Kept whole and lent to `pair_friction` (not destructured: no copy).
        let Some(mut pc) = context(cx, state, set, mi, &pairs[pi]) else {
            continue;
        };
        pair_friction(
            cx,
            (set, mi, pi, (start, end)),
            (&mut pc.0, pc.1, pc.2, pc.3),
            (&mut *pairs, &mut *kept),
            (&mut *implicit, &*pf),
            (&mut *wrench, &mut *manifold_force, &mut *k),
            (state, support, dynamic),
        );
        added += 1;
    }
    let linear = &mut implicit.linear;
    set_free_rates(linear, dynamic, free, cx.h);
    linear.resolve(cx.h);
    linear_apply((cx, set), linear, k, Some((wrench, manifold_force)), 1.0);
    added
}

/// Friction of one pair with force-carrying points `pf` (the rows `start..end` of
/// manifold `mi`, pair `pi`) on a normal solve's end-of-step forces: the
/// stick/slip update, then the sticking rows, the linear anchor's block (and its
/// rolling anchor) pushed for the coupled solve, or the explicit forces added to
/// the wrenches and the rates `k`. True if a force was applied or a sticking
/// row added.
fn pair_friction(
    cx: &ForceCtx<'_>,
    (set, mi, pi, (start, end)): (&ContactSet, usize, usize, (usize, usize)),
    (ctx, ba, bb, mat): (&mut PairContext<'_>, usize, usize, Material),
    (pairs, kept): (&mut [PairState], &mut Vec<RestBlock>),
    (implicit, pf): (&mut ImplicitContact, &[PointForce]),
    (wrench, manifold_force, k): (&mut [Wrench], &mut [Vec3], &mut [Deriv]),
    (state, support, dynamic): (&[BodyState], &SupportLoads, &dyn Fn(usize) -> bool),
) -> bool {
    let p = cx.p;
    // The sticking rows, or the explicit anchor linearly implicit in the
    // pair's own velocity (stable at any h: `friction::StickMode::Linear`).
    let mode = if p.friction.implicit {
        StickMode::Rows
    } else {
        let m = &set.manifolds[mi];
        let mode = friction::explicit_mode(
            &p.friction,
            cx.model.geoms[m.geom_a].shape.kind(),
            cx.model.geoms[m.geom_b].shape.kind(),
        );
        // A modal pair holds its patch's tilt at the translational rate
        // (`contact::modal`), and where its share releases points (they would
        // pull) it turns about the points left as a rigid body about its edge:
        // its rotation is not the normal springs' slow elastic tilt that the
        // linear anchor's `Tilt` discounts under 1/r (read from the depths,
        // which still span the centre of mass). Discounted, a domino turning
        // about its edge had its centre's motion read as slip at the force
        // centroid and the anchor slid at the cone against it (F_x = −μ m g),
        // tipping it from 0.5 ω*. Not discounted, a box placed on an incline
        // settles 0.25 mm in 2 s (1/r's: 7.7e-4 mm); discounted only while the
        // share keeps every point, a tall box stood on a 16° ramp it must tip
        // from (docs/EXPERIMENTS.md, "modal1").
        match mode {
            StickMode::Linear { .. } if p.modal() && ctx.flat => StickMode::Linear { tilt: false },
            m => m,
        }
    };
    // A resting pair's block kept from an earlier step (`KeptBlock`), else
    // none until this step's is built.
    if cx.keep_blocks {
        let at = (mi, pi, (start, end));
        if kept_block(cx, at, ctx, (mat, mode), (pairs, kept), implicit) {
            return false;
        }
        drop_block(&mut pairs[pi], kept);
    }
    let mut any = false;
    // The weight the contact carries: the sticking cone is taken on
    // max(f⁺, W_n) and the load fed forward (`contact::friction`), as under
    // Hunt–Crossley.
    let w = match implicit.pair_weights.get(mi).copied().flatten() {
        Some(w) => w,
        None => support.pair_weight(cx.model, state, dynamic, ba, bb),
    };
    ctx.weight = implicit.split.weight(mi, ctx.normal, w);
    let ctx = &*ctx;
    let cen = if mat.mu > 0.0 {
        friction::centroid(ctx, pf)
    } else {
        None
    };
    let implicit_stick = p.friction.implicit;
    let terms =
        friction::update_state_at(&p.friction, mat.mu, ctx, (pf, cen), &mut pairs[pi], mode);
    // Read in place (the ≈ 200-byte anchor is not copied): `pairs[pi]` is written
    // again only after the last read below.
    let anchor = pairs[pi].anchor.as_ref();
    let (xa, xb) = (ctx.a.x, ctx.b.x);
    let (mut wa, mut wb) = (Wrench::ZERO, Wrench::ZERO);
    let stick = if implicit_stick {
        friction::implicit_stick(&p.friction, mat.mu, ctx, cen, anchor)
    } else {
        None
    };
    let mut rolled = false;
    let twist = if let Some(st) = stick {
        // Sticking: the anchor spring–damper as two tangential rows of the
        // implicit solve, its cone checked there; the twist stays explicit.
        let first = implicit.rows.len();
        for (t, f0) in st.t.iter().zip(st.f0) {
            let mut row = Row::new(
                (ba, bb),
                (st.c, st.c, *t),
                (st.damp, 0.0),
                (f0, 0.0),
                (mi, u32::MAX),
            );
            row.stick = implicit.sticks.len() as u32;
            implicit.rows.push(row);
        }
        let mut grp = StickGroup::new(first, (start, end), mat.mu, st.w_n);
        // The pair's banked cone impulse, spendable this step ([`bank_credit`]).
        grp.extra = st.credit / cx.h;
        grp.pair = pi as u32;
        grp.cap = st.cap;
        implicit.sticks.push(grp);
        any = true;
        st.twist
    } else if let Some(blk) = match mode {
        StickMode::Linear { .. } => friction::linear_block(
            &p.friction,
            mat.mu,
            ctx,
            cen,
            (anchor, mode),
            (terms.as_ref(), ctx.h),
            &mut implicit.linear.blocks,
        ),
        _ => None,
    } {
        // Sticking, anchor linearly implicit: solved with the step's other
        // sticking pairs on the same bodies after this loop
        // (`friction::LinearSticks`); the twist stays explicit. Pushed by
        // `linear_block` and completed here in place.
        if let (Some(a), Some((_, total, _))) = (anchor, cen) {
            blk.bank = friction::BankInputs {
                cone: (mat.mu, total, friction::carried_normal(ctx)),
                cap: friction::bank_cap(&p.friction, ctx),
                motion: friction::anchor_normal_motion(ctx, a),
            };
        }
        blk.bodies = [ba, bb];
        blk.tag = [mi, pi];
        if cx.keep_blocks {
            let rows = &implicit.rows[start..end];
            let cursor = &mut implicit.kept_cursor;
            keep_block(cx, (pi, rows), (mat, mode), (pairs, kept), blk, cursor);
        }
        // Rolling resistance held by its angular anchor, solved with them
        // (`friction::RollBlock`).
        if let Some(a) = pairs[pi].anchor.as_mut().filter(|_| mat.rolling > 0.0) {
            friction::update_roll(&p.friction, mat.rolling, ctx, pf, a);
            if let Some(mut rb) =
                friction::roll_block(&p.friction, mat.rolling, ctx, pf, (a, ctx.h))
            {
                rb.bodies = [ba, bb];
                rb.tag = pi;
                implicit.linear.rolls.push(rb);
                rolled = true;
            }
        }
        Vec3::zeros()
    } else {
        let mut ft = Vec3::zeros();
        let twist = friction::tangential_forces_at(
            &p.friction,
            mat.mu,
            ctx,
            pf,
            cen,
            (anchor, mode),
            terms.as_ref(),
            |pt, f| {
                ft += f;
                wa.add_force_at(f, pt, xa);
                wb.add_force_at(-f, pt, xb);
            },
        );
        // Sliding: each point's Coulomb force per newton, so that the friction
        // follows the normal force of the step's last solve (`slide_follow`).
        // Not under the clamped explicit anchor (`linear = false`, the default
        // before the linear anchors): there its pushed pile's sleeping and awake
        // runs parted by 1.35e-3 m with it (`tests/sleep.rs`, bound 1e-3 m), not
        // investigated; that path keeps the first solve's friction.
        // A face or line contact's patch splits its integrated law by point
        // (`contact::patch`): each row's share, a force and a moment about n.
        if anchor.is_none() && cen.is_some() && p.friction.linear {
            let mut shares = [PerNewton::default(); patch::MAX_POINTS];
            let patch = Patch::new(ctx, pf);
            if let Some(patch) = &patch {
                patch.sliding_per_newton(ctx, mat.mu, p.friction.v_stick, &mut shares);
            }
            for row in &mut implicit.rows[start..end] {
                if row.f_end > 0.0 && row.stick == u32::MAX {
                    let pt = &ctx.points[row.point as usize];
                    let share = match patch.as_ref().and_then(|pa| pa.slot(row.point)) {
                        Some(j) => Some(shares[j]),
                        None => friction::sliding_per_newton(&p.friction, mat.mu, ctx, pt).map(
                            |force| PerNewton {
                                force,
                                torque: Vec3::zeros(),
                            },
                        ),
                    };
                    if let Some(e) = share {
                        row.slide = e.force;
                        row.slide_twist = e.torque;
                        row.f_slide = row.f_end;
                    }
                }
            }
        }
        // A sticking pair (one force at its centroid) banks its unused cone
        // over the transient (`friction::bank`): its explicit spring–damper may
        // spend it in a later step.
        if let (Some(a), Some((_, total, _))) = (pairs[pi].anchor.as_mut(), cen) {
            let w_n = friction::carried_normal(ctx);
            let cap = friction::bank_cap(&p.friction, ctx);
            let motion = friction::anchor_normal_motion(ctx, a);
            friction::bank_momentum(a, (mat.mu, total, w_n), ft.norm(), cx.h, cap, motion);
        }
        twist
    };
    wa.torque += twist;
    wb.torque -= twist;
    if let Some(tau) = friction::rolling_torque(mat.rolling, ctx, pf).filter(|_| !rolled) {
        wa.torque += tau;
        wb.torque -= tau;
    }
    any |= wa.force != Vec3::zeros() || wa.torque != Vec3::zeros();
    add_pair_wrench(cx, (ba, bb), (wa, wb), (wrench, k));
    if let Some(mf) = manifold_force.get_mut(mi) {
        *mf += wa.force;
    }
    any
}

/// Whether a pair may keep its linear anchor's block (`KeptBlock`): under
/// `[penalty] rest_tol`, sticking on the linear anchors without rolling
/// resistance, its manifold served at rest poses with its candidates kept
/// (`PairState::rest_rows`), at most `REST_ROW_POINTS` rows.
fn block_keepable(
    cx: &ForceCtx<'_>,
    (mat, mode): (Material, StickMode),
    pair: &PairState,
    rows: usize,
) -> bool {
    cx.keep_blocks
        && mat.mu > 0.0
        && mat.rolling <= 0.0
        && matches!(mode, StickMode::Linear { .. })
        && pair.anchor.is_some()
        && pair.rest_poses.is_some()
        && pair.rest_rows.is_some()
        && rows <= REST_ROW_POINTS
}

/// The tolerance on a kept block's f_end, N: kp `rest_tol` (the force the
/// contact law gives a depth error of the rest tolerance).
#[inline]
fn kept_force_tol(cx: &ForceCtx<'_>, ctx: &PairContext<'_>) -> f64 {
    cx.rest_tol * cx.p.kp.value(ctx.m_pair)
}

/// A kept block served (`Data::rest_blocks`), pushed for the coupled solve:
/// the pair keepable, its slot naming it, its manifold found at the same rest
/// poses, the same rows, each f_end within [`kept_force_tol`] of the build's,
/// and its anchor inside its cone at this state (`LinearBlock::kept_holds`).
/// The anchor is not recentred (its stretch is read from it at the present
/// poses). The block is read from the state's words (`LinearBlock::load`), so a
/// restored world, in any pipeline, serves what the original did.
fn kept_block(
    cx: &ForceCtx<'_>,
    (mi, pi, (start, end)): (usize, usize, (usize, usize)),
    ctx: &PairContext<'_>,
    (mat, mode): (Material, StickMode),
    (pairs, kept): (&[PairState], &[RestBlock]),
    implicit: &mut ImplicitContact,
) -> bool {
    let pair = &pairs[pi];
    let rows = &implicit.rows[start..end];
    if !block_keepable(cx, (mat, mode), pair, rows.len()) {
        return false;
    }
    let (Some(anchor), Some(rp)) = (pair.anchor.as_ref(), pair.rest_poses.as_ref()) else {
        return false;
    };
    let Some(kb) = kept.get(pair.rest_block as usize) else {
        return false;
    };
    let tol = kept_force_tol(cx, ctx);
    let same = kb.geoms == [pair.geom_a, pair.geom_b]
        && kb.rows as usize == rows.len()
        && kb.rest_poses == *rp
        && rows.iter().enumerate().all(|(k, r)| {
            r.point == kb.point[k]
                && (r.f_end > 0.0) == (kb.f_end[k] > 0.0)
                && (r.f_end - kb.f_end[k]).abs() <= tol
        });
    if !same {
        return false;
    }
    let blocks = &mut implicit.linear.blocks;
    let Some(blk) = friction::LinearBlock::load(blocks, &kb.words) else {
        return false;
    };
    blk.refresh(ctx, anchor, ctx.h);
    if !blk.kept_holds() {
        blocks.pop();
        return false;
    }
    blk.tag = [mi, pi];
    implicit.kept_served += 1;
    true
}

/// Frees the pair's kept block's slot, if it holds one.
fn drop_block(pair: &mut PairState, kept: &mut [RestBlock]) {
    if let Some(kb) = kept.get_mut(pair.rest_block as usize) {
        if kb.geoms == [pair.geom_a, pair.geom_b] {
            kb.geoms = RestBlock::FREE;
        }
    }
    pair.rest_block = NO_REST_BLOCK;
}

/// Keeps a block just built (`Data::rest_blocks`) where the pair may keep it:
/// in the first free slot from `cursor` (reset each step by
/// [`free_unheld_blocks`]; the pairs are visited in the step's order, so the
/// slots are a function of the state), else a new one.
fn keep_block(
    cx: &ForceCtx<'_>,
    (pi, rows): (usize, &[Row]),
    (mat, mode): (Material, StickMode),
    (pairs, kept): (&mut [PairState], &mut Vec<RestBlock>),
    blk: &friction::LinearBlock,
    cursor: &mut usize,
) {
    let pair = &mut pairs[pi];
    let Some(rp) = pair
        .rest_poses
        .filter(|_| block_keepable(cx, (mat, mode), pair, rows.len()))
    else {
        return;
    };
    let mut kb = RestBlock {
        geoms: [pair.geom_a, pair.geom_b],
        rest_poses: rp,
        rows: rows.len() as u8,
        point: [0; REST_ROW_POINTS],
        f_end: [0.0; REST_ROW_POINTS],
        words: [0.0; REST_BLOCK_WORDS],
    };
    for (k, r) in rows.iter().enumerate() {
        kb.point[k] = r.point;
        kb.f_end[k] = r.f_end;
    }
    blk.save(&mut kb.words);
    while *cursor < kept.len() && kept[*cursor].geoms != RestBlock::FREE {
        *cursor += 1;
    }
    match kept.get_mut(*cursor) {
        Some(slot) => *slot = kb,
        None => kept.push(kb),
    }
    pair.rest_block = *cursor as u32;
    *cursor += 1;
}

/// The step's sweep of the kept blocks (`Data::rest_blocks`): only the pairs
/// with a manifold this step (`set_pair`) hold theirs (at most one slot per
/// manifold: the table stays within the contact set's capacity); every other
/// slot is freed and a pair naming a freed slot, or one that does not name
/// it, holds none; the free slots at the end are dropped, and new blocks are
/// kept from the first free slot on.
fn free_unheld_blocks(
    set_pair: &[usize],
    pairs: &mut [PairState],
    kept: &mut Vec<RestBlock>,
    implicit: &mut ImplicitContact,
) {
    implicit.kept_cursor = 0;
    if kept.is_empty() {
        return;
    }
    let live = &mut implicit.kept_live;
    live.clear();
    live.resize(kept.len(), false);
    for &pi in set_pair {
        let Some(pair) = pairs.get(pi) else {
            continue;
        };
        let i = pair.rest_block as usize;
        if kept
            .get(i)
            .is_some_and(|kb| kb.geoms == [pair.geom_a, pair.geom_b])
        {
            live[i] = true;
        }
    }
    for (kb, &held) in kept.iter_mut().zip(live.iter()) {
        if !held {
            kb.geoms = RestBlock::FREE;
        }
    }
    for pair in pairs.iter_mut() {
        let i = pair.rest_block as usize;
        let holds =
            live.get(i).copied().unwrap_or(false) && kept[i].geoms == [pair.geom_a, pair.geom_b];
        if pair.rest_block != NO_REST_BLOCK && !holds {
            pair.rest_block = NO_REST_BLOCK;
        }
    }
    while kept.last().is_some_and(|kb| kb.geoms == RestBlock::FREE) {
        kept.pop();
    }
}

/// Adds `s` times the linear anchors' wrenches (blocks and rolling anchors) to
/// the rates `k` of the free bodies and, if given, to the reported wrenches and
/// the manifolds' forces; true if any is non-zero.
fn linear_apply(
    (cx, set): (&ForceCtx<'_>, &ContactSet),
    linear: &friction::LinearSticks,
    k: &mut [Deriv],
    mut report: Option<(&mut [Wrench], &mut [Vec3])>,
    s: f64,
) -> bool {
    let mut any = false;
    let mut add = |(ba, bb): (usize, usize), (wa, wb): (Wrench, Wrench), mi: Option<usize>| {
        for (b, w) in [(ba, wa), (bb, wb)] {
            let body = &cx.bodies[b];
            if body.inv_mass > 0.0 && cx.model.bodies[b].kind == BodyKind::Free {
                k[b].dv += w.force * body.inv_mass;
                k[b].dw += body.inv_inertia_w * w.torque;
            }
        }
        if let Some((wrench, manifold_force)) = report.as_mut() {
            for (b, w) in [(ba, wa), (bb, wb)] {
                wrench[b].force += w.force;
                wrench[b].torque += w.torque;
            }
            if let Some(mf) = mi.and_then(|mi| manifold_force.get_mut(mi)) {
                *mf += wa.force;
            }
        }
    };
    for blk in &linear.blocks {
        let ([ba, bb], [mi, _]) = (blk.bodies, blk.tag);
        // f at c, its moment on a held tilt left to the normal springs
        // (`friction::LinearBlock::wrenches`, its patch read from the
        // manifold's points).
        let points = set.manifolds.get(mi).map_or(&[][..], |m| set.points_of(m));
        let [(fa, ta), (fb, tb)] = blk.wrenches(points);
        let wa = Wrench {
            force: fa * s,
            torque: ta * s,
        };
        let wb = Wrench {
            force: fb * s,
            torque: tb * s,
        };
        any |= blk.f != Vec3::zeros() || blk.tau != 0.0;
        add((ba, bb), (wa, wb), Some(mi));
    }
    for rb in &linear.rolls {
        let [ba, bb] = rb.bodies;
        let wa = Wrench {
            force: Vec3::zeros(),
            torque: rb.tau * s,
        };
        let wb = Wrench {
            force: Vec3::zeros(),
            torque: -rb.tau * s,
        };
        any |= rb.tau != Vec3::zeros();
        add((ba, bb), (wa, wb), None);
    }
    any
}

/// The anchors' free rates (`friction::LinearSticks::set_free`) from the rates
/// `k` of a normal solve: h k of every moving body of a block or rolling anchor.
fn set_free_rates(
    linear: &mut friction::LinearSticks,
    dynamic: &dyn Fn(usize) -> bool,
    k: &[Deriv],
    h: f64,
) {
    for i in 0..linear.blocks.len() + linear.rolls.len() {
        let bodies = match linear.blocks.get(i) {
            Some(blk) => blk.bodies,
            None => linear.rolls[i - linear.blocks.len()].bodies,
        };
        for b in bodies {
            if dynamic(b) {
                linear.set_free(b, [k[b].dv * h, k[b].dw * h]);
            }
        }
    }
}

/// After the step's last friction solve: each linear anchor's unused cone banked
/// over the transient (`friction::bank`), and under the warm start its solve
/// kept as the next step's start (`friction::LinearSticks::solve`).
fn linear_finish(
    p: &PenaltyParams,
    h: f64,
    linear: &friction::LinearSticks,
    pairs: &mut [PairState],
) {
    for blk in &linear.blocks {
        let pi = blk.tag[1];
        let mut slid = false;
        if let Some(a) = pairs[pi].anchor.as_mut() {
            let bk = blk.bank;
            friction::bank_momentum(a, bk.cone, blk.f.norm(), h, bk.cap, bk.motion);
            a.held_inside = blk.inside_cone();
            if p.friction.warm_start {
                a.warm = blk.deviation();
                a.warm_tau = blk.tau;
            }
            // A trial anchor (`[penalty.friction] solved_stick`) sticks where
            // the coupled solve held it inside its cones; where it ended on
            // them the pair slid this step under the cone's force, and slides
            // on.
            if a.trial {
                a.trial = false;
                slid = !blk.holds();
            }
        }
        if slid {
            pairs[pi].anchor = None;
        }
    }
    for rb in &linear.rolls {
        if let Some(a) = pairs[rb.tag]
            .anchor
            .as_mut()
            .filter(|_| p.friction.warm_start)
        {
            a.warm_roll = rb.tau;
        }
    }
}

/// Adds a pair's friction wrenches on (ba, bb) to the reported wrenches and to the
/// explicit rates `k` (Δv̇ = M⁻¹ F) of its free bodies.
fn add_pair_wrench(
    cx: &ForceCtx<'_>,
    (ba, bb): (usize, usize),
    (wa, wb): (Wrench, Wrench),
    (wrench, k): (&mut [Wrench], &mut [Deriv]),
) {
    for (b, w) in [(ba, wa), (bb, wb)] {
        wrench[b].force += w.force;
        wrench[b].torque += w.torque;
        let body = &cx.bodies[b];
        if body.inv_mass > 0.0 && cx.model.bodies[b].kind == BodyKind::Free {
            k[b].dv += w.force * body.inv_mass;
            k[b].dw += body.inv_inertia_w * w.torque;
        }
    }
}

/// The sliding points' Coulomb forces moved onto the normal forces of the step's
/// last solve: [`implicit_friction`] takes μ f_i at each sliding point on the
/// first solve's f_i, which does not hold friction's own pitching moment (the
/// solve after it does: the leading points press harder, a trailing point at
/// f = 0 cannot press less), so Σ μ f_i fell short of μ times the normal force
/// the step applies — by 2.7 % on a box sliding on a level plane along its
/// diagonal, and with a yaw moment where the two distributions' centres differ
/// off the line of motion (docs/EXPERIMENTS.md, "A box that slides the same way
/// in every heading"). Adds (f_end − f_slide) times each row's per-newton force
/// to the rates `k` and the reports.
fn slide_follow(
    cx: &ForceCtx<'_>,
    state: &[BodyState],
    implicit: &ImplicitContact,
    (wrench, manifold_force, k): (&mut [Wrench], &mut [Vec3], &mut [Deriv]),
) {
    for row in &implicit.rows {
        if row.slide == Vec3::zeros() || row.f_end == row.f_slide {
            continue;
        }
        let df = row.f_end - row.f_slide;
        let f = row.slide * df;
        let (mut wa, mut wb) = (Wrench::ZERO, Wrench::ZERO);
        wa.add_force_at(f, row.pa, state[row.a].x);
        wb.add_force_at(-f, row.pb, state[row.b].x);
        wa.torque += row.slide_twist * df;
        wb.torque -= row.slide_twist * df;
        add_pair_wrench(cx, (row.a, row.b), (wa, wb), (wrench, k));
        if let Some(mf) = manifold_force.get_mut(row.manifold as usize) {
            *mf += f;
        }
    }
}

/// Coulomb's law on the impulses of a contact transient (`friction::bank`) for
/// the sticking rows (`[penalty.friction] implicit`): after the step's last solve
/// each sticking group banks on its own end-of-step forces (‖f_t‖, Σf⁺), and its
/// rows may exceed the cone by C/h in a later step (`StickGroup::extra`). The
/// explicit sticking force of the default path banks in [`implicit_friction`].
fn bank_credit(implicit: &ImplicitContact, pairs: &mut [PairState], h: f64) {
    for g in 0..implicit.sticks.len() {
        let grp = implicit.sticks[g];
        let Some(anchor) = pairs
            .get_mut(grp.pair as usize)
            .and_then(|p| p.anchor.as_mut())
        else {
            continue;
        };
        let (ft, total) = implicit.stick_result(g);
        anchor.credit = friction::bank(anchor.credit, (grp.mu, total, grp.w_n), ft, h, grp.cap);
    }
}

/// Whether the normal force of the pair (ba, bb) is linearly implicit: under
/// semi-implicit Euler, between free or static bodies (robot links keep the explicit
/// force: their velocities are the robot's joint rates).
#[inline]
fn implicit_pair(cx: &ForceCtx<'_>, ba: usize, bb: usize) -> bool {
    cx.implicit && !cx.model.bodies[ba].is_link() && !cx.model.bodies[bb].is_link()
}

/// The link pairs' friction on their solved normal forces (`penalty_robot`): the
/// same stick/slip update and forces as an explicit pair's (`contact_wrenches`),
/// with the end-of-step normal forces in place of the explicit ones, applied
/// through the robots' mass matrices and the free bodies' inverse inertias.
/// Without `out`, a trial: each pair's wrenches go to `rc.friction` and its stick
/// state is put back as it was (the solve takes them into its rates,
/// `RobotContact::resolve_with_friction`).
fn robot_friction(
    cx: &ForceCtx<'_>,
    state: &[BodyState],
    (set, pairs): (&ContactSet, &mut [PairState]),
    pf: &mut Vec<PointForce>,
    rc: &mut RobotContact,
    mut out: Option<&mut RobotOut<'_>>,
) {
    rc.friction.clear();
    for t in 0..rc.pairs.len() {
        let (mi, pi, row0) = rc.pairs[t];
        let row1 = rc.pairs.get(t + 1).map_or(rc.rows.len(), |x| x.2);
        let Some((ctx, ba, bb, mat)) = context(cx, state, set, mi, &pairs[pi]) else {
            continue;
        };
        let kept = pairs[pi].anchor;
        pf.clear();
        for i in row0..row1 {
            let f_n = rc.force(i);
            if f_n > 0.0 {
                pf.push(PointForce {
                    point: rc.rows[i].point,
                    f_n,
                });
            }
        }
        let cen = if mat.mu > 0.0 {
            friction::centroid(&ctx, pf)
        } else {
            None
        };
        let terms = friction::update_state_at(
            &cx.p.friction,
            mat.mu,
            &ctx,
            (pf, cen),
            &mut pairs[pi],
            StickMode::Clamped,
        );
        let (xa, xb) = (ctx.a.x, ctx.b.x);
        let (mut wa, mut wb) = (Wrench::ZERO, Wrench::ZERO);
        let twist = friction::tangential_forces_at(
            &cx.p.friction,
            mat.mu,
            &ctx,
            pf,
            cen,
            (pairs[pi].anchor.as_ref(), StickMode::Clamped),
            terms.as_ref(),
            |pt, f| {
                wa.add_force_at(f, pt, xa);
                wb.add_force_at(-f, pt, xb);
            },
        );
        wa.torque += twist;
        wb.torque -= twist;
        if let Some(tau) = friction::rolling_torque(mat.rolling, &ctx, pf) {
            wa.torque += tau;
            wb.torque -= tau;
        }
        let Some(out) = out.as_deref_mut() else {
            pairs[pi].anchor = kept;
            rc.friction.push((ba, wa));
            rc.friction.push((bb, wb));
            continue;
        };
        if let Some(mf) = out.contact_force.get_mut(mi) {
            *mf += wa.force;
        }
        rc.apply_wrench(cx.model, cx.bodies, (ba, wa), out);
        rc.apply_wrench(cx.model, cx.bodies, (bb, wb), out);
    }
    if let Some(out) = out {
        rc.finish(cx.model, out.kv);
    }
}

/// Whether the normal force of the pair (ba, bb) is a robot link's taken linearly
/// implicit (`[penalty] robot_implicit`, `penalty_robot`): under semi-implicit
/// Euler, a pair with a link on either side.
#[inline]
fn robot_pair(cx: &ForceCtx<'_>, ba: usize, bb: usize) -> bool {
    cx.implicit
        && cx.p.robot_implicit
        && (cx.model.bodies[ba].is_link() || cx.model.bodies[bb].is_link())
}

/// The PID gains of a pair: clamped for explicit stability ([`PidGains::resolve`])
/// unless its force is implicit, which is stable at any gain.
#[inline]
fn pair_gains(cx: &ForceCtx<'_>, ctx: &PairContext<'_>, ba: usize, bb: usize) -> PidGains {
    if implicit_pair(cx, ba, bb) || robot_pair(cx, ba, bb) {
        PidGains::unclamped(cx.p, ctx.m_pair)
    } else {
        PidGains::resolve(cx.p, ctx.m_pair, ctx.m_reduced, ctx.h)
    }
}

/// The contact-phase machine of Fig. 2 of 000 with impulses at the centroid of the
/// contact surface. Returns the number of impulses applied.
///
/// A new pair still apart by a speculative gap (semi-implicit Euler's gap
/// manifolds) whose gap closes within this step at an approach faster than ε is
/// an impact now, at its time of closing τ ([`closing_impact`]): the impulse is
/// applied and the bodies are rewound so that the step ends where the impact at τ
/// puts them ([`ImpactMemory::rewind`]) — a landing at the surface instead of one
/// step's travel inside it. A new contact found already overlapping (a gap the
/// narrow phase did not report, or no speculative contacts) is the same impact at
/// τ = −d/u < 0, before the step: rewound out of the overlap. Rewinds only under
/// semi-implicit Euler (the linearly implicit force, the speculative contacts);
/// RK4 (000's experiments) keeps the paper's impulse without one.
fn resolve_impacts(
    cx: &ForceCtx<'_>,
    state: &mut [BodyState],
    (set, set_pair): (&mut ContactSet, &[usize]),
    pairs: &mut [PairState],
    mb: &mut ModelBufs<'_>,
    (mem, probe): (&mut ImpactMemory, &mut PenaltyProbe),
) -> usize {
    let ForceCtx {
        model,
        p,
        cm,
        bodies,
        ..
    } = *cx;
    let ModelBufs { sel, pf } = mb;
    mem.clear();
    mem.begin_candidates(set_pair.len());
    let eps = p.impacts.epsilon;
    let mut count = 0;
    // Pass 0: new contacts (touching, or closing their gap within the step) and
    // bounces of last step's impacts. Then (semi-implicit Euler) sweeps over the pairs of struck bodies
    // (resting pairs, and the pairs struck in this step) until none approaches
    // faster than ε — at most IMPACT_SWEEPS: sequential impulses (Gauss–Seidel)
    // carry an impact down a stack to the ground, where one sweep left the
    // struck pair still closing at half the speed (the springs took it: 3.8 mm
    // at 1 kHz, 2.4 cm at h = 1e-2 in the five-cube drop).
    // (RK4, 000's experiments: the paper's single "body impacted" pass.)
    let sweeps = if cx.implicit { IMPACT_SWEEPS } else { 1 };
    let n = set_pair.len();
    let mut pass = 0usize;
    loop {
        let before = count;
        let mut k = 0;
        loop {
            // Pass 0 visits every manifold in order; a sweep, the manifolds on its
            // worklist (`ImpactWorklist`) in the sweep's order — symmetric
            // Gauss–Seidel: every other sweep runs backwards (an impact travels
            // the whole stack in one sweep either way up).
            let mi = if pass == 0 {
                if k == n {
                    break;
                }
                k += 1;
                k - 1
            } else {
                match mem.work.pop() {
                    Some(mi) => mi,
                    None => break,
                }
            };
            mem.visits += 1;
            let pi = set_pair[mi];
            let phase = pairs[pi].phase;
            let relevant = match pass {
                0 => phase != ContactPhase::Resting,
                _ => {
                    phase == ContactPhase::Resting || (cx.implicit && phase == ContactPhase::Impact)
                }
            };
            // A manifold that does not penetrate (a speculative gap) is an impact
            // only as a new contact that closes within the step (and, in the
            // sweeps, the same contact struck again).
            let gap = set.manifolds[mi].max_depth(set) <= 0.0;
            let gap_ok = pass == 0 || phase == ContactPhase::Impact;
            if !relevant || (gap && (!gap_ok || !p.impacts.enabled)) {
                continue;
            }
            let Some((ctx, ba, bb, mat)) = context(cx, state, &*set, mi, &pairs[pi]) else {
                continue;
            };
            // Robot links take no impulses: their contacts are penalty throughout
            // (an impulse would need the link's operational-space inertia).
            if model.bodies[ba].is_link() || model.bodies[bb].is_link() {
                pairs[pi].phase = ContactPhase::Resting;
                continue;
            }
            // Pass 0's kind of this visit (the probe's): 0 new, 1 bounce, 2 gap.
            let kind = match (gap, phase) {
                (true, _) => 2,
                (false, ContactPhase::New) => 0,
                _ => 1,
            };
            let (at, tau) = if gap {
                let hit = if pass == 0 {
                    closing_impact(cx, &ctx, eps)
                } else {
                    struck_again(&ctx, eps)
                };
                match hit {
                    Some(hit) => hit,
                    None => continue,
                }
            } else {
                // The contact surface: the points the model puts force on (the
                // deepest point if none).
                let gains = pair_gains(cx, &ctx, ba, bb);
                pf.clear();
                let candidates = mem.candidates(mi, cm, &ctx, sel);
                cm.forces_at(&ctx, &gains, candidates, pf);
                let (mut c, mut nc) = (Vec3::zeros(), 0.0);
                let (mut c_in, mut n_in) = (Vec3::zeros(), 0.0);
                let mut any_sep = false;
                if pf.is_empty() {
                    pf.push(PointForce {
                        point: ctx.deepest as u32,
                        f_n: 0.0,
                    });
                }
                for i in pf.iter().map(|f| f.point as usize) {
                    let x = ctx.points[i].lever;
                    c += x;
                    nc += 1.0;
                    let s_n = ctx.normal_velocity(&x);
                    if s_n < -eps {
                        c_in += x;
                        n_in += 1.0;
                    }
                    any_sep |= s_n > 0.0;
                }
                c /= nc;
                let impact_at = match (pass, phase) {
                    (0, ContactPhase::New) => {
                        (ctx.normal_velocity(&c) < -eps && p.impacts.enabled).then_some(c)
                    }
                    // Reimpact (bounce): some points separate while others approach
                    // (`[penalty.impacts] reimpact`; off: continuous contact, 000).
                    (0, _) => (p.impacts.reimpact && any_sep && n_in > 0.0 && p.impacts.enabled)
                        .then(|| c_in / n_in),
                    _ => (ctx.normal_velocity(&c) < -eps && p.impacts.enabled).then_some(c),
                };
                // A new contact found overlapping was carried past the surface by
                // the last step: its impact came τ = −d/u before this step's start
                // (d the mean depth of the surface's points, u the approach at c).
                let tau = match (pass, phase) {
                    (0, ContactPhase::New) => {
                        let d = pf
                            .iter()
                            .map(|f| ctx.points[f.point as usize].depth)
                            .sum::<f64>()
                            / nc;
                        let u = -ctx.normal_velocity(&c);
                        if u > 0.0 {
                            (-d / u).clamp(-cx.h, 0.0)
                        } else {
                            0.0
                        }
                    }
                    _ => 0.0,
                };
                match impact_at {
                    Some(at) => (at, tau),
                    None => {
                        // (A pair struck in this step stays an impact.)
                        if pass == 0 || phase == ContactPhase::Resting {
                            pairs[pi].phase = ContactPhase::Resting;
                        }
                        continue;
                    }
                }
            };
            let normal = ctx.normal;
            let (ia, ib) = (bodies[ba], bodies[bb]);
            // The impulse at the impact's time: where the rewind puts each body's
            // centre of mass then (semi-implicit Euler; RK4 has no rewind), and the
            // impact point carried with the centres (inverse-mass weighted: with a
            // static body, with the moving one's centre, so a ball's lever stays
            // along its normal and a frictionless impulse does not turn it). Its
            // moments about those centres keep the angular momentum that the
            // rewound end poses carry (about the start poses they did not: the
            // rewind then moved the momenta m v by τ Δv, ΔL = τ (v_a − v_b) × j —
            // 0.05 % of L in a weightless 5 m/s glancing blow).
            let (sa, sb, at) = if cx.implicit {
                let [ta, tb] = mem.times((ba, bb), tau);
                let (sa, sb) = (mem.at_impact(state, ba, ta), mem.at_impact(state, bb, tb));
                let (wa, wb) = (ia.inv_mass, ib.inv_mass);
                let shift = if wa + wb > 0.0 {
                    ((sa.x - state[ba].x) * wa + (sb.x - state[bb].x) * wb) / (wa + wb)
                } else {
                    Vec3::zeros()
                };
                (sa, sb, at + shift)
            } else {
                (state[ba], state[bb], at)
            };
            let j = impact_impulse(
                (&sa, &ia),
                (&sb, &ib),
                &at,
                &normal,
                mat.restitution,
                mat.mu,
            );
            pairs[pi].phase = ContactPhase::Impact;
            if let Some(j) = j.filter(|j| j.iter().all(|c| c.is_finite())) {
                let first = [!mem.impacted[ba], !mem.impacted[bb]];
                let e0 = if probe.on {
                    pair_kinetic(model, state, ba, bb)
                } else {
                    0.0
                };
                mem.apply(state, (ba, bb), (&ia, &ib), ([sa.x, sb.x], &at, &j), tau);
                count += 1;
                if probe.on {
                    let de = pair_kinetic(model, state, ba, bb) - e0;
                    if pass == 0 {
                        probe.pass0[kind] += 1;
                        probe.pass0_de[kind] += de;
                    } else {
                        let bucket = (usize::BITS - pass.leading_zeros() - 1) as usize;
                        probe.sweep_by_pass[bucket.min(7)] += 1;
                        probe.sweep_kind[(phase != ContactPhase::Resting) as usize] += 1;
                        probe.sweep_de += de;
                    }
                }
                if pass > 0 {
                    // Their manifolds are visited again: those the sweep has not
                    // reached in this sweep, the others in the next.
                    for (b, ib, first) in [(ba, &ia, first[0]), (bb, &ib, first[1])] {
                        if moves(ib) || first {
                            mem.work.queue_body(b, true);
                        }
                    }
                }
            }
        }
        // (No impulse in a pass: nothing more is struck.)
        if count == before || pass == sweeps {
            break;
        }
        if pass == 0 {
            // The first sweep visits the manifolds of every body pass 0 struck.
            mem.work.index(model, set);
            for &b in &mem.hit {
                mem.work.queue_body(b as usize, false);
            }
        }
        pass += 1;
        mem.work.begin_sweep(pass % 2 == 1);
    }
    mem.sweeps = pass;
    if probe.on {
        (probe.energy[1], probe.kinetic[1]) = world_energy(
            model,
            state,
            |b| model.bodies[b].kind == BodyKind::Free && bodies[b].inv_mass > 0.0,
            |_, s| *s,
        );
    }
    if cx.implicit {
        mem.rewind(state, (set, set_pair), pairs, model);
    }
    count
}

/// Kinetic energy of bodies `ba` and `bb` (a static body's counts 0: its
/// velocities do not change), J — the probe's per impulse.
fn pair_kinetic(model: &Model, state: &[BodyState], ba: usize, bb: usize) -> f64 {
    let ke = |b: usize| body_energy(model, b, &state[b])[0];
    ke(ba) + if bb != ba { ke(bb) } else { 0.0 }
}

/// Sweeps of [`resolve_impacts`] over the pairs of struck bodies after the new
/// impacts: a bound on the step's work (a sweep walks the manifolds once and
/// evaluates only the struck pairs). Plastic sequential impulses converge slowly
/// along a chain (each equalizes two bodies): the five-cube drop's landings need
/// up to 92 sweeps to get every struck pair under ε (measured,
/// `tests/contact_torture_impacts.rs`); a larger stack stops at this bound and
/// leaves the rest of its approach to the PID force.
const IMPACT_SWEEPS: usize = 128;

/// A gap manifold whose impact this step already took (its gap closed at its τ),
/// approached again after a third body's impulse: an impact at the centroid of
/// its points (the contact surface: the closest features) if that approaches
/// faster than ε, at the bodies' τ.
fn struck_again(ctx: &PairContext<'_>, eps: f64) -> Option<(Vec3, f64)> {
    let n = ctx.points.len();
    if n == 0 {
        return None;
    }
    let c = ctx.points.iter().fold(Vec3::zeros(), |c, p| c + p.lever) / n as f64;
    (ctx.normal_velocity(&c) < -eps).then_some((c, 0.0))
}

/// Where and when a speculative manifold's gap closes within the step, if it is an
/// impact: its points whose gap −d closes at the step's free-flight approach
/// (s⁺ = s + h n·(a_a − a_b), gravity the only acceleration counted:
/// [`time_of_closing`]), their centroid c approaching faster than ε (a slower
/// approach is left to the gap rows), and the time τ at which c's mean gap closes.
fn closing_impact(cx: &ForceCtx<'_>, ctx: &PairContext<'_>, eps: f64) -> Option<(Vec3, f64)> {
    let g = cx.model.opt.gravity;
    let fall = |inv_mass: f64| if inv_mass > 0.0 { g } else { Vec3::zeros() };
    let dg = cx.h
        * ctx
            .normal
            .dot(&(fall(ctx.inv_mass[0]) - fall(ctx.inv_mass[1])));
    let (mut c, mut gap, mut n) = (Vec3::zeros(), 0.0, 0.0);
    for pt in ctx.points {
        let s_end = ctx.normal_velocity(&pt.lever) + dg;
        if time_of_closing(-pt.depth, s_end, cx.h).is_some() {
            c += pt.lever;
            gap -= pt.depth;
            n += 1.0;
        }
    }
    if n == 0.0 {
        return None;
    }
    let (c, gap) = (c / n, gap / n);
    let s = ctx.normal_velocity(&c);
    if s >= -eps {
        return None;
    }
    time_of_closing(gap, s + dg, cx.h).map(|tau| (c, tau))
}

/// Contact wrench on every body at one integrator stage: normal PID forces from the
/// contact model, then friction. At the first stage the friction state of each pair
/// (stick/slip, anchor) is updated from the start-of-step state.
/// `implicit`: where the linearly implicit pairs' points go (semi-implicit Euler).
fn contact_wrenches(
    cx: &ForceCtx<'_>,
    state: &[BodyState],
    (set, set_pair): (&ContactSet, &[usize]),
    pairs: &mut [PairState],
    mb: &mut ModelBufs<'_>,
    (wrench, mut manifold_force): (&mut [Wrench], Option<&mut Vec<Vec3>>),
    (mut implicit, mut robot_rows): (Option<&mut ImplicitContact>, Option<&mut RobotContact>),
) {
    let ForceCtx { p, cm, .. } = *cx;
    let ModelBufs { sel, pf } = mb;
    // The friction state (stick/slip, anchor) is updated at the first stage only,
    // the one that reports the manifold forces.
    let first_stage = manifold_force.is_some();
    wrench.iter_mut().for_each(|w| *w = Wrench::ZERO);
    if let Some(mf) = manifold_force.as_deref_mut() {
        mf.clear();
        mf.resize(set_pair.len(), Vec3::zeros());
    }
    for (mi, &pi) in set_pair.iter().enumerate() {
        // No explicit force, normal or tangential, from a manifold that does not
        // penetrate; under the implicit force its points are gap rows.
        if set.manifolds[mi].max_depth(set) <= 0.0 {
            if let Some(implicit) = implicit.as_deref_mut() {
                gap_rows(cx, state, set, mi, &pairs[pi], implicit);
            }
            continue;
        }
        let Some((mut ctx, ba, bb, mat)) = context(cx, state, set, mi, &pairs[pi]) else {
            continue;
        };
        // Under semi-implicit Euler the modal share is the implicit rows'
        // (their mode rows); a pair the rows do not take (a robot link's: its
        // force stays explicit) keeps 1/r — the share taken explicit there
        // shook a standing humanoid (IMU 1.2e-2 m/s² off g, against 3.4e-3).
        if cx.implicit && !implicit_pair(cx, ba, bb) {
            ctx.flat = false;
        }
        let f_before = wrench[ba].force;
        let gains = pair_gains(cx, &ctx, ba, bb);
        pf.clear();
        let implicit_rows = implicit
            .as_deref_mut()
            .filter(|_| implicit_pair(cx, ba, bb));
        // A flat pair of the modal share under the implicit rows: its points
        // carry the un-normalized F_i, shared in the solve (no explicit force).
        let modal_rows = implicit_rows.is_some() && p.modal() && ctx.flat;
        // A resting pair's rows, kept (`PairState::rest_rows`): at the first
        // stage of the linearly implicit path, with the rest tolerance on.
        let keep = first_stage && implicit_rows.is_some() && cx.rest_tol > 0.0;
        // The candidates (the contact model's selection from the manifold's
        // geometry), then eq. (3) at them from this state's depths, rates and
        // integral. A resting pair keeps its candidates (`PairState::rest_rows`)
        // at the first stage of the linearly implicit path, with the rest
        // tolerance on; the law is evaluated every step.
        let mut selected = std::mem::take(&mut sel.selected);
        match keep.then(|| rest_rows_hold(&ctx, &pairs[pi])).flatten() {
            Some(rr) => {
                selected.clear();
                selected.extend(rr.point[..rr.n as usize].iter().map(|&i| i as u32));
            }
            None => {
                cm.candidates(&ctx, sel, &mut selected);
                if keep {
                    pairs[pi].rest_rows = rest_rows_of(&pairs[pi], &selected);
                }
            }
        }
        if modal_rows {
            crate::contact::modal::unshared(&ctx, &gains, &selected, pf);
        } else {
            cm.forces_at(&ctx, &gains, &selected, pf);
        }
        sel.selected = selected;
        let (xa, xb) = (ctx.a.x, ctx.b.x);
        // r of eq. (3): the points carrying force.
        let r = pf.len() as f64;
        for f in pf.iter().filter(|_| !modal_rows) {
            let pt = ctx.points[f.point as usize].lever;
            let fv = ctx.normal * f.f_n;
            wrench[ba].add_force_at(fv, pt, xa);
            wrench[bb].add_force_at(-fv, pt, xb);
        }
        if let Some(implicit) = implicit_rows {
            if modal_rows {
                let start = implicit.rows.len();
                for f in pf.iter() {
                    let pt = ctx.points[f.point as usize].lever;
                    implicit.rows.push(Row::modal_point(
                        (ba, bb),
                        (pt, pt, ctx.normal),
                        (f.f_n, false),
                        (mi, f.point),
                    ));
                }
                if !pf.is_empty() {
                    let c = cx.h * gains.kp + gains.kv;
                    implicit.push_modal(start, (c, gains.kv), ctx.m_reduced);
                }
            }
            let rows = &mut implicit.rows;
            let (c, kv_r) = ((cx.h * gains.kp + gains.kv) / r, gains.kv / r);
            for f in pf.iter().filter(|_| !modal_rows) {
                let pt = ctx.points[f.point as usize].lever;
                rows.push(Row::new(
                    (ba, bb),
                    (pt, pt, ctx.normal),
                    (c, kv_r),
                    (f.f_n, f.f_n),
                    (mi, f.point),
                ));
            }
            // Friction on the end-of-step normal force: after the solve
            // (`implicit_friction`).
            if let Some(mf) = manifold_force.as_deref_mut() {
                mf[mi] = wrench[ba].force - f_before;
            }
            continue;
        }
        // A link pair's normal force, linearly implicit after the robots' rates
        // (`penalty_robot`): its points' explicit forces as rows; its friction
        // on the solved normal forces, after the solve (`robot_friction`).
        if let Some(rr) = robot_rows.as_deref_mut().filter(|_| robot_pair(cx, ba, bb)) {
            let (c, kv_r) = ((cx.h * gains.kp + gains.kv) / r, gains.kv / r);
            rr.pairs.push((mi, pi, rr.rows.len()));
            for f in pf.iter() {
                let pt = ctx.points[f.point as usize].lever;
                rr.rows.push(RobotRow {
                    ab: (ba, bb),
                    p: pt,
                    n: ctx.normal,
                    c,
                    kv_r,
                    f_ex: f.f_n,
                    s0: ctx.normal_velocity(&pt),
                    manifold: mi,
                    point: f.point,
                });
            }
            if let Some(mf) = manifold_force.as_deref_mut() {
                mf[mi] = wrench[ba].force - f_before;
            }
            continue;
        }
        // The force centroid, shared by the stick/slip update and the forces.
        let cen = if mat.mu > 0.0 {
            friction::centroid(&ctx, pf)
        } else {
            None
        };
        // Sticking terms evaluated by the update, valid while it keeps the anchor.
        let terms = if first_stage {
            friction::update_state_at(
                &p.friction,
                mat.mu,
                &ctx,
                (pf, cen),
                &mut pairs[pi],
                StickMode::Clamped,
            )
        } else {
            None
        };
        let anchor = pairs[pi].anchor.as_ref();
        let apply = |pt, f| {
            wrench[ba].add_force_at(f, pt, xa);
            wrench[bb].add_force_at(-f, pt, xb);
        };
        let twist = friction::tangential_forces_at(
            &p.friction,
            mat.mu,
            &ctx,
            pf,
            cen,
            (anchor, StickMode::Clamped),
            terms.as_ref(),
            apply,
        );
        wrench[ba].torque += twist;
        wrench[bb].torque -= twist;
        if let Some(tau) = friction::rolling_torque(mat.rolling, &ctx, pf) {
            wrench[ba].torque += tau;
            wrench[bb].torque -= tau;
        }
        if let Some(mf) = manifold_force.as_deref_mut() {
            mf[mi] = wrench[ba].force - f_before;
        }
    }
}

/// A resting pair's kept candidates, if they hold ([`PairState::rest_rows`]):
/// the manifold is the one they were selected on, up to the carry of its
/// depths to the present poses (the pair's `rest_poses` unchanged since:
/// [`keep_rest_poses`] drops them otherwise; `collide::CollideWorkspace::
/// carry_to_present`), and every index is one of its points. The law is
/// evaluated at them from this step's depths, rates, integral and load, so
/// the forces are those of the fresh selection wherever the selection is the
/// same set: the contact model's candidates are read from the manifold's
/// geometry alone (positions, depths, normal), which the kept pair's carry
/// moves by at most about twice the rest tolerance (depths and points, m; the
/// normal by the mean turn, ≤ tol/R rad) — a set that changes under that
/// needs two points' order or a classification to turn on a 2e-12 m
/// difference (the selection's own tolerances are ≥ 1e-9 of the extent,
/// `contact::bottom`).
#[inline]
fn rest_rows_hold<'p>(ctx: &PairContext<'_>, pair: &'p PairState) -> Option<&'p RestRows> {
    let rr = pair.rest_rows.as_ref()?;
    let n = rr.n as usize;
    (n <= REST_ROW_POINTS
        && rr.point[..n]
            .iter()
            .all(|&i| (i as usize) < ctx.points.len()))
    .then_some(rr)
}

/// The candidates just selected for a pair at rest poses, to be kept
/// ([`PairState::rest_rows`]); `None` for a manifold not found at rest poses
/// (a gap's or a pair without them) or with more candidates than
/// [`REST_ROW_POINTS`].
fn rest_rows_of(pair: &PairState, selected: &[u32]) -> Option<RestRows> {
    if pair.rest_poses.is_none()
        || selected.len() > REST_ROW_POINTS
        || selected.iter().any(|&i| i > u8::MAX as u32)
    {
        return None;
    }
    let mut rr = RestRows {
        n: selected.len() as u8,
        point: [0; REST_ROW_POINTS],
    };
    for (k, &i) in selected.iter().enumerate() {
        rr.point[k] = i as u8;
    }
    Some(rr)
}

#[cfg(test)]
mod tests {
    use super::super::penalty_implicit::LinearSolver;
    use super::super::{MethodWorkspace, Pipeline};
    use crate::model::scene::load_scene_str;
    use crate::tools::scaling::{scene_from_json_file, SCALING_DIR};
    use crate::Data;

    /// The direct solve equals conjugate gradients run to a relative residual of
    /// 1e-12 on the implicit systems of the dense 10-layer pile_100 (≈ 240 pairs,
    /// 1,400 points, one island of ≈ 100 bodies) while it falls, lands and settles:
    /// the rows, mass properties and rates the stepper built, solved both ways.
    #[test]
    fn direct_solve_equals_cg_on_the_pile() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(SCALING_DIR)
            .join("pile_100.json");
        let text = scene_from_json_file(&path).expect("scaling scene");
        let checked = direct_equals_cg(&text, (1500, 150), false);
        assert!(checked >= 8, "{checked} steps with contact checked");
    }

    /// The same under the modal share (`[penalty] distribution = "modal"`: the
    /// modal pairs' mode rows, `penalty_implicit` "Modal pairs") on a stack of
    /// three boxes, the top one turned and dropped onto it (one island of three
    /// bodies: the block factorization), every 25th step of 1.5 s, and on
    /// pile_100 (boxes and round bodies) while it falls and lands.
    #[test]
    fn direct_solve_equals_cg_under_the_modal_share() {
        let mut checked = direct_equals_cg(&modal_stack(), (1500, 25), true);
        assert!(checked >= 50, "{checked} steps with contact checked");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(SCALING_DIR)
            .join("pile_100.json");
        let text = scene_from_json_file(&path).expect("scaling scene");
        let text = with_modal(&text);
        checked = direct_equals_cg(&text, (900, 150), true);
        assert!(checked >= 5, "{checked} steps with contact checked");
    }

    /// `text` with `[penalty] distribution = "modal"`.
    fn with_modal(text: &str) -> String {
        let out = if text.contains("[penalty]\n") {
            text.replacen("[penalty]\n", "[penalty]\ndistribution = \"modal\"\n", 1)
        } else {
            text.replacen(
                "[[body]]",
                "[penalty]\ndistribution = \"modal\"\n\n[[body]]",
                1,
            )
        };
        assert!(out.contains("distribution = \"modal\""), "no modal key");
        out
    }

    /// Two boxes stacked on the ground and a third, turned, dropped onto them.
    fn modal_stack() -> String {
        r#"
[world]
gravity = [0.0, 0.0, -9.81]
dt = 0.001
method = "penalty"
[penalty]
distribution = "modal"
[[body]]
name = "ground"
static = true
shape = { type = "plane" }
material = { mu = 0.8 }
[[body]]
name = "b0"
shape = { type = "box", half_extents = [0.2, 0.15, 0.1] }
mass = 2.0
position = [0.0, 0.0, 0.1]
material = { mu = 0.8 }
[[body]]
name = "b1"
shape = { type = "box", half_extents = [0.15, 0.1, 0.05] }
mass = 0.5
position = [0.03, 0.0, 0.25]
material = { mu = 0.8 }
[[body]]
name = "b2"
shape = { type = "box", half_extents = [0.1, 0.05, 0.05] }
mass = 0.3
position = [0.0, 0.02, 0.45]
rpy = [0.3, 0.2, 0.1]
material = { mu = 0.8 }
"#
        .to_string()
    }

    /// Direct against CG on the implicit systems of `text` every `every` steps
    /// of `steps`; the steps checked. The rates within 1e-8 of the largest rate,
    /// or with `by_correction` of the largest correction the solve makes (a
    /// modal pair applies no explicit force: at rest the rates are gravity less
    /// the whole correction, ≈ 0, and CG's 1e-12 residual is relative to the
    /// correction).
    fn direct_equals_cg(text: &str, (steps, every): (usize, usize), by_correction: bool) -> usize {
        let model = load_scene_str(text, "scene", std::path::Path::new(".")).expect("scene");
        let mut data = Data::new(&model);
        let mut pipe = Pipeline::new(&model);
        let mut checked = 0;
        for step in 0..steps {
            let before = data.state.clone();
            pipe.step(&model, &mut data);
            if step % every != every - 1 {
                continue;
            }
            let MethodWorkspace::Penalty(ws) = &pipe.method else {
                panic!("penalty scene");
            };
            if ws.implicit.rows.is_empty() {
                continue;
            }
            let solve = |solver| {
                let mut ic = ws.implicit.clone();
                ic.solver = solver;
                let mut k = ws.k_explicit.clone();
                ic.solve(&model, model.opt.dt, &before, &ws.bodies, (&mut k, false));
                let f: Vec<f64> = ic.rows.iter().map(|r| r.f_end).collect();
                (k, f, ic)
            };
            let (kd, fd, ic) = solve(LinearSolver::Direct);
            let (kc, fc, _) = solve(LinearSolver::Cg);
            let fmax = fd.iter().fold(0.0f64, |m, f| m.max(f.abs()));
            let df = fd
                .iter()
                .zip(&fc)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            let mut amax = kd
                .iter()
                .fold(0.0f64, |m, k| m.max(k.dv.norm()).max(k.dw.norm()));
            if by_correction {
                amax = kd.iter().zip(&ws.k_explicit).fold(amax, |m, (a, b)| {
                    m.max((a.dv - b.dv).norm()).max((a.dw - b.dw).norm())
                });
            }
            let dk = kd.iter().zip(&kc).fold(0.0f64, |m, (a, b)| {
                m.max((a.dv - b.dv).norm()).max((a.dw - b.dw).norm())
            });
            let st = ic.chol_stats();
            println!(
                "step {:4}: {:4} rows, {:3} bodies, {:4} edges, {:4} L blocks, {:6} updates: |Δf| {:.1e} of {fmax:.1e} N, |Δ rate| {:.1e} of {amax:.1e}",
                step + 1,
                ic.rows.len(),
                st.n,
                st.edges,
                st.l_blocks,
                st.updates,
                df,
                dk
            );
            assert!(df <= 1e-8 * fmax, "forces differ by {df:e} of {fmax:e} N");
            assert!(dk <= 1e-8 * amax, "rates differ by {dk:e} of {amax:e}");
            checked += 1;
        }
        checked
    }

    /// Where every island is one body, `Direct` solves each body's 6×6 block on
    /// its own: bit for bit the block factorization of the whole system
    /// (`LinearSolver::Block`) — rates, end-of-step forces, solve counts, in the
    /// first solve and in the warm solve after friction — on a tilted box dropped
    /// on a corner (landing, rocking: gap rows and active-set flips; every step),
    /// the resting grid_100 and pile_100's first objects landing (every 10th step).
    #[test]
    fn one_body_islands_equal_the_block_factorization_bitwise() {
        let dropped = include_str!("../../tests/data/penalty/box_on_corner.toml");
        for (name, steps, every, least) in [
            ("dropped", 1500, 1, 1000),
            ("dropped_modal", 1500, 1, 1000),
            ("grid_100", 300, 10, 30),
            ("pile_100", 1500, 10, 3),
        ] {
            let mut single = 0;
            // The modal share's mode rows on the same paths (`dropped_modal`).
            let text = if name == "dropped" {
                dropped.to_string()
            } else if name == "dropped_modal" {
                with_modal(dropped)
            } else {
                let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join(SCALING_DIR)
                    .join(format!("{name}.json"));
                scene_from_json_file(&path).expect("scaling scene")
            };
            let model = load_scene_str(&text, name, std::path::Path::new(".")).expect("scene");
            let mut data = Data::new(&model);
            let mut pipe = Pipeline::new(&model);
            for step in 0..steps {
                let before = data.state.clone();
                pipe.step(&model, &mut data);
                let MethodWorkspace::Penalty(ws) = &pipe.method else {
                    panic!("penalty scene");
                };
                if step % every != 0 || ws.implicit.rows.is_empty() {
                    continue;
                }
                let solve = |solver| {
                    let mut ic = ws.implicit.clone();
                    ic.solver = solver;
                    ic.iterations = 0;
                    let mut k = ws.k_explicit.clone();
                    ic.solve(&model, model.opt.dt, &before, &ws.bodies, (&mut k, false));
                    let first = ic.solved_single();
                    let f: Vec<u64> = ic.rows.iter().map(|r| r.f_end.to_bits()).collect();
                    // The warm solve with friction's wrench in the rates (here: a
                    // tangential push on every body).
                    let mut k2 = ws.k_explicit.clone();
                    for d in k2.iter_mut() {
                        d.dv.x += 0.5;
                        d.dw.z -= 0.25;
                    }
                    ic.solve(&model, model.opt.dt, &before, &ws.bodies, (&mut k2, true));
                    let f2: Vec<u64> = ic.rows.iter().map(|r| r.f_end.to_bits()).collect();
                    let bits = |k: &[crate::pipeline::integrator::Deriv]| -> Vec<u64> {
                        k.iter()
                            .flat_map(|d| [d.dv.x, d.dv.y, d.dv.z, d.dw.x, d.dw.y, d.dw.z])
                            .map(f64::to_bits)
                            .collect()
                    };
                    (first, bits(&k), f, bits(&k2), f2, ic.iterations)
                };
                let d = solve(LinearSolver::Direct);
                let b = solve(LinearSolver::Block);
                assert!(!b.0, "the block reference took the one-body path");
                single += d.0 as usize;
                assert_eq!(d.1, b.1, "{name} step {step}: rates differ");
                assert_eq!(d.2, b.2, "{name} step {step}: end-of-step forces differ");
                assert_eq!(d.3, b.3, "{name} step {step}: warm rates differ");
                assert_eq!(d.4, b.4, "{name} step {step}: warm forces differ");
                assert_eq!(d.5, b.5, "{name} step {step}: solves differ");
            }
            println!("{name}: {single} checked steps on the one-body path");
            assert!(
                single >= least,
                "{name}: {single} checked steps on the one-body path"
            );
        }
    }

    /// The first normal solve ends on the same rates and forces, bit for bit,
    /// from any start of its active set whose passes end on a consistent set
    /// (`penalty_implicit`, "The active set's start"): the default start, the
    /// pairs' memory (what the stepper used), every row on, every row off and
    /// every other row on — on pile_100 while it falls, lands and settles
    /// (every 50th step of 2 s; its one island of ≈ 100 bodies: the block
    /// factorization's full and partial paths) and on the resting grid_100 (the
    /// one-body path). A solve that took all 6 passes may stop on a set that is
    /// not yet consistent: such starts are not compared (counted; the memory's
    /// and the default's must be compared at 90 % of the steps at least, each
    /// other start at one). The back-substitutions of the default start and of
    /// the memory's are printed, not asserted: over these steps, most of them
    /// in the drop and landing, the memory took more (94 against 80 at the 38
    /// pile steps, session 40): where the set changes from step to step the
    /// last step's set is a worse start than every penetrating point on (the
    /// whole step's count at rest: `tests/penalty_active_set.rs`).
    #[test]
    fn the_first_solve_ends_on_the_same_forces_from_any_start() {
        for (name, steps, every) in [("pile_100", 2000, 50), ("grid_100", 400, 20)] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(SCALING_DIR)
                .join(format!("{name}.json"));
            let text = scene_from_json_file(&path).expect("scaling scene");
            let model = load_scene_str(&text, name, std::path::Path::new(".")).expect("scene");
            let mut data = Data::new(&model);
            let mut pipe = Pipeline::new(&model);
            let mut checked = 0usize;
            let mut compared = [0usize; 4];
            let (mut solves_default, mut solves_memory) = (0usize, 0usize);
            for step in 0..steps {
                let before = data.state.clone();
                pipe.step(&model, &mut data);
                let MethodWorkspace::Penalty(ws) = &pipe.method else {
                    panic!("penalty scene");
                };
                if step % every != every - 1 || ws.implicit.rows.is_empty() {
                    continue;
                }
                checked += 1;
                let memory: Vec<Option<bool>> = ws.implicit.rows.iter().map(|r| r.start).collect();
                let solve = |start: &dyn Fn(usize) -> Option<bool>| {
                    let mut ic = ws.implicit.clone();
                    ic.clear_rows();
                    ic.rows.extend(
                        ws.implicit.rows[..ws.implicit.normal_rows()]
                            .iter()
                            .copied(),
                    );
                    for (i, row) in ic.rows.iter_mut().enumerate() {
                        row.start = start(i);
                    }
                    ic.iterations = 0;
                    let mut k = ws.k_explicit.clone();
                    ic.solve(&model, model.opt.dt, &before, &ws.bodies, (&mut k, false));
                    let mut bits: Vec<u64> = k
                        .iter()
                        .flat_map(|d| [d.dv.x, d.dv.y, d.dv.z, d.dw.x, d.dw.y, d.dw.z])
                        .map(f64::to_bits)
                        .collect();
                    bits.extend(ic.rows.iter().map(|r| r.f_end.to_bits()));
                    (bits, ic.iterations)
                };
                let (reference, n_default) = solve(&|_| None);
                if n_default >= 6 {
                    continue;
                }
                solves_default += n_default;
                let starts: [&dyn Fn(usize) -> Option<bool>; 4] =
                    [&|i| memory[i], &|_| Some(true), &|_| Some(false), &|i| {
                        Some(i % 2 == 0)
                    }];
                for (s, start) in starts.iter().enumerate() {
                    let (bits, n) = solve(*start);
                    if s == 0 {
                        solves_memory += n;
                    }
                    if n >= 6 {
                        continue;
                    }
                    assert!(
                        bits == reference,
                        "{name} step {step}: start {s} (memory, all on, all off, every other) ends elsewhere"
                    );
                    compared[s] += 1;
                }
            }
            println!(
                "{name}: {checked} steps checked; compared bit for bit (memory, all on, all off, \
                 every other): {compared:?}; back-substitutions: default start {solves_default}, \
                 memory {solves_memory}"
            );
            assert!(
                checked * 9 <= compared[0] * 10,
                "{name}: the memory's start compared {}",
                compared[0]
            );
            assert!(compared.iter().all(|&c| c >= 1), "{name}: {compared:?}");
        }
    }
}
