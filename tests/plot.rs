//! `rtphys plot`'s PNGs are a function of their data: one small chart rendered twice
//! (with text, log and linear axes, a shaded window, a band and markers) gives the
//! same bytes, so regenerating docs/img changes a file only when its data changed.

use plotters::prelude::{RGBColor, SeriesLabelPosition};
use rtphys::tools::plot::{line_chart, log_range, register, Axes, Axis, Chart, Scale, Series};
use std::path::{Path, PathBuf};

fn render(path: &Path, text: bool) -> Vec<u8> {
    // A decaying oscillation, with values below the log floor at the end.
    let y: Vec<(f64, f64)> = (1..=400)
        .map(|k| {
            let t = k as f64 * 0.01;
            (
                t,
                (-3.0 * t).exp() * (1.5 + (7.0 * t).sin()) * if k > 380 { 1e-30 } else { 1.0 },
            )
        })
        .collect();
    let band: Vec<(f64, f64)> = y
        .iter()
        .map(|&(t, v)| (t, 2.0 * v))
        .chain(y.iter().rev().map(|&(t, v)| (t, 0.5 * v)))
        .collect();
    let mut s = Series::line("decay", RGBColor(31, 119, 180), y.clone());
    s.band = band;
    s.markers = true;
    let yr = log_range(y.iter().map(|p| p.1));
    line_chart(
        path,
        &Chart {
            title: "determinism check",
            size: (320, 200),
            text,
            shade: &[(0.5, 1.0), (2.0, 2.5)],
            legend: SeriesLabelPosition::UpperRight,
        },
        &Axes {
            x: Axis {
                desc: "t, s",
                range: (0.0, 4.0),
                scale: Scale::Linear,
            },
            y: Axis {
                desc: "value",
                range: yr,
                scale: Scale::Log,
            },
        },
        &[
            s,
            Series::line(
                "line",
                RGBColor(214, 39, 40),
                vec![(0.0, 1e-3), (4.0, 1e-1)],
            ),
        ],
    )
    .expect("render");
    std::fs::read(path).expect("read png")
}

#[test]
fn the_same_chart_renders_to_the_same_bytes() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/plot-determinism");
    std::fs::create_dir_all(&dir).expect("dir");
    let font = Path::new("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
    let text = register(font);
    for text in if text { vec![true, false] } else { vec![false] } {
        let a = render(&dir.join(format!("a_{text}.png")), text);
        let b = render(&dir.join(format!("b_{text}.png")), text);
        assert!(a.len() > 1000, "PNG of {} bytes", a.len());
        assert!(
            a == b,
            "text = {text}: two renders differ ({} vs {} bytes)",
            a.len(),
            b.len()
        );
    }
}
