//! Narrow phase: analytic manifolds, the normal/depth convention under argument
//! swaps, zero moment of symmetric resting contacts, separation, a randomized
//! sweep over every supported kind pair, determinism and a SAT cross-check.

use rtphys::collision::{
    collide_pair, pair_supported, ContactPoint, ContactSet, Manifold, NarrowScratch, Shape,
    ShapeKind,
};
use rtphys::math::{Pose, Quat, SplitMix64, Vec3};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4};

fn pose(t: Vec3, r: Quat) -> Pose {
    Pose::from_parts(t.into(), r)
}

fn at(t: Vec3) -> Pose {
    pose(t, Quat::identity())
}

/// Collide and return the single manifold with its points (or None).
fn collide(sa: &Shape, xa: &Pose, sb: &Shape, xb: &Pose) -> Option<(Manifold, Vec<ContactPoint>)> {
    let mut scratch = NarrowScratch::default();
    let mut out = ContactSet::default();
    if !collide_pair(0, sa, xa, 1, sb, xb, &mut scratch, &mut out) {
        assert!(out.manifolds.is_empty() && out.points.is_empty());
        return None;
    }
    assert_eq!(out.manifolds.len(), 1);
    let m = out.manifolds[0].clone();
    let pts = out.points_of(&m).to_vec();
    Some((m, pts))
}

/// Each expected (point, depth) is matched by a reported one within `tol`, and the
/// counts agree.
fn assert_point_set(got: &[ContactPoint], want: &[(Vec3, f64)], tol: f64) {
    assert_eq!(got.len(), want.len(), "got {got:?}");
    for (p, d) in want {
        assert!(
            got.iter()
                .any(|g| (g.p_w - p).norm() <= tol && (g.depth - d).abs() <= tol),
            "missing {p} depth {d} in {got:?}"
        );
    }
}

fn sorted_depths(p: &[ContactPoint]) -> Vec<f64> {
    let mut d: Vec<f64> = p.iter().map(|c| c.depth).collect();
    d.sort_by(f64::total_cmp);
    d
}

fn cuboid(x: f64, y: f64, z: f64) -> Shape {
    Shape::cuboid(Vec3::new(x, y, z)).unwrap()
}

#[test]
fn box_plane_at_45_degrees_gives_analytic_vertices_and_depths() {
    // Box rotated 45° about y: its lowest edge (along y) is √2 below the centre.
    // Tolerance 1e-12 m.
    let b = cuboid(1.0, 0.5, 1.0);
    let delta = 0.1;
    let c = Vec3::new(0.3, -0.2, 2f64.sqrt() - delta);
    let xb = pose(c, Quat::from_axis_angle(&Vec3::y_axis(), FRAC_PI_4));
    let (m, pts) = collide(&Shape::plane(), &Pose::identity(), &b, &xb).unwrap();
    assert!(
        (m.normal + Vec3::z()).norm() < 1e-15,
        "plane is geom a: normal −z"
    );
    let want = [
        (Vec3::new(0.3, -0.7, -delta), delta),
        (Vec3::new(0.3, 0.3, -delta), delta),
        (Vec3::new(0.3 - delta, -0.7, 0.0), 0.0),
        (Vec3::new(0.3 + delta, -0.7, 0.0), 0.0),
        (Vec3::new(0.3 - delta, 0.3, 0.0), 0.0),
        (Vec3::new(0.3 + delta, 0.3, 0.0), 0.0),
    ];
    assert_point_set(&pts, &want, 1e-12);
    assert!((pts[m.deepest - m.points.start].depth - delta).abs() < 1e-12);
    // Swapped: normal +z toward the box, same points and depths.
    let (m2, pts2) = collide(&b, &xb, &Shape::plane(), &Pose::identity()).unwrap();
    assert!((m2.normal - Vec3::z()).norm() < 1e-15);
    assert_point_set(&pts2, &want, 1e-12);
}

#[test]
fn box_plane_on_a_tilted_plane() {
    // Plane tilted 30° about x; the box sits in the plane frame at depth δ.
    // Tolerance 1e-12 m.
    let r = Quat::from_axis_angle(&Vec3::x_axis(), std::f64::consts::FRAC_PI_6);
    let xp = pose(Vec3::new(1.0, 2.0, 3.0), r);
    let delta = 0.05;
    let xb = xp * at(Vec3::new(0.0, 0.0, 0.5 - delta));
    let b = cuboid(0.5, 0.5, 0.5);
    let (m, pts) = collide(&b, &xb, &Shape::plane(), &xp).unwrap();
    assert!((m.normal - r * Vec3::z()).norm() < 1e-15);
    // 4 bottom corners at depth δ, 4 vertical edges crossing the surface.
    assert_eq!(pts.len(), 8);
    assert_eq!(
        pts.iter()
            .filter(|p| (p.depth - delta).abs() < 1e-12)
            .count(),
        4
    );
    assert_eq!(pts.iter().filter(|p| p.depth.abs() < 1e-12).count(), 4);
}

#[test]
fn box_on_box_face_overlap_gives_analytic_vertices_and_up_normal() {
    // Small box A (half 0.5) overhanging the +x edge of big box B (top at z = 0).
    // Overlap: x ∈ [1.3, 2], y ∈ [−0.2, 0.8], z ∈ [−δ, 0]. Tolerance 1e-12 m.
    let delta = 0.01;
    let a = cuboid(0.5, 0.5, 0.5);
    let b = cuboid(2.0, 2.0, 0.5);
    let xa = at(Vec3::new(1.8, 0.3, 0.5 - delta));
    let xb = at(Vec3::new(0.0, 0.0, -0.5));
    let (m, pts) = collide(&a, &xa, &b, &xb).unwrap();
    assert!((m.normal - Vec3::z()).norm() < 1e-15, "{}", m.normal);
    let mut want = Vec::new();
    for x in [1.3, 2.0] {
        for y in [-0.2, 0.8] {
            want.push((Vec3::new(x, y, -delta), delta));
            want.push((Vec3::new(x, y, 0.0), 0.0));
        }
    }
    assert_point_set(&pts, &want, 1e-12);
    // Swapped order: normal flips, points and depths are unchanged (the big box's
    // top face supplies the normal either way).
    let (m2, pts2) = collide(&b, &xb, &a, &xa).unwrap();
    assert!((m2.normal + Vec3::z()).norm() < 1e-15);
    assert_point_set(&pts2, &want, 1e-12);
}

#[test]
fn tilted_small_box_on_large_box_takes_the_large_top_face() {
    // A cube tipped 10° about x and 5° about y, one corner region dug into a
    // large slab: the normal must be the slab's top normal (+z toward the cube).
    let a = cuboid(0.2, 0.2, 0.2);
    let b = cuboid(3.0, 3.0, 0.5);
    let r =
        Quat::from_axis_angle(&Vec3::x_axis(), 0.17) * Quat::from_axis_angle(&Vec3::y_axis(), 0.09);
    let lowest = (0..8)
        .map(|i| {
            let s = |k: usize| if i >> k & 1 == 1 { 0.2 } else { -0.2 };
            (r * Vec3::new(s(0), s(1), s(2))).z
        })
        .fold(f64::INFINITY, f64::min);
    let delta = 0.003;
    let xa = pose(Vec3::new(0.4, -0.3, -lowest - delta), r);
    let xb = at(Vec3::new(0.0, 0.0, -0.5));
    for swap in [false, true] {
        let (m, pts) = if swap {
            collide(&b, &xb, &a, &xa).unwrap()
        } else {
            collide(&a, &xa, &b, &xb).unwrap()
        };
        let want = if swap { -Vec3::z() } else { Vec3::z() };
        assert!((m.normal - want).norm() < 1e-12, "{}", m.normal);
        let dmax = pts.iter().map(|p| p.depth).fold(0.0, f64::max);
        assert!((dmax - delta).abs() < 1e-12);
    }
}

#[test]
fn swapping_arguments_flips_the_normal_and_keeps_depths() {
    // Random penetrating box–box and box–polytope poses. Tolerance 1e-12.
    let mut rng = SplitMix64::new(11);
    let a = cuboid(0.3, 0.2, 0.4);
    let b = Shape::polytope(&[
        Vec3::new(0.0, 0.0, 0.5),
        Vec3::new(0.4, 0.0, -0.2),
        Vec3::new(-0.3, 0.35, -0.2),
        Vec3::new(-0.3, -0.35, -0.2),
        Vec3::new(0.1, 0.1, 0.1),
    ])
    .unwrap();
    let mut checked = 0;
    for _ in 0..300 {
        let xa = pose(Vec3::zeros(), rng.rotation());
        let t = Vec3::new(
            rng.uniform(-0.5, 0.5),
            rng.uniform(-0.5, 0.5),
            rng.uniform(-0.5, 0.5),
        );
        let xb = pose(t, rng.rotation());
        for other in [&a, &b] {
            let fwd = collide(&a, &xa, other, &xb);
            let bwd = collide(other, &xb, &a, &xa);
            assert_eq!(fwd.is_some(), bwd.is_some());
            if let (Some((m1, p1)), Some((m2, p2))) = (fwd, bwd) {
                assert!(
                    (m1.normal + m2.normal).norm() < 1e-12,
                    "{} {} {:?} {:?} {xa:?} {xb:?}",
                    m1.normal,
                    m2.normal,
                    sorted_depths(&p1),
                    sorted_depths(&p2)
                );
                let (d1, d2) = (sorted_depths(&p1), sorted_depths(&p2));
                assert_eq!(d1.len(), d2.len());
                for (x, y) in d1.iter().zip(&d2) {
                    assert!((x - y).abs() < 1e-12);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} penetrating poses");
}

#[test]
fn sphere_plane_and_sphere_sphere_depths_are_analytic() {
    // Tolerance 1e-14 m.
    let s = Shape::sphere(0.5).unwrap();
    let (m, pts) = collide(
        &s,
        &at(Vec3::new(1.0, 2.0, 0.42)),
        &Shape::plane(),
        &Pose::identity(),
    )
    .unwrap();
    assert!((m.normal - Vec3::z()).norm() < 1e-15);
    let deep = pts[m.deepest];
    assert!((deep.depth - 0.08).abs() < 1e-14);
    assert!((deep.p_w - Vec3::new(1.0, 2.0, -0.08)).norm() < 1e-14);
    for p in &pts {
        assert!(p.p_w.z <= 1e-15 && (p.depth + p.p_w.z).abs() < 1e-14);
    }
    // Sphere–sphere: centres 0.7 apart along (1, 2, 2)/3, radii 0.5 and 0.3.
    let s2 = Shape::sphere(0.3).unwrap();
    let dir = Vec3::new(1.0, 2.0, 2.0) / 3.0;
    let (m, pts) = collide(&s, &at(dir * 0.7), &s2, &Pose::identity()).unwrap();
    assert!((m.normal - dir).norm() < 1e-15);
    assert!((pts[m.deepest].depth - 0.1).abs() < 1e-14);
    assert!((pts[m.deepest].p_w - dir * 0.2).norm() < 1e-14);
    // Every point is inside both spheres.
    for p in &pts {
        assert!((p.p_w - dir * 0.7).norm() <= 0.5 + 1e-14 && p.p_w.norm() <= 0.3 + 1e-14);
    }
    // Separated and exactly touching: no contact.
    assert!(collide(
        &s,
        &at(Vec3::new(0.0, 0.0, 0.5)),
        &Shape::plane(),
        &Pose::identity()
    )
    .is_none());
    assert!(collide(&s, &at(dir * 0.8), &s2, &Pose::identity()).is_none());
}

/// Every point of a round cap acts on the line through the cap's centre along the
/// normal (`ContactPoint::lever`): a sphere against a plane, a box's face, edge and
/// vertex, a sphere, a capsule and a cylinder's rim, in both argument orders, and a
/// steep capsule's end cap on a plane; the lever is the cap's deepest point c − r n
/// (the rigid ball's contact; of two spheres, the cap's owner's, on the line of
/// centres). Points of flat features, and a lying capsule's bottom
/// line (already below its axis), act where they are. Tolerance 1e-12 m: the
/// points are built from c and n by a few products of numbers ≤ 2 (round-off
/// ~1e-15); a ring point off the line by its offset would be ≥ 1e-3 m off here.
#[test]
fn round_caps_act_on_the_line_through_their_centre() {
    let ball = Shape::sphere(0.5).unwrap();
    let cube = cuboid(1.0, 1.0, 1.0);
    let c_face = Vec3::new(0.2, -0.3, 1.4);
    let c_edge = Vec3::new(1.0 + 0.3, 0.1, 1.0 + 0.3);
    let c_vertex = Vec3::new(1.25, 1.25, 1.25);
    let cases: Vec<(&str, Shape, Pose, Vec3)> = vec![
        (
            "plane",
            Shape::plane(),
            Pose::identity(),
            Vec3::new(1.0, 2.0, 0.42),
        ),
        ("box face", cube.clone(), Pose::identity(), c_face),
        ("box edge", cube.clone(), Pose::identity(), c_edge),
        ("box vertex", cube.clone(), Pose::identity(), c_vertex),
        (
            "sphere",
            Shape::sphere(0.3).unwrap(),
            Pose::identity(),
            Vec3::new(1.0, 2.0, 2.0) / 3.0 * 0.7,
        ),
        (
            "capsule side",
            Shape::capsule(0.2, 0.5).unwrap(),
            pose(
                Vec3::zeros(),
                Quat::from_axis_angle(&Vec3::x_axis(), FRAC_PI_2),
            ),
            Vec3::new(0.0, 0.2, 0.6),
        ),
        (
            "cylinder rim",
            Shape::cylinder(0.4, 0.3).unwrap(),
            Pose::identity(),
            Vec3::new(0.6, 0.0, 0.6),
        ),
    ];
    for (name, other, x_other, c) in cases {
        for swap in [false, true] {
            let (m, pts) = if swap {
                collide(&other, &x_other, &ball, &at(c))
            } else {
                collide(&ball, &at(c), &other, &x_other)
            }
            .unwrap_or_else(|| panic!("{name}: no contact"));
            // The normal from the other body toward the ball.
            let n = if swap { -m.normal } else { m.normal };
            // (At a vertex the ring lies outside the box: the deepest point alone.)
            assert!(
                pts.len() > 1 || name == "box vertex",
                "{name}: the cap's points {pts:?}"
            );
            // On the line through c along n; at the ball's c − r n, except when
            // the other sphere carries the cap (sphere–sphere swapped: its own
            // deepest point, on the same line of centres).
            let p0 = c - n * 0.5;
            for p in &pts {
                let off = (p.lever - c).cross(&n).norm();
                assert!(
                    off < 1e-12,
                    "{name} (swap {swap}): lever {} off the centre line by {off}",
                    p.lever
                );
                if !(name == "sphere" && swap) {
                    assert!(
                        (p.lever - p0).norm() < 1e-12,
                        "{name} (swap {swap}): lever {} not at c − r n = {p0}",
                        p.lever
                    );
                }
            }
            // The ring itself is kept off the line (it gives the depth profile).
            assert!(
                name == "box vertex" || pts.iter().any(|p| (p.p_w - c).cross(&n).norm() > 1e-3),
                "{name}"
            );
        }
    }
    // A steep capsule's lower end cap on the plane: the ring about its end's centre.
    let cap = Shape::capsule(0.2, 0.5).unwrap();
    let tilt = Quat::from_axis_angle(&Vec3::y_axis(), 0.3);
    let (c, u) = (
        Vec3::new(0.0, 0.0, 0.5 * 0.3f64.cos() + 0.15),
        tilt * Vec3::z(),
    );
    let (m, pts) = collide(&Shape::plane(), &Pose::identity(), &cap, &pose(c, tilt)).unwrap();
    let n = -m.normal;
    // Each lever lies r below a point of the axis segment (the ring's: below the
    // end's centre; the bottom line's: below its own axis point).
    for p in &pts {
        let q = p.lever + n * 0.2 - c;
        let off = (q - u * q.dot(&u)).norm();
        assert!(
            off < 1e-12 && q.dot(&u).abs() <= 0.5 + 1e-12,
            "capsule end cap: lever {} is not r below the axis (off by {off})",
            p.lever
        );
    }
    assert!(
        pts.iter().filter(|p| p.lever != p.p_w).count() > 1,
        "no end-cap ring: {pts:?}"
    );
    // Flat features and a lying capsule's bottom line act where they are.
    let flat: [(Shape, Pose, Shape, Pose); 3] = [
        (
            Shape::plane(),
            Pose::identity(),
            cube.clone(),
            at(Vec3::new(0.0, 0.0, 0.99)),
        ),
        (
            cube.clone(),
            at(Vec3::new(0.3, 0.2, 1.98)),
            cube.clone(),
            Pose::identity(),
        ),
        (
            Shape::plane(),
            Pose::identity(),
            cap.clone(),
            pose(
                Vec3::new(0.0, 0.0, 0.19),
                Quat::from_axis_angle(&Vec3::x_axis(), FRAC_PI_2),
            ),
        ),
    ];
    for (sa, xa, sb, xb) in flat {
        let (_, pts) = collide(&sa, &xa, &sb, &xb).unwrap();
        assert!(pts.iter().all(|p| p.lever == p.p_w), "{pts:?}");
    }
}

/// Net moment about `c` of forces `w(depth) n` at the points, relative to the
/// scale Σ|p − c| w.
fn relative_moment(pts: &[ContactPoint], n: &Vec3, c: &Vec3, w: impl Fn(f64) -> f64) -> f64 {
    let mut tau = Vec3::zeros();
    let mut scale = 0.0;
    for p in pts {
        tau += (p.p_w - c).cross(&(n * w(p.depth)));
        scale += (p.p_w - c).norm() * w(p.depth);
    }
    tau.norm() / scale.max(1e-300)
}

#[test]
fn symmetric_resting_contacts_have_zero_net_moment() {
    // Equal forces per point, and forces proportional to depth: moment about the
    // body centre ≤ 1e-12 relative.
    let plane = Shape::plane();
    let ground = Pose::identity();
    let slab = cuboid(3.0, 3.0, 0.5);
    let slab_x = at(Vec3::new(0.0, 0.0, -0.5));
    let d = 0.002;
    let lying = Quat::from_axis_angle(&Vec3::x_axis(), FRAC_PI_2);
    let yawed = Quat::from_axis_angle(&Vec3::z_axis(), 0.3);
    let cases: Vec<(&str, Shape, Pose, &Shape, &Pose, usize)> = vec![
        (
            "sphere on plane",
            Shape::sphere(0.2).unwrap(),
            at(Vec3::new(0.1, 0.2, 0.2 - d)),
            &plane,
            &ground,
            1,
        ),
        (
            "box flat on plane",
            cuboid(0.3, 0.2, 0.1),
            pose(Vec3::new(0.5, 0.0, 0.1 - d), yawed),
            &plane,
            &ground,
            4,
        ),
        (
            "capsule lying on plane",
            Shape::capsule(0.1, 0.4).unwrap(),
            pose(Vec3::new(0.0, 0.3, 0.1 - d), yawed * lying),
            &plane,
            &ground,
            5,
        ),
        (
            "capsule standing on plane",
            Shape::capsule(0.1, 0.4).unwrap(),
            at(Vec3::new(0.0, 0.3, 0.5 - d)),
            &plane,
            &ground,
            1,
        ),
        (
            "cylinder standing on plane",
            Shape::cylinder(0.15, 0.3).unwrap(),
            pose(Vec3::new(0.2, 0.0, 0.3 - d), yawed),
            &plane,
            &ground,
            9,
        ),
        (
            "cylinder lying on plane",
            Shape::cylinder(0.15, 0.3).unwrap(),
            pose(Vec3::new(0.2, 0.0, 0.15 - d), yawed * lying),
            &plane,
            &ground,
            5,
        ),
        (
            "box flat on slab",
            cuboid(0.3, 0.2, 0.1),
            pose(Vec3::new(0.5, 0.0, 0.1 - d), yawed),
            &slab,
            &slab_x,
            4,
        ),
        (
            "sphere on slab",
            Shape::sphere(0.2).unwrap(),
            at(Vec3::new(0.1, 0.2, 0.2 - d)),
            &slab,
            &slab_x,
            1,
        ),
        (
            "capsule lying on slab",
            Shape::capsule(0.1, 0.4).unwrap(),
            pose(Vec3::new(0.0, 0.3, 0.1 - d), yawed * lying),
            &slab,
            &slab_x,
            5,
        ),
        (
            "cylinder standing on slab",
            Shape::cylinder(0.15, 0.3).unwrap(),
            pose(Vec3::new(0.2, 0.0, 0.3 - d), yawed),
            &slab,
            &slab_x,
            8,
        ),
    ];
    for (name, s, x, other, xo, min_points) in &cases {
        let (m, pts) = collide(s, x, other, xo).unwrap_or_else(|| panic!("{name}: no contact"));
        assert!(
            (m.normal - Vec3::z()).norm() < 1e-12,
            "{name}: normal {}",
            m.normal
        );
        let deepest = pts.iter().map(|p| p.depth).fold(0.0, f64::max);
        let n_deep = pts.iter().filter(|p| p.depth > deepest - 1e-12).count();
        assert!(
            n_deep >= *min_points,
            "{name}: {n_deep} deepest points {pts:?}"
        );
        let c = x.translation.vector;
        // Equal force at every point, and force proportional to depth.
        let r1 = relative_moment(&pts, &m.normal, &c, |_| 1.0);
        let r2 = relative_moment(&pts, &m.normal, &c, |d| d);
        assert!(r1 < 1e-12 && r2 < 1e-12, "{name}: moments {r1:e} {r2:e}");
        assert!((deepest - d).abs() < 1e-12, "{name}: deepest {deepest}");
    }
}

#[test]
fn separated_shapes_give_no_manifold() {
    let shapes = all_shapes();
    for (sa, _) in &shapes {
        for (sb, _) in &shapes {
            if !pair_supported(sa.kind(), sb.kind()) {
                continue;
            }
            // Planes are below z = 0; other shapes sit far apart above it.
            let xa = if sa.kind() == ShapeKind::Plane {
                at(Vec3::new(0.0, 0.0, -5.0))
            } else {
                at(Vec3::new(0.0, 0.0, 2.0))
            };
            let xb = if sb.kind() == ShapeKind::Plane {
                at(Vec3::new(0.0, 0.0, -5.0))
            } else {
                at(Vec3::new(3.0, 0.0, 2.0))
            };
            assert!(
                collide(sa, &xa, sb, &xb).is_none(),
                "{:?} {:?}",
                sa.kind(),
                sb.kind()
            );
        }
    }
}

/// One shape of each kind with a point-membership test (local frame, tolerance).
fn all_shapes() -> Vec<(Shape, f64)> {
    vec![
        (Shape::plane(), 0.0),
        (Shape::sphere(0.3).unwrap(), 0.0),
        (cuboid(0.3, 0.2, 0.25), 0.0),
        (Shape::capsule(0.15, 0.3).unwrap(), 0.0),
        // The cylinder meets boxes, hulls and capsules as a 24-sided prism.
        (Shape::cylinder(0.25, 0.2).unwrap(), 0.0045 * 0.25),
        (
            Shape::polytope(&[
                Vec3::new(0.0, 0.0, 0.4),
                Vec3::new(0.35, 0.0, -0.2),
                Vec3::new(-0.2, 0.3, -0.2),
                Vec3::new(-0.2, -0.3, -0.2),
                Vec3::new(0.1, 0.1, 0.3),
                Vec3::new(0.0, -0.2, 0.25),
            ])
            .unwrap(),
            0.0,
        ),
    ]
}

/// Signed-distance-like membership: true if the world point is in the shape within
/// `tol` (m).
fn inside(s: &Shape, x: &Pose, p: &Vec3, tol: f64) -> bool {
    let l = x.inverse_transform_point(&(*p).into()).coords;
    match s {
        Shape::Plane => l.z <= tol,
        Shape::Sphere { radius } => l.norm() <= radius + tol,
        Shape::Box { half, .. } => (0..3).all(|k| l[k].abs() <= half[k] + tol),
        Shape::Capsule {
            radius,
            half_length,
        } => {
            let z = l.z.clamp(-half_length, *half_length);
            (l - Vec3::new(0.0, 0.0, z)).norm() <= radius + tol
        }
        Shape::Cylinder {
            radius,
            half_length,
        } => l.z.abs() <= half_length + tol && l.xy().norm() <= radius + tol,
        Shape::Polytope(p) => p.contains(&l, tol),
    }
}

#[test]
fn randomized_sweep_over_all_kind_pairs() {
    // Finite points, depths ≥ −1e-12, unit normals, deepest = argmax depth, points
    // inside both shapes (1e-9 m; cylinders as prisms: 0.45 % of R), bit-identical
    // on repetition, and swapped order agrees on contact and flips the normal.
    let shapes = all_shapes();
    let mut rng = SplitMix64::new(2024);
    let mut scratch = NarrowScratch::default();
    let mut out = ContactSet::default();
    let mut hits = vec![[0usize; 6]; 6];
    for (sa, ta) in &shapes {
        for (sb, tb) in &shapes {
            if !pair_supported(sa.kind(), sb.kind()) {
                continue;
            }
            for _ in 0..400 {
                let mut rand_pose = |s: &Shape| {
                    if s.kind() == ShapeKind::Plane {
                        pose(Vec3::new(0.0, 0.0, rng.uniform(-0.1, 0.1)), rng.rotation())
                    } else {
                        pose(
                            Vec3::new(
                                rng.uniform(-0.4, 0.4),
                                rng.uniform(-0.4, 0.4),
                                rng.uniform(-0.4, 0.4),
                            ),
                            rng.rotation(),
                        )
                    }
                };
                let xa = rand_pose(sa);
                let xb = rand_pose(sb);
                out.clear();
                let hit = collide_pair(3, sa, &xa, 7, sb, &xb, &mut scratch, &mut out);
                let first = out.clone();
                out.clear();
                let again = collide_pair(3, sa, &xa, 7, sb, &xb, &mut scratch, &mut out);
                assert_eq!(hit, again);
                assert_eq!(first.manifolds, out.manifolds, "not deterministic");
                assert_eq!(
                    first
                        .points
                        .iter()
                        .map(|p| (p.p_w.map(f64::to_bits), p.depth.to_bits()))
                        .collect::<Vec<_>>(),
                    out.points
                        .iter()
                        .map(|p| (p.p_w.map(f64::to_bits), p.depth.to_bits()))
                        .collect::<Vec<_>>()
                );
                let mut back = ContactSet::default();
                let hit_back = collide_pair(7, sb, &xb, 3, sa, &xa, &mut scratch, &mut back);
                if !hit {
                    assert!(out.manifolds.is_empty());
                    // Borderline poses may flip within tolerance; demand agreement
                    // only when the other order reports a real penetration.
                    if hit_back {
                        let m = &back.manifolds[0];
                        assert!(
                            m.max_depth(&back) < 1e-9,
                            "{:?}/{:?}: one-sided contact",
                            sa.kind(),
                            sb.kind()
                        );
                    }
                    continue;
                }
                hits[sa.kind() as usize][sb.kind() as usize] += 1;
                let m = &out.manifolds[0];
                assert_eq!((m.geom_a, m.geom_b), (3, 7));
                assert!((m.normal.norm() - 1.0).abs() < 1e-12);
                let pts = out.points_of(m);
                assert!(!pts.is_empty());
                let mut arg = m.points.start;
                for (i, p) in pts.iter().enumerate() {
                    assert!(p.p_w.iter().all(|c| c.is_finite()) && p.depth.is_finite());
                    assert!(p.depth >= -1e-12);
                    if p.depth > out.points[arg].depth {
                        arg = m.points.start + i;
                    }
                    assert!(
                        inside(sa, &xa, &p.p_w, ta + 1e-9),
                        "{:?}/{:?}: point outside a",
                        sa.kind(),
                        sb.kind()
                    );
                    assert!(
                        inside(sb, &xb, &p.p_w, tb + 1e-9),
                        "{:?}/{:?}: point outside b",
                        sa.kind(),
                        sb.kind()
                    );
                }
                assert_eq!(out.points[m.deepest].depth, out.points[arg].depth);
                if hit_back {
                    let mb = &back.manifolds[0];
                    if sa.kind() != sb.kind() {
                        assert!(
                            (m.normal + mb.normal).norm() < 1e-9,
                            "{:?}/{:?}: normals {} {}",
                            sa.kind(),
                            sb.kind(),
                            m.normal,
                            mb.normal
                        );
                    }
                } else {
                    assert!(
                        m.max_depth(&out) < 1e-9,
                        "{:?}/{:?}: one-sided contact",
                        sa.kind(),
                        sb.kind()
                    );
                }
            }
        }
    }
    for a in ShapeKind::ALL {
        for b in ShapeKind::ALL {
            if pair_supported(a, b) {
                assert!(
                    hits[a as usize][b as usize] > 10,
                    "{a:?}/{b:?}: {} hits",
                    hits[a as usize][b as usize]
                );
            }
        }
    }
}

#[test]
fn box_box_contact_agrees_with_brute_force_sat() {
    // All 15 axes (3 + 3 face normals, 9 edge cross products): overlap iff no
    // axis separates by more than 1e-9 m; borderline poses within 1e-7 skipped.
    let a = cuboid(0.3, 0.2, 0.1);
    let b = cuboid(0.25, 0.4, 0.15);
    let mut rng = SplitMix64::new(5);
    let corners = |s: &Shape, x: &Pose| -> Vec<Vec3> {
        let Shape::Box { poly, .. } = s else {
            unreachable!()
        };
        poly.vertices
            .iter()
            .map(|v| x.transform_point(&(*v).into()).coords)
            .collect()
    };
    let mut agree = 0;
    for _ in 0..3000 {
        let xa = pose(Vec3::zeros(), rng.rotation());
        let xb = pose(
            Vec3::new(
                rng.uniform(-0.7, 0.7),
                rng.uniform(-0.7, 0.7),
                rng.uniform(-0.7, 0.7),
            ),
            rng.rotation(),
        );
        let (ca, cb) = (corners(&a, &xa), corners(&b, &xb));
        let ra = xa.rotation.to_rotation_matrix();
        let rb = xb.rotation.to_rotation_matrix();
        let mut axes = Vec::new();
        for k in 0..3 {
            axes.push(ra.matrix().column(k).into_owned());
            axes.push(rb.matrix().column(k).into_owned());
            for j in 0..3 {
                let c = ra.matrix().column(k).cross(&rb.matrix().column(j));
                if c.norm() > 1e-9 {
                    axes.push(c.normalize());
                }
            }
        }
        let mut sep = f64::NEG_INFINITY;
        for ax in &axes {
            let (mut lo_a, mut hi_a, mut lo_b, mut hi_b) = (
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
            );
            for v in &ca {
                lo_a = lo_a.min(ax.dot(v));
                hi_a = hi_a.max(ax.dot(v));
            }
            for v in &cb {
                lo_b = lo_b.min(ax.dot(v));
                hi_b = hi_b.max(ax.dot(v));
            }
            sep = sep.max((lo_b - hi_a).max(lo_a - hi_b));
        }
        if sep.abs() < 1e-7 {
            continue;
        }
        let got = collide(&a, &xa, &b, &xb).is_some();
        assert_eq!(got, sep < 0.0, "separation {sep}");
        agree += 1;
    }
    assert!(agree > 2900);
}

#[test]
fn degenerate_configurations_do_not_panic() {
    // Coincident boxes, exactly stacked boxes with shared side planes, parallel
    // capsules, concentric spheres, a capsule axis through a box centre.
    let b = cuboid(0.5, 0.5, 0.5);
    let (m, pts) = collide(&b, &Pose::identity(), &b, &Pose::identity()).unwrap();
    assert!((m.normal.norm() - 1.0).abs() < 1e-12);
    assert_eq!(pts.len(), 8);
    let (m, pts) = collide(&b, &at(Vec3::new(0.0, 0.0, 0.99)), &b, &Pose::identity()).unwrap();
    assert!((m.normal - Vec3::z()).norm() < 1e-12);
    assert_eq!(pts.len(), 8);
    // Flush (touching) faces: no contact.
    assert!(collide(&b, &at(Vec3::new(0.0, 0.0, 1.0)), &b, &Pose::identity()).is_none());
    let c = Shape::capsule(0.1, 0.5).unwrap();
    let (m, pts) = collide(&c, &at(Vec3::new(0.15, 0.0, 0.2)), &c, &Pose::identity()).unwrap();
    assert!((m.normal - Vec3::x()).norm() < 1e-12);
    assert_eq!(pts.len(), 2);
    assert!((pts[0].depth - 0.05).abs() < 1e-12 && (pts[1].depth - 0.05).abs() < 1e-12);
    assert!(collide(&c, &Pose::identity(), &c, &Pose::identity()).is_some());
    let s = Shape::sphere(0.2).unwrap();
    assert!(collide(&s, &Pose::identity(), &s, &Pose::identity()).is_some());
    assert!(collide(&c, &Pose::identity(), &b, &Pose::identity()).is_some());
    let cyl = Shape::cylinder(0.2, 0.3).unwrap();
    assert!(collide(&cyl, &Pose::identity(), &cyl, &Pose::identity()).is_some());
    assert!(collide(&s, &Pose::identity(), &cyl, &Pose::identity()).is_some());
    assert!(collide(
        &Shape::plane(),
        &Pose::identity(),
        &Shape::plane(),
        &Pose::identity()
    )
    .is_none());
}

#[test]
fn dispatch_covers_every_pair_but_plane_plane() {
    for a in ShapeKind::ALL {
        for b in ShapeKind::ALL {
            let pp = a == ShapeKind::Plane && b == ShapeKind::Plane;
            assert_eq!(pair_supported(a, b), !pp, "{a:?}/{b:?}");
        }
    }
}

#[test]
fn micro_timing_box_plane_and_box_box() {
    // Not an assertion: prints ns per call (release build).
    let b = cuboid(0.5, 0.4, 0.3);
    let big = cuboid(2.0, 2.0, 0.5);
    let mut scratch = NarrowScratch::default();
    let mut out = ContactSet::default();
    let xb = pose(
        Vec3::new(0.1, 0.0, 0.37),
        Quat::from_axis_angle(&Vec3::y_axis(), 0.2),
    );
    let xbig = at(Vec3::new(0.0, 0.0, -0.5));
    let time = |f: &mut dyn FnMut()| {
        for _ in 0..1000 {
            f();
        }
        let n = 200_000;
        let t = std::time::Instant::now();
        for _ in 0..n {
            f();
        }
        t.elapsed().as_nanos() as f64 / n as f64
    };
    let plane = Shape::plane();
    let ns_plane = time(&mut || {
        out.clear();
        std::hint::black_box(collide_pair(
            0,
            &plane,
            &Pose::identity(),
            1,
            &b,
            &xb,
            &mut scratch,
            &mut out,
        ));
    });
    assert_eq!(out.manifolds.len(), 1);
    let ns_box = time(&mut || {
        out.clear();
        std::hint::black_box(collide_pair(
            0,
            &big,
            &xbig,
            1,
            &b,
            &xb,
            &mut scratch,
            &mut out,
        ));
    });
    assert_eq!(out.manifolds.len(), 1);
    let xfar = at(Vec3::new(0.0, 0.0, 0.9));
    let ns_sep = time(&mut || {
        out.clear();
        std::hint::black_box(collide_pair(
            0,
            &big,
            &xbig,
            1,
            &b,
            &xfar,
            &mut scratch,
            &mut out,
        ));
    });
    println!("box-plane: {ns_plane:.0} ns/call, box-box (penetrating): {ns_box:.0} ns/call, box-box (separated, SAT): {ns_sep:.0} ns/call");
    assert!(out.manifolds.is_empty());
}
