//! 003 Sec. 6, the 2D pour (Figs. 20–22; `rtphys::experiments::peg_pour_2d`) in the
//! planar world, on a CI subset: 2 seeds × 2 steps (1e-3 and 1e-2 s), 2 s (the
//! first 8 polygons). Criteria (issue 12 item 6): PEG's overlap area stays
//! ≤ 1e-9 L² at every step, and PEG never fails a solve (Lemke failure or crash)
//! in a run where the standard model survives. The standard model's figures are
//! printed beside PEG's.

use rtphys::experiments::peg_pour::PourMethod;
use rtphys::experiments::peg_pour_2d::{pour_scene_2d, run_pour_2d, BODIES};

/// The generated scene loads; the polygons are of the planar world (every
/// poured body locked, every polygon a prism) and the box is three rectangles.
#[test]
fn pour_2d_scene_is_planar() {
    let scene = pour_scene_2d(1, PourMethod::Peg, 1e-2);
    let model = rtphys::model::scene::load_scene_str(&scene.toml, "pour2d", ".".as_ref())
        .expect("generated scene loads");
    let polys = rtphys::pipeline::lcp::peg::planar_polygons(&model);
    assert_eq!(polys.len(), BODIES + 3);
    assert!(
        polys.iter().all(|p| p.is_some()),
        "every geom is a planar polygon"
    );
    for i in 0..BODIES {
        let b = model.body_id(&format!("poly{i}")).expect("body");
        assert_eq!(model.bodies[b].lock, rtphys::model::Locks::PLANAR);
    }
}

/// Ignored: does not hold yet. Measured (this test, `--include-ignored
/// --nocapture`): h = 1e-3, seeds 1, 2: standard max 7.5e-4 / 6.2e-4 L² (860 / 643
/// Lemke failures), PEG max 1.1e-5 / 1.1e-3 L² (0 failures); h = 1e-2: standard
/// 2.1e-2 / 1.5e-2 L² (111 / 79 failures), PEG 3.0e-5 / 2.4e-2 L² (0 failures).
/// PEG never failed a solve where the standard model survived (the second
/// criterion holds; the standard model fails in every run). The first overlap
/// (seed 2, h = 1e-3, t = 1.237 s, poly0–poly3, 3.9e-8 L²) is a polygon landing at
/// 4.8 m/s on another spinning at 3.4 rad/s, which the step's impulse spins to
/// 7.0 rad/s: the rows are linear in the start-of-step pose and the rotation lead
/// uses the start-of-step ω — the same open cause as the 3D pour's lead (b)
/// (docs/EXPERIMENTS.md, "PEG"; "2D pour").
#[test]
#[ignore = "open: PEG overlaps up to 2.4e-2 L² (a body spun up by the step's own impact; docs/EXPERIMENTS.md, 2D pour)"]
fn pour_2d_peg_criteria() {
    let mut failures = Vec::new();
    for h in [1e-3, 1e-2] {
        for seed in [1, 2] {
            let lcp = run_pour_2d(seed, PourMethod::Lcp, h, 2.0).expect("lcp run");
            let peg = run_pour_2d(seed, PourMethod::Peg, h, 2.0).expect("peg run");
            println!(
                "h = {h}, seed {seed}: lcp max {:.2e} L² ({} failures, crashed {}), \
                 peg max {:.2e} L² ({} failures, crashed {}), traps/step {:.2}",
                lcp.max_overlap(),
                lcp.solver_failures,
                lcp.crashed(),
                peg.max_overlap(),
                peg.solver_failures,
                peg.crashed(),
                peg.traps.iter().map(|&t| t as f64).sum::<f64>() / peg.traps.len() as f64
            );
            if peg.max_overlap() > 1e-9 || peg.max_overlap().is_nan() {
                failures.push(format!(
                    "h {h} seed {seed}: peg overlap {:e} L²",
                    peg.max_overlap()
                ));
            }
            if peg.failed() && !lcp.failed() {
                failures.push(format!("h {h} seed {seed}: peg failed where lcp survived"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
