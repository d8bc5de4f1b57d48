//! The split held toward the last tick's loads (`[lcp] split_memory` = σ,
//! lcp34; off by default).
//!
//! A body resting on dependent rows (a face on its four corners, a box lying
//! on two others) is statically indeterminate: the rigid problem leaves the
//! split of its load over those rows free, and the LCP's CFM `E = ε W_ii`
//! (ε = 1e-9, `REGULARIZATION`) picks one — to within `tolerance / (ε W_nn)`,
//! far above the loads, so in practice the solver's path picks it, and it
//! moves between ticks (docs/EXPERIMENTS.md, lcp32–lcp34). The primal
//! solver's friction radii `μ p_n` follow the split, and its passes are spent
//! finding the new split's radii (lcp32, lcp33).
//!
//! With σ > 0 the normal row of every point that persists from the last tick
//! (its pair and slot remembered an impulse, `PairState::lcp_impulse`) takes
//! the term `σ W_nn (p_n − p̄_n)` in its row of `w`: a CFM of σ relative to W's
//! diagonal, centred on the last load p̄_n instead of 0 (a proximal term of
//! the tick-to-tick sequence, in the LCP itself):
//!
//! ```text
//! W_nn ← W_nn (1 + ε) + σ W_nn,     q_n ← q_n − σ W_nn p̄_n
//! ```
//!
//! It is the same LCP for every solver (Lemke, PGS, Newton, primal: W and q
//! are changed before they read them; the primal solver's body rows take the
//! term into their CFM, `solve::body_rows`), still symmetric positive definite
//! and solved exactly at convergence. Where a point's load repeats the term is
//! zero: a rest whose loads repeat is a solution of the unregularized LCP.
//! Where the load changes, the normal row's velocity is off by `σ W_nn (p_n −
//! p̄_n)` — σ times the velocity change the load change makes at the point
//! (as the CFM's ε W_nn p_n is ε times the whole load's): a compliance of the
//! load's change, not of the load. New points (no memory) and joint limits
//! take no term.

use super::{LcpWorkspace, NO_PAIR};
use crate::data::PairState;
use crate::model::LcpParams;

/// Per point σ and the centre p̄_n (last tick's normal load, ≥ 0) into
/// `ls.split_sigma` / `ls.split_centre`, `ls.split_extra` zeroed (filled by
/// `delassus`); all three emptied when the key is off or `standard` is false
/// (PEG's rows), so that `delassus` adds nothing.
pub(super) fn centre(p: &LcpParams, pairs: &[PairState], standard: bool, ls: &mut LcpWorkspace) {
    let sigma = if standard { p.split_memory } else { 0.0 };
    if sigma <= 0.0 {
        ls.split_sigma.clear();
        ls.split_centre.clear();
        ls.split_extra.clear();
        return;
    }
    let nc = ls.contacts.len();
    for v in [
        &mut ls.split_sigma,
        &mut ls.split_centre,
        &mut ls.split_extra,
    ] {
        v.clear();
        v.resize(nc, 0.0);
    }
    for (c, row) in ls.contacts.iter().enumerate() {
        if row.limit || row.pair == NO_PAIR {
            continue;
        }
        let Some(pr) = pairs.get(row.pair) else {
            continue;
        };
        if row.slot < pr.lcp_points as usize {
            let pn = pr.lcp_impulse[row.slot][0];
            if pn.is_finite() {
                ls.split_sigma[c] = sigma;
                ls.split_centre[c] = pn.max(0.0);
            }
        }
    }
}

/// `q_n −= σ W_nn p̄_n` on the persisting points' normal rows, in q_W (`ls.qw`,
/// `ls.sparse.q`) and in the kept rows (`ls.q_keep`): after `consistent::project`
/// (the term is the solve's, not the stabilization's). Nothing when the key is off.
pub(super) fn shift_q(ls: &mut LcpWorkspace) {
    let n = ls.split_extra.len().min(ls.split_centre.len());
    for c in 0..n {
        let t = ls.split_extra[c] * ls.split_centre[c];
        if t != 0.0 {
            ls.qw[3 * c] -= t;
            ls.sparse.q[3 * c] -= t;
            ls.q_keep[c][0] -= t;
        }
    }
}
