//! Issue 14's accuracy battery for the LCP method, one copy for every key it is
//! run under: `lcp_experiments.rs` (the default), `lcp_patch.rs` (`[lcp]
//! friction = "patch"`, lcp33) and `lcp_split.rs` (`[lcp] split_memory`,
//! lcp34). The checks: the incline's friction threshold (μ = tan θ = 0.5 holds,
//! μ = 0.49 slides with a = g (sin θ − μ cos θ)), a box sliding to a stop after
//! v₀²/(2 μ g), the 5-stack's drift and resting penetration, a 1,000:1 mass
//! ratio at rest. Each takes the model modifier that puts the solver and the key
//! under test on ([`Battery::key`]); the tolerances and assertion messages are
//! the same under every key. Included with `#[path = "common/lcp_battery.rs"]
//! mod lcp_battery;` beside `mod common;`.
#![allow(dead_code)]

use crate::common::{load, load_str};
use rtphys::data::StepStats;
use rtphys::experiments::lcp_scenes::{incline, lcp, max_depth, run_incline, with_lcp};
use rtphys::model::scene::load_scene_str;
use rtphys::model::{LcpParams, LcpSolverKind, Method, Model};
use rtphys::{Data, Pipeline};

/// A 1 kg box (10 cm) on the ground with a 1,000 kg one on it.
pub const MASS_RATIO_1000: &str =
    "[world]\ndt = 0.001\nmethod = \"lcp\"\n\n[[body]]\nname = \"ground\"\nstatic = true\n\
    shape = { type = \"plane\" }\n\n[[body]]\nname = \"light\"\nmass = 1.0\n\
    shape = { type = \"box\", half_extents = [0.05, 0.05, 0.05] }\nposition = [0.0, 0.0, 0.05]\n\n\
    [[body]]\nname = \"heavy\"\nmass = 1000.0\n\
    shape = { type = \"box\", half_extents = [0.05, 0.05, 0.05] }\nposition = [0.0, 0.0, 0.15]\n";

/// `model` stepped by the LCP method with `solver`, its other LCP parameters
/// (the scene's) kept; the defaults where the scene is not an LCP scene.
pub fn with_solver(model: &Model, solver: LcpSolverKind) -> Model {
    with_lcp(
        model,
        match model.opt.method {
            Method::Lcp(p) => LcpParams { solver, ..p },
            _ => lcp(solver),
        },
    )
}

/// The one-box scene a key's parsing is checked on: `method`, the `[lcp]`
/// table's lines `lcp_lines`, a 1 kg, 10 cm box on the ground; `source` names
/// the text in errors.
pub fn key_scene(method: &str, lcp_lines: &str, source: &str) -> Result<Model, String> {
    load_scene_str(
        &format!(
            "[world]\ndt = 0.001\nmethod = \"{method}\"\n\n[lcp]\n{lcp_lines}\n\n[[body]]\nname = \"ground\"\n\
             static = true\nshape = {{ type = \"plane\" }}\n\n[[body]]\nname = \"b\"\nmass = 1.0\n\
             shape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nposition = [0.0, 0.0, 0.05]\n"
        ),
        source,
        std::path::Path::new("."),
    )
    .map_err(|e| e.to_string())
}

/// The bodies' state (x, v, ω) after `steps` steps of `model`, bit for bit
/// (the keys' determinism tests).
pub fn state_bits(model: &Model, steps: usize) -> Vec<u64> {
    let mut data = Data::new(model);
    let mut pipeline = Pipeline::new(model);
    for _ in 0..steps {
        pipeline.step(model, &mut data);
    }
    data.state
        .iter()
        .flat_map(|s| {
            s.x.iter()
                .chain(s.v.iter())
                .chain(s.w.iter())
                .map(|v| v.to_bits())
        })
        .collect()
}

/// A run at rest: the largest distance any body moved from its start over the
/// run (m), the deepest contact point of the last step (m), the stats.
pub struct Rest {
    pub drift: f64,
    pub depth: f64,
    pub stats: StepStats,
}

/// `model` stepped `steps` times from its initial state.
pub fn rest(model: &Model, steps: usize) -> Rest {
    let mut data = Data::new(model);
    let mut pipeline = Pipeline::new(model);
    let x0: Vec<_> = data.state.iter().map(|s| s.x).collect();
    let mut drift = 0.0f64;
    for _ in 0..steps {
        pipeline.step(model, &mut data);
        for (s, x) in data.state.iter().zip(&x0) {
            drift = drift.max((s.x - x).norm());
        }
    }
    Rest {
        drift,
        depth: max_depth(&data),
        stats: data.stats,
    }
}

/// The battery under one key.
pub struct Battery<'a> {
    /// The solvers the key is checked with.
    pub solvers: &'a [LcpSolverKind],
    /// A scene's model with `solver` and the key under test on.
    pub key: &'a dyn Fn(&Model, LcpSolverKind) -> Model,
    /// The key as the reports name it (e.g. " per patch"; "" for the default).
    pub label: &'a str,
}

impl Battery<'_> {
    /// At μ = tan θ = 0.5 the box on the incline (`lcp_scenes::incline`, a
    /// 4-direction cone whose first direction is the slope: exactly μ p_n along
    /// it) holds: creep over 2 s below 1e-6 m (room for round-off in the 2,000
    /// solves). The cones of `reported_k` directions are run and reported, not
    /// bounded.
    pub fn incline_holds_at_the_threshold(&self, reported_k: &[u32]) {
        for &solver in self.solvers {
            for k in std::iter::once(4).chain(reported_k.iter().copied()) {
                let (model, th) = incline(0.5, k, solver).expect("incline");
                let tr = run_incline(&(self.key)(&model, solver), th, 2000);
                assert_eq!(tr.quarantined, 0);
                let creep = tr.values.iter().fold(0.0f64, |a, b| a.max(b.abs()));
                eprintln!(
                    "{solver:?} k = {k}{}: creep over 2 s at μ = 0.50: {creep:.3e} m; failures {}",
                    self.label, tr.solver_failures
                );
                if k == 4 {
                    assert!(creep < 1e-6, "{solver:?}: creep {creep:.3e} m ≥ 1e-6 m");
                }
            }
        }
    }

    /// At μ = 0.49 the box slides with a = g (sin θ − μ cos θ) within 2 %:
    /// fitted from the displacement at 0.5, 1.0 and 1.5 s (s = ½ a t² + v₀ t:
    /// a from the second difference over 0.5 s intervals).
    pub fn incline_slides_below_the_threshold(&self) {
        let g = 9.81;
        for &solver in self.solvers {
            let (model, th) = incline(0.49, 4, solver).expect("incline");
            let model = (self.key)(&model, solver);
            let tr = run_incline(&model, th, 1500);
            assert_eq!(tr.quarantined, 0);
            let s = tr.values;
            let (i0, i1, i2) = (499usize, 999usize, 1499usize);
            let t = (i1 - i0) as f64 * model.opt.dt;
            let a = (s[i2] - 2.0 * s[i1] + s[i0]) / (t * t);
            let expect = g * (th.sin() - 0.49 * th.cos());
            let rel = (a - expect).abs() / expect;
            eprintln!(
                "{solver:?}{}: a = {a:.5} m/s², expected {expect:.5} (rel. error {rel:.2e})",
                self.label
            );
            assert!(rel <= 0.02, "{solver:?}: a = {a} vs {expect}");
        }
    }

    /// A box launched at v₀ = 2 m/s on a plane with μ = 0.4 stops after
    /// v₀²/(2 μ g) (0.5097 m) within 1 % (the discrete step loses at most one
    /// step of travel, h v₀ = 2 mm = 0.4 %).
    pub fn sliding_box_stops_at_v2_over_2mug(&self) {
        let (v0, mu, g) = (2.0, 0.4, 9.81);
        for &solver in self.solvers {
            let text = format!(
                "[world]\ndt = 0.001\nmethod = \"lcp\"\n\n[[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = {mu:?} }}\n\n[[body]]\nname = \"box\"\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nmass = 1.0\nposition = [0.0, 0.0, 0.05]\nvelocity = [{v0:?}, 0.0, 0.0]\nmaterial = {{ mu = {mu:?} }}\n"
            );
            let model = (self.key)(&load_str(&text), solver);
            let mut data = Data::new(&model);
            let mut pipeline = Pipeline::new(&model);
            for _ in 0..1000 {
                pipeline.step(&model, &mut data);
            }
            let d = data.state[1].x.x;
            let expect = v0 * v0 / (2.0 * mu * g);
            let rel = (d - expect).abs() / expect;
            eprintln!(
                "{solver:?}{}: slid {d:.5} m, expected {expect:.5} m (rel. error {rel:.2e}); v = {:.2e}",
                self.label,
                data.state[1].v.norm()
            );
            assert!(data.state[1].v.norm() < 1e-6, "{solver:?}: still moving");
            assert!(rel <= 0.01, "{solver:?}: slid {d} vs {expect}");
        }
    }

    /// Five boxes stacked (`lcp_stack5.toml`, each at its 1e-5 m allowance): no
    /// box moves by more than 1e-4 m over 10 s at h = 1e-3 and 1e-2 (issue 14's
    /// bound); with `resting_depth`, also the deepest point of the last step
    /// within 0.1 mm (the resting penetration bound; the default's test,
    /// `lcp_experiments`, bounds the drift alone).
    pub fn stack_of_five_rests(&self, resting_depth: bool) {
        for &solver in self.solvers {
            for h in [1e-3, 1e-2] {
                let base = load("lcp_stack5.toml");
                let mut opt = base.opt;
                opt.dt = h;
                let model = (self.key)(&base.with_options(opt), solver);
                let Rest {
                    drift,
                    depth,
                    stats,
                } = rest(&model, (10.0 / h).round() as usize);
                eprintln!(
                    "{solver:?} h = {h}{}: drift over 10 s {drift:.3e} m, deepest point {depth:.3e} m; \
                     failures {}, unconverged {}",
                    self.label, stats.solver_failures, stats.solver_unconverged
                );
                assert_eq!(stats.quarantined, 0);
                assert!(drift < 1e-4, "{solver:?} h = {h}: drift {drift:.3e} m");
                if resting_depth {
                    assert!(depth <= 1e-4, "{solver:?} h = {h}: depth {depth:.3e} m");
                }
            }
        }
    }

    /// [`MASS_RATIO_1000`] under `solver` (the 1,000:1 ratio's dependent rows):
    /// over 2 s neither box moves by more than 1e-4 m and the deepest point
    /// stays within 0.1 mm. Returns the run's stats for the key's own checks.
    pub fn mass_ratio_1000_rests(&self, solver: LcpSolverKind) -> StepStats {
        let model = (self.key)(&load_str(MASS_RATIO_1000), solver);
        let Rest {
            drift,
            depth,
            stats,
        } = rest(&model, 2000);
        eprintln!(
            "{solver:?}{}: 1,000:1 drift {drift:.3e} m, deepest {depth:.3e} m; failures {}, \
             fallbacks {}, primal islands handed on {}",
            self.label,
            stats.solver_failures,
            stats.solver_fallbacks,
            stats.primal_fallback_islands
        );
        assert_eq!(stats.quarantined, 0);
        assert!(drift < 1e-4, "{solver:?}: drift {drift:.3e} m");
        assert!(depth <= 1e-4, "{solver:?}: depth {depth:.3e} m");
        stats
    }
}
