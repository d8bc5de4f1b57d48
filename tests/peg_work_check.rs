//! PEG's work check (issue 12, branch `peg14`; `pipeline/lcp/peg.rs`,
//! `work_rejects`): a PEG pass whose impulses add more kinetic energy than
//! pushing out its rows' overlap can is not kept — a predicted pass is
//! discarded, a first pass is a counted failure and the step takes the
//! standard rows. Before it, the 2D pour at h = 1e-2, seed 2, with two passes
//! left a polygon at 458 rad/s and 58 m/s at step 100 (a Lemke solution of the
//! step's LCP: a body wedged between rows whose push-outs no rigid motion
//! meets), and the 3D pour's seed 2 poly3 at 272 rad/s at step 189 (the general
//! form's member force), after which both piles jammed (7.1e-2 L², 0.115 L³;
//! docs/EXPERIMENTS.md, peg14).

mod common;

use rtphys::experiments::peg_pour::{PourDriver, PourMethod, PourScene};

fn with_passes(model: rtphys::Model, n: usize) -> rtphys::Model {
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        p.peg_passes = n;
    }
    model.with_options(opt)
}

/// The key `[lcp] peg_work_penetration` set to `on` (peg33); `None`: the scene's
/// own.
fn with_work_penetration(model: rtphys::Model, on: Option<bool>) -> rtphys::Model {
    let mut opt = model.opt;
    if let (rtphys::model::Method::Lcp(p), Some(on)) = (&mut opt.method, on) {
        p.peg_work_penetration = on;
    }
    model.with_options(opt)
}

/// Mechanical energy of the released bodies: kinetic + m g·(−x).
fn energy(model: &rtphys::Model, data: &rtphys::Data) -> f64 {
    let g = model.opt.gravity;
    let t = rtphys::data::kinetic_energy(model, &data.state, &data.frozen);
    let v: f64 = model
        .bodies
        .iter()
        .zip(&data.state)
        .zip(&data.frozen)
        .filter(|((b, _), &f)| !f && b.mass.is_finite() && b.mass > 0.0)
        .map(|((b, s), _)| -b.mass * g.dot(&s.x))
        .sum();
    t + v
}

/// Runs `steps` steps of the pour at `passes` passes (the keys as before peg29
/// when `before_peg29`; PEG's retry at the default, depth 2 + τ since peg32,
/// when `retry`, else off: `common::without_retry`); returns the largest energy gain of one step (J; when
/// `skip_after_fallback`, over the steps that do not follow a step with a
/// counted failure), the largest |ω| (rad/s) at the end of a step, the run's
/// counted failures and the work check's refusals of first passes kept or
/// clamped (`StepStats::peg_work_refusals`, peg34), and the mass of the heaviest
/// body.
fn run(
    scene: &PourScene,
    passes: usize,
    (steps, h): (usize, f64),
    (before_peg29, skip_after_fallback): (bool, bool),
    (retry, work_pen): (bool, Option<bool>),
) -> (f64, f64, (u64, u64), f64) {
    let model =
        rtphys::model::scene::load_scene_str(&scene.toml, "<peg-pour>", std::path::Path::new("."))
            .expect("scene");
    let model = if retry {
        model
    } else {
        common::without_retry(&model)
    };
    let model = with_passes(common::with_keys_before_peg29(&model, before_peg29), passes);
    let model = with_work_penetration(model, work_pen);
    let mut data = rtphys::Data::new(&model);
    let mut driver = PourDriver::new(&model, scene, &mut data).expect("driver");
    let mut pl = rtphys::Pipeline::new(&model);
    let (mut gain, mut after_fallback, mut wmax) = (0.0f64, 0.0f64, 0.0f64);
    let mut fell_back = false;
    for i in 0..steps {
        driver.before_step(&mut data, h);
        let e0 = energy(&model, &data);
        let f0 = data.stats.solver_failures;
        pl.step(&model, &mut data);
        let de = energy(&model, &data) - e0;
        // Where a gain is made, and whether the step before counted a failure
        // (the refusal's step takes the standard rows, which may leave an
        // overlap this step pushes out).
        if de > gain.max(after_fallback) {
            println!("  step {i}: gain {de:.3e} J, after a counted failure: {fell_back}");
        }
        if fell_back && skip_after_fallback {
            after_fallback = after_fallback.max(de);
        } else {
            gain = gain.max(de);
        }
        fell_back = data.stats.solver_failures > f0;
        wmax = data.state.iter().map(|s| s.w.norm()).fold(wmax, f64::max);
    }
    let mass = model
        .bodies
        .iter()
        .map(|b| b.mass)
        .filter(|m| m.is_finite())
        .fold(0.0, f64::max);
    let s = &data.stats;
    (gain, wmax, (s.solver_failures, s.peg_work_refusals), mass)
}

/// The 2D pour (seed 2, h = 1e-2, 2 passes) through step 100 and the 3D pour
/// (seed 2, h = 1e-2, 2 passes) through step 190, with the keys as before peg29
/// (`common::with_keys_before_peg29`): no step adds more than
/// 0.1 m g L of mechanical energy (L the pour's body size: a body lifted by a
/// tenth of its size in one step; the steps that ejected bodies added
/// 4.3e3 J and 30 J), and no body spins above 100 rad/s (a body of size L at
/// 100 rad/s moves its far points at 100 L/2 ≈ 5–15 m/s, beyond the
/// √(2 g H) ≤ 3.2 m/s of the pour's drop; 458 and 272 rad/s before); each run
/// reaches the check (a refusal, `StepStats::peg_work_refusals`: a counted
/// failure before peg34; since then `[lcp] peg_work_clamp`'s clamped pass is kept
/// there, no counted failure, and the bounds hold for it: measured 2D s2 no gain,
/// 23.00 rad/s, 3D s2 no gain, 28.60 rad/s, 2D s3 of the next test no gain,
/// 39.63 rad/s). The check's events are events of one
/// unsplit step: since PEG's retry is on by default (depth 2 + τ, peg32) these
/// runs set it off (`common::without_retry`; measured 2D s2 1 failure, no gain,
/// 23.00 rad/s; 3D s2 1 failure, no gain, 28.60 rad/s), and run again at the
/// default, where the refused step is retried as sub-steps and no failure is
/// kept: 2D s2 gain 4.46e-2 J ≤ 0.1 m g L, 15.72 rad/s (asserted); 3D s2 step 188
/// gains 2.02 J at 103.17 rad/s with no counted failure (printed, not asserted:
/// the open seed-2 event of peg30/peg31; docs/EXPERIMENTS.md, peg32).
#[test]
fn work_check_keeps_the_pours_wedged_bodies_in() {
    wedged_bodies_kept_in((2, 100), Some((2, 190)), true);
}

/// The same at the default since peg29 (`[lcp] peg_vv_feasible`): the 2D pour of
/// seed 2 no longer reaches the check through step 100 (no failure; gain ≤ 0,
/// |ω| ≤ 16.1 rad/s: no ejection to refuse). The check's event is re-found by
/// the pass trace (`RTPHYS_PEG_PASS_TRACE`) over seeds 1–10 at h = 1e-2, 2
/// passes (docs/EXPERIMENTS.md, peg29): seed 3, whose first pass at step 148
/// (0-based) is a Lemke solution (residual 3.5e-11) spinning poly4 to 312
/// rad/s, refused (the only refusal of that run; seed 9's step 72, 53 rad/s,
/// the other of the ten seeds). Asserted as above through step 150, and the 3D
/// pour of seed 1 through step 190 (peg30: since PEG's continuous collision
/// reads the points that meet, `[lcp] peg_ccd_points`, seed 2's 3D run no
/// longer rewinds a slow body at step 38 and its step 188 keeps a solution
/// with no counted failure and no energy gain that spins body 8 to 108 rad/s,
/// leaving 1.1e-3 L³ — not the check's event, open; re-found by
/// [`work_check_survey_3d`]: seed 1 reaches the check, 1 failure, gain
/// 1.08e-2 J, |ω| ≤ 33.9 rad/s). Since lead37's end velocity
/// (`rotation::kicked_velocity`) the 3D part has no event: [`work_check_survey_3d`]
/// over seeds 1–10 (peg31) finds one seed reaching the check, seed 2 (1
/// failure), whose step 188 — not after a counted failure — gains 1.526 J >
/// 0.1 m g L = 0.180 J with |ω| up to 100.66 rad/s (open, as peg30's seed-2
/// step 188); seed 1 keeps no failure (gain 1.10e-2 J, |ω| ≤ 33.84), nor do
/// seeds 3–10 (seed 9's step 88 gains 0.919 J with no counted failure, as
/// peg30's step 188 of that seed did): the 3D assertion is dropped with that
/// figure (docs/EXPERIMENTS.md, peg31), the 2D one kept (measured on the
/// momentum's end velocity: 1 failure, |ω| ≤ 39.63 rad/s, no gain). The 2D
/// gain is asserted except on the step after the refusal: the refused step
/// takes the standard rows, whose step from that state fails too and leaves 6.6e-4
/// L² of overlap, and PEG's next step pushes it out with a gain of 0.763 J
/// (above 0.1 m g L = 0.373 J; printed, not asserted: the standard rows'
/// fallback, not the check, makes it — open, docs/EXPERIMENTS.md, peg29).
/// Since peg34 (`[lcp] peg_work_clamp`) the refused step keeps its clamped pass,
/// not the standard rows: no counted failure, so no step is left out of the
/// assertion, and none gains (measured largest gain 0; the 0.763 J was the
/// fallback's).
/// Since peg32 (PEG's retry on by default) the check's event is that of one
/// unsplit step (the retry set off, measured as above: 1 failure, |ω| ≤ 39.63
/// rad/s); at the default the same pour keeps no failure, no gain and |ω| ≤
/// 39.25 rad/s (asserted: the gain and spin bounds, not the failure).
#[test]
fn work_check_keeps_the_pours_wedged_bodies_in_at_the_default() {
    wedged_bodies_kept_in((3, 150), None, false);
}

/// [`work_check_keeps_the_pours_wedged_bodies_in`]'s assertions on the 2D pour
/// of `seed2d` and the 3D pour of `seed3d` if given (h = 1e-2, 2 passes), each
/// through its number of steps.
fn wedged_bodies_kept_in(
    (seed2d, steps2d): (u64, usize),
    pour3d: Option<(u64, usize)>,
    before_peg29: bool,
) {
    let h = 1e-2;
    {
        use rtphys::experiments::peg_pour_2d::{pour_scene_2d, L};
        let scene = pour_scene_2d(seed2d, PourMethod::Peg, h);
        for retry in [false, true] {
            let (gain, wmax, (failures, refusals), m) = run(
                &scene,
                2,
                (steps2d, h),
                (before_peg29, !before_peg29),
                (retry, None),
            );
            println!(
                "2D s{seed2d} (retry {retry}): largest gain {gain:.3e} J, max |ω| {wmax:.2} rad/s, \
                 failures {failures}, refusals {refusals}, m {m:.3}"
            );
            assert!(retry || refusals >= 1, "the check was not reached");
            assert!(gain <= 0.1 * m * 9.81 * L, "energy gain {gain:.3e} J");
            assert!(wmax <= 100.0, "max |ω| {wmax:.2} rad/s");
        }
    }
    if let Some((seed3d, steps3d)) = pour3d {
        use rtphys::experiments::peg_pour::{pour_scene, L};
        let scene = pour_scene(seed3d, PourMethod::Peg, h);
        for retry in [false, true] {
            let (gain, wmax, (failures, refusals), m) = run(
                &scene,
                2,
                (steps3d, h),
                (before_peg29, !before_peg29),
                (retry, None),
            );
            println!(
                "3D s{seed3d} (retry {retry}): largest gain {gain:.3e} J, max |ω| {wmax:.2} rad/s, \
                 failures {failures}, refusals {refusals}, m {m:.3}"
            );
            if retry {
                // At the default (depth 2 + τ) this pour's step 188 gains 2.02 J
                // at 103 rad/s with no counted failure: the open seed-2 event of
                // peg30/peg31 (docs/EXPERIMENTS.md, peg32): printed, not asserted.
                continue;
            }
            assert!(refusals >= 1, "the check was not reached");
            assert!(gain <= 0.1 * m * 9.81 * L, "energy gain {gain:.3e} J");
            assert!(wmax <= 100.0, "max |ω| {wmax:.2} rad/s");
        }
    }
}

/// `[lcp] peg_work_penetration` (peg33, opt-in): the work check's depth of a PEG
/// row bounded by its feature points' real penetration at the step's start. The
/// 3D pour at h = 1e-2, 2 passes, the retry at its default, through step 190:
/// under the default key (false) seed 9's step 88 gains 0.441 J and seed 3's step
/// 187 gains 5.277 J, both above 0.1 m g L (0.185 and 0.232 J) with no counted
/// failure — the rows that push are a vertex 4.8 cm behind a face plane of a pair
/// whose exact overlap is 0, and an I set 1.7–9.5 cm behind planes of a pair
/// overlapping by 4.9e-13 L³ (docs/EXPERIMENTS.md, peg32 Task 3); with the key
/// neither seed gains more than 0.1 m g L in a step (measured 1.04e-3 J and 0;
/// ≤ 1.6e-2 J over seeds 1–10, `work_check_survey_3d` with `PEG_WORK_PEN=1`).
/// The bound is the file's: a body lifted by a tenth of its size in one step.
#[test]
fn work_penetration_removes_the_3d_pours_uncaught_gains() {
    use rtphys::experiments::peg_pour::{pour_scene, L};
    let h = 1e-2;
    for seed in [3, 9] {
        let scene = pour_scene(seed, PourMethod::Peg, h);
        for on in [false, true] {
            let (gain, wmax, (failures, _), m) =
                run(&scene, 2, (190, h), (false, true), (true, Some(on)));
            let bound = 0.1 * m * 9.81 * L;
            println!(
                "3D s{seed} (peg_work_penetration {on}): largest gain {gain:.3e} J (bound {bound:.3e}), \
                 max |ω| {wmax:.2} rad/s, failures {failures}"
            );
            if on {
                assert!(gain <= bound, "s{seed}: gain {gain:.3e} J with the key");
            } else {
                assert!(
                    gain > bound,
                    "s{seed}: the default's event is gone ({gain:.3e} J)"
                );
            }
        }
    }
}

/// The shipped 5-stack (`config/scenes/lcp_stack5.toml`: five 1 kg, 10 cm boxes on a
/// plane, each contact starting at the standard rows' 1e-5 m allowance) under PEG,
/// the retry off (the unsplit step's event), 300 steps of 1 ms, `[lcp]
/// peg_work_chain` = `chain`: the counted failures, the largest speed of a box over
/// the last 100 steps (m/s), the exact overlap at the end (m³) and the top box's
/// rise (m).
fn stack5(chain: bool) -> (u64, f64, f64, f64) {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenes/lcp_stack5.toml");
    let model = rtphys::model::scene::load_scene_file(&path).expect("lcp_stack5.toml");
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        p.contact_model = rtphys::model::ContactModel::Peg;
        p.peg_work_chain = chain;
    }
    let model = common::without_retry(&model.with_options(opt));
    let top = model.body_id("box4").expect("box4");
    let mut data = rtphys::Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let z0 = data.state[top].x.z;
    let mut vmax = 0.0f64;
    for i in 0..300 {
        pl.step(&model, &mut data);
        if i >= 200 {
            vmax = data.state.iter().map(|s| s.v.norm()).fold(vmax, f64::max);
        }
    }
    let overlap = data.stats.overlap_volume;
    (
        data.stats.solver_failures,
        vmax,
        overlap,
        data.state[top].x.z - z0,
    )
}

/// `[lcp] peg_work_chain` (peg33; PEG's default since peg34, both values set
/// explicitly here). Without it every step of the shipped
/// 5-stack under PEG is refused by the work check (its first pass pushes each
/// contact's 1e-5 m out, the top box at 5 cm/s: ΔT 2.51e-3 J against 4 × the rows'
/// own push-out energy 1.13e-4 J) and takes the standard rows: 300 counted
/// failures in 300 steps, the allowance kept. With it the push-out of the chain,
/// Σ ½ m (k δ/h)² = 2.75e-3 J, covers ΔT and the first step is kept; then the stack
/// rests under PEG's rows: no counted failure, the end overlap ≤ 1e-9 of a box's
/// volume (PEG's target), every box slower than 1e-3 m/s over the last 0.1 s
/// (the pop settles: the top box's 5 cm/s rises it v²/2g = 0.13 mm), and the top
/// box rises by the stack's 5 × 1e-5 m of overlap within 1e-7 m (1e-6 of its size;
/// measured 5.000e-5 m: PEG rests at gap 0).
#[test]
fn work_chain_keeps_the_5_stacks_push_out() {
    let (f0, v0, ov0, dz0) = stack5(false);
    let (f1, v1, ov1, dz1) = stack5(true);
    println!(
        "key off: failures {f0}, max |v| {v0:.3e} m/s, overlap {ov0:.3e} m³, top rise {dz0:.3e} m"
    );
    println!(
        "key on: failures {f1}, max |v| {v1:.3e} m/s, overlap {ov1:.3e} m³, top rise {dz1:.3e} m"
    );
    assert_eq!(f0, 300, "the default's refusals");
    assert_eq!(f1, 0);
    assert!(ov1 <= 1e-9 * 1e-3, "overlap {ov1:e} m³");
    assert!(v1 <= 1e-3, "max |v| {v1:e} m/s");
    assert!((dz1 - 5e-5).abs() <= 1e-7, "top box rose {dz1:e} m");
}

/// Tool (peg30): the 3D pour at h = 1e-2, 2 passes, through step 190 at the
/// default (depth 2 + τ since peg32; `PEG_RETRY=0`: the retry off, the default
/// of peg30 and peg31; `PEG_WORK_PEN=1|0`: the key `[lcp] peg_work_penetration`,
/// peg33), for seeds `PEG_SEEDS` (comma-separated; default 1–10): the
/// largest gain of a step not after a counted failure (J), the largest |ω|
/// (rad/s), the counted failures (a refusal of the check is one) and 0.1 m g L.
/// `cargo test --release --test peg_work_check -- --ignored --nocapture
/// work_check_survey_3d`.
#[test]
#[ignore = "tool: the work check's 3D events at the default over seeds (peg30)"]
fn work_check_survey_3d() {
    use rtphys::experiments::peg_pour::{pour_scene, L};
    let seeds: Vec<u64> = std::env::var("PEG_SEEDS")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.parse().ok()).collect())
        .unwrap_or_else(|| (1..=10).collect());
    let h = 1e-2;
    for seed in seeds {
        let scene = pour_scene(seed, PourMethod::Peg, h);
        let retry = std::env::var("PEG_RETRY").map_or(true, |v| v != "0");
        let pen = std::env::var("PEG_WORK_PEN").ok().map(|v| v == "1");
        let (gain, wmax, (failures, _), m) = run(&scene, 2, (190, h), (false, true), (retry, pen));
        println!(
            "3D s{seed}: largest gain {gain:.3e} J (0.1 m g L = {:.3e}), max |ω| {wmax:.2} rad/s, failures {failures}",
            0.1 * m * 9.81 * L
        );
    }
}

/// The 2D pour (seed 6, h = 5e-2, 40 steps = 2 s) at the default with `[lcp]
/// peg_work_clamp` = `clamp`: the counted failures, the work check's refusals kept
/// or clamped (`StepStats::peg_work_refusals`), the clamped passes kept, the
/// largest overlap area at a step's end (L²), the largest mechanical-energy
/// change of a step that kept a clamped pass and of any step (J), and 0.1 m g L
/// (the file's bound).
fn pour_2d_s6(clamp: bool) -> (u64, u64, u64, f64, (f64, f64), f64) {
    use rtphys::experiments::peg_pour_2d::{pour_scene_2d, L};
    use rtphys::pipeline::lcp::peg::OverlapArea;
    let h = 5e-2;
    let scene = pour_scene_2d(6, PourMethod::Peg, h);
    let model =
        rtphys::model::scene::load_scene_str(&scene.toml, "<peg-pour>", std::path::Path::new("."))
            .expect("scene");
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        p.peg_work_clamp = clamp;
    }
    let model = model.with_options(opt);
    let mut data = rtphys::Data::new(&model);
    let mut driver = PourDriver::new(&model, &scene, &mut data).expect("driver");
    let mut pl = rtphys::Pipeline::new(&model);
    let mut area = OverlapArea::new(&model);
    let (mut ov, mut clamped, mut gain) = (0.0f64, f64::NEG_INFINITY, 0.0f64);
    for i in 0..40 {
        driver.before_step(&mut data, h);
        let e0 = energy(&model, &data);
        let k0 = data.stats.peg_clamped_kept;
        pl.step(&model, &mut data);
        let de = energy(&model, &data) - e0;
        let a = area.area(&model, &data.state) / (L * L);
        if data.stats.peg_clamped_kept > k0 {
            println!("  step {i}: a clamped pass kept, ΔE {de:.3e} J, overlap {a:.3e} L²");
            clamped = clamped.max(de);
        }
        if de > gain {
            println!("  step {i}: ΔE {de:.3e} J");
        }
        gain = gain.max(de);
        ov = ov.max(a);
    }
    let mass = model
        .bodies
        .iter()
        .map(|b| b.mass)
        .filter(|m| m.is_finite())
        .fold(0.0, f64::max);
    let s = &data.stats;
    (
        s.solver_failures,
        s.peg_work_refusals,
        s.peg_clamped_kept,
        ov,
        (clamped, gain),
        0.1 * mass * 9.81 * L,
    )
}

/// `[lcp] peg_work_clamp` (peg34; PEG's default, both values set explicitly
/// here). Without it the 2D pour's seed 6 at h = 5e-2 keeps one PEG-only failure (step 19, t = 1.0 s; the standard model's
/// step from the same state solves): the work check refuses a pass of the
/// retry's deepest level (h/4; the pass trace of `PEG_FAIL_TRACE=1` shows a
/// refused pass at ΔT/E ≈ 10, its largest push an I primary with c = −4.4 cm),
/// and that sub-step takes the standard rows' fallback, which leaves 1.59e-3 L²
/// of overlap (pinned: > 1e-3 L², one refusal kept, counted by
/// `StepStats::peg_work_refusals`). With the key the refused sub-step is solved
/// again with its rows clamped to their real penetration and kept: no counted
/// failure, one clamped pass kept, on a step that loses energy (measured
/// −6.86 J; asserted ≤ 0.1 m g L, a body lifted by a tenth of its size: the
/// clamped pass is no ejection), and the overlap ≤ 1e-9 L² over the 2 s (issue
/// 12's bound; measured 3.87e-11 L²). Printed, not asserted: on the trajectory
/// the clamp leads to, step 27 (an unsplit step, no refusal) gains 0.93 J, which
/// the check passes with or without `peg_work_penetration` and `peg_work_chain`
/// (docs/EXPERIMENTS.md, peg34).
#[test]
fn work_clamp_keeps_the_2d_pours_refused_sub_step_in_peg() {
    let (f0, r0, k0, ov0, (_, g0), bound) = pour_2d_s6(false);
    let (f1, r1, k1, ov1, (c1, g1), _) = pour_2d_s6(true);
    println!("key off: failures {f0}, refusals {r0}, clamped kept {k0}, max overlap {ov0:.3e} L², largest gain {g0:.3e} J (bound {bound:.3e} J)");
    println!("key on: failures {f1}, refusals {r1}, clamped kept {k1}, max overlap {ov1:.3e} L², clamped step ΔE {c1:.3e} J, largest gain {g1:.3e} J");
    assert_eq!((f0, r0, k0), (1, 1, 0), "the refusal kept without the key");
    assert!(ov0 > 1e-3, "the fallback's overlap {ov0:e} L²");
    assert_eq!((f1, k1), (0, 1));
    assert!(ov1 <= 1e-9, "overlap {ov1:e} L²");
    assert!(c1 <= bound, "the clamped step gains {c1:e} J > {bound:e} J");
}

/// The clamped pass's outcome counted (peg35: `StepStats::peg_clamped_failed`,
/// `peg_clamped_refused`, `peg_clamped_unmoved` beside `peg_clamped_kept`). The
/// 2D pour's seed 8 at h = 3.68e-3 (2 s, PEG's defaults) keeps one PEG-only
/// failure (step 527; peg34's unrescued refusal, 2.03e-5 L²): the deepest
/// level's first pass pushes an I primary at ψ = −4.7 mm whose real
/// penetration is 0.105 mm and is refused; its clamped pass solves and is
/// refused again — one refusal, no clamped pass kept, none failed, one refused
/// again, none unmoved, and the one counted failure.
#[test]
fn a_clamped_pass_refused_again_is_counted_apart_from_a_failed_one() {
    use rtphys::experiments::peg_pour_2d::pour_scene_2d;
    let h = 3.68e-3;
    let scene = pour_scene_2d(8, PourMethod::Peg, h);
    let model =
        rtphys::model::scene::load_scene_str(&scene.toml, "<peg-pour>", std::path::Path::new("."))
            .expect("scene");
    let mut data = rtphys::Data::new(&model);
    let mut driver = PourDriver::new(&model, &scene, &mut data).expect("driver");
    let mut pl = rtphys::Pipeline::new(&model);
    for _ in 0..(2.0 / h).round() as usize {
        driver.before_step(&mut data, h);
        pl.step(&model, &mut data);
    }
    let s = &data.stats;
    let got = (
        s.peg_work_refusals,
        s.peg_clamped_kept,
        s.peg_clamped_failed,
        s.peg_clamped_refused,
        s.peg_clamped_unmoved,
        s.solver_failures,
    );
    println!("refusals, clamped kept / failed / refused again / unmoved, failures: {got:?}");
    assert_eq!(got, (1, 0, 0, 1, 0, 1));
}
