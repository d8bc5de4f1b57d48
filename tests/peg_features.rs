//! Feature-level potential contacts of PEG (`003_668e561ceb3412ed`, Secs. 4–5):
//! which constraints each configuration of Sec. 5.2 produces, with the gaps and
//! normals checked against closed-form geometry.
//!
//! Tolerances: gaps and points are compared to 1e-12 m (a few ulps of the metre-scale
//! coordinates: each is a dot product or a segment parameter of exact inputs).

use rtphys::collision::features::{
    potential_contacts, Constraint, Feature, FeatureParams, FeatureScratch, PotentialContacts,
};
use rtphys::collision::ConvexPolytope;
use rtphys::math::{Pose, Quat, SplitMix64, Vec3};
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

const TOL: f64 = 1e-12;

fn cuboid(hx: f64, hy: f64, hz: f64) -> ConvexPolytope {
    let mut pts = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                pts.push(Vec3::new(sx * hx, sy * hy, sz * hz));
            }
        }
    }
    ConvexPolytope::from_points(&pts).expect("box")
}

/// Square pyramid, apex at the origin pointing along −z (`down`) or +z.
fn pyramid(half: f64, height: f64, down: bool) -> ConvexPolytope {
    let s = if down { 1.0 } else { -1.0 };
    let mut pts = vec![Vec3::zeros()];
    for (x, y) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
        pts.push(Vec3::new(x * half, y * half, s * height));
    }
    ConvexPolytope::from_points(&pts).expect("pyramid")
}

/// Triangular prism whose ridge runs along `axis` (x or y) through the origin,
/// pointing up (+z) or down; half-width `w` at depth `h`, half-length `l`.
fn wedge(w: f64, h: f64, l: f64, along_x: bool, up: bool) -> ConvexPolytope {
    let s = if up { -1.0 } else { 1.0 };
    let mut pts = Vec::new();
    for t in [-l, l] {
        for (u, z) in [(0.0, 0.0), (-w, s * h), (w, s * h)] {
            pts.push(if along_x {
                Vec3::new(t, u, z)
            } else {
                Vec3::new(u, t, z)
            });
        }
    }
    ConvexPolytope::from_points(&pts).expect("wedge")
}

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::translation(x, y, z)
}

fn run(
    a: &ConvexPolytope,
    xa: &Pose,
    b: &ConvexPolytope,
    xb: &Pose,
    eps: f64,
) -> PotentialContacts {
    let mut out = PotentialContacts::default();
    let mut s = FeatureScratch::default();
    potential_contacts(
        a,
        xa,
        b,
        xb,
        &FeatureParams::with_distance(eps),
        &mut s,
        &mut out,
    );
    out
}

fn count(out: &PotentialContacts) -> (usize, usize, usize) {
    let mut n = (0, 0, 0);
    for c in &out.constraints {
        match c {
            Constraint::Unilateral { .. } => n.0 += 1,
            Constraint::Intercontact { .. } => n.1 += 1,
            Constraint::Cross { .. } => n.2 += 1,
        }
    }
    n
}

/// Every contact satisfies p_a = p_b + ψ n with a unit normal.
fn check_consistent(out: &PotentialContacts) {
    for c in &out.contacts {
        assert!((c.normal.norm() - 1.0).abs() < TOL, "{c:?}");
        let r = c.p_a - c.p_b - c.normal * c.psi;
        assert!(r.norm() < 1e-9, "p_a − p_b − ψ n = {r:?} for {c:?}");
    }
}

#[test]
fn small_box_over_a_large_box_gives_four_vertex_face_contacts() {
    // 1 m cube 1 mm above the top face of a 4 m cube: its four bottom corners over
    // B's top face (eq. (34)); nothing else is within ε = 1 cm.
    let gap = 1e-3;
    let a = cuboid(0.5, 0.5, 0.5);
    let b = cuboid(2.0, 2.0, 2.0);
    let out = run(&a, &at(0.3, -0.2, 2.5 + gap), &b, &at(0.0, 0.0, 0.0), 1e-2);
    assert_eq!(count(&out), (4, 0, 0), "{:#?}", out.constraints);
    check_consistent(&out);
    for c in &out.contacts {
        assert!(matches!(c.feature_a, Feature::Vertex(_)));
        assert!(matches!(c.feature_b, Feature::Face(_)));
        assert!((c.psi - gap).abs() < TOL, "ψ = {}", c.psi);
        assert!(
            (c.normal - Vec3::z()).norm() < TOL,
            "normal toward A: {:?}",
            c.normal
        );
        assert!((c.p_a.z - (2.0 + gap)).abs() < TOL);
    }
}

#[test]
fn gaps_are_invariant_under_a_rigid_motion_of_the_pair() {
    let a = cuboid(0.5, 0.5, 0.5);
    let b = cuboid(2.0, 2.0, 2.0);
    let (xa, xb) = (at(0.3, -0.2, 2.5 - 2e-4), at(0.0, 0.0, 0.0));
    let base = run(&a, &xa, &b, &xb, 1e-2);
    let mut rng = SplitMix64::new(7);
    for _ in 0..20 {
        let g = Pose::from_parts(
            Vec3::new(
                rng.uniform(-5.0, 5.0),
                rng.uniform(-5.0, 5.0),
                rng.uniform(-5.0, 5.0),
            )
            .into(),
            rng.rotation(),
        );
        let moved = run(&a, &(g * xa), &b, &(g * xb), 1e-2);
        assert_eq!(count(&moved), count(&base));
        for (c, d) in base.contacts.iter().zip(&moved.contacts) {
            // Overlapping by 0.2 mm: ψ < 0.
            assert!((c.psi + 2e-4).abs() < 1e-11 && (d.psi - c.psi).abs() < 1e-11);
            assert!((g.rotation * c.normal - d.normal).norm() < 1e-12);
        }
    }
}

#[test]
fn apex_over_a_face_is_one_unilateral_contact() {
    let gap = 2e-3;
    let a = pyramid(0.5, 1.0, true); // apex at the origin, body above it
    let b = cuboid(2.0, 2.0, 0.5);
    let out = run(&a, &at(0.1, 0.2, 0.5 + gap), &b, &Pose::identity(), 1e-2);
    assert_eq!(count(&out), (1, 0, 0));
    let c = &out.contacts[0];
    assert!((c.psi - gap).abs() < TOL && (c.normal - Vec3::z()).norm() < TOL);
    assert!((c.p_a - Vec3::new(0.1, 0.2, 0.5 + gap)).norm() < TOL);
}

#[test]
fn apex_over_a_ridge_is_an_intercontact_with_cross_constraints() {
    // Vertex–edge (eq. (36)): the apex 1 mm above a wedge's ridge (along x). The two
    // slanted faces make C1, C2 of the I constraint; the pyramid's four edges from
    // the apex split two and two by the ridge's edge orientation, each X'd with the
    // face on its side.
    let gap = 1e-3;
    let (w, h) = (0.5, 1.0);
    let a = pyramid(0.5, 1.0, true);
    let b = wedge(w, h, 2.0, true, true);
    let out = run(&a, &at(0.05, 0.0, gap), &b, &Pose::identity(), 1e-2);
    check_consistent(&out);
    assert_eq!(count(&out), (0, 1, 4), "{:#?}", out.constraints);
    // The gap to each slanted face's plane: gap · cos α, α the face's tilt.
    let cos_a = w / (w * w + h * h).sqrt();
    let (primary, others) = match &out.constraints[0] {
        Constraint::Intercontact { primary, others } => (*primary, others.clone()),
        c => panic!("{c:?}"),
    };
    assert_eq!(others.len(), 1);
    let faces: Vec<_> = std::iter::once(&out.contacts[primary as usize])
        .chain(out.members_of(&others))
        .collect();
    for c in &faces {
        assert!(
            (c.psi - gap * cos_a).abs() < TOL,
            "ψ = {} vs {}",
            c.psi,
            gap * cos_a
        );
        assert!(c.normal.z > 0.0 && c.normal.x.abs() < TOL);
    }
    // Symmetric: equal applicability, the primary is the first face (f₁).
    assert!((faces[0].applicability - faces[1].applicability).abs() < TOL);
    for con in &out.constraints[1..] {
        let Constraint::Cross { a: edges, b: face } = con else {
            panic!("{con:?}")
        };
        assert_eq!(edges.len(), 1);
        let f = out.members_of(face).next().expect("face contact");
        for e in out.members_of(edges) {
            let Feature::Edge(id) = e.feature_a else {
                panic!("{e:?}")
            };
            // The edge leaves the apex (vertex at the origin of A's frame) toward the
            // side of the ridge of the face it is paired with: O_e = t₁ − t₂ points
            // across the ridge toward f₁, and the face's outward normal leans to its
            // own side, so the y-signs agree.
            let ed = a.edges[id as usize];
            let (v0, v1) = (a.vertices[ed.v[0]], a.vertices[ed.v[1]]);
            let dir = if v0.norm() < v1.norm() {
                v1 - v0
            } else {
                v0 - v1
            };
            assert!(
                dir.y * f.normal.y > 0.0,
                "edge {dir:?} paired with face normal {:?}",
                f.normal
            );
        }
    }
}

#[test]
fn apex_on_apex_is_two_intercontacts_and_one_cross_over_the_candidates() {
    // Vertex–vertex (eqs. (37)–(38)).
    let gap = 1e-3;
    let a = pyramid(0.5, 1.0, true);
    let b = pyramid(0.5, 1.0, false);
    let out = run(&a, &at(0.0, 0.0, gap), &b, &Pose::identity(), 1e-2);
    check_consistent(&out);
    let (u, i, x) = count(&out);
    assert_eq!((u, i), (0, 2), "{:#?}", out.constraints);
    // Four faces at each apex: each I has a primary and three others.
    for c in &out.constraints {
        if let Constraint::Intercontact { others, .. } = c {
            assert_eq!(others.len(), 3);
        }
    }
    // One X over all separating candidates: the 8 vertex–face contacts and the
    // applicable edge pairs.
    assert_eq!(x, 1);
}

#[test]
fn crossed_ridges_are_one_edge_edge_contact() {
    // Edge–edge (eq. (35)): A's ridge along x pointing down, 1 mm above B's ridge
    // along y pointing up.
    let gap = 1e-3;
    let a = wedge(0.5, 1.0, 2.0, true, false);
    let b = wedge(0.5, 1.0, 2.0, false, true);
    let out = run(&a, &at(0.0, 0.0, gap), &b, &Pose::identity(), 1e-2);
    check_consistent(&out);
    assert_eq!(count(&out), (1, 0, 0), "{:#?}", out.constraints);
    let c = &out.contacts[0];
    assert!(matches!(
        (c.feature_a, c.feature_b),
        (Feature::Edge(_), Feature::Edge(_))
    ));
    assert!((c.psi - gap).abs() < TOL && (c.normal - Vec3::z()).norm() < TOL);
    assert!(
        (c.p_b - Vec3::zeros()).norm() < TOL && (c.p_a - Vec3::new(0.0, 0.0, gap)).norm() < TOL
    );
    // Crossed through by 1 mm: the same contact with ψ = −1 mm.
    let out = run(&a, &at(0.0, 0.0, -gap), &b, &Pose::identity(), 1e-2);
    let c = out
        .contacts
        .iter()
        .find(|c| matches!(c.feature_a, Feature::Edge(_)))
        .expect("edge–edge");
    assert!((c.psi + gap).abs() < TOL && (c.normal - Vec3::z()).norm() < TOL);
}

#[test]
fn bodies_farther_than_epsilon_have_no_potential_contacts() {
    let a = cuboid(0.5, 0.5, 0.5);
    let b = cuboid(2.0, 2.0, 2.0);
    let out = run(&a, &at(0.0, 0.0, 2.5 + 0.011), &b, &Pose::identity(), 1e-2);
    assert!(out.contacts.is_empty() && out.constraints.is_empty());
}

#[test]
fn tilted_cube_touches_with_its_lowest_corner_only() {
    // A cube tilted 45° about x and y hangs a corner 1 mm over a face: one vertex–face
    // contact; the cube's other corners are farther than ε.
    let a = cuboid(0.5, 0.5, 0.5);
    let q =
        Quat::from_axis_angle(&Vec3::x_axis(), 0.3) * Quat::from_axis_angle(&Vec3::y_axis(), 0.4);
    let lowest = (0..8)
        .map(|i| {
            let v = a.vertices[i];
            (q * v).z
        })
        .fold(f64::INFINITY, f64::min);
    let b = cuboid(2.0, 2.0, 0.5);
    let xa = Pose::from_parts(Vec3::new(0.0, 0.0, 0.5 - lowest + 1e-3).into(), q);
    let out = run(&a, &xa, &b, &Pose::identity(), 1e-2);
    assert_eq!(count(&out), (1, 0, 0), "{:#?}", out.constraints);
    assert!((out.contacts[0].psi - 1e-3).abs() < TOL);
    assert!(out.contacts[0].applicability >= 0.0);
}

#[test]
fn warmed_up_feature_search_does_not_allocate() {
    let scenes = [
        (
            pyramid(0.5, 1.0, true),
            at(0.0, 0.0, 1e-3),
            pyramid(0.5, 1.0, false),
        ),
        (
            pyramid(0.5, 1.0, true),
            at(0.05, 0.0, 1e-3),
            wedge(0.5, 1.0, 2.0, true, true),
        ),
        (
            wedge(0.5, 1.0, 2.0, true, false),
            at(0.0, 0.0, 1e-3),
            wedge(0.5, 1.0, 2.0, false, true),
        ),
        (
            cuboid(0.5, 0.5, 0.5),
            at(0.3, -0.2, 2.501),
            cuboid(2.0, 2.0, 2.0),
        ),
    ];
    let params = FeatureParams::with_distance(1e-2);
    let mut s = FeatureScratch::default();
    let mut out = PotentialContacts::default();
    let mut total = 0;
    for (a, xa, b) in &scenes {
        potential_contacts(a, xa, b, &Pose::identity(), &params, &mut s, &mut out);
    }
    alloc_counter::start();
    for _ in 0..100 {
        for (a, xa, b) in &scenes {
            potential_contacts(a, xa, b, &Pose::identity(), &params, &mut s, &mut out);
            total += out.constraints.len();
        }
    }
    let n = alloc_counter::stop();
    assert!(total > 0);
    assert_eq!(n, 0, "allocations in 400 warmed-up calls");
}

/// Applicability unrelaxed (ε_θ = 0): the feature tests of the configuration the
/// bodies are in, with no allowance for the rotation of a step.
fn exact() -> FeatureParams {
    FeatureParams {
        eps_theta: 0.0,
        ..FeatureParams::with_distance(1e-2)
    }
}

/// Near a feature pair, the PEG constraints hold iff the bodies do not overlap:
/// random relative translations (±`t` m) and rotations (±`r` rad about a random
/// axis) of A about `x0`; returns (free, overlapping, disagreements).
fn agreement(
    a: &ConvexPolytope,
    x0: &Pose,
    b: &ConvexPolytope,
    t: f64,
    r: f64,
    seed: u64,
    params: &FeatureParams,
) -> (usize, usize, Vec<String>) {
    use rtphys::collision::overlap::{intersection_volume, OverlapScratch};
    let mut rng = SplitMix64::new(seed);
    let mut os = OverlapScratch::default();
    let (mut free, mut over, mut bad) = (0, 0, Vec::new());
    for _ in 0..5000 {
        let axis = nalgebra::Unit::new_normalize(Vec3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        ));
        let q = Quat::from_axis_angle(&axis, rng.uniform(-r, r));
        let d = Vec3::new(rng.uniform(-t, t), rng.uniform(-t, t), rng.uniform(-t, t));
        // Rotate A about its apex/ridge point (the frame origin), then translate.
        let xa = Pose::from_parts((x0.translation.vector + d).into(), q * x0.rotation);
        let mut out = PotentialContacts::default();
        let mut fs = FeatureScratch::default();
        potential_contacts(a, &xa, b, &Pose::identity(), params, &mut fs, &mut out);
        let m = out.margin();
        let v = intersection_volume(a, &xa, b, &Pose::identity(), &mut os);
        if m.abs() < 1e-9 || (v > 0.0 && v < 1e-15) {
            continue;
        }
        if (m < 0.0) != (v > 0.0) {
            let worst: Vec<String> = out.constraints.iter().map(|c| format!("{c:?}")).collect();
            let cs: Vec<String> = out
                .contacts
                .iter()
                .map(|c| {
                    format!(
                        "{:?}-{:?} psi {:.2e} n {:.3?} appl {:.3}",
                        c.feature_a,
                        c.feature_b,
                        c.psi,
                        c.normal.as_slice(),
                        c.applicability
                    )
                })
                .collect();
            bad.push(format!(
                "d = {d:?}, q = {q:?}: margin {m:e}, overlap {v:e}\n{}\n{}",
                worst.join("\n"),
                cs.join("\n")
            ));
        }
        if v > 0.0 {
            over += 1;
        } else {
            free += 1;
        }
    }
    (free, over, bad)
}

/// [`agreement`] with unrelaxed applicability must find no disagreement, with at
/// least 500 free and 500 overlapping samples (so both sides are exercised).
fn assert_exact(a: &ConvexPolytope, x0: &Pose, b: &ConvexPolytope, seed: u64) {
    let (free, over, bad) = agreement(a, x0, b, 3e-3, 0.2, seed, &exact());
    assert!(
        bad.is_empty(),
        "{} of {} disagree, e.g. {}",
        bad.len(),
        free + over,
        bad[0]
    );
    assert!(free > 500 && over > 500, "free {free}, overlapping {over}");
}

#[test]
fn vertex_edge_constraints_hold_exactly_when_apex_and_ridge_do_not_overlap() {
    let b = wedge(0.5, 1.0, 2.0, true, true);
    assert_exact(&pyramid(0.5, 1.0, true), &at(0.05, 0.0, 0.0), &b, 31);
}

#[test]
fn vertex_vertex_constraints_hold_exactly_when_apexes_do_not_overlap() {
    let b = pyramid(0.5, 1.0, false);
    assert_exact(&pyramid(0.5, 1.0, true), &at(0.0, 0.0, -1e-3), &b, 37);
}

#[test]
fn relaxed_applicability_never_reports_overlap_where_there_is_none() {
    // With the default ε_θ = sin 5° more candidates are admitted (anticipating a
    // step's rotation), which can only weaken the I and X sets: a configuration the
    // constraints reject must still overlap.
    let relaxed = FeatureParams::with_distance(1e-2);
    for (a, b, x0, seed) in [
        (
            pyramid(0.5, 1.0, true),
            wedge(0.5, 1.0, 2.0, true, true),
            at(0.05, 0.0, 0.0),
            41,
        ),
        (
            pyramid(0.5, 1.0, true),
            pyramid(0.5, 1.0, false),
            at(0.0, 0.0, 0.0),
            43,
        ),
    ] {
        let (_, _, bad) = agreement(&a, &x0, &b, 3e-3, 0.2, seed, &relaxed);
        let false_contact: Vec<_> = bad.iter().filter(|s| s.contains("overlap 0e0")).collect();
        assert!(false_contact.is_empty(), "{}", false_contact[0]);
    }
}

/// Lead (a) of the pour (issue 12): a vertex–vertex configuration whose two
/// vertex cones share a direction (two apex-down pyramids, apex near apex, A
/// turned off-axis by up to ±1.2 rad) has no applicable separating candidate;
/// its X constraint used to be empty and the pair got no row from it. Now the X
/// is never empty: it holds the least inapplicable candidates (module doc of
/// `features.rs`, "No configuration without a row"). Not exact, so not asserted
/// here: how many overlapping poses it lets through is printed. 5,000 poses,
/// apex offsets ±5 mm, ε = 1e-2 m, the relaxed ε_θ = sin 5° of a step.
#[test]
fn vertex_vertex_with_a_shared_direction_is_never_without_a_constraint() {
    let a = pyramid(0.5, 1.0, true);
    let b = pyramid(0.5, 1.0, true);
    let params = FeatureParams::with_distance(1e-2);
    let mut rng = SplitMix64::new(53);
    let mut os = rtphys::collision::overlap::OverlapScratch::default();
    let (mut fallback, mut over, mut missed) = (0, 0, 0);
    for _ in 0..5000 {
        let axis = nalgebra::Unit::new_normalize(Vec3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        ));
        let q = Quat::from_axis_angle(&axis, rng.uniform(-1.2, 1.2));
        let t = 5e-3;
        let d = Vec3::new(rng.uniform(-t, t), rng.uniform(-t, t), rng.uniform(-t, t));
        let xa = Pose::from_parts(d.into(), q);
        let mut out = PotentialContacts::default();
        let mut fs = FeatureScratch::default();
        potential_contacts(&a, &xa, &b, &Pose::identity(), &params, &mut fs, &mut out);
        let v = rtphys::collision::overlap::intersection_volume(
            &a,
            &xa,
            &b,
            &Pose::identity(),
            &mut os,
        );
        for c in &out.constraints {
            let Constraint::Cross { a: ca, b: cb } = c else {
                continue;
            };
            let members: Vec<_> = out.members_of(ca).chain(out.members_of(cb)).collect();
            assert!(!members.is_empty(), "empty X at d = {d:?}, q = {q:?}");
            if members.iter().any(|m| m.applicability >= -params.eps_theta) {
                continue;
            }
            fallback += 1;
            let best = members
                .iter()
                .map(|m| m.psi)
                .fold(f64::NEG_INFINITY, f64::max);
            if v > 0.0 {
                over += 1;
                missed += usize::from(best >= 0.0);
            }
        }
    }
    println!(
        "{fallback} X with no applicable candidate, {over} overlapping, {missed} of those holding"
    );
    assert!(fallback > 100, "the case is exercised: {fallback}");
}

/// [`run`] with `[lcp] peg_vv_one_sided` (`FeatureParams::one_sided_vertex_vertex`),
/// B at the origin.
fn run_one_sided(a: &ConvexPolytope, xa: &Pose, b: &ConvexPolytope, eps: f64) -> PotentialContacts {
    let params = FeatureParams {
        one_sided_vertex_vertex: true,
        ..FeatureParams::with_distance(eps)
    };
    let mut out = PotentialContacts::default();
    let mut fs = FeatureScratch::default();
    potential_contacts(a, xa, b, &Pose::identity(), &params, &mut fs, &mut out);
    out
}

/// Every PEG constraint is a necessary condition of non-overlap, so at a pose where
/// the bodies are apart every one must hold (margin ≥ 0), whatever the reach ε.
/// The tunnelling wall of `contact_torture_ccd` (a 1 m cube 0.1 mm in front of a
/// wall 2 cm thick, 10 m × 10 m): with ε = h|v| = 9.74 m the wall's far back
/// corner, 6.4 m from the cube's front corner, has that corner as its nearest
/// feature. Before peg24 the pair was a vertex–vertex configuration with both I
/// sets, one holding the cube's corner against the faces at the wall's far corner
/// (a set without the front face it lies in front of): margin −0.02 m (the wall's
/// thickness) at the rewound pose, and the Lemke solve failed. Now the I set is
/// built only for the vertex at the other, and the X only when both are
/// (`features.rs`, "Vertex–vertex is one-sided"). Checked over the cube's
/// offsets along the face up to its corners beyond the wall's (±4.6 m: near the
/// wall's own corners, where the pairs are mutual) at ε = 5 cm and 1 m, and at
/// the rewound pose with ε = 9.74 m. (At ε = 9.74 m with the cube 4.4 m off
/// centre the margin is −1.1 m, from two vertex–edge X of eq. (36) — found by
/// this test, not fixed: `far_vertex_edge_at_a_large_reach`, ignored.)
/// the bound is exact (0: ψ of a contact that holds is ≥ the 1e-4 m gap, or an
/// inequality of the other vertex, far positive).
#[test]
fn separate_bodies_satisfy_every_constraint_at_any_reach() {
    let cube = cuboid(0.5, 0.5, 0.5);
    let wall = cuboid(0.01, 5.0, 5.0);
    let gap = 1e-4;
    let mut checked = 0;
    let offsets = |eps: f64| -> Vec<(f64, f64)> {
        if eps > 1.0 {
            // The wall's rewound pose only: elsewhere at this reach two vertex–edge
            // X break it (`far_vertex_edge_at_a_large_reach`).
            return vec![(0.0, 0.0)];
        }
        let v = [0.0, 2.5, 4.4, 4.6, -4.6];
        v.iter()
            .flat_map(|&y| [0.0, 4.4, 4.6, -4.6].map(|z| (y, z)))
            .collect()
    };
    for eps in [0.05, 1.0, 9.74] {
        for (y, z) in offsets(eps) {
            {
                let xa = at(-0.01 - 0.5 - gap, y, z);
                let out = run_one_sided(&cube, &xa, &wall, eps);
                check_consistent(&out);
                let m = out.margin();
                assert!(
                    m >= 0.0,
                    "ε {eps}, offset ({y}, {z}): margin {m:e} with the bodies {gap} m apart; {:?}",
                    out.constraints
                );
                // The cube's front face is held where it is over the wall's face: a
                // row over each of its four front corners (vertex–face U, or the
                // I of vertex–edge when a wall edge is within ε).
                if y.abs() <= 4.4 && z.abs() <= 4.4 {
                    let (u, i, _) = count(&out);
                    assert!(u + i >= 4, "ε {eps}, ({y}, {z}): {:?}", count(&out));
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 41);
    // The printed rule (both I sets, the default) at the wall's pose: the cube's
    // corner held to the faces at the wall's far corner, 0.02 m (the wall's
    // thickness) behind its back face — the test above can fail.
    let xa = at(-0.01 - 0.5 - gap, 0.0, 0.0);
    let m = run(&cube, &xa, &wall, &Pose::identity(), 9.74).margin();
    assert!((m + 0.02 + gap).abs() < 1e-9, "printed rule: margin {m:e}");
}

/// Found by peg24, not fixed: at the wall's reach ε = 9.74 m with the cube 4.4 m
/// off centre (a 0.1 mm gap), the constraints' margin is −1.1 m with the
/// one-sided vertex–vertex rule. The violated constraints are two vertex–edge X
/// of eq. (36) (cube vertices 0 and 2 against the wall's edge 4): X({C(e_i, e)},
/// {C₁}) with the line–line contact of a cube edge and the wall's edge at
/// ψ = −1.1 m and C(v, f₃) negative too — the edges' *lines* (`edge_edge_any`)
/// at a reach of 9.74 m. Passes at ε = 1 m. Not the vertex–vertex rule; printed
/// by the assertion.
#[test]
#[ignore = "found, not fixed (peg24): two vertex–edge X (eq. (36)) at ε = 9.74 m, margin −1.1 m at 0.1 mm apart"]
fn far_vertex_edge_at_a_large_reach() {
    let cube = cuboid(0.5, 0.5, 0.5);
    let wall = cuboid(0.01, 5.0, 5.0);
    let xa = at(-0.01 - 0.5 - 1e-4, 0.0, 4.4);
    let out = run_one_sided(&cube, &xa, &wall, 9.74);
    let m = out.margin();
    let violated: Vec<String> = out
        .constraints
        .iter()
        .filter_map(|c| {
            let m =
                |r: &std::ops::Range<u32>| out.members[r.start as usize..r.end as usize].to_vec();
            let r = match c {
                Constraint::Intercontact { primary, others } => {
                    let mut v = vec![*primary];
                    v.extend(m(others));
                    v
                }
                Constraint::Unilateral { contact } => vec![*contact],
                Constraint::Cross { a, b } => {
                    let mut v = m(a);
                    v.extend(m(b));
                    v
                }
            };
            let best = r
                .iter()
                .map(|&i| out.contacts[i as usize].psi)
                .fold(f64::MIN, f64::max);
            (best < 0.0).then(|| {
                let f: Vec<_> = r
                    .iter()
                    .map(|&i| {
                        (
                            out.contacts[i as usize].feature_a,
                            out.contacts[i as usize].feature_b,
                        )
                    })
                    .collect();
                format!("{f:?} best ψ {best:.3e}")
            })
        })
        .collect();
    assert!(m >= 0.0, "margin {m:e}; violated: {violated:?}");
}

/// peg28 (`[lcp] peg_vv_feasible`, 003 Sec. 4 feasibility): a plate's corner w at
/// (−0.1, −0.1, −0.0025) is at a cube's corner v = w + (1, 1, 1) cm (1.7 cm apart,
/// within r(v) = ε = 2 cm), while v is not at w (r(w) = 2.5 mm, the plate's half
/// thickness) and lies 1 cm behind all three of w's face planes — in the plate's
/// interior cone at w, outside VR(w), 5 mm above the plate. Without the key v
/// gets eq. (37)'s completed I set against w's faces, every member ψ = −1 cm (a
/// set no µm motion satisfies); with it no I set is behind all its planes, and
/// the pair's constraints hold (margin ≥ 0) as the bodies are apart.
#[test]
fn a_far_vertex_behind_every_face_gets_no_set_of_the_other_vertex() {
    let plate = cuboid(0.1, 0.1, 0.0025);
    let cube = cuboid(0.02, 0.02, 0.02);
    let xa = Pose::translation(-0.09 + 0.02, -0.09 + 0.02, 0.0075 + 0.02);
    let sets_behind = |out: &PotentialContacts| {
        out.constraints
            .iter()
            .filter(|c| match c {
                Constraint::Intercontact { primary, others } => {
                    out.members_of(others)
                        .map(|m| m.psi)
                        .fold(out.contacts[*primary as usize].psi, f64::max)
                        < 0.0
                }
                _ => false,
            })
            .count()
    };
    let old = run(&cube, &xa, &plate, &Pose::identity(), 2e-2);
    assert!(
        sets_behind(&old) >= 1,
        "the default's completed far set: {old:?}"
    );
    let params = FeatureParams {
        feasible_completion: true,
        ..FeatureParams::with_distance(2e-2)
    };
    let mut out = PotentialContacts::default();
    let mut fs = FeatureScratch::default();
    potential_contacts(
        &cube,
        &xa,
        &plate,
        &Pose::identity(),
        &params,
        &mut fs,
        &mut out,
    );
    assert_eq!(sets_behind(&out), 0, "{out:?}");
    assert!(out.margin() >= 0.0, "{out:?}");
}
