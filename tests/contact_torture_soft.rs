//! Hunt–Crossley contact that holds and rests (issue 11, classes 2, 3 and 8): the
//! λ of 002's §5 rule taken from the load each contact carries
//! (`pipeline/hunt_crossley.rs`, `support_loads`), so that every contact sinks at
//! most f·L under the weight it supports.
//!
//! Scenes (g = 9.81, semi-implicit Euler, the method's defaults unless stated):
//! - **resting box**: `config/scenes/hc_box.toml` (1 m, 10 kg, e = 0.5, placed
//!   touching), 1 kHz;
//! - **frictionless stack**: five 1 m, 10 kg cubes dropped with 1 m gaps (bottom
//!   1 m above the floor), h = 1e-2 and 1e-3, 10 s;
//! - **mass ratio**: a 1 m, 1,000 kg cube on the floor under a 10 m, 1e6 kg cube
//!   (both placed touching), μ = 0.5, 1 kHz, 3 s.
//!
//! Tolerances (issue 11): rest within 1 mm and settled (|v| < 1e-3 m/s) within 0.5 s;
//! the stack's bottom cube sinks ≤ 1 mm at rest; the mass-ratio stack penetrates
//! ≤ 1 mm, is not ejected (the small cube's speed stays below 0.1 m/s, and it stays
//! under the big one) and its energy (kinetic + gravitational + elastic in the
//! contacts) never rises by more than 1e-6 of the big cube's m g L per tick.
//!
//! The mass-ratio stack also under the penalty method (`box_on_plane.toml`'s gains,
//! semi-implicit Euler: the normal force linearly implicit, `pipeline/penalty_implicit.rs`,
//! the gain mass the load each contact carries): the same tolerances, with kinetic +
//! gravitational energy (the PID force with its integral term has no potential).

mod common;
use common::{load, load_str};
use rtphys::math::Vec3;
use rtphys::{Data, Model};

/// The gains of `config/scenes/box_on_plane.toml`.
const PENALTY: &str =
    "[penalty]\nkp_per_mass = 100000.0\nkv_per_mass = 500.0\nki_per_mass = 5000.0\nforgetting = 0.9\n\n";

fn world(dt: f64) -> String {
    format!("[world]\ngravity = [0.0, 0.0, -9.81]\ndt = {dt}\nintegrator = \"semi_implicit_euler\"\nmethod = \"hunt_crossley\"\n\n")
}

fn ground(mu: f64) -> String {
    format!("[[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = {mu}, restitution = 0.5 }}\n\n")
}

fn cube(name: &str, half: f64, mass: f64, z: f64, mu: f64) -> String {
    format!("[[body]]\nname = \"{name}\"\nshape = {{ type = \"box\", half_extents = [{half}, {half}, {half}] }}\nmass = {mass}\nposition = [0.0, 0.0, {z}]\nmaterial = {{ mu = {mu}, restitution = 0.5 }}\n\n")
}

fn body(model: &Model, n: &str) -> usize {
    model.bodies.iter().position(|b| b.name == n).expect("body")
}

#[test]
fn resting_box_within_1mm_settles_within_half_a_second() {
    let model = load("hc_box.toml");
    let mut d = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let b = body(&model, "box");
    let mut settle = 0.0;
    for _ in 0..3000 {
        pl.step(&model, &mut d);
        if d.state[b].v.norm() >= 1e-3 || d.state[b].w.norm() >= 1e-3 {
            settle = d.time;
        }
    }
    let depth = 0.5 - d.state[b].x.z;
    println!("hc_box: rest depth {:.4} mm, settled (|v| < 1e-3 m/s) at {settle:.3} s, {} sub-steps in 3 s", depth * 1e3, d.stats.substeps_total);
    assert!(depth <= 1e-3 && depth > 0.0, "rest depth {depth}");
    assert!(settle <= 0.5, "settled at {settle} s");
}

#[test]
fn frictionless_stack_bottom_sinks_at_most_1mm() {
    for dt in [1e-2, 1e-3] {
        let mut text = world(dt) + &ground(0.0);
        for i in 0..5 {
            text += &cube(&format!("c{i}"), 0.5, 10.0, 1.5 + 2.0 * i as f64, 0.0);
        }
        let model = load_str(&text);
        let mut d = Data::new(&model);
        let mut pl = rtphys::Pipeline::new(&model);
        let ids: Vec<usize> = (0..5).map(|i| body(&model, &format!("c{i}"))).collect();
        let mut last_move = 0.0;
        for _ in 0..(10.0 / dt).round() as usize {
            pl.step(&model, &mut d);
            if ids.iter().any(|&b| d.state[b].v.norm() >= 1e-3) {
                last_move = d.time;
            }
        }
        let sink = 0.5 - d.state[ids[0]].x.z;
        let top = d.state[ids[4]].x;
        println!("stack h = {dt}: bottom sinks {:.4} mm, last |v| ≥ 1e-3 m/s at {last_move:.3} s, top at {:?}, {} sub-steps", sink * 1e3, top.as_slice(), d.stats.substeps_total);
        assert_eq!(d.stats.quarantined, 0);
        assert!(sink <= 1e-3, "h = {dt}: bottom sinks {sink} m");
        assert!(last_move < 10.0 - dt, "h = {dt}: still moving at 10 s");
        assert!(
            top.x.abs() < 1e-3 && top.y.abs() < 1e-3,
            "stack toppled: {top:?}"
        );
    }
}

#[test]
fn mass_ratio_1000_no_crush_no_ejection() {
    let text = world(1e-3)
        + &ground(0.5)
        + &cube("small", 0.5, 1000.0, 0.5, 0.5)
        + &cube("big", 5.0, 1e6, 6.0, 0.5);
    let model = load_str(&text);
    let mut d = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let (s, bg) = (body(&model, "small"), body(&model, "big"));
    // Kinetic + gravitational + the elastic energy stored in the contacts.
    let e =
        |d: &Data| d.kinetic_energy(&model) + d.potential_energy(&model) + d.stats.contact_energy;
    let (mut pen, mut vmax, mut rise) = (0.0f64, 0.0f64, 0.0f64);
    let mut prev = e(&d);
    let scale = 1e6 * 9.81 * 10.0;
    for _ in 0..3000 {
        pl.step(&model, &mut d);
        let floor = 0.5 - d.state[s].x.z;
        let between = (d.state[s].x.z + 0.5) - (d.state[bg].x.z - 5.0);
        pen = pen.max(floor).max(between);
        vmax = vmax.max(d.state[s].v.norm());
        let now = e(&d);
        rise = rise.max((now - prev) / scale);
        prev = now;
    }
    let off = Vec3::new(d.state[s].x.x, d.state[s].x.y, 0.0).norm();
    println!("mass ratio: max penetration {:.4} mm, small cube max |v| {vmax:.2e} m/s, moved {off:.2e} m sideways, max energy rise per tick {rise:.2e} of m g L, {} sub-steps", pen * 1e3, d.stats.substeps_total);
    assert_eq!(d.stats.quarantined, 0);
    assert!(pen <= 1e-3, "penetration {pen} m");
    assert!(vmax < 0.1 && off < 1e-3, "ejected: |v| {vmax}, moved {off}");
    assert!(rise <= 1e-6, "energy rose by {rise} of m g L");
}

/// The 1,000:1 stack under the penalty method (the gains of `box_on_plane.toml`,
/// semi-implicit Euler: the normal force linearly implicit, the gain mass the load
/// each contact carries).
#[test]
fn mass_ratio_1000_penalty_no_crush_no_ejection() {
    let text = world(1e-3).replace("hunt_crossley", "penalty")
        + PENALTY
        + &ground(0.5)
        + &cube("small", 0.5, 1000.0, 0.5, 0.5)
        + &cube("big", 5.0, 1e6, 6.0, 0.5);
    let model = load_str(&text);
    let mut d = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let (s, bg) = (body(&model, "small"), body(&model, "big"));
    let e = |d: &Data| d.kinetic_energy(&model) + d.potential_energy(&model);
    let (mut pen, mut vmax, mut rise) = (0.0f64, 0.0f64, 0.0f64);
    let mut prev = e(&d);
    let scale = 1e6 * 9.81 * 10.0;
    for _ in 0..3000 {
        pl.step(&model, &mut d);
        let floor = 0.5 - d.state[s].x.z;
        let between = (d.state[s].x.z + 0.5) - (d.state[bg].x.z - 5.0);
        pen = pen.max(floor).max(between);
        vmax = vmax.max(d.state[s].v.norm());
        let now = e(&d);
        rise = rise.max((now - prev) / scale);
        prev = now;
    }
    let off = Vec3::new(d.state[s].x.x, d.state[s].x.y, 0.0).norm();
    println!("penalty mass ratio: max penetration {:.4} mm, small cube max |v| {vmax:.2e} m/s, moved {off:.2e} m sideways, max energy rise per tick {rise:.2e} of m g L, final floor/between {:.4}/{:.4} mm", pen * 1e3, (0.5 - d.state[s].x.z)*1e3, ((d.state[s].x.z + 0.5) - (d.state[bg].x.z - 5.0))*1e3);
    assert_eq!(d.stats.quarantined, 0);
    assert!(pen <= 1e-3, "penetration {pen} m");
    assert!(vmax < 0.1 && off < 1e-3, "ejected: |v| {vmax}, moved {off}");
    assert!(rise <= 1e-6, "energy rose by {rise} of m g L");
}

/// The mass ratio the other way round in size, with the default material (e = 0,
/// which the method's docs ask to avoid but a scene written elsewhere uses): a
/// 0.1 m, 0.1 kg cube on the floor under a 0.1 m, 100 kg cube, placed touching and
/// dropped from 5 cm, μ = 0.6, 1 kHz, 3 s. With e = 0 the damping c ≈ 1/(e v_i) is
/// at its largest, λ carries the heavy load and K is the light cube's: the damper's
/// stable sub-step was far below the 1e-6 s floor, and the explicit damper threw
/// the heavy cube off at 25 km/s (placed) or the light one 1.9e6 m away (dropped).
/// Now the damper is held within explicit Euler's bound at the floor
/// (`pipeline::hunt_crossley::evaluate`).
///
/// Tolerances (the mass-ratio stack's): both cubes end within 1 mm of resting on
/// each other, nothing is quarantined, and the heavy cube is never thrown above
/// 5 cm over its start. (Measured: placed 0.05 mm, dropped 0.12 mm. Left: the
/// dropped light cube keeps a sideways jitter of ≈ 1 cm, kinetic energy 1e-2 J.)
#[test]
fn light_cube_under_a_heavy_one_with_the_default_material_is_not_thrown() {
    for drop in [0.0, 0.05] {
        let text = format!(
            "{}[[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = 0.6 }}\n\n\
             [[body]]\nname = \"lo\"\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nmass = 0.1\n\
             position = [0.0, 0.0, 0.05]\nmaterial = {{ mu = 0.6 }}\n\n\
             [[body]]\nname = \"hi\"\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nmass = 100.0\n\
             position = [0.003, 0.002, {}]\nmaterial = {{ mu = 0.6 }}\n",
            world(1e-3),
            0.15 + drop
        );
        let model = load_str(&text);
        let (lo, hi) = (body(&model, "lo"), body(&model, "hi"));
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        let mut top = f64::NEG_INFINITY;
        for _ in 0..3000 {
            pipeline.step(&model, &mut data);
            top = top.max(data.state[hi].x.z);
        }
        let (zl, zh) = (data.state[lo].x.z, data.state[hi].x.z);
        eprintln!(
            "drop {drop}: light cube at {zl:.6} m, heavy at {zh:.6} m, highest {top:.6} m, quarantined {}",
            data.stats.quarantined
        );
        assert_eq!(data.stats.quarantined, 0, "drop {drop}: quarantined");
        assert!(
            top <= 0.15 + drop + 0.05,
            "drop {drop}: the heavy cube was thrown to {top} m"
        );
        assert!(
            (zl - 0.05).abs() <= 1e-3 && (zh - 0.15).abs() <= 1e-3,
            "drop {drop}: cubes at {zl} and {zh} m (resting 0.05 and 0.15)"
        );
    }
}
