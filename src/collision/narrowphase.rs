//! Narrow phase: a dispatch table indexed by the two shape kinds (MuJoCo
//! `mjCOLLISIONFUNC` style), one routine per pair family in `pairs/`.
//!
//! Each table cell holds the routine and whether it is called with the arguments
//! swapped: routines are written for one kind order, and the mirrored cell swaps
//! the geoms and flips the returned normal, so every manifold follows the
//! convention of [`crate::collision`] (normal toward `geom_a`, depths ≥ 0 to the
//! contact plane, `deepest` = the largest depth; with a speculative margin,
//! [`collide_pair_within`], separated geoms give depths ≤ 0: the gap). Plane–plane is the only
//! unsupported pair.
//!
//! A warmed-up call does not allocate: every temporary lives in [`NarrowScratch`],
//! and points are appended to the caller's [`ContactSet`], whose buffers keep their
//! capacity.

use super::pairs::{self, CollideFn, Work};
pub use super::pairs::{cylinder_prism_radius, CYLINDER_SIDES};
use super::{gjk, ContactPoint, ContactSet, Manifold, Shape, ShapeKind};
use crate::math::{Pose, Vec3};

/// Scratch buffers reused across calls so that a warmed-up pass does not allocate.
#[derive(Clone, Debug, Default)]
pub struct NarrowScratch {
    work: Work,
    points: Vec<ContactPoint>,
}

impl NarrowScratch {
    /// Buffers with room for `n` points, vertices and face planes each (no
    /// allocation below that).
    pub fn with_capacity(n: usize) -> Self {
        let mut s = NarrowScratch::default();
        s.points.reserve(n);
        let w = &mut s.work.poly;
        for v in [&mut w.va, &mut w.vb, &mut w.pts] {
            v.reserve(n);
        }
        w.fa.reserve(n);
        w.fb.reserve(n);
        w.heights.reserve(n);
        s
    }
}

/// One cell of the dispatch table.
#[derive(Clone, Copy)]
struct Entry {
    f: CollideFn,
    /// Call `f(b, a)` and flip the normal.
    swap: bool,
}

const fn e(f: CollideFn) -> Option<Entry> {
    Some(Entry { f, swap: false })
}

const fn s(f: CollideFn) -> Option<Entry> {
    Some(Entry { f, swap: true })
}

/// `TABLE[kind_a][kind_b]`, kinds in [`ShapeKind`] order:
/// plane, sphere, box, capsule, cylinder, polytope.
const TABLE: [[Option<Entry>; ShapeKind::COUNT]; ShapeKind::COUNT] = {
    use pairs::*;
    let pp: CollideFn = polytope_polytope::collide;
    let cp: CollideFn = capsule_polytope::collide;
    let sp: CollideFn = sphere_polytope::collide;
    let yp: CollideFn = cylinder_polytope::collide;
    [
        // plane
        [
            None,
            e(plane_sphere::collide),
            e(plane_polytope::collide),
            e(plane_capsule::collide),
            e(plane_cylinder::collide),
            e(plane_polytope::collide),
        ],
        // sphere
        [
            s(plane_sphere::collide),
            e(sphere_sphere::collide),
            e(sp),
            e(sphere_capsule::collide),
            e(sphere_cylinder::collide),
            e(sp),
        ],
        // box
        [
            s(plane_polytope::collide),
            s(sp),
            e(box_box::collide),
            s(cp),
            s(yp),
            e(pp),
        ],
        // capsule
        [
            s(plane_capsule::collide),
            s(sphere_capsule::collide),
            e(cp),
            e(capsule_capsule::collide),
            e(cp),
            e(cp),
        ],
        // cylinder
        [
            s(plane_cylinder::collide),
            s(sphere_cylinder::collide),
            e(yp),
            s(cp),
            e(pp),
            e(yp),
        ],
        // polytope
        [
            s(plane_polytope::collide),
            s(sp),
            e(pp),
            s(cp),
            s(yp),
            e(pp),
        ],
    ]
};

/// Whether the pair of kinds has a collision routine (all but plane–plane).
pub fn pair_supported(a: ShapeKind, b: ShapeKind) -> bool {
    TABLE[a as usize][b as usize].is_some()
}

/// Collide geoms `ga` (shape `sa` at world pose `xa`) and `gb`. If they penetrate,
/// append one manifold (normal toward `ga`, depths ≥ 0) and its points to `out`
/// and return true. The same as [`collide_pair_within`] with no margin: the force
/// models (penalty, Hunt–Crossley) see only penetrating points.
///
/// Never panics; non-finite poses or results give no contact.
#[allow(clippy::too_many_arguments)]
pub fn collide_pair(
    ga: usize,
    sa: &Shape,
    xa: &Pose,
    gb: usize,
    sb: &Shape,
    xb: &Pose,
    scratch: &mut NarrowScratch,
    out: &mut ContactSet,
) -> bool {
    let m = Margin::NONE;
    collide_pair_within(ga, sa, xa, gb, sb, xb, &m, scratch, out)
}

/// The speculative margin of one pair (complementarity steps).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Margin {
    /// The step's motion plus `window` (m): separated geoms closer than
    /// `reach − window` get a manifold of gap points (depth < 0) of gap up to
    /// that; 0 = only penetrating geoms.
    pub reach: f64,
    /// Width of the speculative window (m): the features within `window` of the
    /// closest ones along the separating direction become points (a box landing
    /// flat gets its four corners, not one).
    pub window: f64,
}

impl Margin {
    pub const NONE: Margin = Margin {
        reach: 0.0,
        window: 0.0,
    };
}

/// Collide geoms `ga` and `gb`, with a speculative margin. Penetrating geoms give
/// the pair routine's manifold (depths ≥ 0). Geoms separated by a distance
/// 0 ≤ d ≤ `margin.reach − margin.window` (the step's motion; GJK,
/// [`super::gjk`]) give a manifold of **gap points**, those of gap ≤ the motion:
/// geom a is translated toward b by s = d + max(`margin.window`, floor) along the
/// separating direction u (floor = 1e-7 (1 + scale) m, a hundred times the pair
/// routines' touching tolerance 1e-9·scale, scale = the bounding radii: a smaller
/// overlap is "touching" to them and gives nothing), the pair routine collides the
/// overlapping copies, and the points are moved back: depth ← depth − s (n·u) (≤ 0
/// up to round-off: −depth is the signed gap ψ ≥ 0 of the point), position ←
/// position + (s/2) u (midway). When the floor set the shift, only the points
/// within the window (+ 1e-9·scale) of the closest gap are kept: the manifold does
/// not depend on the floor. A pair
/// placed exactly touching (d = 0) is a gap manifold of gap 0: it acts on the
/// first step.
///
/// Never panics; non-finite poses or results give no contact.
#[allow(clippy::too_many_arguments)]
pub fn collide_pair_within(
    ga: usize,
    sa: &Shape,
    xa: &Pose,
    gb: usize,
    sb: &Shape,
    xb: &Pose,
    margin: &Margin,
    scratch: &mut NarrowScratch,
    out: &mut ContactSet,
) -> bool {
    collide_pair_traced(ga, sa, xa, gb, sb, xb, margin, scratch, out) != Found::Nothing
}

/// What [`collide_pair_traced`] appended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// No manifold.
    Nothing,
    /// The pair routine's manifold of penetrating geoms: a function of the two
    /// shapes and poses alone (the margin is not read on this path).
    Penetrating,
    /// A manifold of gap points (the margin's path: it depends on the margin).
    Gap,
}

/// [`collide_pair_within`], telling which path appended the manifold: a
/// [`Found::Penetrating`] manifold is the same for any margin, so a memo of it
/// keyed on the two poses bit for bit is exact (`pipeline::collide`'s narrow
/// phase memo).
#[allow(clippy::too_many_arguments)]
pub fn collide_pair_traced(
    ga: usize,
    sa: &Shape,
    xa: &Pose,
    gb: usize,
    sb: &Shape,
    xb: &Pose,
    margin: &Margin,
    scratch: &mut NarrowScratch,
    out: &mut ContactSet,
) -> Found {
    let Some(entry) = TABLE[sa.kind() as usize][sb.kind() as usize] else {
        return Found::Nothing;
    };
    if routine(
        entry,
        sa,
        xa,
        sb,
        xb,
        scratch,
        0.0,
        &Vec3::zeros(),
        ga,
        gb,
        out,
    ) {
        return Found::Penetrating;
    }
    if margin.reach.is_nan() || margin.reach <= 0.0 {
        return Found::Nothing;
    }
    let sep = match gjk::separation(sa, xa, sb, xb) {
        Some(sep) => sep,
        // The cores touch within GJK's round-off (no direction) and the routine
        // found no penetration: touching within the routines' tolerance — the
        // faces of a stack resting at a gap of 1e-16 m got no manifold at all.
        // A gap-0 manifold, found along the line of the geom origins (the
        // routine's normal must face it, `routine`).
        None => match touching_direction(xa, xb) {
            Some(dir) => gjk::Separation { distance: 0.0, dir },
            None => return Found::Nothing,
        },
    };
    // Only gaps the step's motion can close: the window widens the features
    // found, not the reach.
    let motion = margin.reach - margin.window;
    if sep.distance > motion {
        return Found::Nothing;
    }
    // (A distance below 0 is round-off at touching: the routine found nothing.)
    // The shift: the window, but at least `touching_floor` — the translated copies
    // must overlap by more than the pair routines' own touching tolerance (1e-9 of
    // the pair's scale), or a face resting on a face at a gap of round-off got no
    // manifold at all (it fell one step and landed inside). The shift is undone
    // exactly (depth − s n·u), and the points beyond the window (gap more than
    // `window` + that tolerance above the closest point's, e.g. a sphere's cap
    // ring, which only the floor brought in) are dropped below, so the manifold is
    // the window's whatever the floor.
    let scale = pair_scale(sa, sb);
    let floor = touching_floor(scale);
    let s = sep.distance.max(0.0) + margin.window.max(floor);
    let xa_s = Pose::from_parts((xa.translation.vector - s * sep.dir).into(), xa.rotation);
    let start = out.points.len();
    if !routine(entry, sa, &xa_s, sb, xb, scratch, s, &sep.dir, ga, gb, out) {
        return Found::Nothing;
    }
    // Keep the points whose gap the step can close (the others would only add
    // rows) and, when the floor set the shift, those within the window of the
    // closest one; the deepest point (gap ≈ d ≤ motion) stays.
    let Some(m) = out.manifolds.last_mut() else {
        return Found::Nothing;
    };
    let deepest = out.points[m.deepest];
    let within = if margin.window < floor {
        -deepest.depth + margin.window + TOUCHING_TOL * scale
    } else {
        f64::INFINITY
    };
    let mut keep = start;
    for i in start..out.points.len() {
        let p = out.points[i];
        if (-p.depth <= motion && -p.depth <= within) || p == deepest {
            out.points[keep] = p;
            if p == deepest {
                m.deepest = keep;
            }
            keep += 1;
        }
    }
    out.points.truncate(keep);
    m.points = start..keep;
    Found::Gap
}

/// The pair routines' touching tolerance relative to the pair's scale
/// (`pairs/box_box.rs`, `pairs/polytope_polytope.rs`: penetration ≤ 1e-9·scale
/// counts as separated; features within it are not told apart).
const TOUCHING_TOL: f64 = 1e-9;

/// A pair's scale for tolerances (m): the sum of the geoms' bounding radii about
/// their origins (the pair routines' `scale`), a plane counting 0.
pub(crate) fn pair_scale(sa: &Shape, sb: &Shape) -> f64 {
    let r = |s: &Shape| {
        if s.kind() == ShapeKind::Plane {
            0.0
        } else {
            s.size()
        }
    };
    r(sa) + r(sb)
}

/// The least shift of a speculative copy (m): a hundred times the pair routines'
/// touching tolerance, and 1e-7 m absolute (a copy overlapping by less is
/// "touching" to the routine, which then reports nothing).
fn touching_floor(scale: f64) -> f64 {
    1e-7 * (1.0 + scale)
}

/// The unit vector from geom b's origin to geom a's, if they differ.
fn touching_direction(xa: &Pose, xb: &Pose) -> Option<Vec3> {
    let v = xa.translation.vector - xb.translation.vector;
    let len = v.norm();
    (len.is_finite() && len > 0.0).then(|| v / len)
}

/// The table's routine at (xa, xb); with `shift` > 0, geom a was translated by
/// −shift·u and the points are moved back (see [`collide_pair_within`]).
#[allow(clippy::too_many_arguments)]
fn routine(
    entry: Entry,
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    scratch: &mut NarrowScratch,
    shift: f64,
    u: &Vec3,
    ga: usize,
    gb: usize,
    out: &mut ContactSet,
) -> bool {
    let NarrowScratch { work, points } = scratch;
    points.clear();
    let normal = if entry.swap {
        (entry.f)(sb, xb, sa, xa, work, points).map(|n| -n)
    } else {
        (entry.f)(sa, xa, sb, xb, work, points)
    };
    let Some(normal) = normal else {
        return false;
    };
    let len = normal.norm();
    if !(len.is_finite() && len > 0.5) || points.is_empty() {
        return false;
    }
    let normal = normal / len;
    let finite = points
        .iter()
        .all(|p| p.depth.is_finite() && p.p_w.iter().chain(&p.lever).all(|c| c.is_finite()));
    if !finite {
        return false;
    }
    let along = normal.dot(u);
    if shift > 0.0 && along <= 0.5 {
        // The manifold of the translated copies does not face the separating
        // direction (a corner case of the pair routine): no gap contact.
        return false;
    }
    // Deepest point: the first of the largest depth.
    let mut deepest = 0;
    for (i, p) in points.iter().enumerate() {
        if p.depth > points[deepest].depth {
            deepest = i;
        }
    }
    let start = out.points.len();
    if shift > 0.0 {
        out.points.extend(points.iter().map(|p| ContactPoint {
            p_w: p.p_w + (0.5 * shift) * u,
            depth: (p.depth - shift * along).min(0.0),
            lever: p.lever + (0.5 * shift) * u,
        }));
    } else {
        out.points.extend(points.iter().map(|p| ContactPoint {
            depth: p.depth.max(0.0),
            ..*p
        }));
    }
    out.manifolds.push(Manifold {
        geom_a: ga,
        geom_b: gb,
        normal,
        points: start..out.points.len(),
        deepest: start + deepest,
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_covers_all_pairs_but_plane_plane() {
        for a in ShapeKind::ALL {
            for b in ShapeKind::ALL {
                let plane_plane = a == ShapeKind::Plane && b == ShapeKind::Plane;
                assert_eq!(pair_supported(a, b), !plane_plane, "{a:?} {b:?}");
            }
        }
    }
}
