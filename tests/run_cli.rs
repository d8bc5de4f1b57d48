//! `rtphys run` as a user sees it (issue 11, last bullet): the CSV's velocity,
//! contact-force and joint columns, `--method` help listing every method,
//! `--lcp-solver`, and the warning when `--method` overrides a scene's tuned
//! contact parameters. Runs the real binary.

mod common;

use std::process::{Command, Output};

fn rtphys(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtphys"))
        .args(args)
        .output()
        .expect("run rtphys")
}

fn scene(name: &str) -> String {
    common::scene_path(name).to_string_lossy().into_owned()
}

/// Header and rows of a CSV on standard output.
fn csv(out: &Output) -> (Vec<String>, Vec<Vec<f64>>) {
    assert!(
        out.status.success(),
        "rtphys failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("header")
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(|x| x.parse().expect("float")).collect())
        .collect();
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// A box resting on the plane: after 0.5 s its velocities are ~0, the contact
/// force on it is its weight (10 kg · 9.81, 1 %) upward and the ground's is its
/// opposite; every row has as many fields as the header.
#[test]
fn csv_has_velocities_and_contact_forces() {
    let (h, rows) = csv(&rtphys(&[
        "run",
        &scene("box_on_plane.toml"),
        "--steps",
        "500",
    ]));
    assert!(rows.iter().all(|r| r.len() == h.len()));
    let last = rows.last().expect("rows");
    for c in ["vx", "vy", "vz", "wx", "wy", "wz"] {
        let v = last[col(&h, &format!("box.{c}"))];
        assert!(v.abs() < 1e-3, "box.{c} = {v}");
    }
    let fz = last[col(&h, "box.fz")];
    assert!((fz - 98.1).abs() < 0.981, "box.fz = {fz}");
    assert!((last[col(&h, "ground.fz")] + fz).abs() < 1e-9);
    assert!(last[col(&h, "box.fx")].abs() < 1e-6);
    // Static bodies have no velocity columns.
    assert!(!h.iter().any(|c| c == "ground.vx"));
}

/// A free spinner (no gravity, no contact): the CSV's angular velocity is the one
/// the scene gives (a principal-axis spin stays constant), its linear velocity too.
#[test]
fn csv_velocities_are_the_bodys() {
    let dir = std::env::temp_dir().join(format!("rtphys-runcli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let path = dir.join("spin.toml");
    std::fs::write(
        &path,
        "[world]\ngravity = [0.0, 0.0, 0.0]\n\n[[body]]\nname = \"top\"\n\
         shape = { type = \"box\", half_extents = [0.5, 0.3, 0.1] }\nmass = 3.0\n\
         velocity = [1.0, 2.0, 3.0]\nangular_velocity = [0.0, 0.0, 5.0]\n",
    )
    .expect("write");
    let (h, rows) = csv(&rtphys(&["run", path.to_str().unwrap(), "--steps", "100"]));
    let last = rows.last().expect("rows");
    for (c, want) in [
        ("vx", 1.0),
        ("vy", 2.0),
        ("vz", 3.0),
        ("wx", 0.0),
        ("wy", 0.0),
        ("wz", 5.0),
    ] {
        let v = last[col(&h, &format!("top.{c}"))];
        assert!((v - want).abs() < 1e-9, "top.{c} = {v}, want {want}");
    }
    assert!((last[col(&h, "top.x")] - 0.1).abs() < 1e-9);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The arm held by its servos: one q, q̇, τ triple per joint, named robot/joint;
/// q starts at the scene's pose (joint4 = −2.356) and gravity needs torque.
#[test]
fn csv_has_joint_states() {
    let (h, rows) = csv(&rtphys(&["run", &scene("arm.toml"), "--steps", "50"]));
    for j in 1..=7 {
        for c in ["q", "qd", "tau"] {
            col(&h, &format!("arm/joint{j}.{c}"));
        }
    }
    let last = rows.last().expect("rows");
    let q4 = last[col(&h, "arm/joint4.q")];
    assert!((q4 + 2.356).abs() < 0.05, "joint4 q = {q4}");
    let tau: f64 = (1..=7)
        .map(|j| last[col(&h, &format!("arm/joint{j}.tau"))].abs())
        .sum();
    assert!(tau > 1.0, "servo torques {tau}");
    assert!(rows.iter().flatten().all(|x| x.is_finite()));
}

#[test]
fn method_help_lists_every_method_and_the_lcp_solver() {
    let out = rtphys(&["run", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for m in [
        "penalty",
        "penalty_deepest",
        "hunt_crossley",
        "lcp",
        "peg",
        "--lcp-solver",
    ] {
        assert!(help.contains(m), "run --help does not mention {m}:\n{help}");
    }
    assert!(help.contains("lemke") && help.contains("pgs"));
}

/// `--lcp-solver` picks the solver (Lemke and PGS runs of a box landing differ in
/// round-off, both land it), refuses unknown names and non-LCP runs.
#[test]
fn lcp_solver_option() {
    let box_ = scene("lcp_box.toml");
    let lemke = rtphys(&["run", &box_, "--steps", "300", "--lcp-solver", "lemke"]);
    let pgs = rtphys(&["run", &box_, "--steps", "300", "--lcp-solver", "pgs"]);
    let (h, rl) = csv(&lemke);
    let (_, rp) = csv(&pgs);
    assert!(
        lemke.stdout != pgs.stdout,
        "lemke and pgs runs are identical"
    );
    let z = col(&h, "box.z");
    let (zl, zp) = (rl.last().unwrap()[z], rp.last().unwrap()[z]);
    assert!((zl - zp).abs() < 1e-3, "lemke z {zl}, pgs z {zp}");
    let bad = rtphys(&["run", &box_, "--steps", "1", "--lcp-solver", "dantzig"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("lemke, pgs"));
    let penalty = rtphys(&[
        "run",
        &scene("box_on_plane.toml"),
        "--steps",
        "1",
        "--lcp-solver",
        "pgs",
    ]);
    assert!(!penalty.status.success());
    let ok = rtphys(&[
        "run",
        &scene("box_on_plane.toml"),
        "--steps",
        "1",
        "--method",
        "lcp",
        "--lcp-solver",
        "pgs",
    ]);
    assert!(ok.status.success());
}

/// A scene tuned for penalty ([penalty] table) run with --method lcp or
/// hunt_crossley warns on stderr and names the table; the scene's own method, the
/// other penalty variant, or no override, do not warn.
#[test]
fn method_override_warns_about_tuned_parameters() {
    let s = scene("box_on_plane.toml");
    for m in ["lcp", "hunt_crossley"] {
        let out = rtphys(&["run", &s, "--steps", "1", "--method", m]);
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("warning") && err.contains("[penalty]") && err.contains(m),
            "--method {m}: stderr {err:?}"
        );
    }
    for args in [
        vec!["--method", "penalty"],
        vec!["--method", "penalty_deepest"],
        vec![],
    ] {
        let mut a = vec!["run", s.as_str(), "--steps", "1"];
        a.extend(args.iter());
        let out = rtphys(&a);
        assert!(out.status.success());
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("warning"),
            "{args:?} warned"
        );
    }
    // An LCP scene with an [lcp] table run under penalty.
    let lcp = scene("lcp_box.toml");
    let out = rtphys(&["run", &lcp, "--steps", "1", "--method", "penalty"]);
    let err = String::from_utf8_lossy(&out.stderr);
    if std::fs::read_to_string(&lcp).unwrap().contains("[lcp]") {
        assert!(err.contains("[lcp]"), "stderr {err:?}");
    }
}

/// A robot scene switched to Hunt–Crossley is refused with a message (that stepper
/// does not advance robots: they would silently stand still), as the scene loader
/// refuses `method = "hunt_crossley"` with robots.
#[test]
fn hunt_crossley_override_of_a_robot_scene_is_refused() {
    let out = rtphys(&[
        "run",
        &scene("arm.toml"),
        "--method",
        "hunt_crossley",
        "--steps",
        "5",
    ]);
    assert!(
        !out.status.success(),
        "a robot scene ran under hunt_crossley"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--method hunt_crossley") && err.contains("robots"),
        "unclear error: {err}"
    );
}

/// `--out` onto a pipe or a device (`--out /dev/null`) writes into it in place: the
/// CSV arrives through a FIFO, and the FIFO is still a FIFO afterwards. (Writing a
/// sibling file and renaming it over the path, as for a regular file, replaced
/// /dev/null with a regular file when run as root.)
#[test]
fn out_to_a_fifo_writes_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = std::env::temp_dir().join(format!("rtphys-runcli-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let fifo = dir.join("out.csv");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success(), "mkfifo failed");
    // The reader opens the FIFO before the writer can finish (opening blocks until
    // both ends are there).
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let fifo = fifo.clone();
        std::thread::spawn(move || tx.send(std::fs::read_to_string(fifo)));
    }
    let out = rtphys(&[
        "run",
        &scene("box_on_plane.toml"),
        "--steps",
        "20",
        "--out",
        fifo.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.status.success(),
        "rtphys failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A run that replaced the FIFO never opened it: the reader would wait forever.
    let text = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("nothing was written into the FIFO")
        .expect("read fifo");
    assert_eq!(
        text.lines().count(),
        21,
        "header and 20 rows through the FIFO"
    );
    let kind = std::fs::symlink_metadata(&fifo).expect("fifo").file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced by {kind:?}");
    assert!(!dir.join("out.csv.partial").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
