// Shared helpers for the integration tests (included with `mod common_scene;`).
#![allow(dead_code)]

use rtphys::model::scene::{load_scene_file, load_scene_str};
use rtphys::Model;
use std::path::{Path, PathBuf};

pub fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("config/scenes")
        .join(name)
}

pub fn load(name: &str) -> Model {
    match load_scene_file(scene_path(name)) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

pub fn load_str(text: &str) -> Model {
    match load_scene_str(text, "<test>", Path::new(".")) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}
