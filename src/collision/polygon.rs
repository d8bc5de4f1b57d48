//! Convex polygons for planar worlds: PEG's 2D potential contacts
//! (`003_668e561ceb3412ed`, Sec. 5.1, eqs. (32)–(33)) and the exact area of
//! overlap of two polygons (the accuracy metric of the 2D pouring experiment,
//! Figs. 20–22).
//!
//! In the plane PEG has two configurations (edge–edge is covered by them):
//! - **vertex–edge** (eq. (32)): a vertex within ε of the inside of an edge gets
//!   U(C(v, e));
//! - **vertex–vertex** (eq. (33)): vertices v_a, v_b within ε of each other get
//!   I(C₁, C₂) over v_a against the two edges of v_b, I(C₃, C₄) over v_b against the
//!   two edges of v_a, and X({C₁}, {C₄}), X({C₂}, {C₃}) (one-sided, opt-in: each I
//!   set only for a vertex at the other, the X only when both are; below). With each vertex's edges
//!   named by the counter-clockwise order, e_out from the vertex and e_in into it:
//!   C₁ = C(v_a, e_out(v_b)), C₂ = C(v_a, e_in(v_b)), C₃ = C(v_b, e_out(v_a)),
//!   C₄ = C(v_b, e_in(v_a)). Two corners facing each other have B's outgoing edge on
//!   the same side as A's incoming edge, so v_a crossing the line of e_out(v_b)
//!   (passing B on the e_in side) requires v_b to stay outside the line of
//!   e_in(v_a): X({C₁}, {C₄}); and symmetrically X({C₂}, {C₃}) (the "cross" of
//!   Figs. 5–6).
//!
//! **Classification** (as in 3D, [`super::features`], "Classification"): which
//! configuration a vertex is in is decided by the other polygon's feature it is
//! *at*, the Voronoi regions of Sec. 4 with the relaxation confined to a radius
//! r(w) = min(ε, half the shorter edge at w) around each vertex w: a vertex is at
//! w when within r(w) of it (the nearest such w), or when it lies outside the
//! other polygon with its nearest boundary point within ε of it and within r(w) of
//! w; then it is in the vertex–vertex configuration (v, w). Otherwise it is
//! against the nearest edge whose inside it projects onto within ε (vertex–edge).
//! With `one_sided_vertex_vertex` (opt-in, `[lcp] peg_vv_one_sided`) "at" is
//! one-sided, as in 3D ([`super::features`], "Vertex–vertex is one-sided"): v_a's I set against v_b's edges holds for separate polygons only
//! when v_a is in v_b's (relaxed) Voronoi region, so it is built when v_a is at
//! v_b; a vertex of the pair that is not at the other keeps its own
//! (vertex–edge) configuration, and the X constraints, which pair the two
//! vertices' contacts, need both I sets.
//!
//! **Feasibility of the completed set** (peg28; opt-in, `[lcp] peg_vv_feasible`,
//! [`FeatureParams::feasible_completion`]). Without the one-sided key a pair one
//! of whose vertices is at the other gets both I sets (eq. (33) as printed); with
//! this key the completed one only for a vertex feasible against the other vertex (003
//! Sec. 4, "Contact Feasibility": in the Voronoi region, ψ ≥ −δ with δ "a small
//! value greater than machine precision"): a vertex behind *both* edge lines of
//! the other vertex is in the interior cone there, not in its Voronoi region
//! (`vertex_feasible`), and keeps its own (vertex–edge) configuration. Before,
//! such a far vertex's set (2D pour s1 h = 2.97e-2, step 41: start gaps −4.7e-2
//! and −3.4e-2 m where the overlap was µm) asked the step to push it cm out:
//! an ejection the work check refused (docs/EXPERIMENTS.md, peg27, peg28).
//!
//! **Paired primaries** (peg35; opt-in, `[lcp] peg_vv_paired_primaries`,
//! [`FeatureParams::paired_primaries`]). Each contact carries at most one
//! force variable and an X takes its impulse on a member without one
//! (`pipeline::lcp::peg`, "X constraints carry a force"); with both I sets'
//! primaries chosen by their own applicability, C₂ with C₃ (or C₁ with C₄)
//! leaves X({C₂}, {C₃}) (or X({C₁}, {C₄})) without a row. With this key the
//! primaries are paired, C₁ with C₃ when the most applicable of the four is C₁
//! or C₃, else C₂ with C₄: each X keeps a free member, no row is added, and one
//! I set may push on its less applicable contact.
//!
//! So each vertex of either polygon is in at most one configuration, whatever ε:
//! at most V_a + V_b vertex–vertex configurations (4 contacts each) and
//! V_a + V_b vertex–edge contacts per pair. (Before, every vertex pair within ε
//! was a configuration: fast bodies, ε = h u + …, made every vertex pair of every
//! nearby pair one, ≈ 34,000 rows in a 2D pour step at h = 1e-2.)
//!
//! Conventions as in 3D ([`super::features`]): normals point toward A, ψ is the
//! signed gap of the vertex over the edge's line, p_a = p_b + ψ n; the I primary is
//! the contact of largest applicability (eq. (29)), ties to C₁ / C₃.

use super::features::{Constraint, ContactSets, FeatureParams, Gap};
use crate::math::{Point2, Pose2, Vec2};

/// A convex polygon in its body frame: vertices counter-clockwise.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon {
    pub vertices: Vec<Vec2>,
}

impl ConvexPolygon {
    /// The convex hull of `points` (Andrew's monotone chain), counter-clockwise;
    /// `None` if it has no area.
    pub fn hull(points: &[Vec2]) -> Option<ConvexPolygon> {
        if points.iter().any(|p| !p.iter().all(|c| c.is_finite())) {
            return None;
        }
        let mut p: Vec<Vec2> = points.to_vec();
        p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
        p.dedup();
        if p.len() < 3 {
            return None;
        }
        let cross = |o: &Vec2, a: &Vec2, b: &Vec2| (a - o).perp(&(b - o));
        let mut h: Vec<Vec2> = Vec::with_capacity(2 * p.len());
        for pass in 0..2 {
            let start = h.len();
            let iter: Box<dyn Iterator<Item = &Vec2>> = if pass == 0 {
                Box::new(p.iter())
            } else {
                Box::new(p.iter().rev())
            };
            for q in iter {
                while h.len() >= start + 2 && cross(&h[h.len() - 2], &h[h.len() - 1], q) <= 0.0 {
                    h.pop();
                }
                h.push(*q);
            }
            h.pop();
        }
        let poly = ConvexPolygon { vertices: h };
        (poly.vertices.len() >= 3 && poly.area() > 0.0).then_some(poly)
    }

    /// Area, m².
    pub fn area(&self) -> f64 {
        shoelace(&self.vertices)
    }
}

fn shoelace(v: &[Vec2]) -> f64 {
    let n = v.len();
    0.5 * (0..n).map(|i| v[i].perp(&v[(i + 1) % n])).sum::<f64>()
}

/// Which polygon a feature belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature2 {
    Vertex(u32),
    Edge(u32),
}

/// One planar potential contact (conventions as [`super::features::PotentialContact`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PotentialContact2 {
    pub feature_a: Feature2,
    pub feature_b: Feature2,
    pub p_a: Vec2,
    pub p_b: Vec2,
    /// Unit, toward A.
    pub normal: Vec2,
    pub psi: f64,
    pub applicability: f64,
}

/// The planar potential contacts and constraints of one pair.
pub type PotentialContacts2 = ContactSets<PotentialContact2>;

impl Gap for PotentialContact2 {
    fn psi(&self) -> f64 {
        self.psi
    }
}

/// World vertices, edge normals and offsets of both polygons, and the vertex–vertex
/// pairs of one call.
#[derive(Clone, Debug, Default)]
pub struct PolygonScratch {
    va: Vec<Vec2>,
    vb: Vec<Vec2>,
    na: Vec<(Vec2, f64)>,
    nb: Vec<(Vec2, f64)>,
    vv: Vec<(u32, u32, u8)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    A,
    B,
}

#[derive(Clone, Copy)]
struct Poly<'s> {
    v: &'s [Vec2],
    /// Edge i runs from vertex i to i+1: outward normal and offset.
    e: &'s [(Vec2, f64)],
    side: Side,
}

fn world(p: &ConvexPolygon, x: &Pose2, v: &mut Vec<Vec2>, e: &mut Vec<(Vec2, f64)>) {
    v.clear();
    e.clear();
    v.extend(p.vertices.iter().map(|q| (x * Point2::from(*q)).coords));
    let n = v.len();
    for i in 0..n {
        let d = v[(i + 1) % n] - v[i];
        let l = d.norm();
        let nrm = if l > 0.0 {
            Vec2::new(d.y, -d.x) / l
        } else {
            Vec2::zeros()
        };
        e.push((nrm, nrm.dot(&v[i])));
    }
}

/// All planar potential contacts and PEG constraints between polygons `a` (at
/// `xa`) and `b` (at `xb`), into `out` (cleared first).
pub fn potential_contacts_2d(
    a: &ConvexPolygon,
    xa: &Pose2,
    b: &ConvexPolygon,
    xb: &Pose2,
    params: &FeatureParams,
    s: &mut PolygonScratch,
    out: &mut PotentialContacts2,
) {
    out.clear();
    world(a, xa, &mut s.va, &mut s.na);
    world(b, xb, &mut s.vb, &mut s.nb);
    let pa = Poly {
        v: &s.va,
        e: &s.na,
        side: Side::A,
    };
    let pb = Poly {
        v: &s.vb,
        e: &s.nb,
        side: Side::B,
    };
    let eps = params.distance;
    // Vertex–vertex first (eq. (33)): each vertex is classified by the other
    // polygon's feature it is at (module doc, "Classification"), so a vertex is
    // in at most one vertex–vertex configuration, whatever ε; a pair records
    // which of its vertices is at the other.
    s.vv.clear();
    for (p, q) in [(pa, pb), (pb, pa)] {
        for (iv, v) in p.v.iter().enumerate() {
            let Some(w) = vertex_at(q, v, eps) else {
                continue;
            };
            let (pair, at) = match p.side {
                Side::A => ((iv as u32, w as u32), AT_A),
                Side::B => ((w as u32, iv as u32), AT_B),
            };
            match s.vv.iter_mut().find(|x| (x.0, x.1) == pair) {
                Some(x) => x.2 |= at,
                None => s.vv.push((pair.0, pair.1, at)),
            }
        }
    }
    if !params.one_sided_vertex_vertex {
        // Both I sets and the X pairs for every pair (eq. (33) as printed);
        // with `feasible_completion` only for a vertex feasible against the
        // other (module doc, "Feasibility of the completed set"): one behind
        // both of the other vertex's edge lines is not in its Voronoi region
        // and keeps its own (vertex–edge) configuration.
        let feasible = params.feasible_completion;
        for x in s.vv.iter_mut() {
            let (i, j) = (x.0 as usize, x.1 as usize);
            if x.2 & AT_A == 0 && (!feasible || vertex_feasible(pa, i, pb, j)) {
                x.2 |= AT_A;
            }
            if x.2 & AT_B == 0 && (!feasible || vertex_feasible(pb, j, pa, i)) {
                x.2 |= AT_B;
            }
        }
    }
    for &(i, j, at) in &s.vv {
        vertex_vertex(
            pa,
            i as usize,
            pb,
            j as usize,
            (at, params.paired_primaries),
            out,
        );
    }
    for (p, q) in [(pa, pb), (pb, pa)] {
        for iv in 0..p.v.len() {
            let in_vv = s.vv.iter().any(|&(i, j, at)| match p.side {
                Side::A => i as usize == iv && at & AT_A != 0,
                Side::B => j as usize == iv && at & AT_B != 0,
            });
            if in_vv {
                continue;
            }
            let v = p.v[iv];
            // The nearest edge of q whose inside the vertex projects onto.
            let n = q.v.len();
            let mut best: Option<(usize, f64)> = None;
            for k in 0..n {
                let (a0, a1) = (q.v[k], q.v[(k + 1) % n]);
                let d = a1 - a0;
                let l2 = d.norm_squared();
                if l2 <= 0.0 {
                    continue;
                }
                let t = (v - a0).dot(&d) / l2;
                if !(t > 0.0 && t < 1.0) {
                    continue;
                }
                let dist = (v - (a0 + d * t)).norm();
                let psi = q.e[k].0.dot(&v) - q.e[k].1;
                // Outside: the edge must face the vertex; inside: the nearest edge.
                if psi >= -eps && best.is_none_or(|(_, b)| dist < b) {
                    best = Some((k, dist));
                }
            }
            let Some((k, dist)) = best else {
                continue;
            };
            if dist > eps {
                continue;
            }
            let c = vertex_edge(p, iv, q, k);
            if c.applicability >= -params.eps_theta {
                let id = out.push_contact(c);
                out.constraints.push(Constraint::Unilateral { contact: id });
            }
        }
    }
}

/// The radius around vertex `w` of `q` within which a point counts as *at* the
/// vertex (module doc, "Classification"): ε, but at most half the shorter edge
/// at `w`, so that the radii of a polygon's vertices do not cover its edges.
fn vertex_radius(q: Poly, w: usize, eps: f64) -> f64 {
    let n = q.v.len();
    let (prev, next) = (q.v[(w + n - 1) % n], q.v[(w + 1) % n]);
    eps.min(0.5 * (next - q.v[w]).norm())
        .min(0.5 * (q.v[w] - prev).norm())
}

/// The vertex of `q` the point `v` is at (module doc, "Classification"): the
/// nearest vertex within its [`vertex_radius`]; else, for `v` outside `q`, the
/// endpoint nearest to `v`'s nearest boundary point when that point is within ε
/// of `v` and within the endpoint's radius (the vertex itself included).
fn vertex_at(q: Poly, v: &Vec2, eps: f64) -> Option<usize> {
    let n = q.v.len();
    let mut best: Option<(usize, f64)> = None;
    for (iw, w) in q.v.iter().enumerate() {
        let d = (v - w).norm();
        if d <= vertex_radius(q, iw, eps) && best.is_none_or(|(_, bd)| d < bd) {
            best = Some((iw, d));
        }
    }
    if let Some((w, _)) = best {
        return Some(w);
    }
    // Inside q: its nearest edge governs (vertex–edge).
    let outside = q.e.iter().any(|(nrm, off)| nrm.dot(v) - off > 0.0);
    if !outside {
        return None;
    }
    // The nearest boundary point, on edge k at parameter t.
    let mut near: Option<(usize, f64, f64)> = None;
    for k in 0..n {
        let (a0, a1) = (q.v[k], q.v[(k + 1) % n]);
        let d = a1 - a0;
        let l2 = d.norm_squared();
        let t = if l2 > 0.0 {
            ((v - a0).dot(&d) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let dist = (v - (a0 + d * t)).norm();
        if near.is_none_or(|(_, _, bd)| dist < bd) {
            near = Some((k, t, dist));
        }
    }
    let (k, t, dist) = near?;
    if dist.is_nan() || dist > eps {
        return None;
    }
    let (a0, a1) = (q.v[k], q.v[(k + 1) % n]);
    let c = a0 + (a1 - a0) * t;
    [k, (k + 1) % n]
        .into_iter()
        .map(|w| (w, (c - q.v[w]).norm()))
        .filter(|&(w, dc)| dc <= vertex_radius(q, w, eps))
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map(|(w, _)| w)
}

/// 003 Sec. 4's feasibility of vertex `iv` of `p` against vertex `w` of `q`'s
/// I set (eq. (33)): the vertex lies in front of at least one of `w`'s edge
/// lines. Every point of VR(w) does (with n_out, n_in the edges' outward
/// normals, x − w = a n_in + b n_out, a, b ≥ 0, and the two gaps sum to
/// (a + b)(1 + n_in·n_out) ≥ 0); a vertex behind both lines is in the interior
/// cone at `w`, at least its smaller depth from VR(w). 003's δ is "a small
/// value greater than machine precision"; 0 here (`FeatureParams::delta` is ε,
/// a reach, not 003's δ).
fn vertex_feasible(p: Poly, iv: usize, q: Poly, w: usize) -> bool {
    let n = q.v.len();
    let v = p.v[iv];
    [w, (w + n - 1) % n]
        .iter()
        .any(|&k| q.e[k].0.dot(&v) - q.e[k].1 >= 0.0)
}

/// Applicability of vertex `iv` of `p` against edge `k` of `q`, eq. (29).
fn applicability(p: Poly, iv: usize, q: Poly, k: usize) -> f64 {
    let n = p.v.len();
    let nrm = q.e[k].0;
    let v = p.v[iv];
    [p.v[(iv + 1) % n], p.v[(iv + n - 1) % n]]
        .iter()
        .map(|w| {
            let d = w - v;
            let l = d.norm();
            if l > 0.0 {
                nrm.dot(&d) / l
            } else {
                f64::INFINITY
            }
        })
        .fold(f64::INFINITY, f64::min)
}

/// C(v, e): vertex `iv` of `p` over the line of edge `k` of `q`.
fn vertex_edge(p: Poly, iv: usize, q: Poly, k: usize) -> PotentialContact2 {
    let v = p.v[iv];
    let (n, d) = q.e[k];
    let psi = n.dot(&v) - d;
    let on_line = v - n * psi;
    let appl = applicability(p, iv, q, k);
    let (fv, fe) = (Feature2::Vertex(iv as u32), Feature2::Edge(k as u32));
    match p.side {
        Side::A => PotentialContact2 {
            feature_a: fv,
            feature_b: fe,
            p_a: v,
            p_b: on_line,
            normal: n,
            psi,
            applicability: appl,
        },
        Side::B => PotentialContact2 {
            feature_a: fe,
            feature_b: fv,
            p_a: on_line,
            p_b: v,
            normal: -n,
            psi,
            applicability: appl,
        },
    }
}

/// Eq. (33) for vertex `ia` of A and `ib` of B, `at` saying which is at the
/// other: the I set of each vertex that is at the other, the X pairs when both are.
fn vertex_vertex(
    a: Poly,
    ia: usize,
    b: Poly,
    ib: usize,
    (at, paired): (u8, bool),
    out: &mut PotentialContacts2,
) {
    let (na, nb) = (a.v.len(), b.v.len());
    // e_out(v) = edge v → v+1 (id v), e_in(v) = edge v−1 → v (id v−1).
    let mut c = [0u32; 4];
    if at & AT_A != 0 {
        c[0] = out.push_contact(vertex_edge(a, ia, b, ib));
        c[1] = out.push_contact(vertex_edge(a, ia, b, (ib + nb - 1) % nb));
    }
    if at & AT_B != 0 {
        c[2] = out.push_contact(vertex_edge(b, ib, a, ia));
        c[3] = out.push_contact(vertex_edge(b, ib, a, (ia + na - 1) % na));
    }
    let [c1, c2, c3, c4] = c;
    // Paired primaries (module doc): C₁ with C₃ when the most applicable of
    // the four is C₁ or C₃, else C₂ with C₄.
    let ap = c.map(|i| {
        out.contacts
            .get(i as usize)
            .map_or(f64::NAN, |k| k.applicability)
    });
    let pair = (paired && at == AT_A | AT_B).then(|| ap[0].max(ap[2]) >= ap[1].max(ap[3]));
    for (k, (x, y, bit)) in [(c1, c2, AT_A), (c3, c4, AT_B)].into_iter().enumerate() {
        if at & bit == 0 {
            continue;
        }
        let (p, o) = match pair {
            Some(true) => (x, y),
            Some(false) => (y, x),
            None if ap[2 * k + 1] > ap[2 * k] => (y, x),
            None => (x, y),
        };
        let others = out.push_members(&[o]);
        out.constraints
            .push(Constraint::Intercontact { primary: p, others });
    }
    // The X pairs need both I sets (a one-sided pair has one).
    if at != AT_A | AT_B {
        return;
    }
    for (x, y) in [(c1, c4), (c2, c3)] {
        let a = out.push_members(&[x]);
        let b = out.push_members(&[y]);
        out.constraints.push(Constraint::Cross { a, b });
    }
}

/// Which vertex of a vertex–vertex pair is at the other: v_a at v_b, v_b at v_a.
const AT_A: u8 = 1;
const AT_B: u8 = 2;

/// Reusable buffers of [`overlap_area`].
#[derive(Clone, Debug, Default)]
pub struct AreaScratch {
    poly: Vec<Vec2>,
    tmp: Vec<Vec2>,
}

/// Area of `a ∩ b` (m²): `a` clipped to each half-plane of `b` (Sutherland–Hodgman),
/// then the shoelace formula; 0 when disjoint or touching.
pub fn overlap_area(
    a: &ConvexPolygon,
    xa: &Pose2,
    b: &ConvexPolygon,
    xb: &Pose2,
    s: &mut AreaScratch,
) -> f64 {
    let AreaScratch { poly, tmp } = s;
    poly.clear();
    poly.extend(a.vertices.iter().map(|q| (xa * Point2::from(*q)).coords));
    let n = b.vertices.len();
    for i in 0..n {
        let p0 = (xb * Point2::from(b.vertices[i])).coords;
        let p1 = (xb * Point2::from(b.vertices[(i + 1) % n])).coords;
        let d = p1 - p0;
        let l = d.norm();
        if l <= 0.0 {
            continue;
        }
        let nrm = Vec2::new(d.y, -d.x) / l;
        let off = nrm.dot(&p0);
        tmp.clear();
        let k = poly.len();
        for j in 0..k {
            let (p, q) = (poly[j], poly[(j + 1) % k]);
            let (sp, sq) = (nrm.dot(&p) - off, nrm.dot(&q) - off);
            if sp <= 0.0 {
                tmp.push(p);
            }
            if (sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0) {
                tmp.push(p + (q - p) * (sp / (sp - sq)));
            }
        }
        std::mem::swap(poly, tmp);
        if poly.len() < 3 {
            return 0.0;
        }
    }
    let area = shoelace(poly);
    if area.is_finite() {
        area.max(0.0)
    } else {
        0.0
    }
}

/// The planar world's polygons are right prisms along their geom's z
/// (`shape = { type = "polygon", … }` in scenes): the cross-section of `p` if it is
/// one — every vertex at z = z₀ or z₁ (within 1e-9 of its size), the two sets
/// with the same (x, y) — and its half thickness; `None` otherwise.
pub fn prism_section(p: &super::ConvexPolytope) -> Option<(ConvexPolygon, f64)> {
    let tol = 1e-9 * p.radius.max(f64::MIN_POSITIVE);
    let z0 = p.vertices.iter().map(|v| v.z).fold(f64::INFINITY, f64::min);
    let z1 = p
        .vertices
        .iter()
        .map(|v| v.z)
        .fold(f64::NEG_INFINITY, f64::max);
    if z1 - z0 <= tol || z1.is_nan() || z0.is_nan() {
        return None;
    }
    let (mut lo, mut hi) = (Vec::new(), Vec::new());
    for v in &p.vertices {
        if (v.z - z0).abs() <= tol {
            lo.push(Vec2::new(v.x, v.y));
        } else if (v.z - z1).abs() <= tol {
            hi.push(Vec2::new(v.x, v.y));
        } else {
            return None;
        }
    }
    let same = lo.len() == hi.len() && lo.iter().all(|a| hi.iter().any(|b| (a - b).norm() <= tol));
    if !same {
        return None;
    }
    ConvexPolygon::hull(&lo).map(|poly| (poly, 0.5 * (z1 - z0)))
}

/// The planar pose (x, y, θ) of a 3D pose whose rotation maps z to z (within
/// 1e-9); `None` otherwise.
pub fn planar_pose(x: &crate::math::Pose) -> Option<Pose2> {
    let r = x.rotation.to_rotation_matrix();
    let m = r.matrix();
    if (m[(2, 2)] - 1.0).abs() > 1e-9 || m[(0, 2)].abs() > 1e-9 || m[(1, 2)].abs() > 1e-9 {
        return None;
    }
    let t = x.translation.vector;
    Some(Pose2::new(Vec2::new(t.x, t.y), m[(1, 0)].atan2(m[(0, 0)])))
}
