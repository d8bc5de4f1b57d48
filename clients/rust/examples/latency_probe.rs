//! A 1 kHz bidirectional control loop printing command -> state round-trip percentiles.
//! `cargo run --release --example latency_probe -- [ADDR] [COUNT] [--lockstep]`
//! With --lockstep the server is switched to lockstep for the run (each command
//! triggers its tick) and switched back afterwards.

use rtphys::server::client::{body, pb, Client};
use std::time::{Duration, Instant};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args()
        .skip(1)
        .filter(|x| !x.starts_with("--"))
        .collect();
    let lockstep = std::env::args().any(|x| x == "--lockstep");
    let addr = a
        .first()
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:50051".into());
    let n: usize = a.get(1).map(|s| s.parse()).transpose()?.unwrap_or(5000);
    let mut c = Client::connect(&addr).await?;
    let prev = c.world().await?;
    if lockstep {
        c.set_mode(pb::RunMode::Lockstep, 0.0).await?;
    }
    let mut ctl = c
        .control(pb::ControlHello {
            name: "latency_probe".into(),
            lockstep,
            fields: vec![pb::StateField::Pose as i32],
            bodies: vec![body("red_box")],
            ..Default::default()
        })
        .await?;
    ctl.next_state().await?;
    let t0 = Instant::now();
    let mut rtt = Vec::with_capacity(n);
    for i in 0..n {
        let deadline = t0 + Duration::from_micros(1000 * i as u64);
        if let Some(d) = deadline.checked_duration_since(Instant::now()) {
            spin_sleep::sleep(d);
        }
        let t = Instant::now();
        let seq = ctl
            .send(
                vec![pb::BodyWrench {
                    body: Some(body("red_box")),
                    force: vec![0.0; 3],
                    ..Default::default()
                }],
                false,
            )
            .await?;
        ctl.wait_ack(seq).await?;
        rtt.push(t.elapsed().as_secs_f64() * 1e6);
    }
    ctl.close();
    if lockstep {
        c.set_mode(
            pb::RunMode::try_from(prev.mode).unwrap_or(pb::RunMode::Realtime),
            0.0,
        )
        .await?;
    }
    rtt.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |p: f64| rtt[((rtt.len() - 1) as f64 * p).round() as usize];
    println!(
        "round trip over {} commands ({}): p50 {:.1} us  p99 {:.1} us  p99.9 {:.1} us  max {:.1} us",
        rtt.len(),
        if lockstep { "lockstep" } else { "server mode unchanged" },
        q(0.5),
        q(0.99),
        q(0.999),
        rtt[rtt.len() - 1]
    );
    Ok(())
}
