//! Fuzzing in-tree (stable Rust, seeded, deterministic): the real scenes of
//! config/scenes and URDFs of config/robots, mutated (numbers replaced by extremes —
//! ±1e308, NaN, ±inf, 1e-320, huge integers —, lines deleted, duplicated, swapped,
//! keys renamed, text truncated, bytes inserted), loaded by the scene and URDF
//! loaders. Every case must either load or fail with an error naming the file (and
//! line and key or element where known); never panic. A scene that loads is stepped
//! 20 ticks: the physics must not panic either.
//!
//! Counts: `RTPHYS_FUZZ_SCENES` (default 15000) and `RTPHYS_FUZZ_URDFS` (default
//! 15000) cases, seed `RTPHYS_FUZZ_SEED` (default 16); e.g. a long run:
//! `RTPHYS_FUZZ_SCENES=200000 RTPHYS_FUZZ_URDFS=200000 cargo test --release --test fuzz_scenes -- --nocapture`.
//! The inputs that crashed before issue 16 are the regression tests at the end.

use rtphys::math::SplitMix64;
use rtphys::model::scene::load_scene_str;
use rtphys::robot::urdf::{parse_urdf, UrdfOptions};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

fn env_n(k: &str, d: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(d)
}

const EXTREMES: &[&str] = &[
    "1e308",
    "-1e308",
    "1e309",
    "-1e309",
    "nan",
    "inf",
    "-inf",
    "0",
    "-0.0",
    "-1",
    "1e-320",
    "1e6",
    "1e7",
    "-1e7",
    "1e12",
    "1e13",
    "1e15",
    "1e16",
    "1e24",
    "1e25",
    "3.4e38",
    "18446744073709551616",
    "-9223372036854775809",
    "0.000001",
    "2",
    "1000000000",
];

/// Byte ranges of the numeric literals of `t`.
fn numbers(t: &str) -> Vec<(usize, usize)> {
    let b = t.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            || ((b[i] == b'-' || b[i] == b'.') && i + 1 < b.len() && b[i + 1].is_ascii_digit());
        let prev_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if starts && !prev_ident {
            let s = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || b[i] == b'.'
                    || b[i] == b'e'
                    || b[i] == b'E'
                    || ((b[i] == b'-' || b[i] == b'+') && (b[i - 1] == b'e' || b[i - 1] == b'E')))
            {
                i += 1;
            }
            v.push((s, i));
        } else {
            i += 1;
        }
    }
    v
}

fn boundary(t: &str, mut i: usize) -> usize {
    i = i.min(t.len());
    while !t.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One to three random mutations of `t`.
fn mutate(t: &str, r: &mut SplitMix64, xml: bool) -> String {
    let mut s = t.to_string();
    let n = 1 + r.next_u64() % 3;
    for _ in 0..n {
        let lines: Vec<&str> = s.lines().collect();
        let pick = |r: &mut SplitMix64, n: usize| (r.next_u64() % n.max(1) as u64) as usize;
        s = match r.next_u64() % 10 {
            // Numbers are the main target: four in ten.
            0..=3 => {
                let nums = numbers(&s);
                if nums.is_empty() {
                    s
                } else {
                    let (a, b) = nums[pick(r, nums.len())];
                    let x = EXTREMES[pick(r, EXTREMES.len())];
                    format!("{}{}{}", &s[..a], x, &s[b..])
                }
            }
            4 => {
                let k = pick(r, lines.len());
                lines
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != k)
                    .map(|(_, l)| *l)
                    .collect::<Vec<_>>()
                    .join("\n")
            }
            5 => {
                let k = pick(r, lines.len());
                let mut v = lines.clone();
                if !v.is_empty() {
                    v.insert(k, lines[k]);
                }
                v.join("\n")
            }
            6 => {
                let mut v = lines.clone();
                if v.len() > 1 {
                    let (a, b) = (pick(r, v.len()), pick(r, v.len()));
                    v.swap(a, b);
                }
                v.join("\n")
            }
            7 => {
                let i = boundary(&s, pick(r, s.len()));
                s[..i].to_string()
            }
            8 => {
                // Rename a key / attribute.
                let pat = if xml { "=\"" } else { " = " };
                let hits: Vec<usize> = s.match_indices(pat).map(|(i, _)| i).collect();
                if hits.is_empty() {
                    s
                } else {
                    let at = hits[pick(r, hits.len())];
                    let start = s[..at]
                        .rfind(|c: char| c.is_whitespace() || c == '{' || c == ',')
                        .map_or(0, |p| p + 1);
                    format!("{}bogus_key{}", &s[..start], &s[at..])
                }
            }
            _ => {
                let junk = [
                    "\"", "[", "]", "{", "}", "<", ">", "=", "\n", "\u{0}", "é", "#", "'",
                ];
                let i = boundary(&s, pick(r, s.len() + 1));
                format!("{}{}{}", &s[..i], junk[pick(r, junk.len())], &s[i..])
            }
        };
    }
    s
}

fn files(dir: &str, ext: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("config directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| {
            let t = std::fs::read_to_string(&p).expect("readable");
            (p.display().to_string(), t)
        })
        .collect();
    v.sort();
    v
}

/// Step a model that loaded: 20 ticks, no panic.
fn step_some(m: &rtphys::Model) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut d = rtphys::data::Data::new(m);
        let mut p = rtphys::Pipeline::new(m);
        for _ in 0..20 {
            p.step(m, &mut d);
        }
    }))
    .map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

fn save_failure(tag: &str, case: u64, text: &str) -> String {
    let dir = Path::new("target/fuzz-failures");
    let _ = std::fs::create_dir_all(dir);
    let p = dir.join(format!("{tag}-{case}.txt"));
    let _ = std::fs::write(&p, text);
    p.display().to_string()
}

#[test]
fn mutated_scenes_load_or_fail_with_a_located_error() {
    let n = env_n("RTPHYS_FUZZ_SCENES", 15000);
    let seed = env_n("RTPHYS_FUZZ_SEED", 16);
    let scenes = files("config/scenes", "toml");
    assert!(scenes.len() >= 10);
    let t0 = std::time::Instant::now();
    let (mut ok, mut refused, mut stepped, mut empty_key) = (0u64, 0u64, 0u64, 0u64);
    for case in 0..n {
        let mut r = SplitMix64::new(seed.wrapping_mul(1_000_003).wrapping_add(case));
        let (path, text) = &scenes[(r.next_u64() % scenes.len() as u64) as usize];
        let name = Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let m = mutate(text, &mut r, false);
        let res = catch_unwind(AssertUnwindSafe(|| {
            load_scene_str(&m, &name, Path::new("config/scenes"))
        }));
        match res {
            Err(_) => panic!(
                "case {case} (seed {seed}): the scene loader panicked on a mutation of {path}; input in {}",
                save_failure("scene", case, &m)
            ),
            Ok(Err(e)) => {
                refused += 1;
                let msg = e.to_string();
                // File, and line or key (a TOML syntax error has the line and an
                // empty key).
                assert!(
                    msg.starts_with(&name)
                        && (e.line.is_some() || !e.key.is_empty())
                        && !e.message.is_empty(),
                    "case {case}: error does not name file and line or key: {msg:?}"
                );
                empty_key += e.key.is_empty() as u64;
            }
            Ok(Ok(model)) => {
                ok += 1;
                if let Err(p) = step_some(&model) {
                    let file = save_failure("scene-step", case, &m);
                    let changed = changed_lines(text, &m);
                    panic!(
                        "case {case} (seed {seed}): a scene that loaded panicked the physics ({p}); changed lines {changed:?}; input in {file}"
                    );
                }
                stepped += 1;
            }
        }
    }
    println!(
        "fuzz_scenes: {n} mutated scenes (seed {seed}): {refused} refused with file:line: key errors ({empty_key} TOML syntax errors with the line and no key), {ok} loaded and stepped 20 ticks ({stepped}); {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

/// Lines of `m` that are not in `orig`.
fn changed_lines(orig: &str, m: &str) -> Vec<String> {
    let o: std::collections::HashSet<&str> = orig.lines().collect();
    m.lines()
        .filter(|l| !o.contains(l))
        .map(|l| l.trim().to_string())
        .collect()
}

/// Found by this fuzzing: humanoid.toml with `ki_per_mass = 1e308` loaded and its
/// first steps panicked (NaN bounds in the force arithmetic); the loader now bounds
/// gains by 1e15 and names the key.
#[test]
fn regression_huge_penalty_gain_is_refused_by_the_loader() {
    let t = std::fs::read_to_string("config/scenes/humanoid.toml").unwrap();
    let bad = t.replacen("ki_per_mass = 0.0", "ki_per_mass = 1e308", 1);
    assert_ne!(t, bad);
    match load_scene_str(&bad, "humanoid.toml", Path::new("config/scenes")) {
        Err(e) => assert!(e.to_string().contains("ki_per_mass"), "{e}"),
        Ok(_) => panic!("ki_per_mass = 1e308 loaded"),
    }
}

#[test]
fn mutated_urdfs_parse_or_fail_with_a_located_error() {
    let n = env_n("RTPHYS_FUZZ_URDFS", 15000);
    let seed = env_n("RTPHYS_FUZZ_SEED", 16);
    let urdfs = files("config/robots", "urdf");
    assert!(!urdfs.is_empty());
    let t0 = std::time::Instant::now();
    let (mut ok, mut refused) = (0u64, 0u64);
    for case in 0..n {
        let mut r = SplitMix64::new(seed.wrapping_mul(7_000_003).wrapping_add(case));
        let (path, text) = &urdfs[(r.next_u64() % urdfs.len() as u64) as usize];
        let m = mutate(text, &mut r, true);
        let strict = r.next_u64().is_multiple_of(4);
        let res = catch_unwind(AssertUnwindSafe(|| {
            parse_urdf(
                &m,
                Path::new("config/robots"),
                path,
                &UrdfOptions { strict },
            )
        }));
        match res {
            Err(_) => panic!(
                "case {case} (seed {seed}): the URDF parser panicked on a mutation of {path}; input in {}",
                save_failure("urdf", case, &m)
            ),
            Ok(Err(e)) => {
                refused += 1;
                let msg = e.to_string();
                assert!(
                    msg.starts_with(path.as_str()) && !e.element.is_empty() && !e.message.is_empty(),
                    "case {case}: error does not name file and element: {msg:?}"
                );
            }
            Ok(Ok(_)) => ok += 1,
        }
    }
    println!(
        "fuzz_urdfs: {n} mutated URDFs (seed {seed}): {refused} refused with file:line: element errors, {ok} parsed; {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

// ------------------------------------------------------------------ regressions
// The finite inputs that panicked the physics before issue 16 (`rtphys run` exit
// 101 in contact::friction::tangential_forces_at): refused now, with the key.

fn default_with(from: &str, to: &str) -> String {
    let t = std::fs::read_to_string("config/scenes/box_on_plane.toml").unwrap();
    assert!(t.contains(from), "box_on_plane.toml has {from:?}");
    t.replacen(from, to, 1)
}

fn refused(text: &str, key_part: &str) {
    let e = load_scene_str(text, "reg.toml", Path::new("config/scenes"))
        .err()
        .unwrap_or_else(|| panic!("refused: {key_part}"));
    let msg = e.to_string();
    assert!(msg.starts_with("reg.toml:"), "{msg}");
    assert!(msg.contains(key_part), "{msg} names {key_part}");
}

#[test]
fn regression_huge_gravity_position_and_velocity_are_refused() {
    let t = std::fs::read_to_string("config/scenes/box_on_plane.toml").unwrap();
    let g = t
        .lines()
        .find(|l| l.trim_start().starts_with("gravity"))
        .expect("gravity line");
    for v in ["-1e308", "1e308", "-1e5"] {
        refused(
            &t.replacen(g, &format!("gravity = [0.0, 0.0, {v}]"), 1),
            "gravity",
        );
    }
    let p = t
        .lines()
        .rfind(|l| l.trim_start().starts_with("position"))
        .expect("a position line");
    for v in ["-1e308", "1e308", "1e7"] {
        refused(
            &t.replacen(p, &format!("position = [0.0, 0.0, {v}]"), 1),
            "position",
        );
    }
    let _ = default_with;
}

#[test]
fn regression_huge_urdf_cylinder_length_is_refused() {
    let path = "config/robots/arm7.urdf";
    let t = std::fs::read_to_string(path).unwrap();
    let at = t.find("length=\"").expect("a cylinder length");
    let end = at + 8 + t[at + 8..].find('"').unwrap();
    for v in ["1e308", "-1e308", "nan", "inf"] {
        let bad = format!("{}length=\"{v}{}", &t[..at], &t[end..]);
        let e = parse_urdf(
            &bad,
            Path::new("config/robots"),
            path,
            &UrdfOptions::default(),
        )
        .expect_err("refused");
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!("{path}:")) && msg.contains("length"),
            "{msg}"
        );
    }
}
