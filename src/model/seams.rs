//! Seams between static boxes: faces that another static box covers.
//!
//! A floor of tiles, two tables pushed together, a ramp's landing built of boxes:
//! static boxes laid flush, face against face. Each box alone is a convex geom,
//! so a body sliding across the seam meets the next box's *side* face at the
//! depth it rests at (a penalty or soft contact rests a little inside the
//! support: 1.3 mm for a 1 kg box under penalty), and the narrow phase of that
//! pair alone picks the side face's normal — the smallest overlap — and throws
//! the body back, or a rolling ball's contact on the covered edge gets a slanted
//! normal that hops it ("ghost" or internal-edge contacts). A face covered by a
//! neighbour's face is not a surface: nothing can touch it.
//!
//! A static box geom whose face lies in the plane of an opposite face of another
//! static box geom, and inside that face's rectangle (to 1e-9 of their size),
//! has that face **covered**. It then collides as its **extended box**: the box
//! grown through each covered face by the neighbour's thickness there — a box
//! inside the union of the two, so no contact is found that the real geometry
//! does not have — and the manifold keeps only the points over the box itself
//! (the neighbour's own pair gives the others; a point exactly on the seam
//! belongs to the geom of lower index). The normal and depth come from the union,
//! where the covered face is not a boundary: a body crossing the seam slides on
//! as over one box.
//!
//! Only whole faces covered by one neighbour's face are seams (a row or a grid
//! of equal tiles, a small box flush against a larger one's face). A face
//! partly covered (tiles of unequal widths, staggered bricks) keeps its contacts
//! as before.

use crate::collision::Shape;
use crate::math::{Pose, Vec3};

/// The extended box of a static box geom with covered faces.
#[derive(Clone, Debug)]
pub struct Seam {
    /// The extended box (its own polytope).
    pub shape: Shape,
    /// Its centre in the geom frame.
    pub offset: Vec3,
    /// The real box's half extents.
    pub half: Vec3,
    /// Per axis, per side (0: −, 1: +): the face is covered and the points
    /// beyond it are the neighbour's.
    pub covered: [[bool; 2]; 3],
    /// Per axis, per side: a point exactly on the covered face stays with this
    /// geom (its index is the lower of the two).
    pub keeps_tie: [[bool; 2]; 3],
}

impl Seam {
    /// The extended box's world pose for the geom at `pose`.
    #[inline]
    pub fn pose(&self, pose: &Pose) -> Pose {
        pose * Pose::translation(self.offset.x, self.offset.y, self.offset.z)
    }

    /// The covered faces of the geom at `pose` as world planes (unit outward
    /// normal n, offset c: the real box is n·p ≤ c there) and whether a point
    /// exactly on the plane stays with this geom.
    pub fn planes(&self, pose: &Pose) -> impl Iterator<Item = (Vec3, f64, bool)> + '_ {
        let r = pose.rotation.to_rotation_matrix();
        let x = pose.translation.vector;
        (0..3).flat_map(move |k| {
            [(0usize, -1.0f64), (1, 1.0)]
                .into_iter()
                .filter(move |&(side, _)| self.covered[k][side])
                .map(move |(side, s)| {
                    let n = r.matrix().column(k) * s;
                    (n, n.dot(&x) + self.half[k], self.keeps_tie[k][side])
                })
        })
    }
}

/// A static box: its index, world pose and half extents.
struct Tile {
    geom: usize,
    pose: Pose,
    half: Vec3,
}

/// The seams of the static box geoms among `geoms` ((geom index, world pose,
/// shape) of every static geom): for each box with a covered face, its
/// [`Seam`]. `None` where a geom has no covered face.
pub fn find(statics: &[(usize, Pose, &Shape)], ngeom: usize) -> Vec<Option<Seam>> {
    let tiles: Vec<Tile> = statics
        .iter()
        .filter_map(|(g, pose, shape)| match shape {
            Shape::Box { half, .. } => Some(Tile {
                geom: *g,
                pose: *pose,
                half: *half,
            }),
            _ => None,
        })
        .collect();
    let mut out: Vec<Option<Seam>> = vec![None; ngeom];
    for t in &tiles {
        // Per axis, per side: the neighbour's thickness through the face (0: none).
        let mut grow = [[0.0f64; 2]; 3];
        let mut tie = [[false; 2]; 3];
        for k in 0..3 {
            for (side, s) in [(0usize, -1.0f64), (1, 1.0)] {
                for o in &tiles {
                    if o.geom == t.geom {
                        continue;
                    }
                    if let Some(thick) = covers(t, k, s, o) {
                        grow[k][side] = thick;
                        tie[k][side] = t.geom < o.geom;
                        break;
                    }
                }
            }
        }
        if grow.iter().all(|g| g[0] == 0.0 && g[1] == 0.0) {
            continue;
        }
        let mut half = t.half;
        let mut offset = Vec3::zeros();
        for k in 0..3 {
            let (lo, hi) = (-t.half[k] - grow[k][0], t.half[k] + grow[k][1]);
            half[k] = 0.5 * (hi - lo);
            offset[k] = 0.5 * (hi + lo);
        }
        let Ok(shape) = Shape::cuboid(half) else {
            continue;
        };
        out[t.geom] = Some(Seam {
            shape,
            offset,
            half: t.half,
            covered: grow.map(|g| [g[0] > 0.0, g[1] > 0.0]),
            keeps_tie: tie,
        });
    }
    out
}

/// If box `o` has a face opposite to `t`'s face (axis `k`, side `s`), in the same
/// plane and containing it: `o`'s thickness through that face.
fn covers(t: &Tile, k: usize, s: f64, o: &Tile) -> Option<f64> {
    let rt = t.pose.rotation.to_rotation_matrix();
    let ro = o.pose.rotation.to_rotation_matrix();
    let n = rt.matrix().column(k) * s;
    let centre = t.pose.translation.vector + n * t.half[k];
    let tol = 1e-9 * (t.half.norm() + o.half.norm());
    // o's face with outward normal −n: one of its axes, either sign.
    let ko = (0..3).find(|&j| (ro.matrix().column(j).dot(&n).abs() - 1.0).abs() < 1e-12)?;
    let centre_o = o.pose.translation.vector - n * o.half[ko];
    // Same plane.
    if (n.dot(&(centre_o - centre))).abs() > tol {
        return None;
    }
    // t's face corners inside o's face rectangle.
    let (a, b) = ((k + 1) % 3, (k + 2) % 3);
    for (sa, sb) in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
        let corner = centre
            + rt.matrix().column(a) * (sa * t.half[a])
            + rt.matrix().column(b) * (sb * t.half[b]);
        let l = ro.transpose() * (corner - o.pose.translation.vector);
        for j in 0..3 {
            if j != ko && l[j].abs() > o.half[j] + tol {
                return None;
            }
        }
    }
    Some(2.0 * o.half[ko])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    fn tile(half: [f64; 3], at: [f64; 3], yaw: f64) -> (Pose, Shape) {
        let q = Quat::from_euler_angles(0.0, 0.0, yaw);
        (
            Pose::from_parts(Vec3::from(at).into(), q),
            Shape::cuboid(Vec3::from(half)).expect("box"),
        )
    }

    fn seams(t: &[(Pose, Shape)]) -> Vec<Option<Seam>> {
        let s: Vec<(usize, Pose, &Shape)> =
            t.iter().enumerate().map(|(i, (p, s))| (i, *p, s)).collect();
        find(&s, t.len())
    }

    #[test]
    fn two_flush_tiles_cover_each_other() {
        let s = seams(&[
            tile([0.5, 1.0, 0.1], [-0.5, 0.0, -0.1], 0.0),
            tile([0.5, 1.0, 0.1], [0.5, 0.0, -0.1], 0.0),
        ]);
        let (a, b) = (s[0].as_ref().expect("a"), s[1].as_ref().expect("b"));
        assert_eq!(a.covered, [[false, true], [false, false], [false, false]]);
        assert_eq!(b.covered, [[true, false], [false, false], [false, false]]);
        // The extended boxes are the union: 2 m long, centred at x = 0.
        assert!((a.offset - Vec3::new(0.5, 0.0, 0.0)).norm() < 1e-15);
        assert!((b.offset - Vec3::new(-0.5, 0.0, 0.0)).norm() < 1e-15);
        // The seam's tie goes to the lower index.
        assert!(a.keeps_tie[0][1] && !b.keeps_tie[0][0]);
        let (n, c, _) = a.planes(&s_pose(-0.5)).next().expect("plane");
        assert!((n - Vec3::x()).norm() < 1e-15 && c.abs() < 1e-15);
    }

    fn s_pose(x: f64) -> Pose {
        Pose::translation(x, 0.0, -0.1)
    }

    #[test]
    fn a_gap_a_step_and_a_partial_face_are_not_seams() {
        // 1 µm apart: not in one plane.
        let s = seams(&[
            tile([0.5, 1.0, 0.1], [-0.5, 0.0, -0.1], 0.0),
            tile([0.5, 1.0, 0.1], [0.500001, 0.0, -0.1], 0.0),
        ]);
        assert!(s.iter().all(Option::is_none));
        // The second 5 mm taller: its face is not covered (a step), the first's is
        // (inside the taller face).
        let s = seams(&[
            tile([0.5, 1.0, 0.1], [-0.5, 0.0, -0.1], 0.0),
            tile([0.5, 1.0, 0.105], [0.5, 0.0, -0.095], 0.0),
        ]);
        assert!(s[0].is_some() && s[1].is_none());
        // Narrower in y: the wide tile's face is only partly covered.
        let s = seams(&[
            tile([0.5, 1.0, 0.1], [-0.5, 0.0, -0.1], 0.0),
            tile([0.5, 0.5, 0.1], [0.5, 0.0, -0.1], 0.0),
        ]);
        assert!(s[0].is_none() && s[1].is_some());
    }

    #[test]
    fn turned_tiles_and_a_grid() {
        // Two tiles yawed 0.3 rad, flush along their own x axis.
        let (c, s) = (0.3f64.cos(), 0.3f64.sin());
        let t = seams(&[
            tile([0.5, 1.0, 0.1], [-0.5 * c, -0.5 * s, -0.1], 0.3),
            tile([0.5, 1.0, 0.1], [0.5 * c, 0.5 * s, -0.1], 0.3),
        ]);
        assert!(t[0].is_some() && t[1].is_some());
        // A 2 × 2 grid: every tile covered on two faces.
        let at = [(-0.5, -0.5), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.5)];
        let g: Vec<_> = at
            .iter()
            .map(|&(x, y)| tile([0.5, 0.5, 0.1], [x, y, -0.1], 0.0))
            .collect();
        for s in seams(&g) {
            let s = s.expect("covered");
            let n: usize = s.covered.iter().flatten().map(|&c| usize::from(c)).sum();
            assert_eq!(n, 2);
        }
    }
}
