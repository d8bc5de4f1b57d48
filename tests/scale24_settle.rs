//! Figures (ignored): how a scaling pile settles under penalty with sleeping on —
//! the trace behind docs/BENCHMARKS.md "scale24" (issue 18, pile_1000's settle).
//!
//! `SCALE24_SCENE=pile_1000 SCALE24_STEPS=10000 SCALE24_EVERY=250 cargo test --release
//! --test scale24_settle -- --ignored --nocapture` steps
//! `benches/scenes/scaling/SCENE.json` as the bench does (`rtphys bench --sleep
//! --rest-tol 1e-12`: sleeping on with its default thresholds, `[penalty] rest_tol`
//! = 1e-12) and prints one line per window of EVERY steps: the kinetic energy and
//! deepest penetration at its end, the bodies asleep and the bodies under the
//! sleep thresholds (|v| < v_rest and |ω| < w_rest) by kind, the fastest body, and
//! the window's means per step of the impulses, impact sweeps and manifold visits,
//! contact points, implicit solves and friction sweeps, the stage timers, and the
//! wall and on-CPU time per step. With `SCALE24_ROLLING=R` every material gets a rolling resistance
//! length of at least R (m; `rtphys bench --rolling`).

mod common;

use common::load_str;
use rtphys::data::Stage;
use rtphys::model::BodyKind;
use rtphys::tools::bench::thread_cpu_s;
use rtphys::{Data, Pipeline};
use std::time::Instant;

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore = "figures: minutes to hours of stepping (pile_1000), prints the settle trace"]
fn settle_trace() {
    let scene: String = env_or("SCALE24_SCENE", "pile_1000".to_string());
    let steps: usize = env_or("SCALE24_STEPS", 10_000);
    let every: usize = env_or("SCALE24_EVERY", 250).max(1);
    let rolling: f64 = env_or("SCALE24_ROLLING", 0.0);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("benches/scenes/scaling/{scene}.json"));
    let json = std::fs::read_to_string(&path).expect("the scaling scene's JSON");
    let kinds: Vec<String> = serde_json::from_str::<serde_json::Value>(&json).expect("JSON")
        ["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .map(|o| o["kind"].as_str().unwrap_or("?").to_string())
        .collect();
    let text = rtphys::tools::scaling::scene_from_json_file(&path).expect("scene");
    let mut model = load_str(&text).with_min_rolling(rolling);
    let mut opt = model.opt;
    opt.sleep.enabled = true;
    if let rtphys::model::Method::Penalty(mut p) = opt.method {
        p.rest_tol = 1e-12;
        opt.method = rtphys::model::Method::Penalty(p);
    }
    model = model.with_options(opt);
    let (v_rest, w_rest) = (model.opt.sleep.v_rest, model.opt.sleep.w_rest);
    let free: Vec<usize> = (0..model.bodies.len())
        .filter(|&b| model.bodies[b].kind == BodyKind::Free)
        .collect();
    assert_eq!(free.len(), kinds.len(), "one free body per object");
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    println!(
        "scene {scene}, {} free bodies, rolling ≥ {rolling} m, sleep on (v_rest {v_rest}, w_rest {w_rest}), rest_tol 1e-12",
        free.len()
    );
    println!(
        "step,t,ke,max_pen,asleep,under_box,under_sphere,under_capsule,fastest_kind,fastest_v,fastest_w,\
         impulses,impact_sweeps,impact_visits,points,solves,friction_sweeps,broad_us,narrow_us,contact_us,integrate_us,wall_ms,cpu_ms"
    );
    let mut acc = [0f64; 10];
    let (mut t0, mut c0) = (Instant::now(), thread_cpu_s());
    for step in 1..=steps {
        pipe.step(&model, &mut data);
        let s = &data.stats;
        for (a, v) in acc.iter_mut().zip([
            s.impulses as f64,
            s.impact_sweeps as f64,
            s.impact_visits as f64,
            s.contact_points as f64,
            s.solver_iterations as f64,
            s.friction_sweeps as f64,
            s.stage_ns[Stage::BroadPhase as usize] as f64 * 1e-3,
            s.stage_ns[Stage::NarrowPhase as usize] as f64 * 1e-3,
            s.stage_ns[Stage::Contact as usize] as f64 * 1e-3,
            s.stage_ns[Stage::Integrate as usize] as f64 * 1e-3,
        ]) {
            *a += v;
        }
        if step % every != 0 {
            continue;
        }
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3 / every as f64;
        let cpu_ms = (thread_cpu_s() - c0) * 1e3 / every as f64;
        let mut under = [0usize; 3];
        let (mut fastest, mut fv, mut fw) = (0usize, 0.0f64, 0.0f64);
        for (i, &b) in free.iter().enumerate() {
            let st = &data.state[b];
            let (v, w) = (st.v.norm(), st.w.norm());
            if v < v_rest && w < w_rest {
                let k = match kinds[i].as_str() {
                    "box" => 0,
                    "sphere" => 1,
                    _ => 2,
                };
                under[k] += 1;
            }
            if v / v_rest + w / w_rest > fv / v_rest + fw / w_rest {
                (fastest, fv, fw) = (i, v, w);
            }
        }
        let m: Vec<String> = acc
            .iter()
            .map(|a| format!("{:.1}", a / every as f64))
            .collect();
        println!(
            "{step},{:.3},{:.3e},{:.3e},{},{},{},{},{},{:.3e},{:.3e},{},{wall_ms:.2},{cpu_ms:.2}",
            data.time,
            data.kinetic_energy(&model),
            data.stats.max_penetration,
            data.stats.sleeping,
            under[0],
            under[1],
            under[2],
            kinds[fastest],
            fv,
            fw,
            m.join(",")
        );
        acc = [0.0; 10];
        (t0, c0) = (Instant::now(), thread_cpu_s());
    }
    assert!(data.state.iter().all(|s| s.is_finite()), "non-finite state");
}
