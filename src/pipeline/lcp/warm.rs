//! Warm start (module doc of `lcp`, "Warm start"): each pair remembers the
//! impulses of its points in `PairState::lcp_impulse` (so they ride in snapshots);
//! PGS starts from them, Lemke from their active set.

use super::{ContactRow, LcpWorkspace, NO_PAIR};
use crate::data::PairState;
use crate::math::tangent_basis;
use crate::solver::resize_zeroed;

/// (cos φ, sin φ) of the row's t₁ in the engine's basis `tangent_basis(n)`, or
/// `None` where the row keeps that basis (`rows::align_friction` turned it by φ).
/// Stored impulses are in the engine's basis, so a kept basis copies them bit for bit.
fn turned(row: &ContactRow) -> Option<(f64, f64)> {
    let (t1, t2) = tangent_basis(&row.n);
    (row.t1 != t1).then(|| (row.t1.dot(&t1), row.t1.dot(&t2)))
}

/// Last step's impulses of the same pair and slot into `ls.impulse`; false if none.
pub(super) fn warm_impulses(pairs: &[PairState], ls: &mut LcpWorkspace) -> bool {
    let mut any = false;
    for (c, row) in ls.contacts.iter().enumerate() {
        if row.pair == NO_PAIR {
            continue;
        }
        let pr = &pairs[row.pair];
        if row.slot < pr.lcp_points as usize {
            let mut v = pr.lcp_impulse[row.slot];
            if let Some((co, si)) = turned(row) {
                // Engine basis → the row's: f₁' = f·t₁', f₂' = f·t₂'.
                let (f1, f2) = (v[1], v[2]);
                v[1] = co * f1 + si * f2;
                v[2] = co * f2 - si * f1;
            }
            ls.impulse[3 * c..3 * c + 3].copy_from_slice(&v);
            any |= v[0] > 0.0;
        }
    }
    any
}

/// Lemke's guess from `ls.impulse`: p_n; β on the two directions bracketing f_t;
/// σ > 0 where f_t is on the cone's boundary. False if nothing is active.
pub(super) fn lemke_guess(ls: &mut LcpWorkspace) -> bool {
    let nc = ls.contacts.len();
    let k = ls.dirs.len();
    resize_zeroed(&mut ls.guess, nc * (k + 2));
    let mut any = false;
    for c in 0..nc {
        let (pn, f1, f2) = (
            ls.impulse[3 * c],
            ls.impulse[3 * c + 1],
            ls.impulse[3 * c + 2],
        );
        if pn <= 0.0 {
            continue;
        }
        any = true;
        ls.guess[c] = pn;
        if let Some((j, [b0, b1])) = bracket(f1, f2, &ls.dirs) {
            ls.guess[nc + c * k + j] = b0.max(0.0);
            ls.guess[nc + c * k + (j + 1) % k] = b1.max(0.0);
            // On the boundary (Σβ = μ p_n): sliding, σ active.
            if b0 + b1 >= (1.0 - 1e-6) * ls.contacts[c].mu * pn {
                ls.guess[nc + nc * k + c] = 1.0;
            }
        }
    }
    any && ls.guess.iter().all(|x| x.is_finite())
}

/// The tangential impulse f = (f1, f2) as b0 d_j + b1 d_{j+1} on the two
/// directions of the k-gon `dirs` (unit (cos, sin), evenly spaced from angle 0)
/// that bracket it; `None` for f = 0. Lemke's β guess (the standard rows and PEG's).
pub(super) fn bracket(f1: f64, f2: f64, dirs: &[(f64, f64)]) -> Option<(usize, [f64; 2])> {
    let k = dirs.len();
    let mag = f1.hypot(f2);
    if k == 0 || mag.is_nan() || mag <= 0.0 {
        return None;
    }
    let mut th = f2.atan2(f1);
    if th < 0.0 {
        th += std::f64::consts::TAU;
    }
    let j = ((th / (std::f64::consts::TAU / k as f64)) as usize).min(k - 1);
    let (c0, s0) = dirs[j];
    let (c1, s1) = dirs[(j + 1) % k];
    let det = c0 * s1 - s0 * c1;
    Some((j, [(f1 * s1 - f2 * c1) / det, (c0 * f2 - s0 * f1) / det]))
}

/// Stores each point's impulse in its pair (the next step's warm start).
pub(super) fn remember_impulses(pairs: &mut [PairState], set_pair: &[usize], ls: &LcpWorkspace) {
    for pr in pairs.iter_mut() {
        pr.touching = false;
    }
    for &pi in set_pair {
        pairs[pi].touching = true;
        pairs[pi].lcp_points = 0;
    }
    for (c, row) in ls
        .contacts
        .iter()
        .enumerate()
        .filter(|(_, r)| r.pair != NO_PAIR)
    {
        let pr = &mut pairs[row.pair];
        pr.lcp_impulse[row.slot].copy_from_slice(&ls.impulse[3 * c..3 * c + 3]);
        if let Some((co, si)) = turned(row) {
            // The row's basis → the engine's (the inverse rotation).
            let v = &mut pr.lcp_impulse[row.slot];
            let (f1, f2) = (v[1], v[2]);
            v[1] = co * f1 - si * f2;
            v[2] = si * f1 + co * f2;
        }
        pr.lcp_points = pr.lcp_points.max(row.slot as u8 + 1);
    }
    for pr in pairs.iter_mut().filter(|p| !p.touching) {
        pr.lcp_points = 0;
    }
}
