//! A column of ten 0.1 m, 1 kg boxes on a plane (μ = 0.8, h = 1 ms) under the LCP
//! method with Lemke, the scene's default solver: a degenerate problem at rest.
//! Each face carries four coplanar corner points (four normal rows on three
//! degrees of freedom, sixteen friction directions on three), so W is singular
//! but for its constraint force mixing ε = 1e-9, and a basis on all four corners
//! has a condition number ≈ 1/ε.
//!
//! Found (session 33, `docs/EXPERIMENTS.md` "Lemke's resting column"): with the
//! regularized diagonal ≈ ε W_ii at Lemke's own pivot tolerance (1e-9 of the
//! largest entry), a resting solve now and then ended with a residual of ≈ 5e-9
//! instead of 1e-14; the error fed the next warm start and the column was kicked
//! — ten boxes rose to 1.5e-12 J and drifted 1.7e-9 m in 5 s; twenty failed
//! Lemke twice a step from 4.34 s (PGS fallback, 1.4e-4 m drift, 1.45e-3 J).
//! Lemke now solves a proximal problem (`pipeline::lcp`, "Lemke's proximal
//! step"): ε_L = 1e-6 on the W rows, centred on the last impulses, re-centred
//! until its term is below the CFM's — the unregularized LCP's solution nearest
//! the last one, on bases with a condition number ≈ 1e6.

mod common;

use common::load_str;
use rtphys::{Data, Pipeline};

fn column(n: usize) -> String {
    let mut s = String::from(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = \"lcp\"\n\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = { type = \"plane\" }\n\
         material = { mu = 0.8 }\n",
    );
    for i in 0..n {
        s += &format!(
            "\n[[body]]\nname = \"b{i}\"\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\n\
             mass = 1.0\nposition = [0.0, 0.0, {}]\nmaterial = {{ mu = 0.8 }}\n",
            0.05 + 0.1 * i as f64
        );
    }
    s
}

/// The column rests for 5 s: no Lemke failure (no PGS fallback), the kinetic
/// energy after the first 0.5 s ≤ 1e-20 J (every speed below ≈ 1e-10 m/s; exact
/// rest measures 5e-27 J, main's kicked column 1.5e-12 J), and no box drifts
/// sideways by more than 1e-12 m (measured 3.2e-14 m; main 1.7e-9 m).
#[test]
fn a_resting_column_of_ten_stays_at_rest_under_lemke() {
    let model = load_str(&column(10));
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let mut ke_max = 0.0f64;
    for step in 0..5000 {
        pipe.step(&model, &mut data);
        if step >= 500 {
            ke_max = ke_max.max(data.kinetic_energy(&model));
        }
    }
    let drift = data
        .state
        .iter()
        .map(|b| b.x.x.hypot(b.x.y))
        .fold(0.0f64, f64::max);
    let s = &data.stats;
    println!(
        "failures {} fallbacks {} unconverged {}, KE max {ke_max:.3e} J, drift {drift:.3e} m",
        s.solver_failures, s.solver_fallbacks, s.solver_unconverged
    );
    assert_eq!(s.solver_failures, 0, "Lemke failed");
    assert!(ke_max <= 1e-20, "the column moved: {ke_max:.3e} J");
    assert!(drift <= 1e-12, "the column drifted {drift:.3e} m");
}
