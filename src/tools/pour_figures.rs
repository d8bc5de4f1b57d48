//! The figures of 003's pouring experiments (Sec. 6) drawn from the sweeps' CSV
//! (`rtphys experiment peg-pour[-2d]` writes the CSV and then draws from it;
//! `rtphys experiment pour-figures DIR…` draws again from one or more sweep
//! directories, e.g. one per step size, without re-running anything).
//!
//! The paper's figures and ours:
//! - **Fig. 21** (2D) and **Fig. 24** (3D): "the median and the first and third
//!   quartiles of area of overlap error for increasing time-step size" (volume in
//!   3D), standard model vs PEG. Ours: per method and h, the per-step overlap / L²
//!   (L³) pooled over every step of every seed: the median (line and markers), the
//!   quartile band, and the largest step's overlap over the runs (thin line, which
//!   the paper does not draw); log axes, zero drawn at [`FLOOR`].
//! - **Fig. 22** (2D): "the number of SM traps encountered at each time step … The
//!   top curve represents the total number of contacts, and the curve below it
//!   shows the number of SM traps" — per step against time for one run. Ours: the
//!   2D potential contacts and the vertex–vertex configurations at the start of
//!   each step (`experiments::peg_pour_2d::TrapCounter`) of PEG, seed 1, the
//!   smallest h (`…_fig22.png`); and, for the paper's remark that "as the size of
//!   the time step increases, so would the percentage of SM traps", their means
//!   per step against h for both models (`…_fig22_h.png`).
//! - Beside each point (not a figure of the paper): Lemke failures per 100 steps
//!   against h, and the crashed runs in the legend (`…_failures.png`).

use crate::experiments::peg_pour::PourMethod;
use crate::tools::plot::{self, clamp, line_chart, log_range, Axes, Axis, Chart, Scale, FLOOR};
use anyhow::Context;
use plotters::prelude::{RGBColor, SeriesLabelPosition};
use std::path::{Path, PathBuf};

/// Which pour a sweep is: its files and CSV columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pour {
    /// 3D, Figs. 23–24 (`experiments::peg_pour`).
    ThreeD,
    /// 2D, Figs. 20–22 (`experiments::peg_pour_2d`).
    TwoD,
}

impl Pour {
    /// The per-run CSV.
    pub fn runs_file(self) -> &'static str {
        match self {
            Pour::ThreeD => "peg_pour_runs.csv",
            Pour::TwoD => "peg_pour_2d_runs.csv",
        }
    }
    /// The per-(method, h) CSV the overlap figure is drawn from.
    pub fn fig_file(self) -> &'static str {
        match self {
            Pour::ThreeD => "peg_pour_fig24.csv",
            Pour::TwoD => "peg_pour_2d_fig21.csv",
        }
    }
    /// The per-step contacts and traps of Fig. 22's run (2D).
    pub const FIG22_FILE: &'static str = "peg_pour_2d_fig22.csv";
    pub const FIG22_HEADER: &'static str = "seed,h,step,t,potential_contacts,sm_traps";

    /// Header of the per-run CSV.
    pub fn runs_header(self) -> &'static str {
        match self {
            Pour::ThreeD => "method,seed,h,steps,overlap_q1,overlap_median,overlap_q3,overlap_max,contacts_mean,contacts_max,solver_failures,solver_fallbacks,quarantined,crash_time,us_per_step,failed_steps,solver_unconverged,retried_steps,substeps,overlap_retries,ccd_retries,ccd_impacts",
            Pour::TwoD => "method,seed,h,steps,overlap_q1,overlap_median,overlap_q3,overlap_max,points_mean,contacts_mean,traps_mean,steps_with_trap,solver_failures,solver_fallbacks,quarantined,crash_time,us_per_step,failed_steps,solver_unconverged,retried_steps,substeps,overlap_retries,ccd_retries,ccd_impacts",
        }
    }
    /// Header of the per-(method, h) CSV.
    pub fn fig_header(self) -> &'static str {
        match self {
            Pour::ThreeD => "method,h,runs,overlap_q1,overlap_median,overlap_q3,overlap_max,runs_failed_solve,runs_crashed",
            Pour::TwoD => "method,h,runs,overlap_q1,overlap_median,overlap_q3,overlap_max,contacts_mean,traps_mean,runs_failed_solve,runs_crashed",
        }
    }
    /// Prefix of the PNG names.
    fn png_prefix(self) -> &'static str {
        match self {
            Pour::ThreeD => "peg_pour",
            Pour::TwoD => "peg_pour_2d",
        }
    }
    fn overlap_png(self) -> &'static str {
        match self {
            Pour::ThreeD => "peg_pour_fig24.png",
            Pour::TwoD => "peg_pour_2d_fig21.png",
        }
    }
}

/// One line of the per-(method, h) CSV: the per-step overlap pooled over the seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct FigRow {
    pub method: PourMethod,
    pub h: f64,
    pub runs: usize,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub max: f64,
    /// 2D: mean potential contacts and SM traps per step (pooled).
    pub contacts_mean: Option<f64>,
    pub traps_mean: Option<f64>,
    /// Runs with a Lemke failure; runs that crashed (quarantine).
    pub runs_failed_solve: usize,
    pub runs_crashed: usize,
}

impl FigRow {
    /// The CSV line (columns of [`Pour::fig_header`]).
    pub fn csv_line(&self) -> String {
        let (m, h, n) = (self.method.name(), self.h, self.runs);
        let (q1, q2, q3, max) = (self.q1, self.median, self.q3, self.max);
        let mid = match (self.contacts_mean, self.traps_mean) {
            (Some(c), Some(t)) => format!("{c:.3},{t:.3},"),
            _ => String::new(),
        };
        format!(
            "{m},{h:?},{n},{q1:e},{q2:e},{q3:e},{max:e},{mid}{},{}",
            self.runs_failed_solve, self.runs_crashed
        )
    }
}

/// The columns of a per-run CSV line the figures read.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRow {
    pub method: PourMethod,
    pub seed: u64,
    pub h: f64,
    pub steps: u64,
    pub solver_failures: u64,
    pub solver_fallbacks: u64,
    pub quarantined: u64,
}

/// Fig. 22's run: potential contacts and SM traps per step.
#[derive(Clone, Debug, PartialEq)]
pub struct Fig22 {
    pub seed: u64,
    pub h: f64,
    pub potential: Vec<u32>,
    pub traps: Vec<u32>,
}

impl Fig22 {
    /// The CSV (header [`Pour::FIG22_HEADER`]).
    pub fn csv(&self) -> String {
        let mut s = String::from(Pour::FIG22_HEADER);
        s.push('\n');
        for (i, (c, t)) in self.potential.iter().zip(&self.traps).enumerate() {
            let time = (i + 1) as f64 * self.h;
            s.push_str(&format!(
                "{},{:?},{},{time:?},{c},{t}\n",
                self.seed,
                self.h,
                i + 1
            ));
        }
        s
    }
}

/// A CSV file as a header-indexed table (no quoting: the sweeps write none).
struct Table<'a> {
    path: &'a Path,
    columns: Vec<&'a str>,
    rows: Vec<(usize, Vec<&'a str>)>,
}

impl<'a> Table<'a> {
    fn parse(path: &'a Path, text: &'a str) -> anyhow::Result<Self> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines
            .next()
            .ok_or_else(|| anyhow::anyhow!("{}: empty file", path.display()))?;
        let columns: Vec<&str> = header.split(',').map(str::trim).collect();
        let mut rows = Vec::new();
        for (i, l) in lines {
            let cells: Vec<&str> = l.split(',').map(str::trim).collect();
            anyhow::ensure!(
                cells.len() == columns.len(),
                "{}:{}: {} fields, the header has {}",
                path.display(),
                i + 1,
                cells.len(),
                columns.len()
            );
            rows.push((i + 1, cells));
        }
        Ok(Table {
            path,
            columns,
            rows,
        })
    }

    fn has(&self, name: &str) -> bool {
        self.columns.contains(&name)
    }

    fn col(&self, name: &str) -> anyhow::Result<usize> {
        self.columns
            .iter()
            .position(|c| *c == name)
            .ok_or_else(|| anyhow::anyhow!("{}: no column '{name}'", self.path.display()))
    }

    /// Cell `name` of row `r` parsed as `T`.
    fn get<T: std::str::FromStr>(&self, r: usize, name: &str) -> anyhow::Result<T> {
        let c = self.col(name)?;
        let (line, cells) = &self.rows[r];
        cells[c].parse().map_err(|_| {
            anyhow::anyhow!(
                "{}:{line}: column '{name}': cannot read '{}'",
                self.path.display(),
                cells[c]
            )
        })
    }

    fn method(&self, r: usize) -> anyhow::Result<PourMethod> {
        let s: String = self.get(r, "method")?;
        match s.as_str() {
            "lcp" => Ok(PourMethod::Lcp),
            "peg" => Ok(PourMethod::Peg),
            _ => anyhow::bail!(
                "{}:{}: method '{s}' (expected lcp or peg)",
                self.path.display(),
                self.rows[r].0
            ),
        }
    }

    fn h(&self, r: usize) -> anyhow::Result<f64> {
        let h: f64 = self.get(r, "h")?;
        anyhow::ensure!(
            h.is_finite() && h > 0.0,
            "{}:{}: step size {h}",
            self.path.display(),
            self.rows[r].0
        );
        Ok(h)
    }
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// Reads a per-(method, h) CSV of either pour (told apart by its columns).
pub fn read_fig_csv(path: &Path) -> anyhow::Result<(Pour, Vec<FigRow>)> {
    let text = read(path)?;
    let t = Table::parse(path, &text)?;
    let pour = if t.has("contacts_mean") {
        Pour::TwoD
    } else {
        Pour::ThreeD
    };
    let mut rows = Vec::with_capacity(t.rows.len());
    for r in 0..t.rows.len() {
        let two = pour == Pour::TwoD;
        rows.push(FigRow {
            method: t.method(r)?,
            h: t.h(r)?,
            runs: t.get(r, "runs")?,
            q1: t.get(r, "overlap_q1")?,
            median: t.get(r, "overlap_median")?,
            q3: t.get(r, "overlap_q3")?,
            max: t.get(r, "overlap_max")?,
            contacts_mean: if two {
                Some(t.get(r, "contacts_mean")?)
            } else {
                None
            },
            traps_mean: if two {
                Some(t.get(r, "traps_mean")?)
            } else {
                None
            },
            runs_failed_solve: t.get(r, "runs_failed_solve")?,
            runs_crashed: t.get(r, "runs_crashed")?,
        });
    }
    Ok((pour, rows))
}

/// Reads a per-run CSV of either pour.
pub fn read_runs_csv(path: &Path) -> anyhow::Result<Vec<RunRow>> {
    let text = read(path)?;
    let t = Table::parse(path, &text)?;
    let mut rows = Vec::with_capacity(t.rows.len());
    for r in 0..t.rows.len() {
        rows.push(RunRow {
            method: t.method(r)?,
            seed: t.get(r, "seed")?,
            h: t.h(r)?,
            steps: t.get(r, "steps")?,
            solver_failures: t.get(r, "solver_failures")?,
            solver_fallbacks: t.get(r, "solver_fallbacks")?,
            quarantined: t.get(r, "quarantined")?,
        });
    }
    Ok(rows)
}

/// Reads Fig. 22's per-step CSV.
pub fn read_fig22_csv(path: &Path) -> anyhow::Result<Fig22> {
    let text = read(path)?;
    let t = Table::parse(path, &text)?;
    anyhow::ensure!(!t.rows.is_empty(), "{}: no steps", path.display());
    let mut f = Fig22 {
        seed: t.get(0, "seed")?,
        h: t.h(0)?,
        potential: Vec::with_capacity(t.rows.len()),
        traps: Vec::with_capacity(t.rows.len()),
    };
    for r in 0..t.rows.len() {
        f.potential.push(t.get(r, "potential_contacts")?);
        f.traps.push(t.get(r, "sm_traps")?);
    }
    Ok(f)
}

/// `rtphys experiment pour-figures` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct PourFiguresArgs {
    /// Sweep output directories (`--out` of `rtphys experiment peg-pour[-2d]`), each
    /// with a runs and a figure CSV; several are merged (e.g. one per step size), a
    /// (method, h) in two of them is an error (their quartiles cannot be pooled).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Directory for the PNGs.
    #[arg(long, default_value = "docs/img")]
    pub img: PathBuf,
    /// TrueType font for the plots' text (drawn without text if unusable).
    #[arg(
        long,
        default_value = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    )]
    pub font: PathBuf,
}

/// Draws the figures of every pour found in `a.dirs` into `a.img`; the PNGs written.
pub fn pour_figures_main(a: PourFiguresArgs) -> anyhow::Result<Vec<PathBuf>> {
    let text = plot::register(&a.font);
    let mut written = Vec::new();
    for pour in [Pour::TwoD, Pour::ThreeD] {
        let dirs: Vec<&PathBuf> = a
            .dirs
            .iter()
            .filter(|d| d.join(pour.fig_file()).exists())
            .collect();
        if dirs.is_empty() {
            continue;
        }
        let (mut rows, mut runs, mut fig22) = (Vec::new(), Vec::new(), None::<Fig22>);
        for d in dirs {
            let (p, r) = read_fig_csv(&d.join(pour.fig_file()))?;
            anyhow::ensure!(
                p == pour,
                "{}: columns of the other pour",
                d.join(pour.fig_file()).display()
            );
            for row in r {
                anyhow::ensure!(
                    !rows
                        .iter()
                        .any(|o: &FigRow| o.method == row.method && o.h == row.h),
                    "{}: {} at h = {:?} is also in another directory",
                    d.display(),
                    row.method.name(),
                    row.h
                );
                rows.push(row);
            }
            let runs_path = d.join(pour.runs_file());
            if runs_path.exists() {
                runs.extend(read_runs_csv(&runs_path)?);
            }
            let f22 = d.join(Pour::FIG22_FILE);
            if pour == Pour::TwoD && f22.exists() {
                let f = read_fig22_csv(&f22)?;
                // The smallest h (the paper's figure is at a small step).
                if fig22.as_ref().is_none_or(|g| f.h < g.h) {
                    fig22 = Some(f);
                }
            }
        }
        rows.sort_by(|a, b| a.h.total_cmp(&b.h));
        written.extend(draw_figures(
            pour,
            &rows,
            &runs,
            fig22.as_ref(),
            &a.img,
            text,
        )?);
    }
    anyhow::ensure!(
        !written.is_empty(),
        "no {} or {} in {:?}",
        Pour::TwoD.fig_file(),
        Pour::ThreeD.fig_file(),
        a.dirs
    );
    for p in &written {
        eprintln!("wrote {}", p.display());
    }
    Ok(written)
}

const LCP: RGBColor = RGBColor(214, 39, 40);
const LCP_LIGHT: RGBColor = RGBColor(240, 150, 150);
const PEG: RGBColor = RGBColor(31, 119, 180);
const PEG_LIGHT: RGBColor = RGBColor(150, 190, 230);

fn colors(m: PourMethod) -> (&'static str, RGBColor, RGBColor) {
    match m {
        PourMethod::Lcp => ("standard model (lcp)", LCP, LCP_LIGHT),
        PourMethod::Peg => ("PEG", PEG, PEG_LIGHT),
    }
}

const METHODS: [PourMethod; 2] = [PourMethod::Lcp, PourMethod::Peg];

/// Every figure of `pour` from its rows: the overlap figure (Fig. 21 / 24), the
/// failures, and in 2D Fig. 22 (per step against time if `fig22`, means against h).
pub fn draw_figures(
    pour: Pour,
    rows: &[FigRow],
    runs: &[RunRow],
    fig22: Option<&Fig22>,
    img: &Path,
    text: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    anyhow::ensure!(!rows.is_empty(), "no rows to plot");
    std::fs::create_dir_all(img).with_context(|| format!("creating {}", img.display()))?;
    // Seeds per (method, h): one figure may merge sweeps of different seed counts.
    let lo = rows.iter().map(|r| r.runs).min().unwrap_or(0);
    let hi = rows.iter().map(|r| r.runs).max().unwrap_or(0);
    let seeds = if lo == hi {
        format!("{hi}")
    } else {
        format!("{lo}–{hi}")
    };
    // Simulated time of the runs (steps × h), if the runs CSV says.
    let durations: Vec<f64> = runs.iter().map(|r| r.steps as f64 * r.h).collect();
    let dur = match durations.first() {
        Some(d) if durations.iter().all(|x| (x - d).abs() < 1e-6 * d.max(1.0)) => {
            format!(", {d:.3} s")
        }
        _ => String::new(),
    };
    let mut out = Vec::new();
    let (what, fig, unit) = match pour {
        Pour::ThreeD => ("3D pour: overlap volume", "24", "overlap volume / L³"),
        Pour::TwoD => ("2D pour: overlap area", "21", "overlap area / L²"),
    };
    let path = img.join(pour.overlap_png());
    draw_overlap(
        rows,
        &path,
        text,
        &format!(
            "{what} vs step (003 Fig. {fig}; {seeds} seeds{dur}; median, quartiles; thin: max)"
        ),
        unit,
    )?;
    out.push(path);
    if !runs.is_empty() {
        let path = img.join(format!("{}_failures.png", pour.png_prefix()));
        let name = match pour {
            Pour::ThreeD => "3D pour",
            Pour::TwoD => "2D pour",
        };
        draw_failures(runs, &path, text, name, &format!("{seeds} seeds{dur}"))?;
        out.push(path);
    }
    if pour == Pour::TwoD {
        let path = img.join("peg_pour_2d_fig22_h.png");
        draw_fig22_h(rows, &path, text, &format!("{seeds} seeds{dur}"))?;
        out.push(path);
        if let Some(f) = fig22 {
            let path = img.join("peg_pour_2d_fig22.png");
            draw_fig22(f, &path, text)?;
            out.push(path);
        }
    }
    Ok(out)
}

fn h_axis(rows: impl Iterator<Item = f64>) -> anyhow::Result<Axis<'static>> {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for h in rows {
        lo = lo.min(h);
        hi = hi.max(h);
    }
    anyhow::ensure!(lo.is_finite() && hi > 0.0, "no step sizes to plot");
    Ok(Axis {
        desc: "step size h, s",
        range: (lo / 1.2, hi * 1.2),
        scale: Scale::Log,
    })
}

fn chart<'a>(title: &'a str, text: bool, legend: SeriesLabelPosition) -> Chart<'a> {
    Chart {
        title,
        size: (1000, 600),
        text,
        shade: &[],
        legend,
    }
}

/// Fig. 21 / 24: median with the quartile band, and the max, against h.
fn draw_overlap(
    rows: &[FigRow],
    path: &Path,
    text: bool,
    title: &str,
    y_name: &str,
) -> anyhow::Result<()> {
    let x = h_axis(rows.iter().map(|r| r.h))?;
    let (ylo, yhi) = log_range(rows.iter().flat_map(|r| [r.q1, r.q3, r.max]));
    // One decade of room below the lowest value, three above the highest (the
    // legend).
    let ylo = (ylo / 10.0).max(FLOOR / 10.0);
    let yhi = yhi * 1e3;
    let names: Vec<(String, String)> = METHODS
        .iter()
        .map(|&m| {
            let n = colors(m).0;
            (format!("{n}: median"), format!("{n}: max"))
        })
        .collect();
    let mut curves = Vec::new();
    for (&m, (median_name, max_name)) in METHODS.iter().zip(&names) {
        let pts: Vec<&FigRow> = rows.iter().filter(|r| r.method == m).collect();
        if pts.is_empty() {
            continue;
        }
        let (_, color, light) = colors(m);
        curves.push(plot::Series {
            name: median_name,
            color,
            points: pts.iter().map(|r| (r.h, clamp(r.median))).collect(),
            band: pts
                .iter()
                .map(|r| (r.h, r.q3))
                .chain(pts.iter().rev().map(|r| (r.h, r.q1)))
                .collect(),
            markers: true,
        });
        curves.push(plot::Series::line(
            max_name,
            light,
            pts.iter().map(|r| (r.h, clamp(r.max))).collect(),
        ));
    }
    let y_desc = format!("{y_name} (values < {FLOOR:e} drawn at it)");
    line_chart(
        path,
        &chart(title, text, SeriesLabelPosition::UpperLeft),
        &Axes {
            x,
            y: Axis {
                desc: &y_desc,
                range: (ylo, yhi),
                scale: Scale::Log,
            },
        },
        &curves,
    )
}

/// Lemke failures per 100 steps against h; crashed runs in the legend.
fn draw_failures(
    runs: &[RunRow],
    path: &Path,
    text: bool,
    name: &str,
    what: &str,
) -> anyhow::Result<()> {
    let mut hs: Vec<f64> = runs.iter().map(|r| r.h).collect();
    hs.sort_by(f64::total_cmp);
    hs.dedup();
    let x = h_axis(hs.iter().copied())?;
    let mut names = Vec::new();
    let mut pts = Vec::new();
    for m in METHODS {
        let mine: Vec<&RunRow> = runs.iter().filter(|r| r.method == m).collect();
        if mine.is_empty() {
            continue;
        }
        let crashed = mine.iter().filter(|r| r.quarantined > 0).count();
        let fallbacks: u64 = mine.iter().map(|r| r.solver_fallbacks).sum();
        names.push(format!(
            "{} (crashed runs: {crashed} of {}; PGS fallbacks: {fallbacks})",
            colors(m).0,
            mine.len()
        ));
        let p: Vec<(f64, f64)> = hs
            .iter()
            .filter_map(|&h| {
                let at: Vec<&&RunRow> = mine.iter().filter(|r| r.h == h).collect();
                let steps: u64 = at.iter().map(|r| r.steps).sum();
                let fails: u64 = at.iter().map(|r| r.solver_failures).sum();
                (steps > 0).then(|| (h, 100.0 * fails as f64 / steps as f64))
            })
            .collect();
        pts.push((m, p));
    }
    let ymax = pts
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(1.0, f64::max)
        * 1.1;
    let curves: Vec<plot::Series> = pts
        .into_iter()
        .zip(&names)
        .map(|((m, p), name)| {
            let mut s = plot::Series::line(name, colors(m).1, p);
            s.markers = true;
            s
        })
        .collect();
    let title = format!("{name}: Lemke failures per 100 steps vs step ({what})");
    line_chart(
        path,
        &chart(&title, text, SeriesLabelPosition::UpperLeft),
        &Axes {
            x,
            y: Axis {
                desc: "Lemke failures (PGS fallbacks) per 100 steps",
                range: (0.0, ymax),
                scale: Scale::Linear,
            },
        },
        &curves,
    )
}

/// Fig. 22 against h: mean potential contacts and SM traps per step, both models.
fn draw_fig22_h(rows: &[FigRow], path: &Path, text: bool, what: &str) -> anyhow::Result<()> {
    let x = h_axis(rows.iter().map(|r| r.h))?;
    let mut curves = Vec::new();
    let names = [
        [
            "standard model: potential contacts",
            "standard model: SM traps",
        ],
        ["PEG: potential contacts", "PEG: SM traps"],
    ];
    let mut ymax = 1.0f64;
    for (&m, name) in METHODS.iter().zip(&names) {
        let pts: Vec<&FigRow> = rows.iter().filter(|r| r.method == m).collect();
        let c: Vec<(f64, f64)> = pts
            .iter()
            .filter_map(|r| r.contacts_mean.map(|c| (r.h, c)))
            .collect();
        let t: Vec<(f64, f64)> = pts
            .iter()
            .filter_map(|r| r.traps_mean.map(|c| (r.h, c)))
            .collect();
        ymax = c.iter().chain(&t).map(|p| p.1).fold(ymax, f64::max);
        let (_, color, light) = colors(m);
        for (n, p, col) in [(name[0], c, color), (name[1], t, light)] {
            if !p.is_empty() {
                let mut s = plot::Series::line(n, col, p);
                s.markers = true;
                curves.push(s);
            }
        }
    }
    let title = format!(
        "2D pour: potential contacts and SM traps per step vs step (cf. 003 Fig. 22; {what})"
    );
    line_chart(
        path,
        &chart(&title, text, SeriesLabelPosition::UpperLeft),
        &Axes {
            x,
            y: Axis {
                desc: "mean count per step",
                range: (0.0, ymax * 1.1),
                scale: Scale::Linear,
            },
        },
        &curves,
    )
}

/// Fig. 22: potential contacts and SM traps per step against time, one run.
fn draw_fig22(r: &Fig22, path: &Path, text: bool) -> anyhow::Result<()> {
    let t = |i: usize| (i + 1) as f64 * r.h;
    let series = |v: &[u32]| -> Vec<(f64, f64)> {
        v.iter()
            .enumerate()
            .map(|(i, &c)| (t(i), c as f64))
            .collect()
    };
    let (contacts, traps) = (series(&r.potential), series(&r.traps));
    let ymax = contacts.iter().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let with_trap = r.traps.iter().filter(|&&x| x > 0).count() as f64;
    let title = format!(
        "2D pour, PEG: potential contacts and SM traps per step (003 Fig. 22; seed {}, h = {:?} s; a trap in {:.0} % of steps)",
        r.seed,
        r.h,
        100.0 * with_trap / r.traps.len().max(1) as f64
    );
    line_chart(
        path,
        &chart(&title, text, SeriesLabelPosition::UpperLeft),
        &Axes {
            x: Axis {
                desc: "time, s",
                range: (0.0, t(r.potential.len().max(1))),
                scale: Scale::Linear,
            },
            y: Axis {
                desc: "count per step",
                range: (0.0, ymax),
                scale: Scale::Linear,
            },
        },
        &[
            plot::Series::line("potential contacts", PEG, contacts),
            plot::Series::line("SM traps (vertex–vertex)", LCP, traps),
        ],
    )
}
