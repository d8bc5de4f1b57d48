//! Network condition injection over real gRPC: a 5 ms command delay shows in the
//! round trips, a 5 ms state delay adds to it, seeded loss drops exactly the
//! messages its generator says (and the configured fraction within a statistical
//! bound), and the world stays healthy.

mod server_common;

use rtphys::config::Mode;
use rtphys::math::SplitMix64;
use rtphys::server::client::{force, pb, Client};
use server_common::{cfg, start_default};
use std::time::{Duration, Instant};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Round trips (send -> ack) of `n` lockstep commands, ms.
async fn round_trips(c: &mut Client, net: Option<pb::NetworkConditions>, n: usize) -> Vec<f64> {
    let mut ctl = c
        .control(pb::ControlHello {
            name: "netem".into(),
            lockstep: true,
            watchdog_timeout_s: -1.0,
            network: net,
            ..Default::default()
        })
        .await
        .expect("control opens");
    ctl.next_state().await.unwrap();
    let mut v = Vec::with_capacity(n);
    for k in 0..n {
        let f = if k.is_multiple_of(2) { 0.2 } else { -0.2 };
        let t0 = Instant::now();
        let seq = ctl
            .send(vec![force("red_box", [f, 0.0, 0.0])], false)
            .await
            .unwrap();
        ctl.wait_ack(seq).await.unwrap();
        v.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    ctl.close();
    while ctl.next_state().await.ok().flatten().is_some() {}
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configured_delay_shows_in_the_round_trips() {
    let (h, mut c) = start_default(cfg(Mode::Lockstep)).await;
    let base = median(round_trips(&mut c, None, 200).await);
    let cmd = median(
        round_trips(
            &mut c,
            Some(pb::NetworkConditions {
                command_delay_s: 0.005,
                ..Default::default()
            }),
            200,
        )
        .await,
    );
    let both = median(
        round_trips(
            &mut c,
            Some(pb::NetworkConditions {
                command_delay_s: 0.005,
                state_delay_s: 0.005,
                state_jitter_s: 0.001,
                ..Default::default()
            }),
            200,
        )
        .await,
    );
    println!("median round trip: {base:.3} ms plain, {cmd:.3} ms with 5 ms command delay, {both:.3} ms with 5 + 5(+1 jitter) ms");
    assert!(cmd >= 5.0, "a 5 ms command delay shows: {cmd} ms");
    assert!(
        cmd < 5.0 + base + 15.0,
        "and not much more: {cmd} ms (plain {base} ms)"
    );
    assert!(both >= 10.0, "state delay adds: {both} ms");
    assert!(both < 11.0 + base + 15.0, "{both} ms");
    let s = c.stats(false).await.unwrap();
    assert!(s.fault.is_empty());
    h.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeded_command_loss_drops_the_configured_fraction() {
    let (h, mut c) = start_default(cfg(Mode::Realtime)).await;
    const N: u64 = 2000;
    const LOSS: f64 = 0.2;
    const SEED: u64 = 1234;
    let mut ctl = c
        .control(pb::ControlHello {
            name: "lossy".into(),
            watchdog_timeout_s: -1.0,
            fields: vec![pb::StateField::Acks as i32],
            latest_only: true,
            network: Some(pb::NetworkConditions {
                command_loss: LOSS,
                command_delay_s: 0.001,
                seed: SEED,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    ctl.next_state().await.unwrap();
    let reader = tokio::spawn(async move {
        let mut last = None;
        let mut ctl = ctl;
        for k in 0..N {
            let f = if k.is_multiple_of(2) { 0.2 } else { -0.2 };
            ctl.send(vec![force("blue_box", [f, 0.0, 0.0])], false)
                .await
                .unwrap();
            if k.is_multiple_of(64) {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
        ctl.close();
        while let Ok(Some(s)) = ctl.next_state().await {
            if let Some(a) = ctl.own_ack(&s) {
                last = Some(*a);
            }
        }
        last
    });
    let ack = reader.await.unwrap().expect("acks arrived");
    // The generator of the injection: two draws per message, lost if the first < loss.
    let mut r = SplitMix64::new(SEED);
    let mut kept = 0u64;
    for _ in 0..N {
        let lose = r.next_f64() < LOSS;
        let _jitter = r.next_f64();
        kept += (!lose) as u64;
    }
    let applied = ack.commands_applied;
    let sigma = (N as f64 * LOSS * (1.0 - LOSS)).sqrt();
    println!(
        "{applied} of {N} commands applied with loss {LOSS} (expected {kept}; 5 sigma = {:.0})",
        5.0 * sigma
    );
    assert_eq!(
        applied, kept,
        "seeded: exactly the messages the generator keeps"
    );
    assert!(
        ((N - applied) as f64 - LOSS * N as f64).abs() < 5.0 * sigma,
        "lost fraction {} vs {LOSS}",
        (N - applied) as f64 / N as f64
    );
    let s = c.stats(false).await.unwrap();
    assert!(s.fault.is_empty(), "world healthy");
    let t0 = c.state().await.unwrap().tick;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(c.state().await.unwrap().tick > t0, "world still ticking");
    h.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_loss_on_a_subscription_and_bad_conditions_are_refused() {
    let (h, mut c) = start_default(cfg(Mode::Lockstep)).await;
    let mut sub = c
        .watch(pb::StreamStateRequest {
            fields: vec![pb::StateField::Acks as i32],
            network: Some(pb::NetworkConditions {
                state_loss: 0.25,
                seed: 99,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    let t0 = c.state().await.unwrap().tick;
    const N: u64 = 800;
    c.step(N as u32).await.unwrap();
    let mut got = 0u64;
    let mut last = 0;
    while last < t0 + N {
        match tokio::time::timeout(Duration::from_millis(500), sub.message()).await {
            Ok(Ok(Some(s))) => {
                got += 1;
                last = s.tick;
            }
            _ => break,
        }
    }
    let frames = N + 1;
    let sigma = (frames as f64 * 0.25 * 0.75).sqrt();
    println!("{got} of {frames} states delivered with state loss 0.25");
    assert!(
        (got as f64 - 0.75 * frames as f64).abs() < 5.0 * sigma + 2.0,
        "{got} of {frames}"
    );
    for (field, n) in [
        (
            "hello.network.command_loss",
            pb::NetworkConditions {
                command_loss: 1.5,
                ..Default::default()
            },
        ),
        (
            "hello.network.state_delay_s",
            pb::NetworkConditions {
                state_delay_s: f64::NAN,
                ..Default::default()
            },
        ),
    ] {
        let e = c
            .control(pb::ControlHello {
                network: Some(n),
                ..Default::default()
            })
            .await
            .map(|_| ())
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
        assert!(e.message().contains(field), "{e:?}");
    }
    h.shutdown().await.unwrap();
}
