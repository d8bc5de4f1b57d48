//! A warmed-up narrow phase does not allocate: every pair of a 20-object pile of
//! all shape kinds, 1,000 times, counted by a global allocator.

use rtphys::collision::{collide_pair, pair_supported, ContactSet, NarrowScratch, Shape};
use rtphys::math::{Pose, SplitMix64, Vec3};
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

#[test]
fn warmed_up_narrow_phase_does_not_allocate() {
    let mut rng = SplitMix64::new(9);
    let hull = Shape::polytope(&[
        Vec3::new(0.0, 0.0, 0.3),
        Vec3::new(0.25, 0.0, -0.15),
        Vec3::new(-0.15, 0.22, -0.15),
        Vec3::new(-0.15, -0.22, -0.15),
        Vec3::new(0.1, 0.1, 0.2),
    ])
    .unwrap();
    let mut geoms: Vec<(Shape, Pose)> = vec![(Shape::plane(), Pose::identity())];
    for i in 0..19 {
        let s = match i % 5 {
            0 => Shape::sphere(0.2).unwrap(),
            1 => Shape::cuboid(Vec3::new(0.2, 0.15, 0.1)).unwrap(),
            2 => Shape::capsule(0.1, 0.2).unwrap(),
            // Two cylinder sizes, so the prism caches are refit every call.
            3 => Shape::cylinder(0.15 + 0.05 * (i % 2) as f64, 0.15).unwrap(),
            _ => hull.clone(),
        };
        let t = Vec3::new(
            rng.uniform(-0.4, 0.4),
            rng.uniform(-0.4, 0.4),
            rng.uniform(0.0, 1.2),
        );
        geoms.push((s, Pose::from_parts(t.into(), rng.rotation())));
    }
    let mut scratch = NarrowScratch::default();
    let mut out = ContactSet::default();
    let step = |out: &mut ContactSet, scratch: &mut NarrowScratch| {
        out.clear();
        for a in 0..geoms.len() {
            for b in a + 1..geoms.len() {
                let (sa, xa) = &geoms[a];
                let (sb, xb) = &geoms[b];
                if pair_supported(sa.kind(), sb.kind()) {
                    collide_pair(a, sa, xa, b, sb, xb, scratch, out);
                }
            }
        }
        out.manifolds.len()
    };
    let contacts = step(&mut out, &mut scratch);
    assert!(contacts > 20, "pile too sparse: {contacts} contacts");
    alloc_counter::start();
    for _ in 0..1000 {
        step(&mut out, &mut scratch);
    }
    let n = alloc_counter::stop();
    assert_eq!(n, 0, "{n} allocations in 1,000 warmed-up passes");
}
