//! Where the pushed row pile (clamped anchor; and linear) parts, sleeping against not
//! sleeping, with the rest memo on (`[penalty] rest_tol`) and off: a
//! diagnostic (`cargo test --release --test sleep_trace -- --ignored
//! --nocapture`) whose figures are in docs/BENCHMARKS.md "scale15" (the memo's
//! manifolds held) and "scale16" (carried to the present poses).

mod common;

use rtphys::math::{Vec3, Wrench};
use rtphys::model::scene::load_scene_str;
use rtphys::{Data, Pipeline};

fn row_pile(clamped: bool) -> String {
    let mut s = String::from(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nintegrator = \"semi_implicit_euler\"\nmethod = \"penalty\"\n\n\
         [penalty]\nkp_per_mass = 20000.0\nkv_per_mass = 300.0\nki_per_mass = 1000.0\nforgetting = 0.9\n\
         [penalty.friction]\nlinear = LINEAR\n\n\
         [[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"plane\" }\nmaterial = { mu = 0.5 }\n\n",
    );
    s = s.replacen("LINEAR", if clamped { "false" } else { "true" }, 1);
    let mut add = |name: &str, x: f64, z: f64| {
        s.push_str(&format!(
            "[[body]]\nname = \"{name}\"\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nmass = 1.0\nposition = [{x:?}, 0.0, {z:?}]\nmaterial = {{ mu = 0.5 }}\n\n"
        ));
    };
    add("pusher", -0.101, 0.0499);
    for (i, x) in [0.0, 0.1001, 0.2002].into_iter().enumerate() {
        add(&format!("bottom{i}"), x, 0.0499);
    }
    for (i, x) in [0.05, 0.1501].into_iter().enumerate() {
        add(&format!("top{i}"), x, 0.1498);
    }
    s
}

struct Trace {
    x: Vec<Vec<Vec3>>,
    data: Vec<Data>,
}

fn run(clamped: bool, memo: bool, sleep: bool, steps: u64, keep: &[u64]) -> Trace {
    let mut text = row_pile(clamped).replacen(
        "[world]\n",
        &format!("[world]\nsleep = {{ enabled = {sleep} }}\n"),
        1,
    );
    if memo {
        text = text.replacen(
            "forgetting = 0.9\n",
            "forgetting = 0.9\nrest_tol = 1e-12\n",
            1,
        );
    }
    let model = load_scene_str(&text, "<trace>", &common::scene_path("")).expect("scene");
    let mut d = Data::new(&model);
    let mut p = Pipeline::new(&model);
    let mut t = Trace {
        x: Vec::new(),
        data: Vec::new(),
    };
    for k in 0..steps {
        d.xfrc[1] = if (1500..2000).contains(&k) {
            Wrench {
                force: Vec3::new(40.0, 0.0, 0.0),
                torque: Vec3::zeros(),
            }
        } else {
            Wrench::ZERO
        };
        p.step(&model, &mut d);
        t.x.push(d.state.iter().map(|s| s.x).collect());
        if keep.contains(&k) {
            t.data.push(d.clone());
        }
    }
    t
}

const KEEP: [u64; 6] = [186, 187, 188, 523, 524, 525];

fn dx(a: &Trace, b: &Trace, k: usize) -> f64 {
    (a.x[k].iter().zip(&b.x[k]))
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max)
}

#[test]
#[ignore = "diagnostic: prints where the runs part (docs/BENCHMARKS.md scale15)"]
fn where_the_pushed_clamped_pile_parts() {
    parts(true);
}

#[test]
#[ignore = "diagnostic: the same on the default friction path (linear anchors)"]
fn where_the_pushed_linear_pile_parts() {
    parts(false);
}

fn parts(clamped: bool) {
    let n = 5000;
    let runs: Vec<(&str, Trace)> = [
        ("memo off, awake", false, false),
        ("memo off, sleeping", false, true),
        ("memo on, awake", true, false),
        ("memo on, sleeping", true, true),
    ]
    .into_iter()
    .map(|(w, m, s)| (w, run(clamped, m, s, n, &KEEP)))
    .collect();
    // The first tick the awake and sleeping runs part: which bodies, asleep or
    // not, and the pairs whose memory differs.
    for (i, j) in [(0, 1), (2, 3)] {
        let (a, b) = (&runs[i].1, &runs[j].1);
        let Some(first) = (0..n as usize).find(|&k| a.x[k] != b.x[k]) else {
            continue;
        };
        let Some(slot) = KEEP.iter().position(|&k| k as usize == first) else {
            println!("{}: first parting {first} not kept", runs[j].0);
            continue;
        };
        let (da, db) = (&a.data[slot], &b.data[slot]);
        for (bi, (sa, sb)) in da.state.iter().zip(&db.state).enumerate() {
            if sa != sb {
                println!(
                    "{} tick {first}: body {bi} parts by {:.2e} m, {:.2e} m/s (asleep: {} / {}, rest {:.3} s)",
                    runs[j].0,
                    (sa.x - sb.x).norm(),
                    (sa.v - sb.v).norm(),
                    da.asleep[bi],
                    db.asleep[bi],
                    db.rest_s[bi],
                );
            }
        }
        let asleep: Vec<usize> = (0..db.asleep.len()).filter(|&b| db.asleep[b]).collect();
        println!("{} tick {first}: asleep {asleep:?}", runs[j].0);
    }
    let at = [
        100, 500, 1000, 1200, 1499, 1510, 1600, 1999, 2500, 3000, 4999,
    ];
    for (i, j) in [(0, 1), (2, 3), (0, 2), (1, 3)] {
        let (a, b) = (&runs[i].1, &runs[j].1);
        let first = (0..n as usize).find(|&k| a.x[k] != b.x[k]);
        print!(
            "{} vs {}: first parted at tick {first:?};",
            runs[i].0, runs[j].0
        );
        for &k in &at {
            print!(" {k}: {:.2e}", dx(a, b, k));
        }
        println!();
    }
}
