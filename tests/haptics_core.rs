//! The haptic building blocks without the network: the virtual coupling, the
//! device mapping, the local model and the device port's passivity observer and
//! controller (Hannaford & Ryu 2002), against a simulated device + hand.

use rtphys::haptics::coupling::{coupling_wrench, CouplingParams, MotionState};
use rtphys::haptics::device::{DeviceModel, SimulatedDevice};
use rtphys::haptics::local::LocalModel;
use rtphys::haptics::mapping::DeviceMapping;
use rtphys::haptics::passivity::{DevicePort, PortParams};
use rtphys::math::{Pose, Quat, SplitMix64, Vec3};

fn state(x: Vec3, q: Quat, v: Vec3, w: Vec3) -> MotionState {
    MotionState {
        pose: Pose::from_parts(x.into(), q),
        v,
        w,
    }
}

#[test]
fn coupling_is_a_spring_damper_in_translation_and_rotation() {
    let p = CouplingParams {
        k: Vec3::new(1000.0, 2000.0, 3000.0),
        b: Vec3::new(1.0, 2.0, 3.0),
        k_rot: 5.0,
        b_rot: 0.5,
    };
    let axis = Vec3::new(1.0, 2.0, 2.0) / 3.0;
    let theta = 0.3;
    let q_t = Quat::from_euler_angles(0.2, -0.1, 0.4);
    let device = state(
        Vec3::new(0.01, 0.02, 0.03),
        Quat::from_scaled_axis(axis * theta) * q_t,
        Vec3::new(0.1, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    );
    let tool = state(Vec3::zeros(), q_t, Vec3::zeros(), Vec3::zeros());
    let (f, tau) = coupling_wrench(&p, &device, &tool);
    let f_expect = Vec3::new(1000.0 * 0.01 + 0.1, 2000.0 * 0.02, 3000.0 * 0.03);
    assert!((f - f_expect).norm() < 1e-12, "{f:?}");
    let tau_expect = axis * theta * 5.0 + Vec3::new(0.0, 0.0, 0.5);
    assert!(
        (tau - tau_expect).norm() < 1e-12,
        "{tau:?} vs {tau_expect:?}"
    );
    // Series stiffness with a 4000 N/m contact along x: 1000·4000/5000 = 800.
    assert!((p.effective_stiffness(0, 4000.0) - 800.0).abs() < 1e-12);
}

#[test]
fn mapping_preserves_power_and_round_trips_poses() {
    let mut rng = SplitMix64::new(5);
    for _ in 0..50 {
        let m = DeviceMapping {
            scale: rng.uniform(0.1, 10.0),
            rotation: rng.rotation(),
            offset: Vec3::new(
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(0.0, 1.0),
            ),
            workspace_min: Vec3::repeat(-0.1),
            workspace_max: Vec3::repeat(0.1),
        };
        let v_dev = Vec3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        );
        let f_w = Vec3::new(
            rng.uniform(-9.0, 9.0),
            rng.uniform(-9.0, 9.0),
            rng.uniform(-9.0, 9.0),
        );
        let p_dev = m.force_to_device(&f_w).dot(&v_dev);
        let p_w = f_w.dot(&m.velocity_to_world(&v_dev));
        assert!(
            (p_dev - p_w).abs() < 1e-12 * (1.0 + p_w.abs()),
            "{p_dev} vs {p_w}"
        );
        let w_dev = Vec3::new(rng.uniform(-1.0, 1.0), 0.3, -0.2);
        let t_w = Vec3::new(0.5, -0.1, rng.uniform(-1.0, 1.0));
        let q_dev = m.torque_to_device(&t_w).dot(&w_dev);
        assert!((q_dev - t_w.dot(&m.angular_velocity_to_world(&w_dev))).abs() < 1e-12);
        let x = m.pose_to_world(&Vec3::new(0.01, -0.02, 0.03), &Quat::identity());
        let back = m.rotation.inverse() * (x.translation.vector - m.offset) / m.scale;
        assert!((back - Vec3::new(0.01, -0.02, 0.03)).norm() < 1e-12);
    }
}

#[test]
fn local_plane_model_is_one_sided() {
    let wall = LocalModel::plane(&Vec3::zeros(), &Vec3::z(), 2000.0, 5.0);
    // 1 mm inside, still: 2 N out of the wall.
    let f = wall.force(&Vec3::new(0.3, 0.1, -1e-3), &Vec3::zeros());
    assert!((f - Vec3::new(0.0, 0.0, 2.0)).norm() < 1e-12, "{f:?}");
    // Outside: nothing; inside but leaving fast enough to pull: nothing.
    assert_eq!(
        wall.force(&Vec3::new(0.0, 0.0, 1e-3), &Vec3::zeros()),
        Vec3::zeros()
    );
    assert_eq!(
        wall.force(&Vec3::new(0.0, 0.0, -1e-3), &Vec3::new(0.0, 0.0, 1.0)),
        Vec3::zeros()
    );
}

/// A device tapping a delayed virtual wall at 1 kHz for 10 s: the operator's hand
/// (300 N/m, 3 N·s/m) drives a 0.15 kg device along z between 1 cm outside and
/// 1 cm inside a 2,000 N/m wall at 2 Hz; the wall force reaches the device
/// `delay_ms` late (the network). Returns the port's lowest observed energy (J),
/// the peak elastic energy ½ k x² stored in the wall (J), the largest rendered
/// force (N) and the largest force change per sample (N).
fn tap_delayed_wall(
    delay_ms: usize,
    control: bool,
    max_force: f64,
    max_rate: f64,
) -> (f64, f64, f64, f64) {
    let dt = 1e-3;
    let k_wall = 2000.0;
    let model = DeviceModel {
        mass: 0.15,
        damping: 0.0,
        hand_k: 300.0,
        hand_b: 3.0,
    };
    let mut dev = SimulatedDevice {
        x: Vec3::new(0.0, 0.0, 0.01),
        v: Vec3::zeros(),
    };
    let mut port = DevicePort::new(PortParams {
        max_force,
        max_rate,
        passivity_control: control,
    });
    let wall = LocalModel::plane(&Vec3::zeros(), &Vec3::z(), k_wall, 0.0);
    // The network: a ring of wall forces, `delay_ms` samples long.
    let mut line = vec![Vec3::zeros(); delay_ms + 1];
    let (mut peak_store, mut f_max, mut df_max) = (0.0f64, 0.0f64, 0.0f64);
    let mut f_last = Vec3::zeros();
    let w = 2.0 * std::f64::consts::PI * 2.0;
    for n in 0..10_000 {
        let t = n as f64 * dt;
        let f_world = wall.force(&dev.x, &dev.v);
        line[n % (delay_ms + 1)] = f_world;
        let f_env = line[(n + 1) % (delay_ms + 1)];
        let f = port.render(&f_env, &dev.v, dt);
        f_max = f_max.max(f.norm());
        df_max = df_max.max((f - f_last).norm());
        f_last = f;
        let x_op = Vec3::new(0.0, 0.0, 0.01 * (w * t).cos());
        let v_op = Vec3::new(0.0, 0.0, -0.01 * w * (w * t).sin());
        dev.step(&model, &f, &x_op, &v_op, dt);
        peak_store = peak_store.max(0.5 * k_wall * dev.x.z.min(0.0).powi(2));
    }
    (port.state.energy_min, peak_store, f_max, df_max)
}

#[test]
fn delayed_wall_is_active_without_the_controller_and_passive_with_it() {
    for delay in [0, 1, 5, 20] {
        let (e_min, store, _, _) = tap_delayed_wall(delay, true, 1e9, f64::INFINITY);
        // The controller keeps the observed energy at or above zero (round-off of
        // the energy sum: 1e-12 of the stored energy scale).
        assert!(
            e_min >= -1e-12 * store.max(1e-6),
            "delay {delay} ms: E_min = {e_min} J with control"
        );
        let (e_off, store_off, _, _) = tap_delayed_wall(delay, false, 1e9, f64::INFINITY);
        eprintln!("delay {delay:2} ms: E_min off = {e_off:.3e} J, peak wall energy {store_off:.3e} J; with control {e_min:.3e}");
        if delay >= 5 {
            // A wall 5 or 20 samples late returns more energy than it stored: the
            // observed energy goes below −10 % of the wall's peak elastic energy.
            assert!(
                e_off < -0.1 * store_off,
                "delay {delay} ms: E_min = {e_off} J, peak {store_off} J"
            );
        }
    }
}

#[test]
fn rendered_force_respects_the_device_limit_and_rate_limit() {
    let (_, _, f_max, _) = tap_delayed_wall(5, true, 4.0, f64::INFINITY);
    assert!(f_max <= 4.0 + 1e-12, "{f_max}");
    // Rate limit 2,000 N/s at 1 kHz: the environment part changes ≤ 2 N per sample;
    // without the controller nothing else is added.
    let (_, _, _, df) = tap_delayed_wall(5, false, 1e9, 2000.0);
    assert!(df <= 2.0 + 1e-12, "{df}");
}
