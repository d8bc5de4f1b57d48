//! The collision stages of the step: geom kinematics, the broad phase with the
//! persistent pair memory, and the narrow phase over the candidate pairs; their
//! working memory is [`CollideWorkspace`], owned by the [`super::Pipeline`].

use crate::collision::capacity::{
    MANIFOLDS_PER_GEOM, NARROW_POINTS, PAIRS_PER_GEOM, POINTS_PER_GEOM,
};
use crate::collision::ccd::time_of_impact;
use crate::collision::gjk::support_height;
use crate::collision::{
    collide_pair_traced, Aabb, BroadPhase, ContactPoint, ContactSet, Found, Manifold, Margin,
    NarrowScratch, Shape,
};
use crate::data::{BodyState, PairState};
use crate::math::{Pose, Vec3};
use crate::model::{BodyKind, Method, Model};

/// Working memory of the collision stages (not part of the state).
#[derive(Clone, Debug, Default)]
pub struct CollideWorkspace {
    /// World pose of every geom at the state last posed.
    pub geom_pose: Vec<Pose>,
    pub aabbs: Vec<Aabb>,
    pub broad: BroadPhase,
    /// Broad-phase candidate pairs of the step (sorted; they serve every
    /// intermediate state of the step: the boxes are grown by one step of motion).
    pub candidates: Vec<(u32, u32)>,
    pub pairs_next: Vec<PairState>,
    pub narrow: NarrowScratch,
    /// Per geom, a bound on the speed of its points at the start of the step,
    /// m/s: |v| + |ω| (size + |offset from the body origin|) (0 for unbounded
    /// geoms, which are static).
    pub speed: Vec<f64>,
    /// The speculative margin of the step, set by the outline from
    /// [`super::Stepper::speculative_window`]: `None` for the force models.
    pub speculative: Option<Speculative>,
    /// What the broad phase remembers of the geoms that do not move while some
    /// bodies sleep.
    pub fixed: FixedGeoms,
    /// A small world's pairs that may collide (`Model::geoms_may_collide`),
    /// listed once ([`BroadPhase::small_world_pairs`]); `None` for a larger world.
    pub small_pairs: Option<Vec<(u32, u32)>>,
    /// The step's narrow phase memo ([`NarrowMemo`]): a pair whose geoms have not
    /// moved by a bit since its penetrating manifold was found gets that manifold
    /// again without the pair routine.
    pub memo: NarrowMemo,
}

/// The narrow phase's memo of the last step's penetrating manifolds
/// ([`CollideWorkspace::narrow_phase`]; not part of the state). Each manifold
/// the pair routine found for penetrating geoms ([`Found::Penetrating`]: a
/// function of the two shapes and world poses alone, the speculative margin not
/// read) is kept with its pair and the two geoms' poses it was found at. A
/// candidate pair of the next step whose geoms are at those poses — bit for bit
/// (`tol` = 0), or each within `tol` of them at its bounding radius — gets the
/// kept manifold (and its points) copied instead of the pair routine and the
/// seams' clip (also a function of the poses), and keeps the poses it was found
/// at (a creeping body is found anew once it has moved `tol` from there, not
/// `tol` per step). Bit for bit, the memo changes no result. With a tolerance
/// (the penalty stepper's, [`REST_TOL`]) the step's contact set must follow
/// from the state alone: the poses a pair's manifold was found at are kept in
/// the state (`PairState::rest_poses`), the stepper checks that the narrow
/// phase reused exactly where they say ([`CollideWorkspace::rest_consistent`];
/// it did not after a restore, or in a pipeline that stepped another world) and
/// otherwise finds the step's manifolds from them
/// ([`CollideWorkspace::narrow_phase_rest`]). Gap manifolds (the margin's path)
/// and pairs without a manifold are found again every step. The memo holds for
/// one model (as the pipeline's other memories: `FixedGeoms`, `small_pairs`).
#[derive(Clone, Debug, Default)]
pub struct NarrowMemo {
    /// Off (the default; on when the world's `[penalty] rest_tol` is > 0, or
    /// when a test sets it): every pair collides (the memo is neither read nor
    /// kept, no `rest_poses` are set).
    pub off: bool,
    /// With the memo on, the penalty stepper keeps no resting pair's normal
    /// rows (`PairState::rest_rows`): the memo alone (a test switch; false by
    /// default).
    pub rows_off: bool,
    /// With the memo and the rows on, the penalty stepper keeps no resting
    /// pair's linear-anchor block (`Data::rest_blocks`, kept in the state
    /// with the rows under the key): the rows alone (a test switch; false by
    /// default).
    pub blocks_off: bool,
    /// The rest tolerance, m: how far (|Δx| + R |Δθ|, R the geom's bounding
    /// radius) each geom of a pair may be from the poses its kept manifold was
    /// found at; 0: bit for bit. Set by the stepper (0 until it does).
    pub tol: f64,
    /// Per geom, its bounding radius about its origin, m (∞: unbounded).
    radius: Vec<f64>,
    /// Last step's kept manifolds and points (manifold ranges into `set.points`).
    set: ContactSet,
    /// Per kept manifold: its candidate pair, and the poses of the pair's geoms
    /// it was found at.
    key: Vec<(u32, u32)>,
    poses: Vec<[Pose; 2]>,
    /// This step's manifolds as they are found (aligned with the output's
    /// manifolds): pair, the poses it was found at, whether the memo may keep it
    /// (the pair routine's), whether it was found at kept poses.
    found_key: Vec<(u32, u32)>,
    found_poses: Vec<[Pose; 2]>,
    found_kept: Vec<bool>,
    found_reused: Vec<bool>,
    /// Manifolds of the last narrow phase taken from the memo, and found by the
    /// pair routines (statistics).
    pub reused: usize,
    pub collided: usize,
}

/// The penalty stepper's rest tolerance ([`NarrowMemo::tol`]), m: a manifold
/// found at poses this close to the geoms' present ones has its depths and
/// points within 1e-12 m of the present ones — with grid_100's gains (kp =
/// 2e4 N/m per kg of load) ≤ 2e-8 N per point, 2e-9 of a 1 kg box's weight,
/// below the friction anchors' stop tolerance (1e-6 of the largest force).
pub const REST_TOL: f64 = 1e-12;

/// Whether geom poses `x` of pair `(a, b)` are within `tol` of `r` (each geom:
/// |Δx| + R |Δθ| with R its bounding radius, |Δθ| ≤ 2.1 |Δq| for unit
/// quaternions |Δq| ≤ 0.5 apart (θ = 4 asin(|Δq|/2)); an unbounded geom must
/// not move); bit for bit when `tol` is 0.
/// (The norms are bounded by the sums of the components' magnitudes: no root.)
#[inline]
fn within_rest(
    radius: &[f64],
    tol: f64,
    (a, b): (usize, usize),
    x: [&Pose; 2],
    r: &[Pose; 2],
) -> bool {
    let near = |g: usize, x: &Pose, r: &Pose| {
        if same_pose(x, r) {
            return true;
        }
        let size = radius[g];
        if tol == 0.0 || !size.is_finite() {
            return false;
        }
        let (tx, tr) = (&x.translation.vector, &r.translation.vector);
        let (qx, qr) = (&x.rotation.coords, &r.rotation.coords);
        let dx: f64 = (0..3).map(|i| (tx[i] - tr[i]).abs()).sum();
        let dq: f64 = (0..4).map(|i| (qx[i] - qr[i]).abs()).sum();
        dq <= 0.5 && dx + 2.1 * size * dq <= tol
    };
    near(a, x[0], &r[0]) && near(b, x[1], &r[1])
}

impl NarrowMemo {
    fn new(model: &Model) -> Self {
        let ngeom = model.ngeom();
        let (m, p) = (MANIFOLDS_PER_GEOM * ngeom, POINTS_PER_GEOM * ngeom);
        NarrowMemo {
            // Off unless the world's key `[penalty] rest_tol` is > 0 (the
            // stepper then sets `tol` from it): under the tolerance the pushed
            // clamped row pile of tests/sleep.rs ends 3.0e-3 m from its run
            // without sleeping where round-off alone parts it by 4.7e-5 m
            // without the memo (`pushed_pile_clamped_with_the_rest_memo_ends_as_without_sleeping`,
            // ignored; the linear pile's holds; docs/BENCHMARKS.md scale14–scale17).
            off: !matches!(&model.opt.method, Method::Penalty(p) if p.rest_tol > 0.0),
            radius: model.geoms.iter().map(|g| g.shape.size()).collect(),
            set: ContactSet::with_capacity(m, p),
            key: Vec::with_capacity(m),
            poses: Vec::with_capacity(m),
            found_key: Vec::with_capacity(m),
            found_poses: Vec::with_capacity(m),
            found_kept: Vec::with_capacity(m),
            found_reused: Vec::with_capacity(m),
            ..Default::default()
        }
    }

    /// The records of this step's manifolds cut to the output's first `n` (a
    /// late call appends to an output of this step's); padded (nothing kept)
    /// where an earlier call kept none.
    fn align(&mut self, n: usize) {
        self.found_key.resize(n, (u32::MAX, u32::MAX));
        self.found_poses.resize(n, [Pose::identity(); 2]);
        self.found_kept.resize(n, false);
        self.found_reused.resize(n, false);
    }

    /// Keeps `out`'s manifolds that may be kept (their pair routine's,
    /// `found_kept`), in order, as the next step's memo.
    fn keep(&mut self, out: &ContactSet) {
        // Every manifold the memo's, in its order: it holds them already.
        if self.off
            || (self.collided == 0
                && self.reused == self.key.len()
                && out.manifolds.len() == self.key.len())
        {
            return;
        }
        self.set.clear();
        self.key.clear();
        self.poses.clear();
        for (i, m) in out.manifolds.iter().enumerate() {
            if !self.found_kept.get(i).copied().unwrap_or(false) {
                continue;
            }
            let start = self.set.points.len();
            self.set.points.extend_from_slice(out.points_of(m));
            let shift = |k: usize| k - m.points.start + start;
            self.set.manifolds.push(Manifold {
                geom_a: m.geom_a,
                geom_b: m.geom_b,
                normal: m.normal,
                points: start..self.set.points.len(),
                deepest: shift(m.deepest),
            });
            self.key.push(self.found_key[i]);
            self.poses.push(self.found_poses[i]);
        }
    }
}

/// A geom's rigid motion from the pose a manifold was found at to the present
/// one ([`CollideWorkspace::carry_to_present`]): the turn q = q_x q_r⁻¹ as the
/// matrix T = R(q) − I = 2w [v]× + 2 [v]×² (no cancellation for a small
/// turn), the found origin and the shift of the origin.
struct Carry {
    t: nalgebra::Matrix3<f64>,
    from: Vec3,
    shift: Vec3,
}

impl Carry {
    /// `None` when the poses are the same bit for bit (no motion).
    fn between(r: &Pose, x: &Pose) -> Option<Carry> {
        if same_pose(r, x) {
            return None;
        }
        let q = x.rotation * r.rotation.inverse();
        let v = q.imag().cross_matrix();
        Some(Carry {
            t: 2.0 * q.w * v + 2.0 * v * v,
            from: r.translation.vector,
            shift: x.translation.vector - r.translation.vector,
        })
    }

    /// δ(p) = T (p − from) + shift = T p + e: where the material point at
    /// `p` (at the found pose) has moved, less `p`, as (T, e).
    #[inline]
    fn affine(&self) -> (nalgebra::Matrix3<f64>, Vec3) {
        (self.t, self.shift - self.t * self.from)
    }
}

/// Whether two pairs of poses are the same bit for bit.
#[inline]
fn same_poses(x: &[Pose; 2], y: &[Pose; 2]) -> bool {
    same_pose(&x[0], &y[0]) && same_pose(&x[1], &y[1])
}

/// Whether two poses are the same bit for bit.
#[inline]
fn same_pose(x: &Pose, y: &Pose) -> bool {
    let (tx, ty) = (&x.translation.vector, &y.translation.vector);
    let (qx, qy) = (&x.rotation.coords, &y.rotation.coords);
    tx.iter()
        .zip(ty.iter())
        .all(|(a, b)| a.to_bits() == b.to_bits())
        && qx
            .iter()
            .zip(qy.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits())
}

/// The broad phase's memory of the geoms that do not move while some bodies sleep
/// (static bodies and sleeping islands): their poses, boxes and speed bounds, their
/// grid and the candidate pairs among them, built when the set of sleeping bodies
/// or the edit stamp (`Data::edits`: renewed by every write of a state from
/// outside the step and by every fall asleep) changes; in between, a step poses, boxes and grids only
/// the moving geoms and queries them against the fixed grid. The candidates are
/// those of the full broad phase, bit for bit (the pairs are the overlapping boxes
/// whatever the grid, and a fixed box is the one the full pass would compute from
/// the same state).
#[derive(Clone, Debug, Default)]
pub struct FixedGeoms {
    /// The memory holds (`built`) and matches the state posed this step (`valid`).
    built: bool,
    valid: bool,
    /// The speculative window the fixed boxes were grown by (bits).
    window_bits: u64,
    /// Per body: static (from the model; read here instead of striding the
    /// model's bodies every step).
    is_static: Vec<bool>,
    /// Per body: fixed (static or asleep) at the build; the edit stamp then, and
    /// this step's.
    fixed_body: Vec<bool>,
    edits: u64,
    edits_now: u64,
    /// Per geom: fixed at the build; the other geoms, in index order.
    fixed_geom: Vec<bool>,
    moving: Vec<u32>,
    /// Candidate pairs among fixed geoms (sorted) and, this step, those with a moving
    /// geom.
    fixed_pairs: Vec<(u32, u32)>,
    moving_pairs: Vec<(u32, u32)>,
    /// Whether a candidate pair of this step joins a moving geom to a sleeping
    /// body's (else no sleeping island can be woken by contact: the wake pass
    /// need not walk the pairs). True whenever the memory was not used.
    pub bridge: bool,
    /// The moving pairs the candidates were last merged from, and where each
    /// sits in the candidates; the build (`builds`) they were merged under.
    /// While a step's moving pairs are those, and the pair memory holds them
    /// at those places, the candidates and the pairs' keys are last step's:
    /// nothing is merged (O(moving) instead of O(pairs)).
    moving_prev: Vec<(u32, u32)>,
    moving_at: Vec<u32>,
    builds: u64,
    merged: Option<u64>,
    /// This step's candidates and pair keys are last step's (the sleep stages'
    /// active pairs may then be last step's too: `sleep::activate`).
    pub unchanged: bool,
    /// The sleep stages hold the active subset in `candidates` (between
    /// `sleep::activate` and `sleep::deactivate`; left set by a step unwound by
    /// a panic, when the candidates are not the full list).
    pub in_step: bool,
}

impl FixedGeoms {
    fn new(model: &Model) -> Self {
        let (nb, ng) = (model.nbody(), model.ngeom());
        FixedGeoms {
            is_static: (model.bodies.iter())
                .map(|b| b.kind == BodyKind::Static)
                .collect(),
            fixed_body: Vec::with_capacity(nb),
            fixed_geom: Vec::with_capacity(ng),
            moving: Vec::with_capacity(ng),
            fixed_pairs: Vec::with_capacity(PAIRS_PER_GEOM * ng),
            moving_pairs: Vec::with_capacity(PAIRS_PER_GEOM * ng),
            moving_prev: Vec::with_capacity(PAIRS_PER_GEOM * ng),
            moving_at: Vec::with_capacity(PAIRS_PER_GEOM * ng),
            bridge: true,
            ..Default::default()
        }
    }

    /// Whether the memory matches: the same bodies fixed, the same edit stamp
    /// (no fixed state written since the build), the same window. O(1) but for
    /// the sleeping flags (the bitwise comparison of every fixed state it
    /// replaces cost ≈ 19 µs per step at 1,000 sleeping bodies).
    fn matches(&self, edits: u64, asleep: &[bool], window: f64) -> bool {
        if !self.built
            || self.edits != edits
            || self.window_bits != window.to_bits()
            || asleep.len() != self.is_static.len()
        {
            return false;
        }
        (self.is_static.iter().zip(asleep))
            .zip(&self.fixed_body)
            .all(|((&s, &a), &f)| (s || a) == f)
    }
}

/// The speculative window's half on each side of a box (the pairs of the window
/// must be found too).
#[inline]
fn box_window(speculative: &Option<Speculative>) -> f64 {
    speculative.map_or(0.0, |s| 0.5 * (s.window + s.gravity_reach))
}

/// Speed bound of geom `g`'s points (see [`CollideWorkspace::speed`]).
#[inline]
pub(crate) fn geom_speed(model: &Model, state: &[BodyState], g: usize) -> f64 {
    let geom = &model.geoms[g];
    let s = &state[geom.body];
    let size = geom.shape.size();
    if size.is_finite() {
        s.v.norm() + s.w.norm() * (size + geom.x_bg.translation.vector.norm())
    } else {
        0.0
    }
}

/// Geom `g`'s box at `pose`, grown by the distance it can travel in one step of
/// `h` at speed bound `u` (twice: the boxes serve the whole step) and by the
/// speculative window.
#[inline]
fn geom_box(model: &Model, g: usize, pose: &Pose, u: f64, h: f64, window: f64) -> Aabb {
    model.geoms[g]
        .shape
        .aabb(pose)
        .inflated(2.0 * h * u + window + 1e-6)
}

/// Speculative contacts of a complementarity step (`collision::collide_pair_within`):
/// a pair gets gap points when its geoms are no farther apart than
/// `h (u_a + u_b) + h² |g|` — one step of relative motion (u the geoms' speed
/// bounds, plus what gravity adds within the step); the window widens the
/// features found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Speculative {
    /// h, s.
    pub h: f64,
    /// h² |g|, m.
    pub gravity_reach: f64,
    /// The speculative window, m (`LcpParams::contact_window`).
    pub window: f64,
}

impl CollideWorkspace {
    pub fn new(model: &Model) -> Self {
        CollideWorkspace {
            geom_pose: vec![Pose::identity(); model.ngeom()],
            aabbs: Vec::with_capacity(model.ngeom()),
            candidates: Vec::with_capacity(PAIRS_PER_GEOM * model.ngeom()),
            pairs_next: Vec::with_capacity(PAIRS_PER_GEOM * model.ngeom()),
            narrow: NarrowScratch::with_capacity(NARROW_POINTS),
            speed: Vec::with_capacity(model.ngeom()),
            broad: BroadPhase::with_capacity(model.ngeom()),
            fixed: FixedGeoms::new(model),
            small_pairs: BroadPhase::small_world_pairs(model.ngeom(), |a, b| {
                model.geoms_may_collide(a, b)
            }),
            memo: NarrowMemo::new(model),
            ..Default::default()
        }
    }

    /// The step's geom poses at `state` (as [`CollideWorkspace::pose_geoms`]);
    /// with `asleep` (some bodies sleep) and the fixed geoms' memory matching
    /// `state`, only the moving geoms are posed (the others' poses are those of the
    /// same states). Decides whether this step's broad phase uses the memory.
    pub fn pose_geoms_for_step(
        &mut self,
        model: &Model,
        (state, edits): (&[BodyState], u64),
        asleep: Option<&[bool]>,
    ) {
        let window = box_window(&self.speculative);
        let fx = &mut self.fixed;
        fx.edits_now = edits;
        fx.valid = asleep.is_some_and(|a| fx.matches(edits, a, window))
            && self.geom_pose.len() == model.ngeom();
        if fx.valid {
            for &g in &fx.moving {
                let geom = &model.geoms[g as usize];
                self.geom_pose[g as usize] = state[geom.body].pose() * geom.x_bg;
            }
        } else {
            self.pose_geoms(model, state);
        }
    }

    /// World pose of every geom at `state`: x_wg = x_wb · x_bg.
    pub fn pose_geoms(&mut self, model: &Model, state: &[BodyState]) {
        geom_poses(model, state, &mut self.geom_pose);
    }

    /// Narrow phase over the step's candidates at the geoms' current poses;
    /// `out_pair[m]` is the candidate (= pair) index of manifold `m`. Reads and
    /// keeps the memo ([`NarrowMemo`]: the same manifolds bit for bit).
    pub fn narrow_phase(&mut self, model: &Model, out: &mut ContactSet, out_pair: &mut Vec<usize>) {
        out.clear();
        out_pair.clear();
        self.memo.found_key.clear();
        self.memo.found_poses.clear();
        self.memo.found_kept.clear();
        self.memo.found_reused.clear();
        self.memo.reused = 0;
        self.memo.collided = 0;
        self.narrow_phase_from(model, 0, out, out_pair);
    }

    /// Narrow phase over the step's candidates at an intermediate state of the
    /// step (an integrator's stage): the memo is neither read nor kept (it stays
    /// the step start's, for the next step).
    pub fn narrow_phase_stage(
        &mut self,
        model: &Model,
        out: &mut ContactSet,
        out_pair: &mut Vec<usize>,
    ) {
        let ctx = NarrowCtx {
            poses: &self.geom_pose,
            candidates: &self.candidates,
            speed: &self.speed,
            speculative: self.speculative,
            cut_seams: false,
        };
        narrow_phase_within(model, &ctx, &mut self.narrow, out, out_pair);
    }

    /// The narrow phase of the candidates from index `first` on, appended to `out`
    /// (pairs that joined the step late: a sleeping island woken by an input),
    /// with the memo as [`CollideWorkspace::narrow_phase`].
    pub fn narrow_phase_from(
        &mut self,
        model: &Model,
        first: usize,
        out: &mut ContactSet,
        out_pair: &mut Vec<usize>,
    ) {
        let ctx = NarrowCtx {
            poses: &self.geom_pose,
            candidates: &self.candidates,
            speed: &self.speed,
            speculative: self.speculative,
            cut_seams: false,
        };
        if self.memo.off {
            narrow_range(model, &ctx, first, &mut self.narrow, out, out_pair, None);
            return;
        }
        let memo = &mut self.memo;
        memo.align(out.manifolds.len());
        let mu = MemoUse { memo, pairs: None };
        narrow_range(
            model,
            &ctx,
            first,
            &mut self.narrow,
            out,
            out_pair,
            Some(mu),
        );
        self.memo.keep(out);
    }

    /// Whether the last narrow phase's output (manifold pairs `set_pair`)
    /// reused a kept manifold exactly where the state says
    /// (`PairState::rest_poses` within the tolerance of the geoms' poses of this
    /// step) and at those poses bit for bit. False also when the memo is off
    /// or its records are not `set_pair`'s.
    pub fn rest_consistent(&self, pairs: &[PairState], set_pair: &[usize]) -> bool {
        let memo = &self.memo;
        if memo.off || memo.found_reused.len() != set_pair.len() {
            return false;
        }
        let poses = &self.geom_pose;
        let within = |p: &PairState, r: &[Pose; 2]| {
            let (a, b) = (p.geom_a as usize, p.geom_b as usize);
            within_rest(&memo.radius, memo.tol, (a, b), [&poses[a], &poses[b]], r)
        };
        // Each manifold: reused at the pair's rest poses bit for bit (the narrow
        // phase found them within the tolerance: the same test on the same
        // numbers), or not reused and the pair's rest poses (if any) not within.
        let mut with_rest = 0;
        for (m, &pi) in set_pair.iter().enumerate() {
            let Some(p) = pairs.get(pi) else {
                return false;
            };
            with_rest += p.rest_poses.is_some() as usize;
            let ok = match (memo.found_reused[m], &p.rest_poses) {
                (true, Some(r)) => same_poses(&memo.found_poses[m], r),
                (false, Some(r)) => !within(p, r),
                (false, None) => true,
                (true, None) => false,
            };
            if !ok {
                return false;
            }
        }
        // The pairs with rest poses and no manifold (rare: such a pair had a
        // penetrating manifold last step): not within either.
        with_rest == pairs.iter().filter(|p| p.rest_poses.is_some()).count()
            || (pairs.iter().enumerate())
                .filter(|(i, _)| !set_pair.contains(i))
                .all(|(_, p)| p.rest_poses.is_none_or(|r| !within(p, &r)))
    }

    /// The narrow phase as the state says ([`NarrowMemo`]): a pair whose
    /// `rest_poses` are within the tolerance of its geoms' poses gets the
    /// manifold found at those (the memo's, else found there again), the others
    /// are found at their poses. `pairs`: the step's pair memories (aligned
    /// with the candidates).
    pub fn narrow_phase_rest(
        &mut self,
        model: &Model,
        pairs: &[PairState],
        out: &mut ContactSet,
        out_pair: &mut Vec<usize>,
    ) {
        out.clear();
        out_pair.clear();
        let ctx = NarrowCtx {
            poses: &self.geom_pose,
            candidates: &self.candidates,
            speed: &self.speed,
            speculative: self.speculative,
            cut_seams: false,
        };
        let memo = &mut self.memo;
        memo.align(0);
        memo.reused = 0;
        memo.collided = 0;
        let mu = MemoUse {
            memo,
            pairs: Some(pairs),
        };
        narrow_range(model, &ctx, 0, &mut self.narrow, out, out_pair, Some(mu));
        self.memo.keep(out);
    }

    /// The manifolds the last narrow phase served from rest poses (the memo's,
    /// or found again at them) carried to the geoms' present poses, in `out`
    /// (the step's set; the memo keeps its own copy as found). With δ_g(p) the
    /// displacement of geom g's material point at p from the pose the manifold
    /// was found at to the present one: each point's depth gains
    /// n·(δ_b(p) − δ_a(p)) (n toward `geom_a`: b moving along n sinks deeper)
    /// and the deepest point is found again; the points (and levers) move by
    /// the mean of δ_a and δ_b and the normal turns by the mean of the two
    /// turns — where one geom is unbounded (a plane, static), the points move
    /// with the other geom and the normal (the plane's) stays. So the manifold is the
    /// one found at the present poses where the pair moved as one rigid body,
    /// or a box on a plane moved (its vertices move by δ exactly, the depth is
    /// linear in them); else it is to first order: the depths within the
    /// normal's error (≤ the relative turn, `tol`/R rad) times the motion
    /// (≤ `tol`), the points within half the relative motion (≤ `tol`). Without
    /// the carry the depths stay those of the found poses while the body moves
    /// up to `tol`: the force law has no stiffness within the tolerance and a
    /// resting body creeps at the damping's speed (docs/BENCHMARKS.md scale15,
    /// scale16). Pairs served at their present poses bit for bit are left as
    /// they are.
    pub fn carry_to_present(&self, out: &mut ContactSet, out_pair: &[usize]) {
        let memo = &self.memo;
        if memo.off || memo.found_reused.len() != out.manifolds.len() {
            return;
        }
        let poses = &self.geom_pose;
        let ContactSet { manifolds, points } = out;
        for (m, man) in manifolds.iter_mut().enumerate() {
            if !memo.found_reused[m] {
                continue;
            }
            let Some(&(a, b)) = out_pair.get(m).and_then(|&i| self.candidates.get(i)) else {
                continue;
            };
            let r = &memo.found_poses[m];
            let (ua, ub) = (a as usize, b as usize);
            let (Some(xa), Some(xb)) = (poses.get(ua), poses.get(ub)) else {
                continue;
            };
            let (ca, cb) = (Carry::between(&r[0], xa), Carry::between(&r[1], xb));
            if ca.is_none() && cb.is_none() {
                continue;
            }
            // The manifold's own geom_a and geom_b (the pair routine may have
            // listed the pair the other way round), each with whether it is
            // unbounded.
            let fixed = |g: usize| !memo.radius.get(g).is_some_and(|r| r.is_finite());
            let (cma, cmb) = if man.geom_a == ua { (ca, cb) } else { (cb, ca) };
            let (fa, fb) = (fixed(man.geom_a), fixed(man.geom_b));
            let (wa, wb) = match (fa, fb) {
                (true, false) => (0.0, 1.0),
                (false, true) => (1.0, 0.0),
                _ => (0.5, 0.5),
            };
            // Per point p (found): depth += n·(δ_b(p) − δ_a(p)) = g·p + c, and
            // p += M p + e (the weighted mean motion), both affine in p.
            let n = man.normal;
            let (g, c, mt, me) = match (fa, fb, &cma, &cmb) {
                // A plane (unbounded, not moved) under a moving geom: only the
                // moving geom's (T, e) — δ of the plane is 0, so g = ±Tᵀn,
                // c = ±n·e, M = T (the weight 1 on the moving geom): the
                // general sums below with the zero motion left out, equal up
                // to the sign of an exact zero.
                (true, false, None, Some(cb)) => {
                    let (tb, eb) = cb.affine();
                    (tb.transpose() * n, n.dot(&eb), tb, eb)
                }
                (false, true, Some(ca), None) => {
                    let (ta, ea) = ca.affine();
                    (-(ta.transpose() * n), -n.dot(&ea), ta, ea)
                }
                _ => {
                    let zero = (nalgebra::Matrix3::zeros(), Vec3::zeros());
                    let (ta, ea) = cma.as_ref().map_or(zero, Carry::affine);
                    let (tb, eb) = cmb.as_ref().map_or(zero, Carry::affine);
                    let g = (tb - ta).transpose() * n;
                    let c = n.dot(&(eb - ea));
                    (g, c, wa * ta + wb * tb, wa * ea + wb * eb)
                }
            };
            for p in &mut points[man.points.clone()] {
                p.depth += g.dot(&p.p_w) + c;
                let at_lever = p.lever == p.p_w;
                p.p_w += mt * p.p_w + me;
                p.lever = if at_lever {
                    p.p_w
                } else {
                    p.lever + mt * p.lever + me
                };
            }
            // The normal is the unbounded geom's own (it does not move), else
            // turned by the mean turn.
            if !(fa || fb) {
                man.normal = n + mt * n;
            }
            let mut deepest = man.deepest;
            for k in man.points.clone() {
                if points[k].depth > points[deepest].depth {
                    deepest = k;
                }
            }
            man.deepest = deepest;
        }
    }

    /// The poses the last narrow phase's manifold `m` was found at, if it is
    /// the pair routine's (penetrating: the memo keeps it).
    pub fn found_at(&self, m: usize) -> Option<[Pose; 2]> {
        let memo = &self.memo;
        let kept = !memo.off && memo.found_kept.get(m).copied().unwrap_or(false);
        kept.then(|| memo.found_poses.get(m).copied()).flatten()
    }
}

/// World pose of every geom: x_wg = x_wb · x_bg.
pub fn geom_poses(model: &Model, state: &[BodyState], out: &mut Vec<Pose>) {
    out.clear();
    out.extend(model.geoms.iter().map(|g| state[g.body].pose() * g.x_bg));
}

/// Broad phase over a step of `h`: AABBs grown by the distance each body can
/// travel in one step (so the candidate list also serves the integrator's
/// intermediate stages), overlapping pairs, and the pair memory carried over for
/// pairs that stay candidates. With `asleep` (some bodies sleep: the outline
/// passes it after [`CollideWorkspace::pose_geoms_for_step`]) the fixed geoms'
/// memory ([`FixedGeoms`]) is used, or built for the next step; the candidates are
/// the same either way.
pub fn broad_phase(
    model: &Model,
    h: f64,
    state: &[BodyState],
    ws: &mut CollideWorkspace,
    pairs: &mut Vec<PairState>,
    asleep: Option<&[bool]>,
) {
    let window = box_window(&ws.speculative);
    let CollideWorkspace {
        geom_pose: poses,
        aabbs,
        broad,
        candidates,
        pairs_next,
        speed,
        fixed: fx,
        small_pairs,
        ..
    } = ws;
    let wanted = |a: usize, b: usize| model.geoms_may_collide(a, b);
    let stale = std::mem::replace(&mut fx.in_step, false);
    fx.unchanged = false;
    match asleep {
        // Some bodies sleep and nothing fixed changed: the moving geoms only.
        Some(asleep) if fx.valid => {
            for &g in &fx.moving {
                let g = g as usize;
                speed[g] = geom_speed(model, state, g);
                aabbs[g] = geom_box(model, g, &poses[g], speed[g], h, window);
            }
            moving_candidates(model, broad, aabbs, (fx, asleep), candidates, stale);
            if fx.unchanged && same_keys_at(&fx.moving_prev, &fx.moving_at, pairs, candidates) {
                return;
            }
            fx.unchanged = false;
        }
        _ => {
            speed.clear();
            speed.extend((0..model.ngeom()).map(|g| geom_speed(model, state, g)));
            aabbs.clear();
            aabbs.extend(
                (0..model.ngeom()).map(|g| geom_box(model, g, &poses[g], speed[g], h, window)),
            );
            fx.bridge = true;
            match asleep {
                // Some bodies sleep: remember the fixed geoms for the next steps.
                Some(asleep) => {
                    // `is_static` is the model's, set once in `FixedGeoms::new`.
                    fx.fixed_body.clear();
                    let is_static = &fx.is_static;
                    fx.fixed_body
                        .extend((0..model.nbody()).map(|b| is_static[b] || asleep[b]));
                    fx.edits = fx.edits_now;
                    fx.fixed_geom.clear();
                    fx.fixed_geom
                        .extend(model.geoms.iter().map(|g| fx.fixed_body[g.body]));
                    fx.moving.clear();
                    fx.moving
                        .extend((0..model.ngeom() as u32).filter(|&g| !fx.fixed_geom[g as usize]));
                    fx.window_bits = window.to_bits();
                    broad.build_fixed(aabbs, &fx.fixed_geom, wanted, &mut fx.fixed_pairs);
                    fx.builds += 1;
                    fx.merged = None;
                    moving_candidates(model, broad, aabbs, (fx, asleep), candidates, true);
                    fx.unchanged = false;
                    fx.built = true;
                }
                None => {
                    fx.built = false;
                    fx.merged = None;
                    match small_pairs {
                        Some(listed) => BroadPhase::find_listed_pairs(aabbs, listed, candidates),
                        None => broad.find_pairs(aabbs, wanted, candidates),
                    }
                }
            }
        }
    }
    // Merge: keep the memory of pairs still present (both lists are sorted); when
    // the candidates are the pairs' own, nothing changes (no copy).
    let same = candidates.len() == pairs.len()
        && candidates
            .iter()
            .zip(pairs.iter())
            .all(|(&c, p)| c == (p.geom_a, p.geom_b));
    if same {
        return;
    }
    pairs_next.clear();
    let mut k = 0;
    for &(a, b) in candidates.iter() {
        while k < pairs.len() && (pairs[k].geom_a, pairs[k].geom_b) < (a, b) {
            k += 1;
        }
        if k < pairs.len() && (pairs[k].geom_a, pairs[k].geom_b) == (a, b) {
            pairs_next.push(pairs[k]);
        } else {
            pairs_next.push(PairState::new(a, b));
        }
    }
    std::mem::swap(pairs, pairs_next);
}

/// The candidates while the fixed geoms' memory holds: the moving geoms' pairs
/// (among themselves and with the fixed grid) merged with the fixed pairs, and
/// whether any of them joins a sleeping body (`FixedGeoms::bridge`). When the
/// moving pairs are those the candidates were last merged from under this
/// build (and `stale` does not say the candidates were left as a subset), the
/// candidates are left as they are and `FixedGeoms::unchanged` is set.
fn moving_candidates(
    model: &Model,
    broad: &mut BroadPhase,
    aabbs: &[Aabb],
    (fx, asleep): (&mut FixedGeoms, &[bool]),
    candidates: &mut Vec<(u32, u32)>,
    stale: bool,
) {
    let wanted = |a: usize, b: usize| model.geoms_may_collide(a, b);
    broad.find_moving_pairs(
        aabbs,
        &fx.moving,
        &fx.fixed_geom,
        wanted,
        &mut fx.moving_pairs,
    );
    fx.bridge = bridged(model, asleep, &fx.moving_pairs);
    if !stale
        && fx.merged == Some(fx.builds)
        && fx.moving_pairs == fx.moving_prev
        && candidates.len() == fx.fixed_pairs.len() + fx.moving_pairs.len()
    {
        fx.unchanged = true;
        return;
    }
    merge_sorted(
        &fx.fixed_pairs,
        &fx.moving_pairs,
        candidates,
        &mut fx.moving_at,
    );
    fx.moving_prev.clear();
    fx.moving_prev.extend_from_slice(&fx.moving_pairs);
    fx.merged = Some(fx.builds);
}

/// Whether the pair memory's keys are the candidates (`candidates`, unchanged
/// since they were merged from the fixed pairs and `moving` at `at`): the same
/// length and the moving pairs at their places — the rest of both lists are the
/// same fixed pairs (the memory's build matches the sleeping states), so a
/// pair memory stepped by this pipeline since, or by a clone of its world,
/// holds exactly the candidates' keys.
fn same_keys_at(
    moving: &[(u32, u32)],
    at: &[u32],
    pairs: &[PairState],
    candidates: &[(u32, u32)],
) -> bool {
    pairs.len() == candidates.len()
        && moving.iter().zip(at).all(|(&m, &i)| {
            let p = &pairs[i as usize];
            (p.geom_a, p.geom_b) == m && candidates[i as usize] == m
        })
}

/// Whether one of `pairs` joins a sleeping body to another body.
fn bridged(model: &Model, asleep: &[bool], pairs: &[(u32, u32)]) -> bool {
    pairs
        .iter()
        .any(|&(a, b)| asleep[model.geoms[a as usize].body] || asleep[model.geoms[b as usize].body])
}

/// `out` = the sorted union of the sorted, disjoint `x` and `y`; `y_at[j]` the
/// place of `y[j]` in `out`.
fn merge_sorted(
    x: &[(u32, u32)],
    y: &[(u32, u32)],
    out: &mut Vec<(u32, u32)>,
    y_at: &mut Vec<u32>,
) {
    out.clear();
    y_at.clear();
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        if x[i] < y[j] {
            out.push(x[i]);
            i += 1;
        } else {
            y_at.push(out.len() as u32);
            out.push(y[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&x[i..]);
    for &p in &y[j..] {
        y_at.push(out.len() as u32);
        out.push(p);
    }
}

/// The broad phase of what a step (or a retry's sub-step) can meet beyond the
/// step's candidates (PEG's retry, `pipeline::lcp::peg_retry`, "The collision
/// inputs of a sub-step" and "A body knocked within the step"; issue 12, peg26):
/// its own boxes, grid and found pairs. The memory lives in PEG's retry
/// workspace (`RetryWorkspace::cover`), sized from the model when the retry is
/// on; it is not the step's [`CollideWorkspace::broad`] (whose grid the sleeping
/// stages' fixed-geom memory holds) nor its boxes, so the outline's broad phase
/// of the next step sees what it saw without it.
#[derive(Clone, Debug, Default)]
pub struct CoverPhase {
    aabbs: Vec<Aabb>,
    broad: BroadPhase,
    found: Vec<(u32, u32)>,
}

impl CoverPhase {
    pub fn with_capacity(ngeom: usize) -> Self {
        CoverPhase {
            aabbs: Vec::with_capacity(ngeom),
            broad: BroadPhase::with_capacity(ngeom),
            found: Vec::with_capacity(PAIRS_PER_GEOM * ngeom),
        }
    }

    /// The pairs of overlapping boxes (`self.aabbs`) that are not in
    /// `ws.candidates`, appended to them; returns how many. The step's
    /// candidates keep their places (their pair memory and the narrow phase's
    /// pair indices stay valid), so the appended ones follow them unsorted until
    /// the retry truncates them ([`CoverPhase::truncate`]); their pair memory is
    /// a fresh one each ([`CoverPhase::sync_pairs`]).
    fn append_missing(&mut self, model: &Model, ws: &mut CollideWorkspace) -> usize {
        let wanted = |a: usize, b: usize| model.geoms_may_collide(a, b);
        self.broad.find_pairs(&self.aabbs, wanted, &mut self.found);
        let mut added = 0;
        for &(a, b) in &self.found {
            if ws.candidates.contains(&(a, b)) {
                continue;
            }
            ws.candidates.push((a, b));
            added += 1;
        }
        added
    }

    /// The pair memory of the candidates appended since `pairs` was last in
    /// step with them: a fresh one each (the memory and the candidates are
    /// index for index, as [`broad_phase`] leaves them).
    pub fn sync_pairs(candidates: &[(u32, u32)], pairs: &mut Vec<PairState>) {
        for &(a, b) in candidates.iter().skip(pairs.len()) {
            pairs.push(PairState::new(a, b));
        }
    }

    /// A sub-step's own broad phase at its start (the geoms posed in
    /// `ws.geom_pose`, their speed bounds in `ws.speed`, the sub-step's
    /// `ws.speculative`): each geom's box grown by two sub-steps of motion and
    /// the window, as [`broad_phase`]'s over a step of `hk`; the pairs missing
    /// from the candidates appended (returns how many).
    pub fn cover_substep(&mut self, model: &Model, hk: f64, ws: &mut CollideWorkspace) -> usize {
        let window = box_window(&ws.speculative);
        self.aabbs.clear();
        for g in 0..model.ngeom() {
            let u = ws.speed.get(g).copied().unwrap_or(0.0);
            let b = geom_box(model, g, &ws.geom_pose[g], u, hk, window);
            self.aabbs.push(b);
        }
        self.append_missing(model, ws)
    }

    /// The pairs an attempt's motion met beyond the candidates: each geom's box
    /// at its pose in `start`, grown by its whole sweep to `end` (|Δx| + |Δθ|
    /// (size + |offset|): every point of the lerped/slerped path stays within
    /// it) and the window; the pairs missing from the candidates appended
    /// (returns how many). A geom whose sweep stayed within the growth its
    /// candidate box had cannot add a pair, so an attempt whose bodies kept to
    /// their speed bounds appends none.
    pub fn cover_motion(
        &mut self,
        model: &Model,
        (start, end): (&[BodyState], &[BodyState]),
        ws: &mut CollideWorkspace,
    ) -> usize {
        let window = box_window(&ws.speculative);
        self.aabbs.clear();
        for (g, geom) in model.geoms.iter().enumerate() {
            let (s0, s1) = (&start[geom.body], &end[geom.body]);
            let pose = s0.pose() * geom.x_bg;
            let grow = geom_sweep(model, g, s0, s1) + window + 1e-6;
            self.aabbs.push(geom.shape.aabb(&pose).inflated(grow));
        }
        self.append_missing(model, ws)
    }

    /// The candidates and pair memory back to their first `n` (the step's own;
    /// the appended pairs' memory is dropped).
    pub fn truncate(n: usize, ws: &mut CollideWorkspace, pairs: &mut Vec<PairState>) {
        ws.candidates.truncate(n);
        pairs.truncate(n);
    }
}

/// Narrow phase over the candidate pairs, penetrating geoms only (the force
/// models); `out_pair[m]` is the candidate index of manifold `m`.
pub fn narrow_phase(
    model: &Model,
    poses: &[Pose],
    candidates: &[(u32, u32)],
    scratch: &mut NarrowScratch,
    out: &mut ContactSet,
    out_pair: &mut Vec<usize>,
) {
    let ctx = NarrowCtx {
        poses,
        candidates,
        speed: &[],
        speculative: None,
        cut_seams: false,
    };
    narrow_phase_within(model, &ctx, scratch, out, out_pair);
}

/// What the narrow phase reads: geom poses, the candidates and, for speculative
/// contacts, the geoms' speed bounds and the margin.
pub struct NarrowCtx<'a> {
    pub poses: &'a [Pose],
    pub candidates: &'a [(u32, u32)],
    pub speed: &'a [f64],
    pub speculative: Option<Speculative>,
    /// Clip a static box's seams by cutting the contact region at the covered
    /// faces (a volume measure: Hunt–Crossley), not only dropping the points
    /// beyond them ([`clip_to_seams`]).
    pub cut_seams: bool,
}

/// Narrow phase over the candidate pairs, with the speculative margin of
/// `ctx.speculative` (see [`Speculative`]) when set.
pub fn narrow_phase_within(
    model: &Model,
    ctx: &NarrowCtx<'_>,
    scratch: &mut NarrowScratch,
    out: &mut ContactSet,
    out_pair: &mut Vec<usize>,
) {
    out.clear();
    out_pair.clear();
    narrow_range(model, ctx, 0, scratch, out, out_pair, None);
}

/// What [`narrow_range`] reads and keeps of the memo: the memo, and with
/// `pairs` the state's `rest_poses` decide the reuse (else the memo's own
/// poses do).
struct MemoUse<'a> {
    memo: &'a mut NarrowMemo,
    pairs: Option<&'a [PairState]>,
}

/// The narrow phase of `ctx.candidates[first..]`, appended to `out`; with a
/// memo, a pair whose geoms are within its tolerance of the poses a manifold
/// was found at gets that manifold (the memo's copy, else found again at those
/// poses), and every manifold appended is recorded for the next memo
/// ([`NarrowMemo`]).
fn narrow_range(
    model: &Model,
    ctx: &NarrowCtx<'_>,
    first: usize,
    scratch: &mut NarrowScratch,
    out: &mut ContactSet,
    out_pair: &mut Vec<usize>,
    mut memo: Option<MemoUse<'_>>,
) {
    let poses = ctx.poses;
    // The memo's cursor: its keys are in the candidates' (sorted) order.
    let mut k = 0;
    for (i, &(a, b)) in ctx.candidates.iter().enumerate().skip(first) {
        let (ua, ub) = (a as usize, b as usize);
        let now = [&poses[ua], &poses[ub]];
        // The poses the pair's manifold is found at: kept ones, or this step's.
        let mut at: Option<[Pose; 2]> = None;
        if let Some(mu) = memo.as_mut() {
            let mm = &mut *mu.memo;
            while k < mm.key.len() && mm.key[k] < (a, b) {
                k += 1;
            }
            let kept = k < mm.key.len() && mm.key[k] == (a, b);
            at = match mu.pairs {
                Some(pairs) => pairs
                    .get(i)
                    .filter(|p| (p.geom_a, p.geom_b) == (a, b))
                    .and_then(|p| p.rest_poses),
                None => kept.then(|| mm.poses[k]),
            }
            .filter(|r| within_rest(&mm.radius, mm.tol, (ua, ub), now, r));
            if let Some(r) = at.filter(|r| kept && same_poses(&mm.poses[k], r)) {
                let m = &mm.set.manifolds[k];
                let start = out.points.len();
                out.points.extend_from_slice(mm.set.points_of(m));
                out.manifolds.push(Manifold {
                    geom_a: m.geom_a,
                    geom_b: m.geom_b,
                    normal: m.normal,
                    points: start..out.points.len(),
                    deepest: m.deepest - m.points.start + start,
                });
                out_pair.push(i);
                mm.found_key.push((a, b));
                mm.found_poses.push(r);
                mm.found_kept.push(true);
                mm.found_reused.push(true);
                mm.reused += 1;
                continue;
            }
        }
        let (pa, pb) = match &at {
            Some(r) => (&r[0], &r[1]),
            None => (now[0], now[1]),
        };
        let (ga, gb) = (&model.geoms[ua], &model.geoms[ub]);
        let margin = match ctx.speculative {
            Some(s) => {
                let u = ctx.speed.get(ua).copied().unwrap_or(0.0)
                    + ctx.speed.get(ub).copied().unwrap_or(0.0);
                Margin {
                    reach: s.h * u + s.gravity_reach + s.window,
                    window: s.window,
                }
            }
            None => Margin::NONE,
        };
        // A static box with a covered face collides as its extended box, and
        // keeps the points over itself (`model::seams`).
        let (xa_seam, xb_seam);
        let (sa, xa) = match &ga.seam {
            Some(s) => {
                xa_seam = s.pose(pa);
                (&s.shape, &xa_seam)
            }
            None => (&ga.shape, pa),
        };
        let (sb, xb) = match &gb.seam {
            Some(s) => {
                xb_seam = s.pose(pb);
                (&s.shape, &xb_seam)
            }
            None => (&gb.shape, pb),
        };
        let found = collide_pair_traced(ua, sa, xa, ub, sb, xb, &margin, scratch, out);
        if found == Found::Nothing {
            continue;
        }
        let kept = match (&ga.seam, &gb.seam) {
            (Some(s), _) => clip_to_seams(out, s.planes(pa), ctx.cut_seams),
            (_, Some(s)) => clip_to_seams(out, s.planes(pb), ctx.cut_seams),
            _ => true,
        };
        if kept {
            out_pair.push(i);
            if let Some(mu) = memo.as_mut() {
                let mm = &mut *mu.memo;
                mm.found_key.push((a, b));
                mm.found_poses.push([*pa, *pb]);
                // The clip reads the poses and `cut_seams`, which is false for
                // the memo's callers.
                mm.found_kept
                    .push(found == Found::Penetrating && !ctx.cut_seams);
                mm.found_reused.push(at.is_some());
                mm.collided += 1;
            }
        }
    }
}

/// Clip the last manifold (a static box's extended box against the other geom,
/// `model::seams`) to the real box: by each covered face's plane (n, c, tie),
/// the points beyond it are dropped (the neighbour's pair holds them). With
/// `cut`, the region is cut at the plane first: the section's vertices are
/// added ([`section_hull`]), so that the points' hull is the contact region's
/// part over the box (a volume measure: a polytopal manifold lists the vertices
/// of the intersection polytope); without, the point forces split between the
/// two pairs as the points do. The deepest point is found again; a manifold
/// left empty is removed. Returns whether it stays.
pub(crate) fn clip_to_seams(
    out: &mut ContactSet,
    planes: impl Iterator<Item = (Vec3, f64, bool)>,
    cut: bool,
) -> bool {
    let Some(start) = out.manifolds.last().map(|m| m.points.start) else {
        return false;
    };
    let mut changed = false;
    for (n, c, tie) in planes {
        let f = |q: &ContactPoint| n.dot(&q.p_w) - c;
        let inside = |v: f64| v < 0.0 || (v == 0.0 && tie);
        let end = out.points.len();
        if (start..end).all(|i| inside(f(&out.points[i]))) {
            continue;
        }
        changed = true;
        if cut {
            section_hull(out, start..end, (n, c), &inside);
        }
        // Keep the inside points of start..end, in order, and every cut point.
        let mut to = start;
        for i in start..out.points.len() {
            if i >= end || inside(f(&out.points[i])) {
                out.points.swap(to, i);
                to += 1;
            }
        }
        out.points.truncate(to);
    }
    if !changed {
        return true;
    }
    let end = out.points.len();
    if end == start {
        out.manifolds.pop();
        return false;
    }
    let mut deepest = start;
    for i in start..end {
        if out.points[i].depth > out.points[deepest].depth {
            deepest = i;
        }
    }
    if let Some(m) = out.manifolds.last_mut() {
        m.points = start..end;
        m.deepest = deepest;
    }
    true
}

/// The section of the convex hull of `out.points[range]` by the plane
/// n·x = c (`inside` tells the kept side), appended to `out.points`: the
/// crossings of the segments between a kept and a dropped point (position,
/// depth and lever interpolated — exact for the affine depth of a face
/// contact) include every hull edge's crossing, so the section is their convex
/// hull in the plane; only its vertices are added (gift wrapping over the
/// crossings, each recomputed from its segment: no buffer). A flat region's
/// section is a segment: its two ends. The hull of the kept points and the
/// section is the kept part of the region's hull, as with every crossing, but
/// the manifold grows by the section's vertices only (a box's face cut across:
/// two; a slab cut across: four), within the contact buffer's per-geom budget
/// (`collision::capacity`; `tests/seams_alloc.rs`).
fn section_hull(
    out: &mut ContactSet,
    range: std::ops::Range<usize>,
    (n, c): (Vec3, f64),
    inside: &dyn Fn(f64) -> bool,
) {
    let (e1, e2) = crate::math::tangent_basis(&n);
    let f = |q: &ContactPoint| n.dot(&q.p_w) - c;
    // The crossing of segment (i, j), i kept and j dropped, if it is one.
    let crossing = |pts: &[ContactPoint], (i, j): (usize, usize)| {
        let (p, q) = (pts[i], pts[j]);
        let (fp, fq) = (f(&p), f(&q));
        (inside(fp) && !inside(fq)).then(|| {
            let t = fp / (fp - fq);
            ContactPoint {
                p_w: p.p_w + (q.p_w - p.p_w) * t,
                depth: p.depth + (q.depth - p.depth) * t,
                lever: p.lever + (q.lever - p.lever) * t,
            }
        })
    };
    let uv = |x: &ContactPoint| (e1.dot(&x.p_w), e2.dot(&x.p_w));
    let m = range.len();
    let segments = move || (0..m).flat_map(move |i| (0..m).map(move |j| (i, j)));
    let (first, eps, count) = {
        let pts = &out.points[range.clone()];
        let spread = (pts.iter())
            .map(|p| (p.p_w - pts[0].p_w).norm())
            .fold(0.0, f64::max);
        let all = || segments().filter_map(|s| crossing(pts, s));
        // The start: the least (u, v), a vertex of the section.
        let first = all().min_by(|a, b| {
            let (pa, pb) = (uv(a), uv(b));
            pa.0.total_cmp(&pb.0).then(pa.1.total_cmp(&pb.1))
        });
        (first, 1e-12 * spread, all().count())
    };
    let Some(first) = first else {
        return;
    };
    let (fu, fv) = uv(&first);
    let mut cur = first;
    for _ in 0..count {
        out.points.push(cur);
        // The next vertex counter-clockwise about n: no crossing to the right
        // of cur → next (on the line: the farthest).
        let (cu, cv) = uv(&cur);
        let mut next: Option<(ContactPoint, f64, f64)> = None;
        let pts = &out.points[range.clone()];
        for x in segments().filter_map(|s| crossing(pts, s)) {
            let (xu, xv) = uv(&x);
            let (du, dv) = (xu - cu, xv - cv);
            if du.abs().max(dv.abs()) <= eps {
                continue;
            }
            let better = match next {
                None => true,
                Some((_, bu, bv)) => {
                    let turn = bu * dv - bv * du;
                    let tol = eps * (bu.abs() + bv.abs());
                    turn < -tol || (turn <= tol && du * du + dv * dv > bu * bu + bv * bv)
                }
            };
            if better {
                next = Some((x, du, dv));
            }
        }
        let Some((x, _, _)) = next else {
            break;
        };
        let (xu, xv) = uv(&x);
        if (xu - fu).abs().max((xv - fv).abs()) <= eps {
            break;
        }
        cur = x;
    }
}

/// A geom is *fast* when its points can move more than this fraction of its inner
/// radius in one step (the continuous-collision stage checks only fast geoms).
pub const CCD_FRACTION: f64 = 0.25;

/// The inner radius of a shape (m): the radius of a ball about the geom origin
/// inside it (∞ for a plane); a polytope whose origin is not inside counts a
/// tenth of its size.
pub fn inner_radius(shape: &Shape) -> f64 {
    match shape {
        Shape::Plane => f64::INFINITY,
        Shape::Sphere { radius } | Shape::Capsule { radius, .. } => *radius,
        Shape::Box { half, .. } => half.min(),
        Shape::Cylinder {
            radius,
            half_length,
        } => radius.min(*half_length),
        Shape::Polytope(p) => {
            let inside = -p.max_face_distance(&Vec3::zeros()).0;
            if inside > 0.0 {
                inside
            } else {
                0.1 * shape.size()
            }
        }
    }
}

/// The inputs of the continuous-collision stage besides the end state.
pub struct Sweeps<'a> {
    /// The state at the start of the step.
    pub start: &'a [BodyState],
    /// The bodies that may move, in index order (`Data::awake`: the sleeping
    /// ones are not swept).
    pub bodies: &'a [u32],
    pub frozen: &'a [bool],
    pub h: f64,
    /// Use the pairs' material restitution at an impact (else plastic).
    pub restitution: bool,
    /// How the stage measures the depth the rest of the step would carry a geom
    /// to ([`Reach`]).
    pub reach: Reach,
}

/// How [`continuous_collision`] reads "the rest of the step carries the geom
/// deeper than [`CCD_FRACTION`] of its inner radius" after a time of impact t
/// with separating direction n (toward the geom).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// By the points that meet: the gain, from t to the step's end, of the
    /// geom's support height along −n plus the other geom's along +n
    /// ([`reach_gain`]). A body turning about a contact (a plank sliding down
    /// a wall, its foot on the floor) drops its origin while its contact point
    /// stays: not an impact the method missed.
    Points,
    /// By the bodies' origins: −n·(Δx_b − Δx_o)(1 − t). Exact for a body that
    /// does not turn; over-counts a body turning about a contact (the plank
    /// above, rewound with its normal velocity removed: 86 % of its energy lost
    /// at h = 5 ms) and under-counts a spinning body's swing. PEG's with `[lcp]
    /// peg_ccd_points = false` (`pipeline::lcp::peg_retry`; PEG's reading
    /// before peg30, on which its older pinned pour events were derived).
    Origins,
}

/// The pose of body state `s0 → s1` at fraction t of the step: x lerped, q slerped.
fn body_pose_at(s0: &BodyState, s1: &BodyState, t: f64) -> Pose {
    let x = s0.x + (s1.x - s0.x) * t;
    let q = s0.q.try_slerp(&s1.q, t, 1e-12).unwrap_or(s1.q);
    Pose::from_parts(x.into(), q)
}

/// The largest displacement of a point of geom `g` over the step (m): |Δx| of
/// the body origin + |Δθ| (size + |offset|).
pub(crate) fn geom_sweep(model: &Model, g: usize, s0: &BodyState, s1: &BodyState) -> f64 {
    let geom = &model.geoms[g];
    let size = geom.shape.size();
    if !size.is_finite() {
        return 0.0;
    }
    let dtheta = (s1.q * s0.q.inverse()).angle();
    (s1.x - s0.x).norm() + dtheta * (size + geom.x_bg.translation.vector.norm())
}

/// Continuous collision, after the method's advance (all methods): each free
/// body with a fast geom (one whose points moved more than [`CCD_FRACTION`] of
/// its inner radius this step) has its swept motion (x lerped, q slerped from the
/// start state to the end state) checked against the geoms it may meet (the
/// step's broad-phase candidates: the boxes are grown by two steps of motion) by
/// conservative advancement ([`crate::collision::ccd::time_of_impact`]). The
/// earliest impact the method would not have caught — the rest of the step would
/// carry the geom deeper than [`CCD_FRACTION`] of its inner radius — rewinds the
/// body to the time of impact and applies the impact as an impulse along the
/// separating direction at the centres of mass (as 000 resolves impacts with
/// impulses), with restitution e: Δv_n = −(1 + e) v_n, shared by the inverse
/// masses; ω keeps its start value. A free other body is rewound with it (its
/// pose at the time of impact, its start velocity minus the impulse), so the
/// impact conserves momentum whatever the method did within the step. Returns the
/// number of impacts.
///
/// Cost when no geom is fast: one pass over the geoms (|Δx| and |Δθ| per geom).
pub fn continuous_collision(
    model: &Model,
    sw: &Sweeps<'_>,
    state: &mut [BodyState],
    ws: &CollideWorkspace,
) -> usize {
    continuous_collision_outside(model, sw, state, ws, |_, _| false)
}

/// [`continuous_collision`] with the body pairs `held(b, other)` says the
/// method's step already holds left out of the sweeps (PEG's retry, `[lcp]
/// peg_ccd_retry`: the pairs its step had rows for; `pipeline::lcp::peg_retry`,
/// "The continuous collision"). With `held` always false it is
/// [`continuous_collision`].
pub fn continuous_collision_outside(
    model: &Model,
    sw: &Sweeps<'_>,
    state: &mut [BodyState],
    ws: &CollideWorkspace,
    held: impl Fn(usize, usize) -> bool,
) -> usize {
    let mut impacts = 0;
    for &b in sw.bodies {
        let b = b as usize;
        let Some((t, n, ob)) = first_impact(model, sw, state, ws, b, &held) else {
            continue;
        };
        impacts += 1;
        // Rewind to the time of impact; the impact impulse at the start velocities.
        let (s0, o0) = (sw.start[b], sw.start[ob]);
        let pose = body_pose_at(&s0, &state[b], t);
        let inv_b = model.bodies[b].inv_mass;
        let o_moves = model.bodies[ob].kind == BodyKind::Free && !sw.frozen[ob];
        let inv_o = if o_moves {
            model.bodies[ob].inv_mass
        } else {
            0.0
        };
        let vn = n.dot(&(s0.v - if o_moves { o0.v } else { Vec3::zeros() }));
        let e = if sw.restitution {
            let pair = model.geoms.iter().filter(|g| g.body == b || g.body == ob);
            pair.map(|g| g.material.restitution).fold(1.0, f64::min)
        } else {
            0.0
        };
        let j = if vn < 0.0 {
            -(1.0 + e) * vn / (inv_b + inv_o)
        } else {
            0.0
        };
        let s = &mut state[b];
        s.x = pose.translation.vector;
        s.q = pose.rotation;
        s.v = s0.v + n * (j * inv_b);
        s.w = s0.w;
        if o_moves {
            // The other body too is put back at the time of impact with its start
            // velocity, minus the impulse: what the method did to it within the
            // step may include this very contact (Hunt–Crossley's adaptive
            // sub-steps meet it), and adding the impulse on top of that counted
            // the impact twice (a 100 m/s sphere on a resting one: 50 % of the
            // momentum created). Both bodies from their start velocities, the
            // impulse equal and opposite: momentum is conserved.
            let o_pose = body_pose_at(&o0, &state[ob], t);
            let o = &mut state[ob];
            o.x = o_pose.translation.vector;
            o.q = o_pose.rotation;
            o.v = o0.v - n * (j * inv_o);
            o.w = o0.w;
        }
    }
    impacts
}

/// The earliest impact of body `b`'s fast geoms over the step that the method
/// would not have caught ([`continuous_collision`]'s test): (fraction of the
/// step t, the separating normal toward `b`, the other body). `None` for a
/// frozen or non-free body and when no fast geom meets anything.
fn first_impact(
    model: &Model,
    sw: &Sweeps<'_>,
    state: &[BodyState],
    ws: &CollideWorkspace,
    b: usize,
    held: &impl Fn(usize, usize) -> bool,
) -> Option<(f64, Vec3, usize)> {
    if sw.frozen[b] || model.bodies[b].kind != BodyKind::Free {
        return None;
    }
    // The earliest impact of the body's fast geoms: (t, normal toward b, other body).
    let mut first: Option<(f64, Vec3, usize)> = None;
    for g in model.bodies[b].geoms.clone() {
        let geom = &model.geoms[g];
        let inner = inner_radius(&geom.shape);
        let sweep_g = geom_sweep(model, g, &sw.start[b], &state[b]);
        if sweep_g <= CCD_FRACTION * inner {
            continue;
        }
        for &(ca, cb) in &ws.candidates {
            let (ca, cb) = (ca as usize, cb as usize);
            let o = match (ca == g, cb == g) {
                (true, _) => cb,
                (_, true) => ca,
                _ => continue,
            };
            let ob = model.geoms[o].body;
            if ob == b || held(b, ob) {
                continue;
            }
            let bound = sweep_g + geom_sweep(model, o, &sw.start[ob], &state[ob]);
            let (s0, s1) = (&sw.start[b], &state[b]);
            let (o0, o1) = (&sw.start[ob], &state[ob]);
            let x_bg = geom.x_bg;
            let x_og = model.geoms[o].x_bg;
            let tol = (1e-2 * inner).min(1e-4);
            let Some(hit) = time_of_impact(
                &geom.shape,
                |t| body_pose_at(s0, s1, t) * x_bg,
                &model.geoms[o].shape,
                |t| body_pose_at(o0, o1, t) * x_og,
                bound,
                tol,
            ) else {
                continue;
            };
            // Would the method have caught it? Not if the rest of the step
            // carries the geom deeper than the fast threshold ([`Reach`]).
            let n = hit.sep.dir;
            let deeper = match sw.reach {
                Reach::Points => {
                    reach_gain(&geom.shape, s0, s1, x_bg, hit.t, &-n)
                        + reach_gain(&model.geoms[o].shape, o0, o1, x_og, hit.t, &n)
                }
                Reach::Origins => -n.dot(&((s1.x - s0.x) - (o1.x - o0.x))) * (1.0 - hit.t),
            };
            if deeper <= CCD_FRACTION * inner {
                continue;
            }
            if first.is_none_or(|(t, _, _)| hit.t < t) {
                first = Some((hit.t, n, ob));
            }
        }
    }
    first
}

/// How far the geom of shape `shape` (offset `x_bg` on a body moving `s0 → s1`)
/// reaches further along the unit direction `d` from fraction `t` of the step
/// to its end (m): the gain of its support height along d. An unbounded shape (a
/// plane: static, or its reach is not a point's) counts its origin's motion.
fn reach_gain(shape: &Shape, s0: &BodyState, s1: &BodyState, x_bg: Pose, t: f64, d: &Vec3) -> f64 {
    if !shape.size().is_finite() {
        return d.dot(&(s1.x - s0.x)) * (1.0 - t);
    }
    let at = body_pose_at(s0, s1, t) * x_bg;
    let end = body_pose_at(s0, s1, 1.0) * x_bg;
    support_height(shape, &end, d) - support_height(shape, &at, d)
}

/// The bodies of `sw.bodies` with an impact [`continuous_collision`] would
/// rewind, counted without changing anything (each body's sweep against the
/// others' end states as they are: the stage itself sees the bodies it rewound
/// before). Used by PEG's retry (`[lcp] peg_ccd_retry`, `pipeline::lcp::peg_retry`)
/// to take a step whose swept motion meets an impact again as sub-steps; the
/// body pairs `held(b, other)` says the step holds are left out, as in
/// [`continuous_collision_outside`].
pub fn missed_impacts(
    model: &Model,
    sw: &Sweeps<'_>,
    state: &[BodyState],
    ws: &CollideWorkspace,
    held: impl Fn(usize, usize) -> bool,
) -> usize {
    sw.bodies
        .iter()
        .filter(|&&b| first_impact(model, sw, state, ws, b as usize, &held).is_some())
        .count()
}

#[cfg(test)]
mod tests {
    use super::super::Pipeline;
    use crate::math::Wrench;
    use crate::model::scene::load_scene_str;
    use crate::{BodyState, Data, Model};

    /// grid_100's boxes and gains: a 3 × 3 grid of 0.1 m, 1 kg boxes at rest
    /// height on the floor, and a tenth box aside (the one dropped later).
    fn grid_scene() -> String {
        let mut s = String::from(
            "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\n\
             integrator = \"semi_implicit_euler\"\nmethod = \"penalty\"\n\
             [penalty]\nkp_per_mass = 20000.0\nkv_per_mass = 300.0\nki_per_mass = 1000.0\n\
             [[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"plane\" }\n\
             material = { mu = 0.8 }\n",
        );
        let mut place = |name: &str, x: f64, y: f64| {
            s.push_str(&format!(
                "[[body]]\nname = \"{name}\"\n\
                 shape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\n\
                 mass = 1.0\nposition = [{x:?}, {y:?}, 0.05]\nmaterial = {{ mu = 0.8 }}\n"
            ))
        };
        for i in 0..9 {
            place(
                &format!("obj{i}"),
                0.15 * (i % 3) as f64,
                0.15 * (i / 3) as f64,
            );
        }
        place("dropped", 2.0, 0.0);
        s
    }

    fn bits(data: &Data) -> Vec<u64> {
        let s = data.state.iter().flat_map(|b: &BodyState| {
            let q = b.q.coords;
            [
                b.x.x, b.x.y, b.x.z, q.x, q.y, q.z, q.w, b.v.x, b.v.y, b.v.z, b.w.x, b.w.y, b.w.z,
            ]
        });
        let w = (data.contact_wrench.iter()).flat_map(|w| w.force.iter().chain(w.torque.iter()));
        let f = data.contact_force.iter().flat_map(|f| f.iter());
        s.chain(w.copied())
            .chain(f.copied())
            .map(f64::to_bits)
            .collect()
    }

    /// Tick `k`'s inputs: box 4 (the middle) pushed by 0.5 N along x for 0.1 s
    /// from 0.6 s; at 1.0 s the tenth box put 5 cm above box 0 (gap between the
    /// faces), at rest, level.
    fn inputs(model: &Model, data: &mut Data, k: usize) {
        let pushed = model.body_id("obj4").expect("obj4");
        data.xfrc[pushed] = Wrench::ZERO;
        if (600..700).contains(&k) {
            data.xfrc[pushed].force.x = 0.5;
        }
        if k == 1000 {
            let b = model.body_id("dropped").expect("dropped");
            let under = data.state[model.body_id("obj0").expect("obj0")];
            let s = &mut data.state[b];
            s.x = under.x;
            s.x.z += 0.1 + 0.05;
            s.q = under.q;
            s.v = crate::math::Vec3::zeros();
            s.w = crate::math::Vec3::zeros();
            data.edited();
        }
    }

    /// What one run records per tick: body states, the contact wrench on
    /// every body, the manifolds reused and all.
    struct Run {
        states: Vec<Vec<BodyState>>,
        wrench: Vec<Vec<Wrench>>,
        bits: Vec<Vec<u64>>,
        counts: Vec<(usize, usize)>,
        /// Per tick, the pairs whose normal rows were kept (`rest_rows` as
        /// the tick before) of those with a manifold.
        rows: Vec<(usize, usize)>,
        /// Per tick, the linear-anchor blocks kept, of the manifolds.
        blocks: Vec<(usize, usize)>,
    }

    /// Runs the scenario for `steps` ticks with the narrow phase memo on or
    /// off, and with it on, the resting pairs' normal rows kept or not.
    fn run(memo: bool, rows: bool, steps: usize) -> Run {
        run_with(memo, rows, false, steps)
    }

    /// [`run`], with the resting pairs' linear-anchor blocks kept or not
    /// (`NarrowMemo::blocks_off`).
    fn run_with(memo: bool, rows: bool, blocks: bool, steps: usize) -> Run {
        let model =
            load_scene_str(&grid_scene(), "grid", std::path::Path::new(".")).expect("scene");
        let mut data = Data::new(&model);
        let mut pipe = Pipeline::new(&model);
        pipe.collide.memo.off = !memo;
        pipe.collide.memo.rows_off = !rows;
        pipe.collide.memo.blocks_off = !blocks;
        let mut r = Run {
            states: Vec::new(),
            wrench: Vec::new(),
            bits: Vec::new(),
            counts: Vec::new(),
            rows: Vec::new(),
            blocks: Vec::new(),
        };
        for k in 0..steps {
            inputs(&model, &mut data, k);
            let before = data.pairs.clone();
            pipe.step(&model, &mut data);
            r.states.push(data.state.clone());
            r.wrench.push(data.contact_wrench.clone());
            r.bits.push(bits(&data));
            r.counts
                .push((pipe.collide.memo.reused, data.contacts.manifolds.len()));
            r.rows
                .push((kept_rows(&before, &data), data.contacts.manifolds.len()));
            r.blocks
                .push((kept_blocks(&pipe), data.contacts.manifolds.len()));
        }
        r
    }

    /// The linear-anchor blocks the penalty stepper served from the state at
    /// its last step (`Data::rest_blocks`).
    fn kept_blocks(pipe: &Pipeline) -> usize {
        match &pipe.method {
            super::super::MethodWorkspace::Penalty(ws) => ws.kept_blocks(),
            _ => 0,
        }
    }

    /// The pairs of `data` whose normal rows are the ones they held before
    /// the step (kept, not built anew: a build records the bodies' states).
    fn kept_rows(before: &[crate::data::PairState], data: &Data) -> usize {
        (data.pairs.iter())
            .filter(|p| {
                p.rest_rows.is_some()
                    && before.iter().any(|b| {
                        (b.geom_a, b.geom_b) == (p.geom_a, p.geom_b) && b.rest_rows == p.rest_rows
                    })
            })
            .count()
    }

    /// The largest position and contact-wrench differences of two runs.
    fn parted(a: &Run, b: &Run) -> (f64, f64) {
        let (mut dx, mut df) = (0.0f64, 0.0f64);
        for k in 0..a.states.len() {
            for (x, y) in a.states[k].iter().zip(&b.states[k]) {
                dx = dx.max((x.x - y.x).norm());
            }
            for (x, y) in a.wrench[k].iter().zip(&b.wrench[k]) {
                df = df.max((x.force - y.force).norm());
            }
        }
        (dx, df)
    }

    /// The phases of the scenario ([`inputs`]), 2 s.
    const PHASES: [(&str, std::ops::Range<usize>); 6] = [
        ("settling", 0..300),
        ("at rest", 300..600),
        ("push", 600..700),
        ("after the push", 700..1000),
        ("drop", 1000..1300),
        ("after the drop", 1300..2000),
    ];

    /// The rest memo (tolerance `REST_TOL` = 1e-12 m) against every manifold
    /// found anew: a grid at rest, (a) a box pushed sideways by a client's
    /// 0.5 N for 0.1 s, (b) a box dropped on another from 5 cm — over 2 s the
    /// positions stay within 1e-9 m and the contact wrenches within 1e-6 N of
    /// the run without the memo (the brief's bounds; the error analysis,
    /// `REST_TOL`, gives 2e-8 N per point), and at rest the memo serves every
    /// manifold.
    #[test]
    fn rest_memo_stays_within_bounds_of_the_run_without() {
        let steps = 2000;
        let with = run(true, false, steps);
        let without = run(false, false, steps);
        assert!(without.counts.iter().all(|&(r, _)| r == 0));
        assert!(with.rows.iter().all(|&(r, _)| r == 0));
        let (dx, df) = parted(&with, &without);
        let served = |r: std::ops::Range<usize>| {
            (with.counts[r].iter()).fold((0, 0), |(x, y), &(r, m)| (x + r, y + m))
        };
        let mut rest = (0, 0);
        for (what, r) in PHASES {
            let (reused, all) = served(r);
            println!("{what}: {reused} of {all} manifolds from the memo");
            if what == "at rest" {
                rest = (reused, all);
            }
        }
        println!("largest position difference {dx:e} m, contact force difference {df:e} N");
        assert!(dx <= 1e-9, "positions part by {dx:e} m");
        assert!(df <= 1e-6, "contact forces part by {df:e} N");
        assert!(
            rest.0 * 10 >= rest.1 * 9,
            "at rest {} of {}",
            rest.0,
            rest.1
        );
    }

    /// The resting pairs' candidates kept (`PairState::rest_rows`, under
    /// `REST_TOL` = 1e-12; the law evaluated at them every step) against the
    /// memo alone and against neither, over the same scenario (a grid at rest,
    /// (a) a client's 0.5 N sideways for 0.1 s, (b) a box dropped on another
    /// from 5 cm; 2 s): positions within 1e-9 m and contact wrenches within
    /// 1e-6 N (the bounds of the held manifolds, scale14/15: 2e-8 N per point;
    /// carried, measured 2.5e-15 m and 6.7e-12 N, docs/BENCHMARKS.md scale16),
    /// and at rest the candidates are kept for at least 80 % of the manifolds
    /// (measured 100 %).
    #[test]
    fn rest_rows_stay_within_bounds_of_the_runs_without() {
        let steps = 2000;
        let rows = run(true, true, steps);
        let memo = run(true, false, steps);
        let neither = run(false, false, steps);
        within_bounds("rows", &rows, &rows.rows, (&memo, &neither));
    }

    /// The resting pairs' linear-anchor blocks kept (`Data::rest_blocks`,
    /// `NarrowMemo::blocks_off` false, under `REST_TOL` = 1e-12 with the
    /// candidates kept) against the candidates alone and against neither memo
    /// nor rows, over the same scenario (a grid at rest, (a) a client's 0.5 N
    /// sideways for 0.1 s, (b) a box dropped on another from 5 cm; 2 s):
    /// positions within 1e-9 m and contact wrenches within 1e-6 N — the
    /// bounds of the rows' test. A kept block differs from the one built anew
    /// only by its geometry: its f_end within kp·tol (2e-8 N per row at these
    /// gains) moves the centroid c by ≤ Σ|Δf| L / Σf ≈ 1e-9 m (8 rows, L =
    /// 0.07 m, Σf = 9.8 N), W_pp and the levers by that over L (≈ 2e-8
    /// relative), the cone by μ Σ|Δf| ≈ 1.3e-7 N: far below the bounds (the
    /// anchor's stretch and rates are read anew every step). At rest the
    /// blocks are kept for at least 80 % of the manifolds (the grid's pairs
    /// all stick; measured 100 %).
    #[test]
    fn kept_blocks_stay_within_bounds_of_the_runs_without() {
        let steps = 2000;
        let blocks = run_with(true, true, true, steps);
        let rows = run(true, true, steps);
        let neither = run(false, false, steps);
        assert!(rows.blocks.iter().all(|&(k, _)| k == 0));
        within_bounds("blocks", &blocks, &blocks.blocks, (&rows, &neither));
    }

    /// A run keeping `what` (the rows, the blocks; `counts` per tick: kept,
    /// of the manifolds) against a run without it and one with neither memo
    /// nor rows (`others`): positions within 1e-9 m and contact wrenches within
    /// 1e-6 N of both, and at rest kept for at least 80 % of the manifolds.
    fn within_bounds(what: &str, kept: &Run, counts: &[(usize, usize)], others: (&Run, &Run)) {
        let (dx, df) = parted(kept, others.0);
        let (dx0, df0) = parted(kept, others.1);
        let mut rest = (0, 0);
        for (phase, r) in PHASES {
            let (k, all) = (counts[r].iter()).fold((0, 0), |(x, y), &(k, m)| (x + k, y + m));
            println!("{phase}: {what} kept for {k} of {all} manifolds");
            if phase == "at rest" {
                rest = (k, all);
            }
        }
        println!(
            "{what} kept vs the run without: {dx:e} m, {df:e} N; vs neither: {dx0:e} m, {df0:e} N"
        );
        assert!(
            dx <= 1e-9 && dx0 <= 1e-9,
            "{what}: positions part by {dx:e} / {dx0:e} m"
        );
        assert!(
            df <= 1e-6 && df0 <= 1e-6,
            "{what}: forces part by {df:e} / {df0:e} N"
        );
        assert!(
            rest.0 * 5 >= rest.1 * 4,
            "{what} kept at rest for {} of {}",
            rest.0,
            rest.1
        );
    }

    /// The world's key turns the memo and the rows on (`[penalty] rest_tol`),
    /// and a value out of range is refused naming it.
    #[test]
    fn rest_tol_key_turns_the_memo_on_and_is_checked() {
        let on = grid_scene().replace("[penalty]\n", "[penalty]\nrest_tol = 1e-12\n");
        let model = load_scene_str(&on, "grid", std::path::Path::new(".")).expect("scene");
        assert!(!Pipeline::new(&model).collide.memo.off);
        let model =
            load_scene_str(&grid_scene(), "grid", std::path::Path::new(".")).expect("scene");
        assert!(Pipeline::new(&model).collide.memo.off);
        for bad in ["1e-3", "-1e-12", "nan"] {
            let text =
                grid_scene().replace("[penalty]\n", &format!("[penalty]\nrest_tol = {bad}\n"));
            let e = load_scene_str(&text, "grid", std::path::Path::new("."))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.contains("penalty.rest_tol"), "{bad}: {e}");
        }
    }

    /// A snapshot taken while the memo serves the grid (and the resting pairs
    /// keep their normal rows and their linear-anchor blocks, `Data::
    /// rest_blocks`) restores bit for bit:
    /// into the same world and pipeline, into a fresh world and pipeline, and
    /// into a pipeline that stepped another world meanwhile (its memo is that
    /// world's): the step's manifolds follow from the state (`rest_poses`).
    #[test]
    fn rest_memo_snapshot_restore_is_bitwise() {
        let model =
            load_scene_str(&grid_scene(), "grid", std::path::Path::new(".")).expect("scene");
        let mut data = Data::new(&model);
        let mut pipe = Pipeline::new(&model);
        pipe.collide.memo.off = false;
        for k in 0..550 {
            inputs(&model, &mut data, k);
            pipe.step(&model, &mut data);
        }
        let snap = data.snapshot();
        let mut first = Vec::new();
        let mut reused = 0;
        let (mut kept, mut blocks) = (0, 0);
        for k in 550..1300 {
            inputs(&model, &mut data, k);
            let before = data.pairs.clone();
            pipe.step(&model, &mut data);
            first.push(bits(&data));
            reused += pipe.collide.memo.reused;
            kept += kept_rows(&before, &data);
            blocks += kept_blocks(&pipe);
        }
        assert!(
            reused > 0 && kept > 0 && blocks > 0,
            "{reused} manifolds served, {kept} rows kept, {blocks} blocks served"
        );
        assert!(data.restore(&snap));
        for (i, k) in (550..1300).enumerate() {
            inputs(&model, &mut data, k);
            pipe.step(&model, &mut data);
            assert!(
                bits(&data) == first[i],
                "same pipeline: diverged at tick {k}"
            );
        }
        // A pipeline whose memo is another world's (the grid at its start).
        let mut other = Data::new(&model);
        let mut other_pipe = Pipeline::new(&model);
        other_pipe.collide.memo.off = false;
        for k in 0..50 {
            inputs(&model, &mut other, k);
            other_pipe.step(&model, &mut other);
        }
        let mut fresh = Data::new(&model);
        let mut fresh_pipe = Pipeline::new(&model);
        fresh_pipe.collide.memo.off = false;
        assert!(fresh.restore(&snap));
        assert!(other.restore(&snap));
        for (i, k) in (550..1300).enumerate() {
            for (d, p) in [(&mut fresh, &mut fresh_pipe), (&mut other, &mut other_pipe)] {
                inputs(&model, d, k);
                p.step(&model, d);
                assert!(bits(d) == first[i], "restored: diverged at tick {k}");
            }
        }
    }
}
