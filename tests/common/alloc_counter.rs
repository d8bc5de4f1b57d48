//! A counting global allocator for the allocation tests: counts the heap allocations
//! (and reallocations) made *by the current thread* inside [`count`], so that other
//! test threads of the same binary cannot disturb the count (with
//! `RTPHYS_ALLOC_BACKTRACE=1` the first counted allocation prints its backtrace).
//! Each test binary that
//! uses it declares
//!
//! ```ignore
//! #[path = "common/alloc_counter.rs"]
//! mod alloc_counter;
//! #[global_allocator]
//! static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;
//! ```
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub struct Counting;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

#[inline]
fn note() {
    if ON.try_with(|c| c.get()).unwrap_or(false) {
        let n = ALLOCS
            .try_with(|a| {
                a.set(a.get() + 1);
                a.get()
            })
            .unwrap_or(0);
        if n == 1 {
            backtrace_if_asked();
        }
    }
}

/// With `RTPHYS_ALLOC_BACKTRACE` set, prints where the first counted allocation
/// came from (the counting is off meanwhile: the backtrace allocates).
fn backtrace_if_asked() {
    let _ = ON.try_with(|c| c.set(false));
    if std::env::var_os("RTPHYS_ALLOC_BACKTRACE").is_some() {
        eprintln!(
            "first counted allocation:\n{}",
            std::backtrace::Backtrace::force_capture()
        );
    }
    let _ = ON.try_with(|c| c.set(true));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        note();
        unsafe { System.realloc(p, l, n) }
    }
}

/// Run `f` and return its result with the number of allocations it made on this thread.
pub fn count<R>(f: impl FnOnce() -> R) -> (R, usize) {
    ALLOCS.with(|a| a.set(0));
    ON.with(|c| c.set(true));
    let r = f();
    ON.with(|c| c.set(false));
    (r, ALLOCS.with(|a| a.get()))
}

/// Start counting this thread's allocations (from zero).
pub fn start() {
    ALLOCS.with(|a| a.set(0));
    ON.with(|c| c.set(true));
}

/// Stop counting and return the number of allocations since [`start`].
pub fn stop() -> usize {
    ON.with(|c| c.set(false));
    ALLOCS.with(|a| a.get())
}

/// Steps a fresh `Data` of `model` `warm` times (buffers reach their capacity), then
/// counts this thread's allocations over `counted` more steps. Returns the data and
/// the count.
pub fn warmed_step_allocations(
    model: &rtphys::model::Model,
    warm: usize,
    counted: usize,
) -> (rtphys::Data, usize) {
    let mut data = rtphys::Data::new(model);
    let mut pipeline = rtphys::Pipeline::new(model);
    for _ in 0..warm {
        pipeline.step(model, &mut data);
    }
    start();
    for _ in 0..counted {
        pipeline.step(model, &mut data);
    }
    (data, stop())
}
