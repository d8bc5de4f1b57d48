//! Articulated-body dynamics in Featherstone's spatial algebra
//! (R. Featherstone, *Rigid Body Dynamics Algorithms*, Springer 2008; `spatial_v2`).
//!
//! Robots are generalized-coordinate kinematic trees, separate from the
//! engine's maximal-coordinate free bodies (`BodyState`); their link poses
//! ([`kinematics::forward_kinematics`], `x_base[i]`) are what will later feed the
//! collision pipeline. This module is the math and the algorithms only, split
//! as Model/Data: [`ArticulatedModel`] (immutable, built by
//! [`ArticulatedModelBuilder`]) and [`ArticulatedData`] (preallocated scratch).
//! `rnea`, `crba` and `aba` do not allocate and never panic.
//!
//! # Glossary (book symbols → code)
//!
//! | book | code | meaning |
//! |---|---|---|
//! | `λ(i)` / `parent[i]` | `model.parent()[i]` | parent link, `< i`; `None` = fixed base |
//! | `X_T(i)` | `model.x_tree()[i]` | fixed transform parent frame → joint predecessor frame |
//! | `X_J(q_i)` | `Joint::transform` | joint transform predecessor → link frame |
//! | `ⁱX_λ(i)` | `data.xup[i]` | `X_J X_T`, parent frame → link `i` frame |
//! | `ⁱX_0` | `data.x_base[i]` | base → link `i` (the link pose) |
//! | `S_i` | `data.s[i]` | joint motion subspace (a [`MotionVec`]) |
//! | `v_i`, `a_i` | `data.v[i]`, `data.a[i]` | link spatial velocity, acceleration |
//! | `c_i` | `data.c[i]` | velocity-product acceleration `v_i ×ₘ S_i q̇_i` |
//! | `f_i` | `data.f[i]` | RNEA joint force (link `i`'s subtree) |
//! | `I_i` | `model.inertia()[i]` | rigid-body spatial inertia ([`SpatialInertia`]) |
//! | `I^c_i` | `data.ic[i]` | CRBA composite inertia |
//! | `I^A_i`, `p^A_i` | `data.ia[i]`, `data.pa[i]` | articulated inertia, bias force |
//! | `U_i`, `D_i`, `u_i` | `data.big_u[i]`, `data.d[i]`, `data.u[i]` | `I^A S`, `Sᵀ U`, `τ − Sᵀ p^A` |
//! | `H`, `C` | `data.mass_matrix`, `rnea(q, q̇, 0)` | mass matrix, bias forces |
//! | `a_g` | `model.gravity()` | gravity; the base accelerates at `a₀ = −a_g` |
//! | `×` / `×*` | [`MotionVec::cross_motion`] / [`MotionVec::cross_force`] | `crm`, `crf` |
//!
//! # Conventions
//! - Spatial vectors are `[angular; linear]`: motion `(ω, v)`, force `(n, f)`,
//!   with `v` the velocity of the body point at the frame origin and `n` the
//!   moment about it. Motion and force are distinct types; `⟨m, f⟩` is power.
//! - [`SpatialTransform`] `ᴮX_A = (E, r)`: `E` maps A coordinates to B
//!   coordinates, `r` is B's origin in A. `apply_motion`/`apply_force` map A → B
//!   (pinocchio `act`), `inv_apply_*` map B → A (`actInv`). `X* = X⁻ᵀ`.
//! - Every link quantity is expressed in that link's own frame; external forces
//!   `f_ext[i]` too. Gravity is in base coordinates.
//! - Units: SI (m, kg, s, rad, N, N m).
//!
//! # Equations (Featherstone tables 5.1, 6.2, 7.1), cited in code
//! - (R1) `vJ = S q̇`; (R2) `v_i = ⁱX_λ v_λ + vJ`;
//!   (R3) `a_i = ⁱX_λ a_λ + S q̈ + v_i ×ₘ vJ`; (R4) `f_i = I_i a_i + v_i ×f I_i v_i − f_ext`;
//!   (R5) `τ_i = S_iᵀ f_i`, `f_λ += ⁱX_λᵀ f_i` (plus damping `b q̇`).
//! - (C1) `I^c_λ += ⁱX_λᵀ I^c_i ⁱX_λ`; (C2) `F = I^c_i S_i`, `H_ii = S_iᵀ F`;
//!   (C3) `F = ʲX_λ(j)ᵀ F`, `H_ij = H_ji = S_jᵀ F` walking `j` to the root.
//! - (A1)–(A3) as (R1)–(R2) with `c_i = v_i ×ₘ vJ`, `p^A_i = v_i ×f I_i v_i − f_ext`;
//!   (A4) `U = I^A S`, `D = Sᵀ U`, `u = τ − b q̇ − Sᵀ p^A`;
//!   (A5) `Iᵃ = I^A − U Uᵀ/D`, `pᵃ = p^A + Iᵃ c + U u/D`;
//!   (A6) `I^A_λ += Xᵀ Iᵃ X`, `p^A_λ += Xᵀ pᵃ`;
//!   (A7) `a' = ⁱX_λ a_λ + c`; (A8) `q̈ = (u − Uᵀ a')/D`, `a = a' + S q̈`.
//!
//! # Not yet
//! TODO(robots): floating-base (`Free`) and multi-DoF joints, joint limits,
//! Jacobians, and wiring into `pipeline::step` (see [`tree`]).

pub mod aba;
pub mod configuration;
pub mod crba;
pub mod jacobian;
pub mod kinematics;
pub mod mass;
pub mod rnea;
pub mod spatial;
pub mod tree;
pub mod wrenches;

pub use aba::aba;
pub use configuration::{difference, integrate, neutral_configuration, normalize, q_derivative};
pub use crba::crba;
pub use jacobian::point_jacobian;
pub use kinematics::{
    center_of_mass, energy, forward_kinematics, forward_velocity, link_point_acceleration,
    link_point_velocity, link_pose, link_velocity_world, spatial_momentum, Energy, LinkPose,
    PointAcceleration, PointVelocity,
};
pub use mass::{factor_mass, solve_mass, solve_mass_columns, solve_mass_lt};
pub use rnea::rnea;
pub use spatial::{ArticulatedInertia, ForceVec, MotionVec, SpatialInertia, SpatialTransform};
pub use tree::{
    ArticulatedData, ArticulatedModel, ArticulatedModelBuilder, DynamicsError, ExtInputs, Joint,
};
pub use wrenches::joint_wrenches;
