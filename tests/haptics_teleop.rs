//! The robot arm teleoperated by a haptic device, over real gRPC (in-process
//! server, the simulated device's 1 kHz loop, passivity controller on):
//! config/scenes/haptic_teleop.toml with the operator of
//! `rtphys::haptics::scripts::teleop` — free-space move, lower onto the table,
//! press, slide, release (the README's `clients/rust/examples/haptic_teleop.rs`).
//! The arm's controller is src/haptics/teleop.rs (gravity compensation, the
//! coupling as a Jᵀ impedance, orientation hold, null-space posture).

mod server_common;

use rtphys::config::Mode;
use rtphys::dynamics::{crba, factor_mass, point_jacobian, solve_mass_columns, ArticulatedData};
use rtphys::haptics::scripts;
use rtphys::math::Vec3;
use rtphys::server::client::pb;
use rtphys::server::haptic_client::{run_device_loop, LoopConfig};
use server_common::{cfg, start};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const SCENE: &str = "config/scenes/haptic_teleop.toml";

/// The arm's task-space inertia at link 7's centre of mass in the scene's start
/// configuration, with the link's rotation held (the translational block of
/// Λ = (J H⁻¹ Jᵀ)⁻¹, J the link's 6-row Jacobian): its largest eigenvalue, kg.
fn task_mass_max(model: &rtphys::model::Model) -> f64 {
    let link = model.body_id("arm/link7").unwrap();
    let r = &model.robots[0];
    let tree_link = r.link_body.iter().position(|b| *b == Some(link)).unwrap();
    let data = rtphys::Data::new(model);
    let mut ad = ArticulatedData::new(&r.tree);
    crba(&r.tree, &mut ad, &r.q0).unwrap();
    factor_mass(&mut ad).unwrap();
    let mut j = nalgebra::Matrix6xX::zeros(r.nv());
    point_jacobian(&r.tree, &ad, tree_link, &data.state[link].x, &mut j).unwrap();
    let jd = nalgebra::DMatrix::from_fn(6, r.nv(), |a, b| j[(a, b)]);
    let mut y = jd.transpose();
    solve_mass_columns(&ad, &mut y).unwrap();
    let li = &jd * y;
    let lambda = li.try_inverse().unwrap();
    let lt = lambda.view((3, 3), (3, 3)).into_owned();
    lt.symmetric_eigenvalues().max()
}

/// One poll of the server's state during the run.
#[derive(Clone, Debug)]
struct Poll {
    tick: u64,
    /// The table's (and the block's) contact force on link 7, N, and the
    /// deepest of those contacts, m.
    f_contact: Vec3,
    depth: f64,
    /// Joint positions, scene order.
    q: Vec<f64>,
}

/// In lockstep (`HapticHello.lockstep`: one tick per device sample, the device
/// rendering the feedback of the tick that applied its sample) every bound below
/// is asserted, and two runs are bit-identical.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teleoperated_arm_tracks_presses_slides_and_releases() {
    let a = teleop(Mode::Lockstep).await;
    let b = teleop(Mode::Lockstep).await;
    assert!(a == b, "two lockstep runs differ");
}

/// Over the realtime clock: the server's 1 kHz and the device's 1 kHz are two
/// clocks, and on a loaded host the physics thread skips ticks (no catch-up
/// burst) while the device keeps its time, so the arm sees the operator's
/// motion faster than scripted (a run at load 8 reached tick 6,230 at device
/// time 7.9 s; a diagnostic print, not kept). The bounds that assume one time
/// base (the free-space force, the settling while holding and after the
/// release) are printed, not asserted;
/// what holds on any clock is: the press's statics, contact while sliding, the
/// release, the device port's rate limit and passivity, the joint limits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teleoperated_arm_over_the_realtime_clock() {
    teleop(Mode::Realtime).await;
}

/// One teleoperation run in `mode`; returns the device's rows as bits (force
/// written, the server's environment force, the feedback's tick and sample).
async fn teleop(mode: Mode) -> Vec<u64> {
    let lockstep = mode == Mode::Lockstep;
    let text = std::fs::read_to_string(SCENE).unwrap();
    let model = rtphys::model::scene::load_scene_str(
        &text,
        "haptic_teleop.toml",
        std::path::Path::new("config/scenes"),
    )
    .unwrap();
    let spec = &model.haptics[0];
    let k = spec.coupling.k.x;
    let (h, mut c) = start(cfg(mode), &text.replace("../robots/", "config/robots/")).await;
    let w = c.world().await.unwrap();
    let d = w.haptic_devices[0].clone();
    let link = w.bodies.iter().find(|b| b.name == "arm/link7").unwrap().id;
    let offset = Vec3::new(d.offset[0], d.offset[1], d.offset[2]);
    // Poll the contacts and joints on a second connection while the device runs.
    let poll_every = std::time::Duration::from_micros(if lockstep { 500 } else { 4000 });
    let stop = Arc::new(AtomicBool::new(false));
    let poller = {
        let mut c2 = c.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut polls = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let req = pb::GetStateRequest {
                    fields: vec![
                        pb::StateField::Contacts as i32,
                        pb::StateField::Joints as i32,
                    ],
                    bodies: vec![],
                };
                let s = c2.raw.get_state(req).await.unwrap().into_inner();
                let mut f = Vec3::zeros();
                let mut depth: f64 = 0.0;
                for ct in &s.contacts {
                    let fc = Vec3::new(ct.force[0], ct.force[1], ct.force[2]);
                    if ct.body_a == link {
                        f += fc;
                    } else if ct.body_b == link {
                        f -= fc;
                    } else {
                        continue;
                    }
                    depth = depth.max(ct.depth);
                }
                polls.push(Poll {
                    tick: s.tick,
                    f_contact: f,
                    depth,
                    q: s.joints.iter().map(|j| j.position).collect(),
                });
                // (A lockstep run goes faster than real time: poll faster.)
                tokio::time::sleep(poll_every).await;
            }
            polls
        })
    };
    let lc = LoopConfig {
        lockstep,
        ..LoopConfig::for_device(&d, scripts::TELEOP_SECS)
    };
    let (rep, _) = run_device_loop(&mut c, lc, scripts::simulated_device(scripts::teleop()))
        .await
        .expect("device loop");
    stop.store(true, Ordering::Relaxed);
    let polls = poller.await.unwrap();
    let _ = h.shutdown().await;
    assert!(rep.errors.is_empty(), "{:?}", rep.errors);
    assert_eq!(
        rep.rows.len() as f64,
        scripts::TELEOP_SECS * 1e3,
        "the loop ran its periods"
    );
    if lockstep {
        // Each period renders the feedback of the tick that applied its sample.
        assert!(rep.rows.iter().all(|r| r.fb_seq == r.seq));
    }
    let rows = &rep.rows;
    let window = |a: f64, b: f64| rows.iter().filter(move |r| r.t >= a && r.t < b);
    let ticks = |a: f64, b: f64| {
        let w: Vec<_> = window(a, b).map(|r| r.fb_tick).collect();
        (*w.iter().min().unwrap(), *w.iter().max().unwrap())
    };
    let polls_in =
        |(t0, t1): (u64, u64)| polls.iter().filter(move |p| p.tick >= t0 && p.tick <= t1);

    // Free space (0–2.0 s: a 4 cm minimum-jerk move along x over 1.5 s, then hold).
    // The device feels the arm's task-space dynamics: its inertia Λ (largest
    // eigenvalue at the start) times the move's peak acceleration, and the
    // teleop damping D times its peak speed (1.875 · 4 cm / 1.5 s); bound 1.25×.
    let tp = spec.teleop.as_ref().unwrap();
    let lam = task_mass_max(&model);
    let (a_max, v_max) = (5.77 * 0.04 / (1.5 * 1.5), 1.875 * 0.04 / 1.5);
    let f_bound = 1.25 * (lam * a_max + tp.damping * v_max);
    let f_free = window(0.0, 2.0)
        .map(|r| r.fb_force_env.norm())
        .fold(0.0, f64::max);
    // Holding (1.8–2.0 s): the static residual is zero (gravity compensated,
    // the posture in the null space); what is left is the settling transient:
    // |f| ≤ 0.4 N (2 % of the device's 20 N) and the link within 0.4 N / k.
    let f_hold_bound = 0.4;
    let e_hold = window(1.8, 2.0)
        .map(|r| (r.fb_tool_x - (offset + r.x)).norm())
        .fold(0.0, f64::max);
    let f_hold = window(1.8, 2.0)
        .map(|r| r.fb_force_env.norm())
        .fold(0.0, f64::max);
    println!(
        "free space: max |f_env| {f_free:.3} N ≤ {f_bound:.3} N (Λ_max {lam:.3} kg, a_max {a_max:.3} m/s², \
         D {} N·s/m, v_max {v_max:.3} m/s); holding: tracking error {:.3} mm (≤ {:.3}), |f_env| {f_hold:.3} N",
        tp.damping,
        e_hold * 1e3,
        f_hold_bound / k * 1e3
    );
    assert!(
        window(0.0, 2.0).all(|r| !r.fb_contact),
        "no contact in free space"
    );
    if lockstep {
        assert!(
            f_free <= f_bound,
            "free-space force {f_free} N > {f_bound} N"
        );
        assert!(f_hold <= f_hold_bound, "holding: |f| {f_hold} N");
        assert!(
            e_hold <= f_hold_bound / k,
            "holding: tracking error {e_hold} m"
        );
    }

    // Pressing (3.4–4.0 s: the hand's target 1.8 cm under the table top). In
    // statics the coupling force on the link balances the table's contact force
    // on it exactly (the 6-D task: J̄ᵀ of the joint equation): the server's
    // rendered force and the force the device renders equal the contact force
    // polled over gRPC in the same ticks, within 1 %. The link rests on the
    // surface: its deepest contact is within the penalty law's proportional
    // resting depth F_n / k_p (the integral term only shrinks it), +10 %.
    let tk = ticks(3.4, 4.0);
    let press: Vec<_> = window(3.4, 4.0).collect();
    let n = press.len() as f64;
    let f_srv = press.iter().map(|r| r.fb_force_env).sum::<Vec3>() / n;
    let f_dev = press.iter().map(|r| r.f).sum::<Vec3>() / n;
    let pp: Vec<_> = polls_in(tk).collect();
    let f_c = pp.iter().map(|p| p.f_contact).sum::<Vec3>() / pp.len() as f64;
    let depth = pp.iter().map(|p| p.depth).fold(0.0, f64::max);
    let r0 = &model.robots[0];
    let tree_link = r0
        .link_body
        .iter()
        .position(|b| *b == Some(spec.tool))
        .unwrap();
    let rtphys::model::Method::Penalty(pen) = &model.opt.method else {
        panic!("the scene uses penalty")
    };
    let kp = pen.kp.value(r0.supported_mass[tree_link]);
    let rest = f_c.z / kp;
    println!(
        "press: server f_env {:?} N, device renders {:?} N, contact on the link {:?} N ({} polls); \
         deepest contact {:.4} mm (F_n/k_p = {:.4} mm)",
        f_srv.as_slice(),
        f_dev.as_slice(),
        f_c.as_slice(),
        pp.len(),
        depth * 1e3,
        rest * 1e3
    );
    assert!(pp.len() >= 20, "{} polls in the press window", pp.len());
    assert!(f_c.z > 3.0, "pressing on the table: {f_c:?}");
    assert!(press.iter().all(|r| r.fb_contact));
    for (what, f) in [("server", f_srv), ("device", f_dev)] {
        assert!(
            (f - f_c).norm() <= 0.01 * f_c.norm(),
            "{what} renders {f:?} vs contact {f_c:?}"
        );
    }
    assert!(depth <= 1.1 * rest, "penetration {depth} m > {rest} m");

    // Slide (4.0–5.5 s): in contact throughout, the device feels the table's
    // normal force and the friction drag along +x (against the −x slide).
    let slide: Vec<_> = window(4.2, 5.5).collect();
    assert!(
        slide.iter().all(|r| r.fb_contact),
        "contact lost while sliding"
    );
    let f_slide = slide.iter().map(|r| r.fb_force_env).sum::<Vec3>() / slide.len() as f64;
    println!("slide: mean f_env {:?} N", f_slide.as_slice());
    assert!(f_slide.x > 0.0 && f_slide.z > 3.0, "{f_slide:?}");

    // Release (6.0–7.0 s) and rest: contact ends, the force returns to zero;
    // nothing jumps beyond the device's rate limit; the port stays passive.
    let f_rate = rows
        .windows(2)
        .map(|p| (p[1].f - p[0].f).norm())
        .fold(0.0, f64::max);
    let rate_step = d.max_rate_n_per_s / lc_rate_hz();
    let e_min = rows.iter().map(|r| r.energy).fold(0.0, f64::min);
    let f_end = window(7.6, 8.0).map(|r| r.f.norm()).fold(0.0, f64::max);
    println!(
        "max |Δf| per period {f_rate:.4} N (rate limit {rate_step:.4} N), port energy min {e_min:.3e} J, \
         |f| at rest after release {f_end:.4} N"
    );
    assert!(window(7.0, 8.0).all(|r| !r.fb_contact), "released");
    if lockstep {
        assert!(f_end <= f_hold_bound, "force after release {f_end} N");
    }
    // The port limits |Δf| to rate · dt (the passivity controller, when it acts,
    // adds its damping on top: it does not act here, the energy stays ≥ 0).
    assert!(f_rate <= rate_step * (1.0 + 1e-6), "{f_rate} N per period");
    assert!(e_min >= -1e-9, "port energy {e_min} J");

    // Joint limits: every polled configuration inside the URDF's limits.
    for p in &polls {
        for (j, q) in r0.joints.iter().zip(&p.q) {
            assert!(
                *q >= j.lower && *q <= j.upper,
                "{} at {q} outside [{}, {}]",
                j.name,
                j.lower,
                j.upper
            );
        }
    }
    rows.iter()
        .flat_map(|r| {
            let (f, e) = (r.f, r.fb_force_env);
            [f.x, f.y, f.z, e.x, e.y, e.z]
                .map(f64::to_bits)
                .into_iter()
                .chain([r.fb_tick, r.fb_seq])
        })
        .collect()
}

fn lc_rate_hz() -> f64 {
    1000.0
}

/// Bad `teleop` tables are refused naming the file, the key and the problem.
#[test]
fn bad_teleop_tables_are_refused_with_the_key() {
    let dir = std::path::Path::new("config/scenes");
    let text = std::fs::read_to_string(SCENE).unwrap();
    let servo = "\n[[robot.servo]]\njoint = \"joint1\"\nkp = 800.0\nkd = 30.0\n";
    let cases: Vec<(String, &str, &str)> = vec![
        (
            text.replace("posture_hz = 1.0", "posture_hz = 100.0"),
            "teleop.posture_hz",
            "2π f dt",
        ),
        (
            text.replace("orientation_stiffness = 20.0, ", ""),
            "teleop.orientation_stiffness",
            "3-DoF",
        ),
        (
            text.replace("damping = 60.0", "damping = -1.0"),
            "teleop.damping",
            "got -1",
        ),
        (
            text.replace("imus = [\"link7\"]", &format!("imus = [\"link7\"]{servo}")),
            "teleop",
            "has servos",
        ),
        (
            text.replace("posture_hz = 1.0, ", "posture_hz = 1.0, gain = 3.0, "),
            "teleop",
            "unknown field",
        ),
    ];
    for (t, key, what) in cases {
        let e = rtphys::model::scene::load_scene_str(&t, "haptic_teleop.toml", dir)
            .expect_err(key)
            .to_string();
        assert!(e.contains("haptic_teleop.toml:"), "{e}");
        assert!(e.contains(key) && e.contains(what), "{key}: {e}");
    }
    // A free body as the tool.
    let t = format!(
        "{}\n[[body]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.02 }}\nmass = 0.1\nposition = [0.598, 0.0, 0.338]\n",
        text.replace("tool = \"arm/link7\"", "tool = \"ball\"")
    );
    let e = rtphys::model::scene::load_scene_str(&t, "haptic_teleop.toml", dir)
        .expect_err("free tool")
        .to_string();
    assert!(
        e.contains("teleop") && e.contains("not a robot link"),
        "{e}"
    );
}
