//! 003 Sec. 6, the 2D pour (Figs. 20–22; `rtphys::experiments::peg_pour_2d`) in the
//! planar world, on a CI subset: 2 seeds × 2 steps (1e-3 and 1e-2 s), 2 s (the
//! first 8 polygons). Criteria (issue 12 item 6): PEG's overlap area stays
//! ≤ 1e-9 L² at every step, and PEG never fails a solve (Lemke failure or crash)
//! in a run where the standard model survives. The standard model's figures are
//! printed beside PEG's.

mod common;

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
/// (docs/EXPERIMENTS.md, "PEG"; "2D pour"). Re-run (branch peg7, ffe1f64, load
/// 8–11): h = 1e-3, seeds 1, 2: standard 5.0e-3 / 1.2e-3 L² (1,194 / 1,085
/// failures), PEG 1.05e-5 / 1.11e-3 L² (0 failures); h = 1e-2: standard 1.4e-2 /
/// 4.6e-3 L² (112 / 124 failures), PEG 4.5e-3 / 4.5e-3 L² (2 / 0 failures, no
/// crash); the second criterion still holds.
#[test]
#[ignore = "open: PEG overlaps up to 4.5e-3 L² at h = 1e-2 and 1.1e-3 L² at h = 1e-3 (re-run peg7; docs/EXPERIMENTS.md, 2D pour, peg7); peg11 (peg_lcp_survey pour_2d_counters, h = 1e-2 only): with the general |C| > 1 form seed 1 8.6e-7 L² (0 failures), seed 2 4.5e-3 L² (0 failures, unconverged over-cap islands); h = 1e-3 seed 2 had 0 failures, which the form cannot reach; peg20 (pour_2d_counters, h = 1e-2): 8.6e-7 / 1.7e-3 L² (3 failures), with `[lcp] peg_retry_depth` 1–3 8.6e-7 / 1.45e-4 L² (2 of 200 steps retried, no failure kept; the 1.45e-4 is a step Lemke solved)"]
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

/// Diagnostic (ignored; prints, asserts nothing about the physics): the 2D pour of
/// seed 1 at h = 1e-2 for 5 s under PEG, each step's overlap beside the path its
/// solve took — Lemke accepted on every island; an over-`PEG_MAX_LCP` island solved
/// by the constraint PGS (converged); a Lemke failure whose constraint-PGS
/// fallback converged; a constraint PGS at its sweep limit (unconverged); a step
/// over `PEG_MAX_ROWS` on the standard rows. Per path: steps, the largest overlap
/// at the end of such a step and the largest rise of the overlap over one such
/// step (an overlap made by one step persists into the next ones, so the rises
/// say which path makes it). `cargo test --release --test peg_pour_2d --
/// --ignored --nocapture pour_2d_overlap_by_solve_path`.
#[test]
#[ignore = "diagnostic: prints the 2D pour's overlap by solve path (docs/EXPERIMENTS.md, peg6)"]
fn pour_2d_overlap_by_solve_path() {
    use rtphys::experiments::peg_pour::PourDriver;
    use rtphys::experiments::peg_pour_2d::L;
    use rtphys::pipeline::lcp::peg::{OverlapArea, PEG_MAX_LCP};
    use rtphys::{Data, Pipeline};
    let (h, duration) = (1e-2, 5.0);
    let scene = pour_scene_2d(1, PourMethod::Peg, h);
    let model = rtphys::model::scene::load_scene_str(&scene.toml, "pour2d", ".".as_ref())
        .expect("generated scene loads");
    let mut data = Data::new(&model);
    let mut driver = PourDriver::new(&model, &scene, &mut data).expect("bodies found");
    let mut pl = Pipeline::new(&model);
    let mut area = OverlapArea::new(&model);
    const PATHS: [&str; 5] = [
        "Lemke ok",
        "over-cap island, block GS (or constraint PGS) converged",
        "Lemke failed, block GS / constraint PGS fallback converged",
        "block GS / constraint PGS unconverged",
        "over-row-cap step, standard rows",
    ];
    // Per path: steps, max overlap, max rise, Σ rises.
    let mut by = [(0u32, 0.0f64, 0.0f64, 0.0f64); 5];
    let mut top: Vec<(f64, f64, usize, f64)> = Vec::new();
    let mut residuals = Vec::new();
    let mut prev = 0.0;
    let steps = (duration / h).round() as usize;
    for _ in 0..steps {
        driver.before_step(&mut data, h);
        let s0 = data.stats.clone();
        pl.step(&model, &mut data);
        let s = &data.stats;
        let path = if s.peg_row_cap_steps > s0.peg_row_cap_steps {
            4
        } else if s.solver_unconverged > s0.solver_unconverged {
            3
        } else if s.solver_failures > s0.solver_failures {
            2
        } else if s.lcp_size > PEG_MAX_LCP {
            1
        } else {
            0
        };
        let ov = area.area(&model, &data.state) / (L * L);
        let rise = (ov - prev).max(0.0);
        let b = &mut by[path];
        b.0 += 1;
        b.1 = b.1.max(ov);
        b.2 = b.2.max(rise);
        b.3 += rise;
        top.push((rise, data.time, path, ov));
        if path == 3 {
            residuals.push(s.solver_residual);
        }
        prev = ov;
    }
    for (p, b) in PATHS.iter().zip(by) {
        println!(
            "{p}: {} steps, max overlap {:.2e} L², max rise {:.2e} L², sum of rises {:.2e} L²",
            b.0, b.1, b.2, b.3
        );
    }
    residuals.sort_by(|a: &f64, b| a.total_cmp(b));
    if !residuals.is_empty() {
        println!(
            "unconverged steps' residual (impulse units): min {:.2e}, median {:.2e}, max {:.2e}",
            residuals[0],
            residuals[residuals.len() / 2],
            residuals[residuals.len() - 1]
        );
    }
    top.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (rise, t, path, ov) in top.iter().take(12) {
        println!(
            "t = {t:.2} s: rise {rise:.2e} L² to {ov:.2e} L², {}",
            PATHS[*path]
        );
    }
    println!(
        "failures {}, fallbacks {}, unconverged {}, row-cap steps {}, discarded passes {}, quarantined {}",
        data.stats.solver_failures,
        data.stats.solver_fallbacks,
        data.stats.solver_unconverged,
        data.stats.peg_row_cap_steps,
        data.stats.peg_discarded_passes,
        data.stats.quarantined
    );
}

/// 003's general |Cι| > 1 form in the solve path (peg11, `[lcp] peg_general`):
/// the 2D pour's seed 1 at h = 1e-2 (2 s), with the keys as before peg29
/// (`common::with_keys_before_peg29`), meets a jammed two-body group whose
/// single-primary LCP (eq. (24)) has no solution Lemke finds while a rigid
/// motion opening every I set exists (docs/EXPERIMENTS.md, peg10/peg11). With
/// the form off the step falls back to the constraint PGS (counted failures);
/// on, that island must be solved in the general form (`StepStats::peg_general`
/// ≥ 1) and the run must have no failed step, with its largest overlap below
/// the off run's (the fallback's overlap, 4.5e-3 L², is what the exact solve
/// removes; measured 8.6e-7 L² on, docs/EXPERIMENTS.md peg11). At the default
/// since peg29 (`peg_vv_feasible`) that group is not met (1.008e-7 L², no
/// failure, no general-form island with the form on or off): the form's event
/// at the default is [`general_form_solves_an_island_of_the_2d_pour_at_the_default`].
#[test]
fn general_form_solves_the_jammed_group_of_the_2d_pour() {
    let (off, on) = (
        general_form_run(1, 1e-2, 0, true, false),
        general_form_run(1, 1e-2, 0, true, true),
    );
    assert_eq!(off.2, 0, "off: the rung is not taken");
    assert!(
        off.1 > 0,
        "off: the jammed group falls back (the case this test is about)"
    );
    assert!(on.2 >= 1, "on: the group is solved in the general form");
    assert_eq!(on.1, 0, "on: no failed step");
    assert!(
        on.0 < off.0,
        "on: overlap {:e} not below off {:e}",
        on.0,
        off.0
    );
}

/// The general form's event at the default, found by the survey tool
/// (`peg_lcp_survey::pour_2d_counters`, the sweep's depth 2 + τ = 1e-11 with
/// `PEG_GENERAL=0|1`; docs/EXPERIMENTS.md, peg29 and peg30). peg29's (seed 1 at
/// h = 5e-2: off 9.4e-3 L², on 4.08e-11) was found on PEG's continuous
/// collision reading the origins; since peg30 (`[lcp] peg_ccd_points`, the
/// points that meet) that run ends 1.1e-10 L² with the form off too (no
/// failure). Re-found over seeds 1–10 at h = 5e-2, 3.85e-2, 2.97e-2: the 2D
/// pour's seed 7 at h = 5e-2 (2 s) solves one island in the general form
/// (asserted ≥ 1) and keeps no failed or unconverged solve, ending within the
/// issue's 1e-9 L² (measured 1.71e-11); with the form off the same run keeps
/// 3 failed or unconverged solves on 2 steps (asserted ≥ 1: the group the form solves
/// has no single-primary solution Lemke finds), ending 9.2e-11 L² (the retry's
/// sub-steps hold the overlap; the failure is the event, not a deep overlap).
#[test]
fn general_form_solves_an_island_of_the_2d_pour_at_the_default() {
    let off = general_form_run(7, 5e-2, 2, false, false);
    let on = general_form_run(7, 5e-2, 2, false, true);
    assert_eq!(off.2, 0, "off: the rung is not taken");
    assert!(off.1 >= 1, "off: no failed solve ({:e} L²)", off.0);
    assert!(on.2 >= 1, "on: an island solved in the general form");
    assert_eq!(on.1, 0, "on: no failed or unconverged solve");
    assert!(on.0 <= 1e-9, "on: {:e} L²", on.0);
}

/// The 2D pour of `seed` at `h` for 2 s at retry depth `depth` (with the
/// overlap trigger τ = 1e-11 when > 0; the keys as before peg29 when
/// `before_peg29`) with `[lcp] peg_general` = `general`: its largest overlap
/// (L²), its counted failures (and unconverged solves when `depth` > 0) and
/// its general-form islands.
fn general_form_run(
    seed: u64,
    h: f64,
    depth: usize,
    before_peg29: bool,
    general: bool,
) -> (f64, u64, u64) {
    let scene = pour_scene_2d(seed, PourMethod::Peg, h);
    let model = rtphys::model::scene::load_scene_str(&scene.toml, "pour2d", ".".as_ref())
        .expect("generated scene loads");
    let model = common::with_keys_before_peg29(&model, before_peg29);
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        assert!(p.peg_general, "on by default");
        p.peg_general = general;
        p.peg_retry_depth = depth;
        p.peg_retry_overlap = if depth > 0 { 1e-11 } else { 0.0 };
    }
    let (max_ov, data) = pour_2s(&scene, &model.with_options(opt), h);
    let s = &data.stats;
    let failed = s.solver_failures + if depth > 0 { s.solver_unconverged } else { 0 };
    println!(
        "2D pour s{seed} h {h} depth {depth}{}, general form {general}: {max_ov:.3e} L², \
         {failed} failures, {} general-form islands",
        if before_peg29 {
            " (keys before peg29)"
        } else {
            ""
        },
        s.peg_general
    );
    (max_ov, failed, s.peg_general)
}

/// The 2D pour `scene` stepped by `model` at `h` for 2 s: its largest overlap
/// area at the end of a step (L²) and the data after it.
fn pour_2s(
    scene: &rtphys::experiments::peg_pour::PourScene,
    model: &rtphys::Model,
    h: f64,
) -> (f64, rtphys::Data) {
    use rtphys::experiments::peg_pour::PourDriver;
    use rtphys::experiments::peg_pour_2d::L;
    use rtphys::pipeline::lcp::peg::OverlapArea;
    let mut data = rtphys::Data::new(model);
    let mut driver = PourDriver::new(model, scene, &mut data).expect("driver");
    let mut pl = rtphys::Pipeline::new(model);
    let mut area = OverlapArea::new(model);
    let mut max_ov = 0.0f64;
    for _ in 0..(2.0 / h).round() as usize {
        driver.before_step(&mut data, h);
        pl.step(model, &mut data);
        max_ov = max_ov.max(area.area(model, &data.state) / (L * L));
    }
    (max_ov, data)
}

/// The 2D pour's seed 1 at h = 1e-2 (2 s) at `[lcp] peg_passes = 3` with
/// `peg_consistent = true` (the last predicted pass kept only if its own ν⁺
/// stays within the reach and rotation lead its rows were built for; peg15,
/// peg16): issue 12's criterion, PEG's overlap ≤ 1e-9 L² at every step, and no
/// failed step; the rule is exercised (a pass discarded). Measured (peg16):
/// 2.60e-10 L², 0 failures, 4 passes discarded (at the default one pass the
/// same run ends 8.6e-7 L² deep; at 3 passes without the rule 7.8e-3 L², 2
/// failures). With the keys as before peg29 (`common::with_keys_before_peg29`):
/// at the default since peg29 (`peg_vv_feasible`) the same run ends 1.6e-6 L²
/// deep (0 failures, 3 passes discarded) against 1.0e-7 L² at one pass — the
/// rule does not hold the pour there (docs/EXPERIMENTS.md, peg29; open).
#[test]
fn self_consistent_passes_hold_the_2d_pour_seed_1() {
    let h = 1e-2;
    let scene = pour_scene_2d(1, PourMethod::Peg, h);
    let model = rtphys::model::scene::load_scene_str(&scene.toml, "pour2d", ".".as_ref())
        .expect("generated scene loads");
    let model = common::with_keys_before_peg29(&model, true);
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        p.peg_passes = 3;
        p.peg_consistent = true;
    }
    let (max_ov, data) = pour_2s(&scene, &model.with_options(opt), h);
    let s = &data.stats;
    println!(
        "3 passes, self-consistent: {max_ov:.3e} L², {} failures, {} passes discarded",
        s.solver_failures, s.peg_discarded_passes
    );
    assert!(s.peg_discarded_passes >= 1, "the rule was not exercised");
    assert_eq!(s.solver_failures, 0, "a failed step");
    assert!(max_ov <= 1e-9, "overlap {max_ov:e} L²");
}
