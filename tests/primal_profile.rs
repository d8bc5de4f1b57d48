//! A profiling harness for the primal solver on the resting 20-pile (issue 14,
//! lcp15), not a test of physics: `#[ignore]`d, run by hand under callgrind.
//!
//! The pile is `experiments::pile_scene(PileKind::Bench, 20, 7)` (the bench's
//! `pile20`) under `--method lcp --lcp-solver primal`, settled 3,000 steps (the
//! bench's 3 s) with callgrind's instrumentation off, then stepped `WINDOW`
//! steps with it on (callgrind's client requests START/STOP_INSTRUMENTATION,
//! no-ops outside valgrind). It prints the window's counters per step
//! (factorizations, Newton steps, passes, islands to Newton, failures) and a
//! checksum of the final state (bit-exact: equal checksums before and after an
//! exact cut). Command (docs/BENCHMARKS.md, lcp15):
//!
//! ```text
//! cargo test --release --test primal_profile --no-run
//! valgrind --tool=callgrind --instr-atstart=no --toggle-collect='*Pipeline::step_with*' \
//!     --callgrind-out-file=/tmp/cg.out target/release/deps/primal_profile-HASH \
//!     --ignored --nocapture --test-threads=1
//! callgrind_annotate --inclusive=yes /tmp/cg.out
//! ```

mod common;
#[path = "common/scene_problems.rs"]
mod scene_problems;

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::{load_scene_str, MethodName};
use rtphys::model::{FrictionModel, LcpSolverKind, Method};
use rtphys::run::apply_overrides;
use rtphys::solver::primal::{PassRecord, NO_BODY};
use rtphys::solver::{
    BodyRows, ContactProblem, DofRows, LineSearch, PrimalParams, PrimalResults, PrimalSolver,
    PrimalStatus,
};
use rtphys::tools::bench::{robot_command, RobotCase};
use rtphys::{Data, Pipeline};
use scene_problems::velocity_change;
use std::path::Path;
use std::sync::Mutex;

/// Settling steps (the bench's 3 s at dt = 1 ms) and profiled steps.
const SETTLE: usize = 3000;
const WINDOW: usize = 300;

/// Callgrind's client request `code` (valgrind.h's amd64 special instruction
/// sequence: four rotations of rdi by 128 bits in all, a no-op, then `xchg rbx,
/// rbx`, which valgrind intercepts; natively the sequence does nothing).
#[cfg(target_arch = "x86_64")]
fn callgrind_request(code: u64) {
    let args: [u64; 6] = [code, 0, 0, 0, 0, 0];
    // SAFETY: the sequence leaves every register but rdx as it was (rdi is
    // rotated by 3 + 13 + 61 + 51 = 128 bits, i.e. unchanged; rbx is exchanged
    // with itself); valgrind reads `args` (6 words, alive for the call) and
    // writes its result to rdx, declared as an output.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") 0u64 => _,
            in("rax") args.as_ptr(),
            inout("rdi") 0u64 => _,
            options(nostack),
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn callgrind_request(_code: u64) {}

/// `VG_USERREQ_TOOL_BASE('C', 'T')` + 4 and + 5 (callgrind.h).
const START_INSTRUMENTATION: u64 = (0x43 << 24) | (0x54 << 16) | 4;
const STOP_INSTRUMENTATION: u64 = (0x43 << 24) | (0x54 << 16) | 5;

/// The settling steps: [`SETTLE`], or `PROFILE_SETTLE=N` (lcp32: `0`, the
/// window is the drop itself).
fn settle() -> usize {
    std::env::var("PROFILE_SETTLE")
        .ok()
        .and_then(|w| w.parse::<usize>().ok())
        .unwrap_or(SETTLE)
}

/// `[lcp] friction` of the harness's pile: the scene's (`"point"`), or
/// `PROFILE_FRICTION=patch` (lcp33: the face patches' cones).
fn friction() -> FrictionModel {
    match std::env::var("PROFILE_FRICTION").ok().as_deref() {
        Some("patch") => FrictionModel::Patch,
        _ => FrictionModel::Point,
    }
}

/// `[lcp] split_memory` of the harness's pile: the scene's (0), or
/// `PROFILE_SPLIT=σ` (lcp34: the split held toward the last tick's loads).
fn split_memory() -> f64 {
    std::env::var("PROFILE_SPLIT")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// The bench's pile20 under `--method lcp --lcp-solver primal`, settled
/// [`settle`] steps.
fn settled_pile() -> (rtphys::Model, Data, Pipeline) {
    let text = pile_scene(PileKind::Bench, 20, 7);
    let model = load_scene_str(&text, "pile20", Path::new(".")).expect("the bench pile loads");
    let mut model = apply_overrides(&model, Some(MethodName::Lcp), None, None).expect("lcp");
    if let Method::Lcp(mut p) = model.opt.method {
        p.solver = LcpSolverKind::Primal;
        p.friction = friction();
        p.split_memory = split_memory();
        let mut opt = model.opt;
        opt.method = Method::Lcp(p);
        model = model.with_options(opt);
    }
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    for _ in 0..settle() {
        pipeline.step(&model, &mut data);
    }
    (model, data, pipeline)
}

/// The window's steps: [`WINDOW`], or `PROFILE_WINDOW=N` (lcp31: the settled
/// pile's islands to Newton over a longer window).
fn window() -> usize {
    std::env::var("PROFILE_WINDOW")
        .ok()
        .and_then(|w| w.parse::<usize>().ok())
        .unwrap_or(WINDOW)
}

#[test]
#[ignore = "a profiling harness (run under callgrind by hand, docs/BENCHMARKS.md lcp15)"]
fn profile_pile20_primal() {
    let window = window();
    let (model, mut data, mut pipeline) = settled_pile();
    let s0 = data.stats.clone();
    let (mut iters, mut contacts) = (0usize, 0usize);
    callgrind_request(START_INSTRUMENTATION);
    for _ in 0..window {
        pipeline.step(&model, &mut data);
        iters += data.stats.solver_iterations;
        contacts += data.stats.lcp_size / 3;
    }
    callgrind_request(STOP_INSTRUMENTATION);
    let s1 = &data.stats;
    // The window measured the primal solver (the pipeline did not fall back to
    // another solver for the whole of it).
    assert!(
        s1.primal_passes > s0.primal_passes,
        "no primal pass in the window"
    );
    let w = window as f64;
    let mut hash = 0u64;
    for s in &data.state {
        for v in s.x.iter().chain(s.v.iter()).chain(s.w.iter()) {
            hash = hash.rotate_left(7) ^ v.to_bits();
        }
    }
    println!(
        "pile20 primal, {window} steps after {}: points {:.2}, Newton steps {:.2}, \
         factorizations {:.2}, passes {:.2}, islands to Newton {:.3}, failures {} per window; \
         state checksum {hash:016x}",
        settle(),
        contacts as f64 / w,
        iters as f64 / w,
        (s1.newton_factorizations - s0.newton_factorizations) as f64 / w,
        (s1.primal_passes - s0.primal_passes) as f64 / w,
        (s1.primal_fallback_islands - s0.primal_fallback_islands) as f64 / w,
        s1.solver_failures - s0.solver_failures,
    );
}

/// The rover (`diffdrive.toml`) under `--method lcp --lcp-solver primal`
/// driven by the bench's controller (`bench robots`' `diffdrive`: wheel
/// speeds 4 and 5 rad/s, a wide left curve; lcp35), settled as the bench
/// does (1 s), or `PROFILE_SETTLE=N` steps.
fn driven_rover() -> (rtphys::Model, Data, Pipeline) {
    driven(RobotCase::Rover, 1000)
}

/// The arm on the table and the humanoid as `bench robots` drives them
/// (settled 2 s), for [`same_problems`] (lcp35: the DoF islands' options on
/// the other robots).
fn driven_arm_table() -> (rtphys::Model, Data, Pipeline) {
    driven(RobotCase::ArmTable, 2000)
}

fn driven_humanoid() -> (rtphys::Model, Data, Pipeline) {
    driven(RobotCase::Humanoid, 2000)
}

fn arm_table_step(model: &rtphys::Model, data: &mut Data, pipeline: &mut Pipeline) {
    robot_command(RobotCase::ArmTable, model, data);
    pipeline.step(model, data);
}

fn humanoid_step(model: &rtphys::Model, data: &mut Data, pipeline: &mut Pipeline) {
    robot_command(RobotCase::Humanoid, model, data);
    pipeline.step(model, data);
}

/// A robot case's scene under primal, settled `PROFILE_SETTLE` or `settle`
/// steps under its controller.
fn driven(case: RobotCase, settle: usize) -> (rtphys::Model, Data, Pipeline) {
    let model = rtphys::model::scene::load_scene_file(Path::new(case.scene()))
        .expect("the robot's scene loads");
    let mut model = apply_overrides(&model, Some(MethodName::Lcp), None, None).expect("lcp");
    if let Method::Lcp(mut p) = model.opt.method {
        p.solver = LcpSolverKind::Primal;
        let mut opt = model.opt;
        opt.method = Method::Lcp(p);
        model = model.with_options(opt);
    }
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let settle = std::env::var("PROFILE_SETTLE")
        .ok()
        .and_then(|w| w.parse::<usize>().ok())
        .unwrap_or(settle);
    for _ in 0..settle {
        robot_command(case, &model, &mut data);
        pipeline.step(&model, &mut data);
    }
    (model, data, pipeline)
}

/// One step of the driven rover: the controller's set-points, then the step.
fn rover_step(model: &rtphys::Model, data: &mut Data, pipeline: &mut Pipeline) {
    robot_command(RobotCase::Rover, model, data);
    pipeline.step(model, data);
}

/// The driven rover's window ([`driven_rover`], lcp35), as
/// [`profile_pile20_primal`]: its counters per step and a checksum of the
/// final state (the bodies' and the robot's links' states).
///
/// ```text
/// valgrind --tool=callgrind --instr-atstart=no --toggle-collect='*Pipeline::step_with*' \
///     BIN --ignored --nocapture --test-threads=1 profile_rover_primal
/// ```
#[test]
#[ignore = "a profiling harness (run under callgrind by hand, docs/BENCHMARKS.md lcp35)"]
fn profile_rover_primal() {
    let window = window();
    let (model, mut data, mut pipeline) = driven_rover();
    let s0 = data.stats.clone();
    let (mut iters, mut contacts) = (0usize, 0usize);
    callgrind_request(START_INSTRUMENTATION);
    for _ in 0..window {
        rover_step(&model, &mut data, &mut pipeline);
        iters += data.stats.solver_iterations;
        contacts += data.stats.lcp_size / 3;
    }
    callgrind_request(STOP_INSTRUMENTATION);
    let s1 = &data.stats;
    assert!(
        s1.primal_passes > s0.primal_passes,
        "no primal pass in the window"
    );
    let w = window as f64;
    let mut hash = 0u64;
    for s in &data.state {
        for v in s.x.iter().chain(s.v.iter()).chain(s.w.iter()) {
            hash = hash.rotate_left(7) ^ v.to_bits();
        }
    }
    for v in data.qpos.iter().chain(&data.qvel) {
        hash = hash.rotate_left(7) ^ v.to_bits();
    }
    println!(
        "rover primal, {window} steps after the settling: points {:.2}, Newton steps {:.3}, \
         factorizations {:.3}, passes {:.3}, islands to Newton {:.3}, failures {} per window; \
         state checksum {hash:016x}",
        contacts as f64 / w,
        iters as f64 / w,
        (s1.newton_factorizations - s0.newton_factorizations) as f64 / w,
        (s1.primal_passes - s0.primal_passes) as f64 / w,
        (s1.primal_fallback_islands - s0.primal_fallback_islands) as f64 / w,
        s1.solver_failures - s0.solver_failures,
    );
}

// ---------------------------------------------------------------------------
// The same problems (lcp29): variants solved beside the pipeline's solve.
// ---------------------------------------------------------------------------

/// A variant of the pipeline's primal parameters: its name, the change, and
/// whether it is given the pipeline's guess (false: solved cold).
type Variant = (&'static str, fn(PrimalParams) -> PrimalParams, bool);

fn as_is(p: PrimalParams) -> PrimalParams {
    p
}

fn kinks(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        line_search: LineSearch::Kinks,
        ..p
    }
}

fn bracketed(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        line_search: LineSearch::Bracketed,
        ..p
    }
}

fn kinks_checked(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        line_search_check: true,
        ..kinks(p)
    }
}

/// The warm start's pieces off (Newton from `M⁻¹Gᵀ z_guess`, lcp14's reference).
fn cold_pieces(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        warm_pieces: false,
        ..p
    }
}

/// The first pass's radii at the warm minimizer (lcp30).
fn warm_radii(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        warm_radii: true,
        ..p
    }
}

/// The first pass's radii and centre at the warm minimizer (lcp30).
fn warm_centre(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        warm_centre: true,
        ..warm_radii(p)
    }
}

/// The kinks' search by lcp29's list of every breakpoint (lcp30's default
/// lists the loading kinks only).
fn full_list(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        full_kink_list: true,
        ..kinks(p)
    }
}

/// The guess tested first (lcp30).
fn guess_test(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        guess_test: true,
        ..p
    }
}

/// The block step on the full step's pieces (lcp31).
fn block(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        block_pieces: true,
        ..p
    }
}

/// The ρ continuation per pass (lcp31): pass k at max(ρ, start · ratio^k).
fn rho_a(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        rho_start: 1e-2,
        rho_ratio: 0.1,
        ..p
    }
}

fn rho_b(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        rho_start: 1e-4,
        rho_ratio: 0.1,
        ..p
    }
}

fn rho_c(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        rho_start: 1e-2,
        rho_ratio: 0.01,
        ..p
    }
}

fn rho_d(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        rho_start: 1e-1,
        rho_ratio: 0.1,
        ..p
    }
}

/// The default with the pieces' trace (lcp31).
fn traced(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        piece_trace: true,
        ..p
    }
}

/// The guess tested only where it is the last solve's answer to the same q
/// (lcp31).
fn guess_memo(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        guess_memo: true,
        ..p
    }
}

/// The guess memo off: no island tested at the guess (lcp30's default).
fn memo_off(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        guess_memo: false,
        ..p
    }
}

/// The default with every pass recorded (lcp32).
fn pass_traced(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        pass_trace: true,
        ..p
    }
}

/// Anderson's memory on the radii (lcp32; the default 3): 1, the plain update.
fn anderson_1(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        anderson: 1,
        ..pass_traced(p)
    }
}

fn anderson_2(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        anderson: 2,
        ..pass_traced(p)
    }
}

fn anderson_5(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        anderson: 5,
        ..pass_traced(p)
    }
}

/// Anderson on the radii with the safeguard (lcp32).
fn safeguard(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        anderson_safeguard: true,
        ..pass_traced(p)
    }
}

/// Anderson on the whole pass map (the centre and its radii).
fn centre_map(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        anderson_centre: true,
        ..pass_traced(p)
    }
}

/// The safeguard and the first pass's radii at the warm minimizer (lcp32).
fn safeguard_warm(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        warm_radii: true,
        ..safeguard(p)
    }
}

/// The warm minimizer's radii only where it keeps the guess's pieces (lcp32).
fn warm_guarded(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        warm_radii_guarded: true,
        ..warm_radii_traced(p)
    }
}

fn warm_guarded_safeguard(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        anderson_safeguard: true,
        ..warm_guarded(p)
    }
}

/// The first pass's radii scaled (lcp32).
fn scale_1e3(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        first_radii_scale: 1e3,
        first_radii_resting: 0.0,
        ..pass_traced(p)
    }
}

/// The first pass at the guess's radii everywhere (the default).
fn guess_radii(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        first_radii_scale: 1.0,
        first_radii_resting: 0.0,
        ..p
    }
}

/// The first pass's radii scaled where every point is loaded in the guess.
fn scale_loaded(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        first_radii_loaded: true,
        ..scale_1e3(p)
    }
}

/// The first pass's radii scaled on the points resting at their limit at
/// the warm minimizer (|w_t| ≤ k tolerances; lcp32).
fn resting_1(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        first_radii_resting: 1.0,
        ..scale_1e3(p)
    }
}

fn resting_1e3(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        first_radii_resting: 1e3,
        ..scale_1e3(p)
    }
}

fn resting_1e6(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        first_radii_resting: 1e6,
        ..scale_1e3(p)
    }
}

fn scale_2(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        first_radii_scale: 2.0,
        first_radii_resting: 0.0,
        ..pass_traced(p)
    }
}

fn warm_radii_traced(p: PrimalParams) -> PrimalParams {
    warm_radii(pass_traced(p))
}

/// The DoF-space islands' line search (lcp35): the kinks' search (the
/// default since lcp35), the breakpoints' walk.
fn dof_kinks(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        dof_line_search: LineSearch::Kinks,
        ..p
    }
}

/// lcp19–lcp34's DoF-space search: bracketed from α = 1.
fn dof_bracketed(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        dof_line_search: LineSearch::Bracketed,
        ..p
    }
}

fn dof_breakpoints(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        dof_line_search: LineSearch::Breakpoints,
        ..p
    }
}

/// The DoF islands' Newton on the radii from the first pass on every island
/// (lcp20 measured it on the rover's trajectory; here on the same problems).
fn dof_radius_newton(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        dof_radius_newton_points: usize::MAX,
        ..p
    }
}

/// The plain radii update (Anderson off) on the DoF islands too.
fn plain_radii(p: PrimalParams) -> PrimalParams {
    PrimalParams { anderson: 1, ..p }
}

/// The variants, the first the reference the others' impulses are compared
/// with (the pipeline's own parameters, `as is`).
const VARIANTS: &[Variant] = &[
    ("as is", as_is, true),
    ("bracketed", bracketed, true),
    ("kinks", kinks, true),
    ("kinks, checked", kinks_checked, true),
    ("no guess", as_is, false),
    ("cold pieces", cold_pieces, true),
    ("warm radii", warm_radii, true),
    ("warm radii and centre", warm_centre, true),
    ("guess tested", guess_test, true),
    ("kinks full list", full_list, true),
    ("traced", traced, true),
    ("guess memo", guess_memo, true),
    ("memo off", memo_off, true),
    ("block", block, true),
    ("rho 1e-2 x0.1", rho_a, true),
    ("rho 1e-4 x0.1", rho_b, true),
    ("rho 1e-2 x0.01", rho_c, true),
    ("rho 1e-1 x0.1", rho_d, true),
    ("pass trace", pass_traced, true),
    ("anderson 1", anderson_1, true),
    ("anderson 2", anderson_2, true),
    ("anderson 5", anderson_5, true),
    ("safeguard", safeguard, true),
    ("centre map", centre_map, true),
    ("warm radii traced", warm_radii_traced, true),
    ("safeguard warm radii", safeguard_warm, true),
    ("warm guarded", warm_guarded, true),
    ("warm guarded safeguard", warm_guarded_safeguard, true),
    ("first radii x1e3", scale_1e3, true),
    ("first radii x2", scale_2, true),
    ("first radii x1e3 loaded", scale_loaded, true),
    ("resting 1", resting_1, true),
    ("resting 1e3", resting_1e3, true),
    ("resting 1e6", resting_1e6, true),
    ("guess radii", guess_radii, true),
    // lcp33: the same problems with their face patches taken off (each point
    // its own cone; `observe`): under `PROFILE_FRICTION=patch`, the point
    // cones' count on the patch trajectory's problems.
    ("point cones", as_is, true),
    // lcp35: the DoF-space islands (the rover).
    ("dof kinks", dof_kinks, true),
    ("dof bracketed", dof_bracketed, true),
    ("dof breakpoints", dof_breakpoints, true),
    ("dof radius newton", dof_radius_newton, true),
    ("plain radii", plain_radii, true),
    ("frictionless", as_is, true),
    ("sticking", as_is, true),
];

/// Per variant, summed over the window's solves.
#[derive(Default, Clone, Copy)]
struct Sums {
    solves: usize,
    iterations: usize,
    factorizations: usize,
    passes: usize,
    evaluations: usize,
    failed_islands: usize,
    islands: usize,
    guess_converged: usize,
    guess_residuals: [usize; 6],
    /// The block step (lcp31): trials, kept, pieces gained by the kept ones.
    block: [usize; 3],
    trace: [usize; 8],
    guess_tested: usize,
    /// Islands whose warm radii were refused, Anderson steps rejected (lcp32).
    refused: usize,
    rejected: usize,
    scaled: usize,
    /// By the solve's place in its step (the pipeline's two solves a step on
    /// the pile, lcp26: even = the first, odd = the kept one): Newton steps,
    /// factorizations, passes, islands converged at the guess.
    by_kind: [[usize; 4]; 2],
    /// Per pass index 0, 1, 2, ≥ 3 ([`rtphys::solver::PrimalStats::pass_runs`]).
    pass_runs: [usize; 4],
    pass_iterations: [usize; 4],
    pass_factorizations: [usize; 4],
    /// The largest `max |δv − δv_ref| / max |δv_ref|` of the bodies' velocity
    /// changes `M⁻¹ Gᵀ z` over the solves where both converged (DoF rows:
    /// of `Gᵀ z`), and the solves where it is above 1e-8 (DoF rows, lcp35).
    worst: f64,
    apart: usize,
    /// With `line_search_check`: the Newton steps compared with the bracketed
    /// search, those whose α differ by more than 1e-12 relative, the largest
    /// difference over its bound and the largest relative difference.
    checks: usize,
    checks_above: usize,
    excess: f64,
    alpha_diff: f64,
}

struct Shadow {
    on: bool,
    /// The variants run ([`VARIANTS`], or those named in `SAME_VARIANTS`).
    variants: Vec<Variant>,
    res: Vec<PrimalResults>,
    sums: Vec<Sums>,
    /// Per variant with [`PrimalParams::pass_trace`]: its passes' records,
    /// each with the solve's index.
    traces: Vec<Vec<(usize, PassRecord)>>,
}

static SHADOW: Mutex<Option<Shadow>> = Mutex::new(None);

/// The [`rtphys::solver::primal::SolveObserver`]: every variant on the
/// pipeline's problem and guess, in the window.
fn observe(
    params: &PrimalParams,
    problem: &ContactProblem,
    rows: &BodyRows,
    dofs: Option<&DofRows>,
    guess: Option<&[f64]>,
) {
    let mut lock = SHADOW.lock().expect("shadow lock");
    let Some(sh) = lock.as_mut().filter(|s| s.on) else {
        return;
    };
    let mut status = Vec::with_capacity(sh.variants.len());
    let mut points = None;
    for (v, &(name, vary, warm)) in sh.variants.iter().enumerate() {
        let solver = PrimalSolver::new(vary(*params));
        let guess = guess.filter(|_| warm);
        // lcp35: where the DoF islands' passes come from — the same rows
        // without friction (μ = 0: no radius, the passes are the proximal
        // centre's alone) or with every point sticking (μ × 1e3: the radii
        // never bind). Other problems: their counts only, not their answers.
        let altered;
        let problem = if name == "point cones" {
            &*points.get_or_insert_with(|| ContactProblem {
                patch: Vec::new(),
                ..problem.clone()
            })
        } else if name == "frictionless" || name == "sticking" {
            let s = if name == "frictionless" { 0.0 } else { 1e3 };
            altered = ContactProblem {
                mu: problem.mu.iter().map(|m| s * m).collect(),
                ..problem.clone()
            };
            &altered
        } else {
            problem
        };
        status.push(solver.solve_contacts_dofs(problem, rows, dofs, guess, &mut sh.res[v]));
        let (st, s) = (&sh.res[v].stats, &mut sh.sums[v]);
        let kind = &mut s.by_kind[s.solves % 2];
        kind[0] += st.iterations;
        kind[1] += st.factorizations;
        kind[2] += st.passes;
        kind[3] += st.guess_converged;
        s.solves += 1;
        s.iterations += st.iterations;
        s.factorizations += st.factorizations;
        s.passes += st.passes;
        s.evaluations += st.line_search_evaluations;
        s.failed_islands += st.failed_islands;
        s.islands += st.islands;
        s.guess_converged += st.guess_converged;
        for k in 0..6 {
            s.guess_residuals[k] += st.guess_residuals[k];
        }
        for k in 0..4 {
            s.pass_runs[k] += st.pass_runs[k];
            s.pass_iterations[k] += st.pass_iterations[k];
            s.pass_factorizations[k] += st.pass_factorizations[k];
        }
        for k in 0..8 {
            s.trace[k] += st.piece_changes[k];
        }
        s.guess_tested += st.guess_tested;
        s.refused += st.warm_radii_refused;
        s.scaled += st.first_radii_scaled;
        s.rejected += st.anderson_rejected;
        let solve = s.solves - 1;
        sh.traces[v].extend(sh.res[v].pass_trace.iter().map(|r| (solve, *r)));
        s.block[0] += st.block_trials;
        s.block[1] += st.block_accepted;
        s.block[2] += st.block_pieces_gained;
        s.checks += st.line_search_checks;
        s.checks_above += st.line_search_checks_above;
        s.excess = s.excess.max(st.line_search_alpha_excess);
        s.alpha_diff = s.alpha_diff.max(st.line_search_alpha_diff);
    }
    if let Some(d) = dofs {
        // DoF-space islands (lcp35): the generalized impulses Gᵀz per DoF.
        let reference = generalized_impulse(d, &sh.res[0].z);
        let scale = reference.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        for v in 1..sh.variants.len() {
            if status[0] == PrimalStatus::Converged && status[v] == PrimalStatus::Converged {
                let g = generalized_impulse(d, &sh.res[v].z);
                let diff = g
                    .iter()
                    .zip(&reference)
                    .fold(0.0_f64, |a, (x, y)| a.max((x - y).abs()));
                let rel = diff / scale.max(f64::MIN_POSITIVE);
                sh.sums[v].worst = sh.sums[v].worst.max(rel);
                sh.sums[v].apart += usize::from(rel > 1e-8);
            }
        }
        return;
    }
    // Per body, the velocity change `M⁻¹ Gᵀ z` (the result the step uses: unique
    // where the impulses' split over dependent rows is not).
    let reference = velocity_change(rows, &sh.res[0].z);
    let scale = reference.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
    for v in 1..sh.variants.len() {
        if status[0] == PrimalStatus::Converged && status[v] == PrimalStatus::Converged {
            let d = velocity_change(rows, &sh.res[v].z)
                .iter()
                .zip(&reference)
                .fold(0.0_f64, |a, (x, y)| a.max((x - y).abs()));
            sh.sums[v].worst = sh.sums[v].worst.max(d / scale.max(f64::MIN_POSITIVE));
        }
    }
}

/// The generalized impulse `Gᵀ z` of a problem with DoF rows, its blocks one
/// after the other (lcp35: where the impulses' split over dependent rows is
/// not unique, Gᵀz is).
fn generalized_impulse(d: &DofRows, z: &[f64]) -> Vec<f64> {
    let mut start = Vec::with_capacity(d.ndof.len());
    let mut total = 0usize;
    for &n in &d.ndof {
        start.push(total);
        total += n as usize;
    }
    let mut y = vec![0.0; total];
    for (i, sides) in d.side.iter().enumerate() {
        for &(b, off) in sides {
            if b == NO_BODY {
                continue;
            }
            let n = d.ndof[b as usize] as usize;
            for a in 0..3 {
                for c in 0..n {
                    y[start[b as usize] + c] += d.jac[off + a * n + c] * z[3 * i + a];
                }
            }
        }
    }
    y
}

/// The same-problem comparison (lcp28's method, a harness since lcp29): the
/// pile settled as in [`profile_pile20_primal`], then over its window every
/// primal solve the pipeline makes is also solved by each of [`VARIANTS`] on
/// the same problem and guess (the pipeline keeps its own result, so the
/// trajectory is the profile's). Prints per variant and solve the Newton
/// steps, factorizations, passes, line-search evaluations and islands not
/// converged, and the largest difference of the bodies' velocity changes from the first
/// variant's.
/// Command (docs/BENCHMARKS.md, lcp29):
///
/// ```text
/// cargo test --release --test primal_profile -- --ignored --nocapture same_problems
/// SAME_VARIANTS=bracketed valgrind --tool=callgrind --instr-atstart=no \
///     --toggle-collect='*primal_profile::observe*' BIN --ignored --nocapture same_problems
/// ```
#[test]
#[ignore = "a measuring harness (docs/BENCHMARKS.md lcp29)"]
fn same_problems_pile20_primal() {
    same_problems("pile20", settled_pile, |m, d, p| p.step(m, d));
}

/// [`same_problems_pile20_primal`] on the driven rover (lcp35,
/// [`driven_rover`]): its one articulated island per solve, solved in DoF
/// space; the variants' generalized impulses `Gᵀz` compared.
///
/// ```text
/// cargo test --release --test primal_profile -- --ignored --nocapture same_problems_rover
/// ```
#[test]
#[ignore = "a measuring harness (docs/BENCHMARKS.md lcp35)"]
fn same_problems_rover_primal() {
    same_problems("rover", driven_rover, rover_step);
}

/// [`same_problems_rover_primal`] on the arm on the table and the humanoid
/// (lcp35).
#[test]
#[ignore = "a measuring harness (docs/BENCHMARKS.md lcp35)"]
fn same_problems_arm_table_primal() {
    same_problems("arm on table", driven_arm_table, arm_table_step);
}

#[test]
#[ignore = "a measuring harness (docs/BENCHMARKS.md lcp35)"]
fn same_problems_humanoid_primal() {
    same_problems("humanoid", driven_humanoid, humanoid_step);
}

/// The window's problems solved by every variant beside the pipeline.
fn same_problems(
    label: &str,
    setup: fn() -> (rtphys::Model, Data, Pipeline),
    step: fn(&rtphys::Model, &mut Data, &mut Pipeline),
) {
    assert!(
        rtphys::solver::primal::observe_solves(observe),
        "observer already set"
    );
    // `SAME_VARIANTS=name,name`: those variants only (e.g. one, for its
    // instructions under callgrind with `--toggle-collect='*observe*'`).
    let only = std::env::var("SAME_VARIANTS").ok();
    let variants: Vec<Variant> = VARIANTS
        .iter()
        .filter(|(name, _, _)| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|n| n == *name))
        })
        .copied()
        .collect();
    assert!(!variants.is_empty(), "no variant named in SAME_VARIANTS");
    *SHADOW.lock().expect("shadow lock") = Some(Shadow {
        on: false,
        res: variants.iter().map(|_| PrimalResults::default()).collect(),
        sums: vec![Sums::default(); variants.len()],
        traces: vec![Vec::new(); variants.len()],
        variants,
    });
    let (model, mut data, mut pipeline) = setup();
    SHADOW
        .lock()
        .expect("shadow lock")
        .as_mut()
        .expect("set")
        .on = true;
    let window = window();
    callgrind_request(START_INSTRUMENTATION);
    for _ in 0..window {
        step(&model, &mut data, &mut pipeline);
    }
    callgrind_request(STOP_INSTRUMENTATION);
    let lock = SHADOW.lock().expect("shadow lock");
    let sh = lock.as_ref().expect("set");
    assert!(sh.sums[0].solves > 0, "no primal solve in the window");
    println!(
        "{label} primal, the same problems over {window} steps after the settling, per solve:"
    );
    println!("variant | solves | Newton steps | factorizations | passes | line-search evaluations | islands not converged (window) | largest velocity-change difference (relative)");
    for (v, ((name, _, _), s)) in sh.variants.iter().zip(&sh.sums).enumerate() {
        let n = s.solves as f64;
        println!(
            "{name} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {:.2e}",
            s.solves,
            s.iterations as f64 / n,
            s.factorizations as f64 / n,
            s.passes as f64 / n,
            s.evaluations as f64 / n,
            s.failed_islands,
            s.worst
        );
        if s.apart > 0 {
            println!(
                "  {name}: {} solves apart by more than 1e-8 (relative Gᵀz)",
                s.apart
            );
        }
        println!(
            "  {name}: islands {:.2} per solve, {} converged at the guess of {} tested (window); per pass index 0 / 1 / 2 / ≥3: passes {:?}, \
             Newton steps {:?}, factorizations {:?} (window)",
            s.islands as f64 / n,
            s.guess_converged,
            s.guess_tested,
            s.pass_runs,
            s.pass_iterations,
            s.pass_factorizations
        );
        println!(
            "  {name}: even solves (first) / odd solves (kept), per solve: Newton steps {:.2} / \
             {:.2}, factorizations {:.2} / {:.2}, passes {:.2} / {:.2}; islands converged at \
             the guess {} / {}",
            s.by_kind[0][0] as f64 / (n / 2.0),
            s.by_kind[1][0] as f64 / (n / 2.0),
            s.by_kind[0][1] as f64 / (n / 2.0),
            s.by_kind[1][1] as f64 / (n / 2.0),
            s.by_kind[0][2] as f64 / (n / 2.0),
            s.by_kind[1][2] as f64 / (n / 2.0),
            s.by_kind[0][3],
            s.by_kind[1][3]
        );
        if s.guess_converged > 0 {
            println!(
                "  {name}: islands by the guess's residual over the tolerance (≤ 1, 10, 10², \
                 10³, 10⁴, more): {:?}",
                s.guess_residuals
            );
        }
        if s.trace[0] > 0 {
            println!(
                "  {name}: inner Newton steps {}, α < 1 {}, normal rows loaded {}, unloaded {}, \
                 tangent pieces changed on loaded rows {}; steps with 1 / 2 / ≥ 3 changes {} / {} / {} \
                 (window)",
                s.trace[0], s.trace[1], s.trace[2], s.trace[3], s.trace[4], s.trace[5], s.trace[6],
                s.trace[7]
            );
        }
        print_trace(name, &sh.traces[v], 1e-9);
        if s.refused + s.rejected + s.scaled > 0 {
            println!(
                "  {name}: warm radii refused on {} islands, Anderson steps rejected {}, first radii scaled on {} islands (window)",
                s.refused, s.rejected, s.scaled
            );
        }
        if s.block[0] > 0 {
            println!(
                "  {name}: block steps tried {}, kept {}, pieces gained by the kept {} (window)",
                s.block[0], s.block[1], s.block[2]
            );
        }
        if s.checks > 0 {
            println!(
                "  {name}: α checked against the bracketed search's at {} Newton steps: {} \
                 above 1e-12 relative, largest {:.2e} relative, {:.2e} of the bound",
                s.checks, s.checks_above, s.alpha_diff, s.excess
            );
        }
    }
}

/// The quartiles (25 %, 50 %, 75 %) of `v` (sorted here); NaNs dropped.
fn quartiles(v: &mut Vec<f64>) -> [f64; 3] {
    v.retain(|x| !x.is_nan());
    if v.is_empty() {
        return [f64::NAN; 3];
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    [at(0.25), at(0.5), at(0.75)]
}

/// The passes' trace (lcp32, [`PrimalParams::pass_trace`]): per pass index,
/// the islands reaching it, those it converged, the residual, the radii's
/// fixed-point residual (relative and largest), the proximal term's part of
/// w, the sliding points, Newton steps and factorizations; the contraction
/// of the radii's residual and of the island's residual from pass to pass;
/// the first pass's radii against the final ones. `tol` the tolerance.
fn print_trace(name: &str, trace: &[(usize, PassRecord)], tol: f64) {
    if trace.is_empty() {
        return;
    }
    const K: usize = 6;
    println!("  {name}: the passes (pass index: islands reaching it, converged there; quartiles of the residual / tol, the radii's change ‖μp_n − r‖/‖μp_n‖, its largest entry / tol, the proximal term max ρD|z − z_k| / tol; sliding points, Newton steps, factorizations per island)");
    for k in 0..K {
        let at: Vec<&PassRecord> = trace
            .iter()
            .map(|(_, r)| r)
            .filter(|r| {
                r.pass != u32::MAX && (r.pass as usize == k || (k == K - 1 && r.pass as usize >= k))
            })
            .collect();
        if at.is_empty() {
            continue;
        }
        let n = at.len();
        let conv = at.iter().filter(|r| r.residual <= tol).count();
        let q = |f: &dyn Fn(&PassRecord) -> f64| {
            let mut v: Vec<f64> = at.iter().map(|r| f(r)).collect();
            quartiles(&mut v)
        };
        let mean = |f: &dyn Fn(&PassRecord) -> f64| at.iter().map(|r| f(r)).sum::<f64>() / n as f64;
        println!(
            "    pass {}{}: {n}, {conv}; residual/tol {:.3e}; radii change {:.3e}; radius offset/tol {:.3e}; proximal/tol {:.3e}; sliding {:.2}, Newton {:.2}, fact {:.2}",
            k,
            if k == K - 1 { "+" } else { "" },
            q(&|r| r.residual / tol)[1],
            q(&|r| r.radius_change)[1],
            q(&|r| r.radius_offset / tol)[1],
            q(&|r| r.proximal / tol)[1],
            mean(&|r| r.sliding as f64),
            mean(&|r| r.iterations as f64),
            mean(&|r| r.factorizations as f64),
        );
        println!(
            "      quartiles: residual/tol {:?}; radii change {:?}; radius offset/tol {:?}; proximal/tol {:?}",
            q(&|r| r.residual / tol).map(|x| format!("{x:.2e}")),
            q(&|r| r.radius_change).map(|x| format!("{x:.2e}")),
            q(&|r| r.radius_offset / tol).map(|x| format!("{x:.2e}")),
            q(&|r| r.proximal / tol).map(|x| format!("{x:.2e}")),
        );
        // Of the passes not converged: which part is over the tolerance.
        let open: Vec<&&PassRecord> = at.iter().filter(|r| r.residual > tol).collect();
        let ro = open.iter().filter(|r| r.radius_offset > tol).count();
        let pr = open.iter().filter(|r| r.proximal > tol).count();
        let both = open
            .iter()
            .filter(|r| r.radius_offset > tol && r.proximal > tol)
            .count();
        println!(
            "      not converged {}: radius offset > tol {ro}, proximal > tol {pr}, both {both}, neither {}",
            open.len(),
            open.len() - ro - pr + both
        );
    }
    // Pass-to-pass ratios within an island.
    for (label, f) in [
        (
            "radii change",
            (|r: &PassRecord| r.radius_change) as fn(&PassRecord) -> f64,
        ),
        ("residual", |r: &PassRecord| r.residual),
        ("proximal", |r: &PassRecord| r.proximal),
    ] {
        let mut by = vec![Vec::new(); 4];
        for w in trace.windows(2) {
            let ((s0, a), (s1, b)) = (w[0], w[1]);
            if s0 == s1 && a.island == b.island && a.pass != u32::MAX && b.pass == a.pass + 1 {
                let (x, y) = (f(&a), f(&b));
                if x > 0.0 && x.is_finite() && y.is_finite() {
                    by[(a.pass as usize).min(3)].push(y / x);
                }
            }
        }
        let line: Vec<String> = by
            .iter_mut()
            .enumerate()
            .map(|(k, v)| {
                let n = v.len();
                let q = quartiles(v);
                format!(
                    "{k}→{}{}: {n}, {:.3} / {:.3} / {:.3}",
                    k + 1,
                    if k == 3 { "+" } else { "" },
                    q[0],
                    q[1],
                    q[2]
                )
            })
            .collect();
        println!(
            "    {label} ratio pass k+1 / pass k (count, quartiles): {}",
            line.join("; ")
        );
    }
    // The first pass's radii against the final ones, by passes taken.
    let ends: Vec<(usize, &PassRecord, usize)> = trace
        .iter()
        .enumerate()
        .filter(|(_, (_, r))| r.pass == u32::MAX)
        .map(|(j, (s, r))| {
            let passes = trace[..j]
                .iter()
                .rev()
                .take_while(|(s2, r2)| s2 == s && r2.island == r.island && r2.pass != u32::MAX)
                .count();
            (*s, r, passes)
        })
        .collect();
    for (label, lo, hi) in [
        ("all", 0, usize::MAX),
        ("1 pass", 1, 1),
        ("2 passes", 2, 2),
        ("3+ passes", 3, usize::MAX),
    ] {
        let mut v: Vec<f64> = ends
            .iter()
            .filter(|(_, _, p)| *p >= lo && *p <= hi)
            .map(|(_, r, _)| r.first_radii)
            .collect();
        let n = v.len();
        let q = quartiles(&mut v);
        println!(
            "    first pass's radii vs final ‖r_0 − μp_n(z)‖/‖μp_n(z)‖, islands {label}: {n}, quartiles {:.2e} / {:.2e} / {:.2e}",
            q[0], q[1], q[2]
        );
    }
    let failed = ends.iter().filter(|(_, r, _)| !r.converged).count();
    let mut by_kind = [[0usize; 2]; 2];
    for (s, _, p) in &ends {
        by_kind[s % 2][0] += 1;
        by_kind[s % 2][1] += p;
    }
    println!(
        "    islands {}, not converged {failed}; passes per island first / kept solves {:.2} / {:.2}",
        ends.len(),
        by_kind[0][1] as f64 / by_kind[0][0].max(1) as f64,
        by_kind[1][1] as f64 / by_kind[1][0].max(1) as f64
    );
}
