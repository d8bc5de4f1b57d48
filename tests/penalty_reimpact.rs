//! `[penalty.impacts] reimpact` (issue 18, scale25): the bounce rule of the
//! penalty stepper's impact stage — a pair struck in the last step and still
//! penetrating struck again in the next step's first pass when some of its
//! points separate while others approach — on (the default) or off (000's
//! transition: once continuous contact has begun, an impact only where a third
//! body's impulse strikes the pair). The key parses with its neighbours'
//! validation; off, pile_100 lands without a bounce impulse; the impulses
//! never add kinetic energy either way.

mod common;

use common::load_str;
use rtphys::model::scene::load_scene_str;
use rtphys::model::Method;
use rtphys::{Data, Pipeline};
use std::path::Path;

const DROPPED: &str = include_str!("data/penalty/box_on_corner.toml");

fn with_reimpact(value: &str) -> String {
    DROPPED.replacen(
        "forgetting = 0.9\n",
        &format!("forgetting = 0.9\n[penalty.impacts]\nreimpact = {value}\n"),
        1,
    )
}

fn reimpact_of(text: &str) -> bool {
    match load_str(text).opt.method {
        Method::Penalty(p) => p.impacts.reimpact,
        _ => unreachable!("a penalty scene"),
    }
}

#[test]
fn the_key_parses_and_bad_values_are_named() {
    assert!(reimpact_of(DROPPED), "on by default");
    assert!(reimpact_of(&with_reimpact("true")));
    assert!(!reimpact_of(&with_reimpact("false")));
    for (bad, word) in [
        (with_reimpact("1"), "reimpact"),
        (with_reimpact("\"no\""), "reimpact"),
        (
            DROPPED.replacen(
                "forgetting = 0.9\n",
                "forgetting = 0.9\n[penalty.impacts]\nreimpakt = false\n",
                1,
            ),
            "reimpakt",
        ),
    ] {
        match load_scene_str(&bad, "reimpact.toml", Path::new("config/scenes")) {
            Ok(_) => panic!("accepted: {bad}"),
            Err(e) => {
                let msg = format!("{e:#}");
                assert!(
                    msg.contains(word) && msg.contains("reimpact.toml"),
                    "the error names neither the key nor the file: {msg}"
                );
            }
        }
    }
}

fn pile_100(reimpact: bool) -> rtphys::model::Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/scenes/scaling/pile_100.json");
    let text = rtphys::tools::scaling::scene_from_json_file(&path).expect("pile_100");
    let model = load_str(&text);
    let mut opt = model.opt;
    if let Method::Penalty(mut p) = opt.method {
        p.impacts.reimpact = reimpact;
        opt.method = Method::Penalty(p);
    }
    model.with_options(opt)
}

/// Steps pile_100 1.5 s (its drop and landing); returns (pass 0's bounce
/// impulses, all impulses, the largest kinetic energy any step's impulses
/// added, the kinetic energy at the end).
fn drop_pile(reimpact: bool) -> (usize, usize, f64, f64) {
    let model = pile_100(reimpact);
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    pipe.penalty_probe_mut().expect("penalty").on = true;
    let (mut bounces, mut impulses, mut gain) = (0, 0, f64::NEG_INFINITY);
    for _ in 0..1500 {
        pipe.step(&model, &mut data);
        let pr = *pipe.penalty_probe_mut().expect("penalty");
        bounces += pr.pass0[1];
        impulses += data.stats.impulses;
        gain = gain.max(pr.pass0_de.iter().sum::<f64>() + pr.sweep_de);
    }
    assert!(data.state.iter().all(|s| s.is_finite()), "non-finite state");
    (bounces, impulses, gain, data.kinetic_energy(&model))
}

/// pile_100 through its drop and landing: the rule on strikes bounces, off
/// none; the impulses are plastic either way (never a gain), and the pile has
/// landed by 1.5 s either way (measured with the rule on: KE 2.7e-2 J at
/// 1.5 s, from 40 J at 0.5 s; the bound is 0.1 J).
#[test]
fn the_pile_lands_without_reimpacts_and_no_impulse_adds_energy() {
    let (on_b, on_n, on_gain, on_ke) = drop_pile(true);
    let (off_b, off_n, off_gain, off_ke) = drop_pile(false);
    println!(
        "reimpact on: {on_b} bounces of {on_n} impulses, KE {on_ke:.3e} J at 1.5 s; \
         off: {off_b} of {off_n}, KE {off_ke:.3e} J"
    );
    assert!(on_b > 0, "the landing takes bounces with the rule on");
    assert_eq!(off_b, 0, "no bounce impulse with the rule off");
    for g in [on_gain, off_gain] {
        assert!(g <= 1e-9, "a step's impulses added {g:.3e} J");
    }
    for ke in [on_ke, off_ke] {
        assert!(ke < 0.1, "the pile has not landed by 1.5 s: KE {ke:.3e} J");
    }
}
