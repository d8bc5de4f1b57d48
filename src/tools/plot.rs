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
//! Writes `block_penetrating_ke.png`, `block_penetrating_penetration.png`,
//! `block_random_forces_ke.png`, `block_random_forces_penetration.png` and
//! `hc_restitution_rules.png`.

use crate::data::Data;
use crate::experiments::{deepest_point_variant, with_penalty_points, RandomPushes};
use crate::math::Vec3;
use crate::model::scene::load_scene_file;
use crate::model::{Model, PenaltyPoints};
use anyhow::Context;
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
const FLOOR: f64 = 1e-16;

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

/// What one figure shows.
struct Figure<'a> {
    file: &'a str,
    title: &'a str,
    y_desc: &'a str,
    series: Vec<(&'a str, &'a [f64], RGBColor)>,
    /// Step intervals to shade (force windows).
    shade: &'a [(u32, u32)],
}

const MULTI: RGBColor = RGBColor(31, 119, 180);
const DEEPEST: RGBColor = RGBColor(214, 39, 40);

fn draw(fig: &Figure, dir: &Path, text: bool, size: (u32, u32)) -> anyhow::Result<PathBuf> {
    let path = dir.join(fig.file);
    let steps = fig
        .series
        .iter()
        .map(|(_, v, _)| v.len())
        .max()
        .unwrap_or(1)
        .max(1) as u32;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (_, v, _) in &fig.series {
        for &y in v.iter() {
            let y = clamp(y);
            lo = lo.min(y);
            hi = hi.max(y);
        }
    }
    if !(lo.is_finite() && hi.is_finite()) {
        (lo, hi) = (FLOOR, 1.0);
    }
    // Whole decades, at least two; one decade below the floor when values were
    // clamped, so that the clamped line stays visible above the axis.
    let lo = if lo <= FLOOR {
        FLOOR / 10.0
    } else {
        10f64.powf(lo.log10().floor())
    };
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 100.0);
    let decades = (hi / lo).log10().round() as i32;
    // Tick marks: every decade, plus 2 and 5 times it on short ranges.
    let mults: &[f64] = if decades <= 3 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let step = (decades / 8).max(1);
    let ticks: Vec<f64> = (0..=decades)
        .filter(|d| d % step == 0)
        .flat_map(|d| mults.iter().map(move |m| m * lo * 10f64.powi(d)))
        .filter(|y| *y <= hi * (1.0 + 1e-9))
        .collect();
    let grid_y: Vec<f64> = (0..=decades).map(|d| lo * 10f64.powi(d)).collect();

    let root = BitMapBackend::new(&path, size).into_drawing_area();
    let e = |err: DrawingAreaErrorKind<_>| anyhow::anyhow!("drawing {}: {err:?}", path.display());
    root.fill(&WHITE).map_err(e)?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(12);
    if text {
        builder
            .caption(fig.title, ("sans-serif", 22))
            .x_label_area_size(45)
            .y_label_area_size(80);
    } else {
        builder.x_label_area_size(8).y_label_area_size(8);
    }
    let mut chart = builder
        .build_cartesian_2d(
            0u32..steps,
            (lo..hi).log_scale().with_key_points(ticks.clone()),
        )
        .map_err(e)?;
    if text {
        chart
            .configure_mesh()
            .light_line_style(WHITE.mix(0.0))
            .x_desc("step")
            .y_desc(fig.y_desc)
            .y_label_formatter(&|y: &f64| format!("{y:.0e}"))
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .draw()
            .map_err(e)?;
    } else {
        // No font: the mesh would need text, so draw its lines by hand (the
        // horizontal ones at the decades, vertical ones every tenth of the steps).
        let grid = RGBColor(0, 0, 0).mix(0.2);
        for &y in &grid_y {
            chart
                .draw_series(LineSeries::new([(0, y), (steps, y)], grid))
                .map_err(e)?;
        }
        for k in 0..=10 {
            let x = steps / 10 * k;
            chart
                .draw_series(LineSeries::new([(x, lo), (x, hi)], grid))
                .map_err(e)?;
        }
    }
    for &(a, b) in fig.shade {
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(a, lo), (b.min(steps), hi)],
                RGBColor(0, 0, 0).mix(0.06).filled(),
            )))
            .map_err(e)?;
    }
    for &(name, v, color) in &fig.series {
        let s = chart
            .draw_series(LineSeries::new(
                v.iter().enumerate().map(|(i, &y)| (i as u32 + 1, clamp(y))),
                color.stroke_width(2),
            ))
            .map_err(e)?;
        if text {
            s.label(name).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
            });
        }
    }
    if text {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(dir.join(fig.file))
}

fn clamp(y: f64) -> f64 {
    if y.is_finite() {
        y.max(FLOOR)
    } else {
        FLOOR
    }
}

/// Register the TrueType font as the "sans-serif" family; false if it cannot be used.
pub(crate) fn register(path: &Path) -> bool {
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
    let windows: Vec<(u32, u32)> = (0..steps as u32)
        .step_by(period.max(1) as usize)
        .map(|s| (s, s + pm.on as u32))
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
    let root = BitMapBackend::new(&path, size).into_drawing_area();
    let err = |x: DrawingAreaErrorKind<_>| anyhow::anyhow!("drawing {}: {x:?}", path.display());
    root.fill(&WHITE).map_err(err)?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(12);
    if text {
        builder
            .caption(
                "Hunt–Crossley restitution achieved vs requested (002 eq. 5 vs exact relation)",
                ("sans-serif", 22),
            )
            .x_label_area_size(45)
            .y_label_area_size(70);
    } else {
        builder.x_label_area_size(8).y_label_area_size(8);
    }
    let mut chart = builder
        .build_cartesian_2d(0.0..1.0, 0.0..1.0)
        .map_err(err)?;
    if text {
        chart
            .configure_mesh()
            .x_desc("requested restitution e")
            .y_desc("e from the exact relation, v_in = 4.43 m/s")
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .draw()
            .map_err(err)?;
    }
    for (name, pts, color) in [
        ("exact inversion (damping_exact)", &exact, MULTI),
        ("paper's eq. (5): c = 1.5 (1 − e) / v_in", &paper, DEEPEST),
    ] {
        let s = chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(err)?;
        if text {
            s.label(name).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
            });
        }
    }
    if text {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(err)?;
    }
    root.present().map_err(err)?;
    drop(chart);
    drop(root);
    Ok(dir.join(file))
}
