//! The start state Rigid IPC steps from: bodies placed touching are moved apart to d̂.
//!
//! 004's barrier b(d) is infinite at d = 0 and stores energy κ b(d) below d̂. Scenes
//! written for any method place a box on the floor at its half height (d = 0) or a
//! fraction of a millimetre above it. From d = 0 no step exists (the line search's
//! time of impact is 0: the bodies stood still and lost their velocities); from
//! 0 < d < d̂ the first step releases the barrier's stored energy (a 10 kg box placed
//! 0.5 mm over the floor was thrown up 0.5 mm in one millisecond) and the friction
//! lagged from that start state carries the barrier's force there, many times the
//! load (the same box sliding at 1 m/s stopped in the first step). A body resting
//! under IPC sits just inside d̂ (the 10 kg box at 0.999 mm), so "placed touching"
//! means "at d̂" for this method.
//!
//! [`separate`] runs on the first step of a run (tick 0: a loaded or reset scene, or
//! a snapshot of one; a state the stepper produced is never moved). Each body pair
//! closer than d̂ gets a direction n (from the faces' outward normals of its
//! vertex–face pairs and the edges' cross products of its edge–edge pairs, weighted
//! by d̂ − d) and the relative translation s along n that brings its closest
//! primitives to d̂ (linearized); the translations t of the dynamic bodies are then
//! the least (mass-weighted) ones with n·(t_a − t_b) ≥ s for every such pair
//! (projected Gauss–Seidel on the pairs' multipliers: a stack placed touching
//! moves up d̂, 2d̂, …).
//! A pair placed overlapping (its shapes penetrate: no barrier distance sees a
//! box sunk into a ramp) gets the narrow phase's normal and s = depth + d̂ (not a
//! mesh file's geom: the narrow phase sees its hull, IPC its triangles).
//! Rounds repeat on the moved state until no pair is closer than d̂. If the pairs
//! cannot all be met (a body in a slot narrower than 2 d̂), nothing is moved: such a
//! start is what the scene asks for. Rotations are never changed.

use super::IpcWorkspace;
use crate::collision::narrowphase::{collide_pair, NarrowScratch};
use crate::collision::{ContactSet, Shape};
use crate::data::BodyState;
use crate::ipc::geom::{closest_on_segment, EdgeEdge, PointTriangle};
use crate::ipc::mesh::{constraint_set, signed_gap, Candidate};
use crate::math::Vec3;
use crate::model::{BodyKind, Model};

/// Rounds of (measure, project, move).
const ROUNDS: usize = 8;
/// Gauss–Seidel sweeps per round.
const SWEEPS: usize = 2000;
/// A pair counts as placed at d̂ (1 − `SLACK`).
const SLACK: f64 = 1e-6;

/// One pair closer than d̂: bodies (a, b) as workspace indices, the direction n
/// (from b toward a) and the relative translation s needed along it.
#[derive(Clone, Copy, Debug)]
pub struct Gap {
    a: usize,
    b: usize,
    n: Vec3,
    s: f64,
    /// The pair's multiplier in [`project`].
    lambda: f64,
}

/// Working memory of [`separate`], sized with the workspace (the placement runs
/// in the physics thread's first tick; the candidate and gap lists and, for a
/// pair placed overlapping, the narrow phase's buffers may grow there, once —
/// a tick-0 cost; `tests/ipc_alloc.rs` counts from a warmed step).
#[derive(Clone, Debug, Default)]
pub struct PlaceScratch {
    /// Per workspace body: whether it moves, its inverse mass (0 if not), this
    /// round's translation and the total one.
    dynamic: Vec<bool>,
    w: Vec<f64>,
    t: Vec<Vec3>,
    total: Vec<Vec3>,
    gaps: Vec<Gap>,
    /// The narrow phase's buffers for the overlapping pairs.
    narrow: NarrowScratch,
    set: ContactSet,
}

impl PlaceScratch {
    pub fn new(n: usize) -> Self {
        PlaceScratch {
            dynamic: vec![false; n],
            w: vec![0.0; n],
            t: vec![Vec3::zeros(); n],
            total: vec![Vec3::zeros(); n],
            gaps: Vec::with_capacity(4 * n),
            narrow: NarrowScratch::default(),
            set: ContactSet::default(),
        }
    }
}

/// Move the dynamic bodies of `state` apart so that no pair is closer than `dhat`
/// (module doc). Returns how many bodies moved (0 if none needed to, or if the
/// pairs could not all be met).
pub fn separate(model: &Model, state: &mut [BodyState], ws: &mut IpcWorkspace, dhat: f64) -> usize {
    let mut sc = std::mem::take(&mut ws.place);
    for (k, ib) in ws.bodies.iter().enumerate() {
        let body = &model.bodies[ib.body];
        let d = body.kind == BodyKind::Free && body.mass > 0.0 && !ib.mesh.vertices.is_empty();
        sc.dynamic[k] = d;
        sc.w[k] = if d { body.inv_mass } else { 0.0 };
        sc.total[k] = Vec3::zeros();
    }
    for _ in 0..ROUNDS {
        let overlap = (&mut sc.narrow, &mut sc.set);
        measure(model, state, ws, (&sc.dynamic, dhat), overlap, &mut sc.gaps);
        if sc.gaps.is_empty() {
            break;
        }
        if !project(&sc.w, &mut sc.gaps, &mut sc.t) {
            // Infeasible: leave the scene's placement as it is.
            for (k, ib) in ws.bodies.iter().enumerate() {
                state[ib.body].x -= sc.total[k];
                sc.total[k] = Vec3::zeros();
            }
            break;
        }
        for (k, ib) in ws.bodies.iter().enumerate() {
            state[ib.body].x += sc.t[k];
            sc.total[k] += sc.t[k];
        }
    }
    let moved = sc.total.iter().filter(|t| t.norm() > 0.0).count();
    ws.place = sc;
    moved
}

/// The pairs closer than d̂ at `state`, with their directions and needed translations.
fn measure(
    model: &Model,
    state: &[BodyState],
    ws: &mut IpcWorkspace,
    (dynamic, dhat): (&[bool], f64),
    (narrow, set): (&mut NarrowScratch, &mut ContactSet),
    gaps: &mut Vec<Gap>,
) {
    let nw = &mut ws.newton;
    for (k, ib) in ws.bodies.iter().enumerate() {
        ib.mesh.world(&state[ib.body].pose(), &mut nw.bufs[k].world);
    }
    gaps.clear();
    let floor = (dhat * (1.0 - SLACK)).powi(2);
    // Placed overlapping: no barrier distance sees it (a box sunk 5 mm into a ramp
    // has no vertex within d̂ of the ramp's faces and no edge near its edges) and
    // IPC would step from an intersecting state — the box fell inside the ramp. The
    // shapes' narrow phase gives the overlap's depth and normal; the pair is moved
    // apart by the depth and d̂ (the mesh is the shape or inscribed in it, so its
    // gap is then ≥ d̂). Those moves may close other pairs: every pair within
    // `margin` = 2 × the deepest overlap of d̂ joins the projection below with its
    // own s = d̂ − gap ≤ 0 (inactive unless the moves would close it), so a cube
    // sunk into one resting on the floor lifts the upper cube, not the lower one
    // into the floor.
    let mut deepest = 0.0f64;
    for k in 0..ws.bodies.len() {
        for l in k + 1..ws.bodies.len() {
            let (wk, wl) = (&nw.bufs[k].world, &nw.bufs[l].world);
            let reach = dhat + ws.bodies[k].mesh.max_radius + ws.bodies[l].mesh.max_radius;
            if !(dynamic[k] || dynamic[l]) || wk.is_empty() || wl.is_empty() || !near(wk, wl, reach)
            {
                continue;
            }
            let (bk, bl) = (ws.bodies[k].body, ws.bodies[l].body);
            if let Some((n, depth)) = overlap(model, state, (bk, bl), narrow, set) {
                deepest = deepest.max(depth);
                gaps.push(Gap {
                    a: k,
                    b: l,
                    n,
                    s: depth + dhat,
                    lambda: 0.0,
                });
            }
        }
    }
    let overlaps = gaps.len();
    let margin = 2.0 * deepest;
    let reach2 = (dhat + margin).powi(2);
    for k in 0..ws.bodies.len() {
        for l in k + 1..ws.bodies.len() {
            if !(dynamic[k] || dynamic[l]) {
                continue;
            }
            let (wk, wl) = (&nw.bufs[k].world, &nw.bufs[l].world);
            let reach = dhat + margin + ws.bodies[k].mesh.max_radius + ws.bodies[l].mesh.max_radius;
            if wk.is_empty() || wl.is_empty() || !near(wk, wl, reach) {
                continue;
            }
            if gaps[..overlaps].iter().any(|g| (g.a, g.b) == (k, l)) {
                continue;
            }
            nw.cands.clear();
            let (mk, ml) = (&ws.bodies[k].mesh, &ws.bodies[l].mesh);
            constraint_set((mk, wk), (ml, wl), reach2, &mut nw.cands);
            let dmin = nw
                .cands
                .iter()
                .map(|(_, c)| sq(c))
                .fold(f64::INFINITY, f64::min);
            // Closer than d̂: a gap to open; else, within the margin of an overlap's
            // moves, a gap to keep open (s ≤ 0).
            if dmin >= floor && (margin == 0.0 || dmin >= reach2) {
                continue;
            }
            let ck = state[ws.bodies[k].body].x;
            let cl = state[ws.bodies[l].body].x;
            // The direction from l toward k that each candidate asks for.
            let dir = |b_vertex: bool, c: &Candidate| -> Option<Vec3> {
                let u = match *c {
                    // Only a face's interior and two edges' interiors give a
                    // direction at d = 0 (a box's vertical edge ending on the floor
                    // is an endpoint pair with a horizontal cross product).
                    Candidate::VertexFace {
                        face,
                        ty: PointTriangle::Face,
                        ..
                    } => {
                        // The face's body is l unless the vertex is in l.
                        let (fm, fw, sign) = if b_vertex {
                            (mk, wk, -1.0)
                        } else {
                            (ml, wl, 1.0)
                        };
                        let f = fm.faces[face as usize].map(|i| fw[i as usize]);
                        sign * (f[1] - f[0]).cross(&(f[2] - f[0]))
                    }
                    Candidate::EdgeEdge {
                        edge_a,
                        edge_b,
                        ty: EdgeEdge::Lines,
                        ..
                    } => {
                        let ea = mk.edges[edge_a as usize].map(|i| wk[i as usize]);
                        let eb = ml.edges[edge_b as usize].map(|i| wl[i as usize]);
                        let u = (ea[1] - ea[0]).cross(&(eb[1] - eb[0]));
                        if u.dot(&(ck - cl)) < 0.0 {
                            -u
                        } else {
                            u
                        }
                    }
                    // Two spheres: along their centres.
                    Candidate::VertexVertex {
                        vertex_a, vertex_b, ..
                    } => wk[vertex_a as usize] - wl[vertex_b as usize],
                    // A sphere and a capsule: from the axis' closest point to the centre.
                    Candidate::VertexEdge { vertex, edge, .. } => {
                        let (vw, em, ew, sign) = if b_vertex {
                            (wl, mk, wk, -1.0)
                        } else {
                            (wk, ml, wl, 1.0)
                        };
                        let p = vw[vertex as usize];
                        let e = em.edges[edge as usize].map(|i| ew[i as usize]);
                        let t = closest_on_segment(&p, &e[0], &e[1]);
                        (p - (e[0] + (e[1] - e[0]) * t)) * sign
                    }
                    _ => return None,
                };
                let len = u.norm();
                (len > 1e-12 && len.is_finite()).then(|| u / len)
            };
            let mut n = Vec3::zeros();
            for (bv, c) in &nw.cands {
                if let Some(u) = dir(*bv, c) {
                    n += u * (dhat + margin - gap(c)).max(0.0);
                }
            }
            if n.norm() < 1e-12 {
                n = ck - cl;
            }
            if n.norm() < 1e-12 {
                continue;
            }
            n.normalize_mut();
            let mut s: f64 = dhat - signed_gap(dmin);
            for (bv, c) in &nw.cands {
                if let Some(u) = dir(*bv, c) {
                    let cos = n.dot(&u);
                    // Only the candidates along n: an endpoint pair at d = 0 can
                    // classify as two lines at a slant (a face diagonal's end on a
                    // cube's top), and its 1/cos would over-lift; what the
                    // linearization misses, the next round measures.
                    if cos > 0.95 {
                        s = s.max((dhat - gap(c)) / cos);
                    }
                }
            }
            gaps.push(Gap {
                a: k,
                b: l,
                n,
                s,
                lambda: 0.0,
            });
        }
    }
}

/// The least (mass-weighted) translations t with n·(t_a − t_b) ≥ s for every gap
/// (bodies of inverse mass w = 0 fixed): min ½ Σ m |t|² by projected Gauss–Seidel
/// on the pairs' multipliers (Hildreth's method, so a stack ends exactly d̂, 2d̂, …
/// and no pair is left wider than it needs); false if not all are met.
fn project(w: &[f64], gaps: &mut [Gap], t: &mut [Vec3]) -> bool {
    t.fill(Vec3::zeros());
    let scale = gaps.iter().map(|g| g.s).fold(0.0, f64::max);
    for g in gaps.iter_mut() {
        g.lambda = 0.0;
    }
    for _ in 0..SWEEPS {
        let (mut worst, mut change): (f64, f64) = (0.0, 0.0);
        for g in gaps.iter_mut() {
            let ww = w[g.a] + w[g.b];
            if ww <= 0.0 {
                continue;
            }
            // Overshoot by SLACK so that the pair ends at d̂ rather than just under.
            let v = g.s * (1.0 + SLACK) - g.n.dot(&(t[g.a] - t[g.b]));
            worst = worst.max(v - g.s * SLACK);
            let lambda = (g.lambda + v / ww).max(0.0);
            let dl = lambda - g.lambda;
            g.lambda = lambda;
            change = change.max(dl.abs() * ww);
            t[g.a] += g.n * (dl * w[g.a]);
            t[g.b] -= g.n * (dl * w[g.b]);
        }
        if worst <= 1e-9 * scale && change <= 1e-9 * scale {
            return true;
        }
    }
    false
}

/// Whether the two vertex sets' bounds come within `r`.
/// The deepest overlap of two bodies' shapes at `state`: the normal of its manifold
/// (from `bl` toward `bk`) and its depth; `None` if no pair of their geoms
/// penetrates.
fn overlap(
    model: &Model,
    state: &[BodyState],
    (bk, bl): (usize, usize),
    narrow: &mut NarrowScratch,
    set: &mut ContactSet,
) -> Option<(Vec3, f64)> {
    let (pk, pl) = (state[bk].pose(), state[bl].pose());
    let mut best: Option<(Vec3, f64)> = None;
    for ga in model.bodies[bk].geoms.clone() {
        for gb in model.bodies[bl].geoms.clone() {
            let (a, b) = (&model.geoms[ga], &model.geoms[gb]);
            // A mesh file's geom is its hull to the narrow phase, but IPC steps its
            // own triangles (nonconvex, as linked rings): its hull's overlap is not
            // one.
            let hull = |s: &Shape| matches!(s, Shape::Polytope(p) if p.source.is_some());
            if hull(&a.shape) || hull(&b.shape) {
                continue;
            }
            set.manifolds.clear();
            set.points.clear();
            let (xa, xb) = (pk * a.x_bg, pl * b.x_bg);
            if !collide_pair(ga, &a.shape, &xa, gb, &b.shape, &xb, narrow, set) {
                continue;
            }
            for m in &set.manifolds {
                let depth = m.max_depth(set);
                if depth > 0.0 && best.is_none_or(|(_, d)| depth > d) {
                    best = Some((m.normal, depth));
                }
            }
        }
    }
    best
}

fn near(a: &[Vec3], b: &[Vec3], r: f64) -> bool {
    let bounds = |p: &[Vec3]| {
        p.iter()
            .fold((p[0], p[0]), |(lo, hi), v| (lo.inf(v), hi.sup(v)))
    };
    let (la, ha) = bounds(a);
    let (lb, hb) = bounds(b);
    (0..3).all(|i| la[i] - r <= hb[i] && lb[i] - r <= ha[i])
}

/// A candidate's squared barrier distance (signed: negative where round vertices
/// are placed intersecting).
fn sq(c: &Candidate) -> f64 {
    c.d()
}

/// A candidate's gap, signed (negative where a sphere is placed intersecting).
fn gap(c: &Candidate) -> f64 {
    signed_gap(c.d())
}
