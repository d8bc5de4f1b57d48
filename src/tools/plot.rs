//! `rtphys plot`: the two block experiments of 000 §IV (Figs. 8–11) for the
//! multi-point and the deepest-point penalty method, drawn as kinetic energy and
//! penetration against step on log y-axes.
//!
//! (a) `config/scenes/block_penetrating.toml` for 3,000 steps, beside the same model
//!     with the deepest-point method and the paper's gains for it (kp 6000, kv 3000,
//!     ki 200).
//! (b) `config/scenes/block_random_forces.toml` under
//!     [`RandomPushes`](crate::experiments::RandomPushes) (seed 12) for 10,000 steps,
//!     multi-point vs deepest-point with the scene's gains.
//!
//! (c) 002's restitution rules: the e the exact Hunt–Crossley relation gives for the
//!     damping of the paper's eq. (5) and of the exact inversion, against the
//!     requested e (closed-form functions of `contact::hunt_crossley`).
//!
//! (d) 002 §4.2: energy error of the adaptive step vs a fixed step of the same mean
//!     length (`experiments::hc_energy`).
//! (e)–(g) 003 under the LCP method (`experiments::lcp_scenes`): the incline at and
//!     below the friction threshold, the five-box stack's drift, the ball drop.
//! (h) The arm on the table settling under penalty vs LCP.
//!
//! Writes `block_penetrating_ke.png`, `block_penetrating_penetration.png`,
//! `block_random_forces_ke.png`, `block_random_forces_penetration.png`,
//! `hc_restitution_rules.png`, `hc_adaptive_energy.png`, `lcp_incline.png`,
//! `lcp_stack5_drift.png`, `lcp_ball_drop.png` and `robot_arm_penalty_vs_lcp.png`.

mod more;

use crate::data::Data;
use crate::experiments::{deepest_point_variant, with_penalty_points, RandomPushes};
use crate::math::Vec3;
use crate::model::scene::load_scene_file;
use crate::model::{Model, PenaltyPoints};
use anyhow::Context;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// `rtphys plot` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct PlotArgs {
    /// Output directory for the PNGs.
    #[arg(long, default_value = "docs/img")]
    pub out: std::path::PathBuf,
    /// TrueType font for titles, axis labels and legends. If it cannot be loaded the
    /// plots are drawn without any text.
    #[arg(
        long,
        default_value = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    )]
    pub font: PathBuf,
    /// Image width and height, pixels.
    #[arg(long, default_value_t = 1000)]
    pub width: u32,
    #[arg(long, default_value_t = 560)]
    pub height: u32,
}

/// Values below this are drawn at it (log axes need positive values).
pub const FLOOR: f64 = 1e-16;

/// Per-step kinetic energy and maximum penetration of one run.
struct Trace {
    label: &'static str,
    kinetic: Vec<f64>,
    penetration: Vec<f64>,
    quarantined: u64,
}

impl Trace {
    fn summary(&self) -> String {
        let n = self.penetration.len().max(1) as f64;
        let mean_pen = self.penetration.iter().sum::<f64>() / n;
        let max_pen = self.penetration.iter().copied().fold(0.0, f64::max);
        let final_ke = self.kinetic.last().copied().unwrap_or(f64::NAN);
        format!(
            "{:14} mean penetration {mean_pen:.3e} m, max {max_pen:.3e} m, final KE {final_ke:.3e} J, quarantined {}",
            self.label, self.quarantined
        )
    }
}

fn run(
    model: &Model,
    steps: usize,
    label: &'static str,
    mut drive: impl FnMut(&Model, &mut Data),
) -> Trace {
    let mut data = Data::new(model);
    let mut pipeline = crate::Pipeline::new(model);
    let mut t = Trace {
        label,
        kinetic: Vec::with_capacity(steps),
        penetration: Vec::with_capacity(steps),
        quarantined: 0,
    };
    for _ in 0..steps {
        drive(model, &mut data);
        pipeline.step(model, &mut data);
        t.kinetic.push(data.kinetic_energy(model));
        t.penetration.push(data.stats.max_penetration);
    }
    t.quarantined = data.stats.quarantined;
    t
}

/// Resolve a repository-relative scene path: the current directory first, then
/// the source tree this binary was built from.
fn scene(rel: &str) -> anyhow::Result<Model> {
    let here = Path::new(rel);
    let path = if here.exists() {
        here.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
    };
    load_scene_file(&path).with_context(|| format!("loading {rel} (run from the repository root)"))
}

const MULTI: RGBColor = RGBColor(31, 119, 180);
const DEEPEST: RGBColor = RGBColor(214, 39, 40);

/// How an axis maps values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Log axis, ticks at the decades (and 2 and 5 times them on ≤ 3 decades).
    Log,
}

/// One axis: its label, its range and its scale.
#[derive(Clone, Copy, Debug)]
pub struct Axis<'a> {
    pub desc: &'a str,
    pub range: (f64, f64),
    pub scale: Scale,
}

/// The two axes of a chart.
#[derive(Clone, Copy, Debug)]
pub struct Axes<'a> {
    pub x: Axis<'a>,
    pub y: Axis<'a>,
}

/// One curve: a polyline, optionally a filled band (a closed polygon, e.g. quartiles)
/// and markers at its points.
#[derive(Clone, Debug)]
pub struct Series<'a> {
    pub name: &'a str,
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
    pub band: Vec<(f64, f64)>,
    pub markers: bool,
}

impl<'a> Series<'a> {
    /// A plain line.
    pub fn line(name: &'a str, color: RGBColor, points: Vec<(f64, f64)>) -> Self {
        Series {
            name,
            color,
            points,
            band: Vec::new(),
            markers: false,
        }
    }
}

/// Title, size and decorations of a chart.
#[derive(Clone, Debug)]
pub struct Chart<'a> {
    pub title: &'a str,
    pub size: (u32, u32),
    /// Whether the "sans-serif" font is registered (titles, labels, legend); without
    /// it the grid is drawn by hand and no text at all.
    pub text: bool,
    /// x intervals to shade (e.g. force windows).
    pub shade: &'a [(f64, f64)],
    pub legend: SeriesLabelPosition,
}

/// Ticks of an axis: decades (× 1, 2, 5 on short log ranges) or ten linear steps.
fn ticks(a: &Axis) -> Vec<f64> {
    let (lo, hi) = a.range;
    match a.scale {
        Scale::Linear => (0..=10).map(|k| lo + (hi - lo) * k as f64 / 10.0).collect(),
        Scale::Log => {
            let d0 = lo.log10().floor() as i32;
            let d1 = hi.log10().ceil() as i32;
            let decades = d1 - d0;
            let mults: &[f64] = if decades <= 3 {
                &[1.0, 2.0, 5.0]
            } else {
                &[1.0]
            };
            let every = (decades / 8).max(1);
            (d0..=d1)
                .filter(|d| (d - d0) % every == 0)
                .flat_map(|d| mults.iter().map(move |m| m * 10f64.powi(d)))
                .filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9))
                .collect()
        }
    }
}

/// Whole decades around `values` (clamped at [`FLOOR`]), at least two; one decade
/// below the floor when values were clamped, so a clamped line stays visible.
pub fn log_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for y in values {
        let y = clamp(y);
        lo = lo.min(y);
        hi = hi.max(y);
    }
    if !(lo.is_finite() && hi.is_finite()) {
        (lo, hi) = (FLOOR, 1.0);
    }
    let lo = if lo <= FLOOR {
        FLOOR / 10.0
    } else {
        10f64.powf(lo.log10().floor())
    };
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 100.0);
    (lo, hi)
}

/// A linear range around `values` with `pad` of its span on both sides (a unit
/// span if all values are equal).
pub fn linear_range(values: impl IntoIterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for y in values.into_iter().filter(|y| y.is_finite()) {
        lo = lo.min(y);
        hi = hi.max(y);
    }
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if hi - lo <= 0.0 {
        return (lo - 0.5, hi + 0.5);
    }
    let p = pad * (hi - lo);
    (lo - p, hi + p)
}

fn label(scale: Scale, v: f64) -> String {
    match scale {
        Scale::Log => format!("{v:.0e}"),
        Scale::Linear => {
            let r = (v * 1e6).round() / 1e6;
            if r == 0.0 {
                "0".to_string()
            } else {
                format!("{r}")
            }
        }
    }
}

/// Draw `series` on `axes` into the PNG at `path`: every figure of `rtphys plot` and
/// `rtphys experiment`. Log-axis values are clamped at [`FLOOR`]. The output depends
/// on nothing but the arguments and the font (byte-identical run to run).
pub fn line_chart(
    path: &Path,
    chart: &Chart,
    axes: &Axes,
    series: &[Series],
) -> anyhow::Result<()> {
    let e = |err: DrawingAreaErrorKind<_>| anyhow::anyhow!("drawing {}: {err:?}", path.display());
    for a in [&axes.x, &axes.y] {
        let (lo, hi) = a.range;
        anyhow::ensure!(
            lo.is_finite() && hi.is_finite() && lo < hi && (a.scale == Scale::Linear || lo > 0.0),
            "{}: bad axis range {lo}..{hi} for '{}'",
            path.display(),
            a.desc
        );
    }
    let root = BitMapBackend::new(path, chart.size).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(12);
    if chart.text {
        builder
            .caption(chart.title, ("sans-serif", 22))
            .x_label_area_size(45)
            .y_label_area_size(80);
    } else {
        builder.x_label_area_size(8).y_label_area_size(8);
    }
    let (x, y) = (axes.x.range, axes.y.range);
    let (xt, yt) = (ticks(&axes.x), ticks(&axes.y));
    match (axes.x.scale, axes.y.scale) {
        (Scale::Linear, Scale::Linear) => {
            let mut c = builder.build_cartesian_2d(x.0..x.1, y.0..y.1).map_err(e)?;
            chart_body(&mut c, chart, axes, series)
        }
        (Scale::Linear, Scale::Log) => {
            let mut c = builder
                .build_cartesian_2d(x.0..x.1, (y.0..y.1).log_scale().with_key_points(yt))
                .map_err(e)?;
            chart_body(&mut c, chart, axes, series)
        }
        (Scale::Log, Scale::Linear) => {
            let mut c = builder
                .build_cartesian_2d((x.0..x.1).log_scale().with_key_points(xt), y.0..y.1)
                .map_err(e)?;
            chart_body(&mut c, chart, axes, series)
        }
        (Scale::Log, Scale::Log) => {
            let mut c = builder
                .build_cartesian_2d(
                    (x.0..x.1).log_scale().with_key_points(xt),
                    (y.0..y.1).log_scale().with_key_points(yt),
                )
                .map_err(e)?;
            chart_body(&mut c, chart, axes, series)
        }
    }
    .map_err(|err| anyhow::anyhow!("drawing {}: {err}", path.display()))?;
    root.present().map_err(e)?;
    Ok(())
}

type Ctx<'a, 'b, X, Y> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<X, Y>>;

/// Mesh (or hand-drawn grid), shading, bands, lines, markers and legend.
fn chart_body<'a, X, Y>(
    c: &mut Ctx<'a, 'a, X, Y>,
    chart: &Chart,
    axes: &Axes,
    series: &[Series],
) -> Result<(), String>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let e = |err: DrawingAreaErrorKind<_>| format!("{err:?}");
    let (xs, ys) = (axes.x.scale, axes.y.scale);
    let fx = |v: f64| match xs {
        Scale::Log => clamp(v),
        Scale::Linear => v,
    };
    let fy = |v: f64| match ys {
        Scale::Log => clamp(v),
        Scale::Linear => v,
    };
    let ((x0, x1), (y0, y1)) = (axes.x.range, axes.y.range);
    if chart.text {
        let xf = move |v: &f64| label(xs, *v);
        let yf = move |v: &f64| label(ys, *v);
        c.configure_mesh()
            .light_line_style(WHITE.mix(0.0))
            .x_desc(axes.x.desc)
            .y_desc(axes.y.desc)
            .x_label_formatter(&xf)
            .y_label_formatter(&yf)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .draw()
            .map_err(e)?;
    } else {
        // No font: the mesh would need text, so draw its lines by hand.
        let grid = RGBColor(0, 0, 0).mix(0.2);
        for y in ticks(&axes.y) {
            c.draw_series(LineSeries::new([(x0, y), (x1, y)], grid))
                .map_err(e)?;
        }
        for x in ticks(&axes.x) {
            c.draw_series(LineSeries::new([(x, y0), (x, y1)], grid))
                .map_err(e)?;
        }
    }
    for &(a, b) in chart.shade {
        c.draw_series(std::iter::once(Rectangle::new(
            [(a.max(x0), y0), (b.min(x1), y1)],
            RGBColor(0, 0, 0).mix(0.06).filled(),
        )))
        .map_err(e)?;
    }
    for s in series {
        if !s.band.is_empty() {
            let band: Vec<(f64, f64)> = s.band.iter().map(|&(x, y)| (fx(x), fy(y))).collect();
            c.draw_series(std::iter::once(Polygon::new(
                band,
                s.color.mix(0.2).filled(),
            )))
            .map_err(e)?;
        }
        if s.markers {
            c.draw_series(
                s.points
                    .iter()
                    .map(|&(x, y)| Circle::new((fx(x), fy(y)), 3, s.color.filled())),
            )
            .map_err(e)?;
        }
        let color = s.color;
        let drawn = c
            .draw_series(LineSeries::new(
                s.points.iter().map(|&(x, y)| (fx(x), fy(y))),
                color.stroke_width(2),
            ))
            .map_err(e)?;
        if chart.text {
            drawn.label(s.name).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
            });
        }
    }
    if chart.text && !series.is_empty() {
        c.configure_series_labels()
            .position(chart.legend.clone())
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(e)?;
    }
    Ok(())
}

/// A per-step trace as points (step k + 1, value).
pub fn per_step(v: &[f64]) -> Vec<(f64, f64)> {
    v.iter()
        .enumerate()
        .map(|(i, &y)| ((i + 1) as f64, y))
        .collect()
}

/// One figure of the block experiments: per-step series on a log y-axis.
struct Figure<'a> {
    file: &'a str,
    title: &'a str,
    y_desc: &'a str,
    series: Vec<(&'a str, &'a [f64], RGBColor)>,
    /// Step intervals to shade (force windows).
    shade: &'a [(f64, f64)],
}

fn draw(fig: &Figure, dir: &Path, text: bool, size: (u32, u32)) -> anyhow::Result<PathBuf> {
    let path = dir.join(fig.file);
    let steps = fig
        .series
        .iter()
        .map(|(_, v, _)| v.len())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let y = log_range(fig.series.iter().flat_map(|(_, v, _)| v.iter().copied()));
    let series: Vec<Series> = fig
        .series
        .iter()
        .map(|&(name, v, color)| Series::line(name, color, per_step(v)))
        .collect();
    line_chart(
        &path,
        &Chart {
            title: fig.title,
            size,
            text,
            shade: fig.shade,
            legend: SeriesLabelPosition::UpperRight,
        },
        &Axes {
            x: Axis {
                desc: "step",
                range: (0.0, steps),
                scale: Scale::Linear,
            },
            y: Axis {
                desc: fig.y_desc,
                range: y,
                scale: Scale::Log,
            },
        },
        &series,
    )?;
    Ok(path)
}

pub fn clamp(y: f64) -> f64 {
    if y.is_finite() {
        y.max(FLOOR)
    } else {
        FLOOR
    }
}

/// Register the TrueType font as the "sans-serif" family; false if it cannot be used.
pub fn register(path: &Path) -> bool {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(err) => {
            eprintln!(
                "plot: cannot read font {}: {err}; drawing without titles, labels or legends (pass --font)",
                path.display()
            );
            return false;
        }
    };
    // The font registry keeps a reference for the rest of the process.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    match plotters::style::register_font("sans-serif", FontStyle::Normal, bytes) {
        Ok(()) => true,
        Err(_) => {
            eprintln!(
                "plot: {} is not a usable TrueType font; drawing without titles, labels or legends (pass --font)",
                path.display()
            );
            false
        }
    }
}

pub fn plot_main(a: PlotArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        (200..=8000).contains(&a.width) && (150..=8000).contains(&a.height),
        "--width/--height out of range (200–8000 × 150–8000 pixels)"
    );
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot create {}", a.out.display()))?;
    let text = register(&a.font);
    let size = (a.width, a.height);
    let floor_note = "values < 1e-16 drawn at 1e-16";

    // (a) 000 §IV-A, Figs. 8–9.
    let multi = scene("config/scenes/block_penetrating.toml")?;
    let deep = deepest_point_variant(&multi, 6000.0, 3000.0, 200.0);
    let tm = run(&multi, 3000, "multi-point", |_, _| {});
    let td = run(&deep, 3000, "deepest-point", |_, _| {});
    eprintln!("block penetrating the plane, 3,000 steps:");
    eprintln!("  {}\n  {}", tm.summary(), td.summary());
    let mut written = Vec::new();
    let ke_desc = format!("kinetic energy, J (log; {floor_note})");
    let pen_desc = format!("max penetration, m (log; {floor_note})");
    for (file, title, desc, m, d) in [
        (
            "block_penetrating_ke.png",
            "Block penetrating the plane: kinetic energy (000 Fig. 8)",
            &ke_desc,
            &tm.kinetic,
            &td.kinetic,
        ),
        (
            "block_penetrating_penetration.png",
            "Block penetrating the plane: penetration (000 Fig. 9)",
            &pen_desc,
            &tm.penetration,
            &td.penetration,
        ),
    ] {
        let fig = Figure {
            file,
            title,
            y_desc: desc,
            series: vec![
                ("multi-point (kp 5000, kv 2500, ki 100)", m, MULTI),
                ("deepest-point (kp 6000, kv 3000, ki 200)", d, DEEPEST),
            ],
            shade: &[],
        };
        written.push(draw(&fig, &a.out, text, size)?);
    }

    // (b) 000 §IV-B, Figs. 10–11.
    let multi = scene("config/scenes/block_random_forces.toml")?;
    let deep = with_penalty_points(&multi, PenaltyPoints::Deepest);
    let block = multi
        .body_id("block")
        .context("block_random_forces.toml has no body named 'block'")?;
    let half = Vec3::new(0.5, 0.5, 0.5);
    let steps = 10_000;
    let mut pm = RandomPushes::new(12, block, half);
    let tm = run(&multi, steps, "multi-point", |m, d| pm.apply(m, d));
    let mut pd = RandomPushes::new(12, block, half);
    let td = run(&deep, steps, "deepest-point", |m, d| pd.apply(m, d));
    eprintln!("block under random forces, {steps} steps:");
    eprintln!("  {}\n  {}", tm.summary(), td.summary());
    let period = (pm.on + pm.off) as u32;
    let windows: Vec<(f64, f64)> = (0..steps as u32)
        .step_by(period.max(1) as usize)
        .map(|s| (s as f64, (s + pm.on as u32) as f64))
        .collect();
    for (file, title, desc, m, d) in [
        (
            "block_random_forces_ke.png",
            "Block under random forces (shaded: force on): kinetic energy (000 Fig. 10)",
            &ke_desc,
            &tm.kinetic,
            &td.kinetic,
        ),
        (
            "block_random_forces_penetration.png",
            "Block under random forces (shaded: force on): penetration (000 Fig. 11)",
            &pen_desc,
            &tm.penetration,
            &td.penetration,
        ),
    ] {
        let fig = Figure {
            file,
            title,
            y_desc: desc,
            series: vec![("multi-point", m, MULTI), ("deepest-point", d, DEEPEST)],
            shade: &windows,
        };
        written.push(draw(&fig, &a.out, text, size)?);
    }
    // (c) 002: the restitution each damping rule achieves, by the exact relation.
    written.push(restitution_rules(&a.out, text, size)?);
    // (d)–(h) 002's adaptive step, 003 under the LCP method, a robot under both.
    written.extend(more::all(&a.out, text, size)?);
    for p in &written {
        println!("wrote {}", p.display());
    }
    if !text {
        println!(
            "note: drawn without text (font {} unavailable)",
            a.font.display()
        );
    }
    Ok(())
}

/// 002's restitution rules (docs/EXPERIMENTS.md, "Restitution: the paper's rule vs the
/// exact Hunt–Crossley relation"): for a requested e, the damping c of the paper's
/// eq. (5) (`damping_paper`) and of the exact inversion (`damping_exact`), and the
/// restitution the exact relation gives for that c (`restitution`) at the table's
/// impact speed v_in = √(2 g · 1 m). The functions the contact model and
/// `tests/hunt_crossley.rs` use; the drops there land on these curves within 1 %.
fn restitution_rules(dir: &Path, text: bool, size: (u32, u32)) -> anyhow::Result<PathBuf> {
    use crate::contact::hunt_crossley::{damping_exact, damping_paper, restitution};
    let file = "hc_restitution_rules.png";
    let path = dir.join(file);
    let v_in = (2.0 * 9.81f64).sqrt();
    let es: Vec<f64> = (1..=100).map(|k| k as f64 / 100.0).collect();
    let paper: Vec<(f64, f64)> = es
        .iter()
        .map(|&e| (e, restitution(damping_paper(e, v_in), v_in)))
        .collect();
    let exact: Vec<(f64, f64)> = es
        .iter()
        .map(|&e| (e, restitution(damping_exact(e, v_in), v_in)))
        .collect();
    for (e, p) in paper.iter().filter(|(e, _)| [0.3, 0.5, 0.8].contains(e)) {
        eprintln!("002 restitution at v_in {v_in:.3} m/s: requested {e}, paper rule gives {p:.4}");
    }
    line_chart(
        &path,
        &Chart {
            title: "Hunt–Crossley restitution achieved vs requested (002 eq. 5 vs exact relation)",
            size,
            text,
            shade: &[],
            legend: SeriesLabelPosition::LowerRight,
        },
        &Axes {
            x: Axis {
                desc: "requested restitution e",
                range: (0.0, 1.0),
                scale: Scale::Linear,
            },
            y: Axis {
                desc: "e from the exact relation, v_in = 4.43 m/s",
                range: (0.0, 1.0),
                scale: Scale::Linear,
            },
        },
        &[
            Series::line("exact inversion (damping_exact)", MULTI, exact),
            Series::line("paper's eq. (5): c = 1.5 (1 − e) / v_in", DEEPEST, paper),
        ],
    )?;
    Ok(dir.join(file))
}
