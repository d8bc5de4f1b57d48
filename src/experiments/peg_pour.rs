//! 003's 3D pouring experiment (Sec. 6, "Box of Polyhedra", Figs. 23–24): random
//! convex polyhedra dropped one every 0.5 s into a box made of five right
//! hexahedra, simulated with the standard contact model (`method = "lcp"`, eqs.
//! (8)–(9)) and with PEG (`method = "peg"`, eqs. (48)–(49)) from the same initial
//! conditions; the accuracy metric is the exact volume of overlap among all bodies
//! at the end of every step (`collision::overlap`), relative to L³.
//!
//! The paper does not give sizes; ours (stated, not tuned):
//! - **Polyhedra**: the convex hull of [`HULL_POINTS`] points drawn uniformly on the
//!   unit sphere, each axis scaled by U(0.6, 1) × [`RADIUS`] (so every body fits a
//!   ball of diameter L = 2 × [`RADIUS`] = 0.2 m), random orientation (Shoemake),
//!   density 1000 kg/m³, μ = 0.5 (the LCP's friction rows on 4 directions for both
//!   models).
//! - **Box**: five static bodies, one right hexahedron (box geom) each: a floor slab
//!   0.7 × 0.7 × 0.1 m (top face at z = 0) and four walls 0.05 m thick, 0.5 m high,
//!   enclosing a 0.6 × 0.6 m interior.
//! - **Release protocol** (the paper's): body i appears at t = 0.5 i s at rest at
//!   a drop point (x, y) ∈ U(−0.15, 0.15)², z = 0.8 m (above the walls), until
//!   t = 5 s: [`BODIES`] = 10 bodies. Until its release a body is **parked**: placed
//!   in the scene file far from the box (a row at z = 100 m, 1 m apart) and frozen
//!   (`Data::frozen`, treated as static, so gravity does not move it). Release
//!   teleports it (position, zero velocity) and unfreezes it — between steps, no
//!   allocation, deterministic.
//! - The metric sums the overlap of every pair of polytope geoms of different bodies
//!   except the box pieces among themselves (which touch and never move).
//!
//! "Crashed" = the non-finite-state quarantine fired (`StepStats::quarantined`):
//! the run's state went non-finite or absurd and a body was rolled back and frozen.
//! "Failed solve" = a Lemke failure (`StepStats::solver_failures`; each is
//! re-solved by the PGS fallback, `solver_fallbacks`).

use crate::data::Data;
use crate::math::{SplitMix64, Vec3};
use crate::model::Model;
use crate::pipeline::lcp::peg::OverlapMetric;
use crate::pipeline::Pipeline;
use std::fmt::Write;

/// Bodies poured (one every [`RELEASE_EVERY`] s from t = 0 until t = 5 s).
pub const BODIES: usize = 10;
/// Seconds between releases.
pub const RELEASE_EVERY: f64 = 0.5;
/// Simulated time of a full run, s.
pub const DURATION: f64 = 5.0;
/// Radius of the ball every polyhedron fits in, m; L = 2 × RADIUS.
pub const RADIUS: f64 = 0.1;
/// Body size L of the overlap metric (volume / L³), m.
pub const L: f64 = 2.0 * RADIUS;
/// Points whose convex hull is one polyhedron.
pub const HULL_POINTS: usize = 10;
/// Height of the drop point, m.
pub const DROP_Z: f64 = 0.8;

/// The 16 step sizes of the full sweep, s: log-spaced from 1e-3 to 5e-2 (ratio
/// 50^(1/15) ≈ 1.298), rounded to three significant digits.
pub fn step_sizes() -> Vec<f64> {
    (0..16)
        .map(|i| {
            let h = 1e-3 * 50f64.powf(i as f64 / 15.0);
            let m = 10f64.powi(2 - h.log10().floor() as i32);
            (h * m).round() / m
        })
        .collect()
}

/// The contact model of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PourMethod {
    /// The standard model (`method = "lcp"`).
    Lcp,
    /// PEG (`method = "peg"`).
    Peg,
}

impl PourMethod {
    pub fn name(self) -> &'static str {
        match self {
            PourMethod::Lcp => "lcp",
            PourMethod::Peg => "peg",
        }
    }
}

/// The `[lcp]` table of the pour scenes: Lemke, and `peg_block_gs = true` when the
/// experiment is run with `RTPHYS_PEG_BGS=1` (the scene generator's switch, how
/// docs/EXPERIMENTS.md's peg8 runs were made; the physics reads only the scene).
pub fn pour_lcp_table() -> &'static str {
    if std::env::var("RTPHYS_PEG_BGS").is_ok_and(|v| v == "1") {
        "[lcp]\nsolver = \"lemke\"\npeg_block_gs = true\n"
    } else {
        "[lcp]\nsolver = \"lemke\"\n"
    }
}

/// A generated pour: the scene TOML and the release schedule.
#[derive(Clone, Debug)]
pub struct PourScene {
    pub toml: String,
    /// Per poured body (in order): release time, s, and drop point (the centre of
    /// mass at release), m.
    pub releases: Vec<(f64, Vec3)>,
}

/// The pour of `seed` at step `h` under `method`, as scene TOML and schedule.
pub fn pour_scene(seed: u64, method: PourMethod, h: f64) -> PourScene {
    let mut rng = SplitMix64::new(seed);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# 003 Sec. 6 3D pour (src/experiments/peg_pour.rs), seed {seed}.\n\n\
         [world]\ngravity = [0.0, 0.0, -9.81]\ndt = {h:?}\nmethod = \"{}\"\n\n{}",
        method.name(),
        pour_lcp_table()
    );
    let mat = "material = { mu = 0.5 }";
    // The box: (name, centre, half extents).
    let (a, t, wh) = (0.3, 0.025, 0.25);
    let pieces = [
        ("floor", [0.0, 0.0, -0.05], [a + 2.0 * t, a + 2.0 * t, 0.05]),
        ("wall_px", [a + t, 0.0, wh], [t, a + 2.0 * t, wh]),
        ("wall_nx", [-(a + t), 0.0, wh], [t, a + 2.0 * t, wh]),
        ("wall_py", [0.0, a + t, wh], [a, t, wh]),
        ("wall_ny", [0.0, -(a + t), wh], [a, t, wh]),
    ];
    for (name, c, he) in pieces {
        let _ = writeln!(
            s,
            "[[body]]\nname = \"{name}\"\nstatic = true\nshape = {{ type = \"box\", half_extents = [{:?}, {:?}, {:?}] }}\nposition = [{:?}, {:?}, {:?}]\n{mat}\n",
            he[0], he[1], he[2], c[0], c[1], c[2]
        );
    }
    let mut releases = Vec::with_capacity(BODIES);
    for i in 0..BODIES {
        // Draws in a fixed order per body: scales, points, orientation, drop point.
        let sc = [
            rng.uniform(0.6, 1.0) * RADIUS,
            rng.uniform(0.6, 1.0) * RADIUS,
            rng.uniform(0.6, 1.0) * RADIUS,
        ];
        let mut pts = String::new();
        for k in 0..HULL_POINTS {
            // Uniform on the sphere: z = U(−1, 1), azimuth U(0, 2π).
            let z = rng.uniform(-1.0, 1.0);
            let phi = rng.uniform(0.0, std::f64::consts::TAU);
            let r = (1.0 - z * z).max(0.0).sqrt();
            let p = [r * phi.cos() * sc[0], r * phi.sin() * sc[1], z * sc[2]];
            let sep = if k == 0 { "" } else { ", " };
            let _ = write!(pts, "{sep}[{:?}, {:?}, {:?}]", p[0], p[1], p[2]);
        }
        let q = rng.rotation().quaternion().to_owned();
        let drop = Vec3::new(rng.uniform(-0.15, 0.15), rng.uniform(-0.15, 0.15), DROP_Z);
        releases.push((RELEASE_EVERY * i as f64, drop));
        let _ = writeln!(
            s,
            "[[body]]\nname = \"poly{i}\"\nshape = {{ type = \"polytope\", points = [{pts}] }}\ndensity = 1000.0\nposition = [{:?}, 0.0, 100.0]\norientation = [{:?}, {:?}, {:?}, {:?}]\n{mat}\n",
            10.0 + i as f64,
            q.w,
            q.i,
            q.j,
            q.k
        );
    }
    PourScene { toml: s, releases }
}

/// Parks and releases the poured bodies of a [`PourScene`] (module doc).
#[derive(Clone, Debug)]
pub struct PourDriver {
    /// (body index, release time, drop point), in release order.
    schedule: Vec<(usize, f64, Vec3)>,
    next: usize,
}

impl PourDriver {
    /// Freezes every poured body of `data` (bodies `poly0`, `poly1`, … of the model).
    pub fn new(model: &Model, scene: &PourScene, data: &mut Data) -> anyhow::Result<Self> {
        let mut schedule = Vec::with_capacity(scene.releases.len());
        for (i, &(t, p)) in scene.releases.iter().enumerate() {
            let name = format!("poly{i}");
            let b = model
                .body_id(&name)
                .ok_or_else(|| anyhow::anyhow!("pour scene has no body '{name}'"))?;
            data.frozen[b] = true;
            schedule.push((b, t, p));
        }
        Ok(PourDriver { schedule, next: 0 })
    }

    /// Releases the bodies due at `data.time` (call before each step).
    pub fn before_step(&mut self, data: &mut Data, h: f64) {
        while let Some(&(b, t, p)) = self.schedule.get(self.next) {
            // Due when the step starting now is the first to end after t.
            if data.time + 0.5 * h < t {
                break;
            }
            let s = &mut data.state[b];
            s.x = p;
            s.v = Vec3::zeros();
            s.w = Vec3::zeros();
            data.frozen[b] = false;
            self.next += 1;
        }
    }
}

/// The overlap metric of a pour model: Σ of the exact overlap volumes over every pair
/// of polytope geoms of different bodies, except static–static pairs (the box pieces).
pub struct PourOverlap(OverlapMetric);

impl PourOverlap {
    pub fn new(model: &Model) -> Self {
        PourOverlap(OverlapMetric::new(model, false))
    }

    /// Σ of the exact overlap volumes at `data`'s state, m³.
    pub fn volume(&mut self, model: &Model, data: &Data) -> f64 {
        self.0.volume(model, &data.state)
    }
}

/// One run of a pour, 3D ([`run_pour`]) or 2D
/// ([`run_pour_2d`](super::peg_pour_2d::run_pour_2d)): the per-step series and the
/// run's solver statistics.
#[derive(Clone, Debug)]
pub struct PourRun {
    pub method: PourMethod,
    pub seed: u64,
    pub h: f64,
    /// Per step: overlap / L³ (3D) or overlap area / L² (2D) at the end of the step.
    pub overlap: Vec<f64>,
    /// Per step: narrow-phase contact points of the step.
    pub contacts: Vec<u32>,
    /// 2D only (empty in 3D), per step at its start: the 2D potential contacts and
    /// the vertex–vertex configurations (SM traps) of
    /// [`TrapCounter`](super::peg_pour_2d::TrapCounter) (Fig. 22).
    pub potential: Vec<u32>,
    pub traps: Vec<u32>,
    /// Lemke failures (each re-solved by PGS) and PGS fallbacks over the run.
    pub solver_failures: u64,
    pub solver_fallbacks: u64,
    /// Quarantine events (non-finite or absurd state) and the first one's time, s.
    pub quarantined: u64,
    pub crash_time: Option<f64>,
    /// Wall time of the run's steps, s (excluding the metrics).
    pub step_seconds: f64,
    /// Steps that kept a failed solve (`solver_failures` or
    /// `solver_unconverged` rose over the step) and the unconverged solves.
    pub failed_steps: u64,
    pub solver_unconverged: u64,
    /// PEG with `[lcp] peg_retry_depth` > 0: steps retried as sub-steps (a
    /// retried step is not a step of h), the sub-steps they took, and the
    /// attempts split for an overlap rise (`peg_retry_overlap`).
    pub retried_steps: u64,
    pub substeps: u64,
    pub overlap_retries: u64,
    /// `[lcp] peg_ccd_retry` (peg23): attempts split for an impact of their
    /// swept motion, and the impacts the deepest level rewound.
    pub ccd_retries: u64,
    pub ccd_impacts: u64,
}

impl PourRun {
    pub fn crashed(&self) -> bool {
        self.quarantined > 0
    }
    pub fn max_overlap(&self) -> f64 {
        self.overlap.iter().copied().fold(0.0, f64::max)
    }
    /// "Failed" in the sense: a solve fell back or the run crashed.
    pub fn failed(&self) -> bool {
        self.solver_failures > 0 || self.crashed()
    }
}

/// The measurements a pour takes beside its steps (3D: the overlap volume; 2D: the
/// overlap area, and the potential contacts and SM traps before each step).
pub(crate) trait PourProbe {
    /// After the releases, before the step: per-step counts into `run`.
    fn before_step(&mut self, _model: &Model, _data: &Data, _run: &mut PourRun) {}
    /// The overlap metric at the end of the step, relative to L³ or L².
    fn overlap(&mut self, model: &Model, data: &Data) -> f64;
}

impl PourProbe for PourOverlap {
    fn overlap(&mut self, model: &Model, data: &Data) -> f64 {
        self.volume(model, data) / (L * L * L)
    }
}

/// The run loop shared by both pours: load `scene`, release on schedule, step,
/// measure with `probe`.
pub(crate) fn run_scene<P: PourProbe>(
    scene: &PourScene,
    origin: &str,
    method: PourMethod,
    seed: u64,
    h: f64,
    duration: f64,
    probe: impl FnOnce(&Model) -> P,
) -> anyhow::Result<PourRun> {
    let model =
        crate::model::scene::load_scene_str(&scene.toml, origin, std::path::Path::new("."))?;
    let mut data = Data::new(&model);
    let mut driver = PourDriver::new(&model, scene, &mut data)?;
    let mut pl = Pipeline::new(&model);
    let mut probe = probe(&model);
    let steps = (duration / h).round() as usize;
    let mut run = PourRun {
        method,
        seed,
        h,
        overlap: Vec::with_capacity(steps),
        contacts: Vec::with_capacity(steps),
        potential: Vec::new(),
        traps: Vec::new(),
        solver_failures: 0,
        solver_fallbacks: 0,
        quarantined: 0,
        crash_time: None,
        step_seconds: 0.0,
        failed_steps: 0,
        solver_unconverged: 0,
        retried_steps: 0,
        substeps: 0,
        overlap_retries: 0,
        ccd_retries: 0,
        ccd_impacts: 0,
    };
    for _ in 0..steps {
        driver.before_step(&mut data, h);
        probe.before_step(&model, &data, &mut run);
        let kept = data.stats.solver_failures + data.stats.solver_unconverged;
        let t0 = std::time::Instant::now();
        pl.step(&model, &mut data);
        run.step_seconds += t0.elapsed().as_secs_f64();
        if data.stats.solver_failures + data.stats.solver_unconverged > kept {
            run.failed_steps += 1;
        }
        if data.stats.quarantined > 0 && run.crash_time.is_none() {
            run.crash_time = Some(data.time);
        }
        run.overlap.push(probe.overlap(&model, &data));
        run.contacts.push(data.contacts.points.len() as u32);
    }
    run.solver_failures = data.stats.solver_failures;
    run.solver_fallbacks = data.stats.solver_fallbacks;
    run.quarantined = data.stats.quarantined;
    run.solver_unconverged = data.stats.solver_unconverged;
    run.retried_steps = data.stats.peg_retried_steps;
    run.substeps = data.stats.peg_substeps;
    run.overlap_retries = data.stats.peg_overlap_retries;
    run.ccd_retries = data.stats.peg_ccd_retries;
    run.ccd_impacts = data.stats.peg_ccd_impacts;
    Ok(run)
}

/// Runs the pour of `seed` under `method` at step `h` for `duration` s.
pub fn run_pour(seed: u64, method: PourMethod, h: f64, duration: f64) -> anyhow::Result<PourRun> {
    run_pour_with(seed, method, h, duration, &PegKeys::default())
}

/// The `[lcp]` PEG keys a sweep may set on its PEG runs (`rtphys experiment
/// peg-pour --peg-retry-depth N --peg-retry-overlap τ --peg-rotation-eps-theta
/// --peg-retry-rotation-eps-theta`;
/// issue 12, peg20/peg21); the default leaves the scene's own (the keys'
/// defaults).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PegKeys {
    /// `peg_retry_depth`.
    pub retry_depth: Option<usize>,
    /// `peg_retry_overlap`.
    pub retry_overlap: Option<f64>,
    /// `peg_rotation_eps_theta`.
    pub rotation_eps_theta: Option<bool>,
    /// `peg_retry_rotation_eps_theta`.
    pub retry_rotation_eps_theta: Option<bool>,
    /// `peg_retry_second_chance` (peg22).
    pub retry_second_chance: Option<bool>,
    /// `peg_outline_ccd` (peg22).
    pub outline_ccd: Option<bool>,
    /// `peg_ccd_retry` and `peg_ccd_held` (peg23).
    pub ccd_retry: Option<bool>,
    pub ccd_held: Option<bool>,
    /// `peg_vv_one_sided` (peg24).
    pub vv_one_sided: Option<bool>,
}

impl PegKeys {
    /// `scene` with the keys written into its `[lcp]` table when `method` is
    /// PEG (the standard model's runs are left as generated).
    pub fn apply(&self, method: PourMethod, scene: &mut PourScene) {
        if method != PourMethod::Peg {
            return;
        }
        let mut lines = String::new();
        if let Some(n) = self.retry_depth {
            let _ = writeln!(lines, "peg_retry_depth = {n}");
        }
        if let Some(t) = self.retry_overlap {
            let _ = writeln!(lines, "peg_retry_overlap = {t:?}");
        }
        if let Some(b) = self.rotation_eps_theta {
            let _ = writeln!(lines, "peg_rotation_eps_theta = {b}");
        }
        if let Some(b) = self.retry_rotation_eps_theta {
            let _ = writeln!(lines, "peg_retry_rotation_eps_theta = {b}");
        }
        if let Some(b) = self.retry_second_chance {
            let _ = writeln!(lines, "peg_retry_second_chance = {b}");
        }
        if let Some(b) = self.outline_ccd {
            let _ = writeln!(lines, "peg_outline_ccd = {b}");
        }
        if let Some(b) = self.ccd_retry {
            let _ = writeln!(lines, "peg_ccd_retry = {b}");
        }
        if let Some(b) = self.ccd_held {
            let _ = writeln!(lines, "peg_ccd_held = {b}");
        }
        if let Some(b) = self.vv_one_sided {
            let _ = writeln!(lines, "peg_vv_one_sided = {b}");
        }
        if !lines.is_empty() {
            scene.toml = scene
                .toml
                .replacen("[lcp]\n", &format!("[lcp]\n{lines}"), 1);
        }
    }
}

/// [`run_pour`] with the PEG keys `keys` on the PEG runs.
pub fn run_pour_with(
    seed: u64,
    method: PourMethod,
    h: f64,
    duration: f64,
    keys: &PegKeys,
) -> anyhow::Result<PourRun> {
    let mut scene = pour_scene(seed, method, h);
    keys.apply(method, &mut scene);
    run_scene(
        &scene,
        "<peg-pour>",
        method,
        seed,
        h,
        duration,
        PourOverlap::new,
    )
}

/// Quantile `p` ∈ [0, 1] of `v` (sorted in place; linear interpolation between
/// order statistics). NaN for an empty slice.
pub fn quantile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let x = p * (v.len() - 1) as f64;
    let (i, f) = (x.floor() as usize, x - x.floor());
    if i + 1 < v.len() {
        v[i] * (1.0 - f) + v[i + 1] * f
    } else {
        v[i]
    }
}

/// Quartiles (q1, median, q3) of `v` (sorted in place; [`quantile`]).
pub fn quartiles(v: &mut [f64]) -> (f64, f64, f64) {
    (quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75))
}

/// Quartiles (q1, median, q3) of the per-step overlap pooled over `runs`.
pub fn overlap_quartiles<'a>(runs: impl Iterator<Item = &'a PourRun>) -> (f64, f64, f64) {
    let mut all: Vec<f64> = runs.flat_map(|r| r.overlap.iter().copied()).collect();
    quartiles(&mut all)
}
