//! Broad phase: a uniform grid of cells twice the 90th-percentile box size,
//! boxes larger than a cell (planes, walls) tested against all. The output is sorted by
//! `(a, b)` with `a < b`, so the rest of the step never depends on the grid
//! (determinism).

use crate::math::Vec3;

/// Axis-aligned bounding box in world coordinates (may be unbounded for planes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    #[inline]
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min.x <= o.max.x
            && o.min.x <= self.max.x
            && self.min.y <= o.max.y
            && o.min.y <= self.max.y
            && self.min.z <= o.max.z
            && o.min.z <= self.max.z
    }

    /// Grown by `margin` on every side.
    #[inline]
    pub fn inflated(&self, margin: f64) -> Aabb {
        Aabb {
            min: self.min - Vec3::repeat(margin),
            max: self.max + Vec3::repeat(margin),
        }
    }
}

/// Broad-phase state; keep one per `Pipeline` and reuse it every step (its buffers
/// keep their capacity: no allocation after warm-up).
#[derive(Clone, Debug, Default)]
pub struct BroadPhase {
    /// (cell key, geom) of every cell a small geom's box covers, sorted.
    entries: Vec<(u64, u32)>,
    /// Geoms whose box is unbounded or larger than a cell (planes, walls, floors).
    large: Vec<u32>,
    /// The finite boxes' extents, for the cell size (reused).
    extents: Vec<f64>,
    /// The grid of the last [`BroadPhase::find_pairs`].
    grid: Grid,
    /// Each geom's cell range at the last [`BroadPhase::find_pairs`]
    /// (`LARGE_RANGE`: large), and whether `entries` are that call's (no
    /// [`BroadPhase::find_moving_pairs`] since).
    cell_range: Vec<[i64; 6]>,
    entries_valid: bool,
    /// The geoms that do not move ([`BroadPhase::build_fixed`]).
    fixed: FixedGrid,
}

/// The grid of the geoms that do not move between steps (static bodies, sleeping
/// islands): built once by [`BroadPhase::build_fixed`], queried every step by the
/// moving geoms ([`BroadPhase::find_moving_pairs`]).
#[derive(Clone, Debug, Default)]
struct FixedGrid {
    grid: Grid,
    /// (cell key, geom) of the fixed geoms no larger than a cell, sorted.
    entries: Vec<(u64, u32)>,
    /// Fixed geoms larger than a cell (planes, walls).
    large: Vec<u32>,
}

/// The cell edge is `CELL_FACTOR` × the extent at quantile `CELL_QUANTILE` of
/// the finite boxes.
const CELL_FACTOR: f64 = 2.0;
const CELL_QUANTILE: f64 = 0.9;

/// Cell coordinates are clamped to ±2²⁰ (21 bits each in the key).
const CELL_LIMIT: i64 = 1 << 20;
/// Up to this many boxes every pair is tested directly (n²/2 overlap tests cost
/// less than the grid's entries and sort: issue 18 item 4, the fixed cost).
pub const ALL_PAIRS_BELOW: usize = 32;

/// Largest edge of a box.
#[inline]
fn extent(b: &Aabb) -> f64 {
    let e = b.max - b.min;
    e.x.max(e.y).max(e.z)
}

/// A uniform grid of cubic cells of edge `cell`.
#[derive(Clone, Copy, Debug)]
struct Grid {
    cell: f64,
    inv: f64,
}

impl Default for Grid {
    fn default() -> Self {
        Grid::new(1.0)
    }
}

impl Grid {
    fn new(cell: f64) -> Grid {
        Grid {
            cell,
            inv: 1.0 / cell,
        }
    }

    #[inline]
    fn coord(&self, x: f64) -> i64 {
        ((x * self.inv).floor() as i64).clamp(-CELL_LIMIT, CELL_LIMIT - 1)
    }

    #[inline]
    fn key_of(ix: i64, iy: i64, iz: i64) -> u64 {
        let k = |i: i64| (i + CELL_LIMIT) as u64;
        (k(ix) << 42) | (k(iy) << 21) | k(iz)
    }

    /// Key of the cell holding point `p`.
    #[inline]
    fn key(&self, p: &Vec3) -> u64 {
        Self::key_of(self.coord(p.x), self.coord(p.y), self.coord(p.z))
    }

    /// Unbounded or larger than a cell: tested against all, not gridded.
    #[inline]
    fn is_large(&self, b: &Aabb) -> bool {
        let e = extent(b);
        !(e.is_finite() && e <= self.cell && b.min.iter().all(|v| v.is_finite()))
    }

    /// Calls `f(key)` for each cell box `b` covers (at most 2 × 2 × 2 for a small box).
    #[inline]
    fn for_cells(&self, b: &Aabb, f: impl FnMut(u64)) {
        Self::for_range(&self.range(b), f);
    }

    /// The cells box `b` covers: (x, y, z) coordinates from and to, inclusive.
    #[inline]
    fn range(&self, b: &Aabb) -> [i64; 6] {
        [
            self.coord(b.min.x),
            self.coord(b.max.x),
            self.coord(b.min.y),
            self.coord(b.max.y),
            self.coord(b.min.z),
            self.coord(b.max.z),
        ]
    }

    /// Calls `f(key)` for each cell of `range` ([`Grid::range`]), x, then y, then
    /// z ascending.
    #[inline]
    fn for_range(r: &[i64; 6], mut f: impl FnMut(u64)) {
        for ix in r[0]..=r[1] {
            for iy in r[2]..=r[3] {
                for iz in r[4]..=r[5] {
                    f(Self::key_of(ix, iy, iz));
                }
            }
        }
    }

    /// Whether the pair of boxes (known to overlap) is reported from cell `k`: the
    /// cell of their intersection's minimum corner (so a pair sharing several
    /// cells is reported once).
    #[inline]
    fn reports(&self, bi: &Aabb, bj: &Aabb, k: u64) -> bool {
        self.key(&bi.min.sup(&bj.min)) == k
    }
}

/// A geom's cell range before any [`BroadPhase::find_pairs`], and a large geom's:
/// never a range of clamped coordinates.
const UNSET_RANGE: [i64; 6] = [i64::MIN; 6];
const LARGE_RANGE: [i64; 6] = [i64::MAX; 6];

/// The pairs of boxes sharing a cell of `entries` (sorted by cell, then geom),
/// each once, for which `wanted` holds, appended to `out`.
fn cell_pairs(
    grid: &Grid,
    entries: &[(u64, u32)],
    aabbs: &[Aabb],
    wanted: &impl Fn(usize, usize) -> bool,
    out: &mut Vec<(u32, u32)>,
) {
    let mut s = 0;
    while s < entries.len() {
        let k = entries[s].0;
        let mut e = s + 1;
        while e < entries.len() && entries[e].0 == k {
            e += 1;
        }
        for i in s..e {
            let gi = entries[i].1;
            let bi = &aabbs[gi as usize];
            for &(_, gj) in &entries[i + 1..e] {
                let bj = &aabbs[gj as usize];
                // Entries are sorted by geom within a cell: gi < gj.
                if bi.overlaps(bj) && grid.reports(bi, bj, k) && wanted(gi as usize, gj as usize) {
                    out.push((gi, gj));
                }
            }
        }
        s = e;
    }
}

/// `(a, b)` ordered `a < b`.
#[inline]
fn ordered(a: u32, b: u32) -> (u32, u32) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

impl BroadPhase {
    pub fn new() -> Self {
        Self::default()
    }

    /// With its buffers sized for `ngeom` geoms (a small box covers ≤ 8 cells).
    pub fn with_capacity(ngeom: usize) -> Self {
        BroadPhase {
            entries: Vec::with_capacity(8 * ngeom),
            large: Vec::with_capacity(ngeom),
            extents: Vec::with_capacity(ngeom),
            cell_range: Vec::with_capacity(ngeom),
            fixed: FixedGrid {
                entries: Vec::with_capacity(8 * ngeom),
                large: Vec::with_capacity(ngeom),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// All overlapping pairs `(a, b)`, `a < b`, for which `wanted(a, b)` holds,
    /// written to `out` sorted ascending.
    ///
    /// A uniform grid: the cell edge is twice the 90th-percentile box extent
    /// (a quantile, not the mean, so that a few large bodies — a 100 m wall
    /// beside 0.1 m parts — neither grow the cells toward all-pairs nor, being
    /// at most a tenth of the boxes, cost more than that tenth against all);
    /// a box no larger than a cell covers at most 2 × 2 × 2 cells; each (cell, geom) is an
    /// entry, the entries are sorted by cell, and the boxes sharing a cell are
    /// tested against each other. A pair sharing several cells is reported only
    /// from the cell holding the minimum corner of the two boxes' intersection.
    /// Boxes larger than a cell (and unbounded ones) are tested against every box.
    /// Cost O(N log N + k) for N boxes of similar size, k candidate tests, whatever
    /// the layout (the one-axis sweep it replaces tested every box against all the
    /// boxes of its column: O(N^1.5) in a pile or a grid spread over a floor).
    pub fn find_pairs(
        &mut self,
        aabbs: &[Aabb],
        wanted: impl Fn(usize, usize) -> bool,
        out: &mut Vec<(u32, u32)>,
    ) {
        out.clear();
        self.large.clear();
        if aabbs.len() <= ALL_PAIRS_BELOW {
            // A small world (a robot arm and its table): every pair, in (a, b)
            // order — the same sorted set as the grid, without its sort.
            for (a, ba) in aabbs.iter().enumerate() {
                for (b, bb) in aabbs.iter().enumerate().skip(a + 1) {
                    if ba.overlaps(bb) && wanted(a, b) {
                        out.push((a as u32, b as u32));
                    }
                }
            }
            return;
        }
        self.extents.clear();
        for b in aabbs {
            let e = extent(b);
            if e.is_finite() && b.min.iter().all(|v| v.is_finite()) {
                self.extents.push(e);
            }
        }
        let cell = if self.extents.is_empty() {
            1.0
        } else {
            let k = ((self.extents.len() - 1) as f64 * CELL_QUANTILE) as usize;
            let (_, e, _) = self.extents.select_nth_unstable_by(k, f64::total_cmp);
            if *e > 0.0 {
                CELL_FACTOR * *e
            } else {
                1.0
            }
        };
        let grid = Grid::new(cell);
        self.grid = grid;
        // Each geom's cell range on this grid (or large). Where every range is
        // the one of the last call's entries, those entries are this call's too
        // (an entry is a cell key of a geom's range: a function of the range
        // alone), already sorted: a world at rest keeps them without the sort.
        let n = aabbs.len();
        let mut same = self.entries_valid && self.cell_range.len() == n;
        if self.cell_range.len() != n {
            self.cell_range.clear();
            self.cell_range.resize(n, UNSET_RANGE);
        }
        for (g, b) in aabbs.iter().enumerate() {
            let range = if grid.is_large(b) {
                self.large.push(g as u32);
                LARGE_RANGE
            } else {
                grid.range(b)
            };
            if range != self.cell_range[g] {
                self.cell_range[g] = range;
                same = false;
            }
        }
        if !same {
            self.entries.clear();
            for (g, range) in self.cell_range.iter().enumerate() {
                if *range != LARGE_RANGE {
                    let entries = &mut self.entries;
                    Grid::for_range(range, |k| entries.push((k, g as u32)));
                }
            }
            self.entries.sort_unstable();
        }
        self.entries_valid = true;
        cell_pairs(&grid, &self.entries, aabbs, &wanted, out);
        // Large boxes against every box (each large–large pair once).
        for &gl in &self.large {
            let bl = &aabbs[gl as usize];
            for (g, b) in aabbs.iter().enumerate() {
                let g = g as u32;
                if g == gl || (g < gl && grid.is_large(b)) || !bl.overlaps(b) {
                    continue;
                }
                let (a, b) = ordered(g, gl);
                if wanted(a as usize, b as usize) {
                    out.push((a, b));
                }
            }
        }
        out.sort_unstable();
    }

    /// The pairs `(a, b)`, `a < b`, of a world of `n` boxes that `wanted` keeps,
    /// sorted, when `n` is small enough for [`BroadPhase::find_pairs`] to test every
    /// pair (`None` otherwise): listed once when the model is loaded, so that a
    /// step tests only those (a robot's self-pairs, adjacent links and static
    /// pairs are filtered here, not per step).
    pub fn small_world_pairs(
        n: usize,
        wanted: impl Fn(usize, usize) -> bool,
    ) -> Option<Vec<(u32, u32)>> {
        (n <= ALL_PAIRS_BELOW).then(|| {
            (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .filter(|&(a, b)| wanted(a, b))
                .map(|(a, b)| (a as u32, b as u32))
                .collect()
        })
    }

    /// The overlapping pairs among `listed` (sorted, from
    /// [`BroadPhase::small_world_pairs`] with the `wanted` of the step), written to
    /// `out` in that order: the pairs [`BroadPhase::find_pairs`] gives for a small
    /// world, without its per-pair filter.
    pub fn find_listed_pairs(aabbs: &[Aabb], listed: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
        out.clear();
        for &(a, b) in listed {
            if let (Some(ba), Some(bb)) = (aabbs.get(a as usize), aabbs.get(b as usize)) {
                if ba.overlaps(bb) {
                    out.push((a, b));
                }
            }
        }
    }

    /// Remember the geoms with `fixed[g]` (static bodies, sleeping islands: boxes
    /// that stay as they are until the set changes): their grid, on the cells of a
    /// [`BroadPhase::find_pairs`] over all `aabbs`, and the pairs among them
    /// (`wanted`, sorted) in `fixed_pairs`. Cost: one `find_pairs`.
    pub fn build_fixed(
        &mut self,
        aabbs: &[Aabb],
        fixed: &[bool],
        wanted: impl Fn(usize, usize) -> bool,
        fixed_pairs: &mut Vec<(u32, u32)>,
    ) {
        self.find_pairs(
            aabbs,
            |a, b| fixed[a] && fixed[b] && wanted(a, b),
            fixed_pairs,
        );
        let grid = self.grid;
        let FixedGrid {
            grid: fgrid,
            entries,
            large,
        } = &mut self.fixed;
        *fgrid = grid;
        entries.clear();
        large.clear();
        for (g, b) in aabbs.iter().enumerate() {
            if !fixed[g] {
                continue;
            }
            if grid.is_large(b) {
                large.push(g as u32);
            } else {
                grid.for_cells(b, |k| entries.push((k, g as u32)));
            }
        }
        entries.sort_unstable();
    }

    /// The overlapping pairs with at least one geom of `moving` (the geoms not
    /// fixed at the last [`BroadPhase::build_fixed`], whose boxes in `aabbs` are
    /// unchanged since), `wanted`, written to `out` sorted ascending: together with
    /// the fixed pairs, exactly the pairs of [`BroadPhase::find_pairs`] over
    /// `aabbs`. Moving boxes are gridded on the fixed grid's cells and tested
    /// against each other, each small one looks up the fixed entries of its cells,
    /// and boxes larger than a cell are tested against all (fixed large ones against
    /// the small moving ones). Cost O(M log M + k) for M moving geoms: nothing is
    /// done for the fixed ones.
    pub fn find_moving_pairs(
        &mut self,
        aabbs: &[Aabb],
        moving: &[u32],
        fixed: &[bool],
        wanted: impl Fn(usize, usize) -> bool,
        out: &mut Vec<(u32, u32)>,
    ) {
        out.clear();
        self.entries.clear();
        self.entries_valid = false;
        self.large.clear();
        let grid = self.fixed.grid;
        for &g in moving {
            let b = &aabbs[g as usize];
            if grid.is_large(b) {
                self.large.push(g);
            } else {
                let entries = &mut self.entries;
                grid.for_cells(b, |k| entries.push((k, g)));
            }
        }
        self.entries.sort_unstable();
        // Small moving against small moving.
        cell_pairs(&grid, &self.entries, aabbs, &wanted, out);
        // Small moving against small fixed: the fixed entries of each entry's cell.
        let fe = &self.fixed.entries;
        for &(k, gm) in &self.entries {
            let bm = &aabbs[gm as usize];
            let lo = fe.partition_point(|e| e.0 < k);
            for &(kf, gf) in &fe[lo..] {
                if kf != k {
                    break;
                }
                let bf = &aabbs[gf as usize];
                let (a, b) = ordered(gm, gf);
                if bm.overlaps(bf) && grid.reports(bm, bf, k) && wanted(a as usize, b as usize) {
                    out.push((a, b));
                }
            }
        }
        // Large fixed against small moving.
        for &gl in &self.fixed.large {
            let bl = &aabbs[gl as usize];
            for &g in moving {
                let b = &aabbs[g as usize];
                if grid.is_large(b) || !bl.overlaps(b) {
                    continue;
                }
                let (a, b) = ordered(g, gl);
                if wanted(a as usize, b as usize) {
                    out.push((a, b));
                }
            }
        }
        // Large moving against every box (each large moving pair once).
        for &gl in &self.large {
            let bl = &aabbs[gl as usize];
            for (g, b) in aabbs.iter().enumerate() {
                let g = g as u32;
                let large_moving = !fixed[g as usize] && grid.is_large(b);
                if g == gl || (g < gl && large_moving) || !bl.overlaps(b) {
                    continue;
                }
                let (a, b) = ordered(g, gl);
                if wanted(a as usize, b as usize) {
                    out.push((a, b));
                }
            }
        }
        out.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::SplitMix64;

    /// Every overlapping pair (a < b) that `wanted` keeps, by testing all pairs.
    fn brute_pairs(aabbs: &[Aabb], wanted: impl Fn(usize, usize) -> bool) -> Vec<(u32, u32)> {
        let mut v = Vec::new();
        for a in 0..aabbs.len() {
            for b in a + 1..aabbs.len() {
                if aabbs[a].overlaps(&aabbs[b]) && wanted(a, b) {
                    v.push((a as u32, b as u32));
                }
            }
        }
        v
    }

    /// A cube of half-width in [0.05, `half`) centred uniformly in [−`span`, `span`]³
    /// (the centre's three draws, then the half-width's).
    fn random_box(rng: &mut SplitMix64, span: f64, half: f64) -> Aabb {
        let c = Vec3::new(
            rng.uniform(-span, span),
            rng.uniform(-span, span),
            rng.uniform(-span, span),
        );
        let h = Vec3::repeat(rng.uniform(0.05, half));
        Aabb {
            min: c - h,
            max: c + h,
        }
    }

    #[test]
    fn sweep_matches_brute_force() {
        let mut rng = SplitMix64::new(7);
        let mut bp = BroadPhase::new();
        let mut out = Vec::new();
        for round in 0..5 {
            let mut aabbs: Vec<Aabb> = (0..300).map(|_| random_box(&mut rng, 5.0, 0.6)).collect();
            // A plane (unbounded), a wall larger than any cell, and tiny boxes.
            aabbs[0] = Aabb {
                min: Vec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
                max: Vec3::new(f64::INFINITY, f64::INFINITY, 0.0),
            };
            aabbs[1] = Aabb {
                min: Vec3::new(-5.0, -0.1, -5.0),
                max: Vec3::new(5.0, 0.1, 5.0),
            };
            aabbs[2] = Aabb {
                min: Vec3::new(-4.0, -4.0, -5.0),
                max: Vec3::new(6.0, 6.0, 5.0),
            };
            for b in aabbs.iter_mut().skip(3).take(20) {
                let c = (b.min + b.max) * 0.5;
                *b = Aabb {
                    min: c - Vec3::repeat(1e-3),
                    max: c + Vec3::repeat(1e-3),
                };
            }
            bp.find_pairs(&aabbs, |a, b| (a + b + round) % 7 != 0, &mut out);
            let brute = brute_pairs(&aabbs, |a, b| (a + b + round) % 7 != 0);
            assert_eq!(out, brute);
        }
    }

    /// `find_pairs` keeps its sorted entries while every box stays in its cells:
    /// repeated calls on boxes nudged within their cells, on boxes moved across
    /// cells, with a different `wanted`, and after `find_moving_pairs` (which
    /// reuses the entries' buffer) all equal the brute force.
    #[test]
    fn kept_entries_match_brute_force() {
        let mut rng = SplitMix64::new(11);
        let mut bp = BroadPhase::with_capacity(200);
        let mut out = Vec::new();
        let mut aabbs: Vec<Aabb> = (0..200).map(|_| random_box(&mut rng, 2.0, 0.3)).collect();
        aabbs[0] = Aabb {
            min: Vec3::repeat(f64::NEG_INFINITY),
            max: Vec3::new(f64::INFINITY, f64::INFINITY, -1.0),
        };
        let fixed: Vec<bool> = (0..200).map(|g| g % 3 == 0).collect();
        let moving: Vec<u32> = (0..200u32).filter(|&g| !fixed[g as usize]).collect();
        let mut moving_pairs = Vec::new();
        for step in 0..12 {
            match step % 4 {
                // Nudged by far less than a cell: most boxes keep their cells.
                1 => {
                    for b in aabbs.iter_mut().skip(1) {
                        let d = Vec3::repeat(rng.uniform(-1e-9, 1e-9));
                        *b = Aabb {
                            min: b.min + d,
                            max: b.max + d,
                        };
                    }
                }
                // One box moved across cells.
                2 => {
                    let g = 1 + (step % 199);
                    let d = Vec3::new(0.7, -0.4, 0.3);
                    aabbs[g] = Aabb {
                        min: aabbs[g].min + d,
                        max: aabbs[g].max + d,
                    };
                }
                // The entries' buffer used by the moving geoms' query.
                3 => {
                    bp.build_fixed(&aabbs, &fixed, |_, _| true, &mut out);
                    bp.find_moving_pairs(&aabbs, &moving, &fixed, |_, _| true, &mut moving_pairs);
                }
                _ => {}
            }
            let wanted = |a: usize, b: usize| !(a + b + step).is_multiple_of(5);
            bp.find_pairs(&aabbs, wanted, &mut out);
            assert_eq!(out, brute_pairs(&aabbs, wanted), "step {step}");
            // Unchanged boxes: the same pairs again.
            bp.find_pairs(&aabbs, wanted, &mut out);
            assert_eq!(out, brute_pairs(&aabbs, wanted), "step {step}, again");
        }
    }

    /// The fixed grid plus the moving query give exactly the pairs of a full
    /// `find_pairs` (against brute force), also after the moving boxes moved
    /// and grew past a cell.
    #[test]
    fn fixed_and_moving_pairs_match_brute_force() {
        let mut rng = SplitMix64::new(23);
        let mut bp = BroadPhase::with_capacity(300);
        let (mut fixed_pairs, mut moving_pairs, mut all) = (Vec::new(), Vec::new(), Vec::new());
        let wanted = |a: usize, b: usize| !(a * 3 + b).is_multiple_of(11);
        let brute = |aabbs: &[Aabb]| brute_pairs(aabbs, wanted);
        for round in 0..4 {
            let mut aabbs: Vec<Aabb> = (0..300).map(|_| random_box(&mut rng, 3.0, 0.4)).collect();
            // A floor (unbounded) and a wall larger than a cell, fixed; a moving
            // large box.
            aabbs[0] = Aabb {
                min: Vec3::repeat(f64::NEG_INFINITY),
                max: Vec3::new(f64::INFINITY, f64::INFINITY, -2.0),
            };
            aabbs[1] = Aabb {
                min: Vec3::new(-3.0, -0.1, -3.0),
                max: Vec3::new(3.0, 0.1, 3.0),
            };
            let fixed: Vec<bool> = (0..300)
                .map(|g| g < 2 || (g != 2 && rng.uniform(0.0, 1.0) < 0.7))
                .collect();
            let moving: Vec<u32> = (0..300u32).filter(|&g| !fixed[g as usize]).collect();
            bp.build_fixed(&aabbs, &fixed, wanted, &mut fixed_pairs);
            for step in 0..3 {
                if step > 0 {
                    for &g in &moving {
                        aabbs[g as usize] = random_box(&mut rng, 3.0, 0.4);
                    }
                    aabbs[2] = Aabb {
                        min: Vec3::new(-2.0, -2.0, -1.0),
                        max: Vec3::new(2.0 + round as f64, 2.0, 1.0),
                    };
                }
                bp.find_moving_pairs(&aabbs, &moving, &fixed, wanted, &mut moving_pairs);
                all.clear();
                all.extend_from_slice(&fixed_pairs);
                all.extend_from_slice(&moving_pairs);
                all.sort_unstable();
                let n = all.len();
                all.dedup();
                assert_eq!(all.len(), n, "a pair reported twice");
                assert_eq!(all, brute(&aabbs), "round {round} step {step}");
            }
        }
    }

    /// One large finite box (a 100 m wall) among small parts keeps the cells at
    /// the parts' size: the mean extent made 22 m cells here and put every part
    /// in one cell (all pairs tested). More parts than [`ALL_PAIRS_BELOW`], so
    /// the grid is used.
    #[test]
    fn one_large_box_keeps_cells_small() {
        let mut rng = SplitMix64::new(11);
        let mut aabbs = vec![Aabb {
            min: Vec3::new(-50.0, -50.0, -0.1),
            max: Vec3::new(50.0, 50.0, 0.0),
        }];
        let parts = 2 * ALL_PAIRS_BELOW;
        for _ in 0..parts {
            let c = Vec3::new(rng.uniform(-25.0, 25.0), rng.uniform(-25.0, 25.0), 0.05);
            aabbs.push(Aabb {
                min: c - Vec3::repeat(0.05),
                max: c + Vec3::repeat(0.05),
            });
        }
        let mut bp = BroadPhase::new();
        let mut out = Vec::new();
        bp.find_pairs(&aabbs, |_, _| true, &mut out);
        assert_eq!(bp.large, vec![0], "only the wall is tested against all");
        let mut cells: Vec<u64> = bp.entries.iter().map(|e| e.0).collect();
        cells.dedup();
        assert!(
            cells.len() >= parts,
            "parts 0.1 m wide spread over 50 m share cells: {} cells",
            cells.len()
        );
        let brute = brute_pairs(&aabbs, |_, _| true);
        assert!(brute.len() >= parts, "each part touches the wall");
        assert_eq!(out, brute, "the grid's pairs are the overlapping ones");
    }
}
