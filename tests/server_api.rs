//! The API's contracts over real gRPC on loopback: every bad input gets its status
//! code and names its field without disturbing what was applied; stream limits;
//! the command watchdog and its safe behaviours; slow subscribers; health,
//! reflection, message-size bounds and graceful shutdown.

#[path = "server_common/mod.rs"]
mod common;

use common::*;
use rtphys::config::Mode;
use rtphys::server::client::{body, body_id, pb, Client};
use std::time::Duration;
use tonic::Code;

fn expect_err<T: std::fmt::Debug>(r: Result<T, tonic::Status>, code: Code, needle: &str) {
    let e = r.expect_err("request must fail");
    assert_eq!(e.code(), code, "{e:?}");
    assert!(
        e.message().contains(needle),
        "message {:?} should name {needle:?}",
        e.message()
    );
}

fn push(f: Vec<f64>) -> pb::BodyWrench {
    pb::BodyWrench {
        body: Some(body("probe")),
        force: f,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_get_status_codes_and_lose_nothing() {
    let (srv, mut c) = start(cfg(Mode::Lockstep), ZERO_G).await;
    c.apply_wrench(push(vec![1.5, 0.0, 0.0])).await.unwrap();
    c.step(5).await.unwrap();
    let before = c.state().await.unwrap();
    let gen = c.world().await.unwrap().world_generation;

    expect_err(
        c.apply_wrench(push(vec![1.0, f64::NAN, 0.0])).await,
        Code::InvalidArgument,
        "wrenches[0].force[1]",
    );
    expect_err(
        c.apply_wrench(push(vec![1.0, f64::INFINITY, 0.0])).await,
        Code::InvalidArgument,
        "wrenches[0].force[1]",
    );
    expect_err(
        c.apply_wrench(push(vec![1.0, 0.0])).await,
        Code::InvalidArgument,
        "wrenches[0].force",
    );
    expect_err(
        c.apply_wrench(push(vec![1e12, 0.0, 0.0])).await,
        Code::InvalidArgument,
        "wrenches[0].force[0]",
    );
    let mut w = push(vec![1.0, 0.0, 0.0]);
    w.torque = vec![0.0; 4];
    expect_err(
        c.apply_wrench(w).await,
        Code::InvalidArgument,
        "wrenches[0].torque",
    );
    let mut w = push(vec![1.0, 0.0, 0.0]);
    w.point = vec![0.0, f64::NAN, 0.0];
    expect_err(
        c.apply_wrench(w).await,
        Code::InvalidArgument,
        "wrenches[0].point[1]",
    );
    let mut w = push(vec![1.0, 0.0, 0.0]);
    w.duration_s = -1.0;
    expect_err(
        c.apply_wrench(w).await,
        Code::InvalidArgument,
        "wrenches[0].duration_s",
    );
    let mut w = push(vec![1.0, 0.0, 0.0]);
    w.frame = 7;
    expect_err(
        c.apply_wrench(w).await,
        Code::InvalidArgument,
        "wrenches[0].frame",
    );
    let mut w = push(vec![1.0, 0.0, 0.0]);
    w.body = Some(body("no_such_body"));
    expect_err(
        c.apply_wrench(w).await,
        Code::NotFound,
        "wrenches[0].body.name",
    );
    let mut w = push(vec![1.0, 0.0, 0.0]);
    w.body = Some(body_id(42));
    expect_err(
        c.apply_wrench(w).await,
        Code::NotFound,
        "wrenches[0].body.id",
    );
    let mut w = push(vec![1.0, 0.0, 0.0]);
    w.body = None;
    expect_err(
        c.apply_wrench(w).await,
        Code::InvalidArgument,
        "wrenches[0].body",
    );
    let mut w = push(vec![1.0, 0.0, 0.0]);
    w.body = Some(body("ground"));
    expect_err(c.apply_wrench(w).await, Code::InvalidArgument, "static");
    expect_err(
        c.apply_wrenches(vec![push(vec![1.0, 0.0, 0.0]); 17]).await,
        Code::InvalidArgument,
        "wrenches",
    );
    // An id from an older world generation.
    let stale = c
        .raw
        .apply_wrench(pb::ApplyWrenchRequest {
            header: Some(pb::CommandHeader {
                seq: 1,
                client_time_ns: 0,
                world_generation: gen + 5,
            }),
            wrenches: vec![push(vec![1.0, 0.0, 0.0])],
        })
        .await;
    expect_err(stale, Code::NotFound, "world_generation");
    expect_err(c.step(0).await, Code::InvalidArgument, "n");
    expect_err(c.step(2_000_000).await, Code::InvalidArgument, "n");
    expect_err(c.restore(999).await, Code::NotFound, "snapshot_id");
    expect_err(
        c.set_mode(pb::RunMode::Unspecified, -2.0).await,
        Code::InvalidArgument,
        "realtime_factor",
    );
    expect_err(
        c.raw
            .set_mode(pb::SetModeRequest {
                mode: 17,
                realtime_factor: 0.0,
            })
            .await,
        Code::InvalidArgument,
        "mode",
    );
    expect_err(
        c.load_scene_toml("[[body]]\nname = 3\n", "bad").await,
        Code::InvalidArgument,
        "toml",
    );
    expect_err(
        c.raw
            .get_state(pb::GetStateRequest {
                fields: vec![99],
                bodies: vec![],
            })
            .await,
        Code::InvalidArgument,
        "fields[0]",
    );
    expect_err(
        c.watch(pb::StreamStateRequest {
            decimation: 10_000_000,
            ..Default::default()
        })
        .await,
        Code::InvalidArgument,
        "decimation",
    );
    expect_err(
        c.watch(pb::StreamStateRequest {
            bodies: vec![body("ghost")],
            ..Default::default()
        })
        .await,
        Code::NotFound,
        "bodies[0].name",
    );

    // Nothing reached physics: same tick, same state, the earlier wrench still applies.
    let after = c.state().await.unwrap();
    assert_eq!(state_bits(&before), state_bits(&after));
    assert_eq!(bs(&after, 1).force, vec![1.5, 0.0, 0.0]);

    // Step while running in realtime: FailedPrecondition.
    c.set_mode(pb::RunMode::Realtime, 0.0).await.unwrap();
    expect_err(c.step(1).await, Code::FailedPrecondition, "lockstep");
    c.set_mode(pb::RunMode::Lockstep, 0.0).await.unwrap();

    // The control stream rejects a bad command, names the field, and goes on.
    let mut ctl = c
        .control(pb::ControlHello {
            lockstep: true,
            ..Default::default()
        })
        .await
        .unwrap();
    ctl.next_state().await.unwrap().unwrap();
    let seq = ctl
        .send(vec![push(vec![2.0, 0.0, 0.0])], false)
        .await
        .unwrap();
    let s = ctl.wait_ack(seq).await.unwrap();
    let t0 = s.tick;
    let bad = ctl
        .send(vec![push(vec![f64::NAN, 0.0, 0.0])], false)
        .await
        .unwrap();
    let e = ctl.wait_ack(bad).await.expect_err("rejected");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("command.wrenches[0].force[0]"),
        "{}",
        e.message()
    );
    let bad = ctl
        .send(
            vec![pb::BodyWrench {
                body: Some(body("nobody")),
                ..Default::default()
            }],
            false,
        )
        .await
        .unwrap();
    let e = ctl.wait_ack(bad).await.expect_err("rejected");
    assert_eq!(e.code(), Code::NotFound);
    let seq = ctl.send(vec![], false).await.unwrap();
    let s = ctl.wait_ack(seq).await.unwrap();
    assert_eq!(s.tick, t0 + 1, "rejected commands did not step the world");
    assert_eq!(
        bs(&s, 1).force,
        vec![3.5, 0.0, 0.0],
        "unary 1.5 N + stream 2 N still applied"
    );
    let stats = c.stats(false).await.unwrap();
    assert_eq!(stats.controller.len(), 1);
    assert_eq!(stats.controller[0].commands_rejected, 2);
    srv.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_streams_is_resource_exhausted() {
    let mut cf = cfg(Mode::Lockstep);
    cf.server.max_streams = 3;
    cf.server.max_controllers = 1;
    let (srv, mut c) = start(cf, ZERO_G).await;
    let ctl = c.control(pb::ControlHello::default()).await.unwrap();
    let e = c
        .control(pb::ControlHello::default())
        .await
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    let a = c.watch(pb::StreamStateRequest::default()).await.unwrap();
    let b = c.watch(pb::StreamStateRequest::default()).await.unwrap();
    let e = c
        .watch(pb::StreamStateRequest::default())
        .await
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    assert!(e.message().contains("max_streams"));
    // Closing a stream frees its slot.
    drop(a);
    let mut ok = false;
    for _ in 0..50 {
        if c.watch(pb::StreamStateRequest::default()).await.is_ok() {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(ok, "a slot is free again after a stream closed");
    drop((b, ctl));
    srv.shutdown().await.unwrap();
}

async fn watchdog_case(c: &mut Client, behavior: pb::SafeBehavior) {
    c.reset().await.unwrap();
    let mut ctl = c
        .control(pb::ControlHello {
            name: format!("{behavior:?}"),
            watchdog_timeout_s: 0.05,
            safe_behavior: behavior as i32,
            ..Default::default()
        })
        .await
        .unwrap();
    ctl.next_state().await.unwrap().unwrap();
    let seq = ctl
        .send(vec![push(vec![1.0, 0.0, 0.0])], false)
        .await
        .unwrap();
    let applied = ctl.wait_ack(seq).await.unwrap();
    let applied_tick = ctl.own_ack(&applied).unwrap().applied_tick;
    let last_cmd_ns = ctl.own_ack(&applied).unwrap().server_receive_ns;
    // Silence: read states until the watchdog reports it fired.
    let mut prev = applied;
    let tripped = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let s = ctl.next_state().await.unwrap().unwrap();
            if ctl.own_ack(&s).unwrap().watchdog.as_ref().unwrap().tripped {
                return s;
            }
            prev = s;
        }
    })
    .await
    .expect("watchdog fires");
    let wd = ctl.own_ack(&tripped).unwrap().watchdog.unwrap();
    assert_eq!(wd.trips, 1);
    // Not before the timeout: the watchdog runs on the wall clock (a loaded machine
    // skips ticks in realtime mode, so a tick count would not measure it).
    let silent_ns = tripped.server_time_ns - last_cmd_ns;
    assert!(
        silent_ns >= 50_000_000,
        "not before the timeout: fired {} ms after the last command ({} ticks)",
        silent_ns as f64 * 1e-6,
        tripped.tick - applied_tick
    );
    let (f_prev, f_now) = (bs(&prev, 1).force.clone(), bs(&tripped, 1).force.clone());
    assert_eq!(
        f_prev,
        vec![1.0, 0.0, 0.0],
        "driven until the watchdog fired"
    );
    // The safe behaviour is in the very tick that reports the trip.
    assert_eq!(
        tripped.tick,
        prev.tick + 1,
        "consecutive states around the trip"
    );
    match behavior {
        pb::SafeBehavior::Zero => assert_eq!(f_now, vec![0.0, 0.0, 0.0]),
        pb::SafeBehavior::Hold => assert_eq!(f_now, vec![1.0, 0.0, 0.0]),
        pb::SafeBehavior::Damp => {
            let v = bs(&prev, 1).linear_velocity[0];
            assert!(v > 0.0);
            assert_close(f_now[0], -10.0 * 2.0 * v, 1e-9, "damping force -c m v");
        }
        pb::SafeBehavior::Unspecified => unreachable!(),
    }
    let st = c.stats(false).await.unwrap();
    let me = st
        .controller
        .iter()
        .find(|x| x.stream_id == tripped.stream_id)
        .unwrap();
    assert!(me.watchdog.as_ref().unwrap().tripped);
    // A new command ends the safe behaviour.
    let seq = ctl
        .send(vec![push(vec![0.5, 0.0, 0.0])], false)
        .await
        .unwrap();
    let s = ctl.wait_ack(seq).await.unwrap();
    assert!(!ctl.own_ack(&s).unwrap().watchdog.as_ref().unwrap().tripped);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchdog_fires_and_safe_behaviour_applies_within_one_tick() {
    let (srv, mut c) = start(cfg(Mode::Realtime), ZERO_G).await;
    for b in [
        pb::SafeBehavior::Zero,
        pb::SafeBehavior::Hold,
        pb::SafeBehavior::Damp,
    ] {
        watchdog_case(&mut c, b).await;
    }
    srv.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_subscriber_slows_nobody() {
    let mut cf = cfg(Mode::Lockstep);
    cf.physics.state_ring = 256;
    let (srv, mut c) = start(cf, ZERO_G).await;
    // The sleeper has its own connection (as another client would) and never reads.
    let mut sleeper_client = Client::connect(&srv.url()).await.unwrap();
    let mut sleeper = sleeper_client
        .watch(pb::StreamStateRequest::default())
        .await
        .unwrap();
    let mut reader_client = Client::connect(&srv.url()).await.unwrap();
    let mut reader = reader_client
        .watch(pb::StreamStateRequest {
            fields: vec![pb::StateField::Pose as i32],
            ..Default::default()
        })
        .await
        .unwrap();
    let first = reader.message().await.unwrap().unwrap();
    let n = 3000u64;
    let reading = tokio::spawn(async move {
        let mut expect = first.tick + 1;
        while expect <= first.tick + n {
            let s = reader.message().await.unwrap().unwrap();
            assert_eq!(s.tick, expect, "reader sees every tick in order");
            assert_eq!(s.dropped, 0);
            expect += 1;
        }
        reader
    });
    for _ in 0..(n / 100) {
        c.step(100).await.unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let _reader = tokio::time::timeout(Duration::from_secs(30), reading)
        .await
        .unwrap()
        .unwrap();
    // Enough further states to overflow the sleeper's HTTP/2 window (1 MiB) and the ring.
    for _ in 0..6 {
        c.step(1000).await.unwrap();
    }
    // Realtime with the sleeper still attached: no overruns at a modest rate.
    c.set_mode(pb::RunMode::Realtime, 0.05).await.unwrap(); // 50 Hz: generous for a loaded CI machine
    c.stats(true).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let st = c.stats(false).await.unwrap();
    assert!(st.ticks >= 50, "ticks {}", st.ticks);
    assert_eq!(st.overruns, 0, "overruns with a stalled subscriber");
    // When the sleeper finally reads, it learns it lost its oldest states (counted).
    let lost = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let s = sleeper.message().await.unwrap().unwrap();
            if s.dropped > 0 {
                return s.dropped;
            }
        }
    })
    .await
    .expect("the sleeper's loss is reported");
    assert!(c.stats(false).await.unwrap().state_frames_dropped >= lost);
    srv.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_reflection_size_limit_and_graceful_shutdown() {
    let mut cf = cfg(Mode::Realtime);
    cf.server.max_message_bytes = 64 * 1024;
    let (srv, mut c) = start(cf, ZERO_G).await;
    // grpc.health.v1
    let mut h = tonic_health::pb::health_client::HealthClient::new(c.channel.clone());
    for svc in ["", "rtphys.v1.Simulation"] {
        let r = h
            .check(tonic_health::pb::HealthCheckRequest {
                service: svc.into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            r.status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32
        );
    }
    // Reflection, v1 and v1alpha.
    {
        use tonic_reflection::pb::v1::{
            server_reflection_client::ServerReflectionClient,
            server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
            ServerReflectionRequest,
        };
        let mut r = ServerReflectionClient::new(c.channel.clone());
        let req = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut resp = r
            .server_reflection_info(tokio_stream::iter(vec![req]))
            .await
            .unwrap()
            .into_inner();
        let m = resp.message().await.unwrap().unwrap();
        let Some(MessageResponse::ListServicesResponse(l)) = m.message_response else {
            panic!("{m:?}")
        };
        assert!(
            l.service.iter().any(|s| s.name == "rtphys.v1.Simulation"),
            "{l:?}"
        );
    }
    {
        use tonic_reflection::pb::v1alpha::{
            server_reflection_client::ServerReflectionClient,
            server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
            ServerReflectionRequest,
        };
        let mut r = ServerReflectionClient::new(c.channel.clone());
        let req = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut resp = r
            .server_reflection_info(tokio_stream::iter(vec![req]))
            .await
            .unwrap()
            .into_inner();
        let m = resp.message().await.unwrap().unwrap();
        let Some(MessageResponse::ListServicesResponse(l)) = m.message_response else {
            panic!("{m:?}")
        };
        assert!(
            l.service.iter().any(|s| s.name == "rtphys.v1.Simulation"),
            "{l:?}"
        );
    }
    // Bounded message size.
    let big = "#".repeat(100 * 1024);
    let e = c.load_scene_toml(&big, "big").await.unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    // Graceful shutdown ends open streams promptly.
    let mut watch = c.watch(pb::StreamStateRequest::default()).await.unwrap();
    watch.message().await.unwrap().unwrap();
    let t = std::time::Instant::now();
    tokio::time::timeout(Duration::from_secs(10), srv.shutdown())
        .await
        .unwrap()
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(5));
    let end = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match watch.message().await {
                Ok(Some(_)) => continue,
                other => return other.map(|_| ()),
            }
        }
    })
    .await
    .unwrap();
    if let Err(e) = end {
        assert!(
            matches!(
                e.code(),
                Code::Unavailable | Code::Cancelled | Code::Unknown
            ),
            "{e:?}"
        );
    }
}
