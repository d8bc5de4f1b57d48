//! `rtphys plot` (d)–(h): the pictures of docs/EXPERIMENTS.md's 002, LCP and robot
//! tables, from the same functions the tests assert on.

use super::{
    line_chart, linear_range, log_range, Axes, Axis, Chart, Scale, Series, DEEPEST, MULTI,
};
use crate::experiments::{hc_energy, lcp_scenes};
use crate::model::LcpSolverKind;
use anyhow::Context;
use plotters::prelude::{RGBColor, SeriesLabelPosition};
use std::path::{Path, PathBuf};

const GREEN: RGBColor = RGBColor(44, 160, 44);
const ORANGE: RGBColor = RGBColor(255, 127, 14);
const GREY: RGBColor = RGBColor(110, 110, 110);

fn chart(title: &str, text: bool, size: (u32, u32), legend: SeriesLabelPosition) -> Chart<'_> {
    Chart {
        title,
        size,
        text,
        shade: &[],
        legend,
    }
}

fn axis(desc: &str, range: (f64, f64), scale: Scale) -> Axis<'_> {
    Axis { desc, range, scale }
}

/// Every figure of this part, in order; returns the files written.
pub(super) fn all(dir: &Path, text: bool, size: (u32, u32)) -> anyhow::Result<Vec<PathBuf>> {
    Ok(vec![
        hc_adaptive(dir, text, size)?,
        incline(dir, text, size)?,
        stack(dir, text, size)?,
        ball(dir, text, size)?,
        robot(dir, text, size)?,
    ])
}

/// (d) 002 §4.2: |E − E0|/E0 over 10 s, adaptive (ε = 1e-4, 1e-6, dt = 10 ms) and a
/// fixed step equal to each adaptive run's mean sub-step.
fn hc_adaptive(dir: &Path, text: bool, size: (u32, u32)) -> anyhow::Result<PathBuf> {
    let path = dir.join("hc_adaptive_energy.png");
    let seconds = 10.0;
    let mut names = Vec::new();
    let mut traces = Vec::new();
    for eps in [1e-4, 1e-6] {
        let adaptive = hc_energy::run(&hc_energy::scene(0.01, true, eps)?, seconds);
        let mean = seconds / adaptive.substeps.max(1) as f64;
        let fixed = hc_energy::run(&hc_energy::scene(mean, false, eps)?, seconds);
        eprintln!(
            "002 energy box, ε = {eps:e}: adaptive max |ΔE|/E0 {:.2e}, fixed step {mean:.3e} s {:.2e}",
            adaptive.max_rel, fixed.max_rel
        );
        names.push(format!("adaptive, ε = {eps:e}"));
        names.push(format!("fixed h = {mean:.2e} s (that run's mean)"));
        traces.push(adaptive.trace);
        traces.push(fixed.trace);
    }
    let colors = [MULTI, DEEPEST, GREEN, ORANGE];
    let series: Vec<Series> = names
        .iter()
        .zip(&traces)
        .zip(colors)
        .map(|((n, t), c)| Series::line(n, c, t.iter().map(|&(x, y)| (x, y.abs())).collect()))
        .collect();
    let y = log_range(traces.iter().flatten().map(|p| p.1.abs()));
    line_chart(
        &path,
        &chart(
            "Elastic spheres in a box: energy error, adaptive vs fixed step (002 §4.2)",
            text,
            size,
            SeriesLabelPosition::LowerRight,
        ),
        &Axes {
            x: axis("time, s", (0.0, seconds), Scale::Linear),
            y: axis("|E − E0| / E0 (log)", y, Scale::Log),
        },
        &series,
    )?;
    Ok(path)
}

/// (e) The incline (tan θ = 0.5, Lemke, 4-direction cone): displacement along the
/// slope at μ = 0.49 (slides) and μ = 0.50 (holds), with ½ g (sin θ − μ cos θ) t².
fn incline(dir: &Path, text: bool, size: (u32, u32)) -> anyhow::Result<PathBuf> {
    let path = dir.join("lcp_incline.png");
    let steps = 1500;
    let (slide_m, th) = lcp_scenes::incline(0.49, 4, LcpSolverKind::Lemke)?;
    let (hold_m, _) = lcp_scenes::incline(0.5, 4, LcpSolverKind::Lemke)?;
    let h = slide_m.opt.dt;
    let slide = lcp_scenes::run_incline(&slide_m, th, steps);
    let hold = lcp_scenes::run_incline(&hold_m, th, steps);
    let a = lcp_scenes::G * (th.sin() - 0.49 * th.cos());
    let t = |k: usize| (k + 1) as f64 * h;
    let pts = |v: &[f64]| -> Vec<(f64, f64)> {
        v.iter()
            .enumerate()
            .map(|(k, &s)| (t(k), 1e3 * s))
            .collect()
    };
    let analytic: Vec<(f64, f64)> = (0..steps)
        .step_by(10)
        .map(|k| (t(k), 1e3 * 0.5 * a * t(k) * t(k)))
        .collect();
    eprintln!(
        "LCP incline: μ = 0.49 slid {:.4e} m in {:.1} s (½at² = {:.4e}); μ = 0.50 max creep {:.2e} m",
        slide.values.last().copied().unwrap_or(0.0),
        t(steps - 1),
        0.5 * a * t(steps - 1).powi(2),
        hold.values.iter().fold(0.0f64, |m, s| m.max(s.abs()))
    );
    let series = vec![
        Series::line("½ g (sin θ − μ cos θ) t², μ = 0.49", GREY, analytic),
        Series::line("μ = 0.49 < tan θ: slides", DEEPEST, pts(&slide.values)),
        Series::line("μ = 0.50 = tan θ: holds", MULTI, pts(&hold.values)),
    ];
    let y = linear_range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
        0.05,
    );
    line_chart(
        &path,
        &chart(
            "Box on a 26.6° incline under the LCP method (Lemke, 4-direction cone)",
            text,
            size,
            SeriesLabelPosition::UpperLeft,
        ),
        &Axes {
            x: axis("time, s", (0.0, t(steps - 1)), Scale::Linear),
            y: axis("displacement down the slope, mm", y, Scale::Linear),
        },
        &series,
    )?;
    Ok(path)
}

/// (f) The five-box stack (`lcp_stack5.toml`) for 10 s: the largest displacement of
/// any box so far, Lemke and PGS at h = 1e-3 and 1e-2.
fn stack(dir: &Path, text: bool, size: (u32, u32)) -> anyhow::Result<PathBuf> {
    let path = dir.join("lcp_stack5_drift.png");
    let base = super::scene("config/scenes/lcp_stack5.toml")?;
    let seconds = 10.0;
    let mut series = Vec::new();
    let mut names = Vec::new();
    let mut runs = Vec::new();
    for (solver, name) in [(LcpSolverKind::Lemke, "Lemke"), (LcpSolverKind::Pgs, "PGS")] {
        for h in [1e-3, 1e-2] {
            let tr = lcp_scenes::stack_drift(&base, solver, h, seconds);
            eprintln!(
                "LCP stack of five, {name} h = {h}: drift over 10 s {:.3e} m",
                tr.values.last().copied().unwrap_or(0.0)
            );
            names.push(format!("{name}, h = {h:e} s"));
            runs.push((h, tr.values));
        }
    }
    for ((name, (h, v)), c) in names.iter().zip(&runs).zip([MULTI, DEEPEST, GREEN, ORANGE]) {
        let pts = v
            .iter()
            .enumerate()
            .map(|(k, &d)| ((k + 1) as f64 * h, d))
            .collect();
        series.push(Series::line(name, c, pts));
    }
    let (lo, hi) = log_range(runs.iter().flat_map(|(_, v)| v.iter().copied()));
    let series_with_bound = {
        let mut s = series;
        s.push(Series::line(
            "test bound 1e-4 m",
            GREY,
            vec![(0.0, 1e-4), (seconds, 1e-4)],
        ));
        s
    };
    line_chart(
        &path,
        &chart(
            "Stack of five boxes under the LCP method: drift from the start",
            text,
            size,
            SeriesLabelPosition::LowerRight,
        ),
        &Axes {
            x: axis("time, s", (0.0, seconds), Scale::Linear),
            y: axis(
                "max displacement of any box, m (log)",
                (lo, hi.max(1e-3)),
                Scale::Log,
            ),
        },
        &series_with_bound,
    )?;
    Ok(path)
}

/// (g) The ball drop (0.1 m, 1 kg, from 1 m, Lemke, h = 1e-3): bottom height for
/// e = 0 (plastic) and e = 0.5 (Newton's law: rebound to e² · 1 m = 0.25 m).
fn ball(dir: &Path, text: bool, size: (u32, u32)) -> anyhow::Result<PathBuf> {
    let path = dir.join("lcp_ball_drop.png");
    let plastic = lcp_scenes::drop_ball("lemke", 0.0, false, 1e-3)?;
    let half = lcp_scenes::drop_ball("lemke", 0.5, true, 1e-3)?;
    eprintln!(
        "LCP ball drop: e = 0 rebound {:.2e} m, penetration {:.2e} m; e = 0.5 rebound {:.4} m (e² = 0.25)",
        plastic.rebound, plastic.penetration, half.rebound
    );
    let series = vec![
        Series::line("e² · 1 m = 0.25 m", GREY, vec![(0.0, 0.25), (3.0, 0.25)]),
        Series::line("e = 0.5 (Newton restitution)", MULTI, half.height),
        Series::line("e = 0 (plastic)", DEEPEST, plastic.height),
    ];
    line_chart(
        &path,
        &chart(
            "Ball dropped from 1 m under the LCP method (Lemke, h = 1 ms)",
            text,
            size,
            SeriesLabelPosition::UpperRight,
        ),
        &Axes {
            x: axis("time, s", (0.0, 3.0), Scale::Linear),
            y: axis(
                "height of the ball's bottom, m",
                (-0.05, 1.05),
                Scale::Linear,
            ),
        },
        &series,
    )?;
    Ok(path)
}

/// (h) The arm pressing on the table (`arm_table.toml`): link 7's height over 2.5 s
/// under penalty and under the LCP method (Lemke).
fn robot(dir: &Path, text: bool, size: (u32, u32)) -> anyhow::Result<PathBuf> {
    let path = dir.join("robot_arm_penalty_vs_lcp.png");
    let base = super::scene("config/scenes/arm_table.toml")?;
    let lcp = lcp_scenes::robot_with_lcp(&base, LcpSolverKind::Lemke);
    let mut series = Vec::new();
    for (model, name, color) in [(&base, "penalty", MULTI), (&lcp, "LCP (Lemke)", DEEPEST)] {
        let s = lcp_scenes::settle(model, "link7", 2000)
            .context("arm_table.toml: robot 0 has no frame 'link7'")?;
        eprintln!(
            "arm on table, {name}: link7 at ({:.6}, {:.6}, {:.6}) m, moved {:.1e} m over the last 0.5 s, deepest point {:.2e} m",
            s.x.x, s.x.y, s.x.z, s.moved, s.depth
        );
        let pts = s.trajectory.iter().map(|&(t, x)| (t, 1e3 * x.z)).collect();
        series.push(Series::line(name, color, pts));
    }
    let y = linear_range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
        0.05,
    );
    line_chart(
        &path,
        &chart(
            "Arm pressing on the table: link 7 height, penalty vs LCP",
            text,
            size,
            SeriesLabelPosition::UpperRight,
        ),
        &Axes {
            x: axis("time, s", (0.0, 2.5), Scale::Linear),
            y: axis("link 7 origin height, mm", y, Scale::Linear),
        },
        &series,
    )?;
    Ok(path)
}
