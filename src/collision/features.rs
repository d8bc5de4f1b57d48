//! Feature-level potential contacts between two convex polytopes: the geometry the
//! PEG contact model (`003_668e561ceb3412ed`, Secs. 4–5) builds its constraints from.
//!
//! The standard model turns each contact into one hyperplane constraint ψ ≥ 0. PEG
//! instead looks at *which features* of the two polytopes are near each other,
//! before they touch, and emits the fundamental constraints of Sec. 3 over contacts
//! between those features:
//!
//! | configuration | constraints | 003 |
//! |---|---|---|
//! | vertex–face | U(C(v, f)) | eq. (34) |
//! | edge–edge (nearest points farther than ε from the edges' vertices) | U(C(e_a, e_b)) | eq. (35) |
//! | vertex–edge | I(Cι, Cκ) over the vertex against the edge's two faces; X({C(e_i, e)}, {C₁}) for each edge e_i of the vertex on f₁'s side, X({C(e_j, e)}, {C₂}) for each on f₂'s | eq. (36) |
//! | vertex–vertex | I over v_a against the faces of v_b, I over v_b against the faces of v_a (eq. (37)); one X over all separating candidates (below). One-sided (opt-in, below): each I set only for a vertex at the other, the X only when both are | eqs. (37)–(38) |
//!
//! Against a plane (a half-space: `plane_potential_contacts`, peg25) the only
//! configuration is vertex–face: a U per vertex within ε or below it.
//!
//! Edge–face and face–face configurations are not separate cases: they are covered
//! by their vertices and edges (Sec. 5.2). Every I constraint gets a single primary
//! contact (|Cι| = 1, the pure-LCP form of eq. (24)): **the contact of largest
//! applicability, ties to the lowest face id** (Sec. 4's heuristic; deterministic).
//!
//! # Vertex–vertex: one cross-contact constraint over the separating candidates
//! Near two vertices the bodies are two convex cones, and two convex cones are
//! disjoint exactly when one of the separating-axis candidates separates them: a
//! face plane of either cone with the other apex outside it and the other cone's
//! edges turned away (vertex–face applicability ≥ 0), or the plane through an edge
//! of each with both cones' adjacent faces turned away (edge–edge applicability
//! ≥ 0). So the X constraint is X(C_faces, C_edges) over all applicable vertex–face
//! contacts of both I sets and all applicable edge pairs at the two vertices: at
//! least one must have ψ ≥ 0. Eq. (38) as printed pairs faces and edges per face
//! pair; built that way, 4,145 of 4,998 random non-overlapping apex-on-apex poses
//! were rejected (a separating edge pair belongs to only some face pairs), while
//! the single X agrees with the exact overlap volume on every sample
//! (`tests/peg_features.rs`, `vertex_vertex_constraints_hold_exactly…`).
//!
//! # No configuration without a row
//! When no candidate is applicable, the two vertex cones share an interior
//! direction d, and as cones they meet wherever their apexes are (v_b + t d lies
//! in v_a's cone for t large): the local model has no non-overlapping state, and
//! with the apexes within ε of each other the bodies overlap (or are about to)
//! a few ε along d. The X built from the applicable candidates alone was then
//! empty and, in the pour (`docs/EXPERIMENTS.md`, "3D pour"), left two bodies that
//! had begun to overlap with no row to push them apart; the overlap grew for four
//! steps. So the X then takes the candidates within ε_θ of the best
//! applicability (eqs. (28)–(31) relaxed by the shortfall): the least
//! inapplicable planes at the two vertices, one of which must open. This is not
//! exact: an inapplicable plane can hold (ψ ≥ 0) while the bodies overlap
//! (`tests/peg_features.rs`, `vertex_vertex_with_a_shared_direction…`, prints
//! how often). Taking each candidate instead as the separation of the whole
//! bodies along its normal (support points; exact: ψ ≥ 0 then means the plane
//! separates) was tried and rejected: the pour's hulls have nearly flat
//! vertices whose cones share directions while the bodies are apart, and those
//! rows pushed resting neighbours apart (h = 1e-2: overlap 1.0e-3 L³, 9 Lemke
//! failures, 0.3 s per step).
//!
//! Likewise eq. (36)'s X constraints are one per edge ("each C_ei"): grouping an
//! edge side into one X missed 22 of 4,996 overlapping vertex–edge poses.
//!
//! # Classification: which configuration a vertex is in
//! ε is the reach of a step (a feature pair farther apart cannot meet within
//! it); which configuration a vertex of one body is in is decided by the other
//! body's feature it is *at*, as the Voronoi regions of Sec. 4 decide it, with
//! the relaxation confined to a small radius around each vertex: a vertex is at
//! vertex w when within r(w) = min(ε, half the shortest edge at w) of it (the
//! nearest such w), or when its nearest point on the other body lies within ε of
//! it and within r(w) of w (w itself, or a point of an edge of w); else near an
//! edge whose nearest point is within ε and farther than r from both its
//! vertices (vertex–edge); else at its nearest face within ε (vertex–face). Edge
//! pairs are edge–edge when their nearest points are farther than r from every
//! endpoint. So every vertex is in at most one configuration against the other
//! body, whatever ε: O(V_a + V_b) configurations. (With ε as both reach and
//! radius, a large step — ε = 0.2 m for a body falling at 3.4 m/s at h = 5e-2 —
//! put every vertex pair of two 0.2 m hulls in a vertex–vertex configuration
//! with the wrong faces: a 2,045-variable LCP for two bodies, 7 s per Lemke
//! attempt.)
//!
//! # Vertex–vertex is one-sided: each I set belongs to the vertex that is at the other
//! (Opt-in: [`FeatureParams::one_sided_vertex_vertex`], `[lcp] peg_vv_one_sided`;
//! off, every pair gets both I sets and the X, as eqs. (37)–(38) are printed.)
//! "At" is not symmetric: through the nearest-feature relaxation, v_b can be at
//! v_a (v_a is v_b's nearest feature of A, within ε) while v_a is at a face or
//! an edge of B. Each half of eq. (37) is a statement about one vertex: "v_a
//! outside at least one face of v_b" follows from the bodies being apart only
//! when v_a lies in v_b's Voronoi region (then v_a − v_b is a non-negative
//! combination Σ αᵢ η̂ᵢ of v_b's face normals, and 0 < ‖v_a − v_b‖² =
//! Σ αᵢ η̂ᵢ·(v_a − v_b) puts v_a outside some face of v_b). So the I set of v_a
//! against v_b's faces is built when v_a is at v_b, and that of v_b against
//! v_a's faces when v_b is at v_a; a vertex that is not at the other keeps its
//! own configuration (vertex–edge, vertex–face, or none). The X of eq. (38) is a
//! statement about the two vertex cones together: they are the bodies near the
//! closest points only when each vertex is at the other (the closest-feature
//! pair of Sec. 4's Voronoi regions), so it is built only then. (Both I sets and
//! the X for every pair, as before, failed the tunnelling wall of
//! `tests/contact_torture_ccd.rs`: the wall's far back corner, 6.4 m from the
//! cube's front corner with ε = h|v| = 9.74 m, has that corner as its nearest
//! feature, and the cube's corner against the three faces at the wall's far
//! corner — a set without the front face it lies on — asked it through the
//! back face; ψ = −0.02 m at the start, an inconsistent LCP. With the I sets
//! one-sided but the X still built for every pair, the X over two far vertices'
//! cones — which overlap while the bodies are 5–9 cm apart — was violated at
//! the start of steps of a clean 3D pour, and one of its solves failed:
//! docs/EXPERIMENTS.md, peg24. The rule stops the wall; over the pours' large
//! steps it is better in as many cells as it is worse — a changed trajectory,
//! the worse cells' overlaps attributed to vertices without an applicable row
//! under fast rotation and to Lemke failures — so it is not the default.)
//!
//! # Conventions
//! Body A is `a`, body B is `b`. Every [`PotentialContact`] follows the engine's
//! manifold convention ([`crate::collision`]): `normal` is a world unit vector
//! pointing *toward A* (the direction A must move to separate; 003's n̂ points from
//! A onto B, i.e. n̂ = −`normal`), `psi` is the signed gap (> 0 separated, < 0
//! overlapping), `p_a` and `p_b` are the contact points on A and on B with
//! `p_a = p_b + ψ · normal`. For a vertex against a face the gap is the vertex's
//! height over the face's plane (the facet as a hyperplane: PEG's I and X
//! constraints are what make the facets finite); for two edges it is the distance
//! between their lines along their common normal.
//!
//! # Tests (Sec. 4), relaxed for a time step
//! - **Applicability** (eqs. (28)–(31)) as a value, accepted when ≥ −ε_θ with
//!   ε_θ = sin θ ([`FeatureParams::eps_theta`]), θ the rotation a step allows:
//!   vertex v against face f (outward normal η̂): `min_k η̂·(v_k − v)/‖v_k − v‖` over
//!   v's neighbours v_k (eq. (30)); edge against edge: with the in-face vectors
//!   t₁ = η̂₁ × ê, t₂ = ê × η̂₂ of eq. (26) (f₁ = the face whose counter-clockwise loop
//!   runs along e, so t₁, t₂ point from the edge into f₁, f₂), and n the common
//!   normal toward A: `min(n·t_a1, n·t_a2, −n·t_b1, −n·t_b2)`, the sign of n taken to
//!   maximize it (eq. (31): A's faces at its edge turn away from B, B's away from A).
//! - **Feasibility**: a vertex against a face is feasible inside the face's Voronoi
//!   region with ψ ≥ −δ, or outside it within the cone of half-angle ϕ whose apex is
//!   ε below the nearest point of the face (Fig. 15); two edges are feasible when
//!   their nearest points are within ε.
//! - **Edge orientation** (eq. (27)): O_e = (η̂₁ + η̂₂) × e = t₁ − t₂ (unnormalized
//!   ê): an edge e_i at the vertex with e_i·O_e > 0 points to f₁'s side, and is
//!   paired with C₁ = C(v, f₁) in the vertex–edge X constraints (if v passes the
//!   edge on f₂'s side, violating C₁, the edges that reach back over f₁ must stay
//!   clear of e).
//!
//! # Cost
//! O(V_a·F_b + V_b·F_a + E_a·E_b + V_a·V_b) per pair (small hulls: a box pair is
//! < 400 feature tests). A warmed-up call does not allocate: every buffer lives in
//! [`FeatureScratch`] and [`PotentialContacts`], which keep their capacity.

use super::hull::closest_on_segment;
use super::pairs::segment_segment;
use super::ConvexPolytope;
use crate::math::{Pose, Vec3};
use std::ops::Range;

/// A feature of a convex polytope (ids into its vertices, edges, faces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    Vertex(u32),
    Edge(u32),
    Face(u32),
}

/// One potential contact between a feature of A and a feature of B.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PotentialContact {
    pub feature_a: Feature,
    pub feature_b: Feature,
    /// Contact point on A, world, m.
    pub p_a: Vec3,
    /// Contact point on B, world, m (`p_a = p_b + psi · normal`).
    pub p_b: Vec3,
    /// World unit vector toward A.
    pub normal: Vec3,
    /// Signed gap ψ, m.
    pub psi: f64,
    /// Applicability value of the feature pair (eqs. (30), (31)).
    pub applicability: f64,
}

/// One fundamental constraint of Sec. 3 over contacts of [`PotentialContacts`];
/// ranges index [`PotentialContacts::members`], whose entries index `contacts`.
#[derive(Clone, Debug, PartialEq)]
pub enum Constraint {
    /// U(C): 0 ≤ ψ ⊥ λ ≥ 0, eqs. (17)–(18).
    Unilateral { contact: u32 },
    /// I(Cι, Cκ) with one primary contact: at least one of the contacts has ψ ≥ 0,
    /// only the primary carries force, and only while the others are ≤ 0
    /// (eqs. (19)–(20), (24)).
    Intercontact { primary: u32, others: Range<u32> },
    /// X(C_a, C_b): at least one contact of either set has ψ ≥ 0; no force
    /// (eq. (25)).
    Cross { a: Range<u32>, b: Range<u32> },
}

/// A pair's potential contacts `C` (3D [`PotentialContact`], planar
/// `polygon::PotentialContact2`) and the constraints over them, whose member
/// ranges index `members`.
#[derive(Clone, Debug)]
pub struct ContactSets<C> {
    pub contacts: Vec<C>,
    pub constraints: Vec<Constraint>,
    pub members: Vec<u32>,
}

impl<C> Default for ContactSets<C> {
    fn default() -> Self {
        ContactSets {
            contacts: Vec::new(),
            constraints: Vec::new(),
            members: Vec::new(),
        }
    }
}

/// The output of [`potential_contacts`] for one pair.
pub type PotentialContacts = ContactSets<PotentialContact>;

/// A potential contact's signed gap ψ, m.
pub trait Gap {
    fn psi(&self) -> f64;
}

impl Gap for PotentialContact {
    fn psi(&self) -> f64 {
        self.psi
    }
}

impl<C: Gap> ContactSets<C> {
    pub fn clear(&mut self) {
        self.contacts.clear();
        self.constraints.clear();
        self.members.clear();
    }

    /// The contacts a member range names.
    pub fn members_of(&self, r: &Range<u32>) -> impl Iterator<Item = &C> + '_ {
        self.members[r.start as usize..r.end as usize]
            .iter()
            .map(|&i| &self.contacts[i as usize])
    }

    /// See [`constraint_margin`].
    pub fn margin(&self) -> f64 {
        constraint_margin(&self.constraints, &self.members, |i| {
            self.contacts[i as usize].psi()
        })
    }

    pub(super) fn push_contact(&mut self, c: C) -> u32 {
        self.contacts.push(c);
        (self.contacts.len() - 1) as u32
    }

    pub(super) fn push_members(&mut self, ids: &[u32]) -> Range<u32> {
        let start = self.members.len() as u32;
        self.members.extend_from_slice(ids);
        start..self.members.len() as u32
    }
}

/// How far a constraint set is from holding: the smallest, over the constraints,
/// of the largest gap each needs non-negative (U: its ψ; I: the largest ψ of its
/// contacts, eq. (20)–(21); X: the largest of both sets, eq. (25)). ≥ 0 exactly
/// when every constraint holds; `psi(i)` is contact i's gap.
pub fn constraint_margin(
    constraints: &[Constraint],
    members: &[u32],
    psi: impl Fn(u32) -> f64,
) -> f64 {
    let best = |r: &Range<u32>| {
        members[r.start as usize..r.end as usize]
            .iter()
            .map(|&i| psi(i))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    constraints
        .iter()
        .map(|c| match c {
            Constraint::Unilateral { contact } => psi(*contact),
            Constraint::Intercontact { primary, others } => psi(*primary).max(best(others)),
            Constraint::Cross { a, b } => best(a).max(best(b)),
        })
        .fold(f64::INFINITY, f64::min)
}

/// The relaxation parameters of Sec. 4.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FeatureParams {
    /// ε: feature pairs closer than this are potential contacts, m (one step of
    /// relative motion plus a floor).
    pub distance: f64,
    /// ε_θ = sin θ, the applicability relaxation (eqs. (29)–(31)).
    pub eps_theta: f64,
    /// δ: how far behind a face (ψ < 0) a vertex still counts as in front of it, m.
    pub delta: f64,
    /// ϕ: half-angle of the feasibility cone outside a face's Voronoi region, rad.
    pub phi: f64,
    /// Vertex–vertex one-sided (module doc, "Vertex–vertex is one-sided"): the I
    /// set of a vertex only when it is at the other, the X only when both are.
    /// Off: both I sets and the X for every pair (`[lcp] peg_vv_one_sided`).
    pub one_sided_vertex_vertex: bool,
    /// Without `one_sided_vertex_vertex`: the completed I set of a vertex–vertex
    /// pair only for a feasible vertex (`polygon`, "Feasibility of the completed
    /// set"; in 3D in front of a face of the other vertex; `[lcp] peg_vv_feasible`).
    pub feasible_completion: bool,
    /// In the plane, a vertex–vertex pair with both I sets takes their
    /// primaries paired, C₁ with C₃ or C₂ with C₄, so that each X keeps a
    /// member without a force (`collision::polygon`, "Paired primaries";
    /// `[lcp] peg_vv_paired_primaries`, peg35; off: each by its own
    /// applicability).
    pub paired_primaries: bool,
    /// An edge pair whose nearest points lie within a vertex radius of an
    /// endpoint keeps its edge–edge U (eq. (35)) when that endpoint has no
    /// potential contact against the other body (no vertex configuration
    /// governs it; `[lcp] peg_edge_edge_uncovered`, peg36; off: such a pair is
    /// always left to the vertex).
    pub edge_edge_uncovered: bool,
}

impl FeatureParams {
    /// ε = `distance`, θ = 5°, δ = ε, ϕ = 45°, both vertex–vertex I sets.
    pub fn with_distance(distance: f64) -> Self {
        FeatureParams {
            distance,
            eps_theta: 5f64.to_radians().sin(),
            delta: distance,
            phi: 45f64.to_radians(),
            one_sided_vertex_vertex: false,
            feasible_completion: false,
            paired_primaries: false,
            edge_edge_uncovered: false,
        }
    }
}

/// A polytope's vertices and face planes `(n, d)` in world coordinates.
#[derive(Clone, Debug, Default)]
struct WorldHull {
    v: Vec<Vec3>,
    p: Vec<(Vec3, f64)>,
}

/// Reusable buffers of [`potential_contacts`].
#[derive(Clone, Debug, Default)]
pub struct FeatureScratch {
    a: WorldHull,
    b: WorldHull,
    /// Vertex pairs (v_a, v_b) handled as vertex–vertex, with which vertex is at
    /// the other ([`AT_A`]: v_a at v_b, [`AT_B`]: v_b at v_a; module doc,
    /// "Vertex–vertex is one-sided").
    vv: Vec<(u32, u32, u8)>,
    lists: Lists,
}

/// Contact-id lists of one group under construction.
#[derive(Clone, Debug, Default)]
struct Lists {
    first: Vec<u32>,
    second: Vec<u32>,
}

/// Which body a feature belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    A,
    B,
}

/// One body of the pair, as seen by the feature tests.
#[derive(Clone, Copy)]
struct Body<'p> {
    poly: &'p ConvexPolytope,
    w: &'p WorldHull,
    side: Side,
}

/// All potential contacts and PEG constraints between convex polytopes `a` (at
/// world pose `xa`) and `b` (at `xb`), appended to `out` (cleared first).
pub fn potential_contacts(
    a: &ConvexPolytope,
    xa: &Pose,
    b: &ConvexPolytope,
    xb: &Pose,
    params: &FeatureParams,
    scratch: &mut FeatureScratch,
    out: &mut PotentialContacts,
) {
    out.clear();
    a.world_into(xa, &mut scratch.a.v, &mut scratch.a.p);
    b.world_into(xb, &mut scratch.b.v, &mut scratch.b.p);
    let FeatureScratch {
        a: wa,
        b: wb,
        vv,
        lists,
    } = scratch;
    let ba = Body {
        poly: a,
        w: wa,
        side: Side::A,
    };
    let bb = Body {
        poly: b,
        w: wb,
        side: Side::B,
    };
    let eps = params.distance;

    // Vertex–vertex first (eqs. (37)–(38)): a vertex at a vertex of the other
    // body is not also tested against faces and edges. Each vertex is classified
    // by the other body's feature it is at (module doc, "Classification"): at
    // most one vertex–vertex configuration per vertex of either body; a pair
    // records which of its vertices is at the other ("Vertex–vertex is
    // one-sided").
    vv.clear();
    for (p, q) in [(ba, bb), (bb, ba)] {
        for (iv, v) in p.w.v.iter().enumerate() {
            let Some(w) = vertex_at(q, v, eps) else {
                continue;
            };
            let (pair, at) = match p.side {
                Side::A => ((iv as u32, w as u32), AT_A),
                Side::B => ((w as u32, iv as u32), AT_B),
            };
            match vv.iter_mut().find(|x| (x.0, x.1) == pair) {
                Some(x) => x.2 |= at,
                None => vv.push((pair.0, pair.1, at)),
            }
        }
    }
    if !params.one_sided_vertex_vertex {
        // Both I sets and the X for every pair (eqs. (37)–(38) as printed);
        // with `feasible_completion` the completed set only for a vertex in
        // front of at least one face of the other vertex (every point of its
        // Voronoi region is: module doc, "Vertex–vertex is one-sided"; peg28).
        let feasible = params.feasible_completion;
        for x in vv.iter_mut() {
            let (i, j) = (x.0 as usize, x.1 as usize);
            if x.2 & AT_A == 0 && (!feasible || vertex_feasible(ba, i, bb, j)) {
                x.2 |= AT_A;
            }
            if x.2 & AT_B == 0 && (!feasible || vertex_feasible(bb, j, ba, i)) {
                x.2 |= AT_B;
            }
        }
    }
    for &(ia, ib, at) in vv.iter() {
        vertex_vertex((ba, ia as usize), (bb, ib as usize), at, params, lists, out);
    }

    // Each remaining vertex (not at a vertex of the other body) against the
    // other body's nearest feature.
    for (p, q) in [(ba, bb), (bb, ba)] {
        for iv in 0..p.w.v.len() {
            let in_vv = vv.iter().any(|&(x, y, at)| match p.side {
                Side::A => x as usize == iv && at & AT_A != 0,
                Side::B => y as usize == iv && at & AT_B != 0,
            });
            if in_vv {
                continue;
            }
            let v = p.w.v[iv];
            // Within ε of an edge (and farther than ε from its vertices, else the
            // vertex–vertex case above): vertex–edge, on whichever face's side.
            if let Some(e) = nearest_edge_within(q, &v, eps) {
                vertex_edge(p, iv, q, e, params, lists, out);
                continue;
            }
            let Some((feature, dist)) = nearest_feature(q, &v) else {
                continue;
            };
            if dist > eps {
                continue;
            }
            if let Feature::Face(f) = feature {
                let c = vertex_face(p, iv, q, f as usize);
                let feasible = face_feasible(q, f as usize, &v, params);
                if c.applicability >= -params.eps_theta && feasible {
                    let id = out.push_contact(c);
                    out.constraints.push(Constraint::Unilateral { contact: id });
                }
            }
        }
    }

    // Edge–edge (eq. (35)): nearest points within ε of each other and farther
    // than ε from every endpoint of both edges (nearer, a vertex configuration
    // governs: its vertex–face, vertex–edge or vertex–vertex constraints already
    // hold the edges that leave the vertex). With `edge_edge_uncovered` (peg36)
    // an endpoint that has no potential contact against the other body governs
    // nothing, and the pair is kept: the 3D pour's largest edge–edge miss
    // (h = 1.36e-2 seed 1) was such a pair, 4.5 mm apart and applicable, its
    // nearest points 7.4 and 8.0 mm from two vertices without contacts.
    let n_vertex = out.contacts.len();
    let covered = |side: Side, w: usize, contacts: &[PotentialContact]| {
        !params.edge_edge_uncovered
            || contacts[..n_vertex].iter().any(|c| match side {
                Side::A => c.feature_a == Feature::Vertex(w as u32),
                Side::B => c.feature_b == Feature::Vertex(w as u32),
            })
    };
    for (iea, ea) in a.edges.iter().enumerate() {
        let (a0, a1) = (wa.v[ea.v[0]], wa.v[ea.v[1]]);
        for (ieb, eb) in b.edges.iter().enumerate() {
            let (b0, b1) = (wb.v[eb.v[0]], wb.v[eb.v[1]]);
            let (s, t) = segment_segment(&a0, &a1, &b0, &b1);
            let (pa, pb) = (a0 + (a1 - a0) * s, b0 + (b1 - b0) * t);
            let clear = |q: Body, p: &Vec3, e: [usize; 2]| {
                e.iter().all(|&w| {
                    (p - q.w.v[w]).norm() > vertex_radius(q, w, eps)
                        || !covered(q.side, w, &out.contacts)
                })
            };
            if (pa - pb).norm() > eps || !clear(ba, &pa, ea.v) || !clear(bb, &pb, eb.v) {
                continue;
            }
            if let Some(c) = edge_edge(ba, iea, bb, ieb, &pa, &pb) {
                if c.applicability >= -params.eps_theta {
                    let id = out.push_contact(c);
                    out.constraints.push(Constraint::Unilateral { contact: id });
                }
            }
        }
    }
}

/// The nearest feature of body `q` to the world point `p` and the distance (< 0
/// inside: the nearest face, by the largest face-plane distance).
fn nearest_feature(q: Body, p: &Vec3) -> Option<(Feature, f64)> {
    let w = q.w;
    let mut smax = f64::NEG_INFINITY;
    let mut fmax = 0;
    for (i, (n, d)) in w.p.iter().enumerate() {
        let s = n.dot(p) - d;
        if s > smax {
            smax = s;
            fmax = i;
        }
    }
    if !smax.is_finite() {
        return None;
    }
    if smax <= 0.0 {
        return Some((Feature::Face(fmax as u32), smax));
    }
    // Outside: a face whose plane projection lies inside it is nearest.
    for (i, f) in q.poly.faces.iter().enumerate() {
        let s = w.p[i].0.dot(p) - w.p[i].1;
        if s > 0.0 && f.vertices.len() >= 3 && in_face(q, i, &(p - w.p[i].0 * s), 0.0) {
            return Some((Feature::Face(i as u32), s));
        }
    }
    // Otherwise an edge (inside it) or a vertex.
    let mut best = (Feature::Vertex(0), f64::INFINITY);
    for (i, e) in q.poly.edges.iter().enumerate() {
        let (a, b) = (w.v[e.v[0]], w.v[e.v[1]]);
        let c = closest_on_segment(&a, &b, p);
        let d = (p - c).norm();
        if d < best.1 {
            let l = (b - a).norm();
            let t = if l > 0.0 { (c - a).norm() / l } else { 0.0 };
            best.0 = if t <= 1e-9 {
                Feature::Vertex(e.v[0] as u32)
            } else if t >= 1.0 - 1e-9 {
                Feature::Vertex(e.v[1] as u32)
            } else {
                Feature::Edge(i as u32)
            };
            best.1 = d;
        }
    }
    best.1.is_finite().then_some(best)
}

/// The radius around vertex `w` of `q` within which a feature counts as *at* the
/// vertex (module doc, "Classification"): ε, but at most half the shortest edge
/// at `w`, so that the radii of a polytope's vertices do not cover its edges.
fn vertex_radius(q: Body, w: usize, eps: f64) -> f64 {
    q.poly.vertex_edges[w]
        .iter()
        .map(|&e| {
            let ed = &q.poly.edges[e];
            0.5 * (q.w.v[ed.v[0]] - q.w.v[ed.v[1]]).norm()
        })
        .fold(eps, f64::min)
}

/// The vertex of `q` the point `v` is at (module doc, "Classification"): the
/// nearest vertex within its [`vertex_radius`], else `q`'s nearest feature to
/// `v` when that is a vertex within `eps`.
fn vertex_at(q: Body, v: &Vec3, eps: f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (iw, w) in q.w.v.iter().enumerate() {
        let d = (v - w).norm();
        if d <= vertex_radius(q, iw, eps) && best.is_none_or(|(_, bd)| d < bd) {
            best = Some((iw, d));
        }
    }
    if let Some((w, _)) = best {
        return Some(w);
    }
    match nearest_feature(q, v) {
        Some((Feature::Vertex(w), d)) if d <= eps => Some(w as usize),
        // Nearest to an edge at a point within an endpoint's radius: at that
        // vertex (else no configuration would hold it: vertex–edge needs the
        // point clear of both radii).
        Some((Feature::Edge(e), d)) if d <= eps => {
            let ed = &q.poly.edges[e as usize];
            let (a, b) = (q.w.v[ed.v[0]], q.w.v[ed.v[1]]);
            let c = closest_on_segment(&a, &b, v);
            ed.v.into_iter()
                .map(|w| (w, (c - q.w.v[w]).norm()))
                .filter(|&(w, dc)| dc <= vertex_radius(q, w, eps))
                .min_by(|x, y| x.1.total_cmp(&y.1))
                .map(|(w, _)| w)
        }
        _ => None,
    }
}

/// The edge of `q` nearest to `p` among those whose nearest point lies within
/// `eps` of `p` and farther than its [`vertex_radius`] from both of the edge's
/// vertices.
fn nearest_edge_within(q: Body, p: &Vec3, eps: f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, e) in q.poly.edges.iter().enumerate() {
        let (a, b) = (q.w.v[e.v[0]], q.w.v[e.v[1]]);
        let c = closest_on_segment(&a, &b, p);
        let d = (p - c).norm();
        if d <= eps
            && (c - a).norm() > vertex_radius(q, e.v[0], eps)
            && (c - b).norm() > vertex_radius(q, e.v[1], eps)
            && best.is_none_or(|(_, bd)| d < bd)
        {
            best = Some((i, d));
        }
    }
    best.map(|(i, _)| i)
}

/// Whether the point `x` of face `f`'s plane lies inside the face polygon grown by
/// `grow` (m).
fn in_face(q: Body, f: usize, x: &Vec3, grow: f64) -> bool {
    let face = &q.poly.faces[f];
    let n = q.w.p[f].0;
    let k = face.vertices.len();
    (0..k).all(|j| {
        let a = q.w.v[face.vertices[j]];
        let b = q.w.v[face.vertices[(j + 1) % k]];
        let e = b - a;
        let l = e.norm();
        // Inward in-face direction of this boundary edge: n × ê.
        l > 0.0 && n.cross(&(e / l)).dot(&(x - a)) >= -grow
    })
}

/// Feasibility of a vertex at `v` against face `f` of `q` (Sec. 4, Fig. 15).
fn face_feasible(q: Body, f: usize, v: &Vec3, params: &FeatureParams) -> bool {
    let n = q.w.p[f].0;
    let s = n.dot(v) - q.w.p[f].1;
    let proj = v - n * s;
    if in_face(q, f, &proj, 0.0) {
        return s >= -params.delta;
    }
    // Outside the Voronoi region: within the cone of half-angle ϕ below the point ε
    // under the face's nearest point.
    let nearest = nearest_in_face(q, f, &proj);
    let apex = nearest - n * params.distance;
    let r = v - apex;
    let l = r.norm();
    l > 0.0 && r.dot(&n) >= l * params.phi.cos()
}

/// The point of face `f`'s polygon nearest to `x` (a point of its plane outside it).
fn nearest_in_face(q: Body, f: usize, x: &Vec3) -> Vec3 {
    let face = &q.poly.faces[f];
    let k = face.vertices.len();
    let mut best = (q.w.v[face.vertices[0]], f64::INFINITY);
    for j in 0..k {
        let a = q.w.v[face.vertices[j]];
        let b = q.w.v[face.vertices[(j + 1) % k]];
        let c = closest_on_segment(&a, &b, x);
        let d = (x - c).norm_squared();
        if d < best.1 {
            best = (c, d);
        }
    }
    best.0
}

/// Applicability of vertex `iv` of `p` against face `f` of `q`, eq. (30).
fn vertex_face_applicability(p: Body, iv: usize, q: Body, f: usize) -> f64 {
    vertex_applicability(p.poly, &p.w.v, iv, &q.w.p[f].0)
}

/// Eq. (30) for vertex `iv` of `poly` (world vertices `wv`) against a face of
/// outward unit normal `n`: min_k n·(v_k − v)/‖v_k − v‖ over its neighbours.
fn vertex_applicability(poly: &ConvexPolytope, wv: &[Vec3], iv: usize, n: &Vec3) -> f64 {
    let v = wv[iv];
    let mut m = f64::INFINITY;
    for &e in &poly.vertex_edges[iv] {
        let ed = &poly.edges[e];
        let k = if ed.v[0] == iv { ed.v[1] } else { ed.v[0] };
        let d = wv[k] - v;
        let l = d.norm();
        if l > 0.0 {
            m = m.min(n.dot(&d) / l);
        }
    }
    m
}

/// The potential contacts of a convex polytope `b` (at world pose `xb`) against
/// a half-space — the plane geom at world pose `plane`, its solid z ≤ 0 of its
/// frame (`pairs/plane_polytope.rs`) — into `out` (cleared first): one
/// vertex–face U(C(v, plane)) (eq. (34)) for **every** vertex within ε of the
/// plane or below it, with ψ its height over the plane. `plane_is_a` says which
/// side of the pair the plane is (the contacts follow the module's conventions:
/// `normal` toward A).
///
/// Why every vertex, without the applicability and feasibility tests of a
/// finite face: the plane's face is the whole boundary of its solid and its
/// Voronoi region the whole space above it, so the vertex–face configuration is
/// the only one a vertex can be in against it (no edge, no vertex of the plane),
/// and a convex polytope lies in the closed upper half-space exactly when each
/// of its vertices does. So the U set is exact (it holds if and only if the
/// bodies do not overlap) with no vertex left out, and never over-constrains: a
/// row of an inapplicable vertex cannot be violated while the bodies are apart,
/// as the row of a vertex against a finite face's plane can (003 needs
/// applicability to keep those rows local, eqs. (28)–(30)). Dropping the
/// inapplicable ones would only save rows, and would leave a vertex turned down
/// by the step's rotation without a row (the verdict (a) of peg22–peg24 against
/// the pours' box floors). Nor a lower bound on ψ (a finite face's δ): a vertex
/// deep in the solid has no other feature to be held by. The applicability is
/// returned as for a face (eq. (30)); a U constraint does not read it.
pub fn plane_potential_contacts(
    plane: &Pose,
    b: &ConvexPolytope,
    xb: &Pose,
    plane_is_a: bool,
    params: &FeatureParams,
    scratch: &mut FeatureScratch,
    out: &mut PotentialContacts,
) {
    out.clear();
    b.world_into(xb, &mut scratch.b.v, &mut scratch.b.p);
    let n = plane.rotation * Vec3::z();
    let o = plane.translation.vector;
    let wv = &scratch.b.v;
    for (iv, v) in wv.iter().enumerate() {
        let psi = n.dot(&(v - o));
        // (A NaN pose gives no contact.)
        if psi.is_nan() || psi > params.distance {
            continue;
        }
        let on_plane = v - n * psi;
        let applicability = vertex_applicability(b, wv, iv, &n);
        let (fv, ff) = (Feature::Vertex(iv as u32), Feature::Face(0));
        let c = if plane_is_a {
            // A is the plane: it separates against its own outward normal.
            PotentialContact {
                feature_a: ff,
                feature_b: fv,
                p_a: on_plane,
                p_b: *v,
                normal: -n,
                psi,
                applicability,
            }
        } else {
            PotentialContact {
                feature_a: fv,
                feature_b: ff,
                p_a: *v,
                p_b: on_plane,
                normal: n,
                psi,
                applicability,
            }
        };
        let id = out.push_contact(c);
        out.constraints.push(Constraint::Unilateral { contact: id });
    }
}

/// C(v, f): vertex `iv` of `p` against the plane of face `f` of `q`.
/// Whether vertex `iv` of `p` lies in front of at least one face of vertex `w`
/// of `q` — as every point of VR(w) does (module doc, "Vertex–vertex is
/// one-sided"): 003 Sec. 4's feasibility of the vertex's I set against `w`'s
/// faces with δ → 0 (peg28, `[lcp] peg_vv_feasible`).
fn vertex_feasible(p: Body, iv: usize, q: Body, w: usize) -> bool {
    let v = p.w.v[iv];
    q.poly.vertex_faces[w]
        .iter()
        .any(|&f| q.w.p[f].0.dot(&v) - q.w.p[f].1 >= 0.0)
}

fn vertex_face(p: Body, iv: usize, q: Body, f: usize) -> PotentialContact {
    let v = p.w.v[iv];
    let n = q.w.p[f].0;
    let psi = n.dot(&v) - q.w.p[f].1;
    let on_face = v - n * psi;
    let applicability = vertex_face_applicability(p, iv, q, f);
    let (fv, ff) = (Feature::Vertex(iv as u32), Feature::Face(f as u32));
    match p.side {
        // A's vertex over B's face: A separates along B's outward normal.
        Side::A => PotentialContact {
            feature_a: fv,
            feature_b: ff,
            p_a: v,
            p_b: on_face,
            normal: n,
            psi,
            applicability,
        },
        // B's vertex over A's face: A separates against its own outward normal.
        Side::B => PotentialContact {
            feature_a: ff,
            feature_b: fv,
            p_a: on_face,
            p_b: v,
            normal: -n,
            psi,
            applicability,
        },
    }
}

/// The unit direction ê of edge `e` of `p` (from `v[0]` to `v[1]`, the direction
/// its face `faces[0]` runs along) and the in-face vectors t₁, t₂ of eq. (26).
fn edge_frame(p: Body, e: usize) -> Option<(Vec3, Vec3, Vec3)> {
    let ed = &p.poly.edges[e];
    let d = p.w.v[ed.v[1]] - p.w.v[ed.v[0]];
    let l = d.norm();
    if l <= 0.0 {
        return None;
    }
    let u = d / l;
    let (n1, n2) = (p.w.p[ed.faces[0]].0, p.w.p[ed.faces[1]].0);
    Some((u, n1.cross(&u), u.cross(&n2)))
}

/// C(e_a, e_b) with nearest points `pa` on A's edge and `pb` on B's (on the
/// lines): the common normal signed by eq. (31), the gap between the lines.
fn edge_edge(
    a: Body,
    ea: usize,
    b: Body,
    eb: usize,
    pa: &Vec3,
    pb: &Vec3,
) -> Option<PotentialContact> {
    let (ua, ta1, ta2) = edge_frame(a, ea)?;
    let (ub, tb1, tb2) = edge_frame(b, eb)?;
    let m = ua.cross(&ub);
    let l = m.norm();
    // Parallel edges have no common normal: their contact is their vertices'.
    if l < 1e-6 {
        return None;
    }
    let m = m / l;
    let appl = |n: Vec3| {
        n.dot(&ta1)
            .min(n.dot(&ta2))
            .min(-n.dot(&tb1))
            .min(-n.dot(&tb2))
    };
    let (normal, applicability) = {
        let (p, q) = (appl(m), appl(-m));
        if p >= q {
            (m, p)
        } else {
            (-m, q)
        }
    };
    Some(PotentialContact {
        feature_a: Feature::Edge(ea as u32),
        feature_b: Feature::Edge(eb as u32),
        p_a: *pa,
        p_b: *pb,
        normal,
        psi: normal.dot(&(pa - pb)),
        applicability,
    })
}

/// C(e_p, e_q) for edge `ep` of `p` and edge `eq` of `q` as the constraint between
/// their *lines* (the X constraints of eqs. (36), (38) keep an edge of one body on
/// its side of the other's edge): the points are the nearest points of the two
/// lines, so `p_a − p_b` is along the common normal and the gap's rate is
/// `normal·(v_A(p_a) − v_B(p_b))`. `None` for parallel edges or when the nearest
/// points lie farther than one edge length beyond either edge.
fn edge_edge_any(p: Body, ep: usize, q: Body, eq: usize) -> Option<PotentialContact> {
    let (p0, p1) = (p.w.v[p.poly.edges[ep].v[0]], p.w.v[p.poly.edges[ep].v[1]]);
    let (q0, q1) = (q.w.v[q.poly.edges[eq].v[0]], q.w.v[q.poly.edges[eq].v[1]]);
    let (s, t) = lines_closest(&p0, &p1, &q0, &q1)?;
    let near = |u: f64| (-1.0..=2.0).contains(&u);
    if !(near(s) && near(t)) {
        return None;
    }
    let (cp, cq) = (p0 + (p1 - p0) * s, q0 + (q1 - q0) * t);
    match p.side {
        Side::A => edge_edge(p, ep, q, eq, &cp, &cq),
        Side::B => edge_edge(q, eq, p, ep, &cq, &cp),
    }
}

/// Parameters (s, t) of the nearest points of the lines through p0–p1 and q0–q1;
/// `None` when they are (nearly) parallel or degenerate.
fn lines_closest(p0: &Vec3, p1: &Vec3, q0: &Vec3, q1: &Vec3) -> Option<(f64, f64)> {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let (a, e, b) = (d1.dot(&d1), d2.dot(&d2), d1.dot(&d2));
    let denom = a * e - b * b;
    // Also rejects NaN.
    if denom.is_nan() || denom <= 1e-12 * a * e {
        return None;
    }
    let (c, f) = (d1.dot(&r), d2.dot(&r));
    let s = (b * f - c * e) / denom;
    let t = (a * f - b * c) / denom;
    Some((s, t))
}

/// Vertex `iv` of `p` near the inside of edge `e` of `q`: eq. (36).
fn vertex_edge(
    p: Body,
    iv: usize,
    q: Body,
    e: usize,
    params: &FeatureParams,
    lists: &mut Lists,
    out: &mut PotentialContacts,
) {
    let Lists {
        first: pos,
        second: neg,
    } = lists;
    let ed = q.poly.edges[e];
    let c1 = vertex_face(p, iv, q, ed.faces[0]);
    let c2 = vertex_face(p, iv, q, ed.faces[1]);
    let i1 = out.push_contact(c1);
    let i2 = out.push_contact(c2);
    // The primary: the larger applicability (ties to f₁).
    let (primary, other) = if c2.applicability > c1.applicability {
        (i2, i1)
    } else {
        (i1, i2)
    };
    let others = out.push_members(&[other]);
    out.constraints
        .push(Constraint::Intercontact { primary, others });

    // The vertex's edges, split by the edge orientation O_e = t₁ − t₂ (eq. (27)).
    let Some((_, t1, t2)) = edge_frame(q, e) else {
        return;
    };
    let o = t1 - t2;
    pos.clear();
    neg.clear();
    let v = p.w.v[iv];
    for &ep in &p.poly.vertex_edges[iv] {
        let epd = &p.poly.edges[ep];
        let k = if epd.v[0] == iv { epd.v[1] } else { epd.v[0] };
        let side = (p.w.v[k] - v).dot(&o);
        let Some(c) = edge_edge_any(p, ep, q, e) else {
            continue;
        };
        let feasible = (c.p_a - c.p_b).norm() <= params.distance;
        if !feasible || c.applicability < -params.eps_theta || side == 0.0 {
            continue;
        }
        let id = out.push_contact(c);
        if side > 0.0 {
            pos.push(id);
        } else {
            neg.push(id);
        }
    }
    // One X per edge ("each C_ei", eq. (36)): every edge reaching back over f₁
    // must clear e unless the vertex is above f₁ — not just one of them.
    for (edges, face) in [(&*pos, i1), (&*neg, i2)] {
        for &id in edges.iter() {
            let a = out.push_members(&[id]);
            let b = out.push_members(&[face]);
            out.constraints.push(Constraint::Cross { a, b });
        }
    }
}

/// Which vertex of a vertex–vertex pair is at the other: v_a at v_b, v_b at v_a.
const AT_A: u8 = 1;
const AT_B: u8 = 2;

/// Vertex `ia` of A near vertex `ib` of B: eqs. (37)–(38), `at` saying which is
/// at the other (module doc, "Vertex–vertex is one-sided"): the I set of each
/// vertex that is at the other, and the X when both are.
fn vertex_vertex(
    (a, ia): (Body, usize),
    (b, ib): (Body, usize),
    at: u8,
    params: &FeatureParams,
    lists: &mut Lists,
    out: &mut PotentialContacts,
) {
    let Lists {
        first: ids,
        second: ids2,
    } = lists;
    // I over v_a against the faces of v_b (v_a at v_b), then v_b against the
    // faces of v_a (v_b at v_a). `ids` keeps C(v_a, f_b) in the order of B's
    // vertex faces, `ids2` C(v_b, f_a).
    ids.clear();
    ids2.clear();
    for (p, ip, q, iq, dst, bit) in [
        (a, ia, b, ib, &mut *ids, AT_A),
        (b, ib, a, ia, &mut *ids2, AT_B),
    ] {
        if at & bit == 0 {
            continue;
        }
        let start = out.contacts.len();
        for &f in &q.poly.vertex_faces[iq] {
            let id = out.push_contact(vertex_face(p, ip, q, f));
            dst.push(id);
        }
        let Some(primary) =
            (start..out.contacts.len()).fold(None, |best: Option<usize>, i| match best {
                Some(j) if out.contacts[j].applicability >= out.contacts[i].applicability => {
                    Some(j)
                }
                _ => Some(i),
            })
        else {
            continue;
        };
        let begin = out.members.len() as u32;
        for i in start..out.contacts.len() {
            if i != primary {
                out.members.push(i as u32);
            }
        }
        let others = begin..out.members.len() as u32;
        out.constraints.push(Constraint::Intercontact {
            primary: primary as u32,
            others,
        });
    }

    // The X is over the two vertex cones: only when each vertex is at the other.
    if at != AT_A | AT_B {
        return;
    }
    // One X over every separating candidate (see the module doc, "Vertex–vertex"):
    // the applicable vertex–face contacts of both I sets, and the applicable,
    // feasible edge–edge contacts of the edges at v_a against those at v_b. When
    // no candidate is applicable (the two vertex cones share a direction), the
    // fallback below (module doc, "No configuration without a row"): the X is
    // never empty.
    let start = out.contacts.len();
    for &ea in &a.poly.vertex_edges[ia] {
        for &eb in &b.poly.vertex_edges[ib] {
            match edge_edge_any(a, ea, b, eb) {
                Some(c) if (c.p_a - c.p_b).norm() <= params.distance => {
                    out.push_contact(c);
                }
                _ => {}
            }
        }
    }
    let best = ids
        .iter()
        .chain(ids2.iter())
        .copied()
        .chain(start as u32..out.contacts.len() as u32)
        .map(|i| out.contacts[i as usize].applicability)
        .fold(f64::NEG_INFINITY, f64::max);
    // The applicable candidates; when none is (module doc, "No configuration
    // without a row"), those within ε_θ of the best applicability.
    let threshold = if best >= -params.eps_theta {
        -params.eps_theta
    } else {
        best - params.eps_theta
    };
    let begin = out.members.len() as u32;
    for &id in ids.iter().chain(ids2.iter()) {
        if out.contacts[id as usize].applicability >= threshold {
            out.members.push(id);
        }
    }
    let faces = begin..out.members.len() as u32;
    // The edge pairs that pass (compacted in place, in order).
    let mut kept = start;
    for i in start..out.contacts.len() {
        if out.contacts[i].applicability >= threshold {
            out.contacts[kept] = out.contacts[i];
            kept += 1;
        }
    }
    out.contacts.truncate(kept);
    let begin = out.members.len() as u32;
    for id in start as u32..kept as u32 {
        out.members.push(id);
    }
    let edges = begin..out.members.len() as u32;
    out.constraints
        .push(Constraint::Cross { a: faces, b: edges });
}

/// Why vertex `iv` of A (`of_a`) or of B has the potential contacts it has
/// against the other body at these poses (a diagnostic for
/// `RTPHYS_PEG_ATTRIB`, issue 12 peg21; allocates, never on the step's path):
/// the configuration [`potential_contacts`] puts it in (module doc,
/// "Classification") with the values that decided it — the distance to the
/// other body's nearest feature against ε; for a vertex–face configuration the
/// applicability (eq. (30)) against −ε_θ, the feasibility (Fig. 15) and ψ; for
/// vertex–edge the two faces' applicabilities — and the applicability of the
/// vertex against face `face` of the other body (the face it ends the step
/// behind), with the rotation θ = asin(−applicability) that would have made it
/// applicable.
pub fn explain_vertex(
    (a, xa): (&ConvexPolytope, &Pose),
    (b, xb): (&ConvexPolytope, &Pose),
    params: &FeatureParams,
    (of_a, iv, face): (bool, usize, usize),
) -> String {
    let mut wa = WorldHull::default();
    let mut wb = WorldHull::default();
    a.world_into(xa, &mut wa.v, &mut wa.p);
    b.world_into(xb, &mut wb.v, &mut wb.p);
    let ba = Body {
        poly: a,
        w: &wa,
        side: Side::A,
    };
    let bb = Body {
        poly: b,
        w: &wb,
        side: Side::B,
    };
    let (p, q) = if of_a { (ba, bb) } else { (bb, ba) };
    let Some(&v) = p.w.v.get(iv) else {
        return format!("no vertex {iv}");
    };
    let eps = params.distance;
    let mut s = String::new();
    let angle = |ap: f64| {
        if ap >= 0.0 {
            0.0
        } else {
            (-ap).min(1.0).asin().to_degrees()
        }
    };
    if let Some(w) = vertex_at(q, &v, eps) {
        s += &format!(
            "vertex–vertex with vertex {w} ({:.3e} m away, radius {:.3e} m)",
            (v - q.w.v[w]).norm(),
            vertex_radius(q, w, eps)
        );
    } else if let Some(e) = nearest_edge_within(q, &v, eps) {
        let ed = q.poly.edges[e];
        let c1 = vertex_face(p, iv, q, ed.faces[0]);
        let c2 = vertex_face(p, iv, q, ed.faces[1]);
        s += &format!(
            "vertex–edge with edge {e}: faces {} / {} applicability {:.3} / {:.3}, ψ {:.3e} / {:.3e}",
            ed.faces[0], ed.faces[1], c1.applicability, c2.applicability, c1.psi, c2.psi
        );
    } else {
        match nearest_feature(q, &v) {
            Some((f, d)) if d > eps => {
                s += &format!("none: nearest feature {f:?} at {d:.3e} m > ε {eps:.3e} m");
            }
            Some((Feature::Face(f), d)) => {
                let c = vertex_face(p, iv, q, f as usize);
                let feasible = face_feasible(q, f as usize, &v, params);
                s += &format!(
                    "vertex–face with face {f} ({d:.3e} m): applicability {:.3} (needs ≥ −ε_θ = {:.3}; \
                     θ to pass {:.1}°), feasible {feasible}, ψ {:.3e}",
                    c.applicability,
                    -params.eps_theta,
                    angle(c.applicability),
                    c.psi
                );
            }
            Some((f, d)) => {
                s += &format!(
                    "none: nearest feature {f:?} at {d:.3e} m (not a face; no vertex/edge radius)"
                );
            }
            None => s += "none: no nearest feature",
        }
    }
    // The other body's vertices at this vertex whose pair is one-sided (module
    // doc, "Vertex–vertex is one-sided"): their I sets are built, this vertex's
    // against their faces is not.
    let mine = vertex_at(q, &v, eps);
    for (k, w) in q.w.v.iter().enumerate() {
        if vertex_at(p, w, eps) == Some(iv) && mine != Some(k) {
            s += &format!(
                "; vertex {k} of the other body ({:.3e} m away) is at this vertex, one-sided",
                (v - w).norm()
            );
        }
    }
    if face < q.w.p.len() {
        let c = vertex_face(p, iv, q, face);
        s += &format!(
            "; against face {face}: applicability {:.3} (θ to pass {:.1}°), feasible {}, ψ {:.3e}",
            c.applicability,
            angle(c.applicability),
            face_feasible(q, face, &v, params),
            c.psi
        );
    }
    s
}
