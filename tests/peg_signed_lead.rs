//! `[lcp] peg_signed_lead` (peg17's variant, a scene key since peg18; off by
//! default): the first pass's rows take each contact's own signed second-order
//! gap term at the start-of-step ν in place of the pair's rotation lead
//! h²|ω|²r (`pipeline::lcp::peg`, `second_order_gap`). Its measurement on the
//! 3D pour over 10 seeds is docs/EXPERIMENTS.md, peg18; here: the key loads,
//! is off by default, and keeps the sharp edge–edge impact's criteria of
//! `tests/peg_method.rs`. (A box landing flat is not a case where it changes
//! nothing: under the default it picks up |ω| ≈ 4e-9 rad/s from round-off.)

mod common;
use common::load_str;
use rtphys::Data;

fn world(dt: f64, g: f64, signed: Option<bool>) -> String {
    let key = signed.map_or(String::new(), |s| {
        format!("[lcp]\npeg_signed_lead = {s}\n\n")
    });
    format!("[world]\ngravity = [0.0, 0.0, {g}]\ndt = {dt}\nmethod = \"peg\"\n\n{key}")
}

fn body(name: &str, fixed: bool, shape: &str, pos: [f64; 3]) -> String {
    let kind = if fixed { "static = true" } else { "mass = 1.0" };
    format!(
        "[[body]]\nname = \"{name}\"\n{kind}\nshape = {shape}\nposition = [{}, {}, {}]\nmaterial = {{ mu = 0.0 }}\n\n",
        pos[0], pos[1], pos[2]
    )
}

const BOX: &str = "{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }";
const TABLE: &str = "{ type = \"box\", half_extents = [0.5, 0.5, 0.1] }";
const WEDGE_UP: &str = "{ type = \"polytope\", points = [[-0.2, 0.0, 0.0], [0.2, 0.0, 0.0], [-0.2, 0.1, -0.1], [0.2, 0.1, -0.1], [-0.2, -0.1, -0.1], [0.2, -0.1, -0.1]] }";
const WEDGE_DOWN: &str = "{ type = \"polytope\", points = [[0.0, -0.2, 0.0], [0.0, 0.2, 0.0], [0.1, -0.2, 0.1], [0.1, 0.2, 0.1], [-0.1, -0.2, 0.1], [-0.1, 0.2, 0.1]] }";

fn signed_of(model: &rtphys::Model) -> bool {
    match &model.opt.method {
        rtphys::model::Method::Lcp(p) => p.peg_signed_lead,
        _ => panic!("PEG runs on the LCP stepper"),
    }
}

/// The key loads, and is off when not given.
#[test]
fn signed_lead_key_loads_and_is_off_by_default() {
    let bodies =
        body("table", true, TABLE, [0.0, 0.0, 0.0]) + &body("box", false, BOX, [0.0, 0.0, 0.15]);
    assert!(!signed_of(&load_str(&(world(1e-3, -9.81, None) + &bodies))));
    assert!(!signed_of(&load_str(
        &(world(1e-3, -9.81, Some(false)) + &bodies)
    )));
    assert!(signed_of(&load_str(
        &(world(1e-3, -9.81, Some(true)) + &bodies)
    )));
}

/// `peg_method`'s edge–edge impact (a ridge-down wedge hits a crossed ridge-up
/// wedge at 2 m/s, 5 mm off centre, g = 0, 1 kHz, 0.3 s) with the key on: the
/// same criteria, overlap ≤ 1e-9 L³ at every step (L = 0.1 m) and kinetic
/// energy never above 1.01 T₀.
#[test]
fn signed_lead_keeps_the_edge_edge_impact() {
    let text = world(1e-3, 0.0, Some(true))
        + &body("base", true, WEDGE_UP, [0.0, 0.0, 0.0])
        + &body("top", false, WEDGE_DOWN, [0.005, 0.005, 0.01]);
    let model = load_str(&text);
    let mut data = Data::new(&model);
    let b = model
        .bodies
        .iter()
        .position(|x| x.name == "top")
        .expect("top");
    data.state[b].v.z = -2.0;
    let mut pl = rtphys::Pipeline::new(&model);
    let t0 = data.kinetic_energy(&model);
    let (mut worst, mut gain) = (0.0f64, f64::NEG_INFINITY);
    for _ in 0..300 {
        pl.step(&model, &mut data);
        worst = worst.max(common::polytope_overlap(&model, &data) / 1e-3);
        gain = gain.max((data.kinetic_energy(&model) - t0) / t0);
    }
    println!(
        "signed lead: max overlap {worst:.2e} L³, max (T − T₀)/T₀ = {gain:+.2e}, Lemke failures {}",
        data.stats.solver_failures
    );
    assert!(worst <= 1e-9, "overlap {worst:e} L³");
    assert!(gain <= 0.01, "energy gain {gain:e}");
}
