//! Articulated-body dynamics in Featherstone's spatial algebra
//! (R. Featherstone, *Rigid Body Dynamics Algorithms*, Springer 2008; `spatial_v2`).
//!
//! Robots are generalized-coordinate kinematic trees, separate from the
//! engine's maximal-coordinate free bodies (`BodyState`): a fixed-base arm
//! (its placement folded into the root's `x_tree`), or a mobile robot or
//! humanoid on a **floating base** ([`Joint::Floating`]). Split as
//! Model/Data: [`ArticulatedModel`] (immutable, built and validated by
//! [`ArticulatedModelBuilder`]) and [`ArticulatedData`] (preallocated
//! scratch and results). After `ArticulatedData::new` no function here
//! allocates (except [`neutral_configuration`], which returns a `Vec`), and
//! none panics: bad input is a [`DynamicsError`].
//!
//! | what | function | fills |
//! |---|---|---|
//! | poses | [`forward_kinematics`] | `xup`, `x_base` |
//! | poses + link twists | [`forward_velocity`] | `xup`, `x_base`, `v` |
//! | world pose, point twist, IMU | [`link_pose`], [`link_point_velocity`], [`link_velocity_world`], [`link_point_acceleration`] | — |
//! | contact force → `f_ext` | [`link_force_from_world`] | — |
//! | inverse dynamics | [`rnea()`] | `tau`, `v`, `a`, `f` |
//! | mass matrix | [`crba()`], then [`factor_mass`] | `mass_matrix`, `mass_factor` |
//! | `H⁻¹ b`, `L⁻ᵀ b` | [`solve_mass`], [`solve_mass_columns`], [`solve_mass_lt`] | the caller's vector |
//! | forward dynamics | [`aba()`] | `qdd`, `v`, `a` |
//! | F/T sensor wrenches | [`joint_wrenches`] (after `aba`; [`joint_wrenches_from`] for the subtrees from one link on) | `f` |
//! | point Jacobian | [`point_jacobian`] | the caller's 6×nv matrix |
//! | `q̇ = G(q) v`, `q ⊕ h v`, `q₁ ⊖ q₀` | [`q_derivative`], [`integrate`], [`difference`], [`normalize`] | the caller's vector |
//! | checks | [`energy`], [`spatial_momentum`], [`center_of_mass`] | `x_base`, `v` |
//!
//! Every algorithm taking `q` leaves `xup` and `x_base` consistent with it.
//!
//! # Glossary (book symbols → code)
//!
//! | book | code | meaning |
//! |---|---|---|
//! | `λ(i)` / `parent[i]` | `model.parent()[i]` | parent link, `< i`; `None` = the base (world) |
//! | `λ(k)` (expanded tree) | `model.dof_parent()[k]` | DOF parent: the DOF before `k` on its path to the root |
//! | — | `model.q_index()[i]`, `model.v_index()[i]` | start of joint `i`'s entries in `q` and in `q̇`, `q̈`, `τ` |
//! | `X_T(i)` | `model.x_tree()[i]` | fixed transform parent frame → joint predecessor frame |
//! | `X_J(q_i)` | `Joint::transform` | joint transform predecessor → link frame |
//! | `ⁱX_λ(i)` | `data.xup[i]` | `X_J X_T`, parent frame → link `i` frame |
//! | `ⁱX_0` | `data.x_base[i]` | world → link `i` (the link pose) |
//! | `S_i` | `data.s[i]` | motion subspace of a one-DoF joint; `1₆` for `Floating` |
//! | `v_i`, `a_i` | `data.v[i]`, `data.a[i]` | link spatial velocity, acceleration (`a_i` includes `−a_g`) |
//! | `c_i` | `data.c[i]` | velocity-product acceleration `v_i ×ₘ S_i q̇_i` |
//! | `f_i` | `data.f[i]` | force transmitted across joint `i` to link `i`'s subtree |
//! | `I_i` | `model.inertia()[i]` | rigid-body spatial inertia ([`SpatialInertia`]) |
//! | `I^c_i` | `data.ic[i]` | CRBA composite inertia |
//! | `I^A_i`, `p^A_i` | `data.ia[i]`, `data.pa[i]` | articulated inertia, bias force |
//! | `U_i`, `D_i`, `u_i` | `data.big_u[i]`, `data.d[i]`, `data.u[i]` | `I^A S`, `Sᵀ U`, `τ − Sᵀ p^A` (one-DoF joints) |
//! | `H`, `C` | `data.mass_matrix`, `rnea(q, q̇, 0)` | mass matrix, bias forces |
//! | `L` (`H = LᵀL`) | `data.mass_factor` | sparse factor of `H` |
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
//! - Frame 0 (the base) is the **world**: z up, gravity `(0, 0, −9.81)` m/s²
//!   by default. Every link quantity is expressed in that link's own frame;
//!   external forces `f_ext[i]` too ([`link_force_from_world`] converts a
//!   world force at a world point). Gravity is in world coordinates.
//! - Sizes: `q` has length `nq`; `q̇`, `q̈`, `τ`, damping have length `nv`.
//!   `nq == nv` unless the tree has floating joints.
//! - **Floating joint** (root links only): `q = [x, y, z, qw, qx, qy, qz]`,
//!   the link origin `p` in the world (predecessor frame) and the unit
//!   quaternion `Q` rotating link coordinates into world coordinates (`R`);
//!   `q̇`-space entries are the link's spatial velocity `[ω; v]` in **link
//!   coordinates** (Featherstone's body coordinates; `v` = velocity of the
//!   link origin, so `ṗ = R v`). Its `τ` entries are a spatial force on the
//!   link in link coordinates (zero for an unactuated base) and its `q̈`
//!   entries the body-coordinate derivative of that twist (`= a_i + a_g`
//!   re-expressed, since `v ×ₘ v = 0`).
//! - Units: SI (m, kg, s, rad, N, N m).
//!
//! # Equations, cited in code
//! Featherstone Tables 5.1 (RNEA), 6.2 (CRBA), 7.1 (ABA):
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
//! Floating base (Featherstone §4.5 and §9.3, Table 9.6):
//! - (F1) `S = 1₆`, `vJ = q̇` (the body twist), `c = v ×ₘ v = 0`.
//! - (F2) `X_J = (E = Rᵀ, r = p)`, `R` from the normalized `Q`.
//! - (F3) RNEA: `τ_root = f_root` — the spatial force the base would need.
//! - (F4) ABA: with `S = 1₆`, `U = D = I^A` and `Iᵃ = 0`, so the root needs
//!   no (A5)–(A6); pass 3 solves the 6×6 system `I^A_0 a_0 = τ_0 − b q̇ − p^A_0`
//!   by Cholesky (on the stack) and `q̈_0 = a_0 − ⁰X_λ a₀_world` (gravity offset
//!   removed). This is Featherstone's floating-base ABA, `O(n)`.
//! - (F5) CRBA: `H_00 = I^c_0` (6×6), `H_0j = F` (six rows) for descendants.
//!
//! Configuration calculus ([`configuration`]):
//! - (Q1) `ṗ = R v`, `Q̇ = ½ Q ⊗ (0, ω)` (one-DoF joints: `q̇ = v`).
//! - (Q2) `q ⊕ h v`: `Q₁ = Q ⊗ exp(hω/2)`, `p₁ = p + R V(hω) h v` with
//!   `V(θ) = 1 + (1 − cos t)/t² θ× + (t − sin t)/t³ θ×²`, `t = |θ|` — the SE(3)
//!   exponential, exact for a constant body twist.
//! - (Q3) `q₁ ⊖ q₀`: `ω = log(Q₀⁻¹ Q₁)`, `v = V(ω)⁻¹ R₀ᵀ (p₁ − p₀)`.
//! - (Q4) `Q ← Q/|Q|` after each explicit step.
//!
//! Kinematics ([`kinematics`], [`jacobian`]):
//! - (K1) `⁰v = ⁰X_i v_i = (ω, v_O)`; the link point at `p` moves at `v_O + ω × p`.
//! - (K2) `⁰a = ⁰X_i a_i`; classical acceleration of the point at `p`:
//!   `a_O + ω̇ × p + ω × v_p`. With ABA's `a_i` (offset `−a_g`) this is the
//!   proper acceleration `p̈ − a_g` an accelerometer reads.
//! - (K3) world force `f` at `p` plus moment `n`: `⁰f = (p × f + n, f)`, `f_i = ⁱX_0* ⁰f`.
//! - (J1) column `k` of joint `j`: `⁰X_j S_j,k = (ω_k, v_k)` →
//!   `[ω_k; v_k + ω_k × p]`; zero for joints off the link's path to the root.
//!
//! Mass matrix ([`mass`], Featherstone §6.5, Tables 6.3–6.4):
//! - (M1) `H = LᵀL` computed from the last DOF to the first along `λ`, with
//!   no fill-in outside the branch pattern of `H`.
//! - (M2) `x ← L⁻ᵀ x` (back-substitution); (M3) `x ← L⁻¹ x`; `H⁻¹ = L⁻¹ L⁻ᵀ`.
//!
//! Transmitted wrenches ([`wrenches`]):
//! - (W1) after ABA: (R4)–(R5) with ABA's `a_i` give `f_i`, the wrench the
//!   parent exerts on link `i`'s subtree through joint `i` (link coordinates;
//!   `S_iᵀ f_i = τ_i − b q̇_i`).
//!
//! # Not yet
//! Spherical and planar joints.

pub mod aba;
pub mod configuration;
pub mod crba;
pub mod implicit;
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
pub use implicit::ImplicitVelocity;
pub use jacobian::point_jacobian;
pub(crate) use kinematics::point_acceleration;
pub use kinematics::{
    center_of_mass, energy, forward_kinematics, forward_velocity, link_force_from_world,
    link_point_acceleration, link_point_velocity, link_pose, link_velocity_world, spatial_momentum,
    Energy, LinkPose, PointAcceleration, PointVelocity,
};
pub use mass::{factor_mass, solve_mass, solve_mass_columns, solve_mass_lt};
pub use rnea::rnea;
pub use spatial::{ArticulatedInertia, ForceVec, MotionVec, SpatialInertia, SpatialTransform};
pub use tree::{
    ArticulatedData, ArticulatedModel, ArticulatedModelBuilder, DynamicsError, ExtInputs, Joint,
};
pub use wrenches::{joint_wrenches, joint_wrenches_from};
