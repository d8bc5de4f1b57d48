//! The stage timers' clock (`pipeline::clock`, issue 18 item 4): the bare
//! time-stamp counter where it is a clock, converted at a rate measured once per
//! process. A lap of it agrees with `std::time::Instant` over the same 20 ms
//! within 0.2 % + 1 µs (the calibration is good to ≈ 4e-4). Each stage-clock
//! reading is taken between two std readings, so a preemption between them only
//! widens the interval it must fall in, never fails the test.

use rtphys::pipeline::clock::{calibrate, Instant};
use std::time::Duration;

#[test]
fn stage_clock_agrees_with_std_instant() {
    calibrate();
    for _ in 0..3 {
        let s0a = std::time::Instant::now();
        let c0 = Instant::now();
        let s0b = std::time::Instant::now();
        while s0a.elapsed() < Duration::from_millis(20) {}
        let s1a = std::time::Instant::now();
        let c1 = Instant::now();
        let s1b = std::time::Instant::now();
        let ours = c1.nanos_since(c0) as f64;
        let lower = s1a.duration_since(s0b).as_nanos() as f64;
        let upper = s1b.duration_since(s0a).as_nanos() as f64;
        assert!(
            ours >= lower * (1.0 - 2e-3) - 1e3 && ours <= upper * (1.0 + 2e-3) + 1e3,
            "stage clock {ours} ns, std between {lower} and {upper} ns"
        );
        assert_eq!(c0.nanos_since(c1), 0, "an earlier reading gives zero");
        assert_eq!(
            c1.duration_since(c0).as_nanos() as u64,
            c1.nanos_since(c0),
            "the same lap either way"
        );
    }
}
