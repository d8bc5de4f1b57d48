//! Criterion benchmarks of the physics core: one step of the reference scenes after
//! settling, and single narrow-phase calls. Not run in CI.
//!
//!     cargo bench --bench physics
//!     cargo bench --bench physics -- step/pile20      # a filter
//!
//! `rtphys bench` gives the figures the docs quote (on-CPU time, medians of
//! repetitions, per-stage breakdown); these are for before/after comparisons of a
//! change with Criterion's statistics.

use criterion::{criterion_group, criterion_main, Criterion};
use rtphys::collision::{collide_pair, ContactSet, NarrowScratch, Shape};
use rtphys::experiments::{pile_scene, PileKind};
use rtphys::math::{Pose, Quat, Vec3};
use rtphys::model::scene::{load_scene_file, load_scene_str};
use rtphys::{Data, Model, Pipeline};
use std::hint::black_box;
use std::path::Path;

fn scene_file(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("config/scenes")
        .join(name);
    match load_scene_file(&path) {
        Ok(m) => m,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// The world after `seconds` of simulation, with the pipeline that stepped it.
fn settled(model: &Model, seconds: f64) -> (Pipeline, Data) {
    let mut data = Data::new(model);
    let mut pipeline = Pipeline::new(model);
    for _ in 0..(seconds / model.opt.dt).round() as u64 {
        pipeline.step(model, &mut data);
    }
    (pipeline, data)
}

fn bench_steps(c: &mut Criterion) {
    let pile = match load_scene_str(
        &pile_scene(PileKind::Bench, 20, 7),
        "<pile20>",
        Path::new("."),
    ) {
        Ok(m) => m,
        Err(e) => panic!("pile20: {e}"),
    };
    let scenes = [
        ("step/box", scene_file("box_on_plane.toml"), 1.0),
        ("step/stack5", scene_file("stack5.toml"), 2.0),
        ("step/pile20", pile, 3.0),
    ];
    for (name, model, settle_s) in scenes {
        let (mut pipeline, mut data) = settled(&model, settle_s);
        c.bench_function(name, |b| {
            b.iter(|| pipeline.step(black_box(&model), &mut data))
        });
    }
}

/// The velocity-level complementarity step (`method = "lcp"`) on the same scenes,
/// with each solver (Lemke on the pile: ≈ 0.2 s per step, a short settle).
fn bench_lcp_steps(c: &mut Criterion) {
    use rtphys::model::{LcpParams, LcpSolverKind, Method};
    let pile = match load_scene_str(
        &pile_scene(PileKind::Bench, 20, 7).replace("method = \"penalty\"", "method = \"lcp\""),
        "<pile20>",
        Path::new("."),
    ) {
        Ok(m) => m,
        Err(e) => panic!("pile20: {e}"),
    };
    for (solver, tag) in [(LcpSolverKind::Lemke, "lemke"), (LcpSolverKind::Pgs, "pgs")] {
        let scenes = [
            ("box", scene_file("lcp_box.toml"), 1.0),
            ("stack5", scene_file("lcp_stack5.toml"), 2.0),
            (
                "pile20",
                pile.clone(),
                if tag == "lemke" { 0.5 } else { 3.0 },
            ),
        ];
        for (name, base, settle_s) in scenes {
            let mut opt = base.opt;
            opt.method = Method::Lcp(LcpParams {
                solver,
                ..LcpParams::default()
            });
            let model = base.with_options(opt);
            let (mut pipeline, mut data) = settled(&model, settle_s);
            c.bench_function(&format!("lcp_{tag}/{name}"), |b| {
                b.iter(|| pipeline.step(black_box(&model), &mut data))
            });
        }
    }
}

fn bench_collide(c: &mut Criterion) {
    let mut scratch = NarrowScratch::default();
    let mut out = ContactSet::default();
    let plane = Shape::plane();
    let cube = match Shape::cuboid(Vec3::new(0.5, 0.5, 0.5)) {
        Ok(s) => s,
        Err(e) => panic!("cuboid: {e}"),
    };
    let small = match Shape::cuboid(Vec3::new(0.05, 0.05, 0.05)) {
        Ok(s) => s,
        Err(e) => panic!("cuboid: {e}"),
    };

    // A 1 m box resting flat on the plane, 1 mm deep (four corner contacts).
    let x_plane = Pose::identity();
    let x_box = Pose::from_parts(Vec3::new(0.0, 0.0, 0.499).into(), Quat::identity());
    out.clear();
    assert!(
        collide_pair(
            0,
            &cube,
            &x_box,
            1,
            &plane,
            &x_plane,
            &mut scratch,
            &mut out
        ),
        "collide/box_plane_flat: the poses should penetrate"
    );
    c.bench_function("collide/box_plane_flat", |b| {
        b.iter(|| {
            out.clear();
            collide_pair(
                0,
                black_box(&cube),
                black_box(&x_box),
                1,
                &plane,
                &x_plane,
                &mut scratch,
                &mut out,
            )
        })
    });
    // The tilted unit cube of 000 §IV-A, corner 2 cm below the plane.
    let x_tilt = Pose::from_parts(
        Vec3::new(0.0, 0.0, 0.7727139300223619).into(),
        Quat::from_euler_angles(0.47, 0.31, 0.83),
    );
    out.clear();
    assert!(
        collide_pair(
            0,
            &cube,
            &x_tilt,
            1,
            &plane,
            &x_plane,
            &mut scratch,
            &mut out
        ),
        "collide/box_plane_tilted: the poses should penetrate"
    );
    c.bench_function("collide/box_plane_tilted", |b| {
        b.iter(|| {
            out.clear();
            collide_pair(
                0,
                black_box(&cube),
                black_box(&x_tilt),
                1,
                &plane,
                &x_plane,
                &mut scratch,
                &mut out,
            )
        })
    });
    // Two 0.1 m boxes of a stack, face on face, 0.1 mm deep, upper one twisted 10°.
    let x_lower = Pose::from_parts(Vec3::new(0.0, 0.0, 0.05).into(), Quat::identity());
    let x_upper = Pose::from_parts(
        Vec3::new(0.003, -0.002, 0.1499).into(),
        Quat::from_euler_angles(0.0, 0.0, 10f64.to_radians()),
    );
    out.clear();
    assert!(
        collide_pair(
            0,
            &small,
            &x_lower,
            1,
            &small,
            &x_upper,
            &mut scratch,
            &mut out
        ),
        "collide/box_box_stacked: the poses should penetrate"
    );
    c.bench_function("collide/box_box_stacked", |b| {
        b.iter(|| {
            out.clear();
            collide_pair(
                0,
                black_box(&small),
                black_box(&x_lower),
                1,
                &small,
                black_box(&x_upper),
                &mut scratch,
                &mut out,
            )
        })
    });
    // Edge-on contact: the upper box tilted about two axes, a corner 1 mm deep.
    let q = Quat::from_euler_angles(0.6, 0.4, 0.3);
    let lowest = (0..8)
        .map(|i| {
            let c = Vec3::new(
                if i & 1 == 0 { -0.05 } else { 0.05 },
                if i & 2 == 0 { -0.05 } else { 0.05 },
                if i & 4 == 0 { -0.05 } else { 0.05 },
            );
            (q * c).z
        })
        .fold(f64::INFINITY, f64::min);
    let x_corner = Pose::from_parts(Vec3::new(0.01, 0.0, 0.1 - lowest - 0.001).into(), q);
    out.clear();
    assert!(
        collide_pair(
            0,
            &small,
            &x_lower,
            1,
            &small,
            &x_corner,
            &mut scratch,
            &mut out
        ),
        "collide/box_box_corner: the poses should penetrate"
    );
    c.bench_function("collide/box_box_corner", |b| {
        b.iter(|| {
            out.clear();
            collide_pair(
                0,
                black_box(&small),
                black_box(&x_lower),
                1,
                &small,
                black_box(&x_corner),
                &mut scratch,
                &mut out,
            )
        })
    });
}

criterion_group!(benches, bench_steps, bench_lcp_steps, bench_collide);
criterion_main!(benches);
