//! `rtphys run`: step a scene offline and write one CSV row per step.
//!
//! Columns, in this order (SI units, world frame):
//!
//! | columns | what |
//! |---|---|
//! | `step, time, kinetic, potential, max_penetration, mean_penetration, contact_pairs, contact_points, impulses, quarantined` | the step and its stats |
//! | `<body>.x, .y, .z, .qw, .qx, .qy, .qz` for every free body | pose: the centre of mass and the orientation (unit quaternion, body → world) |
//! | `<body>.vx, .vy, .vz, .wx, .wy, .wz` for every free body | linear velocity of the centre of mass, angular velocity (world frame), m/s and rad/s |
//! | `<body>.fx, .fy, .fz` for every body (static, free, robot link proxies) | total contact force on the body at the start of the step (`Data::contact_wrench`), N |
//! | `<robot>/<joint>.q, .qd, .tau` for every robot joint | joint position (rad or m), velocity, actuator torque/force (command + servo, clamped; `Data::qfrc_actuator`) |
//! | `overlap` (with `--overlap`) | the exact overlap volume summed over every pair of polytope geoms (boxes, hulls) at the end of the step, m³ (003's accuracy metric, `collision::overlap`; any method) |
//!
//! Floats are written in Rust's shortest round-trip form, so the same inputs give a
//! byte-identical file.
//!
//! `--method` switches the contact method; the switched method takes its own
//! defaults (keeping the scene's friction parameters between penalty and
//! Hunt–Crossley), and a warning on standard error names the scene's tables of
//! contact parameters that were tuned for another method. `--lcp-solver` chooses
//! Lemke or PGS for an LCP run.

use crate::data::Data;
use crate::model::scene::{load_scene_file, MethodName};
use crate::model::{
    BodyKind, ContactModel, Integrator, LcpSolverKind, Method, Model, PenaltyPoints,
};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `rtphys run` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Scene file (TOML), e.g. config/scenes/box_on_plane.toml.
    pub scene: PathBuf,
    /// Override the scene's method: penalty | penalty_deepest | hunt_crossley | lcp | peg | ipc
    /// (a switched method takes its defaults, keeping the scene's friction
    /// parameters between penalty and hunt_crossley; a warning names the scene's
    /// parameter tables tuned for another method).
    #[arg(long)]
    pub method: Option<MethodName>,
    /// LCP solver: lemke | pgs | newton | primal (for an LCP scene or --method lcp). PEG (--method peg)
    /// takes lemke only: its LCP is not symmetric and PGS is only its counted fallback.
    #[arg(long)]
    pub lcp_solver: Option<String>,
    /// `[lcp] friction`: point | patch (for an LCP scene or --method lcp; lcp33).
    #[arg(long)]
    pub lcp_friction: Option<String>,
    /// PEG (--method peg or a peg scene): `[lcp] peg_retry_depth` — a step whose
    /// PEG solve failed is taken again as two of h/2, down to h/2^N (0..=8; 0: no
    /// retry).
    #[arg(long)]
    pub peg_retry_depth: Option<usize>,
    /// Override the step size, s.
    #[arg(long)]
    pub dt: Option<f64>,
    /// Override the integrator: rk4 | semi_implicit_euler | implicit.
    #[arg(long)]
    pub integrator: Option<String>,
    /// Number of steps.
    #[arg(long, default_value_t = 1000)]
    pub steps: u64,
    /// Output CSV (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Append the `overlap` column: the exact overlap volume (m³) summed over
    /// every pair of polytope geoms (boxes, hulls) at the end of each step, for any
    /// method (003's accuracy metric; `collision::overlap`).
    #[arg(long)]
    pub overlap: bool,
    /// Also write a visual recording (body poses per frame + the world to draw it,
    /// docs/RECORDING.md) that the web viewer opens and scrubs.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Frames per simulated second of `--record` (every round(1/(dt·rate))-th step,
    /// plus the initial state).
    #[arg(long, default_value_t = 60.0)]
    pub record_rate: f64,
}

/// Apply command-line overrides to a loaded model.
pub fn apply_overrides(
    model: &Model,
    method: Option<MethodName>,
    dt: Option<f64>,
    integrator: Option<&str>,
) -> anyhow::Result<Model> {
    let mut opt = model.opt;
    if let Some(h) = dt {
        anyhow::ensure!(
            h.is_finite() && h > 0.0 && h <= 0.1,
            "--dt must be in (0, 0.1] s, got {h}"
        );
        opt.dt = h;
    }
    if let Some(i) = integrator {
        opt.integrator = match i {
            "rk4" => Integrator::Rk4,
            "semi_implicit_euler" => Integrator::SemiImplicitEuler,
            "implicit" => Integrator::Implicit,
            other => {
                anyhow::bail!(
                    "--integrator: unknown '{other}' (rk4, semi_implicit_euler, implicit)"
                )
            }
        };
    }
    if let Some(m) = method {
        opt.method = match (m, opt.method) {
            (MethodName::Ipc, Method::Ipc(p)) => Method::Ipc(p),
            (MethodName::Ipc, _) => Method::Ipc(Default::default()),
            (MethodName::Penalty, Method::Ipc(_)) => Method::Penalty(Default::default()),
            (MethodName::PenaltyDeepest, Method::Ipc(_)) => {
                Method::Penalty(crate::model::PenaltyParams {
                    points: PenaltyPoints::Deepest,
                    ..Default::default()
                })
            }
            (MethodName::Lcp, Method::Ipc(_)) => Method::Lcp(Default::default()),
            (MethodName::Peg, Method::Ipc(_)) => Method::Lcp(crate::model::LcpParams {
                contact_model: ContactModel::Peg,
                ..Default::default()
            }),
            (MethodName::HuntCrossley, Method::Ipc(_)) => {
                Method::HuntCrossley(crate::model::HuntCrossleyParams {
                    min_substep: crate::model::HuntCrossleyParams::default()
                        .min_substep
                        .min(opt.dt),
                    ..Default::default()
                })
            }
            (MethodName::Penalty, Method::Penalty(p)) => {
                Method::Penalty(crate::model::PenaltyParams {
                    points: PenaltyPoints::Multi,
                    ..p
                })
            }
            (MethodName::PenaltyDeepest, Method::Penalty(p)) => {
                Method::Penalty(crate::model::PenaltyParams {
                    points: PenaltyPoints::Deepest,
                    ..p
                })
            }
            (MethodName::HuntCrossley, Method::HuntCrossley(h)) => Method::HuntCrossley(h),
            (MethodName::Lcp, Method::Lcp(l)) => Method::Lcp(crate::model::LcpParams {
                contact_model: ContactModel::Standard,
                ..l
            }),
            (MethodName::Lcp, _) => Method::Lcp(crate::model::LcpParams::default()),
            (MethodName::Peg, Method::Lcp(l)) => Method::Lcp(crate::model::LcpParams {
                contact_model: ContactModel::Peg,
                solver: LcpSolverKind::Lemke,
                ..l
            }),
            (MethodName::Peg, _) => Method::Lcp(crate::model::LcpParams {
                contact_model: ContactModel::Peg,
                ..Default::default()
            }),
            (MethodName::Penalty, Method::Lcp(_)) => Method::Penalty(Default::default()),
            (MethodName::PenaltyDeepest, Method::Lcp(_)) => {
                Method::Penalty(crate::model::PenaltyParams {
                    points: PenaltyPoints::Deepest,
                    ..Default::default()
                })
            }
            (MethodName::HuntCrossley, Method::Lcp(_)) => {
                Method::HuntCrossley(crate::model::HuntCrossleyParams {
                    min_substep: crate::model::HuntCrossleyParams::default()
                        .min_substep
                        .min(opt.dt),
                    ..Default::default()
                })
            }
            (MethodName::HuntCrossley, Method::Penalty(p)) => {
                Method::HuntCrossley(crate::model::HuntCrossleyParams {
                    friction: p.friction,
                    min_substep: crate::model::HuntCrossleyParams::default()
                        .min_substep
                        .min(opt.dt),
                    ..Default::default()
                })
            }
            (MethodName::Penalty, Method::HuntCrossley(h)) => {
                Method::Penalty(crate::model::PenaltyParams {
                    points: PenaltyPoints::Multi,
                    friction: h.friction,
                    ..Default::default()
                })
            }
            (MethodName::PenaltyDeepest, Method::HuntCrossley(h)) => {
                Method::Penalty(crate::model::PenaltyParams {
                    points: PenaltyPoints::Deepest,
                    friction: h.friction,
                    ..Default::default()
                })
            }
        };
        if let Method::HuntCrossley(h) = &mut opt.method {
            // A smaller --dt bounds the sub-step floor too.
            h.min_substep = h.min_substep.min(opt.dt);
        }
        // The builder's rule, for the overridden method too (a method that does not
        // step robots would leave them standing still).
        crate::model::check_method_steps_robots(&opt.method, !model.robots.is_empty()).map_err(
            |e| anyhow::anyhow!("--method {}: the scene has robots: {e}", opt.method.name()),
        )?;
    }
    crate::model::validate_options(&opt).map_err(|e| anyhow::anyhow!("with the overrides: {e}"))?;
    Ok(model.with_options(opt))
}

/// Apply `--lcp-solver` to a model whose method is LCP.
pub fn apply_lcp_solver(model: &Model, solver: &str) -> anyhow::Result<Model> {
    let kind = match solver {
        "lemke" => LcpSolverKind::Lemke,
        "pgs" => LcpSolverKind::Pgs,
        "newton" => LcpSolverKind::Newton,
        "primal" => LcpSolverKind::Primal,
        other => anyhow::bail!("--lcp-solver: unknown '{other}' (lemke, pgs, newton, primal)"),
    };
    let mut opt = model.opt;
    match &mut opt.method {
        Method::Lcp(p) => {
            p.solver = kind;
            p.validate()
                .map_err(|(k, m)| anyhow::anyhow!("--lcp-solver ({k}): {m}"))?;
        }
        _ => anyhow::bail!("--lcp-solver applies to the lcp and peg methods (give --method lcp)"),
    }
    Ok(model.with_options(opt))
}

/// Apply `--lcp-friction` (`[lcp] friction`, lcp33) to a model whose method is LCP.
pub fn apply_lcp_friction(model: &Model, friction: &str) -> anyhow::Result<Model> {
    let f = match friction {
        "point" => crate::model::FrictionModel::Point,
        "patch" => crate::model::FrictionModel::Patch,
        other => anyhow::bail!("--lcp-friction: unknown '{other}' (point, patch)"),
    };
    let mut opt = model.opt;
    match &mut opt.method {
        Method::Lcp(p) => {
            p.friction = f;
            p.validate()
                .map_err(|(k, m)| anyhow::anyhow!("--lcp-friction ({k}): {m}"))?;
        }
        _ => anyhow::bail!("--lcp-friction applies to the lcp method (give --method lcp)"),
    }
    Ok(model.with_options(opt))
}

/// Apply `--peg-retry-depth` to a model whose method is PEG.
pub fn apply_peg_retry_depth(model: &Model, depth: usize) -> anyhow::Result<Model> {
    let mut opt = model.opt;
    match &mut opt.method {
        Method::Lcp(p) if p.contact_model == ContactModel::Peg => {
            p.peg_retry_depth = depth;
            p.validate()
                .map_err(|(k, m)| anyhow::anyhow!("--peg-retry-depth ({k}): {m}"))?;
        }
        _ => anyhow::bail!("--peg-retry-depth applies to the peg method (give --method peg)"),
    }
    Ok(model.with_options(opt))
}

/// The scene-file spelling of a method.
fn method_name(m: MethodName) -> &'static str {
    match m {
        MethodName::Penalty => "penalty",
        MethodName::PenaltyDeepest => "penalty_deepest",
        MethodName::HuntCrossley => "hunt_crossley",
        MethodName::Lcp => "lcp",
        MethodName::Peg => "peg",
        MethodName::Ipc => "ipc",
    }
}

/// The family of parameter tables a method reads: `penalty`, `hunt_crossley` or
/// `lcp`.
fn table_of(m: MethodName) -> &'static str {
    match m {
        MethodName::Penalty | MethodName::PenaltyDeepest => "penalty",
        MethodName::HuntCrossley => "hunt_crossley",
        MethodName::Lcp | MethodName::Peg => "lcp",
        MethodName::Ipc => "ipc",
    }
}

/// The warning for `--method` over a scene (its TOML text): `None` if the override
/// keeps the scene's method family or the scene has no parameter table tuned for
/// another method than the one run.
pub fn method_override_warning(scene_text: &str, method: MethodName) -> Option<String> {
    let doc: toml::Table = scene_text.parse().ok()?;
    let scene_method = doc
        .get("world")
        .and_then(|w| w.get("method"))
        .and_then(|m| m.as_str())
        .and_then(|m| m.parse::<MethodName>().ok())
        .unwrap_or(MethodName::Penalty);
    let run = table_of(method);
    if table_of(scene_method) == run {
        return None;
    }
    let tuned: Vec<String> = ["penalty", "hunt_crossley", "lcp", "ipc"]
        .into_iter()
        .filter(|t| *t != run && doc.contains_key(*t))
        .map(|t| format!("[{t}]"))
        .collect();
    (!tuned.is_empty()).then(|| {
        format!(
            "warning: --method {} overrides the scene's method; its contact parameters {} \
             were tuned for another method and are not used ({run} runs with its defaults)",
            method_name(method),
            tuned.join(", ")
        )
    })
}

/// Write the CSV header for `model` (module doc).
pub fn write_header(model: &Model, w: &mut impl Write) -> std::io::Result<()> {
    write!(
        w,
        "step,time,kinetic,potential,max_penetration,mean_penetration,contact_pairs,contact_points,impulses,quarantined"
    )?;
    let free = || model.bodies.iter().filter(|b| b.kind == BodyKind::Free);
    for b in free() {
        for c in ["x", "y", "z", "qw", "qx", "qy", "qz"] {
            write!(w, ",{}.{c}", b.name)?;
        }
    }
    for b in free() {
        for c in ["vx", "vy", "vz", "wx", "wy", "wz"] {
            write!(w, ",{}.{c}", b.name)?;
        }
    }
    for b in &model.bodies {
        for c in ["fx", "fy", "fz"] {
            write!(w, ",{}.{c}", b.name)?;
        }
    }
    for r in &model.robots {
        for j in &r.joints {
            for c in ["q", "qd", "tau"] {
                write!(w, ",{}/{}.{c}", r.name, j.name)?;
            }
        }
    }
    writeln!(w)
}

/// Write one CSV row for the current state of `data`.
pub fn write_row(model: &Model, data: &Data, w: &mut impl Write) -> std::io::Result<()> {
    let s = &data.stats;
    write!(
        w,
        "{},{},{},{},{},{},{},{},{},{}",
        data.tick,
        data.time,
        data.kinetic_energy(model),
        data.potential_energy(model),
        s.max_penetration,
        s.mean_penetration,
        s.contact_pairs,
        s.contact_points,
        s.impulses,
        s.quarantined
    )?;
    for (b, st) in model.bodies.iter().zip(&data.state) {
        if b.kind == BodyKind::Free {
            let q = st.q.quaternion();
            write!(
                w,
                ",{},{},{},{},{},{},{}",
                st.x.x, st.x.y, st.x.z, q.w, q.i, q.j, q.k
            )?;
        }
    }
    for (b, st) in model.bodies.iter().zip(&data.state) {
        if b.kind == BodyKind::Free {
            let (v, o) = (st.v, st.w);
            write!(w, ",{},{},{},{},{},{}", v.x, v.y, v.z, o.x, o.y, o.z)?;
        }
    }
    for f in data.contact_wrench.iter().map(|c| c.force) {
        write!(w, ",{},{},{}", f.x, f.y, f.z)?;
    }
    for r in &model.robots {
        for j in &r.joints {
            let (qi, vi) = (r.q_offset + j.qi, r.v_offset + j.vi);
            write!(
                w,
                ",{},{},{}",
                data.qpos[qi], data.qvel[vi], data.qfrc_actuator[vi]
            )?;
        }
    }
    writeln!(w)
}

/// Entry point of `rtphys run`.
pub fn run_main(a: RunArgs) -> anyhow::Result<()> {
    let model = load_scene_file(&a.scene)?;
    let mut model = apply_overrides(&model, a.method, a.dt, a.integrator.as_deref())?;
    if let Some(s) = &a.lcp_solver {
        model = apply_lcp_solver(&model, s)?;
    }
    if let Some(f) = &a.lcp_friction {
        model = apply_lcp_friction(&model, f)?;
    }
    if let Some(n) = a.peg_retry_depth {
        model = apply_peg_retry_depth(&model, n)?;
    }
    if let Some(m) = a.method {
        let text = std::fs::read_to_string(&a.scene).unwrap_or_default();
        if let Some(msg) = method_override_warning(&text, m) {
            eprintln!("{msg}");
        }
    }
    if !(a.record_rate > 0.0 && a.record_rate.is_finite()) {
        anyhow::bail!(
            "--record-rate: {} is not a positive rate (frames per simulated second)",
            a.record_rate
        );
    }
    let mut data = Data::new(&model);
    let mut pipeline = crate::Pipeline::new(&model);
    let mut rec = match &a.record {
        Some(path) => {
            let tmp = tmp_sibling(path);
            let file = std::fs::File::create(&tmp)
                .with_context(|| format!("--record: cannot create {}", tmp.display()))?;
            let scene = a.scene.display().to_string();
            let w = crate::viewer::recording::RecordingWriter::new(
                std::io::BufWriter::new(file),
                &model,
                &scene,
                a.record_rate,
            )?;
            Some((w, tmp, path.clone()))
        }
        None => None,
    };
    let res = write_out(
        &mut pipeline,
        &model,
        &mut data,
        &a,
        rec.as_mut().map(|r| &mut r.0),
    );
    if let Some((w, tmp, path)) = rec {
        let done = res
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e:#}"))
            .and_then(|_| Ok(w.finish()?))
            .and_then(|_| {
                std::fs::rename(&tmp, &path)
                    .with_context(|| format!("--record: cannot write {}", path.display()))
            });
        if done.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        res?;
        return done;
    }
    res
}

type RecWriter = crate::viewer::recording::RecordingWriter<std::io::BufWriter<std::fs::File>>;

fn write_out(
    pipeline: &mut crate::Pipeline,
    model: &Model,
    data: &mut Data,
    a: &RunArgs,
    mut rec: Option<&mut RecWriter>,
) -> anyhow::Result<()> {
    let (pipeline, model) = (pipeline, model);
    let rec = &mut rec;
    match &a.out {
        // A device or a pipe (`--out /dev/null`, a FIFO) is written in place: renaming a
        // file over it would replace the device with a regular file.
        Some(path) if path.metadata().is_ok_and(|m| !m.file_type().is_file()) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            let mut w = std::io::BufWriter::new(file);
            simulate(pipeline, model, data, a, rec, &mut w)?;
            Ok(w.flush()?)
        }
        Some(path) => {
            // Write to a sibling temporary file and rename: never a partial CSV.
            let tmp = tmp_sibling(path);
            let file = std::fs::File::create(&tmp)
                .with_context(|| format!("cannot create {}", tmp.display()))?;
            let mut w = std::io::BufWriter::new(file);
            let res = simulate(pipeline, model, data, a, rec, &mut w).and_then(|_| Ok(w.flush()?));
            match res {
                Ok(()) => std::fs::rename(&tmp, path)
                    .with_context(|| format!("cannot write {}", path.display())),
                Err(e) => {
                    let _ = std::fs::remove_file(&tmp);
                    Err(e)
                }
            }
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            simulate(pipeline, model, data, a, rec, &mut w)?;
            Ok(w.flush()?)
        }
    }
}

fn simulate(
    pipeline: &mut crate::Pipeline,
    model: &Model,
    data: &mut Data,
    a: &RunArgs,
    rec: &mut Option<&mut RecWriter>,
    w: &mut impl Write,
) -> anyhow::Result<()> {
    let dec = crate::viewer::recording::decimation(model.opt.dt, a.record_rate);
    if let Some(r) = rec.as_mut() {
        r.frame(data)?;
    }
    if a.overlap {
        let mut header = Vec::new();
        write_header(model, &mut header)?;
        w.write_all(header.strip_suffix(b"\n").unwrap_or(&header))?;
        writeln!(w, ",overlap")?;
    } else {
        write_header(model, w)?;
    }
    // The `overlap` column: every pair of polytope geoms of different bodies.
    let mut ov = crate::pipeline::lcp::peg::OverlapMetric::new(model, true);
    let mut row = Vec::new();
    for _ in 0..a.steps {
        pipeline.step(model, data);
        if let Some(r) = rec.as_mut() {
            if data.tick.is_multiple_of(dec) {
                r.frame(data)?;
            }
        }
        if a.overlap {
            row.clear();
            write_row(model, data, &mut row)?;
            w.write_all(row.strip_suffix(b"\n").unwrap_or(&row))?;
            writeln!(w, ",{}", ov.volume(model, &data.state))?;
        } else {
            write_row(model, data, w)?;
        }
    }
    Ok(())
}

fn tmp_sibling(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".partial");
    path.with_file_name(name)
}
