//! Failing PEG LCPs to files, for the solver survey (`tests/peg_lcp_survey.rs`,
//! issue 12, branch `peg9`). Off by default: `RTPHYS_PEG_LCP_DUMP=DIR` (read when
//! the workspace is made) writes the scaled LCP (M, q) that every attempt of
//! Lemke's ladder (`peg::ladder`: an island's or a two-body group's) failed on to
//! `DIR/peg_lcp_NNN_nN.bin`, at most `RTPHYS_PEG_LCP_DUMP_N` (default 8) of them
//! per workspace. Writing allocates: a diagnostic, never on in the real-time loop.
//!
//! # Format (little-endian)
//! A dense M of n ≈ 300–500 is 0.7–2 MB of doubles; the PEG LCP has the structure
//! of `peg::assemble`: over z = (p | β | σ | c) (n_f force rows, k directions,
//! `is = n_f (k + 1)`), the block of M over the rows R = {p, β, c} and the columns
//! C = {p, β} is the W part (rows and columns linear combinations of the island's
//! W = J M⁻¹ Jᵀ, eqs. (42)–(47) of 003: rank ≤ 6 per moving body), and every other
//! entry is structural (E, −Eᵀ, μ, the slack chains' ones, scaled). So the file
//! holds the structural entries as triplets and the W block as a truncated SVD
//! M_RC ≈ U Vᵀ (singular values above min(`SVD_REL` σ_max, `SVD_ABS`) folded into U):
//!
//! ```text
//! b"PEGLCP01", u64 n, n_f, k, r, n_s   header (n_s structural triplets)
//! f64 × 2                                σ_max, max |M_RC − U Vᵀ| (at the dump)
//! f64 × n                                q
//! (u32 i, u32 j, f64 v) × n_s            M_ij outside R × C, nonzero
//! f64 × |R| r, f64 × |C| r               U, V (row-major), R = 0..is ∪ is+n_f..n
//! ```
//!
//! The LCP read back is the dumped one up to the truncation error (printed when
//! written, stored in the header), i.e. round-off of W's own assembly.

use nalgebra::{DMatrix, DVector};

use crate::solver::lcp::LcpProblem;

/// Singular values of the W block below this fraction of the largest are
/// dropped. Measured on step 17's island (`tests/peg_large_step.rs` with
/// `PEG_PASSES` = 2; n = 414, two bodies): σ₁…σ₁₂ = 2.0e3 … 1.46, then σ₁₃ =
/// 1.4e-7 and below — the rank-12 part is J M⁻¹ Jᵀ of two free bodies, the rest
/// W's relative 1e-9 diagonal regularization (`delassus`) carried through the
/// slack rows' differences, and round-off. Keeping σ > 1e-9 σ_max keeps the rank
/// 12 part (file 75 kB instead of 753 kB) and changes M by ≤ 2e-7 absolute
/// (entries up to 2e3; Lemke's zero tolerance on it is 1e-7 · 158), printed
/// per dump. `RTPHYS_PEG_LCP_DUMP_EXACT=1` keeps σ > 1e-13 σ_max instead.
pub const SVD_REL: f64 = 1e-9;

/// ... but a singular value above this (absolute; the scaled W has a unit
/// normal diagonal) is always kept: on badly scaled islands (σ_max = 1.3e6–1.5e7
/// in the 3D pour at h = 5e-2) `SVD_REL` alone cut real ones (truncation
/// 3e-5–3e-4). The entry error of the truncation is ≤ the first dropped σ.
pub const SVD_ABS: f64 = 1e-6;

const MAGIC: &[u8; 8] = b"PEGLCP01";

/// What a dump file says besides the LCP.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DumpInfo {
    /// Force rows n_f, friction directions k, the W block's kept rank r.
    pub nf: usize,
    pub k: usize,
    pub rank: usize,
    /// σ_max of the W block and the largest entry error of its truncation.
    pub sigma_max: f64,
    pub trunc_err: f64,
}

/// The rows of the W block (all but σ's): `0..is` and `is + nf..n`.
fn block_rows(n: usize, nf: usize, k: usize) -> impl Iterator<Item = usize> {
    let is = nf * (k + 1);
    (0..is).chain(is + nf..n)
}

/// Encodes the LCP (M, q) of `nf` force rows and `k` directions (layout of
/// `peg::assemble`), the W block's singular values above min(`rel` σ_max,
/// [`SVD_ABS`]) kept.
/// `None` if the layout does not fit M.
pub fn encode(
    m: &DMatrix<f64>,
    q: &DVector<f64>,
    nf: usize,
    k: usize,
    rel: f64,
) -> Option<Vec<u8>> {
    let n = q.len();
    let is = nf * (k + 1);
    if m.shape() != (n, n) || is + nf > n {
        return None;
    }
    let rows: Vec<usize> = block_rows(n, nf, k).collect();
    let mut b = DMatrix::zeros(rows.len(), is);
    for (a, &i) in rows.iter().enumerate() {
        for j in 0..is {
            b[(a, j)] = m[(i, j)];
        }
    }
    let svd = b.clone().svd(true, true);
    let (u, vt) = (svd.u?, svd.v_t?);
    let smax = svd.singular_values.iter().fold(0.0f64, |a, &s| a.max(s));
    let keep: Vec<usize> = (0..svd.singular_values.len())
        .filter(|&i| svd.singular_values[i] > (rel * smax).min(SVD_ABS))
        .collect();
    let r = keep.len();
    let mut uf = DMatrix::zeros(rows.len(), r);
    let mut vf = DMatrix::zeros(is, r);
    for (c, &i) in keep.iter().enumerate() {
        for a in 0..rows.len() {
            uf[(a, c)] = u[(a, i)] * svd.singular_values[i];
        }
        for j in 0..is {
            vf[(j, c)] = vt[(i, j)];
        }
    }
    let err = (&uf * vf.transpose() - &b).amax();
    let in_block = |i: usize, j: usize| j < is && !(is..is + nf).contains(&i);
    let mut trip = Vec::new();
    for j in 0..n {
        for i in 0..n {
            if m[(i, j)] != 0.0 && !in_block(i, j) {
                trip.push((i as u32, j as u32, m[(i, j)]));
            }
        }
    }
    let mut out = Vec::with_capacity(64 + 8 * (n + (rows.len() + is) * r) + 16 * trip.len());
    out.extend_from_slice(MAGIC);
    for x in [n, nf, k, r, trip.len()] {
        out.extend_from_slice(&(x as u64).to_le_bytes());
    }
    for x in [smax, err] {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for x in q.iter() {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for (i, j, v) in &trip {
        out.extend_from_slice(&i.to_le_bytes());
        out.extend_from_slice(&j.to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    }
    for a in 0..rows.len() {
        for c in 0..r {
            out.extend_from_slice(&uf[(a, c)].to_le_bytes());
        }
    }
    for j in 0..is {
        for c in 0..r {
            out.extend_from_slice(&vf[(j, c)].to_le_bytes());
        }
    }
    Some(out)
}

/// Decodes a dump: the LCP (M, q) and what the header says. `None` on a file
/// that is not one (wrong magic, sizes that do not fit, indices out of range).
pub fn decode(bytes: &[u8]) -> Option<(LcpProblem, DumpInfo)> {
    let mut rd = Reader { bytes, at: 0 };
    if rd.take(8)? != MAGIC {
        return None;
    }
    let mut u64s = [0usize; 5];
    for x in &mut u64s {
        *x = usize::try_from(u64::from_le_bytes(rd.take(8)?.try_into().ok()?)).ok()?;
    }
    let [n, nf, k, r, ns] = u64s;
    let is = nf.checked_mul(k.checked_add(1)?)?;
    if is.checked_add(nf)? > n || n > 100_000 || r > n {
        return None;
    }
    let sigma_max = rd.f64()?;
    let trunc_err = rd.f64()?;
    let mut q = DVector::zeros(n);
    for i in 0..n {
        q[i] = rd.f64()?;
    }
    let mut m = DMatrix::zeros(n, n);
    for _ in 0..ns {
        let i = rd.u32()? as usize;
        let j = rd.u32()? as usize;
        let v = rd.f64()?;
        if i >= n || j >= n {
            return None;
        }
        m[(i, j)] = v;
    }
    let rows: Vec<usize> = block_rows(n, nf, k).collect();
    let mut uf = DMatrix::zeros(rows.len(), r);
    for a in 0..rows.len() {
        for c in 0..r {
            uf[(a, c)] = rd.f64()?;
        }
    }
    let mut vf = DMatrix::zeros(is, r);
    for j in 0..is {
        for c in 0..r {
            vf[(j, c)] = rd.f64()?;
        }
    }
    let b = &uf * vf.transpose();
    for (a, &i) in rows.iter().enumerate() {
        for j in 0..is {
            m[(i, j)] = b[(a, j)];
        }
    }
    let info = DumpInfo {
        nf,
        k,
        rank: r,
        sigma_max,
        trunc_err,
    };
    Some((LcpProblem { m, q }, info))
}

/// A cursor over a dump's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        Some(s)
    }
    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

/// Writes the LCP in `ls.problem` (of the island or group in `ls.peg.isl_force`)
/// if the dump is on and its count not spent (module doc). Errors are printed,
/// never raised.
pub(super) fn maybe_dump(ls: &mut super::LcpWorkspace) {
    let Some(dir) = ls.peg.dump_dir.as_deref() else {
        return;
    };
    if ls.peg.dump_left == 0 {
        return;
    }
    ls.peg.dump_left -= 1;
    let seq = ls.peg.dump_seq;
    ls.peg.dump_seq += 1;
    let (nf, k) = (ls.peg.isl_force.len(), ls.dirs.len());
    let n = ls.problem.q.len();
    let path = std::path::Path::new(dir).join(format!("peg_lcp_{seq:03}_n{n}.bin"));
    let rel = if std::env::var("RTPHYS_PEG_LCP_DUMP_EXACT").is_ok_and(|v| v == "1") {
        1e-13
    } else {
        SVD_REL
    };
    // Written by the diagnostics thread (`crate::diag`): the step never touches
    // the disk or the terminal.
    let text = match encode(&ls.problem.m, &ls.problem.q, nf, k, rel) {
        Some(bytes) => {
            let info = decode(&bytes).map(|(_, i)| i);
            let text = format!(
                "rtphys: PEG LCP dump {} (step {}, n = {n}, n_f = {nf}, k = {k}, {} bytes, {info:?})\n",
                path.display(),
                ls.peg.step_no,
                bytes.len()
            );
            crate::diag::emit(crate::diag::Output::File {
                path: path.to_string_lossy().into_owned(),
                contents: bytes,
            });
            text
        }
        None => format!("rtphys: PEG LCP dump: layout does not fit (n = {n}, n_f = {nf})\n"),
    };
    crate::diag::emit(crate::diag::Output::Stderr(text));
}
