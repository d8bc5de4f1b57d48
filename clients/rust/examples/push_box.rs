//! Push "red_box" across the table and watch it move.
//! `cargo run --release --example push_box -- [ADDR]` (ADDR default 127.0.0.1:50051)

use rtphys::server::client::{body, pb, Client};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:50051".into());
    let mut c = Client::connect(&addr).await?;
    let w = c.world().await?;
    println!(
        "world {:?}: {} bodies, dt {} s, {} Hz, method {}",
        w.scene_name,
        w.bodies.len(),
        w.dt,
        w.rate_hz,
        w.method
    );
    let id = w
        .bodies
        .iter()
        .find(|b| b.name == "red_box")
        .map(|b| b.id)
        .ok_or_else(|| anyhow::anyhow!("no red_box in this world"))?;
    let before = c.state().await?;
    // 3 N along +x for 0.2 s, at the centre of mass.
    let r = c
        .apply_wrench(pb::BodyWrench {
            body: Some(body("red_box")),
            force: vec![3.0, 0.0, 0.0],
            duration_s: 0.2,
            ..Default::default()
        })
        .await?;
    println!("push applied at tick {}", r.applied_tick);
    if c.world().await?.mode == pb::RunMode::Lockstep as i32 {
        c.step(300).await?;
    } else {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    let after = c.state().await?;
    let p0 = &before.bodies[id as usize].position;
    let p1 = &after.bodies[id as usize].position;
    println!(
        "red_box x: {:.4} -> {:.4} m after {} ticks",
        p0[0],
        p1[0],
        after.tick - before.tick
    );
    Ok(())
}
