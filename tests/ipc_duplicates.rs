//! Rigid IPC's constraint set counts a contact once per primitive pair below d̂
//! (004; the original IPC keeps the repeats, with their multiplicity). A cube
//! resting flat on a plane at the origin has two bottom corners on the diagonal
//! shared by the plane's two triangles; each such corner is met once per incident
//! plane triangle and once per incident cube edge, and the cube's triangulation
//! gives the two corners different valences (6 and 4). Without the max
//! approximator's weights (`ipc::mesh::max_approximator_terms`) the barrier pushes
//! harder at one of them and a cube dropped flat there spins up to 0.46 rad/s
//! (docs/EXPERIMENTS.md, "Outside scenes, session 28" and "session 29").

mod common;

use common::load_str;
use rtphys::collision::Shape;
use rtphys::ipc::geom::{barrier, edge_mollifier, mollifier_threshold, V3};
use rtphys::ipc::mesh::{
    constraint_set, max_approximator_terms, ApproxScratch, Candidate, SurfaceMesh,
};
use rtphys::math::Vec3;
use rtphys::pipeline::ipc::tessellate::shape_triangles;

/// The weighted barrier of each bottom corner of a 0.2 m cube resting a gap
/// g = 0.5 mm above a plane at the origin (d̂ = 1 mm), in units of b(g²): each
/// term's w m b(d) (m the edge–edge mollifier) is given to the corner where it acts
/// (a cube vertex, or where a cube edge meets the plane's diagonal).
///
/// Measured: the plain set (weights 1) gives the corner (−0.1, −0.1) 7 (2
/// vertex–face pairs on the diagonal's two triangles + 5 edge–edge pairs with the
/// diagonal: its three box edges and two side faces' diagonals), the opposite
/// corner (0.1, 0.1) 5 (2 + 3), the two off the diagonal 1. With the weights each
/// corner on the diagonal is met once from its vertex and once from its edges (2),
/// each corner off it once (1): the two corners on the diagonal are counted alike
/// (to 1e-12), so the barrier's push is symmetric about the cube's centre.
#[test]
fn corners_on_a_shared_diagonal_are_counted_alike() {
    let counts = |weighted: bool| {
        let cube = Shape::cuboid(Vec3::new(0.1, 0.1, 0.1)).expect("cube");
        let (bv, bf) = shape_triangles(&cube, 100.0);
        let (pv, pf) = shape_triangles(&Shape::plane(), 100.0);
        let bv: Vec<Vec3> = bv.iter().map(|v| v + Vec3::new(0.0, 0.0, 0.1005)).collect();
        let (mb, mp) = (SurfaceMesh::new(bv.clone(), bf), SurfaceMesh::new(pv, pf));
        let d_hat = 1e-6;
        let (mut pairs, mut w) = (Vec::new(), Vec::new());
        constraint_set((&mb, &bv), (&mp, &mp.vertices), d_hat, &mut pairs);
        w.resize(pairs.len(), 1.0);
        if weighted {
            let mut scratch = ApproxScratch::default();
            let sides = ((&mb, &bv[..]), (&mp, &mp.vertices[..]));
            max_approximator_terms(
                sides.0,
                sides.1,
                d_hat,
                0,
                (&mut pairs, &mut w),
                &mut scratch,
            );
        }
        let one = barrier(0.0005f64.powi(2), d_hat);
        let corners: Vec<Vec3> = bv.iter().filter(|v| v.z < 0.11).copied().collect();
        let mut count = vec![0.0; corners.len()];
        for ((b_vertex, c), w) in pairs.iter().zip(&w) {
            // Where the term acts on the cube (mesh a), or None for a term the
            // mollifier zeroes (the cube's bottom diagonal along the plane's).
            let (at, m) = match *c {
                Candidate::VertexFace { vertex, .. } if !b_vertex => {
                    (Some(bv[vertex as usize]), 1.0)
                }
                Candidate::VertexEdge { vertex, .. } if !b_vertex => {
                    (Some(bv[vertex as usize]), 1.0)
                }
                Candidate::VertexVertex { vertex_a, .. } => (Some(bv[vertex_a as usize]), 1.0),
                Candidate::EdgeEdge { edge_a, edge_b, .. } => {
                    let ea = mb.edges[edge_a as usize].map(|i| bv[i as usize]);
                    let eb = mp.edges[edge_b as usize].map(|i| mp.vertices[i as usize]);
                    let eps = mollifier_threshold(&ea[0], &ea[1], &eb[0], &eb[1]);
                    let (a, b) = (
                        ea.map(|p| V3::<f64>::cst(&p)),
                        eb.map(|p| V3::<f64>::cst(&p)),
                    );
                    let m: f64 = edge_mollifier([&a[0], &a[1]], [&b[0], &b[1]], eps);
                    (meets_diagonal_at(ea[0], ea[1]), m)
                }
                _ => panic!("a term with a plane vertex near the cube: {c:?}"),
            };
            let term = w * m * barrier(c.d(), d_hat) / one;
            match at {
                Some(p) => {
                    let k = (0..corners.len())
                        .min_by(|&i, &j| {
                            (corners[i] - p).norm().total_cmp(&(corners[j] - p).norm())
                        })
                        .expect("corners");
                    assert!(
                        (corners[k] - p).norm() < 1e-12,
                        "a term away from the corners at {p:?}"
                    );
                    count[k] += term;
                }
                None => assert!(term.abs() < 1e-12, "an unplaced term {term} of {c:?}"),
            }
        }
        (corners, count)
    };
    for weighted in [false, true] {
        let (corners, count) = counts(weighted);
        for (c, n) in corners.iter().zip(&count) {
            println!(
                "weighted {weighted}: corner ({:+.1}, {:+.1}): {n:.15}",
                c.x, c.y
            );
        }
        let on: Vec<f64> = (corners.iter().zip(&count))
            .filter(|(c, _)| (c.x - c.y).abs() < 1e-12)
            .map(|(_, n)| *n)
            .collect();
        assert_eq!(on.len(), 2);
        if weighted {
            assert!(
                (on[0] - on[1]).abs() < 1e-12,
                "corners on the diagonal counted {on:?}"
            );
            assert!(
                count.iter().all(|&n| n >= 1.0 - 1e-12),
                "a corner under-counted: {count:?}"
            );
        } else {
            // The premise: the plain set counts them 7 and 5.
            assert!((on[0] - on[1]).abs() > 1.0, "plain set {on:?}");
        }
    }
}

/// A 0.2 m cube dropped flat from 0.5 m (μ = 0 and μ = 0.5) onto a plane and onto a
/// static slab, at the origin (two corners on the triangles' shared diagonal), with
/// `[ipc] count_once = true`: its largest |ω| over 0.8 s stays ≤ 1e-4 rad/s.
/// Measured 4.0e-16 – 2.6e-10 rad/s (main without the weights: 0.46 rad/s at any
/// Newton tolerance). The scene's tolerance is 1e-7 m/s so that the bound measures
/// the barrier's symmetry, not the solve's stop.
#[test]
fn a_cube_dropped_flat_at_the_origin_does_not_spin() {
    let cube = "[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [0.2, 0.2, 0.2] }\nmass = 1.0\nposition = [0.0, 0.0, 0.6]\nmaterial = { mu = MU }\n";
    let plane = "[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"plane\" }\nmaterial = { mu = MU }\n";
    let slab = "[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"box\", size = [1.0, 1.0, 0.2] }\nposition = [0.0, 0.0, -0.1]\nmaterial = { mu = MU }\n";
    for floor in [plane, slab] {
        for mu in ["0.0", "0.5"] {
            let scene = format!(
                "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = \"ipc\"\n[ipc]\nnewton_tolerance = 1e-7\ncount_once = true\n{}{}",
                floor.replace("MU", mu),
                cube.replace("MU", mu)
            );
            let states = common::body_states(&load_str(&scene), "b", 800);
            let w = states.iter().map(|s| s.w.norm()).fold(0.0, f64::max);
            let end = states.last().expect("steps");
            println!(
                "μ = {mu}: max |ω| {w:.3e} rad/s, rests at z = {:.6} m",
                end.x.z
            );
            assert!(w <= 1e-4, "μ = {mu}: the cube spins at {w:.3e} rad/s");
            assert!(
                (end.x.z - 0.101).abs() < 1e-3,
                "μ = {mu}: rests at z = {}",
                end.x.z
            );
        }
    }
}

/// Where segment p–q meets the vertical plane x = y (its lower end for a
/// vertical edge on it); None if it does not, or lies along it.
fn meets_diagonal_at(p: Vec3, q: Vec3) -> Option<Vec3> {
    let d = q - p;
    let den = d.x - d.y;
    if den.abs() < 1e-15 {
        let vertical = d.x.abs() + d.y.abs() < 1e-15;
        return (vertical && (p.x - p.y).abs() < 1e-12).then(|| if p.z < q.z { p } else { q });
    }
    let t = (p.y - p.x) / den;
    (0.0..=1.0).contains(&t).then(|| p + d * t)
}
