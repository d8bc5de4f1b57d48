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
//!   against h, both log axes; `<img>/peg_pour_failures.png`: Lemke failures per
//!   100 steps against h.
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
//! - `<out>/peg_pour_2d_fig22.csv` and `<img>/peg_pour_2d_fig22.png`: Fig. 22 —
//!   potential contacts and SM traps per step against time, PEG, seed 1, the
//!   smallest h; `<img>/peg_pour_2d_fig22_h.png`: their means against h;
//!   `<img>/peg_pour_2d_failures.png`.
//!
//! The figures are drawn from the CSV just written (`tools::pour_figures`);
//! `pour-figures DIR…` draws them again from one or more sweeps' directories (e.g.
//! a sweep split into one invocation per step size).

use crate::experiments::peg_pour::{
    quartiles, run_pour_with, step_sizes, PegKeys, PourMethod, PourRun, DURATION,
};
use crate::experiments::peg_pour_2d::run_pour_2d_with;
use crate::tools::pour_figures::{pour_figures_main, Fig22, FigRow, Pour, PourFiguresArgs};
use anyhow::Context;
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
    /// Draw the pours' figures again from sweep directories (their CSV), merging
    /// several (e.g. one per step size).
    PourFigures(PourFiguresArgs),
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
    /// Directory for the CSVs (default target/peg_pour, or target/peg_pour_2d).
    #[arg(long, default_value = "target/peg_pour")]
    pub out: PathBuf,
    /// Directory for the PNGs.
    #[arg(long, default_value = "docs/img")]
    pub img: PathBuf,
    /// TrueType font for the plots' text (drawn without text if unusable).
    #[arg(
        long,
        default_value = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    )]
    pub font: PathBuf,
    /// PEG runs: `[lcp] peg_retry_depth` (a failed step retried as sub-steps
    /// down to h/2^N; 0..=8; default the scene's, 2 since peg32).
    #[arg(long)]
    pub peg_retry_depth: Option<usize>,
    /// PEG runs: `[lcp] peg_retry_overlap` (with a retry depth, also retry a
    /// step whose exact overlap rose by more than τ d³; default the scene's,
    /// 1e-11 since peg32).
    #[arg(long)]
    pub peg_retry_overlap: Option<f64>,
    /// PEG runs: `[lcp] peg_rotation_eps_theta = true` (the first pass's
    /// applicability relaxed by the start's rotation).
    #[arg(long)]
    pub peg_rotation_eps_theta: bool,
    /// PEG runs: `[lcp] peg_retry_rotation_eps_theta = true` (with a retry
    /// depth, the deepest level's sub-steps take that relaxation).
    #[arg(long)]
    pub peg_retry_rotation_eps_theta: bool,
    /// PEG runs: `[lcp] peg_retry_second_chance = true` (with a retry depth and
    /// τ, a deepest-level sub-step that failed or rose is taken again with the
    /// rotation's ε_θ, the better attempt kept).
    #[arg(long)]
    pub peg_retry_second_chance: bool,
    /// PEG runs: `[lcp] peg_outline_ccd = false` (the outline's continuous
    /// collision off after the PEG step; a diagnostic).
    #[arg(long)]
    pub peg_no_outline_ccd: bool,
    /// PEG runs: `[lcp] peg_ccd_retry = true` (with a retry depth, an attempt
    /// whose swept motion meets an impact is split; only the deepest level
    /// rewinds, over its sub-step).
    #[arg(long)]
    pub peg_ccd_retry: bool,
    /// PEG runs: `[lcp] peg_ccd_held = true` (with `--peg-ccd-retry`, the sweep
    /// leaves out the body pairs the attempt had contact rows with).
    #[arg(long)]
    pub peg_ccd_held: bool,
    /// PEG runs: `[lcp] peg_vv_one_sided = true` (a vertex–vertex I set only for
    /// a vertex at the other, the X only when both are; peg24).
    #[arg(long)]
    pub peg_vv_one_sided: bool,
}

pub fn experiment_main(a: ExperimentArgs) -> anyhow::Result<()> {
    match a.what {
        ExperimentKind::PegPour(p) => pour_main(Pour::ThreeD, p),
        ExperimentKind::PegPour2d(p) => pour_main(Pour::TwoD, p),
        ExperimentKind::PourFigures(p) => pour_figures_main(p).map(|_| ()),
    }
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

fn mean(v: &[u32]) -> f64 {
    v.iter().map(|&c| c as f64).sum::<f64>() / v.len().max(1) as f64
}

/// One line of the per-run CSV (columns of [`Pour::runs_header`]).
fn run_line(pour: Pour, r: &PourRun) -> String {
    let (q1, q2, q3) = quartiles(&mut r.overlap.clone());
    let n = r.overlap.len().max(1) as f64;
    let mid = match pour {
        Pour::ThreeD => format!(
            "{:.2},{}",
            mean(&r.contacts),
            r.contacts.iter().copied().max().unwrap_or(0)
        ),
        Pour::TwoD => format!(
            "{:.2},{:.2},{:.3},{:.3}",
            mean(&r.contacts),
            mean(&r.potential),
            mean(&r.traps),
            r.traps.iter().filter(|&&t| t > 0).count() as f64 / n
        ),
    };
    format!(
        "{},{},{:?},{},{q1:e},{q2:e},{q3:e},{:e},{mid},{},{},{},{},{:.1},{},{},{},{},{},{},{}",
        r.method.name(),
        r.seed,
        r.h,
        r.overlap.len(),
        r.max_overlap(),
        r.solver_failures,
        r.solver_fallbacks,
        r.quarantined,
        r.crash_time.map(|t| format!("{t:.4}")).unwrap_or_default(),
        1e6 * r.step_seconds / n,
        r.failed_steps,
        r.solver_unconverged,
        r.retried_steps,
        r.substeps,
        r.overlap_retries,
        r.ccd_retries,
        r.ccd_impacts
    )
}

/// The per-(method, h) summary of `runs`: the per-step overlap pooled over them.
fn summarize(pour: Pour, runs: &[&PourRun], method: PourMethod, h: f64) -> FigRow {
    let mut all: Vec<f64> = runs
        .iter()
        .flat_map(|r| r.overlap.iter().copied())
        .collect();
    let (q1, median, q3) = quartiles(&mut all);
    let pooled = |f: fn(&PourRun) -> &Vec<u32>| {
        let v: Vec<u32> = runs.iter().flat_map(|r| f(r).iter().copied()).collect();
        mean(&v)
    };
    let two = pour == Pour::TwoD;
    FigRow {
        method,
        h,
        runs: runs.len(),
        q1,
        median,
        q3,
        max: runs.iter().map(|r| r.max_overlap()).fold(0.0, f64::max),
        contacts_mean: two.then(|| pooled(|r| &r.potential)),
        traps_mean: two.then(|| pooled(|r| &r.traps)),
        runs_failed_solve: runs.iter().filter(|r| r.solver_failures > 0).count(),
        runs_crashed: runs.iter().filter(|r| r.crashed()).count(),
    }
}

fn create(path: &Path) -> anyhow::Result<std::io::BufWriter<std::fs::File>> {
    Ok(std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
    ))
}

/// The sweep of either pour: seeds × step sizes × {standard model, PEG}; writes
/// the CSVs as the runs finish, then draws the figures from them.
fn pour_main(pour: Pour, a: PegPourArgs) -> anyhow::Result<()> {
    let steps = sweep_steps(&a)?;
    let out = if pour == Pour::TwoD && a.out == Path::new("target/peg_pour") {
        PathBuf::from("target/peg_pour_2d")
    } else {
        a.out.clone()
    };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let runs_path = out.join(pour.runs_file());
    let mut w = create(&runs_path)?;
    writeln!(w, "{}", pour.runs_header())?;
    let mut runs: Vec<PourRun> = Vec::new();
    let keys = PegKeys {
        retry_depth: a.peg_retry_depth,
        retry_overlap: a.peg_retry_overlap,
        rotation_eps_theta: a.peg_rotation_eps_theta.then_some(true),
        retry_rotation_eps_theta: a.peg_retry_rotation_eps_theta.then_some(true),
        retry_second_chance: a.peg_retry_second_chance.then_some(true),
        outline_ccd: a.peg_no_outline_ccd.then_some(false),
        ccd_retry: a.peg_ccd_retry.then_some(true),
        ccd_held: a.peg_ccd_held.then_some(true),
        vv_one_sided: a.peg_vv_one_sided.then_some(true),
    };
    for &h in &steps {
        for seed in 1..=a.seeds {
            for method in [PourMethod::Lcp, PourMethod::Peg] {
                let r = match pour {
                    Pour::ThreeD => run_pour_with(seed, method, h, a.duration, &keys)?,
                    Pour::TwoD => run_pour_2d_with(seed, method, h, a.duration, &keys)?,
                };
                let line = run_line(pour, &r);
                writeln!(w, "{line}")?;
                w.flush()?;
                eprintln!("{line}");
                runs.push(r);
            }
        }
    }
    drop(w);

    let fig_path = out.join(pour.fig_file());
    let mut w = create(&fig_path)?;
    writeln!(w, "{}", pour.fig_header())?;
    for method in [PourMethod::Lcp, PourMethod::Peg] {
        for &h in &steps {
            let sel: Vec<&PourRun> = runs
                .iter()
                .filter(|r| r.method == method && r.h == h)
                .collect();
            writeln!(w, "{}", summarize(pour, &sel, method, h).csv_line())?;
        }
    }
    drop(w);
    if pour == Pour::TwoD {
        // Fig. 22: PEG, seed 1, the smallest h.
        let h0 = steps.iter().copied().fold(f64::INFINITY, f64::min);
        if let Some(r) = runs
            .iter()
            .find(|r| r.method == PourMethod::Peg && r.seed == 1 && r.h == h0)
        {
            let f = Fig22 {
                seed: r.seed,
                h: r.h,
                potential: r.potential.clone(),
                traps: r.traps.clone(),
            };
            let p = out.join(Pour::FIG22_FILE);
            std::fs::write(&p, f.csv()).with_context(|| format!("writing {}", p.display()))?;
        }
    }
    eprintln!("wrote {}, {}", runs_path.display(), fig_path.display());
    pour_figures_main(PourFiguresArgs {
        dirs: vec![out],
        img: a.img,
        font: a.font,
    })?;
    Ok(())
}
