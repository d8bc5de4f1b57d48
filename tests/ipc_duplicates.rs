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
use rtphys::ipc::geom::barrier;
use rtphys::ipc::mesh::{
    constraint_set, max_approximator_terms, merge_identical_terms, term_mollifier, ApproxScratch,
    Candidate, SurfaceMesh,
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
/// corner (0.1, 0.1) 5 (2 + 3), the two off the diagonal 1. With the weights every
/// corner is met once (to 1e-12): the plane's diagonal is a flat edge (its two
/// triangles in one plane), no feature of the surface, so the cube's edges crossing
/// it add nothing, and the barrier's push is symmetric about the cube's centre
/// (session 29's weights, before flat edges were left out: 2, 1, 1, 2).
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
                Candidate::EdgeEdge { edge_a, .. } => {
                    let ea = mb.edges[edge_a as usize].map(|i| bv[i as usize]);
                    let m = term_mollifier(c, (&mb, &bv), (&mp, &mp.vertices));
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
                count.iter().all(|&n| (n - 1.0).abs() < 1e-12),
                "corners counted {count:?}"
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

/// Merging the terms that are one function (`ipc::mesh::merge_identical_terms`, run
/// under `[ipc] count_once` after the max approximator) changes the set's barrier
/// only by round-off: Σ w m b over the merged set equals the unmerged one to 1e-12
/// relative, for the cube at the origin over the plane (as above) and for two unit
/// cubes stacked face on face with their corners aligned (the stack of
/// `ipc_stack5`), and the merged set is smaller. Measured: ≤ 3.2e-16 relative;
/// 8 → 4 and 176 → 32 terms (the plain set: 15 and 111; the flat edges' pairs
/// leave before the approximator adds its terms).
#[test]
fn merging_identical_terms_keeps_the_barrier() {
    let cube = |h: f64, dz: f64| {
        let c = Shape::cuboid(Vec3::new(h, h, h)).expect("cube");
        let (v, f) = shape_triangles(&c, 100.0);
        let v: Vec<Vec3> = v.iter().map(|p| p + Vec3::new(0.0, 0.0, dz)).collect();
        SurfaceMesh::new(v, f)
    };
    let (pv, pf) = shape_triangles(&Shape::plane(), 100.0);
    let cases = [
        (cube(0.1, 0.1005), SurfaceMesh::new(pv, pf), 1e-6),
        (cube(0.5, 1.0 + 4.57e-4), cube(0.5, 0.0), 1e-6),
    ];
    for (a, b, d_hat) in cases {
        let (mut pairs, mut w) = (Vec::new(), Vec::new());
        constraint_set((&a, &a.vertices), (&b, &b.vertices), d_hat, &mut pairs);
        let plain = pairs.len();
        w.resize(plain, 1.0);
        let mut scratch = ApproxScratch::default();
        max_approximator_terms(
            (&a, &a.vertices),
            (&b, &b.vertices),
            d_hat,
            0,
            (&mut pairs, &mut w),
            &mut scratch,
        );
        let sum = |pairs: &[(bool, Candidate)], w: &[f64]| -> f64 {
            (pairs.iter().zip(w))
                .map(|((_, c), w)| {
                    let m = term_mollifier(c, (&a, &a.vertices), (&b, &b.vertices));
                    w * m * barrier(c.d(), d_hat)
                })
                .sum()
        };
        let before = (pairs.len(), sum(&pairs, &w));
        merge_identical_terms((&a, &b), 0, (&mut pairs, &mut w), &mut scratch);
        let after = (pairs.len(), sum(&pairs, &w));
        println!(
            "plain {plain}, weighted {} -> merged {} terms; Σ w m b {:.15e} -> {:.15e}",
            before.0, after.0, before.1, after.1
        );
        assert!(
            (after.1 - before.1).abs() <= 1e-12 * before.1.abs(),
            "{before:?} -> {after:?}"
        );
        assert!(after.0 < before.0, "{before:?} -> {after:?}");
        assert!(w.iter().all(|&w| w != 0.0));
    }
}

/// `ipc_stack5` with `[ipc] count_once = true`, 1,000 steps: every step's Newton
/// solve converges. Measured before the inertial energy was written relative to
/// its start value (`Newton::inertial`): 22 of 1,000 steps stopped at the
/// iteration limit once the stack rested (the first at step 179) — the last
/// Newton decreases (~1e-17) were below the rounding of an O(1) energy
/// (−tr(R A) ≈ −1.25), so the line search cut the step at random and the residual
/// velocity stayed above the tolerance. Now 0.
#[test]
fn a_stack_counting_once_converges_every_step() {
    let text = std::fs::read_to_string(common::scene_path("ipc_stack5.toml")).expect("scene");
    let model = load_str(&text.replace("[ipc]\n", "[ipc]\ncount_once = true\n"));
    assert!(matches!(&model.opt.method, rtphys::model::Method::Ipc(p) if p.count_once));
    let mut data = rtphys::Data::new(&model);
    let mut pipe = rtphys::Pipeline::new(&model);
    let mut failed = Vec::new();
    for step in 1..=1000 {
        pipe.step(&model, &mut data);
        if data.stats.solver_failed {
            failed.push(step);
        }
    }
    println!("{} failed steps: {failed:?}", failed.len());
    assert!(
        failed.is_empty(),
        "{} failed steps: {failed:?}",
        failed.len()
    );
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
