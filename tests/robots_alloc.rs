//! Robot scenes step without heap allocation once warmed up: a counting global
//! allocator over 1,000 steps of the standing humanoid and of the arm pressing on
//! the table, with set-points and efforts written every tick as a controller does.

#[path = "common/alloc_counter.rs"]
mod alloc_counter;
mod common;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

use rtphys::model::Integrator;
use rtphys::{Data, Model};

/// Sinusoidal set-points and a small effort on the joints above the hips (the arm's
/// joints 1–3; the humanoid's arms and neck), so that the robots keep their
/// contacts: a world whose contact set grows past anything seen during warm-up
/// (a humanoid falling over) grows its contact buffers once, by design.
fn command(model: &Model, data: &mut Data) {
    let r = &model.robots[0];
    let t = data.time;
    let upper = |name: &str| {
        [
            "shoulder", "elbow", "wrist", "neck", "joint1", "joint2", "joint3",
        ]
        .iter()
        .any(|p| name.contains(p))
    };
    for (k, (s, tgt)) in r
        .servos
        .iter()
        .zip(data.robots[0].servo.iter_mut())
        .enumerate()
    {
        let j = &r.joints[s.joint];
        if upper(&j.name) {
            tgt.position = r.q0[j.qi] + 0.02 * (t * (1.0 + 0.1 * k as f64)).sin();
        }
    }
    for j in r.joints.iter().filter(|j| upper(&j.name)) {
        data.qfrc_cmd[r.v_offset + j.vi] = 0.01 * (2.0 * t).cos();
    }
}

#[test]
fn robot_scenes_step_without_allocating() {
    for scene in ["humanoid.toml", "arm_table.toml"] {
        // `[penalty] robot_implicit` (the links' normal force through the
        // robots' mass matrices) under both first-order integrators too.
        for (integrator, robot_implicit) in [
            (Integrator::SemiImplicitEuler, false),
            (Integrator::Rk4, false),
            (Integrator::Implicit, false),
            (Integrator::SemiImplicitEuler, true),
            (Integrator::Implicit, true),
        ] {
            let base = common::load(scene);
            let mut opt = base.opt;
            opt.integrator = integrator;
            if let rtphys::model::Method::Penalty(p) = &mut opt.method {
                p.robot_implicit = robot_implicit;
            }
            let model = base.with_options(opt);
            let mut data = Data::new(&model);
            let mut pipeline = rtphys::Pipeline::new(&model);
            for _ in 0..2000 {
                command(&model, &mut data);
                pipeline.step(&model, &mut data);
            }
            alloc_counter::start();
            for _ in 0..1000 {
                command(&model, &mut data);
                pipeline.step(&model, &mut data);
            }
            let n = alloc_counter::stop();
            println!(
                "{scene} / {integrator:?} / robot_implicit {robot_implicit}: {n} allocations in 1,000 warmed-up steps ({} contact pairs)",
                data.stats.contact_pairs
            );
            assert!(data.stats.contact_pairs > 0, "{scene}: no contacts");
            if model.robots[0].floating {
                assert!(data.qpos[2] > 0.85, "{scene}: the humanoid fell");
            }
            assert_eq!(data.stats.quarantined, 0);
            assert_eq!(n, 0, "{scene} / {integrator:?}: {n} allocations");
        }
    }
}
