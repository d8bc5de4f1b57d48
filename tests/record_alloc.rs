//! The recording's physics-thread side never allocates: `RecState::diff` (run before
//! every step while recording) compares the inputs with its preallocated mirror and
//! pushes fixed-size records into the preallocated queue; a full queue counts the
//! record as lost, still without allocating or waiting.

#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

use rtphys::math::Vec3;
use rtphys::runtime::command::{SourceWrench, WrenchFrame};
use rtphys::runtime::record::{RecQueue, RecState, SlotState};
use rtphys::runtime::World;
use std::sync::atomic::Ordering;
use std::sync::Arc;

fn run(cap: usize) -> (u64, u64, usize) {
    let model = rtphys::model::scene::load_scene_file("config/scenes/arm_table.toml").unwrap();
    let nctrl = 4;
    let mut w = World::new(1, "t".into(), model, nctrl, 16);
    let q = Arc::new(RecQueue::new(cap));
    let mut rec = RecState::new(1, &w.model, nctrl, q.clone());
    rec.after_reset(&w.data);
    let nb = w.model.nbody();
    let nv = w.model.nv;
    let mut slots = [SlotState::default(); 4];
    let (_, allocs) = alloc_counter::count(|| {
        for k in 0..2000usize {
            let sw = SourceWrench {
                force: Vec3::new(k as f64, 0.0, 1.0),
                torque: Vec3::zeros(),
                frame: WrenchFrame::World,
                point_b: (k.is_multiple_of(3)).then(|| Vec3::new(0.0, 0.01, 0.0)),
                until_tick: if k.is_multiple_of(5) { 10 } else { u64::MAX },
            };
            w.unary[k % nb] = Some(sw);
            w.ctrl[k % nctrl][(k + 1) % nb] = if k.is_multiple_of(7) { None } else { Some(sw) };
            if nv > 0 {
                w.data.qfrc_cmd[k % nv] = k as f64 * 0.01;
            }
            slots[k % nctrl].open = !k.is_multiple_of(11);
            slots[k % nctrl].tripped = k.is_multiple_of(13);
            if k.is_multiple_of(500) {
                rec.record_reset(&w.data);
            }
            rec.diff(&w, slots.iter().copied());
            w.data.tick += 1;
        }
        rec.end(
            &w.model,
            &w.data,
            rtphys::runtime::record::EndReason::Stopped,
        );
    });
    (
        q.pushed.load(Ordering::SeqCst),
        q.lost.load(Ordering::SeqCst),
        allocs,
    )
}

#[test]
fn recording_the_inputs_allocates_nothing() {
    let (pushed, lost, allocs) = run(1 << 16);
    assert!(pushed > 4000, "records pushed: {pushed}");
    assert_eq!(lost, 0);
    assert_eq!(allocs, 0, "allocations while recording 2000 ticks");
}

#[test]
fn a_full_queue_counts_lost_records_without_allocating() {
    let (pushed, lost, allocs) = run(64);
    assert_eq!(pushed, 64, "the queue holds 64 (nobody drains it here)");
    assert!(lost > 1000, "the rest counted lost: {lost}");
    assert_eq!(allocs, 0);
}
