//! The haptic path of the physics thread never allocates and is deterministic:
//! a device sample received at the tick boundary, the watchdog, the coupling at
//! the step's inputs point, the rendering through the device port with the local
//! model, and the output pushed into the preallocated queue — on
//! config/scenes/haptic_probe.toml, the stylus tapping the table.

#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[path = "common/haptic_tick.rs"]
mod haptic_tick;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

use crossbeam::queue::ArrayQueue;
use haptic_tick::haptic_tick;
use rtphys::haptics::render::{DeviceSample, HapticOut};
use rtphys::math::{Quat, Vec3};
use rtphys::runtime::World;

/// One tick as the physics thread runs it for its devices (src/runtime/physics.rs:
/// `haptic_boundary`, `watchdog`, `tick`), with device sample `k`.
fn tick(w: &mut World, out: &ArrayQueue<HapticOut>, k: u64, silent: bool) {
    let t = k as f64 * 1e-3;
    // Down onto the table and back (device z −0.06 .. 0), sliding in x.
    let x = Vec3::new(
        0.02 * (3.0 * t).sin(),
        0.0,
        -0.03 - 0.03 * (2.0 * std::f64::consts::PI * 2.0 * t).cos(),
    );
    tick_at(w, out, k, silent, x);
}

/// One tick with device sample `k` at device position `x`.
fn tick_at(w: &mut World, out: &ArrayQueue<HapticOut>, k: u64, silent: bool, x: Vec3) {
    let s = DeviceSample {
        seq: k + 1,
        client_ns: (k as i64 + 1) * 1_000_000,
        recv_ns: (k as i64 + 1) * 1_000_000,
        x,
        q: Quat::identity(),
        v: None,
        w: None,
        buttons: 0,
    };
    haptic_tick(w, out, (!silent).then_some(&s), (k as i64 + 1) * 1_000_000);
}

fn world() -> World {
    let model =
        rtphys::model::scene::load_scene_file("config/scenes/haptic_probe.toml").expect("scene");
    assert_eq!(model.haptics.len(), 1);
    World::new(1, "haptic_probe".into(), model, 2, 16)
}

#[test]
fn haptic_path_steps_without_allocating() {
    let mut w = world();
    let out = ArrayQueue::new(64);
    for k in 0..2000 {
        tick(&mut w, &out, k, false);
    }
    let (contacts, n) = alloc_counter::count(|| {
        let mut contacts = 0;
        for k in 2000..3000 {
            // The last 200 ticks silent: the watchdog's fade runs too.
            tick(&mut w, &out, k, k >= 2800);
            contacts += w.haptic[0].out.contact as u32;
        }
        contacts
    });
    assert!(
        contacts > 100,
        "the stylus must touch the table ({contacts} ticks)"
    );
    assert!(w.haptic[0].out.tripped, "the watchdog acted");
    assert_eq!(n, 0, "{n} allocations in 1,000 ticks of the haptic path");
}

/// The multi-rate path (src/haptics/multirate.rs: the tool's narrow phase with
/// its speculative margin, 8 sub-steps, the reactions) allocates nothing either,
/// under penalty and LCP.
#[test]
fn multirate_haptic_path_steps_without_allocating() {
    let text = std::fs::read_to_string("config/scenes/haptic_probe.toml").unwrap();
    for method in ["penalty", "lcp"] {
        let t = text
            .replace(
                "fade_time = 0.2",
                "fade_time = 0.2\nrate_hz = 8000.0\ncontact_stiffness = 4000.0",
            )
            .replace("method = \"penalty\"", &format!("method = \"{method}\""));
        let model = rtphys::model::scene::load_scene_str(&t, "p.toml", std::path::Path::new("."))
            .expect("scene");
        assert_eq!(model.haptics[0].multirate.map(|m| m.substeps), Some(8));
        let mut w = World::new(1, "p".into(), model, 2, 16);
        let out = ArrayQueue::new(64);
        for k in 0..2000 {
            tick(&mut w, &out, k, false);
        }
        let (contacts, n) = alloc_counter::count(|| {
            let mut contacts = 0;
            for k in 2000..3000 {
                tick(&mut w, &out, k, k >= 2800);
                contacts += w.haptic[0].out.contact as u32;
            }
            contacts
        });
        assert!(
            contacts > 100,
            "{method}: the stylus must touch the table ({contacts} ticks)"
        );
        assert_eq!(w.haptic[0].out.substeps, 8);
        assert_eq!(n, 0, "{method}: {n} allocations in 1,000 multi-rate ticks");
    }
}

/// The teleoperated arm (config/scenes/haptic_teleop.toml, src/haptics/teleop.rs:
/// RNEA, CRBA and its factor, the link's Jacobian, Λ and the null-space posture
/// every tick) allocates nothing, and reruns are bit-identical.
#[test]
fn teleop_path_steps_without_allocating_and_is_deterministic() {
    let run = || {
        let model = rtphys::model::scene::load_scene_file("config/scenes/haptic_teleop.toml")
            .expect("scene");
        assert!(model.haptics[0].teleop.is_some());
        let mut w = World::new(1, "teleop".into(), model, 2, 16);
        let out = ArrayQueue::new(64);
        let mut script = rtphys::haptics::scripts::teleop();
        // Warm-up: free space, down onto the table, pressing (0–4.0 s; the
        // contact buffers grow to their size at the first touch).
        for k in 0..4000 {
            tick_at(&mut w, &out, k, false, script(k as f64 * 1e-3).0);
        }
        let (contacts, n) = alloc_counter::count(|| {
            let mut contacts = 0;
            // Sliding on the table (4.0–5.5 s), holding; the last 100 ticks
            // silent (the watchdog's fade, the posture unprojected).
            for k in 4000..6000 {
                tick_at(&mut w, &out, k, k >= 5900, script(k as f64 * 1e-3).0);
                contacts += w.haptic[0].out.contact as u32;
            }
            contacts
        });
        assert!(
            contacts > 500,
            "the link must press on the table ({contacts} ticks)"
        );
        assert_eq!(n, 0, "{n} allocations in 2,000 teleop ticks");
        let o = &w.haptic[0].out;
        (
            [o.force.x, o.force.y, o.force.z].map(f64::to_bits),
            format!("{:?}", w.data.snapshot()),
        )
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b, "reruns differ");
}

/// Same scene + same samples → bit-identical states and rendered forces.
#[test]
fn haptic_path_is_deterministic() {
    let run = || {
        let mut w = world();
        let out = ArrayQueue::new(64);
        let mut forces = Vec::new();
        for k in 0..1500 {
            tick(&mut w, &out, k, k >= 1400);
            let o = &w.haptic[0].out;
            forces.extend([o.force.x, o.force.y, o.force.z, o.port.energy].map(f64::to_bits));
        }
        let snap = w.data.snapshot();
        (forces, format!("{:?}", snap.state))
    };
    let (a, b) = (run(), run());
    assert!(a.0 == b.0, "rendered forces differ");
    assert_eq!(a.1, b.1, "states differ");
}

/// The other two watchdog behaviours at the tick they act: "hold" keeps the
/// coupling (gain 1, the target frozen at the last pose, so the force stays while
/// the tool is still); "release" drops it at once (gain 0, no force, the tool falls).
#[test]
fn watchdog_hold_and_release() {
    let text = std::fs::read_to_string("config/scenes/haptic_probe.toml").unwrap();
    for (name, gain_after) in [("hold", 1.0), ("release", 0.0)] {
        let t = text.replace("watchdog = \"fade\"", &format!("watchdog = \"{name}\""));
        let model = rtphys::model::scene::load_scene_str(&t, "p.toml", std::path::Path::new("."))
            .expect("scene");
        let mut w = World::new(1, "p".into(), model, 2, 16);
        let out = ArrayQueue::new(64);
        // Sample at 1 ms per tick; silent from tick 1000 (last sample received at
        // 1000 ms, timeout 50 ms): the watchdog acts at the first tick boundary
        // past 1050 ms, i.e. tick 1050.
        let mut tripped_at = None;
        for k in 0..1300 {
            tick(&mut w, &out, k, k >= 1000);
            if tripped_at.is_none() && w.haptic[0].out.tripped {
                tripped_at = Some(k);
            }
        }
        assert_eq!(tripped_at, Some(1050), "{name}");
        let o = &w.haptic[0].out;
        assert_eq!(o.gain, gain_after, "{name}");
        if gain_after == 0.0 {
            assert_eq!(o.force_env, Vec3::zeros());
            assert!(
                w.haptic[0].out.tool.translation.z < 0.85,
                "released tool falls"
            );
        } else {
            assert!(
                o.force_env.norm() > 0.1,
                "held: the table still pushes back"
            );
        }
    }
}
