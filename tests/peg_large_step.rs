//! PEG at a large step (issue 12): the 3D pour's first two bodies at h = 5e-2
//! (`experiments::peg_pour`, seed 1, 1 s: body 1 lands on body 0 at ≈ 3.4 m/s,
//! a step's reach ε ≈ 0.2 m, the size of the bodies). Before the feature
//! classification was bounded (`collision::features`, "Classification") every
//! vertex pair of the two hulls within ε was a vertex–vertex configuration: a
//! 2,045-variable LCP for two bodies, four Lemke ray terminations of ≈ 7 s each
//! per step, and growing. Asserted on the stats' counts, not on time. The
//! claim is about one step of h = 5e-2: PEG's retry (depth 2 + τ by default
//! since peg32) is set off here (`common::without_retry`). At the default the
//! same 20 steps keep 6.1e-12 L³ but their largest LCP is 57 variables, under
//! the test's "the bodies met" bound of 100: the case this test is about is not
//! exercised there (docs/EXPERIMENTS.md, peg32).

mod common;

use rtphys::experiments::peg_pour::{pour_scene, PourDriver, PourMethod, PourOverlap, L};
use rtphys::pipeline::lcp::peg::PEG_MAX_LCP;
use rtphys::{Data, Pipeline};

/// 20 steps at h = 5e-2 with two bodies: every island is given to Lemke (size ≤
/// [`PEG_MAX_LCP`]) and solved at the first attempt (pivots ≤ 10 n + 100, the
/// pivot limit of one attempt of the ladder), no failure, no fallback, no
/// quarantine; the bodies do not overlap beyond 1e-9 L³ (the criterion).
#[test]
fn peg_two_bodies_at_large_step_bounded_and_solved() {
    two_bodies_at_large_step(1);
}

/// The same run and criteria with `[lcp] peg_passes = 2` (a step's pivots within
/// one attempt's limit 10 n + 100: the passes' pivots add up). Measured: 3.2e-11
/// L³, one predicted pass discarded (peg13). Since the end angular velocity is
/// read from the momentum (lead37, `rotation::kicked_velocity`) the 2-pass run
/// of seed 1 fails Lemke at step 17 (2 failures, 2 fallbacks, 1.925e-4 L³), and
/// no seed of 1–10 at 2 passes meets all four criteria (`peg_passes::
/// passes_large_step` with `PEG_SEEDS=1,…,10`; docs/EXPERIMENTS.md, peg31): the
/// closest, seed 7, keeps 7.5e-11 L³ with no failure but 1.86× the pivot limit
/// at step 17; seeds 2, 8, 10 keep no failure but 4.8e-9 L³ (3.48× the pivot
/// limit), 8.2e-6 and 3.4e-5 L³ (an LCP of 768 > [`PEG_MAX_LCP`]). Ignored
/// with that figure: the claim no longer has an event in those cells.
#[test]
#[ignore = "measured 00:25 UTC (peg31): on the momentum's end velocity the 2-pass run of seed 1 fails Lemke at step 17 \
            (2 failures, 1.925e-4 L³); no seed of 1-10 at 2 passes meets the four criteria (peg_passes::passes_large_step)"]
fn predicted_pass_keeps_the_large_step_bounded_and_solved() {
    two_bodies_at_large_step(2);
}

/// The run at `passes` predicted passes per step, asserting the criteria above.
fn two_bodies_at_large_step(passes: usize) {
    let h = 5e-2;
    let scene = pour_scene(1, PourMethod::Peg, h);
    let model = rtphys::model::scene::load_scene_str(&scene.toml, "pour", ".".as_ref())
        .expect("generated scene loads");
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        p.peg_passes = passes;
    }
    let model = common::without_retry(&model.with_options(opt));
    let mut data = Data::new(&model);
    let mut driver = PourDriver::new(&model, &scene, &mut data).expect("bodies found");
    let mut pl = Pipeline::new(&model);
    let mut m = PourOverlap::new(&model);
    let (mut max_n, mut max_ov) = (0, 0.0f64);
    for i in 0..20 {
        driver.before_step(&mut data, h);
        pl.step(&model, &mut data);
        let s = &data.stats;
        let n = s.lcp_size;
        max_n = max_n.max(n);
        assert!(n <= PEG_MAX_LCP, "step {i}: LCP of {n} variables");
        assert!(
            s.solver_iterations <= 10 * n + 100,
            "step {i}: {} pivots for n = {n}",
            s.solver_iterations
        );
        assert_eq!(s.solver_failures, 0, "step {i}: Lemke failed");
        max_ov = max_ov.max(m.volume(&model, &data) / (L * L * L));
    }
    println!(
        "passes {passes}: largest LCP {max_n}, overlap {max_ov:.3e} L³, discarded passes {}",
        data.stats.peg_discarded_passes
    );
    assert_eq!(data.stats.solver_fallbacks, 0);
    assert_eq!(data.stats.quarantined, 0);
    // The two bodies met (the case is exercised).
    assert!(max_n > 100, "largest LCP {max_n}: the bodies never met");
    assert!(max_ov <= 1e-9, "overlap {max_ov:e} L³");
}
