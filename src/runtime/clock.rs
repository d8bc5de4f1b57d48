//! CLOCK_MONOTONIC in nanoseconds: the server's time base in every message, the same
//! clock as Python's `time.monotonic_ns()` and Rust's `Instant` on Linux, so clients on
//! the same host can compare their own timestamps with the server's.

/// Nanoseconds of CLOCK_MONOTONIC.
#[inline]
pub fn mono_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own; CLOCK_MONOTONIC always exists.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
    }
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}
