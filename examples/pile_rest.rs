//! Why a penalty pile does not fall asleep (issue 18): settle a pile with
//! sleeping off, then over a window record, per free body, the largest |v| and
//! |ω|, the fraction of the window's steps under the sleep thresholds, its shape,
//! and per touching pair how often the pair switches between sticking (anchor) and sliding or the pair
//! stops/starts touching. The bodies that never rest are printed first.
//!
//!     cargo run --release --example pile_rest -- pile20 3 1
//!     cargo run --release --example pile_rest -- ../shared/peers/scenes/pile_100.json 3 1
//!
//! Arguments: `pile20` (`experiments::pile_scene(Bench, 20, 7)`) or a scaling
//! scene's JSON; settle seconds; window seconds; optionally a rolling resistance
//! length (m) given to every material (default 0, the scenes' own); `sleep` to
//! turn sleeping on.

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::load_scene_str;
use rtphys::model::BodyKind;
use rtphys::{Data, Pipeline};
use std::path::Path;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(String::as_str).unwrap_or("pile20");
    let settle: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let window: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    // Optional rolling resistance length (m) given to every material, to test
    // whether ideal rolling is what keeps the pile moving.
    let rolling: f64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    let text = if which == "pile20" {
        pile_scene(PileKind::Bench, 20, 7)
    } else {
        rtphys::tools::scaling::scene_from_json_file(Path::new(which))?
    };
    let mut model = load_scene_str(&text, which, Path::new("."))?.with_min_rolling(rolling);
    // Optionally `sleep`: sleeping on (the window then also counts sleeping bodies).
    if args.get(5).map(String::as_str) == Some("sleep") {
        let mut opt = model.opt;
        opt.sleep.enabled = true;
        model = model.with_options(opt);
    }
    let mut asleep_sum = 0usize;
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let h = model.opt.dt;
    let (v_rest, w_rest) = (model.opt.sleep.v_rest, model.opt.sleep.w_rest);
    for _ in 0..(settle / h).round() as u64 {
        pipe.step(&model, &mut data);
    }
    let nb = model.nbody();
    let mut vmax = vec![0.0f64; nb];
    let mut wmax = vec![0.0f64; nb];
    let mut under = vec![0u64; nb];
    // Per body: anchor (re)sets and touching flips on its pairs.
    let mut anchor_changes = vec![0u64; nb];
    let mut touch_flips = vec![0u64; nb];
    let body_of = |g: u32| model.geoms[g as usize].body;
    let key = |p: &rtphys::data::PairState| (p.geom_a, p.geom_b);
    let mut prev: Vec<_> = data
        .pairs
        .iter()
        .map(|p| (key(p), p.touching, p.anchor))
        .collect();
    let steps = (window / h).round() as u64;
    // Per pair (key): touching flips, and the largest integral term I it reached.
    let mut pair_flips: Vec<((u32, u32), u64, f64, f64)> = Vec::new();
    let mut ke_end = 0.0;
    for _ in 0..steps {
        pipe.step(&model, &mut data);
        asleep_sum += data.stats.sleeping;
        for b in 0..nb {
            if model.bodies[b].kind != BodyKind::Free {
                continue;
            }
            let s = &data.state[b];
            let (v, w) = (s.v.norm(), s.w.norm());
            vmax[b] = vmax[b].max(v);
            wmax[b] = wmax[b].max(w);
            under[b] += (v <= v_rest && w <= w_rest) as u64;
        }
        for p in &data.pairs {
            if let Some((_, t, a)) = prev.iter().find(|(k, _, _)| *k == key(p)) {
                let (ba, bb) = (body_of(p.geom_a), body_of(p.geom_b));
                if *t != p.touching {
                    touch_flips[ba] += 1;
                    touch_flips[bb] += 1;
                    match pair_flips.iter_mut().find(|e| e.0 == key(p)) {
                        Some(e) => e.1 += 1,
                        None => pair_flips.push((key(p), 1, 0.0, 0.0)),
                    }
                }
                if let Some(e) = pair_flips.iter_mut().find(|e| e.0 == key(p)) {
                    e.2 = e.2.max(p.integral);
                    e.3 = e.3.max(p.last_max_depth);
                }
                if a.is_some() != p.anchor.is_some() {
                    anchor_changes[ba] += 1;
                    anchor_changes[bb] += 1;
                }
            }
        }
        prev.clear();
        prev.extend(data.pairs.iter().map(|p| (key(p), p.touching, p.anchor)));
    }
    for b in 0..nb {
        if model.bodies[b].kind == BodyKind::Free {
            let s = &data.state[b];
            let m = model.bodies[b].mass;
            ke_end +=
                0.5 * m * s.v.norm_squared() + 0.5 * s.w.dot(&(model.bodies[b].inertia * s.w));
            // ω in world; order of magnitude
        }
    }
    let mut order: Vec<usize> = (0..nb)
        .filter(|&b| model.bodies[b].kind == BodyKind::Free)
        .collect();
    order.sort_by(|&a, &b| {
        (vmax[b] / v_rest)
            .max(wmax[b] / w_rest)
            .total_cmp(&(vmax[a] / v_rest).max(wmax[a] / w_rest))
    });
    println!(
        "{which}: rolling {rolling} m, settle {settle} s, window {window} s; thresholds v {v_rest} m/s, w {w_rest} rad/s; KE at end ≈ {ke_end:.3e} J"
    );
    println!("body shape      z      max|v|     max|w|   under  stick_slip_flips/step touch_flips  touching_pairs");
    let free = order.len();
    let mut never = 0;
    for &b in &order {
        let g = model.geoms.iter().find(|g| g.body == b);
        let shape = g.map_or("none", |g| g.shape.kind().name());
        let tp = data
            .pairs
            .iter()
            .filter(|p| p.touching && (body_of(p.geom_a) == b || body_of(p.geom_b) == b))
            .count();
        never += (under[b] == 0) as usize;
        println!(
            "{b:4} {shape:8} {:6.3} {:10.2e} {:10.2e} {:6.3} {:10.3} {:8} {:4}",
            data.state[b].x.z,
            vmax[b],
            wmax[b],
            under[b] as f64 / steps as f64,
            anchor_changes[b] as f64 / steps as f64,
            touch_flips[b],
            tp
        );
    }
    println!(
        "free bodies {free}, never under both thresholds in the window: {never}; mean asleep {:.2}, asleep at the end {}",
        asleep_sum as f64 / steps as f64,
        data.stats.sleeping
    );
    pair_flips.sort_by_key(|b| std::cmp::Reverse(b.1));
    println!("pairs by touching flips: bodies, flips, max integral I (m·steps), max depth (m)");
    for ((ga, gb), n, i, dmax) in pair_flips.iter().take(6) {
        let (ba, bb) = (body_of(*ga), body_of(*gb));
        let name = |b: usize| {
            model
                .geoms
                .iter()
                .find(|g| g.body == b)
                .map_or("?", |g| g.shape.kind().name())
        };
        println!(
            "  {ba}({}) – {bb}({}): {n} flips, I ≤ {i:.3e}, depth ≤ {dmax:.3e}",
            name(ba),
            name(bb)
        );
    }
    Ok(())
}
