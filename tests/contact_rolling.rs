//! Ideal rolling: a ball, a cylinder and a capsule rolling without slip on a level
//! plane, with no rolling resistance (`material.rolling` = 0, the default), keep their
//! speed. A rigid body rolling without slip has its contact point at rest: friction
//! does no work, the normal force passes through the centre (sphere) or the axis
//! (cylinder, capsule), so v and ω are constant and nothing is dissipated.
//!
//! Bound, per method: |v(2 s) − v₀| ≤ 1 % of v₀. A rolling resistance length μ_r
//! decelerates a solid ball by a = μ_r g / (1.4 R); 1 % of 0.5 m/s in 2 s is
//! a = 2.5e-3 m/s², i.e. μ_r ≈ 2e-5 m at R = 0.06 m — fifty times below the smallest
//! rolling resistance a scene is advised to set (1e-3 m, `model::Material::rolling`).
//! Speeds and spins are read from the world state, not the CSV.

mod common;

use common::load_str;
use rtphys::{Data, Model, Pipeline};

const V0: f64 = 0.5;
/// `box_on_plane.toml`'s gains (rest depth g/(kp + ki/(1 − λ)) = 0.065 mm). The
/// defaults (000's §III-C gains, 100/50/2 per kg) rest a body ≈ g/kp ≈ 0.1 m deep:
/// the roller would sink to its axis (`model::PenaltyParams`).
const PENALTY: &str =
    "[penalty]\nkp_per_mass = 100000.0\nkv_per_mass = 500.0\nki_per_mass = 5000.0\n\n";
const R: f64 = 0.06;

/// A level plane (penalty with `PENALTY`'s gains) and one body `shape` (radius `R`) lying on it with its rolling axis
/// along world y, moving at `V0` along x and spinning at `V0 / R` about y: rolling
/// without slip from the first step.
fn rolling(method: &str, shape: &str, rpy: &str) -> Model {
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nintegrator = \"semi_implicit_euler\"\nmethod = \"{method}\"\n\n{gains}\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = 0.8 }}\n\n\
         [[body]]\nname = \"roller\"\nshape = {shape}\ndensity = 600.0\nposition = [0.0, 0.0, {R}]\nrpy = {rpy}\n\
         velocity = [{V0}, 0.0, 0.0]\nangular_velocity = [0.0, {w}, 0.0]\nmaterial = {{ mu = 0.8 }}\n",
        w = V0 / R,
        gains = if method == "penalty" { PENALTY } else { "" },
    );
    load_str(&text)
}

/// (v_x, ω_y) of the roller after `seconds`.
fn roll(model: &Model, seconds: f64) -> (f64, f64) {
    let id = model
        .bodies
        .iter()
        .position(|b| b.name == "roller")
        .expect("roller");
    let mut data = Data::new(model);
    let mut pipeline = Pipeline::new(model);
    let steps = (seconds / model.opt.dt).round() as usize;
    for _ in 0..steps {
        pipeline.step(model, &mut data);
    }
    (data.state[id].v.x, data.state[id].w.y)
}

fn check(shape: &str, rpy: &str) {
    let mut failures = Vec::new();
    for method in ["penalty", "hunt_crossley", "lcp"] {
        let (v, w) = roll(&rolling(method, shape, rpy), 2.0);
        let rel = (v - V0).abs() / V0;
        eprintln!("{shape} under {method}: v = {v:.5} m/s, ω = {w:.4} rad/s, |Δv|/v₀ = {rel:.2e}");
        if rel.is_nan() || rel > 0.01 {
            failures.push(format!("{method}: v(2 s) = {v:.5} m/s ({rel:.2e} of v₀)"));
        }
    }
    assert!(
        failures.is_empty(),
        "{shape} lost speed rolling: {failures:?}"
    );
}

#[test]
fn rolling_cylinder_keeps_its_speed() {
    check(
        &format!("{{ type = \"cylinder\", radius = {R}, half_length = 0.1 }}"),
        "[1.5707963267948966, 0.0, 0.0]",
    );
}

#[test]
fn rolling_capsule_keeps_its_speed() {
    check(
        &format!("{{ type = \"capsule\", radius = {R}, half_length = 0.1 }}"),
        "[1.5707963267948966, 0.0, 0.0]",
    );
}

/// Open (session 21): the ball decelerates under every method — after 2 s, v = 0.408
/// (penalty), 0.385 (Hunt–Crossley), 0.425 m/s (LCP), as a rolling resistance of
/// ≈ 6e-4, 7e-4 and 5e-4 m would. With μ = 0 (the same ball, `rtphys run` with
/// `shapes.toml`'s penalty gains) its spin decays instead (8.33 → 1.0 (penalty), 1.0
/// (Hunt–Crossley), 2.6 rad/s (LCP) in 2 s) while v is kept: the normal forces of the
/// sphere cap's ring points (`collision::pairs::sphere_cap`, offset horizontally from
/// the centre) are unequal front to back, because their rates are taken at the
/// material points, whose velocity ω × (p − c) has a normal component in rolling
/// (front points "sink", back points "rise"), and they act at those offset points: a
/// moment about the centre against the spin. The regenerated points' depths follow
/// the centre, not the material (penalty's implicit rows already take the centre as
/// the rate point, `penalty::rate_point`; the explicit force, Hunt–Crossley and the
/// LCP rows do not, and every method applies the force at the ring point). The
/// cylinder and the capsule pass: their points lie on the contact line below the axis.
///
/// Tried (session 21, not kept): every ring point placed at the deepest point, its own
/// depth kept (`sphere_cap`). The ball then keeps its speed under all three methods
/// (|Δv|/v₀ = 5.0e-6, 3.3e-6, 2.5e-13), but the tetrahedron of spheres
/// (`contact_torture_piles::sphere_tetrahedron_rests`) ends at max |v| 1.58e-3 m/s over
/// its bound (the bottom-point selection keeps one point of a collapsed cap, so the
/// sphere pairs' normal force changes too), and `collision_narrowphase`'s analytic-depth
/// test (a point's depth is its distance below the plane) no longer holds. The mechanism
/// wanted: each point's force acting through the centre (rate and lever at the centre
/// line, friction's slip at the contact), with the cap's points kept for the depth.
#[test]
#[ignore = "open: the sphere cap's ring points brake rolling under every method (see the doc comment)"]
fn rolling_ball_keeps_its_speed() {
    check(
        &format!("{{ type = \"sphere\", radius = {R} }}"),
        "[0.0, 0.0, 0.0]",
    );
}
