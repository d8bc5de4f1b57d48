//! Multi-rate haptics (src/haptics/multirate.rs): the tool and its contacts
//! stepped at 8 kHz inside a 1 kHz world, under penalty and LCP. Real physics, no
//! timing: the force rendered at the haptic rate has no step at the world ticks
//! larger than its own sub-step increments (while the world-rate renderer's ticks
//! are steps); the world steps once per tick; the linear momentum the tool and
//! the world exchange is consistent (the pair's momentum changes by the coupling's
//! impulse alone); runs are bit-identical; bad keys name the key and line.

use rtphys::math::Vec3;
use rtphys::model::Model;
use rtphys::runtime::World;

/// A table, a free crate on it and a 1 cm spherical tool above it.
fn scene(method: &str, gravity: f64, rate: Option<f64>) -> String {
    let multirate = match rate {
        Some(r) => format!("rate_hz = {r}\ncontact_stiffness = 3000.0\n"),
        None => String::new(),
    };
    format!(
        r#"
[world]
gravity = [0.0, 0.0, {gravity}]
dt = 0.001
method = "{method}"

[penalty]
kp_per_mass = 20000.0
kv_per_mass = 300.0

[[body]]
name = "table"
static = true
shape = {{ type = "box", half_extents = [0.5, 0.5, 0.05] }}
position = [0.0, 0.0, -0.05]
material = {{ mu = 0.3 }}

[[body]]
name = "crate"
shape = {{ type = "box", half_extents = [0.03, 0.03, 0.03] }}
mass = 0.4
position = [0.08, 0.0, 0.03]
material = {{ mu = 0.3 }}

[[body]]
name = "tip"
shape = {{ type = "sphere", radius = 0.01 }}
mass = 0.1
position = [0.0, 0.0, 0.03]
material = {{ mu = 0.3 }}

[[haptic]]
name = "stylus"
tool = "tip"
stiffness = 1000.0
damping = 5.0
offset = [0.0, 0.0, 0.03]
workspace_min = [-0.2, -0.2, -0.2]
workspace_max = [0.2, 0.2, 0.2]
max_force = 50.0
max_stiffness = 3000.0
{multirate}"#
    )
}

fn load(text: &str) -> Model {
    rtphys::model::scene::load_scene_str(text, "multirate.toml", std::path::Path::new("."))
        .expect("scene")
}

/// The device trajectory at time t (device coordinates, velocity given):
/// straight down at 5 cm/s for 0.6 s (the tip touches the table at 2 cm), then
/// along +x at 10 cm/s for 0.6 s into the crate, then held. Piecewise constant
/// velocity, so the samples' first-order hold between ticks is exact: the only
/// steps in the device's input are its two velocity kinks (ticks [`KINKS`]).
fn device(t: f64) -> (Vec3, Vec3) {
    let (vz, vx) = (-0.05, 0.1);
    if t < 0.6 {
        (Vec3::new(0.0, 0.0, vz * t), Vec3::new(0.0, 0.0, vz))
    } else if t < 1.2 {
        (
            Vec3::new(vx * (t - 0.6), 0.0, vz * 0.6),
            Vec3::new(vx, 0.0, 0.0),
        )
    } else {
        (Vec3::new(vx * 0.6, 0.0, vz * 0.6), Vec3::zeros())
    }
}

/// Ticks at which [`device`]'s velocity steps (the coupling's damping renders
/// that step, b Δv, at any rate).
const KINKS: [usize; 2] = [600, 1200];

struct Run {
    /// Rendered forces at the haptic rate, per tick.
    forces: Vec<Vec<Vec3>>,
    world: World,
    /// Σ coupling impulse on the tool, N·s.
    coupling_impulse: Vec3,
    /// The crate's and tool's momentum at each tick.
    momentum: Vec<Vec3>,
    coupling_cum: Vec<Vec3>,
}

fn run(text: &str, ticks: u64, dev: impl Fn(f64) -> (Vec3, Vec3)) -> Run {
    let model = load(text);
    let (tip, crate_) = (
        model.body_id("tip").unwrap(),
        model.body_id("crate").unwrap(),
    );
    let mut w = World::new(1, "multirate".into(), model, 1, 16);
    let mut forces = Vec::new();
    let mut coupling_impulse = Vec3::zeros();
    let mut momentum = Vec::new();
    let mut coupling_cum = Vec::new();
    for k in 0..ticks {
        let (x, v) = dev(w.data.time);
        let s = rtphys::haptics::scripts::sample(k, x, Some(v));
        w.step_with_device(Some((0, &s)), &mut || 0.0);
        let World {
            model,
            data,
            haptic,
            ..
        } = &mut w;
        let o = &haptic[0].out;
        forces.push(o.substep_force[..o.substeps].to_vec());
        if haptic[0].sub.active {
            coupling_impulse += haptic[0].sub.coupling_impulse;
        }
        let m = &model.bodies;
        momentum.push(data.state[tip].v * m[tip].mass + data.state[crate_].v * m[crate_].mass);
        coupling_cum.push(coupling_impulse);
    }
    Run {
        forces,
        world: w,
        coupling_impulse,
        momentum,
        coupling_cum,
    }
}

/// Per world tick boundary: (the force's jump across it, the largest sub-step
/// increment inside the ticks on either side).
fn boundary_jumps(forces: &[Vec<Vec3>]) -> Vec<(f64, f64)> {
    let inside = |f: &[Vec3]| {
        f.windows(2)
            .map(|p| (p[1] - p[0]).norm())
            .fold(0.0f64, f64::max)
    };
    forces
        .windows(2)
        .map(|p| {
            let jump = (p[1][0] - p[0][p[0].len() - 1]).norm();
            (jump, inside(&p[0]).max(inside(&p[1])))
        })
        .collect()
}

fn continuity(method: &str) {
    let ticks = 1400;
    let mr = run(&scene(method, -9.81, Some(8000.0)), ticks, device);
    assert_eq!(mr.world.data.tick, ticks, "the world steps once per tick");
    assert!(mr.forces.iter().all(|f| f.len() == 8), "8 forces per tick");
    let jumps = boundary_jumps(&mr.forces);
    // The world's contact refresh (and the crate moving at the world rate) may
    // add no step beyond the haptic-rate increments: |jump| ≤ 1.5 max increment
    // on either side (+ 1 mN for the free-space ticks where both are ~0).
    let mut worst = 0.0f64;
    for (j, &(jump, inc)) in jumps.iter().enumerate() {
        // Boundary j lies between ticks j and j + 1.
        if KINKS.iter().any(|&k| j + 1 == k) {
            continue;
        }
        assert!(
            jump <= 1.5 * inc + 1e-3,
            "{method}: tick {j}: jump {jump} N at the world tick vs sub-step increments {inc} N"
        );
        if inc > 1e-3 {
            worst = worst.max(jump / inc);
        }
    }
    // The run touched the table and pushed the crate (a real contact force).
    let fz_max = mr.forces.iter().flatten().map(|f| f.z).fold(0.0, f64::max);
    let fx_min = mr.forces.iter().flatten().map(|f| f.x).fold(0.0, f64::min);
    assert!(
        fz_max > 5.0,
        "{method}: pressed on the table, fz max {fz_max}"
    );
    assert!(fx_min < -1.0, "{method}: pushed the crate, fx min {fx_min}");
    let crate_ = mr.world.model.body_id("crate").unwrap();
    let moved = mr.world.data.state[crate_].x.x - 0.08;
    assert!(moved > 0.005, "{method}: the crate moved {moved} m");
    // The world-rate renderer on the same run: its tick-to-tick steps are the
    // sub-step increments summed (≈ 8× larger).
    let sr = run(&scene(method, -9.81, None), ticks, device);
    let step_sr = sr
        .forces
        .windows(2)
        .enumerate()
        .filter(|(j, _)| !KINKS.contains(&(j + 1)))
        .map(|(_, p)| (p[1][0] - p[0][0]).norm())
        .fold(0.0f64, f64::max);
    let jump_mr = jumps
        .iter()
        .enumerate()
        .filter(|(j, _)| !KINKS.contains(&(j + 1)))
        .map(|(_, j)| j.0)
        .fold(0.0f64, f64::max);
    println!(
        "{method}: multi-rate largest jump at a world tick {jump_mr:.4} N (worst jump/increment {worst:.2}); \
         world-rate largest step {step_sr:.4} N"
    );
    assert!(
        jump_mr < 0.5 * step_sr,
        "{method}: multi-rate {jump_mr} N vs world-rate {step_sr} N"
    );
}

#[test]
fn rendered_force_is_continuous_at_world_ticks_under_penalty() {
    continuity("penalty");
}

#[test]
fn rendered_force_is_continuous_at_world_ticks_under_lcp() {
    continuity("lcp");
}

/// No gravity, nothing but the tool and the crate touching (the table is
/// static but neither reaches it): the pair's linear momentum changes by the
/// coupling's impulse alone — the crate takes exactly the impulse the tool took
/// from it at the haptic rate.
fn momentum(method: &str) {
    // Straight into the crate's side at mid-height, 3 cm.
    let dev = |t: f64| {
        let v = 0.1;
        if t < 0.5 {
            (Vec3::new(v * t, 0.0, 0.0), Vec3::new(v, 0.0, 0.0))
        } else {
            (Vec3::new(v * 0.5, 0.0, 0.0), Vec3::zeros())
        }
    };
    let text = scene(method, 0.0, Some(8000.0))
        .replace(
            "position = [0.08, 0.0, 0.03]",
            "position = [0.08, 0.0, 0.031]",
        )
        .replace(
            "position = [0.0, 0.0, 0.03]\nmaterial = { mu = 0.3 }",
            "position = [0.0, 0.0, 0.031]\nmaterial = { mu = 0.3 }",
        )
        .replace("offset = [0.0, 0.0, 0.03]", "offset = [0.0, 0.0, 0.031]");
    let r = run(&text, 800, dev);
    let crate_ = r.world.model.body_id("crate").unwrap();
    let pushed = r.world.data.state[crate_].v.x;
    assert!(pushed > 0.01, "{method}: the crate was pushed: v {pushed}");
    let mut worst = 0.0f64;
    for (p, c) in r.momentum.iter().zip(&r.coupling_cum) {
        worst = worst.max((p - c).norm());
    }
    let scale = r.coupling_impulse.norm().max(1e-3);
    println!(
        "{method}: coupling impulse {:.5} N·s, worst momentum mismatch {worst:.3e} N·s",
        r.coupling_impulse.norm()
    );
    assert!(
        worst <= 1e-9 * scale.max(r.momentum.iter().map(|p| p.norm()).fold(0.0, f64::max)) + 1e-12,
        "{method}: momentum exchanged inconsistently by {worst} N·s"
    );
}

#[test]
fn momentum_exchange_is_consistent_under_penalty() {
    momentum("penalty");
}

#[test]
fn momentum_exchange_is_consistent_under_lcp() {
    momentum("lcp");
}

#[test]
fn multirate_runs_are_bit_identical() {
    let text = scene("penalty", -9.81, Some(8000.0));
    let a = run(&text, 900, device);
    let b = run(&text, 900, device);
    assert_eq!(a.forces, b.forces);
    assert_eq!(a.world.data.state, b.world.data.state);
}

#[test]
fn bad_multirate_keys_name_the_key_and_line() {
    let cases = [
        (
            "rate_hz = 8000\n",
            "rate_hz = 8500\n",
            "rate_hz",
            "whole multiple",
        ),
        (
            "rate_hz = 8000\n",
            "rate_hz = 32000\n",
            "rate_hz",
            "at most 16",
        ),
        (
            "contact_stiffness = 3000.0",
            "contact_stiffness = -1.0",
            "contact_stiffness",
            "finite number",
        ),
        (
            "contact_stiffness = 3000.0",
            "contact_stiffness = 1e9",
            "contact_stiffness",
            "too stiff",
        ),
        (
            "contact_stiffness = 3000.0\n",
            "",
            "contact_stiffness",
            "required with rate_hz",
        ),
        (
            "method = \"penalty\"",
            "method = \"hunt_crossley\"",
            "rate_hz",
            "penalty",
        ),
    ];
    let base = scene("penalty", -9.81, Some(8000.0));
    for (from, to, key, msg) in cases {
        let text = base.replace(from, to);
        let e = rtphys::model::scene::load_scene_str(
            &text,
            "multirate.toml",
            std::path::Path::new("."),
        )
        .expect_err(to)
        .to_string();
        assert!(
            e.contains(key) && e.contains(msg) && e.contains("multirate.toml:"),
            "{to}: {e}"
        );
    }
}

/// The frictionless stroke of [`device`] over a table of one box or of two
/// boxes laid flush with the seam at x = 4 cm, under the stroke's path (the tip
/// crosses it at t ≈ 1.0 s); the crate parked out of the way. The largest
/// horizontal force rendered at the haptic rate while the tip slides (ticks 700
/// to 1150, past the kink's damping step).
fn stroke_fx(method: &str, seam: bool) -> f64 {
    let one =
        "shape = { type = \"box\", half_extents = [0.5, 0.5, 0.05] }\nposition = [0.0, 0.0, -0.05]";
    let two = "shape = { type = \"box\", half_extents = [0.27, 0.5, 0.05] }\nposition = [-0.23, 0.0, -0.05]\n\
               material = { mu = 0.0 }\n[[body]]\nname = \"table2\"\nstatic = true\n\
               shape = { type = \"box\", half_extents = [0.23, 0.5, 0.05] }\nposition = [0.27, 0.0, -0.05]";
    let text = scene(method, 0.0, Some(8000.0))
        .replace(one, if seam { two } else { one })
        .replace("mu = 0.3", "mu = 0.0")
        .replace(
            "position = [0.08, 0.0, 0.03]",
            "position = [0.0, 0.4, 0.03]",
        );
    let r = run(&text, 1200, device);
    r.forces[700..1150]
        .iter()
        .flatten()
        .map(|f| f.x.abs())
        .fold(0.0, f64::max)
}

/// A haptic tip stroked across two table boxes laid flush feels the table as
/// one surface (`model::seams`, the local model's pairs as the world's): the
/// horizontal force while sliding frictionless is that of the one-box table to
/// 1 mN (a ghost contact with the second box's side face would push back).
#[test]
fn a_stroke_across_flush_table_boxes_feels_no_seam() {
    for method in ["penalty", "lcp"] {
        let (one, two) = (stroke_fx(method, false), stroke_fx(method, true));
        println!("{method}: max |Fx| one box {one:.3e} N, two boxes {two:.3e} N");
        assert!(
            two <= one + 1e-3,
            "{method}: {two} N across the seam vs {one} N"
        );
    }
}
