//! The fixed-cost shortcuts of the robot step change nothing (issue 18 item 4):
//!
//! - the start-of-step kinematics is kept from the end of the previous step when
//!   (q, q̇) did not change in between (`kinematics::link_states_if_moved`, the
//!   bit-compared key of `dynamics::ArticulatedData`), and ABA reuses the poses and
//!   twists at the same (q, q̇);
//! - under LCP, a robot no row acts on gets no CRBA/M⁻¹ and no second ABA.
//!
//! Each is compared bit for bit with a step that cannot use them: a fresh `Data`
//! restored from a snapshot of the same state (its kinematic caches are those of
//! the scene's initial pose, so its first step recomputes everything), for the
//! shipped robot scenes under penalty and LCP, with the benchmark's controllers, and
//! after (q, q̇) were edited between steps (a teleport), which must re-pose the links.
//! Tolerance: none (bitwise equality of every body state, q and q̇).

use rtphys::model::scene::{load_scene_file, MethodName};
use rtphys::tools::bench::{robot_command, RobotCase};
use rtphys::{Data, Model, Pipeline};
use std::path::Path;

fn load(case: RobotCase, method: Option<MethodName>) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(case.scene());
    let model = load_scene_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    rtphys::run::apply_overrides(&model, method, None, None).unwrap_or_else(|e| panic!("{e}"))
}

fn bits(data: &Data) -> Vec<u64> {
    let mut out = Vec::new();
    for s in &data.state {
        out.extend(s.x.iter().map(|x| x.to_bits()));
        out.extend(s.q.coords.iter().map(|x| x.to_bits()));
        out.extend(s.v.iter().map(|x| x.to_bits()));
        out.extend(s.w.iter().map(|x| x.to_bits()));
    }
    out.extend(data.qpos.iter().map(|x| x.to_bits()));
    out.extend(data.qvel.iter().map(|x| x.to_bits()));
    out.extend(data.qfrc_actuator.iter().map(|x| x.to_bits()));
    out.extend(data.qfrc_passive.iter().map(|x| x.to_bits()));
    out.extend(data.qacc.iter().map(|x| x.to_bits()));
    out
}

/// Steps `a` with its caches warm and, from snapshots of it, a fresh `Data` each
/// time `fresh_every` steps; every state must agree bit for bit. `edit` may change
/// (q, q̇) of both before a step.
fn compare(model: &Model, case: RobotCase, steps: usize, edit: impl Fn(usize, &mut Data)) {
    let mut a = Data::new(model);
    let mut pa = Pipeline::new(model);
    let mut pb = Pipeline::new(model);
    for k in 0..steps {
        robot_command(case, model, &mut a);
        edit(k, &mut a);
        let snap = a.snapshot();
        let mut b = Data::new(model);
        assert!(b.restore(&snap));
        pa.step(model, &mut a);
        pb.step(model, &mut b);
        assert_eq!(
            bits(&a),
            bits(&b),
            "{} ({}): step {k} differs between warm and fresh kinematics",
            case.name(),
            model.opt.method.name()
        );
    }
}

#[test]
fn kept_kinematics_is_bit_identical_penalty() {
    for case in RobotCase::ALL {
        let model = load(case, Some(MethodName::Penalty));
        compare(&model, case, 300, |_, _| {});
    }
}

#[test]
fn kept_kinematics_and_rowless_lcp_are_bit_identical() {
    for case in [RobotCase::ArmFree, RobotCase::ArmTable, RobotCase::Humanoid] {
        let model = load(case, Some(MethodName::Lcp));
        compare(&model, case, 200, |_, _| {});
    }
}

#[test]
fn edited_state_is_reposed() {
    // Every 7th step the arm's joint 2 jumps by 0.05 rad and joint 4's rate is
    // set: the start-of-step kinematics must see the edit (the links are posed from
    // the new (q, q̇)), exactly as a fresh Data does.
    for method in [MethodName::Penalty, MethodName::Lcp] {
        let model = load(RobotCase::ArmFree, Some(method));
        let r = &model.robots[0];
        let (q2, v4) = (r.q_offset + 1, r.v_offset + 3);
        compare(&model, RobotCase::ArmFree, 100, |k, d| {
            if k % 7 == 3 {
                d.qpos[q2] += 0.05;
                d.qvel[v4] = 0.3;
            }
        });
    }
}
