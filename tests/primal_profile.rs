//! A profiling harness for the primal solver on the resting 20-pile (issue 14,
//! lcp15), not a test of physics: `#[ignore]`d, run by hand under callgrind.
//!
//! The pile is `experiments::pile_scene(PileKind::Bench, 20, 7)` (the bench's
//! `pile20`) under `--method lcp --lcp-solver primal`, settled 3,000 steps (the
//! bench's 3 s) with callgrind's instrumentation off, then stepped `WINDOW`
//! steps with it on (callgrind's client requests START/STOP_INSTRUMENTATION,
//! no-ops outside valgrind). It prints the window's counters per step
//! (factorizations, Newton steps, passes, islands to Newton, failures) and a
//! checksum of the final state (bit-exact: equal checksums before and after an
//! exact cut). Command (docs/BENCHMARKS.md, lcp15):
//!
//! ```text
//! cargo test --release --test primal_profile --no-run
//! valgrind --tool=callgrind --instr-atstart=no --toggle-collect='*Pipeline::step_with*' \
//!     --callgrind-out-file=/tmp/cg.out target/release/deps/primal_profile-HASH \
//!     --ignored --nocapture --test-threads=1
//! callgrind_annotate --inclusive=yes /tmp/cg.out
//! ```

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::{load_scene_str, MethodName};
use rtphys::model::{LcpSolverKind, Method};
use rtphys::run::apply_overrides;
use rtphys::{Data, Pipeline};
use std::path::Path;

/// Settling steps (the bench's 3 s at dt = 1 ms) and profiled steps.
const SETTLE: usize = 3000;
const WINDOW: usize = 300;

/// Callgrind's client request `code` (valgrind.h's amd64 special instruction
/// sequence: four rotations of rdi by 128 bits in all, a no-op, then `xchg rbx,
/// rbx`, which valgrind intercepts; natively the sequence does nothing).
#[cfg(target_arch = "x86_64")]
fn callgrind_request(code: u64) {
    let args: [u64; 6] = [code, 0, 0, 0, 0, 0];
    // SAFETY: the sequence leaves every register but rdx as it was (rdi is
    // rotated by 3 + 13 + 61 + 51 = 128 bits, i.e. unchanged; rbx is exchanged
    // with itself); valgrind reads `args` (6 words, alive for the call) and
    // writes its result to rdx, declared as an output.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") 0u64 => _,
            in("rax") args.as_ptr(),
            inout("rdi") 0u64 => _,
            options(nostack),
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn callgrind_request(_code: u64) {}

/// `VG_USERREQ_TOOL_BASE('C', 'T')` + 4 and + 5 (callgrind.h).
const START_INSTRUMENTATION: u64 = (0x43 << 24) | (0x54 << 16) | 4;
const STOP_INSTRUMENTATION: u64 = (0x43 << 24) | (0x54 << 16) | 5;

#[test]
#[ignore = "a profiling harness (run under callgrind by hand, docs/BENCHMARKS.md lcp15)"]
fn profile_pile20_primal() {
    let text = pile_scene(PileKind::Bench, 20, 7);
    let model = load_scene_str(&text, "pile20", Path::new(".")).expect("the bench pile loads");
    let mut model = apply_overrides(&model, Some(MethodName::Lcp), None, None).expect("lcp");
    if let Method::Lcp(mut p) = model.opt.method {
        p.solver = LcpSolverKind::Primal;
        let mut opt = model.opt;
        opt.method = Method::Lcp(p);
        model = model.with_options(opt);
    }
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    for _ in 0..SETTLE {
        pipeline.step(&model, &mut data);
    }
    let s0 = data.stats.clone();
    let (mut iters, mut contacts) = (0usize, 0usize);
    callgrind_request(START_INSTRUMENTATION);
    for _ in 0..WINDOW {
        pipeline.step(&model, &mut data);
        iters += data.stats.solver_iterations;
        contacts += data.stats.lcp_size / 3;
    }
    callgrind_request(STOP_INSTRUMENTATION);
    let s1 = &data.stats;
    // The window measured the primal solver (the pipeline did not fall back to
    // another solver for the whole of it).
    assert!(
        s1.primal_passes > s0.primal_passes,
        "no primal pass in the window"
    );
    let w = WINDOW as f64;
    let mut hash = 0u64;
    for s in &data.state {
        for v in s.x.iter().chain(s.v.iter()).chain(s.w.iter()) {
            hash = hash.rotate_left(7) ^ v.to_bits();
        }
    }
    println!(
        "pile20 primal, {WINDOW} steps after {SETTLE}: points {:.2}, Newton steps {:.2}, \
         factorizations {:.2}, passes {:.2}, islands to Newton {:.3}, failures {} per window; \
         state checksum {hash:016x}",
        contacts as f64 / w,
        iters as f64 / w,
        (s1.newton_factorizations - s0.newton_factorizations) as f64 / w,
        (s1.primal_passes - s0.primal_passes) as f64 / w,
        (s1.primal_fallback_islands - s0.primal_fallback_islands) as f64 / w,
        s1.solver_failures - s0.solver_failures,
    );
}
