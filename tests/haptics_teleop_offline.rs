//! The teleoperated arm of config/scenes/haptic_teleop.toml run offline: the
//! operator's script (`haptics::scripts::teleop`) is the device's position at
//! every tick (a position-driven device, no network), the physics thread's tick
//! as src/runtime/physics.rs runs it (tests/common/haptic_tick.rs). Being offline
//! it can change the step: the figures below compare penalty's two link-force
//! laws — explicit with clamped gains (the default) and `[penalty]
//! robot_implicit` — against the same scene at smaller steps, where the clamps
//! no longer act and both laws tend to the same motion.

#[path = "common/haptic_tick.rs"]
mod haptic_tick;

use crossbeam::queue::ArrayQueue;
use haptic_tick::haptic_tick;
use rtphys::haptics::render::DeviceSample;
use rtphys::haptics::scripts;
use rtphys::math::{Quat, Vec3};
use rtphys::runtime::World;

const SCENE: &str = "config/scenes/haptic_teleop.toml";

/// What one run gives, per phase of the script (device time windows).
#[derive(Debug)]
struct Run {
    /// Mean environment force on the device while pressing (3.4–4.0 s) and
    /// sliding (4.2–5.5 s), N.
    press: Vec3,
    slide: Vec3,
    /// The link's mean height above its height at the start of the slide, and
    /// the deepest contact, over the slide, m.
    slide_dz: f64,
    slide_depth: f64,
    /// Ticks in contact while sliding, of all; of those, the ticks whose
    /// contact force on the link is zero (a penetrating manifold carrying no
    /// force) and whose rendered local model has no stiffness.
    slide_contact: (usize, usize),
    slide_zero_force: usize,
    slide_zero_k: usize,
    /// The largest |force| 0.6–1.0 s after the release (7.6–8.0 s), N.
    after_release: f64,
}

fn run(dt: f64, robot_implicit: bool) -> Run {
    run_edited(dt, robot_implicit, &[])
}

/// [`run`] with the scene's text edited by `edits` (each (from, to), every
/// `from` required to be in the scene).
fn run_edited(dt: f64, robot_implicit: bool, edits: &[(&str, &str)]) -> Run {
    let mut text = std::fs::read_to_string(SCENE).expect("scene");
    for (from, to) in edits {
        assert!(text.contains(from), "{from}");
        text = text.replace(from, to);
    }
    assert!(text.contains("dt = 0.001\n") && text.contains("[penalty]\n"));
    let text = text
        .replace("dt = 0.001\n", &format!("dt = {dt:?}\n"))
        .replace(
            "[penalty]\n",
            &format!("[penalty]\nrobot_implicit = {robot_implicit}\n"),
        );
    let model = rtphys::model::scene::load_scene_str(
        &text,
        "haptic_teleop.toml",
        std::path::Path::new("config/scenes"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tool = model.haptics[0].tool;
    let mut w = World::new(1, "teleop".into(), model, 2, 16);
    let out = ArrayQueue::new(4);
    let mut script = scripts::teleop();
    let n = (scripts::TELEOP_SECS / dt).round() as u64;
    let (mut press, mut np) = (Vec3::zeros(), 0usize);
    let (mut slide, mut ns, mut in_contact) = (Vec3::zeros(), 0usize, 0usize);
    let (mut zero_force, mut zero_k) = (0usize, 0usize);
    let (mut z0, mut dz, mut depth) = (None, 0.0, 0.0f64);
    let mut after_release = 0.0f64;
    for k in 0..n {
        let t = k as f64 * dt;
        let (x, v) = script(t);
        let ns_k = ((k + 1) as f64 * dt * 1e9).round() as i64;
        let s = DeviceSample {
            seq: k + 1,
            client_ns: ns_k,
            recv_ns: ns_k,
            x,
            q: Quat::identity(),
            v: Some(v),
            w: Some(Vec3::zeros()),
            buttons: 0,
        };
        haptic_tick(&mut w, &out, Some(&s), ns_k);
        let o = w.haptic[0].out;
        if (3.4..4.0).contains(&t) {
            press += o.force_env;
            np += 1;
        }
        if (4.2..5.5).contains(&t) {
            let z = w.data.state[tool].x.z;
            let z0 = *z0.get_or_insert(z);
            slide += o.force_env;
            dz += z - z0;
            ns += 1;
            in_contact += o.contact as usize;
            let (set, geoms) = (&w.data.contacts, &w.model.geoms);
            let mut f_link = 0.0;
            for (c, m) in set.manifolds.iter().enumerate() {
                if geoms[m.geom_a].body == tool || geoms[m.geom_b].body == tool {
                    depth = depth.max(m.max_depth(set));
                    f_link += w.data.contact_force.get(c).map_or(0.0, |f| f.norm());
                }
            }
            if o.contact {
                zero_force += (f_link == 0.0) as usize;
                zero_k += (o.local.k.norm() == 0.0) as usize;
            }
        }
        if t >= 7.6 {
            after_release = after_release.max(o.force.norm());
        }
    }
    Run {
        press: press / np as f64,
        slide: slide / ns as f64,
        slide_dz: dz / ns as f64,
        slide_depth: depth,
        slide_contact: (in_contact, ns),
        slide_zero_force: zero_force,
        slide_zero_k: zero_k,
        after_release,
    }
}

/// `robot_implicit` with the link pairs' friction inside its prediction
/// (`pipeline::penalty_robot`, "Friction inside the prediction"): at h = 1 ms the
/// sliding link carries its load on every tick — before, friction taken after
/// the normal solve lifted the points it had just held, and 533 of the slide's
/// 1,300 contact ticks had no link force (a period-2 alternation, session 40) —
/// and the slide's mean force is the converged one: within 0.1 N per component
/// (0.6 % of |f| ≈ 16.8 N) of the same law at h = 1e-4 s (measured: 8.956 against
/// 8.951 N along the slide, 14.153 against 14.172 N normal; the explicit law
/// at 1 ms is 0.17 N off in x, the clamps' error, which is why the bound is this
/// law's and not both).
#[test]
fn robot_implicit_slides_without_alternating_and_at_its_converged_force() {
    let coarse = run(1e-3, true);
    let fine = run(1e-4, true);
    assert_eq!(
        coarse.slide_contact,
        (1300, 1300),
        "contact throughout the slide"
    );
    assert_eq!(
        (coarse.slide_zero_force, coarse.slide_zero_k),
        (0, 0),
        "contact ticks with no link force / no local stiffness"
    );
    let d = coarse.slide - fine.slide;
    assert!(
        d.amax() <= 0.1,
        "slide mean f_env at 1 ms {:?} vs 0.1 ms {:?}",
        coarse.slide,
        fine.slide
    );
}

/// The figures of docs/EXPERIMENTS.md's teleop paragraph (session 40), printed:
/// `cargo test --release --test haptics_teleop_offline -- --ignored --nocapture figures`.
#[test]
#[ignore = "figures: 8 runs of 8 s, steps down to 0.1 ms"]
fn figures() {
    println!("dt (s) | law | press f_env (N) | slide f_env (N) | slide link dz (mm) | deepest (mm) | contact ticks | of them zero link force / zero local stiffness | after release |f| (N)");
    for dt in [1e-3, 5e-4, 2.5e-4, 1e-4] {
        for key in [false, true] {
            let r = run(dt, key);
            println!(
                "{dt:.1e} | {} | ({:.3}, {:.3}, {:.3}) | ({:.3}, {:.3}, {:.3}) | {:+.3} | {:.3} | {}/{} | {} / {} | {:.3}",
                if key { "robot_implicit" } else { "explicit" },
                r.press.x,
                r.press.y,
                r.press.z,
                r.slide.x,
                r.slide.y,
                r.slide.z,
                r.slide_dz * 1e3,
                r.slide_depth * 1e3,
                r.slide_contact.0,
                r.slide_contact.1,
                r.slide_zero_force,
                r.slide_zero_k,
                r.after_release
            );
        }
    }
}

/// Which explicit term the key's alternation at h = 1 ms needs: the same run with
/// one of the arm's explicit damping terms set to zero (printed, not asserted:
/// `cargo test --release --test haptics_teleop_offline -- --ignored --nocapture
/// alternation`).
#[test]
#[ignore = "figures: 14 runs of 8 s at 1 ms"]
fn alternation() {
    let variants: [(&str, &[(&str, &str)]); 7] = [
        ("as the scene", &[]),
        (
            "teleop damping D = 0",
            &[("damping = 60.0 }", "damping = 0.0 }")],
        ),
        (
            "orientation damping = 0",
            &[("orientation_damping = 1.0", "orientation_damping = 0.0")],
        ),
        (
            "coupling damping = 0",
            &[("damping = 40.0    ", "damping = 0.0    ")],
        ),
        (
            "posture 0.2 Hz",
            &[("posture_hz = 1.0", "posture_hz = 0.2")],
        ),
        ("mu = 0", &[("mu = 0.5", "mu = 0.0")]),
        ("ki = 0", &[("ki_per_mass = 1000.0", "ki_per_mass = 0.0")]),
    ];
    println!("variant | law | slide mean f_env (N) | zero link force ticks of contact ticks");
    for (name, edits) in variants {
        for key in [false, true] {
            let r = run_edited(1e-3, key, edits);
            println!(
                "{name} | {} | ({:.3}, {:.3}, {:.3}) | {} of {}",
                if key { "robot_implicit" } else { "explicit" },
                r.slide.x,
                r.slide.y,
                r.slide.z,
                r.slide_zero_force,
                r.slide_contact.0
            );
        }
    }
}
