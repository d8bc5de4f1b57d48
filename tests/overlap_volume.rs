//! Exact intersection volume of convex polytopes (the overlap metric of 003's
//! pouring experiments, Figs. 23–24), checked against closed forms and against an
//! independent construction (the convex hull of the intersection's vertices).
//!
//! Tolerance: 1e-12 relative to the bodies' volume (each volume is a sum of a few
//! dozen products of metre-scale coordinates).

use rtphys::collision::overlap::{intersection_volume, OverlapScratch};
use rtphys::collision::ConvexPolytope;
use rtphys::math::{Pose, Quat, SplitMix64, Vec3};
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

fn cuboid(h: Vec3) -> ConvexPolytope {
    let mut pts = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                pts.push(Vec3::new(sx * h.x, sy * h.y, sz * h.z));
            }
        }
    }
    ConvexPolytope::from_points(&pts).expect("box")
}

fn vol(a: &ConvexPolytope, xa: &Pose, b: &ConvexPolytope, xb: &Pose) -> f64 {
    intersection_volume(a, xa, b, xb, &mut OverlapScratch::default())
}

#[test]
fn offset_boxes_overlap_in_a_box() {
    let a = cuboid(Vec3::new(0.5, 0.5, 0.5));
    let b = cuboid(Vec3::new(0.5, 1.0, 0.25));
    let xb = Pose::translation(0.5, 0.3, 0.2);
    // x: [0, 0.5], y: [−0.5, 0.5] ∩ [−0.7, 1.3] = 1.0, z: [−0.05, 0.45] → 0.5
    let expect = 0.5 * 1.0 * 0.5;
    let v = vol(&a, &Pose::identity(), &b, &xb);
    assert!((v - expect).abs() < 1e-12, "{v} vs {expect}");
    // Symmetric, and invariant under a rigid motion of the pair.
    let v2 = vol(&b, &xb, &a, &Pose::identity());
    assert!((v2 - expect).abs() < 1e-12, "{v2}");
    let mut rng = SplitMix64::new(3);
    for _ in 0..20 {
        let g = Pose::from_parts(
            Vec3::new(
                rng.uniform(-3.0, 3.0),
                rng.uniform(-3.0, 3.0),
                rng.uniform(-3.0, 3.0),
            )
            .into(),
            rng.rotation(),
        );
        let v = vol(&a, &g, &b, &(g * xb));
        assert!((v - expect).abs() < 1e-12, "{v}");
    }
}

#[test]
fn identical_contained_disjoint_and_touching() {
    let a = cuboid(Vec3::new(0.5, 0.4, 0.3));
    let full = a.volume();
    let x = Pose::from_parts(
        Vec3::new(0.1, 0.2, 0.3).into(),
        Quat::from_euler_angles(0.3, 0.2, 0.1),
    );
    let v = vol(&a, &x, &a, &x);
    assert!(
        (v - full).abs() < 1e-12 * full,
        "self overlap {v} vs {full}"
    );
    let small = cuboid(Vec3::new(0.1, 0.1, 0.1));
    let v = vol(
        &a,
        &Pose::identity(),
        &small,
        &Pose::translation(0.05, -0.1, 0.0),
    );
    assert!((v - 0.008).abs() < 1e-14, "contained {v}");
    assert_eq!(
        vol(&a, &Pose::identity(), &a, &Pose::translation(1.5, 0.0, 0.0)),
        0.0
    );
    // Face to face, touching: no volume.
    let v = vol(&a, &Pose::identity(), &a, &Pose::translation(1.0, 0.3, 0.0));
    assert!(v.abs() < 1e-14, "touching {v}");
}

#[test]
fn rotated_pairs_agree_with_the_hull_of_the_intersection_vertices() {
    // Independent construction: the vertices of A ∩ B are A's vertices inside B, B's
    // inside A and the crossings of each body's edges with the other's faces; their
    // convex hull is A ∩ B.
    let a = cuboid(Vec3::new(0.5, 0.3, 0.4));
    let b = ConvexPolytope::from_points(&[
        Vec3::new(0.0, 0.0, 0.6),
        Vec3::new(0.5, 0.0, -0.3),
        Vec3::new(-0.3, 0.45, -0.3),
        Vec3::new(-0.3, -0.45, -0.3),
        Vec3::new(0.2, 0.2, 0.4),
    ])
    .expect("hull");
    let mut rng = SplitMix64::new(11);
    let mut checked = 0;
    for _ in 0..200 {
        let xb = Pose::from_parts(
            Vec3::new(
                rng.uniform(-0.6, 0.6),
                rng.uniform(-0.6, 0.6),
                rng.uniform(-0.6, 0.6),
            )
            .into(),
            rng.rotation(),
        );
        let v = vol(&a, &Pose::identity(), &b, &xb);
        let pts = intersection_points(&a, &Pose::identity(), &b, &xb);
        let reference = ConvexPolytope::from_points(&pts)
            .map(|p| p.volume())
            .unwrap_or(0.0);
        let scale = a.volume().min(b.volume());
        assert!(
            (v - reference).abs() < 1e-9 * scale,
            "clip {v} vs hull of vertices {reference}"
        );
        if reference > 1e-3 * scale {
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} overlapping samples");
}

fn intersection_points(a: &ConvexPolytope, xa: &Pose, b: &ConvexPolytope, xb: &Pose) -> Vec<Vec3> {
    let w = |p: &ConvexPolytope, x: &Pose| -> (Vec<Vec3>, Vec<(Vec3, f64)>) {
        let v = p
            .vertices
            .iter()
            .map(|q| x.transform_point(&(*q).into()).coords)
            .collect();
        let f = p
            .faces
            .iter()
            .map(|f| {
                let n = x.rotation * f.normal;
                (n, f.offset + n.dot(&x.translation.vector))
            })
            .collect();
        (v, f)
    };
    let (va, fa) = w(a, xa);
    let (vb, fb) = w(b, xb);
    let inside = |p: &Vec3, f: &[(Vec3, f64)]| f.iter().all(|(n, d)| n.dot(p) - d <= 1e-12);
    let mut out = Vec::new();
    for (vs, others, poly) in [(&va, &fb, a), (&vb, &fa, b)] {
        out.extend(vs.iter().filter(|p| inside(p, others)).copied());
        for e in &poly.edges {
            let (p, q) = (vs[e.v[0]], vs[e.v[1]]);
            for (n, d) in others.iter() {
                let (sp, sq) = (n.dot(&p) - d, n.dot(&q) - d);
                if sp * sq < 0.0 {
                    let x = p + (q - p) * (sp / (sp - sq));
                    if inside(&x, &fa) && inside(&x, &fb) {
                        out.push(x);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn warmed_up_call_does_not_allocate() {
    let a = cuboid(Vec3::new(0.5, 0.3, 0.4));
    let b = cuboid(Vec3::new(0.2, 0.6, 0.3));
    let xb = Pose::from_parts(
        Vec3::new(0.2, 0.1, 0.0).into(),
        Quat::from_euler_angles(0.4, 0.5, 0.6),
    );
    let mut s = OverlapScratch::default();
    let v0 = intersection_volume(&a, &Pose::identity(), &b, &xb, &mut s);
    assert!(v0 > 0.0);
    alloc_counter::start();
    let mut same = true;
    for _ in 0..1000 {
        same &= intersection_volume(&a, &Pose::identity(), &b, &xb, &mut s) == v0;
    }
    assert_eq!(alloc_counter::stop(), 0);
    assert!(same, "a repeated call changed the result");
}

/// Two aligned 0.1 m cubes stacked face on face, each turned by round-off
/// (~1e-11 rad, as a resting stack's integration leaves them) and overlapping by
/// 4e-14 m: their side faces are coplanar to within 1e-12 m. The volume is
/// ≤ 4e-14 × 0.01 m³ (+ round-off), not a side face's worth (it was 1.4e-4 m³ when
/// only normals within 1e-12 counted as coplanar).
#[test]
fn stacked_cubes_turned_by_round_off() {
    let c = cuboid(Vec3::new(0.05, 0.05, 0.05));
    let pose = |x: [f64; 3], q: [f64; 4]| {
        Pose::from_parts(
            nalgebra::Translation3::new(x[0], x[1], x[2]),
            nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
                q[3], q[0], q[1], q[2],
            )),
        )
    };
    let xa = pose(
        [
            -2.8295970918628e-12,
            2.059827457276944e-12,
            0.04999999999996084,
        ],
        [
            1.973701932228896e-13,
            -1.973999785776044e-13,
            9.707902859620995e-12,
            1.0,
        ],
    );
    let xb = pose(
        [
            -4.0149213348146046e-12,
            2.730283574104395e-12,
            0.14999999999992153,
        ],
        [
            1.5739306873481574e-12,
            -1.5739110465459538e-12,
            -2.6359091618659452e-12,
            1.0,
        ],
    );
    let v = vol(&c, &xa, &c, &xb);
    assert!(v <= 1e-15, "volume {v:e} m³");
    let v = vol(&c, &xb, &c, &xa);
    assert!(v <= 1e-15, "volume {v:e} m³ (swapped)");
}
