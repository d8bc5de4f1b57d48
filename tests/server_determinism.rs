//! Lockstep is bit-deterministic: the same command stream gives bit-identical
//! state sequences, and snapshot -> run -> restore -> run replays bitwise.

#[path = "server_common/mod.rs"]
mod common;

use common::*;
use rtphys::config::Mode;
use rtphys::server::client::{body, pb};

/// A deterministic, varied command stream on the default scene's objects.
fn command(i: u64) -> Vec<pb::BodyWrench> {
    let f = ((i as f64) * 0.37).sin() * 3.0;
    let mut v = vec![pb::BodyWrench {
        body: Some(body("red_box")),
        force: vec![f, 0.5 * f, 0.0],
        torque: vec![0.0, 0.0, 0.01 * f],
        ..Default::default()
    }];
    if i.is_multiple_of(7) {
        v.push(pb::BodyWrench {
            body: Some(body("green_ball")),
            force: vec![0.0, -1.0, 0.0],
            point: vec![0.25, -0.1, 0.8],
            duration_s: 0.003,
            ..Default::default()
        });
    }
    v
}

async fn lockstep_run(n: u64) -> Vec<Vec<u64>> {
    let (srv, mut c) = start_default(cfg(Mode::Lockstep)).await;
    let mut ctl = c
        .control(pb::ControlHello {
            name: "det".into(),
            lockstep: true,
            ..Default::default()
        })
        .await
        .unwrap();
    ctl.next_state().await.unwrap().unwrap();
    let mut out = Vec::new();
    for i in 1..=n {
        let seq = ctl.send(command(i), i % 50 == 0).await.unwrap();
        let s = ctl.wait_ack(seq).await.unwrap();
        assert_eq!(s.tick, i);
        out.push(state_bits(&s));
    }
    drop(ctl);
    srv.shutdown().await.unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_lockstep_runs_are_bit_identical() {
    let a = lockstep_run(400).await;
    let b = lockstep_run(400).await;
    assert_eq!(a.len(), 400);
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "state after tick {} differs between runs", i + 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_run_restore_run_is_bitwise() {
    let (srv, mut c) = start_default(cfg(Mode::Lockstep)).await;
    c.apply_wrench(pb::BodyWrench {
        body: Some(body("blue_box")),
        force: vec![0.3, 0.0, 0.0],
        ..Default::default()
    })
    .await
    .unwrap();
    c.step(30).await.unwrap();
    let snap = c.save().await.unwrap();
    assert_eq!(snap.tick, 30);
    async fn run(c: &mut rtphys::server::client::Client) -> Vec<Vec<u64>> {
        let mut v = Vec::new();
        for i in 0..120u64 {
            if i % 10 == 0 {
                c.apply_wrenches(command(i)).await.unwrap();
            }
            if i == 60 {
                c.clear_wrenches(vec![body("red_box")]).await.unwrap();
            }
            v.push(state_bits(&c.step(1).await.unwrap().state.unwrap()));
        }
        v
    }
    let first = run(&mut c).await;
    let r = c.restore(snap.snapshot_id).await.unwrap();
    assert_eq!(r.applied_tick, 30);
    let st = c.state().await.unwrap();
    assert_eq!(st.tick, 30);
    assert_eq!(
        bs(&st, 3).force,
        vec![0.3, 0.0, 0.0],
        "ApplyWrench inputs are part of the snapshot"
    );
    let second = run(&mut c).await;
    assert_eq!(first, second, "replay after restore is bitwise identical");
    srv.shutdown().await.unwrap();
}
