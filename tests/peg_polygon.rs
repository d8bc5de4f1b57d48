//! Planar PEG geometry (`003_668e561ceb3412ed`, Sec. 5.1, eqs. (32)–(33)) and the
//! exact overlap area of convex polygons (the metric of Figs. 20–22).
//!
//! The strongest check is geometric: near two corners facing each other, the PEG
//! constraint set of eq. (33) must hold exactly when the polygons do not overlap —
//! the property the standard model lacks (it traps or lets corners pass). Tested
//! over random relative poses against the exact overlap area.

use rtphys::collision::features::{Constraint, FeatureParams};
use rtphys::collision::polygon::{
    overlap_area, potential_contacts_2d, AreaScratch, ConvexPolygon, Feature2, PolygonScratch,
    PotentialContacts2,
};
use rtphys::math::{Pose2, SplitMix64, Vec2};

fn square(h: f64) -> ConvexPolygon {
    ConvexPolygon::hull(&[
        Vec2::new(-h, -h),
        Vec2::new(h, -h),
        Vec2::new(h, h),
        Vec2::new(-h, h),
    ])
    .expect("square")
}

/// A square of half-diagonal `r` standing on a corner (a diamond).
fn diamond(r: f64) -> ConvexPolygon {
    ConvexPolygon::hull(&[
        Vec2::new(0.0, -r),
        Vec2::new(r, 0.0),
        Vec2::new(0.0, r),
        Vec2::new(-r, 0.0),
    ])
    .expect("diamond")
}

fn contacts(
    a: &ConvexPolygon,
    xa: &Pose2,
    b: &ConvexPolygon,
    xb: &Pose2,
    eps: f64,
) -> PotentialContacts2 {
    let mut out = PotentialContacts2::default();
    potential_contacts_2d(
        a,
        xa,
        b,
        xb,
        &FeatureParams::with_distance(eps),
        &mut PolygonScratch::default(),
        &mut out,
    );
    out
}

#[test]
fn hull_and_area() {
    let s = square(0.5);
    assert_eq!(s.vertices.len(), 4);
    assert!((s.area() - 1.0).abs() < 1e-15);
    let h = ConvexPolygon::hull(&[
        Vec2::new(0.0, 0.0),
        Vec2::new(2.0, 0.0),
        Vec2::new(1.0, 0.5),
        Vec2::new(2.0, 2.0),
        Vec2::new(0.0, 2.0),
    ])
    .expect("hull");
    assert_eq!(h.vertices.len(), 4, "interior point dropped");
    assert!(ConvexPolygon::hull(&[Vec2::zeros(), Vec2::x(), Vec2::x() * 2.0]).is_none());
}

#[test]
fn overlap_area_closed_forms() {
    let a = square(1.0);
    let mut s = AreaScratch::default();
    // Offset squares: (2 − 0.5)(2 − 0.3).
    let v = overlap_area(
        &a,
        &Pose2::identity(),
        &a,
        &Pose2::translation(0.5, 0.3),
        &mut s,
    );
    assert!((v - 1.5 * 1.7).abs() < 1e-14, "{v}");
    // A square and itself turned 45°: the regular octagon of inradius 1, 8(√2 − 1).
    let v = overlap_area(
        &a,
        &Pose2::identity(),
        &a,
        &Pose2::rotation(std::f64::consts::FRAC_PI_4),
        &mut s,
    );
    assert!((v - 8.0 * (2f64.sqrt() - 1.0)).abs() < 1e-14, "{v}");
    assert_eq!(
        overlap_area(
            &a,
            &Pose2::identity(),
            &a,
            &Pose2::translation(2.5, 0.0),
            &mut s
        ),
        0.0
    );
    let touching = overlap_area(
        &a,
        &Pose2::identity(),
        &a,
        &Pose2::translation(2.0, 0.7),
        &mut s,
    );
    assert!(touching.abs() < 1e-15, "{touching}");
}

#[test]
fn square_over_a_floor_is_two_vertex_edge_contacts() {
    let gap = 1e-3;
    let out = contacts(
        &square(0.5),
        &Pose2::translation(0.2, 0.5 + gap),
        &square(3.0),
        &Pose2::translation(0.0, -3.0),
        1e-2,
    );
    assert_eq!(out.constraints.len(), 2, "{:#?}", out.constraints);
    for c in &out.contacts {
        assert!((c.psi - gap).abs() < 1e-14 && (c.normal - Vec2::y()).norm() < 1e-15);
        assert!((c.p_a - c.p_b - c.normal * c.psi).norm() < 1e-15);
    }
}

#[test]
fn corners_facing_each_other_give_the_constraints_of_eq_33() {
    let out = contacts(
        &diamond(1.0),
        &Pose2::translation(0.0, 3.0 + 1e-3),
        &diamond(1.0),
        &Pose2::translation(0.0, 1.0),
        1e-2,
    );
    let (mut i, mut x) = (0, 0);
    for c in &out.constraints {
        match c {
            Constraint::Intercontact { .. } => i += 1,
            Constraint::Cross { .. } => x += 1,
            Constraint::Unilateral { .. } => panic!("no vertex–edge contact expected: {c:?}"),
        }
    }
    assert_eq!((i, x), (2, 2));
    assert!(out.margin() > 0.0);
}

#[test]
fn peg_constraints_hold_exactly_when_corners_do_not_overlap() {
    // A diamond's bottom corner near another's top corner, random relative
    // translation within 4 mm and rotation within ±0.3 rad: the constraint set of
    // eq. (33) holds (margin ≥ 0) iff the overlap area is zero. Samples within 1e-9 m
    // of the boundary are skipped (either answer is round-off).
    let (a, b) = (diamond(1.0), diamond(1.0));
    let xb = Pose2::translation(0.0, 1.0);
    let mut rng = SplitMix64::new(21);
    let mut s = AreaScratch::default();
    let (mut free, mut overlapping) = (0, 0);
    for _ in 0..20_000 {
        let th = rng.uniform(-0.3, 0.3);
        let t = Vec2::new(rng.uniform(-4e-3, 4e-3), rng.uniform(-4e-3, 4e-3));
        // Pose A so that its bottom vertex (0, −1) sits at the top vertex of B plus t.
        let rot = nalgebra::UnitComplex::new(th);
        let tip = rot * Vec2::new(0.0, -1.0);
        let xa = Pose2::from_parts((Vec2::new(0.0, 2.0) + t - tip).into(), rot);
        let out = contacts(&a, &xa, &b, &xb, 1e-2);
        let m = out.margin();
        let area = overlap_area(&a, &xa, &b, &xb, &mut s);
        if m.abs() < 1e-9 || (area > 0.0 && area < 1e-15) {
            continue;
        }
        let overlap = area > 0.0;
        assert_eq!(
            m < 0.0,
            overlap,
            "t = {t:?}, θ = {th}: margin {m:e}, area {area:e}"
        );
        if overlap {
            overlapping += 1;
        } else {
            free += 1;
        }
    }
    assert!(
        free > 2000 && overlapping > 2000,
        "free {free}, overlapping {overlapping}"
    );
}

#[test]
fn the_standard_model_traps_a_corner_that_peg_lets_pass() {
    // Fig. 2: a vertex sliding past a corner. The standard model enforces both edge
    // lines (ψ₁ ≥ 0 and ψ₂ ≥ 0), so a vertex beside the corner, outside one edge's
    // line but below the other's, counts as penetrating; PEG's I constraint needs
    // only one of them.
    // Beside the corner without overlap: the standard model sees a violation, PEG none.
    let xa = Pose2::translation(0.006, 3.0 - 0.001);
    let out = contacts(
        &diamond(1.0),
        &xa,
        &diamond(1.0),
        &Pose2::translation(0.0, 1.0),
        1e-2,
    );
    let area = overlap_area(
        &diamond(1.0),
        &xa,
        &diamond(1.0),
        &Pose2::translation(0.0, 1.0),
        &mut AreaScratch::default(),
    );
    assert_eq!(area, 0.0);
    let standard = out
        .contacts
        .iter()
        .map(|c| c.psi)
        .fold(f64::INFINITY, f64::min);
    assert!(
        standard < 0.0,
        "the standard model's trap: min ψ = {standard}"
    );
    assert!(out.margin() >= 0.0, "PEG: {}", out.margin());
}

/// Bounded configurations (module doc of `collision::polygon`, "Classification"):
/// each vertex of either polygon is in at most one configuration against the
/// other, whatever ε, so a pair has at most V_a + V_b vertex–vertex configurations
/// (4 contacts, 2 I and 2 X each) and V_a + V_b vertex–edge contacts. Random
/// octagon pairs within 0.3 m of each other at ε from 1 mm to 10 m (a fast body's
/// reach; before, every vertex pair within ε was a configuration: 64 of them,
/// 256 contacts, for two octagons at ε = 10 m). And where the classification
/// keeps a corner-on-corner configuration, eq. (33)'s set still decides overlap
/// exactly (as `peg_constraints_hold_exactly_when_corners_do_not_overlap`) at
/// ε = 0.1 m.
#[test]
fn configurations_are_bounded_whatever_the_reach() {
    let octagon = |rng: &mut SplitMix64| {
        let (sx, sy) = (rng.uniform(0.6, 1.0), rng.uniform(0.6, 1.0));
        let pts: Vec<Vec2> = (0..8)
            .map(|i| {
                let t = std::f64::consts::TAU * (i as f64 + rng.uniform(-0.3, 0.3)) / 8.0;
                Vec2::new(0.1 * sx * t.cos(), 0.1 * sy * t.sin())
            })
            .collect();
        ConvexPolygon::hull(&pts).expect("octagon")
    };
    let mut rng = SplitMix64::new(7);
    let mut worst = 0usize;
    for _ in 0..2000 {
        let (a, b) = (octagon(&mut rng), octagon(&mut rng));
        let xa = Pose2::new(
            Vec2::new(rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)),
            rng.uniform(-3.2, 3.2),
        );
        let xb = Pose2::new(Vec2::zeros(), rng.uniform(-3.2, 3.2));
        let nv = a.vertices.len() + b.vertices.len();
        for eps in [1e-3, 1e-1, 10.0] {
            let out = contacts(&a, &xa, &b, &xb, eps);
            let vv = out
                .constraints
                .iter()
                .filter(|c| matches!(c, Constraint::Intercontact { .. }))
                .count()
                / 2;
            let ve = out
                .constraints
                .iter()
                .filter(|c| matches!(c, Constraint::Unilateral { .. }))
                .count();
            assert!(
                vv <= nv && ve <= nv,
                "ε {eps}: {vv} vertex–vertex, {ve} vertex–edge"
            );
            assert!(out.contacts.len() <= 5 * nv);
            worst = worst.max(out.contacts.len());
        }
    }
    println!("largest contact set: {worst} contacts");
    // Corner on corner at a wide reach: still exact.
    let (a, b) = (diamond(1.0), diamond(1.0));
    let xb = Pose2::translation(0.0, 1.0);
    let mut s = AreaScratch::default();
    let mut checked = 0;
    for _ in 0..5000 {
        let th = rng.uniform(-0.3, 0.3);
        let t = Vec2::new(rng.uniform(-4e-3, 4e-3), rng.uniform(-4e-3, 4e-3));
        let rot = nalgebra::UnitComplex::new(th);
        let tip = rot * Vec2::new(0.0, -1.0);
        let xa = Pose2::from_parts((Vec2::new(0.0, 2.0) + t - tip).into(), rot);
        let out = contacts(&a, &xa, &b, &xb, 0.1);
        let m = out.margin();
        let area = overlap_area(&a, &xa, &b, &xb, &mut s);
        if m.abs() < 1e-9 || (area > 0.0 && area < 1e-15) {
            continue;
        }
        assert_eq!(
            m < 0.0,
            area > 0.0,
            "t = {t:?}, θ = {th}: margin {m:e}, area {area:e}"
        );
        checked += 1;
    }
    assert!(checked > 4000);
}

#[test]
fn a_far_vertex_behind_both_edge_lines_gets_no_set_of_the_other_vertex() {
    // peg28 (003 Sec. 4, feasibility; `[lcp] peg_vv_feasible`): B's right-angle corner w = (0, 0) is at
    // A's corner v = (0.01, 0.01) (1.4 cm apart, within r(v) = ε = 2 cm), so
    // eq. (33) pairs them. v is not at w (r(w) = 2.5 mm, B's short edge halved)
    // and lies 1 cm behind both of w's edge lines (x = 0 and y = 0) — in B's
    // interior cone at w, outside VR(w) — while A and B are 5.25 mm apart (v is
    // beyond B's hypotenuse). Before, v got the completed I set {C(v, bottom),
    // C(v, left)}, both ψ = −1 cm: a set no motion of µm satisfies, which asks
    // the step to push v 1 cm out (the work check's refused ejections of the 2D
    // pour, docs/EXPERIMENTS.md peg27/peg28; still so without the key). Exact: every I set of this pair
    // has a member with ψ ≥ 0 iff no set is built for v against w; the set for
    // w against v's edges (ψ = +1 cm, +1 cm) stays, and the pair's constraints
    // hold (margin ≥ 0) as the polygons are apart.
    let a = ConvexPolygon::hull(&[
        Vec2::new(0.01, 0.01),
        Vec2::new(0.05, 0.01),
        Vec2::new(0.05, 0.05),
        Vec2::new(0.01, 0.05),
    ])
    .expect("square");
    let b = ConvexPolygon::hull(&[
        Vec2::new(0.0, 0.0),
        Vec2::new(0.2, 0.0),
        Vec2::new(0.0, 0.005),
    ])
    .expect("sliver");
    let id = Pose2::identity();
    let mut area = AreaScratch::default();
    assert_eq!(overlap_area(&a, &id, &b, &id, &mut area), 0.0);
    let params = FeatureParams {
        feasible_completion: true,
        ..FeatureParams::with_distance(2e-2)
    };
    let mut out = PotentialContacts2::default();
    potential_contacts_2d(
        &a,
        &id,
        &b,
        &id,
        &params,
        &mut PolygonScratch::default(),
        &mut out,
    );
    let mut sets = 0;
    for c in &out.constraints {
        if let Constraint::Intercontact { primary, others } = c {
            sets += 1;
            let best = out
                .members_of(others)
                .map(|m| m.psi)
                .fold(out.contacts[*primary as usize].psi, f64::max);
            assert!(best >= 0.0, "an I set behind all its lines: {c:?} {out:?}");
        }
    }
    assert!(sets >= 1, "w's set against v's edges kept: {out:?}");
    // No contact of v (A's vertex 0) against B's bottom edge (edge 0: (0,0) →
    // (0.2,0)), 1 cm behind its line: v's sets are its pair with B's other
    // short-edge corner (0, 0.005), whose hypotenuse it is 5.25 mm in front of.
    assert_eq!(a.vertices[0], Vec2::new(0.01, 0.01));
    assert_eq!(b.vertices[..2], [Vec2::new(0.0, 0.0), Vec2::new(0.2, 0.0)]);
    assert!(
        !out.contacts
            .iter()
            .any(|c| (c.feature_a, c.feature_b) == (Feature2::Vertex(0), Feature2::Edge(0))),
        "v against w's bottom edge, 1 cm behind its line: {out:?}"
    );
    assert!(out.margin() >= 0.0);
    // Without the key (the default, eq. (33)'s completion as printed) v's far set is built.
    let old = contacts(&a, &id, &b, &id, 2e-2);
    assert!(old
        .contacts
        .iter()
        .any(|c| (c.feature_a, c.feature_b) == (Feature2::Vertex(0), Feature2::Edge(0))));
}
