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
    let (pitch, x, _) = push_for(method, f, hp, keys, 1500);
    (pitch, x)
}

/// [`push`] over `steps` steps of 1 ms; also returns the deepest contact point's
/// depth at the end (m).
fn push_for(method: &str, f: f64, hp: f64, keys: &str, steps: usize) -> (f64, f64, f64) {
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
    for k in 0..steps {
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
    let deepest = data
        .contacts
        .points
        .iter()
        .map(|p| p.depth)
        .fold(0.0, f64::max);
    (up.x.atan2(up.z), s.x.x - x0.x, deepest)
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
///
/// Hunt–Crossley's high push at 0.9 is not a friction fault (scale21). The box
/// turns about its front edge, which does not slip. Its elastic law is a Winkler
/// foundation, whose tipping force for this box is 0.691 of the rigid one
/// (`hunt_crossleys_pushed_box_tips_where_its_foundation_says`), so the rigid
/// bound asserted here does not apply to it. The low push's stick–slip is still
/// open.
#[test]
#[ignore = "found, not fixed (session 36): pushed at 0.9 of the tipping force the box tips under \
            penalty with RK4, clamped anchors or implicit rows; Hunt–Crossley tips there as its Winkler \
            foundation says (threshold 0.691, scale21), and its slide chatters (0.269 m of 0.420)"]
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

/// The pushed box on a Winkler foundation: the pressure at a point is λ times its
/// depth, which is Hunt–Crossley's elastic law at rest (its force λ x on the
/// penetrated volume x, at the volume's centroid). The box rests at depth `d0`
/// under its own weight, so λ = m g / (d0 · 2a · 2a). Pushed high, once the
/// pressure centre lies in the front third of the base, the back lifts. What is
/// left in contact is a strip of width w from the front edge, with a triangular
/// pressure: the front edge is d_f deep, the tilt is θ = d_f / w, and
/// N = λ (2a) d_f w / 2 = m g gives θ = C / w² with C = 4 a d0. The normal
/// resultant then acts w/3 behind the front edge. Moments about that edge, to first
/// order in θ: the push at height h_p + 2a θ, the weight a − b θ behind the edge,
/// and the resultant gives
///
///   w / 3 = a − F h_p / (m g) − β θ,   β = b + 2 a F / (m g).
///
/// The box stands while this has a root. The left side plus β C / w² is smallest at
/// w* = (6 β C)^{1/3}, where it equals w*/2. So the box tips from the F at which
/// a − F h_p / (m g) = w*/2, below the rigid m g a / h_p by about w* / (2a). Returns
/// that F, found by bisection (N).
fn winkler_tipping_force(d0: f64, hp: f64) -> f64 {
    let c = 4.0 * A * d0;
    let margin = |f: f64| {
        let beta = B + 2.0 * A * f / G;
        A - f * hp / G - (6.0 * beta * c).cbrt() / 2.0
    };
    let (mut lo, mut hi) = (0.0, G * A / hp);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if margin(mid) >= 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The standing tilt (rad) on the Winkler foundation of [`winkler_tipping_force`]
/// under a push `f` below the tipping force: the stable root (the wider strip),
/// reached by iterating θ = C / (3 d_N)² with d_N = a − f h_p / (m g) − β θ from
/// θ = 0. It only applies with the back lifted, d_N < 2a/3, which the caller
/// asserts.
fn winkler_tilt(d0: f64, hp: f64, f: f64) -> (f64, f64) {
    let (c, beta) = (4.0 * A * d0, B + 2.0 * A * f / G);
    let mut theta = 0.0;
    let mut d_n = A - f * hp / G;
    for _ in 0..200 {
        d_n = A - f * hp / G - beta * theta;
        theta = c / (3.0 * d_n).powi(2);
    }
    (theta, d_n)
}

/// Hunt–Crossley's high push follows its own contact's statics, not the rigid box's.
/// Its elastic law is a Winkler foundation ([`winkler_tipping_force`]), and a
/// tall box (b = 3a) on it tips once its tilt moves the centre of mass forward
/// by b θ. At the default stiffness the rest depth is d0 = 0.300 mm (the rule's λ
/// = 8.175e5 N/m³; the box sinks to it over ≈ 4 s, Hunt–Crossley's damping being
/// far above critical at rest), and that puts the tipping force at 0.691 of
/// m g a / h_p. So at 0.9 of the rigid force Hunt–Crossley's box tips, and it
/// should: the front edge does not slip (at 1.45 s v_x = 0.126 m/s against
/// ω b = 0.123 m/s), and the travel "3.9 cm" of session 36 is the centre's b θ.
/// The rule predicts a tipping force of 1 − w*/(2a) of the rigid one, with
/// w* ∝ d0^{1/3}. Three stiffnesses agree with it:
/// - 10× stiffer (`penetration_fraction = 5e-5`, d0 = 29.9 µm, compliant
///   threshold 0.856): at 0.9 the pitch passes 0.011 rad by 1 s and keeps turning.
/// - 100× stiffer (`penetration_fraction = 5e-6`, d0 = 3.0 µm, threshold 0.933
///   of the rigid force): at 0.9 it stands at the foundation's tilt
///   (measured 1.48e-3 rad, predicted 1.48e-3), and at 1.1 it tips.
/// - The default stiffness: at 1.1 of its compliant force (0.760 of the rigid
///   one) it tips by 12 s.
///
/// Asserted:
/// - The stiff box at 0.9 of the rigid force stands, tilted as the foundation
///   says within 5 %, with its centre within 1 mm. The 5 % is for the patch's
///   discretization (corners and crossings stand in for the strip); the
///   first-order θ is exact to 1e-6.
/// - The stiff box at 1.1 of the rigid force tips.
/// - The default box at 1.1 of its compliant force tips within 15 s, where the
///   rigid statics says it stands.
///
/// Each d0 is measured after 6 s at rest.
#[test]
fn hunt_crossleys_pushed_box_tips_where_its_foundation_says() {
    let tip = G * A / 0.5;
    let stiff = "[hunt_crossley]\npenetration_fraction = 5e-6\n";
    let (_, _, d0) = push_for("hunt_crossley", 0.0, 0.5, stiff, 6000);
    let f_w = winkler_tipping_force(d0, 0.5);
    println!(
        "stiff: d0 {d0:.3e} m, compliant tipping force {f_w:.4} N = {:.4} of the rigid",
        f_w / tip
    );
    assert!(
        f_w > 0.9 * tip,
        "the stiff foundation must hold 0.9 of the rigid push"
    );
    let (theta, d_n) = winkler_tilt(d0, 0.5, 0.9 * tip);
    assert!(
        d_n < 2.0 * A / 3.0,
        "the back must be lifted for the strip's tilt"
    );
    let (p, x, _) = push_for("hunt_crossley", 0.9 * tip, 0.5, stiff, 1500);
    println!("stiff, 0.9 of the rigid push: pitch {p:.5} rad (foundation {theta:.5}), x {x:.3e} m");
    assert!(
        (p / theta - 1.0).abs() <= 0.05,
        "tilt {p} against the foundation's {theta}"
    );
    assert!(x.abs() <= 1e-3, "moved {x} m");
    let (p, _, _) = push_for("hunt_crossley", 1.1 * tip, 0.5, stiff, 1500);
    println!("stiff, 1.1 of the rigid push: pitch {p:.4} rad");
    assert!(
        p > 1.0,
        "the stiff box did not tip at 1.1 of the rigid push"
    );

    let (_, _, d0) = push_for("hunt_crossley", 0.0, 0.5, "", 6000);
    let f_w = winkler_tipping_force(d0, 0.5);
    println!(
        "default: d0 {d0:.3e} m, compliant tipping force {f_w:.4} N = {:.4} of the rigid",
        f_w / tip
    );
    assert!(
        f_w < 0.9 * tip,
        "the default foundation tips below 0.9 of the rigid push"
    );
    let (p, _, _) = push_for("hunt_crossley", 1.1 * f_w, 0.5, "", 15000);
    println!("default, 1.1 of the compliant push: pitch {p:.4} rad after 15 s");
    assert!(
        p > 1.0,
        "the default box did not tip at 1.1 of its compliant push"
    );
}

/// Below its compliant tipping force, Hunt–Crossley's default box settles at the
/// foundation's tilt ([`winkler_tilt`]), slowly: its damping is far above
/// critical at rest. At 0.9 of the compliant force (0.622 of the rigid one) the
/// predicted tilt is 0.01148 rad. The pitch is 0.00746 at 6 s, 0.01022 at 12 s,
/// 0.01134 at 24 s and 0.01140 at 27 s, with ω falling to 1.4e-5 rad/s. Asserted
/// at 30 s: the tilt within 2 % of the foundation's, which allows for the gap
/// still closing, and still turning by at most 2 % of it from 24 s.
#[test]
fn hunt_crossleys_pushed_box_settles_at_its_foundations_tilt() {
    let (_, _, d0) = push_for("hunt_crossley", 0.0, 0.5, "", 6000);
    let f_w = winkler_tipping_force(d0, 0.5);
    let (theta, d_n) = winkler_tilt(d0, 0.5, 0.9 * f_w);
    assert!(d_n < 2.0 * A / 3.0);
    let (p24, _, _) = push_for("hunt_crossley", 0.9 * f_w, 0.5, "", 24000);
    let (p30, x30, _) = push_for("hunt_crossley", 0.9 * f_w, 0.5, "", 30000);
    println!(
        "default, 0.9 of the compliant push: pitch {p24:.5} at 24 s, {p30:.5} at 30 s (foundation {theta:.5}), x {x30:.3e} m"
    );
    assert!(
        (p30 / theta - 1.0).abs() <= 0.02,
        "tilt {p30} against {theta}"
    );
    assert!(
        (p30 - p24).abs() <= 0.02 * theta,
        "still turning: {p24} → {p30}"
    );
}

/// The trace behind docs/EXPERIMENTS.md's "Hunt–Crossley's low push, traced"
/// (session 38), printed, not asserted: the box pushed at 0.1 m with 1.1 μ m g
/// under Hunt–Crossley's defaults, every 10 steps to 0.8 s — position, velocity,
/// pitch and its start-of-step contact wrench (`cargo test --release --test
/// contact_push -- --ignored --nocapture hunt_crossley_low_push_trace`).
#[test]
#[ignore = "a measurement tool: prints the trace"]
fn hunt_crossley_low_push_trace() {
    let (f, hp) = (1.1 * MU * G, 0.1);
    let model = load_str(&format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = \"hunt_crossley\"\n\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = {MU:?} }}\n\n\
         [[body]]\nname = \"b\"\nshape = {{ type = \"box\", half_extents = [{A:?}, {A:?}, {B:?}] }}\n\
         mass = 1.0\nposition = [0.0, 0.0, {B:?}]\nmaterial = {{ mu = {MU:?} }}\n"
    ));
    let b = model.body_id("b").expect("body b");
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let p_body = Point3::new(-A, 0.0, hp - B);
    for k in 0..800 {
        let s = &data.state[b];
        let p = s.x + s.q * p_body.coords;
        let force = nalgebra::Vector3::new(f * (k as f64 / 200.0).min(1.0), 0.0, 0.0);
        data.xfrc[b] = Wrench {
            force,
            torque: (p - s.x).cross(&force),
        };
        pipeline.step(&model, &mut data);
        if k % 10 == 0 {
            let (s, w) = (&data.state[b], data.contact_wrench[b]);
            let up = s.q * nalgebra::Vector3::z();
            println!(
                "{k} x {:.5} vx {:.4} z {:.6} vz {:+.4} pitch {:+.5} Fz {:.3} Fx {:+.3} sub-steps {}",
                s.x.x,
                s.v.x,
                s.x.z,
                s.v.z,
                up.x.atan2(up.z),
                w.force.z,
                w.force.x,
                data.stats.substeps
            );
        }
    }
}
