//! 002 §4.2: the energy-monitored adaptive step keeps the mechanical energy of a
//! conservative, colliding system within ε-controlled bounds, where a fixed step of
//! the same mean length does not.

mod common;
use common as common_scene;

use common_scene::load_str;
use rtphys::math::SplitMix64;
use rtphys::{Data, Model};
use std::fmt::Write;

const R: f64 = 0.1;
const LAMBDA: f64 = 1.0e6; // N/m

/// Eight 1 kg spheres of radius 0.1 m flying in a closed 2 m box (six half-spaces),
/// no gravity, e = 1 (c = 0: purely elastic Hunt–Crossley), no friction.
fn scene(dt: f64, adaptive: bool, eps: f64) -> Model {
    let mut s = format!(
        r#"
[world]
gravity = [0.0, 0.0, 0.0]
dt = {dt}
method = "hunt_crossley"
[hunt_crossley]
stiffness_depth = {LAMBDA}
adaptive = {adaptive}
energy_tolerance = {eps}
"#
    );
    let pi = std::f64::consts::PI;
    let walls = [
        ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ([0.0, 0.0, 2.0], [pi, 0.0, 0.0]),
        ([-1.0, 0.0, 1.0], [0.0, pi / 2.0, 0.0]),
        ([1.0, 0.0, 1.0], [0.0, -pi / 2.0, 0.0]),
        ([0.0, -1.0, 1.0], [-pi / 2.0, 0.0, 0.0]),
        ([0.0, 1.0, 1.0], [pi / 2.0, 0.0, 0.0]),
    ];
    for (i, (p, rpy)) in walls.iter().enumerate() {
        let _ = write!(
            s,
            "[[body]]\nname = \"wall{i}\"\nstatic = true\nshape = {{ type = \"plane\" }}\nposition = {p:?}\nrpy = {rpy:?}\nmaterial = {{ mu = 0.0, restitution = 1.0 }}\n"
        );
    }
    let mut rng = SplitMix64::new(2);
    for i in 0..8 {
        let p = [
            -0.5 + (i % 2) as f64,
            -0.5 + ((i / 2) % 2) as f64,
            0.5 + (i / 4) as f64,
        ];
        let v = [
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
        ];
        let _ = write!(
            s,
            "[[body]]\nname = \"ball{i}\"\nshape = {{ type = \"sphere\", radius = {R} }}\nmass = 1.0\nposition = {p:?}\nvelocity = {v:?}\nmaterial = {{ mu = 0.0, restitution = 1.0 }}\n"
        );
    }
    load_str(&s)
}

/// Mechanical energy computed here, independently of the stepper: kinetic energy +
/// λδ²/2 over every penetrating sphere–sphere and sphere–wall pair.
fn energy(model: &Model, data: &Data) -> f64 {
    let balls: Vec<usize> = (0..model.nbody())
        .filter(|&b| model.bodies[b].name.starts_with("ball"))
        .collect();
    let mut u = 0.0;
    for (k, &i) in balls.iter().enumerate() {
        let x = data.state[i].x;
        for d in [x.z, 2.0 - x.z, x.x + 1.0, 1.0 - x.x, x.y + 1.0, 1.0 - x.y] {
            let delta = R - d;
            if delta > 0.0 {
                u += 0.5 * LAMBDA * delta * delta;
            }
        }
        for &j in &balls[k + 1..] {
            let delta = 2.0 * R - (x - data.state[j].x).norm();
            if delta > 0.0 {
                u += 0.5 * LAMBDA * delta * delta;
            }
        }
    }
    data.kinetic_energy(model) + u
}

struct Run {
    max_rel: f64,
    final_rel: f64,
    /// max over ticks of |E − E0| / Σ (errors the monitor accepted so far).
    max_over_admitted: f64,
    ticks: u64,
    substeps: u64,
    floor: u64,
    quarantined: u64,
    collisions_seen: usize,
}

fn run(model: &Model, seconds: f64) -> Run {
    let mut data = Data::new(model);
    let mut pipeline = rtphys::Pipeline::new(model);
    let e0 = energy(model, &data);
    let n = (seconds / model.opt.dt).round() as u64;
    let (mut max_rel, mut floor, mut collisions_seen) = (0.0f64, 0u64, 0usize);
    let mut rel = 0.0;
    let (mut admitted, mut max_over_admitted) = (0.0, 0.0f64);
    for _ in 0..n {
        pipeline.step(model, &mut data);
        admitted += data.stats.energy_error;
        floor += data.stats.substep_floor_hits as u64;
        collisions_seen += data.stats.contact_pairs;
        rel = (energy(model, &data) - e0) / e0;
        if !rel.is_finite() {
            rel = f64::INFINITY;
        }
        max_rel = max_rel.max(rel.abs());
        if admitted > 0.0 {
            max_over_admitted = max_over_admitted.max((rel * e0).abs() / admitted);
        }
    }
    Run {
        max_rel,
        final_rel: rel,
        max_over_admitted,
        ticks: n,
        substeps: data.stats.substeps_total,
        floor,
        quarantined: data.stats.quarantined,
        collisions_seen,
    }
}

/// Tighter ε, tighter bound: the non-physical energy change of every sub-step is
/// at most ε·E_s, and the run's deviation never exceeds the sum the monitor
/// admitted (measured with an energy computed here, not by the stepper). A fixed
/// step equal to the adaptive run's mean sub-step drifts by orders of magnitude more:
/// it spends its steps uniformly, the monitor spends them in the collisions.
#[test]
fn elastic_collisions_keep_energy_bounded_only_with_the_adaptive_step() {
    let seconds = 10.0;
    println!("| run | step | steps | max \\|E − E0\\|/E0 | final (E − E0)/E0 | max \\|E − E0\\| / Σ admitted error | quarantined |");
    println!("|---|---|---|---|---|---|---|");
    let mut results = Vec::new();
    for eps in [1e-4, 1e-6] {
        let adaptive = run(&scene(0.01, true, eps), seconds);
        let mean = seconds / adaptive.substeps as f64;
        let fixed = run(&scene(mean, false, eps), seconds);
        println!(
            "| adaptive, ε = {eps:e}, dt = 10 ms | mean {:.3e} s | {} in {} ticks | {:.2e} | {:+.2e} | {:.3} | {} |",
            mean, adaptive.substeps, adaptive.ticks, adaptive.max_rel, adaptive.final_rel, adaptive.max_over_admitted, adaptive.quarantined
        );
        println!(
            "| fixed step = that mean | {:.3e} s | {} | {:.2e} | {:+.2e} | — | {} |",
            mean, fixed.ticks, fixed.max_rel, fixed.final_rel, fixed.quarantined
        );
        assert!(adaptive.collisions_seen > 20, "too few collisions to test");
        assert_eq!(adaptive.floor, 0, "sub-steps at the floor");
        assert_eq!(adaptive.quarantined, 0);
        // All of the energy change is the error the monitor admitted.
        assert!(
            adaptive.max_over_admitted <= 1.0 + 1e-6,
            "energy changed by more than the admitted error: ratio {}",
            adaptive.max_over_admitted
        );
        assert!(
            fixed.max_rel > 10.0 * adaptive.max_rel,
            "fixed-step run does not drift: {} vs adaptive {}",
            fixed.max_rel,
            adaptive.max_rel
        );
        results.push(adaptive.max_rel);
    }
    assert!(results[0] < 1e-2, "ε = 1e-4: drift {}", results[0]);
    assert!(
        results[1] < 0.2 * results[0],
        "ε = 1e-6 does not tighten the bound: {} vs {}",
        results[1],
        results[0]
    );
}
