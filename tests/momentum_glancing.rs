//! Weightless glancing blows between free bodies: with no external force or
//! torque, the contact forces are internal, so the total linear momentum
//! P = Σ m v and angular momentum about the origin L = Σ (m x × v + R I Rᵀ ω) are
//! kept through the impact, whatever the contact model does to the energy.
//!
//! The scene: a spinning 0.2 m cube (8 kg, ω = 2 rad/s about z) strikes a 0.3 ×
//! 0.1 × 0.2 m box (3 kg, yawed 0.3 rad) 0.1 m off its centre line at 1 and 5 m/s,
//! μ = 0.5, no gravity (`scene`), run through the impact and the sliding contact
//! after it (400 steps at h = 1 ms).
//!
//! What each method promises, and so the tolerances:
//! - penalty: 000's impulse at an impact, then the PID force: the impulse's moments
//!   are taken about each body's centre of mass at the impact's time τ within the
//!   step (where the rewind of the semi-implicit step puts it), its forces at one
//!   point of both bodies. L is kept to round-off: bound 1e-10 of |L₀|. (About the
//!   start-of-step centres the rewind moved the momenta by τ Δv after the impulse:
//!   ΔL = τ (v_a − v_b) × j, measured 7.5e-4 / 4.7e-4 of |L₀| at 1 / 5 m/s.)
//! - Hunt–Crossley: equal and opposite forces at one point: 1e-10 of |L₀|.
//! - LCP and IPC keep P to round-off (1e-10 of |P₀|); their L is not asserted,
//!   measured (docs/EXPERIMENTS.md, "Outside scenes, session 26"): LCP's
//!   positions take the stabilization's separating velocity, which the kept
//!   velocity does not (0.07 % / 0.7 % of |L₀| at 1 / 5 m/s); IPC's implicit
//!   Euler evaluates the barrier forces at the end poses (ΔL = O(h v × J), 0.14 % /
//!   1.1 %).

mod common;

use common::load_str;
use rtphys::math::Vec3;
use rtphys::{Data, Model, Pipeline};

fn scene(method: &str, speed: f64) -> String {
    format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.001\nmethod = \"{method}\"\n\
         [[body]]\nname = \"a\"\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n\
         density = 1000.0\nposition = [-0.5, 0.05, 0.0]\nvelocity = [{speed:?}, 0.0, 0.0]\n\
         angular_velocity = [0.0, 0.0, 2.0]\nmaterial = {{ mu = 0.5 }}\n\
         [[body]]\nname = \"b\"\nshape = {{ type = \"box\", size = [0.3, 0.1, 0.2] }}\n\
         density = 500.0\nposition = [0.0, -0.05, 0.0]\nrpy = [0.0, 0.0, 0.3]\n\
         material = {{ mu = 0.5 }}\n"
    )
}

/// (P, L about the origin) of the free bodies.
fn momenta(model: &Model, data: &Data) -> (Vec3, Vec3) {
    let (mut p, mut l) = (Vec3::zeros(), Vec3::zeros());
    for (b, s) in model.bodies.iter().zip(&data.state) {
        if b.mass <= 0.0 {
            continue;
        }
        let r = s.q.to_rotation_matrix().into_inner();
        p += s.v * b.mass;
        l += s.x.cross(&(s.v * b.mass)) + r * b.inertia * r.transpose() * s.w;
    }
    (p, l)
}

/// Runs the blow; returns the largest |ΔP|/|P₀|, |ΔL|/|L₀| over the run and the
/// number of steps with contact points.
fn run(method: &str, speed: f64) -> (f64, f64, usize) {
    let model = load_str(&scene(method, speed));
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let (p0, l0) = momenta(&model, &data);
    let (mut dp, mut dl, mut touching) = (0.0f64, 0.0f64, 0);
    for _ in 0..400 {
        pipe.step(&model, &mut data);
        let (p, l) = momenta(&model, &data);
        dp = dp.max((p - p0).norm() / p0.norm());
        dl = dl.max((l - l0).norm() / l0.norm());
        touching += usize::from(data.stats.contact_points > 0);
    }
    (dp, dl, touching)
}

#[test]
fn glancing_blows_keep_linear_and_angular_momentum() {
    for speed in [1.0, 5.0] {
        for method in ["penalty", "hunt_crossley", "lcp", "ipc"] {
            let (dp, dl, touching) = run(method, speed);
            println!(
                "{method} at {speed} m/s: |ΔP|/|P₀| ≤ {dp:.2e}, |ΔL|/|L₀| ≤ {dl:.2e}, {touching} steps in contact"
            );
            assert!(
                touching > 10,
                "{method} at {speed}: no blow ({touching} steps)"
            );
            assert!(dp <= 1e-10, "{method} at {speed}: momentum {dp:e}");
            if matches!(method, "penalty" | "hunt_crossley") {
                assert!(dl <= 1e-10, "{method} at {speed}: angular momentum {dl:e}");
            }
        }
    }
}
