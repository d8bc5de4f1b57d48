//! A material's restitution e acts under every complementarity and force
//! method, on polytopes as on round shapes: a box thrown face-on at a static
//! wall at 2 m/s leaves at −e · 2 m/s, a box dropped flat onto a static slab
//! rebounds to e² of its drop. Before, PEG's rows (`lcp/peg.rs`) carried no
//! restitution: the box stopped dead at the wall (vx 0.0000) while penalty and
//! LCP rebounded at −1.0000 m/s (e = 0.5) — docs/EXPERIMENTS.md, "Outside
//! scenes, session 28". Rigid IPC is inelastic by design (004's implicit
//! Euler; `[ipc]` doc) and is not in the list.
//!
//! Bounds: Newton's law is exact on the LCP rows (velocity level) and on the
//! penalty method's impulses: the wall's rebound to 1e-3 m/s; Hunt–Crossley's
//! damping is derived from e (002 §3, a relation exact as the approach speed
//! goes to zero), 1 % of the rebound speed. The drop's apex: the impact is
//! resolved within a step (h = 1 ms) at v_i = 3.13 m/s, so the rebound starts up
//! to v_i h = 3.1 mm off the surface and its speed misses up to g h of the
//! approach — |apex − e² h₀| ≤ v_i h + 2 (g h / v_i) e² h₀.

mod common;

use common::load_str;

const METHODS: [&str; 4] = ["penalty", "hunt_crossley", "lcp", "peg"];

/// Relative error of the rebound speed a method's restitution model allows.
fn speed_tolerance(method: &str) -> f64 {
    if method == "hunt_crossley" {
        0.01
    } else {
        0.0
    }
}

fn run(scene: &str, method: &str, steps: usize) -> Vec<rtphys::data::BodyState> {
    let with = format!("[world]\nmethod = \"{method}\"\n");
    common::body_states(
        &load_str(&scene.replacen("[world]\n", &with, 1)),
        "b",
        steps,
    )
}

fn material(e: f64) -> String {
    format!("material = {{ mu = 0.0, restitution = {e:?} }}\n")
}

/// A 0.2 m cube at 2 m/s into a static 0.2 × 2 × 2 m wall, face-on, no
/// gravity: it leaves at −2e m/s, without spin.
#[test]
fn a_box_thrown_at_a_wall_rebounds_at_e_times_its_speed() {
    for e in [0.5, 1.0] {
        let scene = format!(
            "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.001\n\
             [[body]]\nname = \"w\"\nstatic = true\n\
             shape = {{ type = \"box\", size = [0.2, 2.0, 2.0] }}\nposition = [0.5, 0.0, 0.0]\n{m}\
             [[body]]\nname = \"b\"\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n\
             mass = 1.0\nposition = [0.0, 0.0, 0.0]\nvelocity = [2.0, 0.0, 0.0]\n{m}",
            m = material(e)
        );
        for method in METHODS {
            let s = run(&scene, method, 500);
            let end = s[s.len() - 1];
            println!(
                "e = {e}, {method}: vx {:+.5} (law {:+.5}), |ω| {:.1e}",
                end.v.x,
                -2.0 * e,
                end.w.norm()
            );
            let tol = 1e-3 + speed_tolerance(method) * 2.0 * e;
            assert!(
                (end.v.x + 2.0 * e).abs() <= tol,
                "e = {e}, {method}: left at {} m/s",
                end.v.x
            );
            assert!(
                end.w.norm() <= 1e-6,
                "{method}: spun up to {}",
                end.w.norm()
            );
        }
    }
}

/// The cube dropped flat from 0.5 m onto a static 4 × 4 × 0.2 m slab: its
/// first rebound's apex is e² · 0.5 m under the velocity-level steps (the
/// force models' drops are `tests/impacts.rs`' and `tests/hunt_crossley.rs`').
#[test]
fn a_box_dropped_on_a_slab_rebounds_to_e_squared_its_height() {
    for e in [0.5, 0.8] {
        let scene = format!(
            "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\n\
             [[body]]\nname = \"floor\"\nstatic = true\n\
             shape = {{ type = \"box\", size = [4.0, 4.0, 0.2] }}\nposition = [0.0, 0.0, -0.1]\n{m}\
             [[body]]\nname = \"b\"\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n\
             mass = 1.0\nposition = [0.0, 0.0, 0.6]\n{m}",
            m = material(e)
        );
        for method in ["lcp", "peg"] {
            let s = run(&scene, method, 1400);
            let z: Vec<f64> = s.iter().map(|s| s.x.z - 0.1).collect();
            let apex = (1..z.len() - 1)
                .find(|&i| z[i] >= z[i - 1] && z[i] > z[i + 1] && z[i] > 5e-3)
                .map(|i| z[i]);
            let law = e * e * 0.5;
            let (h, g, v_i) = (1e-3, 9.81, (2.0f64 * 9.81 * 0.5).sqrt());
            let bound = v_i * h + 2.0 * g * h / v_i * law;
            println!("e = {e}, {method}: apex {apex:?} (law {law:.4}, bound {bound:.4})");
            let apex = apex.unwrap_or(0.0);
            assert!(
                (apex - law).abs() <= bound,
                "e = {e}, {method}: apex {apex} m"
            );
        }
    }
}
