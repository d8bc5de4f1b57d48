//! The pours' figures (003 Figs. 21, 22, 24; `rtphys experiment pour-figures`,
//! `rtphys::tools::pour_figures`): drawn from small CSVs they are non-empty PNGs of
//! the stated size (decoded header, not a pixel golden); a sweep's CSV reads back
//! to the same lines; malformed CSV is an error, never a panic.

use rtphys::experiments::peg_pour::PourMethod;
use rtphys::tools::experiment::{experiment_main, ExperimentKind, PegPourArgs};
use rtphys::tools::pour_figures::{
    pour_figures_main, read_fig_csv, read_runs_csv, Pour, PourFiguresArgs,
};
use rtphys::tools::ExperimentArgs;
use std::path::{Path, PathBuf};

const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/peg-figures-test")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("test dir");
    d
}

/// (width, height) of a PNG file, from its signature and IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(b.len() > 2000, "{}: {} bytes", path.display(), b.len());
    assert_eq!(
        &b[..8],
        b"\x89PNG\r\n\x1a\n",
        "{}: not a PNG",
        path.display()
    );
    assert_eq!(&b[12..16], b"IHDR", "{}: no IHDR first", path.display());
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (be(16), be(20))
}

const FIG21_A: &str = "method,h,runs,overlap_q1,overlap_median,overlap_q3,overlap_max,contacts_mean,traps_mean,runs_failed_solve,runs_crashed
lcp,0.001,3,1e-6,1e-5,1e-4,2e-3,30.100,2.000,3,0
peg,0.001,3,0e0,1e-14,1e-12,1e-5,31.000,2.500,0,0
";
const FIG21_B: &str = "method,h,runs,overlap_q1,overlap_median,overlap_q3,overlap_max,contacts_mean,traps_mean,runs_failed_solve,runs_crashed
lcp,0.05,3,1e-4,1e-3,1e-2,5e-2,45.000,9.000,3,1
peg,0.05,3,0e0,0e0,1e-10,2e-2,44.000,8.000,2,0
";
const RUNS_2D_A: &str = "method,seed,h,steps,overlap_q1,overlap_median,overlap_q3,overlap_max,points_mean,contacts_mean,traps_mean,steps_with_trap,solver_failures,solver_fallbacks,quarantined,crash_time,us_per_step
lcp,1,0.001,2000,0e0,0e0,0e0,1e-3,3.00,30.00,2.000,0.200,40,40,0,,100.0
peg,1,0.001,2000,0e0,0e0,0e0,1e-5,3.00,31.00,2.500,0.250,0,0,0,,200.0
";
const RUNS_2D_B: &str = "method,seed,h,steps,overlap_q1,overlap_median,overlap_q3,overlap_max,points_mean,contacts_mean,traps_mean,steps_with_trap,solver_failures,solver_fallbacks,quarantined,crash_time,us_per_step
lcp,1,0.05,40,0e0,0e0,0e0,5e-2,3.00,45.00,9.000,0.600,10,10,1,1.2500,100.0
peg,1,0.05,40,0e0,0e0,0e0,2e-2,3.00,44.00,8.000,0.600,5,5,0,,200.0
";
const FIG24: &str =
    "method,h,runs,overlap_q1,overlap_median,overlap_q3,overlap_max,runs_failed_solve,runs_crashed
lcp,0.001,2,0e0,1e-7,1e-5,1e-3,0,0
lcp,0.05,2,1e-5,1e-4,1e-3,7e-3,1,0
peg,0.001,2,0e0,0e0,0e0,4e-13,0,0
peg,0.05,2,0e0,0e0,1e-12,5e-6,2,0
";

/// Two 2D sweep directories (one step size each, one with Fig. 22's run) and a 3D
/// one → every figure, 1000 × 600 pixels, non-empty.
#[test]
fn pour_figures_draws_every_figure_from_small_csv() {
    let (a, b, c, img) = (dir("a"), dir("b"), dir("c"), dir("img"));
    let w = |d: &Path, f: &str, s: &str| std::fs::write(d.join(f), s).expect("write");
    w(&a, Pour::TwoD.fig_file(), FIG21_A);
    w(&a, Pour::TwoD.runs_file(), RUNS_2D_A);
    let mut fig22 = String::from(Pour::FIG22_HEADER);
    fig22.push('\n');
    for i in 1..=200 {
        let t = i as f64 * 1e-3;
        fig22.push_str(&format!("1,0.001,{i},{t:?},{},{}\n", i / 10, i / 50));
    }
    w(&a, Pour::FIG22_FILE, &fig22);
    w(&b, Pour::TwoD.fig_file(), FIG21_B);
    w(&b, Pour::TwoD.runs_file(), RUNS_2D_B);
    w(&c, Pour::ThreeD.fig_file(), FIG24);
    let written = pour_figures_main(PourFiguresArgs {
        dirs: vec![a, b, c],
        img: img.clone(),
        font: FONT.into(),
    })
    .expect("figures");
    let mut names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "peg_pour_2d_failures.png",
            "peg_pour_2d_fig21.png",
            "peg_pour_2d_fig22.png",
            "peg_pour_2d_fig22_h.png",
            "peg_pour_fig24.png",
        ]
    );
    for p in &written {
        assert_eq!(png_size(p), (1000, 600), "{}", p.display());
    }
}

/// Malformed input is an error naming the file, not a panic: a short line, an
/// unknown method, a non-positive or non-numeric step, an empty file, the same
/// (method, h) in two directories, a directory without a sweep.
#[test]
fn pour_figures_rejects_malformed_csv() {
    let img = dir("bad_img");
    let h = Pour::TwoD.fig_header();
    let cases = [
        format!("{h}\nlcp,0.001,3,1e-6\n"),
        format!("{h}\nrk4,0.001,3,1e-6,1e-5,1e-4,2e-3,30.1,2.0,3,0\n"),
        format!("{h}\nlcp,-0.001,3,1e-6,1e-5,1e-4,2e-3,30.1,2.0,3,0\n"),
        format!("{h}\nlcp,NaN,3,1e-6,1e-5,1e-4,2e-3,30.1,2.0,3,0\n"),
        format!("{h}\nlcp,0.001,three,1e-6,1e-5,1e-4,2e-3,30.1,2.0,3,0\n"),
        String::new(),
    ];
    for (i, text) in cases.iter().enumerate() {
        let d = dir(&format!("bad{i}"));
        std::fs::write(d.join(Pour::TwoD.fig_file()), text).expect("write");
        let r = pour_figures_main(PourFiguresArgs {
            dirs: vec![d],
            img: img.clone(),
            font: FONT.into(),
        });
        let e = r.expect_err(&format!("case {i} accepted: {text:?}"));
        assert!(
            format!("{e:#}").contains(Pour::TwoD.fig_file()),
            "case {i}: error does not name the file: {e:#}"
        );
    }
    let (a, b) = (dir("dup_a"), dir("dup_b"));
    std::fs::write(a.join(Pour::TwoD.fig_file()), FIG21_A).expect("write");
    std::fs::write(b.join(Pour::TwoD.fig_file()), FIG21_A).expect("write");
    let e = pour_figures_main(PourFiguresArgs {
        dirs: vec![a, b],
        img: img.clone(),
        font: FONT.into(),
    })
    .expect_err("duplicate (method, h) accepted");
    assert!(format!("{e:#}").contains("also in another"), "{e:#}");
    assert!(pour_figures_main(PourFiguresArgs {
        dirs: vec![dir("empty")],
        img,
        font: FONT.into(),
    })
    .is_err());
}

/// A tiny sweep of each pour (1 seed, h = 0.05, 0.3 s) writes CSV whose lines read
/// back and re-print byte for byte, with one run per method of 6 steps, and its
/// figures.
#[test]
fn sweep_csv_reads_back_to_the_same_lines() {
    for (pour, kind) in [
        (
            Pour::TwoD,
            ExperimentKind::PegPour2d as fn(PegPourArgs) -> ExperimentKind,
        ),
        (Pour::ThreeD, ExperimentKind::PegPour),
    ] {
        let (out, img) = (
            dir(&format!("sweep_{pour:?}")),
            dir(&format!("sweep_img_{pour:?}")),
        );
        experiment_main(ExperimentArgs {
            what: kind(PegPourArgs {
                seeds: 1,
                steps: vec![0.05],
                duration: 0.3,
                out: out.clone(),
                img: img.clone(),
                font: FONT.into(),
                peg_retry_depth: None,
                peg_retry_overlap: None,
                peg_rotation_eps_theta: false,
                peg_retry_rotation_eps_theta: false,
                peg_retry_second_chance: false,
                peg_no_outline_ccd: false,
                peg_ccd_retry: false,
                peg_ccd_held: false,
                peg_vv_one_sided: false,
            }),
        })
        .expect("sweep");
        let fig_path = out.join(pour.fig_file());
        let (p, rows) = read_fig_csv(&fig_path).expect("fig csv");
        assert_eq!(p, pour);
        let text = std::fs::read_to_string(&fig_path).expect("read");
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines.len(), 2);
        for (row, line) in rows.iter().zip(&lines) {
            assert_eq!(row.csv_line(), *line, "{pour:?}");
            assert_eq!(row.runs, 1);
            assert_eq!(row.contacts_mean.is_some(), pour == Pour::TwoD);
        }
        assert_eq!(rows[0].method, PourMethod::Lcp);
        assert_eq!(rows[1].method, PourMethod::Peg);
        let runs = read_runs_csv(&out.join(pour.runs_file())).expect("runs csv");
        assert_eq!(runs.len(), 2);
        assert!(runs
            .iter()
            .all(|r| r.steps == 6 && r.h == 0.05 && r.seed == 1));
        let overlap_png = match pour {
            Pour::TwoD => "peg_pour_2d_fig21.png",
            Pour::ThreeD => "peg_pour_fig24.png",
        };
        assert_eq!(png_size(&img.join(overlap_png)), (1000, 600));
        if pour == Pour::TwoD {
            assert!(out.join(Pour::FIG22_FILE).exists());
            assert_eq!(png_size(&img.join("peg_pour_2d_fig22.png")), (1000, 600));
        }
    }
}
