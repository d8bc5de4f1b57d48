//! `method = "lcp"` from scene files: the shipped scenes load and step; bad `[lcp]`
//! keys are refused with file, line and key.

mod common;

use common::load;
use rtphys::model::scene::{load_scene_str, SceneError};
use rtphys::model::{LcpSolverKind, Method, StabilizationScheme};
use rtphys::Data;
use std::path::Path;

/// The 5-stack scene loads as LCP/Lemke with its keys and rests for 1 s (every box
/// within 1e-6 m of its start: it starts at its resting penetration).
#[test]
fn lcp_stack5_scene_loads_and_steps() {
    let model = load("lcp_stack5.toml");
    let Method::Lcp(p) = model.opt.method else {
        panic!("not an LCP scene: {:?}", model.opt.method);
    };
    assert_eq!(p.solver, LcpSolverKind::Lemke);
    assert_eq!(p.friction_directions, 4);
    assert_eq!(p.stabilization, 1.0);
    assert_eq!(p.scheme, StabilizationScheme::StewartTrinkle);
    assert_eq!(model.opt.method.name(), "lcp");
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let x0: Vec<_> = data.state.iter().map(|s| s.x).collect();
    for _ in 0..1000 {
        pipeline.step(&model, &mut data);
    }
    assert!(data.stats.lcp_size > 0 && data.stats.solver_residual < 1e-9);
    for (s, x) in data.state.iter().zip(&x0) {
        assert!((s.x - x).norm() < 1e-6, "{:?} moved from {x:?}", s.x);
    }
    let model = load("lcp_box.toml");
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    for _ in 0..100 {
        pipeline.step(&model, &mut data);
    }
    // The narrow phase gives the 8 vertices of the thin intersection slab; the LCP
    // merges them to the 4 corners: 4 × (1 + k + 1) = 24 Lemke variables (k = 4).
    assert_eq!(data.stats.lcp_size, 24, "a box on a plane: 4 points");
}

const HEAD: &str = "[world]\ndt = 0.001\nmethod = \"lcp\"\n\n[lcp]\n";
const BODY: &str = "\n[[body]]\nname = \"ground\"\nstatic = true\nshape = { type = \"plane\" }\n";

fn err_of(lcp_keys: &str) -> SceneError {
    let text = format!("{HEAD}{lcp_keys}\n{BODY}");
    match load_scene_str(&text, "bad.toml", Path::new(".")) {
        Ok(_) => panic!("scene accepted:\n{text}"),
        Err(e) => e,
    }
}

fn assert_names(e: &SceneError, key: &str, msg_part: &str, line: usize) {
    let s = e.to_string();
    assert!(s.starts_with("bad.toml:"), "no file:line in: {s}");
    assert!(s.contains(key), "key '{key}' not in: {s}");
    assert!(s.contains(msg_part), "'{msg_part}' not in: {s}");
    assert_eq!(e.line, Some(line), "{s}");
}

#[test]
fn bad_lcp_keys_are_named_with_file_line_key() {
    // Line 6 is the first key of [lcp].
    let cases: [(&str, &str, &str); 9] = [
        ("solver = \"dantzig\"", "solver", "unknown variant"),
        (
            "friction_directions = 3",
            "lcp.friction_directions",
            "[4, 64]",
        ),
        ("stabilization = 1.5", "lcp.stabilization", "[0, 1]"),
        ("stabilization = \"half\"", "lcp.stabilization", "\"off\""),
        ("scheme = \"baumgarte\"", "scheme", "unknown variant"),
        (
            "penetration_allowance = -1e-3",
            "lcp.penetration_allowance",
            "≥ 0",
        ),
        ("max_iterations = 0", "lcp.max_iterations", "≥ 1"),
        ("relaxation = 2.0", "lcp.relaxation", "(0, 2)"),
        ("tolerance = nan", "lcp.tolerance", "> 0"),
    ];
    for (line, key, msg) in cases {
        let e = err_of(line);
        assert_names(&e, key, msg, 6);
    }
    // An unknown key in [lcp].
    let e = err_of("warmstart = true");
    assert!(e.to_string().contains("warmstart"), "{e}");
    assert_eq!(e.line, Some(6), "{e}");
}

/// `method = "peg"` loads as the LCP step with PEG's rows (its name is "peg"),
/// reads the `[lcp]` table, and refuses `solver = "pgs"` at the key.
#[test]
fn peg_method_loads_and_refuses_pgs() {
    let head = HEAD.replace("method = \"lcp\"", "method = \"peg\"");
    let model = load_scene_str(&format!("{head}{BODY}"), "peg.toml", Path::new(".")).expect("peg");
    assert_eq!(model.opt.method.name(), "peg");
    match model.opt.method {
        rtphys::model::Method::Lcp(p) => {
            assert_eq!(p.contact_model, rtphys::model::ContactModel::Peg)
        }
        other => panic!("{other:?}"),
    }
    let text = format!("{head}solver = \"pgs\"\n{BODY}");
    let e = match load_scene_str(&text, "bad.toml", Path::new(".")) {
        Ok(_) => panic!("peg with pgs accepted"),
        Err(e) => e,
    };
    assert_names(&e, "lcp.solver", "not symmetric", 6);
}

/// `[lcp] peg_block_gs` (PEG's block Gauss–Seidel over two-body groups,
/// `pipeline/lcp/peg_bgs.rs`) is a scene key: off unless the scene says so, on
/// with `true`, and a value of the wrong type is refused at the key.
#[test]
fn peg_block_gs_is_a_scene_key() {
    let head = HEAD.replace("method = \"lcp\"", "method = \"peg\"");
    let block_gs = |text: &str| match load_scene_str(text, "peg.toml", Path::new("."))
        .expect("peg")
        .opt
        .method
    {
        rtphys::model::Method::Lcp(p) => p.peg_block_gs,
        other => panic!("{other:?}"),
    };
    assert!(!block_gs(&format!("{head}{BODY}")));
    assert!(block_gs(&format!("{head}peg_block_gs = true\n{BODY}")));
    let e = err_of("peg_block_gs = 1");
    assert_names(&e, "peg_block_gs", "invalid type", 6);
}

/// `[lcp] peg_elastic` (PEG's elastic relaxation of an island every solve failed
/// on, `pipeline::lcp::peg::elastic`) is a scene key like `peg_block_gs`.
#[test]
fn peg_elastic_is_a_scene_key() {
    let head = HEAD.replace("method = \"lcp\"", "method = \"peg\"");
    let elastic = |text: &str| match load_scene_str(text, "peg.toml", Path::new("."))
        .expect("peg")
        .opt
        .method
    {
        rtphys::model::Method::Lcp(p) => p.peg_elastic,
        other => panic!("{other:?}"),
    };
    assert!(!elastic(&format!("{head}{BODY}")));
    assert!(elastic(&format!("{head}peg_elastic = true\n{BODY}")));
    let e = err_of("peg_elastic = \"yes\"");
    assert_names(&e, "peg_elastic", "invalid type", 6);
}
