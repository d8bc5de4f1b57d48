//! `method = "ipc"` over the server (real gRPC over loopback to an in-process
//! server): the five-cube stack is served in lockstep and stepped bit for bit as an
//! offline run steps it, and in max mode it runs on its own; the realtime rule
//! (`runtime::realtime_warning`) names IPC in realtime mode only.

#[path = "server_common/mod.rs"]
mod common;

use common::*;
use rtphys::config::Mode;

const STACK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/config/scenes/ipc_stack5.toml");
const TICKS: u32 = 60;

/// Lockstep: GetWorld says "ipc"; 60 ticks over the API (the cubes falling and the
/// first landing on the ground) leave every body's position and velocity equal,
/// bit for bit, to 60 offline `Pipeline::step`s of the same scene.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ipc_stack_in_lockstep_matches_an_offline_run_bit_for_bit() {
    let (srv, mut c) = start_file(cfg(Mode::Lockstep), STACK).await;
    let w = c.world().await.unwrap();
    assert_eq!(w.method, "ipc");
    let s0 = c.state().await.unwrap();
    let s = c.step(TICKS).await.unwrap().state.unwrap();
    assert_eq!(s.tick, s0.tick + u64::from(TICKS));
    srv.shutdown().await.unwrap();

    let model = rtphys::model::scene::load_scene_file(STACK).unwrap();
    let mut data = rtphys::Data::new(&model);
    let mut pipe = rtphys::Pipeline::new(&model);
    for _ in 0..TICKS {
        pipe.step(&model, &mut data);
    }
    assert_eq!(s.bodies.len(), model.nbody());
    let mut landed = false;
    for (b, got) in s.bodies.iter().enumerate() {
        let st = data.state[b];
        for i in 0..3 {
            assert_eq!(
                got.position[i].to_bits(),
                st.x[i].to_bits(),
                "body {b} x[{i}]"
            );
            assert_eq!(
                got.linear_velocity[i].to_bits(),
                st.v[i].to_bits(),
                "body {b} v[{i}]"
            );
        }
        landed |= b == 1 && (st.x.z - 0.5).abs() < 1e-3;
    }
    assert!(
        landed,
        "cube0 has not landed in {TICKS} ticks: the run misses contact"
    );
}

/// Max mode: the IPC world runs on its own (ticks advance, state finite).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ipc_stack_runs_in_max_mode() {
    let (srv, mut c) = start_file(cfg(Mode::Max), STACK).await;
    let t0 = c.state().await.unwrap().tick;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let s = c.state().await.unwrap();
    assert!(s.tick > t0, "no tick in 0.5 s of max mode");
    assert!(s
        .bodies
        .iter()
        .all(|b| b.position.iter().all(|x| x.is_finite())));
    srv.shutdown().await.unwrap();
}

/// The realtime rule: IPC in realtime mode is warned about, not in lockstep or max,
/// and a force-model world is not.
#[test]
fn realtime_rule_names_ipc_in_realtime_only() {
    use rtphys::runtime::realtime_warning;
    let ipc = rtphys::model::scene::load_scene_file(STACK).unwrap();
    assert!(realtime_warning(&ipc, Mode::Realtime).is_some_and(|m| m.contains("ipc")));
    assert!(realtime_warning(&ipc, Mode::Lockstep).is_none());
    assert!(realtime_warning(&ipc, Mode::Max).is_none());
    let penalty = rtphys::run::apply_overrides(
        &ipc,
        Some(rtphys::model::scene::MethodName::Penalty),
        None,
        None,
    )
    .unwrap();
    assert!(realtime_warning(&penalty, Mode::Realtime).is_none());
}
