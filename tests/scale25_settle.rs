//! A pile at rest comes to rest (issue 18, scale25): pile_100 of the scaling
//! scenes (`benches/scenes/scaling/pile_100.json`, 100 boxes, spheres and
//! capsules dropped into a container, μ = 0.8, penalty at 1 kHz, stepped as
//! `rtphys bench --sleep --rest-tol 1e-12` steps it) must, after its landing,
//! neither creep nor keep an agitation: from 3 s to 8 s its kinetic energy stays
//! under `KE_REST` at every step and its potential energy falls by at most
//! `PE_CREEP` in every 0.5 s (a settled pile releases no energy); with sleeping
//! on every body is asleep by 8 s; and with sleeping off the bodies end within
//! the sleep thresholds' drift of where they end with it on.
//!
//! Run with `[penalty.friction] solved_stick` (scale26: the creep is gone —
//! 0.088 mm mean drop over 2–10 s — but it still fails: KE 3.4e-4 J at 3.000 s,
//! the keyed pile's last settling, and the sleep bound on its free rollers,
//! spheres and a capsule rolling alone on the floor without rolling resistance,
//! and on one jittering capsule; docs/EXPERIMENTS.md "scale26").
//!
//! **Failed at the default transitions** (scale25): the settled pile creeps — its PE
//! falls 0.35 J/s over 2–10 s, KE 2e-4 to 8e-2 J, no body asleep by 10 s —
//! carried by sticking friction anchors whose surfaces slide
//! (docs/EXPERIMENTS.md "scale25"). Run it with
//! `cargo test --release --test scale25_settle -- --ignored --nocapture`.

mod common;

use common::load_str;
use rtphys::model::{BodyKind, Method, Model};
use rtphys::{Data, Pipeline};

/// Kinetic energy a settled 100-body pile may keep at any step, J: every body
/// at the sleep thresholds (2 mm/s, 0.02 rad/s) would hold ≈ 1e-4 J in all.
const KE_REST: f64 = 1e-4;
/// Potential energy a settled pile may release in 0.5 s, J (≈ 40 kg sinking
/// 2.5 µm: round-off and the springs' last settling, not a collapse).
const PE_CREEP: f64 = 1e-3;
/// Settled from (s), checked to (s).
const FROM: f64 = 3.0;
const TO: f64 = 8.0;
/// The sleep thresholds' drift over their rest time (`SleepParams::default`:
/// 2 mm/s and 0.02 rad/s for 0.5 s): the tolerance within which sleeping may
/// move a body.
const DRIFT: f64 = 1e-3;
/// The stick/slip transitions decided on the anchors' solve
/// (`[penalty.friction] solved_stick`, scale26; opt-in).
const SOLVED_STICK: bool = true;

fn pile(sleep: bool) -> Model {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/scenes/scaling/pile_100.json");
    let text = rtphys::tools::scaling::scene_from_json_file(&path).expect("pile_100");
    let model = load_str(&text);
    let mut opt = model.opt;
    opt.sleep.enabled = sleep;
    if let Method::Penalty(mut p) = opt.method {
        p.rest_tol = 1e-12;
        p.friction.solved_stick = SOLVED_STICK;
        opt.method = Method::Penalty(p);
    }
    model.with_options(opt)
}

/// Steps the pile to `TO`, asserting the rest bounds from `FROM` on; returns
/// the final state.
fn settle(sleep: bool) -> (Model, Data) {
    let model = pile(sleep);
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let (from, to) = (
        (FROM / model.opt.dt).round() as usize,
        (TO / model.opt.dt).round() as usize,
    );
    let window = (0.5 / model.opt.dt).round() as usize;
    let mut pe0 = 0.0;
    let mut ke_max = 0.0f64;
    for step in 1..=to {
        pipe.step(&model, &mut data);
        if step < from {
            continue;
        }
        let ke = data.kinetic_energy(&model);
        ke_max = ke_max.max(ke);
        assert!(
            ke <= KE_REST,
            "sleep {sleep}: KE {ke:.3e} J at {:.3} s over {KE_REST:e} J",
            data.time
        );
        if (step - from) % window == 0 {
            let pe = data.potential_energy(&model);
            if step > from {
                assert!(
                    pe0 - pe <= PE_CREEP,
                    "sleep {sleep}: PE fell {:.3e} J in the 0.5 s to {:.3} s (over {PE_CREEP:e} J)",
                    pe0 - pe,
                    data.time
                );
            }
            pe0 = pe;
        }
    }
    println!("sleep {sleep}: KE ≤ {ke_max:.3e} J over {FROM}–{TO} s");
    (model, data)
}

#[test]
#[ignore = "fails with solved_stick too: KE 3.4e-4 J at 3.000 s, and free rollers (no rolling resistance) never sleep (scale26, docs/EXPERIMENTS.md); run with --ignored"]
fn pile_100_comes_to_rest_and_sleeps() {
    let (model, on) = settle(true);
    let free: Vec<usize> = (0..model.bodies.len())
        .filter(|&b| model.bodies[b].kind == BodyKind::Free)
        .collect();
    let asleep = free.iter().filter(|&&b| on.asleep[b]).count();
    assert_eq!(asleep, free.len(), "bodies asleep at {TO} s");
    let (_, off) = settle(false);
    for &b in &free {
        let d = (on.state[b].x - off.state[b].x).norm();
        assert!(
            d <= DRIFT,
            "body {}: {d:.3e} m apart with sleeping on and off",
            model.bodies[b].name
        );
    }
}
