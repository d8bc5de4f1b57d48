//! PEG's predicted passes (`[lcp] peg_passes`, peg13; `pipeline::lcp::peg`,
//! "Predicted reach"): tools that run the cases the passes were measured on at
//! 1, 2 and 3 passes — the two-body 3D pour at h = 5e-2 (`tests/peg_large_step.rs`)
//! and the sharp impacts of `tests/peg_method.rs` — and print, per pass count,
//! the overlap, the Lemke failures, the discarded passes, the largest pivots
//! against one attempt's limit 10 n + 100, and the wall time per step.
//! `cargo test --release --test peg_passes -- --ignored --nocapture`.

mod common;
use common::load_str;
use rtphys::experiments::peg_pour::{pour_scene, PourDriver, PourMethod, PourOverlap, L};
use rtphys::{Data, Model, Pipeline};

/// `model` with `[lcp] peg_passes = n`.
fn with_passes(model: Model, n: usize) -> Model {
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        p.peg_passes = n;
    }
    model.with_options(opt)
}

/// `peg_large_step`'s run (3D pour, seed 1, the first two bodies, h = 5e-2, 20
/// steps) at 1, 2, 3 passes (and `PEG_LARGE_STEPS` steps if set; the seeds
/// `PEG_SEEDS`, comma-separated, if set: peg31's survey of the event).
#[test]
#[ignore = "tool: peg_large_step's run at 1, 2, 3 predicted passes (peg13)"]
fn passes_large_step() {
    let h = 5e-2;
    let steps: usize = std::env::var("PEG_LARGE_STEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let seeds: Vec<u64> = std::env::var("PEG_SEEDS")
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|_| vec![1]);
    for (seed, n) in seeds.iter().flat_map(|&s| (1..=3).map(move |n| (s, n))) {
        let scene = pour_scene(seed, PourMethod::Peg, h);
        let model = rtphys::model::scene::load_scene_str(&scene.toml, "pour", ".".as_ref())
            .expect("generated scene loads");
        // One unsplit step of h (the retry off, as `peg_large_step` runs it).
        let model = with_passes(common::without_retry(&model), n);
        let mut data = Data::new(&model);
        let mut driver = PourDriver::new(&model, &scene, &mut data).expect("bodies found");
        let mut pl = Pipeline::new(&model);
        let mut m = PourOverlap::new(&model);
        let (mut max_n, mut max_ov, mut worst_piv) = (0, 0.0f64, 0.0f64);
        let mut first_fail = None;
        let mut over_bound = Vec::new();
        let t0 = std::time::Instant::now();
        for i in 0..steps {
            driver.before_step(&mut data, h);
            let f0 = data.stats.solver_failures;
            pl.step(&model, &mut data);
            let s = &data.stats;
            max_n = max_n.max(s.lcp_size);
            let ratio = s.solver_iterations as f64 / (10 * s.lcp_size + 100) as f64;
            worst_piv = worst_piv.max(ratio);
            if ratio > 1.0 {
                over_bound.push(i);
            }
            if s.solver_failures > f0 && first_fail.is_none() {
                first_fail = Some(i);
            }
            max_ov = max_ov.max(m.volume(&model, &data) / (L * L * L));
        }
        let s = &data.stats;
        println!(
            "seed {seed} passes {n}: overlap {max_ov:.3e} L³, failures {} (first at step {first_fail:?}), fallbacks {}, \
             discarded passes {}, quarantined {}, largest LCP {max_n}, largest pivots / (10 n + 100) \
             {worst_piv:.2} (over on steps {over_bound:?}), {:.1} ms per step",
            s.solver_failures,
            s.solver_fallbacks,
            s.peg_discarded_passes,
            s.quarantined,
            1e3 * t0.elapsed().as_secs_f64() / steps as f64
        );
    }
}

/// The impacts' world at `passes`, with `[lcp] peg_consistent` (peg15, peg16),
/// and PEG's retry off (`peg_retry_depth = 0`, `peg_retry_overlap = 0`: the
/// unsplit step the passes were measured on; the default since peg32 is depth
/// 2 + τ, under which one pass closes the vertex–vertex impact by itself:
/// `peg_method::vertex_vertex_impact_does_not_interpenetrate_peg`).
fn world(dt: f64, (passes, consistent): (usize, bool)) -> String {
    format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = {dt}\nmethod = \"peg\"\n\n[lcp]\npeg_passes = {passes}\npeg_consistent = {consistent}\n\
         peg_retry_depth = 0\npeg_retry_overlap = 0.0\n\n"
    )
}

fn body(name: &str, fixed: bool, shape: &str, pos: [f64; 3]) -> String {
    let kind = if fixed { "static = true" } else { "mass = 1.0" };
    format!(
        "[[body]]\nname = \"{name}\"\n{kind}\nshape = {shape}\nposition = [{}, {}, {}]\nmaterial = {{ mu = 0.0 }}\n\n",
        pos[0], pos[1], pos[2]
    )
}

const PYR_DOWN: &str = "{ type = \"polytope\", points = [[0.0, 0.0, 0.0], [0.1, 0.1, 0.1], [-0.1, 0.1, 0.1], [0.1, -0.1, 0.1], [-0.1, -0.1, 0.1]] }";
const PYR_UP: &str = "{ type = \"polytope\", points = [[0.0, 0.0, 0.0], [0.1, 0.1, -0.1], [-0.1, 0.1, -0.1], [0.1, -0.1, -0.1], [-0.1, -0.1, -0.1]] }";
const WEDGE_UP: &str = "{ type = \"polytope\", points = [[-0.2, 0.0, 0.0], [0.2, 0.0, 0.0], [-0.2, 0.1, -0.1], [0.2, 0.1, -0.1], [-0.2, -0.1, -0.1], [0.2, -0.1, -0.1]] }";
const WEDGE_DOWN: &str = "{ type = \"polytope\", points = [[0.0, -0.2, 0.0], [0.0, 0.2, 0.0], [0.1, -0.2, 0.1], [0.1, 0.2, 0.1], [-0.1, -0.2, 0.1], [-0.1, 0.2, 0.1]] }";

/// `peg_method`'s impacts (frictionless, g = 0, 1 kHz, 0.3 s, the top at 2 m/s
/// 5 mm off centre) at 1, 2, 3 passes, and at 2, 3 with `peg_consistent`: max overlap / L³ (L = 0.1 m), max
/// (T − T₀)/T₀, failures, discarded passes.
#[test]
#[ignore = "tool: peg_method's impacts at 1, 2, 3 predicted passes (peg13)"]
fn passes_impacts() {
    for (name, base, top) in [
        ("vertex-vertex", PYR_UP, PYR_DOWN),
        ("edge-edge", WEDGE_UP, WEDGE_DOWN),
    ] {
        for (n, c) in [(1, false), (2, false), (3, false), (2, true), (3, true)] {
            let (worst, gain, failures, discarded) = impact(base, top, (n, c));
            println!(
                "{name}, passes {n}, consistent {c}: max overlap {worst:.2e} L³, max (T − T₀)/T₀ \
                 {gain:+.2e}, failures {failures}, discarded passes {discarded}"
            );
        }
    }
}

/// One run of `peg_method`'s impact of `top` (at 2 m/s, 5 mm off centre) on the
/// fixed `base` at (`peg_passes`, `peg_consistent`): (max overlap / L³, max
/// (T − T₀)/T₀, solver failures, discarded passes).
fn impact(base: &str, top: &str, passes: (usize, bool)) -> (f64, f64, u64, u64) {
    let text = world(1e-3, passes)
        + &body("base", true, base, [0.0, 0.0, 0.0])
        + &body("top", false, top, [0.005, 0.005, 0.01]);
    let model = load_str(&text);
    let mut data = Data::new(&model);
    let b = model
        .bodies
        .iter()
        .position(|b| b.name == "top")
        .expect("body");
    data.state[b].v.z = -2.0;
    let mut pl = Pipeline::new(&model);
    let t0 = data.kinetic_energy(&model);
    let (mut worst, mut gain) = (0.0f64, f64::NEG_INFINITY);
    for _ in 0..300 {
        pl.step(&model, &mut data);
        worst = worst.max(common::polytope_overlap(&model, &data) / 1e-3);
        gain = gain.max((data.kinetic_energy(&model) - t0) / t0);
    }
    (
        worst,
        gain,
        data.stats.solver_failures,
        data.stats.peg_discarded_passes,
    )
}

/// The vertex–vertex impact at `passes`: (max overlap / L³, max (T − T₀)/T₀,
/// discarded passes).
fn vertex_vertex(passes: (usize, bool)) -> (f64, f64, u64) {
    let (worst, gain, _, discarded) = impact(PYR_UP, PYR_DOWN, passes);
    (worst, gain, discarded)
}

/// `peg_method::vertex_vertex_impact_does_not_interpenetrate_peg` with
/// `[lcp] peg_passes = 2`, its criteria unchanged: no step ends more than 1e-9 L³
/// deep, no energy gain beyond 1 %. With one pass the same run ends 2.79e-9 L³
/// deep (asserted > 1e-9: the case is exercised) — the top is spun up from rest
/// to 7 rad/s within the impact step. Measured with 2 passes: 6.8e-12 L³ (peg13);
/// 8.0e-10 L³ since the work check (peg14: it refuses a first pass that adds
/// 2.4e-2 J, ≈ 2 % of the body's energy, and that step takes the standard rows),
/// no gain, no pass discarded.
#[test]
fn predicted_pass_closes_the_vertex_vertex_impact() {
    let (one, _, _) = vertex_vertex((1, false));
    assert!(
        one > 1e-9,
        "one pass: {one:e} L³ (the case is not exercised)"
    );
    let (worst, gain, discarded) = vertex_vertex((2, false));
    println!(
        "one pass {one:.2e} L³; two passes {worst:.2e} L³, gain {gain:+.2e}, discarded {discarded}"
    );
    assert!(worst <= 1e-9, "overlap {worst:e} L³");
    assert!(gain <= 0.01, "energy gain {gain:e}");
}

/// The same impact at `[lcp] peg_passes = 3` with `peg_consistent = true` (the
/// last predicted pass kept only if its own ν⁺ stays within the reach and
/// rotation lead its rows were built for, else discarded; peg15, peg16), the
/// criteria unchanged: no step ends more than 1e-9 L³ deep, no energy gain
/// beyond 1 %. Measured (peg16): 7.99e-10 L³, no gain, 15 passes discarded
/// (the same rule at 2 passes leaves one pass's 2.79e-9: the second passes that
/// close the impact are the ones it discards, peg15).
#[test]
fn self_consistent_third_pass_closes_the_vertex_vertex_impact() {
    let (worst, gain, discarded) = vertex_vertex((3, true));
    println!(
        "three passes, self-consistent: {worst:.2e} L³, gain {gain:+.2e}, discarded {discarded}"
    );
    assert!(discarded >= 1, "the rule was not exercised");
    assert!(worst <= 1e-9, "overlap {worst:e} L³");
    assert!(gain <= 0.01, "energy gain {gain:e}");
}
