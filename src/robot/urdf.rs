//! URDF files → [`RobotDescription`], with errors that name the file, the line,
//! the element (with its `name` attribute) and what is wrong:
//!
//! ```text
//! arm.urdf:42: <link name="link3">/<inertial>/<mass>: mass must be positive, got -1
//! ```
//!
//! XML is read with `roxmltree`, which keeps the position of every element and
//! attribute. What is read (the URDF specification, wiki.ros.org/urdf/XML):
//!
//! | element | read | notes |
//! |---|---|---|
//! | `<robot name>` | name | a missing name is a warning (the file stem is used) |
//! | `<link name>` | `<inertial>`, `<collision>`* | `<visual>` is accepted and ignored |
//! | `<inertial>` | `<origin xyz rpy>`, `<mass value>`, `<inertia ixx ixy ixz iyy iyz izz>` | inertia about the COM in the `<origin>` frame; `ixx iyy izz` required, products default to 0 |
//! | `<collision name>` | `<origin>`, `<geometry>` with one of `<box size>`, `<sphere radius>`, `<cylinder radius length>`, `<capsule radius length>`, `<mesh filename scale>` | capsule is an extension: `length` is the distance between the centres of the two caps; a mesh is the convex hull of its vertices (STL or OBJ) |
//! | `<joint name type>` | `<parent link>`, `<child link>`, `<origin>`, `<axis xyz>`, `<limit lower upper effort velocity>`, `<dynamics damping friction>` | `mimic`, `calibration`, `safety_controller`: warning, not simulated |
//! | `<material>`, `<visual>` | ignored | |
//! | anything else (`<gazebo>`, `<transmission>`, …) | warning, once per tag name | |
//!
//! Decisions where the specification is silent or strict:
//! - **Missing `<limit>` on a revolute or prismatic joint** (required by the
//!   specification): a warning; the joint is unlimited (`limit = None`). A
//!   `<limit>` without `effort` or `velocity`: a warning; that bound is `+∞`.
//!   Without `lower` and `upper`: a warning; the specification's default 0 is
//!   kept (the joint is held at 0 by its limits).
//! - **Continuous joints**: `lower`/`upper` are ignored (±∞).
//! - **Massless links** (no `<inertial>`): allowed for the root and for links
//!   attached by a `fixed` joint (frames such as `tool0`, `imu_link`,
//!   `base_footprint`); an error otherwise. `<mass value="0">` with a zero
//!   inertia is read as massless, with a warning; a zero mass with a non-zero
//!   inertia is an error.
//! - **Inertia**: principal moments must be ≥ −ε and obey the triangle
//!   inequality `I₁ + I₂ ≥ I₃ − ε`, with ε = 1e-6 × trace (files print a few
//!   digits; a thin rod written as `0.0833 0.0833 0` must pass).
//! - **`package://pkg/path`** is looked up, for the URDF's directory and each
//!   of its ancestors `A`, as `A/pkg/path`, and as `A/path` when `A` is called `pkg`.
//!   `file:///abs/path` is an absolute path; other paths are relative to the
//!   URDF's directory.
//! - **Mesh `scale`** may be non-uniform or mirror (negative); a zero component
//!   is an error.
//! - **Strict mode** (`UrdfOptions { strict: true }`): the first warning is an error.

use super::description::{
    CollisionDesc, Inertial, JointDesc, JointKind, JointLimit, LinkDesc, RobotDescription,
};
use crate::collision::{mesh, ConvexPolytope, Shape};
use crate::math::{Mat3, Pose, Quat, Vec3};
use roxmltree::Node;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How forgiving the loader is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UrdfOptions {
    /// Every warning (unknown element or attribute, missing limit, …) is an error.
    pub strict: bool,
}

/// What kind of problem a [`UrdfError`] reports (for programs; people read the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UrdfErrorKind {
    /// The file could not be read.
    Io,
    /// XML syntax.
    Xml,
    /// A required element or attribute is missing, or appears twice.
    Structure,
    /// A link or joint without a name.
    MissingName,
    /// Two links (or two joints) with the same name.
    DuplicateName,
    /// A joint's parent or child link does not exist.
    MissingLink,
    /// A link is the child of two joints.
    TwoParents,
    /// The joints form a cycle.
    Cycle,
    /// More than one link has no parent (or there is no link at all).
    Roots,
    /// A malformed or non-finite number, or a malformed triple.
    Number,
    /// Non-positive mass, or an inertia that no body can have.
    MassProperties,
    /// A massless link that is moved by a non-fixed joint.
    Massless,
    /// A zero joint axis.
    Axis,
    /// Joint limits or dynamics out of range (lower > upper, negative effort, …).
    Limit,
    /// An unknown joint type.
    JointType,
    /// A valid URDF feature that is not simulated (the `planar` joint).
    Unsupported,
    /// A collision geometry with invalid sizes, or none.
    Geometry,
    /// A mesh file that does not exist (the message gives the resolved path).
    MeshNotFound,
    /// A mesh file that cannot be read or has no volume.
    Mesh,
    /// A warning turned into an error by strict mode.
    Strict,
}

/// A URDF file that could not be loaded: where, which element, and what is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{file}{}: {element}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct UrdfError {
    pub kind: UrdfErrorKind,
    pub file: String,
    /// 1-based line, where known.
    pub line: Option<usize>,
    /// The element, as a path of tags with their `name` attributes:
    /// `<link name="l3">/<inertial>/<mass>` (`<robot>` when the file as a whole is at fault).
    pub element: String,
    pub message: String,
}

/// Read and check the URDF file at `path`. Meshes are resolved relative to its directory.
pub fn load_urdf(path: &Path, opts: &UrdfOptions) -> Result<RobotDescription, UrdfError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| UrdfError {
        kind: UrdfErrorKind::Io,
        file: file.clone(),
        line: None,
        element: "<robot>".into(),
        message: format!("cannot read the file: {e}"),
    })?;
    let base_dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut desc = parse_urdf(&text, base_dir, &file, opts)?;
    desc.source = path.to_path_buf();
    Ok(desc)
}

/// Check URDF `text`; `base_dir` resolves mesh file names, `source_name` names the
/// file in errors and warnings.
pub fn parse_urdf(
    text: &str,
    base_dir: &Path,
    source_name: &str,
    opts: &UrdfOptions,
) -> Result<RobotDescription, UrdfError> {
    let mut cx = Cx::new(text, base_dir, source_name);
    let doc = roxmltree::Document::parse(text).map_err(|e| UrdfError {
        kind: UrdfErrorKind::Xml,
        file: source_name.to_string(),
        line: Some(e.pos().row as usize),
        element: "<robot>".into(),
        message: format!("XML syntax: {e}"),
    })?;
    let mut desc = read_robot(&mut cx, doc.root_element())?;
    let warnings = cx.finish_warnings();
    if opts.strict {
        if let Some(first) = warnings.first() {
            return Err(UrdfError {
                kind: UrdfErrorKind::Strict,
                file: source_name.to_string(),
                line: Some(first.line),
                element: first.element.clone(),
                message: format!(
                    "{} (strict mode: every warning is an error; {} warning(s) in total)",
                    first.message,
                    warnings.len()
                ),
            });
        }
    }
    desc.warnings = warnings
        .iter()
        .map(|w| format!("{}:{}: {}: {}", source_name, w.line, w.element, w.message))
        .collect();
    Ok(desc)
}

/// A warning before formatting: where and what.
struct Warning {
    line: usize,
    element: String,
    message: String,
}

/// Parsing context: the file name, line index, mesh directory and warnings so far.
struct Cx<'t> {
    file: String,
    /// Byte offset of the start of every line.
    line_starts: Vec<usize>,
    base_dir: PathBuf,
    text: &'t str,
    /// In the order raised.
    warnings: Vec<Warning>,
    /// Unknown elements by tag name: (tag, first line, element label, count).
    unknown: Vec<(String, usize, String, usize)>,
}

type R<T> = Result<T, UrdfError>;

impl<'t> Cx<'t> {
    fn new(text: &'t str, base_dir: &Path, file: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Cx {
            file: file.to_string(),
            line_starts,
            base_dir: base_dir.to_path_buf(),
            text,
            warnings: Vec::new(),
            unknown: Vec::new(),
        }
    }

    fn line_of(&self, byte: usize) -> usize {
        debug_assert!(byte <= self.text.len());
        self.line_starts.partition_point(|&s| s <= byte)
    }

    fn line(&self, node: Node) -> usize {
        self.line_of(node.range().start)
    }

    /// Line of attribute `attr` of `node` (the element's line if absent).
    fn attr_line(&self, node: Node, attr: &str) -> usize {
        node.attribute_node(attr)
            .map(|a| self.line_of(a.range().start))
            .unwrap_or_else(|| self.line(node))
    }

    fn err(&self, kind: UrdfErrorKind, node: Node, line: usize, message: String) -> UrdfError {
        UrdfError {
            kind,
            file: self.file.clone(),
            line: Some(line),
            element: label(node),
            message,
        }
    }

    fn err_at(&self, kind: UrdfErrorKind, node: Node, message: String) -> UrdfError {
        self.err(kind, node, self.line(node), message)
    }

    fn warn(&mut self, node: Node, message: String) {
        self.warnings.push(Warning {
            line: self.line(node),
            element: label(node),
            message,
        });
    }

    /// An element that is not read: one warning per tag name.
    fn unknown_element(&mut self, node: Node) {
        let tag = qualified_tag(node);
        if let Some(u) = self.unknown.iter_mut().find(|u| u.0 == tag) {
            u.3 += 1;
            return;
        }
        let line = self.line(node);
        self.unknown.push((tag, line, label(node), 1));
    }

    /// Warn about attributes of `node` not in `known`.
    fn check_attrs(&mut self, node: Node, known: &[&str]) {
        for a in node.attributes() {
            let name = match a.namespace().and_then(|ns| node.lookup_prefix(ns)) {
                Some(prefix) if !prefix.is_empty() => format!("{prefix}:{}", a.name()),
                _ => a.name().to_string(),
            };
            if a.namespace().is_some() || !known.contains(&a.name()) {
                self.warnings.push(Warning {
                    line: self.line_of(a.range().start),
                    element: label(node),
                    message: format!("unknown attribute '{name}' ignored"),
                });
            }
        }
    }

    /// Element children of `node`; those not in `known` (nor in `ignored`) are warned about.
    fn children<'a, 'i>(
        &mut self,
        node: Node<'a, 'i>,
        known: &[&str],
        ignored: &[&str],
    ) -> Vec<Node<'a, 'i>> {
        let mut out = Vec::new();
        for c in node.children().filter(|c| c.is_element()) {
            let tag = c.tag_name().name();
            if c.tag_name().namespace().is_none() && known.contains(&tag) {
                out.push(c);
            } else if !(c.tag_name().namespace().is_none() && ignored.contains(&tag)) {
                self.unknown_element(c);
            }
        }
        out
    }

    /// All warnings, in line order (unknown elements once per tag name, at the first).
    fn finish_warnings(&mut self) -> Vec<Warning> {
        let mut all = std::mem::take(&mut self.warnings);
        for (tag, line, element, count) in self.unknown.drain(..) {
            let more = if count > 1 {
                format!(" ({count} occurrences; the first is here)")
            } else {
                String::new()
            };
            all.push(Warning {
                line,
                element,
                message: format!("unknown element <{tag}> ignored{more}"),
            });
        }
        all.sort_by_key(|w| w.line);
        all
    }

    // ----- numbers -----

    /// Optional finite number in attribute `attr`.
    fn num(&self, node: Node, attr: &str) -> R<Option<f64>> {
        let Some(s) = node.attribute(attr) else {
            return Ok(None);
        };
        let line = self.attr_line(node, attr);
        match s.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v.abs() <= max_magnitude(attr) => Ok(Some(v)),
            Ok(v) if v.is_finite() => Err(self.err(
                UrdfErrorKind::Number,
                node,
                line,
                format!(
                    "{attr}=\"{s}\" is out of range: |{attr}| ≤ {:e}",
                    max_magnitude(attr)
                ),
            )),
            Ok(_) => Err(self.err(
                UrdfErrorKind::Number,
                node,
                line,
                format!("{attr}=\"{s}\" is not a finite number"),
            )),
            Err(_) => Err(self.err(
                UrdfErrorKind::Number,
                node,
                line,
                format!("{attr}=\"{s}\" is not a number"),
            )),
        }
    }

    /// Required finite number in attribute `attr`.
    fn req_num(&self, node: Node, attr: &str) -> R<f64> {
        self.num(node, attr)?.ok_or_else(|| {
            self.err_at(
                UrdfErrorKind::Structure,
                node,
                format!("missing attribute '{attr}'"),
            )
        })
    }

    /// Optional triple of finite numbers ("x y z") in attribute `attr`.
    fn triple(&self, node: Node, attr: &str) -> R<Option<Vec3>> {
        let Some(s) = node.attribute(attr) else {
            return Ok(None);
        };
        let line = self.attr_line(node, attr);
        let parts: Vec<&str> = s.split_whitespace().collect();
        if parts.len() != 3 {
            return Err(self.err(
                UrdfErrorKind::Number,
                node,
                line,
                format!(
                    "{attr}=\"{s}\" must be three numbers separated by spaces, found {} value(s)",
                    parts.len()
                ),
            ));
        }
        let mut v = Vec3::zeros();
        for (k, p) in parts.iter().enumerate() {
            match p.parse::<f64>() {
                Ok(x) if x.is_finite() && x.abs() <= MAX_LENGTH => v[k] = x,
                Ok(x) if x.is_finite() => {
                    return Err(self.err(
                        UrdfErrorKind::Number,
                        node,
                        line,
                        format!(
                        "{attr}=\"{s}\": component {} ('{p}') is out of range: ≤ {MAX_LENGTH:e}",
                        k + 1
                    ),
                    ))
                }
                _ => {
                    return Err(self.err(
                        UrdfErrorKind::Number,
                        node,
                        line,
                        format!(
                            "{attr}=\"{s}\": component {} ('{p}') is not a finite number",
                            k + 1
                        ),
                    ))
                }
            }
        }
        Ok(Some(v))
    }

    /// `<origin xyz rpy>` among the children (identity if absent). URDF's rpy are
    /// fixed-axis X, Y, Z rotations: R = Rz(yaw) Ry(pitch) Rx(roll).
    fn origin(&mut self, parent: Node) -> R<Pose> {
        let mut found: Option<Node> = None;
        for c in parent
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "origin")
        {
            if found.is_some() {
                return Err(self.err_at(
                    UrdfErrorKind::Structure,
                    c,
                    "more than one <origin>".into(),
                ));
            }
            found = Some(c);
        }
        let Some(o) = found else {
            return Ok(Pose::identity());
        };
        self.check_attrs(o, &["xyz", "rpy"]);
        for c in o.children().filter(|c| c.is_element()) {
            self.unknown_element(c);
        }
        let xyz = self.triple(o, "xyz")?.unwrap_or_else(Vec3::zeros);
        let rpy = self.triple(o, "rpy")?.unwrap_or_else(Vec3::zeros);
        Ok(Pose::from_parts(
            xyz.into(),
            Quat::from_euler_angles(rpy.x, rpy.y, rpy.z),
        ))
    }
}

/// `<tag name="x">` for every ancestor below `<robot>`, joined by `/`.
fn label(node: Node) -> String {
    let mut parts: Vec<String> = node
        .ancestors()
        .filter(|n| n.is_element())
        .take_while(|n| !(n.tag_name().name() == "robot" && n.parent_element().is_none()))
        .map(|n| match n.attribute("name") {
            Some(name) => format!("<{} name=\"{}\">", qualified_tag(n), name),
            None => format!("<{}>", qualified_tag(n)),
        })
        .collect();
    if parts.is_empty() {
        return match node.attribute("name") {
            Some(name) => format!("<{} name=\"{}\">", qualified_tag(node), name),
            None => format!("<{}>", qualified_tag(node)),
        };
    }
    parts.reverse();
    parts.join("/")
}

/// The tag as written in the file, with its namespace prefix if any (`xacro:macro`).
fn qualified_tag(node: Node) -> String {
    match node.tag_name().namespace() {
        Some(ns) => match node.lookup_prefix(ns) {
            Some(p) if !p.is_empty() => format!("{p}:{}", node.tag_name().name()),
            _ => node.tag_name().name().to_string(),
        },
        None => node.tag_name().name().to_string(),
    }
}

/// The only child element called `tag`, if any (a second one is an error).
fn single_child<'a, 'i>(cx: &Cx, nodes: &[Node<'a, 'i>], tag: &str) -> R<Option<Node<'a, 'i>>> {
    let mut it = nodes.iter().filter(|c| c.tag_name().name() == tag);
    let first = it.next().copied();
    if let Some(second) = it.next() {
        return Err(cx.err_at(
            UrdfErrorKind::Structure,
            *second,
            format!("more than one <{tag}>"),
        ));
    }
    Ok(first)
}

/// A joint as read, before link names are resolved.
struct RawJoint<'a, 'i> {
    node: Node<'a, 'i>,
    name: String,
    kind: JointKind,
    parent: (String, Node<'a, 'i>),
    child: (String, Node<'a, 'i>),
    origin: Pose,
    axis: Vec3,
    limit: Option<JointLimit>,
    damping: f64,
    friction: f64,
}

fn read_robot(cx: &mut Cx, robot: Node) -> R<RobotDescription> {
    if robot.tag_name().name() != "robot" {
        return Err(cx.err_at(
            UrdfErrorKind::Structure,
            robot,
            format!(
                "the root element must be <robot>, found <{}>",
                qualified_tag(robot)
            ),
        ));
    }
    cx.check_attrs(robot, &["name", "version"]);
    let name = match robot.attribute("name") {
        Some(n) if !n.trim().is_empty() => n.to_string(),
        _ => {
            cx.warn(robot, "<robot> has no name; the file name is used".into());
            Path::new(&cx.file)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        }
    };

    let mut links: Vec<(LinkDesc, Node)> = Vec::new();
    let mut raw_joints: Vec<RawJoint> = Vec::new();
    for c in cx.children(robot, &["link", "joint"], &["material"]) {
        match c.tag_name().name() {
            "link" => {
                let l = read_link(cx, c)?;
                if let Some((_, other)) = links.iter().find(|(o, _)| o.name == l.name) {
                    return Err(cx.err_at(
                        UrdfErrorKind::DuplicateName,
                        c,
                        format!(
                            "duplicate link name '{}' (first defined at line {})",
                            l.name,
                            cx.line(*other)
                        ),
                    ));
                }
                links.push((l, c));
            }
            _ => {
                let j = read_joint(cx, c)?;
                if let Some(other) = raw_joints.iter().find(|o| o.name == j.name) {
                    return Err(cx.err_at(
                        UrdfErrorKind::DuplicateName,
                        c,
                        format!(
                            "duplicate joint name '{}' (first defined at line {})",
                            j.name,
                            cx.line(other.node)
                        ),
                    ));
                }
                raw_joints.push(j);
            }
        }
    }
    if links.is_empty() {
        return Err(cx.err_at(
            UrdfErrorKind::Roots,
            robot,
            "the robot has no <link>".into(),
        ));
    }

    // Resolve link names; one parent per link.
    let n = links.len();
    let find = |name: &str| links.iter().position(|(l, _)| l.name == name);
    // parent_joint[i]: the joint whose child is link i.
    let mut parent_joint: Vec<Option<usize>> = vec![None; n];
    let mut ends: Vec<(usize, usize)> = Vec::with_capacity(raw_joints.len());
    for (ji, j) in raw_joints.iter().enumerate() {
        let mut idx = [0usize; 2];
        for (k, (lname, lnode)) in [&j.parent, &j.child].into_iter().enumerate() {
            idx[k] = find(lname).ok_or_else(|| {
                cx.err_at(
                    UrdfErrorKind::MissingLink,
                    *lnode,
                    format!(
                        "{} link '{}' of joint '{}' does not exist",
                        ["parent", "child"][k],
                        lname,
                        j.name
                    ),
                )
            })?;
        }
        let (p, c) = (idx[0], idx[1]);
        if let Some(other) = parent_joint[c] {
            let o = &raw_joints[other];
            return Err(cx.err_at(
                UrdfErrorKind::TwoParents,
                j.child.1,
                format!(
                    "link '{}' has two parents: joint '{}' (line {}) attaches it to '{}', joint '{}' to '{}'",
                    j.child.0,
                    o.name,
                    cx.line(o.node),
                    o.parent.0,
                    j.name,
                    j.parent.0
                ),
            ));
        }
        parent_joint[c] = Some(ji);
        ends.push((p, c));
    }

    // Cycles: follow parents from every link; more than n steps means a loop.
    for start in 0..n {
        let mut cur = start;
        let mut steps = 0;
        while let Some(ji) = parent_joint[cur] {
            cur = ends[ji].0;
            steps += 1;
            if steps > n {
                // `cur` is on the cycle: list it once around.
                let mut names = Vec::new();
                let on = cur;
                let mut at = on;
                let mut guard = 0;
                while let Some(jj) = parent_joint[at] {
                    names.push(format!(
                        "'{}' (line {})",
                        raw_joints[jj].name,
                        cx.line(raw_joints[jj].node)
                    ));
                    at = ends[jj].0;
                    guard += 1;
                    if at == on || guard > n {
                        break;
                    }
                }
                names.reverse();
                let jj = parent_joint[on].unwrap_or(0);
                return Err(cx.err_at(
                    UrdfErrorKind::Cycle,
                    raw_joints[jj].node,
                    format!(
                        "the joints form a cycle through link '{}': {}",
                        links[on].0.name,
                        names.join(" → ")
                    ),
                ));
            }
        }
    }

    // Exactly one root.
    let roots: Vec<usize> = (0..n).filter(|&i| parent_joint[i].is_none()).collect();
    if roots.len() != 1 {
        let list: Vec<String> = roots
            .iter()
            .map(|&i| format!("'{}' (line {})", links[i].0.name, cx.line(links[i].1)))
            .collect();
        return Err(UrdfError {
            kind: UrdfErrorKind::Roots,
            file: cx.file.clone(),
            line: roots.get(1).map(|&i| cx.line(links[i].1)),
            element: "<robot>".into(),
            message: format!(
                "the links form {} separate trees (a robot is one tree); roots: {}",
                roots.len(),
                list.join(", ")
            ),
        });
    }
    let root = roots[0];

    // Topological order: depth-first pre-order from the root, children in file order.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(p, c) in &ends {
        children[p].push(c);
    }
    let mut order = Vec::with_capacity(n);
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        order.push(i);
        for &c in children[i].iter().rev() {
            stack.push(c);
        }
    }
    let mut new_index = vec![usize::MAX; n];
    for (k, &i) in order.iter().enumerate() {
        new_index[i] = k;
    }

    // Massless links must be frames (under a fixed joint) or the root.
    for &i in &order {
        if links[i].0.inertial.is_none() {
            if let Some(ji) = parent_joint[i] {
                let j = &raw_joints[ji];
                if j.kind != JointKind::Fixed {
                    return Err(cx.err_at(
                        UrdfErrorKind::Massless,
                        links[i].1,
                        format!(
                            "link '{}' has no <inertial> (no mass) but is moved by {} joint '{}' (line {}); \
                             a massless link is allowed only as the root or attached by a fixed joint \
                             (a frame): give it an <inertial> or make the joint fixed",
                            links[i].0.name,
                            j.kind.name(),
                            j.name,
                            cx.line(j.node)
                        ),
                    ));
                }
            }
        }
    }

    let mut joints = Vec::with_capacity(n.saturating_sub(1));
    for &i in order.iter().skip(1) {
        let Some(ji) = parent_joint[i] else { continue };
        let j = &raw_joints[ji];
        joints.push(JointDesc {
            name: j.name.clone(),
            kind: j.kind,
            parent: new_index[ends[ji].0],
            child: new_index[i],
            origin: j.origin,
            axis: j.axis,
            limit: j.limit,
            damping: j.damping,
            friction: j.friction,
        });
    }
    let mut slots: Vec<Option<LinkDesc>> = links.into_iter().map(|(l, _)| Some(l)).collect();
    let links: Vec<LinkDesc> = order.iter().filter_map(|&i| slots[i].take()).collect();

    Ok(RobotDescription {
        name,
        source: PathBuf::from(&cx.file),
        links,
        joints,
        frames: Vec::new(),
        warnings: Vec::new(),
    })
}

fn element_name(cx: &Cx, node: Node, what: &str) -> R<String> {
    match node.attribute("name") {
        Some(n) if !n.trim().is_empty() => Ok(n.to_string()),
        Some(_) => Err(cx.err_at(
            UrdfErrorKind::MissingName,
            node,
            format!("{what} with an empty name"),
        )),
        None => Err(cx.err_at(
            UrdfErrorKind::MissingName,
            node,
            format!("{what} without a name attribute"),
        )),
    }
}

fn read_link(cx: &mut Cx, node: Node) -> R<LinkDesc> {
    let name = element_name(cx, node, "<link>")?;
    cx.check_attrs(node, &["name"]);
    let kids = cx.children(node, &["inertial", "collision"], &["visual"]);
    let inertial = match single_child(cx, &kids, "inertial")? {
        Some(i) => read_inertial(cx, i)?,
        None => None,
    };
    let mut collisions = Vec::new();
    for c in kids.iter().filter(|c| c.tag_name().name() == "collision") {
        collisions.push(read_collision(cx, *c)?);
    }
    Ok(LinkDesc {
        name,
        inertial,
        collisions,
    })
}

fn read_inertial(cx: &mut Cx, node: Node) -> R<Option<Inertial>> {
    cx.check_attrs(node, &[]);
    let kids = cx.children(node, &["origin", "mass", "inertia"], &[]);
    let origin = cx.origin(node)?;
    let mass_node = single_child(cx, &kids, "mass")?.ok_or_else(|| {
        cx.err_at(
            UrdfErrorKind::Structure,
            node,
            "missing <mass value=…> (omit the whole <inertial> for a massless frame link)".into(),
        )
    })?;
    cx.check_attrs(mass_node, &["value"]);
    let mass = cx.req_num(mass_node, "value")?;
    let inertia_node = single_child(cx, &kids, "inertia")?.ok_or_else(|| {
        cx.err_at(
            UrdfErrorKind::Structure,
            node,
            "missing <inertia ixx ixy ixz iyy iyz izz>".into(),
        )
    })?;
    cx.check_attrs(inertia_node, &["ixx", "ixy", "ixz", "iyy", "iyz", "izz"]);
    let ixx = cx.req_num(inertia_node, "ixx")?;
    let iyy = cx.req_num(inertia_node, "iyy")?;
    let izz = cx.req_num(inertia_node, "izz")?;
    let ixy = cx.num(inertia_node, "ixy")?.unwrap_or(0.0);
    let ixz = cx.num(inertia_node, "ixz")?.unwrap_or(0.0);
    let iyz = cx.num(inertia_node, "iyz")?.unwrap_or(0.0);
    let inertia = Mat3::new(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz);

    if mass < 0.0 {
        return Err(cx.err(
            UrdfErrorKind::MassProperties,
            mass_node,
            cx.attr_line(mass_node, "value"),
            format!("mass must be positive, got {mass}"),
        ));
    }
    if mass == 0.0 {
        if inertia.iter().all(|&v| v == 0.0) {
            cx.warn(
                mass_node,
                "mass 0 and zero inertia: read as a massless link (omit <inertial> instead)".into(),
            );
            return Ok(None);
        }
        return Err(cx.err(
            UrdfErrorKind::MassProperties,
            mass_node,
            cx.attr_line(mass_node, "value"),
            "mass must be positive, got 0 (with a non-zero inertia)".into(),
        ));
    }
    check_inertia(&inertia)
        .map_err(|m| cx.err_at(UrdfErrorKind::MassProperties, inertia_node, m))?;
    Ok(Some(Inertial {
        mass,
        origin,
        inertia,
    }))
}

/// Principal moments ≥ −ε and obeying the triangle inequality, ε = 1e-6 × trace.
fn check_inertia(i: &Mat3) -> Result<(), String> {
    let eig = i.symmetric_eigenvalues();
    let mut m = [eig[0], eig[1], eig[2]];
    m.sort_by(f64::total_cmp);
    let tol = 1e-6 * (m[0].abs() + m[1].abs() + m[2].abs());
    if m.iter().any(|e| !e.is_finite()) {
        return Err("inertia has non-finite principal moments".into());
    }
    if m[0] < -tol {
        return Err(format!(
            "inertia has a negative principal moment (principal moments {:.6e}, {:.6e}, {:.6e} kg·m²)",
            m[0], m[1], m[2]
        ));
    }
    if m[0] + m[1] < m[2] - tol {
        return Err(format!(
            "inertia violates the triangle inequality I1 + I2 ≥ I3 (principal moments {:.6e} + {:.6e} < {:.6e} kg·m²): no rigid body has it",
            m[0], m[1], m[2]
        ));
    }
    Ok(())
}

fn read_collision(cx: &mut Cx, node: Node) -> R<CollisionDesc> {
    cx.check_attrs(node, &["name"]);
    let kids = cx.children(node, &["origin", "geometry"], &[]);
    let origin = cx.origin(node)?;
    let geometry = single_child(cx, &kids, "geometry")?
        .ok_or_else(|| cx.err_at(UrdfErrorKind::Geometry, node, "missing <geometry>".into()))?;
    cx.check_attrs(geometry, &[]);
    let shapes = cx.children(
        geometry,
        &["box", "sphere", "cylinder", "capsule", "mesh"],
        &[],
    );
    let g = match shapes.as_slice() {
        [g] => *g,
        [] => {
            return Err(cx.err_at(
                UrdfErrorKind::Geometry,
                geometry,
                "<geometry> must hold one of <box>, <sphere>, <cylinder>, <capsule>, <mesh>".into(),
            ))
        }
        [_, second, ..] => {
            return Err(cx.err_at(
                UrdfErrorKind::Geometry,
                *second,
                "<geometry> holds more than one shape".into(),
            ))
        }
    };
    let geom_err = |cx: &Cx, e: crate::collision::GeometryError| {
        cx.err_at(UrdfErrorKind::Geometry, g, e.to_string())
    };
    let shape = match g.tag_name().name() {
        "box" => {
            cx.check_attrs(g, &["size"]);
            let size = cx.triple(g, "size")?.ok_or_else(|| {
                cx.err_at(
                    UrdfErrorKind::Structure,
                    g,
                    "missing attribute 'size'".into(),
                )
            })?;
            if size.iter().any(|&s| s <= 0.0) {
                return Err(cx.err(
                    UrdfErrorKind::Geometry,
                    g,
                    cx.attr_line(g, "size"),
                    format!(
                        "box sizes must be positive, got {} {} {}",
                        size.x, size.y, size.z
                    ),
                ));
            }
            Shape::cuboid(size * 0.5).map_err(|e| geom_err(cx, e))?
        }
        "sphere" => {
            cx.check_attrs(g, &["radius"]);
            let r = cx.req_num(g, "radius")?;
            Shape::sphere(r).map_err(|e| geom_err(cx, e))?
        }
        "cylinder" => {
            cx.check_attrs(g, &["radius", "length"]);
            let r = cx.req_num(g, "radius")?;
            let l = cx.req_num(g, "length")?;
            Shape::cylinder(r, 0.5 * l).map_err(|e| geom_err(cx, e))?
        }
        "capsule" => {
            cx.check_attrs(g, &["radius", "length"]);
            let r = cx.req_num(g, "radius")?;
            let l = cx.req_num(g, "length")?;
            Shape::capsule(r, 0.5 * l).map_err(|e| geom_err(cx, e))?
        }
        _ => {
            cx.check_attrs(g, &["filename", "scale"]);
            read_mesh(cx, g)?
        }
    };
    Ok(CollisionDesc {
        name: node.attribute("name").map(str::to_string),
        origin,
        shape,
    })
}

fn read_mesh(cx: &mut Cx, g: Node) -> R<Shape> {
    let filename = g.attribute("filename").ok_or_else(|| {
        cx.err_at(
            UrdfErrorKind::Structure,
            g,
            "missing attribute 'filename'".into(),
        )
    })?;
    let scale = cx
        .triple(g, "scale")?
        .unwrap_or_else(|| Vec3::new(1.0, 1.0, 1.0));
    if scale.iter().any(|&s| s == 0.0) {
        return Err(cx.err(
            UrdfErrorKind::Geometry,
            g,
            cx.attr_line(g, "scale"),
            format!(
                "mesh scale components must be non-zero, got {} {} {}",
                scale.x, scale.y, scale.z
            ),
        ));
    }
    let candidates = resolve_mesh(&cx.base_dir, filename);
    let Some(path) = candidates.iter().find(|p| p.is_file()) else {
        let msg = match candidates.as_slice() {
            [one] => format!(
                "mesh file '{filename}' not found: {} does not exist",
                one.display()
            ),
            many => format!(
                "mesh file '{filename}' not found; looked for {}",
                many.iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(cx.err(
            UrdfErrorKind::MeshNotFound,
            g,
            cx.attr_line(g, "filename"),
            msg,
        ));
    };
    let mesh_err = |cx: &Cx, e: crate::collision::GeometryError| {
        cx.err(
            UrdfErrorKind::Mesh,
            g,
            cx.attr_line(g, "filename"),
            format!("unreadable mesh: {e}"),
        )
    };
    let uniform = scale.x > 0.0 && scale.x == scale.y && scale.y == scale.z;
    if uniform {
        return mesh::load_convex_mesh(path, scale.x).map_err(|e| mesh_err(cx, e));
    }
    // Non-uniform or mirroring scale: hull of the scaled hull vertices.
    let unit = mesh::load_convex_mesh(path, 1.0).map_err(|e| mesh_err(cx, e))?;
    let Shape::Polytope(poly) = unit else {
        return Err(mesh_err(
            cx,
            crate::collision::GeometryError::InvalidParameter("mesh is not a polytope".into()),
        ));
    };
    let pts: Vec<Vec3> = poly
        .vertices
        .iter()
        .map(|v| v.component_mul(&scale))
        .collect();
    let hull = ConvexPolytope::from_points(&pts).map_err(|e| mesh_err(cx, e))?;
    Ok(Shape::Polytope(Arc::new(hull)))
}

/// Candidate paths for a mesh `filename`, in the order they are tried.
fn resolve_mesh(base_dir: &Path, filename: &str) -> Vec<PathBuf> {
    if let Some(rest) = filename.strip_prefix("package://") {
        let (pkg, sub) = rest.split_once('/').unwrap_or((rest, ""));
        let mut out = Vec::new();
        for a in base_dir.ancestors() {
            out.push(a.join(pkg).join(sub));
            if a.file_name().is_some_and(|n| n == pkg) {
                out.push(a.join(sub));
            }
        }
        return out;
    }
    let p = filename.strip_prefix("file://").unwrap_or(filename);
    let p = Path::new(p);
    if p.is_absolute() {
        vec![p.to_path_buf()]
    } else {
        vec![base_dir.join(p)]
    }
}

fn read_joint<'a, 'i>(cx: &mut Cx, node: Node<'a, 'i>) -> R<RawJoint<'a, 'i>> {
    let name = element_name(cx, node, "<joint>")?;
    cx.check_attrs(node, &["name", "type"]);
    let kids = cx.children(
        node,
        &[
            "parent",
            "child",
            "origin",
            "axis",
            "limit",
            "dynamics",
            "mimic",
            "calibration",
            "safety_controller",
        ],
        &[],
    );
    let type_line = cx.attr_line(node, "type");
    let kind = match node.attribute("type") {
        None => {
            return Err(cx.err_at(
                UrdfErrorKind::Structure,
                node,
                "missing attribute 'type' (revolute, continuous, prismatic, fixed or floating)"
                    .into(),
            ))
        }
        Some("revolute") => JointKind::Revolute,
        Some("continuous") => JointKind::Continuous,
        Some("prismatic") => JointKind::Prismatic,
        Some("fixed") => JointKind::Fixed,
        Some("floating") => JointKind::Floating,
        Some("planar") => {
            return Err(cx.err(
                UrdfErrorKind::Unsupported,
                node,
                type_line,
                format!("joint '{name}': type 'planar' is not supported"),
            ))
        }
        Some(other) => {
            return Err(cx.err(
                UrdfErrorKind::JointType,
                node,
                type_line,
                format!(
                    "joint '{name}': unknown joint type '{other}' (expected revolute, continuous, prismatic, fixed or floating)"
                ),
            ))
        }
    };

    let mut ends: Vec<(String, Node)> = Vec::with_capacity(2);
    for tag in ["parent", "child"] {
        let e = single_child(cx, &kids, tag)?.ok_or_else(|| {
            cx.err_at(
                UrdfErrorKind::Structure,
                node,
                format!("missing <{tag} link=…>"),
            )
        })?;
        cx.check_attrs(e, &["link"]);
        let link = match e.attribute("link") {
            Some(l) if !l.trim().is_empty() => l.to_string(),
            _ => {
                return Err(cx.err_at(
                    UrdfErrorKind::Structure,
                    e,
                    format!("<{tag}> needs a 'link' attribute"),
                ))
            }
        };
        ends.push((link, e));
    }
    let child = ends
        .pop()
        .ok_or_else(|| cx.err_at(UrdfErrorKind::Structure, node, "missing <child>".into()))?;
    let parent = ends
        .pop()
        .ok_or_else(|| cx.err_at(UrdfErrorKind::Structure, node, "missing <parent>".into()))?;

    let origin = cx.origin(node)?;

    let moves_along_axis = matches!(
        kind,
        JointKind::Revolute | JointKind::Continuous | JointKind::Prismatic
    );
    let mut axis = Vec3::x();
    if let Some(a) = single_child(cx, &kids, "axis")? {
        cx.check_attrs(a, &["xyz"]);
        if let Some(v) = cx.triple(a, "xyz")? {
            let norm = v.norm();
            if moves_along_axis {
                if norm < 1e-12 {
                    return Err(cx.err(
                        UrdfErrorKind::Axis,
                        a,
                        cx.attr_line(a, "xyz"),
                        format!(
                            "joint '{name}': the axis is zero; give a direction such as \"0 0 1\""
                        ),
                    ));
                }
                axis = v / norm;
            }
        }
    }

    let limit = match single_child(cx, &kids, "limit")? {
        Some(l) => {
            cx.check_attrs(l, &["lower", "upper", "effort", "velocity"]);
            read_limit(cx, l, kind, &name)?
        }
        None => {
            if matches!(kind, JointKind::Revolute | JointKind::Prismatic) {
                cx.warn(
                    node,
                    format!(
                        "{} joint '{name}' has no <limit> (required by URDF): treated as unlimited",
                        kind.name()
                    ),
                );
            }
            None
        }
    };

    let (mut damping, mut friction) = (0.0, 0.0);
    if let Some(d) = single_child(cx, &kids, "dynamics")? {
        cx.check_attrs(d, &["damping", "friction"]);
        damping = cx.num(d, "damping")?.unwrap_or(0.0);
        friction = cx.num(d, "friction")?.unwrap_or(0.0);
        for (what, v) in [("damping", damping), ("friction", friction)] {
            if v < 0.0 {
                return Err(cx.err(
                    UrdfErrorKind::Limit,
                    d,
                    cx.attr_line(d, what),
                    format!("joint '{name}': {what} must be ≥ 0, got {v}"),
                ));
            }
        }
    }
    for tag in ["mimic", "calibration", "safety_controller"] {
        if let Some(e) = kids.iter().find(|c| c.tag_name().name() == tag) {
            cx.warn(*e, format!("<{tag}> is not simulated; ignored"));
        }
    }

    Ok(RawJoint {
        node,
        name,
        kind,
        parent,
        child,
        origin,
        axis,
        limit,
        damping,
        friction,
    })
}

fn read_limit(cx: &mut Cx, l: Node, kind: JointKind, name: &str) -> R<Option<JointLimit>> {
    let lower = cx.num(l, "lower")?;
    let upper = cx.num(l, "upper")?;
    let effort = cx.num(l, "effort")?;
    let velocity = cx.num(l, "velocity")?;
    if matches!(kind, JointKind::Fixed | JointKind::Floating) {
        return Ok(None);
    }
    for (what, v) in [("effort", effort), ("velocity", velocity)] {
        match v {
            None => cx.warn(
                l,
                format!("joint '{name}': <limit> without '{what}' (required by URDF): unbounded"),
            ),
            Some(x) if x < 0.0 => {
                return Err(cx.err(
                    UrdfErrorKind::Limit,
                    l,
                    cx.attr_line(l, what),
                    format!("joint '{name}': {what} limit must be ≥ 0, got {x}"),
                ))
            }
            Some(_) => {}
        }
    }
    let (lower, upper) = if kind == JointKind::Continuous {
        (f64::NEG_INFINITY, f64::INFINITY)
    } else {
        if lower.is_none() && upper.is_none() {
            cx.warn(
                l,
                format!(
                    "joint '{name}': <limit> without 'lower' and 'upper': both default to 0 (the joint cannot move)"
                ),
            );
        }
        let (lo, hi) = (lower.unwrap_or(0.0), upper.unwrap_or(0.0));
        if lo > hi {
            return Err(cx.err(
                UrdfErrorKind::Limit,
                l,
                cx.line(l),
                format!("joint '{name}': lower limit {lo} > upper limit {hi}"),
            ));
        }
        (lo, hi)
    };
    Ok(Some(JointLimit {
        lower,
        upper,
        effort: effort.unwrap_or(f64::INFINITY),
        velocity: velocity.unwrap_or(f64::INFINITY),
    }))
}

/// Largest accepted length, triple component (xyz, rpy, size, axis, scale) and
/// geometry attribute, m: finite inputs beyond it overflow the physics.
pub const MAX_LENGTH: f64 = 1e6;
/// Largest accepted magnitude of any other number (mass, inertia, limits, gains).
pub const MAX_NUMBER: f64 = 1e12;

/// Bound on attribute `attr`'s magnitude.
fn max_magnitude(attr: &str) -> f64 {
    match attr {
        "radius" | "length" | "lower" | "upper" => MAX_LENGTH,
        "ixx" | "ixy" | "ixz" | "iyy" | "iyz" | "izz" => MAX_NUMBER * MAX_NUMBER,
        _ => MAX_NUMBER,
    }
}
