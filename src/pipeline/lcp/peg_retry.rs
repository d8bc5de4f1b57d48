//! PEG: a step whose solve failed, taken again from its start as two steps of
//! h/2 (`[lcp] peg_retry_depth`, `LcpParams::peg_retry_depth`; issue 12, peg20).
//!
//! # Why
//! The PEG LCPs no solver solves are those of large steps: the reach ε = h(u_a +
//! u_b) + h²|g| + window and the rotation lead h²|ω|²r grow with h, so at
//! h = 5e-2 a pair of the 3D pour has ~100 potential contacts and constants of
//! the bodies' size, and the islands end on Lemke rays, over the size cap or
//! refused by the work check (docs/EXPERIMENTS.md, peg17–peg19). At a smaller
//! step the same configuration has fewer, shallower rows. So a failed step is
//! not kept: the state is put back and the interval is covered by two steps of
//! h/2, each of which is split again if it fails, down to h/2^depth.
//!
//! # What counts as failed
//! A step (or sub-step) of `LcpStepper::step_of` failed when it raised
//! `StepStats::solver_failures` (a Lemke ray or pivot limit on an island no
//! rescue solved, the work check's refusal, the row cap) or
//! `solver_unconverged` (an island over `PEG_MAX_LCP` the constraint PGS left
//! unconverged). A failed attempt above the deepest level is discarded with
//! its counters (the stats are put back; its time stays in `stage_ns` and its
//! pivots are summed into the step's `solver_iterations`); a failed attempt at
//! the deepest level is kept and counted as today.
//!
//! # The overlap trigger (peg21, `[lcp] peg_retry_overlap` = τ > 0)
//! A step Lemke solved can still end with its bodies overlapping: a vertex a
//! body's rotation within the step brings down onto a face it had no potential
//! contact with (the applicability test at ε_θ, verdict (a) of
//! `RTPHYS_PEG_ATTRIB`), or every row held at ν⁺ and the integrated rotation
//! carried a vertex in all the same (the linearization, verdict (c))
//! (docs/EXPERIMENTS.md, peg21). Neither raises a failure counter. With τ > 0
//! an attempt above the deepest level is also put back and split when some
//! candidate pair's exact overlap volume at its end exceeds the one at its
//! start by more than τ d³ (d: twice the smaller geom's bounding radius;
//! `peg::overlap_rose`; a pair with a robot link is not watched: it takes the
//! standard rows and their 1e-5 m allowance, peg33); both reasons split the same
//! way. A sub-step of h/2^k
//! turns its bodies by 1/2^k of the angle and its second-order gap term falls
//! by 4^k. The attempts put back for the overlap alone (the solve did not fail)
//! are counted in `StepStats::peg_overlap_retries`. Cost: the candidates'
//! exact overlaps at the start and at the end of every attempt above the
//! deepest level.
//!
//! # The deepest level (peg21, `[lcp] peg_retry_rotation_eps_theta`)
//! A sub-step of the deepest level is kept whatever it ends with. With the key
//! on, those sub-steps (level = depth > 0) build their first pass with ε_θ from
//! their start's rotation, sin(clamp(h_k (|ω_a| + |ω_b|), 5°, 90°)) (peg.rs,
//! `predicted_eps_theta`), as `[lcp] peg_rotation_eps_theta` does for every
//! step: what is left with the overlap trigger is mostly a vertex of a fast
//! spinning body that still turns 9–18° within h/4 onto a face it had no
//! potential contact with (docs/EXPERIMENTS.md, peg21). Steps that are not
//! retried, and the levels above, keep ε_θ = sin 5°.
//!
//! # The second chance (peg22, `[lcp] peg_retry_second_chance`)
//! With the key, τ > 0 and a retry depth, a sub-step of the deepest level that
//! failed or whose overlap rose by more than τ d³ (the attempts the levels
//! above would have split) is not kept at once: it is put back and taken a
//! second time, its first pass with ε_θ = sin(clamp(h_k (|ω_a| + |ω_b|), 5°,
//! 90°)) from each body's larger of its start's |ω| and the |ω| the first
//! attempt ended with (`PegWorkspace::w2_floor`; a body spun up by its own
//! impact within the sub-step is at rest at its start). The better of the two
//! attempts is kept: one whose solve did not fail before one that failed,
//! then the smaller largest overlap rise (`peg::overlap_rise`); ties keep the
//! first. Unlike `peg_retry_rotation_eps_theta`, which relaxes every
//! deepest-level sub-step and moved seed 2 of the 3D pour into a jam
//! (docs/EXPERIMENTS.md, peg21), only the sub-steps that would keep a
//! failure or a rise are taken again, and only a better end is kept. Counted:
//! `StepStats::peg_second_chances` (second attempts), `peg_second_kept` (of
//! them kept). Cost: the deepest level's overlaps at start and end, and one
//! more attempt per such sub-step.
//!
//! # The continuous collision (peg23, `[lcp] peg_ccd_retry`)
//! The outline's continuous-collision stage runs after the whole step: a fast
//! body whose swept motion (x lerped, q slerped from the step's start to its
//! end) meets a geom deeper than the step would have caught is rewound to its
//! time of impact with its start velocity and an impulse. Under PEG that pose
//! is not the PEG step's: it can overlap a neighbour the step's rows had kept
//! apart, and those rises were the largest of the pours' sweep (verdict (r),
//! docs/EXPERIMENTS.md, peg22). PEG's rows hold for the pairs within the
//! step's reach (003 Sec. 4: the potential contacts are found at the start of
//! the step, within ε of the motion one step can make, and the LCP's end state
//! keeps them apart), and a sub-step of h/2^k has a reach, and a swept motion,
//! 2^k times shorter: an impact is met by a shorter step rather than by a pose
//! the step did not make. With the key (and a retry depth) the outline's stage
//! is off for PEG (`LcpStepper::outline_ccd`) and this driver runs it per
//! attempt, over the attempt's own motion; with `[lcp] peg_ccd_held` as well,
//! the sweep leaves out the body pairs the attempt's last pass had rows for
//! (`has_rows`, `LcpWorkspace::contacts`: a pair with rows is, by 003's
//! argument, held by them, and rewinding it puts a body where the LCP did
//! not — but peg23 measured PEG letting a body with rows through a thin wall,
//! so it is not the default of the key):
//! - an attempt above the deepest level whose solve neither failed nor rose
//!   and whose motion meets an impact (`collide::missed_impacts`,
//!   non-mutating) is put back and split like a failed one
//!   (`StepStats::peg_ccd_retries`): its second half starts where the body is,
//!   so the pair is a candidate there with rows of its own;
//! - a kept attempt (the deepest level's sub-steps, and the attempts above it,
//!   which have no such impact) runs the outline's stage over its own motion
//!   (`collide::continuous_collision_outside` from the attempt's start;
//!   `StepStats::peg_ccd_impacts` counts its rewinds): the guard against a
//!   body passing through a neighbour the step did not see stays, over at most
//!   h/2^depth of motion.
//!
//! Cost: one sweep check per attempt (one pass over the geoms when none is
//! fast; a scan of the rows per swept candidate pair) and the attempts it
//! splits. No allocation.
//!
//! **A pass that creates overlap is refused (peg26, every PEG step).** The
//! outline leaves the stage to PEG's stepper (`LcpStepper::outline_ccd` is false
//! for PEG; [`advance`] runs it after the step, or per kept attempt with the key
//! above). What PEG needs from it is the guard against tunnelling — a pair with
//! no rows, or one whose rows the step crossed — not a second contact response:
//! the pairs with rows end apart (003 Sec. 4). A rewind puts a body and its free
//! partner at their lerped/slerped poses at the time of impact with their start
//! velocities, poses the PEG step never checked against third bodies, which stay
//! at their end poses (verdict (r): 2D pour h = 1.05e-2 s3 under the one-sided
//! key 0.155 L² with the pass, 1.2e-11 without). So the pass is measured: the
//! exact overlap of every candidate pair with a body it moved, at the step's end
//! and after the pass (`pass_rise`: Σ volume / d³, `peg::rewind_overlap`); a pass
//! that raises it by more than [`REWIND_OVERLAP_TOL`] is undone (the step's end
//! kept, `StepStats::peg_ccd_refused`), one that does not is kept — a rewind that
//! takes a body out of a partner it went into is made. The whole pass, not each
//! rewind: a body's rewind can overlap a neighbour that a later rewind of the same
//! pass puts back too (2D pour h = 3.85e-2 s3 under the key: refusing each rewind
//! on its own rise kept 9.96e-4 L² where the pass keeps 1.0e-10). The other
//! methods keep the outline's stage as it was (golden_runs unchanged). Cost: when
//! the pass rewinds, the exact overlaps of the moved bodies' candidate pairs twice.
//!
//! **The depth the rest of the step carries is read at the points that meet
//! (peg30, `[lcp] peg_ccd_points`, default true).** Both the check per attempt
//! ([`impact_missed`]) and the pass ([`peg_ccd`]) read "the rest of the step
//! carries the geom deeper than a quarter of its inner radius" as every other
//! method does since session 36 (`collide::Reach::Points`: the gain of the
//! geoms' support heights along the separating direction from the time of
//! impact to the step's end), not by the bodies' origins (`Reach::Origins`, the
//! key off: PEG before peg30). A plank turning about its foot drops its origin
//! 2.6 mm a step at h = 5 ms while its foot stays on the floor: read by the
//! origins it was rewound to its start with its normal velocity removed
//! (−18.7 % on the speed it leaves a frictionless wall with;
//! `tests/contact_plank.rs`).
//!
//! # The corrector (peg27, `[lcp] peg_retry_corrector`)
//! 003's rows are velocity-level: the gap at the end of the step is eq. (6)'s
//! Taylor series "truncated after the linear term", ψ + h Gᵀν⁺ ≥ 0. A body
//! turning by θ = h|ω| carries a contact point r from the axis to R(θ) r, not
//! to r + h ω × r: the end gap differs from the rows' by the second-order term
//! δ ≈ −½ h²|ω|² (n·r_⊥) (the chord's sagitta; with the normal's own turn for a
//! face or edge that rotates). Every row can hold at ν⁺ while the integrated
//! poses overlap by |δ| (verdict (c), docs/EXPERIMENTS.md peg25–peg27): at the
//! deepest retry level nothing splits the sub-step further. With the key (and
//! τ > 0, a retry depth), a deepest-level sub-step whose solve did not fail but
//! whose overlap rose by more than τ d³ is taken again from its start with two
//! passes, the second forced (`PegWorkspace::force_pass`): a predicted pass
//! built with the start's reach (the bounds not grown to ν⁺'s; its ε_θ from
//! the start's rotation, as `peg_rotation_eps_theta`) whose rows add min(δ, 0)
//! at the first pass's ν⁺ (`peg::second_order_gap`, 003 eq. (6) truncated one
//! term later, "if desired"), so that at ν⁺ the contact points carried as the
//! integrator carries them end apart. Growing the reach as `peg_passes` does
//! was tried (docs/EXPERIMENTS.md, peg27): more rows, and a pass that ended on
//! Lemke's ray where the first pass's rows are solved. The
//! attempt with the smaller rise (`peg::overlap_rise`) is kept, a failed one
//! never (`StepStats::peg_corrections`, `peg_corrections_kept`). Cost: the
//! deepest level's overlaps at start and end, one more attempt of two passes
//! per such sub-step.
//!
//! # What is put back
//! The start of the attempt: every body's state, the robots' (q, q̇) (their link
//! kinematics posed again, `kinematics::link_states_if_moved`), the pairs'
//! memory (the warm impulses `warm::remember_impulses` wrote) and the step's
//! stats — preallocated copies in [`RetryWorkspace`] (capacities from the model;
//! no allocation per tick, `tests/peg_block_alloc.rs`).
//!
//! # The collision inputs of a sub-step
//! Each sub-step after the first attempt poses the geoms at its start state
//! (`CollideWorkspace::pose_geoms`), takes the geoms' speed bounds there (the
//! bound of `collide::broad_phase`, |v| + |ω|(size + |offset|)) and the
//! speculative reach of its own step h_k (h_k u + h_k²|g| + window), and runs
//! the narrow phase into `Data::contacts` (`CollideWorkspace::narrow_phase`)
//! over the **start-of-step broad-phase candidates**. The broad phase is not
//! run again (it merges the pairs' memory and the sleeping stages hold the
//! candidates as their active subset until the outline's `sleep::deactivate`).
//! Why they cover a sub-step: each geom's box was grown by 2 h u₀ plus half of
//! window + h²|g| (u₀ its speed bound at the start of the step: two steps of
//! motion), and a sub-step starting at time t needs the pairs within its reach
//! h_k(u_a + u_b) + h_k²|g| + window at its start; a pair left out was farther
//! apart than the two boxes' growth at the start, so it is within reach at t
//! only if a geom's motion since the start d(t) plus its sub-step reach h_k u(t)
//! exceeds 2 h u₀ + ½ h²|g| — it moved faster than twice its start-of-step
//! bound. That is checked per sub-step (O(geoms)); a sub-step where it fails is
//! counted in `StepStats::peg_retry_uncovered` and (peg26) runs its own broad
//! phase at its start poses and speed bounds, boxes grown by two sub-steps of
//! motion and the window as the outline's over a step of h_k
//! (`collide::CoverPhase::cover_substep`): the pairs missing from the
//! candidates are appended (verdict (u) of peg25: 2D pour h = 3.85e-2 s4 under
//! the one-sided key, 1.4e-2 L² on main).
//!
//! # A body knocked within the step (peg26)
//! The candidates cover a step whose bodies keep to their start speed bounds
//! (boxes grown by 2 h u₀). A body knocked within the step can leave its box
//! and meet a geom whose pair is not a candidate: no rows, and neither the
//! overlap trigger nor the attribution walk it (verdict (m) of peg25: 3D pour
//! h = 5e-2 s1, poly0 / poly1, 1.5e-2 L³ under the key). So every attempt that
//! did not fail is checked against its own motion: each geom's box at its start
//! pose grown by its whole sweep to the attempt's end (|Δx| + |Δθ| (size +
//! |offset|), which bounds every point of the lerped/slerped path) and the
//! window (`collide::CoverPhase::cover_motion`); a geom that kept to its bound
//! adds no pair. If pairs are missing, they are appended, each of their geoms'
//! speed bounds is raised to sweep / h_k (the reach their motion had), and the
//! attempt is taken again from its start (`StepStats::peg_recollected`). If the
//! attempt taken again still meets a pair beyond its candidates it is split like
//! a failed one above the deepest level (kept at it). The overlap trigger, the
//! attribution and the continuous collision walk the appended pairs. The
//! broad phase's memory of this lives in [`RetryWorkspace`] (`cover`: its own
//! boxes, grid and found pairs, sized from the model; not the outline's grid,
//! which the sleeping stages' fixed-geom memory holds); an appended pair's memory
//! is a fresh `PairState` after the step's own, so the step's candidates keep
//! their indices (`Data::contact_pair`). After the step the appended pairs are
//! dropped and the step's start contacts are found again over its own
//! candidates (the outline's sleeping stages map them). `[lcp] peg_retry_cover =
//! false` (a diagnostic; peg26's `RTPHYS_PEG_NO_COVER=1`) turns both off. No allocation while the appended pairs fit the
//! candidates' capacity.
//!
//! After the retry the workspace's poses and speeds are those of the start of
//! the step again (the outline's continuous collision and the next step's broad
//! phase see what they saw without it); `Data::contacts` holds the last
//! sub-step's start contacts.
//!
//! # What the retry means for the figure
//! A retried step is not a step of size h: its overlap at the end is that of
//! sub-steps of h/2^k. The pours report the fraction of retried steps beside
//! the overlap (docs/EXPERIMENTS.md, peg20; `StepStats::peg_retried_steps`).
//!
//! Deterministic: the order of the sub-steps and every input are fixed by the
//! state.

use super::{LcpStepper, LcpWorkspace};
use crate::data::Stage;
use crate::data::{BodyState, Data, PairState, StepStats};
use crate::model::lcp::MAX_PEG_RETRY_DEPTH;
use crate::model::{ContactModel, Model};
use crate::pipeline::clock::Instant;
use crate::pipeline::collide::{
    continuous_collision_outside, geom_sweep, missed_impacts, CollideWorkspace, CoverPhase, Reach,
    Speculative, Sweeps,
};
use crate::pipeline::{lap, Tick};

/// The copies a retry puts back (capacities kept).
#[derive(Clone, Debug, Default)]
pub(super) struct RetryWorkspace {
    /// The attempt's start.
    at_start: Attempt,
    /// The step's start: bodies (for the coverage check), geom poses and speed
    /// bounds (put back after the retry).
    start: Vec<BodyState>,
    /// The end of a step (or kept attempt) while the continuous collision's
    /// pass is measured ([`peg_ccd`]).
    end: Vec<BodyState>,
    geom_pose: Vec<crate::math::Pose>,
    speed: Vec<f64>,
    /// The overlap trigger's start volumes, per candidate pair (module doc,
    /// "The overlap trigger").
    ov0: Vec<f64>,
    /// `[lcp] peg_retry_rotation_eps_theta` (module doc, "The deepest level").
    deep_rot: bool,
    /// `[lcp] peg_retry_second_chance` (module doc, "The second chance"): the
    /// first attempt's end while the second runs, and its bodies' |ω|².
    second: bool,
    alt: Attempt,
    w2_end: Vec<f64>,
    /// `[lcp] peg_ccd_retry` and `peg_ccd_held` (module doc, "The continuous
    /// collision").
    ccd: bool,
    held: bool,
    /// The broad phase of what an attempt meets beyond the step's candidates
    /// (module doc, "The collision inputs of a sub-step", "A body knocked within
    /// the step"), and the number of the step's own candidates (the appended
    /// ones are truncated after the step).
    cover: CoverPhase,
    n0: usize,
    /// `[lcp] peg_retry_cover = false` (a diagnostic, peg26): the sub-steps' own
    /// broad phase and the re-collection off, the retry's collision inputs as
    /// before peg26.
    no_cover: bool,
    /// `[lcp] peg_retry_corrector` (module doc, "The corrector").
    corrector: bool,
}

/// What an attempt puts back: bodies, robots' (q, q̇), pairs' memory, stats
/// (capacities kept).
#[derive(Clone, Debug, Default)]
struct Attempt {
    state: Vec<BodyState>,
    qpos: Vec<f64>,
    qvel: Vec<f64>,
    pairs: Vec<PairState>,
    stats: StepStats,
}

impl Attempt {
    fn with_capacity(model: &Model, pairs: usize) -> Self {
        Attempt {
            state: Vec::with_capacity(model.nbody()),
            qpos: Vec::with_capacity(model.nq),
            qvel: Vec::with_capacity(model.nv),
            pairs: Vec::with_capacity(pairs),
            stats: StepStats::default(),
        }
    }

    /// Copy `data`'s.
    fn save(&mut self, data: &Data) {
        self.state.clone_from(&data.state);
        self.qpos.clone_from(&data.qpos);
        self.qvel.clone_from(&data.qvel);
        self.pairs.clone_from(&data.pairs);
        self.stats.clone_from(&data.stats);
    }

    /// Put it back into `data`; the stage timers stay. Candidates appended since
    /// it was saved get a fresh pair memory (`candidates`: the step's, with any
    /// appended; module doc, "A body knocked within the step").
    fn restore(&self, model: &Model, data: &mut Data, candidates: &[(u32, u32)]) {
        let ns = data.stats.stage_ns;
        data.state.clone_from(&self.state);
        data.qpos.clone_from(&self.qpos);
        data.qvel.clone_from(&self.qvel);
        data.pairs.clone_from(&self.pairs);
        CoverPhase::sync_pairs(candidates, &mut data.pairs);
        data.stats.clone_from(&self.stats);
        data.stats.stage_ns = ns;
        if !model.robots.is_empty() {
            crate::kinematics::link_states_if_moved(
                model,
                &mut data.robots,
                &data.qpos,
                &data.qvel,
                &mut data.state,
            );
        }
    }
}

impl RetryWorkspace {
    /// Sized from the model (empty unless the model's method retries).
    pub(super) fn new(model: &Model) -> Self {
        let peg = matches!(&model.opt.method,
            crate::model::Method::Lcp(p) if p.contact_model == ContactModel::Peg);
        let on = peg
            && matches!(&model.opt.method,
            crate::model::Method::Lcp(p) if p.peg_retry_depth > 0);
        let (nb, ng) = (model.nbody(), model.ngeom());
        if !on {
            // A step of PEG without the retry keeps its start for the
            // continuous collision (module doc, "The continuous collision").
            let n = if peg { nb } else { 0 };
            return RetryWorkspace {
                start: Vec::with_capacity(n),
                end: Vec::with_capacity(n),
                ..Default::default()
            };
        }
        let pairs = crate::collision::capacity::PAIRS_PER_GEOM * ng;
        RetryWorkspace {
            at_start: Attempt::with_capacity(model, pairs),
            start: Vec::with_capacity(nb),
            end: Vec::with_capacity(nb),
            geom_pose: Vec::with_capacity(ng),
            speed: Vec::with_capacity(ng),
            ov0: Vec::with_capacity(pairs),
            deep_rot: matches!(&model.opt.method,
                crate::model::Method::Lcp(p) if p.peg_retry_rotation_eps_theta),
            second: matches!(&model.opt.method,
                crate::model::Method::Lcp(p) if p.peg_retry_second_chance && p.peg_retry_overlap > 0.0),
            alt: Attempt::with_capacity(model, pairs),
            w2_end: Vec::with_capacity(nb),
            ccd: matches!(&model.opt.method,
                crate::model::Method::Lcp(p) if p.peg_ccd_retry),
            held: matches!(&model.opt.method,
                crate::model::Method::Lcp(p) if p.peg_ccd_held),
            cover: CoverPhase::with_capacity(ng),
            n0: 0,
            no_cover: matches!(&model.opt.method,
                crate::model::Method::Lcp(p) if !p.peg_retry_cover),
            corrector: matches!(&model.opt.method,
                crate::model::Method::Lcp(p) if p.peg_retry_corrector && p.peg_retry_overlap > 0.0),
        }
    }
}

/// Whether the attempt since `before` failed (module doc, "What counts as
/// failed").
fn failed(before: &StepStats, now: &StepStats) -> bool {
    now.solver_failures > before.solver_failures
        || now.solver_unconverged > before.solver_unconverged
}

/// The speed bound of every geom at `state` (`collide::geom_speed`, as the
/// broad phase's: |v| + |ω| (size + |offset|), 0 for unbounded geoms).
fn geom_speeds(model: &Model, state: &[BodyState], out: &mut Vec<f64>) {
    out.clear();
    out.extend((0..model.ngeom()).map(|g| crate::pipeline::collide::geom_speed(model, state, g)));
}

/// Whether the start-of-step candidates cover a sub-step of `hk` from `state`
/// (module doc, "The collision inputs of a sub-step"): every geom's motion since
/// the step's start plus its sub-step reach within 2 h u₀ + ½ h²|g|.
fn covered(model: &Model, rw: &RetryWorkspace, state: &[BodyState], h: f64, hk: f64) -> bool {
    let g = model.opt.gravity.norm();
    model.geoms.iter().enumerate().all(|(i, geom)| {
        let size = geom.shape.size();
        if !size.is_finite() {
            return true;
        }
        let (s0, s) = (&rw.start[geom.body], &state[geom.body]);
        let arm = size + geom.x_bg.translation.vector.norm();
        let moved = (s.x - s0.x).norm() + (s.q * s0.q.inverse()).angle() * arm;
        let u = s.v.norm() + s.w.norm() * arm;
        let u0 = rw.speed.get(i).copied().unwrap_or(0.0);
        moved + hk * u <= 2.0 * h * u0 + 0.5 * h * h * g
    })
}

/// Whether the attempt of `hk` that ended at `data` (its start in `rw.at_start`)
/// moved a body through an impact the outline's continuous collision would
/// rewind (module doc, "The continuous collision").
fn impact_missed(
    model: &Model,
    data: &Data,
    col: &CollideWorkspace,
    (rw, ls): (&RetryWorkspace, &LcpWorkspace),
    hk: f64,
) -> bool {
    let sweeps = Sweeps {
        start: &rw.at_start.state,
        bodies: &data.awake,
        frozen: &data.frozen,
        h: hk,
        restitution: false,
        reach: reach(model),
    };
    missed_impacts(model, &sweeps, &data.state, col, |b, o| {
        rw.held && has_rows(&ls.contacts, b, o)
    }) > 0
}

/// How PEG's continuous collision reads the depth the rest of a step carries
/// (`[lcp] peg_ccd_points`; module doc, "The continuous collision").
fn reach(model: &Model) -> Reach {
    match &model.opt.method {
        crate::model::Method::Lcp(p) if !p.peg_ccd_points => Reach::Origins,
        _ => Reach::Points,
    }
}

/// Whether the attempt just taken had contact rows between bodies `b` and `o`
/// (its last pass's rows, `LcpWorkspace::contacts`): the pair was within the
/// step's reach and its rows hold it (module doc, "The continuous collision").
fn has_rows(contacts: &[super::ContactRow], b: usize, o: usize) -> bool {
    contacts
        .iter()
        .any(|r| r.bodies == [b, o] || r.bodies == [o, b])
}

/// A pass of the continuous collision is refused when it raises the sum of the
/// overlap measures of the candidate pairs with a body it moved (each the exact
/// overlap volume over d³, `peg::rewind_overlap`) by more than this: three orders
/// below issue 12's criterion (1e-9), far above the exact overlap's rounding
/// between touching polytopes (module doc, "The continuous collision").
pub(super) const REWIND_OVERLAP_TOL: f64 = 1e-12;

/// The continuous collision after a PEG step or a kept attempt (module doc, "The
/// continuous collision"): the outline's stage from `start` over `h`
/// (`collide::continuous_collision_outside`; with `held`, the pairs the attempt
/// had rows for left out, `[lcp] peg_ccd_held`), kept only if it does not raise
/// the overlap of the bodies it moved ([`pass_rise`] ≤ [`REWIND_OVERLAP_TOL`]);
/// otherwise the step's end (`end`, a copy) is put back and its rewinds are
/// counted in `StepStats::peg_ccd_refused`. Returns the rewinds kept.
fn peg_ccd(
    (model, h, restitution): (&Model, f64, bool),
    (start, end): (&[BodyState], &mut Vec<BodyState>),
    data: &mut Data,
    col: &CollideWorkspace,
    ls: &mut LcpWorkspace,
    held: bool,
) -> usize {
    let sweeps = Sweeps {
        start,
        bodies: &data.awake,
        frozen: &data.frozen,
        h,
        restitution,
        reach: reach(model),
    };
    end.clone_from(&data.state);
    let LcpWorkspace {
        contacts, peg: pw, ..
    } = ls;
    let held = |b: usize, o: usize| held && has_rows(contacts, b, o);
    let n = continuous_collision_outside(model, &sweeps, &mut data.state, col, held);
    if n == 0 {
        return 0;
    }
    if pass_rise(model, &col.candidates, (end, &data.state), pw) > REWIND_OVERLAP_TOL {
        data.state.clone_from(end);
        data.stats.peg_ccd_refused += n as u64;
        return 0;
    }
    data.pose_links(model);
    n
}

/// The rise of Σ `peg::rewind_overlap` over the candidate pairs with a geom of a
/// body the pass moved, from `end` (the step's end) to `now` (after the pass):
/// the overlap the rewinds created, less the overlap they removed.
fn pass_rise(
    model: &Model,
    candidates: &[(u32, u32)],
    (end, now): (&[BodyState], &[BodyState]),
    pw: &mut super::peg::PegWorkspace,
) -> f64 {
    let moved = |g: usize| {
        let b = model.geoms[g].body;
        end[b].x != now[b].x || end[b].q != now[b].q
    };
    let pose = |st: &[BodyState], g: usize| st[model.geoms[g].body].pose() * model.geoms[g].x_bg;
    let mut rise = 0.0;
    for &(a, b) in candidates {
        let (a, b) = (a as usize, b as usize);
        if !(moved(a) || moved(b)) {
            continue;
        }
        let v0 = super::peg::rewind_overlap(model, pw, (a, &pose(end, a)), (b, &pose(end, b)));
        let v1 = super::peg::rewind_overlap(model, pw, (a, &pose(now, a)), (b, &pose(now, b)));
        rise += v1 - v0;
    }
    rise
}

/// Whether `[lcp] peg_outline_ccd`'s stage runs after the PEG step here (the
/// outline leaves it to the stepper for PEG, `LcpStepper::outline_ccd`), not
/// per attempt (`[lcp] peg_ccd_retry` with a retry depth).
fn step_ccd(p: &crate::model::LcpParams, depth: usize) -> bool {
    p.peg_outline_ccd && !(p.peg_ccd_retry && depth > 0)
}

/// The pairs the attempt from `rw.at_start` to `data`'s state met beyond the
/// candidates (`CoverPhase::cover_motion`), appended to them; each of their
/// geoms' speed bound raised to the one its motion had (sweep / h_k), so that
/// the attempt taken again has the reach for them (module doc, "A body knocked
/// within the step"). Returns whether any was appended.
fn met_beyond(
    model: &Model,
    data: &Data,
    col: &mut CollideWorkspace,
    rw: &mut RetryWorkspace,
    hk: f64,
) -> bool {
    let n = col.candidates.len();
    let start = &rw.at_start.state;
    if rw.cover.cover_motion(model, (start, &data.state), col) == 0 {
        return false;
    }
    for i in n..col.candidates.len() {
        let (a, b) = col.candidates[i];
        for g in [a as usize, b as usize] {
            let body = model.geoms[g].body;
            let u = geom_sweep(model, g, &start[body], &data.state[body]) / hk;
            if let Some(s) = col.speed.get_mut(g) {
                *s = s.max(u);
            }
        }
    }
    true
}

/// The LCP stepper's advance: one step of `tick.h`, or, under PEG with
/// `peg_retry_depth` > 0, the retry of the module doc.
pub(super) fn advance(
    st: &LcpStepper<'_>,
    tick: &Tick<'_>,
    data: &mut Data,
    col: &mut CollideWorkspace,
    ls: &mut LcpWorkspace,
) {
    let p = st.params;
    if p.contact_model != ContactModel::Peg {
        st.step_of(tick, data, col, ls);
        return;
    }
    let depth = p.peg_retry_depth.min(MAX_PEG_RETRY_DEPTH);
    let ccd = step_ccd(p, depth);
    let mut rw = std::mem::take(&mut ls.peg.retry);
    if depth == 0 {
        if ccd {
            rw.start.clone_from(&data.state);
        }
        st.step_of(tick, data, col, ls);
    } else {
        retry(st, tick, depth, data, col, ls, &mut rw);
    }
    if ccd {
        // The outline's continuous collision over the whole step (the outline
        // leaves it to PEG's stepper), a rewind that creates overlap refused.
        let t = Instant::now();
        let step = (tick.model, tick.h, p.restitution);
        let n = peg_ccd(step, (&rw.start[..], &mut rw.end), data, col, ls, false);
        data.stats.peg_outline_rewinds += n as u64;
        lap(&mut data.stats, Stage::NarrowPhase, t);
    }
    if depth > 0 && col.candidates.len() > rw.n0 {
        // The pairs appended within the step dropped (the candidates and the
        // pairs' memory as the outline's broad phase left them) and the step's
        // start contacts found again over them (`Data::contact_pair` indexes
        // the step's candidates; the outline's sleeping stages map it).
        CoverPhase::truncate(rw.n0, col, &mut data.pairs);
        col.narrow_phase(tick.model, &mut data.contacts, &mut data.contact_pair);
    }
    ls.peg.retry = rw;
}

/// What the stats of a retried step add up over its attempts.
#[derive(Clone, Copy, Default)]
struct Sums {
    iterations: usize,
    lcp_size: usize,
    residual: f64,
    solver_ns: u64,
    failed: bool,
}

/// The second chance of a deepest-level sub-step (module doc): the first
/// attempt (failed: `fail`) is at `data`'s end, its start in `rw`; take it
/// again with the rotation's ε_θ and keep the better end. Returns the
/// discarded attempt's solver iterations and time (the step's stats sum them).
fn second_chance(
    st: &LcpStepper<'_>,
    sub: &Tick<'_>,
    (fail, spec): (bool, Option<Speculative>),
    data: &mut Data,
    col: &mut CollideWorkspace,
    ls: &mut LcpWorkspace,
    rw: &mut RetryWorkspace,
) -> (usize, u64) {
    rw.w2_end.clear();
    rw.w2_end
        .extend(data.state.iter().map(|s| s.w.norm_squared()));
    let (better, discarded) = again(sub, spec, data, col, ls, rw, |data, col, ls, rw| {
        std::mem::swap(&mut ls.peg.w2_floor, &mut rw.w2_end);
        let rot0 = ls.peg.rot_eps_theta;
        ls.peg.rot_eps_theta = true;
        st.step_of(sub, data, col, ls);
        ls.peg.rot_eps_theta = rot0;
        std::mem::swap(&mut ls.peg.w2_floor, &mut rw.w2_end);
        // One that did not fail before one that failed, then the smaller rise.
        |fail_b: bool, rise_a: f64, rise_b: f64| {
            (fail && !fail_b) || (fail == fail_b && rise_b < rise_a)
        }
    });
    data.stats.peg_second_chances += 1;
    if better {
        data.stats.peg_second_kept += 1;
    }
    discarded
}

/// The corrector of a deepest-level sub-step (module doc, "The corrector"): the
/// first attempt, solved but with its overlap risen, is at `data`'s end, its
/// start in `rw`; take it again with a forced predicted pass (rows carrying the
/// gap's second-order term at the first pass's ν⁺) and keep the end with the
/// smaller rise, never a failed one. Returns the discarded attempt's solver
/// iterations and time.
fn corrector(
    st: &LcpStepper<'_>,
    sub: &Tick<'_>,
    spec: Option<Speculative>,
    data: &mut Data,
    col: &mut CollideWorkspace,
    ls: &mut LcpWorkspace,
    rw: &mut RetryWorkspace,
) -> (usize, u64) {
    let params = crate::model::LcpParams {
        peg_passes: st.params.peg_passes.max(2),
        ..*st.params
    };
    let (better, discarded) = again(sub, spec, data, col, ls, rw, |data, col, ls, _| {
        ls.peg.force_pass = true;
        LcpStepper { params: &params }.step_of(sub, data, col, ls);
        ls.peg.force_pass = false;
        |fail_b: bool, rise_a: f64, rise_b: f64| !fail_b && rise_b < rise_a
    });
    data.stats.peg_corrections += 1;
    if better {
        data.stats.peg_corrections_kept += 1;
    }
    discarded
}

/// A deepest-level sub-step taken a second time (the second chance, the
/// corrector): the first attempt's end (at `data`) saved, the sub-step's start
/// and its collision inputs put back, `take` steps it again and returns the
/// rule that keeps the second end (from whether it failed and the two overlap
/// rises, `peg::overlap_rise`); the other end is put back. Returns whether the
/// second was kept and the discarded attempt's solver iterations and time.
fn again<K: Fn(bool, f64, f64) -> bool>(
    sub: &Tick<'_>,
    spec: Option<Speculative>,
    data: &mut Data,
    col: &mut CollideWorkspace,
    ls: &mut LcpWorkspace,
    rw: &mut RetryWorkspace,
    take: impl FnOnce(&mut Data, &mut CollideWorkspace, &mut LcpWorkspace, &mut RetryWorkspace) -> K,
) -> (bool, (usize, u64)) {
    let model = sub.model;
    let rise_a = super::peg::overlap_rise(model, &data.state, &col.candidates, ls, &rw.ov0);
    rw.alt.save(data);
    let (it_a, ns_a) = (data.stats.solver_iterations, data.stats.solver_ns);
    rw.at_start.restore(model, data, &col.candidates);
    // The sub-step's collision inputs at its start again.
    col.pose_geoms(model, &data.state);
    geom_speeds(model, &data.state, &mut col.speed);
    col.speculative = spec.map(|s| Speculative {
        h: sub.h,
        gravity_reach: sub.h * sub.h * model.opt.gravity.norm(),
        window: s.window,
    });
    col.narrow_phase(model, &mut data.contacts, &mut data.contact_pair);
    let keep = take(data, col, ls, rw);
    let fail_b = failed(&rw.at_start.stats, &data.stats);
    let rise_b = super::peg::overlap_rise(model, &data.state, &col.candidates, ls, &rw.ov0);
    let better = keep(fail_b, rise_a, rise_b);
    let discarded = if better {
        (it_a, ns_a)
    } else {
        let b = (data.stats.solver_iterations, data.stats.solver_ns);
        rw.alt.restore(model, data, &col.candidates);
        b
    };
    (better, discarded)
}

/// The step as a sequence of attempts (module doc): a stack of levels k (a
/// step of h/2^k), popped in time order; an attempt that fails above `depth`
/// is put back and replaced by two of the next level.
fn retry(
    st: &LcpStepper<'_>,
    tick: &Tick<'_>,
    depth: usize,
    data: &mut Data,
    col: &mut CollideWorkspace,
    ls: &mut LcpWorkspace,
    rw: &mut RetryWorkspace,
) {
    let (model, h) = (tick.model, tick.h);
    let tau = st.params.peg_retry_overlap;
    let spec = col.speculative;
    let mut stack = [0u8; MAX_PEG_RETRY_DEPTH + 2];
    let mut top = 1;
    let mut first = true;
    let mut retried = false;
    let mut sums = Sums::default();
    while top > 0 {
        top -= 1;
        let level = stack[top];
        let hk = h / f64::from(1u32 << level);
        if !first {
            // The sub-step's own collision inputs at its start state.
            col.pose_geoms(model, &data.state);
            geom_speeds(model, &data.state, &mut col.speed);
            col.speculative = spec.map(|s| Speculative {
                h: hk,
                gravity_reach: hk * hk * model.opt.gravity.norm(),
                window: s.window,
            });
            if !covered(model, rw, &data.state, h, hk) {
                // The sub-step's own broad phase at its start (module doc, "The
                // collision inputs of a sub-step").
                data.stats.peg_retry_uncovered += 1;
                if !rw.no_cover {
                    rw.cover.cover_substep(model, hk, col);
                }
                CoverPhase::sync_pairs(&col.candidates, &mut data.pairs);
            }
            col.narrow_phase(model, &mut data.contacts, &mut data.contact_pair);
        } else {
            // The step's start, put back after the retry.
            rw.start.clone_from(&data.state);
            rw.geom_pose.clone_from(&col.geom_pose);
            rw.speed.clone_from(&col.speed);
            rw.n0 = col.candidates.len();
        }
        rw.at_start.save(data);
        let deep = usize::from(level) == depth;
        let watch = tau > 0.0 && (!deep || rw.second || rw.corrector);
        if watch {
            super::peg::pair_overlaps(model, &data.state, &col.candidates, ls, &mut rw.ov0);
        }
        let sub = Tick { model, h: hk };
        let rot0 = ls.peg.rot_eps_theta;
        if rw.deep_rot && level > 0 && usize::from(level) == depth {
            ls.peg.rot_eps_theta = true;
        }
        // A refusal of the work check above the deepest level is split, not
        // clamped (`[lcp] peg_work_clamp`, peg.rs "Work check").
        ls.peg.splittable = !deep;
        st.step_of(&sub, data, col, ls);
        // An attempt without PEG rows was the LCP method's step (`peg.rs`, "Steps
        // without PEG rows"): kept as that method keeps it, never split.
        let own = !ls.peg.lcp_step;
        let mut fail = own && failed(&rw.at_start.stats, &data.stats);
        let mut beyond = own && !fail && !rw.no_cover && met_beyond(model, data, col, rw, hk);
        if beyond {
            // A body knocked within the attempt met a pair that was not a
            // candidate (module doc, "A body knocked within the step"): taken
            // again from its start with that pair and the reach its motion had.
            let (it, ns) = (data.stats.solver_iterations, data.stats.solver_ns);
            rw.at_start.restore(model, data, &col.candidates);
            data.stats.peg_recollected += 1;
            col.pose_geoms(model, &data.state);
            col.narrow_phase(model, &mut data.contacts, &mut data.contact_pair);
            rw.at_start.save(data);
            if watch {
                super::peg::pair_overlaps(model, &data.state, &col.candidates, ls, &mut rw.ov0);
            }
            st.step_of(&sub, data, col, ls);
            data.stats.solver_iterations += it;
            data.stats.solver_ns += ns;
            fail = failed(&rw.at_start.stats, &data.stats);
            beyond = !fail && met_beyond(model, data, col, rw, hk);
            CoverPhase::sync_pairs(&col.candidates, &mut data.pairs);
        }
        ls.peg.rot_eps_theta = rot0;
        let rose = watch
            && own
            && !fail
            && super::peg::overlap_rose(model, &data.state, &col.candidates, ls, (&rw.ov0, tau));
        let hit = rw.ccd
            && own
            && !fail
            && !rose
            && !deep
            && impact_missed(model, data, col, (rw, ls), hk);
        let s = &data.stats;
        if (fail || rose || hit || beyond) && usize::from(level) < depth {
            // Not kept: the start put back, two attempts of h_k/2 instead.
            retried = true;
            sums.iterations += s.solver_iterations;
            sums.solver_ns += s.solver_ns;
            rw.at_start.restore(model, data, &col.candidates);
            if rose {
                data.stats.peg_overlap_retries += 1;
            }
            if hit {
                data.stats.peg_ccd_retries += 1;
            }
            stack[top] = level + 1;
            stack[top + 1] = level + 1;
            top += 2;
            first = false;
            continue;
        }
        if deep && rw.corrector && !fail && rose {
            let sub = Tick { model, h: hk };
            let (it, ns) = corrector(st, &sub, spec, data, col, ls, rw);
            sums.iterations += it;
            sums.solver_ns += ns;
        }
        if deep && rw.second && (fail || rose) {
            let sub = Tick { model, h: hk };
            let (it, ns) = second_chance(st, &sub, (fail, spec), data, col, ls, rw);
            sums.iterations += it;
            sums.solver_ns += ns;
        }
        if rw.ccd {
            // The kept attempt's continuous collision, over its own motion.
            let restitution = st.params.restitution;
            let at = (&rw.at_start.state[..], &mut rw.end);
            let n = peg_ccd((model, hk, restitution), at, data, col, ls, rw.held);
            data.stats.peg_ccd_impacts += n as u64;
        }
        let s = &data.stats;
        sums.iterations += s.solver_iterations;
        sums.lcp_size = sums.lcp_size.max(s.lcp_size);
        sums.residual = sums.residual.max(s.solver_residual);
        sums.solver_ns += s.solver_ns;
        sums.failed |= s.solver_failed;
        if level > 0 {
            data.stats.peg_substeps += 1;
        }
        first = false;
    }
    ls.peg.splittable = false;
    if retried {
        // The step's stats over its kept sub-steps.
        let s = &mut data.stats;
        s.peg_retried_steps += 1;
        s.solver_iterations = sums.iterations;
        s.lcp_size = sums.lcp_size;
        s.solver_residual = sums.residual;
        s.solver_ns = sums.solver_ns;
        s.solver_failed = sums.failed;
    }
    // The collision workspace as the outline left it (a re-collected attempt
    // raised speed bounds; sub-steps posed the geoms at their starts).
    col.geom_pose.clone_from(&rw.geom_pose);
    col.speed.clone_from(&rw.speed);
    col.speculative = spec;
}
