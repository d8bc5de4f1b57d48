//! Cost of the Hunt–Crossley method on the reference scenes (box, 5-stack, 20-pile):
//! µs per tick and mean sub-steps per tick, beside 000's multi-point penalty method.
//! Run: `cargo bench --bench hunt_crossley` (wall clock, markdown table on stdout;
//! `rtphys bench --method hunt_crossley` gives on-CPU figures of the shipped scenes).

#[path = "../tests/common/mod.rs"]
mod common;
use common as common_scene;

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::{load_scene_str, MethodName};
use rtphys::{Data, Model};
use std::time::Instant;

/// The reference scenes as shipped (restitution 0, which Hunt–Crossley turns into
/// its largest damping, c ≈ 1/(0.01 v_i)) and with restitution 0.5 (`hc_box.toml`,
/// `hc_stack5.toml`, the pile's materials given e = 0.5).
fn scenes() -> Vec<(&'static str, Model, f64)> {
    let pile = pile_scene(PileKind::Bench, 20, 7);
    let load = |t: &str, n: &str| load_scene_str(t, n, std::path::Path::new(".")).expect("pile");
    vec![
        ("box (e = 0)", common_scene::load("box_on_plane.toml"), 1.0),
        ("box (e = 0.5)", common_scene::load("hc_box.toml"), 1.0),
        ("stack5 (e = 0)", common_scene::load("stack5.toml"), 2.0),
        (
            "stack5 (e = 0.5)",
            common_scene::load("hc_stack5.toml"),
            2.0,
        ),
        ("pile20 (e = 0)", load(&pile, "pile20"), 3.0),
        (
            "pile20 (e = 0.5)",
            load(
                &pile.replace("rolling =", "restitution = 0.5, rolling ="),
                "pile20",
            ),
            3.0,
        ),
    ]
}

fn main() {
    println!("| scene | method | µs per tick (median of 5 × 1 s) | sub-steps per tick | settled KE (J) |");
    println!("|---|---|---|---|---|");
    for (name, model, settle) in scenes() {
        for method in [MethodName::Penalty, MethodName::HuntCrossley] {
            let m =
                rtphys::run::apply_overrides(&model, Some(method), None, None).expect("override");
            let mut data = Data::new(&m);
            let mut pipeline = rtphys::Pipeline::new(&m);
            let n_settle = (settle / m.opt.dt) as usize;
            for _ in 0..n_settle {
                pipeline.step(&m, &mut data);
            }
            let mut us = Vec::new();
            let s0 = data.stats.substeps_total;
            let t0 = data.tick;
            for _ in 0..5 {
                let t = Instant::now();
                for _ in 0..1000 {
                    pipeline.step(&m, &mut data);
                }
                us.push(t.elapsed().as_secs_f64() * 1e6 / 1000.0);
            }
            us.sort_by(f64::total_cmp);
            let sub = (data.stats.substeps_total - s0) as f64 / (data.tick - t0) as f64;
            println!(
                "| {name} | {} | {:.1} | {} | {:.1e} |",
                m.opt.method.name(),
                us[2],
                if method == MethodName::HuntCrossley {
                    format!("{sub:.2}")
                } else {
                    "1".into()
                },
                data.kinetic_energy(&m)
            );
        }
    }
}
