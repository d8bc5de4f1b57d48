//! Sharp-feature landings (issue 11, class 1): a body dropped from a 1e-4 m gap onto
//! another body's vertex or edge, with no friction, must not gain energy under any
//! method (penalty, Hunt–Crossley, LCP by Lemke and by PGS).
//!
//! The configurations (static base, 1 kg moving top; a floor at z = −0.5 m catches
//! the top when it slides off):
//! - **vertex–edge**: a square pyramid (base 1 m × 1 m, height 0.5 m) apex-down on
//!   the ridge of a wedge (2 m long, 1 m wide, 0.5 m high, 45° slopes);
//! - **vertex–vertex**: the same pyramid apex-down on an apex-up pyramid;
//! - **edge–edge**: a ridge-down wedge (1 m long) across the wedge's ridge (90°);
//! - **parallel edges**: the ridge-down wedge along the wedge's ridge;
//! - **box edges**: a box (0.5 × 1 × 0.5 m) standing on an edge across the edge of
//!   a static box (2 × 0.5 × 0.5 m), both turned 45° (the box–box routine).
//!
//! Each is dropped centred (the unstable equilibrium) and with the top offset by
//! 1 mm in x and y (it tips and slides off), at h = 1e-3 s and 1e-2 s, g = 9.8, for
//! 4 s (the top slides off, falls, lands on the floor on its edges and vertices).
//!
//! **Tolerance** (issue 11): the total energy E = T + V never exceeds E₀ (the work
//! of the applied forces is zero: gravity is in V) by more than 1 % of the scene's
//! energy scale E_s = m g (gap + L) with L = 0.5 m, the height of the moving bodies
//! (E_s = 4.901 J; 1 % = 0.049 J). Before the edge–edge rule of
//! `collision/pairs/polytope_polytope.rs` (`edge_edge_normal`), the crossed ridges
//! reached E − E₀ = +0.37 E_s (Hunt–Crossley) and +0.59…+0.76 E_s (LCP).

mod common;
use common::load_str;
use rtphys::math::Vec3;
use rtphys::Data;

const GAP: f64 = 1e-4;
const L: f64 = 0.5;
const G: f64 = 9.8;
const TOL: f64 = 0.01;

const PYR_DOWN: &str =
    "[[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [-0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [-0.5, -0.5, 0.5]]";
const PYR_UP: &str =
    "[[0.0, 0.0, 0.0], [0.5, 0.5, -0.5], [-0.5, 0.5, -0.5], [0.5, -0.5, -0.5], [-0.5, -0.5, -0.5]]";
const WEDGE_UP_X: &str = "[[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [-1.0, 0.5, -0.5], [1.0, 0.5, -0.5], [-1.0, -0.5, -0.5], [1.0, -0.5, -0.5]]";
const WEDGE_DOWN_Y: &str = "[[0.0, -0.5, 0.0], [0.0, 0.5, 0.0], [0.5, -0.5, 0.5], [0.5, 0.5, 0.5], [-0.5, -0.5, 0.5], [-0.5, 0.5, 0.5]]";
const WEDGE_DOWN_X: &str = "[[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0], [-0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [-0.5, -0.5, 0.5], [0.5, -0.5, 0.5]]";
/// Half a box's diagonal in the turned plane: 0.25 √2 m.
const R45: f64 = 0.353_553_390_593_273_7;

#[derive(Clone, Copy)]
enum Config {
    VertexEdge,
    VertexVertex,
    EdgeEdge,
    Parallel,
    BoxEdges,
}

const CONFIGS: [(Config, &str); 5] = [
    (Config::VertexEdge, "vertex–edge"),
    (Config::VertexVertex, "vertex–vertex"),
    (Config::EdgeEdge, "edge–edge"),
    (Config::Parallel, "parallel edges"),
    (Config::BoxEdges, "box edges"),
];

/// The two bodies' TOML: (base, top) with the top's position offset by `off` in x, y.
fn bodies(c: Config, off: f64) -> (String, String) {
    let poly = |pts: &str| format!("shape = {{ type = \"polytope\", points = {pts} }}");
    let top = |shape: String, z: f64, rpy: &str| {
        format!("{shape}\nmass = 1.0\nposition = [{off}, {off}, {z}]\nrpy = {rpy}")
    };
    match c {
        Config::VertexEdge => (poly(WEDGE_UP_X), top(poly(PYR_DOWN), GAP, "[0.0, 0.0, 0.0]")),
        Config::VertexVertex => (poly(PYR_UP), top(poly(PYR_DOWN), GAP, "[0.0, 0.0, 0.0]")),
        Config::EdgeEdge => (poly(WEDGE_UP_X), top(poly(WEDGE_DOWN_Y), GAP, "[0.0, 0.0, 0.0]")),
        Config::Parallel => (poly(WEDGE_UP_X), top(poly(WEDGE_DOWN_X), GAP, "[0.0, 0.0, 0.0]")),
        Config::BoxEdges => (
            format!(
                "shape = {{ type = \"box\", half_extents = [1.0, 0.25, 0.25] }}\nposition = [0.0, 0.0, {}]\nrpy = [0.7853981633974483, 0.0, 0.0]",
                -R45
            ),
            top(
                "shape = { type = \"box\", half_extents = [0.25, 0.5, 0.25] }".into(),
                R45 + GAP,
                "[0.0, 0.7853981633974483, 0.0]",
            ),
        ),
    }
}

/// `method` is "penalty", "hunt_crossley", "lemke" or "pgs" (LCP); `lcp_extra` is
/// appended to the `[lcp]` table.
fn scene(c: Config, method: &str, dt: f64, off: f64, lcp_extra: &str) -> String {
    let (m, solver) = match method {
        "lemke" | "pgs" => ("lcp", method),
        "peg" => ("peg", "lemke"),
        _ => (method, "lemke"),
    };
    let (base, top) = bodies(c, off);
    format!(
        "[world]\ngravity = [0.0, 0.0, -{G}]\ndt = {dt}\nmethod = \"{m}\"\n\n[lcp]\nsolver = \"{solver}\"\n{lcp_extra}\n\n\
         [[body]]\nname = \"base\"\nstatic = true\n{base}\nmaterial = {{ mu = 0.0 }}\n\n\
         [[body]]\nname = \"floor\"\nstatic = true\nshape = {{ type = \"plane\" }}\nposition = [0.0, 0.0, -0.5]\nmaterial = {{ mu = 0.0 }}\n\n\
         [[body]]\nname = \"top\"\n{top}\nmaterial = {{ mu = 0.0 }}\n"
    )
}

/// max over the run of (E − E₀)/E_s, and when.
fn worst_gain(text: &str, seconds: f64) -> (f64, f64) {
    let model = load_str(text);
    let mut data = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let e = |d: &Data| d.kinetic_energy(&model) + d.potential_energy(&model);
    let e0 = e(&data);
    let es = 1.0 * G * (GAP + L);
    let (mut worst, mut at) = (f64::NEG_INFINITY, 0.0);
    for _ in 0..(seconds / model.opt.dt).round() as usize {
        pl.step(&model, &mut data);
        let d = (e(&data) - e0) / es;
        if d > worst {
            (worst, at) = (d, data.time);
        }
    }
    assert_eq!(data.stats.quarantined, 0);
    (worst, at)
}

/// Runs `methods` × `dts` × `offsets` over the configurations `keep` accepts.
fn check(
    methods: &[&str],
    dts: &[f64],
    offsets: &[f64],
    lcp_extra: &str,
    keep: impl Fn(Config, f64) -> bool,
) {
    let mut fails = Vec::new();
    for (c, name) in CONFIGS {
        for &method in methods {
            for &dt in dts {
                if !keep(c, dt) {
                    continue;
                }
                for &off in offsets {
                    let (w, at) = worst_gain(&scene(c, method, dt, off, lcp_extra), 4.0);
                    let line = format!(
                        "{name:15} {method:13} h = {dt:5} offset {off:5}: max (E − E₀)/E_s = {w:+.4} at t = {at:.3} s"
                    );
                    println!("{line}");
                    if w > TOL {
                        fails.push(line);
                    }
                }
            }
        }
    }
    assert!(
        fails.is_empty(),
        "energy gained beyond 1 % of E_s:\n{}",
        fails.join("\n")
    );
}

#[test]
fn sharp_features_are_passive_penalty_and_hunt_crossley() {
    let all = |_, _| true;
    check(
        &["penalty", "hunt_crossley"],
        &[1e-3, 1e-2],
        &[0.0, 1e-3],
        "",
        all,
    );
}

/// LCP with the stabilization off: the contact geometry alone is passive, every
/// configuration, both steps, centred and offset.
#[test]
fn sharp_features_are_passive_lcp_unstabilized() {
    let all = |_, _| true;
    check(
        &["lemke", "pgs"],
        &[1e-3, 1e-2],
        &[0.0, 1e-3],
        "stabilization = \"off\"",
        all,
    );
}

/// LCP with its default (full ψ/h) stabilization: every drop at 1 kHz, and at
/// h = 1e-2 the configurations without crossing edges (all of them:
/// `lcp_with_stabilization_everywhere`).
///
/// This was an open regression of the speculative contacts combined with the
/// edge–edge normals: three 1 kHz drops whose tumbling top later lands on crossing
/// edges gained energy in one late event (edge–edge Lemke +0.309 E_s at
/// t = 3.573 s, edge–edge PGS +0.101 at 2.328 s, box edges Lemke +0.078 at
/// 2.042 s). In the edge–edge Lemke case a face contact appeared already 2.23 mm
/// deep — the speculative reach bounds a pair's motion by the speeds at the start
/// of the step, and the top was spun up within the step by its other contact's
/// impulse — and the full ψ/h term kept the push-out as separating velocity
/// (+1.52 J in that step). The step now moves the bodies out but keeps the
/// velocity of the problem without the push-out (`pipeline::lcp`,
/// "Stabilization"): every run stays ≤ E₀ (max (E − E₀)/E_s ≤ +0.0000).
#[test]
fn sharp_features_are_passive_lcp_stabilized() {
    let crossing = |c| matches!(c, Config::EdgeEdge | Config::BoxEdges);
    check(
        &["lemke", "pgs"],
        &[1e-3, 1e-2],
        &[0.0, 1e-3],
        "",
        |c, dt| dt < 5e-3 || !crossing(c),
    );
}

/// Every drop under LCP's default stabilization, including the crossing edges at
/// h = 1e-2. Without speculative contacts (`contact_window = 0`) their tumbling
/// top lands on a ridge with its first contact ψ = 2.2 cm deep (an approach of
/// ~2 m/s for one step before a contact exists): kept as velocity, ψ/h = 2.2 m/s
/// added +1.73 J (crossed ridges, PGS, centred; the run peaked at +0.34 E_s) and
/// +1.46 J (box edges, Lemke: +0.29 E_s). With the push-out a position correction
/// (`pipeline::lcp`, "Stabilization") every run stays ≤ E₀, with the window
/// (here) and without it (`lcp_stabilized_without_speculative_contacts`).
#[test]
fn lcp_with_stabilization_everywhere() {
    let all = |_, _| true;
    check(&["lemke", "pgs"], &[1e-3, 1e-2], &[0.0, 1e-3], "", all);
}

/// The same drops without speculative contacts (`contact_window = 0`: contacts
/// only once the shapes overlap, so every landing is first seen penetrating):
/// the push-out is a position correction whichever way the penetration arose, so
/// these stay ≤ E₀ too (before: edge–edge PGS h = 1e-3 +0.552 E_s, box edges PGS
/// h = 1e-2 +0.120).
#[test]
fn lcp_stabilized_without_speculative_contacts() {
    let all = |_, _| true;
    check(
        &["lemke", "pgs"],
        &[1e-3, 1e-2],
        &[0.0, 1e-3],
        "contact_window = 0.0",
        all,
    );
}

/// The edge–edge normal is the cross product of the edges, pointing from b to a,
/// for polytopes and boxes: the crossed ridges' manifold normal is vertical.
#[test]
fn crossed_edges_normal_is_the_cross_product() {
    for c in [Config::EdgeEdge, Config::BoxEdges] {
        // The top overlapping by GAP instead of above by GAP.
        let z = if matches!(c, Config::BoxEdges) {
            R45
        } else {
            0.0
        };
        let text = scene(c, "penalty", 1e-3, 0.0, "")
            .replace(&format!("{}]", z + GAP), &format!("{}]", z - GAP));
        let model = load_str(&text);
        let mut data = Data::new(&model);
        let mut pl = rtphys::Pipeline::new(&model);
        pl.step(&model, &mut data);
        let top = model
            .bodies
            .iter()
            .position(|b| b.name == "top")
            .expect("top");
        let m = data
            .contacts
            .manifolds
            .iter()
            .find(|m| model.geoms[m.geom_a].body == top || model.geoms[m.geom_b].body == top)
            .expect("a contact");
        // Toward a: +z if a is the top, −z if a is the base.
        let toward_a = if model.geoms[m.geom_a].body == top {
            1.0
        } else {
            -1.0
        };
        let err = (m.normal - Vec3::z() * toward_a).norm();
        println!(
            "normal {:?}, depth {:.3e}",
            m.normal.as_slice(),
            m.max_depth(&data.contacts)
        );
        assert!(err < 1e-9, "normal {:?}", m.normal);
        assert!((m.max_depth(&data.contacts) - 1e-4).abs() < 1e-9);
    }
}

/// A V-groove: two static 2 m × 1 m × 0.2 m slabs tilted ±30° about x whose top
/// faces meet along the x axis at z = 0 (a 120° groove: the pyramid's 90° apex
/// reaches its bottom line first), and the pyramid apex-down above it.
fn groove_scene(dt: f64, off: f64) -> String {
    // Slab centre: 0.1 m below its top face, 0.5 m along it from the groove line.
    let th = std::f64::consts::FRAC_PI_6;
    let (c, s) = (th.cos(), th.sin());
    let (y, z) = (0.5 * c + 0.1 * s, 0.5 * s - 0.1 * c);
    let slab = move |name: &str, sign: f64| {
        format!(
            "[[body]]\nname = \"{name}\"\nstatic = true\nshape = {{ type = \"box\", half_extents = [1.0, 0.5, 0.1] }}\n\
             position = [0.0, {}, {z}]\nrpy = [{}, 0.0, 0.0]\nmaterial = {{ mu = 0.0 }}\n\n",
            sign * y,
            sign * th
        )
    };
    format!(
        "[world]\ngravity = [0.0, 0.0, -{G}]\ndt = {dt}\nmethod = \"peg\"\n\n{}{}\
         [[body]]\nname = \"floor\"\nstatic = true\nshape = {{ type = \"plane\" }}\nposition = [0.0, 0.0, -0.5]\nmaterial = {{ mu = 0.0 }}\n\n\
         [[body]]\nname = \"top\"\nshape = {{ type = \"polytope\", points = {PYR_DOWN} }}\nmass = 1.0\n\
         position = [{off}, {off}, {}]\nmaterial = {{ mu = 0.0 }}\n",
        slab("left", 1.0),
        slab("right", -1.0),
        // GAP above the slab under the apex.
        GAP + off * s / c
    )
}

/// Under PEG (issue 12): (max (E − E₀)/E_s, max overlap / L³, Lemke failures).
fn peg_landing(text: &str, seconds: f64) -> (f64, f64, u64) {
    let model = load_str(text);
    let mut data = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let e = |d: &Data| d.kinetic_energy(&model) + d.potential_energy(&model);
    let e0 = e(&data);
    let es = 1.0 * G * (GAP + L);
    let (mut gain, mut overlap) = (f64::NEG_INFINITY, 0.0f64);
    for _ in 0..(seconds / model.opt.dt).round() as usize {
        pl.step(&model, &mut data);
        gain = gain.max((e(&data) - e0) / es);
        overlap = overlap.max(common::polytope_overlap(&model, &data) / L.powi(3));
    }
    assert_eq!(data.stats.quarantined, 0);
    (gain, overlap, data.stats.solver_failures)
}

/// Runs the PEG landings (apex on the wedge's ridge, apex on apex, ridge on a
/// parallel ridge and across it, apex into a V-groove; centred and offset 1 mm;
/// frictionless, g = 9.8, 2 s) at the steps `dts` and asserts, at every step, the
/// exact overlap volume of the polytopes ≤ 1e-9 L³ and E ≤ E₀ + 1 % E_s.
fn peg_check(dts: &[f64]) {
    let mut fails = Vec::new();
    let configs = [
        (Some(Config::VertexEdge), "vertex–edge"),
        (Some(Config::VertexVertex), "vertex–vertex"),
        (Some(Config::Parallel), "parallel edges"),
        (Some(Config::EdgeEdge), "edge–edge"),
        (None, "V-groove"),
    ];
    for (c, name) in configs {
        for &dt in dts {
            for off in [0.0, 1e-3] {
                let text = match c {
                    Some(c) => scene(c, "peg", dt, off, ""),
                    None => groove_scene(dt, off),
                };
                let (gain, overlap, fails_lemke) = peg_landing(&text, 2.0);
                let line = format!(
                    "{name:15} h = {dt:5} offset {off:5}: max (E − E₀)/E_s = {gain:+.2e}, \
                     max overlap/L³ = {overlap:.2e}, Lemke failures {fails_lemke}"
                );
                println!("{line}");
                if gain > TOL || overlap > 1e-9 {
                    fails.push(line);
                }
            }
        }
    }
    assert!(fails.is_empty(), "PEG landings:\n{}", fails.join("\n"));
}

/// PEG (003, issue 12) on the sharp-feature landings at h = 1e-3 s: no overlap
/// beyond 1e-9 L³ and no energy gain beyond 1 % E_s at any step. (The floor is a
/// plane: its pair keeps the standard rows.) Measured: overlap ≤ 1.1e-12 L³,
/// gain ≤ +4.6e-3 E_s (apex on apex, centred).
#[test]
fn sharp_features_peg_no_overlap_no_energy_gain() {
    peg_check(&[1e-3]);
}

/// The same at h = 1e-2 s. Open, ignored: overlap and energy stay within the
/// bounds for the crossed ridges, the apex on the ridge and the V-groove, but not
/// everywhere: the parallel ridges reach 7.5e-8 L³ (centred) and 1.5e-7 L³ with
/// +1.4 % E_s (offset) — the face sliding over the ridge rotates the gap to second
/// order within the step, more than the rows' lead h²|ω|²r covers — and the
/// offset apex on apex gains +2.4 % E_s in one step (t = 0.12 s) when the apex
/// slides off the other apex: the single primary contact carries the force along
/// its own normal while another contact of its I set closes (the "least accurate
/// form" of PEG, 003 Sec. 6). Re-run after peg4's constraint PGS (branch peg6, at
/// 80064a8): the same figures (parallel ridges 7.52e-8 / 1.45e-7 L³, +0.36 / +1.36 %
/// E_s; offset apex on apex +2.35 % E_s, overlap 7.9e-11 L³), and the centred
/// V-groove now meets one Lemke failure (overlap 2.3e-18 L³, no gain). Run with
/// `--ignored`.
#[test]
#[ignore = "open: PEG at h = 1e-2 s (re-run peg6: parallel ridges overlap 1.45e-7 L³, +1.36 % E_s; offset apex on apex +2.35 % E_s)"]
fn sharp_features_peg_at_100_hz() {
    peg_check(&[1e-2]);
}
