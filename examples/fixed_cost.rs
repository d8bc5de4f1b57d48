//! The fixed cost of a step (issue 18 item 4): on-CPU µs per step of an empty
//! world (one static plane), of one free box tumbling in the air (no gravity, so
//! that it never lands: no contact, ever), under penalty and LCP,
//! with the pipeline's stage timers, and the cost of one stage-timer reading
//! (`std::time::Instant::now` and the pipeline's stage clock). Robots:
//! `rtphys bench robots [--method lcp]`.
//!
//!     cargo run --release --example fixed_cost
//!
//! Median of 5 windows of ~0.4 s each after 0.2 s of settling, like
//! `rtphys bench` (`src/tools/bench.rs`); the machine's load inflates every figure.

use rtphys::model::scene::load_scene_str;
use rtphys::tools::bench::{median, thread_cpu_s};
use rtphys::{Data, Model, Pipeline};
use std::path::Path;
use std::time::Instant;

const EMPTY: &str = r#"
[world]
gravity = [0.0, 0.0, 0.0]
dt = 0.001
integrator = "semi_implicit_euler"
method = "METHOD"

[[body]]
name = "ground"
static = true
shape = { type = "plane" }
"#;

const FREE_BOX: &str = r#"
[[body]]
name = "box"
shape = { type = "box", half_extents = [0.1, 0.2, 0.3] }
mass = 1.0
position = [0.0, 0.0, 5.0]
angular_velocity = [1.0, 2.0, 3.0]
"#;

/// µs per step (median of 5 windows) and the stage totals per step.
fn time_steps(model: &Model) -> (f64, Vec<(String, f64)>) {
    let mut data = Data::new(model);
    let mut pipe = Pipeline::new(model);
    for _ in 0..200 {
        pipe.step(model, &mut data);
    }
    // Calibrate a window of ~0.4 s.
    let t0 = thread_cpu_s();
    let mut n = 0u64;
    while thread_cpu_s() - t0 < 0.05 {
        pipe.step(model, &mut data);
        n += 1;
    }
    let per_window = (n * 8).max(100);
    let totals0 = data.stats.stage_ns_total;
    let mut windows = Vec::new();
    for _ in 0..5 {
        let c0 = thread_cpu_s();
        for _ in 0..per_window {
            pipe.step(model, &mut data);
        }
        windows.push((thread_cpu_s() - c0) * 1e6 / per_window as f64);
    }
    let steps = (5 * per_window) as f64;
    let stages = rtphys::data::Stage::ALL
        .iter()
        .map(|s| {
            let k = *s as usize;
            let ns = (data.stats.stage_ns_total[k] - totals0[k]) as f64;
            (s.name().to_string(), ns / steps / 1e3)
        })
        .collect();
    (median(&windows), stages)
}

fn main() {
    // One stage-timer reading: the pipeline's `lap` is one `Instant::now` and a
    // subtraction per stage.
    let n = 2_000_000;
    let c0 = thread_cpu_s();
    let mut acc = 0u128;
    let mut t = Instant::now();
    for _ in 0..n {
        let now = Instant::now();
        acc += now.duration_since(t).as_nanos();
        t = now;
    }
    let lap_ns = (thread_cpu_s() - c0) * 1e9 / n as f64;
    println!("std::time::Instant::now + duration: {lap_ns:.1} ns per lap ({acc} ns total)");
    // The pipeline's stage clock (`pipeline::clock`: the time-stamp counter where it
    // is invariant), what `lap` reads since issue 18 item 4's third pass.
    rtphys::pipeline::clock::calibrate();
    let c0 = thread_cpu_s();
    let mut acc = 0u64;
    let mut t = rtphys::pipeline::clock::Instant::now();
    for _ in 0..n {
        let now = rtphys::pipeline::clock::Instant::now();
        acc += now.nanos_since(t);
        t = now;
    }
    let lap_ns = (thread_cpu_s() - c0) * 1e9 / n as f64;
    println!("stage timer (pipeline::clock, one lap): {lap_ns:.1} ns per lap ({acc} ns total)");
    for method in ["penalty", "lcp"] {
        for (name, extra) in [("empty", ""), ("free_box", FREE_BOX)] {
            let text = EMPTY.replace("METHOD", method) + extra;
            let model = match load_scene_str(&text, name, Path::new(".")) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("{name}: {e}");
                    continue;
                }
            };
            let (us, stages) = time_steps(&model);
            let st: Vec<String> = stages
                .iter()
                .filter(|(_, v)| *v > 0.0)
                .map(|(k, v)| format!("{k} {v:.3}"))
                .collect();
            println!(
                "{method:8} {name:9} {us:6.3} µs/step   stages (µs): {}",
                st.join(", ")
            );
        }
    }
}
