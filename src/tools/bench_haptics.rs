//! Haptic benchmarks (`rtphys bench zwidth`, `rtphys bench haptic_pile`).
//!
//! **Z-width** (Colgate & Brown 1994): which virtual walls (stiffness K, damping B) a
//! sampled device renders passively, at each network delay. Each (K, B, delay)
//! runs the render loop for real: the simulated device ([`SimulatedDevice`]: 0.15 kg,
//! its own damping b_d = 0.5 N·s/m, the operator's hand 300 N/m, 3 N·s/m) tapped
//! into a one-sided wall at 2 Hz (1 cm into it) for 3 s; the wall force
//!
//! ```text
//! f_env = −K x_s − B v_s      while x_s < 0  (x_s, v_s: the device sample d ms old)
//! ```
//!
//! is computed at 1 kHz from the device's sample delayed by d (the network's round
//! trip), held over the period (zero-order hold) and goes through the device port
//! ([`DevicePort`]: passivity observer, and the controller off — the raw Z-width —
//! or on). The device moves in continuous time between samples (integrated at
//! 50 kHz). The display (device + rendered wall) is passive on this run when the
//! energy the operator's hand put into it, E(t) = ∫ f_hand·v dt (from rest, no
//! stored energy at t = 0), never goes below −1 µJ: an active display returns
//! more energy to the hand than it received. The boundary of each panel is the
//! largest K passive at that B (every smaller K on the grid passive too).
//!
//! **Haptic rate in the pile**: the 20-object bench pile (`experiments::pile_scene`)
//! with a multi-rate tool (a 1.5 cm sphere, `rate_hz` = 10 kHz: 10 sub-steps per
//! 1 ms world tick) pressed into the pile and stirred in circles; the on-CPU time of
//! a whole tick (world + tool), and of the tool's path alone (narrow phase, 10
//! sub-steps, rendering), each the median of 5 windows.

use super::bench::thread_cpu_s;
use crate::experiments::{pile_scene, PileKind};
use crate::haptics::device::{DeviceModel, SimulatedDevice};
use crate::haptics::passivity::{DevicePort, PortParams};
use crate::math::Vec3;
use crate::model::Model;
use crate::runtime::World;
use serde_json::{json, Value};
use std::path::Path;

/// The haptic loop's period, s.
const T: f64 = 1e-3;
/// Fine steps per period for the device's continuous motion.
const FINE: usize = 50;
/// Energy floor of the passivity verdict, J.
const EPS: f64 = 1e-6;

fn device_model() -> DeviceModel {
    DeviceModel {
        mass: 0.15,
        damping: 0.5,
        hand_k: 300.0,
        hand_b: 3.0,
    }
}

/// One Z-width run: the minimum of the hand's input energy over 3 s, J.
pub fn zwidth_run(k: f64, b: f64, delay_ms: usize, controller: bool) -> f64 {
    let m = device_model();
    let mut dev = SimulatedDevice {
        x: Vec3::new(0.005, 0.0, 0.0),
        v: Vec3::zeros(),
    };
    let mut port = DevicePort::new(PortParams {
        max_force: f64::INFINITY,
        max_rate: f64::INFINITY,
        passivity_control: controller,
    });
    // Ring of the last delay_ms + 1 samples (x, v).
    let mut ring = vec![(dev.x, dev.v); delay_ms + 1];
    let op = |t: f64| {
        let w = 2.0 * std::f64::consts::PI * 2.0;
        let x = 0.005 - 0.0075 * (1.0 - (w * t).cos());
        let v = -0.0075 * w * (w * t).sin();
        (Vec3::new(x, 0.0, 0.0), Vec3::new(v, 0.0, 0.0))
    };
    let h = T / FINE as f64;
    let (mut e, mut e_min) = (0.0f64, 0.0f64);
    let n = (3.0 / T) as usize;
    for i in 0..n {
        // The sample the environment sees is `delay_ms` periods old.
        ring.rotate_right(1);
        ring[0] = (dev.x, dev.v);
        let (xs, vs) = ring[delay_ms];
        let f_env = if xs.x < 0.0 {
            Vec3::new(-k * xs.x - b * vs.x, 0.0, 0.0)
        } else {
            Vec3::zeros()
        };
        let f = port.render(&f_env, &dev.v, T);
        for j in 0..FINE {
            let t = i as f64 * T + j as f64 * h;
            let (x_op, v_op) = op(t);
            let v0 = dev.v;
            let f_hand0 = (x_op - dev.x) * m.hand_k + (v_op - dev.v) * m.hand_b;
            dev.step(&m, &f, &x_op, &v_op, h);
            // The hand's power, trapezoid over the fine step.
            let (x_op1, v_op1) = op(t + h);
            let f_hand1 = (x_op1 - dev.x) * m.hand_k + (v_op1 - dev.v) * m.hand_b;
            e += 0.5 * (f_hand0.dot(&v0) + f_hand1.dot(&dev.v)) * h;
            e_min = e_min.min(e);
        }
        if !e.is_finite() || dev.x.norm() > 1.0 {
            return f64::NEG_INFINITY;
        }
    }
    e_min
}

pub struct ZwidthGrid {
    pub k: Vec<f64>,
    pub b: Vec<f64>,
    pub delays: Vec<usize>,
    /// [delay][controller off, on][b] → largest passive K (0: none).
    pub k_max: Vec<[Vec<f64>; 2]>,
}

pub fn zwidth_grid(quick: bool) -> ZwidthGrid {
    let nk = if quick { 9 } else { 25 };
    let k: Vec<f64> = (0..nk)
        .map(|i| 100.0 * 10f64.powf(3.0 * i as f64 / (nk - 1) as f64))
        .collect();
    let b: Vec<f64> = (0..=(if quick { 4 } else { 10 }))
        .map(|i| i as f64 * if quick { 5.0 } else { 2.0 })
        .collect();
    let delays = vec![0usize, 1, 5, 20];
    let k_max = delays
        .iter()
        .map(|&d| {
            [false, true].map(|c| {
                b.iter()
                    .map(|&bb| {
                        let mut best = 0.0;
                        for &kk in &k {
                            if zwidth_run(kk, bb, d, c) >= -EPS {
                                best = kk;
                            } else {
                                break;
                            }
                        }
                        best
                    })
                    .collect()
            })
        })
        .collect();
    ZwidthGrid {
        k,
        b,
        delays,
        k_max,
    }
}

pub fn zwidth(quick: bool, png: Option<&Path>, font: &Path) -> anyhow::Result<Value> {
    let g = zwidth_grid(quick);
    if let Some(p) = png {
        draw_zwidth(&g, p, font)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(json!({
        "benchmark": "zwidth",
        "device": {"mass_kg": 0.15, "damping_ns_per_m": 0.5, "hand_k": 300.0, "hand_b": 3.0},
        "period_s": T,
        "k_grid": g.k,
        "b_grid": g.b,
        "panels": g.delays.iter().zip(&g.k_max).map(|(d, km)| json!({
            "delay_ms": d,
            "k_max_controller_off": km[0],
            "k_max_controller_on": km[1],
        })).collect::<Vec<_>>(),
    }))
}

fn draw_zwidth(g: &ZwidthGrid, path: &Path, font: &Path) -> anyhow::Result<()> {
    use plotters::prelude::*;
    let text = super::plot::register(font);
    let root = BitMapBackend::new(path, (1100, 850)).into_drawing_area();
    let e = |err: DrawingAreaErrorKind<_>| anyhow::anyhow!("drawing {}: {err:?}", path.display());
    root.fill(&WHITE).map_err(e)?;
    let (lo, hi) = (g.k[0] * 0.8, g.k[g.k.len() - 1] * 1.25);
    let bmax = g.b[g.b.len() - 1];
    let panels = root.split_evenly((2, 2));
    for (i, area) in panels.iter().enumerate() {
        let mut builder = ChartBuilder::on(area);
        builder.margin(12);
        if text {
            builder
                .caption(format!("delay {} ms", g.delays[i]), ("sans-serif", 20))
                .x_label_area_size(40)
                .y_label_area_size(60);
        }
        let mut chart = builder
            .build_cartesian_2d(0.0..bmax, (lo..hi).log_scale())
            .map_err(e)?;
        if text {
            chart
                .configure_mesh()
                .x_desc("virtual damping B, N·s/m")
                .y_desc("largest passive K, N/m")
                .y_label_formatter(&|y: &f64| format!("{y:.0e}"))
                .draw()
                .map_err(e)?;
        }
        let series = [
            (
                &g.k_max[i][0],
                RGBColor(200, 40, 40),
                "controller off (raw Z-width)",
            ),
            (
                &g.k_max[i][1],
                RGBColor(30, 90, 200),
                "passivity controller on",
            ),
        ];
        for (ks, color, label) in series {
            let pts: Vec<(f64, f64)> =
                g.b.iter()
                    .zip(ks.iter())
                    .map(|(&b, &k)| (b, k.max(lo)))
                    .collect();
            let s = chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(3)))
                .map_err(e)?;
            if text {
                s.label(label).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
                });
            }
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
                .map_err(e)?;
        }
        if text {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::LowerRight)
                .draw()
                .map_err(e)?;
        }
    }
    root.present().map_err(e)?;
    Ok(())
}

/// The pile with the multi-rate tool (module doc).
fn pile_with_tool(rate_hz: f64) -> anyhow::Result<Model> {
    let mut text = pile_scene(PileKind::Bench, 20, 1);
    text.push_str(&format!(
        "\n[[body]]\nname = \"probe\"\nshape = {{ type = \"sphere\", radius = 0.015 }}\nmass = 0.1\n\
         position = [0.0, 0.0, 0.45]\n\n[[haptic]]\nname = \"probe\"\ntool = \"probe\"\n\
         stiffness = 1500.0\ndamping = 8.0\noffset = [0.0, 0.0, 0.45]\n\
         workspace_min = [-0.5, -0.5, -0.5]\nworkspace_max = [0.5, 0.5, 0.5]\nmax_force = 20.0\n\
         max_stiffness = 3000.0\nrate_hz = {rate_hz:?}\ncontact_stiffness = 4000.0\n"
    ));
    Ok(crate::model::scene::load_scene_str(
        &text,
        "pile20_haptic.toml",
        Path::new("."),
    )?)
}

/// The device script in the pile: hold 1.5 s (the pile settles), descend 0.42 m
/// over 1 s into the pile (the target 3 cm above the floor), then stir in 8 cm
/// circles at 0.5 Hz.
fn pile_device(t: f64) -> (Vec3, Vec3) {
    let (t0, t1) = (1.5, 2.5);
    let depth = -0.42;
    if t < t0 {
        (Vec3::zeros(), Vec3::zeros())
    } else if t < t1 {
        let v = depth / (t1 - t0);
        (Vec3::new(0.0, 0.0, v * (t - t0)), Vec3::new(0.0, 0.0, v))
    } else {
        let w = std::f64::consts::PI;
        let u = t - t1;
        let r = 0.08;
        (
            Vec3::new(r * (w * u).sin(), r * (1.0 - (w * u).cos()), depth),
            Vec3::new(r * w * (w * u).cos(), r * w * (w * u).sin(), 0.0),
        )
    }
}

/// One tick of the pile with the device at sample `k`; returns the tool path's
/// on-CPU seconds (its `apply` and `render`).
fn pile_tick(w: &mut World, k: u64) -> f64 {
    let (x, v) = pile_device(w.data.time);
    let s = crate::haptics::scripts::sample(k, x, Some(v));
    w.step_with_device(Some((0, &s)), &mut thread_cpu_s)
}

pub fn haptic_pile(quick: bool, reps: usize) -> anyhow::Result<Value> {
    let rate = 10_000.0;
    let model = pile_with_tool(rate)?;
    let substeps = model.haptics[0].multirate.map_or(1, |m| m.substeps);
    let mut w = World::new(1, "pile20_haptic".into(), model, 1, 16);
    let warm = 2700u64;
    for k in 0..warm {
        pile_tick(&mut w, k);
    }
    let window = if quick { 200 } else { 1000 };
    let (mut tick_us, mut tool_us) = (Vec::new(), Vec::new());
    let mut k = warm;
    let (mut contact_ticks, mut points) = (0u64, 0usize);
    for _ in 0..reps.max(5) {
        let c0 = thread_cpu_s();
        let mut tool = 0.0;
        for _ in 0..window {
            tool += pile_tick(&mut w, k);
            k += 1;
            let h = &w.haptic[0];
            let pile = h.sub.points[..h.sub.npoints]
                .iter()
                .any(|c| w.model.bodies[c.other].kind == crate::model::BodyKind::Free);
            contact_ticks += pile as u64;
            points = points.max(h.sub.npoints);
        }
        let total = thread_cpu_s() - c0;
        tick_us.push(total / window as f64 * 1e6);
        tool_us.push(tool / window as f64 * 1e6);
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (tick, tool) = (med(&mut tick_us), med(&mut tool_us));
    let timed = (reps.max(5) * window) as u64;
    let f = w.haptic[0].out.force;
    Ok(json!({
        "benchmark": "haptic_pile",
        "scene": "pile_scene(bench, 20, seed 1) + a 1.5 cm sphere tool, rate_hz 10000",
        "substeps_per_tick": substeps,
        "tick_us_cpu_median": tick,
        "tool_path_us_cpu_median": tool,
        "sustained_haptic_rate_hz_whole_world": substeps as f64 / (tick * 1e-6),
        "tool_substep_rate_hz_tool_path": substeps as f64 / (tool * 1e-6),
        "ticks_with_tool_touching_pile_objects": contact_ticks,
        "ticks_timed": timed,
        "max_tool_contact_points": points,
        "last_force_n": [f.x, f.y, f.z],
    }))
}
