//! 003 Sec. 6, the 3D pour (Figs. 23–24; `rtphys::experiments::peg_pour`): the scene
//! generator and its release protocol, and the criteria on a CI subset.
//!
//! Measured (`rtphys experiment peg-pour --seeds 1 --steps 0.05,0.01 --duration 2`):
//! the standard model reaches 6.9e-3 L³ at h = 5e-2 (1 Lemke failure) and 3.8e-4 L³
//! at 1e-2; PEG 5.4e-6 L³ at 5e-2 (13 Lemke failures, PGS fallbacks) and 1.2e-5 L³
//! at 1e-2 (0 failures; a body spun from rest to 17.6 rad/s by its own impact, a
//! feature swung in from beyond ε). At h = 1e-3 PEG holds (4.3e-13 and 7.8e-15 L³
//! on seeds 1 and 2). The criteria test is ignored with those figures
//! (docs/EXPERIMENTS.md, "3D pour", lead (b)).

use rtphys::experiments::peg_pour::{
    pour_scene, run_pour, PourDriver, PourMethod, PourOverlap, BODIES, RELEASE_EVERY,
};
use rtphys::math::Vec3;
use rtphys::{Data, Pipeline};

/// Parked bodies do not move (bit for bit) until their release; each appears at its
/// drop point at rest at the first step ending after its release time; afterwards it
/// falls under gravity (free fall until it meets something: Δz = −g t²/2 to 1e-9 m
/// over the first 0.1 s, which no body can meet at the drop height 0.8 m above a box
/// 0.5 m high before the previous body is ≥ 0.5 s below it).
#[test]
fn pour_releases_on_schedule_and_parked_bodies_stay_put() {
    let h = 1e-2;
    let scene = pour_scene(3, PourMethod::Lcp, h);
    let model = rtphys::model::scene::load_scene_str(&scene.toml, "pour", ".".as_ref())
        .expect("generated scene loads");
    let mut data = Data::new(&model);
    let parked: Vec<_> = data.state.clone();
    let mut driver = PourDriver::new(&model, &scene, &mut data).expect("bodies found");
    let mut pl = Pipeline::new(&model);
    let ids: Vec<usize> = (0..BODIES)
        .map(|i| model.body_id(&format!("poly{i}")).expect("body"))
        .collect();
    let g = 9.81;
    let steps = (1.6 / h) as usize;
    for _ in 0..steps {
        driver.before_step(&mut data, h);
        pl.step(&model, &mut data);
        let t = data.time;
        for (i, &b) in ids.iter().enumerate() {
            let (tr, drop) = scene.releases[i];
            assert_eq!(tr, RELEASE_EVERY * i as f64);
            if t <= tr + 0.5 * h {
                assert_eq!(data.state[b], parked[b], "poly{i} moved before release");
            } else if t <= tr + 0.1 + 0.5 * h {
                // Semi-implicit Euler free fall after k steps: Δz = −g h² k(k+1)/2.
                let k = ((t - tr) / h).round();
                let dz = -g * h * h * k * (k + 1.0) / 2.0;
                let s = data.state[b];
                assert!(
                    (s.x - (drop + Vec3::new(0.0, 0.0, dz))).norm() < 1e-9,
                    "poly{i} at t = {t}: {:?}, expected drop {drop:?} + {dz}",
                    s.x
                );
            }
        }
    }
    assert_eq!(data.stats.quarantined, 0);
    // The metric sees no overlap among parked bodies and the box pieces.
    let mut m = PourOverlap::new(&model);
    let d0 = Data::new(&model);
    assert_eq!(m.volume(&model, &d0), 0.0);
}

/// Same seed, same step → bit-identical overlap series (determinism of generator,
/// release and step).
#[test]
fn pour_is_deterministic() {
    let a = run_pour(2, PourMethod::Lcp, 2e-2, 1.2).expect("run");
    let b = run_pour(2, PourMethod::Lcp, 2e-2, 1.2).expect("run");
    let bits = |r: &rtphys::experiments::peg_pour::PourRun| -> Vec<u64> {
        r.overlap.iter().map(|x| x.to_bits()).collect()
    };
    assert_eq!(bits(&a), bits(&b));
    assert_eq!(a.contacts, b.contacts);
}

/// The criteria on 2 seeds × 3 step sizes, 2 s (4 bodies): PEG's overlap
/// ≤ 1e-9 L³ at every step of every run; the standard model's median overlap at
/// h = 5e-2 exceeds its median at 1e-3; PEG has no Lemke failure and no crash in a
/// run (seed, h) where the standard model had neither.
#[test]
#[ignore = "open (re-run peg6 at 80064a8, all six runs): h = 1e-3 holds (PEG 4.3e-13 / 7.8e-15 L³, 0 failures); h = 1e-2: PEG 1.2e-5 / 4.8e-4 L³ (seeds 1 / 2, 0 failures); h = 5e-2: PEG 3.4e-3 / 3.0e-2 L³ with 15 / 20 Lemke failures where the standard model had 4 / 2 (> 1e-9); peg10 (peg_lcp_survey pour_3d_counters, the h = 5e-2 runs only): as shipped 7.3e-3 / 7.0e-2 L³ with 4 / 9 failing steps, with the opt-in elastic relaxation (`[lcp] peg_elastic = true`) 7.3e-3 / 6.2e-2 L³ with 3 / 3, still > 1e-9; peg11 (same tool): with 003's general |C| > 1 form (`[lcp] peg_general`, default on) 7.3e-3 / 1.3e-9 L³ with 4 / 2 failing steps, still > 1e-9; peg20 (same tool, on main with the seams): 3.44e-3 / 4.94e-3 L³, and with a failed step retried as sub-steps (`[lcp] peg_retry_depth = 2`, 15 / 17.5 % of the steps retried) 6.6e-11 / 8.6e-7 L³ with 3 / 2 steps keeping a failed solve; h = 1e-2 has no failing step (2.1e-12 / 4.8e-4 L³ at every depth): still > 1e-9"]
fn pour_peg_criteria() {
    let (seeds, hs) = ([1u64, 2], [1e-3, 1e-2, 5e-2]);
    let mut sm_median = Vec::new();
    let mut failures = Vec::new();
    for &h in &hs {
        let mut sm_all = Vec::new();
        for &seed in &seeds {
            let sm = run_pour(seed, PourMethod::Lcp, h, 2.0).expect("sm");
            let peg = run_pour(seed, PourMethod::Peg, h, 2.0).expect("peg");
            println!(
                "seed {seed} h {h}: SM max {:.3e} fails {} crash {}; PEG max {:.3e} fails {} crash {}",
                sm.max_overlap(),
                sm.solver_failures,
                sm.crashed(),
                peg.max_overlap(),
                peg.solver_failures,
                peg.crashed()
            );
            // Every run is measured before the verdict (all figures printed).
            if peg.max_overlap() > 1e-9 || peg.max_overlap().is_nan() {
                failures.push(format!(
                    "seed {seed} h {h}: PEG overlap {:e} L³",
                    peg.max_overlap()
                ));
            }
            if !sm.failed() && peg.failed() {
                failures.push(format!(
                    "seed {seed} h {h}: PEG failed where the standard model did not"
                ));
            }
            sm_all.extend(sm.overlap);
        }
        sm_median.push(rtphys::experiments::peg_pour::quantile(&mut sm_all, 0.5));
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(
        sm_median[2] > sm_median[0],
        "standard model's median overlap {sm_median:?} does not grow with h"
    );
}
