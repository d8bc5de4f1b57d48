//! A 1 kHz joint-space PD controller with gravity compensation holding the 7-DoF
//! arm at a target pose over the control stream (torque control: the scene's
//! servos are disabled). Each state in, one command out:
//! τ = Kp (q* − q) − Kd q̇ + g(q), with g(q) = RNEA(q, 0, 0) on the same scene file
//! (Featherstone Table 5.1 with q̇ = q̈ = 0), Kp_k = H_kk ω², Kd_k = 2 H_kk ω
//! (ω = 2π·8 Hz, H_kk the joint's inertia at the initial pose).
//!
//! Start the server on the arm scene, then run the controller:
//! ```sh
//! cargo run --release -- serve --scene config/scenes/arm.toml
//! cargo run --release --example arm_pd -- [ADDR] [--scene config/scenes/arm.toml] [--seconds 3] [--lockstep]
//! ```
//! The world is reset first (the arm back in its initial pose). Prints the hold
//! error over the last 2 s and the command → state round trip (p50/p99); exits
//! non-zero if the final error exceeds 1e-3 rad on any joint.

use rtphys::dynamics::{rnea, ArticulatedData, ExtInputs};
use rtphys::runtime::clock::mono_ns;
use rtphys::server::client::{joint_id, pb, torque, Client};

/// Offsets of the target from the initial pose (rad), inside the joint limits.
const DQ: [f64; 7] = [0.2, -0.15, 0.2, 0.2, -0.2, 0.2, 0.3];

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut addr = "127.0.0.1:50051".to_string();
    let mut scene = "config/scenes/arm.toml".to_string();
    let mut seconds = 3.0f64;
    let mut lockstep = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--scene" => scene = args.next().ok_or_else(|| anyhow::anyhow!("--scene PATH"))?,
            "--seconds" => {
                seconds = args
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--seconds S"))?
                    .parse()?
            }
            "--lockstep" => lockstep = true,
            _ => addr = a,
        }
    }
    anyhow::ensure!(
        seconds >= 2.5,
        "--seconds: at least 2.5 (0.5 s to move, 2 s to hold)"
    );

    // The client's copy of the robot: the same scene file.
    let model =
        rtphys::model::scene::load_scene_file(&scene).map_err(|e| anyhow::anyhow!("{e}"))?;
    anyhow::ensure!(model.robots.len() == 1, "{scene}: one robot expected");
    let rm = &model.robots[0];
    let n = model.joint_ids.len();
    anyhow::ensure!(
        n == DQ.len() && !rm.floating,
        "{scene}: a fixed-base 7-DoF arm expected"
    );
    let mut ad = ArticulatedData::new(&rm.tree);
    let (mut q, zero) = (vec![0.0; rm.nq()], vec![0.0; rm.nv()]);
    let qi: Vec<usize> = (0..n)
        .map(|k| rm.joints[model.joint_ids[k].1 as usize].qi)
        .collect();
    let omega = 2.0 * std::f64::consts::PI * 8.0;
    let inertia = |k: usize| rm.joints[model.joint_ids[k].1 as usize].inertia0;
    let kp: Vec<f64> = (0..n).map(|k| inertia(k) * omega * omega).collect();
    let kd: Vec<f64> = (0..n).map(|k| 2.0 * inertia(k) * omega).collect();

    let mut c = Client::connect(&addr).await?;
    let w = c.world().await?;
    for k in 0..n {
        let want = model.joint_name(k);
        anyhow::ensure!(
            w.joints.get(k).map(|j| &j.name) == Some(&want),
            "the server's joint {k} is not {want}: serve {scene}"
        );
    }
    let prev_mode = pb::RunMode::try_from(w.mode).unwrap_or(pb::RunMode::Realtime);
    if lockstep {
        c.set_mode(pb::RunMode::Lockstep, 0.0).await?;
    }
    c.reset().await?;
    let mut ctl = c
        .control(pb::ControlHello {
            name: "arm_pd".into(),
            lockstep,
            watchdog_timeout_s: 0.1,
            safe_behavior: pb::SafeBehavior::Zero as i32,
            latest_only: true,
            fields: vec![pb::StateField::Joints as i32, pb::StateField::Acks as i32],
            ..Default::default()
        })
        .await?;
    let mut s = ctl
        .next_state()
        .await?
        .ok_or_else(|| anyhow::anyhow!("no state"))?;
    let target: Vec<f64> = s
        .joints
        .iter()
        .zip(DQ)
        .map(|(j, d)| j.position + d)
        .collect();
    let (t0, dt) = (s.tick, w.dt);
    let ticks = (seconds / dt).round() as u64;
    let hold_from = t0 + ticks - (2.0 / dt).round() as u64;
    let mut max_err = [0.0f64; 7];
    let mut rtt = hdrhistogram::Histogram::<u64>::new(3)?;
    let mut pending: Option<(u64, i64)> = None;
    let mut cmd = Vec::with_capacity(n);
    while s.tick < t0 + ticks {
        // g(q) from RNEA at the measured q.
        for j in &s.joints {
            q[qi[j.id as usize]] = j.position;
        }
        rnea(&rm.tree, &mut ad, &q, &zero, &zero, &ExtInputs::default())?;
        cmd.clear();
        for j in &s.joints {
            let k = j.id as usize;
            let tau = kp[k] * (target[k] - j.position) - kd[k] * j.velocity + ad.tau[qi[k]];
            cmd.push(torque(joint_id(j.id), tau));
        }
        let sent = mono_ns();
        let seq = ctl.send_joints(cmd.clone()).await?;
        if pending.is_none() {
            pending = Some((seq, sent));
        }
        s = ctl
            .next_state()
            .await?
            .ok_or_else(|| anyhow::anyhow!("stream ended"))?;
        if let Some(e) = s.errors.first() {
            anyhow::bail!("command {} rejected: {}", e.seq, e.message);
        }
        // Round trip: a command's send → the first state that acknowledges it.
        if let (Some((p, at)), Some(a)) = (pending, ctl.own_ack(&s)) {
            if a.seq >= p {
                rtt.record(((mono_ns() - at) / 1000).max(0) as u64)?;
                pending = None;
            }
        }
        if s.tick >= hold_from {
            for j in &s.joints {
                let k = j.id as usize;
                max_err[k] = max_err[k].max((j.position - target[k]).abs());
            }
        }
    }
    let last: Vec<f64> = s
        .joints
        .iter()
        .map(|j| (j.position - target[j.id as usize]).abs())
        .collect();
    ctl.close();
    drop(ctl);
    if lockstep {
        c.set_mode(prev_mode, 0.0).await?;
    }
    println!(
        "arm_pd ({}): {} ticks, max |q − q*| over the last 2 s = {:.2e} rad, final = {:.2e} rad",
        if lockstep { "lockstep" } else { "realtime" },
        s.tick - t0,
        max_err.iter().cloned().fold(0.0, f64::max),
        last.iter().cloned().fold(0.0, f64::max),
    );
    println!(
        "round trip command → acknowledging state: p50 {} µs, p99 {} µs, max {} µs ({} samples)",
        rtt.value_at_quantile(0.5),
        rtt.value_at_quantile(0.99),
        rtt.max(),
        rtt.len()
    );
    anyhow::ensure!(
        last.iter().all(|e| *e < 1e-3),
        "hold failed: final errors {last:?}"
    );
    println!("OK");
    Ok(())
}
