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
/// With a window (`margin.window` > 0: the complementarity steps), a penetrating
/// flat pair (plane, box, polytope) also gets gap points for its features within
/// the window and the step's motion beside its intersection volume
/// ([`gap_points_beside`]): the edge a pivoting box lands on next.
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
    /// A manifold that depends on the margin: gap points of separated geoms, or
    /// a penetrating manifold with gap points of its other features beside it
    /// (`gap_points_beside`).
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
        return match gap_points_beside(entry, (sa, xa), (sb, xb), margin, scratch, out) {
            0 => Found::Penetrating,
            _ => Found::Gap,
        };
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

/// Whether a pair of kinds meets on flat features only (plane, box, polytope):
/// the pairs whose penetrating manifold gets gap points beside it
/// ([`gap_points_beside`]). A round shape's penetration already spreads its
/// sample over the cap or arc (`pairs/mod.rs`).
fn flat_pair(a: ShapeKind, b: ShapeKind) -> bool {
    let flat = |k| matches!(k, ShapeKind::Plane | ShapeKind::Box | ShapeKind::Polytope);
    flat(a) && flat(b)
}

/// The gap points of a penetrating pair's other features (complementarity steps,
/// `margin.window` > 0): the pair routine's manifold, just appended to `out`,
/// holds the intersection volume only — a box pivoting on one edge has its two
/// corners and their plane crossings, and the opposite edge 43 µm above the
/// plane in the step before it lands had no row (docs/EXPERIMENTS.md, "The missed
/// landing row, attributed"): it entered the plane within the step by up to
/// 0.22 mm. As for a separated pair, geom a is translated toward b by
/// s = max(`margin.window`, floor), along the manifold's normal n this time
/// (−s n), the routine collides the copies, and each point moved back (depth ←
/// depth − s (n'·n), n' the copies' normal) whose gap ψ = −depth is
/// - above the touching tolerance (1e-9·scale: a gap-0 point is the manifold's own
///   crossing of the contact plane),
/// - at most the step's motion `reach − window` and the window,
/// - and below s by more than the tolerance (a point at ψ = s lies on the
///   copies' contact plane: an edge crossing made by the shift, not a feature),
///
/// is appended to the penetrating manifold (its deepest point unchanged). Flat
/// pairs only ([`flat_pair`]); nothing when `margin.window` is 0 (the force
/// models' margins: their manifolds stay the routine's). Returns the number of
/// points appended; a manifold with any depends on the margin ([`Found::Gap`]).
fn gap_points_beside(
    entry: Entry,
    (sa, xa): (&Shape, &Pose),
    (sb, xb): (&Shape, &Pose),
    margin: &Margin,
    scratch: &mut NarrowScratch,
    out: &mut ContactSet,
) -> usize {
    let motion = margin.reach - margin.window;
    if !(margin.window > 0.0 && motion > 0.0 && flat_pair(sa.kind(), sb.kind())) {
        return 0;
    }
    let Some(m) = out.manifolds.last() else {
        return 0;
    };
    if m.points.end != out.points.len() {
        return 0;
    }
    let n = m.normal;
    let scale = pair_scale(sa, sb);
    let tol = TOUCHING_TOL * scale;
    let s = margin.window.max(touching_floor(scale));
    let xa_s = Pose::from_parts((xa.translation.vector - s * n).into(), xa.rotation);
    let Some(along) = found_normal(entry, sa, &xa_s, sb, xb, scratch)
        .map(|n_s| n_s.dot(&n))
        .filter(|&along| along > 0.5)
    else {
        return 0;
    };
    let reach = motion.min(margin.window).min(s - tol);
    let before = out.points.len();
    for p in &scratch.points {
        let q = moved_back(p, s, &n, along);
        if -q.depth > tol && -q.depth <= reach {
            out.points.push(q);
        }
    }
    let added = out.points.len() - before;
    if let Some(m) = out.manifolds.last_mut() {
        m.points.end = out.points.len();
    }
    added
}

/// A point of copies shifted by −`shift`·u (geom a toward b) moved back: its
/// depth less shift·(n'·u) (`along`; ≤ 0 for a gap, −depth = ψ), its points
/// moved by shift/2 along u (midway between the copies).
#[inline]
fn moved_back(p: &ContactPoint, shift: f64, u: &Vec3, along: f64) -> ContactPoint {
    ContactPoint {
        p_w: p.p_w + (0.5 * shift) * u,
        depth: p.depth - shift * along,
        lever: p.lever + (0.5 * shift) * u,
    }
}

/// The table's routine at (xa, xb), its points left in `scratch.points`: the
/// unit normal (toward a) when it found points, every one finite.
fn found_normal(
    entry: Entry,
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    scratch: &mut NarrowScratch,
) -> Option<Vec3> {
    let NarrowScratch { work, points } = scratch;
    points.clear();
    let normal = if entry.swap {
        (entry.f)(sb, xb, sa, xa, work, points).map(|n| -n)
    } else {
        (entry.f)(sa, xa, sb, xb, work, points)
    }?;
    let len = normal.norm();
    if !(len.is_finite() && len > 0.5) || points.is_empty() {
        return None;
    }
    let finite = points
        .iter()
        .all(|p| p.depth.is_finite() && p.p_w.iter().chain(&p.lever).all(|c| c.is_finite()));
    finite.then(|| normal / len)
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
    let Some(normal) = found_normal(entry, sa, xa, sb, xb, scratch) else {
        return false;
    };
    let points = &scratch.points;
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
        out.points.extend(points.iter().map(|p| {
            let q = moved_back(p, shift, u, along);
            ContactPoint {
                depth: q.depth.min(0.0),
                ..q
            }
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
    use crate::math::Quat;

    /// A box 2a × 2c × 2b pivoting on its +x bottom edge (9.5 µm deep) with its
    /// −x bottom edge `gap` above the floor z = 0 (docs/EXPERIMENTS.md, "The
    /// missed landing row": the rocking block one step before it lands), against
    /// the plane and against a static box floor; the manifold of each margin.
    fn pivoting(gap: f64, floor_box: bool, margin: &Margin) -> (Found, Vec<ContactPoint>) {
        let (a, c, b, deep) = (0.05, 0.05, 0.1, 9.5e-6);
        let sin = (gap + deep) / (2.0 * a);
        let th = sin.asin();
        let zc = b * th.cos() + 0.5 * (gap - deep);
        let block = Shape::cuboid(Vec3::new(a, c, b)).expect("block");
        let xb = Pose::from_parts(
            Vec3::new(0.0, 0.0, zc).into(),
            Quat::from_axis_angle(&Vec3::y_axis(), th),
        );
        let (floor, xf) = if floor_box {
            let f = Shape::cuboid(Vec3::new(1.0, 1.0, 0.1)).expect("floor");
            (
                f,
                Pose::from_parts(Vec3::new(0.0, 0.0, -0.1).into(), Quat::identity()),
            )
        } else {
            (Shape::plane(), Pose::identity())
        };
        let mut scratch = NarrowScratch::default();
        let mut out = ContactSet::default();
        let found = collide_pair_traced(
            0,
            &floor,
            &xf,
            1,
            &block,
            &xb,
            margin,
            &mut scratch,
            &mut out,
        );
        assert_eq!(out.manifolds.len(), 1);
        (found, out.points_of(&out.manifolds[0]).to_vec())
    }

    /// A penetrating pair's other features within the window and the step's
    /// motion get gap points of their gap, beside the routine's manifold (which
    /// is unchanged): the pivoting box's landing edge, 43 µm above the floor,
    /// has its two corners at ψ = 43 µm (to 1e-12 m on the plane, 1e-9·scale on
    /// the box floor, the pair routines' tolerance); without a window (the force
    /// models), or with a motion below the gap, the manifold is the routine's.
    #[test]
    fn a_penetrating_pair_gets_gap_points_for_its_landing_edge() {
        let gap = 43e-6;
        let window = Margin {
            reach: 1e-3 + 1e-4,
            window: 1e-3,
        };
        for floor_box in [false, true] {
            let (found0, routine) = pivoting(gap, floor_box, &Margin::NONE);
            assert_eq!(found0, Found::Penetrating);
            assert!(routine.iter().all(|p| p.depth >= 0.0));
            let (found, pts) = pivoting(gap, floor_box, &window);
            assert_eq!(found, Found::Gap, "floor box {floor_box}");
            assert_eq!(&pts[..routine.len()], &routine[..]);
            let extra = &pts[routine.len()..];
            let tol = if floor_box { 1e-9 * 1.5 } else { 1e-12 };
            assert_eq!(extra.len(), 2, "floor box {floor_box}: {extra:?}");
            for p in extra {
                assert!(
                    (p.depth + gap).abs() < tol,
                    "{floor_box}: depth {}",
                    p.depth
                );
                assert!(p.p_w.x < -0.049, "{floor_box}: at {:?}", p.p_w);
            }
            // The force models' margin (no window), and a motion below the gap.
            let force = Margin {
                reach: 1e-4,
                window: 0.0,
            };
            let slow = Margin {
                reach: 1e-3 + 3e-5,
                window: 1e-3,
            };
            for m in [force, slow] {
                let (found, pts) = pivoting(gap, floor_box, &m);
                assert_eq!(found, Found::Penetrating, "{floor_box} {m:?}");
                assert_eq!(pts, routine);
            }
        }
    }

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
