//! Behaviour pinned byte for byte: every shipped scene under every method it loads
//! with (and both integrators, and LCP by Lemke and by PGS) is stepped as `rtphys run`
//! steps it, and the FNV-1a hash of the CSV `rtphys run` writes, together with the
//! bits of the whole final state (bodies, robot q and q̇, contact memory), is
//! compared with `tests/golden/run_hashes.txt`.
//!
//! The file was written before the step was restructured (the architecture issue:
//! stepper workspaces out of `Data`, one step outline); a refactor that changes any
//! bit of any run fails here. A deliberate change of behaviour re-blesses the file:
//! `RTPHYS_BLESS=1 cargo test --release --test golden_runs`, and says why in its commit.

mod common;

use rtphys::model::scene::MethodName;
use rtphys::model::{Integrator, LcpSolverKind, Method, Model};
use rtphys::run::{apply_overrides, write_header, write_row};
use std::fmt::Write as _;
use std::path::Path;

const STEPS: u64 = 300;

/// FNV-1a, 64 bit: stable across platforms and Rust versions.
struct Fnv(u64);
impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn f64s<'a>(&mut self, xs: impl IntoIterator<Item = &'a f64>) {
        for x in xs {
            self.bytes(&x.to_bits().to_le_bytes());
        }
    }
}

/// The configurations a scene is run under: (label, model) for every method the
/// scene loads with.
fn variants(model: &Model) -> Vec<(String, Result<Model, String>)> {
    let mut out = Vec::new();
    for (label, m) in [
        ("penalty", MethodName::Penalty),
        ("penalty_deepest", MethodName::PenaltyDeepest),
        ("hunt_crossley", MethodName::HuntCrossley),
        ("lcp", MethodName::Lcp),
    ] {
        let base = apply_overrides(model, Some(m), None, None).map_err(|e| e.to_string());
        match (&base, m) {
            (Ok(b), MethodName::Lcp) => {
                for (sl, s) in [("lemke", LcpSolverKind::Lemke), ("pgs", LcpSolverKind::Pgs)] {
                    let mut opt = b.opt;
                    if let Method::Lcp(p) = &mut opt.method {
                        p.solver = s;
                    }
                    out.push((format!("lcp_{sl}"), Ok(b.with_options(opt))));
                }
            }
            (Ok(b), MethodName::Penalty | MethodName::HuntCrossley) => {
                for (il, i) in [
                    ("rk4", Integrator::Rk4),
                    ("sie", Integrator::SemiImplicitEuler),
                ] {
                    let mut opt = b.opt;
                    opt.integrator = i;
                    out.push((format!("{label}_{il}"), Ok(b.with_options(opt))));
                }
            }
            _ => out.push((label.to_string(), base)),
        }
    }
    out
}

/// Hash of the CSV of `STEPS` steps and of the final state's bits.
fn run_hash(model: &Model) -> String {
    let mut data = rtphys::Data::new(model);
    let mut pipeline = rtphys::Pipeline::new(model);
    let mut csv = Vec::new();
    write_header(model, &mut csv).unwrap();
    for _ in 0..STEPS {
        pipeline.step(model, &mut data);
        write_row(model, &data, &mut csv).unwrap();
    }
    let mut h = Fnv::new();
    h.bytes(&csv);
    let csv_hash = h.0;
    let mut s = Fnv::new();
    for b in &data.state {
        s.f64s(b.x.iter());
        s.f64s(b.q.coords.iter());
        s.f64s(b.v.iter());
        s.f64s(b.w.iter());
    }
    s.f64s(&data.qpos);
    s.f64s(&data.qvel);
    for p in &data.pairs {
        s.bytes(&p.geom_a.to_le_bytes());
        s.bytes(&p.geom_b.to_le_bytes());
        s.f64s([&p.integral, &p.last_max_depth, &p.hc_damping, &p.hc_substep]);
        for i in &p.lcp_impulse {
            s.f64s(i);
        }
    }
    format!("csv {csv_hash:016x} state {:016x}", s.0)
}

fn all_hashes() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenes");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    let mut out = String::new();
    for name in names {
        let model = common::load(&name);
        for (label, m) in variants(&model) {
            let line = match m {
                Ok(m) => run_hash(&m),
                Err(e) => format!("refused: {e}"),
            };
            writeln!(out, "{name} {label}: {line}").unwrap();
        }
    }
    out
}

#[test]
fn every_scene_under_every_method_is_bit_identical_to_the_golden_runs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/run_hashes.txt");
    let got = all_hashes();
    if std::env::var_os("RTPHYS_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).expect("tests/golden/run_hashes.txt");
    let mut diff = Vec::new();
    for (g, w) in got.lines().zip(want.lines()) {
        if g != w {
            diff.push(format!("  now  {g}\n  was  {w}"));
        }
    }
    assert_eq!(
        got.lines().count(),
        want.lines().count(),
        "a scene or method was added or removed; re-bless deliberately"
    );
    assert!(diff.is_empty(), "runs changed:\n{}", diff.join("\n"));
}
