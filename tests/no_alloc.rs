//! The step performs no heap allocation once warmed up: a counting global allocator
//! over 1,000 steps of the 20-object pile.

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::load_scene_str;
use rtphys::{step, Data};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

struct Counting;
static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn pile_steps_without_allocating() {
    for (kind, integrator) in [
        (PileKind::Bench, "semi_implicit_euler"),
        (PileKind::Paper, "rk4"),
    ] {
        let text = pile_scene(kind, 20, 7).replace("semi_implicit_euler", integrator);
        let model = load_scene_str(&text, "pile", std::path::Path::new(".")).expect("scene");
        let mut data = Data::new(&model);
        for _ in 0..3000 {
            step(&model, &mut data);
        }
        ALLOCS.store(0, Ordering::SeqCst);
        COUNTING.store(true, Ordering::SeqCst);
        for _ in 0..1000 {
            step(&model, &mut data);
        }
        COUNTING.store(false, Ordering::SeqCst);
        let n = ALLOCS.load(Ordering::SeqCst);
        assert!(data.stats.contact_pairs > 10, "pile has no contacts");
        assert_eq!(
            n, 0,
            "{kind:?}/{integrator}: {n} allocations in 1,000 warmed-up steps"
        );
    }
}
