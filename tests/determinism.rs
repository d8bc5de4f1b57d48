//! Same scene + same inputs → bit-identical results; snapshot/restore is bitwise.

mod common;
use common as common_scene;

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::{BodyState, Data};

fn bits(s: &[BodyState]) -> Vec<u64> {
    s.iter()
        .flat_map(|b| {
            let q = b.q.coords;
            [
                b.x.x, b.x.y, b.x.z, q.x, q.y, q.z, q.w, b.v.x, b.v.y, b.v.z, b.w.x, b.w.y, b.w.z,
            ]
        })
        .map(f64::to_bits)
        .collect()
}

#[test]
fn run_csv_is_byte_identical() {
    let dir = std::env::temp_dir().join(format!("rtphys-det-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let scene = dir.join("pile.toml");
    std::fs::write(&scene, pile_scene(PileKind::Bench, 20, 7)).expect("write");
    let mut outs = Vec::new();
    for k in 0..2 {
        let out = dir.join(format!("run{k}.csv"));
        let st = std::process::Command::new(env!("CARGO_BIN_EXE_rtphys"))
            .args([
                "run",
                scene.to_str().unwrap_or_default(),
                "--steps",
                "1500",
                "--out",
            ])
            .arg(&out)
            .status()
            .expect("run");
        assert!(st.success());
        outs.push(std::fs::read(&out).expect("csv"));
    }
    assert!(outs[0].len() > 1000);
    assert!(outs[0] == outs[1], "two runs differ");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn snapshot_restore_is_bitwise() {
    let model = common_scene::load_str(&pile_scene(PileKind::Bench, 20, 7));
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    for _ in 0..700 {
        pipeline.step(&model, &mut data);
    }
    let snap = data.snapshot();
    let mut first = Vec::new();
    for _ in 0..500 {
        pipeline.step(&model, &mut data);
        first.push(bits(&data.state));
    }
    assert!(data.restore(&snap));
    for (k, expect) in first.iter().enumerate() {
        pipeline.step(&model, &mut data);
        assert_eq!(
            &bits(&data.state),
            expect,
            "diverged {k} steps after restore"
        );
    }
    // A fresh Data restored from the snapshot continues identically too.
    let mut other = Data::new(&model);
    let mut other_pipe = rtphys::Pipeline::new(&model);
    assert!(other.restore(&snap));
    for expect in &first {
        other_pipe.step(&model, &mut other);
        assert_eq!(&bits(&other.state), expect);
    }
}

/// With the rest memo, the kept normal rows and the kept linear-anchor blocks
/// on (`[penalty] rest_tol`), on grid_100 at rest (manifolds served, rows and
/// blocks kept: state in `PairState` and `Data::rest_blocks`), a snapshot
/// restores bit for bit — through `Data::snapshot` and through the runtime's
/// `Saved::fill_from` (what a lockstep client's save/restore uses), into the
/// same world and into a fresh one, whose pipeline never saw it.
#[test]
fn snapshot_restore_is_bitwise_with_rest_rows() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rtphys::tools::scaling::SCALING_DIR)
        .join("grid_100.json");
    let text = rtphys::tools::scaling::scene_from_json_file(&path)
        .expect("scaling scene")
        .replacen("[penalty]\n", "[penalty]\nrest_tol = 1e-12\n", 1);
    assert!(text.contains("rest_tol"));
    let model = common_scene::load_str(&text);
    let mut world = rtphys::runtime::World::new(1, "grid".into(), model.clone(), 1, 4);
    let step = |w: &mut rtphys::runtime::World| {
        w.step_with_device(None, &mut || 0.0);
    };
    for _ in 0..700 {
        step(&mut world);
    }
    let mut saved = world.new_saved();
    saved.fill_from(&world);
    let snap = world.data.snapshot();
    let kept = snap.pairs.iter().filter(|p| p.rest_rows.is_some()).count();
    assert!(kept >= 50, "{kept} pairs hold rows at the snapshot");
    let blocks = (snap.rest_blocks.iter())
        .filter(|b| b.geoms != rtphys::data::RestBlock::FREE)
        .count();
    assert!(blocks >= 50, "{blocks} kept blocks at the snapshot");
    assert!(saved.snap == snap, "Saved and Data::snapshot differ");
    let mut first = Vec::new();
    for _ in 0..300 {
        step(&mut world);
        first.push(bits(&world.data.state));
    }
    assert!(world.data.restore(&saved.snap));
    for (k, expect) in first.iter().enumerate() {
        step(&mut world);
        assert_eq!(
            &bits(&world.data.state),
            expect,
            "same world: {k} steps after"
        );
    }
    let mut fresh = rtphys::runtime::World::new(2, "grid".into(), model, 1, 4);
    assert!(fresh.data.restore(&snap));
    for (k, expect) in first.iter().enumerate() {
        step(&mut fresh);
        assert_eq!(
            &bits(&fresh.data.state),
            expect,
            "fresh world: {k} steps after"
        );
    }
}
