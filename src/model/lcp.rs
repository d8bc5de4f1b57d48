//! Parameters of the velocity-level complementarity step (`world.method = "lcp"`):
//! the Stewart–Trinkle subproblem, eqs. (5)–(10) of `003_668e561ceb3412ed`, with
//! Coulomb friction on a polyhedral cone and the constraint stabilization of
//! `001_9bcff55255600a8e` (Anitescu–Hart). The step itself is
//! `pipeline/lcp/`.

/// Which solver takes the subproblem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LcpSolverKind {
    /// Lemke's complementary pivoting on the Stewart–Trinkle LCP (normal impulses
    /// p_n, friction impulses β ≥ 0 on k directions, the slack σ): exact up to
    /// round-off, O(n²) per pivot. Ray termination or the pivot limit fall back to
    /// PGS from the Lemke iterate (counted in the step's stats).
    Lemke,
    /// Projected Gauss–Seidel on the same friction set written as (p_n, f_t1, f_t2)
    /// with the tangential impulse projected onto the k-gon μ p_n conv{d_j}: cheap
    /// per sweep, iterative; a sweep limit returns the last iterate (flagged).
    Pgs,
    /// Semismooth Newton on the natural map of the same (p_n, f_t₁, f_t₂)
    /// problem (`solver::newton`): the modes (separate / stick / slide on an edge
    /// or a vertex of the k-gon) read off the iterate, one regularized dense LU
    /// per island and step, warm-started from the last tick; exact
    /// complementarity in a few steps. Islands it does not solve (line search,
    /// step limit, more than 96 points) fall back to PGS (counted).
    Newton,
    /// Newton on the bodies' velocities (`solver::primal`, lcp13): the dual of
    /// the frozen-radius QP of the same problem (the CFM makes it smooth and
    /// strictly convex), the block-sparse Cholesky of `M + Gᵀ K G` per island,
    /// an exact line search, outer passes on the radii `μ p_n` with a proximal
    /// centre. Islands with an articulated robot, and islands it does not
    /// solve, go to the Newton path (then PGS), counted
    /// (`StepStats::primal_fallback_islands`).
    Primal,
}

/// Whose normal load a contact point's friction cone is sized by (scene key
/// `[lcp] friction`; lcp33).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrictionModel {
    /// `"point"` (default): each contact point its own polyhedral Coulomb cone,
    /// `f_t ∈ μ p_n conv{d_j}` (Stewart–Trinkle / Anitescu–Potra, the cones
    /// 003 leaves to "one's favorite friction model").
    Point,
    /// `"patch"`: the touching points of one face or line contact (a manifold of
    /// the standard rows between free or static bodies, depth ≥ 0, two or more
    /// points) share one cone on the patch's total normal load P: each point's
    /// k-gon has radius `μ P / m` (m the patch's points: the uniform pressure the
    /// friction rows' spin levers stand for). The k-gons sum to the k-gon of
    /// radius μ P: a face slides, sticks and holds on an incline as one Coulomb
    /// contact, and its moment about the normal is limited as under uniform
    /// pressure; the radii no longer hang on the split of the face's load over
    /// its corners (the CFM's, ill-conditioned). `solver::pgs::PatchOf`;
    /// docs/BENCHMARKS.md, lcp33. Robot links, round shapes and PEG's rows keep
    /// their points' own cones.
    Patch,
}

/// How the gap ψ (≤ 0 when penetrating, m) enters the normal rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StabilizationScheme {
    /// 003 eq. (7): ρ_n = β (ψ_n + δ)/h + G_nᵀ ν — the velocity may approach a gap
    /// within one step and must undo a penetration beyond δ within one step (β = 1;
    /// the bodies move out, the push-out velocity is not kept: `pipeline::lcp`,
    /// "Stabilization").
    StewartTrinkle,
    /// 001's constraint-stabilized form: the same single LCP, but the gap term only
    /// corrects penetration, β min(ψ_n + δ, 0)/h; a contact inside the allowance δ
    /// keeps G_nᵀ ν ≥ 0 and is never pulled deeper by the term.
    AnitescuHart,
}

/// Which rows the complementarity step builds from the geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactModel {
    /// 003's standard model (eqs. (8)–(9)): one unilateral row (+ friction) per
    /// narrow-phase point, each a hyperplane of the contact normal
    /// (`world.method = "lcp"`).
    Standard,
    /// 003's polytopal exact geometry (PEG, eqs. (43)–(49), single primary
    /// contact): the U, I and X constraints of the feature-level potential
    /// contacts of two convex polytopes (`world.method = "peg"`;
    /// `pipeline/lcp/peg.rs`). Pairs with a shape that is not a polytope (plane,
    /// sphere, capsule, cylinder) and pairs touching a robot link keep the
    /// standard rows. Solved by Lemke only (the LCP is not symmetric); PGS is the
    /// counted fallback.
    Peg,
}

/// Parameters of the LCP method. Defaults: [`LcpParams::default`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LcpParams {
    /// `"lemke"` (default), `"pgs"` or `"newton"`.
    pub solver: LcpSolverKind,
    /// k, the number of friction directions of the polyhedral cone (≥ 4; 4 = the
    /// pyramid ±t₁, ±t₂). d_j = cos(2πj/k) t₁ + sin(2πj/k) t₂ with (t₁, t₂) the
    /// engine's one tangent basis (`math::tangent_basis`: t₁ = n × the world axis
    /// least aligned with n). Larger k approximates the
    /// Coulomb cone better (the k-gon's apothem is μ p_n cos(π/k)) at k + 2 LCP
    /// variables per contact point for Lemke. Default 4.
    pub friction_directions: u32,
    /// β ∈ [0, 1], the fraction of ψ/h in the normal rows: 0 = `"off"` (penetration
    /// stays where it is), 1 = `"full"` (default; undone in one step). The
    /// push-out moves the bodies but is not kept as velocity (a split impulse:
    /// `pipeline::lcp`, "Stabilization"), so it never adds kinetic energy.
    pub stabilization: f64,
    pub scheme: StabilizationScheme,
    /// δ, the penetration the stabilization leaves in place, m. A resting contact
    /// settles at depth δ (with `contact_window` = 0 the narrow phase finds
    /// contacts only while the shapes overlap, and without δ a resting body would
    /// lose and regain its contact — and its friction — every other step).
    /// Default 1e-5 m.
    pub penetration_allowance: f64,
    /// The speculative window, m (scene key `contact_window`). Contacts are
    /// generated before the geoms touch: a pair whose GJK distance d is at most one
    /// step of relative motion, h (u_a + u_b) + h² |g| (u the speed bound of each
    /// geom's points at the start of the step), gets **gap points** (ψ = gap ≥ 0)
    /// — the features within `window` of the closest ones along the separating
    /// direction whose gap the step's motion can close
    /// (`collision::collide_pair_within`). The gap term ψ/h
    /// of 003 eq. (7) then lets the bodies close the gap exactly within the step
    /// and is never a separating velocity; a body placed touching has its contact
    /// on the first step. 0 turns speculative contacts off (contacts only once the
    /// geoms overlap, the former behaviour). Larger windows give more points (rows)
    /// near a landing; smaller ones land tilted bodies corner by corner. Default
    /// 1e-3 m.
    pub contact_window: f64,
    /// Newton restitution on the normal rows: a point of a pair whose combined
    /// `Material::restitution` e is > 0, approaching faster than
    /// `restitution_threshold`, must leave with at least e times its approach
    /// speed. Pairs with e = 0 (the default material) are plastic either way.
    /// Default on: a scene that gives its materials a restitution gets it under
    /// every method (penalty's impulses and Hunt–Crossley's damping read the same
    /// e); `false` makes every impact plastic.
    pub restitution: bool,
    /// m/s. Default 0.1 m/s (slower approaches are plastic, so resting contacts do
    /// not chatter).
    pub restitution_threshold: f64,
    /// Lemke: complementary pivot limit per solve (None = 10·n + 100).
    pub max_pivots: Option<usize>,
    /// PGS: sweeps per solve (also for the Lemke fallback). Default 500 (a resting
    /// stack of five boxes, 4 points per face, needs ≈ 250 warm-started sweeps to
    /// reach 1e-9: redundant points make W singular and PGS slow on it).
    pub max_iterations: usize,
    /// PGS: stop when the natural-map residual is ≤ this (normal rows: m/s of
    /// ‖min(p_n, ρ_n)‖ mixes N·s and m/s, as in `solver::pgs`). Default 1e-9;
    /// real-time loops use 1e-6 and let `max_iterations` bound the cost.
    pub tolerance: f64,
    /// PGS: SOR relaxation ω ∈ (0, 2). Default 1.
    pub relaxation: f64,
    /// Warm start from the previous step's impulses of the same geom pair and
    /// point index (Lemke: their active set; PGS: their values). Default on.
    pub warm_start: bool,
    /// Whose load sizes a point's friction cone: its own (default) or its face
    /// patch's ([`FrictionModel`]; scene key `friction`, lcp33). Every solver of
    /// the standard rows solves the chosen model; under `"patch"` the primal
    /// solver's islands it leaves go to PGS, not to the Newton path (which
    /// knows only the points' own cones).
    pub friction: FrictionModel,
    /// The split held toward the last tick's loads (lcp34, scene key
    /// `split_memory`, σ; default 0: off, the LCP as before). The normal row of a
    /// point that persists from the last tick (same pair and slot, so with a
    /// remembered impulse `p̄_n ≥ 0`) gets the term `σ W_nn (p_n − p̄_n)` in its
    /// row of `w` (a CFM of σ relative to W's diagonal centred on the last load
    /// instead of 0: `W_nn += σ W_nn`, `q_n −= σ W_nn p̄_n`). Every solver solves
    /// that LCP (exactly, at convergence); at a rest where the loads repeat the
    /// term is zero and the solution is the unregularized LCP's. Where a body's
    /// rows are dependent (a face on its corners, a box on two patches) the
    /// split of its load, otherwise set by the CFM ε = 1e-9 (and within the
    /// solver's tolerance, by its path), is held within `tolerance / (σ W_nn)`
    /// of the last tick's (`pipeline::lcp::split`; docs/EXPERIMENTS.md,
    /// lcp34). In [0, 1e-2]; standard rows only (refused under method = "peg").
    pub split_memory: f64,
    /// PEG (003): an island too large for one Lemke, or one whose Lemke failed, is
    /// solved first by block Gauss–Seidel over its two-body groups, each group's LCP
    /// by Lemke (`pipeline::lcp::peg_bgs`), before the constraint PGS. Scene key
    /// `peg_block_gs`; default off (mixed results: docs/EXPERIMENTS.md, peg8, and
    /// with the general form on its failed groups, peg12).
    /// Ignored by the standard rows.
    pub peg_block_gs: bool,
    /// PEG (003): an island whose every Lemke attempt and the constraint PGS
    /// failed is solved with its force rows elastically relaxed by the least t
    /// along Lemke's path (`pipeline::lcp::peg::elastic`, peg10), a solution that
    /// always exists. Scene key `peg_elastic`; default off (it halves the 3D
    /// pour's failing steps but deepens the 2D pour's overlap 50× with every
    /// force row relaxed, 24× with the violated rows only, where the general
    /// form is off: docs/EXPERIMENTS.md, peg10, peg11). Ignored by the standard rows.
    pub peg_elastic: bool,
    /// PEG (003): an island the single-primary LCP (eq. (24)) has no solution
    /// Lemke finds for is solved in 003's general |Cι| > 1 form — a force on any
    /// member of an I/X set, pushing only while that member's gap is the set's
    /// largest and that is 0 (eqs. (20)–(23); `pipeline::lcp::peg`, "General
    /// form", peg11), before the elastic relaxation. Scene key `peg_general`;
    /// default on (the 2D pour's seed 1 at h = 1e-2: 4.5e-3 → 8.6e-7 L² of
    /// overlap, docs/EXPERIMENTS.md peg11). Ignored by the standard rows.
    pub peg_general: bool,
    /// PEG (003): an island over `PEG_MAX_LCP` that the constraint PGS leaves
    /// unconverged is solved by Lemke on its active set — the force variables
    /// that push or are violated at the PGS iterate, the others checked and added
    /// (`pipeline::lcp::peg_bgs::solve_island_active`, peg12); accepted, it
    /// solves the island's whole LCP, else the PGS iterate is kept. Scene key
    /// `peg_active_set`; default off (measured, docs/EXPERIMENTS.md peg12: exact on
    /// a resting 8-box tower, 395 → 1 unconverged solves, max |v| 1.2e-3 → 7.2e-9
    /// m/s; on the 2D pour's jammed islands, seed 2, h = 1e-2, Lemke ends on a ray
    /// on all three active sets, of 354–1,757 variables, at 45–72 s per solve).
    /// Ignored by the standard rows.
    pub peg_active_set: bool,
    /// PEG (003): passes of a step at most — the first built from the
    /// start-of-step velocities, each further one (the predicted reach,
    /// `pipeline::lcp::peg::spun_up`) rebuilt from the velocities ν⁺ the pass
    /// before predicts when a body was spun up within the step; a predicted pass
    /// that fails is discarded (`StepStats::peg_discarded_passes`). Scene key
    /// `peg_passes` (1..=8); default 1 (docs/EXPERIMENTS.md, peg13). Ignored by
    /// the standard rows.
    pub peg_passes: usize,
    /// PEG (003): the last predicted pass is kept only if it is self-consistent
    /// — its own ν⁺ stays within the reach and rotation lead its rows were built
    /// for (`pipeline::lcp::peg::spun_up`, the test that asks for another pass);
    /// one that is not is discarded and the step keeps the pass before it
    /// (`StepStats::peg_discarded_passes`). No effect at `peg_passes` = 1. Scene
    /// key `peg_consistent`; default off (docs/EXPERIMENTS.md, peg15 and peg16).
    /// Ignored by the standard rows.
    pub peg_consistent: bool,
    /// PEG (003): the first pass's rows aim at each contact's own signed
    /// second-order gap term at the start-of-step ν (the rotation taken as
    /// exp(hω); `pipeline::lcp::peg`, "second_order_gap", its closing part)
    /// instead of the rotation lead h²|ω|²r of the pair. Scene key
    /// `peg_signed_lead`; default off (docs/EXPERIMENTS.md, peg17 and peg18:
    /// better on some seeds of the 3D pour at h = 5e-2, worse on others).
    /// Ignored by the standard rows.
    pub peg_signed_lead: bool,
    /// PEG (003): a step whose PEG solve failed (a counted failure — Lemke on a
    /// ray or at its pivot limit, the work check's refusal, the row cap — or an
    /// over-cap island the constraint PGS left unconverged) is taken again from
    /// its start as two steps of h/2, each of which may be split again, down to
    /// h/2^depth (`pipeline::lcp::peg_retry`; `StepStats::peg_retried_steps`,
    /// `peg_substeps`). Scene key `peg_retry_depth` (0..=8); default 2 (peg32:
    /// with `peg_retry_overlap` = 1e-11, decided by peg30's sweep — at depth 0
    /// PEG met issue 12's 1e-9 on 6 of 80 2D cells, at depth 2 + τ on 75;
    /// docs/EXPERIMENTS.md, "peg30", "peg32"); 0 is the unsplit step (the
    /// default before peg32). Read only by PEG's retry (`peg_retry::advance`,
    /// `RetryWorkspace::new`): ignored by the standard rows.
    pub peg_retry_depth: usize,
    /// PEG (003), with `peg_retry_depth` > 0: a step (or sub-step) whose solve
    /// did not fail is retried as well when its exact overlap rose: when some
    /// polytope pair's overlap volume at its end exceeds the one at its start by
    /// more than this fraction of d³, d the bounding diameter of the pair's
    /// smaller geom (`pipeline::lcp::peg_retry`, "The overlap trigger";
    /// `StepStats::peg_overlap_retries`). Scene key `peg_retry_overlap` (≥ 0);
    /// default τ = 1e-11 (peg32, with `peg_retry_depth` = 2; the sweeps' τ
    /// since peg22); 0 is off (only failed solves retried, the default before
    /// peg32). Ignored by the standard rows.
    pub peg_retry_overlap: f64,
    /// PEG (003): the first pass relaxes applicability by the rotation the
    /// pair's bodies bring at the start of the step, ε_θ = sin θ with
    /// θ = h (|ω_a| + |ω_b|) (at least 5°, at most 90°; 003 Sec. 4, "a relaxed
    /// form of inequality (28) to allow for possible rotation in a time step";
    /// `pipeline::lcp::peg`, `predicted_eps_theta`), as the predicted passes do
    /// at their ν⁺. Scene key `peg_rotation_eps_theta`; default off (the fixed
    /// ε_θ = sin 5°). Ignored by the standard rows.
    pub peg_rotation_eps_theta: bool,
    /// PEG (003), with `peg_retry_depth` > 0: the sub-steps of the deepest
    /// retry level (which are not split again) take the first pass's ε_θ from
    /// their start's rotation as `peg_rotation_eps_theta` does
    /// (`pipeline::lcp::peg_retry`, "The deepest level"). Scene key
    /// `peg_retry_rotation_eps_theta`; default off. Ignored by the standard rows.
    pub peg_retry_rotation_eps_theta: bool,
    /// PEG (003), with `peg_retry_depth` > 0 and `peg_retry_overlap` > 0: a
    /// sub-step of the deepest retry level that failed or whose overlap rose by
    /// more than τ d³ is taken once more from its start with the first pass's
    /// ε_θ from the larger of its start's and its end's rotation; the better of
    /// the two attempts is kept (`pipeline::lcp::peg_retry`, "The second
    /// chance"; peg22). Scene key `peg_retry_second_chance`; default off.
    /// Ignored by the standard rows.
    pub peg_retry_second_chance: bool,
    /// PEG (003): whether the outline's continuous-collision stage runs after
    /// the PEG step (`pipeline::Stepper::outline_ccd`; it rewinds a fast body to
    /// its time of impact against the world, after the step). Scene key
    /// `peg_outline_ccd`; default true (as every stepper but IPC). A diagnostic
    /// for the overlap rises the PEG step never sees (peg22). Ignored by the
    /// standard rows.
    pub peg_outline_ccd: bool,
    /// PEG (003): how PEG's continuous collision (after the step,
    /// `peg_outline_ccd`, and per attempt, `peg_ccd_retry`) reads "the rest of
    /// the step carries the geom deeper": true by the points that meet
    /// (`collide::Reach::Points`, as every other method since session 36: a
    /// plank turning about its foot is not rewound), false by the bodies'
    /// origins (`Reach::Origins`, PEG's reading before peg30, on which the
    /// pinned pour events before peg30 were found). Scene key `peg_ccd_points`;
    /// default true (peg30). Ignored by the standard rows.
    pub peg_ccd_points: bool,
    /// PEG (003): the depth the work check (`pipeline::lcp::peg`, "Work check")
    /// lets a PEG row push out. True (peg33): the row's depth bounded by its
    /// feature points' real penetration at the step's start (`peg::row_penetration`:
    /// 0 outside the other polytope, else the distance along the push direction
    /// to leave it): a vertex behind a face plane it is not over has nothing to
    /// push out. False: the row's own depth, its distance behind its own plane
    /// (peg14 to peg32). Scene key `peg_work_penetration`; **default false**:
    /// measured (docs/EXPERIMENTS.md, peg33), true removes the 3D pour's
    /// uncaught gains at h = 1e-2 (seed 9 +0.44 J, seed 3 +5.28 J → ≤ 1.6e-2 J
    /// over seeds 1–10) but refuses more passes, and the fallback's standard
    /// rows leave overlap: cells ≤ 1e-9 L² / L³ 147 → 144 (2D) and 145 → 144
    /// (3D), steps keeping a failed solve 3D 19 → 26. Ignored by the standard
    /// rows.
    pub peg_work_penetration: bool,
    /// PEG (003): the work check (`pipeline::lcp::peg`, "Work check") also allows
    /// the push-out of pushes in series (peg33, `peg::chain_energy`): each free
    /// body's push-out D_b is the least sum of the pushing rows' depths along a
    /// chain of them to a static body, and a pass may add up to 4 Σ ½ m_b (D_b/h)²
    /// when that exceeds the rows' own sum. A stack of n boxes starting δ deep
    /// needs ½ m (δ/h)² n(n+1)(2n+1)/6, the rows' sum grows as n: the 5-stack at
    /// the standard rows' allowance was refused on every step. Scene key
    /// `peg_work_chain`; **default true** since peg34 (false before: the 5-stack
    /// refused on every step, issue 12's item-7 scene; neutral on the pours'
    /// sweep, docs/EXPERIMENTS.md, peg33 and peg34). Ignored by the standard rows.
    pub peg_work_chain: bool,
    /// PEG (003): a first pass the work check refused, where the retry keeps the
    /// attempt (the unsplit step, or the retry's deepest level), is solved once
    /// more with every PEG row's ψ raised to minus its feature points' real
    /// penetration at the step's start (`pipeline::lcp::peg`,
    /// `clamp_to_penetration`: the rows push out only what overlaps) and kept if
    /// that pass is solved and passes the check; else the standard rows'
    /// fallback as before. Scene key `peg_work_clamp`; **default true** (peg34:
    /// over issue 12's sweep, 10 seeds × 16 sizes, cells ≤ 1e-9 2D 147 → 148 and
    /// 3D 145 → 148 of 160, steps keeping a failed solve 10 → 4 and 18 → 6,
    /// PEG-only 5 → 2 and 13 → 5, no cell worse; docs/EXPERIMENTS.md, peg34);
    /// false is the step before peg34. Ignored by the standard rows.
    pub peg_work_clamp: bool,
    /// PEG (003): an X constraint all of whose contacts already carry a force
    /// (in the plane: a vertex–vertex pair whose two I sets took C₂ and C₃, or
    /// C₁ and C₄, as primaries) takes its own impulse (eq. (43)'s G_nX p_X) on
    /// a copy of its most applicable contact's row, instead of adding no rows
    /// (`pipeline::lcp::peg`, "X constraints carry a force"; peg35). Scene key
    /// `peg_x_own_row`; default false. Ignored by the standard rows.
    pub peg_x_own_row: bool,
    /// PEG (003): an X constraint all of whose contacts already carry a force
    /// is joined to the force of its most applicable member (eq. (43)'s G_nX p_X
    /// acting along that member's normal, one force variable per row): the
    /// force's row reads the least of its own constraint's running maximum and
    /// the X's (one more variable d = max(0, A − B) per joined X, no copied
    /// column; `pipeline::lcp::peg`, "Joined X"; peg36). Takes precedence over
    /// `peg_x_own_row`. Scene key `peg_x_joined`; default false. Ignored by the
    /// standard rows.
    pub peg_x_joined: bool,
    /// PEG (003), 3D: an edge pair whose nearest points lie within a vertex
    /// radius of an endpoint keeps its edge–edge U (eq. (35)) when that endpoint
    /// has no potential contact against the other body (no vertex configuration
    /// governs it; `collision::features`, `FeatureParams::edge_edge_uncovered`;
    /// peg36). Scene key `peg_edge_edge_uncovered`; default false. Ignored by
    /// the standard rows.
    pub peg_edge_edge_uncovered: bool,
    /// PEG (003), planar world: a vertex–vertex pair with both I sets takes
    /// their primaries paired (C₁ with C₃, or C₂ with C₄; `collision::polygon`,
    /// "Paired primaries"), so that each X keeps a member without a force and
    /// gets its own row without copies. Scene key `peg_vv_paired_primaries`;
    /// default false (peg35). Ignored by the standard rows.
    pub peg_vv_paired_primaries: bool,
    /// PEG (003), with `peg_retry_depth` > 0: the continuous collision is the
    /// retry's, not the outline's. After each attempt (the step or a sub-step)
    /// the bodies' swept motion over it is checked as the outline's stage
    /// checks it (`collide::missed_impacts`); an attempt above the deepest
    /// level whose motion meets an impact is put back and split like a failed
    /// one (`StepStats::peg_ccd_retries`), and a kept attempt rewinds a body to
    /// an impact over its own motion alone
    /// (`collide::continuous_collision_outside`; `StepStats::peg_ccd_impacts`). The
    /// outline's stage is then off for PEG (`pipeline::lcp::peg_retry`, "The
    /// continuous collision"; peg23). Scene key `peg_ccd_retry`; default off.
    /// Ignored by the standard rows and without a retry depth.
    pub peg_ccd_retry: bool,
    /// PEG, with `peg_ccd_retry`: the retry's continuous collision leaves out
    /// the body pairs the attempt had contact rows with (held by its rows, 003
    /// Sec. 4; `pipeline::lcp::peg_retry`, "The continuous collision"). Scene
    /// key `peg_ccd_held`; default off (every pair swept, as the outline's).
    pub peg_ccd_held: bool,
    /// PEG: a vertex–vertex configuration's I set only for a vertex *at* the
    /// other, its X only when both are (`collision::features`, "Vertex–vertex is
    /// one-sided"; the 2D pairs likewise, `collision::polygon`). Off: both I
    /// sets and the X for every pair, as 003 prints eq. (37)–(38) — which holds a
    /// far vertex to faces it is not near (the tunnelling wall of
    /// `tests/contact_torture_ccd.rs`). Scene key `peg_vv_one_sided`; default
    /// off (peg24: it moves the pours' trajectories; docs/EXPERIMENTS.md).
    pub peg_vv_one_sided: bool,
    /// PEG, with `peg_vv_one_sided` off: a vertex–vertex pair one of whose
    /// vertices is at the other gives the other vertex its I set (eq. (33) as
    /// printed) only when that vertex is feasible against it, in front of at
    /// least one of its edge lines (in 3D: faces; 003 Sec. 4; `collision::polygon`,
    /// "Feasibility of the completed set", `collision::features`). Scene key
    /// `peg_vv_feasible`; default on (peg29; off before, peg28: it moves the
    /// pours' trajectories; docs/EXPERIMENTS.md, "peg28", "peg29").
    pub peg_vv_feasible: bool,
    /// PEG, with `peg_retry_depth` > 0: the pairs an attempt meets beyond the
    /// step's broad-phase candidates are found — a retry sub-step whose bodies
    /// left the start-of-step margin runs its own broad phase, and an attempt
    /// whose motion met a pair beyond the candidates is taken again with it
    /// (`pipeline::lcp::peg_retry`, "The collision inputs of a sub-step", "A body
    /// knocked within the step"; peg26). Scene key `peg_retry_cover`; default
    /// true; false (a diagnostic) keeps the retry's collision inputs as before
    /// peg26 (was the environment variable `RTPHYS_PEG_NO_COVER=1`; peg27 made
    /// it a key so that a run is reproducible from its scene). Ignored without
    /// a retry depth.
    pub peg_retry_cover: bool,
    /// PEG, with `peg_retry_depth` > 0 and `peg_retry_overlap` > 0: a sub-step of
    /// the deepest retry level whose solve did not fail but whose exact overlap
    /// rose by more than `peg_retry_overlap` d³ (every row held at ν⁺, the
    /// integrated poses overlap: the linearization, verdict (c)) is taken again
    /// with a second pass whose rows carry each contact's second-order gap term
    /// at the first attempt's ν⁺ (003 eq. (6) truncated one term later; the
    /// predicted pass of `peg_passes`, at the start's reach); the attempt with
    /// the smaller rise is
    /// kept (`pipeline::lcp::peg_retry`, "The corrector"; peg27). Scene key
    /// `peg_retry_corrector`; default on (peg29; off before). It acts only
    /// with `peg_retry_depth` > 0 and `peg_retry_overlap` > 0 (both so by
    /// default since peg32).
    pub peg_retry_corrector: bool,
    /// Standard rows or PEG's (set by the method name, not a scene key).
    pub contact_model: ContactModel,
}

/// The deepest `[lcp] peg_retry_depth` (a failed PEG step split down to h/2⁸).
pub const MAX_PEG_RETRY_DEPTH: usize = 8;

impl Default for LcpParams {
    fn default() -> Self {
        LcpParams {
            solver: LcpSolverKind::Lemke,
            friction_directions: 4,
            stabilization: 1.0,
            scheme: StabilizationScheme::StewartTrinkle,
            penetration_allowance: 1e-5,
            contact_window: 1e-3,
            restitution: true,
            restitution_threshold: 0.1,
            max_pivots: None,
            max_iterations: 500,
            tolerance: 1e-9,
            relaxation: 1.0,
            warm_start: true,
            friction: FrictionModel::Point,
            split_memory: 0.0,
            peg_block_gs: false,
            peg_elastic: false,
            peg_general: true,
            peg_active_set: false,
            peg_passes: 1,
            peg_consistent: false,
            peg_signed_lead: false,
            peg_retry_depth: 2,
            peg_retry_overlap: 1e-11,
            peg_rotation_eps_theta: false,
            peg_retry_rotation_eps_theta: false,
            peg_retry_second_chance: false,
            peg_outline_ccd: true,
            peg_ccd_points: true,
            peg_work_penetration: false,
            peg_work_chain: true,
            peg_work_clamp: true,
            peg_x_own_row: false,
            peg_x_joined: false,
            peg_edge_edge_uncovered: false,
            peg_vv_paired_primaries: false,
            peg_ccd_retry: false,
            peg_ccd_held: false,
            peg_vv_one_sided: false,
            peg_vv_feasible: true,
            peg_retry_cover: true,
            peg_retry_corrector: true,
            contact_model: ContactModel::Standard,
        }
    }
}

impl LcpParams {
    /// Checks every field; the message names the scene key at fault.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(4..=64).contains(&self.friction_directions) {
            return Err((
                "friction_directions",
                format!(
                    "must be an integer in [4, 64], got {}",
                    self.friction_directions
                ),
            ));
        }
        if self.friction == FrictionModel::Patch && self.solver == LcpSolverKind::Newton {
            return Err((
                "friction",
                "\"patch\" is solved by the lemke, pgs and primal solvers (newton's natural \
                 map knows only the points' own cones)"
                    .to_string(),
            ));
        }
        if !(self.split_memory >= 0.0 && self.split_memory <= 1e-2) {
            return Err((
                "split_memory",
                format!("must be a number in [0, 1e-2], got {}", self.split_memory),
            ));
        }
        if self.split_memory > 0.0 && self.contact_model == ContactModel::Peg {
            return Err((
                "split_memory",
                "applies to the standard rows (method = \"lcp\"), not to method = \"peg\"".into(),
            ));
        }
        if !(self.stabilization >= 0.0 && self.stabilization <= 1.0) {
            return Err((
                "stabilization",
                format!(
                    "must be \"off\", \"full\" or a number in [0, 1], got {}",
                    self.stabilization
                ),
            ));
        }
        if !(self.penetration_allowance.is_finite() && self.penetration_allowance >= 0.0) {
            return Err((
                "penetration_allowance",
                format!(
                    "must be a finite number ≥ 0 m, got {}",
                    self.penetration_allowance
                ),
            ));
        }
        if !(self.contact_window.is_finite() && self.contact_window >= 0.0) {
            return Err((
                "contact_window",
                format!("must be a finite number ≥ 0 m, got {}", self.contact_window),
            ));
        }
        if !(self.restitution_threshold.is_finite() && self.restitution_threshold >= 0.0) {
            return Err((
                "restitution_threshold",
                format!(
                    "must be a finite number ≥ 0 m/s, got {}",
                    self.restitution_threshold
                ),
            ));
        }
        if self.contact_model == ContactModel::Peg
            && matches!(self.solver, LcpSolverKind::Newton | LcpSolverKind::Primal)
        {
            return Err((
                "solver",
                "\"newton\" and \"primal\" do not apply to method = \"peg\": they solve the standard \
                 model's (p_n, f_t) rows; PEG is solved by \"lemke\""
                    .into(),
            ));
        }
        if self.contact_model == ContactModel::Peg && self.solver == LcpSolverKind::Pgs {
            return Err((
                "solver",
                "\"pgs\" does not apply to method = \"peg\": PEG's LCP is not symmetric \
                 (PGS is not guaranteed to converge on it); it is solved by \"lemke\", with \
                 PGS only as the counted fallback"
                    .into(),
            ));
        }
        if !(1..=8).contains(&self.peg_passes) {
            return Err((
                "peg_passes",
                format!("must be an integer in [1, 8], got {}", self.peg_passes),
            ));
        }
        if self.peg_retry_depth > MAX_PEG_RETRY_DEPTH {
            return Err((
                "peg_retry_depth",
                format!(
                    "must be an integer in [0, {MAX_PEG_RETRY_DEPTH}], got {}",
                    self.peg_retry_depth
                ),
            ));
        }
        if !(self.peg_retry_overlap.is_finite() && self.peg_retry_overlap >= 0.0) {
            return Err((
                "peg_retry_overlap",
                format!(
                    "must be a finite number ≥ 0, got {}",
                    self.peg_retry_overlap
                ),
            ));
        }
        if self.max_pivots == Some(0) {
            return Err(("max_pivots", "must be ≥ 1".into()));
        }
        if self.max_iterations == 0 {
            return Err(("max_iterations", "must be ≥ 1".into()));
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err((
                "tolerance",
                format!("must be a finite number > 0, got {}", self.tolerance),
            ));
        }
        if !(self.relaxation > 0.0 && self.relaxation < 2.0) {
            return Err((
                "relaxation",
                format!("must be in (0, 2), got {}", self.relaxation),
            ));
        }
        Ok(())
    }
}
