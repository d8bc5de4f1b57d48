//! The primal solver's problems captured from a pipeline's solves, and what the
//! tests comparing it with Lemke on them need (lcp33's `lcp_patch.rs`, lcp34's
//! `lcp_split.rs`; `lcp_primal.rs`'s dumped problems take `with_full_w`,
//! `primal_profile.rs`'s same-problem comparison `velocity_change`). Included
//! with `#[path = "common/scene_problems.rs"] mod scene_problems;`.
#![allow(dead_code)]

use rtphys::solver::primal::NO_BODY;
use rtphys::solver::{BodyRows, ContactProblem, DofRows, PrimalParams};
use std::cell::Cell;
use std::sync::Mutex;

thread_local! {
    /// This thread's pipeline solves are captured (the observer is the
    /// process's; other tests step pipelines on other threads).
    pub static CAPTURE: Cell<bool> = const { Cell::new(false) };
}

pub type Captured = (PrimalParams, ContactProblem, BodyRows, Option<Vec<f64>>);

pub static CAPTURED: Mutex<Vec<Captured>> = Mutex::new(Vec::new());

pub fn capture(
    params: &PrimalParams,
    problem: &ContactProblem,
    rows: &BodyRows,
    dofs: Option<&DofRows>,
    guess: Option<&[f64]>,
) {
    if CAPTURE.with(|c| c.get()) && dofs.is_none() {
        CAPTURED.lock().expect("capture lock").push((
            *params,
            problem.clone(),
            rows.clone(),
            guess.map(<[f64]>::to_vec),
        ));
    }
}

/// Per body, `M⁻¹ Gᵀ z` (the velocity change the step takes), six entries a
/// body (v, ω) one body after the other.
pub fn velocity_change(rows: &BodyRows, z: &[f64]) -> Vec<f64> {
    let mut gtz = vec![[0.0; 6]; rows.mass.len()];
    for (i, (sides, jac)) in rows.body.iter().zip(&rows.jac).enumerate() {
        for (&b, j) in sides.iter().zip(jac) {
            if b == NO_BODY {
                continue;
            }
            for a in 0..3 {
                for c in 0..6 {
                    gtz[b as usize][c] += j[6 * a + c] * z[3 * i + a];
                }
            }
        }
    }
    gtz.iter()
        .zip(&rows.minv)
        .flat_map(|(g, m)| (0..6).map(move |r| (0..6).map(|c| m[(r, c)] * g[c]).sum::<f64>()))
        .collect()
}

/// `max |δv_a − δv_b|` of the bodies' velocity changes, relative above 1 m/s.
pub fn velocity_gap(rows: &BodyRows, za: &[f64], zb: &[f64]) -> f64 {
    let (va, vb) = (velocity_change(rows, za), velocity_change(rows, zb));
    let scale = vb.iter().fold(1.0f64, |a, x| a.max(x.abs()));
    va.iter()
        .zip(&vb)
        .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()))
        / scale
}

/// `p` with W whole, from the body rows (`W_ij = Σ J_i M⁻¹ J_jᵀ` over shared
/// bodies, `+ E_i` on the diagonal): the pipeline hands the primal solver the
/// diagonal blocks alone (`delassus`, "Diagonal-only rows"). E is the rows' CFM,
/// which holds `[lcp] split_memory`'s σ W_nn where the key is on (lcp34).
pub fn with_full_w(p: &ContactProblem, rows: &BodyRows) -> ContactProblem {
    let n = p.n();
    let mut out = ContactProblem {
        row_start: vec![0],
        col: Vec::new(),
        w: Vec::new(),
        ..p.clone()
    };
    for i in 0..n {
        for j in 0..n {
            let mut w = [0.0; 9];
            let mut any = i == j;
            for si in 0..2 {
                for sj in 0..2 {
                    let (bi, bj) = (rows.body[i][si], rows.body[j][sj]);
                    if bi == NO_BODY || bi != bj {
                        continue;
                    }
                    any = true;
                    let m = &rows.minv[bi as usize];
                    let (ja, jb) = (&rows.jac[i][si], &rows.jac[j][sj]);
                    for a in 0..3 {
                        for b in 0..3 {
                            let mut s = 0.0;
                            for r in 0..6 {
                                for c in 0..6 {
                                    s += ja[6 * a + r] * m[(r, c)] * jb[6 * b + c];
                                }
                            }
                            w[3 * a + b] += s;
                        }
                    }
                }
            }
            if i == j {
                for a in 0..3 {
                    w[4 * a] += rows.cfm[i][a];
                }
            }
            if any {
                out.col.push(j as u32);
                out.w.push(w);
            }
        }
        out.row_start.push(out.col.len());
    }
    out
}
