//! A small pile that comes to rest under `[penalty.friction] solved_stick`
//! (issue 18, scale26): pile_20 of the scaling scenes
//! (`benches/scenes/scaling/pile_20.json`, written by the peer's
//! `bench_scaling.py --write-scenes DIR --sizes 20 --scenes pile`: 20 boxes,
//! spheres and capsules dropped in 10 layers into a container, μ = 0.8,
//! penalty at 1 kHz), stepped as `rtphys bench --sleep --rest-tol 1e-12` steps
//! it. After its landing (from `FROM`) a pile at rest releases no energy and
//! takes none: its potential energy moves by at most `CREEP_DROP` of its weight
//! (M g × 2.5 µm) in any 0.5 s, either way; its kinetic energy stays under
//! `KE_REST_PER_BODY` per body; by `TO` every body is asleep with sleeping on,
//! and with sleeping off the bodies end within `DRIFT` of where they end with it
//! on. The stick/slip transitions decided at the step's start (the default)
//! fail it: the pile's PE rises 2.4–2.9 mJ per 0.5 s over 2.5–6 s (its anchors
//! dragged at the cone before the solve that holds them, docs/EXPERIMENTS.md
//! "scale26"); `pile_20_at_the_default_transitions` (ignored) prints that run.

mod common;

use common::load_str;
use rtphys::model::{BodyKind, Method, Model};
use rtphys::{Data, Pipeline};

/// Kinetic energy per body a settled pile may keep at any step, J: a 0.3 kg
/// body at the sleep thresholds (2 mm/s, 0.02 rad/s) holds ≈ 1e-6 J (scale25's
/// 1e-4 J for pile_100).
const KE_REST_PER_BODY: f64 = 1e-6;
/// The sinking (or rising) of the pile's centre of mass allowed in 0.5 s, m:
/// round-off and the springs' last settling, not a collapse (scale25's 1 mJ
/// for pile_100's ≈ 40 kg).
const CREEP_DROP: f64 = 2.5e-6;
/// Settled from (s), checked to (s).
const FROM: f64 = 2.5;
const TO: f64 = 8.0;
/// The sleep thresholds' drift over their rest time (2 mm/s and 0.02 rad/s
/// for 0.5 s): the tolerance within which sleeping may move a body.
const DRIFT: f64 = 1e-3;

fn pile(sleep: bool, solved_stick: bool) -> Model {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/scenes/scaling/pile_20.json");
    let text = rtphys::tools::scaling::scene_from_json_file(&path).expect("pile_20");
    let model = load_str(&text);
    let mut opt = model.opt;
    opt.sleep.enabled = sleep;
    if let Method::Penalty(mut p) = opt.method {
        p.rest_tol = 1e-12;
        p.friction.solved_stick = solved_stick;
        opt.method = Method::Penalty(p);
    }
    model.with_options(opt)
}

/// Steps the pile to `TO`, checking the rest bounds from `FROM` on; the final
/// state, or the first bound broken.
fn settle(sleep: bool, solved_stick: bool) -> Result<(Model, Data), String> {
    let model = pile(sleep, solved_stick);
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let free: Vec<usize> = (0..model.bodies.len())
        .filter(|&b| model.bodies[b].kind == BodyKind::Free)
        .collect();
    let mass: f64 = free.iter().map(|&b| model.bodies[b].mass).sum();
    let pe_creep = mass * model.opt.gravity.norm() * CREEP_DROP;
    let ke_rest = KE_REST_PER_BODY * free.len() as f64;
    let (from, to) = (
        (FROM / model.opt.dt).round() as usize,
        (TO / model.opt.dt).round() as usize,
    );
    let window = (0.5 / model.opt.dt).round() as usize;
    let mut pe0 = 0.0;
    for step in 1..=to {
        pipe.step(&model, &mut data);
        if step < from {
            continue;
        }
        let ke = data.kinetic_energy(&model);
        if ke > ke_rest {
            return Err(format!(
                "KE {ke:.3e} J at {:.3} s over {ke_rest:.1e} J",
                data.time
            ));
        }
        if (step - from) % window == 0 {
            let pe = data.potential_energy(&model);
            if step > from && (pe - pe0).abs() > pe_creep {
                return Err(format!(
                    "PE moved {:.3e} J in the 0.5 s to {:.3} s (bound {pe_creep:.2e} J)",
                    pe - pe0,
                    data.time
                ));
            }
            pe0 = pe;
        }
    }
    if sleep {
        let awake = free.iter().filter(|&&b| !data.asleep[b]).count();
        if awake > 0 {
            return Err(format!("{awake} of {} bodies awake at {TO} s", free.len()));
        }
    }
    Ok((model, data))
}

#[test]
fn pile_20_comes_to_rest_and_sleeps_with_solved_stick() {
    let (model, on) = settle(true, true).unwrap_or_else(|e| panic!("sleeping on: {e}"));
    let (_, off) = settle(false, true).unwrap_or_else(|e| panic!("sleeping off: {e}"));
    for b in (0..model.bodies.len()).filter(|&b| model.bodies[b].kind == BodyKind::Free) {
        let d = (on.state[b].x - off.state[b].x).norm();
        assert!(
            d <= DRIFT,
            "body {}: {d:.3e} m apart with sleeping on and off",
            model.bodies[b].name
        );
    }
}

/// The same bounds at the default transitions (the figure behind the module
/// doc; it fails them).
#[test]
#[ignore = "figures: the default transitions fail these bounds (docs/EXPERIMENTS.md scale26)"]
fn pile_20_at_the_default_transitions() {
    for sleep in [true, false] {
        match settle(sleep, false) {
            Ok(_) => println!("default, sleeping {sleep}: within the bounds"),
            Err(e) => println!("default, sleeping {sleep}: {e}"),
        }
    }
}

/// `solved_stick` is penalty's key: its trial anchors are resolved by penalty's
/// anchor solve, so Hunt–Crossley refuses it, naming the key; penalty reads it.
#[test]
fn solved_stick_is_read_by_penalty_and_refused_by_hunt_crossley() {
    let scene = |method: &str, table: &str| {
        format!(
            "[world]\ndt = 0.001\nmethod = \"{method}\"\n\n[{table}.friction]\nsolved_stick = true\n\n\
             [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\n"
        )
    };
    let path = std::path::Path::new(".");
    let m = rtphys::model::scene::load_scene_str(&scene("penalty", "penalty"), "p.toml", path)
        .expect("penalty reads solved_stick");
    match m.opt.method {
        Method::Penalty(p) => assert!(p.friction.solved_stick),
        other => panic!("method {other:?}"),
    }
    match rtphys::model::scene::load_scene_str(
        &scene("hunt_crossley", "hunt_crossley"),
        "hc.toml",
        path,
    ) {
        Ok(_) => panic!("Hunt–Crossley accepted solved_stick"),
        Err(e) => {
            let s = e.to_string();
            assert!(s.contains("solved_stick"), "key not named: {s}");
        }
    }
}
