//! Scripted operators of the examples (`clients/rust/examples/haptic_*.rs`) and of
//! their tests (`tests/haptics_examples.rs`): the hand's target position and
//! velocity in device coordinates at time t, and the simulated device the
//! examples hold (device mass + the operator's hand).

use super::device::DeviceModel;
use super::device_loop::SimulatedAdapter;
use super::render::DeviceSample;
use crate::math::Vec3;

/// The simulated device + hand of the examples and their tests: a 150 g stylus
/// held by a 600 N/m, 15 N·s/m hand.
pub const HAND: DeviceModel = DeviceModel {
    mass: 0.15,
    damping: 0.0,
    hand_k: 600.0,
    hand_b: 15.0,
};

/// The examples' simulated device at the device origin, driven by `script`.
pub fn simulated_device(
    script: impl FnMut(f64) -> (Vec3, Vec3) + Send + 'static,
) -> SimulatedAdapter {
    SimulatedAdapter::new(HAND, Vec3::zeros(), Box::new(script))
}

/// config/scenes/haptic_push.toml: the hand moves the device along +x at
/// `speed` (m/s) for `secs`, then holds.
pub fn push(speed: f64, secs: f64) -> impl FnMut(f64) -> (Vec3, Vec3) + Send {
    move |t: f64| {
        let s = t.clamp(0.0, secs);
        let v = if t < secs { speed } else { 0.0 };
        (Vec3::new(speed * s, 0.0, 0.0), Vec3::new(v, 0.0, 0.0))
    }
}

/// A minimum-jerk move from `a` to `b` over [t0, t0 + d]: position and velocity
/// at t (s = 10τ³ − 15τ⁴ + 6τ⁵; peak acceleration 5.77 |b − a| / d²).
pub fn min_jerk(a: Vec3, b: Vec3, t0: f64, d: f64, t: f64) -> (Vec3, Vec3) {
    let tau = ((t - t0) / d).clamp(0.0, 1.0);
    let s = tau * tau * tau * (10.0 + tau * (-15.0 + 6.0 * tau));
    let ds = if t > t0 && t < t0 + d {
        30.0 * tau * tau * (1.0 - tau) * (1.0 - tau) / d
    } else {
        0.0
    };
    (a + (b - a) * s, (b - a) * ds)
}

/// The segments of [`teleop`]: (start time s, duration s, hand target at the end,
/// device coordinates). The table top lies 4.7 cm below the device origin.
pub const TELEOP_SEGMENTS: [(&str, f64, f64, [f64; 3]); 6] = [
    ("free", 0.0, 1.5, [0.04, 0.0, 0.0]),
    ("lower", 2.0, 1.0, [0.04, 0.0, -0.065]),
    ("press", 3.0, 1.0, [0.04, 0.0, -0.065]),
    ("slide", 4.0, 1.5, [-0.02, 0.0, -0.065]),
    ("release", 6.0, 1.0, [-0.02, 0.0, 0.0]),
    ("rest", 7.0, 1.0, [-0.02, 0.0, 0.0]),
];

/// Total length of [`teleop`], s.
pub const TELEOP_SECS: f64 = 8.0;

/// config/scenes/haptic_teleop.toml: the operator moves the arm's link in free
/// space (+4 cm along x over 1.5 s, then holds), lowers it onto the table (2.0–3.0 s) and
/// presses (the hand's target 1.8 cm under the surface, 3.0–4.0 s), slides it
/// 6 cm along −x while pressing (4.0–5.5 s), holds, releases (lifts back to the
/// device's start height, 6.0–7.0 s) and rests. Minimum-jerk segments
/// ([`TELEOP_SEGMENTS`]).
pub fn teleop() -> impl FnMut(f64) -> (Vec3, Vec3) + Send {
    move |t: f64| {
        let mut from = Vec3::zeros();
        for (_, t0, d, to) in TELEOP_SEGMENTS {
            let to = Vec3::from(to);
            if t < t0 + d {
                return min_jerk(from, to, t0, d, t);
            }
            from = to;
        }
        (from, Vec3::zeros())
    }
}

/// Device sample `k` of an offline run at 1 kHz (timestamps (k + 1) ms), at
/// device position `x`, with velocity `v` if given (else the server's backward
/// difference).
pub fn sample(k: u64, x: Vec3, v: Option<Vec3>) -> DeviceSample {
    DeviceSample {
        seq: k + 1,
        client_ns: (k as i64 + 1) * 1_000_000,
        recv_ns: (k as i64 + 1) * 1_000_000,
        x,
        q: crate::math::Quat::identity(),
        v,
        w: v.map(|_| Vec3::zeros()),
        buttons: 0,
    }
}
