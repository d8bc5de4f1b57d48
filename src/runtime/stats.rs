//! Timing statistics of the physics thread and their snapshot for the Stats call.

use crate::config::{Mode, SafeBehavior};
use hdrhistogram::Histogram;

/// Nanosecond histogram, 1 ns .. 100 s, 3 significant digits (preallocated).
pub fn hist_ns() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 100_000_000_000, 3).expect("valid histogram bounds")
}

/// Smaller histogram for per-controller latency (2 significant digits).
pub fn hist_ns_small() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 100_000_000_000, 2).expect("valid histogram bounds")
}

/// Copy `src` into `dst` without allocating when both have the same bounds.
pub fn copy_hist(dst: &mut Histogram<u64>, src: &Histogram<u64>) {
    dst.reset();
    let _ = dst.add(src);
}

#[derive(Clone, Debug)]
pub struct CtrlStats {
    /// 0 = slot not in use.
    pub stream_id: u64,
    pub lockstep: bool,
    pub commands: u64,
    pub tripped: bool,
    pub trips: u64,
    pub watchdog_ns: i64,
    pub behavior: SafeBehavior,
    /// Server receive -> applied at a tick boundary, ns.
    pub receive_to_apply: Histogram<u64>,
}

/// Everything GetStats reports, filled by the physics thread into a box the
/// handler allocated.
#[derive(Clone, Debug)]
pub struct StatsBuf {
    pub mode: Mode,
    pub paused: bool,
    pub tick: u64,
    pub time: f64,
    pub uptime_s: f64,
    pub rate_hz: f64,
    pub rtf_target: f64,
    pub rtf_recent: f64,
    pub rtf_total: f64,
    pub compute: Histogram<u64>,
    pub lateness: Histogram<u64>,
    pub overruns: u64,
    pub skipped: u64,
    pub stale_commands: u64,
    pub ticks: u64,
    pub ctrl: Vec<CtrlStats>,
    pub stage_mean_ns: Vec<(&'static str, f64)>,
    pub contact_points: u64,
    pub max_penetration: f64,
    pub quarantined: u64,
    /// Bodies asleep at the end of the last step.
    pub sleeping: u64,
    pub kinetic_energy: f64,
    /// The LCP solver's counters of the last step (`StepStats` fields).
    pub solver: SolverStats,
}

/// Solver counters copied from `StepStats` (complementarity steppers).
#[derive(Clone, Copy, Debug, Default)]
pub struct SolverStats {
    pub lcp_size: usize,
    pub solver_iterations: usize,
    pub solver_residual: f64,
    pub solver_failures: u64,
    pub solver_fallbacks: u64,
    pub solver_unconverged: u64,
    pub newton_factorizations: u64,
    pub newton_cholesky: u64,
    /// Penalty, `robot_implicit`: the link pairs' implicit rows and passes of
    /// the last step, failed solves since the start.
    pub robot_contact_rows: usize,
    pub robot_contact_passes: usize,
    pub robot_contact_failures: u64,
}

impl StatsBuf {
    pub fn new(nctrl: usize) -> StatsBuf {
        StatsBuf {
            mode: Mode::Realtime,
            paused: false,
            tick: 0,
            time: 0.0,
            uptime_s: 0.0,
            rate_hz: 0.0,
            rtf_target: 1.0,
            rtf_recent: 0.0,
            rtf_total: 0.0,
            compute: hist_ns(),
            lateness: hist_ns(),
            overruns: 0,
            skipped: 0,
            stale_commands: 0,
            ticks: 0,
            ctrl: (0..nctrl)
                .map(|_| CtrlStats {
                    stream_id: 0,
                    lockstep: false,
                    commands: 0,
                    tripped: false,
                    trips: 0,
                    watchdog_ns: 0,
                    behavior: SafeBehavior::Zero,
                    receive_to_apply: hist_ns_small(),
                })
                .collect(),
            stage_mean_ns: Vec::with_capacity(16),
            contact_points: 0,
            max_penetration: 0.0,
            quarantined: 0,
            sleeping: 0,
            kinetic_energy: 0.0,
            solver: SolverStats::default(),
        }
    }
}
