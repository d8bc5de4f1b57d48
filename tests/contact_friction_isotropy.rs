//! Coulomb friction has no preferred direction in the contact plane: a box slid
//! across a level plane stops after v₀²/(2 μ g) whatever its heading, and a box
//! placed on an incline holds below tan θ = μ and slides above it with
//! a = g (sin θ − μ cos θ), whatever the incline's azimuth (the direction its slope
//! faces). Every method, every LCP solver.
//!
//! The polyhedral cone of 003 (eq. 8, k evenly spaced directions) gives μ p_n only
//! along a direction: with a fixed tangent basis a box slid at 45° to it went √2
//! too far (0.576 m against 0.408 m, k = 4) and an incline facing 45° let a box
//! slide at tan θ = 0.45 with μ = 0.5 (1.7 m in 2 s); the LCP rows now turn each
//! point's k-gon against its free slip (`pipeline::lcp::rows::align_friction`).

mod common;

use common::load_str;
use rtphys::{Data, Model, Pipeline};

const G: f64 = 9.81;
const MU: f64 = 0.5;
/// Box half size (m) and mass (kg).
const HALF: f64 = 0.05;

/// (method, `[lcp]` table) of every method and LCP solver.
const METHODS: [(&str, &str); 6] = [
    ("penalty", ""),
    ("hunt_crossley", ""),
    LCP[0],
    LCP[1],
    LCP[2],
    LCP[3],
];

/// The LCP method under each solver.
const LCP: [(&str, &str); 4] = [
    ("lcp", "[lcp]\nsolver = \"lemke\"\n"),
    ("lcp", "[lcp]\nsolver = \"pgs\"\n"),
    ("lcp", "[lcp]\nsolver = \"newton\"\n"),
    ("lcp", "[lcp]\nsolver = \"primal\"\n"),
];

/// Penalty and Hunt–Crossley (their sliding is open: see
/// `penalty_and_hunt_crossley_slide_the_same_in_every_heading`).
const SOFT: [(&str, &str); 2] = [("penalty", ""), ("hunt_crossley", "")];

/// A static plane whose normal is tilted by θ = atan(`slope`) toward azimuth `az`
/// (rad, from world x about z) and a box lying on it face down, at rest, both with
/// μ = `MU`; `velocity` the box's initial velocity.
fn scene(method: &str, lcp: &str, slope: f64, az: f64, velocity: [f64; 3]) -> Model {
    let th = slope.atan();
    let (sa, ca) = az.sin_cos();
    let (sh, ch) = (0.5 * th).sin_cos();
    // Rotation by θ about (−sin α, cos α, 0): z ↦ n = (sin θ cos α, sin θ sin α, cos θ).
    let q = [ch, -sa * sh, ca * sh, 0.0];
    let x = normal(slope, az).map(|c| c * HALF);
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, {gz:?}]\ndt = 0.001\nintegrator = \"semi_implicit_euler\"\nmethod = \"{method}\"\n\n{lcp}\n\
         [[body]]\nname = \"slope\"\nstatic = true\nshape = {{ type = \"plane\" }}\norientation = {q:?}\nmaterial = {{ mu = {MU:?} }}\n\n\
         [[body]]\nname = \"box\"\nshape = {{ type = \"box\", half_extents = [{HALF:?}, {HALF:?}, {HALF:?}] }}\nmass = 1.0\n\
         position = {x:?}\norientation = {q:?}\nvelocity = {velocity:?}\nmaterial = {{ mu = {MU:?} }}\n",
        gz = -G,
    );
    load_str(&text)
}

/// The unit normal n = (sin θ cos α, sin θ sin α, cos θ) of a slope tan θ facing α.
fn normal(slope: f64, az: f64) -> [f64; 3] {
    let th = slope.atan();
    [th.sin() * az.cos(), th.sin() * az.sin(), th.cos()]
}

/// The box's displacement after `seconds`, and its speed then.
fn run(model: &Model, seconds: f64) -> ([f64; 3], f64) {
    let b = model.body_id("box").expect("box");
    let mut data = Data::new(model);
    let mut pipeline = Pipeline::new(model);
    let x0 = data.state[b].x;
    for _ in 0..(seconds / model.opt.dt).round() as usize {
        pipeline.step(model, &mut data);
    }
    let d = data.state[b].x - x0;
    (d.into(), data.state[b].v.norm())
}

const AZIMUTHS_DEG: [f64; 4] = [0.0, 20.0, 45.0, 70.0];

/// tan θ = 0.45 < μ: the box stays. Bound 1e-4 m over 2 s: twice the elastic
/// displacement of the penalty and Hunt–Crossley sticking anchors under the slope's
/// pull (g sin θ / k_stick ≈ 4e-5 m at k_stick = 1e5 per kg); a slide would cover
/// ½ a t² ≫ 1 m with a k = 4 cone's 0.71 μ.
#[test]
fn a_placed_incline_holds_below_mu_at_any_azimuth() {
    let mut bad = Vec::new();
    for (method, lcp) in METHODS {
        for az in AZIMUTHS_DEG {
            let (d, v) = run(&scene(method, lcp, 0.45, az.to_radians(), [0.0; 3]), 2.0);
            // In the slope's plane (the contact's settling along n is not sliding).
            let n = normal(0.45, az.to_radians());
            let dn = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
            let s = (0..3)
                .map(|i| (d[i] - dn * n[i]).powi(2))
                .sum::<f64>()
                .sqrt();
            eprintln!("{method} {lcp:?} azimuth {az}°: moved {s:.3e} m, speed {v:.3e} m/s");
            if s.is_nan() || s > 1e-4 {
                bad.push(format!("{method} {lcp:?} at {az}°: moved {s:.3e} m"));
            }
        }
    }
    assert!(bad.is_empty(), "held box moved: {bad:?}");
}

/// tan θ = 0.55 > μ: the box slides down the slope with a = g (sin θ − μ cos θ),
/// within 2 % (the same bound as `lcp_experiments`' incline; fitted from the
/// displacement at 0.5, 1.0, 1.5 s), and along the slope's direction within 1°.
#[test]
fn a_placed_incline_slides_above_mu_at_any_azimuth() {
    incline_slides(&LCP);
}

fn incline_slides(methods: &[(&str, &str)]) {
    let th = 0.55f64.atan();
    let expect = G * (th.sin() - MU * th.cos());
    let mut bad = Vec::new();
    for &(method, lcp) in methods {
        for az in AZIMUTHS_DEG {
            let m = scene(method, lcp, 0.55, az.to_radians(), [0.0; 3]);
            let s = [0.5, 1.0, 1.5].map(|t| run(&m, t).0);
            let along = |d: [f64; 3]| d.iter().map(|c| c * c).sum::<f64>().sqrt();
            let a = (along(s[2]) - 2.0 * along(s[1]) + along(s[0])) / 0.25;
            let rel = (a - expect).abs() / expect;
            let (ca, sa) = (az.to_radians().cos(), az.to_radians().sin());
            let heading = (s[2][1] * ca - s[2][0] * sa).atan2(s[2][0] * ca + s[2][1] * sa);
            eprintln!(
                "{method} {lcp:?} azimuth {az}°: a = {a:.5} m/s² (expected {expect:.5}, {rel:.2e}), off the slope by {:.3}°",
                heading.to_degrees()
            );
            if rel.is_nan() || rel > 0.02 || heading.abs().to_degrees() > 1.0 {
                bad.push(format!(
                    "{method} {lcp:?} at {az}°: a = {a:.5}, heading {:.3}°",
                    heading.to_degrees()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "slides off the law: {bad:?}");
}

/// A box slid at 2 m/s across a level plane in a heading `az` stops after
/// v₀²/(2 μ g) = 0.4077 m, within 1 % (the landing and the contact's settling in
/// the first steps cost ≈ 0.2 % at 0°).
#[test]
fn a_box_slides_to_the_same_stop_in_every_heading() {
    level_slides(&LCP);
}

fn level_slides(methods: &[(&str, &str)]) {
    let v0 = 2.0;
    let expect = v0 * v0 / (2.0 * MU * G);
    let mut bad = Vec::new();
    for &(method, lcp) in methods {
        for az in [0.0f64, 30.0, 45.0, 60.0] {
            let (s, c) = az.to_radians().sin_cos();
            let (d, v) = run(&scene(method, lcp, 0.0, 0.0, [v0 * c, v0 * s, 0.0]), 1.5);
            let dist = d[0].hypot(d[1]);
            let rel = (dist - expect).abs() / expect;
            eprintln!("{method} {lcp:?} heading {az}°: stopped after {dist:.5} m ({rel:.2e}), speed {v:.2e}");
            if rel.is_nan() || rel > 0.01 || v > 1e-6 {
                bad.push(format!(
                    "{method} {lcp:?} at {az}°: {dist:.5} m, speed {v:.2e}"
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "stopping distance depends on the heading: {bad:?}"
    );
}

/// Open (session 22): penalty and Hunt–Crossley slide differently by heading. On the
/// level plane (2 m/s, 1.5 s) penalty stops after 0.4070 m at 0° but 0.4128 m at 30°
/// and 0.4142 m at 45° (+1.6 %; a deceleration 2.8 % under μ g); Hunt–Crossley stops
/// at 0.4078 m in every heading. On the incline (tan θ = 0.55, μ = 0.5) penalty's a is
/// 0.4326 / 0.4855 / 0.5435 m/s² at azimuth 0° / 20° / 45° against 0.4298 (+26 % at
/// 45°), Hunt–Crossley's is exact at 0° and 45° but 0.5643 m/s² and 13.4° off the
/// slope at 20° and 70°. Traced (`rtphys run` of the 20° incline): the box yaws while
/// it slides — Hunt–Crossley's ω_z grows to 5.4 rad/s in 1.35 s, penalty's to
/// 0.21 rad/s — and the narrow phase gives the face 6 to 8 points (the 4 corners and
/// the vertical edges' crossings of the plane) where the LCP rows keep 4. A cube
/// sliding on its face has no yaw moment from Coulomb friction (its square footprint's
/// springs put the centre of pressure on the line of motion), so the yaw is the
/// contact's, not the physics'. The LCP method passes both tests.
#[test]
#[ignore = "open: penalty and Hunt–Crossley slide differently by heading (see the doc comment)"]
fn penalty_and_hunt_crossley_slide_the_same_in_every_heading() {
    level_slides(&SOFT);
    incline_slides(&SOFT);
}
