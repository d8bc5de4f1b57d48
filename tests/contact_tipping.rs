//! A tall box standing on a ramp tips over its downhill edge when the slope passes
//! the static limit tan θ = w/h, and stands below it (friction μ = 0.8 > tan θ, so
//! it never slides first): the friction at the base and the weight at the centre
//! of mass form a couple that the normal forces can balance only while their
//! resultant stays inside the base.
//!
//! The box is 0.1 × 0.1 × 0.4 m (w/h = 0.25: the limit is 14.04°), 1 kg, placed
//! touching a static box tilted by θ about y; 1.5 s at 1 kHz. Asserted for penalty,
//! Hunt–Crossley and LCP: at 12° its tilt against the ramp stays under 0.5° and it
//! comes to rest; at 16° it lies on its side (tilt > 60°) by the end. Before the
//! tilt's hold was bounded by the patch (`contact::friction::Tilt`), the linearly
//! implicit anchors (penalty's and Hunt–Crossley's default) held the box upright at
//! 16° and at 30° (measured: tilt 0.000°, kinetic energy 1e-28 J).

mod common;

use common::load_str;
use rtphys::{Data, Pipeline};

fn scene(method: &str, theta: f64) -> String {
    let (s, c) = theta.sin_cos();
    let centre = [s * 0.3, 0.0, c * 0.3];
    format!(
        r#"
[world]
gravity = [0.0, 0.0, -9.81]
dt = 0.001
method = "{method}"
[[body]]
name = "ramp"
static = true
shape = {{ type = "box", half_extents = [2.0, 1.0, 0.1] }}
rpy = [0.0, {theta}, 0.0]
material = {{ mu = 0.8 }}
[[body]]
name = "box"
shape = {{ type = "box", half_extents = [0.05, 0.05, 0.2] }}
mass = 1.0
position = [{}, {}, {}]
rpy = [0.0, {theta}, 0.0]
material = {{ mu = 0.8 }}
"#,
        centre[0], centre[1], centre[2]
    )
}

/// (Largest tilt of the box against the ramp over the run, deg; final kinetic
/// energy, J.)
fn tilt(method: &str, degrees: f64) -> (f64, f64) {
    let theta = degrees.to_radians();
    let model = load_str(&scene(method, theta));
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let b = model
        .bodies
        .iter()
        .position(|b| b.name == "box")
        .expect("box");
    let ramp_normal = rtphys::math::Vec3::new(theta.sin(), 0.0, theta.cos());
    let mut worst: f64 = 0.0;
    for _ in 0..1500 {
        pipe.step(&model, &mut data);
        let axis = data.state[b].q * rtphys::math::Vec3::z();
        worst = worst.max(axis.dot(&ramp_normal).clamp(-1.0, 1.0).acos().to_degrees());
    }
    assert!(
        data.state.iter().all(|s| s.is_finite()),
        "{method}: non-finite"
    );
    (worst, data.kinetic_energy(&model))
}

#[test]
fn a_tall_box_stands_below_the_tipping_slope() {
    for method in ["penalty", "hunt_crossley", "lcp"] {
        let (worst, ke) = tilt(method, 12.0);
        println!("{method} at 12°: largest tilt {worst:.4}°, kinetic energy {ke:.2e} J");
        assert!(worst < 0.5, "{method}: tilted {worst}° at 12°");
        assert!(ke < 1e-4, "{method}: still moving ({ke} J)");
    }
}

#[test]
fn a_tall_box_tips_beyond_the_tipping_slope() {
    for method in ["penalty", "hunt_crossley", "lcp"] {
        let (worst, _) = tilt(method, 16.0);
        println!("{method} at 16°: largest tilt {worst:.2}°");
        assert!(worst > 60.0, "{method}: stood at 16° (tilt {worst}°)");
    }
}
