//! The dedicated box–box routine against the general polytope–polytope routine.
//!
//! The general routine is reached through the public dispatch by giving box b as
//! `Shape::polytope` of the same eight corners in the same order (the same hull as
//! `Shape::cuboid` builds), so both see identical polytopes. Over thousands of
//! random poses and resting stacks they must agree on contact / no contact, the
//! normal (1e-9), the point set up to order (1e-9 m), the depths (1e-9 m) and the
//! deepest point.

use rtphys::collision::{collide_pair, ContactPoint, ContactSet, Manifold, NarrowScratch, Shape};
use rtphys::math::{Pose, Quat, SplitMix64, Vec3};

fn pose(t: Vec3, r: Quat) -> Pose {
    Pose::from_parts(t.into(), r)
}

fn corners(h: Vec3) -> Vec<Vec3> {
    let mut pts = Vec::with_capacity(8);
    for &sx in &[-1.0, 1.0] {
        for &sy in &[-1.0, 1.0] {
            for &sz in &[-1.0, 1.0] {
                pts.push(Vec3::new(sx * h.x, sy * h.y, sz * h.z));
            }
        }
    }
    pts
}

type Out = Option<(Manifold, Vec<ContactPoint>)>;

fn collide(sa: &Shape, xa: &Pose, sb: &Shape, xb: &Pose, scratch: &mut NarrowScratch) -> Out {
    let mut out = ContactSet::default();
    if !collide_pair(0, sa, xa, 1, sb, xb, scratch, &mut out) {
        return None;
    }
    let m = out.manifolds[0].clone();
    let pts = out.points_of(&m).to_vec();
    Some((m, pts))
}

/// Box–box (dedicated) and box–polytope (general) manifolds for the same pose.
fn both(ha: Vec3, xa: &Pose, hb: Vec3, xb: &Pose, scratch: &mut NarrowScratch) -> (Out, Out) {
    let a = Shape::cuboid(ha).unwrap();
    let b = Shape::cuboid(hb).unwrap();
    let b_poly = Shape::polytope(&corners(hb)).unwrap();
    (
        collide(&a, xa, &b, xb, scratch),
        collide(&a, xa, &b_poly, xb, scratch),
    )
}

fn assert_same(fast: &Out, general: &Out, what: &str) {
    match (fast, general) {
        (None, None) => {}
        (Some((mf, pf)), Some((mg, pg))) => {
            assert!(
                (mf.normal - mg.normal).norm() <= 1e-9,
                "{what}: normal {} vs {}",
                mf.normal,
                mg.normal
            );
            assert_eq!(pf.len(), pg.len(), "{what}: {pf:?} vs {pg:?}");
            for g in pg {
                assert!(
                    pf.iter().any(
                        |f| (f.p_w - g.p_w).norm() <= 1e-9 && (f.depth - g.depth).abs() <= 1e-9
                    ),
                    "{what}: general point {g:?} missing from {pf:?}"
                );
            }
            for f in pf {
                assert!(
                    pg.iter().any(
                        |g| (f.p_w - g.p_w).norm() <= 1e-9 && (f.depth - g.depth).abs() <= 1e-9
                    ),
                    "{what}: extra point {f:?} (general {pg:?})"
                );
            }
            let (df, dg) = (
                pf[mf.deepest - mf.points.start],
                pg[mg.deepest - mg.points.start],
            );
            assert!((df.depth - dg.depth).abs() <= 1e-9, "{what}: deepest depth");
            let max = pg.iter().map(|p| p.depth).fold(0.0, f64::max);
            let ties = pg.iter().filter(|p| p.depth >= max - 1e-9).count();
            if ties == 1 {
                assert!((df.p_w - dg.p_w).norm() <= 1e-9, "{what}: deepest point");
            }
        }
        _ => panic!(
            "{what}: contact decision differs: fast {} general {}",
            fast.is_some(),
            general.is_some()
        ),
    }
}

#[test]
fn random_poses_match_the_general_routine() {
    let mut rng = SplitMix64::new(0xB0C5_B0C5);
    let mut scratch = NarrowScratch::default();
    let (mut hits, mut misses) = (0, 0);
    for i in 0..4000 {
        let ha = Vec3::new(
            rng.uniform(0.02, 0.5),
            rng.uniform(0.02, 0.5),
            rng.uniform(0.02, 0.5),
        );
        let hb = Vec3::new(
            rng.uniform(0.02, 0.5),
            rng.uniform(0.02, 0.5),
            rng.uniform(0.02, 0.5),
        );
        let reach = ha.norm() + hb.norm();
        // Random direction, distance mostly inside the bounding spheres.
        let dir = rng.rotation() * Vec3::x();
        let dist = rng.uniform(0.0, 1.05) * reach;
        let xb = pose(
            Vec3::new(
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
            ),
            rng.rotation(),
        );
        // Every fourth pose shares b's orientation up to a small tilt (face
        // contacts with parallel edges), the rest are generic.
        let ra = if i % 4 == 0 {
            let tilt = Vec3::new(
                rng.uniform(-0.01, 0.01),
                rng.uniform(-0.01, 0.01),
                rng.uniform(-0.5, 0.5),
            );
            xb.rotation * Quat::from_scaled_axis(tilt)
        } else {
            rng.rotation()
        };
        let xa = pose(xb.translation.vector + dir * dist, ra);
        let (fast, general) = both(ha, &xa, hb, &xb, &mut scratch);
        assert_same(&fast, &general, &format!("pose {i}"));
        if general.is_some() {
            hits += 1;
        } else {
            misses += 1;
        }
    }
    // The sweep exercises both outcomes substantially.
    assert!(hits >= 1000 && misses >= 500, "hits {hits} misses {misses}");
}

#[test]
fn resting_stacks_match_the_general_routine() {
    let mut scratch = NarrowScratch::default();
    let h = Vec3::new(0.1, 0.1, 0.1);
    let mut cases = Vec::new();
    // Identical boxes, exactly aligned (coincident side planes), various depths.
    for &pen in &[1e-6, 1e-4, 2e-3] {
        cases.push((h, h, Vec3::new(0.0, 0.0, 0.2 - pen), Quat::identity()));
    }
    // Small box on a big one, yawed; offset sideways; rotated stack (both tilted).
    let big = Vec3::new(0.5, 0.4, 0.1);
    let small = Vec3::new(0.1, 0.15, 0.05);
    for &yaw in &[0.0, 0.3, std::f64::consts::FRAC_PI_4] {
        cases.push((
            small,
            big,
            Vec3::new(0.05, -0.02, 0.15 - 1e-4),
            Quat::from_scaled_axis(Vec3::z() * yaw),
        ));
    }
    // A box hanging over the edge of the lower one.
    cases.push((h, h, Vec3::new(0.13, 0.05, 0.2 - 3e-4), Quat::identity()));
    // A slightly tilted box resting on an edge.
    cases.push((
        h,
        big,
        Vec3::new(0.0, 0.0, 0.2),
        Quat::from_scaled_axis(Vec3::new(0.02, 0.0, 0.0)),
    ));
    for (k, &(ha, hb, off, rel)) in cases.iter().enumerate() {
        for &base in &[
            Quat::identity(),
            Quat::from_scaled_axis(Vec3::new(0.0, 0.0, 0.7)),
            Quat::from_scaled_axis(Vec3::new(0.3, -0.2, 0.1)),
        ] {
            let xb = pose(Vec3::new(0.3, -0.1, 0.1), base);
            let xa = pose(xb.translation.vector + base * off, base * rel);
            let (fast, general) = both(ha, &xa, hb, &xb, &mut scratch);
            assert!(general.is_some(), "case {k}: stacked boxes touch");
            assert_same(&fast, &general, &format!("stack case {k}"));
            // The normal of a box on the top face of the lower box is its up axis.
            if rel == Quat::identity() {
                let (m, _) = fast.as_ref().unwrap();
                assert!((m.normal - base * Vec3::z()).norm() <= 1e-9, "case {k}");
            }
        }
    }
    // A resting stack of five identical boxes: four contacts of four points each.
    let b = Shape::cuboid(h).unwrap();
    for i in 0..4 {
        let xb = pose(Vec3::new(0.0, 0.0, 0.1 + 0.2 * i as f64), Quat::identity());
        let xa = pose(
            Vec3::new(0.0, 0.0, 0.3 + 0.2 * i as f64 - 1e-4),
            Quat::identity(),
        );
        let (m, pts) = collide(&b, &xa, &b, &xb, &mut scratch).expect("stacked");
        assert!((m.normal - Vec3::z()).norm() <= 1e-12);
        let bottom = pts
            .iter()
            .filter(|p| (p.depth - 1e-4).abs() <= 1e-9)
            .count();
        assert_eq!(bottom, 4, "{pts:?}");
    }
}

#[test]
fn argument_order_mirrors_the_manifold() {
    let mut rng = SplitMix64::new(7);
    let mut scratch = NarrowScratch::default();
    for _ in 0..500 {
        let ha = Vec3::new(0.2, 0.1, 0.05);
        let hb = Vec3::new(0.15, 0.15, 0.1);
        let xa = pose(
            Vec3::new(
                rng.uniform(-0.2, 0.2),
                rng.uniform(-0.2, 0.2),
                rng.uniform(-0.2, 0.2),
            ),
            rng.rotation(),
        );
        let xb = pose(Vec3::zeros(), rng.rotation());
        let (a, b) = (Shape::cuboid(ha).unwrap(), Shape::cuboid(hb).unwrap());
        let ab = collide(&a, &xa, &b, &xb, &mut scratch);
        let ba = collide(&b, &xb, &a, &xa, &mut scratch);
        assert_eq!(ab.is_some(), ba.is_some());
        if let (Some((m1, p1)), Some((m2, p2))) = (ab, ba) {
            assert!((m1.normal + m2.normal).norm() <= 1e-9);
            assert_eq!(p1.len(), p2.len());
        }
    }
}

/// Capsule–box takes a closed-form box distance in its axis search; the manifold
/// matches capsule–polytope of the same corners (the general distance) to 1e-9.
#[test]
fn capsule_box_matches_capsule_polytope() {
    let mut rng = SplitMix64::new(0xCA95);
    let mut scratch = NarrowScratch::default();
    let mut hits = 0;
    for i in 0..3000 {
        let hb = Vec3::new(
            rng.uniform(0.05, 0.5),
            rng.uniform(0.05, 0.5),
            rng.uniform(0.05, 0.5),
        );
        let (r, hl) = (rng.uniform(0.02, 0.2), rng.uniform(0.0, 0.4));
        let cap = Shape::capsule(r, hl).unwrap();
        let b = Shape::cuboid(hb).unwrap();
        let b_poly = Shape::polytope(&corners(hb)).unwrap();
        let xb = pose(Vec3::new(0.1, -0.2, 0.3), rng.rotation());
        let dir = rng.rotation() * Vec3::x();
        let dist = rng.uniform(0.0, 1.0) * (hb.norm() + r + hl);
        // Every third capsule lies parallel to a face of the box.
        let rot = if i % 3 == 0 {
            xb.rotation * Quat::from_scaled_axis(Vec3::y() * std::f64::consts::FRAC_PI_2)
        } else {
            rng.rotation()
        };
        let xa = pose(xb.translation.vector + dir * dist, rot);
        let fast = collide(&cap, &xa, &b, &xb, &mut scratch);
        let general = collide(&cap, &xa, &b_poly, &xb, &mut scratch);
        assert_same(&fast, &general, &format!("capsule pose {i}"));
        hits += usize::from(general.is_some());
    }
    assert!(hits >= 500, "hits {hits}");
}
