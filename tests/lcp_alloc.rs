//! The LCP step performs no heap allocation once warmed up (every solver): the box,
//! the 5-stack and the 20-object pile (whose contact count changes from step to
//! step: buffers are reused, never shrunk). The pile runs with PGS only (real-time
//! setting): Lemke's dense tableau on its ≈ 600-variable LCP costs ≈ 0.2 s per step
//! (see docs/BENCHMARKS.md), too slow for 2,000 steps in a test.

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::{load_scene_file, load_scene_str};
use rtphys::model::{FrictionModel, LcpParams, LcpSolverKind, Method};
use rtphys::Model;
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

fn with_solver(model: &Model, solver: LcpSolverKind, realtime: bool) -> Model {
    let mut opt = model.opt;
    let mut p = LcpParams {
        solver,
        ..LcpParams::default()
    };
    if realtime {
        // The real-time PGS setting (docs/BENCHMARKS.md): 1e-6, at most 100 sweeps.
        p.tolerance = 1e-6;
        p.max_iterations = 100;
    }
    opt.method = Method::Lcp(p);
    model.with_options(opt)
}

fn scene(name: &str) -> Model {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("config/scenes")
        .join(name);
    load_scene_file(path).expect("scene")
}

/// The box, the 5-stack and the 20-pile under each of `solvers` with
/// `[lcp] friction = friction` (the pile with the real-time setting, and not
/// under Lemke): no allocation in the counted steps once warmed up.
fn steps_without_allocating(solvers: &[LcpSolverKind], friction: FrictionModel) {
    steps_without_allocating_split(solvers, friction, 0.0);
}

/// [`steps_without_allocating`] with `[lcp] split_memory = split` (lcp34).
fn steps_without_allocating_split(solvers: &[LcpSolverKind], friction: FrictionModel, split: f64) {
    let pile =
        pile_scene(PileKind::Bench, 20, 7).replace("method = \"penalty\"", "method = \"lcp\"");
    let pile = load_scene_str(&pile, "pile", std::path::Path::new(".")).expect("pile");
    for &solver in solvers {
        for (name, base, warm, counted) in [
            ("box", scene("lcp_box.toml"), 500, 1000),
            ("stack5", scene("lcp_stack5.toml"), 500, 1000),
            ("pile20", pile.clone(), 1500, 500),
        ] {
            if name == "pile20" && solver == LcpSolverKind::Lemke {
                continue;
            }
            let model = with_solver(&base, solver, name == "pile20");
            let mut opt = model.opt;
            if let Method::Lcp(p) = &mut opt.method {
                p.friction = friction;
                p.split_memory = split;
            }
            let model = model.with_options(opt);
            let (data, n) = alloc_counter::warmed_step_allocations(&model, warm, counted);
            assert!(data.stats.contact_points > 0, "{name}: no contacts");
            assert_eq!(data.stats.quarantined, 0, "{name}/{solver:?}");
            assert_eq!(
                n, 0,
                "{name}/{solver:?}/{friction:?}/split {split}: {n} allocations in {counted} warmed-up steps"
            );
        }
    }
}

#[test]
fn lcp_steps_without_allocating() {
    steps_without_allocating(
        &[
            LcpSolverKind::Lemke,
            LcpSolverKind::Pgs,
            LcpSolverKind::Newton,
            LcpSolverKind::Primal,
        ],
        FrictionModel::Point,
    );
}

/// Under `[lcp] friction = "patch"` (lcp33: the face patches' cones, and the
/// primal solver's islands left to PGS) the step allocates nothing once warmed
/// up either.
#[test]
fn lcp_steps_without_allocating_per_patch() {
    steps_without_allocating(
        &[
            LcpSolverKind::Lemke,
            LcpSolverKind::Pgs,
            LcpSolverKind::Primal,
        ],
        FrictionModel::Patch,
    );
}

/// PEG's rows (`method = "peg"`): a box resting on a static box (U constraints)
/// and a pyramid balanced apex-down on a wedge's ridge (vertex–edge I and X
/// constraints) step without allocating once warmed up.
#[test]
fn peg_steps_without_allocating() {
    let table = "[[body]]\nname = \"table\"\nstatic = true\nshape = { type = \"box\", half_extents = [0.5, 0.5, 0.1] }\nposition = [0.0, 0.0, -0.1]\n\n";
    let cases = [
        (
            "box",
            format!("{table}[[body]]\nname = \"b\"\nmass = 1.0\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nposition = [0.0, 0.0, 0.05]\n"),
        ),
        (
            "apex on ridge",
            "[[body]]\nname = \"wedge\"\nstatic = true\nshape = { type = \"polytope\", points = [[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [-1.0, 0.5, -0.5], [1.0, 0.5, -0.5], [-1.0, -0.5, -0.5], [1.0, -0.5, -0.5]] }\n\n\
             [[body]]\nname = \"pyr\"\nmass = 1.0\nshape = { type = \"polytope\", points = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [-0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [-0.5, -0.5, 0.5]] }\nposition = [0.0, 0.0, 0.0]\n".to_string(),
        ),
    ];
    for (name, bodies) in cases {
        let text = format!("[world]\ndt = 0.001\nmethod = \"peg\"\n\n{bodies}");
        let model = load_scene_str(&text, name, std::path::Path::new(".")).expect(name);
        let (data, n) = alloc_counter::warmed_step_allocations(&model, 300, 300);
        assert!(data.stats.lcp_size > 0, "{name}: no contacts");
        assert_eq!(n, 0, "{name}: {n} allocations in 300 warmed-up steps");
    }
}

/// `[lcp] split_memory` (lcp34): the persisting points' centres and weights
/// live in the workspace (sized once per point count, never shrunk).
#[test]
fn lcp_steps_without_allocating_with_split_memory() {
    steps_without_allocating_split(
        &[
            LcpSolverKind::Lemke,
            LcpSolverKind::Pgs,
            LcpSolverKind::Newton,
            LcpSolverKind::Primal,
        ],
        FrictionModel::Point,
        1e-5,
    );
}
