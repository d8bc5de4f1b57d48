//! Convex meshes from STL (binary, ASCII) and OBJ files generated on the fly in a
//! temporary directory; errors name the file.

use rtphys::collision::mesh::load_convex_mesh;
use rtphys::collision::{GeometryError, Shape};
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "rtphys_collision_mesh_{}_{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The 12 triangles of the box [0, 1] × [0, 2] × [0, 3] plus a duplicate interior
/// vertex set (an inner box), as vertex triples.
fn box_triangles() -> Vec<[[f32; 3]; 3]> {
    let c = |i: usize| -> [f32; 3] {
        [
            (i & 1) as f32,
            2.0 * ((i >> 1) & 1) as f32,
            3.0 * ((i >> 2) & 1) as f32,
        ]
    };
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let mut t = Vec::new();
    for q in quads {
        t.push([c(q[0]), c(q[1]), c(q[2])]);
        t.push([c(q[0]), c(q[2]), c(q[3])]);
    }
    // An interior triangle: must not become a hull vertex.
    t.push([[0.5, 1.0, 1.5], [0.4, 1.0, 1.5], [0.5, 0.9, 1.5]]);
    t
}

fn check_box(shape: &Shape, scale: f64) {
    let Shape::Polytope(p) = shape else {
        panic!("expected a polytope")
    };
    assert_eq!(p.vertices.len(), 8);
    assert_eq!(p.faces.len(), 6);
    let vol = 6.0 * scale.powi(3);
    // Tolerance 1e-12 relative (the coordinates are exact in f32).
    assert!((p.volume() - vol).abs() < 1e-12 * vol, "{}", p.volume());
}

#[test]
fn binary_stl_box_is_loaded_and_scaled() {
    let dir = temp_dir("bin");
    let path = dir.join("box.stl");
    let tris: Vec<stl_io::Triangle> = box_triangles()
        .iter()
        .map(|v| stl_io::Triangle {
            normal: stl_io::Normal::new([0.0, 0.0, 0.0]),
            vertices: [
                stl_io::Vertex::new(v[0]),
                stl_io::Vertex::new(v[1]),
                stl_io::Vertex::new(v[2]),
            ],
        })
        .collect();
    let mut f = std::fs::File::create(&path).unwrap();
    stl_io::write_stl(&mut f, tris.iter()).unwrap();
    drop(f);
    check_box(&load_convex_mesh(&path, 0.5).unwrap(), 0.5);
}

#[test]
fn ascii_stl_box_is_loaded() {
    let dir = temp_dir("ascii");
    let path = dir.join("box.STL");
    let mut s = String::from("solid box\n");
    for t in box_triangles() {
        s += "  facet normal 0 0 0\n    outer loop\n";
        for v in t {
            s += &format!("      vertex {} {} {}\n", v[0], v[1], v[2]);
        }
        s += "    endloop\n  endfacet\n";
    }
    s += "endsolid box\n";
    std::fs::write(&path, s).unwrap();
    check_box(&load_convex_mesh(&path, 2.0).unwrap(), 2.0);
}

#[test]
fn obj_box_is_loaded() {
    let dir = temp_dir("obj");
    let path = dir.join("box.obj");
    let mut s = String::from("# box\no box\n");
    for i in 0..8 {
        s += &format!(
            "v {} {} {}\n",
            (i & 1) as f64,
            2.0 * ((i >> 1) & 1) as f64,
            3.0 * ((i >> 2) & 1) as f64
        );
    }
    s += "v 0.5 1.0 1.5\n";
    for q in [
        [1, 3, 4, 2],
        [5, 6, 8, 7],
        [1, 2, 6, 5],
        [3, 7, 8, 4],
        [1, 5, 7, 3],
        [2, 4, 8, 6],
    ] {
        s += &format!("f {} {} {} {}\n", q[0], q[1], q[2], q[3]);
    }
    std::fs::write(&path, s).unwrap();
    check_box(&load_convex_mesh(&path, 1.0).unwrap(), 1.0);
}

fn mesh_error(path: &Path, scale: f64) -> String {
    match load_convex_mesh(path, scale) {
        Err(e @ GeometryError::Mesh { .. }) => {
            let m = e.to_string();
            assert!(m.contains(&path.display().to_string()), "{m}");
            m
        }
        other => panic!("expected a mesh error, got {other:?}"),
    }
}

#[test]
fn mesh_errors_name_the_file() {
    let dir = temp_dir("err");
    let m = mesh_error(&dir.join("missing.stl"), 1.0);
    assert!(m.contains("not found"), "{m}");
    let p = dir.join("cube.ply");
    std::fs::write(&p, "ply\n").unwrap();
    let m = mesh_error(&p, 1.0);
    assert!(m.contains("unknown mesh extension"), "{m}");
    let p = dir.join("garbage.stl");
    std::fs::write(&p, [0xffu8; 7]).unwrap();
    let m = mesh_error(&p, 1.0);
    assert!(m.contains("unreadable") || m.contains("no vertices"), "{m}");
    let p = dir.join("flat.obj");
    std::fs::write(&p, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 4 3\n").unwrap();
    let m = mesh_error(&p, 1.0);
    assert!(m.contains("coplanar"), "{m}");
    let p = dir.join("ok.obj");
    std::fs::write(&p, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n").unwrap();
    let m = mesh_error(&p, -1.0);
    assert!(m.contains("scale"), "{m}");
}
