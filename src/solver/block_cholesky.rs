//! Block-sparse Cholesky factorization A = L Lᵀ of a symmetric positive definite
//! matrix made of 6×6 blocks (one block row and column per body), for the implicit
//! penalty system (M + h D + h² K) Δv = h f of `pipeline::penalty_implicit`.
//!
//! - **Problem**: n block columns, the 6×6 diagonal blocks A_ii and the off-diagonal
//!   blocks A_ij of an edge list {i, j} (the contact graph: one edge per body pair
//!   carrying rows), assembled by [`BlockCholesky::add_diag`] / [`BlockCholesky::add_edge`].
//! - **Ordering** (symbolic analysis, [`BlockCholesky::analyze`]): minimum degree
//!   over the bodies on the elimination graph (eliminate the node of least current
//!   degree, lowest index on ties; its neighbours become a clique: the fill), which
//!   yields the block pattern of L directly. Disconnected components (islands) never
//!   share a fill block: each is factored on its own (the elimination forest has one
//!   tree per island). The analysis is cached: it is recomputed only when the edge
//!   list changes, and with it the schedule of block updates of the factorization.
//! - **Numeric** ([`BlockCholesky::factor`]): right-looking block Cholesky,
//!   L_kk = chol(A'_kk), L_ik = A'_ik L_kk⁻ᵀ, A'_ij −= L_ik L_jkᵀ over the cached
//!   schedule; L_kk⁻¹ is kept for the triangular solves.
//! - **Solve** ([`BlockCholesky::solve`]): L z = b, Lᵀ x = z, in place.
//! - **Stats**: block columns, fill blocks, block updates of the last analysis.
//!
//! Buffers are reused: after the largest pattern has been seen once, analysis,
//! factorization and solves do not allocate.

use nalgebra::{Matrix6, Vector6};

pub type M6 = Matrix6<f64>;
pub type V6 = Vector6<f64>;

/// Size of the last analysis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockCholeskyStats {
    /// Block columns (bodies).
    pub n: usize,
    /// Off-diagonal blocks of A (edges) and of L (edges + fill).
    pub edges: usize,
    pub l_blocks: usize,
    /// 6×6 block products of one factorization (each 216 multiply-adds).
    pub updates: usize,
    /// Analyses since creation (pattern changes).
    pub analyses: usize,
    /// Block products of the partial refactorizations since creation, and of the
    /// full factorizations they stood in for ([`BlockCholesky::refactor_affected`]).
    pub partial_updates: usize,
    pub partial_full_updates: usize,
}

#[derive(Clone, Debug, Default)]
pub struct BlockCholesky {
    n: usize,
    /// The edge list of the cached analysis (sorted, i < j).
    edges: Vec<(u32, u32)>,
    /// `perm[k]`: the node eliminated k-th; `pos[node]` = k.
    perm: Vec<u32>,
    pos: Vec<u32>,
    /// Column k of L below the diagonal: rows (positions, increasing)
    /// `li[col_ptr[k]..col_ptr[k + 1]]`, blocks `lx[..]` at the same slots.
    col_ptr: Vec<u32>,
    li: Vec<u32>,
    lx: Vec<M6>,
    /// Diagonal blocks: A_kk (by position) before [`Self::factor`], L_kk⁻¹ after.
    diag: Vec<M6>,
    /// Slot in `lx` of each edge (its block lies in the column of the endpoint
    /// eliminated first), and whether the stored block is A_ij (i = edges[e].0
    /// eliminated later) or its transpose.
    edge_slot: Vec<u32>,
    edge_lower: Vec<bool>,
    /// Update schedule: for column k, for b in its rows, for a ≤ b: the target of
    /// L_bk L_akᵀ (slot in `lx`, or `lx.len() + position` for a diagonal block),
    /// from `upd[upd_ptr[k]..upd_ptr[k + 1]]`.
    upd_ptr: Vec<u32>,
    upd: Vec<u32>,
    // Analysis scratch: the elimination graph's adjacency lists in an arena
    // (`adj_at`, `adj_len`; rewritten lists go to its end, `spare` compacts it),
    // degree buckets (doubly linked lists by degree), merge buffers.
    arena: Vec<u32>,
    spare: Vec<u32>,
    adj_at: Vec<u32>,
    adj_len: Vec<u32>,
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    merged: Vec<u32>,
    nbrs: Vec<u32>,
    done: Vec<bool>,
    /// A copy of the assembled values ([`Self::save_values`]).
    base_lx: Vec<M6>,
    base_diag: Vec<M6>,
    /// Solve scratch (by position).
    y: Vec<V6>,
    /// Partial refactorization ([`Self::refactor_affected`]): the block columns (by
    /// position) whose values changed since the last factorization, closed upwards
    /// over the elimination tree.
    affected: Vec<bool>,
    pub stats: BlockCholeskyStats,
}

impl BlockCholesky {
    /// Buffers for up to `n` bodies, with room for the patterns of a dense pile (4
    /// blocks of L and 16 block updates per body, 4 edges per body) so that a
    /// growing pattern rarely has to grow them while stepping.
    pub fn with_capacity(n: usize) -> Self {
        let mut c = BlockCholesky::default();
        for v in [
            &mut c.perm,
            &mut c.pos,
            &mut c.adj_at,
            &mut c.adj_len,
            &mut c.head,
            &mut c.next,
            &mut c.prev,
            &mut c.nbrs,
            &mut c.merged,
            &mut c.col_ptr,
        ] {
            v.reserve(n + 1);
        }
        c.done.reserve(n);
        c.affected.reserve(n);
        c.edges.reserve(4 * n);
        c.edge_slot.reserve(4 * n);
        c.edge_lower.reserve(4 * n);
        c.li.reserve(4 * n);
        c.upd_ptr.reserve(n + 1);
        c.upd.reserve(16 * n);
        c.arena.reserve(16 * n);
        c.spare.reserve(16 * n);
        for v in [&mut c.diag, &mut c.base_diag] {
            v.reserve(n);
        }
        for v in [&mut c.lx, &mut c.base_lx] {
            v.reserve(4 * n);
        }
        c.y.reserve(n);
        c
    }

    /// The symbolic analysis for n block columns and the off-diagonal blocks of
    /// `edges` (sorted, unique, i < j < n). Returns false (keeping the cached
    /// ordering and schedule) when the pattern is that of the last analysis.
    pub fn analyze(&mut self, n: usize, edges: &[(u32, u32)]) -> bool {
        if n == self.n && edges == &self.edges[..] && !self.perm.is_empty() {
            return false;
        }
        if n == 0 {
            self.n = 0;
            self.edges.clear();
            self.perm.clear();
            return true;
        }
        self.n = n;
        self.edges.clear();
        self.edges.extend_from_slice(edges);
        self.minimum_degree(edges);
        // Columns by position: the eliminated node's neighbours, as positions
        // (sorted).
        for s in &mut self.li {
            *s = self.pos[*s as usize];
        }
        for k in 0..n {
            let (s0, s1) = (self.col_ptr[k] as usize, self.col_ptr[k + 1] as usize);
            self.li[s0..s1].sort_unstable();
        }
        let nl = self.li.len();
        self.lx.clear();
        self.lx.resize(nl, M6::zeros());
        self.diag.clear();
        self.diag.resize(n, M6::zeros());
        self.affected.clear();
        self.affected.resize(n, false);
        // Edge slots.
        self.edge_slot.clear();
        self.edge_lower.clear();
        for &(i, j) in edges {
            let (pi, pj) = (self.pos[i as usize], self.pos[j as usize]);
            let (row, col) = if pi > pj { (pi, pj) } else { (pj, pi) };
            self.edge_slot.push(self.slot(row, col));
            self.edge_lower.push(pi > pj);
        }
        // Update schedule.
        self.upd_ptr.clear();
        self.upd.clear();
        self.upd_ptr.push(0);
        for k in 0..n {
            let (s0, s1) = (self.col_ptr[k] as usize, self.col_ptr[k + 1] as usize);
            for b in s0..s1 {
                for a in s0..=b {
                    let (rb, ra) = (self.li[b], self.li[a]);
                    let t = if a == b {
                        (nl + ra as usize) as u32
                    } else {
                        self.slot(rb, ra)
                    };
                    self.upd.push(t);
                }
            }
            self.upd_ptr.push(self.upd.len() as u32);
        }
        self.stats.n = n;
        self.stats.edges = edges.len();
        self.stats.l_blocks = nl;
        self.stats.updates = self.upd.len();
        self.stats.analyses += 1;
        true
    }

    /// Minimum-degree elimination of the graph of `edges` over `self.n` nodes:
    /// fills `perm`/`pos`, and `col_ptr`/`li` with each eliminated node's
    /// neighbours at its elimination (nodes; the column of L).
    fn minimum_degree(&mut self, edges: &[(u32, u32)]) {
        const NIL: u32 = u32::MAX;
        let n = self.n;
        // Adjacency (CSR into the arena), sorted.
        self.adj_len.clear();
        self.adj_len.resize(n, 0);
        for &(i, j) in edges {
            self.adj_len[i as usize] += 1;
            self.adj_len[j as usize] += 1;
        }
        self.adj_at.clear();
        let mut at = 0u32;
        for &l in &self.adj_len {
            self.adj_at.push(at);
            at += l;
        }
        self.arena.clear();
        self.arena.resize(at as usize, 0);
        self.adj_len.iter_mut().for_each(|l| *l = 0);
        for &(i, j) in edges {
            for (u, w) in [(i, j), (j, i)] {
                let u = u as usize;
                self.arena[(self.adj_at[u] + self.adj_len[u]) as usize] = w;
                self.adj_len[u] += 1;
            }
        }
        for u in 0..n {
            let (s0, l) = (self.adj_at[u] as usize, self.adj_len[u] as usize);
            self.arena[s0..s0 + l].sort_unstable();
        }
        // Degree buckets.
        self.head.clear();
        self.head.resize(n, NIL);
        self.next.clear();
        self.next.resize(n, NIL);
        self.prev.clear();
        self.prev.resize(n, NIL);
        for v in (0..n).rev() {
            self.bucket_insert(v as u32);
        }
        self.done.clear();
        self.done.resize(n, false);
        self.perm.clear();
        self.pos.clear();
        self.pos.resize(n, 0);
        self.col_ptr.clear();
        self.col_ptr.push(0);
        self.li.clear();
        let mut mindeg = 0usize;
        for k in 0..n {
            while self.head[mindeg] == NIL {
                mindeg += 1;
            }
            let v = self.head[mindeg];
            self.bucket_remove(v);
            let vu = v as usize;
            self.done[vu] = true;
            self.pos[vu] = k as u32;
            self.perm.push(v);
            let (s0, l) = (self.adj_at[vu] as usize, self.adj_len[vu] as usize);
            self.nbrs.clear();
            self.nbrs.extend_from_slice(&self.arena[s0..s0 + l]);
            self.li.extend_from_slice(&self.nbrs);
            self.col_ptr.push(self.li.len() as u32);
            // The neighbours become a clique: adj[u] ← adj[u] ∪ nbrs \ {u, v}.
            for q in 0..self.nbrs.len() {
                let u = self.nbrs[q];
                let uu = u as usize;
                self.bucket_remove(u);
                self.merged.clear();
                let (s0, l) = (self.adj_at[uu] as usize, self.adj_len[uu] as usize);
                let (a, b) = (&self.arena[s0..s0 + l], &self.nbrs[..]);
                let (mut p, mut r) = (0, 0);
                loop {
                    let x = match (a.get(p), b.get(r)) {
                        (Some(&x), Some(&y)) if x == y => {
                            p += 1;
                            r += 1;
                            x
                        }
                        (Some(&x), Some(&y)) if x < y => {
                            p += 1;
                            x
                        }
                        (Some(_), Some(&y)) => {
                            r += 1;
                            y
                        }
                        (Some(&x), None) => {
                            p += 1;
                            x
                        }
                        (None, Some(&y)) => {
                            r += 1;
                            y
                        }
                        (None, None) => break,
                    };
                    if x != u && x != v {
                        self.merged.push(x);
                    }
                }
                let m = self.merged.len();
                if m > l {
                    if self.arena.len() + m > self.arena.capacity() {
                        self.compact();
                    }
                    self.adj_at[uu] = self.arena.len() as u32;
                    self.arena.extend_from_slice(&self.merged);
                } else {
                    let s0 = self.adj_at[uu] as usize;
                    self.arena[s0..s0 + m].copy_from_slice(&self.merged);
                }
                self.adj_len[uu] = m as u32;
                self.bucket_insert(u);
                mindeg = mindeg.min(m);
            }
        }
    }

    /// Copies the live adjacency lists to the front of the spare arena and swaps
    /// (the lists of eliminated nodes and the old copies of rewritten ones go).
    fn compact(&mut self) {
        self.spare.clear();
        let need = self.arena.capacity().max(2 * self.arena.len());
        if self.spare.capacity() < need {
            self.spare.reserve(need);
        }
        for u in 0..self.n {
            if self.done[u] {
                continue;
            }
            let (s0, l) = (self.adj_at[u] as usize, self.adj_len[u] as usize);
            self.adj_at[u] = self.spare.len() as u32;
            self.spare.extend_from_slice(&self.arena[s0..s0 + l]);
        }
        std::mem::swap(&mut self.arena, &mut self.spare);
    }

    fn bucket_insert(&mut self, v: u32) {
        let d = self.adj_len[v as usize] as usize;
        let h = self.head[d];
        self.next[v as usize] = h;
        self.prev[v as usize] = u32::MAX;
        if h != u32::MAX {
            self.prev[h as usize] = v;
        }
        self.head[d] = v;
    }

    fn bucket_remove(&mut self, v: u32) {
        let d = self.adj_len[v as usize] as usize;
        let (p, nx) = (self.prev[v as usize], self.next[v as usize]);
        if p == u32::MAX {
            self.head[d] = nx;
        } else {
            self.next[p as usize] = nx;
        }
        if nx != u32::MAX {
            self.prev[nx as usize] = p;
        }
    }

    /// Slot of block (row, col) (positions, row > col) of L: in the pattern by
    /// construction (an edge, or fill of the elimination).
    fn slot(&self, row: u32, col: u32) -> u32 {
        let (s0, s1) = (
            self.col_ptr[col as usize] as usize,
            self.col_ptr[col as usize + 1] as usize,
        );
        let off = self.li[s0..s1].partition_point(|&r| r < row);
        debug_assert!(off < s1 - s0 && self.li[s0 + off] == row);
        (s0 + off) as u32
    }

    /// Index of edge {i, j} in the analysed edge list.
    pub fn edge_index(&self, i: u32, j: u32) -> Option<usize> {
        let key = if i < j { (i, j) } else { (j, i) };
        self.edges.binary_search(&key).ok()
    }

    /// Zeroes the blocks (before assembling new values on the same pattern) and
    /// the marks of a partial refactorization (the full one follows).
    pub fn clear_values(&mut self) {
        self.lx.iter_mut().for_each(|m| *m = M6::zeros());
        self.diag.iter_mut().for_each(|m| *m = M6::zeros());
        self.affected.iter_mut().for_each(|a| *a = false);
    }

    /// Keeps a copy of the assembled values, to start the next assembly from
    /// ([`Self::restore_values`]) instead of zero.
    pub fn save_values(&mut self) {
        self.base_lx.clear();
        self.base_lx.extend_from_slice(&self.lx);
        self.base_diag.clear();
        self.base_diag.extend_from_slice(&self.diag);
    }

    /// The values of the last [`Self::save_values`] (same pattern).
    pub fn restore_values(&mut self) {
        self.lx.copy_from_slice(&self.base_lx);
        self.diag.copy_from_slice(&self.base_diag);
    }

    /// A_ii += m.
    #[inline]
    pub fn add_diag(&mut self, i: usize, m: &M6) {
        self.diag[self.pos[i] as usize] += m;
    }

    /// A_ij += m (and A_ji += mᵀ) for edge e = {i, j} of the analysed list, with
    /// `i_first`: whether i is `edges[e].0` (m is then the block of row i, column j).
    #[inline]
    pub fn add_edge(&mut self, e: usize, i_first: bool, m: &M6) {
        let s = self.edge_slot[e] as usize;
        // The stored block is (later, earlier). A_{e.0,e.1} is stored as-is when
        // e.0 is eliminated later (`edge_lower`).
        if i_first == self.edge_lower[e] {
            self.lx[s] += m;
        } else {
            self.lx[s] += m.transpose();
        }
    }

    /// Numeric factorization of the assembled blocks. False if a pivot block is not
    /// positive definite (the values are then unusable until reassembled).
    pub fn factor(&mut self) -> bool {
        (0..self.n).all(|k| self.eliminate(k))
    }

    /// Column k of the right-looking factorization: L_kk = chol(A'_kk) (kept as
    /// L_kk⁻¹), L_ik = A'_ik L_kk⁻ᵀ, then A'_ba −= L_bk L_akᵀ over its schedule.
    /// False if the pivot block is not positive definite.
    fn eliminate(&mut self, k: usize) -> bool {
        let nl = self.lx.len();
        let Some(ch) = self.diag[k].cholesky() else {
            return false;
        };
        let Some(linv) = ch.l().solve_lower_triangular(&M6::identity()) else {
            return false;
        };
        self.diag[k] = linv;
        let lt = linv.transpose();
        let (s0, s1) = (self.col_ptr[k] as usize, self.col_ptr[k + 1] as usize);
        for s in s0..s1 {
            self.lx[s] *= lt;
        }
        let mut u = self.upd_ptr[k] as usize;
        for b in s0..s1 {
            let lb = self.lx[b];
            for a in s0..=b {
                let m = lb * self.lx[a].transpose();
                let t = self.upd[u] as usize;
                u += 1;
                if t >= nl {
                    self.diag[t - nl] -= m;
                } else {
                    self.lx[t] -= m;
                }
            }
        }
        true
    }

    /// Marks node `i`'s block column as changed since the last factorization: its
    /// diagonal block, or an off-diagonal block stored in its column (an edge
    /// {i, j} with i eliminated first: mark both ends).
    #[inline]
    pub fn mark_changed(&mut self, i: usize) {
        self.affected[self.pos[i] as usize] = true;
    }

    /// Closes the marked columns upwards over the elimination tree (a column's
    /// parent is its first row below the diagonal) and puts the assembled values
    /// of the last [`Self::save_values`] back into them, for the caller to take
    /// its changes out of again ([`Self::add_diag_affected`],
    /// [`Self::add_edge_affected`]) before [`Self::refactor_affected`].
    pub fn restore_affected(&mut self) {
        self.close_affected(true);
    }

    /// Closes the marked columns upwards over the elimination tree (as
    /// [`Self::restore_affected`]) and zeroes their blocks, for the caller to
    /// assemble them again from nothing ([`Self::add_diag_affected`],
    /// [`Self::add_edge_affected`]) before [`Self::refactor_affected`]: with the
    /// same terms added in the same order as after [`Self::clear_values`], the
    /// affected columns hold the same values as a full assembly, bit for bit.
    pub fn clear_affected(&mut self) {
        self.close_affected(false);
    }

    /// The upward closure of the marks; each affected column's blocks set to
    /// the saved values (`from_base`) or to zero.
    fn close_affected(&mut self, from_base: bool) {
        for k in 0..self.n {
            if !self.affected[k] {
                continue;
            }
            let (s0, s1) = (self.col_ptr[k] as usize, self.col_ptr[k + 1] as usize);
            if s0 < s1 {
                self.affected[self.li[s0] as usize] = true;
            }
            if from_base {
                self.diag[k] = self.base_diag[k];
                self.lx[s0..s1].copy_from_slice(&self.base_lx[s0..s1]);
            } else {
                self.diag[k] = M6::zeros();
                self.lx[s0..s1].iter_mut().for_each(|m| *m = M6::zeros());
            }
        }
    }

    /// Whether node `i`'s diagonal block lies in an affected column.
    #[inline]
    pub fn diag_is_affected(&self, i: usize) -> bool {
        self.affected[self.pos[i] as usize]
    }

    /// Whether edge `e`'s block lies in an affected column (that of its
    /// endpoint eliminated first).
    #[inline]
    pub fn edge_is_affected(&self, e: usize) -> bool {
        let (i, j) = self.edges[e];
        self.affected[self.pos[i as usize].min(self.pos[j as usize]) as usize]
    }

    /// [`Self::add_diag`] where the block's column is affected (a no-op elsewhere).
    #[inline]
    pub fn add_diag_affected(&mut self, i: usize, m: &M6) {
        if self.diag_is_affected(i) {
            self.add_diag(i, m);
        }
    }

    /// [`Self::add_edge`] where the block's column (its endpoint eliminated first)
    /// is affected (a no-op elsewhere).
    #[inline]
    pub fn add_edge_affected(&mut self, e: usize, i_first: bool, m: &M6) {
        if self.edge_is_affected(e) {
            self.add_edge(e, i_first, m);
        }
    }

    /// Numeric factorization of the affected columns only, the others' blocks of L
    /// kept from the last factorization: bit for bit the full [`Self::factor`] of
    /// the same assembled values. A column's blocks of L depend only on its
    /// assembled values and on the updates of the columns with a block in its row,
    /// all of them its descendants in the elimination tree; the affected set is
    /// closed upwards, so an unaffected column sees only unaffected descendants,
    /// whose blocks are what they were. Every target receives its updates in the
    /// same order (by column) as in the full factorization, the unaffected columns'
    /// updates applied only to affected targets. Clears the marks. False if a pivot
    /// block is not positive definite (as [`Self::factor`]).
    pub fn refactor_affected(&mut self) -> bool {
        let nl = self.lx.len();
        let mut ok = true;
        let mut done = 0usize;
        for k in 0..self.n {
            if self.affected[k] {
                if !self.eliminate(k) {
                    ok = false;
                    break;
                }
                done += self.upd_ptr[k + 1] as usize - self.upd_ptr[k] as usize;
            } else {
                // Updates into affected targets only: target (rows b, a) lies in
                // block column li[a] (the diagonal block of li[b] = li[a] if a = b).
                let (s0, s1) = (self.col_ptr[k] as usize, self.col_ptr[k + 1] as usize);
                let mut u = self.upd_ptr[k] as usize;
                for b in s0..s1 {
                    for a in s0..=b {
                        let t = self.upd[u] as usize;
                        u += 1;
                        if !self.affected[self.li[a] as usize] {
                            continue;
                        }
                        let m = self.lx[b] * self.lx[a].transpose();
                        if t >= nl {
                            self.diag[t - nl] -= m;
                        } else {
                            self.lx[t] -= m;
                        }
                        done += 1;
                    }
                }
            }
        }
        self.stats.partial_updates += done;
        self.stats.partial_full_updates += self.upd.len();
        self.affected.iter_mut().for_each(|a| *a = false);
        ok
    }

    /// Solves A x = b in place (`b` by node, the factorization's n entries).
    pub fn solve(&mut self, b: &mut [V6]) {
        let n = self.n;
        self.y.clear();
        self.y.extend(self.perm.iter().map(|&v| b[v as usize]));
        for k in 0..n {
            let z = self.diag[k] * self.y[k];
            self.y[k] = z;
            for s in self.col_ptr[k] as usize..self.col_ptr[k + 1] as usize {
                let r = self.li[s] as usize;
                self.y[r] -= self.lx[s] * z;
            }
        }
        for k in (0..n).rev() {
            let mut t = self.y[k];
            for s in self.col_ptr[k] as usize..self.col_ptr[k + 1] as usize {
                t -= self.lx[s].tr_mul(&self.y[self.li[s] as usize]);
            }
            self.y[k] = self.diag[k].tr_mul(&t);
        }
        for (k, &v) in self.perm.iter().enumerate() {
            b[v as usize] = self.y[k];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::SplitMix64 as Rng;
    use nalgebra::DMatrix;

    /// Edges, diagonal blocks, off-diagonal blocks by edge, and the dense matrix.
    type RandomSystem = (Vec<(u32, u32)>, Vec<M6>, Vec<(usize, M6)>, DMatrix<f64>);

    /// A random block SPD system: diagonal M (mass-like, spread over 4 decades)
    /// plus Σ w g gᵀ over random edges (the contact rows' shape), and its dense copy.
    fn random_system(rng: &mut Rng, n: usize, nedge: usize) -> RandomSystem {
        let mut edges = Vec::new();
        for _ in 0..nedge {
            let i = ((rng.uniform(-1.0, 1.0) + 1.0) * 0.5 * n as f64) as usize % n;
            let j = ((rng.uniform(-1.0, 1.0) + 1.0) * 0.5 * n as f64) as usize % n;
            if i != j {
                edges.push((i.min(j) as u32, i.max(j) as u32));
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let mut dense = DMatrix::zeros(6 * n, 6 * n);
        let mut diag = vec![M6::zeros(); n];
        for (i, d) in diag.iter_mut().enumerate() {
            let m = 10f64.powf(2.0 * rng.uniform(-1.0, 1.0));
            for c in 0..6 {
                d[(c, c)] = m * (1.0 + 0.5 * rng.uniform(-1.0, 1.0));
            }
            dense.view_mut((6 * i, 6 * i), (6, 6)).copy_from(d);
        }
        let mut off = Vec::new();
        for (e, &(i, j)) in edges.iter().enumerate() {
            let (i, j) = (i as usize, j as usize);
            let mut aij = M6::zeros();
            for _ in 0..4 {
                let gi = V6::from_fn(|_, _| rng.uniform(-1.0, 1.0));
                let gj = V6::from_fn(|_, _| rng.uniform(-1.0, 1.0));
                let w = 10f64.powf(3.0 * rng.uniform(-1.0, 1.0));
                // Rows on both bodies: (gi, −gj) (w) (gi, −gj)ᵀ.
                diag[i] += gi * gi.transpose() * w;
                diag[j] += gj * gj.transpose() * w;
                aij -= gi * gj.transpose() * w;
                let mut dii = dense.view_mut((6 * i, 6 * i), (6, 6));
                dii += gi * gi.transpose() * w;
                let mut djj = dense.view_mut((6 * j, 6 * j), (6, 6));
                djj += gj * gj.transpose() * w;
            }
            let mut dij = dense.view_mut((6 * i, 6 * j), (6, 6));
            dij += aij;
            let mut dji = dense.view_mut((6 * j, 6 * i), (6, 6));
            dji += aij.transpose();
            off.push((e, aij));
        }
        (edges, diag, off, dense)
    }

    /// Conjugate gradients on the dense matrix to a relative residual of 1e-12.
    fn cg(a: &DMatrix<f64>, b: &nalgebra::DVector<f64>) -> nalgebra::DVector<f64> {
        let mut x = nalgebra::DVector::zeros(b.len());
        let mut r = b.clone();
        let mut d = r.clone();
        let mut rr = r.dot(&r);
        let tol = rr * 1e-24;
        for _ in 0..100 * b.len() {
            let ad = a * &d;
            let alpha = rr / d.dot(&ad);
            x += &d * alpha;
            r -= &ad * alpha;
            let rr_new = r.dot(&r);
            if rr_new <= tol {
                break;
            }
            d = &r + &d * (rr_new / rr);
            rr = rr_new;
        }
        x
    }

    #[test]
    fn direct_solve_equals_cg_on_random_block_systems() {
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut chol = BlockCholesky::default();
        for (n, nedge) in [(1, 0), (2, 1), (7, 12), (30, 60), (60, 400), (25, 0)] {
            let (edges, diag, off, dense) = random_system(&mut rng, n, nedge);
            chol.analyze(n, &edges);
            chol.clear_values();
            for (i, d) in diag.iter().enumerate() {
                chol.add_diag(i, d);
            }
            // Half the edges given from the other end (transposed block).
            for &(e, m) in &off {
                if e % 2 == 0 {
                    chol.add_edge(e, true, &m);
                } else {
                    chol.add_edge(e, false, &m.transpose());
                }
            }
            assert!(chol.factor(), "n = {n}: not positive definite");
            let mut b: Vec<V6> = (0..n)
                .map(|_| V6::from_fn(|_, _| rng.uniform(-1.0, 1.0)))
                .collect();
            let bd =
                nalgebra::DVector::from_iterator(6 * n, b.iter().flat_map(|v| v.iter().copied()));
            chol.solve(&mut b);
            let xd =
                nalgebra::DVector::from_iterator(6 * n, b.iter().flat_map(|v| v.iter().copied()));
            let x_cg = cg(&dense, &bd);
            let x_ref = dense.clone().cholesky().expect("spd").solve(&bd);
            let scale = x_ref.amax();
            let err_cg = (&xd - &x_cg).amax() / scale;
            let err_ref = (&xd - &x_ref).amax() / scale;
            // Normwise backward error ‖A x − b‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞): round-off.
            let a_inf = dense.row_iter().map(|r| r.abs().sum()).fold(0.0, f64::max);
            let resid = (&dense * &xd - &bd).amax() / (a_inf * xd.amax() + bd.amax());
            println!(
                "n = {n:3}, edges {:4}, L blocks {:4}: |x − x_cg| {err_cg:.1e}, |x − x_dense| {err_ref:.1e}, backward error {resid:.1e}",
                edges.len(),
                chol.stats.l_blocks
            );
            assert!(
                err_ref < 1e-10,
                "n = {n}: direct vs dense Cholesky {err_ref:e}"
            );
            assert!(err_cg < 1e-8, "n = {n}: direct vs CG {err_cg:e}");
            assert!(resid < 1e-15, "n = {n}: backward error {resid:e}");
        }
    }

    /// A partial refactorization after some columns' values changed equals the
    /// full factorization of the new values bit for bit: random systems, a full
    /// factorization of values A₀, then a change δ on a few random nodes' diagonal
    /// blocks and edges (a contact row switched off: −w g gᵀ), taken out of A₀ in
    /// the affected columns only (`restore_affected` + `add_*_affected`), and
    /// `refactor_affected` against `factor` of A₀ + δ assembled from scratch. The
    /// solves must agree exactly, and the partial one must do fewer block products
    /// where the change is local.
    #[test]
    fn partial_refactorization_is_the_full_one_bit_for_bit() {
        let mut rng = Rng::new(0x51ed_2701_aa3c_0f19);
        let (mut full, mut part) = (BlockCholesky::default(), BlockCholesky::default());
        for (n, nedge, nchange) in [
            (2, 1, 1),
            (7, 12, 1),
            (30, 60, 2),
            (60, 400, 3),
            (200, 300, 1),
        ] {
            let (edges, diag, off, _) = random_system(&mut rng, n, nedge);
            if edges.is_empty() {
                continue;
            }
            // The change: a row on node i (and edge e's pair) switched off.
            let mut changes = Vec::new();
            for _ in 0..nchange {
                let e =
                    ((rng.uniform(0.0, 1.0) * edges.len() as f64) as usize).min(edges.len() - 1);
                let g = V6::from_fn(|_, _| rng.uniform(-1.0, 1.0));
                let w = 1e-3 * 10f64.powf(rng.uniform(-1.0, 1.0));
                changes.push((e, g * g.transpose() * -w));
            }
            let add_base = |c: &mut BlockCholesky| {
                for (i, d) in diag.iter().enumerate() {
                    c.add_diag(i, d);
                }
                for &(e, m) in &off {
                    c.add_edge(e, true, &m);
                }
            };
            let add_change = |c: &mut BlockCholesky, affected: bool| {
                for &(e, dm) in &changes {
                    let (i, j) = edges[e];
                    let cross = dm * 0.25;
                    if affected {
                        c.add_diag_affected(i as usize, &dm);
                        c.add_diag_affected(j as usize, &dm);
                        c.add_edge_affected(e, true, &cross);
                    } else {
                        c.add_diag(i as usize, &dm);
                        c.add_diag(j as usize, &dm);
                        c.add_edge(e, true, &cross);
                    }
                }
            };
            // Full: A₀ + δ from scratch.
            full.analyze(n, &edges);
            full.clear_values();
            // (δ added after A₀, in the order the partial path adds it.)
            add_base(&mut full);
            add_change(&mut full, false);
            assert!(full.factor(), "n = {n}: full factorization");
            // Partial: A₀ saved and factored, then δ in the affected columns.
            part.analyze(n, &edges);
            part.clear_values();
            add_base(&mut part);
            part.save_values();
            assert!(part.factor(), "n = {n}: first factorization");
            for &(e, _) in &changes {
                part.mark_changed(edges[e].0 as usize);
                part.mark_changed(edges[e].1 as usize);
            }
            part.restore_affected();
            add_change(&mut part, true);
            let before = part.stats.partial_updates;
            assert!(part.refactor_affected(), "n = {n}: partial refactorization");
            let done = part.stats.partial_updates - before;
            let b: Vec<V6> = (0..n)
                .map(|_| V6::from_fn(|_, _| rng.uniform(-1.0, 1.0)))
                .collect();
            let (mut xf, mut xp) = (b.clone(), b.clone());
            full.solve(&mut xf);
            part.solve(&mut xp);
            println!(
                "n = {n:3}, edges {:4}: block products {done} of {} (partial / full)",
                edges.len(),
                full.stats.updates
            );
            for (a, c) in xf.iter().zip(&xp) {
                for (u, v) in a.iter().zip(c.iter()) {
                    assert_eq!(u.to_bits(), v.to_bits(), "n = {n}: partial {v} vs full {u}");
                }
            }
            assert!(done <= full.stats.updates);
        }
    }

    /// The pattern is cached: the same edges again keep the analysis; islands get
    /// no fill between them (two disjoint chains factor with no block across).
    #[test]
    fn analysis_is_cached_and_islands_do_not_fill_each_other() {
        let mut chol = BlockCholesky::default();
        // Two chains 0-1-2-3 and 4-5-6-7 (the chain is a tree: no fill at all).
        let edges = [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6), (6, 7)];
        assert!(chol.analyze(8, &edges));
        assert!(!chol.analyze(8, &edges));
        assert_eq!(chol.stats.analyses, 1);
        assert_eq!(
            chol.stats.l_blocks, 6,
            "a tree ordered by minimum degree fills nothing"
        );
        // A 4-cycle fills one block.
        assert!(chol.analyze(4, &[(0, 1), (0, 3), (1, 2), (2, 3)]));
        assert_eq!(chol.stats.l_blocks, 5);
    }
}
