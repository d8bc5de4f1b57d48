//! Friction over a contact patch: a body spinning flat on a plane, and one that
//! slides and spins at once (`contact::patch`; docs/EXPERIMENTS.md, "Outside scenes,
//! session 35").
//!
//! Coulomb's law holds at every point of a face contact. Under a uniform pressure
//! a flat face spinning about its normal meets the torque μ N r̄, r̄ the face's mean
//! distance from its centre — (2/3) R for a disc, (√2 + ln(1 + √2))/3 a ≈ 0.765 a
//! for a square of half side a — so its spin falls at the constant rate μ N r̄ / I.
//! At its corners alone the same law gives the corners' lever a√2: 1.85× the
//! square's torque. A face that slides and spins at once has its force and torque
//! coupled (Contensou's effect): both vanish at the same instant, later than a
//! pure slide would stop.
//!
//! Every body first settles 0.5 s at rest (the contact's normal transient), then
//! its velocities are set in the world state and it is stepped at 1 ms.

mod common;

use common::load_str;
use rtphys::{Data, Model, Pipeline};

const MU: f64 = 0.5;
const G: f64 = 9.81;

/// A plane and one body `shape` resting on it (its base at z = 0), mass 1 kg.
fn scene(method: &str, shape: &str, z: f64) -> Model {
    scene_mu(method, shape, z, MU)
}

/// [`scene`] with friction coefficient `mu`.
fn scene_mu(method: &str, shape: &str, z: f64, mu: f64) -> Model {
    load_str(&format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = \"{method}\"\n\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = {mu} }}\n\n\
         [[body]]\nname = \"b\"\nshape = {shape}\nmass = 1.0\nposition = [0.0, 0.0, {z}]\nmaterial = {{ mu = {mu} }}\n"
    ))
}

/// Settle `model` 0.5 s, set body b's velocity to (v, 0, 0) and its spin to w
/// about z, and step `steps` more; returns (t, |v_xy|, ω_z) per step.
fn spin(model: &Model, v: f64, w: f64, steps: usize) -> Vec<(f64, f64, f64)> {
    let mut data = Data::new(model);
    let mut pipeline = Pipeline::new(model);
    for _ in 0..500 {
        pipeline.step(model, &mut data);
    }
    let id = model
        .bodies
        .iter()
        .position(|b| b.name == "b")
        .expect("body b");
    data.state[id].v.x += v;
    data.state[id].w.z += w;
    let mut out = Vec::with_capacity(steps);
    for k in 1..=steps {
        pipeline.step(model, &mut data);
        let s = &data.state[id];
        out.push((k as f64 * model.opt.dt, s.v.xy().norm(), s.w.z));
    }
    out
}

/// The spin's rate of fall between 0.8 ω₀ and 0.3 ω₀ (the middle of the
/// spin-down, away from the start and the stop), rad/s².
fn spin_rate(run: &[(f64, f64, f64)], w0: f64) -> f64 {
    let at = |f: f64| {
        run.iter()
            .position(|r| r.2 < f * w0)
            .expect("the spin fell")
    };
    let (i, j) = (at(0.8), at(0.3));
    (run[i].2 - run[j].2) / (run[j].0 - run[i].0)
}

/// |x| ≤ tol, false for NaN.
fn within(x: f64, tol: f64) -> bool {
    x.abs() <= tol
}

/// The mean distance from the centre of the patch's quadrature is exact to 1.0 %
/// on a square (|x| is convex: the centroid rule of 16 triangles per fan triangle
/// is low by 1.0 %) and 0.25 % on an octagon; the bound adds 1 % for the slip's
/// regularization and the settled normal force's ripple.
const SPIN_TOL: f64 = 0.02;

#[test]
fn a_cube_spinning_flat_stops_at_the_uniform_pressure_rate() {
    let a = 0.05;
    let rbar = a * (2f64.sqrt() + (1.0 + 2f64.sqrt()).ln()) / 3.0;
    let iz = (2.0 * a) * (2.0 * a) / 6.0;
    let want = MU * G * rbar / iz;
    let corners = MU * G * a * 2f64.sqrt() / iz;
    let mut failures = Vec::new();
    for method in ["penalty", "hunt_crossley", "lcp"] {
        let shape = format!("{{ type = \"box\", half_extents = [{a}, {a}, {a}] }}");
        let run = spin(&scene(method, &shape, a), 0.0, 10.0, 200);
        let got = spin_rate(&run, 10.0);
        let rel = got / want - 1.0;
        eprintln!(
            "cube under {method}: the spin falls at {got:.2} rad/s² (uniform pressure {want:.2}, \
             corners {corners:.2}; {rel:+.2e})"
        );
        if !within(rel, SPIN_TOL) {
            failures.push(format!("{method}: {got:.2} rad/s² against {want:.2}"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
fn a_disc_spinning_flat_stops_at_its_rim_polygons_rate() {
    // A cylinder standing on its base touches with its 8-point rim ring
    // (`collision::pairs::RING_SAMPLES`): the patch is the inscribed regular
    // octagon, whose mean distance from the centre is 0.6331 R (the disc's 2/3 R:
    // the ring's own 5 % deficit, the geometry's, not friction's).
    let r = 0.05;
    let (n, half) = (8.0, std::f64::consts::PI / 8.0);
    let d = r * half.cos();
    let sec_tan = |p: f64| (p.tan() / p.cos() + (1.0 / p.cos() + p.tan()).ln()) / 2.0;
    let rbar = 2.0 * n * d.powi(3) / 3.0 * sec_tan(half) / (n * r * r * (2.0 * half).sin() / 2.0);
    let iz = r * r / 2.0;
    let want = MU * G * rbar / iz;
    let mut failures = Vec::new();
    for method in ["penalty", "hunt_crossley", "lcp"] {
        let shape = format!("{{ type = \"cylinder\", radius = {r}, half_length = {r} }}");
        let run = spin(&scene(method, &shape, r), 0.0, 10.0, 200);
        let got = spin_rate(&run, 10.0);
        let rel = got / want - 1.0;
        eprintln!(
            "disc under {method}: the spin falls at {got:.2} rad/s² (octagon {want:.2}, disc {:.2}, \
             rim {:.2}; {rel:+.2e})",
            MU * G * 2.0 / 3.0 * r / iz,
            MU * G * r / iz
        );
        if !within(rel, SPIN_TOL) {
            failures.push(format!("{method}: {got:.2} rad/s² against {want:.2}"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// The uniform-pressure square of half side `a` sliding at v₀ along x and spinning
/// at ω₀, integrated independently of the simulator: force and torque summed over
/// an n × n grid of cells at their centres, explicit Euler at 4e-5 s. Returns the
/// times the speed and the spin fall below 1 % of their start, and v/(a ω) when
/// the speed first falls below v₀/2.
fn square_reference(a: f64, mu: f64, v0: f64, w0: f64) -> (f64, f64, f64) {
    let n = 80;
    let cell = 2.0 * a / n as f64;
    let pts: Vec<(f64, f64)> = (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            (-a + (i as f64 + 0.5) * cell, -a + (j as f64 + 0.5) * cell)
        })
        .collect();
    let iz = (2.0 * a) * (2.0 * a) / 6.0;
    let per_cell = mu * G / (n * n) as f64;
    let (mut vx, mut vy, mut w, mut t, h) = (v0, 0.0, w0, 0.0, 4e-5);
    let (mut tv, mut tw, mut eps) = (None, None, None);
    while t < 2.0 && (tv.is_none() || tw.is_none()) {
        let (mut fx, mut fy, mut tz) = (0.0, 0.0, 0.0);
        for &(x, y) in &pts {
            let (sx, sy) = (vx - w * y, vy + w * x);
            let s = sx.hypot(sy);
            if s > 0.0 {
                fx -= per_cell * sx / s;
                fy -= per_cell * sy / s;
                tz -= per_cell * (x * sy - y * sx) / s;
            }
        }
        vx += h * fx;
        vy += h * fy;
        w += h * tz / iz;
        t += h;
        let v = vx.hypot(vy);
        if eps.is_none() && v < 0.5 * v0 {
            eps = Some(v / (a * w));
        }
        if tv.is_none() && v < 0.01 * v0 {
            tv = Some(t);
        }
        if tw.is_none() && w.abs() < 0.01 * w0 {
            tw = Some(t);
        }
    }
    (
        tv.expect("the reference stops"),
        tw.expect("the reference stops"),
        eps.expect("the reference slows"),
    )
}

#[test]
fn a_square_sliding_and_spinning_stops_both_at_once() {
    // A thin square plate (half side 5 cm, 1 cm thick, μ = 0.2) at 1 m/s and
    // 20 rad/s (a ω₀ = v₀). Pure sliding would stop at v₀/(μ g) = 0.51 s; the
    // coupled motion stops later, both at once. The reference's pressure is
    // uniform; the plate's friction pitches it, moving its centre of pressure
    // ahead by |F| h / N ≤ μ h = 1 mm (h = 5 mm, its centre's height): 2 % of a,
    // which a method whose pressure follows the depth (Hunt–Crossley) feels and
    // a uniform share does not. Bounds: the stops within 3 % of the reference
    // (the quadrature's 1 % on the torque, the pressure's shift, the 1 ms
    // steps), the ratio v/(a ω) at half speed within 5 % (its slope in the
    // torque's error is about 2), and the two stops within 2 % of each other
    // (the reference's own gap is 0.4 %).
    let (a, mu, v0, w0) = (0.05, 0.2, 1.0, 20.0);
    let (tv_ref, tw_ref, eps_ref) = square_reference(a, mu, v0, w0);
    eprintln!(
        "reference: the speed stops at {tv_ref:.4} s, the spin at {tw_ref:.4} s, v/(a ω) at half speed {eps_ref:.3}"
    );
    let mut failures = Vec::new();
    for method in ["penalty", "hunt_crossley"] {
        let shape = format!("{{ type = \"box\", half_extents = [{a}, {a}, 0.005] }}");
        let run = spin(&scene_mu(method, &shape, 0.005, mu), v0, w0, 1500);
        let stop = |f: &dyn Fn(&(f64, f64, f64)) -> bool| run.iter().find(|r| f(r)).map(|r| r.0);
        let tv = stop(&|r| r.1 < 0.01 * v0);
        let tw = stop(&|r| r.2.abs() < 0.01 * w0);
        let half = run.iter().find(|r| r.1 < 0.5 * v0).map(|r| r.1 / (a * r.2));
        eprintln!("{method}: the speed stops at {tv:?} s, the spin at {tw:?} s, v/(a ω) at half speed {half:?}");
        let (Some(tv), Some(tw), Some(eps)) = (tv, tw, half) else {
            failures.push(format!("{method}: did not stop within 1.5 s"));
            continue;
        };
        if !(within(tv / tv_ref - 1.0, 0.03) && within(tw / tw_ref - 1.0, 0.03)) {
            failures.push(format!(
                "{method}: stops {tv:.3} / {tw:.3} s against {tv_ref:.3} / {tw_ref:.3}"
            ));
        }
        if !within(eps / eps_ref - 1.0, 0.05) {
            failures.push(format!("{method}: v/(a ω) {eps:.3} against {eps_ref:.3}"));
        }
        if !within(tv - tw, 0.02 * tv_ref) {
            failures.push(format!(
                "{method}: the speed stops at {tv:.3} s, the spin at {tw:.3} s"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// Found, not fixed: PEG's rows and Rigid IPC hold friction at the patch's
/// corners (one cone per point), so a spinning cube meets the corners' lever.
/// (The standard LCP rows take the patch's levers since session 36,
/// `pipeline::lcp::rows::friction_points`: the tests above.)
#[test]
#[ignore = "PEG and IPC: friction at the patch's corners (measured: PEG 173.8, IPC 208.1 rad/s² against 112.6)"]
fn a_cube_spinning_flat_stops_at_the_uniform_pressure_rate_under_peg_and_ipc() {
    let a = 0.05;
    let rbar = a * (2f64.sqrt() + (1.0 + 2f64.sqrt()).ln()) / 3.0;
    let want = MU * G * rbar / ((2.0 * a) * (2.0 * a) / 6.0);
    for method in ["peg", "ipc"] {
        let shape = format!("{{ type = \"box\", half_extents = [{a}, {a}, {a}] }}");
        let got = spin_rate(&spin(&scene(method, &shape, a), 0.0, 10.0, 200), 10.0);
        eprintln!("cube under {method}: {got:.2} rad/s² (uniform pressure {want:.2})");
        assert!(
            (got / want - 1.0).abs() <= SPIN_TOL,
            "{method}: {got:.2} against {want:.2}"
        );
    }
}
