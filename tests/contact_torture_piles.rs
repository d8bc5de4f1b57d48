//! Piles that rest (issue 11's "friction that holds", issue 18's sleeping piles): a
//! tetrahedron of four spheres — three on the floor touching each other, one on top —
//! is statically feasible with friction far inside the cone, so it must stay where it
//! settles.
//!
//! Statics (R the radius, every sphere alike): the line between the top's centre and
//! a bottom sphere's is at asin(√(2/3)) = 54.7° above the horizontal. A bottom sphere
//! is held by three forces (gravity at its centre, the top's force at the contact P,
//! the floor's at F), so moments about F put the top's force on the chord P → F, at
//! 17.6° from the contact normal: the sphere–sphere contact needs a friction ratio
//! tan 17.6° = 0.32 and the floor less (0.09 here); μ = 0.8 holds both with room.
//! So every body's displacement between t = 1 s (the landing of the top, placed 1 mm
//! above, long over) and t = 5 s is zero for rigid bodies; the compliant models rest
//! on their springs, and the tolerance is 1e-5 m (a creep of 2.5 µm/s — what the
//! penalty method's sticking anchors did before their solve saw the step's other
//! forces: 2.9 mm in 4 s, the bottom spheres rolling apart while their anchors to
//! the top were dragged along the cone; docs/EXPERIMENTS.md "A tetrahedron of
//! spheres that creeps"). (The LCP method, Lemke, moves 4.7e-6 m in the same
//! 4 s; not run here: 5,000 steps of it cost two minutes of CI.)

mod common;
use common::load_str;
use rtphys::Data;

const R: f64 = 0.05;

fn tetrahedron(method: &str, rolling: f64) -> String {
    let mat = format!("material = {{ mu = 0.8, rolling = {rolling} }}");
    let mut s = format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nintegrator = \"semi_implicit_euler\"\nmethod = \"{method}\"\n\n"
    );
    if method == "penalty" {
        s += "[penalty]\nkp_per_mass = 20000.0\nkv_per_mass = 300.0\nki_per_mass = 1000.0\n\n";
    }
    s += &format!(
        "[[body]]\nname = \"floor\"\nstatic = true\nshape = {{ type = \"plane\" }}\n{mat}\n"
    );
    // Bottom centres on a circle of radius 2R/√3: neighbours exactly touching.
    let d = 2.0 * R / 3f64.sqrt();
    for i in 0..3 {
        let a = std::f64::consts::TAU * i as f64 / 3.0;
        s += &format!(
            "\n[[body]]\nname = \"s{i}\"\nshape = {{ type = \"sphere\", radius = {R} }}\nmass = 0.5\nposition = [{}, {}, {R}]\n{mat}\n",
            d * a.cos(),
            d * a.sin()
        );
    }
    let z = R + 2.0 * R * (2.0f64 / 3.0).sqrt() + 1e-3;
    s += &format!(
        "\n[[body]]\nname = \"top\"\nshape = {{ type = \"sphere\", radius = {R} }}\nmass = 0.5\nposition = [0.0, 0.0, {z}]\n{mat}\n"
    );
    s
}

/// Largest displacement of any body from t = 1 s to t = 5 s, and the largest |v|
/// meanwhile.
fn drift(method: &str, rolling: f64) -> (f64, f64) {
    let model = load_str(&tetrahedron(method, rolling));
    let mut d = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    common::run(&mut pl, &model, &mut d, 1000);
    let x1: Vec<_> = d.state.iter().map(|s| s.x).collect();
    let mut vmax = 0.0f64;
    for _ in 0..4000 {
        pl.step(&model, &mut d);
        vmax = d.state.iter().map(|s| s.v.norm()).fold(vmax, f64::max);
    }
    let moved = d
        .state
        .iter()
        .zip(&x1)
        .map(|(s, x)| (s.x - x).norm())
        .fold(0.0, f64::max);
    (moved, vmax)
}

#[test]
fn sphere_tetrahedron_rests() {
    for (method, rolling) in [
        ("penalty", 1e-3),
        ("hunt_crossley", 1e-3),
        ("hunt_crossley", 0.0),
    ] {
        let (moved, vmax) = drift(method, rolling);
        println!("{method} mu_r = {rolling}: moved {moved:.3e} m from 1 s to 5 s, max |v| {vmax:.2e} m/s");
        assert!(moved < 1e-5, "{method} mu_r = {rolling}: moved {moved} m");
    }
    // Not within the tolerance, printed: penalty without rolling resistance.
    let (moved, vmax) = drift("penalty", 0.0);
    println!("penalty mu_r = 0: moved {moved:.3e} m from 1 s to 5 s, max |v| {vmax:.2e} m/s");
}
