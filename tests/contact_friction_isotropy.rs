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

/// Penalty and Hunt–Crossley (see
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

/// Penalty and Hunt–Crossley slide the same in every heading (the bounds of the
/// LCP tests above). Open in session 22: on the level plane penalty stopped after
/// 0.4070 m at 0° but 0.4142 m at 45°; on the incline (tan θ = 0.55, μ = 0.5)
/// penalty's a was 0.4326 / 0.4855 / 0.5435 m/s² at 0° / 20° / 45° against 0.4298,
/// Hunt–Crossley's 0.5643 m/s² and 13.4° off the slope at 20° and 70°. Two
/// mechanisms (`trace_yaw_on_the_incline`): penalty took each sliding point's
/// μ f_i on the first implicit solve's forces, which lack friction's own pitching
/// moment, so Σ μ f_i fell 2.7 % short of μ times the normal force applied (the
/// trailing point cannot press less than 0) — now the friction follows the last
/// solve (`pipeline::penalty::slide_follow`); Hunt–Crossley spread its friction
/// over the points by depth while its elastic force acts at the volume's centroid,
/// and where a face partly lifts the two centres differ across the line of
/// motion: a yaw moment that spun the box up to 8.8 rad/s — now the friction's
/// resultant is moved onto the normal force's line (`pipeline::hunt_crossley`).
#[test]
fn penalty_and_hunt_crossley_slide_the_same_in_every_heading() {
    level_slides(&SOFT);
    incline_slides(&SOFT);
}

/// Trace (ignored harness, prints only): the 20° incline under penalty and
/// Hunt–Crossley — ω_z and the manifold's points (in the slope's frame: along the
/// slope, across it, depth) at a few times.
#[test]
#[ignore = "trace harness, prints only"]
fn trace_yaw_on_the_incline() {
    let env = |name: &str, default: f64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(default)
    };
    let (az, slope, v0) = (env("AZ", 20.0), env("SLOPE", 0.55), env("V0", 0.0));
    for (method, lcp) in SOFT {
        let (sv, cv) = az.to_radians().sin_cos();
        let m = if slope == 0.0 {
            scene(method, lcp, 0.0, 0.0, [v0 * cv, v0 * sv, 0.0])
        } else {
            scene(method, lcp, slope, az.to_radians(), [0.0; 3])
        };
        let b = m.body_id("box").expect("box");
        let mut data = Data::new(&m);
        let mut pipeline = Pipeline::new(&m);
        let n = normal(slope, az.to_radians());
        let n = rtphys::math::Vec3::new(n[0], n[1], n[2]);
        // Down-slope unit vector and across.
        let down = if slope == 0.0 {
            rtphys::math::Vec3::new(cv, sv, 0.0)
        } else {
            (rtphys::math::Vec3::new(0.0, 0.0, -1.0) + n * n.z).normalize()
        };
        let across = n.cross(&down);
        for step in 1..=1500usize {
            pipeline.step(&m, &mut data);
            if [1, 2, 5, 20, 50, 100, 200, 500, 1000, 1500].contains(&step) {
                let s = &data.state[b];
                eprintln!(
                    "{method} az {az} t {:.3}: v_down {:.4} v_across {:.2e} ω_n {:.3e} tilt(ω down/across) {:.2e} {:.2e}",
                    step as f64 * 1e-3,
                    s.v.dot(&down),
                    s.v.dot(&across),
                    s.w.dot(&n),
                    s.w.dot(&down),
                    s.w.dot(&across)
                );
                let w = &data.contact_wrench[b];
                let fnrm = w.force.dot(&n);
                let ft = w.force - n * fnrm;
                eprintln!(
                    "    contact N {:.4} |F_t|/N {:.4} F_t·down {:.4} F_t·across {:.3e} τ_n {:.3e} sticking {}",
                    fnrm,
                    ft.norm() / fnrm,
                    ft.dot(&down),
                    ft.dot(&across),
                    w.torque.dot(&n),
                    data.pairs.iter().any(|p| p.anchor.is_some())
                );
                for mf in &data.contacts.manifolds {
                    for p in &data.contacts.points[mf.points.clone()] {
                        let r = p.p_w - s.x;
                        eprintln!(
                            "    pt down {:+.5} across {:+.5} depth {:.3e}",
                            r.dot(&down),
                            r.dot(&across),
                            p.depth
                        );
                    }
                }
            }
        }
    }
}
