//! The primal solver's problems captured from a pipeline's solves, and what the
//! tests comparing it with Lemke on them need (lcp33's `lcp_patch.rs`, lcp34's
//! `lcp_split.rs`; `lcp_primal.rs`'s dumped problems take `with_full_w`,
//! `primal_profile.rs`'s same-problem comparison `velocity_change`). Included
//! with `#[path = "common/scene_problems.rs"] mod scene_problems;` beside
//! `mod common;`.
#![allow(dead_code)]

use crate::common::lemke_contacts;
use rtphys::solver::primal::NO_BODY;
use rtphys::solver::{
    contact_residual, BodyRows, ContactProblem, DofRows, PrimalParams, PrimalResults, PrimalSolver,
    PrimalStatus,
};
use rtphys::{Data, Model, Pipeline};
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

/// The primal solves of `steps` steps of `model` (this thread's; the observer
/// [`capture`] set by the caller).
pub fn captured(model: &Model, steps: usize) -> Vec<Captured> {
    CAPTURE.with(|c| c.set(true));
    let mut data = Data::new(model);
    let mut pipeline = Pipeline::new(model);
    for _ in 0..steps {
        pipeline.step(model, &mut data);
    }
    CAPTURE.with(|c| c.set(false));
    std::mem::take(&mut *CAPTURED.lock().expect("capture lock"))
}

/// The primal solver against Lemke on a scene's captured problems, counted.
#[derive(Default)]
pub struct Tally {
    /// Problems whose two answers were compared, and of those within 1e-8.
    pub compared: usize,
    pub close: usize,
    /// The primal solver not converged; Lemke failed; Lemke "solved" with a
    /// natural-map residual above 1e-9 (not compared).
    pub unconverged: usize,
    pub lemke_failed: usize,
    pub lemke_off: usize,
    /// The largest velocity difference compared ([`velocity_gap`]), and the
    /// largest natural-map residual of the primal answers.
    pub worst: f64,
    pub worst_res: f64,
}

impl Tally {
    /// One captured problem `p` (`full`: the same with W whole,
    /// [`with_full_w`]): the primal solver at `params` from `guess` into `res`;
    /// where it converges, its answer's natural-map residual on `full`
    /// (`contact_residual`) and Lemke's answer on `full`
    /// (`common::lemke_contacts`); where Lemke's meets the map within 1e-9, the
    /// bodies' velocity changes of the two compared. True where compared.
    pub fn compare(
        &mut self,
        p: &ContactProblem,
        full: &ContactProblem,
        rows: &BodyRows,
        params: PrimalParams,
        guess: Option<&[f64]>,
        res: &mut PrimalResults,
    ) -> bool {
        let st = PrimalSolver::new(params).solve_contacts(p, rows, guess, res);
        if st != PrimalStatus::Converged {
            self.unconverged += 1;
            return false;
        }
        let all: Vec<u32> = (0..full.n() as u32).collect();
        self.worst_res = self.worst_res.max(contact_residual(full, &all, &res.z));
        let Some(zl) = lemke_contacts(full) else {
            self.lemke_failed += 1;
            return false;
        };
        if contact_residual(full, &all, &zl) > 1e-9 {
            self.lemke_off += 1;
            return false;
        }
        let d = velocity_gap(rows, &res.z, &zl);
        self.worst = self.worst.max(d);
        self.compared += 1;
        self.close += usize::from(d <= 1e-8);
        true
    }

    /// The counts as the tests report them.
    pub fn report(&self) -> String {
        format!(
            "{} compared, worst velocity difference {:.3e}, the primal answers' residual \
             {:.3e}; Lemke failed {}, Lemke solved above 1e-9 {}, primal unconverged {}; within \
             1e-8 {} of {}",
            self.compared,
            self.worst,
            self.worst_res,
            self.lemke_failed,
            self.lemke_off,
            self.unconverged,
            self.close,
            self.compared
        )
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
