//! The velocity-level complementarity step (`method = "lcp"`: 003 eqs. (5)–(10), 001's
//! stabilization) as physics: 000's block under random forces, the friction
//! threshold on an incline, a resting stack, a box sliding to a stop, determinism.

mod common;
#[path = "common/lcp_battery.rs"]
mod lcp_battery;

use common::load;
use lcp_battery::{with_solver, Battery};
use rtphys::experiments::lcp_scenes::{lcp, with_lcp};
use rtphys::experiments::RandomPushes;
use rtphys::math::Vec3;
use rtphys::model::{LcpParams, LcpSolverKind, StabilizationScheme};
use rtphys::Data;

const SOLVERS: [LcpSolverKind; 4] = [
    LcpSolverKind::Lemke,
    LcpSolverKind::Pgs,
    LcpSolverKind::Newton,
    LcpSolverKind::Primal,
];

/// 000 Fig. 12 with 000's force generator (U[10, 100] N down at random points of the
/// top face, 500 steps on, 500 off, 10 rounds, h = 1e-3): mean of the per-step
/// maximum penetration. Returns (mean penetration, solver failures, PGS solves
/// accepted at the sweep limit).
fn random_forces(p: LcpParams) -> (f64, u64, u64) {
    let model = with_lcp(&load("block_random_forces.toml"), p);
    let b = model.body_id("block").expect("block");
    let mut pushes = RandomPushes::new(12, b, Vec3::new(0.5, 0.5, 0.5));
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let mut sum = 0.0;
    for _ in 0..10_000 {
        pushes.apply(&model, &mut data);
        pipeline.step(&model, &mut data);
        sum += data.stats.max_penetration;
    }
    assert_eq!(data.stats.quarantined, 0);
    assert_eq!(data.stats.solver_failures, data.stats.solver_fallbacks);
    (
        sum / 10_000.0,
        data.stats.solver_failures,
        data.stats.solver_unconverged,
    )
}

/// Required: mean penetration ≤ 1.5e-4 m with stabilization (000 reports 1.5e-4 for
/// its LCP comparison); the block starts 3 mm deep (the scene of 000), which full
/// stabilization removes in one step. Stabilization off is reported: the initial
/// 3 mm then stays, so its mean is ≈ 3e-3 and must be larger than with it.
#[test]
fn block_under_random_forces_penetration() {
    for solver in SOLVERS {
        let (on, fail, unconv) = random_forces(lcp(solver));
        let (ah, _, _) = random_forces(LcpParams {
            scheme: StabilizationScheme::AnitescuHart,
            ..lcp(solver)
        });
        let (off, _, _) = random_forces(LcpParams {
            stabilization: 0.0,
            ..lcp(solver)
        });
        eprintln!(
            "{solver:?}: mean penetration: stabilized (003) {on:.3e} m, Anitescu–Hart (001) {ah:.3e} m, off {off:.3e} m; failures {fail}, unconverged PGS {unconv}"
        );
        assert!(
            on <= 1.5e-4,
            "{solver:?}: mean penetration {on:.3e} > 1.5e-4"
        );
        assert!(
            ah <= 1.5e-4,
            "{solver:?}: AH mean penetration {ah:.3e} > 1.5e-4"
        );
        assert!(
            off > on,
            "{solver:?}: stabilization off {off:.3e} ≤ on {on:.3e}"
        );
        // Lemke's failures (ray terminations on the degenerate face contact) are
        // rare, each counted and solved again by PGS (`random_forces` checks the
        // counts agree); PGS sweep limits are counted, not hidden.
        assert!(
            fail <= 10,
            "{solver:?}: {fail} solver failures in 10,000 steps"
        );
        assert!(unconv <= 100, "{solver:?}: {unconv} unconverged PGS solves");
    }
}

/// The default under issue 14's battery (`common/lcp_battery.rs`), every solver.
const DEFAULT: Battery = Battery {
    solvers: &SOLVERS,
    key: &with_solver,
    label: "",
};

/// μ = tan θ = 0.5 holds: creep < 1e-6 m over 2 s with the 4-direction cone aligned
/// to the slope (the cone's first direction is the slope: exactly μ p_n available
/// along it, so the block is at the threshold and must not slide; the 1e-6 m bound
/// leaves room for round-off in the 2,000 solves). k = 8, 16 are reported (their
/// k-gons also have a vertex on the slope direction, so they hold as well).
#[test]
fn incline_holds_at_the_threshold() {
    DEFAULT.incline_holds_at_the_threshold(&[8, 16]);
}

/// μ = 0.49 slides with a = g (sin θ − μ cos θ) within 2 %: fitted from the
/// displacement between 0.5 s and 1.5 s (s = ½ a t² + v₀ t: a from three samples).
#[test]
fn incline_slides_below_the_threshold() {
    DEFAULT.incline_slides_below_the_threshold();
}

/// Five boxes stacked: no box moves by more than 1e-4 m over 10 s, at h = 1e-3 and
/// h = 1e-2 (positions measured from the start, which is exactly touching: the
/// stabilization leaves each contact at its 1e-5 m allowance, 5e-5 m at the top).
#[test]
fn stack_of_five_rests() {
    DEFAULT.stack_of_five_rests(false);
}

/// A box launched at v₀ = 2 m/s on a plane with μ = 0.4 stops after v₀²/(2μg)
/// (0.5097 m) within 1 %. The discrete step loses at most one step of travel
/// (h v₀ = 2 mm = 0.4 %).
#[test]
fn sliding_box_stops_at_v2_over_2mug() {
    DEFAULT.sliding_box_stops_at_v2_over_2mug();
}

/// Two runs of the stack with random pushes are bit-identical, for both solvers.
#[test]
fn two_runs_are_bit_identical() {
    for solver in SOLVERS {
        let model = with_lcp(&load("lcp_stack5.toml"), lcp(solver));
        let run = || {
            let mut data = Data::new(&model);
            let mut pipeline = rtphys::Pipeline::new(&model);
            let mut pushes = RandomPushes::new(3, 5, Vec3::new(0.05, 0.05, 0.05));
            pushes.range = (1.0, 10.0);
            for _ in 0..2000 {
                pushes.apply(&model, &mut data);
                pipeline.step(&model, &mut data);
            }
            data.state
        };
        let (a, b) = (run(), run());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.x.map(f64::to_bits), y.x.map(f64::to_bits));
            assert_eq!(x.q.coords.map(f64::to_bits), y.q.coords.map(f64::to_bits));
            assert_eq!(x.v.map(f64::to_bits), y.v.map(f64::to_bits));
        }
    }
}

/// Snapshot/restore mid-run, then the same steps: bit-identical (the warm start
/// rides in the pair memory of the snapshot).
#[test]
fn snapshot_restore_is_bit_identical() {
    for solver in SOLVERS {
        let model = with_lcp(&load("lcp_stack5.toml"), lcp(solver));
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        for _ in 0..500 {
            pipeline.step(&model, &mut data);
        }
        let snap = data.snapshot();
        for _ in 0..500 {
            pipeline.step(&model, &mut data);
        }
        let a = data.state.clone();
        let mut again = Data::new(&model);
        let mut again_pipe = rtphys::Pipeline::new(&model);
        assert!(again.restore(&snap));
        for _ in 0..500 {
            again_pipe.step(&model, &mut again);
        }
        assert_eq!(a, again.state, "{solver:?}");
    }
}
