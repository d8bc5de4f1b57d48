//! URDF loading: the robots shipped in `config/robots/`, every error class (each
//! message names the file, the line and the element), warnings and strict mode,
//! mesh collisions, and merging fixed-joint links (mass, centre of mass and
//! inertia preserved by the parallel-axis theorem).

use rtphys::collision::Shape;
use rtphys::math::{Mat3, Pose, Vec3};
use rtphys::robot::{
    load_urdf, parse_urdf, JointKind, RobotDescription, UrdfError, UrdfErrorKind, UrdfOptions,
};
use std::path::{Path, PathBuf};

const LENIENT: UrdfOptions = UrdfOptions { strict: false };
const STRICT: UrdfOptions = UrdfOptions { strict: true };

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn robot_path(name: &str) -> PathBuf {
    root().join("config/robots").join(name)
}

/// Sum of every `<mass value="…">` in the file, read with plain string search
/// (independent of the loader).
fn masses_in_file(path: &Path) -> f64 {
    let text = std::fs::read_to_string(path).expect("robot file");
    let mut total = 0.0;
    for piece in text.split("<mass value=\"").skip(1) {
        let end = piece.find('"').expect("closing quote");
        total += piece[..end].parse::<f64>().expect("mass number");
    }
    total
}

/// 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("'{needle}' not in the test text"))
        + 1
}

fn parse(text: &str) -> Result<RobotDescription, UrdfError> {
    parse_urdf(text, &root().join("config/robots"), "bad.urdf", &LENIENT)
}

/// The error must name the file, the line of `needle` and the element (tag and,
/// when given, its name attribute).
fn expect_error(
    text: &str,
    kind: UrdfErrorKind,
    needle: &str,
    element: &[&str],
    msg: &str,
) -> UrdfError {
    let e = match parse(text) {
        Ok(_) => panic!("expected a {kind:?} error, the file loaded"),
        Err(e) => e,
    };
    let shown = e.to_string();
    assert_eq!(e.kind, kind, "{shown}");
    let line = line_of(text, needle);
    assert!(
        shown.starts_with(&format!("bad.urdf:{line}: ")),
        "expected bad.urdf:{line}: in '{shown}'"
    );
    for el in element {
        assert!(shown.contains(el), "'{el}' not in '{shown}'");
    }
    assert!(shown.contains(msg), "'{msg}' not in '{shown}'");
    e
}

/// A valid two-link robot; `{J}` is replaced by the joint body, `{L}` by extra link content.
fn two_links(joint_type: &str, joint_body: &str, link_b: &str) -> String {
    format!(
        r#"<robot name="t">
  <link name="a">
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial>
  </link>
  <link name="b">
{link_b}
  </link>
  <joint name="j" type="{joint_type}">
    <parent link="a"/>
    <child link="b"/>
{joint_body}
  </joint>
</robot>
"#
    )
}

const MASS_B: &str =
    r#"    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial>"#;

// ---------------------------------------------------------------- the robots

fn check_tree(d: &RobotDescription) {
    assert_eq!(d.joints.len() + 1, d.links.len());
    for (j, joint) in d.joints.iter().enumerate() {
        assert_eq!(joint.child, j + 1, "joint {} child", joint.name);
        assert!(joint.parent < joint.child, "joint {} order", joint.name);
        assert!((joint.axis.norm() - 1.0).abs() < 1e-12);
    }
    // Massless links only as the root or under fixed joints.
    for (i, l) in d.links.iter().enumerate().skip(1) {
        if l.inertial.is_none() {
            assert_eq!(d.joints[i - 1].kind, JointKind::Fixed, "{}", l.name);
        }
    }
}

#[test]
fn shipped_robots_load_without_warnings_with_their_dof_and_mass() {
    // (file, DoF, total mass stated in the file's header, kg)
    for (file, dof, mass) in [
        ("arm7.urdf", 7, 18.0),
        ("diffdrive.urdf", 2, 9.0),
        ("humanoid.urdf", 26, 50.0),
    ] {
        let path = robot_path(file);
        let d = load_urdf(&path, &STRICT).unwrap_or_else(|e| panic!("{e}"));
        assert!(d.warnings.is_empty(), "{file}: {:?}", d.warnings);
        assert_eq!(d.dof(), dof, "{file}");
        let independent = masses_in_file(&path);
        assert!((d.total_mass() - independent).abs() < 1e-12, "{file}");
        assert!(
            (d.total_mass() - mass).abs() < 1e-9,
            "{file}: {}",
            d.total_mass()
        );
        assert_eq!(d.source, path);
        check_tree(&d);
    }
}

#[test]
fn arm7_flange_is_where_the_panda_dh_table_puts_it() {
    let d = load_urdf(&robot_path("arm7.urdf"), &STRICT).unwrap();
    assert_eq!(d.links[0].name, "base");
    // At q = 0 the Panda's flange is at x = a4 − a5·(−1)… = 0.088 m, z = 0.333 + 0.316
    // + 0.384 − 0.107 = 0.926 m, its z axis pointing down.
    let x = d.zero_pose_frames();
    let tool0 = x[d.link_id("tool0").unwrap()];
    let p = tool0.translation.vector;
    assert!((p - Vec3::new(0.088, 0.0, 0.926)).norm() < 1e-9, "{p}");
    let z = tool0.rotation * Vec3::z();
    assert!((z + Vec3::z()).norm() < 1e-9, "{z}");
    // Limits as the Panda's: joint 4 is always bent, joint 6 nearly one-sided.
    let j4 = &d.joints[d.joint_id("joint4").unwrap()];
    let lim = j4.limit.unwrap();
    assert_eq!((lim.lower, lim.upper, lim.effort), (-3.0718, -0.0698, 87.0));
    assert_eq!(
        d.joints[d.joint_id("joint7").unwrap()]
            .limit
            .unwrap()
            .effort,
        12.0
    );
    // One capsule per moving link, a cylinder for the base.
    assert!(matches!(
        d.links[0].collisions[0].shape,
        Shape::Cylinder { .. }
    ));
    for l in &d.links[1..8] {
        assert!(
            matches!(l.collisions[0].shape, Shape::Capsule { .. }),
            "{}",
            l.name
        );
        assert!(d.joints[d.link_id(&l.name).unwrap() - 1].damping > 0.0);
    }
}

#[test]
fn diffdrive_stands_level_on_its_wheels_and_caster() {
    let d = load_urdf(&robot_path("diffdrive.urdf"), &STRICT).unwrap();
    assert_eq!(d.links[0].name, "chassis");
    let x = d.zero_pose_frames();
    let mut lowest = Vec::new();
    for w in ["left_wheel", "right_wheel"] {
        let i = d.link_id(w).unwrap();
        assert_eq!(d.joints[i - 1].kind, JointKind::Continuous);
        let lim = d.joints[i - 1].limit.unwrap();
        assert!(lim.lower == f64::NEG_INFINITY && lim.upper == f64::INFINITY);
        assert!((d.joints[i - 1].axis - Vec3::y()).norm() < 1e-12);
        let Shape::Cylinder { radius, .. } = d.links[i].collisions[0].shape else {
            panic!("wheel is a cylinder")
        };
        // The wheel's cylinder axis lies along the joint axis (y).
        let c = &d.links[i].collisions[0];
        assert!(
            ((x[i] * c.origin).rotation * Vec3::z())
                .cross(&Vec3::y())
                .norm()
                < 1e-9
        );
        lowest.push(x[i].translation.z - radius);
    }
    let caster = d.links[0]
        .collisions
        .iter()
        .find(|c| c.name.as_deref() == Some("caster"))
        .unwrap();
    let Shape::Sphere { radius } = caster.shape else {
        panic!("caster is a sphere")
    };
    lowest.push(caster.origin.translation.z - radius);
    for z in &lowest {
        assert!((z + 0.1275).abs() < 1e-12, "{lowest:?}");
    }
    let fp = x[d.link_id("base_footprint").unwrap()].translation.vector;
    assert!((fp.z + 0.1275).abs() < 1e-12);
}

#[test]
fn humanoid_has_26_joints_and_soles_below_the_pelvis() {
    let d = load_urdf(&robot_path("humanoid.urdf"), &STRICT).unwrap();
    let moving: Vec<_> = d
        .joints
        .iter()
        .filter(|j| j.kind != JointKind::Fixed)
        .collect();
    assert_eq!(moving.len(), 26);
    assert!(moving.iter().all(|j| j.kind == JointKind::Revolute));
    let x = d.zero_pose_frames();
    for s in ["left_sole", "right_sole"] {
        let p = x[d.link_id(s).unwrap()].translation.vector;
        assert!((p.z + 0.90).abs() < 1e-12, "{s}: {p}");
    }
    let m = d.total_mass();
    assert!((35.0..=60.0).contains(&m), "{m}");
    // Box feet, capsule limbs.
    let foot = &d.links[d.link_id("left_foot").unwrap()];
    assert!(matches!(foot.collisions[0].shape, Shape::Box { .. }));
    let thigh = &d.links[d.link_id("right_thigh").unwrap()];
    assert!(matches!(thigh.collisions[0].shape, Shape::Capsule { .. }));
}

#[test]
fn links_out_of_file_order_come_out_in_topological_order() {
    let text = r#"<robot name="t">
  <joint name="j2" type="revolute"><parent link="b"/><child link="c"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="c"><inertial><mass value="3"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
  <joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>
  <link name="b"><inertial><mass value="2"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
  <link name="d"><inertial><mass value="4"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
  <link name="a"/>
  <joint name="j3" type="prismatic"><parent link="a"/><child link="d"/><axis xyz="0 0 2"/><limit lower="0" upper="1" effort="1" velocity="1"/></joint>
</robot>"#;
    let d = parse(text).unwrap();
    let names: Vec<&str> = d.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    let joints: Vec<&str> = d.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(joints, ["j1", "j2", "j3"]);
    check_tree(&d);
    assert_eq!(d.joints[2].axis, Vec3::z());
    assert_eq!(d.dof(), 2);
}

// ---------------------------------------------------------------- errors

#[test]
fn xml_syntax_error_names_the_line() {
    let text = "<robot name=\"t\">\n  <link name=\"a\">\n  </lnk>\n</robot>\n";
    let e = parse(text).unwrap_err();
    assert_eq!(e.kind, UrdfErrorKind::Xml);
    assert!(e.to_string().starts_with("bad.urdf:3: "), "{e}");
}

#[test]
fn missing_and_duplicate_names() {
    let text = "<robot name=\"t\">\n  <link/>\n</robot>\n";
    expect_error(
        text,
        UrdfErrorKind::MissingName,
        "<link/>",
        &["<link>"],
        "name",
    );

    let text = two_links("fixed", "", "").replace(
        "  <link name=\"b\">",
        "  <link name=\"a\"/>\n  <link name=\"b\">",
    );
    expect_error(
        &text,
        UrdfErrorKind::DuplicateName,
        "<link name=\"a\"/>",
        &["<link name=\"a\">"],
        "duplicate link name 'a' (first defined at line 2)",
    );

    let text = two_links("fixed", "", "").replace(
        "</robot>",
        "  <joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
    );
    let e = expect_error(
        &text,
        UrdfErrorKind::DuplicateName,
        "<joint name=\"j\" type=\"fixed\"><parent",
        &["<joint name=\"j\">"],
        "duplicate joint name 'j'",
    );
    assert!(e
        .message
        .contains(&format!("line {}", line_of(&text, "<joint name=\"j\""))));

    let text = two_links("fixed", "", "").replace("<joint name=\"j\"", "<joint");
    expect_error(
        &text,
        UrdfErrorKind::MissingName,
        "<joint type",
        &["<joint>"],
        "name",
    );
}

#[test]
fn joint_with_a_missing_parent_or_child_link() {
    let text =
        two_links("fixed", "", "").replace("<parent link=\"a\"/>", "<parent link=\"nope\"/>");
    expect_error(
        &text,
        UrdfErrorKind::MissingLink,
        "<parent link=\"nope\"/>",
        &["<joint name=\"j\">", "<parent>"],
        "parent link 'nope' of joint 'j' does not exist",
    );
    let text = two_links("fixed", "", "").replace("<child link=\"b\"/>", "<child link=\"zz\"/>");
    expect_error(
        &text,
        UrdfErrorKind::MissingLink,
        "<child link=\"zz\"/>",
        &["<joint name=\"j\">", "<child>"],
        "child link 'zz' of joint 'j' does not exist",
    );
}

#[test]
fn link_with_two_parents_cycles_and_several_roots() {
    let base = two_links("fixed", "", MASS_B);
    let text = base.replace(
        "</robot>",
        "  <link name=\"c\"/>\n  <joint name=\"k\" type=\"fixed\"><parent link=\"c\"/><child link=\"b\"/></joint>\n</robot>",
    );
    expect_error(
        &text,
        UrdfErrorKind::TwoParents,
        "<joint name=\"k\"",
        &["<joint name=\"k\">", "<child>"],
        "link 'b' has two parents: joint 'j'",
    );

    let text = base.replace(
        "</robot>",
        "  <link name=\"c\"/>\n  <joint name=\"k\" type=\"fixed\"><parent link=\"b\"/><child link=\"c\"/></joint>\n  <joint name=\"m\" type=\"fixed\"><parent link=\"c\"/><child link=\"a\"/></joint>\n</robot>",
    );
    let e = parse(&text).unwrap_err();
    assert_eq!(e.kind, UrdfErrorKind::Cycle, "{e}");
    let s = e.to_string();
    assert!(s.starts_with("bad.urdf:"), "{s}");
    for j in ["'j'", "'k'", "'m'"] {
        assert!(s.contains(j), "{s}");
    }
    // The line is that of one of the cycle's joints, and so is the element.
    let lines: Vec<usize> = [
        "<joint name=\"j\"",
        "<joint name=\"k\"",
        "<joint name=\"m\"",
    ]
    .iter()
    .map(|n| line_of(&text, n))
    .collect();
    assert!(lines.contains(&e.line.unwrap()), "{s}");
    assert!(e.element.starts_with("<joint name="), "{s}");

    let text = base.replace(
        "</robot>",
        "  <link name=\"c\"/>\n  <link name=\"d\"/>\n</robot>",
    );
    let e = expect_error(
        &text,
        UrdfErrorKind::Roots,
        "<link name=\"c\"/>",
        &["<robot>"],
        "3 separate trees",
    );
    for r in ["'a' (line 2)", "'c' (line", "'d' (line"] {
        assert!(e.message.contains(r), "{e}");
    }
}

#[test]
fn bad_masses_and_inertias() {
    for (value, msg) in [
        ("-1", "mass must be positive, got -1"),
        ("nan", "is not a finite number"),
        ("inf", "is not a finite number"),
        ("1e999", "is not a finite number"),
        ("heavy", "is not a number"),
    ] {
        let link = format!(
            "    <inertial>\n      <mass value=\"{value}\"/>\n      <inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/>\n    </inertial>"
        );
        let text = two_links("fixed", "", &link);
        let e = expect_error(
            &text,
            if msg.contains("positive") {
                UrdfErrorKind::MassProperties
            } else {
                UrdfErrorKind::Number
            },
            &format!("<mass value=\"{value}\""),
            &["<link name=\"b\">/<inertial>/<mass>"],
            msg,
        );
        assert_eq!(e.file, "bad.urdf");
    }
    // Zero mass with an inertia: an error; zero mass and zero inertia: a massless link.
    let link = "    <inertial>\n      <mass value=\"0\"/>\n      <inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/>\n    </inertial>";
    expect_error(
        &two_links("fixed", "", link),
        UrdfErrorKind::MassProperties,
        "<mass value=\"0\"",
        &["<link name=\"b\">/<inertial>/<mass>"],
        "mass must be positive, got 0",
    );
    let link = "    <inertial>\n      <mass value=\"0\"/>\n      <inertia ixx=\"0\" iyy=\"0\" izz=\"0\"/>\n    </inertial>";
    let d = parse(&two_links("fixed", "", link)).unwrap();
    assert!(d.links[1].inertial.is_none());
    assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
    assert!(d.warnings[0].contains("bad.urdf:7: <link name=\"b\">/<inertial>/<mass>"));

    for (inertia, msg) in [
        (r#"ixx="1" iyy="1" izz="-0.5""#, "negative principal moment"),
        (r#"ixx="1" iyy="1" izz="3""#, "triangle inequality"),
        (
            // Principal moments 0.1, 0.1, 2.1 (a rotated frame does not hide it).
            r#"ixx="1.1" ixy="1" iyy="1.1" izz="0.1""#,
            "triangle inequality",
        ),
        (r#"ixx="1" iyy="1""#, "missing attribute 'izz'"),
    ] {
        let link = format!(
            "    <inertial>\n      <mass value=\"2\"/>\n      <inertia {inertia}/>\n    </inertial>"
        );
        expect_error(
            &two_links("fixed", "", &link),
            if msg.contains("missing") {
                UrdfErrorKind::Structure
            } else {
                UrdfErrorKind::MassProperties
            },
            &format!("<inertia {inertia}"),
            &["<link name=\"b\">/<inertial>/<inertia>"],
            msg,
        );
    }
    // A thin rod written with rounded digits passes (the triangle inequality's tolerance).
    let link = "    <inertial><mass value=\"1\"/><inertia ixx=\"0.08333333\" iyy=\"0.0833333\" izz=\"0\"/></inertial>";
    assert!(parse(&two_links("fixed", "", link)).is_ok());
}

#[test]
fn malformed_triples() {
    for (origin, msg) in [
        (r#"<origin xyz="1 2"/>"#, "must be three numbers"),
        (r#"<origin xyz="1 2 3 4"/>"#, "must be three numbers"),
        (
            r#"<origin rpy="a 0 0"/>"#,
            "component 1 ('a') is not a finite number",
        ),
        (
            r#"<origin xyz="0 nan 0"/>"#,
            "component 2 ('nan') is not a finite number",
        ),
    ] {
        let text = two_links("fixed", &format!("    {origin}"), "");
        expect_error(
            &text,
            UrdfErrorKind::Number,
            "<origin",
            &["<joint name=\"j\">/<origin>"],
            msg,
        );
    }
    let link = "    <inertial>\n      <origin xyz=\"0 0\"/>\n      <mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/>\n    </inertial>";
    expect_error(
        &two_links("fixed", "", link),
        UrdfErrorKind::Number,
        "<origin",
        &["<link name=\"b\">/<inertial>/<origin>"],
        "xyz=\"0 0\"",
    );
}

#[test]
fn bad_limits_axes_and_joint_types() {
    let lim = |attrs: &str| format!("    <limit {attrs}/>");
    for (attrs, msg) in [
        (
            r#"lower="1" upper="-1" effort="1" velocity="1""#,
            "lower limit 1 > upper limit -1",
        ),
        (
            r#"lower="-1" upper="1" effort="-2" velocity="1""#,
            "effort limit must be ≥ 0, got -2",
        ),
        (
            r#"lower="-1" upper="1" effort="2" velocity="-3""#,
            "velocity limit must be ≥ 0, got -3",
        ),
    ] {
        let text = two_links("revolute", &lim(attrs), MASS_B);
        expect_error(
            &text,
            UrdfErrorKind::Limit,
            "<limit",
            &["<joint name=\"j\">/<limit>"],
            msg,
        );
    }
    let text = two_links(
        "prismatic",
        "    <dynamics damping=\"-0.1\"/>\n    <limit lower=\"0\" upper=\"1\" effort=\"1\" velocity=\"1\"/>",
        MASS_B,
    );
    expect_error(
        &text,
        UrdfErrorKind::Limit,
        "<dynamics",
        &["<joint name=\"j\">/<dynamics>"],
        "damping must be ≥ 0",
    );

    let text = two_links("continuous", "    <axis xyz=\"0 0 0\"/>", MASS_B);
    expect_error(
        &text,
        UrdfErrorKind::Axis,
        "<axis",
        &["<joint name=\"j\">/<axis>"],
        "the axis is zero",
    );

    let text = two_links("hinge", "", MASS_B);
    expect_error(
        &text,
        UrdfErrorKind::JointType,
        "type=\"hinge\"",
        &["<joint name=\"j\">"],
        "unknown joint type 'hinge'",
    );
    let text = two_links("planar", "", MASS_B);
    expect_error(
        &text,
        UrdfErrorKind::Unsupported,
        "type=\"planar\"",
        &["<joint name=\"j\">"],
        "joint 'j': type 'planar' is not supported",
    );
}

#[test]
fn massless_link_on_a_moving_joint_is_refused() {
    let text = two_links("continuous", "", "");
    expect_error(
        &text,
        UrdfErrorKind::Massless,
        "<link name=\"b\">",
        &["<link name=\"b\">"],
        "moved by continuous joint 'j'",
    );
    // Under a fixed joint it is a frame.
    let d = parse(&two_links("fixed", "", "")).unwrap();
    assert!(d.warnings.is_empty());
    assert!(d.links[1].inertial.is_none());
}

// ---------------------------------------------------------------- warnings, strict mode

#[test]
fn unknown_elements_warn_once_per_tag_and_strict_mode_refuses_them() {
    let text = two_links("fixed", "", MASS_B).replace(
        "</robot>",
        "  <gazebo reference=\"a\"><mu1>1</mu1></gazebo>\n  <gazebo reference=\"b\"/>\n  <transmission name=\"t1\"/>\n</robot>",
    );
    let d = parse(&text).unwrap();
    assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    let g = line_of(&text, "<gazebo reference=\"a\"");
    assert_eq!(
        d.warnings[0],
        format!("bad.urdf:{g}: <gazebo>: unknown element <gazebo> ignored (2 occurrences; the first is here)")
    );
    let t = line_of(&text, "<transmission");
    assert!(d.warnings[1].starts_with(&format!("bad.urdf:{t}: <transmission name=\"t1\">")));

    let e = parse_urdf(&text, Path::new("."), "bad.urdf", &STRICT).unwrap_err();
    assert_eq!(e.kind, UrdfErrorKind::Strict);
    assert!(
        e.to_string().contains(&format!("bad.urdf:{g}: <gazebo>")),
        "{e}"
    );
    assert!(e.to_string().contains("2 warning(s)"), "{e}");
}

#[test]
fn unknown_attributes_missing_limits_and_unsimulated_tags_warn() {
    let body = "    <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\" colour=\"red\"/>\n    <mimic joint=\"x\"/>\n    <safety_controller k_velocity=\"1\"/>";
    let d = parse(&two_links("revolute", body, MASS_B)).unwrap();
    assert_eq!(d.warnings.len(), 3, "{:?}", d.warnings);
    assert!(d.warnings[0].contains("unknown attribute 'colour'"));
    assert!(d.warnings[1].contains("<mimic> is not simulated"));
    assert!(d.warnings[2].contains("<safety_controller> is not simulated"));

    let text = two_links("revolute", "", MASS_B);
    let d = parse(&text).unwrap();
    assert!(d.joints[0].limit.is_none());
    assert_eq!(d.warnings.len(), 1);
    let j = line_of(&text, "<joint name=\"j\"");
    assert!(
        d.warnings[0].starts_with(&format!(
            "bad.urdf:{j}: <joint name=\"j\">: revolute joint 'j' has no <limit>"
        )),
        "{:?}",
        d.warnings
    );
    let e = parse_urdf(&text, Path::new("."), "bad.urdf", &STRICT).unwrap_err();
    assert_eq!(e.kind, UrdfErrorKind::Strict);

    // Effort and velocity left out: unbounded, with a warning each.
    let d = parse(&two_links(
        "prismatic",
        "    <limit lower=\"0\" upper=\"0.5\"/>",
        MASS_B,
    ))
    .unwrap();
    let l = d.joints[0].limit.unwrap();
    assert_eq!((l.lower, l.upper), (0.0, 0.5));
    assert!(l.effort.is_infinite() && l.velocity.is_infinite());
    assert_eq!(d.warnings.len(), 2);
}

// ---------------------------------------------------------------- meshes

fn mesh_link(filename: &str, scale: &str) -> String {
    format!(
        "{MASS_B}\n    <collision name=\"wedge\">\n      <geometry><mesh filename=\"{filename}\"{scale}/></geometry>\n    </collision>"
    )
}

fn extent(shape: &Shape) -> Vec3 {
    let Shape::Polytope(p) = shape else {
        panic!("mesh → polytope")
    };
    let mut lo = Vec3::repeat(f64::INFINITY);
    let mut hi = Vec3::repeat(f64::NEG_INFINITY);
    for v in &p.vertices {
        lo = lo.inf(v);
        hi = hi.sup(v);
    }
    hi - lo
}

#[test]
fn mesh_collisions_are_convex_hulls_of_the_file() {
    // config/meshes/wedge.obj: 0.2 × 0.12 × 0.08 m, six vertices.
    for filename in [
        "../meshes/wedge.obj",
        "package://meshes/wedge.obj",
        &format!(
            "file://{}",
            root().join("config/meshes/wedge.obj").display()
        ),
    ] {
        let d = parse(&two_links("fixed", "", &mesh_link(filename, "")))
            .unwrap_or_else(|e| panic!("{e}"));
        let shape = &d.links[1].collisions[0].shape;
        let Shape::Polytope(p) = shape else {
            panic!("polytope")
        };
        assert_eq!(p.vertices.len(), 6);
        assert!((extent(shape) - Vec3::new(0.2, 0.12, 0.08)).norm() < 1e-6);
        // Volume of the prism: ½ · 0.12 · 0.08 · 0.2.
        assert!((p.volume() - 0.5 * 0.12 * 0.08 * 0.2).abs() < 1e-9);
    }
    // Non-uniform and mirroring scale.
    let d = parse(&two_links(
        "fixed",
        "",
        &mesh_link("../meshes/wedge.obj", " scale=\"2 -1 0.5\""),
    ))
    .unwrap();
    let e = extent(&d.links[1].collisions[0].shape);
    assert!((e - Vec3::new(0.4, 0.12, 0.04)).norm() < 1e-6, "{e}");
}

#[test]
fn a_missing_mesh_names_the_resolved_path_and_an_unreadable_one_is_refused() {
    let text = two_links("fixed", "", &mesh_link("meshes/nothing.stl", ""));
    let resolved = root().join("config/robots").join("meshes/nothing.stl");
    let e = expect_error(
        &text,
        UrdfErrorKind::MeshNotFound,
        "<mesh",
        &["<link name=\"b\">/<collision name=\"wedge\">/<geometry>/<mesh>"],
        &format!("{} does not exist", resolved.display()),
    );
    assert!(e.message.contains("meshes/nothing.stl"));

    let text = two_links("fixed", "", &mesh_link("package://pkg_x/m.stl", ""));
    let e = parse(&text).unwrap_err();
    assert_eq!(e.kind, UrdfErrorKind::MeshNotFound);
    let tried = root().join("config/robots/pkg_x/m.stl");
    assert!(e.message.contains(&tried.display().to_string()), "{e}");

    // A file that exists but is not a mesh.
    let dir = std::env::temp_dir().join(format!("rtphys_urdf_test_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("junk.stl"), b"this is not an STL file").unwrap();
    std::fs::write(
        dir.join("flat.obj"),
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    )
    .unwrap();
    for (file, msg) in [("junk.stl", "unreadable"), ("flat.obj", "unreadable mesh")] {
        let text = two_links("fixed", "", &mesh_link(file, ""));
        let e = parse_urdf(&text, &dir, "bad.urdf", &LENIENT).unwrap_err();
        assert_eq!(e.kind, UrdfErrorKind::Mesh, "{e}");
        let s = e.to_string();
        assert!(
            s.starts_with(&format!("bad.urdf:{}: ", line_of(&text, "<mesh"))),
            "{s}"
        );
        assert!(s.contains(msg) && s.contains(file), "{s}");
    }
    std::fs::remove_dir_all(&dir).ok();

    // Missing file at the top: the path is named.
    let e = load_urdf(Path::new("/nonexistent/robot.urdf"), &LENIENT).unwrap_err();
    assert_eq!(e.kind, UrdfErrorKind::Io);
    assert!(
        e.to_string().starts_with("/nonexistent/robot.urdf: "),
        "{e}"
    );
}

#[test]
fn bad_geometry_is_refused() {
    for (geom, msg) in [
        ("<box size=\"1 0 1\"/>", "box sizes must be positive"),
        ("<sphere radius=\"-1\"/>", "sphere radius"),
        ("<cylinder radius=\"0.1\"/>", "missing attribute 'length'"),
        ("", "must hold one of"),
    ] {
        let link = format!(
            "{MASS_B}\n    <collision>\n      <geometry>{geom}</geometry>\n    </collision>"
        );
        let text = two_links("fixed", "", &link);
        let e = parse(&text).unwrap_err();
        let s = e.to_string();
        assert!(
            s.starts_with(&format!(
                "bad.urdf:{}: <link name=\"b\">/<collision>/<geometry>",
                line_of(&text, "<geometry>")
            )),
            "{s}"
        );
        assert!(s.contains(msg), "{s}");
    }
}

// ---------------------------------------------------------------- lumping fixed joints

/// Mass, centre of mass and inertia about it (root axes) of the whole robot at q = 0.
fn whole_body(d: &RobotDescription) -> (f64, Vec3, Mat3) {
    let x = d.zero_pose_frames();
    let mut parts = Vec::new();
    for (i, l) in d.links.iter().enumerate() {
        if let Some(inr) = &l.inertial {
            let x_c = x[i] * inr.origin;
            let r = x_c.rotation.to_rotation_matrix();
            parts.push((
                inr.mass,
                x_c.translation.vector,
                r.matrix() * inr.inertia * r.matrix().transpose(),
            ));
        }
    }
    let m: f64 = parts.iter().map(|p| p.0).sum();
    let c = parts.iter().map(|p| p.1 * p.0).sum::<Vec3>() / m;
    let mut inertia = Mat3::zeros();
    for (mk, ck, ik) in &parts {
        let dk = ck - c;
        inertia += ik + (Mat3::identity() * dk.dot(&dk) - dk * dk.transpose()) * *mk;
    }
    (m, c, inertia)
}

#[test]
fn lumping_a_fixed_link_by_hand() {
    // A: 2 kg at its origin, I = diag(1, 2, 3). B on a fixed joint at x = 1 m, turned
    // 90° about z, 1 kg, I = diag(0.1, 0.2, 0.3) in B's axes (= diag(0.2, 0.1, 0.3) in
    // A's). C on a revolute joint after B.
    let text = r#"<robot name="t">
  <link name="a"><inertial><mass value="2"/><inertia ixx="1" iyy="2" izz="3"/></inertial>
    <collision><origin xyz="0 0 0"/><geometry><sphere radius="0.1"/></geometry></collision></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.2" izz="0.3"/></inertial>
    <collision><origin xyz="0.5 0 0"/><geometry><sphere radius="0.2"/></geometry></collision></link>
  <link name="c"><inertial><origin xyz="0 0 -0.5"/><mass value="1.5"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial></link>
  <link name="tip"/>
  <joint name="ab" type="fixed"><parent link="a"/><child link="b"/><origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/></joint>
  <joint name="bc" type="revolute"><parent link="b"/><child link="c"/><origin xyz="0 2 0"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="ctip" type="fixed"><parent link="c"/><child link="tip"/><origin xyz="0 0 -1"/></joint>
</robot>"#;
    let d = parse(text).unwrap();
    let l = d.lump_fixed();
    let names: Vec<&str> = l.links.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["a", "c"]);
    assert_eq!(l.joints.len(), 1);
    assert_eq!((l.joints[0].parent, l.joints[0].child), (0, 1));
    check_tree(&l);

    // By hand: m = 3, c = (2·0 + 1·1)/3 = 1/3 along x; d_A = −1/3, d_B = 2/3;
    // parallel-axis terms m d² on y and z: 2/9 + 4/9 = 2/3.
    let a = l.links[0].inertial.unwrap();
    assert!((a.mass - 3.0).abs() < 1e-15);
    assert!((a.com() - Vec3::new(1.0 / 3.0, 0.0, 0.0)).norm() < 1e-14);
    let expected = Mat3::from_diagonal(&Vec3::new(1.2, 2.1 + 2.0 / 3.0, 3.3 + 2.0 / 3.0));
    assert!(
        (a.inertia_in_link_axes() - expected).abs().max() < 1e-12,
        "{}",
        a.inertia_in_link_axes()
    );
    // C keeps its own numbers; its joint now starts from A: B's origin then (0, 2, 0)
    // in B's turned axes = (−2, 0, 0) in A's, so at (1 − 2, 0, 0).
    assert_eq!(
        l.links[1].inertial,
        d.links[d.link_id("c").unwrap()].inertial
    );
    assert!((l.joints[0].origin.translation.vector - Vec3::new(-1.0, 0.0, 0.0)).norm() < 1e-12);
    // The collision of B is re-expressed: (0.5, 0, 0) in B = (1, 0.5, 0) in A.
    assert_eq!(l.links[0].collisions.len(), 2);
    assert!(
        (l.links[0].collisions[1].origin.translation.vector - Vec3::new(1.0, 0.5, 0.0)).norm()
            < 1e-12
    );
    // Frames: b on a, tip on c.
    let fb = &l.frames[l.frame_id("b").unwrap()];
    assert_eq!(fb.link, 0);
    assert!((fb.pose.translation.vector - Vec3::new(1.0, 0.0, 0.0)).norm() < 1e-15);
    let ft = &l.frames[l.frame_id("tip").unwrap()];
    assert_eq!(ft.link, 1);
    assert!((ft.pose.translation.vector - Vec3::new(0.0, 0.0, -1.0)).norm() < 1e-15);

    // The whole body is unchanged.
    let (m0, c0, i0) = whole_body(&d);
    let (m1, c1, i1) = whole_body(&l);
    assert!((m0 - m1).abs() < 1e-12 && (c0 - c1).norm() < 1e-12 && (i0 - i1).abs().max() < 1e-12);
}

#[test]
fn lumping_the_shipped_robots_keeps_mass_com_inertia_and_frames() {
    for (file, frames) in [
        ("arm7.urdf", vec!["tool0"]),
        ("diffdrive.urdf", vec!["base_footprint"]),
        ("humanoid.urdf", vec!["imu_link", "left_sole", "right_sole"]),
    ] {
        let d = load_urdf(&robot_path(file), &STRICT).unwrap();
        let l = d.lump_fixed();
        check_tree(&l);
        assert_eq!(l.dof(), d.dof());
        assert_eq!(l.links.len(), d.links.len() - frames.len());
        assert!(l.links.iter().all(|k| k.inertial.is_some()), "{file}");
        let mut names: Vec<&str> = l.frames.iter().map(|f| f.name.as_str()).collect();
        names.sort();
        assert_eq!(names, frames, "{file}");
        let (m0, c0, i0) = whole_body(&d);
        let (m1, c1, i1) = whole_body(&l);
        assert!((m0 - m1).abs() < 1e-12, "{file}");
        assert!((c0 - c1).norm() < 1e-12, "{file}");
        assert!((i0 - i1).abs().max() < 1e-12, "{file}");
        // Every frame sits where its link was.
        let x0 = d.zero_pose_frames();
        let x1 = l.zero_pose_frames();
        for f in &l.frames {
            let was: Pose = x0[d.link_id(&f.name).unwrap()];
            let now: Pose = x1[f.link] * f.pose;
            assert!((was.translation.vector - now.translation.vector).norm() < 1e-12);
            assert!(was.rotation.angle_to(&now.rotation) < 1e-12);
        }
    }
}

// ---------------------------------------------------------------- robustness

#[test]
fn truncated_and_garbled_files_give_errors_not_panics() {
    for file in ["arm7.urdf", "diffdrive.urdf", "humanoid.urdf"] {
        let text = std::fs::read_to_string(robot_path(file)).unwrap();
        let dir = root().join("config/robots");
        // Every truncation point (on a character boundary, every 23 bytes): an
        // error naming the file, never a panic.
        let end = text.rfind("</robot>").unwrap() + "</robot>".len();
        for cut in (0..end).step_by(23) {
            if !text.is_char_boundary(cut) {
                continue;
            }
            match parse_urdf(&text[..cut], &dir, file, &LENIENT) {
                Ok(_) => panic!("{file} cut at byte {cut} loaded"),
                Err(e) => assert!(e.to_string().starts_with(file), "{e}"),
            }
        }
        // Digits replaced one at a time by characters a number cannot hold.
        let bytes = text.as_bytes();
        for (k, i) in (0..bytes.len())
            .filter(|&i| bytes[i].is_ascii_digit())
            .enumerate()
        {
            if k % 11 != 0 {
                continue;
            }
            for bad in ["-", "x", "e9999", " "] {
                let garbled = format!("{}{bad}{}", &text[..i], &text[i + 1..]);
                if let Err(e) = parse_urdf(&garbled, &dir, file, &LENIENT) {
                    assert!(e.to_string().starts_with(&format!("{file}:")), "{e}");
                }
            }
        }
    }
}

/// The shipped robots' inertias are those their headers state: the uniform solid
/// of the collision shape (capsule as the cylinder of its overall length), centred
/// and aligned with it.
#[test]
fn shipped_inertias_are_uniform_solids_of_their_collision_shapes() {
    let mut checked = 0;
    for file in ["arm7.urdf", "diffdrive.urdf", "humanoid.urdf"] {
        let d = load_urdf(&robot_path(file), &STRICT).unwrap();
        for l in &d.links {
            let (Some(inr), Some(c)) = (l.inertial, l.collisions.first()) else {
                continue;
            };
            let m = inr.mass;
            let expected = match &c.shape {
                Shape::Capsule {
                    radius,
                    half_length,
                } => {
                    let len = 2.0 * half_length + 2.0 * radius;
                    let t = m * (3.0 * radius * radius + len * len) / 12.0;
                    Vec3::new(t, t, m * radius * radius / 2.0)
                }
                Shape::Cylinder {
                    radius,
                    half_length,
                } => {
                    let len = 2.0 * half_length;
                    let t = m * (3.0 * radius * radius + len * len) / 12.0;
                    Vec3::new(t, t, m * radius * radius / 2.0)
                }
                Shape::Box { half, .. } => {
                    let s = half * 2.0;
                    Vec3::new(
                        s.y * s.y + s.z * s.z,
                        s.x * s.x + s.z * s.z,
                        s.x * s.x + s.y * s.y,
                    ) * (m / 12.0)
                }
                Shape::Sphere { radius } => Vec3::repeat(0.4 * m * radius * radius),
                _ => continue,
            };
            // The COM frame is the collision frame; the file prints 10 digits.
            assert!(
                (inr.com() - c.origin.translation.vector).norm() < 1e-12,
                "{file}: {}",
                l.name
            );
            assert!(inr.origin.rotation.angle_to(&c.origin.rotation) < 1e-9);
            let err = (inr.inertia - Mat3::from_diagonal(&expected)).abs().max();
            assert!(err < 1e-9 * expected.max(), "{file}: {}: {err:e}", l.name);
            checked += 1;
        }
    }
    // 8 arm links, chassis and 2 wheels, torso, head, 2 × (upper arm, forearm, hand,
    // thigh, shank, foot).
    assert_eq!(checked, 8 + 3 + 2 + 12);
}
