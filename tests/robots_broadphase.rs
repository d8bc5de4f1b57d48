//! A small world's broad phase over the pairs listed once at load
//! (`BroadPhase::small_world_pairs`, issue 18 item 4): the same candidates as
//! testing every pair with the filter each step.

use rtphys::collision::broadphase::ALL_PAIRS_BELOW;
use rtphys::collision::{Aabb, BroadPhase};
use rtphys::math::{SplitMix64, Vec3};

/// Boxes in random places (some overlapping, some not) under a filter that drops
/// some pairs: the listed pairs' overlaps are exactly `find_pairs`'s, in order.
#[test]
fn listed_pairs_of_a_small_world_match_find_pairs() {
    let mut rng = SplitMix64::new(7);
    let mut bp = BroadPhase::default();
    let (mut out, mut listed_out) = (Vec::new(), Vec::new());
    let mut overlapping = 0;
    for n in [0, 1, 2, 9, ALL_PAIRS_BELOW] {
        let wanted = |a: usize, b: usize| !(a * 3 + b).is_multiple_of(5);
        let listed = BroadPhase::small_world_pairs(n, wanted).expect("a small world");
        assert!(
            listed.windows(2).all(|w| w[0] < w[1]),
            "listed pairs sorted"
        );
        for _ in 0..20 {
            let aabbs: Vec<Aabb> = (0..n)
                .map(|_| {
                    let c = Vec3::new(rng.next_f64(), rng.next_f64(), rng.next_f64());
                    Aabb {
                        min: c,
                        max: c + Vec3::repeat(0.3 * rng.next_f64()),
                    }
                })
                .collect();
            bp.find_pairs(&aabbs, wanted, &mut out);
            BroadPhase::find_listed_pairs(&aabbs, &listed, &mut listed_out);
            assert_eq!(out, listed_out, "n = {n}");
            overlapping += out.len();
        }
    }
    // The test compares something: many pairs overlap.
    assert!(overlapping > 100, "{overlapping} overlapping pairs");
    assert!(BroadPhase::small_world_pairs(ALL_PAIRS_BELOW + 1, |_, _| true).is_none());
}
