//! 002 §4.2: the energy-monitored adaptive step against a fixed step of the same mean
//! length. Eight 1 kg spheres of radius [`R`] fly in a closed 2 m box, no gravity,
//! e = 1 (purely elastic Hunt–Crossley), no friction. Shared by
//! `tests/hunt_crossley_energy.rs` (the assertions) and `rtphys plot` (the picture).

use crate::data::Data;
use crate::math::SplitMix64;
use crate::model::scene::{load_scene_str, SceneError};
use crate::model::Model;
use std::fmt::Write;
use std::path::Path;

/// Sphere radius, m.
pub const R: f64 = 0.1;
/// Contact stiffness λ, N/m.
pub const LAMBDA: f64 = 1.0e6;

/// The box of spheres at step `dt`, adaptive or fixed, with energy tolerance `eps`.
pub fn scene(dt: f64, adaptive: bool, eps: f64) -> Result<Model, SceneError> {
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
    load_scene_str(&s, "<002 energy box>", Path::new("."))
}

/// Mechanical energy computed independently of the stepper: kinetic energy +
/// λδ²/2 over every penetrating sphere–sphere and sphere–wall pair.
pub fn energy(model: &Model, data: &Data) -> f64 {
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

/// One run's energy record.
#[derive(Clone, Debug, Default)]
pub struct EnergyRun {
    pub max_rel: f64,
    pub final_rel: f64,
    /// max over ticks of |E − E0| / Σ (errors the monitor accepted so far).
    pub max_over_admitted: f64,
    pub ticks: u64,
    pub substeps: u64,
    pub floor: u64,
    pub quarantined: u64,
    pub collisions_seen: usize,
    /// (t, (E − E0)/E0) after every tick.
    pub trace: Vec<(f64, f64)>,
}

/// Step `model` for `seconds`, recording the relative energy error every tick.
pub fn run(model: &Model, seconds: f64) -> EnergyRun {
    let mut data = Data::new(model);
    let mut pipeline = crate::Pipeline::new(model);
    let e0 = energy(model, &data);
    let n = (seconds / model.opt.dt).round() as u64;
    let mut r = EnergyRun {
        ticks: n,
        trace: Vec::with_capacity(n as usize),
        ..Default::default()
    };
    let mut admitted = 0.0;
    for _ in 0..n {
        pipeline.step(model, &mut data);
        admitted += data.stats.energy_error;
        r.floor += data.stats.substep_floor_hits as u64;
        r.collisions_seen += data.stats.contact_pairs;
        let mut rel = (energy(model, &data) - e0) / e0;
        if !rel.is_finite() {
            rel = f64::INFINITY;
        }
        r.final_rel = rel;
        r.max_rel = r.max_rel.max(rel.abs());
        if admitted > 0.0 {
            r.max_over_admitted = r.max_over_admitted.max((rel * e0).abs() / admitted);
        }
        r.trace.push((data.time, rel));
    }
    r.substeps = data.stats.substeps_total;
    r.quarantined = data.stats.quarantined;
    r
}
