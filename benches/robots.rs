//! Criterion benchmarks of the robot scenes: one controller tick (set-points
//! written into the servos, then one step of 1 ms) of the arm tracking the peers'
//! sinusoids in free space, the arm pressing on the table, the rover driving and
//! the humanoid standing. Not run in CI.
//!
//!     cargo bench --bench robots
//!     cargo bench --bench robots -- robots/humanoid      # a filter
//!
//! `rtphys bench robots` gives the figures the docs quote (on-CPU time, medians of
//! repetitions, per-stage breakdown); these are for before/after comparisons of a
//! change with Criterion's statistics.

use criterion::{criterion_group, criterion_main, Criterion};
use rtphys::model::scene::load_scene_file;
use rtphys::tools::bench::{robot_command, RobotCase};
use rtphys::{Data, Model};
use std::hint::black_box;
use std::path::Path;

fn load(rel: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    match load_scene_file(&path) {
        Ok(m) => m,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

fn bench_robots(c: &mut Criterion) {
    for case in RobotCase::ALL {
        let model = load(case.scene());
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        // Settle 2 s under the case's controller.
        for _ in 0..2000 {
            robot_command(case, &model, &mut data);
            pipeline.step(&model, &mut data);
        }
        c.bench_function(&format!("robots/{}", case.name()), |b| {
            b.iter(|| {
                robot_command(case, black_box(&model), &mut data);
                pipeline.step(black_box(&model), &mut data);
            })
        });
    }
}

criterion_group!(benches, bench_robots);
criterion_main!(benches);
