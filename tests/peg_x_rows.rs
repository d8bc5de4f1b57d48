//! PEG's X constraints whose contacts all carry forces (issue 12, peg35;
//! `pipeline::lcp::peg`, "X constraints carry a force"; docs/EXPERIMENTS.md,
//! peg35).
//!
//! In the plane a vertex–vertex pair (eq. (33)) has the I sets I(C₁, C₂) of v_a
//! and I(C₃, C₄) of v_b and the crosses X({C₁}, {C₄}), X({C₂}, {C₃}). Each
//! contact carries at most one force variable, and an X takes its impulse on a
//! member that does not carry one yet; when the two I sets took C₂ and C₃ (or
//! C₁ and C₄) as primaries, X({C₂}, {C₃}) has no free member and, before
//! peg35, no row: the two corners may pass through each other while both I
//! sets hold. `[lcp] peg_x_own_row` gives such an X its own impulse (003 eq.
//! (43)'s G_nX p_X) on a copy of its primary's row; `[lcp] peg_x_joined` (peg36)
//! joins it to the force of its most applicable member instead (the force's row
//! the least of the two sets' running maxima; `pipeline::lcp::peg`, "Joined X").

use rtphys::experiments::peg_pour::{PourDriver, PourMethod};
use rtphys::experiments::peg_pour_2d::{pour_scene_2d, L};
use rtphys::pipeline::lcp::peg::OverlapArea;

/// The 2D pour (`seed`, step `h`, 2 s, PEG's defaults) with `[lcp]
/// peg_x_own_row` = `own`, `peg_vv_paired_primaries` = `paired` and `peg_x_joined` =
/// `joined`: the largest overlap area at a step's end (L²), the
/// X constraints left without a free member (`StepStats::peg_x_shared`), those
/// given a row of their own (`peg_x_rows`), and the steps keeping a counted
/// failure.
fn pour_2d(seed: u64, h: f64, (own, paired, joined): (bool, bool, bool)) -> (f64, u64, u64, u64) {
    let scene = pour_scene_2d(seed, PourMethod::Peg, h);
    let model =
        rtphys::model::scene::load_scene_str(&scene.toml, "<peg-pour>", std::path::Path::new("."))
            .expect("scene");
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        p.peg_x_own_row = own;
        p.peg_vv_paired_primaries = paired;
        p.peg_x_joined = joined;
    }
    let model = model.with_options(opt);
    let mut data = rtphys::Data::new(&model);
    let mut driver = PourDriver::new(&model, &scene, &mut data).expect("driver");
    let mut pl = rtphys::Pipeline::new(&model);
    let mut area = OverlapArea::new(&model);
    let mut ov = 0.0f64;
    for _ in 0..(2.0 / h).round() as usize {
        driver.before_step(&mut data, h);
        pl.step(&model, &mut data);
        ov = ov.max(area.area(&model, &data.state) / (L * L));
    }
    let s = &data.stats;
    (ov, s.peg_x_shared, s.peg_x_rows, s.solver_failures)
}

/// The sweep's largest 2D miss at PEG's default (h = 1.68e-3, seed 6: 5.97e-3
/// L², a rise over ~95 steps from step 1,095 on steps Lemke solved at the
/// deepest retry level): a vertex of one polygon on the line of the other's
/// edge next to that polygon's vertex, both I sets held at ν⁺ and X({C₂}, {C₃})
/// violated by 1.85e-4 m — the X with no row (the step's counter: 5 such X at
/// step 1,095). Pinned without the key: overlap > 1e-3 L² and X left without a
/// free member (measured 179 over the run, no own rows). With the key: every
/// such X has its own row and the overlap stays ≤ 1e-9 L² (issue 12's bound;
/// measured 1.70e-12 L²), no counted failure.
#[test]
fn x_own_row_keeps_the_2d_pours_corners_apart() {
    let h = 1.68e-3;
    let (ov0, x0, r0, f0) = pour_2d(6, h, (false, false, false));
    let (ov1, x1, r1, f1) = pour_2d(6, h, (true, false, false));
    println!("key off: max overlap {ov0:.3e} L², X without a free member {x0}, own rows {r0}, failures {f0}");
    println!("key on: max overlap {ov1:.3e} L², X without a free member {x1}, own rows {r1}, failures {f1}");
    assert!(ov0 > 1e-3, "the miss without the key: {ov0:e} L²");
    assert!(x0 > 0 && r0 == 0, "X without a row: {x0}, own rows {r0}");
    assert!(ov1 <= 1e-9, "overlap with the key {ov1:e} L²");
    assert!(x1 > 0 && r1 == x1, "every such X its own row: {x1} / {r1}");
    assert_eq!(f1, 0);
}

/// The same cell with `[lcp] peg_x_joined` (peg36): each X without a free member
/// joined to the force of its most applicable member, one d = max(0, A − B) per
/// X and no copied column (`pipeline::lcp::peg`, "Joined X"). Every such X
/// joined (counted in `peg_x_rows`), the overlap ≤ 1e-9 L² (issue 12's bound),
/// no counted failure.
#[test]
fn x_joined_keeps_the_2d_pours_corners_apart() {
    let (ov, x, r, f) = pour_2d(6, 1.68e-3, (false, false, true));
    println!(
        "joined: max overlap {ov:.3e} L², X without a free member {x}, joined {r}, failures {f}"
    );
    assert!(x > 0 && r == x, "every such X joined: {x} / {r}");
    assert!(ov <= 1e-9, "overlap with the joined X {ov:e} L²");
    assert_eq!(f, 0);
}

/// The same cell with `[lcp] peg_vv_paired_primaries` instead (peg35): the two I
/// sets' primaries paired (C₁ with C₃, or C₂ with C₄), so that each X keeps a
/// member without a force and gets its row without copies. Measured: no X left
/// without a free member, the overlap ≤ 1e-9 L² (9.18e-12 L²), no counted
/// failure.
#[test]
fn paired_primaries_keep_the_2d_pours_corners_apart() {
    let (ov, x, r, f) = pour_2d(6, 1.68e-3, (false, true, false));
    println!(
        "paired: max overlap {ov:.3e} L², X without a free member {x}, own rows {r}, failures {f}"
    );
    assert_eq!((x, r, f), (0, 0, 0));
    assert!(ov <= 1e-9, "overlap with paired primaries {ov:e} L²");
}
