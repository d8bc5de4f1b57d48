//! A parallel-jaw gripper holding a box by friction (docs/EXPERIMENTS.md, "Outside
//! scenes, session 38"), the canonical manipulation scene.
//!
//! A fixed palm carries two fingers on prismatic joints (50 g each, 2 × 6 × 12 cm
//! boxes) driven by joint forces; between them hangs a 0.1 kg cube of 6 cm, μ = 0.5
//! on every surface. Squeezed by F per finger, the box holds while the friction the
//! two faces can carry, 2 μ F, exceeds its weight m g — the threshold F* = m g / 2μ
//! = 0.981 N — and slides down at g (1 − F/F*) below it. The box is first held at
//! 10 F* for 0.3 s, then the force is ramped over 50 ms to k F* and the box's slip is
//! measured over the next 0.2 s (the whole change of its height).

use rtphys::model::scene::load_scene_str;
use rtphys::{Data, Pipeline};

const MU: f64 = 0.5;
const M: f64 = 0.1;
const G: f64 = 9.81;
/// F* = m g / (2 μ): the squeeze that just holds the box.
const THRESHOLD: f64 = M * G / (2.0 * MU);
const HOLD: usize = 300;
const RAMP: f64 = 50.0;
const AFTER: usize = 200;
/// The key that takes the links' penalty normal force linearly implicit.
const ROBOT_IMPLICIT: &str = "[penalty]\nrobot_implicit = true";

const URDF: &str = r#"<?xml version="1.0"?>
<robot name="gripper">
  <link name="palm">
    <inertial><origin xyz="0 0 0"/><mass value="1.0"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="left" type="prismatic">
    <parent link="palm"/><child link="left_finger"/><origin xyz="-0.05 0 -0.1"/><axis xyz="1 0 0"/>
    <limit lower="-0.05" upper="0.05" effort="100" velocity="1"/>
  </joint>
  <link name="left_finger">
    <inertial><origin xyz="0 0 0"/><mass value="0.05"/>
      <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial>
    <collision><geometry><box size="0.02 0.06 0.12"/></geometry></collision>
  </link>
  <joint name="right" type="prismatic">
    <parent link="palm"/><child link="right_finger"/><origin xyz="0.05 0 -0.1"/><axis xyz="-1 0 0"/>
    <limit lower="-0.05" upper="0.05" effort="100" velocity="1"/>
  </joint>
  <link name="right_finger">
    <inertial><origin xyz="0 0 0"/><mass value="0.05"/>
      <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial>
    <collision><geometry><box size="0.02 0.06 0.12"/></geometry></collision>
  </link>
</robot>
"#;

/// The squeeze per finger at step `i`: 10 F* for `HOLD` steps, then a ramp over `ramp`
/// steps to `k` F*.
fn squeeze(i: usize, k: f64, ramp: f64) -> f64 {
    let t = ((i as f64 - HOLD as f64) / ramp).clamp(0.0, 1.0);
    THRESHOLD * (10.0 + (k - 10.0) * t)
}

/// The box's drop (m) over the `AFTER` steps that follow the hold, under `method`,
/// the squeeze ramped over `ramp` steps to `k` F*; and its drop during the hold.
/// `extra`: TOML appended to the `[world]` table (a key table may follow);
/// `print`: the pairs' LCP impulses after steps 100–105.
fn grasp(method: &str, k: f64, ramp: f64, extra: &str, print: bool) -> (f64, f64) {
    let (mut z0, mut z1, mut z2) = (0.0, 0.0, 0.0);
    run_grasp(method, (k, ramp), extra, |i, model, data| {
        let b = model.body_id("box").expect("box");
        if i == 0 {
            z0 = data.state[b].x.z;
        }
        if i == HOLD {
            z1 = data.state[b].x.z;
        }
        z2 = data.state[b].x.z;
        if print && (101..107).contains(&i) {
            let w = data.state[b].w;
            println!(
                "{method} step {}: box ω ({:+.4}, {:+.4}, {:+.4})",
                i - 1,
                w.x,
                w.y,
                w.z
            );
            for ps in data.pairs.iter().filter(|p| p.lcp_points > 0) {
                let imp: Vec<String> = ps.lcp_impulse[..ps.lcp_points as usize]
                    .iter()
                    .map(|x| format!("({:.2e} {:+.1e} {:+.1e})", x[0], x[1], x[2]))
                    .collect();
                println!("  pair {}-{}: {}", ps.geom_a, ps.geom_b, imp.join(" "));
            }
        }
    });
    (z1 - z2, z0 - z1)
}

/// The gripper scene under `method`, squeezed as [`squeeze`] says (`k` F*, ramped
/// over `ramp` steps) for `HOLD + AFTER` steps; `each(i, model, data)` sees the state
/// before step i and, with i = `HOLD + AFTER`, the end.
fn run_grasp(
    method: &str,
    (k, ramp): (f64, f64),
    extra: &str,
    mut each: impl FnMut(usize, &rtphys::Model, &Data),
) {
    // One directory per call: the tests run on parallel threads, and a file being
    // rewritten by one may be read empty by another.
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rtphys_grasp_{}_{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("gripper.urdf"), URDF).expect("urdf");
    // The palm at z = 0.5, the fingers' centres at x = ∓(0.05 − q), z = 0.4: at q =
    // 0.01 their inner faces touch the cube's sides (half width 0.03).
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = \"{method}\"\n{extra}\n\n\
         [[robot]]\nurdf = \"gripper.urdf\"\nbase = \"fixed\"\nposition = [0.0, 0.0, 0.5]\n\
         joints = {{ left = 0.01, right = 0.01 }}\nmaterial = {{ mu = {MU:?} }}\n\n\
         [[body]]\nname = \"box\"\nshape = {{ type = \"box\", half_extents = [0.03, 0.03, 0.03] }}\n\
         mass = {M:?}\nposition = [0.0, 0.0, 0.4]\nmaterial = {{ mu = {MU:?} }}\n"
    );
    let model = load_scene_str(&text, "<grasp>", &dir).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let r = &model.robots[0];
    for i in 0..HOLD + AFTER {
        each(i, &model, &data);
        for j in 0..r.nv() {
            data.qfrc_cmd[r.v_offset + j] = squeeze(i, k, ramp);
        }
        pipeline.step(&model, &mut data);
    }
    each(HOLD + AFTER, &model, &data);
}

/// The rigid box's slide over the `AFTER` steps: it sticks while the squeeze holds
/// it, then ẍ = g − 2 μ F(t) / m, integrated at 1e-5 s (m).
fn rigid_slip(k: f64, ramp: f64) -> f64 {
    let (mut x, mut v, h) = (0.0f64, 0.0f64, 1e-5);
    let n = (AFTER as f64 * 1e-3 / h).round() as usize;
    for s in 0..n {
        let i = HOLD as f64 + s as f64 * h / 1e-3;
        let t = ((i - HOLD as f64) / ramp).clamp(0.0, 1.0);
        let f = THRESHOLD * (10.0 + (k - 10.0) * t);
        let a = (G - 2.0 * MU * f / M).max(0.0);
        v += a * h;
        x += v * h;
    }
    x
}

/// Penalty and LCP hold the box above the threshold and let it slide below it as the
/// rigid box does:
/// - at 1.2 F* and 2 F* the slip over 0.2 s is ≤ 0.1 mm (measured: LCP 0, penalty
///   4 µm and 1 µm, its anchors' elastic stretch; under `robot_implicit` 0.77 and
///   0.70 µm);
/// - at 0.8 F* and 0.5 F* it is within 5 % of the rigid slide (measured: LCP
///   +0.05 % and +0.7 %, penalty +2.6 % and +1.1 %, under `robot_implicit` +1.7 %
///   and +0.7 %).
///
/// Penalty runs with the links' normal force explicit (the default) and linearly
/// implicit (`[penalty] robot_implicit`). The hold itself drops the box ≤ 0.2 mm
/// (the compliant contact's settling, 98–99 µm; LCP 0).
#[test]
fn a_gripper_holds_a_box_above_the_friction_threshold_and_lets_it_slide_below() {
    for (method, extra) in [("penalty", ""), ("penalty", ROBOT_IMPLICIT), ("lcp", "")] {
        check_grasp(method, extra);
    }
}

/// The bounds of the test above for `method` (with `extra` TOML), at 2, 1.2, 0.8
/// and 0.5 F*.
fn check_grasp(method: &str, extra: &str) {
    for k in [2.0, 1.2, 0.8, 0.5] {
        let (slip, settle) = grasp(method, k, RAMP, extra, false);
        let method = format!(
            "{method}{}",
            if extra.is_empty() {
                ""
            } else {
                " (robot_implicit)"
            }
        );
        let rigid = rigid_slip(k, RAMP);
        println!(
            "{method} {k} F*: hold drop {settle:.3e} m, slip {slip:.5e} m (rigid {rigid:.5e})"
        );
        assert!(
            settle <= 2e-4,
            "{method}: the hold dropped the box {settle} m"
        );
        if k > 1.0 {
            assert!(slip.abs() <= 1e-4, "{method} {k} F*: slipped {slip} m");
        } else {
            assert!(
                (slip / rigid - 1.0).abs() <= 0.05,
                "{method} {k} F*: {slip} m, rigid {rigid}"
            );
        }
    }
}

/// The same under PEG, with the same bounds. The finger–box pairs take the standard
/// rows (the fingers are robot links) and no pair takes PEG's, so since peg33 every
/// step is the LCP method's step (`pipeline::lcp::peg`'s module doc, "Steps without
/// PEG rows"; the test below checks it bit for bit) and PEG measures what LCP does:
/// hold drop 2.4e-12 m, slip 1.6e-12 m at 2 F*, 0.46 µm at 1.2 F*, within 0.05 % and
/// 0.7 % of the rigid slide at 0.8 and 0.5 F*. The bounds are the test above's
/// (penalty's compliant settling sets the 0.2 mm and 0.1 mm; the 5 % is the rigid
/// slide's, which the LCP step's first-order friction meets to 0.7 %).
///
/// Before (session 38 to peg32) PEG solved these rows by its own single cold Lemke
/// over the Stewart–Trinkle form, which put each finger face's normal impulse on one
/// or two of its four points (a vertex solution of the face's non-unique impulses):
/// the box pivoted about the line through them and dropped 6.2 mm in the hold, then
/// slipped 18.4 mm at 2 F* and 30.6 mm at 1.2 F*.
#[test]
fn a_gripper_holds_a_box_under_peg() {
    check_grasp("peg", "");
}

/// A PEG step without PEG rows is the LCP method's step (`pipeline::lcp::peg`'s
/// module doc, "Steps without PEG rows"): this scene has no polytope pair PEG takes
/// (the fingers are robot links), so under PEG every body's pose and velocity and
/// the robot's q and q̇ equal LCP's to the bit at every step, through the hold and a
/// ramp to 1.2 F*. Exact equality, because the same rows go to the same solve.
#[test]
fn peg_steps_the_gripper_as_lcp_bit_for_bit() {
    let bits = |model: &rtphys::Model, data: &Data| -> Vec<u64> {
        let mut out = Vec::new();
        for s in &data.state[..model.bodies.len()] {
            let q = s.q.coords;
            out.extend([s.x.x, s.x.y, s.x.z, q.x, q.y, q.z, q.w]);
            out.extend([s.v.x, s.v.y, s.v.z, s.w.x, s.w.y, s.w.z]);
        }
        out.extend(data.qpos.iter().chain(data.qvel.iter()));
        out.iter().map(|x| x.to_bits()).collect()
    };
    let mut lcp = Vec::new();
    run_grasp("lcp", (1.2, RAMP), "", |_, m, d| lcp.push(bits(m, d)));
    let mut first = None;
    run_grasp("peg", (1.2, RAMP), "", |i, m, d| {
        if first.is_none() && bits(m, d) != lcp[i] {
            first = Some(i);
        }
    });
    assert_eq!(first, None, "PEG differs from LCP from step {first:?} on");
}

/// A step from 10 F* to k F* in one tick, no ramp.
/// - LCP holds at 2 F* and 1.2 F* (0 slip).
/// - Penalty with the links' force explicit (the default) lifts both fingers off
///   the box for 7 ms, and the box falls 0.94 mm before they close again. Its slip
///   is 0.94 mm at 2 F*, 4.9 mm at 1.2 F* and 13.5 mm at 1.05 F*. The contact force
///   relaxes from 9.81 N to 0 in 3 steps: the damping `PidGains::resolve` clamps
///   for explicit stability (h·kv/m_r ≤ 0.5 for the 50 g finger) leaves the
///   finger–box spring under-damped, and the compressed spring throws the finger
///   off (without the clamp the explicit force diverges: the box falls 0.41 m in
///   the hold).
///
/// Fixed under `[penalty] robot_implicit` (the next test); found, not fixed at the
/// default (session 38), which stays explicit this session
/// (docs/EXPERIMENTS.md, "session 39"). Asserted: ≤ 0.1 mm.
#[test]
#[ignore = "found, not fixed at the default (session 38): the explicit link force lifts penalty's fingers off the box for 7 ms on a step down (0.94 mm at 2 F*); fixed under [penalty] robot_implicit"]
fn a_gripper_holds_a_box_through_a_step_down_of_its_squeeze() {
    for method in ["lcp", "penalty"] {
        for k in [2.0, 1.2] {
            let (slip, _) = grasp(method, k, 1.0, "", false);
            println!("{method} step to {k} F*: slip {slip:.5e} m");
            assert!(
                slip.abs() <= 1e-4,
                "{method} step to {k} F*: slipped {slip} m"
            );
        }
    }
}

/// The same step down under `[penalty] robot_implicit` (`pipeline::penalty_robot`):
/// the finger–box normal force is taken at the end of the step through the
/// fingers' joint-space mass matrix, with the unclamped gains, and friction on it.
/// The finger relaxes onto the new squeeze without leaving the box: slip ≤ 0.1 mm
/// at 2, 1.2 and 1.05 F* (measured 0.70 µm, 0.77 µm and 10.3 µm; the explicit
/// default 0.94, 4.9 and 13.5 mm).
#[test]
fn a_gripper_holds_a_box_through_a_step_down_of_its_squeeze_under_robot_implicit() {
    for k in [2.0, 1.2, 1.05] {
        let (slip, _) = grasp("penalty", k, 1.0, ROBOT_IMPLICIT, false);
        println!("penalty (robot_implicit) step to {k} F*: slip {slip:.5e} m");
        assert!(slip.abs() <= 1e-4, "step to {k} F*: slipped {slip} m");
    }
}

const SLIDER: &str = r#"<?xml version="1.0"?>
<robot name="slider">
  <link name="base">
    <inertial><origin xyz="0 0 0"/><mass value="1.0"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="x" type="prismatic">
    <parent link="base"/><child link="slider"/><origin xyz="0 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1000" velocity="10"/>
  </joint>
  <link name="slider">
    <inertial><origin xyz="0 0 0"/><mass value="0.05"/>
      <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial>
    <collision><geometry><box size="0.02 0.06 0.12"/></geometry></collision>
  </link>
</robot>
"#;

/// The largest |x_link − x_free| (m) over the 300 steps after a step down of the
/// push from 9.81 N to 1.96 N, between a 50 g box finger on a prismatic joint and a
/// free 50 g box locked to the same axis, each pushed onto a static wall with no
/// gravity, the same absolute gains (kp, kv, ki = 1e3, 15, 50), `robot_implicit`
/// as given. Returns the largest gap between the two after the step down, and
/// the robot world's steps whose stats report implicit link rows, with the
/// active-set passes and the failed solves those stats count.
fn finger_and_free_twin(robot_implicit: bool) -> (f64, usize, usize, u64) {
    let dir = std::env::temp_dir().join(format!(
        "rtphys_twin_{}_{robot_implicit}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("slider.urdf"), SLIDER).expect("urdf");
    let head = format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.001\nintegrator = \"semi_implicit_euler\"\n\
         method = \"penalty\"\n\n[penalty]\nrobot_implicit = {robot_implicit}\nkp = 1000.0\n\
         kv = 15.0\nki = 50.0\n\n[[body]]\nname = \"wall\"\nstatic = true\n\
         shape = {{ type = \"box\", half_extents = [0.05, 0.3, 0.3] }}\nposition = [0.06, 0.0, 0.0]\n"
    );
    let robot = format!(
        "{head}\n[[robot]]\nurdf = \"slider.urdf\"\nbase = \"fixed\"\nposition = [0.0, 0.0, 0.0]\n"
    );
    let free = format!(
        "{head}\n[[body]]\nname = \"slider\"\n\
         shape = {{ type = \"box\", half_extents = [0.01, 0.03, 0.06] }}\nmass = 0.05\n\
         position = [0.0, 0.0, 0.0]\nlock = [\"y\", \"z\", \"rx\", \"ry\", \"rz\"]\n"
    );
    let mr = load_scene_str(&robot, "<finger>", &dir).unwrap_or_else(|e| panic!("{e}"));
    let mf = load_scene_str(&free, "<free>", &dir).unwrap_or_else(|e| panic!("{e}"));
    let b = mf.body_id("slider").expect("slider");
    let (mut dr, mut df) = (Data::new(&mr), Data::new(&mf));
    let (mut pr, mut pf) = (Pipeline::new(&mr), Pipeline::new(&mf));
    let mut worst = 0.0f64;
    let (mut row_steps, mut passes) = (0, 0);
    for i in 0..600 {
        let f = if i < 300 { 9.81 } else { 1.96 };
        dr.qfrc_cmd[0] = f;
        df.xfrc[b] = rtphys::math::Wrench {
            force: nalgebra::Vector3::new(f, 0.0, 0.0),
            torque: nalgebra::Vector3::zeros(),
        };
        pr.step(&mr, &mut dr);
        pf.step(&mf, &mut df);
        if i >= 300 {
            worst = worst.max((dr.qpos[0] - df.state[b].x.x).abs());
        }
        if dr.stats.robot_contact_rows > 0 {
            row_steps += 1;
            passes += dr.stats.robot_contact_passes;
        }
    }
    (worst, row_steps, passes, dr.stats.robot_contact_failures)
}

/// `robot_implicit` takes a link's normal force by the law free bodies' pairs take
/// (`penalty_implicit`): a finger on a prismatic joint and the free box it stands for
/// follow the same trajectory through a step down of their push, to ≤ 1e-11 m
/// (measured 2.2e-13 m, round-off, against the 1.3–6.5 mm depths) from the step
/// down on (before it, the free box's first contact takes a gap row, which the link
/// pairs have not). With the link's force explicit (the default: clamped gains)
/// the two part by 3.8e-4 m: asserted ≥ 1e-5 m, so the comparison can tell.
/// The step's stats say what was solved: under the key the finger's row is in
/// every step after the first (the finger starts touching the wall), each solve
/// takes at least one active-set pass and none fails; explicit, no row is solved.
#[test]
fn a_finger_under_robot_implicit_moves_as_the_free_body_it_stands_for() {
    let (implicit, rows_on, passes_on, failures_on) = finger_and_free_twin(true);
    let (explicit, rows_off, _, failures_off) = finger_and_free_twin(false);
    println!(
        "finger vs free twin after the step down: robot_implicit {implicit:.3e} m, explicit {explicit:.3e} m; \
         steps with implicit link rows {rows_on} of 600 ({passes_on} passes, {failures_on} failed), \
         explicit {rows_off}"
    );
    assert!(implicit <= 1e-11, "robot_implicit: {implicit} m apart");
    assert!(explicit >= 1e-5, "explicit: only {explicit} m apart");
    assert!(rows_on >= 599, "implicit link rows in {rows_on} steps");
    assert!(
        passes_on >= rows_on,
        "{passes_on} passes in {rows_on} solves"
    );
    assert_eq!((failures_on, rows_off, failures_off), (0, 0, 0));
}

/// The figures behind docs/EXPERIMENTS.md's grasp paragraphs (session 38),
/// printed, not asserted: `cargo test --release --test robot_grasp -- --ignored
/// --nocapture figures`. The table's rows for k = 0.8 and 0.5 under PEG, the
/// step-down slips, PEG's keys at 2 F*, and the impulses per point.
#[test]
#[ignore = "a measurement tool: prints the EXPERIMENTS figures"]
fn figures() {
    let retry_off = "[lcp]\npeg_retry_depth = 0\npeg_retry_overlap = 0.0";
    for (method, extra) in [
        ("lcp", ""),
        ("penalty", ""),
        ("penalty", ROBOT_IMPLICIT),
        ("peg", ""),
        ("peg", retry_off),
    ] {
        for k in [2.0, 1.2, 0.8, 0.5] {
            let (slip, settle) = grasp(method, k, RAMP, extra, false);
            println!(
                "{method} {} ramp to {k} F*: hold drop {settle:.3e} m, slip {slip:.4e} m (rigid {:.4e})",
                match extra {
                    "" => "",
                    ROBOT_IMPLICIT => "(robot_implicit)",
                    _ => "(retry off)",
                },
                rigid_slip(k, RAMP)
            );
        }
    }
    // The explicit link force's keys at the step down (session 39's attribution):
    // the clamp lifted, a looser clamp, no integral term.
    for extra in [
        "[penalty]\ndamping_limit = 1e9\nstiffness_limit = 1e9",
        "[penalty]\ndamping_limit = 1.5",
        "[penalty]\nki = 0.0",
    ] {
        let (slip, settle) = grasp("penalty", 2.0, 1.0, extra, false);
        println!(
            "penalty step to 2 F* [{}]: hold drop {settle:.3e} m, slip {slip:.4e} m",
            extra.replace('\n', "; ")
        );
    }
    for (method, extra) in [("lcp", ""), ("penalty", ""), ("penalty", ROBOT_IMPLICIT)] {
        for k in [2.0, 1.2, 1.05] {
            let (slip, _) = grasp(method, k, 1.0, extra, false);
            println!(
                "{method} {}step to {k} F*: slip {slip:.4e} m",
                if extra.is_empty() {
                    ""
                } else {
                    "(robot_implicit) "
                }
            );
        }
    }
    for extra in [
        retry_off.to_string(),
        format!("{retry_off}\npeg_general = false"),
        format!("{retry_off}\npeg_outline_ccd = false"),
        format!("{retry_off}\npeg_vv_feasible = false"),
        format!("{retry_off}\nwarm_start = false"),
        format!("{retry_off}\nmax_pivots = 100000"),
        format!("{retry_off}\nfriction_directions = 8"),
        format!("{retry_off}\nstabilization = 0.0"),
    ] {
        let (slip, settle) = grasp("peg", 2.0, RAMP, &extra, false);
        println!(
            "peg 2 F* [{}]: hold drop {settle:.3e} m, slip {slip:.4e} m",
            extra.replace('\n', "; ")
        );
    }
    grasp("lcp", 2.0, RAMP, "", true);
    grasp("peg", 2.0, RAMP, "", true);
    for method in ["lcp", "peg"] {
        for k in [2.0, 10.0] {
            println!(
                "{method} free squeeze at {k} F*: drop {:.3e} m in 0.5 s",
                free_squeeze(method, k)
            );
        }
    }
}

/// The cube squeezed between a static wall and a free 50 g pusher locked to x
/// (pressed by k F* along −x, no robot): its drop over 0.5 s (m).
fn free_squeeze(method: &str, k: f64) -> f64 {
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = \"{method}\"\n\n\
         [[body]]\nname = \"wall\"\nstatic = true\nshape = {{ type = \"box\", half_extents = [0.05, 0.3, 0.3] }}\n\
         position = [-0.05, 0.0, 0.5]\nmaterial = {{ mu = {MU:?} }}\n\n\
         [[body]]\nname = \"box\"\nshape = {{ type = \"box\", half_extents = [0.03, 0.03, 0.03] }}\n\
         mass = {M:?}\nposition = [0.03, 0.0, 0.5]\nmaterial = {{ mu = {MU:?} }}\n\n\
         [[body]]\nname = \"pusher\"\nshape = {{ type = \"box\", half_extents = [0.01, 0.03, 0.06] }}\n\
         mass = 0.05\nposition = [0.07, 0.0, 0.5]\nmaterial = {{ mu = {MU:?} }}\n\
         lock = [\"y\", \"z\", \"rx\", \"ry\", \"rz\"]\n"
    );
    let model = load_scene_str(&text, "<squeeze>", std::path::Path::new("."))
        .unwrap_or_else(|e| panic!("{e}"));
    let (b, p) = (
        model.body_id("box").expect("box"),
        model.body_id("pusher").expect("pusher"),
    );
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let z0 = data.state[b].x.z;
    for _ in 0..500 {
        data.xfrc[p] = rtphys::math::Wrench {
            force: nalgebra::Vector3::new(-k * THRESHOLD, 0.0, 0.0),
            torque: nalgebra::Vector3::zeros(),
        };
        pipeline.step(&model, &mut data);
    }
    z0 - data.state[b].x.z
}
