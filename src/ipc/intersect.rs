//! Exact triangle–triangle intersection, for checking the guarantee of 004 (no
//! intersection at any step) rather than assuming it.
//!
//! Two closed triangles meet iff an edge of one meets the other triangle. Each test is
//! decided by the signs of orientation determinants evaluated exactly (Shewchuk's
//! adaptive predicates, the `robust` crate), so touching counts as meeting and a miss
//! by one ulp is a miss. An edge lying in the other triangle's plane is decided in 2D
//! (the plane projected along its normal's largest axis).
//!
//! Spheres and capsules are round vertices and edges (`ipc::mesh`), not triangles:
//! [`count_body_intersections`] also counts one closer than its radius to another
//! body's triangle or round primitive.

use crate::data::Data;
use crate::ipc::mesh::SurfaceMesh;
use crate::math::Vec3;
use crate::model::{Method, Model};
use crate::pipeline::ipc::tessellate::body_mesh;
use robust::{orient2d, orient3d, Coord, Coord3D};

#[inline]
fn c3(v: &Vec3) -> Coord3D<f64> {
    Coord3D {
        x: v.x,
        y: v.y,
        z: v.z,
    }
}

/// Sign of orient3d(a, b, c, d) (exact).
#[inline]
fn o3(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> i8 {
    let s = orient3d(c3(a), c3(b), c3(c), c3(d));
    (s > 0.0) as i8 - (s < 0.0) as i8
}

/// A projection of the plane onto two coordinate axes (dropping `drop`).
#[derive(Clone, Copy)]
struct Plane2 {
    drop: usize,
}

impl Plane2 {
    fn of(t: &[Vec3; 3]) -> Self {
        let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
        let drop = (0..3)
            .max_by(|&i, &j| n[i].abs().total_cmp(&n[j].abs()))
            .unwrap_or(2);
        Plane2 { drop }
    }
    #[inline]
    fn p(&self, v: &Vec3) -> Coord<f64> {
        let (i, j) = match self.drop {
            0 => (1, 2),
            1 => (2, 0),
            _ => (0, 1),
        };
        Coord { x: v[i], y: v[j] }
    }
    #[inline]
    fn o2(&self, a: &Vec3, b: &Vec3, c: &Vec3) -> i8 {
        let s = orient2d(self.p(a), self.p(b), self.p(c));
        (s > 0.0) as i8 - (s < 0.0) as i8
    }
    /// Whether x (on the segment's line) lies within the closed segment ab.
    fn within(&self, a: &Vec3, b: &Vec3, x: &Vec3) -> bool {
        let (a, b, x) = (self.p(a), self.p(b), self.p(x));
        x.x >= a.x.min(b.x) && x.x <= a.x.max(b.x) && x.y >= a.y.min(b.y) && x.y <= a.y.max(b.y)
    }
    /// Closed segments ab and cd meet (in the plane).
    fn segments(&self, a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> bool {
        let (d1, d2) = (self.o2(a, b, c), self.o2(a, b, d));
        let (d3, d4) = (self.o2(c, d, a), self.o2(c, d, b));
        if d1 * d2 < 0 && d3 * d4 < 0 {
            return true;
        }
        (d1 == 0 && self.within(a, b, c))
            || (d2 == 0 && self.within(a, b, d))
            || (d3 == 0 && self.within(c, d, a))
            || (d4 == 0 && self.within(c, d, b))
    }
    /// Point x in the closed triangle t (non-degenerate).
    fn inside(&self, t: &[Vec3; 3], x: &Vec3) -> bool {
        let s = [
            self.o2(&t[0], &t[1], x),
            self.o2(&t[1], &t[2], x),
            self.o2(&t[2], &t[0], x),
        ];
        !(s.contains(&1) && s.contains(&-1))
    }
}

/// Whether the closed segment pq meets the closed triangle t.
pub fn segment_meets_triangle(p: &Vec3, q: &Vec3, t: &[Vec3; 3]) -> bool {
    let (sp, sq) = (o3(&t[0], &t[1], &t[2], p), o3(&t[0], &t[1], &t[2], q));
    if sp == 0 && sq == 0 {
        // In the triangle's plane: a 2D question.
        let pl = Plane2::of(t);
        return pl.inside(t, p)
            || pl.inside(t, q)
            || (0..3).any(|i| pl.segments(p, q, &t[i], &t[(i + 1) % 3]));
    }
    if sp == sq {
        return false;
    }
    // pq crosses or touches the plane: the line pq passes through the closed
    // triangle iff it is on one side (or on) of each of the three edge lines.
    let s = [
        o3(p, q, &t[0], &t[1]),
        o3(p, q, &t[1], &t[2]),
        o3(p, q, &t[2], &t[0]),
    ];
    !(s.contains(&1) && s.contains(&-1))
}

/// Whether two closed triangles meet (intersect or touch).
pub fn triangles_meet(a: &[Vec3; 3], b: &[Vec3; 3]) -> bool {
    (0..3).any(|i| segment_meets_triangle(&a[i], &a[(i + 1) % 3], b))
        || (0..3).any(|i| segment_meets_triangle(&b[i], &b[(i + 1) % 3], a))
}

/// Whether triangles `fa` and `fb` of one mesh (indices into `v`) meet anywhere
/// other than along the vertices and edges they share: for a self-intersection
/// check. No shared vertex: [`triangles_meet`]. One shared vertex p: the edge of
/// each opposite p against the other triangle, and an edge from p lying in the
/// other's plane and pointing into its corner at p. A shared edge: they overlap
/// only when coplanar and folded (the third vertices on the same side of the edge).
/// All decided by exact predicates.
pub fn mesh_triangles_meet(v: &[Vec3], fa: [u32; 3], fb: [u32; 3]) -> bool {
    let p = |i: u32| &v[i as usize];
    let shared: Vec<(usize, usize)> = (0..3)
        .flat_map(|i| (0..3).map(move |j| (i, j)))
        .filter(|&(i, j)| fa[i] == fb[j])
        .collect();
    let ta = fa.map(|i| *p(i));
    let tb = fb.map(|i| *p(i));
    match shared.as_slice() {
        [] => triangles_meet(&ta, &tb),
        &[(i, j)] => {
            let (a1, a2) = (&ta[(i + 1) % 3], &ta[(i + 2) % 3]);
            let (b1, b2) = (&tb[(j + 1) % 3], &tb[(j + 2) % 3]);
            let apex = &ta[i];
            if segment_meets_triangle(a1, a2, &tb) || segment_meets_triangle(b1, b2, &ta) {
                return true;
            }
            // An edge from the apex in the other triangle's plane entering its corner.
            let into_corner = |x: &Vec3, t: &[Vec3; 3], c1: &Vec3, c2: &Vec3| {
                if o3(&t[0], &t[1], &t[2], x) != 0 {
                    return false;
                }
                let pl = Plane2::of(t);
                let (s1, s2) = (pl.o2(apex, c1, x), pl.o2(apex, c1, c2));
                let (s3, s4) = (pl.o2(apex, c2, x), pl.o2(apex, c2, c1));
                s1 * s2 >= 0 && s3 * s4 >= 0
            };
            into_corner(a1, &tb, b1, b2)
                || into_corner(a2, &tb, b1, b2)
                || into_corner(b1, &ta, a1, a2)
                || into_corner(b2, &ta, a1, a2)
        }
        &[(i0, j0), (i1, _)] => {
            let a = &ta[3 - i0 - i1];
            let b = &tb[(0..3)
                .find(|&k| fb[k] != fb[j0] && fb[k] != fa[i1])
                .unwrap_or(0)];
            let (e0, e1) = (&ta[i0], &ta[i1]);
            if o3(e0, e1, a, b) != 0 {
                return false;
            }
            let pl = Plane2::of(&ta);
            pl.o2(e0, e1, a) == pl.o2(e0, e1, b)
        }
        _ => true,
    }
}

/// The bodies' surface meshes as IPC uses them (body frame; a plane is the square of
/// the model's `plane_half_width`, 100 m when the method is not IPC).
pub fn body_meshes(model: &Model) -> Vec<SurfaceMesh> {
    let half = match model.opt.method {
        Method::Ipc(p) => p.plane_half_width,
        _ => 100.0,
    };
    (0..model.nbody())
        .map(|b| body_mesh(model, b, half))
        .collect()
}

/// Triangle pairs of different bodies, not both static, that meet (exact test) with
/// the bodies at their poses in `data`; `meshes` from [`body_meshes`]. Pairs are
/// culled by their triangles' bounding boxes (closed: touching boxes are tested).
/// For checking, not for the physics thread (it allocates).
pub fn count_body_intersections(model: &Model, data: &Data, meshes: &[SurfaceMesh]) -> usize {
    let world: Vec<Vec<[Vec3; 3]>> = meshes
        .iter()
        .enumerate()
        .map(|(b, m)| {
            let pose = data.state[b].pose();
            m.faces
                .iter()
                .map(|f| f.map(|i| (pose * nalgebra::Point3::from(m.vertices[i as usize])).coords))
                .collect()
        })
        .collect();
    let bx = |t: &[Vec3; 3]| (t[0].inf(&t[1]).inf(&t[2]), t[0].sup(&t[1]).sup(&t[2]));
    let mut n = 0;
    for a in 0..world.len() {
        for b in a + 1..world.len() {
            if model.bodies[a].mass == 0.0 && model.bodies[b].mass == 0.0 {
                continue;
            }
            for ta in &world[a] {
                let (la, ha) = bx(ta);
                for tb in &world[b] {
                    let (lb, hb) = bx(tb);
                    if (0..3).any(|k| la[k] > hb[k] || lb[k] > ha[k]) {
                        continue;
                    }
                    n += usize::from(triangles_meet(ta, tb));
                }
            }
            n += round_overlaps(
                data,
                (a, &meshes[a]),
                (b, &meshes[b]),
                (&world[a], &world[b]),
            );
        }
    }
    n
}

/// Round vertices and edges (spheres and capsules, `ipc::mesh` "Round vertices") of
/// two bodies that meet: a sphere's centre or a capsule's axis closer than its radius
/// to a triangle of the other body, or two round primitives closer than their radii's
/// sum (exact up to the distances' rounding).
fn round_overlaps(
    data: &Data,
    (a, ma): (usize, &SurfaceMesh),
    (b, mb): (usize, &SurfaceMesh),
    (ta, tb): (&[[Vec3; 3]], &[[Vec3; 3]]),
) -> usize {
    let at = |body: usize, p: &Vec3| (data.state[body].pose() * nalgebra::Point3::from(*p)).coords;
    // A body's round primitives in the world: (segment ends, radius); a sphere's are
    // its centre twice. A capsule's ends are skipped as vertices (its axis covers them).
    let prims = |body: usize, m: &SurfaceMesh| -> Vec<(Vec3, Vec3, f64)> {
        let mut out: Vec<(Vec3, Vec3, f64)> = Vec::new();
        let mut on_edge = vec![false; m.vertices.len()];
        for &ei in &m.round_edges {
            let e = m.edges[ei as usize];
            on_edge[e[0] as usize] = true;
            on_edge[e[1] as usize] = true;
            let (p, q) = (
                at(body, &m.vertices[e[0] as usize]),
                at(body, &m.vertices[e[1] as usize]),
            );
            out.push((p, q, m.radii[e[0] as usize]));
        }
        for &v in &m.round {
            if !on_edge[v as usize] {
                let c = at(body, &m.vertices[v as usize]);
                out.push((c, c, m.radii[v as usize]));
            }
        }
        out
    };
    let (pa, pb) = (prims(a, ma), prims(b, mb));
    let mut n = 0;
    for (prims, tris) in [(&pa, tb), (&pb, ta)] {
        for &(p, q, r) in prims {
            for t in tris {
                n += usize::from(segment_triangle_distance(&p, &q, t) < r);
            }
        }
    }
    for &(p, q, r) in &pa {
        for &(u, v, s) in &pb {
            let (x, y) = crate::collision::pairs::segment_segment(&p, &q, &u, &v);
            let d = ((p + (q - p) * x) - (u + (v - u) * y)).norm();
            n += usize::from(d < r + s);
        }
    }
    n
}

/// Distance between segment pq (a point when p = q) and triangle t.
fn segment_triangle_distance(p: &Vec3, q: &Vec3, t: &[Vec3; 3]) -> f64 {
    if p != q && segment_meets_triangle(p, q, t) {
        return 0.0;
    }
    let to_tri = |x: &Vec3| {
        let w = crate::pipeline::ipc::friction::closest_on_triangle(x, &t[0], &t[1], &t[2]);
        (x - (t[0] * w[0] + t[1] * w[1] + t[2] * w[2])).norm()
    };
    let mut d = to_tri(p).min(to_tri(q));
    if p != q {
        for i in 0..3 {
            let (u, v) = (t[i], t[(i + 1) % 3]);
            let (x, y) = crate::collision::pairs::segment_segment(p, q, &u, &v);
            d = d.min(((p + (q - p) * x) - (u + (v - u) * y)).norm());
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> [Vec3; 3] {
        [Vec3::from(a), Vec3::from(b), Vec3::from(c)]
    }

    fn base() -> [Vec3; 3] {
        t([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    }

    #[test]
    fn configurations() {
        let b = base();
        // Piercing: a vertical triangle through the base's interior.
        assert!(triangles_meet(
            &t([0.2, 0.2, -1.0], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]),
            &b
        ));
        // Separated above.
        assert!(!triangles_meet(
            &t([0.2, 0.2, 0.1], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]),
            &b
        ));
        // Touching at a vertex on the base's interior (exactly representable).
        assert!(triangles_meet(
            &t([0.25, 0.25, 0.0], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]),
            &b
        ));
        // Touching vertex to vertex.
        assert!(triangles_meet(
            &t([1.0, 0.0, 0.0], [2.0, 0.0, 1.0], [2.0, 1.0, 1.0]),
            &b
        ));
        // Edge crossing edge: a vertical triangle whose lower edge crosses the
        // base's hypotenuse, and one whose edge passes just outside it.
        assert!(triangles_meet(
            &t([0.5, 0.5, -1.0], [0.5, 0.5, 1.0], [3.0, 3.0, 0.0]),
            &b
        ));
        assert!(!triangles_meet(
            &t([0.6, 0.6, -1.0], [0.6, 0.6, 1.0], [3.0, 3.0, 0.0]),
            &b
        ));
        // Coplanar: overlapping, contained, disjoint, touching along an edge.
        assert!(triangles_meet(
            &t([0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]),
            &b
        ));
        assert!(triangles_meet(
            &t([0.1, 0.1, 0.0], [0.2, 0.1, 0.0], [0.1, 0.2, 0.0]),
            &b
        ));
        assert!(!triangles_meet(
            &t([2.0, 2.0, 0.0], [3.0, 2.0, 0.0], [2.0, 3.0, 0.0]),
            &b
        ));
        assert!(triangles_meet(
            &t([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]),
            &b
        ));
    }

    /// Triangles of one mesh: a fan around a shared vertex and a hinge on a shared
    /// edge do not meet beyond what they share; a fold, a triangle passing through a
    /// neighbour and a coplanar overlap at a shared vertex do.
    #[test]
    fn mesh_neighbours() {
        let v: Vec<Vec3> = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 1.0, 0.0],
            [0.5, 0.5, 0.0],
            [-1.0, 0.25, 0.0],
            [0.25, 0.25, -1.0],
            [0.25, 0.25, 1.0],
        ]
        .iter()
        .map(|a| Vec3::from(*a))
        .collect();
        // Hinge (90°) and flat neighbours across edge 0–1 / 1–2.
        assert!(!mesh_triangles_meet(&v, [0, 1, 2], [1, 0, 3]));
        assert!(!mesh_triangles_meet(&v, [0, 1, 2], [2, 1, 4]));
        // Folded onto itself across edge 0–1.
        assert!(mesh_triangles_meet(&v, [0, 1, 2], [1, 0, 5]));
        // Sharing vertex 0 only: apart, and a coplanar one entering the corner.
        assert!(!mesh_triangles_meet(&v, [0, 1, 2], [0, 6, 3]));
        assert!(mesh_triangles_meet(&v, [0, 1, 2], [0, 5, 3]));
        // Sharing vertex 1 only, its far edge piercing the other triangle.
        assert!(mesh_triangles_meet(&v, [0, 1, 2], [1, 7, 8]));
        // Sharing nothing.
        assert!(
            mesh_triangles_meet(&v, [0, 1, 2], [7, 8, 6])
                == triangles_meet(&[v[0], v[1], v[2]], &[v[7], v[8], v[6]])
        );
    }

    /// Exactness: a vertex one ulp above the plane misses; on it, it touches.
    #[test]
    fn one_ulp_decides() {
        let b = base();
        let z = f64::MIN_POSITIVE;
        assert!(!triangles_meet(
            &t([0.1, 0.1, z], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]),
            &b
        ));
        assert!(triangles_meet(
            &t([0.1, 0.1, 0.0], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]),
            &b
        ));
        // A plane tilted so that floating-point evaluation of the determinant is
        // inexact: points exactly on it (by construction, dyadic) still touch.
        let tilt = t([0.0, 0.0, 0.0], [1.0, 0.0, 0.125], [0.0, 1.0, 0.375]);
        let on = Vec3::new(0.25, 0.5, 0.25 * 0.125 + 0.5 * 0.375);
        assert!(segment_meets_triangle(
            &on,
            &(on + Vec3::new(0.0, 0.0, 1.0)),
            &tilt
        ));
        let above = Vec3::new(on.x, on.y, on.z.next_up());
        assert!(!segment_meets_triangle(
            &above,
            &(above + Vec3::new(0.0, 0.0, 1.0)),
            &tilt
        ));
    }

    /// Random pairs away from degeneracy agree with a floating-point reference
    /// (segment–plane crossing point inside the triangle by barycentrics).
    #[test]
    fn agrees_with_a_float_reference_on_random_pairs() {
        let mut s = 0x1234_5678_9ABC_DEF1u64;
        let mut r = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let seg_tri = |p: &Vec3, q: &Vec3, tr: &[Vec3; 3]| -> Option<bool> {
            let n = (tr[1] - tr[0]).cross(&(tr[2] - tr[0]));
            let (dp, dq) = ((p - tr[0]).dot(&n), (q - tr[0]).dot(&n));
            if dp.abs() < 1e-9 || dq.abs() < 1e-9 {
                return None;
            }
            if dp * dq > 0.0 {
                return Some(false);
            }
            let x = p + (q - p) * (dp / (dp - dq));
            let w = [0, 1, 2].map(|i| (tr[(i + 1) % 3] - tr[i]).cross(&(x - tr[i])).dot(&n));
            if w.iter().any(|v| v.abs() < 1e-9) {
                return None;
            }
            Some(w.iter().all(|&v| v > 0.0))
        };
        let (mut meet, mut agree) = (0, 0);
        for _ in 0..2000 {
            let a = [0; 3].map(|_| Vec3::new(r(), r(), r()));
            let b = [0; 3].map(|_| Vec3::new(r(), r(), r()) * 0.8);
            let mut refr = Some(false);
            for (x, y) in [(&a, &b), (&b, &a)] {
                for i in 0..3 {
                    match (refr, seg_tri(&x[i], &x[(i + 1) % 3], y)) {
                        (_, None) => refr = None,
                        (Some(false), Some(v)) => refr = Some(v),
                        _ => {}
                    }
                }
            }
            if let Some(want) = refr {
                assert_eq!(triangles_meet(&a, &b), want);
                agree += 1;
                meet += want as usize;
            }
        }
        assert!(
            agree > 1500 && meet > 100 && meet < agree - 100,
            "{agree} decided, {meet} meeting"
        );
    }
}
