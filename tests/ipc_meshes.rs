//! Rigid IPC (004) on mesh files used as they are (issue 15, part B): concave meshes
//! (a cup, a block with a square hole), an open, codimensional card, a chain of
//! linked tori (genus 1) and Erleben's degenerate scenes. After every
//! step (h = 0.01 s): zero triangle–triangle intersections between bodies (exact
//! predicates, `ipc::intersect`), a finite state, and the total energy never above
//! its initial value plus 1e-9 J·(1 + |E₀|) of rounding (no applied forces).

mod common;

use rtphys::ipc::intersect::{body_meshes, count_body_intersections};
use rtphys::ipc::mesh::SurfaceMesh;
use rtphys::math::Vec3;
use rtphys::model::scene::load_scene_str;
use rtphys::model::Model;
use rtphys::{Data, Pipeline};
use std::path::Path;

fn data_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ipc"))
}

fn load(text: &str) -> Model {
    match load_scene_str(text, "<test>", data_dir()) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

fn energy(model: &Model, data: &Data) -> f64 {
    data.kinetic_energy(model) + data.potential_energy(model)
}

/// Steps with the checks of the module doc; returns the final data.
fn run_checked(model: &Model, steps: usize) -> Data {
    run_checked_each(model, steps, |_| {})
}

/// [`run_checked`], calling `each` after every step.
fn run_checked_each(model: &Model, steps: usize, mut each: impl FnMut(&Data)) -> Data {
    let m = body_meshes(model);
    let mut data = Data::new(model);
    let mut pipe = Pipeline::new(model);
    let e0 = energy(model, &data);
    assert_eq!(
        count_body_intersections(model, &data, &m),
        0,
        "starts intersecting"
    );
    for s in 0..steps {
        pipe.step(model, &mut data);
        assert!(
            data.state.iter().all(|b| b.is_finite()),
            "step {s}: non-finite state"
        );
        let k = count_body_intersections(model, &data, &m);
        assert_eq!(k, 0, "step {s}: {k} intersecting triangle pairs");
        let e = energy(model, &data);
        assert!(
            e <= e0 + 1e-9 * (1.0 + e0.abs()),
            "step {s}: energy {e} above the initial {e0}"
        );
        if std::env::var_os("IPC_TRACE").is_some() {
            let st = &data.stats;
            eprintln!(
                "step {s}: it {} dmin {:.2e} x {:?}",
                st.solver_iterations,
                st.ipc_min_distance,
                data.state.last().map(|b| b.x)
            );
        }
        each(&data);
    }
    data
}

/// The cup is loaded as its own 28 triangles (concave, closed, outward), not as
/// its 8-vertex hull, and weighs as the solid it bounds: 0.4·0.4·0.3 − 0.3·0.3·0.25
/// = 0.0255 m³ (to 1e-12 relative: OBJ coordinates are read in double precision),
/// where the hull would give 0.048 m³.
#[test]
fn cup_loads_as_its_triangles() {
    let m = load(
        r#"
[world]
method = "ipc"
[[body]]
name = "cup"
density = 1000.0
shape = { type = "mesh", file = "cup.obj" }
"#,
    );
    let mesh = &body_meshes(&m)[0];
    assert_eq!(mesh.faces.len(), 28);
    assert_eq!(mesh.vertices.len(), 16);
    assert!(
        (m.bodies[0].mass - 25.5).abs() < 1e-12 * 25.5,
        "{}",
        m.bodies[0].mass
    );
    // The same file under another method is its hull (8 vertices, 0.048 m³).
    let hull = load(
        r#"
[world]
method = "penalty"
[[body]]
name = "cup"
density = 1000.0
shape = { type = "mesh", file = "cup.obj" }
"#,
    );
    assert!(
        (hull.bodies[0].mass - 48.0).abs() < 1e-12 * 48.0,
        "{}",
        hull.bodies[0].mass
    );
}

/// A 0.1 m cube dropped into the cup's cavity (floor z = 0.05 m, rim z = 0.3 m)
/// comes to rest on the cavity floor, its centre at 0.05 + 0.05 m to d̂ = 1e-3 m —
/// below the rim, which a hull (top face at z = 0.3 m) would make impossible.
#[test]
fn cube_rests_inside_the_cup() {
    let m = load(
        r#"
[world]
dt = 0.01
method = "ipc"
[[body]]
name = "cup"
static = true
shape = { type = "mesh", file = "cup.obj" }
[[body]]
name = "cube"
mass = 1.0
position = [0.02, -0.01, 0.4]
shape = { type = "box", half_extents = [0.05, 0.05, 0.05] }
"#,
    );
    let d = run_checked(&m, 150);
    let z = d.state[1].x.z;
    assert!(z < 0.3, "cube above the rim: z = {z}");
    assert!((z - 0.1).abs() <= 1e-3, "rest height {z}, expected 0.1 ± d̂");
    assert!(
        d.state[1].v.norm() < 1e-2,
        "not at rest: {:?}",
        d.state[1].v
    );
}

/// A square peg (half width `half`, half height 0.15 m, 1 kg) released at height `z0`
/// over the 0.12 m square hole of the static holed block (its centre at z = 0.3 m),
/// on a floor or not, run `steps` checked steps; returns the peg centre's height.
fn peg_over_holed_block(floor: bool, half: f64, z0: f64, steps: usize) -> f64 {
    let floor = if floor {
        "[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"plane\" }\n"
    } else {
        ""
    };
    let m = load(&format!(
        "[world]\ndt = 0.01\nmethod = \"ipc\"\n{floor}\
         [[body]]\nname = \"block\"\nstatic = true\nposition = [0.0, 0.0, 0.3]\n\
         shape = {{ type = \"mesh\", file = \"holed_block.obj\" }}\n\
         [[body]]\nname = \"peg\"\nmass = 1.0\nposition = [0.0, 0.0, {z0}]\n\
         shape = {{ type = \"box\", half_extents = [{half}, {half}, 0.15] }}\n"
    ));
    let d = run_checked(&m, steps);
    d.state[m.nbody() - 1].x.z
}

/// A 0.1 m square peg (clearance 0.01 m = 10 d̂ each side) falls through the
/// 0.12 m square hole of a static block held 0.3 m above the floor and lands on
/// the floor (centre at 0.05 m to d̂).
#[test]
fn peg_slides_through_square_hole() {
    let z = peg_over_holed_block(true, 0.05, 0.8, 200);
    assert!(
        (z - 0.15).abs() <= 1e-3,
        "peg centre {z}, expected 0.15 ± d̂ on the floor"
    );
}

/// The card (open, two triangles) weighs as a uniform thin plate: I = m/12 (b², a²,
/// a² + b²) for sides a = 0.2 m (x), b = 0.3 m (y), to 1e-12 relative (OBJ
/// coordinates read in double precision).
#[test]
fn card_inertia_is_a_thin_plate() {
    let m = load(
        r#"
[world]
method = "ipc"
[[body]]
name = "card"
mass = 0.3
shape = { type = "mesh", file = "card.obj" }
"#,
    );
    let i = m.bodies[0].inertia;
    let (a, b, mass) = (0.2f64, 0.3f64, 0.3);
    let want = [
        mass * b * b / 12.0,
        mass * a * a / 12.0,
        mass * (a * a + b * b) / 12.0,
    ];
    for k in 0..3 {
        assert!((i[(k, k)] - want[k]).abs() <= 1e-12 * want[k], "{i}");
    }
    // `density` has no meaning for a zero-volume body: a clear error.
    let e = load_scene_str(
        r#"
[world]
method = "ipc"
[[body]]
name = "card"
density = 1.0
shape = { type = "mesh", file = "card.obj" }
"#,
        "<test>",
        data_dir(),
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("open mesh"), "{e}");
}

/// A card dropped flat on the floor lands intersection-free and rests at z = 0 + d̂.
#[test]
fn card_falls_on_floor() {
    let m = load(
        r#"
[world]
dt = 0.01
method = "ipc"
[[body]]
name = "floor"
static = true
shape = { type = "plane" }
[[body]]
name = "card"
mass = 0.05
position = [0.0, 0.0, 0.1]
rpy = [0.2, 0.1, 0.0]
shape = { type = "mesh", file = "card.obj" }
"#,
    );
    let d = run_checked(&m, 150);
    assert!(d.state[1].x.z.abs() <= 1e-3, "{}", d.state[1].x.z);
}

/// Bad files for IPC are refused with the file named and the fault stated (with the
/// vertex and triangles, 0-based in file order, where there are some).
#[test]
fn bad_meshes_are_refused() {
    let dir = std::env::temp_dir().join(format!("rtphys_ipc_meshes_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        // Two triangles sharing an edge in the same direction.
        (
            "flipped.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 3 4\n",
            "same direction",
        ),
        // Three triangles on one edge.
        (
            "fin.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nf 1 2 3\nf 2 1 4\nf 1 2 5\n",
            "edge",
        ),
        // A zero-area triangle.
        (
            "sliver.obj",
            "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n",
            "degenerate",
        ),
        // A closed tetrahedron wound inward.
        (
            "inward.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n",
            "inward",
        ),
        // Two closed tetrahedra touching at one vertex (the origin, welded).
        (
            "bowtie.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0 0 0\nv -1 0 0\nv 0 -1 0\nv 0 0 -1\n\
             f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\nf 5 6 7\nf 5 8 6\nf 5 7 8\nf 6 8 7\n",
            "non-manifold vertex 0: triangles 0 and 4",
        ),
        // Two closed tetrahedra passing through each other.
        (
            "crossed.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0.2 0.2 0.2\nv 1.2 0.2 0.2\nv 0.2 1.2 0.2\nv 0.2 0.2 1.2\n\
             f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\nf 5 7 6\nf 5 6 8\nf 5 8 7\nf 6 7 8\n",
            "self-intersecting",
        ),
    ];
    for (name, text, what) in cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let scene = format!(
            "[world]\nmethod = \"ipc\"\n[[body]]\nname = \"m\"\nstatic = true\nshape = {{ type = \"mesh\", file = \"{}\" }}\n",
            p.display()
        );
        let e = load_scene_str(&scene, "<test>", &dir)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains(name) && e.contains(what), "{name}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Erleben's cube on a cliff: a 0.2 m cube whose edge is flush with the edge of a
/// static block (top face z = 0, edge at x = 0) rests on top (centre z = 0.1 m to
/// d̂) without tipping (every bottom corner within d̂ of the top: tilt ≤ d̂/0.2 m)
/// or sliding off (|x + 0.1| ≤ d̂).
#[test]
fn erleben_cube_on_cliff() {
    let m = load(
        r#"
[world]
dt = 0.01
method = "ipc"
[[body]]
name = "cliff"
static = true
position = [-0.5, 0.0, -0.5]
shape = { type = "box", half_extents = [0.5, 0.5, 0.5] }
[[body]]
name = "cube"
mass = 1.0
position = [-0.1, 0.0, 0.105]
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
"#,
    );
    let d = run_checked(&m, 200);
    let s = &d.state[1];
    assert!((s.x.z - 0.1).abs() <= 1e-3, "z = {}", s.x.z);
    assert!((s.x.x + 0.1).abs() <= 1e-3, "x = {}", s.x.x);
    // Every bottom corner within d̂ of the cliff top: tilt ≤ d̂ / 0.2 m.
    let tilt = s.q.angle();
    assert!(tilt <= 1e-3 / 0.2, "tilted by {tilt} rad");
}

/// Erleben's internal edges: a 0.2 m cube (rotated 0.3 rad about z so its edges cross
/// the grid's) dropped on a floor of 200 coplanar triangles with many internal edges
/// rests flat at z = 0.1 m to d̂, no tilt beyond d̂/0.2 m, and no sideways kick
/// (|Δx|, |Δy| ≤ d̂).
#[test]
fn erleben_internal_edges() {
    let m = load(
        r#"
[world]
dt = 0.01
method = "ipc"
[[body]]
name = "floor"
static = true
shape = { type = "mesh", file = "grid_floor.obj" }
[[body]]
name = "cube"
mass = 1.0
position = [0.03, 0.07, 0.15]
rpy = [0.0, 0.0, 0.3]
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
"#,
    );
    assert_eq!(body_meshes(&m)[0].faces.len(), 200);
    let d = run_checked(&m, 150);
    let s = &d.state[1];
    assert!((s.x.z - 0.1).abs() <= 1e-3, "z = {}", s.x.z);
    assert!(
        (s.x.x - 0.03).abs() <= 1e-3 && (s.x.y - 0.07).abs() <= 1e-3,
        "{:?}",
        s.x
    );
    let tilt =
        s.q.angle_to(&rtphys::math::Quat::from_euler_angles(0.0, 0.0, 0.3));
    assert!(tilt <= 1e-3 / 0.2, "tilted by {tilt} rad");
}

/// Erleben's square peg in a square hole of matching size (0.12 m peg, 0.12 m hole):
/// the peg's bottom edges meet the hole's rim edges exactly, so the barrier holds it
/// on the rim (centre at 0.5 + 0.15 m to d̂), intersection-free, not jammed inside.
#[test]
fn erleben_matching_square_hole() {
    let z = peg_over_holed_block(false, 0.06, 0.66, 150);
    assert!(
        (z - 0.65).abs() <= 1e-3,
        "peg centre {z}, expected 0.65 ± d̂"
    );
}

/// A scratch directory for generated mesh files, removed on drop.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let d = std::env::temp_dir().join(format!("rtphys_{tag}_{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        Scratch(d)
    }
    fn write(&self, name: &str, text: &str) {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    fn load(&self, scene: &str) -> Model {
        load_scene_str(scene, "<test>", &self.0).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Parity of the crossings of ring b's centre circle through the disk spanned by
/// ring a's (both of radius `r_maj` about their body z axes, 256 chords): odd iff
/// the two circles are linked (the disk is a Seifert surface of a's circle).
fn linked(a: &rtphys::BodyState, b: &rtphys::BodyState, r_maj: f64) -> bool {
    let (pa, pb) = (a.pose(), b.pose());
    let n = pa.rotation * Vec3::z();
    let pt = |k: usize| {
        let t = std::f64::consts::TAU * k as f64 / 256.0;
        pb * nalgebra::Point3::new(r_maj * t.cos(), r_maj * t.sin(), 0.0)
    };
    let mut crossings = 0;
    for k in 0..256 {
        let (p, q) = (pt(k).coords - a.x, pt(k + 1).coords - a.x);
        let (sp, sq) = (p.dot(&n), q.dot(&n));
        if (sp < 0.0) != (sq < 0.0) {
            let x = p + (q - p) * (sp / (sp - sq));
            crossings += usize::from(x.norm() < r_maj);
        }
    }
    crossings % 2 == 1
}

/// A chain of rings (issue 15 item 6, the codimensional/genus scene): tori of major
/// radius R = 0.1 m and tube radius r = 0.02 m (`SurfaceMesh::torus`, 24 × 8
/// segments, written as OBJ and loaded by `load_ipc_mesh`), a static top ring in
/// the xz plane and two 0.2 kg rings hanging linked below it in alternating
/// perpendicular planes (yz, xz), frictionless, h = 0.01 s. They start 3 mm above
/// their rest offsets and drop into it.
///
/// Asserted, besides the per-step checks: the rings stay linked at every step
/// (crossing parity of the centre circles), and at rest (200 steps) each linked
/// pair's centre distance is 2(R − r) = 0.16 m less the barrier gap: with n a
/// multiple of 4 and m even, the lower ring's topmost inner vertex and the upper
/// ring's lowest inner vertex lie on the smooth tori, the upper ring's surface there
/// is a mesh saddle rising along its tube and falling across it, the lower ring's
/// the same turned 90°, so the contact is vertex on vertex and the distance is
/// 2(R − r) − g with the barrier gap g ∈ (0, d̂]. (Without that alignment the bound
/// would be the chord sags, s = (R + r)(1 − cos(π/n)) + r(1 − cos(π/m)) = 2.55e-3 m
/// per ring, printed for reference.) The rings hang straight below each other
/// (horizontal offset ≤ d̂) and are at rest (|v| < 1 cm/s).
#[test]
fn chain_of_rings_hangs_linked() {
    let (r_maj, r_min, n, m) = (0.1, 0.02, 24usize, 8usize);
    let dir = Scratch::new("rings");
    dir.write("ring.obj", &SurfaceMesh::torus(r_maj, r_min, n, m).to_obj());
    let pitch = 2.0 * (r_maj - r_min);
    let half_pi = std::f64::consts::FRAC_PI_2;
    let ring = |name: &str, z: f64, dynamic: bool, rpy: [f64; 3]| {
        format!(
            "[[body]]\nname = \"{name}\"\n{}\nposition = [0.0, 0.0, {z}]\nrpy = [{}, {}, {}]\n\
             shape = {{ type = \"mesh\", file = \"ring.obj\" }}\nmaterial = {{ mu = 0.0 }}\n",
            if dynamic {
                "mass = 0.2"
            } else {
                "static = true"
            },
            rpy[0],
            rpy[1],
            rpy[2]
        )
    };
    let scene = format!(
        "[world]\ndt = 0.01\nmethod = \"ipc\"\ngravity = [0.0, 0.0, -9.81]\n{}{}{}",
        ring("top", 0.0, false, [half_pi, 0.0, 0.0]),
        ring("middle", -pitch + 3e-3, true, [0.0, half_pi, 0.0]),
        ring("bottom", -2.0 * pitch + 6e-3, true, [half_pi, 0.0, 0.0]),
    );
    let model = dir.load(&scene);
    assert_eq!(body_meshes(&model)[1].faces.len(), 2 * n * m);
    let mut step = 0;
    let d = run_checked_each(&model, 200, |d| {
        step += 1;
        for k in 0..2 {
            assert!(
                linked(&d.state[k], &d.state[k + 1], r_maj),
                "step {step}: rings {k} and {} came apart",
                k + 1
            );
        }
    });
    let sag = (r_maj + r_min) * (1.0 - (std::f64::consts::PI / n as f64).cos())
        + r_min * (1.0 - (std::f64::consts::PI / m as f64).cos());
    let dhat = 1e-3;
    for k in 0..2 {
        let (a, b) = (&d.state[k], &d.state[k + 1]);
        let dx = a.x - b.x;
        println!(
            "rings {k}-{}: centre distance {:.6} m (2(R − r) = {pitch}), horizontal {:.2e} m, |v| {:.1e}, sag s {sag:.3e}",
            k + 1,
            dx.norm(),
            dx.xy().norm(),
            b.v.norm()
        );
        let gap = pitch - dx.norm();
        assert!(
            gap > 0.0 && gap <= dhat,
            "centre distance {}: gap {gap}",
            dx.norm()
        );
        assert!(dx.xy().norm() <= dhat, "offset {:?}", dx);
        assert!(b.v.norm() < 1e-2, "ring {} moving: {:?}", k + 1, b.v);
    }
}

/// Erleben's spike in a V-crack: a square pyramid (height H = 0.1 m, apex down,
/// half-angle β between its axis and its faces in the xz plane, base half width
/// W = H tan β, 1 kg) dropped 2 cm into a crack of two static slabs whose inner
/// faces meet along the y axis at the origin, each at half-angle α = 30° from the
/// vertical (the crack is |x| ≤ z tan α). Runs 150 steps; returns the pyramid's state.
fn spike_in_crack(beta_deg: f64, apex_start: f64) -> rtphys::BodyState {
    let (alpha, beta, h) = (30f64.to_radians(), beta_deg.to_radians(), 0.1);
    let w = h * beta.tan();
    let (len, thick) = (0.2, 0.05);
    // Slab centre: half its length up the wall from the crease, half its thickness
    // out of the crack.
    let c = Vec3::new(alpha.sin(), 0.0, alpha.cos()) * len
        + Vec3::new(alpha.cos(), 0.0, -alpha.sin()) * thick;
    let slab = |name: &str, sign: f64| {
        format!(
            "[[body]]\nname = \"{name}\"\nstatic = true\nposition = [{}, 0.0, {}]\nrpy = [0.0, {}, 0.0]\n\
             shape = {{ type = \"box\", half_extents = [{thick}, 0.3, {len}] }}\nmaterial = {{ mu = 0.0 }}\n",
            sign * c.x,
            c.z,
            sign * alpha
        )
    };
    // Apex at the body origin; the solid pyramid's centre of mass is 3H/4 above it.
    let scene = format!(
        "[world]\ndt = 0.01\nmethod = \"ipc\"\ngravity = [0.0, 0.0, -9.81]\n{}{}\
         [[body]]\nname = \"spike\"\nmass = 1.0\nposition = [0.0, 0.0, {apex_start}]\nmaterial = {{ mu = 0.0 }}\n\
         shape = {{ type = \"polytope\", points = [[0.0, 0.0, 0.0], [{w}, {w}, {h}], [-{w}, {w}, {h}], [-{w}, -{w}, {h}], [{w}, -{w}, {h}]] }}\n",
        slab("right", 1.0),
        slab("left", -1.0),
    );
    let model = load(&scene);
    run_checked(&model, 150).state[2]
}

/// Erleben's spike in a V-crack, both cases of the half-angles (α = 30° crack,
/// d̂ = 1e-3 m), with the analytic rest depth:
///
/// - narrower spike (β = 15° < α): the apex reaches the crease. At height z on the
///   bisector the apex is z sin α from each wall, and the barrier holds it at a
///   distance in (0, d̂], so the apex rests at 0 < z ≤ d̂/sin α = 2 d̂ (centre of
///   mass 3H/4 higher), centred (|x| ≤ d̂), upright (tilt ≤ d̂/H). Balanced on its
///   apex it is an inverted pendulum: it stays upright because the scene is exactly
///   symmetric (released centred), not because the contact resists tipping.
/// - wider spike (β = 45° > α): the base's edges x = ±W (W = H tan β = 0.1 m) meet
///   the walls. An edge at height z is −W cos α + z sin α from its wall, in (0, d̂]
///   at rest, so the base rests at W/tan α < z ≤ W/tan α + d̂/sin α (0.1732 m, apex
///   0.0732 m above the crease, clear of it), centre of mass H/4 below the base,
///   centred and upright (tilt ≤ d̂/W).
///
/// Each: intersection-free, finite and passive at every step, at rest (|v| < 1 cm/s).
#[test]
fn erleben_spike_in_v_crack() {
    let (alpha, h, dhat) = (30f64.to_radians(), 0.1, 1e-3);
    // Narrow: apex released 2 cm above the crease.
    let s = spike_in_crack(15.0, 0.02);
    let apex = s.x.z - 0.75 * h;
    println!(
        "narrow: apex z {apex:.4e} m (0, ≤ {:.1e}), x {:.1e}, |v| {:.1e}",
        dhat / alpha.sin(),
        s.x.x,
        s.v.norm()
    );
    assert!(apex > 0.0 && apex <= dhat / alpha.sin(), "apex at {apex}");
    assert!(s.x.x.abs() <= dhat, "off-centre: {}", s.x.x);
    assert!(s.q.angle() <= dhat / h, "tilted by {}", s.q.angle());
    assert!(s.v.norm() < 1e-2, "moving: {:?}", s.v);
    // Wide: base released 2 cm above its rest height.
    let w = h * 45f64.to_radians().tan();
    let rest = w / alpha.tan();
    let s = spike_in_crack(45.0, rest - h + 0.02);
    let base = s.x.z + 0.25 * h;
    println!(
        "wide: base z {base:.6} m (W/tan α = {rest:.6}), error {:.3e}, |v| {:.1e}",
        base - rest,
        s.v.norm()
    );
    assert!(
        base > rest && base <= rest + dhat / alpha.sin(),
        "base at {base}, expected ({rest}, {}]",
        rest + dhat / alpha.sin()
    );
    assert!(s.x.x.abs() <= dhat, "off-centre: {}", s.x.x);
    assert!(s.q.angle() <= dhat / w, "tilted by {}", s.q.angle());
    assert!(s.v.norm() < 1e-2, "moving: {:?}", s.v);
}

/// One of Erleben's "spikes and wedges on each other": a sharp body (`drop`, its
/// lowest feature at its origin) released `gap0` above a static sharp body whose
/// highest feature is at the world origin, aligned so that the contact lies
/// straight below the dropping body's centre of mass. Runs `steps` with the checks
/// of the module doc; returns the dropping body's state.
fn sharp_on_sharp(stat: &str, drop: &str, gap0: f64, steps: usize) -> rtphys::BodyState {
    let scene = format!(
        "[world]\ndt = 0.01\nmethod = \"ipc\"\ngravity = [0.0, 0.0, -9.81]\n\
         [[body]]\nname = \"below\"\nstatic = true\nmaterial = {{ mu = 0.0 }}\n\
         shape = {{ type = \"polytope\", points = {stat} }}\n\
         [[body]]\nname = \"above\"\nmass = 1.0\nposition = [0.0, 0.0, {gap0}]\nmaterial = {{ mu = 0.0 }}\n\
         shape = {{ type = \"polytope\", points = {drop} }}\n"
    );
    let model = load(&scene);
    run_checked(&model, steps).state[1]
}

/// Erleben's spikes and wedges on each other (frictionless, h = 0.01 s, d̂ = 1e-3 m):
/// a square pyramid (H = 0.1 m, half-angle 20°) apex down on an upright one's apex,
/// the same spike on a wedge's ridge (a triangular prism, half-angle 20°), a ridge
/// on a crossing ridge (90°) and a ridge on a parallel ridge. Each starts 2 cm
/// above the contact with the contact straight below the centre of mass, so the
/// symmetric balance is an equilibrium — an unstable one. A point resting on a point
/// or a line a barrier gap d away is tipped by its own contact force F: the normal
/// turns with the offset, a lateral stiffness −F/d (≈ −1.3e4 N/m here), so any
/// asymmetry grows within a few steps. The meshes are not mirror-symmetric (each
/// rectangular side face is split by one diagonal), and the spike on the spike, the
/// spike on the ridge and the parallel ridges topple off (measured: gone by 0.08 s).
/// They held only while the Newton solve stopped one step short: a Newton step
/// below the tolerance (1e-5 m/s × h) was never taken, so a body at rest whose
/// first step is that small never moved (the same scenes with `newton_tolerance`
/// 1e-6, 1e-7 or 1e-9 toppled before the solve took its converged last step).
/// Those three get the per-step checks only. The ridge on a crossing ridge stays
/// balanced (its edge–edge pair is symmetric to round-off): measured gap 3.5e-4 m,
/// |x|, |y| ≤ 3e-19 m, tilt 0 — asserted: a barrier gap apart, 0 < gap ≤ d̂, centred
/// (|x|, |y| ≤ d̂), upright (tilt ≤ d̂/H), at rest (|v| < 1 cm/s) — and, at every
/// step of every case, intersection-free, finite and passive (`run_checked`). The
/// dropping body's centre of mass is 3H/4 above its apex (pyramid) or 2H/3 above its
/// ridge (prism).
#[test]
fn erleben_spikes_and_wedges_on_each_other() {
    let (h, dhat) = (0.1, 1e-3);
    let w = h * 20f64.to_radians().tan();
    let l = 0.1;
    let spike_down = format!(
        "[[0.0, 0.0, 0.0], [{w}, {w}, {h}], [-{w}, {w}, {h}], [-{w}, -{w}, {h}], [{w}, -{w}, {h}]]"
    );
    let spike_up = format!("[[0.0, 0.0, 0.0], [{w}, {w}, -{h}], [-{w}, {w}, -{h}], [-{w}, -{w}, -{h}], [{w}, -{w}, -{h}]]");
    // Ridges along y (`_y`) or x (`_x`) at the origin.
    let ridge = |along_x: bool, up: bool| {
        let s = if up { -h } else { h };
        let p = |a: f64, b: f64, z: f64| {
            if along_x {
                format!("[{b}, {a}, {z}]")
            } else {
                format!("[{a}, {b}, {z}]")
            }
        };
        format!(
            "[{}, {}, {}, {}, {}, {}]",
            p(0.0, -l, 0.0),
            p(0.0, l, 0.0),
            p(w, -l, s),
            p(w, l, s),
            p(-w, -l, s),
            p(-w, l, s)
        )
    };
    let cases = [
        (
            "spike on spike",
            spike_up.clone(),
            spike_down.clone(),
            0.75 * h,
            false,
        ),
        (
            "spike on a ridge",
            ridge(false, true),
            spike_down,
            0.75 * h,
            false,
        ),
        (
            "ridge on a crossing ridge",
            ridge(false, true),
            ridge(true, false),
            2.0 * h / 3.0,
            true,
        ),
        (
            "ridge on a parallel ridge",
            ridge(false, true),
            ridge(false, false),
            2.0 * h / 3.0,
            false,
        ),
    ];
    for (name, stat, drop, com, balanced) in cases {
        let s = sharp_on_sharp(&stat, &drop, 0.02, 150);
        let gap = s.x.z - com;
        println!(
            "{name}: gap {gap:.4e} m, x {:.1e}, y {:.1e}, tilt {:.1e}, |v| {:.1e}",
            s.x.x,
            s.x.y,
            s.q.angle(),
            s.v.norm()
        );
        if !balanced {
            continue;
        }
        assert!(gap > 0.0 && gap <= dhat, "{name}: gap {gap}");
        assert!(
            s.x.x.abs() <= dhat && s.x.y.abs() <= dhat,
            "{name}: off-centre {:?}",
            s.x
        );
        assert!(s.q.angle() <= dhat / h, "{name}: tilted by {}", s.q.angle());
        assert!(s.v.norm() < 1e-2, "{name}: moving {:?}", s.v);
    }
}
