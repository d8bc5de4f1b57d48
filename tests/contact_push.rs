//! A box pushed at a height: it tips or slides where statics says (docs/EXPERIMENTS.md,
//! "Outside scenes, session 36").
//!
//! A box of half width a = 0.1 m, half height b = 0.3 m, 1 kg, on a floor with μ = 0.5,
//! is pushed along +x by a horizontal force F applied at a point of its back face at
//! height h_p above the floor (the point moves with the box). Rigid statics: it slides
//! once F > μ m g (4.905 N), and it tips over its front bottom edge once the push's
//! moment about that edge beats the weight's, F h_p > m g a — whichever comes first.
//! Pushed high (h_p = 0.5 m) it tips from 1.962 N, long before it could slide; pushed
//! low (h_p = 0.1 m, tipping from 9.81 N) it slides from 4.905 N. The force is ramped
//! over 0.2 s and held; the box is judged after 1.5 s.

mod common;

use common::load_str;
use nalgebra::Point3;
use rtphys::math::Wrench;
use rtphys::{Data, Pipeline};

const A: f64 = 0.1;
const B: f64 = 0.3;
const MU: f64 = 0.5;
const G: f64 = 9.81;

/// The box's pitch (rad, about y: + is tipping forward) and how far its centre
/// moved along x (m) after 1.5 s pushed by `f` at height `hp` under `method`.
fn push(method: &str, f: f64, hp: f64, keys: &str) -> (f64, f64) {
    // `keys`: extra TOML for the `[world]` table.
    let model = load_str(&format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = \"{method}\"\n{keys}\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = {MU:?} }}\n\n\
         [[body]]\nname = \"b\"\nshape = {{ type = \"box\", half_extents = [{A:?}, {A:?}, {B:?}] }}\n\
         mass = 1.0\nposition = [0.0, 0.0, {B:?}]\nmaterial = {{ mu = {MU:?} }}\n"
    ));
    let b = model.body_id("b").expect("body b");
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let x0 = data.state[b].x;
    // The pushed point in the body frame: the back face's centre line, h_p up.
    let p_body = Point3::new(-A, 0.0, hp - B);
    for k in 0..1500 {
        let s = &data.state[b];
        let p = s.x + s.q * p_body.coords;
        let ramp = (k as f64 / 200.0).min(1.0);
        let force = nalgebra::Vector3::new(f * ramp, 0.0, 0.0);
        data.xfrc[b] = Wrench {
            force,
            torque: (p - s.x).cross(&force),
        };
        pipeline.step(&model, &mut data);
    }
    let s = &data.state[b];
    let up = s.q * nalgebra::Vector3::z();
    (up.x.atan2(up.z), s.x.x - x0.x)
}

/// The rigid box's slide under the low push of `f` > μ m g (1 kg), ramped over
/// 0.2 s: ẍ = max(0, f(t) − μ m g) from rest, integrated to 1.5 s (m).
fn rigid_slide(f: f64) -> f64 {
    let (mut x, mut v, h) = (0.0f64, 0.0f64, 1e-5);
    for k in 0..150_000 {
        let t = k as f64 * h;
        let a = (f * (t / 0.2).min(1.0) - MU * G).max(0.0);
        v += a * h;
        x += v * h;
    }
    x
}

/// The four pushes of the module doc under `method`, checked: pushed high at
/// 0.9 m g a / h_p it stands (pitch ≤ 0.01 rad — the compliant contact's elastic
/// tilt is ≈ 0.002 — and the centre within 1 mm), at 1.1× it tips (pitch past
/// 1 rad); pushed low at 0.9 μ m g it stands, at 1.1× it slides within 5 % of the
/// rigid box's distance (0.4203 m; penalty's anchor stretch and elastic pitch at
/// the start: −2.7 % measured) without tipping.
fn check(method: &str, keys: &str) {
    let (tip, slide) = (G * A / 0.5, MU * G);
    let (p, x) = push(method, 0.9 * tip, 0.5, keys);
    println!("{method:14} high, 0.9: pitch {p:.4} rad, x {x:.3e} m");
    assert!(
        p.abs() <= 0.01 && x.abs() <= 1e-3,
        "{method}: moved under 0.9 of the tipping push"
    );
    let (p, x) = push(method, 1.1 * tip, 0.5, keys);
    println!("{method:14} high, 1.1: pitch {p:.4} rad, x {x:.3e} m");
    assert!(
        p > 1.0,
        "{method}: did not tip under 1.1 of the tipping push"
    );
    let (p, x) = push(method, 0.9 * slide, 0.1, keys);
    println!("{method:14} low, 0.9: pitch {p:.4} rad, x {x:.3e} m");
    assert!(
        p.abs() <= 0.01 && x.abs() <= 1e-3,
        "{method}: moved under 0.9 of the sliding push"
    );
    let (p, x) = push(method, 1.1 * slide, 0.1, keys);
    let rigid = rigid_slide(1.1 * slide);
    println!("{method:14} low, 1.1: pitch {p:.4} rad, x {x:.4} m (rigid {rigid:.4})");
    assert!(
        (x / rigid - 1.0).abs() <= 0.05,
        "{method}: slid {x} m, rigid {rigid}"
    );
    assert!(p.abs() <= 0.01, "{method}: pitched {p} rad while sliding");
}

#[test]
fn a_pushed_box_tips_or_slides_where_statics_says() {
    assert!((rigid_slide(1.1 * MU * G) - 0.4203).abs() < 1e-3);
    for method in ["penalty", "lcp", "peg", "ipc"] {
        check(method, "");
    }
}

/// The same under Hunt–Crossley and under penalty's other friction paths: found,
/// not fixed (session 36). Pushed high, the box creeps forward and pitches beyond
/// its elastic tilt even at half the tipping force (its friction 20 % of the
/// cone): 1.5 s at 0.5 / 0.7 / 0.8 / 0.9 of m g a / h_p moves it 0.76 / 1.31 /
/// 2.18 mm and tips it at 0.9 under penalty with RK4, with clamped anchors
/// (`linear = false`) or with the implicit rows (the same to 2 %); Hunt–Crossley
/// 0.01 / 0.54 / 2.07 mm, then at 0.9 it stands 0.3 s and starts to slide and
/// pitch, accelerating (3.9 cm, 0.127 rad at 1.5 s); with `adaptive = false` it
/// slides 5.2 mm already at 0.5. Pushed low at 1.1 μ m g Hunt–Crossley sticks and
/// slips in turn until 0.55 s (normal force 7.5 ↔ 11.1 N, friction 4.9 ↔ 5.55 N),
/// then slides at the cone: 0.269 m against the rigid 0.4203 m. Penalty's default
/// (semi-implicit Euler, linear anchors) is right (the test above).
#[test]
#[ignore = "found, not fixed (session 36): pushed at 0.9 of the tipping force the box tips under \
            penalty with RK4, clamped anchors or implicit rows, and slides and pitches under \
            Hunt–Crossley (3.9 cm, 0.127 rad at 1.5 s); Hunt–Crossley's slide chatters (0.269 m of 0.420)"]
fn a_pushed_box_tips_or_slides_where_statics_says_off_penaltys_default() {
    check("hunt_crossley", "");
    check("penalty", "integrator = \"rk4\"\n");
    check("penalty", "[penalty.friction]\nlinear = false\n");
    check("penalty", "[penalty.friction]\nimplicit = true\n");
}

/// The measurement behind docs/EXPERIMENTS.md's table of the high push off
/// penalty's default (session 36), printed, not asserted (the ignored test
/// above asserts): `cargo test --release --test contact_push
/// pushed_high_sweep -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement: prints the pitch and travel at 0.5–0.9 of the tipping push"]
fn pushed_high_sweep() {
    let tip = G * A / 0.5;
    for (method, keys) in [
        ("penalty", "integrator = \"rk4\"\n"),
        ("penalty", "[penalty.friction]\nlinear = false\n"),
        ("penalty", "[penalty.friction]\nimplicit = true\n"),
        ("hunt_crossley", ""),
        ("hunt_crossley", "[hunt_crossley]\nadaptive = false\n"),
    ] {
        for r in [0.5, 0.7, 0.8, 0.9] {
            let (p, x) = push(method, r * tip, 0.5, keys);
            println!(
                "{method} {}{r}: pitch {p:.4} rad, x {x:.3e} m",
                keys.replace('\n', " ")
            );
        }
    }
}
