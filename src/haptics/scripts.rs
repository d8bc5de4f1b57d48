//! Scripted operators of the examples (`clients/rust/examples/haptic_*.rs`) and of
//! their tests (`tests/haptics_examples.rs`): the hand's target position and
//! velocity in device coordinates at time t.

use crate::math::Vec3;

/// config/scenes/haptic_push.toml: the hand moves the device along +x at
/// `speed` (m/s) for `secs`, then holds.
pub fn push(speed: f64, secs: f64) -> impl FnMut(f64) -> (Vec3, Vec3) + Send {
    move |t: f64| {
        let s = t.clamp(0.0, secs);
        let v = if t < secs { speed } else { 0.0 };
        (Vec3::new(speed * s, 0.0, 0.0), Vec3::new(v, 0.0, 0.0))
    }
}
