//! `rtphys run`: step a scene offline and write one CSV row per step.
//!
//! Columns: `step, time, kinetic, potential, max_penetration, mean_penetration,
//! contact_pairs, contact_points, impulses, quarantined`, then for every free body
//! `<name>.x, .y, .z, .qw, .qx, .qy, .qz`. Floats are written in Rust's shortest
//! round-trip form, so the same inputs give a byte-identical file.

use crate::data::Data;
use crate::model::scene::{load_scene_file, MethodName};
use crate::model::{BodyKind, Integrator, Method, Model, PenaltyPoints};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `rtphys run` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Scene file (TOML), e.g. config/scenes/box_on_plane.toml.
    pub scene: PathBuf,
    /// Override the scene's method: penalty | penalty_deepest | hunt_crossley (a
    /// switched method takes its defaults, keeping the scene's friction parameters).
    #[arg(long)]
    pub method: Option<MethodName>,
    /// Override the step size, s.
    #[arg(long)]
    pub dt: Option<f64>,
    /// Override the integrator: rk4 | semi_implicit_euler.
    #[arg(long)]
    pub integrator: Option<String>,
    /// Number of steps.
    #[arg(long, default_value_t = 1000)]
    pub steps: u64,
    /// Output CSV (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
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
            other => anyhow::bail!("--integrator: unknown '{other}' (rk4, semi_implicit_euler)"),
        };
    }
    if let Some(m) = method {
        opt.method = match (m, opt.method) {
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
            (MethodName::Lcp, Method::Lcp(l)) => Method::Lcp(l),
            (MethodName::Lcp, _) => Method::Lcp(crate::model::LcpParams::default()),
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
    }
    Ok(model.with_options(opt))
}

/// Write the CSV header for `model`.
pub fn write_header(model: &Model, w: &mut impl Write) -> std::io::Result<()> {
    write!(
        w,
        "step,time,kinetic,potential,max_penetration,mean_penetration,contact_pairs,contact_points,impulses,quarantined"
    )?;
    for b in model.bodies.iter().filter(|b| b.kind == BodyKind::Free) {
        for c in ["x", "y", "z", "qw", "qx", "qy", "qz"] {
            write!(w, ",{}.{c}", b.name)?;
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
    writeln!(w)
}

/// Entry point of `rtphys run`.
pub fn run_main(a: RunArgs) -> anyhow::Result<()> {
    let model = load_scene_file(&a.scene)?;
    let model = apply_overrides(&model, a.method, a.dt, a.integrator.as_deref())?;
    let mut data = Data::new(&model);
    let mut pipeline = crate::Pipeline::new(&model);
    match &a.out {
        Some(path) => {
            // Write to a sibling temporary file and rename: never a partial CSV.
            let tmp = tmp_sibling(path);
            let file = std::fs::File::create(&tmp)
                .with_context(|| format!("cannot create {}", tmp.display()))?;
            let mut w = std::io::BufWriter::new(file);
            let res = simulate(&mut pipeline, &model, &mut data, a.steps, &mut w)
                .and_then(|_| Ok(w.flush()?));
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
            simulate(&mut pipeline, &model, &mut data, a.steps, &mut w)?;
            Ok(w.flush()?)
        }
    }
}

fn simulate(
    pipeline: &mut crate::Pipeline,
    model: &Model,
    data: &mut Data,
    steps: u64,
    w: &mut impl Write,
) -> anyhow::Result<()> {
    write_header(model, w)?;
    for _ in 0..steps {
        pipeline.step(model, data);
        write_row(model, data, w)?;
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
