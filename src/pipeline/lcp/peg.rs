//! PEG rows: 003's polytopal exact geometry contact model (Secs. 3–6) inside the
//! LCP step, the time-stepping subproblem of eqs. (43)–(49) with a single primary
//! contact per constraint (|Cι| = 1, eq. (24)).
//!
//! # Rows
//! For every broad-phase pair of two convex polytopes (boxes, hulls) on free or
//! static bodies, `collision::features::potential_contacts` gives the feature-level
//! potential contacts within ε (one step of relative motion: the speculative reach
//! of the standard model, h (u_a + u_b) + h² |g| + window) and their U, I and X
//! constraints. Each potential contact becomes one [`ContactRow`] (normal + two
//! tangent rows; A's row at its point p_a, B's at p_b, so that the normal row is the
//! rate of the gap ψ between the features). A plane and a polytope take PEG's
//! rows too ("Plane" below). Every other pair (a sphere, capsule or cylinder in
//! it, or a robot link) keeps the standard model's rows (`rows.rs`), so a scene
//! may mix both. With g_i = G_iᵀ ν⁺ + ψ_i/h the gap of
//! contact i predicted at the end of the step (over h), the LCP is over
//! z = (p, β, σ, c):
//!
//! | rows | w ≥ 0 ⊥ | 003 |
//! |---|---|---|
//! | U contact | g_u ⊥ p_u | eq. (44) |
//! | I primary ι | g_ι + Σ_s c_s ⊥ p_ι | eqs. (24), (46) |
//! | I slack s (others, in order) | g_ι − g_s + Σ_{t ≤ s} c_t ⊥ c_s | eqs. (20), (42), (45) |
//! | X primary, X slacks | as I | eqs. (25), (43), (47) |
//! | friction (every force-carrying contact) | D_cᵀ G_fᵀ ν⁺ + σ ⊥ β, μ p − Σ β ⊥ σ | Refs. [22, 23] |
//!
//! The slack chain makes Σ_{t ≤ s} c_t + g_ι the running maximum of the gaps of the
//! constraint's contacts, so the primary's row reads "the largest gap is ≥ 0, and
//! the force acts only while it is 0" (eqs. (20), (24)): at least one contact of
//! the set is satisfied, and the force only pushes when all are closed.
//!
//! **X constraints carry a force.** Eq. (47) on its own has no impulse: its slack
//! chain only computes the running maximum and nothing would keep that maximum
//! ≥ 0. Eq. (43) adds G_nX p_X and 003 folds the X rows into the I rows (eq. (48):
//! "X-constraints may be represented mathematically as I-constraints"), so an X
//! constraint is built here as an I constraint over its contacts in the order
//! C_a then C_b, whose primary is the most applicable contact of C_a (then of C_b)
//! that does not already carry a force (a contact carries at most one impulse
//! variable); an X all of whose contacts already carry forces adds no rows
//! (counted, `StepStats::peg_x_shared`). In the plane that is every
//! vertex–vertex pair whose two I sets took C₂ and C₃ (or C₁ and C₄) as
//! primaries: X({C₂}, {C₃}) is then left out, and the two corners may pass
//! through each other while each I holds (peg35: the 2D pour's largest miss,
//! h = 1.68e-3 seed 6, 6.0e-3 L²). With `[lcp] peg_x_own_row` (opt-in) such
//! an X takes its own impulse, eq. (43)'s G_nX p_X, on a copy of its most
//! applicable contact's row (C_a first, then C_b): a row of its own with the
//! same Jacobian, ψ and friction, so that every per-row structure keeps one
//! force per row (`StepStats::peg_x_rows`). Not the default: over issue 12's
//! sweep it is better in 2D on 8 cells and worse on 6 (docs/EXPERIMENTS.md,
//! peg35).
//!
//! **Joined X** (peg36, opt-in `[lcp] peg_x_joined`, which takes precedence
//! over the copies). A copy's column is its original's: the force variables
//! p_I (the I primary on row ι) and p_X (the copy) have the same entries in
//! every gap and friction row, so the LCP matrix has two equal columns (and,
//! with the copy's friction, equal friction columns) — a singular basis for
//! Lemke whenever both are basic — and the copy adds k + 2 variables and its
//! cone. The LCP with the copy only constrains the total p = p_I + p_X on
//! row ι: with A = g_ι + Σ c_K the running maximum of the force's own
//! constraint K (eqs. (20), (24)) and B = g_ι + Σ c_X the X's over its members
//! with ι as its primary (eq. (47); ι is a member of the X), its solutions
//! are exactly A ≥ 0, B ≥ 0, p ≥ 0, p · min(A, B) = 0 (p > 0 only where one of
//! the two sets is closed: put it all on p_I if A = 0, else on p_X). So the X
//! is joined to the force instead: one more variable
//! d = max(0, A − B) (0 ≤ d − Σ c_K + Σ c_X ⊥ d ≥ 0: ψ and W cancel) and the
//! force's row min(A, B) = g_ι + Σ c_K − d ⊥ p; several X on one force chain
//! the minimum, d_j = max(0, m_{j−1} − B_j), m_j = m_{j−1} − d_j. Per X its
//! chain and one d (no copy, no friction rows: the force's own cone bounds the
//! friction of the one normal impulse on the row); the (c, d) block is lower
//! triangular with a unit diagonal. The joined force is the X's most
//! applicable member (C_a first) that is an I or X primary. Only the dense
//! Lemke of an island sees a joined X: an island the joined X would take over
//! [`PEG_MAX_LCP`], the constraint PGS, the block Gauss–Seidel and the general
//! form solve it without them (the X then without a force, as by default).
//! Counted in `StepStats::peg_x_rows`.
//!
//! **Stabilization.** 003 keeps ψ/h in full (β = 1, no allowance δ): every row's
//! constant is G ν_f + (ψ − ℓ)/h, so the linearized gap at the end of the step is
//! ≥ ℓ and PEG does not leave bodies resting δ deep as the standard rows do. The
//! lead ℓ = h² Σ |ω|² r over the pair's moving bodies (r: the geom's size plus its
//! offset from the body origin) covers the second-order motion a rotation adds to
//! a point within the step (½ h² |ω|² r each, the centripetal term the linear rows
//! miss; taken twice for the rotating normal): without it a pyramid rolling its face
//! over a ridge at 2.3 rad/s, h = 1e-2, sank 3e-4 m per step (2.2e-6 L³ of
//! overlap), with it 4.4e-10 L³. A resting body has ω = 0 and ℓ = 0.
//!
//! **Restitution.** 003's step is inelastic; the materials' restitution e acts
//! as on the standard rows (`lcp` module doc; `[lcp] restitution`, on by
//! default): a contact row approaching at G ν < −v_th whose free motion closes
//! its gap within the step (ψ ≤ 0 or ψ + h G ν_f < 0) takes the constant
//! G ν_f + min(ψ/h, e G ν), so its end-of-step velocity is at least the rebound
//! −e G ν (an I or X set: at least one member's). Without it a box thrown at a
//! wall with e = 0.5 stopped dead under PEG and rebounded at −e v under every
//! other method (`tests/restitution_methods.rs`). The rebound's kinetic energy
//! is e² of the approach's: the work check never refuses it.
//!
//! **Predicted reach** (lead (b)). ε and ℓ are bounds on the motion within the
//! step, but the bodies move with ν⁺, not with the start-of-step ν: a body spun
//! up by the step's own impulse (an impact on a vertex) moves beyond what its
//! rows were built for and crosses a facet the step did not see. So after a
//! pass ([`spun_up`]) each geom of a PEG pair is checked against ν⁺: when its
//! motion h u⁺ (u⁺ = |v⁺| + |ω⁺| r) leaves the reach h u + h²|g| + window it was
//! given, or its lead h²|ω⁺|² r exceeds the pass's by more than 1e-10 of the
//! pair's size, the step is built and solved again with u and |ω|² the maxima
//! of the start's and every pass's, at most `LcpParams::peg_passes` passes
//! (scene key `[lcp] peg_passes`, default 1). A predicted pass (peg13) takes
//! the potential contacts within the larger ε, with applicability relaxed by
//! the rotation it predicts (ε_θ = sin h(|ω_a| + |ω_b|), 003 Sec. 4's relaxation
//! "to allow for possible rotation in a time step", [`predicted_eps_theta`]), and
//! each row's constant carries, beside the start-of-step lead, the closing part
//! of the gap's second-order term at the previous pass's ν⁺ (003 eq. (6)'s
//! Taylor series taken one term further, [`second_order_gap`]). The broad phase's
//! candidates are those of the start (their boxes are grown by 2 h u). A
//! predicted pass has a pivot budget, what the passes before it left of one
//! Lemke attempt's limit 10 n + 100 at the largest island LCP n they solved
//! ([`set_pass_budget`]: a step's pivots stay within one attempt's limit), and
//! no PGS: an island over [`PEG_MAX_LCP`], a Lemke failure or the budget spent
//! discards it; the step keeps the pass before it, counted in
//! `StepStats::peg_discarded_passes`. Opt-in (`[lcp] peg_consistent = true`,
//! peg15, peg16): the last predicted pass is tested too and kept only if it is
//! self-consistent — its own ν⁺ passes [`spun_up`] against the bounds it was
//! built with — else discarded the same way (`PassEnd::Inconsistent`). At 3
//! passes it meets 1e-9 on the vertex–vertex impact and the 2D pour's seed 1
//! at h = 1e-2, but is 10–105× worse than one pass on the 3D pour at h = 5e-2
//! (as 3 passes without it; docs/EXPERIMENTS.md, peg16).
//! **Off by default** (`peg_passes` = 1, one pass). With 2 passes (peg13,
//! `tests/peg_passes.rs`): the vertex–vertex impact of `tests/peg_method.rs`
//! ends 6.8e-12 L³ deep (2.8e-9 with one pass; 8.0e-10 since the work check
//! below, peg14) and `peg_large_step`'s run holds its criteria; of the five pour
//! runs, with the work check, 2D h = 1e-2 seed 2, 2D h = 1e-3 seed 2 and 3D
//! h = 1e-2 seed 1 improve, 3D seed 2 is even and 2D h = 1e-2 seed 1 gets worse
//! (docs/EXPERIMENTS.md, peg13, peg14). (peg4's form — the lead's bound at the
//! predicted |ω⁺| instead of the second-order term — pushed the pours at
//! h = 1e-2 apart: 0.46 and 0.40 L².)
//!
//! **Equal rows.** Contacts of different features can give the same row: where
//! two aligned boxes meet corner on corner, the vertex of A against B's top face,
//! B's vertex against A's bottom face and the two edge–edge contacts at the corner
//! all have the normal, the point and the gap of one contact. Contacts whose
//! normals agree within 1e-10 and gaps within 1e-12 of the pair's size are one row
//! when their points lie d apart (along the contact plane) with d times the pair's
//! relative rotation in the step (h |ω_a − ω_b|, at least 1e-7 rad) within 1e-12
//! of the pair's size (`same_row`): the predicted gaps then differ by less than
//! that. With g the gap of such a row R the reduction is exact (to that bound) in
//! the sense that it returns a solution of the full LCP:
//! - a slack of a constraint whose contact is the primary's row has c = 0 in every
//!   solution (its row reads Σ_{t<s} c_t + c_s ⊥ c_s), so it is left out; a
//!   constraint left without slacks is U(R) (in the corner above the X, whose
//!   separating candidates are all R);
//! - a constraint with a member on a U row R is implied by it (its running maximum
//!   is ≥ g_R ≥ 0): with its force 0 and its slacks the running maximum, every
//!   solution of the rest solves it too, so it adds no rows;
//! - one force variable per U row (several on one row only split one impulse).
//!
//! The aligned 5-stack's LCP drops from 424 variables (52 forces, 112 slacks) to
//! 120 (20 forces, no slack), the standard model's size.
//!
//! **W's columns** (peg35). The LCP above reads W only in the columns of the
//! force-carrying rows (every gap g_i is Σ over forces; the friction rows and
//! the scaling read force rows and diagonals); the general form alone reads the
//! slack rows' columns (its λ). So the sparse W is built over those columns
//! only ([`read_columns`], `delassus`, "Columns read"), with each row's own
//! diagonal block, and the general form fills its island's slack columns when
//! it is tried ([`slack_columns`]); the blocks are the same sums in the same
//! order, so the LCPs are bit for bit those of the full W. The constraint PGS
//! reads a slack row's rate over the sparse row, where the columns left out
//! carry no impulse. Off under `peg_block_gs` and `peg_active_set` (opt-in),
//! whose solves keep λ on slack rows. The 5-stack: 20 of its 132 rows carry
//! forces (docs/BENCHMARKS.md, peg35).
//!
//! **Plane** (peg25). A plane is a half-space, one face whose Voronoi region is
//! the whole space above it: against a polytope the only configuration is
//! vertex–face, and the pair's rows are a U (eq. (34)) per vertex within ε of
//! the plane or below it (`features::plane_potential_contacts`, which says why
//! every such vertex and no applicability test), built, stabilized and solved
//! as every PEG row. Before, the plane pair kept the standard rows inside the
//! PEG step, and a pair that already penetrated got the narrow phase's
//! penetration manifold and no gap points (`collision::collide_pair_within`):
//! Housner's rocking block (`tests/contact_rocking.rs`) landed its corners
//! 0.22 mm deep at h = 1 ms with no row for them in the landing step, and PEG,
//! which keeps no split impulse, kept the next step's push-out β(ψ + δ)/h as
//! velocity — the block left the floor and the rebound kept 0.61 of the energy
//! (Housner 0.49; docs/EXPERIMENTS.md, peg25).
//!
//! **Steps without PEG rows** (peg33). A step whose rows are all standard ones
//! (no polytope or plane pair within ε: a gripper's fingers, which are robot
//! links, on a free box; round shapes) is the LCP method's step: its rows are
//! built again as `method = "lcp"` builds them (the patch form of
//! `rows::friction_points`, the k-gons aligned with the free slip), made
//! consistent (`consistent::project`) and solved by `solve::solve` with its
//! kept-velocity solve, so such a step is bit-identical to the LCP method's
//! (`tests/peg_standard_steps.rs`). PEG's single cold Lemke over the
//! Stewart–Trinkle form put a finger face's non-unique normal impulse on one or
//! two of its four points (a vertex solution); the box pivoted about the line
//! through them and slid 18 mm in 0.2 s at twice the squeeze that holds it,
//! where the LCP method's proximal Lemke spreads it and holds the box to 1e-12 m
//! (docs/EXPERIMENTS.md, peg33). The retry (`peg_retry.rs`) keeps such a step
//! as the LCP method keeps it: a failed solve there is not split. A step with PEG
//! rows anywhere still solves every island, standard-only ones too, by PEG's
//! solve below.
//!
//! **Planar world** (003's 2D experiment, Figs. 20–22). A geom is planar when
//! its body is locked to the plane (`model::Locks`: z, rx, ry; or static) and its
//! shape is a right prism along z whose geom frame keeps z along the world's (the
//! scene's `type = "polygon"`); its polygon is the prism's cross-section
//! (`polygon::prism_section`). A pair of planar geoms, one on a locked body, takes
//! the 2D potential contacts and constraints of `collision::polygon` — vertex–edge
//! U (eq. (32)) and vertex–vertex I/X (eq. (33)) — mapped into the plane of the
//! locked body's centre of mass with normals in the plane; the rows, the LCP and
//! the solve below are the same. The locks zero M⁻¹'s rows of z, rx, ry, so each
//! row's z and the tangent along z (`tangent_basis` of an in-plane normal always
//! gives ±z as one tangent) do not act: one in-plane friction direction.
//!
//! **Solver.** The matrix is not symmetric (the c columns enter only through the
//! ones of E_I1, E_I2). It is block-diagonal over the contact islands (rows
//! connected through moving bodies, `islands.rs`); each island is one dense LCP.
//! Lemke solves it as assembled (cold start, the pivot limit and residual
//! acceptance of the standard path). An island larger than [`PEG_MAX_LCP`]
//! variables is not given to the dense Lemke (its tableau is n × 2n): the
//! constraint PGS of `peg_pgs.rs` solves PEG's own LCP on it (the slacks
//! eliminated as the running maximum of the gaps, one coordinate per force
//! variable, over the block-sparse W); an unconverged solve keeps its best
//! iterate and is counted (`solver_unconverged`). **Opt-in**
//! (``[lcp] peg_block_gs = true``, read when the workspace is made; peg8): block
//! Gauss–Seidel over the island's two-body groups first (`peg_bgs.rs`), each
//! group's LCP by this Lemke with the other groups' impulses in its constant,
//! the constraint PGS continuing from its best iterate when it does not
//! converge (an island of one group, or with a group over the cap: the
//! constraint PGS directly). Off by default: measured, it does not yet make
//! the 2D pour's overlap smaller (docs/EXPERIMENTS.md, peg8). The dense W an island's LCP reads is
//! scattered per island, over the island's force and slack rows only
//! (`island_w`): Σ islandᵢ² memory and Σ islandᵢ³ pivoting, not (Σ rows)².
//! **Row cap**: a step whose rows exceed [`PEG_MAX_ROWS`] (the block-sparse W is
//! quadratic in the rows that share a body) is solved with the standard rows
//! instead (`lcp/mod.rs`), a counted failure and fallback. **Failure**: an
//! island Lemke's ladder does not solve goes (opt-in, above) to block
//! Gauss–Seidel over its two-body groups (`peg_bgs.rs`; a solution to
//! `LcpParams::tolerance` is kept, not counted), then, from its best iterate
//! (else from 0), to the constraint PGS, then to
//! Lemke once more warm-started from the active set of the PGS solution
//! (`lemke_from_impulses`); if that is not accepted, 003's **general
//! |Cι| > 1 form** ("General form" below; `[lcp] peg_general`, on by
//! default); if that is not accepted either, **opt-in**
//! (scene key `[lcp] peg_elastic = true`, `LcpParams::peg_elastic`; off by
//! default), the **elastic
//! relaxation** ([`elastic`], peg10; since peg11 only the force rows violated at zero impulse,
//! `ELASTIC_JAMMED_ROWS`): the LCP with those force rows' rates relaxed by the
//! least t ≥ 0 Lemke's path reaches from the no-impulse basis
//! (`LemkeSolver::solve_elastic`), a solution of LCP(M, q + t d) that always
//! exists (t₀ of the start is one) — counted in `StepStats::peg_relaxed`, not
//! as a failure; only if that is not accepted either is the PGS solution kept,
//! a counted failure and fallback (`solver_failures`, `solver_fallbacks`, once
//! per step).
//!
//! **Work check** (peg14; [`work_check`], [`work_rejects`]). A solved pass
//! whose impulses add more kinetic energy than pushing out the overlap its rows
//! see can, ΔT > [`WORK_FACTOR`] Σ ½ (d/h)²/W_nn (d a pushing row's depth, its
//! I/X set's for a set's force), is not kept: a predicted pass is discarded; a
//! first pass is a counted failure and fallback and the step is rebuilt with
//! the standard rows (`lcp/mod.rs`, as at the row cap). Opt-in (peg33, `[lcp]
//! peg_work_penetration = true`, [`row_penetration`]), a PEG row's d is bounded
//! by its feature points' real penetration at the step's start: a row's distance
//! behind its own plane is not an overlap where its point is not inside the
//! other polytope. Off by default: it removes the 3D pour's uncaught energy
//! gains but refuses more passes, whose fallback leaves overlap (the sweep
//! worse in 2D and 3D; docs/EXPERIMENTS.md, peg33). On by default since peg34
//! (`[lcp] peg_work_chain`, [`chain_energy`]): E is also at least the push-out
//! of pushes in series, Σ_b ½ m_b (D_b/h)² with D_b a body's least chain of
//! pushing depths to a static body (a stack of n boxes δ deep needs
//! ½ m (δ/h)² n(n+1)(2n+1)/6 where the rows' own sum grows as n: the 5-stack
//! was refused on every step). On by default since peg34 (`[lcp] peg_work_clamp`,
//! [`clamp_to_penetration`]; the sweep better in 2D and 3D, no cell worse,
//! docs/EXPERIMENTS.md): a refused first pass at a level the retry keeps
//! (the unsplit step, the retry's deepest level; `PegWorkspace::splittable`) is
//! solved once more with every PEG row's ψ raised to minus its real
//! penetration (the rows push out only what overlaps) and kept if it is solved
//! and passes the check, not counted as a failure (`StepStats::peg_clamped_kept`);
//! else the standard rows' fallback as before. Refused first passes are counted
//! in `StepStats::peg_work_refusals`. Such passes are
//! solutions of the LCP, accepted by every residual test — a body wedged between
//! rows whose push-outs no rigid motion meets squirts out at 58 m/s, a
//! general-form member force throws a body across a plane it is not near — after
//! which the 2D and 3D pours jammed (docs/EXPERIMENTS.md, peg14).
//!
//! **General form** (003's |Cι| > 1, eqs. (20)–(23); [`general`], peg11; the
//! scene key `[lcp] peg_general`, on by default). Where the warm Lemke also
//! failed, before the elastic relaxation, the island is assembled again over
//! z = (p | β | σ | c | λ) with one more force λ_s ≥ 0 along each slack
//! member's own normal (no friction on it) and solved by the same [`ladder`]:
//!
//! | rows | w ≥ 0 ⊥ | 003 |
//! |---|---|---|
//! | I primary ι | 2 m_ι − g_ι = g_ι + 2 Σ_s c_s ⊥ p_ι | eq. (23), i = 1 |
//! | I member s | 2 m_ι − g_s = 2 g_ι + 2 Σ_t c_t − g_s ⊥ λ_s | eq. (23), i = s |
//! | U, slacks, friction | as above, every g now also through W λ | (44), (20) |
//!
//! with m_ι = g_ι + Σ_t c_t the set's largest gap (the chain of eq. (20)).
//! 003 writes eq. (23) with d_ιi = max(0, −ψ_ιi) (eq. (22)) and needs eq. (21),
//! m_ι ≥ 0, as an inequality outside the LCP ("an LPCC, or an auxiliary
//! variable"); here d_ιi is replaced by m_ι − g_i, which is ≥ 0 with the same
//! zero set wherever m_ι = 0, and eq. (21) then follows from the rows: the
//! member whose gap is the largest has 2 m_ι − m_ι = m_ι ≥ 0. So a force acts on
//! member i only if g_i = m_ι = 0 (its gap closed and no member open): eqs.
//! (21)–(23) exactly, a pure LCP of ic + 2 n_s variables without auxiliaries.
//! Lemke's guarantee does not change: M is neither P₀ nor copositive-plus
//! (the chains' ones, and λ's diagonal 2 W_ιs − W_ss may be negative), so a ray
//! does not prove that no solution exists; on the dumped failures
//! (docs/EXPERIMENTS.md, peg11) it solves every one that admits a rigid motion.
//!
//! **Why a relaxation** (docs/EXPERIMENTS.md, peg10). The island LCPs the
//! ladder fails on mostly have no solution (peg9's MILP); of 80 dumped 2D group
//! LCPs, 59 admit a rigid motion that meets every constraint (some member of
//! each I set opened) but no pushes along the *primaries* that reach it — the
//! single-primary reduction of eq. (24) confines each force to one normal, and
//! a frictionless MILP with a force on any member (the general |Cι| > 1 form)
//! finds a solution on most of them; the other 21 (two interlocked polygons, 44–62
//! vertex–vertex I constraints) admit no rigid motion at all: the linearized
//! I sets of a deep overlap contradict each other. Before (peg3) the fallback was PGS on the standard problem over
//! the force-carrying contacts: the over-constrained model for that step.

#[path = "peg_pgs.rs"]
mod pgs;

#[path = "peg_bgs.rs"]
mod bgs;

#[path = "peg_dump.rs"]
pub mod dump;

#[path = "peg_seams.rs"]
mod seams;

use super::rows::point_row;
use super::{ContactRow, DofKind, LcpWorkspace, Side, LEMKE_ACCEPT, NO_BLOCK, NO_PAIR};
use crate::collision::features::{
    plane_potential_contacts, potential_contacts, Constraint, FeatureParams, FeatureScratch,
    PotentialContacts,
};
use crate::collision::features::{ContactSets, Feature, PotentialContact};
use crate::collision::overlap::{intersection_volume, OverlapScratch};
use crate::collision::polygon::{
    planar_pose, potential_contacts_2d, prism_section, ConvexPolygon, Feature2, PolygonScratch,
    PotentialContacts2,
};
use crate::collision::{ConvexPolytope, Shape};
use crate::data::{BodyState, StepStats};
use crate::diag;
use crate::math::tangent_basis;
use crate::math::Vec3;
use crate::model::{LcpParams, Material, Method, Model};
use crate::solver::{reshape_zeroed, resize_zeroed, LemkeParams, LemkeStatus};
use nalgebra::DVector;
use std::fmt::Write as _;
use std::sync::Arc;

/// No force variable.
const NONE: u32 = u32::MAX;

/// One I (or X, built as an I) constraint over rows of `LcpWorkspace::contacts`:
/// the primary's row and its slack rows `slack_rows[slacks]` in chain order.
#[derive(Clone, Debug)]
pub(super) struct PegConstraint {
    primary: u32,
    slacks: std::ops::Range<u32>,
}

/// An X constraint joined to a force variable (`[lcp] peg_x_joined`; module doc,
/// "Joined X"): the force `force` (on the X's member row `primary`) and the X's
/// other members `slack_rows[slacks]` in chain order. Kept apart from
/// `PegWorkspace::constraints`, which every solver reads: only the dense Lemke
/// of an island ([`assemble`]) sees a joined X.
#[derive(Clone, Debug)]
pub(super) struct JoinedX {
    force: u32,
    primary: u32,
    slacks: std::ops::Range<u32>,
}

/// Working memory of the PEG rows (capacities kept).
#[derive(Clone, Debug, Default)]
pub struct PegWorkspace {
    /// Per geom: its convex polytope (boxes and hulls), `None` for other shapes.
    pub(super) hull: Vec<Option<Arc<ConvexPolytope>>>,
    /// Per geom: its polygon if it belongs to the planar world (module doc,
    /// "Planar world"), `None` otherwise.
    pub(super) polygon: Vec<Option<Arc<ConvexPolygon>>>,
    scratch2: PolygonScratch,
    pc2: PotentialContacts2,
    /// Per broad-phase candidate: whether its rows are PEG's.
    pub(super) peg_pair: Vec<bool>,
    scratch: FeatureScratch,
    pc: PotentialContacts,
    /// [`seams::clip`]'s memory and the pair's covered planes.
    seam: seams::SeamScratch,
    seam_planes: Vec<(Vec3, f64, bool)>,
    /// Row of each contact of `pc` (per pair), and whether it carries a force.
    row_of: Vec<u32>,
    /// Per row of `LcpWorkspace::contacts`: ψ of PEG rows (NaN for standard rows)
    /// and the index of its force variable (or NONE).
    psi: Vec<f64>,
    /// Per row: its feature points' real penetration at the step's start
    /// ([`row_penetration`]; ∞ for standard rows, plane pairs, or with
    /// `[lcp] peg_work_penetration = false`): the work check's bound on its depth.
    row_pen: Vec<f64>,
    /// Per row: its feature points' real penetration at the step's start
    /// ([`row_penetration`]) whenever `[lcp] peg_work_penetration` or
    /// `peg_work_clamp` is on (∞ otherwise, and for standard rows and plane
    /// pairs): what [`clamp_to_penetration`] lets a refused pass's rows push out.
    real_pen: Vec<f64>,
    force: Vec<u32>,
    /// Rows of the force variables, in variable order.
    force_rows: Vec<u32>,
    constraints: Vec<PegConstraint>,
    /// The X constraints joined to a force (`[lcp] peg_x_joined`), and the
    /// island's (global ids, increasing; empty where the island's LCP is not
    /// the dense Lemke's), and whether [`assemble`] last built the general form.
    joined: Vec<JoinedX>,
    isl_joined: Vec<u32>,
    assembled_general: bool,
    /// Per force variable: the constraint it is the primary of (or NONE).
    primary_of: Vec<u32>,
    slack_rows: Vec<u32>,
    overlap: OverlapScratch,
    /// Per potential contact of the pair: the first contact with the same row
    /// (module doc, "Equal rows"), and per such row whether a U holds it.
    class: Vec<u32>,
    u_class: Vec<bool>,
    /// Per row of `LcpWorkspace::contacts`: its island (`LcpWorkspace::sparse`).
    row_island: Vec<u32>,
    /// The island being solved: its force variables and constraints (global ids,
    /// increasing), the first local slack of each constraint, and per island
    /// whether Lemke solved it.
    isl_force: Vec<u32>,
    isl_cons: Vec<u32>,
    /// The island's rows that its LCP reads (force rows, then slack rows), and
    /// per row of `LcpWorkspace::contacts` its index among them (or NONE): the
    /// island's dense W in `LcpWorkspace::w` is over these rows only.
    isl_rows: Vec<u32>,
    local: Vec<u32>,
    cons_base: Vec<u32>,
    island_ok: Vec<bool>,
    /// Per broad-phase candidate: ε of its potential contacts, the rotation lead
    /// ℓ, its first row in `LcpWorkspace::contacts` and ε_θ of its applicability
    /// (for the trace).
    pair_eps: Vec<(f64, f64, u32, f64)>,
    /// Passes the step took, the last one's rows kept (1: the start-of-step
    /// rows only; for the trace).
    pub(super) passes: u32,
    /// A predicted pass's motion of each body over the step at the previous
    /// pass's ν⁺, as the integrator makes it ([`predicted_motion`]): the start
    /// centre x, v⁺, ω⁺ and the rotation q⁺ q⁻¹ (x⁺ = x + h v⁺).
    motion: Vec<(Vec3, Vec3, Vec3, crate::math::Quat)>,
    /// Overlap events still to print (`RTPHYS_PEG_TRACE`, see [`report_overlap`]).
    trace: u32,
    /// Attribute every rise of a pair's overlap (`RTPHYS_PEG_ATTRIB=1`, see
    /// [`attribute_overlap`]; off by default, allocates).
    attrib: bool,
    /// This step's contact solve fell back to the standard rows (row cap or
    /// work check; `lcp/mod.rs`), for the attribution.
    pub(super) std_rows: bool,
    /// This step held no PEG row and was the LCP method's step (module doc,
    /// "Steps without PEG rows"; `lcp/mod.rs`): the retry keeps it unsplit.
    pub(super) lcp_step: bool,
    /// An island over [`PEG_MAX_LCP`] was reported (once per world: the stats
    /// count every one).
    cap_reported: bool,
    /// A step over [`PEG_MAX_ROWS`] was reported (once per world).
    row_cap_reported: bool,
    /// Predicted reach (module doc): per geom the speed bound of its points over
    /// the step, max(start, end of the last pass), m/s; per body the bound on
    /// |ω|² of the rotation lead, (rad/s)².
    speed_pred: Vec<f64>,
    w2_pred: Vec<f64>,
    /// The last solved pass (rows, impulses, ν⁺, the solver counters), kept
    /// while a predicted pass is tried ([`save_pass`], [`restore_pass`]).
    saved_contacts: Vec<ContactRow>,
    saved_impulse: Vec<f64>,
    saved_nu: Vec<f64>,
    saved_stats: (u64, u64, u64, bool, usize, f64, usize),
    /// Complementary pivots the pass may still spend (`usize::MAX`: unbounded;
    /// a predicted pass gets what the first pass left of one Lemke attempt's
    /// limit, module doc "Predicted reach").
    pub(super) pivot_budget: usize,
    /// The constraint PGS (`peg_pgs.rs`): the island's force rows, per row
    /// (W_nn, 1/λ_max(W_tt), W_t₁n, W_t₂n), and the members' couplings a_j.
    pgs_rows: Vec<u32>,
    pgs_diag: Vec<(f64, f64, f64, f64)>,
    pgs_a: Vec<f64>,
    pgs_a_start: Vec<u32>,
    /// The constraint PGS's best iterate (the island's force rows' impulses).
    pgs_best: Vec<f64>,
    /// Unconverged constraint-PGS solves still to describe
    /// (`RTPHYS_PEG_PGS_TRACE`, `peg_pgs.rs`).
    pgs_trace: u32,
    /// Block Gauss–Seidel over two-body groups (`peg_bgs.rs`): the island's
    /// force variables and constraints, the groups' body pairs, per global
    /// force variable its group, the groups' force variables and constraints
    /// (CSR), their slack counts, a fill cursor, and per group solve the
    /// impulses and constants set aside and its rows' constants.
    bgs_force: Vec<u32>,
    bgs_cons: Vec<u32>,
    bgs_key: Vec<(usize, usize)>,
    bgs_group_of: Vec<u32>,
    bgs_gf_start: Vec<u32>,
    bgs_gf: Vec<u32>,
    bgs_gc_start: Vec<u32>,
    bgs_gc: Vec<u32>,
    bgs_ns: Vec<u32>,
    bgs_fill: Vec<u32>,
    bgs_zsave: Vec<f64>,
    bgs_qsave: Vec<f64>,
    bgs_q: Vec<f64>,
    /// The best iterate (the island's force rows' impulses) and a group's
    /// force rows (the constraint PGS on a group Lemke did not solve).
    bgs_best: Vec<f64>,
    bgs_rows: Vec<u32>,
    /// Per global force variable: kept in its group's reduced active set
    /// (`peg_bgs::solve_reduced`).
    bgs_keep: Vec<bool>,
    /// Block Gauss–Seidel on over-cap islands and Lemke failures
    /// (`peg_bgs.rs`): opt-in, the scene key `[lcp] peg_block_gs`
    /// (`LcpParams::peg_block_gs`).
    bgs_on: bool,
    /// `[lcp] peg_work_penetration` (`LcpParams::peg_work_penetration`): the work
    /// check's depths bounded by the rows' real penetration (peg33).
    work_pen: bool,
    /// `[lcp] peg_work_chain` (`LcpParams::peg_work_chain`, peg33; default true
    /// since peg34): the work check's push-out of pushes in series
    /// ([`chain_energy`]), and its per-body chain depths.
    work_chain: bool,
    chain_depth: Vec<f64>,
    /// `[lcp] peg_work_clamp` (`LcpParams::peg_work_clamp`, peg34): a refused
    /// first pass that the retry will not split is solved again with its rows'
    /// constants clamped to their real penetration ([`clamp_to_penetration`])
    /// before the standard rows' fallback.
    pub(super) work_clamp: bool,
    /// `[lcp] peg_x_own_row` (`LcpParams::peg_x_own_row`, peg35): an X
    /// constraint all of whose contacts already carry a force takes its impulse
    /// on a copy of its most applicable contact's row ([`pair_rows`]).
    x_own_row: bool,
    /// `[lcp] peg_x_joined` (`LcpParams::peg_x_joined`, peg36): such an X is
    /// joined to the force of its most applicable member ([`JoinedX`]).
    x_joined: bool,
    /// `[lcp] peg_vv_paired_primaries` (peg35): the planar vertex–vertex
    /// pairs' I primaries paired (`FeatureParams::paired_primaries`).
    vv_paired: bool,
    /// `[lcp] peg_edge_edge_uncovered` (peg36): an edge pair near a vertex
    /// without contacts keeps its edge–edge U
    /// (`FeatureParams::edge_edge_uncovered`).
    ee_uncovered: bool,
    /// This pass's X constraints all of whose contacts carried a force, and of
    /// them those given a row of their own (`StepStats::peg_x_shared`,
    /// `peg_x_rows`).
    pub(super) x_shared: u32,
    pub(super) x_rows: u32,
    /// Set by the retry (`peg_retry.rs`) while it steps an attempt above the
    /// deepest level, whose failure it splits rather than keeps; false for the
    /// unsplit step and the deepest level (module doc, "Work check").
    pub(super) splittable: bool,
    /// Unconverged block Gauss–Seidel solves still to describe
    /// (`RTPHYS_PEG_BGS_TRACE`, `peg_bgs.rs`).
    bgs_trace: u32,
    /// Failing LCPs to files (`peg_dump.rs`; `RTPHYS_PEG_LCP_DUMP=DIR`, off by
    /// default): the directory, dumps left, the next file's number.
    dump_dir: Option<String>,
    dump_left: u32,
    dump_seq: u32,
    /// `RTPHYS_PEG_LCP_DUMP_OVERCAP=1` (with `RTPHYS_PEG_LCP_DUMP`): also dump
    /// every island over [`PEG_MAX_LCP`] the constraint PGS leaves unconverged,
    /// assembled dense for the file (peg18's jam check; allocates).
    dump_overcap: bool,
    /// The covering vector of [`ladder`]'s restart on a ray (kept: no
    /// allocation once grown).
    cover: DVector<f64>,
    /// The elastic relaxation's starting basis ([`elastic_start`]; kept).
    el_start: Vec<bool>,
    /// The elastic relaxation on ([`elastic`]; the scene key `[lcp] peg_elastic`,
    /// read when the workspace is made; off by default).
    el_on: bool,
    /// The general |Cι| > 1 form on ([`general`]; the scene key `[lcp]
    /// peg_general`, read when the workspace is made).
    gen_on: bool,
    /// `[lcp] peg_signed_lead` (`LcpParams::peg_signed_lead`; off by default):
    /// the first pass's rows take each contact's signed second-order term in
    /// place of the pair's rotation lead (peg17, peg18).
    signed_lead: bool,
    /// An over-cap island the constraint PGS left unconverged solved by Lemke on
    /// its active set (`peg_bgs::solve_island_active`; the scene key `[lcp]
    /// peg_active_set`, read when the workspace is made).
    active_on: bool,
    /// Active-set solves still to describe (`RTPHYS_PEG_ACTIVE_TRACE`), and the
    /// last reduced solve's rounds, largest and last LCP size, and end.
    active_trace: u32,
    /// Per row of `LcpWorkspace::contacts`: the members' normal impulses λ the
    /// general form added this step ([`general`]; block Gauss–Seidel takes a
    /// group's out before solving it again).
    gen_lambda: Vec<f64>,
    red_log: (usize, usize, usize, bgs::RedEnd),
    /// The passes' decisions to print (`RTPHYS_PEG_PASS_TRACE=A-B`, steps A to B
    /// of this workspace, counted from 0; off: (1, 0)), the step counter and the
    /// pass's log of solve attempts ([`trace_pass`], peg14; allocates, off by
    /// default).
    pass_trace: (u64, u64),
    step_no: u64,
    tr_log: String,
    /// Per row: the overlap depth its force may push out ([`work_check`]).
    row_depth: Vec<f64>,
    /// Per body: touched by a pass's impulses ([`work_rejects`]).
    body_touch: Vec<bool>,
    /// The copies a failed step's retry puts back (`peg_retry.rs`; sized only
    /// when `[lcp] peg_retry_depth` > 0).
    pub(super) retry: super::peg_retry::RetryWorkspace,
    /// `[lcp] peg_rotation_eps_theta` (`LcpParams::peg_rotation_eps_theta`; off
    /// by default): the first pass's ε_θ from the start's rotation
    /// ([`predicted_eps_theta`] at the start-of-step |ω|).
    pub(super) rot_eps_theta: bool,
    /// `[lcp] peg_vv_one_sided` (`LcpParams::peg_vv_one_sided`; off by
    /// default): `FeatureParams::one_sided_vertex_vertex` of every pair
    /// ([`PegWorkspace::feature_params`]).
    vv_one_sided: bool,
    /// `[lcp] peg_vv_feasible` (peg28; off by default).
    vv_feasible: bool,
    /// Per body, a floor under the start's |ω|² in `w2_pred` for the next
    /// step's first pass (empty: none; the retry's second chance sets it to an
    /// attempt's end |ω|² and clears it after, `peg_retry.rs`, peg22).
    pub(super) w2_floor: Vec<f64>,
    /// Set by the retry's corrector (`peg_retry.rs`, "The corrector", peg27):
    /// the next [`spun_up`] asks for a predicted pass without growing the
    /// bounds (the pass whose rows carry the gap's second-order term,
    /// [`second_order_gap`], at the start's reach); cleared by that call.
    pub(super) force_pass: bool,
}

impl PegWorkspace {
    pub fn new(model: &Model) -> Self {
        let hull: Vec<Option<Arc<ConvexPolytope>>> = model
            .geoms
            .iter()
            .map(|g| match &g.shape {
                Shape::Box { poly, .. } => Some(poly.clone()),
                Shape::Polytope(p) => Some(p.clone()),
                _ => None,
            })
            .collect();
        let polygon = model
            .geoms
            .iter()
            .zip(&hull)
            .map(|(g, h)| planar_polygon(model, g, h.as_deref()).map(Arc::new))
            .collect();
        // Read once here (an env lookup allocates; the step must not).
        let trace = std::env::var("RTPHYS_PEG_TRACE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let attrib = std::env::var("RTPHYS_PEG_ATTRIB").is_ok_and(|v| v == "1");
        let pgs_trace = std::env::var("RTPHYS_PEG_PGS_TRACE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let bgs_trace = std::env::var("RTPHYS_PEG_BGS_TRACE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let active_trace = std::env::var("RTPHYS_PEG_ACTIVE_TRACE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let bgs_on = matches!(&model.opt.method, Method::Lcp(p) if p.peg_block_gs);
        let work_pen = matches!(&model.opt.method, Method::Lcp(p) if p.peg_work_penetration);
        let work_chain = matches!(&model.opt.method, Method::Lcp(p) if p.peg_work_chain);
        let work_clamp = matches!(&model.opt.method, Method::Lcp(p) if p.peg_work_clamp);
        let x_own_row = matches!(&model.opt.method, Method::Lcp(p) if p.peg_x_own_row);
        let x_joined = matches!(&model.opt.method, Method::Lcp(p) if p.peg_x_joined);
        let vv_paired = matches!(&model.opt.method, Method::Lcp(p) if p.peg_vv_paired_primaries);
        let ee_uncovered = matches!(&model.opt.method, Method::Lcp(p) if p.peg_edge_edge_uncovered);
        // Off by default (`LcpParams::peg_elastic`): measured (docs/EXPERIMENTS.md,
        // peg10), it halves the 3D pour's failing steps at h = 5e-2 but lets the 2D
        // pour's seed 1 at h = 1e-2 reach 0.22 L² of overlap where the fallback it
        // replaces left 4.5e-3 L².
        let el_on = matches!(&model.opt.method, Method::Lcp(p) if p.peg_elastic);
        let gen_on = matches!(&model.opt.method, Method::Lcp(p) if p.peg_general);
        let signed_lead = matches!(&model.opt.method, Method::Lcp(p) if p.peg_signed_lead);
        let active_on = matches!(&model.opt.method, Method::Lcp(p) if p.peg_active_set);
        let rot_eps_theta = matches!(&model.opt.method, Method::Lcp(p) if p.peg_rotation_eps_theta);
        let vv_one_sided = matches!(&model.opt.method, Method::Lcp(p) if p.peg_vv_one_sided);
        let vv_feasible = matches!(&model.opt.method, Method::Lcp(p) if p.peg_vv_feasible);
        let pass_trace = std::env::var("RTPHYS_PEG_PASS_TRACE")
            .ok()
            .and_then(|v| {
                let (a, b) = v.split_once('-').unwrap_or(("0", v.as_str()));
                Some((a.parse().ok()?, b.parse().ok()?))
            })
            .unwrap_or((1, 0));
        let dump_dir = std::env::var("RTPHYS_PEG_LCP_DUMP").ok();
        let dump_left = std::env::var("RTPHYS_PEG_LCP_DUMP_N")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(8);
        let dump_overcap = std::env::var("RTPHYS_PEG_LCP_DUMP_OVERCAP").is_ok_and(|v| v == "1");
        PegWorkspace {
            dump_dir,
            dump_left,
            dump_overcap,
            hull,
            polygon,
            trace,
            attrib,
            std_rows: false,
            lcp_step: false,
            pgs_trace,
            bgs_trace,
            bgs_on,
            work_pen,
            work_chain,
            work_clamp,
            x_own_row,
            x_joined,
            vv_paired,
            ee_uncovered,
            chain_depth: Vec::with_capacity(model.nbody()),
            el_on,
            gen_on,
            signed_lead,
            active_on,
            active_trace,
            pass_trace,
            pivot_budget: usize::MAX,
            retry: super::peg_retry::RetryWorkspace::new(model),
            rot_eps_theta,
            vv_one_sided,
            vv_feasible,
            ..Default::default()
        }
    }
}

/// The polygon of a geom of the planar world (module doc, "Planar world"): a
/// right prism along z (`polygon::prism_section`) on a body locked to the plane
/// (`Locks::PLANAR`) or a static one, whose geom frame keeps z along the world's.
fn planar_polygon(
    model: &Model,
    g: &crate::model::Geom,
    hull: Option<&ConvexPolytope>,
) -> Option<ConvexPolygon> {
    let body = &model.bodies[g.body];
    let planar = match body.kind {
        crate::model::BodyKind::Free => body.lock.0[2] && body.lock.0[3] && body.lock.0[4],
        crate::model::BodyKind::Static => true,
        crate::model::BodyKind::Link { .. } => false,
    };
    if !planar {
        return None;
    }
    planar_pose(&(body.pose0 * g.x_bg))?;
    prism_section(hull?).map(|(p, _)| p)
}

/// Per geom of `model`: its polygon if it is of the planar world (module doc,
/// "Planar world").
pub fn planar_polygons(model: &Model) -> Vec<Option<Arc<ConvexPolygon>>> {
    PegWorkspace::new(model).polygon
}

/// The pairs of planar geoms (`planar_polygons`) of different bodies, except
/// pairs of two non-free bodies: those the 2D metrics (overlap area, SM traps)
/// walk.
pub fn planar_pairs(model: &Model, polygon: &[Option<Arc<ConvexPolygon>>]) -> Vec<(u32, u32)> {
    geom_pairs(model, polygon, false)
}

/// The pairs of geoms that have a shape in `shape` (indexed by geom), of
/// different bodies, with or without the pairs of two non-free bodies: the pair
/// list of the overlap metrics (3D volume, 2D area).
fn geom_pairs<T>(model: &Model, shape: &[Option<T>], static_pairs: bool) -> Vec<(u32, u32)> {
    let is_static =
        |g: usize| model.bodies[model.geoms[g].body].kind != crate::model::BodyKind::Free;
    let mut pairs = Vec::new();
    for a in 0..shape.len() {
        for b in a + 1..shape.len() {
            if shape[a].is_some()
                && shape[b].is_some()
                && model.geoms[a].body != model.geoms[b].body
                && (static_pairs || !(is_static(a) && is_static(b)))
            {
                pairs.push((a as u32, b as u32));
            }
        }
    }
    pairs
}

/// Whether a geom pair is of the planar world: both have polygons and one is on a
/// locked body.
fn planar_pair(model: &Model, pw: &PegWorkspace, a: usize, b: usize) -> bool {
    let locked = |g: usize| model.bodies[model.geoms[g].body].lock.any();
    pw.polygon.get(a).is_some_and(|p| p.is_some())
        && pw.polygon.get(b).is_some_and(|p| p.is_some())
        && (locked(a) || locked(b))
}

/// Whether a geom pair takes PEG's rows: two polytopes, or a plane (a static
/// half-space; module doc, "Plane") and a polytope, each on a free body or a
/// static one (no robot link).
fn peg_eligible(model: &Model, ls: &LcpWorkspace, a: usize, b: usize) -> bool {
    let pw = &ls.peg;
    let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
    let on_free_or_static = |body: usize| {
        let blk = ls.body_block[body];
        blk == NO_BLOCK && !matches!(model.bodies[body].kind, crate::model::BodyKind::Link { .. })
            || blk != NO_BLOCK && matches!(ls.blocks[blk as usize].kind, DofKind::Free { .. })
    };
    let polytope_or_plane =
        |g: usize| pw.hull.get(g).is_some_and(|h| h.is_some()) || is_plane(model, g);
    polytope_or_plane(a)
        && polytope_or_plane(b)
        && !(is_plane(model, a) && is_plane(model, b))
        && on_free_or_static(ga.body)
        && on_free_or_static(gb.body)
}

/// Whether the overlap trigger and the second chance watch the pair of geoms
/// `ga`, `gb` (`peg_retry.rs`, "The overlap trigger"): not two static bodies (they
/// do not move), and no robot link (a link's pairs always take the standard rows,
/// [`peg_eligible`], which keep their 1e-5 m allowance of depth; peg33: a
/// gripper's fingers on a box raised the overlap at every step and split it).
fn watched(model: &Model, ga: &crate::model::Geom, gb: &crate::model::Geom) -> bool {
    use crate::model::BodyKind;
    let kind = |g: &crate::model::Geom| &model.bodies[g.body].kind;
    let moving = |g| !matches!(kind(g), BodyKind::Static);
    let link = |g| matches!(kind(g), BodyKind::Link { .. });
    (moving(ga) || moving(gb)) && !link(ga) && !link(gb)
}

/// Whether geom `g` is a plane (always on a static body: `model`).
fn is_plane(model: &Model, g: usize) -> bool {
    matches!(model.geoms[g].shape, Shape::Plane)
}

/// The size of a PEG pair for its tolerances (m): the narrow phase's
/// `pair_scale`, the geoms' bounding radii summed, a plane counting 0 (its
/// radius is infinite).
fn pair_size(model: &Model, a: usize, b: usize) -> f64 {
    crate::collision::narrowphase::pair_scale(&model.geoms[a].shape, &model.geoms[b].shape)
}

/// What the PEG rows read of the step.
pub(super) struct PegInput<'a> {
    pub model: &'a Model,
    pub state: &'a [BodyState],
    pub candidates: &'a [(u32, u32)],
    pub poses: &'a [crate::math::Pose],
    pub speed: &'a [f64],
    pub h: f64,
    pub window: f64,
    /// Build from the predicted reach (`spun_up`'s bounds, module doc,
    /// "Predicted reach") instead of the start-of-step speeds.
    pub predicted: bool,
}

/// Whether the rows [`peg_rows`] built hold a PEG row (a potential contact of a
/// polytope or plane pair); false when every row is a standard one (module doc,
/// "Steps without PEG rows").
pub(super) fn has_peg_rows(ls: &LcpWorkspace) -> bool {
    ls.peg.psi.iter().any(|x| !x.is_nan())
}

/// Replaces the standard rows of polytope pairs (built by `rows::contact_rows`)
/// with PEG's rows: the potential contacts and constraints of every eligible pair.
pub(super) fn peg_rows(inp: &PegInput<'_>, ls: &mut LcpWorkspace) {
    let model = inp.model;
    // Which candidates are PEG pairs.
    let mut peg_pair = std::mem::take(&mut ls.peg.peg_pair);
    peg_pair.clear();
    for &(a, b) in inp.candidates {
        peg_pair.push(peg_eligible(model, ls, a as usize, b as usize));
    }
    ls.contacts
        .retain(|c| c.pair == NO_PAIR || !peg_pair.get(c.pair).copied().unwrap_or(false));
    let pw = &mut ls.peg;
    pw.peg_pair = peg_pair;
    pw.psi.clear();
    pw.psi.resize(ls.contacts.len(), f64::NAN);
    pw.row_pen.clear();
    pw.row_pen.resize(ls.contacts.len(), f64::INFINITY);
    pw.real_pen.clear();
    pw.real_pen.resize(ls.contacts.len(), f64::INFINITY);
    pw.force.clear();
    pw.force_rows.clear();
    pw.primary_of.clear();
    pw.constraints.clear();
    pw.joined.clear();
    pw.slack_rows.clear();
    pw.x_shared = 0;
    pw.x_rows = 0;
    // The standard rows kept carry forces (unilateral).
    for c in 0..ls.contacts.len() {
        ls.peg.force.push(ls.peg.force_rows.len() as u32);
        ls.peg.force_rows.push(c as u32);
        ls.peg.primary_of.push(NONE);
    }
    if inp.predicted {
        predicted_motion(inp, ls);
    } else {
        ls.peg.step_no += 1;
        ls.peg.tr_log.clear();
        // The predicted reach starts from the start-of-step bounds ("Predicted
        // reach").
        let pw = &mut ls.peg;
        pw.speed_pred.clear();
        pw.speed_pred.extend_from_slice(inp.speed);
        pw.w2_pred.clear();
        pw.w2_pred
            .extend(inp.state.iter().map(|s| s.w.norm_squared()));
        for (w2, &f) in pw.w2_pred.iter_mut().zip(&pw.w2_floor) {
            *w2 = w2.max(f);
        }
        if pw.signed_lead {
            // The start-of-step motion for [`second_order_gap`]
            // (`peg_signed_lead`): x + h v, the rotation exp(hω) (peg17's
            // variant; a static body has v = ω = 0 and does not move).
            let h = inp.h;
            pw.motion.clear();
            pw.motion.extend(
                inp.state
                    .iter()
                    .map(|s| (s.x, s.v, s.w, crate::math::Quat::from_scaled_axis(h * s.w))),
            );
        }
    }
    let reach0 = inp.h * inp.h * model.opt.gravity.norm() + inp.window;
    ls.peg.pair_eps.clear();
    ls.peg
        .pair_eps
        .resize(inp.candidates.len(), (f64::NAN, 0.0, NONE, f64::NAN));
    for (i, &(a, b)) in inp.candidates.iter().enumerate() {
        if !ls.peg.peg_pair[i] {
            continue;
        }
        let (a, b) = (a as usize, b as usize);
        let speed = |g: usize| {
            let s = if inp.predicted {
                ls.peg.speed_pred.get(g)
            } else {
                inp.speed.get(g)
            };
            s.copied().unwrap_or(0.0)
        };
        let u = speed(a) + speed(b);
        let eps = inp.h * u + reach0;
        if !eps.is_finite() {
            continue;
        }
        let mut params = ls.peg.feature_params(eps, f64::NAN);
        if inp.predicted || ls.peg.rot_eps_theta {
            // A predicted pass at its ν⁺; the first pass (`peg_rotation_eps_theta`)
            // at the start's |ω| (`w2_pred` holds it until a pass grows it).
            params.eps_theta = predicted_eps_theta(inp, &ls.peg, a, b, params.eps_theta);
        }
        ls.peg.pair_eps[i] = (eps, 0.0, ls.contacts.len() as u32, params.eps_theta);
        // A plane and a polytope: a vertex–face U per vertex within ε (module
        // doc, "Plane").
        let plane = match (is_plane(model, a), is_plane(model, b)) {
            (true, _) => Some((a, b, true)),
            (_, true) => Some((b, a, false)),
            _ => None,
        };
        if let Some((gp, gq, plane_is_a)) = plane {
            let pw = &mut ls.peg;
            let Some(Some(hq)) = pw.hull.get(gq).cloned() else {
                continue;
            };
            plane_potential_contacts(
                &inp.poses[gp],
                &hq,
                &inp.poses[gq],
                plane_is_a,
                &params,
                &mut pw.scratch,
                &mut pw.pc,
            );
            pair_rows(inp, i, a, b, ls);
            continue;
        }
        let (Some(ha), Some(hb)) = (ls.peg.hull[a].clone(), ls.peg.hull[b].clone()) else {
            continue;
        };
        if planar_pair(model, &ls.peg, a, b) {
            let pw = &mut ls.peg;
            if planar_contacts(inp, a, b, &params, pw) {
                pair_rows(inp, i, a, b, ls);
            }
            continue;
        }
        {
            let pw = &mut ls.peg;
            // A static box with a covered face takes part as its extended box
            // (`model::seams`; `seams::clip`).
            let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
            let (xa_seam, xb_seam);
            let (ha, xa) = match (&ga.seam, &ga.seam.as_ref().map(|s| &s.shape)) {
                (Some(s), Some(Shape::Box { poly, .. })) => {
                    xa_seam = s.pose(&inp.poses[a]);
                    (poly.clone(), &xa_seam)
                }
                _ => (ha, &inp.poses[a]),
            };
            let (hb, xb) = match (&gb.seam, &gb.seam.as_ref().map(|s| &s.shape)) {
                (Some(s), Some(Shape::Box { poly, .. })) => {
                    xb_seam = s.pose(&inp.poses[b]);
                    (poly.clone(), &xb_seam)
                }
                _ => (hb, &inp.poses[b]),
            };
            potential_contacts(&ha, xa, &hb, xb, &params, &mut pw.scratch, &mut pw.pc);
            let seamed = match (&ga.seam, &gb.seam) {
                (Some(s), _) => Some((s, a, true)),
                (_, Some(s)) => Some((s, b, false)),
                _ => None,
            };
            if let Some((s, g, on_a)) = seamed {
                pw.seam_planes.clear();
                pw.seam_planes.extend(s.planes(&inp.poses[g]));
                let at = |c: &PotentialContact| if on_a { c.p_a } else { c.p_b };
                seams::clip(&mut pw.pc, &pw.seam_planes, at, &mut pw.seam);
            }
        }
        pair_rows(inp, i, a, b, ls);
    }
}

/// Per body, the motion of a predicted pass (`PegWorkspace::motion`): at ν⁺ of
/// the pass before (`ls.nu_move`), x⁺ = x + h v⁺ and q⁺ = the free rotation
/// kicked by ω⁺ − ω_f (`rotation::kick`), exactly as the step integrates
/// (`lcp/mod.rs`, `integrate`); a body without a free block does not move.
fn predicted_motion(inp: &PegInput<'_>, ls: &mut LcpWorkspace) {
    let LcpWorkspace {
        blocks,
        body_block,
        nu_move,
        free_rot,
        peg: pw,
        ..
    } = ls;
    pw.motion.clear();
    for (b, st) in inp.state.iter().enumerate() {
        let id = (
            st.x,
            Vec3::zeros(),
            Vec3::zeros(),
            crate::math::Quat::identity(),
        );
        let blk = body_block.get(b).copied().unwrap_or(NO_BLOCK);
        let m = if blk == NO_BLOCK {
            id
        } else {
            let k = blk as usize;
            match (blocks.get(k), free_rot.get(k)) {
                (Some(block), Some(&(q_f, w_f))) if matches!(block.kind, DofKind::Free { .. }) => {
                    let x = &nu_move[block.offset..block.offset + 6];
                    let w = Vec3::new(x[3], x[4], x[5]);
                    let q1 = crate::pipeline::rotation::kick(&q_f, &(w - w_f), inp.h);
                    (st.x, Vec3::new(x[0], x[1], x[2]), w, q1 * st.q.inverse())
                }
                _ => id,
            }
        };
        pw.motion.push(m);
    }
}

/// The gap's terms beyond the linear one (003 eq. (6): the gap at the end of
/// the step "represented as its Taylor series expansion, which we truncate after
/// the linear term here (although truncation could be done after a high-order
/// term if desired)"), for potential contact `c` of bodies `ba`, `bb` at the
/// predicted motion (`PegWorkspace::motion`): δ = ψ⁺ − (ψ + h Gᵀν⁺), ψ⁺ the gap
/// of the contact's points carried rigidly to the end of the step, measured
/// along the normal carried by the body whose face (3D) or edge (2D, vertex–edge)
/// defines it, or by the mean of both rotations for edge–edge, vertex–edge and
/// vertex–vertex contacts in 3D. A predicted pass's rows add min(δ, 0) to ψ
/// (beside the start-of-step lead ℓ): at ν = ν⁺ the contact's points, carried
/// as the integrator carries them, end the step apart. Not the lead's bound
/// h²|ω⁺|²r at the predicted ω⁺, which pushes every contact of a spun-up body
/// apart by ℓ/h (1e-2 of its size at 15–38 rad/s, h = 1e-2: measured, it drives
/// both pours apart), and only the closing part of δ (δ in full let the next
/// steps' Lemke fail, `peg_large_step` at step 17; docs/EXPERIMENTS.md, peg13).
/// 0 when neither body rotates (the linear term is exact).
fn second_order_gap(pw: &PegWorkspace, c: &PotentialContact, ba: usize, bb: usize, h: f64) -> f64 {
    let (Some(&(xa, va, wa, ra)), Some(&(xb, vb, wb, rb))) = (pw.motion.get(ba), pw.motion.get(bb))
    else {
        return 0.0;
    };
    if ra == crate::math::Quat::identity() && rb == crate::math::Quat::identity() {
        // Translations only: the linear term is exact.
        return 0.0;
    }
    let pa1 = xa + h * va + ra * (c.p_a - xa);
    let pb1 = xb + h * vb + rb * (c.p_b - xb);
    let is_face = |f: Feature| matches!(f, Feature::Face(_));
    let is_edge = |f: Feature| matches!(f, Feature::Edge(_));
    let n1 = if is_face(c.feature_b)
        || (is_edge(c.feature_b) && !is_edge(c.feature_a) && c.normal.z == 0.0)
    {
        rb * c.normal
    } else if is_face(c.feature_a)
        || (is_edge(c.feature_a) && !is_edge(c.feature_b) && c.normal.z == 0.0)
    {
        ra * c.normal
    } else {
        let m = ra * c.normal + rb * c.normal;
        let l = m.norm();
        if l > 0.0 {
            m / l
        } else {
            c.normal
        }
    };
    // The rows' linear prediction at ν⁺: ψ + h n·(v_a + ω_a × r_a − v_b − ω_b × r_b).
    let lin = c.psi
        + h * c
            .normal
            .dot(&(va + wa.cross(&(c.p_a - xa)) - vb - wb.cross(&(c.p_b - xb))));
    let exact = n1.dot(&(pa1 - pb1));
    let d = exact - lin;
    if d.is_finite() {
        d
    } else {
        0.0
    }
}

/// ε_θ of a predicted pass (003 Sec. 4, eqs. (29)–(31): "a relaxed form of
/// inequality (28) to allow for possible rotation in a time step", ε_θ = sin θ):
/// θ the rotation the pair's moving bodies may make within the step at the
/// predicted |ω| (max of the start's and the passes' ν⁺, `w2_pred`),
/// h (|ω_a| + |ω_b|), at least the default's θ (`eps_theta0` = sin 5°) and at
/// most π/2. A body spun up within the step turns its features by h |ω⁺|: a
/// contact that becomes applicable only after that turn is not a potential
/// contact at the default 5° (module doc, "Predicted reach").
fn predicted_eps_theta(
    inp: &PegInput<'_>,
    pw: &PegWorkspace,
    a: usize,
    b: usize,
    eps_theta0: f64,
) -> f64 {
    if !PREDICTED_EPS_THETA {
        return eps_theta0;
    }
    let model = inp.model;
    // Static bodies have ω = 0 (their bound stays 0: `spun_up` grows free bodies'
    // only).
    let w = |g: usize| {
        let body = model.geoms[g].body;
        pw.w2_pred.get(body).copied().unwrap_or(0.0).sqrt()
    };
    let theta = inp.h * (w(a) + w(b));
    if !theta.is_finite() {
        return eps_theta0;
    }
    let theta0 = eps_theta0.asin();
    theta.clamp(theta0, std::f64::consts::FRAC_PI_2).sin()
}

/// The planar world's potential contacts of polygons `a`, `b` (eqs. (32)–(33),
/// `polygon::potential_contacts_2d`) into `pw.pc` as spatial contacts in the
/// plane z = z_c of the locked body's centre of mass (normals in the plane):
/// with z, rx and ry locked, a row's z and the points' z do not enter G ν.
/// `false` if a pose has left the plane (then the pair has no PEG rows).
fn planar_contacts(
    inp: &PegInput<'_>,
    a: usize,
    b: usize,
    params: &FeatureParams,
    pw: &mut PegWorkspace,
) -> bool {
    let (Some(Some(pa)), Some(Some(pb))) = (pw.polygon.get(a), pw.polygon.get(b)) else {
        return false;
    };
    let (Some(xa), Some(xb)) = (planar_pose(&inp.poses[a]), planar_pose(&inp.poses[b])) else {
        return false;
    };
    let ga = &inp.model.geoms[a];
    let locked_body = if inp.model.bodies[ga.body].lock.any() {
        ga.body
    } else {
        inp.model.geoms[b].body
    };
    let zc = inp.state[locked_body].x.z;
    potential_contacts_2d(pa, &xa, pb, &xb, params, &mut pw.scratch2, &mut pw.pc2);
    let f = |f: Feature2| match f {
        Feature2::Vertex(i) => Feature::Vertex(i),
        Feature2::Edge(i) => Feature::Edge(i),
    };
    pw.pc.clear();
    pw.pc
        .contacts
        .extend(pw.pc2.contacts.iter().map(|c| PotentialContact {
            feature_a: f(c.feature_a),
            feature_b: f(c.feature_b),
            p_a: Vec3::new(c.p_a.x, c.p_a.y, zc),
            p_b: Vec3::new(c.p_b.x, c.p_b.y, zc),
            normal: Vec3::new(c.normal.x, c.normal.y, 0.0),
            psi: c.psi,
            applicability: c.applicability,
        }));
    pw.pc.constraints.extend(pw.pc2.constraints.iter().cloned());
    pw.pc.members.extend_from_slice(&pw.pc2.members);
    true
}

/// The rows and constraints of one pair's potential contacts (in `ls.peg.pc`).
fn pair_rows(inp: &PegInput<'_>, pair: usize, a: usize, b: usize, ls: &mut LcpWorkspace) {
    let model = inp.model;
    let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
    let mat = Material::combine(&ga.material, &gb.material);
    let mu = mat.mu;
    let bodies = [ga.body, gb.body];
    let blocks = [ls.body_block[ga.body], ls.body_block[gb.body]];
    if blocks.iter().all(|&b| b == NO_BLOCK) {
        return;
    }
    let pc = std::mem::take(&mut ls.peg.pc);
    // The rotation's second-order reach within the step (module doc,
    // "Stabilization"): the rows aim at a gap of at least this.
    let lead: f64 = [(ga, 0usize), (gb, 1)]
        .iter()
        .filter(|(_, s)| blocks[*s] != NO_BLOCK)
        .map(|(g, _)| {
            let w = inp.state[g.body].w.norm_squared();
            inp.h * inp.h * w * (g.shape.size() + g.x_bg.translation.vector.norm())
        })
        .sum();
    let lead = if lead.is_finite() { lead } else { 0.0 };
    // `peg_signed_lead`: the first pass's rows take each contact's own signed
    // second-order term (below) instead of the pair's lead.
    let signed = ls.peg.signed_lead && !inp.predicted;
    let lead = if signed { 0.0 } else { lead };
    ls.peg.pair_eps[pair].1 = lead;
    // One row per potential contact.
    ls.peg.row_of.clear();
    for c in &pc.contacts {
        let row = ls.contacts.len() as u32;
        ls.peg.row_of.push(row);
        let mut side = [Side {
            block: NO_BLOCK,
            jac: 0,
        }; 2];
        let (t1, t2) = tangent_basis(&c.normal);
        for (sd, (&blk, (sign, p))) in blocks.iter().zip([(1.0, c.p_a), (-1.0, c.p_b)]).enumerate()
        {
            if blk == NO_BLOCK {
                continue;
            }
            let block = ls.blocks[blk as usize];
            let nd = block.ndof;
            let off = ls.jac.len();
            ls.jac.resize(off + 3 * nd, 0.0);
            ls.minv_jt.resize(off + 3 * nd, 0.0);
            for (r, u) in [c.normal, t1, t2].iter().enumerate() {
                point_row(
                    block.kind,
                    inp.state,
                    &p,
                    u,
                    sign,
                    &mut ls.jac[off + r * nd..off + (r + 1) * nd],
                );
                for i in 0..nd {
                    let mut acc = 0.0;
                    for j in 0..nd {
                        acc += ls.minv[block.minv + i * nd + j] * ls.jac[off + r * nd + j];
                    }
                    ls.minv_jt[off + r * nd + i] = acc;
                }
            }
            side[sd] = Side {
                block: blk,
                jac: off,
            };
        }
        ls.contacts.push(ContactRow {
            pair: NO_PAIR,
            slot: 0,
            p: 0.5 * (c.p_a + c.p_b),
            pf: 0.5 * (c.p_a + c.p_b),
            n: c.normal,
            t1,
            t2,
            // Friction only on force-carrying contacts (set below).
            mu: 0.0,
            depth: -c.psi,
            restitution: mat.restitution,
            bodies,
            side,
            limit: false,
        });
        // A predicted pass: the gap's second-order term where it closes the
        // gap (module doc, "Predicted reach").
        let second = if inp.predicted || signed {
            second_order_gap(&ls.peg, c, ga.body, gb.body, inp.h).min(0.0)
        } else {
            0.0
        };
        ls.peg.psi.push(c.psi - lead + second);
        let pen = if ls.peg.work_pen || ls.peg.work_clamp {
            row_penetration(inp, &ls.peg, c.normal, (a, c.p_a), (b, c.p_b))
        } else {
            f64::INFINITY
        };
        ls.peg.real_pen.push(pen);
        ls.peg
            .row_pen
            .push(if ls.peg.work_pen { pen } else { f64::INFINITY });
        ls.peg.force.push(NONE);
    }
    // Rows that are one row (module doc, "Equal rows").
    let size = pair_size(model, a, b);
    // The pair's relative rotation in the step, at least 1e-7 rad (what the step's
    // own impulses may add to a resting pair): two contacts on one plane whose
    // points lie d apart predict gaps that differ by at most d times it.
    let turn = inp.h
        * (inp.state[ga.body].w * f64::from(u8::from(blocks[0] != NO_BLOCK))
            - inp.state[gb.body].w * f64::from(u8::from(blocks[1] != NO_BLOCK)))
        .norm();
    let turn = if turn.is_finite() {
        turn.max(1e-7)
    } else {
        1.0
    };
    let pw = &mut ls.peg;
    pw.class.clear();
    for (i, c) in pc.contacts.iter().enumerate() {
        let rep = (0..i)
            .find(|&j| pw.class[j] == j as u32 && same_row(c, &pc.contacts[j], size, turn))
            .unwrap_or(i);
        pw.class.push(rep as u32);
    }
    pw.u_class.clear();
    pw.u_class.resize(pc.contacts.len(), false);
    let members = |r: &std::ops::Range<u32>| &pc.members[r.start as usize..r.end as usize];
    // A constraint all of whose contacts are the primary's row is U on it.
    for con in &pc.constraints {
        let cls = match con {
            Constraint::Unilateral { contact } => Some(pw.class[*contact as usize]),
            Constraint::Intercontact { primary, others } => {
                let cp = pw.class[*primary as usize];
                members(others)
                    .iter()
                    .all(|&m| pw.class[m as usize] == cp)
                    .then_some(cp)
            }
            Constraint::Cross { a: ca, b: cb } => {
                let mut all = members(ca).iter().chain(members(cb));
                let c0 = all.clone().next().map(|&m| pw.class[m as usize]);
                c0.filter(|&c0| all.all(|&m| pw.class[m as usize] == c0))
            }
        };
        if let Some(c) = cls {
            pw.u_class[c as usize] = true;
        }
    }
    // Force variables and constraints: one U per row, then the I and X
    // constraints that no U row implies.
    let make_force = |pw: &mut PegWorkspace, row: u32, primary: u32| {
        pw.force[row as usize] = pw.force_rows.len() as u32;
        pw.force_rows.push(row);
        pw.primary_of.push(primary);
    };
    for i in 0..pc.contacts.len() {
        if pw.u_class[i] {
            let row = pw.row_of[i];
            make_force(pw, row, NONE);
        }
    }
    let implied = |pw: &PegWorkspace, r: &std::ops::Range<u32>| {
        members(r)
            .iter()
            .any(|&m| pw.u_class[pw.class[m as usize] as usize])
    };
    for con in &pc.constraints {
        match con {
            Constraint::Unilateral { .. } => {}
            Constraint::Intercontact { primary, others } => {
                let cp = pw.class[*primary as usize];
                if pw.u_class[cp as usize] || implied(pw, others) {
                    continue;
                }
                let row = pw.row_of[*primary as usize];
                if pw.force[row as usize] != NONE {
                    continue;
                }
                let k = pw.constraints.len() as u32;
                make_force(pw, row, k);
                let start = pw.slack_rows.len() as u32;
                for &m in members(others) {
                    if pw.class[m as usize] != cp {
                        pw.slack_rows.push(pw.row_of[m as usize]);
                    }
                }
                pw.constraints.push(PegConstraint {
                    primary: row,
                    slacks: start..pw.slack_rows.len() as u32,
                });
            }
            Constraint::Cross { a: ca, b: cb } => {
                if implied(pw, ca) || implied(pw, cb) {
                    continue;
                }
                // The primary: the most applicable contact of C_a, then of C_b,
                // not already carrying a force (module doc).
                let mut best: Option<(u32, u32, f64)> = None;
                for r in [ca, cb] {
                    if best.is_some() {
                        break;
                    }
                    for &m in members(r) {
                        let row = pw.row_of[m as usize];
                        let ap = pc.contacts[m as usize].applicability;
                        if pw.force[row as usize] == NONE && best.is_none_or(|(_, _, b)| ap > b) {
                            best = Some((row, m, ap));
                        }
                    }
                }
                let (prow, pm) = match best {
                    Some((row, m, _)) => (row, m),
                    None => {
                        // Every contact of the X already carries a force (as
                        // the primaries of its two I sets): the X is left
                        // without an impulse of its own, or with
                        // `[lcp] peg_x_own_row` takes one on a copy of its
                        // most applicable contact's row (module doc, "X
                        // constraints carry a force"; eq. (43)'s G_nX p_X).
                        pw.x_shared += 1;
                        if pw.x_joined {
                            // `[lcp] peg_x_joined`: the X joins the force of
                            // its most applicable member (C_a first) that is an
                            // I or X primary (module doc, "Joined X").
                            let mut top: Option<(u32, f64)> = None;
                            for r in [ca, cb] {
                                if top.is_some() {
                                    break;
                                }
                                for &m in members(r) {
                                    let f = pw.force[pw.row_of[m as usize] as usize];
                                    let ap = pc.contacts[m as usize].applicability;
                                    if f != NONE
                                        && pw.primary_of[f as usize] != NONE
                                        && top.is_none_or(|(_, b)| ap > b)
                                    {
                                        top = Some((m, ap));
                                    }
                                }
                            }
                            let Some((m, _)) = top else {
                                continue;
                            };
                            let row = pw.row_of[m as usize];
                            let cp = pw.class[m as usize];
                            let start = pw.slack_rows.len() as u32;
                            for r in [ca, cb] {
                                for &o in members(r) {
                                    if pw.class[o as usize] != cp {
                                        pw.slack_rows.push(pw.row_of[o as usize]);
                                    }
                                }
                            }
                            pw.joined.push(JoinedX {
                                force: pw.force[row as usize],
                                primary: row,
                                slacks: start..pw.slack_rows.len() as u32,
                            });
                            pw.x_rows += 1;
                            continue;
                        }
                        if !pw.x_own_row {
                            continue;
                        }
                        let mut top: Option<(u32, f64)> = None;
                        for r in [ca, cb] {
                            if top.is_some() {
                                break;
                            }
                            for &m in members(r) {
                                let ap = pc.contacts[m as usize].applicability;
                                if top.is_none_or(|(_, b)| ap > b) {
                                    top = Some((m, ap));
                                }
                            }
                        }
                        let Some((m, _)) = top else {
                            continue;
                        };
                        let src = pw.row_of[m as usize] as usize;
                        let row = ls.contacts.len() as u32;
                        let copy = ContactRow {
                            mu,
                            ..ls.contacts[src]
                        };
                        ls.contacts.push(copy);
                        pw.psi.push(pw.psi[src]);
                        pw.real_pen.push(pw.real_pen[src]);
                        pw.row_pen.push(pw.row_pen[src]);
                        pw.force.push(NONE);
                        pw.x_rows += 1;
                        (row, m)
                    }
                };
                let cp = pw.class[pm as usize];
                let k = pw.constraints.len() as u32;
                make_force(pw, prow, k);
                let start = pw.slack_rows.len() as u32;
                for r in [ca, cb] {
                    for &m in members(r) {
                        if pw.class[m as usize] != cp {
                            pw.slack_rows.push(pw.row_of[m as usize]);
                        }
                    }
                }
                pw.constraints.push(PegConstraint {
                    primary: prow,
                    slacks: start..pw.slack_rows.len() as u32,
                });
            }
        }
    }
    for &row in &pw.row_of {
        if pw.force[row as usize] != NONE {
            ls.contacts[row as usize].mu = mu;
        }
    }
    ls.peg.pc = pc;
}

/// Whether two potential contacts give the same rows (module doc, "Equal
/// rows"): normals within 1e-10 and ψ within 1e-12 of the pair's size, and the
/// points on A and on B so close (d) that d times the pair's rotation in the step
/// (`turn`) is within 1e-12 of its size.
fn same_row(
    x: &crate::collision::features::PotentialContact,
    y: &crate::collision::features::PotentialContact,
    size: f64,
    turn: f64,
) -> bool {
    let size = size.max(1e-3);
    let d = 1e-12 * size / turn;
    (x.normal - y.normal).norm() <= 1e-10
        && (x.p_a - y.p_a).norm() <= d
        && (x.p_b - y.p_b).norm() <= d
        && (x.psi - y.psi).abs() <= 1e-12 * size
}

/// The real penetration of a potential contact between geoms `a` and `b` at the
/// step's start (`inp.poses`; the work check's bound on its depth, module doc,
/// "Work check"): the larger of its point on A's depth inside B and its point on
/// B's depth inside A. A point's depth is 0 outside the other polytope (behind
/// none of its face planes by more than 1e-9 of its radius: where the pair's
/// exact overlap is 0, so is this), else the distance it travels along its push
/// direction (+n for A's point, −n for B's) to leave it — the ray's exit, the
/// least of (d_f − n_f·p)/(n_f·u) over the faces it moves towards. Not the least
/// face-plane distance: a box resting aligned on another has its corners on the
/// lower box's side planes (distance 0) while they are 1e-5 m deep along n.
/// A planar pair leaves out the prisms' caps (normals along z: the rows act in
/// the plane). ∞ (no bound) for a plane pair (the half-space's own depth is the
/// row's) or a geom without a polytope.
fn row_penetration(
    inp: &PegInput<'_>,
    pw: &PegWorkspace,
    n: Vec3,
    (a, p_a): (usize, Vec3),
    (b, p_b): (usize, Vec3),
) -> f64 {
    let (Some(Some(ha)), Some(Some(hb))) = (pw.hull.get(a), pw.hull.get(b)) else {
        return f64::INFINITY;
    };
    let planar = planar_pair(inp.model, pw, a, b);
    let depth = |h: &ConvexPolytope, x: &crate::math::Pose, p: Vec3, u: Vec3| {
        let l = x.inverse_transform_point(&p.into()).coords;
        let ul = x.rotation.inverse_transform_vector(&u);
        let tol = 1e-9 * h.radius;
        let (mut inside, mut exit) = (true, f64::INFINITY);
        for f in h
            .faces
            .iter()
            .filter(|f| !(planar && f.normal.z.abs() > 0.5))
        {
            let d = f.offset - f.normal.dot(&l);
            inside &= d >= -tol;
            let un = f.normal.dot(&ul);
            if un > 1e-12 {
                exit = exit.min(d.max(0.0) / un);
            }
        }
        if inside && exit.is_finite() {
            exit
        } else {
            0.0
        }
    };
    depth(hb, &inp.poses[b], p_a, n).max(depth(ha, &inp.poses[a], p_b, -n))
}

/// Replaces the normal rows' constant of PEG rows by G ν_f + ψ/h (β = 1, no
/// allowance; module doc), or G ν_f + min(ψ/h, e G ν) at an impact (module
/// doc, "Restitution"), in `ls.qw` and in the sparse problem of the fallback
/// (where slack-only contacts are made inactive).
pub(super) fn peg_constants(p: &LcpParams, h: f64, ls: &mut LcpWorkspace) {
    let LcpWorkspace {
        blocks,
        nu,
        nu_f,
        contacts,
        jac,
        qw,
        sparse,
        peg,
        ..
    } = ls;
    for (ci, c) in contacts.iter().enumerate() {
        let psi = peg.psi[ci];
        if psi.is_nan() {
            continue;
        }
        let (mut gv, mut vn0) = (0.0, 0.0);
        for s in c.side.iter().filter(|s| s.block != NO_BLOCK) {
            let blk = blocks[s.block as usize];
            let nd = blk.ndof;
            let row = &jac[s.jac..s.jac + nd];
            let dot = |v: &[f64]| row.iter().zip(v).map(|(x, y)| x * y).sum::<f64>();
            gv += dot(&nu_f[blk.offset..blk.offset + nd]);
            vn0 += dot(&nu[blk.offset..blk.offset + nd]);
        }
        // Newton restitution (module doc, "Restitution"), as on the standard
        // rows: a contact approaching faster than the threshold whose free motion
        // closes its gap within the step leaves at −e times its approach.
        let mut s_n = psi / h;
        let impact = psi <= 0.0 || psi + h * gv < 0.0;
        if p.restitution && c.restitution > 0.0 && vn0 < -p.restitution_threshold && impact {
            s_n = s_n.min(c.restitution * vn0);
        }
        qw[3 * ci] = gv + s_n;
        // PGS fallback: force-carrying contacts are unilateral rows; the others
        // never act.
        sparse.q[3 * ci] = if peg.force[ci] == NONE {
            INACTIVE
        } else {
            qw[3 * ci]
        };
    }
}

/// W's columns PEG's LCP reads (module doc, "W's columns"; `delassus`,
/// "Columns read"): those of the force-carrying rows (every standard row, and
/// the PEG rows with a force variable), into `ls.w_cols`; all of them (empty)
/// under `[lcp] peg_block_gs` or `peg_active_set`, whose solves read the
/// sparse rows with impulses on slack rows too.
pub(super) fn read_columns(ls: &mut LcpWorkspace) {
    ls.w_cols.clear();
    if ls.peg.bgs_on || ls.peg.active_on || ls.peg.force.len() != ls.contacts.len() {
        return;
    }
    ls.w_cols.extend(ls.peg.force.iter().map(|&f| f != NONE));
}

/// The island's blocks in `ls.w` whose column is a row without a force
/// variable (left out of the sparse W, [`read_columns`]), computed as
/// `delassus` would have (`delassus::w_block`, the same bits): the general
/// form reads them (its λ on the slack rows).
fn slack_columns(ls: &mut LcpWorkspace) {
    if ls.w_cols.is_empty() {
        return;
    }
    for li in 0..ls.peg.isl_rows.len() {
        let r = ls.peg.isl_rows[li] as usize;
        for lj in 0..ls.peg.isl_rows.len() {
            let c = ls.peg.isl_rows[lj] as usize;
            if c == r || ls.w_cols.get(c).copied().unwrap_or(true) {
                continue;
            }
            let b = super::delassus::w_block(ls, r, c);
            for a in 0..3 {
                for e in 0..3 {
                    ls.w[(3 * li + a, 3 * lj + e)] = b[3 * a + e];
                }
            }
        }
    }
}

/// The constant of a slack-only contact's row in the PGS fallback (never active).
const INACTIVE: f64 = 1e20;

/// A refused pass's rows pushing only what overlaps (`[lcp] peg_work_clamp`,
/// peg34; module doc, "Work check"): each PEG row's ψ raised to −(its real
/// penetration at the step's start, [`row_penetration`]), so that a vertex
/// behind a face plane it is not over (its point outside the other polytope:
/// real penetration 0) asks only that its gap not close further, and a point
/// inside asks to be pushed out by its depth along the row's normal, not by
/// its distance to the row's plane. The rows, their sets and W are unchanged;
/// [`peg_constants`] is to be called again. Returns whether any ψ moved (if
/// none did, solving again gives the refused pass back).
pub(super) fn clamp_to_penetration(ls: &mut LcpWorkspace) -> bool {
    let pw = &mut ls.peg;
    let mut moved = false;
    for (psi, &pen) in pw.psi.iter_mut().zip(&pw.real_pen) {
        if !psi.is_nan() && *psi < -pen {
            *psi = -pen;
            moved = true;
        }
    }
    moved
}

/// Assembles and solves the PEG LCP (module doc) island by island (contacts
/// connected through moving bodies, `islands.rs`: the LCP is block-diagonal over
/// them, each block one smaller dense Lemke); impulses (p_n, f_t₁, f_t₂) per row
/// into `ls.impulse`.
pub(super) fn solve(p: &LcpParams, ls: &mut LcpWorkspace, stats: &mut StepStats) {
    let nc = ls.contacts.len();
    ls.impulse.clear();
    ls.impulse.resize(3 * nc, 0.0);
    ls.peg.gen_lambda.clear();
    ls.peg.gen_lambda.resize(nc, 0.0);
    stats.lcp_size = 0;
    stats.solver_iterations = 0;
    stats.solver_residual = 0.0;
    stats.solver_failed = false;
    stats.peg_relaxation = 0.0;
    if ls.peg.force_rows.is_empty() {
        return;
    }
    let k = p.friction_directions as usize;
    ls.dirs.clear();
    ls.dirs.extend((0..k).map(|j| {
        let (s, c) = (std::f64::consts::TAU * j as f64 / k as f64).sin_cos();
        (c, s)
    }));
    // The island of every row (`delassus` grouped the rows into islands).
    let nisl = ls.sparse.island_start.len().saturating_sub(1);
    {
        let pw = &mut ls.peg;
        pw.row_island.clear();
        pw.row_island.resize(nc, NONE);
        for s in 0..nisl {
            for &c in &ls.sparse.order[ls.sparse.island_start[s]..ls.sparse.island_start[s + 1]] {
                pw.row_island[c as usize] = s as u32;
            }
        }
        pw.cons_base.clear();
        pw.cons_base.resize(pw.constraints.len(), 0);
        pw.island_ok.clear();
        pw.isl_rows.clear();
        pw.local.clear();
        pw.local.resize(nc, NONE);
    }
    let (mut pivots, mut sweeps) = (0, 0);
    let (mut any_failed, mut unconverged) = (false, false);
    // A predicted pass has a pivot budget and no PGS: what it cannot solve by
    // Lemke within the budget discards it (module doc, "Predicted reach").
    let predicted = ls.peg.pivot_budget != usize::MAX;
    for s in 0..nisl {
        let pw = &mut ls.peg;
        pw.isl_force.clear();
        pw.isl_cons.clear();
        for (f, &r) in pw.force_rows.iter().enumerate() {
            if pw.row_island[r as usize] == s as u32 {
                pw.isl_force.push(f as u32);
            }
        }
        let mut base = 0;
        for (ci, con) in pw.constraints.iter().enumerate() {
            if pw.row_island[con.primary as usize] == s as u32 {
                pw.isl_cons.push(ci as u32);
                pw.cons_base[ci] = base;
                base += con.slacks.end - con.slacks.start;
            }
        }
        pw.isl_joined.clear();
        let mut nx = 0;
        for (ji, j) in pw.joined.iter().enumerate() {
            if pw.row_island[j.primary as usize] == s as u32 {
                pw.isl_joined.push(ji as u32);
                nx += (j.slacks.end - j.slacks.start) as usize + 1;
            }
        }
        if pw.isl_force.is_empty() {
            pw.island_ok.push(true);
            continue;
        }
        // Bounded work: an island past the size cap is not given to the dense
        // Lemke; the constraint PGS (`peg_pgs.rs`) solves PEG's LCP on it. The
        // joined X (module doc, "Joined X") are left out of an island they
        // would take over the cap, and out of every solver but the dense Lemke.
        let n0 = pw.isl_force.len() * (k + 2) + base as usize;
        if n0 + nx > PEG_MAX_LCP {
            pw.isl_joined.clear();
            nx = 0;
        }
        let n = n0 + nx;
        stats.lcp_size = stats.lcp_size.max(n);
        if n > PEG_MAX_LCP {
            if predicted {
                ls.peg.island_ok.push(false);
                any_failed = true;
                continue;
            }
            if !ls.peg.cap_reported {
                ls.peg.cap_reported = true;
                diag::emit(diag::Output::Stderr(format!(
                    "rtphys: PEG island of {n} LCP variables (cap PEG_MAX_LCP = {PEG_MAX_LCP}) \
                     solved by the constraint PGS (peg_pgs.rs; with `[lcp] peg_block_gs = true` by block \
                     Gauss–Seidel over its two-body groups first, peg_bgs.rs); unconverged \
                     solves are counted in solver_unconverged\n"
                )));
            }
            // Block Gauss–Seidel over the island's two-body groups, each by
            // Lemke (`peg_bgs.rs`; opt-in, ``[lcp] peg_block_gs = true``); off or not
            // applicable (one group, or a group over the cap): the constraint PGS.
            let b = if ls.peg.bgs_on {
                bgs::solve_island(p, s, ls, stats)
            } else {
                bgs::BgsOutcome::default()
            };
            let (mut res, mut conv) = (b.residual, b.converged);
            if b.applied {
                sweeps += b.sweeps + b.sweeps_pgs;
                pivots += b.pivots;
            }
            if !conv {
                // The constraint PGS (from the block sweeps' best iterate if they
                // ran: it returns its own best, never above where it started).
                let (it, r, c) = pgs::solve_island(p, s, ls);
                sweeps += it;
                (res, conv) = (r, c);
            }
            if !conv && ls.peg.active_on {
                // Unconverged: Lemke on the island's active set at the PGS
                // iterate (`peg_bgs::solve_island_active`, peg12); accepted, it
                // solves the island's whole LCP, else the PGS iterate is kept.
                let (ok, piv) = bgs::solve_island_active(p, ls, stats);
                pivots += piv;
                if ok {
                    conv = true;
                    res = pgs::residual(&ls.sparse, ls.qw.as_slice(), &ls.impulse, &ls.peg);
                }
            }
            if !conv && ls.peg.dump_overcap && ls.peg.dump_dir.is_some() {
                // Diagnostic (off by default, allocates): the island's dense LCP
                // to a file for the jam check (`tests/data/peg_lcp/`, peg18).
                island_w(ls);
                assemble(ls, base as usize, false);
                scale(ls);
                dump::maybe_dump(ls);
            }
            stats.solver_residual = stats.solver_residual.max(res);
            unconverged |= !conv;
            if tracing(&ls.peg) {
                let _ = write!(ls.peg.tr_log, " |I{s} PGS[n{n} r{res:.1e} conv {conv}]");
            }
            ls.peg.island_ok.push(true);
            continue;
        }
        if tracing(&ls.peg) {
            let _ = write!(ls.peg.tr_log, " |I{s}");
        }
        let (ok, piv) = solve_island(p, base as usize, ls, stats);
        pivots += piv;
        if predicted {
            ls.peg.pivot_budget = ls.peg.pivot_budget.saturating_sub(piv);
        }
        let mut ok = ok;
        if !ok && !predicted {
            // Block Gauss–Seidel over the island's two-body groups
            // (`peg_bgs.rs`; opt-in, ``[lcp] peg_block_gs = true``); an island of one
            // group is the same Lemke again. Its groups hold no joined X.
            let b = if ls.peg.bgs_on {
                ls.peg.isl_joined.clear();
                bgs::solve_island(p, s, ls, stats)
            } else {
                bgs::BgsOutcome::default()
            };
            sweeps += b.sweeps + b.sweeps_pgs;
            pivots += b.pivots;
            if b.applied && b.converged {
                ls.peg.island_ok.push(true);
                continue;
            }
            if b.applied {
                // The island's LCP again in `ls.problem` for the warm Lemke below.
                island_w(ls);
                assemble(ls, base as usize, false);
                scale(ls);
            }
            // The constraint PGS on PEG's own LCP of the island (from the block
            // Gauss–Seidel's best iterate if it ran, else 0: `read` only
            // writes a solve),
            // then Lemke once more
            // from the active set of its solution ("Solver" in the module doc);
            // if that is not accepted either, the PGS solution is kept: a
            // counted failure and fallback.
            let (it, res, conv) = pgs::solve_island(p, s, ls);
            sweeps += it;
            if tracing(&ls.peg) {
                let _ = write!(ls.peg.tr_log, " P[r{res:.1e} conv {conv}]");
            }
            let (ok2, piv2) = lemke_from_impulses(p, ls, stats);
            pivots += piv2;
            ok = ok2;
            if !ok && ls.peg.gen_on {
                // 003's general |Cι| > 1 form: forces on any member of a set
                // ([`general`]; most of these LCPs have a rigid motion that only
                // pushes on the non-primary members reach, peg10).
                if tracing(&ls.peg) {
                    ls.peg.tr_log.push_str(" G:");
                }
                let (okg, pivg) = general(p, (base as usize, PEG_MAX_LCP), ls, stats);
                pivots += pivg;
                ok = okg;
                if !ok && ls.peg.el_on {
                    // The single-primary LCP again for the relaxation.
                    assemble(ls, base as usize, false);
                    scale(ls);
                }
            }
            if !ok && ls.peg.el_on {
                // The LCP has no solution Lemke finds (most of these have none,
                // docs/EXPERIMENTS.md peg9/peg10): the elastic relaxation, each
                // force row's rate relaxed by the least t along Lemke's path
                // ([`elastic`]).
                let (ok3, piv3) = elastic(p, ls, stats);
                pivots += piv3;
                ok = ok3;
            }
            if !ok {
                stats.solver_residual = stats.solver_residual.max(res);
                unconverged |= !conv;
                any_failed = true;
                ls.peg.island_ok.push(true);
                continue;
            }
        }
        any_failed |= !ok;
        ls.peg.island_ok.push(ok);
    }
    stats.solver_iterations = pivots + sweeps;
    if any_failed {
        stats.solver_failed = true;
        stats.solver_failures += 1;
        if !predicted {
            stats.solver_fallbacks += 1;
        }
    }
    if unconverged {
        stats.solver_failed = true;
        stats.solver_unconverged += 1;
    }
    if !ls.impulse.iter().all(|x| x.is_finite()) {
        ls.impulse.iter_mut().for_each(|x| *x = 0.0);
    }
}

/// Lemke on the island in `ls.peg.isl_force` / `isl_cons` (`ns` slacks): whether
/// it solved (impulses read into `ls.impulse`) and the pivots spent.
fn solve_island(
    p: &LcpParams,
    ns: usize,
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) -> (bool, usize) {
    island_w(ls);
    assemble(ls, ns, false);
    let q_max = scale(ls);
    stats.lcp_size = stats.lcp_size.max(ls.problem.q.len());
    ladder(p, ls, stats, q_max, true)
}

/// Lemke on the scaled LCP in `ls.problem` (of the island or group in
/// `ls.peg.isl_force` / `isl_cons`; ‖q′‖∞ = `q_max`) with the ladder of zero
/// tolerances: whether it solved (impulses read into `ls.impulse`) and the
/// pivots spent.
fn ladder(
    p: &LcpParams,
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
    q_max: f64,
    dump: bool,
) -> (bool, usize) {
    // Lemke with a ladder of zero-pivot tolerances (relative to the scaled
    // matrix's unit entries): the slack rows hold differences of W's rows (eq. (42)),
    // which cancel to round-off for contacts of one feature, and a round-off pivot
    // ends the path on a ray or in a "solution" with a large residual. 1e-7 first
    // (at the standard rows' 1e-9, 1,219 of 2,000 steps of the parallel ridges
    // failed; at 1e-7 none), then the others; the first accepted solution is kept.
    let mut pivots = 0;
    let accept = PEG_ACCEPT * q_max.max(1.0);
    let n = ls.problem.q.len();
    // The restarts' covering vector sized with every LCP the ladder sees (O(n)),
    // so that its storage is grown during warm-up, not at the first ray after it
    // (`tests/peg_block_alloc.rs` found that allocation).
    resize_zeroed(&mut ls.peg.cover, n);
    ls.peg.el_start.resize(n, false);
    let limit = pivot_limit(p, n);
    for tol in PEG_ZERO_TOLS {
        // A predicted pass's attempts share its budget ("Predicted reach").
        let left = ls.peg.pivot_budget.saturating_sub(pivots);
        if left == 0 {
            break;
        }
        ls.lemke.params = LemkeParams {
            max_pivots: Some(limit.min(left)),
            zero_tol: tol,
            ..LemkeParams::default()
        };
        let status = ls.lemke.solve(&ls.problem, None, &mut ls.lemke_res);
        let st = ls.lemke_res.stats;
        pivots += st.pivots + st.setup_pivots;
        stats.solver_residual = stats.solver_residual.max(st.residual);
        // Bounded, as the restarts' solutions below (peg10): on 32 of 80 dumped 2D
        // failures a d = 1 attempt "solved" to the residual with ‖z′‖∞ ≈ 3e9–7e9,
        // a point far out on a ray of internal forces, not an impulse.
        let zmax = ls.lemke_res.z.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let ok = status == LemkeStatus::Solved
            && st.residual.is_finite()
            && st.residual <= accept
            && zmax <= PEG_Z_BOUND * q_max.max(1.0);
        tr_attempt(ls, ('L', tol), q_max, status, ok);
        if ok {
            read(ls);
            return (true, pivots);
        }
    }
    // Every attempt failed (not a predicted pass's spent budget): the LCP to a
    // file if `RTPHYS_PEG_LCP_DUMP` is set.
    if dump && ls.peg.dump_dir.is_some() && ls.peg.pivot_budget == usize::MAX {
        dump::maybe_dump(ls);
    }
    // Restarts on the ray with other covering vectors (Lemke's w = q + M z + d z₀),
    // one attempt each at the first zero tolerance: (1) the violated rows',
    // d_i = max(−q′_i, 0) + 1e-2 max(1, ‖q′‖∞) — the artificial z₀ then covers the
    // violated rates in proportion instead of every row alike; (2) a fixed
    // low-discrepancy d_i = 0.5 + frac((i + 1) φ⁻¹) ∈ [0.5, 1.5). Measured on the
    // dumped failures (`tests/peg_lcp_survey.rs`, docs/EXPERIMENTS.md peg9): (1)
    // solves the 2D LCPs that have a bounded solution (16 of 80 2D dumps; 2 of the 5
    // committed, whose other three have none or are undecided), (2) adds one 3D
    // group (n = 214) that (1) misses. A solution must also be bounded,
    // ‖z′‖∞ ≤ `PEG_Z_BOUND` max(1, ‖q′‖∞): far out on a ray of internal (jamming)
    // forces the residual is small while z is not an impulse.
    let floor = 1e-2 * q_max.max(1.0);
    for restart in 0..2 {
        let left = ls.peg.pivot_budget.saturating_sub(pivots);
        if left == 0 {
            return (false, pivots);
        }
        let mut d = std::mem::take(&mut ls.peg.cover);
        resize_zeroed(&mut d, n);
        for (i, (di, &qi)) in d.iter_mut().zip(ls.problem.q.iter()).enumerate() {
            *di = if restart == 0 {
                (-qi).max(0.0) + floor
            } else {
                0.5 + ((i as f64 + 1.0) * 0.618_033_988_749_895).fract()
            };
        }
        ls.lemke.params = LemkeParams {
            max_pivots: Some(limit.min(left)),
            zero_tol: PEG_ZERO_TOLS[0],
            covering: Some(d),
            ..LemkeParams::default()
        };
        let status = ls.lemke.solve(&ls.problem, None, &mut ls.lemke_res);
        ls.peg.cover = ls.lemke.params.covering.take().unwrap_or_default();
        let st = ls.lemke_res.stats;
        pivots += st.pivots + st.setup_pivots;
        stats.solver_residual = stats.solver_residual.max(st.residual);
        let zmax = ls.lemke_res.z.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let ok = status == LemkeStatus::Solved
            && st.residual.is_finite()
            && st.residual <= accept
            && zmax <= PEG_Z_BOUND * q_max.max(1.0);
        tr_attempt(ls, ('R', restart as f64), q_max, status, ok);
        if ok {
            read(ls);
            return (true, pivots);
        }
    }
    (false, pivots)
}

/// 003's general |Cι| > 1 form of the island (`ns` slacks; module doc, "General
/// form"): assembled over z = (p | β | σ | c | λ) and scaled into `ls.problem`,
/// solved by [`ladder`] (d = 1 at the four zero tolerances, then the two
/// covering-vector restarts; accepted as there, residual and bounded z). Islands
/// without an I/X set (nothing to generalize) or whose general LCP exceeds
/// [`PEG_MAX_LCP`] are not tried. Whether it solved (p, β into the force rows and
/// each λ_s into its member's row of `ls.impulse`, counted in
/// `StepStats::peg_general`) and the pivots.
fn general(
    p: &LcpParams,
    (ns, cap): (usize, usize),
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) -> (bool, usize) {
    let nf = ls.peg.isl_force.len();
    let ic = nf * (ls.dirs.len() + 2);
    if ns == 0 || ic + 2 * ns > cap {
        return (false, 0);
    }
    slack_columns(ls);
    assemble(ls, ns, true);
    let q_max = scale(ls);
    let (ok, pivots) = ladder(p, ls, stats, q_max, false);
    if ok {
        // `ladder`'s `read` wrote p and β; the members' normal impulses are added
        // (a member's row may carry another force variable too).
        let il = ic + ns;
        let LcpWorkspace {
            peg,
            impulse,
            lemke_res,
            lcp_scale,
            ..
        } = ls;
        for &ci in &peg.isl_cons {
            let con = &peg.constraints[ci as usize];
            let base = il + peg.cons_base[ci as usize] as usize;
            for (t, sl) in con.slacks.clone().enumerate() {
                let row = peg.slack_rows[sl as usize] as usize;
                let lam = (lcp_scale[base + t] * lemke_res.z[base + t]).max(0.0);
                impulse[3 * row] += lam;
                // Kept per row: a block Gauss–Seidel sweep takes a group's λ
                // out before solving the group again (`peg_bgs.rs`).
                if let Some(l) = peg.gen_lambda.get_mut(row) {
                    *l += lam;
                }
            }
        }
        stats.peg_general += 1;
    }
    (ok, pivots)
}

/// The elastic relaxation of the island's scaled LCP in `ls.problem` (issue 12,
/// peg10): LCP(M, q + t d) with d = 1 on the force rows' normal rows (p) — since
/// peg11 only those violated at zero impulse, q′_f < 0 (`ELASTIC_JAMMED_ROWS`) — and 0
/// on every other row (friction, σ, slacks), the least t ≥ 0 on Lemke's path
/// from the start of [`elastic_start`] (`LemkeSolver::solve_elastic`): each
/// force row may end the step t short of its target rate (scaled units: a rate
/// t √W_nn, i.e. ½ t² of kinetic energy per row) while friction, the cone and
/// the running maxima of the I/X chains hold exactly. Accepted if the relaxed
/// LCP's residual passes `PEG_ACCEPT` and ‖z′‖∞ ≤ `PEG_Z_BOUND` max(1, ‖q′‖∞);
/// counted in `StepStats::peg_relaxed` (t in `peg_relaxation`). Whether it was
/// accepted (impulses read into `ls.impulse`) and the pivots.
fn elastic(p: &LcpParams, ls: &mut LcpWorkspace, stats: &mut StepStats) -> (bool, usize) {
    let n = ls.problem.q.len();
    let (nf, k) = (ls.peg.isl_force.len(), ls.dirs.len());
    let mut start = std::mem::take(&mut ls.peg.el_start);
    let mut d = std::mem::take(&mut ls.peg.cover);
    let fits = elastic_start(&ls.problem.m, &ls.problem.q, nf, k, &mut start, &mut d);
    if ELASTIC_JAMMED_ROWS && fits {
        // Only the rows violated at zero impulse give (peg11): the start stays
        // feasible for t ≥ t₀ (a satisfied row with no impulse holds for any t).
        for f in 0..nf {
            if ls.problem.q[f] >= 0.0 {
                d[f] = 0.0;
            }
        }
    }
    let q_max = ls.problem.q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let limit = pivot_limit(p, n);
    ls.lemke.params = LemkeParams {
        max_pivots: Some(limit),
        zero_tol: PEG_ZERO_TOLS[0],
        ..LemkeParams::default()
    };
    let (_, t) = if fits {
        ls.lemke.solve_elastic(
            &ls.problem,
            &d,
            &start,
            PEG_Z_BOUND * q_max.max(1.0),
            &mut ls.lemke_res,
        )
    } else {
        (LemkeStatus::InvalidProblem, f64::INFINITY)
    };
    ls.peg.el_start = start;
    ls.peg.cover = d;
    let st = ls.lemke_res.stats;
    let pivots = st.pivots + st.setup_pivots;
    if t.is_finite() && st.residual.is_finite() && st.residual <= PEG_ACCEPT * q_max.max(1.0) {
        read(ls);
        stats.peg_relaxed += 1;
        stats.peg_relaxation = stats.peg_relaxation.max(t);
        return (true, pivots);
    }
    stats.solver_residual = stats.solver_residual.max(st.residual);
    (false, pivots)
}

/// The elastic relaxation's d on the force rows violated at zero impulse only
/// (q′_f < 0; peg11) instead of every force row (peg10's uniform t). Measured
/// on the dumps (`peg_lcp_survey::elastic_on_the_jammed_rows_only`): fewer rows
/// end short (625 against 801 over peg9's 80 2D dumps; n56: only its row 7, by
/// 1.449, the L1 program's answer), by a larger t on some (up to 15.8 against
/// 7.2 on the interlocked groups).
const ELASTIC_JAMMED_ROWS: bool = true;

/// The start of the elastic relaxation ([`elastic`]) for a scaled PEG LCP over
/// z = (p | β | σ | c) of `nf` force rows and `k` directions (the layout of
/// `assemble`): d = 1 on the p rows, 0 elsewhere; the complementary basis of
/// the point with no impulse, feasible for all t ≥ t₀ — per force row whose
/// friction rows have q_βl < 0, σ = max_l(−q_βl) and β of that l basic (at 0: the
/// cone row μp − Σβ = 0 is its row); per slack, c_s basic where the running
/// maximum needs it (c_s = max(0, −(q_s + Σ_{u<s} M_su c_u)) / M_ss, the chain's
/// lower-triangular block by forward substitution). False if the layout does
/// not fit. Allocation-free once `start` and `d` have n entries.
#[allow(clippy::needless_range_loop)] // the forward substitution indexes M, q, d by (s, u)
pub fn elastic_start(
    m: &nalgebra::DMatrix<f64>,
    q: &DVector<f64>,
    nf: usize,
    k: usize,
    start: &mut Vec<bool>,
    d: &mut DVector<f64>,
) -> bool {
    let n = q.len();
    let (ib, is, ic) = (nf, nf + nf * k, nf * (k + 2));
    if m.shape() != (n, n) || ic > n || k == 0 {
        return false;
    }
    start.clear();
    start.resize(n, false);
    resize_zeroed(d, n);
    d.fill(0.0);
    for f in 0..nf {
        d[f] = 1.0;
        let mut worst: Option<(usize, f64)> = None;
        for l in 0..k {
            let v = -q[ib + f * k + l];
            if v > 0.0 && worst.is_none_or(|(_, w)| v > w) {
                worst = Some((l, v));
            }
        }
        if let Some((l, _)) = worst {
            start[is + f] = true;
            start[ib + f * k + l] = true;
        }
    }
    // The slacks' values, kept in d's slack entries meanwhile (zeroed after).
    for s in ic..n {
        let mut v = q[s];
        for u in ic..s {
            v += m[(s, u)] * d[u];
        }
        let mss = m[(s, s)];
        let c = if mss > 0.0 { (-v).max(0.0) / mss } else { 0.0 };
        d[s] = c;
        start[s] = c > 0.0;
    }
    d.rows_mut(ic, n - ic).fill(0.0);
    true
}

/// Largest ‖z′‖∞ of a solution of the scaled PEG LCP accepted from the ray
/// restarts of [`ladder`], relative to max(1, ‖q′‖∞): on the scaled LCP (unit
/// normal diagonal) ‖q′‖∞ is the largest rate a solution undoes; the bounded
/// solutions of the dumped LCPs have ‖z′‖∞ ≤ 8 ‖q′‖∞ and the ray points that
/// pass the residual test ≈ 1e8 ‖q′‖∞ (`tests/peg_lcp_survey.rs`).
const PEG_Z_BOUND: f64 = 1e4;

/// Lemke on the island's LCP still in `ls.problem` (assembled and scaled by
/// [`solve_island`]) warm-started from the active set of the impulses in
/// `ls.impulse` (the constraint PGS's solution): p and β of every force row
/// (f_t split between the two bracketing directions), σ where f_t is on the
/// cone, and each slack c_s = max(0, g_s − max(g_ι, g_t<s)) from the predicted
/// gaps (the running maximum of the chain). One attempt at the first zero
/// tolerance of the ladder and its pivot limit; accepted as Lemke's own
/// solutions are. Whether it solved (impulses read) and the pivots.
fn lemke_from_impulses(
    p: &LcpParams,
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) -> (bool, usize) {
    let n = ls.problem.q.len();
    let nf = ls.peg.isl_force.len();
    let k = ls.dirs.len();
    let (ib, is, ic) = (nf, nf + nf * k, nf * (k + 2));
    resize_zeroed(&mut ls.guess, n);
    for (f, &fg) in ls.peg.isl_force.iter().enumerate() {
        let rf = ls.peg.force_rows[fg as usize] as usize;
        let (pn, f1, f2) = (
            ls.impulse[3 * rf],
            ls.impulse[3 * rf + 1],
            ls.impulse[3 * rf + 2],
        );
        if pn.is_nan() || pn <= 0.0 {
            continue;
        }
        ls.guess[f] = pn / ls.lcp_scale[f];
        if let Some((j, b)) = super::warm::bracket(f1, f2, &ls.dirs) {
            for (l, bl) in [j, (j + 1) % k].into_iter().zip(b) {
                let i = ib + f * k + l;
                ls.guess[i] = bl.max(0.0) / ls.lcp_scale[i];
            }
            if b[0].max(0.0) + b[1].max(0.0) >= (1.0 - 1e-6) * ls.contacts[rf].mu * pn {
                ls.guess[is + f] = 1.0;
            }
        }
    }
    {
        let LcpWorkspace {
            sparse,
            qw,
            impulse,
            peg,
            guess,
            lcp_scale,
            ..
        } = ls;
        for &ci in &peg.isl_cons {
            let con = &peg.constraints[ci as usize];
            let base = ic + peg.cons_base[ci as usize] as usize;
            let mut run = pgs::normal_rate(sparse, qw.as_slice(), impulse, con.primary as usize);
            for (t, sl) in con.slacks.clone().enumerate() {
                let j = peg.slack_rows[sl as usize] as usize;
                let g = pgs::normal_rate(sparse, qw.as_slice(), impulse, j);
                let c = (g - run).max(0.0);
                run = run.max(g);
                guess[base + t] = c / lcp_scale[base + t];
            }
        }
    }
    if !ls.guess.iter().all(|x| x.is_finite()) {
        return (false, 0);
    }
    let limit = pivot_limit(p, n);
    ls.lemke.params = LemkeParams {
        max_pivots: Some(limit),
        zero_tol: PEG_ZERO_TOLS[0],
        ..LemkeParams::default()
    };
    let q_max = ls.problem.q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let status = ls
        .lemke
        .solve(&ls.problem, Some(&ls.guess), &mut ls.lemke_res);
    let st = ls.lemke_res.stats;
    stats.solver_residual = stats.solver_residual.max(st.residual);
    let pivots = st.pivots + st.setup_pivots;
    let ok = status == LemkeStatus::Solved
        && st.residual.is_finite()
        && st.residual <= PEG_ACCEPT * q_max.max(1.0);
    tr_attempt(ls, ('W', 0.0), q_max, status, ok);
    if ok {
        read(ls);
        return (true, pivots);
    }
    (false, pivots)
}

/// Whether this step's passes are traced (`RTPHYS_PEG_PASS_TRACE`, [`trace_pass`]).
fn tracing(pw: &PegWorkspace) -> bool {
    pw.step_no >= pw.pass_trace.0 && pw.step_no <= pw.pass_trace.1
}

/// One Lemke attempt of the pass into its trace log (only when [`tracing`]):
/// the rung (`L` tolerance, `R` restart, `W` warm from the PGS, `E` elastic,
/// `P` constraint PGS), n, ‖q′‖∞, the end, ‖min(z′, w′)‖∞, ‖z′‖∞, the
/// complementarity gap Σ max(z′ᵢ w′ᵢ, 0) (energy units), accepted.
fn tr_attempt(ls: &mut LcpWorkspace, tag: (char, f64), q_max: f64, status: LemkeStatus, ok: bool) {
    if !tracing(&ls.peg) {
        return;
    }
    let (z, w) = (&ls.lemke_res.z, &ls.lemke_res.w);
    let zmax = z.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let zw: f64 = z.iter().zip(w.iter()).map(|(a, b)| (a * b).max(0.0)).sum();
    let _ = write!(
        ls.peg.tr_log,
        " {}{:.0e}[n{} q{:.1e} {:?} r{:.1e} z{:.1e} zw{:.1e}{}]",
        tag.0,
        tag.1,
        z.len(),
        q_max,
        status,
        ls.lemke_res.stats.residual,
        zmax,
        zw,
        if ok { " OK" } else { "" }
    );
}

/// The island's dense W (3 rows per contact) over the rows its LCP reads — its
/// force rows and its constraints' slack rows (`isl_rows`, indexed through
/// `local`) — scattered from the block-sparse W of `delassus` into `ls.w`. Per
/// island, not over every row of the step: the work and memory are Σ islandᵢ²
/// (and Lemke's Σ islandᵢ³), not (Σ rows)², and an island is bounded by
/// [`PEG_MAX_LCP`]. The entries are the blocks' own, so the LCP is the one the
/// dense W over every row gave, bit for bit.
fn island_w(ls: &mut LcpWorkspace) {
    let LcpWorkspace {
        w, sparse: sp, peg, ..
    } = ls;
    for &r in &peg.isl_rows {
        peg.local[r as usize] = NONE;
    }
    peg.isl_rows.clear();
    for &f in &peg.isl_force {
        let r = peg.force_rows[f as usize];
        if peg.local[r as usize] == NONE {
            peg.local[r as usize] = peg.isl_rows.len() as u32;
            peg.isl_rows.push(r);
        }
    }
    for &ci in &peg.isl_cons {
        for s in peg.constraints[ci as usize].slacks.clone() {
            let r = peg.slack_rows[s as usize];
            if peg.local[r as usize] == NONE {
                peg.local[r as usize] = peg.isl_rows.len() as u32;
                peg.isl_rows.push(r);
            }
        }
    }
    for &ji in &peg.isl_joined {
        for s in peg.joined[ji as usize].slacks.clone() {
            let r = peg.slack_rows[s as usize];
            if peg.local[r as usize] == NONE {
                peg.local[r as usize] = peg.isl_rows.len() as u32;
                peg.isl_rows.push(r);
            }
        }
    }
    let nr = peg.isl_rows.len();
    reshape_zeroed(w, 3 * nr, 3 * nr);
    for (li, &r) in peg.isl_rows.iter().enumerate() {
        let r = r as usize;
        for k in sp.row_start[r]..sp.row_start[r + 1] {
            let lj = peg.local[sp.col[k] as usize];
            if lj == NONE {
                continue;
            }
            let lj = lj as usize;
            for a in 0..3 {
                for b in 0..3 {
                    w[(3 * li + a, 3 * lj + b)] = sp.w[k][3 * a + b];
                }
            }
        }
    }
}

/// The dense LCP of one island over z = (p | β | σ | c) (module doc; its force
/// variables `isl_force`, its constraints' `ns` slacks) into `ls.problem`; with
/// `general`, 003's general |Cι| > 1 form over z = (p | β | σ | c | λ) (module
/// doc, "General form"): one more force λ per slack member, in slack order.
fn assemble(ls: &mut LcpWorkspace, ns: usize, general: bool) {
    let nf = ls.peg.isl_force.len();
    let k = ls.dirs.len();
    let (ib, is, ic) = (nf, nf + nf * k, nf * (k + 2));
    // The joined X (module doc, "Joined X"): each one's chain and one d, after
    // the constraints' slacks; not in the general form.
    let nj = if general {
        0
    } else {
        let pw = &ls.peg;
        pw.isl_joined
            .iter()
            .map(|&j| {
                let sl = &pw.joined[j as usize].slacks;
                (sl.end - sl.start) as usize + 1
            })
            .sum()
    };
    ls.peg.assembled_general = general;
    let n = ic + ns + if general { ns } else { nj };
    let il = ic + ns;
    reshape_zeroed(&mut ls.problem.m, n, n);
    resize_zeroed(&mut ls.problem.q, n);
    let LcpWorkspace {
        problem,
        w,
        qw,
        dirs,
        peg,
        contacts,
        ..
    } = ls;
    let (m, q) = (&mut problem.m, &mut problem.q);
    let forces = &peg.isl_force;
    // Row index into the island's W (`island_w`).
    let lr = |row: usize| peg.local[row] as usize;
    // Adds α·g_i (the predicted gap of row i over h, linear in p and β) into row
    // `r` of the problem.
    let add_gap = |m: &mut nalgebra::DMatrix<f64>,
                   q: &mut nalgebra::DVector<f64>,
                   r: usize,
                   i: usize,
                   alpha: f64| {
        for (j, &fj) in forces.iter().enumerate() {
            let (li, rj) = (lr(i), lr(peg.force_rows[fj as usize] as usize));
            m[(r, j)] += alpha * w[(3 * li, 3 * rj)];
            for (l, &(cl, sl)) in dirs.iter().enumerate() {
                m[(r, ib + j * k + l)] +=
                    alpha * (cl * w[(3 * li, 3 * rj + 1)] + sl * w[(3 * li, 3 * rj + 2)]);
            }
        }
        q[r] += alpha * qw[3 * i];
    };
    for (f, &fg) in forces.iter().enumerate() {
        let rf = peg.force_rows[fg as usize] as usize;
        // Normal row: g_f (+ Σ c of its constraint).
        add_gap(m, q, f, rf, 1.0);
        let con = peg.primary_of[fg as usize];
        if con != NONE {
            let c = &peg.constraints[con as usize];
            let base = ic + peg.cons_base[con as usize] as usize;
            for t in 0..(c.slacks.end - c.slacks.start) as usize {
                m[(f, base + t)] = 1.0;
            }
        }
        // Friction rows (as the standard model's).
        for (l, &(cl, sl)) in dirs.iter().enumerate() {
            let r = ib + f * k + l;
            for (j, &fj) in forces.iter().enumerate() {
                let (lf, lj) = (lr(rf), lr(peg.force_rows[fj as usize] as usize));
                let wt = |x: usize, y: usize| w[(3 * lf + x, 3 * lj + y)];
                m[(r, j)] = cl * wt(1, 0) + sl * wt(2, 0);
                for (i2, &(ci, si)) in dirs.iter().enumerate() {
                    m[(r, ib + j * k + i2)] =
                        cl * (wt(1, 1) * ci + wt(1, 2) * si) + sl * (wt(2, 1) * ci + wt(2, 2) * si);
                }
            }
            m[(r, is + f)] = 1.0;
            m[(is + f, r)] = -1.0;
            q[r] = cl * qw[3 * rf + 1] + sl * qw[3 * rf + 2];
        }
        m[(is + f, f)] = contacts[rf].mu;
    }
    if general {
        // The members' forces λ in every gap and friction row: column λ_s is
        // member s's normal, G_sᵀ M⁻¹ G_s' (normal and tangents of the row).
        for &ci in &peg.isl_cons {
            let con = &peg.constraints[ci as usize];
            let base = il + peg.cons_base[ci as usize] as usize;
            for (t, sl) in con.slacks.clone().enumerate() {
                let ls_ = lr(peg.slack_rows[sl as usize] as usize);
                let col = base + t;
                for (f, &fg) in forces.iter().enumerate() {
                    let lf = lr(peg.force_rows[fg as usize] as usize);
                    m[(f, col)] += w[(3 * lf, 3 * ls_)];
                    for (l, &(cl, sl2)) in dirs.iter().enumerate() {
                        m[(ib + f * k + l, col)] =
                            cl * w[(3 * lf + 1, 3 * ls_)] + sl2 * w[(3 * lf + 2, 3 * ls_)];
                    }
                }
            }
        }
        // A primary pushes only at its own gap 0 with the set's maximum 0: its
        // row 2 m_ι − g_ι = g_ι + 2 Σ_s c_s (eq. (23) for the primary, below).
        for (f, &fg) in forces.iter().enumerate() {
            let con = peg.primary_of[fg as usize];
            if con == NONE {
                continue;
            }
            let c = &peg.constraints[con as usize];
            let base = ic + peg.cons_base[con as usize] as usize;
            for t in 0..(c.slacks.end - c.slacks.start) as usize {
                m[(f, base + t)] = 2.0;
            }
        }
    }
    // The gap of row `i` into row `r` with weight α over the λ columns too (the
    // general form; [`assemble`]'s `add_gap` covers p and β).
    let add_gap_lambda = |m: &mut nalgebra::DMatrix<f64>, r: usize, i: usize, alpha: f64| {
        for &ci in &peg.isl_cons {
            let con = &peg.constraints[ci as usize];
            let base = il + peg.cons_base[ci as usize] as usize;
            for (t, sl) in con.slacks.clone().enumerate() {
                let ls_ = lr(peg.slack_rows[sl as usize] as usize);
                m[(r, base + t)] += alpha * w[(3 * lr(i), 3 * ls_)];
            }
        }
    };
    // Slack rows: g_ι − g_s + Σ_{t ≤ s} c_t.
    for &ci in &peg.isl_cons {
        let con = &peg.constraints[ci as usize];
        let base = ic + peg.cons_base[ci as usize] as usize;
        let prim = con.primary as usize;
        for (t, s) in con.slacks.clone().enumerate() {
            let r = base + t;
            add_gap(m, q, r, prim, 1.0);
            add_gap(m, q, r, peg.slack_rows[s as usize] as usize, -1.0);
            for u in 0..=t {
                m[(r, base + u)] = 1.0;
            }
            if general {
                add_gap_lambda(m, r, prim, 1.0);
                add_gap_lambda(m, r, peg.slack_rows[s as usize] as usize, -1.0);
            }
        }
    }
    if !general {
        // Joined X (module doc, "Joined X"): X_j's chain over its members with
        // its force's row as primary, g_ι − g_s + Σ_{t ≤ s} c_t ⊥ c_s (so
        // B_j = g_ι + Σ_t c_t is its running maximum), then per X_j
        // d_j + Σ_{i<j} d_i − Σ c_K + Σ c_Xj ⊥ d_j (d_j = max(0, m_{j−1} − B_j),
        // K the force's own constraint, m_0 = A_K = g_ι + Σ c_K), and the
        // force's row g_ι + Σ c_K − Σ_j d_j = min(A_K, B_1, …) ⊥ p.
        let nd = peg.isl_joined.len();
        let id = n - nd;
        let mut off = ic + ns;
        for (jj, &ji) in peg.isl_joined.iter().enumerate() {
            let jx = &peg.joined[ji as usize];
            let prim = jx.primary as usize;
            let len = (jx.slacks.end - jx.slacks.start) as usize;
            for (t, sl) in jx.slacks.clone().enumerate() {
                let r = off + t;
                add_gap(m, q, r, prim, 1.0);
                add_gap(m, q, r, peg.slack_rows[sl as usize] as usize, -1.0);
                for u in 0..=t {
                    m[(r, off + u)] = 1.0;
                }
            }
            let rd = id + jj;
            m[(rd, rd)] = 1.0;
            for t in 0..len {
                m[(rd, off + t)] = 1.0;
            }
            off += len;
            // The force's local index (`isl_force` is increasing); its row is
            // the X's primary, so it is in this island.
            let Ok(f) = forces.binary_search(&jx.force) else {
                continue;
            };
            m[(f, rd)] = -1.0;
            for (ii, &pi) in peg.isl_joined[..jj].iter().enumerate() {
                if peg.joined[pi as usize].force == jx.force {
                    m[(rd, id + ii)] = 1.0;
                }
            }
            let con = peg.primary_of[jx.force as usize];
            if con != NONE {
                let c = &peg.constraints[con as usize];
                let base = ic + peg.cons_base[con as usize] as usize;
                for t in 0..(c.slacks.end - c.slacks.start) as usize {
                    m[(rd, base + t)] = -1.0;
                }
            }
        }
        return;
    }
    // The members' rows (eqs. (22)–(23) with d_ιs replaced by m_ι − g_s, the
    // set's largest gap m_ι = g_ι + Σ_t c_t by the chain of eq. (20)):
    // 0 ≤ 2 m_ι − g_s ⊥ λ_s ≥ 0. Row ≥ 0 for every member is m_ι ≥ 0 (eq. (21):
    // the member with the largest gap gives 2 m_ι − m_ι), and then each of
    // m_ι, m_ι − g_s ≥ 0, so λ_s > 0 only where both are 0 — g_s = 0 = m_ι.
    for &ci in &peg.isl_cons {
        let con = &peg.constraints[ci as usize];
        let cb = peg.cons_base[ci as usize] as usize;
        let nsl = (con.slacks.end - con.slacks.start) as usize;
        let prim = con.primary as usize;
        for (t, s) in con.slacks.clone().enumerate() {
            let r = il + cb + t;
            let gs = peg.slack_rows[s as usize] as usize;
            add_gap(m, q, r, prim, 2.0);
            add_gap(m, q, r, gs, -1.0);
            add_gap_lambda(m, r, prim, 2.0);
            add_gap_lambda(m, r, gs, -1.0);
            for u in 0..nsl {
                m[(r, ic + cb + u)] = 2.0;
            }
        }
    }
}

/// Whether a predicted pass is also asked for when a geom's motion leaves its
/// reach (module doc, "Predicted reach"); off: only the rotation lead's growth asks
/// for one (the wider ε at h = 5e-2 grew the 3D pour's two-body island past
/// [`PEG_MAX_LCP`], `tests/peg_large_step.rs`).
const REACH_PASS: bool = false;

/// Whether a predicted pass relaxes applicability by the rotation it predicts
/// ([`predicted_eps_theta`]); off: every pass at the default ε_θ = sin 5°.
const PREDICTED_EPS_THETA: bool = true;

/// The pivot budget of a predicted pass: what the passes before it left of one
/// Lemke attempt's limit (10 n + 100, or `LcpParams::max_pivots`) at the
/// largest island LCP n they solved, so that a step's pivots stay within one
/// attempt's limit whatever the passes (module doc, "Predicted reach").
pub(super) fn set_pass_budget(p: &LcpParams, ls: &mut LcpWorkspace, stats: &StepStats) {
    let limit = pivot_limit(p, stats.lcp_size);
    ls.peg.pivot_budget = limit.saturating_sub(stats.solver_iterations);
}

/// The first pass of a step: no pivot budget beyond each attempt's limit.
pub(super) fn clear_pass_budget(ls: &mut LcpWorkspace) {
    ls.peg.pivot_budget = usize::MAX;
}

/// After a pass of a PEG step (ν⁺ in `ls.nu_move`): whether the step's own
/// impulses move a body of a PEG pair so much faster than the bounds the pass
/// built its rows with that a geom's motion h u⁺ leaves the reach it was given
/// (h u + h²|g| + the window) or its rotation lead h²|ω|² r grows by more than
/// 1e-10 of the pair's size. The bounds become max(those, ν⁺'s) either way; true
/// asks for another pass built from them (`PegInput::predicted`; module doc,
/// "Predicted reach").
pub(super) fn spun_up(
    model: &Model,
    candidates: &[(u32, u32)],
    h: f64,
    window: f64,
    ls: &mut LcpWorkspace,
) -> bool {
    let LcpWorkspace {
        blocks,
        body_block,
        nu_move,
        peg: pw,
        ..
    } = ls;
    let forced = std::mem::take(&mut pw.force_pass);
    if pw.speed_pred.len() != model.ngeom() || pw.w2_pred.len() != model.nbody() {
        return forced;
    }
    if forced {
        // The corrector's pass (`peg_retry.rs`, "The corrector"): the bounds
        // stay the start's — the pass is built with the first pass's reach, only
        // the gap's second-order term at ν⁺ added to its rows (growing them as
        // below let the pass end on Lemke rays: docs/EXPERIMENTS.md, peg27).
        return true;
    }
    let gh = h * h * model.opt.gravity.norm();
    let mut grown = false;
    for (i, &(a, b)) in candidates.iter().enumerate() {
        if !pw.peg_pair.get(i).copied().unwrap_or(false) {
            continue;
        }
        let (a, b) = (a as usize, b as usize);
        let tol = 1e-10 * pair_size(model, a, b);
        for g in [a, b] {
            let geom = &model.geoms[g];
            let blk = body_block[geom.body];
            if blk == NO_BLOCK {
                continue;
            }
            let blk = blocks[blk as usize];
            if !matches!(blk.kind, DofKind::Free { .. }) {
                continue;
            }
            // The geom's speed bound and |ω|² at ν⁺.
            let x = &nu_move[blk.offset..blk.offset + 6];
            let w2 = Vec3::new(x[3], x[4], x[5]).norm_squared();
            let r = geom.shape.size() + geom.x_bg.translation.vector.norm();
            let u = Vec3::new(x[0], x[1], x[2]).norm() + w2.sqrt() * r;
            if !(u.is_finite() && r.is_finite()) {
                continue;
            }
            let (u0, w0) = (pw.speed_pred[g], pw.w2_pred[geom.body]);
            if (REACH_PASS && h * (u - u0) > gh + window) || h * h * (w2 - w0) * r > tol {
                grown = true;
            }
            pw.speed_pred[g] = u0.max(u);
            pw.w2_pred[geom.body] = w0.max(w2);
        }
    }
    grown
}

/// Keeps the pass just solved (rows, impulses, ν⁺, the solver counters) before a
/// predicted pass is tried (module doc, "Predicted reach").
pub(super) fn save_pass(ls: &mut LcpWorkspace, stats: &StepStats) {
    let LcpWorkspace {
        contacts,
        impulse,
        nu_move,
        peg: pw,
        ..
    } = ls;
    pw.saved_contacts.clone_from(contacts);
    pw.saved_impulse.clone_from(impulse);
    pw.saved_nu.clone_from(nu_move);
    pw.saved_stats = (
        stats.solver_failures,
        stats.solver_fallbacks,
        stats.solver_unconverged,
        stats.solver_failed,
        stats.lcp_size,
        stats.solver_residual,
        stats.solver_iterations,
    );
}

/// A predicted pass that failed (an island over [`PEG_MAX_LCP`], a Lemke
/// failure, a row cap) is discarded: the step keeps the solved pass before it
/// (rows, impulses, ν⁺ and its counters). Its wider reach is then not covered — what the overlap metric shows.
pub(super) fn restore_pass(ls: &mut LcpWorkspace, stats: &mut StepStats) {
    let LcpWorkspace {
        contacts,
        impulse,
        nu_move,
        peg: pw,
        ..
    } = ls;
    pw.passes = pw.passes.saturating_sub(1);
    contacts.clone_from(&pw.saved_contacts);
    impulse.clone_from(&pw.saved_impulse);
    nu_move.clone_from(&pw.saved_nu);
    (
        stats.solver_failures,
        stats.solver_fallbacks,
        stats.solver_unconverged,
        stats.solver_failed,
        stats.lcp_size,
        stats.solver_residual,
        stats.solver_iterations,
    ) = pw.saved_stats;
}

/// What the step did with a pass, for [`trace_pass`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PassEnd {
    /// Solved and kept; another (predicted) pass follows or not.
    Solved { next: bool },
    /// A predicted pass discarded: its rows over [`PEG_MAX_ROWS`].
    RowCap,
    /// A predicted pass discarded: an island failed (over the cap, a Lemke
    /// failure, the pivot budget spent).
    Failed,
    /// Its impulses failed the work check ([`work_rejects`]).
    WorkRejected,
    /// A last predicted pass discarded as not self-consistent
    /// (`LcpParams::peg_consistent`): its own ν⁺ leaves the reach or rotation
    /// lead its rows were built for ([`spun_up`]) and no pass is left (peg15).
    Inconsistent,
}

/// `RTPHYS_PEG_PASS_TRACE=A-B` (read at construction; off by default, allocates):
/// one line per pass of steps A to B (peg14) — the step, the scene's pass count,
/// the pass, its rows and largest island, the solve attempts of its islands
/// ([`tr_attempt`]), what the step did with it, and for a solved pass ν⁺'s
/// largest |ω⁺| and |v⁺| (body) and the terms of [`work_check`] — ΔT, B, S, the
/// push-out energy E, ΔT/(E + 1e-6 S) — with the four force rows of largest
/// p_n (v_n⁺ − d/h) (docs/EXPERIMENTS.md, peg14).
pub(super) fn trace_pass(
    model: &Model,
    (passes, pass): (usize, usize),
    end: PassEnd,
    h: f64,
    ls: &mut LcpWorkspace,
    stats: &StepStats,
) {
    if !tracing(&ls.peg) {
        return;
    }
    let mut out = format!(
        "peg-pass: step {} of {passes}: pass {} rows {} LCP {} failed {} residual {:.1e}; {end:?}",
        ls.peg.step_no,
        pass + 1,
        ls.contacts.len(),
        stats.lcp_size,
        stats.solver_failed,
        stats.solver_residual,
    );
    if matches!(
        end,
        PassEnd::Solved { .. } | PassEnd::WorkRejected | PassEnd::Inconsistent
    ) {
        let (dt, bound, sc, push) = work_check(ls, h);
        let (mut wmax, mut vmax, mut bw) = (0.0f64, 0.0f64, usize::MAX);
        for (b, &blk) in ls.body_block.iter().enumerate() {
            if blk == NO_BLOCK {
                continue;
            }
            let blk = ls.blocks[blk as usize];
            if !matches!(blk.kind, DofKind::Free { .. }) {
                continue;
            }
            let x = &ls.nu_move[blk.offset..blk.offset + 6];
            let w = Vec3::new(x[3], x[4], x[5]).norm();
            if w > wmax {
                (wmax, bw) = (w, b);
            }
            vmax = vmax.max(Vec3::new(x[0], x[1], x[2]).norm());
        }
        let name = model.bodies.get(bw).map_or("-", |b| b.name.as_str());
        let _ = write!(
            out,
            "; max |ω⁺| {wmax:.3e} ({name}), max |v⁺| {vmax:.3e}; ΔT {dt:.3e} J, bound {bound:.3e} J, \
             scale {sc:.3e} J, excess/scale {:.2e}; push-out {push:.3e} J, ΔT/(push + 1e-6 scale) {:.2e};",
            (dt - bound) / sc.max(1e-300),
            dt / (push + 1e-6 * sc).max(1e-300)
        );
        work_rows(ls, h, &mut out);
    }
    let _ = writeln!(out, ";{}", ls.peg.tr_log);
    ls.peg.tr_log.clear();
    diag::emit(diag::Output::Stderr(out));
}

/// The work check of a solved pass (peg14; module doc, docs/EXPERIMENTS.md): the kinetic
/// energy the contact impulses of `ls.impulse` add to ν_f,
/// ΔT = ½ (ν⁺ − ν_f)ᵀ M (ν⁺ + ν_f) = ½ Σ pᵀ G (ν_f + ν⁺) (ν⁺ in `ls.nu_move`),
/// against what pushing out the overlap the rows describe may add. Each
/// pushing row's depth d: max(0, −c) of a U row (c: its gap constant, ψ − ℓ,
/// or the standard row's stabilized one), and for every force on an I/X set
/// (its primary's, the general form's members') the set's depth
/// max(0, −max_{i ∈ set} c_i) — a set some member of which is open at the
/// start has no overlap to push out. With `[lcp] peg_work_penetration` (peg33,
/// opt-in) a PEG row's or set's depth is bounded by its real penetration
/// ([`row_penetration`]; a set's: the largest of its members'): a vertex 4.8 cm
/// behind a face plane it is not over, of a pair with no overlap, let a pass
/// push at 4.8 m/s and gain 0.44 J (docs/EXPERIMENTS.md, peg32 Task 3).
/// Returns (ΔT, B, S, E): B = Σ p_n d/h (the
/// work of pushing at d/h; large where internal impulses are), S =
/// ½ Σ |p| (|G ν_f| + |G ν⁺|) the scale of ΔT's terms, E = Σ ½ (d/h)²/W_nn
/// the kinetic energy of pushing each row out at d/h with its effective mass
/// (what [`work_rejects`] compares ΔT with). (At a solution of the LCP
/// ΔT ≤ −Σ p_n c_n/h: every force row has p_n g_n ≤ 0 and friction does no
/// positive work, βⱼ(dⱼᵀv_t + σ) = 0, σ ≥ 0; the ejections of peg14 meet
/// that bound.)
pub(super) fn work_check(ls: &mut LcpWorkspace, h: f64) -> (f64, f64, f64, f64) {
    let LcpWorkspace {
        contacts,
        impulse,
        blocks,
        jac,
        minv_jt,
        nu_f,
        nu_move,
        qw,
        peg: pw,
        ..
    } = ls;
    let nc = contacts.len();
    pw.row_depth.clear();
    pw.row_depth.resize(nc, 0.0);
    let (mut dt, mut bound, mut scale, mut push) = (0.0, 0.0, 0.0, 0.0);
    // Velocities of the rows (n, t1, t2) at ν_f and ν⁺.
    let vel = |row: &ContactRow, nu: &[f64], r: usize| -> f64 {
        let mut v = 0.0;
        for s in row.side.iter().filter(|s| s.block != NO_BLOCK) {
            let blk = blocks[s.block as usize];
            let nd = blk.ndof;
            let j = &jac[s.jac + r * nd..s.jac + (r + 1) * nd];
            v += j
                .iter()
                .zip(&nu[blk.offset..blk.offset + nd])
                .map(|(a, b)| a * b)
                .sum::<f64>();
        }
        v
    };
    // Own depths of the U rows and the standard rows; the sets' depths on their
    // primaries and members.
    for (c, row) in contacts.iter().enumerate() {
        let psi = pw.psi.get(c).copied().unwrap_or(f64::NAN);
        let cc = if psi.is_nan() {
            h * (qw[3 * c] - vel(row, nu_f, 0))
        } else {
            psi
        };
        let own = pw.force.get(c).copied().unwrap_or(NONE);
        if psi.is_nan() || (own != NONE && pw.primary_of[own as usize] == NONE) {
            let pen = pw.row_pen.get(c).copied().unwrap_or(f64::INFINITY);
            pw.row_depth[c] = (-cc).max(0.0).min(pen);
        }
    }
    for con in &pw.constraints {
        let prim = con.primary as usize;
        let (mut cmax, mut pen) = (pw.psi[prim], pw.row_pen[prim]);
        for &r in &pw.slack_rows[con.slacks.start as usize..con.slacks.end as usize] {
            cmax = cmax.max(pw.psi[r as usize]);
            pen = pen.max(pw.row_pen[r as usize]);
        }
        let d = (-cmax).max(0.0).min(pen);
        pw.row_depth[prim] = pw.row_depth[prim].max(d);
        for &r in &pw.slack_rows[con.slacks.start as usize..con.slacks.end as usize] {
            pw.row_depth[r as usize] = pw.row_depth[r as usize].max(d);
        }
    }
    for (c, row) in contacts.iter().enumerate() {
        let pc = &impulse[3 * c..3 * c + 3];
        if pc.iter().all(|&x| x == 0.0) {
            continue;
        }
        for (r, &pr) in pc.iter().enumerate() {
            let (vf, vp) = (vel(row, nu_f, r), vel(row, nu_move, r));
            dt += 0.5 * pr * (vf + vp);
            scale += 0.5 * pr.abs() * (vf.abs() + vp.abs());
        }
        bound += pc[0].max(0.0) * pw.row_depth[c] / h;
        // ½ m_eff (d/h)², m_eff = 1/W_nn (W_nn = Σ J_n M⁻¹ J_nᵀ over the sides).
        let wnn: f64 = row
            .side
            .iter()
            .filter(|s| s.block != NO_BLOCK)
            .map(|s| {
                let nd = blocks[s.block as usize].ndof;
                jac[s.jac..s.jac + nd]
                    .iter()
                    .zip(&minv_jt[s.jac..s.jac + nd])
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
            })
            .sum();
        let d = pw.row_depth[c] / h;
        if pc[0] > 0.0 && wnn > 0.0 {
            push += 0.5 * d * d / wnn;
        }
    }
    (dt, bound, scale, push)
}

/// Whether the solved pass's impulses fail the work check ([`work_check`]):
/// ΔT > [`WORK_FACTOR`] E + 1e-6 S + [`WORK_FLOOR`] T_f, E = Σ ½ (d/h)²/W_nn over
/// the rows that push (the kinetic energy of pushing each row's overlap d out at
/// d/h with its effective mass 1/W_nn), S the scale of ΔT's terms (their
/// round-off), T_f the kinetic energy at ν_f of the free bodies the impulses act
/// on.
pub(super) fn work_rejects(
    model: &Model,
    state: &[BodyState],
    h: f64,
    ls: &mut LcpWorkspace,
) -> bool {
    let (dt, _, sc, push) = work_check(ls, h);
    if dt <= WORK_FACTOR * push + 1e-6 * sc {
        return false;
    }
    let push = if ls.peg.work_chain {
        push.max(chain_energy(model, h, ls))
    } else {
        push
    };
    if dt <= WORK_FACTOR * push + 1e-6 * sc {
        return false;
    }
    // T_f over the touched free bodies.
    let pw = &mut ls.peg;
    pw.body_touch.clear();
    pw.body_touch.resize(model.nbody(), false);
    for (c, row) in ls.contacts.iter().enumerate() {
        if ls.impulse[3 * c..3 * c + 3].iter().any(|&x| x != 0.0) {
            for &b in &row.bodies {
                if let Some(t) = pw.body_touch.get_mut(b) {
                    *t = true;
                }
            }
        }
    }
    let mut tf = 0.0;
    for (b, body) in model.bodies.iter().enumerate() {
        let blk = ls.body_block.get(b).copied().unwrap_or(NO_BLOCK);
        if !pw.body_touch[b] || blk == NO_BLOCK {
            continue;
        }
        let blk = ls.blocks[blk as usize];
        if !matches!(blk.kind, DofKind::Free { .. }) {
            continue;
        }
        let x = &ls.nu_f[blk.offset..blk.offset + 6];
        let (v, w) = (Vec3::new(x[0], x[1], x[2]), Vec3::new(x[3], x[4], x[5]));
        let r = state[b].q.to_rotation_matrix();
        let i_w = r.matrix() * body.inertia * r.matrix().transpose();
        tf += 0.5 * body.mass * v.norm_squared() + 0.5 * w.dot(&(i_w * w));
    }
    dt > WORK_FACTOR * push + 1e-6 * sc + WORK_FLOOR * tf
}

/// A first pass the work check refused, taken again with its rows clamped to
/// their real penetration (`[lcp] peg_work_clamp`, peg34; module doc, "Work
/// check"), where the retry will not split the attempt
/// (`PegWorkspace::splittable` false): the clamped constants, the failure
/// counters of the step's start (`counted`: failures and fallbacks, and the
/// unconverged solves) put back, PEG's solve, ν⁺, and the check again. True
/// when that pass solved and passes the check (kept, `peg_clamped_kept`); else
/// the caller falls back to the standard rows as before. False at once with the
/// key off, in a splittable attempt, or when no row's ψ moved.
pub(super) fn clamped_pass(
    p: &LcpParams,
    model: &Model,
    state: &[BodyState],
    h: f64,
    (counted, unconverged): ((u64, u64), u64),
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) -> bool {
    if !ls.peg.work_clamp || ls.peg.splittable {
        return false;
    }
    if !clamp_to_penetration(ls) {
        stats.peg_clamped_unmoved += 1;
        return false;
    }
    peg_constants(p, h, ls);
    let refused = stats.solver_iterations;
    (stats.solver_failures, stats.solver_fallbacks) = counted;
    stats.solver_unconverged = unconverged;
    solve(p, ls, stats);
    stats.solver_iterations += refused;
    super::velocity_after(ls, false);
    if stats.solver_failed {
        stats.peg_clamped_failed += 1;
        return false;
    }
    if work_rejects(model, state, h, ls) {
        stats.peg_clamped_refused += 1;
        return false;
    }
    stats.peg_clamped_kept += 1;
    true
}

/// The push-out energy of pushes in series (`[lcp] peg_work_chain`, peg33): per
/// free body b its chain depth D_b, the least sum of the depths of the pushing
/// rows (p_n > 0, `PegWorkspace::row_depth` of [`work_check`]) along a chain of
/// them from b to a body that does not move (Bellman–Ford over the rows; a body
/// no chain reaches adds nothing), and Σ ½ m_b (D_b/h)² — the kinetic energy of
/// lifting each body by its chain's push-out in the step. A stack of n boxes δ
/// deep at every contact: box k rises k δ, Σ ½ m (k δ/h)², what the pass adds
/// (docs/EXPERIMENTS.md, peg33 Task 3); a body wedged between two rows to static
/// bodies (peg14's ejections) has D_b = the smaller depth, not its ejection
/// speed.
fn chain_energy(model: &Model, h: f64, ls: &mut LcpWorkspace) -> f64 {
    let nb = model.nbody();
    let pw = &mut ls.peg;
    pw.chain_depth.clear();
    pw.chain_depth.extend((0..nb).map(|b| {
        if ls.body_block.get(b).copied().unwrap_or(NO_BLOCK) == NO_BLOCK {
            0.0
        } else {
            f64::INFINITY
        }
    }));
    for _ in 0..nb {
        let mut changed = false;
        for (c, row) in ls.contacts.iter().enumerate() {
            if ls.impulse[3 * c] <= 0.0 {
                continue;
            }
            let d = pw.row_depth.get(c).copied().unwrap_or(0.0);
            let [a, b] = row.bodies;
            let (da, db) = (pw.chain_depth[a], pw.chain_depth[b]);
            if db + d < da {
                pw.chain_depth[a] = db + d;
                changed = true;
            }
            if da + d < db {
                pw.chain_depth[b] = da + d;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut e = 0.0;
    for (b, body) in model.bodies.iter().enumerate() {
        let blk = ls.body_block.get(b).copied().unwrap_or(NO_BLOCK);
        let free = blk != NO_BLOCK && matches!(ls.blocks[blk as usize].kind, DofKind::Free { .. });
        let d = pw.chain_depth[b];
        if free && d.is_finite() {
            e += 0.5 * body.mass * (d / h) * (d / h);
        }
    }
    e
}

/// The share of the touched bodies' kinetic energy a pass may add beyond the
/// push-out energy before [`work_rejects`] refuses it: the 1 % of the sharp
/// landings' energy criterion (issue 12). Without it the check refused passes
/// of the vertex–vertex impact (`tests/peg_passes.rs`) adding 4.6e-5 J to a
/// body of ≈ 1 J (a primary a few µm behind its plane pushing at its own depth
/// while its set is open by less), and the 2-pass run ended 1.4e-9 L³ deep
/// instead of 6.8e-12.
const WORK_FLOOR: f64 = 1e-2;

/// The factor on the push-out energy E of [`work_rejects`]. A contact solve
/// that holds bodies apart dissipates (ΔT ≤ 0) except where it pushes an
/// overlap out, and pushing each row out at d/h gives ½ (d/h)²/W_nn; rows that
/// share a body add their pushes, so E is a scale, not a bound, and the factor
/// leaves room. Measured (docs/EXPERIMENTS.md, peg14; the 2D and 3D pours at
/// h = 1e-2, seeds 1 and 2, 1 and 2 passes: 1,839 solved passes): ΔT/E ≤ 0.45
/// on every pass that did not eject a body; 15–2·10⁴ on the five that did
/// (bodies left at 45–1,076 rad/s, up to 58 m/s: a body wedged between rows
/// whose push-outs no rigid motion meets squirts out, or the general form's
/// member force throws it across a plane; the LCP's own bound −Σ p c/h holds on
/// all of them: they are solutions of the LCP, two with impulses 400–600 times
/// the rates they undo).
const WORK_FACTOR: f64 = 4.0;

/// The largest contributions to ΔT − B of [`work_check`] (for the trace):
/// "row p c·h depth v⁺ work".
fn work_rows(ls: &LcpWorkspace, h: f64, out: &mut String) {
    let mut top: Vec<(f64, usize, f64, f64)> = Vec::new();
    for (c, row) in ls.contacts.iter().enumerate() {
        let pn = ls.impulse[3 * c];
        if pn <= 0.0 {
            continue;
        }
        let mut v = 0.0;
        for s in row.side.iter().filter(|s| s.block != NO_BLOCK) {
            let blk = ls.blocks[s.block as usize];
            let nd = blk.ndof;
            let j = &ls.jac[s.jac..s.jac + nd];
            v += j
                .iter()
                .zip(&ls.nu_move[blk.offset..blk.offset + nd])
                .map(|(a, b)| a * b)
                .sum::<f64>();
        }
        let d = ls.peg.row_depth.get(c).copied().unwrap_or(0.0);
        top.push((pn * (v - d / h), c, v, d));
    }
    top.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(wk, c, v, d) in top.iter().take(4) {
        let own = ls.peg.force.get(c).copied().unwrap_or(NONE);
        let kind = if own == NONE {
            "member"
        } else if ls.peg.primary_of[own as usize] == NONE {
            "U"
        } else {
            "primary"
        };
        let _ = write!(
            out,
            " [row {c} {kind} p {:.2e} c {:.2e} (ψ {:.2e}) depth {d:.2e} v⁺ {v:.2e} excess {wk:.2e}",
            ls.impulse[3 * c],
            ls.peg.psi.get(c).copied().unwrap_or(f64::NAN),
            -ls.contacts[c].depth
        );
        // A primary's set (peg27): each member's row, its gap ψ at the start
        // and its constant c (ψ less the lead, plus a predicted pass's term).
        let pw = &ls.peg;
        if let Some(con) = pw.constraints.iter().find(|k| k.primary as usize == c) {
            out.push_str("; set:");
            for &r in &pw.slack_rows[con.slacks.start as usize..con.slacks.end as usize] {
                let r = r as usize;
                let _ = write!(
                    out,
                    " {r} (ψ {:.2e} c {:.2e})",
                    -ls.contacts[r].depth,
                    pw.psi.get(r).copied().unwrap_or(f64::NAN)
                );
            }
        }
        out.push(']');
    }
}

/// Largest island LCP (variables) given to the dense Lemke. Its tableau is
/// n × (2n + 2) doubles and a pivot costs ≈ 2n² flops, so one attempt to the
/// pivot limit 10n + 100 costs ≈ 20n³ flops: ≈ 2.7e9 (about 1 s) at 512, and the
/// ladder makes up to four attempts. Larger islands (the 5-stack's is 120) are a
/// counted failure and go to the PGS fallback.
pub const PEG_MAX_LCP: usize = 512;

/// Largest reduced LCP (variables) of an over-cap island's active set given to
/// the dense Lemke (`peg_bgs::solve_island_active`, peg12): measured, the 2D
/// pour's unconverged islands of 1,496 and 2,814 variables have active sets of
/// 1,072 and 1,757 (docs/EXPERIMENTS.md, peg12).
pub const PEG_MAX_ACTIVE: usize = 2048;

/// Largest number of contact rows (standard rows kept plus PEG's potential
/// contacts) a PEG step builds before it gives the step to the standard rows
/// ("Row cap" in the module doc): the block-sparse W of `delassus` is quadratic
/// in the rows that share a body. Fast bodies in the planar world once made
/// every vertex pair a potential contact (a 2D pour at h = 1e-2: ≈ 34,000 rows,
/// then an 81 GB dense W over every row); with the bounded 2D configurations
/// (`collision::polygon`, "Classification") the same run builds steps of up to
/// ≈ 1,900 rows. Tried at 4,096 with the constraint PGS (peg4, 2D pour, seed 1,
/// h = 1e-2, 2 passes): fallbacks 108 → 39 but 19 bodies quarantined (a crash
/// at 3.36 s, against none at 1,024), so the cap stays 1,024.
pub const PEG_MAX_ROWS: usize = 1024;

/// Reports (once per world, on the diagnostics thread) a step that went over
/// [`PEG_MAX_ROWS`]; the caller rebuilds the standard rows and counts it.
pub(super) fn report_row_cap(ls: &mut LcpWorkspace) {
    if !ls.peg.row_cap_reported {
        ls.peg.row_cap_reported = true;
        diag::emit(diag::Output::Stderr(format!(
            "rtphys: PEG step of {} contact rows (cap PEG_MAX_ROWS = {PEG_MAX_ROWS}) solved \
             with the standard rows; further ones are counted in solver_fallbacks only\n",
            ls.contacts.len()
        )));
    }
}

/// One Lemke attempt's pivot limit on an LCP of `n` variables: the scene's
/// `max_pivots`, else Lemke's default 10 n + 100 (`LemkeParams::pivot_limit`);
/// the ladder, the warm Lemke and the elastic relaxation use it alike.
fn pivot_limit(p: &LcpParams, n: usize) -> usize {
    LemkeParams {
        max_pivots: p.max_pivots,
        ..LemkeParams::default()
    }
    .pivot_limit(n)
}

/// Zero pivot tolerances of Lemke on the scaled PEG LCP, tried in order (see
/// [`solve_island`]).
const PEG_ZERO_TOLS: [f64; 4] = [1e-7, 1e-9, 1e-5, 1e-11];

/// Largest ‖min(z′, w′)‖∞ of an accepted Lemke solution of the scaled PEG LCP,
/// relative to max(1, ‖q′‖∞) (z′, w′ in √J: for a 1 kg body 1e-6 m/s, 1 nm over
/// a 1 ms step). Ten times the standard rows' [`LEMKE_ACCEPT`]: the PEG solutions
/// come from pivots at a 1e-7 zero tolerance, whose residuals are of that order.
const PEG_ACCEPT: f64 = 10.0 * LEMKE_ACCEPT;

/// Diagonal scaling of the island's LCP, z = D z′, (M, q) → (D M D, D q) (the
/// same complementarity): per force contact f with w̄ = W_nn(f), D = 1/√w̄ on p_f
/// and its β, √w̄ on σ_f (unit normal-row diagonal, the E and μ entries kept, as
/// the standard model's `solve::scale_lcp`); on a slack c of a constraint, √w̄ of
/// its primary (the primary's row keeps its ones). Returns ‖q′‖∞.
fn scale(ls: &mut LcpWorkspace) -> f64 {
    let nf = ls.peg.isl_force.len();
    let k = ls.dirs.len();
    let (ib, is, ic) = (nf, nf + nf * k, nf * (k + 2));
    let n = ls.problem.q.len();
    ls.lcp_scale.clear();
    ls.lcp_scale.resize(n, 1.0);
    let wbar = |ls: &LcpWorkspace, row: usize| {
        let l = ls.peg.local[row] as usize;
        let x = ls.w[(3 * l, 3 * l)];
        if x.is_finite() && x > 0.0 {
            x
        } else {
            1.0
        }
    };
    for (f, &fg) in ls.peg.isl_force.iter().enumerate() {
        let wb = wbar(ls, ls.peg.force_rows[fg as usize] as usize);
        let d = 1.0 / wb.sqrt();
        ls.lcp_scale[f] = d;
        for j in 0..k {
            ls.lcp_scale[ib + f * k + j] = d;
        }
        ls.lcp_scale[is + f] = 1.0 / d;
    }
    let mut nsl = 0;
    for &ci in &ls.peg.isl_cons {
        let con = &ls.peg.constraints[ci as usize];
        let d = wbar(ls, con.primary as usize).sqrt();
        let base = ic + ls.peg.cons_base[ci as usize] as usize;
        for t in 0..(con.slacks.end - con.slacks.start) as usize {
            ls.lcp_scale[base + t] = d;
        }
        nsl += (con.slacks.end - con.slacks.start) as usize;
    }
    if !ls.peg.assembled_general {
        // The joined X's chains and d's (`assemble`): √w̄ of the force's row
        // (their primary), as a constraint's slacks.
        let mut off = ic + nsl;
        for &ji in &ls.peg.isl_joined {
            let jx = &ls.peg.joined[ji as usize];
            let d = wbar(ls, jx.primary as usize).sqrt();
            for t in 0..(jx.slacks.end - jx.slacks.start) as usize {
                ls.lcp_scale[off + t] = d;
            }
            off += (jx.slacks.end - jx.slacks.start) as usize;
        }
        for (jj, &ji) in ls.peg.isl_joined.iter().enumerate() {
            let jx = &ls.peg.joined[ji as usize];
            ls.lcp_scale[off + jj] = wbar(ls, jx.primary as usize).sqrt();
        }
    }
    if ls.peg.assembled_general && nsl > 0 {
        // The general form's member forces λ_s (`assemble`): 1/√W_nn of the
        // member's own row, a unit diagonal in its gap.
        for &ci in &ls.peg.isl_cons {
            let con = &ls.peg.constraints[ci as usize];
            let base = ic + nsl + ls.peg.cons_base[ci as usize] as usize;
            for (t, sl) in con.slacks.clone().enumerate() {
                let row = ls.peg.slack_rows[sl as usize] as usize;
                ls.lcp_scale[base + t] = 1.0 / wbar(ls, row).sqrt();
            }
        }
    }
    let (m, q, dv) = (&mut ls.problem.m, &mut ls.problem.q, &ls.lcp_scale);
    for j in 0..n {
        for i in 0..n {
            m[(i, j)] *= dv[i] * dv[j];
        }
        q[j] *= dv[j];
    }
    q.iter().fold(0.0f64, |a, x| a.max(x.abs()))
}

/// (p_n, f_t = D_c β) of the island's force-carrying rows from Lemke's z
/// (scaled back).
fn read(ls: &mut LcpWorkspace) {
    let nf = ls.peg.isl_force.len();
    let k = ls.dirs.len();
    let z = &ls.lemke_res.z;
    let d = &ls.lcp_scale;
    for (f, &fg) in ls.peg.isl_force.iter().enumerate() {
        let rf = ls.peg.force_rows[fg as usize] as usize;
        let (mut f1, mut f2) = (0.0, 0.0);
        for (j, &(cj, sj)) in ls.dirs.iter().enumerate() {
            let b = (d[nf + f * k + j] * z[nf + f * k + j]).max(0.0);
            f1 += b * cj;
            f2 += b * sj;
        }
        ls.impulse[3 * rf] = (d[f] * z[f]).max(0.0);
        ls.impulse[3 * rf + 1] = f1;
        ls.impulse[3 * rf + 2] = f2;
    }
}

/// Σ of the exact overlap volumes (m³) of the candidate pairs of two polytopes at
/// `state` (the accuracy metric of 003's experiments, `collision::overlap`).
pub fn overlap_volume(
    model: &Model,
    state: &[BodyState],
    candidates: &[(u32, u32)],
    hull: &[Option<Arc<ConvexPolytope>>],
    scratch: &mut OverlapScratch,
) -> f64 {
    let mut total = 0.0;
    for &(a, b) in candidates {
        let (a, b) = (a as usize, b as usize);
        let (Some(Some(ha)), Some(Some(hb))) = (hull.get(a), hull.get(b)) else {
            continue;
        };
        let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
        let xa = state[ga.body].pose() * ga.x_bg;
        let xb = state[gb.body].pose() * gb.x_bg;
        total += intersection_volume(ha, &xa, hb, &xb, scratch);
    }
    total
}

/// The measure by which the continuous collision after a PEG step refuses a
/// pass of rewinds (`peg_retry.rs`, "The continuous collision", `pass_rise`): the exact overlap volume of geoms `a` at `xa` and `b`
/// at `xb` over d³, d = 2 × the smaller geom's bounding radius (as
/// [`overlap_rose`]); 0 for a pair that is not two polytopes.
pub(super) fn rewind_overlap(
    model: &Model,
    pw: &mut PegWorkspace,
    (a, xa): (usize, &crate::math::Pose),
    (b, xb): (usize, &crate::math::Pose),
) -> f64 {
    let (Some(Some(ha)), Some(Some(hb))) = (pw.hull.get(a), pw.hull.get(b)) else {
        return 0.0;
    };
    let d = 2.0 * model.geoms[a].shape.size().min(model.geoms[b].shape.size());
    if !(d.is_finite() && d > 0.0) {
        return 0.0;
    }
    intersection_volume(ha, xa, hb, xb, &mut pw.overlap) / (d * d * d)
}

/// Per candidate pair of two polytopes, its exact overlap volume at `state`
/// (m³; 0 for a pair that is not two polytopes) into `out` (cleared first;
/// capacity kept): the start of a retried attempt's overlap trigger
/// (`peg_retry.rs`, "The overlap trigger").
pub(super) fn pair_overlaps(
    model: &Model,
    state: &[BodyState],
    candidates: &[(u32, u32)],
    ls: &mut LcpWorkspace,
    out: &mut Vec<f64>,
) {
    out.clear();
    let pw = &mut ls.peg;
    for &pair in candidates {
        out.push(overlap_volume(
            model,
            state,
            &[pair],
            &pw.hull,
            &mut pw.overlap,
        ));
    }
}

/// Whether some candidate pair's exact overlap at `state` exceeds its volume
/// in `start` ([`pair_overlaps`] of the attempt's start) by more than
/// `tol` d³, d = 2 × the smaller geom's bounding radius (`peg_retry.rs`, "The
/// overlap trigger"). Only the pairs PEG's rows may hold are watched
/// ([`watched`]).
pub(super) fn overlap_rose(
    model: &Model,
    state: &[BodyState],
    candidates: &[(u32, u32)],
    ls: &mut LcpWorkspace,
    (start, tol): (&[f64], f64),
) -> bool {
    let pw = &mut ls.peg;
    candidates.iter().zip(start).any(|(&(a, b), &v0)| {
        let (ga, gb) = (&model.geoms[a as usize], &model.geoms[b as usize]);
        if !watched(model, ga, gb) {
            return false;
        }
        let d = 2.0 * ga.shape.size().min(gb.shape.size());
        if !d.is_finite() {
            return false;
        }
        let v1 = overlap_volume(model, state, &[(a, b)], &pw.hull, &mut pw.overlap);
        v1 - v0 > tol * d * d * d
    })
}

/// The largest rise of a candidate pair's exact overlap at `state` over its
/// volume in `start` ([`pair_overlaps`] of the attempt's start), relative to
/// d³ as in [`overlap_rose`] (the pairs of [`watched`] only; 0 if none
/// rose): the measure by which the retry's second chance compares two
/// attempts (`peg_retry.rs`, "The second chance"; peg22).
pub(super) fn overlap_rise(
    model: &Model,
    state: &[BodyState],
    candidates: &[(u32, u32)],
    ls: &mut LcpWorkspace,
    start: &[f64],
) -> f64 {
    let pw = &mut ls.peg;
    let mut worst = 0.0f64;
    for (&(a, b), &v0) in candidates.iter().zip(start) {
        let (ga, gb) = (&model.geoms[a as usize], &model.geoms[b as usize]);
        if !watched(model, ga, gb) {
            continue;
        }
        let d = 2.0 * ga.shape.size().min(gb.shape.size());
        if !d.is_finite() || d <= 0.0 {
            continue;
        }
        let v1 = overlap_volume(model, state, &[(a, b)], &pw.hull, &mut pw.overlap);
        let r = (v1 - v0) / (d * d * d);
        if r.is_nan() {
            return f64::INFINITY;
        }
        worst = worst.max(r);
    }
    worst
}

/// The overlap metric of a model, for any method: Σ of the exact overlap
/// volumes over every pair of polytope geoms (boxes, hulls) of different bodies,
/// with or without the pairs of two static bodies (`rtphys run --overlap` keeps
/// them; the pour's box pieces touch and never move, `experiments::peg_pour`).
pub struct OverlapMetric {
    hull: Vec<Option<Arc<ConvexPolytope>>>,
    pairs: Vec<(u32, u32)>,
    scratch: OverlapScratch,
}

impl OverlapMetric {
    pub fn new(model: &Model, static_pairs: bool) -> Self {
        let hull = PegWorkspace::new(model).hull;
        let pairs = geom_pairs(model, &hull, static_pairs);
        OverlapMetric {
            hull,
            pairs,
            scratch: Default::default(),
        }
    }

    /// Σ of the exact overlap volumes at `state`, m³.
    pub fn volume(&mut self, model: &Model, state: &[BodyState]) -> f64 {
        overlap_volume(model, state, &self.pairs, &self.hull, &mut self.scratch)
    }

    /// The exact overlap volume of each pair at `state` (geom ids and m³), into
    /// `out` (cleared first): the per-pair terms of [`Self::volume`], for the
    /// attribution tools.
    pub fn pair_volumes(
        &mut self,
        model: &Model,
        state: &[BodyState],
        out: &mut Vec<(u32, u32, f64)>,
    ) {
        out.clear();
        for &(a, b) in &self.pairs {
            let v = overlap_volume(model, state, &[(a, b)], &self.hull, &mut self.scratch);
            out.push((a, b, v));
        }
    }
}

/// The planar world's overlap metric, for any method: Σ of the exact overlap
/// areas (`polygon::overlap_area`) over every pair of planar geoms (module doc,
/// "Planar world") of different bodies, except the pairs of two static bodies.
pub struct OverlapArea {
    polygon: Vec<Option<Arc<ConvexPolygon>>>,
    pairs: Vec<(u32, u32)>,
    scratch: crate::collision::polygon::AreaScratch,
}

impl OverlapArea {
    pub fn new(model: &Model) -> Self {
        let polygon = planar_polygons(model);
        let pairs = planar_pairs(model, &polygon);
        OverlapArea {
            polygon,
            pairs,
            scratch: Default::default(),
        }
    }

    /// Σ of the exact overlap areas at `state`, m² (a pair whose pose has left
    /// the plane counts NaN).
    pub fn area(&mut self, model: &Model, state: &[BodyState]) -> f64 {
        let mut total = 0.0;
        for &(a, b) in &self.pairs {
            let (a, b) = (a as usize, b as usize);
            let (Some(Some(pa)), Some(Some(pb))) = (self.polygon.get(a), self.polygon.get(b))
            else {
                continue;
            };
            let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
            let xa = planar_pose(&(state[ga.body].pose() * ga.x_bg));
            let xb = planar_pose(&(state[gb.body].pose() * gb.x_bg));
            let (Some(xa), Some(xb)) = (xa, xb) else {
                return f64::NAN;
            };
            total += crate::collision::polygon::overlap_area(pa, &xa, pb, &xb, &mut self.scratch);
        }
        total
    }
}

/// The end-of-step overlap metric of a PEG step into `stats.overlap_volume`.
///
/// With `RTPHYS_PEG_TRACE=N` (read at construction) the first N steps at which a
/// pair overlaps by more than 1e-9 of its size cubed are printed to stderr (by the
/// diagnostics writer thread, [`crate::diag`]): the
/// pair, its ε and lead ℓ, every potential contact of the step's start (`poses`:
/// features, ψ, applicability, its row, whether it carried a force, the impulse)
/// and the constraints over them, and the LCP's outcome — the diagnosis of where
/// an overlap came from. With `RTPHYS_PEG_ATTRIB=1` every pair's rise is
/// attributed ([`attribute_overlap`]). Both read the stepper's state, before the
/// outline's continuous collision rewinds fast bodies (`pipeline/mod.rs`): an
/// event here may not be in an overlap metric taken after the step
/// (docs/EXPERIMENTS.md, peg17).
pub(super) fn report_overlap(
    model: &Model,
    state: &[BodyState],
    candidates: &[(u32, u32)],
    poses: &[crate::math::Pose],
    h: f64,
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) {
    let pw = &mut ls.peg;
    stats.overlap_volume = overlap_volume(model, state, candidates, &pw.hull, &mut pw.overlap);
    if pw.trace > 0 && stats.overlap_volume > 0.0 {
        trace_overlap(model, state, candidates, poses, ls, stats);
    }
    if ls.peg.attrib && stats.overlap_volume > 0.0 {
        attribute_overlap(model, state, candidates, poses, h, ls, stats);
    }
}

/// The overlap trace of [`report_overlap`] (allocates; never on unless asked),
/// handed to the diagnostics writer thread ([`crate::diag`]): the step never
/// writes to stderr itself.
fn trace_overlap(
    model: &Model,
    state: &[BodyState],
    candidates: &[(u32, u32)],
    poses: &[crate::math::Pose],
    ls: &mut LcpWorkspace,
    stats: &StepStats,
) {
    for (i, &(a, b)) in candidates.iter().enumerate() {
        let (a, b) = (a as usize, b as usize);
        if ls.peg.trace == 0 {
            return;
        }
        let (Some(Some(ha)), Some(Some(hb))) = (ls.peg.hull.get(a), ls.peg.hull.get(b)) else {
            continue;
        };
        let (ha, hb) = (ha.clone(), hb.clone());
        let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
        let xa = state[ga.body].pose() * ga.x_bg;
        let xb = state[gb.body].pose() * gb.x_bg;
        let vol = intersection_volume(&ha, &xa, &hb, &xb, &mut ls.peg.overlap);
        let size = ga.shape.size() + gb.shape.size();
        if vol <= 1e-9 * size.powi(3) {
            continue;
        }
        ls.peg.trace -= 1;
        let mut out = String::new();
        let (eps, lead, row0, eps_theta) =
            ls.peg
                .pair_eps
                .get(i)
                .copied()
                .unwrap_or((f64::NAN, 0.0, NONE, f64::NAN));
        let name = |g: &crate::model::Geom| model.bodies[g.body].name.clone();
        let _ = writeln!(
            out,
            "peg-trace: {} / {}: overlap {:.3e} m³ ({:.3e} of size³ {:.3}); ε {:.3e} m, lead {:.3e} m, \
             ε_θ {:.3}; passes {} (discarded so far {}); \
             |ω| {:.3} / {:.3} rad/s, |v| {:.3} / {:.3} m/s; LCP size {} failed {} residual {:.1e}",
            name(ga),
            name(gb),
            vol,
            vol / size.powi(3),
            size,
            eps,
            lead,
            eps_theta,
            ls.peg.passes,
            stats.peg_discarded_passes,
            state[ga.body].w.norm(),
            state[gb.body].w.norm(),
            state[ga.body].v.norm(),
            state[gb.body].v.norm(),
            stats.lcp_size,
            stats.solver_failed,
            stats.solver_residual
        );
        if !eps.is_finite() {
            out.push_str("  not a PEG pair this step (no potential contacts computed)\n");
            diag::emit(diag::Output::Stderr(out));
            continue;
        }
        let pc = traced_contacts(
            (&ha, &poses[a]),
            (&hb, &poses[b]),
            &ls.peg.feature_params(eps, eps_theta),
        );
        for (k, c) in pc.contacts.iter().enumerate() {
            let row = row0 as usize + k;
            let (force, imp) = match ls.peg.force.get(row) {
                Some(&f) if f != NONE => ("force", ls.impulse.get(3 * row).copied().unwrap_or(0.0)),
                _ => ("slack", 0.0),
            };
            let _ = writeln!(
                out,
                "  c{k}: {:?}–{:?} ψ {:.3e} appl {:.3} n [{:.3} {:.3} {:.3}] row {row} {force} p {:.3e}",
                c.feature_a, c.feature_b, c.psi, c.applicability, c.normal.x, c.normal.y, c.normal.z, imp
            );
        }
        for con in &pc.constraints {
            let m =
                |r: &std::ops::Range<u32>| pc.members[r.start as usize..r.end as usize].to_vec();
            let _ = match con {
                Constraint::Unilateral { contact } => writeln!(out, "  U(c{contact})"),
                Constraint::Intercontact { primary, others } => {
                    writeln!(out, "  I(c{primary}; {:?})", m(others))
                }
                Constraint::Cross { a, b } => writeln!(out, "  X({:?} | {:?})", m(a), m(b)),
            };
        }
        diag::emit(diag::Output::Stderr(out));
    }
}

/// The attribution of an overlap's rise (`RTPHYS_PEG_ATTRIB=1`, read at
/// construction; off by default, allocates, handed to the diagnostics writer
/// thread). For every PEG candidate pair whose exact overlap volume rose over
/// the step by more than 1e-12 m³: the deepest vertex of either geom inside the
/// other at the end of the step (its depth and the face it is least deep
/// behind), the potential contacts of that vertex at the step's start (with
/// the step's ε and ε_θ) with their gap ψ and their linearized gap at the end
/// of the step at ν⁺ (ψ + h nᵀ(v_A(p_a) − v_B(p_b))), and the least linearized
/// value over the constraints that hold them (U: the gap; I, X: the largest of
/// their members'). The verdict: (a) the vertex had no potential contact at
/// the start (no row), (b) a constraint over it is violated at ν⁺ (the solve did
/// not enforce its rows; the step's path says why), (c) every constraint over
/// it holds at ν⁺ but the integrated poses overlap (the linearization), (e) no
/// vertex inside (edges crossing), (s) the step took the standard rows (row cap
/// or work check).
#[allow(clippy::too_many_lines)]
fn attribute_overlap(
    model: &Model,
    state: &[BodyState],
    candidates: &[(u32, u32)],
    poses: &[crate::math::Pose],
    h: f64,
    ls: &mut LcpWorkspace,
    stats: &StepStats,
) {
    let mut out = String::new();
    for (i, &(a, b)) in candidates.iter().enumerate() {
        let (a, b) = (a as usize, b as usize);
        let (Some(Some(ha)), Some(Some(hb))) = (ls.peg.hull.get(a), ls.peg.hull.get(b)) else {
            continue;
        };
        let (ha, hb) = (ha.clone(), hb.clone());
        let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
        let xa = state[ga.body].pose() * ga.x_bg;
        let xb = state[gb.body].pose() * gb.x_bg;
        let v1 = intersection_volume(&ha, &xa, &hb, &xb, &mut ls.peg.overlap);
        let v0 = intersection_volume(&ha, &poses[a], &hb, &poses[b], &mut ls.peg.overlap);
        if v1 - v0 <= 1e-12 {
            continue;
        }
        let name = |g: &crate::model::Geom| model.bodies[g.body].name.clone();
        let (eps, lead, _, eps_theta) =
            ls.peg
                .pair_eps
                .get(i)
                .copied()
                .unwrap_or((f64::NAN, 0.0, NONE, f64::NAN));
        let (sa, sb) = (&state[ga.body], &state[gb.body]);
        let path = if ls.peg.std_rows {
            "standard rows (row cap or work check)"
        } else if stats.solver_failed {
            "Lemke failure (fallback)"
        } else if stats.lcp_size > PEG_MAX_LCP && stats.solver_unconverged > 0 {
            "over-cap island (constraint PGS)"
        } else {
            "Lemke solved"
        };
        let _ = writeln!(
            out,
            "peg-attrib: step {} {} / {}: overlap {:.3e} → {:.3e} m³ (rise {:.3e}); path {path}; \
             ε {:.3e} m, lead {:.3e} m, ε_θ {:.3}; |v⁺| {:.3} / {:.3} m/s, |ω⁺| {:.3} / {:.3} rad/s; \
             LCP {} residual {:.1e}",
            ls.peg.step_no,
            name(ga),
            name(gb),
            v0,
            v1,
            v1 - v0,
            eps,
            lead,
            eps_theta,
            sa.v.norm(),
            sb.v.norm(),
            sa.w.norm(),
            sb.w.norm(),
            stats.lcp_size,
            stats.solver_residual,
        );
        if planar_pair(model, &ls.peg, a, b) {
            let ctx = Attrib2 {
                model,
                state,
                poses,
                h,
                eps,
                eps_theta,
            };
            attribute_2d(&ctx, (a, b), ls, &mut out);
            continue;
        }
        // The deepest vertex of either geom inside the other, at the end.
        let (mut va, mut pa, mut vb, mut pb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        ha.world_into(&xa, &mut va, &mut pa);
        hb.world_into(&xb, &mut vb, &mut pb);
        let deepest = |v: &[Vec3], p: &[(Vec3, f64)]| {
            let mut best: Option<(usize, usize, f64)> = None;
            for (k, x) in v.iter().enumerate() {
                let (f, s) = p
                    .iter()
                    .enumerate()
                    .map(|(f, (n, d))| (f, n.dot(x) - d))
                    .fold((0, f64::NEG_INFINITY), |m, e| if e.1 > m.1 { e } else { m });
                if s < 0.0 && best.is_none_or(|bb| -s > bb.2) {
                    best = Some((k, f, -s));
                }
            }
            best
        };
        let da = deepest(&va, &pb); // a vertex of A inside B
        let db = deepest(&vb, &pa); // a vertex of B inside A
        let pick = match (da, db) {
            (Some(x), Some(y)) => Some(if x.2 >= y.2 { (true, x) } else { (false, y) }),
            (Some(x), None) => Some((true, x)),
            (None, Some(y)) => Some((false, y)),
            (None, None) => None,
        };
        let Some((of_a, (vtx, face, depth))) = pick else {
            out.push_str("  verdict (e): no vertex inside (edges crossing)\n");
            if eps.is_finite() {
                let ctx = EdgeAttrib {
                    state,
                    poses,
                    h,
                    eps,
                    eps_theta,
                    bodies: (ga.body, gb.body),
                    ends: ((&va, &pa), (&vb, &pb)),
                };
                attribute_edges(&ctx, (a, b), (&ha, &hb), &ls.peg, &mut out);
            }
            continue;
        };
        let _ = writeln!(
            out,
            "  deepest: vertex {vtx} of {} inside {} by {depth:.3e} m, least deep behind face {face}",
            if of_a { name(ga) } else { name(gb) },
            if of_a { name(gb) } else { name(ga) },
        );
        if !eps.is_finite() {
            out.push_str("  verdict (s): not a PEG pair this step (no potential contacts)\n");
            continue;
        }
        if ls.peg.std_rows {
            out.push_str("  verdict (s): the step took the standard rows\n");
        }
        // The start: the vertex's distance to that face, and its potential contacts.
        let (mut va0, mut pa0, mut vb0, mut pb0) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        ha.world_into(&poses[a], &mut va0, &mut pa0);
        hb.world_into(&poses[b], &mut vb0, &mut pb0);
        let start_gap = if of_a {
            pb0[face].0.dot(&va0[vtx]) - pb0[face].1
        } else {
            pa0[face].0.dot(&vb0[vtx]) - pa0[face].1
        };
        let pc = traced_contacts(
            (&ha, &poses[a]),
            (&hb, &poses[b]),
            &ls.peg.feature_params(eps, eps_theta),
        );
        // Start centres of mass (x⁺ = x + h v⁺ for a moving body).
        let x0 = |s: &BodyState| s.x - h * s.v;
        let (ca, cb) = (x0(sa), x0(sb));
        let lin: Vec<f64> = pc
            .contacts
            .iter()
            .map(|c| {
                let ua = sa.v + sa.w.cross(&(c.p_a - ca));
                let ub = sb.v + sb.w.cross(&(c.p_b - cb));
                c.psi + h * c.normal.dot(&(ua - ub))
            })
            .collect();
        let mine: Vec<usize> = pc
            .contacts
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                if of_a {
                    c.feature_a == Feature::Vertex(vtx as u32)
                } else {
                    c.feature_b == Feature::Vertex(vtx as u32)
                }
            })
            .map(|(k, _)| k)
            .collect();
        let _ = writeln!(
            out,
            "  start: that vertex {start_gap:.3e} m from that face's plane; {} potential contacts \
             of the pair, {} of the vertex",
            pc.contacts.len(),
            mine.len()
        );
        {
            // What decided the vertex's contacts (peg21): its configuration and
            // the applicability / feasibility values, at the step's ε and ε_θ.
            let params = ls.peg.feature_params(eps, eps_theta);
            let why = crate::collision::features::explain_vertex(
                (&ha, &poses[a]),
                (&hb, &poses[b]),
                &params,
                (of_a, vtx, face),
            );
            let turn = h * (sa.w.norm() + sb.w.norm());
            let w0 =
                |g: &crate::model::Geom| ls.peg.w2_pred.get(g.body).copied().unwrap_or(0.0).sqrt();
            let turn0 = h * (w0(ga) + w0(gb));
            let _ = writeln!(
                out,
                "  decided by: {why}; h(|ω_a| + |ω_b|) at the start {:.1}°, at ν⁺ {:.1}°",
                turn0.to_degrees(),
                turn.to_degrees()
            );
        }
        for &k in &mine {
            let c = &pc.contacts[k];
            let _ = writeln!(
                out,
                "    c{k}: {:?}–{:?} ψ {:.3e} appl {:.3} linearized end gap {:.3e}",
                c.feature_a, c.feature_b, c.psi, c.applicability, lin[k]
            );
        }
        if mine.is_empty() {
            out.push_str(
                "  verdict (a): no potential contact of the vertex at the start (no row)\n",
            );
            continue;
        }
        write_verdict(&pc, &mine, &lin, &mut out);
    }
    if !out.is_empty() {
        diag::emit(diag::Output::Stderr(out));
    }
}

/// What the edge–edge attribution reads of the step ([`attribute_edges`]): the
/// end's world vertices and face planes of A and of B.
struct EdgeAttrib<'a> {
    state: &'a [BodyState],
    poses: &'a [crate::math::Pose],
    h: f64,
    eps: f64,
    eps_theta: f64,
    bodies: (usize, usize),
    ends: (WorldHull<'a>, WorldHull<'a>),
}

/// A polytope's world vertices and face planes (n, d) at one pose.
type WorldHull<'a> = (&'a [Vec3], &'a [(Vec3, f64)]);

/// The part of segment p₀p₁ inside the convex polytope of `planes` (n·x ≤ d):
/// its parameter interval [t₀, t₁] ⊂ [0, 1], or `None`.
fn segment_inside(p0: Vec3, p1: Vec3, planes: &[(Vec3, f64)]) -> Option<(f64, f64)> {
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    let e = p1 - p0;
    for (n, d) in planes {
        let (f0, de) = (n.dot(&p0) - d, n.dot(&e));
        if de.abs() < 1e-15 {
            if f0 > 0.0 {
                return None;
            }
            continue;
        }
        let t = -f0 / de;
        if de > 0.0 {
            t1 = t1.min(t);
        } else {
            t0 = t0.max(t);
        }
    }
    (t1 > t0).then_some((t0, t1))
}

/// The closest points of segments p₀p₁ and q₀q₁ (clamped parameters).
fn segment_closest(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> (Vec3, Vec3) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.dot(&d1), d2.dot(&d2), d2.dot(&r));
    let (c, b) = (d1.dot(&r), d1.dot(&d2));
    let den = a * e - b * b;
    let mut s = if den > 1e-18 {
        ((b * f - c * e) / den).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = if e > 1e-18 { (b * s + f) / e } else { 0.0 };
    if t < 0.0 {
        t = 0.0;
        s = if a > 1e-18 {
            (-c / a).clamp(0.0, 1.0)
        } else {
            0.0
        };
    } else if t > 1.0 {
        t = 1.0;
        s = if a > 1e-18 {
            ((b - c) / a).clamp(0.0, 1.0)
        } else {
            0.0
        };
    }
    (p0 + d1 * s, q0 + d2 * t)
}

/// The edge–edge attribution of a rise with no vertex inside (verdict (e) of
/// [`attribute_overlap`]; peg36): at the end, of the edges of A inside B and of B
/// inside A the pair whose axis e_a × e_b penetrates least (the separating axis
/// test over those axes: the crossing pair), their separation along
/// n = e_a × e_b (oriented from B to A by the vertex means) at the start and at
/// the end, the start's potential contacts of that edge pair (eq. (35)'s
/// edge–edge U) — or, if it has none, those naming either edge (the vertex–edge
/// sets of eq. (36)) — with ψ, applicability and linearized end gap at ν⁺, the
/// constraints over them and the verdict (a) no potential contact of the pair
/// (no row), (b) violated at ν⁺, (c) held at ν⁺ (the linearization).
fn attribute_edges(
    c: &EdgeAttrib<'_>,
    (a, b): (usize, usize),
    (ha, hb): (&ConvexPolytope, &ConvexPolytope),
    pw: &PegWorkspace,
    out: &mut String,
) {
    let ((va, pa), (vb, pb)) = c.ends;
    // The edges of one body with a part inside the other at the end, with that
    // part's length.
    let inside = |h: &ConvexPolytope, v: &[Vec3], planes: &[(Vec3, f64)]| -> Vec<(usize, f64)> {
        h.edges
            .iter()
            .enumerate()
            .filter_map(|(k, e)| {
                let (p0, p1) = (v[e.v[0]], v[e.v[1]]);
                segment_inside(p0, p1, planes).map(|(t0, t1)| (k, (t1 - t0) * (p1 - p0).norm()))
            })
            .collect()
    };
    // The crossing pair: of the edges inside the other body, the pair whose axis
    // e_a × e_b separates the end poses' vertex sets least badly (the separating
    // axis test's least penetration over these edge axes).
    let (ia, ib) = (inside(ha, va, pb), inside(hb, vb, pa));
    let mut best: Option<(usize, f64, usize, f64, f64)> = None;
    for &(ka, la) in &ia {
        for &(kb, lb) in &ib {
            let (ea_, eb_) = (&ha.edges[ka], &hb.edges[kb]);
            let m = (va[ea_.v[1]] - va[ea_.v[0]]).cross(&(vb[eb_.v[1]] - vb[eb_.v[0]]));
            if m.norm() <= 1e-12 {
                continue;
            }
            let m = m.normalize();
            let span = |v: &[Vec3], n: Vec3| {
                v.iter()
                    .map(|x| n.dot(x))
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
                        (lo.min(y), hi.max(y))
                    })
            };
            let ((alo, ahi), (blo, bhi)) = (span(va, m), span(vb, m));
            let gap = (alo - bhi).max(blo - ahi);
            if best.is_none_or(|bb| gap > bb.4) {
                best = Some((ka, la, kb, lb, gap));
            }
        }
    }
    let Some((ea, la, eb, lb, _)) = best else {
        out.push_str("  edges: no edge of A inside B and of B inside A at the end\n");
        return;
    };
    let sep = |xa: &[Vec3], xb: &[Vec3]| {
        let (a0, a1) = (xa[ha.edges[ea].v[0]], xa[ha.edges[ea].v[1]]);
        let (b0, b1) = (xb[hb.edges[eb].v[0]], xb[hb.edges[eb].v[1]]);
        let n = (a1 - a0).cross(&(b1 - b0));
        let (qa, qb) = segment_closest(a0, a1, b0, b1);
        let ma = xa.iter().sum::<Vec3>() / xa.len().max(1) as f64;
        let mb = xb.iter().sum::<Vec3>() / xb.len().max(1) as f64;
        let n = if n.norm() > 1e-12 {
            n.normalize()
        } else {
            Vec3::zeros()
        };
        let n = if n.dot(&(ma - mb)) < 0.0 { -n } else { n };
        (n.dot(&(qa - qb)), (qa - qb).norm())
    };
    let (mut va0, mut pa0, mut vb0, mut pb0) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    ha.world_into(&c.poses[a], &mut va0, &mut pa0);
    hb.world_into(&c.poses[b], &mut vb0, &mut pb0);
    let (s0, d0) = sep(&va0, &vb0);
    let (s1, d1) = sep(va, vb);
    let _ = writeln!(
        out,
        "  edges: edge {ea} of A {la:.3e} m inside B, edge {eb} of B {lb:.3e} m inside A; their \
         separation along e_a × e_b {s0:.3e} m at the start (segments {d0:.3e} m apart), \
         {s1:.3e} m at the end ({d1:.3e} m)"
    );
    let pc = traced_contacts(
        (ha, &c.poses[a]),
        (hb, &c.poses[b]),
        &pw.feature_params(c.eps, c.eps_theta),
    );
    let (sa, sb) = (&c.state[c.bodies.0], &c.state[c.bodies.1]);
    let x0 = |s: &BodyState| s.x - c.h * s.v;
    let (ca, cb) = (x0(sa), x0(sb));
    let lin: Vec<f64> = pc
        .contacts
        .iter()
        .map(|k| {
            let ua = sa.v + sa.w.cross(&(k.p_a - ca));
            let ub = sb.v + sb.w.cross(&(k.p_b - cb));
            k.psi + c.h * k.normal.dot(&(ua - ub))
        })
        .collect();
    let (fa, fb) = (Feature::Edge(ea as u32), Feature::Edge(eb as u32));
    let mut mine: Vec<usize> = (0..pc.contacts.len())
        .filter(|&k| pc.contacts[k].feature_a == fa && pc.contacts[k].feature_b == fb)
        .collect();
    let pair = !mine.is_empty();
    if !pair {
        mine = (0..pc.contacts.len())
            .filter(|&k| pc.contacts[k].feature_a == fa || pc.contacts[k].feature_b == fb)
            .collect();
    }
    let _ = writeln!(
        out,
        "  start: {} potential contacts of the pair; {} of edge {ea} – edge {eb}{}",
        pc.contacts.len(),
        mine.len(),
        if pair {
            ""
        } else {
            " (none: those naming either edge)"
        }
    );
    for &k in &mine {
        let x = &pc.contacts[k];
        let _ = writeln!(
            out,
            "    c{k}: {:?}–{:?} ψ {:.3e} appl {:.3} linearized end gap {:.3e}",
            x.feature_a, x.feature_b, x.psi, x.applicability, lin[k]
        );
    }
    if !pair {
        // Why the pair has no edge–edge contact (`features::potential_contacts`,
        // eq. (35)): its nearest points farther than ε apart, or within a vertex
        // radius r(w) = min(ε, half the shortest edge at w) of an endpoint (a
        // vertex configuration governs), or its applicability (eq. (31)) below
        // −ε_θ.
        let ((a0, a1), (b0, b1)) = (
            (va0[ha.edges[ea].v[0]], va0[ha.edges[ea].v[1]]),
            (vb0[hb.edges[eb].v[0]], vb0[hb.edges[eb].v[1]]),
        );
        let (qa, qb) = segment_closest(a0, a1, b0, b1);
        let radius = |h: &ConvexPolytope, v: &[Vec3], w: usize| {
            let shortest = h.vertex_edges[w]
                .iter()
                .map(|&e| (v[h.edges[e].v[1]] - v[h.edges[e].v[0]]).norm())
                .fold(f64::INFINITY, f64::min);
            c.eps.min(0.5 * shortest)
        };
        let ends = |h: &ConvexPolytope, v: &[Vec3], e: usize, q: Vec3| {
            let mut t = String::new();
            for &w in &h.edges[e].v {
                let _ = write!(
                    t,
                    " v{w} {:.3e} (r {:.3e})",
                    (q - v[w]).norm(),
                    radius(h, v, w)
                );
            }
            t
        };
        let frame = |v: &[Vec3], planes: &[(Vec3, f64)], h: &ConvexPolytope, e: usize| {
            let ed = &h.edges[e];
            let u = (v[ed.v[1]] - v[ed.v[0]]).normalize();
            (
                u,
                planes[ed.faces[0]].0.cross(&u),
                u.cross(&planes[ed.faces[1]].0),
            )
        };
        let (ua, ta1, ta2) = frame(&va0, &pa0, ha, ea);
        let (ub, tb1, tb2) = frame(&vb0, &pb0, hb, eb);
        let m = ua.cross(&ub);
        let appl = if m.norm() > 1e-6 {
            let m = m.normalize();
            let f = |n: Vec3| {
                n.dot(&ta1)
                    .min(n.dot(&ta2))
                    .min(-n.dot(&tb1))
                    .min(-n.dot(&tb2))
            };
            f(m).max(f(-m))
        } else {
            f64::NAN
        };
        let _ = writeln!(
            out,
            "  why no edge–edge contact: nearest points {:.3e} m apart (ε {:.3e}); from A's \
             endpoints{}; from B's endpoints{}; applicability {appl:.3} (needs ≥ −ε_θ = {:.3})",
            (qa - qb).norm(),
            c.eps,
            ends(ha, &va0, ea, qa),
            ends(hb, &vb0, eb, qb),
            -c.eps_theta
        );
    }
    if mine.is_empty() {
        out.push_str(
            "  verdict (e-a): no potential contact of either crossing edge at the start (no row)\n",
        );
        return;
    }
    if !pair {
        out.push_str("  (e-a): no edge–edge potential contact of the crossing pair at the start\n");
    }
    write_verdict(&pc, &mine, &lin, out);
}

/// What the planar attribution reads of the step ([`attribute_2d`]).
struct Attrib2<'a> {
    model: &'a Model,
    state: &'a [BodyState],
    poses: &'a [crate::math::Pose],
    h: f64,
    eps: f64,
    eps_theta: f64,
}

/// The planar world's attribution of a pair's rise (peg21; `RTPHYS_PEG_ATTRIB=1`,
/// as [`attribute_overlap`] in 3D, on the polygons and the 2D potential
/// contacts the step built, `polygon::potential_contacts_2d`): the deepest
/// vertex of either polygon inside the other at the end (and the edge it is
/// least deep behind), its distance to that edge's line at the start, the
/// vertex's potential contacts at the start with ψ, applicability and their
/// linearized end gap ψ + h nᵀ(u_a − u_b) at ν⁺, the constraints over them, the
/// values that decided the vertex's configuration (its distance to the other
/// polygon's nearest vertex against the vertex radius, to its nearest edge
/// against ε; its applicability against that edge, eq. (29), against −ε_θ) and
/// the verdict (a)/(b)/(c)/(e) of [`attribute_overlap`].
fn attribute_2d(c: &Attrib2<'_>, (a, b): (usize, usize), ls: &LcpWorkspace, out: &mut String) {
    use crate::math::{Point2, Vec2};
    let model = c.model;
    if !c.eps.is_finite() {
        out.push_str("  verdict (s): not a PEG pair this step (no potential contacts)\n");
        return;
    }
    let (Some(Some(pa)), Some(Some(pb))) = (ls.peg.polygon.get(a), ls.peg.polygon.get(b)) else {
        return;
    };
    let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
    let (sa, sb) = (&c.state[ga.body], &c.state[gb.body]);
    let end = |g: &crate::model::Geom| planar_pose(&(c.state[g.body].pose() * g.x_bg));
    let (Some(xa1), Some(xb1), Some(xa0), Some(xb0)) = (
        end(ga),
        end(gb),
        planar_pose(&c.poses[a]),
        planar_pose(&c.poses[b]),
    ) else {
        out.push_str("  (2D) a pose left the plane\n");
        return;
    };
    // World vertices and edges (outward normal, offset; edge i from vertex i to i+1).
    let world = |p: &ConvexPolygon, x: &crate::math::Pose2| {
        let v: Vec<Vec2> = p
            .vertices
            .iter()
            .map(|q| (x * Point2::from(*q)).coords)
            .collect();
        let n = v.len();
        let e: Vec<(Vec2, f64)> = (0..n)
            .map(|i| {
                let d = v[(i + 1) % n] - v[i];
                let l = d.norm();
                let nrm = if l > 0.0 {
                    Vec2::new(d.y, -d.x) / l
                } else {
                    Vec2::zeros()
                };
                (nrm, nrm.dot(&v[i]))
            })
            .collect();
        (v, e)
    };
    let ((va1, ea1), (vb1, eb1)) = (world(pa, &xa1), world(pb, &xb1));
    let ((va0, ea0), (vb0, eb0)) = (world(pa, &xa0), world(pb, &xb0));
    let area = crate::collision::polygon::overlap_area(
        pa,
        &xa1,
        pb,
        &xb1,
        &mut crate::collision::polygon::AreaScratch::default(),
    );
    let area0 = crate::collision::polygon::overlap_area(
        pa,
        &xa0,
        pb,
        &xb0,
        &mut crate::collision::polygon::AreaScratch::default(),
    );
    let _ = writeln!(out, "  (2D) area {area0:.3e} → {area:.3e} m²");
    let deepest = |v: &[Vec2], e: &[(Vec2, f64)]| {
        let mut best: Option<(usize, usize, f64)> = None;
        for (k, x) in v.iter().enumerate() {
            let (f, s) = e
                .iter()
                .enumerate()
                .map(|(f, (n, d))| (f, n.dot(x) - d))
                .fold((0, f64::NEG_INFINITY), |m, q| if q.1 > m.1 { q } else { m });
            if s < 0.0 && best.is_none_or(|bb| -s > bb.2) {
                best = Some((k, f, -s));
            }
        }
        best
    };
    let pick = match (deepest(&va1, &eb1), deepest(&vb1, &ea1)) {
        (Some(x), Some(y)) => Some(if x.2 >= y.2 { (true, x) } else { (false, y) }),
        (Some(x), None) => Some((true, x)),
        (None, Some(y)) => Some((false, y)),
        (None, None) => None,
    };
    let name = |g: &crate::model::Geom| model.bodies[g.body].name.clone();
    let Some((of_a, (vtx, edge, depth))) = pick else {
        out.push_str("  verdict (e): no vertex inside (2D)\n");
        return;
    };
    let (pv0, qv0, qe0) = if of_a {
        (&va0, &vb0, &eb0)
    } else {
        (&vb0, &va0, &ea0)
    };
    let v = pv0[vtx];
    let start_gap = qe0[edge].0.dot(&v) - qe0[edge].1;
    let _ = writeln!(
        out,
        "  deepest: vertex {vtx} of {} inside {} by {depth:.3e} m, least deep behind edge {edge}; \
         at the start {start_gap:.3e} m from that edge's line",
        if of_a { name(ga) } else { name(gb) },
        if of_a { name(gb) } else { name(ga) },
    );
    // What decides its configuration (polygon.rs, "Classification"): the
    // nearest vertex of the other polygon against its radius, the nearest edge
    // against ε, and the applicability (eq. (29)) against the end's edge.
    let nq = qv0.len();
    let radius = |w: usize| {
        let l1 = (qv0[(w + 1) % nq] - qv0[w]).norm();
        let l0 = (qv0[w] - qv0[(w + nq - 1) % nq]).norm();
        (0.5 * l0.min(l1)).min(c.eps)
    };
    let (w, dw) = (0..nq)
        .map(|w| (w, (v - qv0[w]).norm()))
        .fold((0, f64::INFINITY), |m, q| if q.1 < m.1 { q } else { m });
    let seg = |i: usize| {
        let (p0, p1) = (qv0[i], qv0[(i + 1) % nq]);
        let d = p1 - p0;
        let t = ((v - p0).dot(&d) / d.norm_squared().max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
        (v - (p0 + d * t)).norm()
    };
    let (ei, de) = (0..nq)
        .map(|i| (i, seg(i)))
        .fold((0, f64::INFINITY), |m, q| if q.1 < m.1 { q } else { m });
    let np = pv0.len();
    let appl = |n: &Vec2| {
        [pv0[(vtx + 1) % np], pv0[(vtx + np - 1) % np]]
            .iter()
            .map(|k| {
                let d = k - v;
                let l = d.norm();
                if l > 0.0 {
                    n.dot(&d) / l
                } else {
                    f64::INFINITY
                }
            })
            .fold(f64::INFINITY, f64::min)
    };
    let ap = appl(&qe0[edge].0);
    let theta = if ap >= 0.0 {
        0.0
    } else {
        (-ap).min(1.0).asin().to_degrees()
    };
    let w0 = |g: &crate::model::Geom| ls.peg.w2_pred.get(g.body).copied().unwrap_or(0.0).sqrt();
    let _ = writeln!(
        out,
        "  decided by: nearest vertex {w} at {dw:.3e} m (radius {:.3e}), nearest edge {ei} at {de:.3e} m \
         (ε {:.3e}); applicability against edge {edge} {ap:.3} (needs ≥ −ε_θ = {:.3}; θ to pass {theta:.1}°); \
         h(|ω_a| + |ω_b|) at the start {:.1}°, at ν⁺ {:.1}°",
        radius(w),
        c.eps,
        -c.eps_theta,
        (c.h * (w0(ga) + w0(gb))).to_degrees(),
        (c.h * (sa.w.norm() + sb.w.norm())).to_degrees(),
    );
    let params = ls.peg.feature_params(c.eps, c.eps_theta);
    let mut pc = PotentialContacts2::default();
    potential_contacts_2d(
        pa,
        &xa0,
        pb,
        &xb0,
        &params,
        &mut PolygonScratch::default(),
        &mut pc,
    );
    let x0 = |s: &BodyState| s.x - c.h * s.v;
    let (ca, cb) = (x0(sa), x0(sb));
    let lin: Vec<f64> = pc
        .contacts
        .iter()
        .map(|k| {
            let ra = Vec3::new(k.p_a.x - ca.x, k.p_a.y - ca.y, 0.0);
            let rb = Vec3::new(k.p_b.x - cb.x, k.p_b.y - cb.y, 0.0);
            let ua = sa.v + sa.w.cross(&ra);
            let ub = sb.v + sb.w.cross(&rb);
            k.psi + c.h * (k.normal.x * (ua.x - ub.x) + k.normal.y * (ua.y - ub.y))
        })
        .collect();
    let me = Feature2::Vertex(vtx as u32);
    let mine: Vec<usize> = pc
        .contacts
        .iter()
        .enumerate()
        .filter(|(_, k)| {
            if of_a {
                k.feature_a == me
            } else {
                k.feature_b == me
            }
        })
        .map(|(i, _)| i)
        .collect();
    let _ = writeln!(
        out,
        "  start: {} potential contacts of the pair, {} of the vertex",
        pc.contacts.len(),
        mine.len()
    );
    for &i in &mine {
        let k = &pc.contacts[i];
        let _ = writeln!(
            out,
            "    c{i}: {:?}–{:?} ψ {:.3e} appl {:.3} linearized end gap {:.3e}",
            k.feature_a, k.feature_b, k.psi, k.applicability, lin[i]
        );
    }
    if mine.is_empty() {
        out.push_str("  verdict (a): no potential contact of the vertex at the start (no row)\n");
        return;
    }
    write_verdict(&pc, &mine, &lin, out);
}

/// The attribution's verdict for a vertex whose potential contacts are `mine` (of
/// `pc`, linearized end gaps `lin`): the constraints over them with their largest
/// member's linearized value, then (a) no constraint, (b) one violated at ν⁺, or
/// (c) all held (the linearization). Shared by the 3D and 2D attributions.
fn write_verdict<C>(pc: &ContactSets<C>, mine: &[usize], lin: &[f64], out: &mut String) {
    let (mut worst, mut held_by) = (f64::INFINITY, 0);
    for con in &pc.constraints {
        let m = |r: &std::ops::Range<u32>| pc.members[r.start as usize..r.end as usize].to_vec();
        let ids: Vec<u32> = match con {
            Constraint::Unilateral { contact } => vec![*contact],
            Constraint::Intercontact { primary, others } => {
                let mut v = vec![*primary];
                v.extend(m(others));
                v
            }
            Constraint::Cross { a, b } => {
                let mut v = m(a);
                v.extend(m(b));
                v
            }
        };
        if !ids.iter().any(|&i| mine.contains(&(i as usize))) {
            continue;
        }
        held_by += 1;
        let val = ids
            .iter()
            .map(|&i| lin[i as usize])
            .fold(f64::NEG_INFINITY, f64::max);
        worst = worst.min(val);
        let _ = writeln!(out, "    {con:?}: linearized value {val:.3e}");
    }
    let verdict = if held_by == 0 {
        "(a) the vertex's contacts are in no constraint (no row)"
    } else if worst < -1e-9 {
        "(b) a constraint over the vertex is violated at ν⁺ (the solve did not enforce it)"
    } else {
        "(c) every constraint over the vertex holds at ν⁺; the integrated poses overlap (linearization)"
    };
    let _ = writeln!(
        out,
        "  verdict {verdict}; least linearized value {worst:.3e}"
    );
}

/// The potential contacts of a pair as the step built them (reach `eps`, rotation
/// allowance `eps_theta` when finite), recomputed for the diagnostics
/// (`RTPHYS_PEG_TRACE`, `RTPHYS_PEG_ATTRIB`; they allocate, off the default path).
fn traced_contacts(
    (ha, pa): (&ConvexPolytope, &crate::math::Pose),
    (hb, pb): (&ConvexPolytope, &crate::math::Pose),
    params: &FeatureParams,
) -> PotentialContacts {
    let mut scratch = FeatureScratch::default();
    let mut pc = PotentialContacts::default();
    potential_contacts(ha, pa, hb, pb, params, &mut scratch, &mut pc);
    pc
}

impl PegWorkspace {
    /// The feature parameters of a pair at reach `eps` (and rotation allowance
    /// `eps_theta` when finite), with the workspace's `[lcp]` keys: the step's
    /// and the diagnostics' one rule.
    fn feature_params(&self, eps: f64, eps_theta: f64) -> FeatureParams {
        let mut params = FeatureParams::with_distance(eps);
        if eps_theta.is_finite() {
            params.eps_theta = eps_theta;
        }
        params.one_sided_vertex_vertex = self.vv_one_sided;
        params.feasible_completion = self.vv_feasible;
        params.paired_primaries = self.vv_paired;
        params.edge_edge_uncovered = self.ee_uncovered;
        params
    }
}
