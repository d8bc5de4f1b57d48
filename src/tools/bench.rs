//! `rtphys bench`: single-thread stepping cost of the reference scenes, as JSON.
//!
//! `rtphys bench physics` (the default) times each scene like the peers' scripts
//! (`shared/peers/common.py`): the scene is settled, a step count is calibrated so
//! that one timed window takes about `--rep-secs`, and the window is repeated
//! `--reps` times (≥ 5) on the continuing simulation. Each window is timed with the
//! thread's on-CPU clock (`CLOCK_THREAD_CPUTIME_ID`, not inflated when another
//! process takes the core) and with the wall clock; the headline figure is the
//! median of the on-CPU µs per step. Per-stage times are the delta of
//! `data.stats.stage_ns_total` over all timed windows (the pipeline measures them
//! with `Instant`, i.e. wall clock), divided by the timed steps.
//!
//! `rtphys bench transport` runs the server's transport benchmarks
//! (`rtphys::server::bench::transport_bench`).

use crate::data::{Data, Stage};
use crate::experiments::{pile_scene, PileKind};
use crate::model::scene::{load_scene_file, load_scene_str, MethodName};
use crate::model::{BodyKind, Model};
use crate::pipeline::Pipeline;
use anyhow::Context;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `rtphys bench` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// physics (default), transport, robots, zwidth (the haptic Z-width plot),
    /// haptic_pile (the multi-rate tool's rate in the 20-object pile) or ipc_compare
    /// (the IPC scenes under ipc, lcp and penalty: cost, Newton iterations,
    /// intersections, tunnelling).
    #[arg(default_value = "physics")]
    pub what: String,
    /// Comma-separated scenes (physics): box, stack5, pile20, pile100, pile1000, and
    /// the peer's scaling scenes grid_N, pile_N (read from `--scaling-dir`).
    /// Default: all but the scaling scenes.
    #[arg(long)]
    pub scenes: Option<String>,
    /// Override every scene's method: penalty | penalty_deepest | hunt_crossley | lcp | peg | ipc.
    #[arg(long)]
    pub method: Option<MethodName>,
    /// LCP scenes: the solver, lemke | pgs | newton | primal (default: the scene's).
    #[arg(long)]
    pub lcp_solver: Option<String>,
    /// LCP scenes: `[lcp] friction`, point | patch (default: the scene's).
    #[arg(long)]
    pub lcp_friction: Option<String>,
    /// LCP scenes: `[lcp] split_memory`, σ in [0, 1e-2] (default: the scene's, 0).
    #[arg(long)]
    pub lcp_split_memory: Option<f64>,
    /// LCP scenes with PGS: residual tolerance (default: the scene's, 1e-9).
    #[arg(long)]
    pub lcp_tolerance: Option<f64>,
    /// LCP scenes with PGS: sweep limit (default: the scene's, 500).
    #[arg(long)]
    pub lcp_max_iterations: Option<usize>,
    /// PEG scenes: `[lcp] peg_passes` (default: the scene's).
    #[arg(long)]
    pub peg_passes: Option<usize>,
    /// PEG scenes: `[lcp] peg_consistent`, true | false (default: the scene's).
    #[arg(long)]
    pub peg_consistent: Option<bool>,
    /// Override every scene's integrator: rk4 | semi_implicit_euler | implicit.
    #[arg(long)]
    pub integrator: Option<String>,
    /// Smoke test: short settling and short timed windows (figures are not
    /// representative). For transport: a few seconds in total.
    #[arg(long)]
    pub quick: bool,
    /// Timed repetitions per scene (at least 5).
    #[arg(long, default_value_t = 5)]
    pub reps: usize,
    /// Target duration of one timed window, s (the peers use 0.4).
    #[arg(long, default_value_t = 0.4)]
    pub rep_secs: f64,
    /// Where the scaling scenes' JSON (`bench_scaling.py --write-scenes DIR`) lives.
    #[arg(long, default_value = super::scaling::SCALING_DIR)]
    pub scaling_dir: PathBuf,
    /// Skip the resting-penetration measurement (physics).
    #[arg(long)]
    pub no_quality: bool,
    /// Physics: sleeping islands on in every scene (`[world] sleep`, default
    /// thresholds); the report gives the mean number of sleeping bodies.
    #[arg(long)]
    pub sleep: bool,
    /// Physics, penalty scenes: sticking friction as implicit rows
    /// (`[penalty.friction] implicit = true`).
    #[arg(long)]
    pub implicit_friction: bool,
    /// Physics, penalty scenes: the stick/slip transitions decided on the
    /// anchors' solve (`[penalty.friction] solved_stick = true`).
    #[arg(long)]
    pub solved_stick: bool,
    /// Physics, penalty scenes: `[penalty] rest_tol`, m (0 ≤ tol ≤ 1e-9; 0 = off):
    /// the rest memo and the kept rows of a resting pair (default: the scene's).
    #[arg(long)]
    pub rest_tol: Option<f64>,
    /// Physics: a rolling resistance length (m) of at least this for every geom's
    /// material (`material.rolling`; the bench and scaling piles have none: their
    /// spheres and capsules roll ideally, without loss, and never rest).
    #[arg(long, default_value_t = 0.0)]
    pub rolling: f64,
    /// Physics: settle every scene this long (s) instead of its own time.
    #[arg(long)]
    pub settle: Option<f64>,
    /// Physics, with `--sleep`: after settling, a small downward force
    /// (`AWAKE_LOAD` × its weight) on every ⌈1/f⌉-th free body keeps that fraction
    /// of the bodies (their islands) awake while the rest may sleep: the cost
    /// of a partly sleeping world. 0: off.
    #[arg(long, default_value_t = 0.0)]
    pub awake: f64,
    /// Also write the JSON to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// zwidth: write the Z-width plot (PNG) here.
    #[arg(long)]
    pub png: Option<PathBuf>,
    /// zwidth: TrueType font for the plot's text (none: no text).
    #[arg(
        long,
        default_value = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    )]
    pub font: PathBuf,
}

pub fn bench_main(a: BenchArgs) -> anyhow::Result<()> {
    let report = match a.what.as_str() {
        "physics" => physics(&a)?,
        "transport" => transport(&a)?,
        "robots" => robots(&a)?,
        "zwidth" => super::bench_haptics::zwidth(a.quick, a.png.as_deref(), &a.font)?,
        "haptic_pile" => super::bench_haptics::haptic_pile(a.quick, a.reps)?,
        "ipc_compare" => super::bench_ipc::ipc_compare(a.quick)?,
        other => anyhow::bail!(
            "bench: unknown benchmark '{other}' (physics, transport, robots, zwidth, haptic_pile, ipc_compare)"
        ),
    };
    let text = serde_json::to_string_pretty(&report)?;
    println!("{text}");
    if let Some(path) = &a.out {
        std::fs::write(path, format!("{text}\n"))
            .with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

// ---------------------------------------------------------------------------- transport

fn transport(a: &BenchArgs) -> anyhow::Result<Value> {
    use crate::server::bench::{transport_bench, TransportBenchOpts};
    let mut o = TransportBenchOpts::default();
    if a.quick {
        o.messages = 1000;
        o.lateness_secs = 2.0;
        o.fanout_subscribers = 4;
        o.fanout_secs = 2.0;
    }
    eprintln!(
        "bench transport: {} round trips at {} Hz, {} s lateness per rate, {} subscribers for {} s",
        o.messages, o.rate_hz, o.lateness_secs, o.fanout_subscribers, o.fanout_secs
    );
    let mut v = transport_bench(&o).context("transport benchmark")?;
    if let Value::Object(m) = &mut v {
        m.insert("provenance".into(), provenance());
    }
    Ok(v)
}

// ---------------------------------------------------------------------------- physics

/// One reference scene: where it comes from and how long to settle it.
#[derive(Clone)]
struct SceneSpec {
    name: std::borrow::Cow<'static, str>,
    source: Source,
    settle_s: f64,
    /// Upper bound on the steps of one timed window (big piles).
    max_steps: u64,
}

#[derive(Clone)]
enum Source {
    File(&'static str),
    Pile(usize),
    /// A scaling scene of the peer (`tools::scaling`): its JSON file.
    Scaling(PathBuf),
}

const SCENES: [SceneSpec; 5] = [
    SceneSpec {
        name: std::borrow::Cow::Borrowed("box"),
        source: Source::File("config/scenes/box_on_plane.toml"),
        settle_s: 1.0,
        max_steps: 2_000_000,
    },
    SceneSpec {
        name: std::borrow::Cow::Borrowed("stack5"),
        source: Source::File("config/scenes/stack5.toml"),
        settle_s: 2.0,
        max_steps: 2_000_000,
    },
    SceneSpec {
        name: std::borrow::Cow::Borrowed("pile20"),
        source: Source::Pile(20),
        settle_s: 3.0,
        max_steps: 2_000_000,
    },
    SceneSpec {
        name: std::borrow::Cow::Borrowed("pile100"),
        source: Source::Pile(100),
        settle_s: 1.5,
        max_steps: 2000,
    },
    SceneSpec {
        name: std::borrow::Cow::Borrowed("pile1000"),
        source: Source::Pile(1000),
        settle_s: 1.0,
        max_steps: 200,
    },
];

/// Thread on-CPU time, s (`CLOCK_THREAD_CPUTIME_ID`; NaN if unavailable).
pub fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Resolve a repository-relative scene path: the current directory first, then
/// the source tree this binary was built from.
fn scene_path(rel: &str) -> anyhow::Result<PathBuf> {
    let here = Path::new(rel);
    if here.exists() {
        return Ok(here.to_path_buf());
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    if built.exists() {
        return Ok(built);
    }
    anyhow::bail!(
        "scene file {rel} not found (looked in the current directory and in {}); run from the repository root",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn load_spec(spec: &SceneSpec, a: &BenchArgs) -> anyhow::Result<(Model, String)> {
    let (model, source) = match spec.source {
        Source::File(rel) => {
            let path = scene_path(rel)?;
            (load_scene_file(&path)?, rel.to_string())
        }
        Source::Pile(n) => {
            let text = pile_scene(PileKind::Bench, n, 7);
            (
                load_scene_str(&text, &format!("<pile {n}>"), Path::new("."))?,
                format!("experiments::pile_scene(PileKind::Bench, {n}, 7)"),
            )
        }
        Source::Scaling(ref path) => {
            let text = super::scaling::scene_from_json_file(path)?;
            (
                load_scene_str(&text, &path.display().to_string(), Path::new("."))?,
                format!("tools::scaling::scene_from_json({})", path.display()),
            )
        }
    };
    let mut model = crate::run::apply_overrides(&model, a.method, None, a.integrator.as_deref())?;
    if a.sleep {
        let mut opt = model.opt;
        opt.sleep.enabled = true;
        model = model.with_options(opt);
    }
    model = model.with_min_rolling(a.rolling);
    if let (true, crate::model::Method::Penalty(mut p)) = (a.implicit_friction, model.opt.method) {
        p.friction.implicit = true;
        let mut opt = model.opt;
        opt.method = crate::model::Method::Penalty(p);
        model = model.with_options(opt);
    }
    if let (true, crate::model::Method::Penalty(mut p)) = (a.solved_stick, model.opt.method) {
        p.friction.solved_stick = true;
        let mut opt = model.opt;
        opt.method = crate::model::Method::Penalty(p);
        model = model.with_options(opt);
    }
    if let (Some(t), crate::model::Method::Penalty(mut p)) = (a.rest_tol, model.opt.method) {
        if !crate::model::PenaltyParams::rest_tol_valid(t) {
            anyhow::bail!(
                "--rest-tol: must be in [0, {:e}] m (0 = off), got {t}",
                crate::model::PenaltyParams::REST_TOL_MAX
            );
        }
        p.rest_tol = t;
        let mut opt = model.opt;
        opt.method = crate::model::Method::Penalty(p);
        model = model.with_options(opt);
    }
    Ok((lcp_overrides(model, a)?, source))
}

/// `--lcp-solver`, `--lcp-friction`, `--lcp-split-memory`, `--lcp-tolerance`,
/// `--lcp-max-iterations`, `--peg-passes`, `--peg-consistent` on an LCP model.
fn lcp_overrides(mut model: Model, a: &BenchArgs) -> anyhow::Result<Model> {
    if let crate::model::Method::Lcp(mut p) = model.opt.method {
        match a.lcp_solver.as_deref() {
            None => {}
            Some("lemke") => p.solver = crate::model::LcpSolverKind::Lemke,
            Some("pgs") => p.solver = crate::model::LcpSolverKind::Pgs,
            Some("newton") => p.solver = crate::model::LcpSolverKind::Newton,
            Some("primal") => p.solver = crate::model::LcpSolverKind::Primal,
            Some(other) => {
                anyhow::bail!("--lcp-solver: unknown '{other}' (lemke, pgs, newton, primal)")
            }
        }
        match a.lcp_friction.as_deref() {
            None => {}
            Some("point") => p.friction = crate::model::FrictionModel::Point,
            Some("patch") => p.friction = crate::model::FrictionModel::Patch,
            Some(other) => anyhow::bail!("--lcp-friction: unknown '{other}' (point, patch)"),
        }
        if let Some(s) = a.lcp_split_memory {
            p.split_memory = s;
        }
        if let Some(t) = a.lcp_tolerance {
            p.tolerance = t;
        }
        if let Some(n) = a.lcp_max_iterations {
            p.max_iterations = n;
        }
        if let Some(n) = a.peg_passes {
            p.peg_passes = n;
        }
        if let Some(c) = a.peg_consistent {
            p.peg_consistent = c;
        }
        p.validate().map_err(|(k, m)| {
            let pre = if k.starts_with("peg_") { "" } else { "lcp-" };
            anyhow::anyhow!("--{pre}{}: {m}", k.replace('_', "-"))
        })?;
        let mut opt = model.opt;
        opt.method = crate::model::Method::Lcp(p);
        model = model.with_options(opt);
    }
    Ok(model)
}

/// Median of the finite values of `v` (NaN if none).
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

fn stats(v: &[f64]) -> Value {
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    json!({"median": median(v), "min": min, "max": max})
}

fn step_n(pipeline: &mut Pipeline, model: &Model, data: &mut Data, n: u64) {
    for _ in 0..n {
        pipeline.step(model, data);
    }
}

/// Steps whose wall time is about `target_s` (the probe runs count as settling).
fn calibrate(
    pipeline: &mut Pipeline,
    model: &Model,
    data: &mut Data,
    target_s: f64,
    max_steps: u64,
) -> u64 {
    let mut n = 10u64;
    loop {
        let t0 = Instant::now();
        step_n(pipeline, model, data, n);
        let dt = t0.elapsed().as_secs_f64();
        if dt > 0.05 || n >= max_steps {
            let want = (n as f64 * target_s / dt.max(1e-9)).round() as u64;
            return want.clamp(10, max_steps);
        }
        n *= 4;
    }
}

fn bench_scene(spec: &SceneSpec, a: &BenchArgs, reps: usize, rep_s: f64) -> anyhow::Result<Value> {
    let (model, source) = load_spec(spec, a)?;
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let settle_s = match a.settle {
        Some(s) => s,
        None if a.quick => 0.25 * spec.settle_s,
        None => spec.settle_s,
    };
    let settle_steps = (settle_s / model.opt.dt).round() as u64;
    eprint!("bench {:9} settle {settle_steps} steps", spec.name);
    let t_settle = Instant::now();
    step_n(&mut pipeline, &model, &mut data, settle_steps);
    let driven = keep_awake(&model, &mut data, a.awake);
    if driven > 0 {
        // The driven islands wake and settle under their load.
        step_n(&mut pipeline, &model, &mut data, 100);
        eprint!(" ({driven} driven awake)");
    }
    let max_steps = if a.quick {
        spec.max_steps.min(200)
    } else {
        spec.max_steps
    };
    let n = calibrate(&mut pipeline, &model, &mut data, rep_s, max_steps);
    eprint!(
        " ({:.1} s), {reps} × {n} timed steps",
        t_settle.elapsed().as_secs_f64()
    );

    let stage0 = data.stats.stage_ns_total;
    let (mut cpu_us, mut wall_us, mut oncpu) = (Vec::new(), Vec::new(), Vec::new());
    let (mut pairs_sum, mut points_sum, mut sleeping_sum) = (0usize, 0usize, 0usize);
    let (mut sweeps_sum, mut visits_sum, mut visits_max) = (0usize, 0usize, 0usize);
    // Sub-steps per tick of the adaptive Hunt–Crossley stepper (1 for the others).
    let (mut substeps_sum, mut substeps_max) = (0u64, 0u32);
    // LCP stepper: problem size, solver iterations and solve time per step.
    let (mut lcp_n, mut lcp_it, mut lcp_ns) = (0usize, 0usize, 0u64);
    let (f0, u0) = (data.stats.solver_failures, data.stats.solver_unconverged);
    let (nf0, nc0) = (data.stats.newton_factorizations, data.stats.newton_cholesky);
    let (pp0, pf0) = (data.stats.primal_passes, data.stats.primal_fallback_islands);
    for _ in 0..reps {
        let (c0, t0) = (thread_cpu_s(), Instant::now());
        for _ in 0..n {
            pipeline.step(&model, &mut data);
            pairs_sum += data.stats.contact_pairs;
            points_sum += data.stats.contact_points;
            sleeping_sum += data.stats.sleeping;
            sweeps_sum += data.stats.impact_sweeps;
            visits_sum += data.stats.impact_visits;
            visits_max = visits_max.max(data.stats.impact_visits);
            let sub = data.stats.substeps.max(1);
            substeps_sum += u64::from(sub);
            substeps_max = substeps_max.max(sub);
            lcp_n += data.stats.lcp_size;
            lcp_it += data.stats.solver_iterations;
            lcp_ns += data.stats.solver_ns;
        }
        let wall = t0.elapsed().as_secs_f64();
        let cpu = thread_cpu_s() - c0;
        cpu_us.push(cpu * 1e6 / n as f64);
        wall_us.push(wall * 1e6 / n as f64);
        oncpu.push(cpu / wall.max(1e-12));
    }
    let timed = (reps as u64 * n) as f64;
    let mut stages = serde_json::Map::new();
    let mut stage_sum = 0.0;
    for s in Stage::ALL {
        let d = data.stats.stage_ns_total[s as usize].saturating_sub(stage0[s as usize]);
        let us = d as f64 * 1e-3 / timed;
        stage_sum += us;
        stages.insert(s.name().into(), json!(us));
    }
    stages.insert("sum".into(), json!(stage_sum));
    let med = median(&cpu_us);
    eprintln!(": {med:.2} µs/step (CPU), {:.2} wall", median(&wall_us));

    let free = model
        .bodies
        .iter()
        .filter(|b| b.kind == BodyKind::Free)
        .count();
    let finite = data.state.iter().all(|s| s.is_finite());
    Ok(json!({
        "name": spec.name,
        "source": source,
        "bodies": model.nbody(),
        "free_bodies": free,
        "geoms": model.ngeom(),
        "method": model.opt.method.name(),
        "integrator": format!("{:?}", model.opt.integrator),
        "dt": model.opt.dt,
        "settle_s": settle_s,
        "steps_per_rep": n,
        "reps": reps,
        "us_per_step": stats(&cpu_us),
        "wall_us_per_step": stats(&wall_us),
        "steps_per_s": 1e6 / med,
        "wall_steps_per_s": 1e6 / median(&wall_us),
        "oncpu_fraction_min": oncpu.iter().copied().fold(f64::INFINITY, f64::min),
        "stage_us_per_step": Value::Object(stages),
        "contacts_mean": {
            "contact_pairs": pairs_sum as f64 / timed,
            "contact_points": points_sum as f64 / timed,
            "sleeping_bodies": sleeping_sum as f64 / timed,
            "impact_sweeps": sweeps_sum as f64 / timed,
            "impact_manifold_visits": visits_sum as f64 / timed,
            "impact_manifold_visits_max": visits_max,
        },
        "driven_awake": driven,
        "sleep": crate::pipeline::sleep::enabled(&model),
        "solver_iterations_mean": lcp_it as f64 / timed,
        // The penalty implicit solve's block factorization at the end of the timed
        // steps (bodies, edges, blocks of L with the fill, 6×6 block updates of one
        // factorization; 0 where every island is one body).
        "penalty_direct": pipeline.penalty_direct_stats().map(|s| json!({
            "bodies": s.n,
            "edges": s.edges,
            "l_blocks": s.l_blocks,
            "block_updates": s.updates,
        })),
        "substeps_per_tick": {
            "mean": substeps_sum as f64 / timed,
            "max": substeps_max,
        },
        // `[penalty] robot_implicit`: the last step's implicit link rows and
        // passes, and the failed solves (explicit force kept) since the start.
        "robot_contact": match model.opt.method {
            crate::model::Method::Penalty(p) if p.robot_implicit => json!({
                "rows_last": data.stats.robot_contact_rows,
                "passes_last": data.stats.robot_contact_passes,
                "failures": data.stats.robot_contact_failures,
            }),
            _ => Value::Null,
        },
        "lcp": match model.opt.method {
            crate::model::Method::Lcp(p) => json!({
                "solver": format!("{:?}", p.solver),
                "friction_directions": p.friction_directions,
                "tolerance": p.tolerance,
                "max_iterations": p.max_iterations,
                "size_mean": lcp_n as f64 / timed,
                "iterations_mean": lcp_it as f64 / timed,
                "solve_us_per_step": lcp_ns as f64 * 1e-3 / timed,
                "failures": data.stats.solver_failures - f0,
                "unconverged": data.stats.solver_unconverged - u0,
                "newton_factorizations": data.stats.newton_factorizations - nf0,
                "newton_cholesky": data.stats.newton_cholesky - nc0,
                "primal_passes": data.stats.primal_passes - pp0,
                "primal_fallback_islands": data.stats.primal_fallback_islands - pf0,
            }),
            _ => Value::Null,
        },
        "end": {
            "time_s": data.time,
            "contact_pairs": data.stats.contact_pairs,
            "contact_points": data.stats.contact_points,
            "kinetic_energy": data.kinetic_energy(&model),
            "max_penetration": data.stats.max_penetration,
            "quarantined": data.stats.quarantined,
            "finite": finite,
        },
    }))
}

/// The downward load that keeps a body awake under `--awake`, as a fraction of its
/// weight (small: the body stays where it rests, a little deeper).
const AWAKE_LOAD: f64 = 1e-3;

/// `--awake f`: every ⌈1/f⌉-th free body (in index order) gets a constant
/// downward force of `AWAKE_LOAD` × its weight, which keeps it and its island
/// awake (a driven body never rests). Returns how many bodies are driven.
fn keep_awake(model: &Model, data: &mut Data, fraction: f64) -> usize {
    if fraction.is_nan() || fraction <= 0.0 {
        return 0;
    }
    let every = (1.0 / fraction.min(1.0)).ceil() as usize;
    let mut n = 0;
    let free = (0..model.nbody()).filter(|&b| model.bodies[b].kind == BodyKind::Free);
    for (k, b) in free.enumerate() {
        if k % every == 0 {
            let f = model.opt.gravity * (AWAKE_LOAD * model.bodies[b].mass);
            let x = data.state[b].x;
            data.apply_force_at(b, f, x, crate::math::Vec3::zeros());
            n += 1;
        }
    }
    n
}

/// A box of half-size `half` and `mass` kg resting on a plane, with the gains of
/// config/scenes/box_on_plane.toml (the peers' contact_quality.py boxes).
fn resting_box_scene(half: f64, mass: f64) -> String {
    format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nintegrator = \"semi_implicit_euler\"\nmethod = \"penalty\"\n\n\
         [penalty]\nkp_per_mass = 20000.0\nkv_per_mass = 300.0\nki_per_mass = 1000.0\nforgetting = 0.9\n\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = 0.8 }}\n\n\
         [[body]]\nname = \"box\"\nshape = {{ type = \"box\", half_extents = [{half:?}, {half:?}, {half:?}] }}\n\
         mass = {mass:?}\nposition = [0.0, 0.0, {half:?}]\nmaterial = {{ mu = 0.8 }}\n"
    )
}

/// Resting penetration as the peers' contact_quality.py measures it: settle 2 s, then
/// sample every step for 1 s. `pen_mean_mm`: mean over steps of the mean depth over
/// penetrating pairs (`stats.mean_penetration`, each pair's deepest point: the
/// intersection-volume points on the plane itself have depth 0 and would halve a
/// per-point mean); `pen_max_mm`: the largest depth seen; `z_sink_mm`: how far the
/// centre sits below its ideal height, on average.
fn resting_penetration(a: &BenchArgs, half: f64, mass: f64) -> anyhow::Result<Value> {
    let text = resting_box_scene(half, mass);
    let model = load_scene_str(&text, "<resting box>", Path::new("."))?;
    let model = crate::run::apply_overrides(&model, a.method, None, a.integrator.as_deref())?;
    let b = model
        .body_id("box")
        .context("resting box scene has no body 'box'")?;
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    step_n(
        &mut pipeline,
        &model,
        &mut data,
        (2.0 / model.opt.dt).round() as u64,
    );
    let (mut sum, mut max, mut sink, mut points) = (0.0, 0.0f64, 0.0, 0);
    let steps = (1.0 / model.opt.dt).round() as u64;
    for _ in 0..steps {
        pipeline.step(&model, &mut data);
        sum += data.stats.mean_penetration;
        max = max.max(data.stats.max_penetration);
        points = data.contacts.points.len();
        sink += half - data.state[b].x.z;
    }
    Ok(json!({
        "box_size_m": 2.0 * half,
        "mass_kg": mass,
        "method": model.opt.method.name(),
        "dt": model.opt.dt,
        "contact_points": points,
        "pen_mean_mm": 1e3 * sum / steps as f64,
        "pen_max_mm": 1e3 * max,
        "z_sink_mm": 1e3 * sink / steps as f64,
    }))
}

fn physics(a: &BenchArgs) -> anyhow::Result<Value> {
    anyhow::ensure!(a.reps >= 5, "--reps must be at least 5, got {}", a.reps);
    anyhow::ensure!(
        a.rep_secs.is_finite() && a.rep_secs > 0.0 && a.rep_secs <= 60.0,
        "--rep-secs must be in (0, 60], got {}",
        a.rep_secs
    );
    let chosen: Vec<SceneSpec> = match &a.scenes {
        None => SCENES.to_vec(),
        Some(list) => {
            let mut v = Vec::new();
            for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                if let Some((_, n)) = super::scaling::scaling_name(name) {
                    let file = format!("{name}.json");
                    let path = match scene_path(&format!("{}/{file}", a.scaling_dir.display())) {
                        Ok(p) => p,
                        Err(_) => a.scaling_dir.join(file),
                    };
                    // The peer settles its scaling scenes 3 s before timing.
                    v.push(SceneSpec {
                        name: std::borrow::Cow::Owned(name.to_string()),
                        source: Source::Scaling(path),
                        settle_s: 3.0,
                        max_steps: if n >= 1000 { 200 } else { 2000 },
                    });
                    continue;
                }
                let spec = SCENES.iter().find(|s| s.name == name).with_context(|| {
                    let known: Vec<&str> = SCENES.iter().map(|s| &*s.name).collect();
                    format!(
                        "--scenes: unknown scene '{name}' (known: {}, grid_N, pile_N)",
                        known.join(", ")
                    )
                })?;
                v.push(spec.clone());
            }
            anyhow::ensure!(!v.is_empty(), "--scenes: no scene given");
            v
        }
    };
    let rep_s = if a.quick { 0.05 } else { a.rep_secs };
    let load_start = loadavg();
    let mut scenes = Vec::new();
    for spec in &chosen {
        scenes.push(bench_scene(spec, a, a.reps, rep_s)?);
    }
    let quality = if a.no_quality {
        Value::Null
    } else {
        json!([
            resting_penetration(a, 0.5, 10.0)?,
            resting_penetration(a, 0.05, 1.0)?
        ])
    };
    Ok(json!({
        "benchmark": "physics",
        "provenance": provenance(),
        "loadavg_start": load_start,
        "loadavg_end": loadavg(),
        "options": {
            "method": a.method.map(|m| format!("{m:?}")),
            "lcp_solver": a.lcp_solver,
            "lcp_friction": a.lcp_friction,
            "lcp_tolerance": a.lcp_tolerance,
            "lcp_max_iterations": a.lcp_max_iterations,
            "integrator": a.integrator,
            "sleep": a.sleep,
            "implicit_friction": a.implicit_friction,
            "solved_stick": a.solved_stick,
            "rest_tol": a.rest_tol,
            "rolling": a.rolling,
            "settle": a.settle,
            "awake": a.awake,
            "quick": a.quick,
            "reps": a.reps,
            "rep_target_s": rep_s,
        },
        "timing": "us_per_step: median/min/max over reps of thread on-CPU time \
                   (CLOCK_THREAD_CPUTIME_ID) per step of one timed window, after settling; \
                   wall_us_per_step: the same windows on the wall clock; stage_us_per_step: \
                   delta of data.stats.stage_ns_total (wall-clock Instant) over all timed \
                   windows per timed step; contacts_mean: per-step mean over the timed steps",
        "scenes": scenes,
        "resting_penetration": quality,
    }))
}

// ---------------------------------------------------------------------------- provenance

fn loadavg() -> Value {
    match std::fs::read_to_string("/proc/loadavg") {
        Ok(s) => {
            let v: Vec<f64> = s
                .split_whitespace()
                .take(3)
                .filter_map(|x| x.parse().ok())
                .collect();
            json!(v)
        }
        Err(_) => Value::Null,
    }
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

fn git(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// UTC date and time from the system clock (civil-from-days, no extra crate).
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

fn provenance() -> Value {
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty());
    json!({
        "rtphys_version": env!("CARGO_PKG_VERSION"),
        "git_commit": git(&["rev-parse", "HEAD"]),
        "git_dirty": dirty,
        // Which uncommitted changes the measured binary may include (tracked files).
        "git_diff_shortstat": git(&["diff", "HEAD", "--shortstat"]),
        "date_utc": utc_now(),
        "machine": {
            "cpu": cpu_model(),
            "nproc": std::thread::available_parallelism().map(|n| n.get()).ok(),
        },
        "build": if cfg!(debug_assertions) { "debug" } else { "release" },
    })
}

// ---------------------------------------------------------------------------- robots

/// The robot cases of `rtphys bench robots`, each a scene and the controller that
/// writes its set-points every tick (the peers' `scenes.py`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RobotCase {
    /// The 7-DoF arm in free space tracking the peers' `arm_reference`: the ready
    /// pose plus 0.3 rad sinusoids at 0.5, 0.7, …, 1.7 Hz on joints 1–7, written
    /// into the servo set-points (position and velocity) each tick.
    ArmFree,
    /// The arm pressing on the table: its initial set-point (3 mm below the table
    /// top) plus a 0.05 rad, 0.5 Hz sway of joint 1.
    ArmTable,
    /// The rover driving a wide left curve: wheel-speed set-points 4 and 5 rad/s.
    Rover,
    /// The humanoid standing, servos holding the initial pose.
    Humanoid,
}

impl RobotCase {
    pub const ALL: [RobotCase; 4] = [
        RobotCase::ArmFree,
        RobotCase::ArmTable,
        RobotCase::Rover,
        RobotCase::Humanoid,
    ];
    pub fn name(self) -> &'static str {
        match self {
            RobotCase::ArmFree => "arm_free",
            RobotCase::ArmTable => "arm_table",
            RobotCase::Rover => "diffdrive",
            RobotCase::Humanoid => "humanoid",
        }
    }
    /// The scene file, repository-relative.
    pub fn scene(self) -> &'static str {
        match self {
            RobotCase::ArmFree => "config/scenes/arm.toml",
            RobotCase::ArmTable => "config/scenes/arm_table.toml",
            RobotCase::Rover => "config/scenes/diffdrive.toml",
            RobotCase::Humanoid => "config/scenes/humanoid.toml",
        }
    }
    fn settle_s(self) -> f64 {
        match self {
            RobotCase::ArmFree | RobotCase::Rover => 1.0,
            RobotCase::ArmTable | RobotCase::Humanoid => 2.0,
        }
    }
}

/// Write the controller's set-points of `case` for the coming step (at
/// `data.time`) into `data.robots[0].servo`. No allocation; a model that is not the
/// case's scene is left alone.
pub fn robot_command(case: RobotCase, model: &Model, data: &mut Data) {
    use std::f64::consts::TAU;
    let (Some(r), Some(rd)) = (model.robots.first(), data.robots.first_mut()) else {
        return;
    };
    let t = data.time;
    match case {
        RobotCase::ArmFree => {
            // scenes.py arm_reference(table=False): q_ref = ready + 0.3 sin(2π f t),
            // f = 0.5 + 0.2 k Hz; the servo also gets q̇_ref.
            for (s, tgt) in r.servos.iter().zip(rd.servo.iter_mut()) {
                let j = &r.joints[s.joint];
                let f = 0.5 + 0.2 * s.joint as f64;
                let w = TAU * f;
                tgt.position = r.q0[j.qi] + 0.3 * (w * t).sin();
                tgt.velocity = 0.3 * w * (w * t).cos();
            }
        }
        RobotCase::ArmTable => {
            // arm_reference(table=True): the pressing set-point plus 0.05 rad, 0.5 Hz
            // on joint 1.
            let w = TAU * 0.5;
            for (s, tgt) in r.servos.iter().zip(rd.servo.iter_mut()) {
                if s.joint == 0 {
                    let j = &r.joints[s.joint];
                    tgt.position = r.q0[j.qi] + 0.05 * (w * t).sin();
                    tgt.velocity = 0.05 * w * (w * t).cos();
                }
            }
        }
        RobotCase::Rover => {
            for (s, tgt) in r.servos.iter().zip(rd.servo.iter_mut()) {
                tgt.velocity = if r.joints[s.joint].name.starts_with("left") {
                    4.0
                } else {
                    5.0
                };
            }
        }
        RobotCase::Humanoid => {}
    }
}

/// On-CPU µs of `f` per call, median of 5 windows of `n` calls.
fn time_per_call(n: u64, mut f: impl FnMut()) -> f64 {
    let mut v = Vec::new();
    for _ in 0..5 {
        let c0 = thread_cpu_s();
        for _ in 0..n {
            f();
        }
        v.push((thread_cpu_s() - c0) * 1e6 / n as f64);
    }
    median(&v)
}

/// One robot case: settle under its controller, calibrate, then `reps` timed
/// windows of (command, step) ticks — what a controller's tick costs the physics
/// thread. Also the cost of the robot's dynamics alone (forward kinematics with
/// link twists, and ABA with the servo armature) at the end state, to apportion
/// the `integrate` stage.
fn bench_robot_case(
    case: RobotCase,
    a: &BenchArgs,
    reps: usize,
    rep_s: f64,
) -> anyhow::Result<Value> {
    use crate::dynamics::{aba, energy, ArticulatedData, ExtInputs};
    let path = scene_path(case.scene())?;
    let model = load_scene_file(&path)?;
    let model = crate::run::apply_overrides(&model, a.method, None, a.integrator.as_deref())?;
    let model = lcp_overrides(model, a)?;
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let mut tick = |model: &Model, data: &mut Data, n: u64| {
        for _ in 0..n {
            robot_command(case, model, data);
            pipeline.step(model, data);
        }
    };
    let settle_s = if a.quick {
        0.25 * case.settle_s()
    } else {
        case.settle_s()
    };
    let settle = (settle_s / model.opt.dt).round() as u64;
    eprint!("bench {:9} settle {settle} steps", case.name());
    tick(&model, &mut data, settle);
    // Calibrate the window on the commanded loop (the probes count as settling).
    let mut n = 10u64;
    loop {
        let t0 = Instant::now();
        tick(&model, &mut data, n);
        let dt = t0.elapsed().as_secs_f64();
        if dt > 0.05 || n >= 2_000_000 {
            n = ((n as f64 * rep_s / dt.max(1e-9)).round() as u64).clamp(10, 2_000_000);
            break;
        }
        n *= 4;
    }
    eprint!(", {reps} × {n} timed steps");
    let stage0 = data.stats.stage_ns_total;
    let (mut cpu_us, mut wall_us) = (Vec::new(), Vec::new());
    let (mut pairs_sum, mut points_sum) = (0usize, 0usize);
    // LCP: solver iterations (primal: Newton steps) per timed step, and the
    // counters' deltas over the timed steps (as `physics` reports them).
    let (mut lcp_n, mut lcp_it) = (0usize, 0usize);
    let (f0, u0) = (data.stats.solver_failures, data.stats.solver_unconverged);
    let (nf0, pp0) = (data.stats.newton_factorizations, data.stats.primal_passes);
    let pf0 = data.stats.primal_fallback_islands;
    for _ in 0..reps {
        let (c0, t0) = (thread_cpu_s(), Instant::now());
        for _ in 0..n {
            robot_command(case, &model, &mut data);
            pipeline.step(&model, &mut data);
            pairs_sum += data.stats.contact_pairs;
            points_sum += data.stats.contact_points;
            lcp_n += data.stats.lcp_size;
            lcp_it += data.stats.solver_iterations;
        }
        let wall = t0.elapsed().as_secs_f64();
        cpu_us.push((thread_cpu_s() - c0) * 1e6 / n as f64);
        wall_us.push(wall * 1e6 / n as f64);
    }
    let timed = (reps as u64 * n) as f64;
    let mut stages = serde_json::Map::new();
    let mut stage_sum = 0.0;
    for s in Stage::ALL {
        let d = data.stats.stage_ns_total[s as usize].saturating_sub(stage0[s as usize]);
        let us = d as f64 * 1e-3 / timed;
        stage_sum += us;
        stages.insert(s.name().into(), json!(us));
    }
    stages.insert("sum".into(), json!(stage_sum));
    let med = median(&cpu_us);
    eprintln!(": {med:.2} µs/step (CPU), {:.2} wall", median(&wall_us));

    // The robot's dynamics alone, at the end state: the force evaluation of every
    // integrator stage runs one FK with twists (link proxies) and one ABA.
    let r = model
        .robots
        .first()
        .context("robot case scene has no robot")?;
    let q = data.qpos[r.q_offset..r.q_offset + r.nq()].to_vec();
    let v = data.qvel[r.v_offset..r.v_offset + r.nv()].to_vec();
    let tau = data.qfrc_actuator[r.v_offset..r.v_offset + r.nv()].to_vec();
    let armature = vec![1e-3; r.nv()];
    let mut ad = ArticulatedData::new(&r.tree);
    let calls = if a.quick { 2_000 } else { 20_000 };
    let fk_us = time_per_call(calls, || {
        let _ = std::hint::black_box(energy(&r.tree, &mut ad, &q, &v));
    });
    let ext = ExtInputs {
        f_ext: None,
        damping: None,
        armature: Some(&armature),
    };
    let aba_us = time_per_call(calls, || {
        let _ = std::hint::black_box(aba(&r.tree, &mut ad, &q, &v, &tau, &ext));
    });
    let evals = match model.opt.integrator {
        crate::model::Integrator::Rk4 => 4,
        crate::model::Integrator::SemiImplicitEuler | crate::model::Integrator::Implicit => 1,
    };
    Ok(json!({
        "name": case.name(),
        "source": case.scene(),
        "robot": r.name,
        "dof": r.nv(),
        "links": r.tree.num_links(),
        "floating": r.floating,
        "method": model.opt.method.name(),
        "integrator": format!("{:?}", model.opt.integrator),
        "dt": model.opt.dt,
        "settle_s": settle_s,
        "steps_per_rep": n,
        "reps": reps,
        "us_per_step": stats(&cpu_us),
        "wall_us_per_step": stats(&wall_us),
        "steps_per_s": 1e6 / med,
        "stage_us_per_step": Value::Object(stages),
        "dynamics_us": {
            "fk_with_twists": fk_us,
            "aba": aba_us,
            "force_evaluations_per_step": evals,
        },
        "contacts_mean": {
            "contact_pairs": pairs_sum as f64 / timed,
            "contact_points": points_sum as f64 / timed,
        },
        "lcp": match model.opt.method {
            crate::model::Method::Lcp(p) => json!({
                "solver": format!("{:?}", p.solver),
                "tolerance": p.tolerance,
                "max_iterations": p.max_iterations,
                "lcp_size_last": data.stats.lcp_size,
                "solver_failures": data.stats.solver_failures,
                "solver_fallbacks": data.stats.solver_fallbacks,
                "solver_unconverged": data.stats.solver_unconverged,
                "steps": data.tick,
                "size_mean": lcp_n as f64 / timed,
                "iterations_mean": lcp_it as f64 / timed,
                "failures": data.stats.solver_failures - f0,
                "unconverged": data.stats.solver_unconverged - u0,
                "newton_factorizations": data.stats.newton_factorizations - nf0,
                "primal_passes": data.stats.primal_passes - pp0,
                "primal_fallback_islands": data.stats.primal_fallback_islands - pf0,
            }),
            _ => Value::Null,
        },
        "end": {
            "time_s": data.time,
            "base_height_m": if r.floating { json!(data.qpos[r.q_offset + 2]) } else { Value::Null },
            "quarantined": data.stats.quarantined,
            "finite": data.qpos.iter().chain(&data.qvel).all(|x| x.is_finite()),
        },
    }))
}

/// `rtphys bench robots`: the robot cases ([`RobotCase`]; `--scenes` picks by name:
/// arm_free, arm_table, diffdrive, humanoid), same timing as `physics`.
fn robots(a: &BenchArgs) -> anyhow::Result<Value> {
    anyhow::ensure!(a.reps >= 5, "--reps must be at least 5, got {}", a.reps);
    anyhow::ensure!(
        a.rep_secs.is_finite() && a.rep_secs > 0.0 && a.rep_secs <= 60.0,
        "--rep-secs must be in (0, 60], got {}",
        a.rep_secs
    );
    let chosen: Vec<RobotCase> = match &a.scenes {
        None => RobotCase::ALL.to_vec(),
        Some(list) => {
            let mut v = Vec::new();
            for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let case = RobotCase::ALL
                    .into_iter()
                    .find(|c| c.name() == name)
                    .with_context(|| {
                        let known: Vec<&str> = RobotCase::ALL.iter().map(|c| c.name()).collect();
                        format!(
                            "--scenes: unknown robot case '{name}' (known: {})",
                            known.join(", ")
                        )
                    })?;
                v.push(case);
            }
            anyhow::ensure!(!v.is_empty(), "--scenes: no robot case given");
            v
        }
    };
    let rep_s = if a.quick { 0.05 } else { a.rep_secs };
    let load_start = loadavg();
    let mut cases = Vec::new();
    for case in chosen {
        cases.push(bench_robot_case(case, a, a.reps, rep_s)?);
    }
    Ok(json!({
        "benchmark": "robots",
        "provenance": provenance(),
        "loadavg_start": load_start,
        "loadavg_end": loadavg(),
        "options": {
            "method": a.method.map(|m| format!("{m:?}")),
            "integrator": a.integrator,
            "quick": a.quick,
            "reps": a.reps,
            "rep_target_s": rep_s,
        },
        "timing": "us_per_step: median/min/max over reps of thread on-CPU time per tick \
                   (controller set-points written into data.robots[0].servo, then one step), \
                   after settling under the same controller; stage_us_per_step: delta of \
                   data.stats.stage_ns_total per timed step (the robot's forward kinematics, \
                   contact forces and ABA are inside 'integrate', the end-of-step forward \
                   kinematics too); dynamics_us: on-CPU µs of one forward kinematics with \
                   link twists and one ABA of the robot at the end state. Under --method lcp the \
                   robot's CRBA, factorization, M⁻¹, contact-free ABA, rows and solve are in \
                   'contact'; the recording ABA, q ⊕ h ν⁺ and the end-of-step kinematics in \
                   'integrate'",
        "cases": cases,
    }))
}
