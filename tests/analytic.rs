//! Analytic checks of the penalty method: sliding distance, the incline friction
//! threshold, and the torque-free (Dzhanibekov) rigid body.

mod common;

use rtphys::collision::Shape;
use rtphys::math::Pose;
use rtphys::math::{Quat, Vec3};
use rtphys::model::{
    BodySpec, Gain, Integrator, Material, Method, ModelBuilder, Options, PenaltyParams,
};
use rtphys::{Data, Model};

const G: f64 = 9.81;

fn stiff_penalty() -> PenaltyParams {
    PenaltyParams {
        kp: Gain::PerMass(20000.0),
        kv: Gain::PerMass(300.0),
        ki: Gain::PerMass(1000.0),
        ..PenaltyParams::default()
    }
}

/// A 0.2 m, 1 kg box on a plane tilted by `theta` about y, friction `mu`, placed at
/// rest at its kp-only equilibrium penetration kp·d = m g cos θ (kp = 2e4 N/m).
fn incline(theta: f64, mu: f64, integrator: Integrator) -> Model {
    let opt = Options {
        gravity: Vec3::new(0.0, 0.0, -G),
        dt: 1e-3,
        integrator,
        method: Method::Penalty(stiff_penalty()),
        ..Options::default()
    };
    let mut b = ModelBuilder::new(opt);
    let tilt = Quat::from_axis_angle(&Vec3::y_axis(), -theta);
    let mat = Material {
        mu,
        ..Material::default()
    };
    b.add_body(
        BodySpec::fixed(
            "slope",
            Shape::plane(),
            Pose::from_parts(Vec3::zeros().into(), tilt),
        )
        .material(mat),
    );
    let half = 0.1;
    let up = tilt * Vec3::z();
    let shape = Shape::cuboid(Vec3::repeat(half)).expect("box");
    b.add_body(
        BodySpec::free("box", shape)
            .mass(1.0)
            .at(up * (half - G * theta.cos() / 2.0e4))
            .rotated(tilt)
            .material(mat),
    );
    b.finalize().expect("model")
}

/// Slope direction (downhill unit vector) of `incline(theta, ..)`.
fn downhill(theta: f64) -> Vec3 {
    Quat::from_axis_angle(&Vec3::y_axis(), -theta) * Vec3::new(-1.0, 0.0, 0.0)
}

/// tan θ = 0.5 exactly and μ = 0.50: a block resting on the slope stays (creep < 1 mm
/// over 2 s). "Resting" is the settled state of the same block on the same slope with
/// μ = 1, carried over bit for bit (snapshot/restore) into the μ = 0.50 world. At
/// μ = tan θ kinetic friction exactly balances gravity, so any slip speed left by a
/// start transient would persist; docs/EXPERIMENTS.md reports the creep of a block
/// *placed* touching the slope as well.
#[test]
fn incline_holds_at_mu_equal_tan_theta() {
    let theta = 0.5f64.atan();
    for integrator in [Integrator::SemiImplicitEuler, Integrator::Rk4] {
        let grippy = incline(theta, 1.0, integrator);
        let mut settle = Data::new(&grippy);
        let mut settle_pipe = rtphys::Pipeline::new(&grippy);
        for _ in 0..1000 {
            settle_pipe.step(&grippy, &mut settle);
        }
        let model = incline(theta, 0.50, integrator);
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        assert!(data.restore(&settle.snapshot()));
        let x0 = data.state[1].x;
        for _ in 0..2000 {
            pipeline.step(&model, &mut data);
        }
        let creep = (data.state[1].x - x0).dot(&downhill(theta));
        eprintln!("{integrator:?}: creep {creep:.3e} m over 2 s at mu = 0.50");
        assert!(
            creep.abs() < 1e-3,
            "{integrator:?}: creep {creep:.3e} m ≥ 1 mm"
        );
    }
}

/// A block placed at rest touching a tan θ = 0.5 slope, for the record: the creep over
/// 2 s for μ = 0.50, 0.51, 0.55 (printed; the bound asserted is for μ = 0.55, where
/// the cone has a 10 % margin over the load).
#[test]
fn incline_placed_block_creep() {
    let theta = 0.5f64.atan();
    for mu in [0.50, 0.51, 0.55] {
        let model = incline(theta, mu, Integrator::SemiImplicitEuler);
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        let x0 = data.state[1].x;
        for _ in 0..2000 {
            pipeline.step(&model, &mut data);
        }
        let creep = (data.state[1].x - x0).dot(&downhill(theta));
        eprintln!("placed block, mu = {mu}: creep {creep:.3e} m over 2 s");
        if mu >= 0.55 {
            assert!(creep.abs() < 1e-3, "mu = {mu}: creep {creep:.3e} m");
        }
    }
}

#[test]
fn incline_slides_at_mu_049_with_coulomb_acceleration() {
    let theta = 0.5f64.atan();
    let mu = 0.49;
    let expected = G * (theta.sin() - mu * theta.cos());
    let model = incline(theta, mu, Integrator::SemiImplicitEuler);
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let dir = downhill(theta);
    let mut v = Vec::new();
    for _ in 0..3000 {
        pipeline.step(&model, &mut data);
        v.push(data.state[1].v.dot(&dir));
    }
    // Acceleration from the velocity between 1 s and 3 s (after the start transient).
    let a = (v[2999] - v[999]) / 2.0;
    eprintln!("incline mu = 0.49: a = {a:.5} m/s², expected {expected:.5}");
    assert!(
        ((a - expected) / expected).abs() < 0.05,
        "a = {a}, expected {expected}"
    );
}

#[test]
fn sliding_box_stops_after_v2_over_2_mu_g() {
    for (v0, mu) in [(2.0, 0.5), (1.0, 0.3)] {
        let model = incline(0.0, mu, Integrator::SemiImplicitEuler);
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        data.state[1].v = Vec3::new(v0, 0.0, 0.0);
        for _ in 0..4000 {
            pipeline.step(&model, &mut data);
        }
        let d = data.state[1].x.x;
        let expected = v0 * v0 / (2.0 * mu * G);
        eprintln!("v0 = {v0}, mu = {mu}: slid {d:.5} m, expected {expected:.5}");
        assert!(
            data.state[1].v.norm() < 1e-3,
            "still moving: {:?}",
            data.state[1].v
        );
        assert!(
            ((d - expected) / expected).abs() < 0.02,
            "slid {d}, expected {expected}"
        );
    }
}

/// Torque-free box with three distinct principal inertias spun about its intermediate
/// axis (with a small perturbation) flips periodically (the Dzhanibekov effect);
/// kinetic energy and angular momentum hold to 1e-6 relative over 10 s (RK4, 1e-3).
#[test]
fn dzhanibekov_flip_conserves_energy_and_momentum() {
    let opt = Options {
        gravity: Vec3::zeros(),
        dt: 1e-3,
        integrator: Integrator::Rk4,
        ..Options::default()
    };
    let mut b = ModelBuilder::new(opt);
    let shape = Shape::cuboid(Vec3::new(0.3, 0.15, 0.05)).expect("box");
    b.add_body(
        BodySpec::free("tbar", shape)
            .mass(2.0)
            .angular_velocity(Vec3::new(0.01, 6.0, 0.01)),
    );
    let model = b.finalize().expect("model");
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let (e0, l0) = (data.kinetic_energy(&model), data.angular_momentum(&model));
    let mut min_dot: f64 = 1.0;
    let mut max_de: f64 = 0.0;
    let mut max_dl: f64 = 0.0;
    for _ in 0..10_000 {
        pipeline.step(&model, &mut data);
        let y_body = data.state[0].q * Vec3::y();
        min_dot = min_dot.min(y_body.dot(&Vec3::y()));
        max_de = max_de.max(((data.kinetic_energy(&model) - e0) / e0).abs());
        max_dl = max_dl.max((data.angular_momentum(&model) - l0).norm() / l0.norm());
    }
    eprintln!("min y·y0 = {min_dot:.4}, max |ΔE|/E = {max_de:.2e}, max |ΔL|/|L| = {max_dl:.2e}");
    assert!(min_dot < -0.9, "no flip: min y·y0 = {min_dot}");
    assert!(max_de < 1e-6, "energy drift {max_de:.2e}");
    assert!(max_dl < 1e-6, "angular momentum drift {max_dl:.2e}");
}
