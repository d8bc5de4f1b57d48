//! The stage timers' clock: the processor's time-stamp counter where it is a clock.
//!
//! A step of a small world reads the clock about ten times (the outline's laps and
//! the method's own); `std::time::Instant::now` costs 30–40 ns on this machine's
//! virtual CPUs (a vDSO `clock_gettime`: the counter read plus its conversion and
//! a sequence lock), a third of a microsecond per step — 8 % of the 7-DoF arm's
//! contact-free step (issue 18 item 4, docs/BENCHMARKS.md). Here a reading is the
//! bare counter (`rdtsc`, ≈ a third of that), converted to nanoseconds only when a
//! lap is taken, at a rate measured once per process against `std::time::Instant`.
//!
//! It is used only where the counter is a clock: x86-64 with an *invariant*
//! time-stamp counter (CPUID 8000_0007h, EDX bit 8: constant rate in every power
//! state, the counters of all cores in step — what Linux requires before it uses
//! the counter as its own clocksource). Anywhere else (another architecture, an
//! old processor) it is `std::time::Instant`. Either way a reading is a count of
//! ticks, and a duration is the difference of two readings of the same kind,
//! times the rate: never negative (saturating), never mixed (zero if the kind
//! changed in between, which only [`calibrate`] on another thread can cause).
//!
//! [`calibrate`] spins ≈ 5 ms once per process; [`crate::pipeline::Pipeline::new`]
//! calls it, so that the physics thread never does: until it has run, readings are
//! `std::time::Instant`'s.

use std::sync::OnceLock;
use std::time::Duration;

/// Nanoseconds per tick of the time-stamp counter, or `None` where it is not used.
static TSC_NS_PER_TICK: OnceLock<Option<f64>> = OnceLock::new();

/// The process's reference for the fallback readings (nanoseconds since it).
static EPOCH: OnceLock<std::time::Instant> = OnceLock::new();

/// One reading of the stage clock (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instant {
    ticks: u64,
    /// Whether `ticks` counts the time-stamp counter (else nanoseconds since `EPOCH`).
    tsc: bool,
}

impl Instant {
    /// The current reading.
    #[inline]
    pub fn now() -> Instant {
        match TSC_NS_PER_TICK.get() {
            Some(Some(_)) => Instant {
                ticks: read_tsc(),
                tsc: true,
            },
            _ => Instant {
                ticks: fallback_ns(),
                tsc: false,
            },
        }
    }

    /// Time from `earlier` to `self` (zero if `earlier` is later, or of the other kind).
    #[inline]
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        Duration::from_nanos(self.nanos_since(earlier))
    }

    /// Time since this reading.
    #[inline]
    pub fn elapsed(&self) -> Duration {
        Instant::now().duration_since(*self)
    }

    /// Nanoseconds from `earlier` to `self` (see [`Instant::duration_since`]).
    #[inline]
    pub fn nanos_since(&self, earlier: Instant) -> u64 {
        if self.tsc != earlier.tsc {
            return 0;
        }
        let d = self.ticks.saturating_sub(earlier.ticks);
        match (self.tsc, TSC_NS_PER_TICK.get()) {
            (true, Some(Some(rate))) => (d as f64 * rate) as u64,
            _ => d,
        }
    }
}

/// Measures the counter's rate once per process (≈ 5 ms; later calls return at
/// once) and switches [`Instant`] to it where it is a clock (module doc).
pub fn calibrate() {
    EPOCH.get_or_init(std::time::Instant::now);
    TSC_NS_PER_TICK.get_or_init(measure_rate);
}

/// Nanoseconds per counter tick, or `None` where the counter is not a clock.
fn measure_rate() -> Option<f64> {
    if !invariant_tsc() {
        return None;
    }
    // Both clocks at each end of a 5 ms spin, the counter read between two readings
    // of `std::time::Instant` no more than 1 µs apart (retried while a preemption
    // widens the bracket): the rate is then within 4e-4.
    let pair = || {
        let mut best = None;
        for _ in 0..1000 {
            let ta = std::time::Instant::now();
            let c = read_tsc();
            let tb = std::time::Instant::now();
            let width = tb.duration_since(ta);
            if best.is_none_or(|(w, _, _)| width < w) {
                best = Some((width, ta + width / 2, c));
            }
            if width <= Duration::from_micros(1) {
                break;
            }
        }
        best.map(|(_, t, c)| (t, c))
    };
    let (t0, c0) = pair()?;
    let spin = std::time::Instant::now();
    while spin.elapsed() < Duration::from_millis(5) {
        std::hint::spin_loop();
    }
    let (t1, c1) = pair()?;
    let ns = t1.duration_since(t0).as_nanos() as f64;
    let rate = ns / c1.wrapping_sub(c0) as f64;
    // A counter that did not advance, or at an implausible rate (< 100 MHz or
    // > 20 GHz), is not used.
    (c1 > c0 && (0.05..=10.0).contains(&rate)).then_some(rate)
}

#[inline]
fn fallback_ns() -> u64 {
    EPOCH
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos() as u64
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn read_tsc() -> u64 {
    // SAFETY: `rdtsc` exists on every x86-64 processor and has no preconditions.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn read_tsc() -> u64 {
    0
}

#[cfg(target_arch = "x86_64")]
fn invariant_tsc() -> bool {
    // `cpuid` exists on every x86-64 processor; leaf 8000_0000h gives the highest
    // extended leaf, checked before 8000_0007h is read.
    let max = core::arch::x86_64::__cpuid(0x8000_0000).eax;
    max >= 0x8000_0007 && core::arch::x86_64::__cpuid(0x8000_0007).edx & (1 << 8) != 0
}

#[cfg(not(target_arch = "x86_64"))]
fn invariant_tsc() -> bool {
    false
}
