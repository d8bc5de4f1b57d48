//! 002 §4.2: the energy-monitored adaptive step keeps the mechanical energy of a
//! conservative, colliding system within ε-controlled bounds, where a fixed step of
//! the same mean length does not. The scene and the run are
//! `rtphys::experiments::hc_energy` (`rtphys plot` draws the same runs).

use rtphys::experiments::hc_energy::{run, scene};

/// Tighter ε, tighter bound: the non-physical energy change of every sub-step is
/// at most ε·E_s, and the run's deviation never exceeds the sum the monitor
/// admitted (measured with an energy computed here, not by the stepper). A fixed
/// step equal to the adaptive run's mean sub-step drifts by orders of magnitude more:
/// it spends its steps uniformly, the monitor spends them in the collisions.
#[test]
fn elastic_collisions_keep_energy_bounded_only_with_the_adaptive_step() {
    let seconds = 10.0;
    println!("| run | step | steps | max \\|E − E0\\|/E0 | final (E − E0)/E0 | max \\|E − E0\\| / Σ admitted error | quarantined |");
    println!("|---|---|---|---|---|---|---|");
    let mut results = Vec::new();
    for eps in [1e-4, 1e-6] {
        let adaptive = run(&scene(0.01, true, eps).expect("scene"), seconds);
        let mean = seconds / adaptive.substeps as f64;
        let fixed = run(&scene(mean, false, eps).expect("scene"), seconds);
        println!(
            "| adaptive, ε = {eps:e}, dt = 10 ms | mean {:.3e} s | {} in {} ticks | {:.2e} | {:+.2e} | {:.3} | {} |",
            mean, adaptive.substeps, adaptive.ticks, adaptive.max_rel, adaptive.final_rel, adaptive.max_over_admitted, adaptive.quarantined
        );
        println!(
            "| fixed step = that mean | {:.3e} s | {} | {:.2e} | {:+.2e} | — | {} |",
            mean, fixed.ticks, fixed.max_rel, fixed.final_rel, fixed.quarantined
        );
        assert!(adaptive.collisions_seen > 20, "too few collisions to test");
        assert_eq!(adaptive.floor, 0, "sub-steps at the floor");
        assert_eq!(adaptive.quarantined, 0);
        // All of the energy change is the error the monitor admitted.
        assert!(
            adaptive.max_over_admitted <= 1.0 + 1e-6,
            "energy changed by more than the admitted error: ratio {}",
            adaptive.max_over_admitted
        );
        assert!(
            fixed.max_rel > 10.0 * adaptive.max_rel,
            "fixed-step run does not drift: {} vs adaptive {}",
            fixed.max_rel,
            adaptive.max_rel
        );
        results.push(adaptive.max_rel);
    }
    assert!(results[0] < 1e-2, "ε = 1e-4: drift {}", results[0]);
    assert!(
        results[1] < 0.2 * results[0],
        "ε = 1e-6 does not tighten the bound: {} vs {}",
        results[1],
        results[0]
    );
}
