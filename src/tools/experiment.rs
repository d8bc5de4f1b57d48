//! `rtphys experiment`: the papers' experiments that take minutes, as sweeps writing
//! CSV and PNG.
//!
//! `peg-pour` — 003 Sec. 6, Figs. 23–24 (the 3D pour, `experiments::peg_pour`):
//! seeds × step sizes × {standard model, PEG}. Writes
//! - `<out>/peg_pour_runs.csv`: one line per run (method, seed, h, steps, overlap
//!   quartiles and maximum over the run's steps / L³, mean and maximum contact
//!   points, Lemke failures, PGS fallbacks, quarantine events, crash time, µs per
//!   step);
//! - `<out>/peg_pour_fig24.csv`: per method and h, the per-step overlap / L³ pooled
//!   over the seeds: q1, median, q3, max; runs with a failed solve; crashed runs;
//! - `<img>/peg_pour_fig24.png`: Fig. 24 — median overlap with the quartile band
//!   against h, both log axes.
//!
//! `peg-pour-2d` — 003 Sec. 6, Figs. 20–22 (the 2D pour in the planar world,
//! `experiments::peg_pour_2d`), the same sweep. Writes
//! - `<out>/peg_pour_2d_runs.csv`: one line per run (as above, overlap area / L²,
//!   plus the mean 2D potential contacts and SM traps per step and the fraction of
//!   steps with a trap);
//! - `<out>/peg_pour_2d_fig21.csv`: per method and h, the pooled per-step overlap
//!   area / L² (q1, median, q3, max), mean contacts and traps per step, runs with a
//!   failed solve, crashed runs;
//! - `<img>/peg_pour_2d_fig21.png`: Fig. 21 — median overlap area with the quartile
//!   band against h;
//! - `<img>/peg_pour_2d_fig22.png`: Fig. 22 — potential contacts and SM traps per
//!   step against time, PEG, seed 1, the smallest h.

use crate::experiments::peg_pour::{
    overlap_quartiles, quantile, run_pour, step_sizes, PourMethod, PourRun, DURATION,
};
use crate::experiments::peg_pour_2d::{overlap_quartiles_2d, run_pour_2d, PourRun2d};
use crate::tools::plot::{self, FLOOR};
use anyhow::Context;
use plotters::prelude::{RGBColor, SeriesLabelPosition};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `rtphys experiment` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct ExperimentArgs {
    #[command(subcommand)]
    pub what: ExperimentKind,
}

#[derive(clap::Subcommand, Debug, Clone)]
pub enum ExperimentKind {
    /// 003 Figs. 23–24: random convex polyhedra poured into a box of five right
    /// hexahedra, standard model vs PEG, overlap volume against step size.
    PegPour(PegPourArgs),
    /// 003 Figs. 20–22: random convex polygons poured into an open box in the
    /// planar world, standard model vs PEG, overlap area against step size,
    /// contacts and SM traps per step.
    #[command(name = "peg-pour-2d")]
    PegPour2d(PegPourArgs),
}

#[derive(clap::Args, Debug, Clone)]
pub struct PegPourArgs {
    /// Initial configurations: seeds 1..=N.
    #[arg(long, default_value_t = 10)]
    pub seeds: u64,
    /// Step sizes, s (default: the 16 log-spaced sizes from 1e-3 to 5e-2).
    #[arg(long, value_delimiter = ',')]
    pub steps: Vec<f64>,
    /// Simulated time per run, s (the paper's 5 s).
    #[arg(long, default_value_t = DURATION)]
    pub duration: f64,
    /// Directory for the CSVs.
    #[arg(long, default_value = "target/peg_pour")]
    pub out: PathBuf,
    /// Directory for the PNG.
    #[arg(long, default_value = "docs/img")]
    pub img: PathBuf,
    /// TrueType font for the plot's text (drawn without text if unusable).
    #[arg(
        long,
        default_value = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    )]
    pub font: PathBuf,
}

pub fn experiment_main(a: ExperimentArgs) -> anyhow::Result<()> {
    match a.what {
        ExperimentKind::PegPour(p) => peg_pour_main(p),
        ExperimentKind::PegPour2d(p) => peg_pour_2d_main(p),
    }
}

fn peg_pour_main(a: PegPourArgs) -> anyhow::Result<()> {
    let steps = sweep_steps(&a)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let runs_path = a.out.join("peg_pour_runs.csv");
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(&runs_path)
            .with_context(|| format!("creating {}", runs_path.display()))?,
    );
    writeln!(
        w,
        "method,seed,h,steps,overlap_q1,overlap_median,overlap_q3,overlap_max,contacts_mean,contacts_max,solver_failures,solver_fallbacks,quarantined,crash_time,us_per_step"
    )?;
    let mut runs: Vec<PourRun> = Vec::new();
    for &h in &steps {
        for seed in 1..=a.seeds {
            for method in [PourMethod::Lcp, PourMethod::Peg] {
                let r = run_pour(seed, method, h, a.duration)?;
                let mut ov = r.overlap.clone();
                let n = r.overlap.len().max(1) as f64;
                let line = format!(
                    "{},{seed},{h:?},{},{:e},{:e},{:e},{:e},{:.2},{},{},{},{},{},{:.1}",
                    method.name(),
                    r.overlap.len(),
                    quantile(&mut ov, 0.25),
                    quantile(&mut ov, 0.5),
                    quantile(&mut ov, 0.75),
                    r.max_overlap(),
                    r.contacts.iter().map(|&c| c as f64).sum::<f64>() / n,
                    r.contacts.iter().copied().max().unwrap_or(0),
                    r.solver_failures,
                    r.solver_fallbacks,
                    r.quarantined,
                    r.crash_time.map(|t| format!("{t:.4}")).unwrap_or_default(),
                    1e6 * r.step_seconds / n
                );
                writeln!(w, "{line}")?;
                w.flush()?;
                eprintln!("{line}");
                runs.push(r);
            }
        }
    }
    drop(w);

    let fig_path = a.out.join("peg_pour_fig24.csv");
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(&fig_path)
            .with_context(|| format!("creating {}", fig_path.display()))?,
    );
    writeln!(
        w,
        "method,h,runs,overlap_q1,overlap_median,overlap_q3,overlap_max,runs_failed_solve,runs_crashed"
    )?;
    let mut series: Vec<(PourMethod, Vec<Quartiles>)> = Vec::new();
    for method in [PourMethod::Lcp, PourMethod::Peg] {
        let mut pts = Vec::new();
        for &h in &steps {
            let sel = || runs.iter().filter(|r| r.method == method && r.h == h);
            let (q1, q2, q3) = overlap_quartiles(sel());
            let max = sel().map(|r| r.max_overlap()).fold(0.0, f64::max);
            writeln!(
                w,
                "{},{h:?},{},{q1:e},{q2:e},{q3:e},{max:e},{},{}",
                method.name(),
                sel().count(),
                sel().filter(|r| r.solver_failures > 0).count(),
                sel().filter(|r| r.crashed()).count()
            )?;
            pts.push((h, q1, q2, q3));
        }
        series.push((method, pts));
    }
    drop(w);
    std::fs::create_dir_all(&a.img).with_context(|| format!("creating {}", a.img.display()))?;
    let text = crate::tools::plot::register(&a.font);
    let png = a.img.join("peg_pour_fig24.png");
    draw_fig24(&series, &png, text, a.seeds)?;
    eprintln!(
        "wrote {}, {}, {}",
        runs_path.display(),
        fig_path.display(),
        png.display()
    );
    Ok(())
}

/// The checks of both sweeps' arguments; the step sizes.
fn sweep_steps(a: &PegPourArgs) -> anyhow::Result<Vec<f64>> {
    anyhow::ensure!(
        (1..=1000).contains(&a.seeds),
        "--seeds {}: expected 1–1000",
        a.seeds
    );
    anyhow::ensure!(
        a.duration.is_finite() && a.duration > 0.0 && a.duration <= 60.0,
        "--duration {}: expected (0, 60] s",
        a.duration
    );
    let steps = if a.steps.is_empty() {
        step_sizes()
    } else {
        a.steps.clone()
    };
    for &h in &steps {
        anyhow::ensure!(
            h.is_finite() && (1e-5..=0.1).contains(&h),
            "--steps: {h} outside [1e-5, 0.1] s"
        );
    }
    Ok(steps)
}

fn peg_pour_2d_main(a: PegPourArgs) -> anyhow::Result<()> {
    let steps = sweep_steps(&a)?;
    let out = if a.out == Path::new("target/peg_pour") {
        PathBuf::from("target/peg_pour_2d")
    } else {
        a.out.clone()
    };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let runs_path = out.join("peg_pour_2d_runs.csv");
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(&runs_path)
            .with_context(|| format!("creating {}", runs_path.display()))?,
    );
    writeln!(
        w,
        "method,seed,h,steps,overlap_q1,overlap_median,overlap_q3,overlap_max,points_mean,contacts_mean,traps_mean,steps_with_trap,solver_failures,solver_fallbacks,quarantined,crash_time,us_per_step"
    )?;
    let mean = |v: &[u32]| v.iter().map(|&c| c as f64).sum::<f64>() / v.len().max(1) as f64;
    let mut runs: Vec<PourRun2d> = Vec::new();
    for &h in &steps {
        for seed in 1..=a.seeds {
            for method in [PourMethod::Lcp, PourMethod::Peg] {
                let r = run_pour_2d(seed, method, h, a.duration)?;
                let mut ov = r.overlap.clone();
                let n = r.overlap.len().max(1) as f64;
                let with_trap = r.traps.iter().filter(|&&t| t > 0).count() as f64 / n;
                let line = format!(
                    "{},{seed},{h:?},{},{:e},{:e},{:e},{:e},{:.2},{:.2},{:.3},{:.3},{},{},{},{},{:.1}",
                    method.name(),
                    r.overlap.len(),
                    quantile(&mut ov, 0.25),
                    quantile(&mut ov, 0.5),
                    quantile(&mut ov, 0.75),
                    r.max_overlap(),
                    mean(&r.points),
                    mean(&r.contacts),
                    mean(&r.traps),
                    with_trap,
                    r.solver_failures,
                    r.solver_fallbacks,
                    r.quarantined,
                    r.crash_time.map(|t| format!("{t:.4}")).unwrap_or_default(),
                    1e6 * r.step_seconds / n
                );
                writeln!(w, "{line}")?;
                w.flush()?;
                eprintln!("{line}");
                runs.push(r);
            }
        }
    }
    drop(w);

    let fig_path = out.join("peg_pour_2d_fig21.csv");
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(&fig_path)
            .with_context(|| format!("creating {}", fig_path.display()))?,
    );
    writeln!(
        w,
        "method,h,runs,overlap_q1,overlap_median,overlap_q3,overlap_max,contacts_mean,traps_mean,runs_failed_solve,runs_crashed"
    )?;
    let mut series: Vec<(PourMethod, Vec<Quartiles>)> = Vec::new();
    for method in [PourMethod::Lcp, PourMethod::Peg] {
        let mut pts = Vec::new();
        for &h in &steps {
            let sel = || runs.iter().filter(|r| r.method == method && r.h == h);
            let (q1, q2, q3) = overlap_quartiles_2d(sel());
            let max = sel().map(|r| r.max_overlap()).fold(0.0, f64::max);
            let all_c: Vec<u32> = sel().flat_map(|r| r.contacts.iter().copied()).collect();
            let all_t: Vec<u32> = sel().flat_map(|r| r.traps.iter().copied()).collect();
            writeln!(
                w,
                "{},{h:?},{},{q1:e},{q2:e},{q3:e},{max:e},{:.3},{:.3},{},{}",
                method.name(),
                sel().count(),
                mean(&all_c),
                mean(&all_t),
                sel().filter(|r| r.failed()).count(),
                sel().filter(|r| r.crashed()).count()
            )?;
            pts.push((h, q1, q2, q3));
        }
        series.push((method, pts));
    }
    drop(w);
    std::fs::create_dir_all(&a.img).with_context(|| format!("creating {}", a.img.display()))?;
    let text = crate::tools::plot::register(&a.font);
    let png21 = a.img.join("peg_pour_2d_fig21.png");
    draw_overlap(
        &series,
        &png21,
        text,
        &format!(
            "2D pour: overlap area vs step (003 Fig. 21; {} seeds, median and quartiles)",
            a.seeds
        ),
        "overlap area / L²",
    )?;
    let png22 = a.img.join("peg_pour_2d_fig22.png");
    let h0 = steps.iter().copied().fold(f64::INFINITY, f64::min);
    if let Some(r) = runs
        .iter()
        .find(|r| r.method == PourMethod::Peg && r.seed == 1 && r.h == h0)
    {
        draw_fig22(r, &png22, text)?;
    }
    eprintln!(
        "wrote {}, {}, {}, {}",
        runs_path.display(),
        fig_path.display(),
        png21.display(),
        png22.display()
    );
    Ok(())
}

fn draw_fig22(r: &PourRun2d, path: &Path, text: bool) -> anyhow::Result<()> {
    use crate::tools::plot::{line_chart, Axes, Axis, Chart, Scale};
    let t = |i: usize| (i + 1) as f64 * r.h;
    let contacts: Vec<(f64, f64)> = r
        .contacts
        .iter()
        .enumerate()
        .map(|(i, &c)| (t(i), c as f64))
        .collect();
    let traps: Vec<(f64, f64)> = r
        .traps
        .iter()
        .enumerate()
        .map(|(i, &c)| (t(i), c as f64))
        .collect();
    let ymax = contacts.iter().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let title = format!(
        "2D pour, PEG: potential contacts and SM traps per step (003 Fig. 22; seed {}, h = {:?} s)",
        r.seed, r.h
    );
    line_chart(
        path,
        &Chart {
            title: &title,
            size: (1000, 600),
            text,
            shade: &[],
            legend: SeriesLabelPosition::UpperLeft,
        },
        &Axes {
            x: Axis {
                desc: "time, s",
                range: (0.0, t(r.contacts.len().max(1))),
                scale: Scale::Linear,
            },
            y: Axis {
                desc: "count per step",
                range: (0.0, ymax),
                scale: Scale::Linear,
            },
        },
        &[
            plot::Series::line("potential contacts", RGBColor(31, 119, 180), contacts),
            plot::Series::line("SM traps (vertex–vertex)", RGBColor(214, 39, 40), traps),
        ],
    )
}

/// (h, q1, median, q3) of one step size.
type Quartiles = (f64, f64, f64, f64);
type Series = [(PourMethod, Vec<Quartiles>)];

fn draw_fig24(series: &Series, path: &Path, text: bool, seeds: u64) -> anyhow::Result<()> {
    let title = format!(
        "3D pour: overlap volume vs step (003 Fig. 24; {seeds} seeds, median and quartiles)"
    );
    draw_overlap(series, path, text, &title, "overlap volume / L³")
}

fn draw_overlap(
    series: &Series,
    path: &Path,
    text: bool,
    title: &str,
    y_name: &str,
) -> anyhow::Result<()> {
    use crate::tools::plot::{clamp, line_chart, log_range, Axes, Axis, Chart, Scale};
    let (mut hlo, mut hhi) = (f64::INFINITY, 0.0f64);
    for (_, pts) in series {
        for &(h, ..) in pts {
            hlo = hlo.min(h);
            hhi = hhi.max(h);
        }
    }
    anyhow::ensure!(hlo.is_finite() && hhi > 0.0, "no runs to plot");
    let (ylo, yhi) = log_range(
        series
            .iter()
            .flat_map(|(_, pts)| pts.iter().flat_map(|&(_, q1, _, q3)| [q1, q3])),
    );
    // One decade of room below the lowest quartile.
    let ylo = (ylo / 10.0).max(FLOOR / 10.0);
    let curves: Vec<plot::Series> = series
        .iter()
        .map(|(method, pts)| {
            let (name, color) = match method {
                PourMethod::Lcp => ("standard model (lcp)", RGBColor(214, 39, 40)),
                PourMethod::Peg => ("PEG", RGBColor(31, 119, 180)),
            };
            plot::Series {
                name,
                color,
                points: pts.iter().map(|&(h, _, m, _)| (h, clamp(m))).collect(),
                band: pts
                    .iter()
                    .map(|&(h, _, _, q3)| (h, q3))
                    .chain(pts.iter().rev().map(|&(h, q1, _, _)| (h, q1)))
                    .collect(),
                markers: true,
            }
        })
        .collect();
    let y_desc = format!("{y_name} (values < {FLOOR:e} drawn at it)");
    line_chart(
        path,
        &Chart {
            title,
            size: (1000, 600),
            text,
            shade: &[],
            legend: SeriesLabelPosition::UpperLeft,
        },
        &Axes {
            x: Axis {
                desc: "step size h, s",
                range: (hlo / 1.2, hhi * 1.2),
                scale: Scale::Log,
            },
            y: Axis {
                desc: &y_desc,
                range: (ylo, yhi),
                scale: Scale::Log,
            },
        },
        &curves,
    )
}
