//! The awake-body list of a partly sleeping world (`Data::awake_bodies`, issue
//! 18): the per-step passes over bodies walk only the bodies not asleep, and the
//! step keeps the list with the sleeping flags on every wake and fall asleep.
//! Checked against the reference path — a fresh `Pipeline` every step (no
//! memory of the last step: the whole rollback copy, the whole broad phase) and
//! the list rebuilt from the flags before every step — bit for bit, and the
//! maintained list against the one rebuilt from the flags after every step.

mod common;

use rtphys::math::{Vec3, Wrench};
use rtphys::model::scene::load_scene_str;
use rtphys::model::{BodyKind, Model};
use rtphys::{Data, Pipeline};

fn load(text: &str) -> Model {
    load_scene_str(text, "<sleep_awake test>", &common::scene_path(""))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn with_sleep(text: &str) -> String {
    text.replacen("[world]\n", "[world]\nsleep = { enabled = true }\n", 1)
}

/// The bodies not asleep, from the flags.
fn awake_from_flags(d: &Data) -> Vec<u32> {
    (0..d.asleep.len() as u32)
        .filter(|&b| !d.asleep[b as usize])
        .collect()
}

/// State bits, sleeping flags and rest clocks.
fn bits(d: &Data) -> Vec<u64> {
    let mut v: Vec<u64> = d
        .state
        .iter()
        .flat_map(|b| {
            let q = b.q.coords;
            [
                b.x.x, b.x.y, b.x.z, q.x, q.y, q.z, q.w, b.v.x, b.v.y, b.v.z, b.w.x, b.w.y, b.w.z,
            ]
        })
        .map(f64::to_bits)
        .collect();
    v.extend(d.asleep.iter().map(|&s| s as u64));
    v.extend(d.rest_s.iter().map(|t| t.to_bits()));
    v
}

/// One world stepped two ways: `fast` by one pipeline with the list the step
/// keeps, `reference` by a fresh pipeline every step with the list rebuilt
/// before it. `input(k, data)` is applied to both before step k.
struct Twin<'m> {
    model: &'m Model,
    fast: Data,
    pipeline: Pipeline,
    reference: Data,
}

impl<'m> Twin<'m> {
    fn new(model: &'m Model) -> Self {
        Twin {
            model,
            fast: Data::new(model),
            pipeline: Pipeline::new(model),
            reference: Data::new(model),
        }
    }

    fn step(&mut self, what: &str) {
        let k = self.fast.tick;
        self.pipeline.step(self.model, &mut self.fast);
        self.reference.rebuild_awake();
        Pipeline::new(self.model).step(self.model, &mut self.reference);
        assert_eq!(
            self.fast.awake_bodies(),
            &awake_from_flags(&self.fast)[..],
            "{what}: the kept awake list differs from the flags' after step {k}"
        );
        assert!(
            bits(&self.fast) == bits(&self.reference),
            "{what}: step {k} differs from the reference path"
        );
    }

    fn both(&mut self, f: impl Fn(&Model, &mut Data)) {
        f(self.model, &mut self.fast);
        f(self.model, &mut self.reference);
    }
}

fn sleeping(model: &Model, d: &Data) -> usize {
    (0..model.nbody())
        .filter(|&b| d.asleep[b] && model.bodies[b].kind != BodyKind::Static)
        .count()
}

/// The peer's grid_1000 (1,000 boxes resting on the floor), asleep, with 10 of
/// them kept awake by a small downward force (a driven body never rests): the
/// awake list holds those 10 and the floor, and 300 steps are those of the
/// reference path, bit for bit.
#[test]
fn a_world_of_1000_with_10_awake_steps_as_the_reference_path() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rtphys::tools::scaling::SCALING_DIR)
        .join("grid_1000.json");
    let text = rtphys::tools::scaling::scene_from_json_file(&path).expect("grid_1000");
    let model = load(&with_sleep(&text));
    let free: Vec<usize> = (0..model.nbody())
        .filter(|&b| model.bodies[b].kind == BodyKind::Free)
        .collect();
    assert_eq!(free.len(), 1000);
    let mut d = Data::new(&model);
    let mut p = Pipeline::new(&model);
    let mut k = 0;
    while sleeping(&model, &d) < 1000 {
        p.step(&model, &mut d);
        k += 1;
        assert!(
            k < 2000,
            "grid_1000 not asleep after 2 s ({} asleep)",
            sleeping(&model, &d)
        );
    }
    // Ten driven bodies, every 100th.
    let driven: Vec<usize> = free.iter().copied().step_by(100).collect();
    for &b in &driven {
        let w = model.bodies[b].mass * 1e-3;
        d.xfrc[b] = Wrench {
            force: Vec3::new(0.0, 0.0, -9.81 * w),
            torque: Vec3::zeros(),
        };
    }
    let mut twin = Twin::new(&model);
    twin.fast = d.clone();
    twin.reference = d;
    for _ in 0..300 {
        twin.step("grid_1000, 10 awake");
    }
    assert_eq!(sleeping(&model, &twin.fast), 990);
    let statics = model.nbody() - free.len();
    assert_eq!(twin.fast.awake_bodies().len(), 10 + statics);
    for &b in &driven {
        assert!(twin.fast.awake_bodies().contains(&(b as u32)));
    }
}

/// Two islands on the floor: a row of three boxes with two on top and a pusher
/// box beside it (bodies 1–6), and a two-box stack 1 m away (7–8); μ = 0.5,
/// penalty (stack5's gains), sleeping on.
fn two_islands() -> String {
    let mut s = "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nintegrator = \"semi_implicit_euler\"\nmethod = \"penalty\"\n\n\
         [penalty]\nkp_per_mass = 20000.0\nkv_per_mass = 300.0\nki_per_mass = 1000.0\nforgetting = 0.9\n\n\
         [[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"plane\" }\nmaterial = { mu = 0.5 }\n\n"
        .to_string();
    let mut add = |name: &str, x: f64, z: f64| {
        s.push_str(&format!(
            "[[body]]\nname = \"{name}\"\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nmass = 1.0\nposition = [{x:?}, 0.0, {z:?}]\nmaterial = {{ mu = 0.5 }}\n\n"
        ));
    };
    add("pusher", -0.121, 0.0499);
    for (i, x) in [0.0, 0.1001, 0.2002].into_iter().enumerate() {
        add(&format!("bottom{i}"), x, 0.0499);
    }
    for (i, x) in [0.05, 0.1501].into_iter().enumerate() {
        add(&format!("top{i}"), x, 0.1498);
    }
    add("stack0", 1.0, 0.0499);
    add("stack1", 1.0, 0.1498);
    with_sleep(&s)
}

/// Wakes of every kind keep the list and the reference path's bits: by a
/// wrench on a sleeping box, by a command (`Data::wake`), by contact (the woken
/// pusher sent into the sleeping row), and by restoring a snapshot taken while
/// half the world slept; after each (but the shove) the world falls asleep again.
#[test]
fn wakes_by_contact_wrench_command_and_restore_keep_the_reference_bits() {
    let model = load(&two_islands());
    let mut twin = Twin::new(&model);
    let all = 8;
    let run_until_asleep = |twin: &mut Twin<'_>, what: &str| {
        for _ in 0..3000 {
            if sleeping(&model, &twin.fast) == all {
                return;
            }
            twin.step(what);
        }
        panic!("{what}: {} of {all} asleep", sleeping(&model, &twin.fast));
    };
    run_until_asleep(&mut twin, "settle");

    // A wrench on the sleeping stack's top box for 5 ms.
    for k in 0..5 {
        let f = if k < 4 { 3.0 } else { 0.0 };
        twin.both(|_, d| {
            d.xfrc[8] = Wrench {
                force: Vec3::new(f, 0.0, 0.0),
                torque: Vec3::zeros(),
            }
        });
        twin.step("wrench");
    }
    assert!(
        !twin.fast.asleep[7] && !twin.fast.asleep[8],
        "the wrench woke nothing"
    );
    assert!(twin.fast.asleep[2], "the wrench woke the other island");
    // Half asleep: the snapshot restored later.
    let snap = twin.fast.snapshot();
    run_until_asleep(&mut twin, "after the wrench");

    // A command: the row's top box woken (its island with it).
    twin.both(|m, d| d.wake(m, 5));
    twin.step("command");
    assert!(
        (2..=6).all(|b| !twin.fast.asleep[b]),
        "the command woke no island"
    );
    assert!(
        twin.fast.asleep[1] && twin.fast.asleep[7],
        "the command woke another island"
    );
    run_until_asleep(&mut twin, "after the command");

    // Contact: the pusher woken alone and sent at 0.8 m/s into the sleeping row
    // (μ g = 4.9 m/s² would stop it after 6.5 cm: its gap of 2.1 cm closes in
    // ≈ 30 ms).
    twin.both(|_, d| {
        d.asleep[1] = false;
        d.rebuild_awake();
        d.edited();
        d.state[1].v = Vec3::new(0.8, 0.0, 0.0);
    });
    let mut woke = false;
    for _ in 0..200 {
        twin.step("contact");
        woke |= !twin.fast.asleep[2];
    }
    assert!(woke, "the pusher's contact woke nothing");
    // (The shoved row keeps moving for seconds, tests/sleep.rs: 500 more steps
    // while it rocks, some of it falling asleep again.)
    for _ in 0..500 {
        twin.step("after the contact");
    }

    // Restore the half-asleep snapshot.
    twin.both(|_, d| assert!(d.restore(&snap)));
    assert_eq!(twin.fast.awake_bodies(), &awake_from_flags(&twin.fast)[..]);
    twin.step("restore");
    run_until_asleep(&mut twin, "after the restore");
}
