//! The 7-DoF arm's forward dynamics two ways, for an instruction count per call
//! (issue 18 item 4, fixed5): ABA (`dynamics::aba`, what the step runs) against
//! CRBA + the tree LᵀL factorization + RNEA's bias (`crba`, `factor_mass`,
//! `solve_mass`, `rnea` at q̈ = 0: MuJoCo's formulation), both with the servo
//! armature, at 2,000 configurations (no kinematics cache hits):
//!
//!     cargo build --release --example aba_vs_crba
//!     valgrind --tool=callgrind --toggle-collect='*by_aba*' target/release/examples/aba_vs_crba
//!     valgrind --tool=callgrind --toggle-collect='*by_crba*' target/release/examples/aba_vs_crba
//!
//! It prints the largest relative difference of the two q̈.

use rtphys::dynamics::{
    aba, crba, factor_mass, rnea, solve_mass, ArticulatedData, ArticulatedModel, DynamicsError,
    ExtInputs,
};
use rtphys::model::scene::load_scene_file;

/// q̈ by ABA into `out`.
#[inline(never)]
fn by_aba(
    t: &ArticulatedModel,
    d: &mut ArticulatedData,
    (q, v, tau, arm): (&[f64], &[f64], &[f64], &[f64]),
    out: &mut [f64],
) -> Result<(), DynamicsError> {
    let ext = ExtInputs {
        f_ext: None,
        damping: None,
        armature: Some(arm),
    };
    aba(t, d, q, v, tau, &ext)?;
    out.copy_from_slice(d.qdd.as_slice());
    Ok(())
}

/// q̈ = (H + diag(armature))⁻¹ (τ − C(q, q̇)) into `out`.
#[inline(never)]
fn by_crba(
    t: &ArticulatedModel,
    d: &mut ArticulatedData,
    (q, v, tau, arm): (&[f64], &[f64], &[f64], &[f64]),
    out: &mut [f64],
) -> Result<(), DynamicsError> {
    let zero = [0.0; 32];
    rnea(t, d, q, v, &zero[..v.len()], &ExtInputs::default())?;
    for (k, o) in out.iter_mut().enumerate() {
        *o = tau[k] - d.tau[k];
    }
    crba(t, d, q)?;
    for (k, a) in arm.iter().enumerate() {
        d.mass_matrix[(k, k)] += a;
    }
    factor_mass(d)?;
    solve_mass(d, out)
}

fn main() -> anyhow::Result<()> {
    let m = load_scene_file("config/scenes/arm.toml")?;
    let r = m
        .robots
        .first()
        .ok_or_else(|| anyhow::anyhow!("no robot"))?;
    let t = &r.tree;
    let n = r.nv();
    anyhow::ensure!(n <= 32 && n == r.nq(), "a fixed-base robot of ≤ 32 DoF");
    let mut d = ArticulatedData::new(t);
    let q0 = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785];
    let (tau, arm, v) = (vec![0.3; n], vec![0.03; n], vec![0.2; n]);
    let (mut q, mut a1, mut a2) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut worst = 0.0f64;
    for k in 0..2000 {
        for (j, qj) in q.iter_mut().enumerate() {
            *qj = q0.get(j).copied().unwrap_or(0.0) + 1e-4 * k as f64;
        }
        by_aba(t, &mut d, (&q, &v, &tau, &arm), &mut a1)?;
        by_crba(t, &mut d, (&q, &v, &tau, &arm), &mut a2)?;
        for (x, y) in a1.iter().zip(&a2) {
            worst = worst.max((x - y).abs() / x.abs().max(1.0));
        }
    }
    println!("2000 configurations: largest |q̈_ABA − q̈_CRBA| / max(|q̈|, 1) = {worst:.2e}");
    Ok(())
}
