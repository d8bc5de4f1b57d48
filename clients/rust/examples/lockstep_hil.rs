//! Hardware-in-the-loop style lockstep run: every tick waits for this controller's
//! command; read the state, compute a PD force holding "red_box" at a target x,
//! send it, assert the contract (one tick per command, ack of our sequence number).
//! `cargo run --release --example lockstep_hil -- [ADDR] [TICKS]`

use rtphys::server::client::{body, pb, Client};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let addr = a
        .first()
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:50051".into());
    let ticks: u64 = a.get(1).map(|s| s.parse()).transpose()?.unwrap_or(500);
    let mut c = Client::connect(&addr).await?;
    let prev = c.world().await?;
    c.set_mode(pb::RunMode::Lockstep, 0.0).await?;
    let id = prev
        .bodies
        .iter()
        .find(|b| b.name == "red_box")
        .map(|b| b.id as usize)
        .ok_or_else(|| anyhow::anyhow!("no red_box"))?;
    let mass = prev.bodies[id].mass;
    let mut ctl = c
        .control(pb::ControlHello {
            name: "hil".into(),
            lockstep: true,
            ..Default::default()
        })
        .await?;
    let mut s = ctl
        .next_state()
        .await?
        .ok_or_else(|| anyhow::anyhow!("no state"))?;
    let x_target = s.bodies[id].position[0] + 0.05;
    let t_start = s.tick;
    for _ in 0..ticks {
        let b = &s.bodies[id];
        let f = mass * (400.0 * (x_target - b.position[0]) - 40.0 * b.linear_velocity[0]);
        let seq = ctl
            .send(
                vec![pb::BodyWrench {
                    body: Some(body("red_box")),
                    force: vec![f, 0.0, 0.0],
                    ..Default::default()
                }],
                false,
            )
            .await?;
        let next = ctl.wait_ack(seq).await?;
        assert_eq!(next.tick, s.tick + 1, "one tick per command");
        assert_eq!(
            ctl.own_ack(&next).map(|a| a.applied_tick),
            Some(s.tick),
            "applied at the tick boundary"
        );
        s = next;
    }
    let x = s.bodies[id].position[0];
    println!(
        "lockstep: {} ticks, red_box x = {:.4} m (target {:.4} m)",
        s.tick - t_start,
        x,
        x_target
    );
    ctl.close();
    drop(ctl);
    c.set_mode(
        pb::RunMode::try_from(prev.mode).unwrap_or(pb::RunMode::Realtime),
        0.0,
    )
    .await?;
    anyhow::ensure!((x - x_target).abs() < 0.03, "PD hold failed: x = {x}");
    println!("OK");
    Ok(())
}
