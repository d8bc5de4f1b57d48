//! Print a decimated state stream.
//! `cargo run --release --example watch_state -- [ADDR] [COUNT] [DECIMATION]`

use rtphys::server::client::{pb, Client};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let addr = a
        .first()
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:50051".into());
    let count: usize = a.get(1).map(|s| s.parse()).transpose()?.unwrap_or(20);
    let decimation: u32 = a.get(2).map(|s| s.parse()).transpose()?.unwrap_or(100);
    let mut c = Client::connect(&addr).await?;
    let w = c.world().await?;
    let mut s = c
        .watch(pb::StreamStateRequest {
            decimation,
            fields: vec![pb::StateField::Pose as i32],
            ..Default::default()
        })
        .await?;
    for _ in 0..count {
        let Some(st) = s.message().await? else { break };
        let line: Vec<String> = st
            .bodies
            .iter()
            .filter(|b| !w.bodies[b.id as usize].is_static)
            .map(|b| {
                format!(
                    "{}=({:.3},{:.3},{:.3})",
                    w.bodies[b.id as usize].name, b.position[0], b.position[1], b.position[2]
                )
            })
            .collect();
        println!(
            "tick {:>7} t={:.3}s dropped={} {}",
            st.tick,
            st.sim_time,
            st.dropped,
            line.join(" ")
        );
    }
    Ok(())
}
