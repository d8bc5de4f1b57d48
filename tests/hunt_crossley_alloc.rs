//! The Hunt–Crossley adaptive step performs no heap allocation once warmed up: a
//! counting allocator over 1,000 ticks of the 20-object pile, both integrators.

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::{load_scene_str, MethodName};
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
fn hunt_crossley_pile_steps_without_allocating() {
    for integrator in ["semi_implicit_euler", "rk4"] {
        let text = pile_scene(PileKind::Bench, 20, 7).replace("semi_implicit_euler", integrator);
        let model = load_scene_str(&text, "pile", std::path::Path::new(".")).expect("scene");
        let model =
            rtphys::run::apply_overrides(&model, Some(MethodName::HuntCrossley), None, None)
                .expect("override");
        let mut data = Data::new(&model);
        for _ in 0..2000 {
            step(&model, &mut data);
        }
        ALLOCS.store(0, Ordering::SeqCst);
        COUNTING.store(true, Ordering::SeqCst);
        let s0 = data.stats.substeps_total;
        for _ in 0..1000 {
            step(&model, &mut data);
        }
        COUNTING.store(false, Ordering::SeqCst);
        let n = ALLOCS.load(Ordering::SeqCst);
        println!(
            "{integrator}: {} sub-steps per tick, {} contact pairs",
            (data.stats.substeps_total - s0) as f64 / 1000.0,
            data.stats.contact_pairs
        );
        assert!(data.stats.contact_pairs > 10, "pile has no contacts");
        assert_eq!(
            n, 0,
            "{integrator}: {n} allocations in 1,000 warmed-up ticks"
        );
    }
}
