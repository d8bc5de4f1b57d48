//! The interpenetration volume of 002 §3.3: convex-hull volume, centroid and depth
//! moment of the manifold points, against analytic overlaps of boxes and planes.

use rtphys::collision::volume::{hull_volume, VolumeScratch};
use rtphys::collision::{collide_pair, ContactSet, NarrowScratch, Shape};
use rtphys::math::{Pose, Quat, Vec3};

/// The manifold of two geoms (a at `xa`, b at `xb`).
fn manifold(sa: &Shape, xa: Pose, sb: &Shape, xb: Pose) -> ContactSet {
    let mut set = ContactSet::default();
    let mut scratch = NarrowScratch::default();
    assert!(
        collide_pair(0, sa, &xa, 1, sb, &xb, &mut scratch, &mut set),
        "no contact"
    );
    set
}

fn cuboid(x: f64, y: f64, z: f64) -> Shape {
    Shape::cuboid(Vec3::new(x, y, z)).expect("box")
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

#[test]
fn axis_aligned_boxes_overlap_in_a_box() {
    // Overlap 0.3 × 0.4 × 0.05 centred at (0.35, −0.2, 0.475).
    let a = cuboid(0.5, 0.5, 0.5);
    let b = cuboid(0.25, 0.2, 0.5);
    let set = manifold(
        &a,
        Pose::translation(0.0, 0.0, 0.0),
        &b,
        Pose::translation(0.45, -0.2, 0.95),
    );
    let h = hull_volume(&set.points, &mut VolumeScratch::default());
    let v = 0.3 * 0.4 * 0.05;
    println!(
        "box ∩ box: V = {:.6e} (analytic {v:.6e}), centroid {:?}",
        h.volume, h.centroid
    );
    assert!(close(h.volume, v, 1e-9));
    assert!((h.centroid - Vec3::new(0.35, -0.2, 0.475)).norm() < 1e-9);
}

#[test]
fn square_and_its_45_degree_turn_overlap_in_an_octagon() {
    // Concentric boxes of half side s, one turned 45° about z, z-overlap 0.1: a
    // regular octagon of inradius s, area 8 s² (√2 − 1).
    let s = 0.5;
    let a = cuboid(s, s, 0.5);
    let b = cuboid(s, s, 0.5);
    let xb = Pose::from_parts(
        Vec3::new(0.0, 0.0, 0.9).into(),
        Quat::from_axis_angle(&Vec3::z_axis(), std::f64::consts::FRAC_PI_4),
    );
    let set = manifold(&a, Pose::identity(), &b, xb);
    let h = hull_volume(&set.points, &mut VolumeScratch::default());
    let v = 8.0 * s * s * (2f64.sqrt() - 1.0) * 0.1;
    println!(
        "square ∩ turned square: V = {:.6e} (analytic {v:.6e}), {} points",
        h.volume,
        set.points.len()
    );
    assert!(close(h.volume, v, 1e-9));
    assert!((h.centroid - Vec3::new(0.0, 0.0, 0.45)).norm() < 1e-9);
}

#[test]
fn box_on_plane_face_edge_and_corner() {
    let plane = Shape::plane();
    let (a, b, c) = (0.3, 0.2, 0.1);
    let bx = cuboid(a, b, c);
    let d = 0.01;
    let mut scratch = VolumeScratch::default();
    // Face down, sunk d: V = 4ab d, centroid depth d/2, ∫ depth dV = V d/2.
    let set = manifold(
        &plane,
        Pose::identity(),
        &bx,
        Pose::translation(0.1, 0.2, c - d),
    );
    let h = hull_volume(&set.points, &mut scratch);
    let v = 4.0 * a * b * d;
    println!(
        "face: V = {:.6e} (analytic {v:.6e}), ∫d dV = {:.6e} ({:.6e})",
        h.volume,
        h.depth_moment,
        v * d / 2.0
    );
    assert!(close(h.volume, v, 1e-9));
    assert!(close(h.depth_moment, v * d / 2.0, 1e-9));
    assert!((h.centroid - Vec3::new(0.1, 0.2, -d / 2.0)).norm() < 1e-9);
    // Edge down (turned 45° about x), sunk d: a prism of length 2a with a right
    // isosceles cross-section of height d: V = 2a d², ∫ depth dV = V d/3.
    let q = Quat::from_axis_angle(&Vec3::x_axis(), std::f64::consts::FRAC_PI_4);
    let reach = (b + c) / 2f64.sqrt();
    let set = manifold(
        &plane,
        Pose::identity(),
        &bx,
        Pose::from_parts(Vec3::new(0.0, 0.0, reach - d).into(), q),
    );
    let h = hull_volume(&set.points, &mut scratch);
    let v = 2.0 * a * d * d;
    println!(
        "edge: V = {:.6e} (analytic {v:.6e}), ∫d dV = {:.6e} ({:.6e})",
        h.volume,
        h.depth_moment,
        v * d / 3.0
    );
    assert!(close(h.volume, v, 1e-9));
    assert!(close(h.depth_moment, v * d / 3.0, 1e-9));
    assert!((h.centroid.z + d / 3.0).abs() < 1e-12);
    // Corner down (cube diagonal vertical), sunk d: a trirectangular corner cut at
    // height d along the diagonal, legs √3 d: V = (√3 d)³/6, ∫ depth dV = V d/4.
    let cube = cuboid(0.1, 0.1, 0.1);
    let q = Quat::rotation_between(&Vec3::new(-1.0, -1.0, -1.0), &Vec3::new(0.0, 0.0, -1.0))
        .expect("rotation");
    let reach = 0.1 * 3f64.sqrt();
    let set = manifold(
        &plane,
        Pose::identity(),
        &cube,
        Pose::from_parts(Vec3::new(0.0, 0.0, reach - d).into(), q),
    );
    let h = hull_volume(&set.points, &mut scratch);
    let leg = 3f64.sqrt() * d;
    let v = leg.powi(3) / 6.0;
    println!(
        "corner: V = {:.6e} (analytic {v:.6e}), ∫d dV = {:.6e} ({:.6e})",
        h.volume,
        h.depth_moment,
        v * d / 4.0
    );
    assert!(close(h.volume, v, 1e-9));
    assert!(close(h.depth_moment, v * d / 4.0, 1e-9));
    assert!((h.centroid - Vec3::new(0.0, 0.0, -d / 4.0)).norm() < 1e-9);
}

#[test]
fn flat_and_degenerate_sets_have_zero_volume() {
    use rtphys::collision::ContactPoint;
    let mut s = VolumeScratch::default();
    let pts: Vec<ContactPoint> = (0..6)
        .map(|i| ContactPoint::at(Vec3::new((i as f64).cos(), (i as f64).sin(), 0.0), 0.0))
        .collect();
    assert_eq!(hull_volume(&pts, &mut s).volume, 0.0);
    let nan = [ContactPoint::at(Vec3::new(f64::NAN, 0.0, 0.0), 0.0); 5];
    assert_eq!(hull_volume(&nan, &mut s).volume, 0.0);
}
