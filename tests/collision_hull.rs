//! Convex hull construction: adjacency, containment, exact mass properties and
//! degenerate-input errors.

use rtphys::collision::{ConvexPolytope, GeometryError, Shape};
use rtphys::math::{Mat3, SplitMix64, Vec3};

fn box_corners(h: Vec3) -> Vec<Vec3> {
    let mut v = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                v.push(Vec3::new(sx * h.x, sy * h.y, sz * h.z));
            }
        }
    }
    v
}

/// Euler V − E + F = 2, every edge has two distinct faces whose loops traverse it
/// in opposite directions, normals are unit and outward (interior point behind
/// every face, tolerance 1e-9 relative), every face loop is planar (1e-9).
fn check_topology(p: &ConvexPolytope) {
    let (v, e, f) = (p.vertices.len(), p.edges.len(), p.faces.len());
    assert_eq!(
        v as i64 - e as i64 + f as i64,
        2,
        "Euler: V={v} E={e} F={f}"
    );
    let scale = p.radius.max(1e-300);
    for (ei, edge) in p.edges.iter().enumerate() {
        let [f0, f1] = edge.faces;
        assert_ne!(f0, f1, "edge {ei} has the same face twice");
        let runs = |fi: usize, a: usize, b: usize| {
            let l = &p.faces[fi].vertices;
            (0..l.len()).any(|k| l[k] == a && l[(k + 1) % l.len()] == b)
        };
        assert!(
            runs(f0, edge.v[0], edge.v[1]),
            "edge {ei} not i→j in faces[0]"
        );
        assert!(
            runs(f1, edge.v[1], edge.v[0]),
            "edge {ei} not j→i in faces[1]"
        );
        assert!(p.vertex_edges[edge.v[0]].contains(&ei));
        assert!(p.vertex_edges[edge.v[1]].contains(&ei));
    }
    for (fi, face) in p.faces.iter().enumerate() {
        assert!((face.normal.norm() - 1.0).abs() < 1e-12);
        assert!(face.normal.dot(&p.interior) - face.offset < -1e-9 * scale);
        for &vi in &face.vertices {
            assert!((face.normal.dot(&p.vertices[vi]) - face.offset).abs() < 1e-9 * scale);
            assert!(p.vertex_faces[vi].contains(&fi));
        }
        // CCW from outside: the Newell normal of the loop agrees with the normal.
        let l = &face.vertices;
        let mut nw = Vec3::zeros();
        for k in 0..l.len() {
            nw += p.vertices[l[k]].cross(&p.vertices[l[(k + 1) % l.len()]]);
        }
        assert!(
            nw.dot(&face.normal) > 0.0,
            "face {fi} is not CCW from outside"
        );
    }
    // Convexity: every vertex behind every face plane.
    for face in &p.faces {
        for v in &p.vertices {
            assert!(face.normal.dot(v) - face.offset <= 1e-9 * scale);
        }
    }
}

#[test]
fn cube_has_six_quadrilateral_faces() {
    let p = ConvexPolytope::from_points(&box_corners(Vec3::new(1.0, 2.0, 3.0))).unwrap();
    check_topology(&p);
    assert_eq!(p.vertices.len(), 8);
    assert_eq!(p.edges.len(), 12);
    assert_eq!(p.faces.len(), 6);
    for f in &p.faces {
        assert_eq!(f.vertices.len(), 4);
        // Normals are exactly the axes.
        assert_eq!(f.normal.iter().filter(|c| c.abs() == 1.0).count(), 1);
    }
}

#[test]
fn cube_with_interior_and_duplicate_points_keeps_corners_only() {
    let mut pts = box_corners(Vec3::new(0.5, 0.5, 0.5));
    pts.push(Vec3::zeros());
    pts.push(Vec3::new(0.1, -0.2, 0.3));
    pts.push(pts[3]);
    pts.push(Vec3::new(0.5, 0.0, 0.0)); // on a face
    let p = ConvexPolytope::from_points(&pts).unwrap();
    check_topology(&p);
    assert_eq!(p.vertices.len(), 8);
    assert_eq!(p.faces.len(), 6);
}

#[test]
fn box_hull_volume_and_inertia_match_analytic_to_1e12() {
    let h = Vec3::new(0.3, 0.7, 1.1);
    let rho = 850.0;
    let p = ConvexPolytope::from_points(&box_corners(h)).unwrap();
    let mp = p.mass_properties(rho);
    let vol = 8.0 * h.x * h.y * h.z;
    assert!((p.volume() - vol).abs() <= 1e-12 * vol);
    let m = rho * vol;
    assert!((mp.mass - m).abs() <= 1e-12 * m);
    assert!(mp.com.norm() <= 1e-12);
    let (x, y, z) = (2.0 * h.x, 2.0 * h.y, 2.0 * h.z);
    let i = Mat3::from_diagonal(&Vec3::new(
        m * (y * y + z * z) / 12.0,
        m * (x * x + z * z) / 12.0,
        m * (x * x + y * y) / 12.0,
    ));
    assert!(
        (mp.inertia - i).norm() <= 1e-12 * i.norm(),
        "{}",
        mp.inertia
    );
    // The Box shape and its exact polytope agree.
    let b = Shape::cuboid(h).unwrap();
    let Shape::Box { poly, .. } = &b else {
        panic!()
    };
    assert!((poly.volume() - vol).abs() <= 1e-12 * vol);
}

#[test]
fn offset_box_mass_properties_shift_correctly() {
    // Parallel-axis check: the inertia about the COM does not depend on the offset.
    let h = Vec3::new(0.2, 0.4, 0.6);
    let off = Vec3::new(3.0, -2.0, 5.0);
    let p0 = ConvexPolytope::from_points(&box_corners(h)).unwrap();
    let pts: Vec<Vec3> = box_corners(h).iter().map(|v| v + off).collect();
    let p1 = ConvexPolytope::from_points(&pts).unwrap();
    let (m0, m1) = (p0.mass_properties(1.0), p1.mass_properties(1.0));
    assert!((m1.com - off).norm() <= 1e-12 * off.norm());
    assert!((m1.inertia - m0.inertia).norm() <= 1e-12 * m0.inertia.norm());
}

#[test]
fn tetrahedron_and_octahedron_volumes_are_exact() {
    let tet = [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::z()];
    let p = ConvexPolytope::from_points(&tet).unwrap();
    check_topology(&p);
    assert_eq!((p.vertices.len(), p.edges.len(), p.faces.len()), (4, 6, 4));
    assert!((p.volume() - 1.0 / 6.0).abs() < 1e-15);
    let mp = p.mass_properties(1.0);
    assert!((mp.com - Vec3::repeat(0.25)).norm() < 1e-15);

    let oct = [
        Vec3::x(),
        -Vec3::x(),
        Vec3::y(),
        -Vec3::y(),
        Vec3::z(),
        -Vec3::z(),
    ];
    let p = ConvexPolytope::from_points(&oct).unwrap();
    check_topology(&p);
    assert_eq!((p.vertices.len(), p.edges.len(), p.faces.len()), (6, 12, 8));
    assert!((p.volume() - 4.0 / 3.0).abs() < 1e-15);
    // Octahedron |x|+|y|+|z| ≤ 1: I = m/10 · 2/... = (2/5)·(m/... ) — use Ixx = m/5.
    let mp = p.mass_properties(1.0);
    let ixx = mp.mass / 5.0;
    for k in 0..3 {
        assert!((mp.inertia[(k, k)] - ixx).abs() < 1e-14, "{}", mp.inertia);
    }
}

#[test]
fn random_cloud_hull_contains_every_input_point() {
    let mut rng = SplitMix64::new(42);
    for round in 0..20 {
        let n = 10 + 30 * round;
        let pts: Vec<Vec3> = (0..n)
            .map(|_| {
                Vec3::new(
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-2.0, 2.0),
                    rng.uniform(-0.5, 0.5),
                )
            })
            .collect();
        let p = ConvexPolytope::from_points(&pts).unwrap();
        check_topology(&p);
        // Tolerance: 1e-9 of the size (the hull's tolerance is 1e-10 relative).
        for q in &pts {
            assert!(p.contains(q, 1e-9 * p.radius), "round {round}: {q} outside");
        }
        // Every hull vertex is an input point.
        for v in &p.vertices {
            assert!(pts.contains(v));
        }
    }
}

#[test]
fn points_on_a_sphere_all_become_vertices() {
    let mut rng = SplitMix64::new(3);
    let pts: Vec<Vec3> = (0..500)
        .map(|_| {
            let v = Vec3::new(
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
            );
            v.normalize() * 2.0
        })
        .collect();
    let p = ConvexPolytope::from_points(&pts).unwrap();
    check_topology(&p);
    assert_eq!(p.vertices.len(), 500);
    let v = p.volume();
    let exact = 4.0 / 3.0 * std::f64::consts::PI * 8.0;
    assert!(v < exact && v > 0.95 * exact);
}

#[test]
fn cylinder_like_point_set_merges_caps() {
    // 32-gon prism: two 32-gon caps and 32 quads.
    let mut pts = Vec::new();
    for i in 0..32 {
        let a = std::f64::consts::TAU * i as f64 / 32.0;
        for z in [-0.4, 0.4] {
            pts.push(Vec3::new(0.3 * a.cos(), 0.3 * a.sin(), z));
        }
    }
    let p = ConvexPolytope::from_points(&pts).unwrap();
    check_topology(&p);
    assert_eq!(p.faces.len(), 34);
    assert_eq!(p.faces.iter().filter(|f| f.vertices.len() == 32).count(), 2);
    // The prism builder gives the same topology.
    let q = ConvexPolytope::prism(0.3, 0.4, 32);
    check_topology(&q);
    assert!((q.volume() - p.volume()).abs() < 1e-12);
}

#[test]
fn support_and_contains() {
    let p = ConvexPolytope::from_points(&box_corners(Vec3::new(1.0, 2.0, 3.0))).unwrap();
    assert_eq!(
        p.support(&Vec3::new(1.0, 1.0, 1.0)),
        Vec3::new(1.0, 2.0, 3.0)
    );
    assert_eq!(
        p.support(&Vec3::new(-1.0, 0.1, -0.1)),
        Vec3::new(-1.0, 2.0, -3.0)
    );
    assert!(p.contains(&Vec3::new(0.99, 1.99, 2.99), 0.0));
    assert!(!p.contains(&Vec3::new(1.01, 0.0, 0.0), 1e-3));
    assert!(p.contains(&Vec3::new(1.0005, 0.0, 0.0), 1e-3));
    // Closest points: outside a face, an edge, a vertex; inside.
    let (q, sd, n) = p.closest_point(&Vec3::new(0.0, 0.0, 5.0));
    assert_eq!((q, sd, n), (Vec3::new(0.0, 0.0, 3.0), 2.0, Vec3::z()));
    let (q, sd, _) = p.closest_point(&Vec3::new(2.0, 3.0, 0.0));
    assert!((q - Vec3::new(1.0, 2.0, 0.0)).norm() < 1e-15 && (sd - 2f64.sqrt()).abs() < 1e-15);
    let (q, sd, _) = p.closest_point(&Vec3::new(2.0, 3.0, 4.0));
    assert!((q - Vec3::new(1.0, 2.0, 3.0)).norm() < 1e-15 && (sd - 3f64.sqrt()).abs() < 1e-15);
    let (q, sd, n) = p.closest_point(&Vec3::new(0.8, 0.0, 0.0));
    assert!((q - Vec3::new(1.0, 0.0, 0.0)).norm() < 1e-15 && (sd + 0.2).abs() < 1e-15);
    assert_eq!(n, Vec3::x());
}

fn degenerate_message(pts: &[Vec3]) -> String {
    match ConvexPolytope::from_points(pts) {
        Err(GeometryError::DegenerateHull(m)) => m,
        other => panic!("expected DegenerateHull, got {other:?}"),
    }
}

#[test]
fn degenerate_inputs_error_with_precise_messages() {
    let m = degenerate_message(&[Vec3::zeros(), Vec3::x(), Vec3::y()]);
    assert!(
        m.contains("at least 4 points") && m.contains("got 3"),
        "{m}"
    );
    let m = degenerate_message(&[Vec3::new(1.0, 2.0, 3.0); 6]);
    assert!(m.contains("coincide"), "{m}");
    let line: Vec<Vec3> = (0..7)
        .map(|i| Vec3::new(1.0, 2.0, 3.0) * i as f64)
        .collect();
    let m = degenerate_message(&line);
    assert!(m.contains("collinear"), "{m}");
    let plane: Vec<Vec3> = (0..9)
        .map(|i| Vec3::new((i % 3) as f64, (i / 3) as f64, 0.5))
        .collect();
    let m = degenerate_message(&plane);
    assert!(m.contains("coplanar"), "{m}");
    let m = degenerate_message(&[
        Vec3::zeros(),
        Vec3::x(),
        Vec3::y(),
        Vec3::new(0.0, 0.0, f64::NAN),
    ]);
    assert!(m.contains("non-finite"), "{m}");
    // Through the Shape constructor too.
    assert!(matches!(
        Shape::polytope(&plane),
        Err(GeometryError::DegenerateHull(_))
    ));
}
