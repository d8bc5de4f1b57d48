//! Forward-mode second-order automatic differentiation: a value with its gradient and
//! Hessian with respect to N variables, propagated exactly through +, −, ×, ÷ and the
//! elementary functions the barrier terms need.
//!
//! The Newton step of 004 needs the gradient and Hessian of every barrier term
//! κ b(d_k(x), d̂) with respect to the two bodies' six coordinates (rotation vector θ
//! and translation q) each. Writing those 12×12 Hessians by hand for every distance
//! type (point–point, point–edge, point–plane, edge–edge, each through Rodrigues'
//! formula) is where implementations go wrong; here each distance is written once,
//! generically over [`Real`], and evaluated either on `f64` (values, line search,
//! CCD) or on [`D2<N>`] (value, gradient and Hessian, exact to rounding).
//!
//! Cost: one product updates N + N² entries, so a 12-variable pair term costs a few
//! thousand flops. That is fine for the reference method, which is not a kHz method.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// The arithmetic the generic geometry of [`super::geom`] needs.
pub trait Real:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
{
    /// A constant (zero gradient and Hessian).
    fn cst(x: f64) -> Self;
    /// The value.
    fn val(&self) -> f64;
    fn sqrt(self) -> Self;
    fn ln(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    /// Widened by ±r: how a truncated series states its remainder (a no-op except for
    /// intervals, whose enclosure must hold the exact function).
    #[inline]
    fn pad(self, _r: f64) -> Self {
        self
    }
}

impl Real for f64 {
    #[inline]
    fn cst(x: f64) -> Self {
        x
    }
    #[inline]
    fn val(&self) -> f64 {
        *self
    }
    #[inline]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline]
    fn ln(self) -> Self {
        f64::ln(self)
    }
    #[inline]
    fn sin(self) -> Self {
        f64::sin(self)
    }
    #[inline]
    fn cos(self) -> Self {
        f64::cos(self)
    }
}

/// A value with its gradient `g` and (symmetric) Hessian `h` in N variables.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct D2<const N: usize> {
    pub v: f64,
    pub g: [f64; N],
    pub h: [[f64; N]; N],
}

impl<const N: usize> D2<N> {
    /// A constant.
    #[inline]
    pub fn constant(v: f64) -> Self {
        D2 {
            v,
            g: [0.0; N],
            h: [[0.0; N]; N],
        }
    }

    /// The variable number `i` at value `v` (gradient e_i).
    #[inline]
    pub fn var(v: f64, i: usize) -> Self {
        let mut d = Self::constant(v);
        d.g[i] = 1.0;
        d
    }

    /// f(self) from f, f′ and f″ at the value: g = f′ g, h = f′ h + f″ g gᵀ.
    #[inline]
    fn chain(self, f: f64, df: f64, ddf: f64) -> Self {
        let mut out = D2 {
            v: f,
            g: [0.0; N],
            h: [[0.0; N]; N],
        };
        for i in 0..N {
            out.g[i] = df * self.g[i];
            for j in 0..N {
                out.h[i][j] = df * self.h[i][j] + ddf * (self.g[i] * self.g[j]);
            }
        }
        out
    }

    #[inline]
    fn recip(self) -> Self {
        let r = 1.0 / self.v;
        self.chain(r, -r * r, 2.0 * r * r * r)
    }
}

impl<const N: usize> Add for D2<N> {
    type Output = Self;
    #[inline]
    fn add(mut self, o: Self) -> Self {
        self.v += o.v;
        for i in 0..N {
            self.g[i] += o.g[i];
            for j in 0..N {
                self.h[i][j] += o.h[i][j];
            }
        }
        self
    }
}

impl<const N: usize> Sub for D2<N> {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        self + (-o)
    }
}

impl<const N: usize> Neg for D2<N> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        self * -1.0
    }
}

impl<const N: usize> Mul for D2<N> {
    type Output = Self;
    /// (ab)″ = a b″ + b a″ + a′ b′ᵀ + b′ a′ᵀ.
    #[inline]
    fn mul(self, o: Self) -> Self {
        let mut out = D2 {
            v: self.v * o.v,
            g: [0.0; N],
            h: [[0.0; N]; N],
        };
        for i in 0..N {
            out.g[i] = self.v * o.g[i] + o.v * self.g[i];
            for j in 0..N {
                // Grouped so that h stays exactly symmetric.
                out.h[i][j] = self.v * o.h[i][j]
                    + o.v * self.h[i][j]
                    + (self.g[i] * o.g[j] + o.g[i] * self.g[j]);
            }
        }
        out
    }
}

impl<const N: usize> Div for D2<N> {
    type Output = Self;
    /// a/b = a · (1/b), with 1/b through the chain rule.
    #[inline]
    #[allow(clippy::suspicious_arithmetic_impl)]
    fn div(self, o: Self) -> Self {
        self * o.recip()
    }
}

impl<const N: usize> Add<f64> for D2<N> {
    type Output = Self;
    #[inline]
    fn add(mut self, c: f64) -> Self {
        self.v += c;
        self
    }
}

impl<const N: usize> Sub<f64> for D2<N> {
    type Output = Self;
    #[inline]
    fn sub(mut self, c: f64) -> Self {
        self.v -= c;
        self
    }
}

impl<const N: usize> Mul<f64> for D2<N> {
    type Output = Self;
    #[inline]
    fn mul(mut self, c: f64) -> Self {
        self.v *= c;
        for i in 0..N {
            self.g[i] *= c;
            for j in 0..N {
                self.h[i][j] *= c;
            }
        }
        self
    }
}

impl<const N: usize> Real for D2<N> {
    #[inline]
    fn cst(x: f64) -> Self {
        Self::constant(x)
    }
    #[inline]
    fn val(&self) -> f64 {
        self.v
    }
    #[inline]
    fn sqrt(self) -> Self {
        let s = self.v.sqrt();
        self.chain(s, 0.5 / s, -0.25 / (s * self.v))
    }
    #[inline]
    fn ln(self) -> Self {
        let r = 1.0 / self.v;
        self.chain(self.v.ln(), r, -r * r)
    }
    #[inline]
    fn sin(self) -> Self {
        let (s, c) = self.v.sin_cos();
        self.chain(s, c, -s)
    }
    #[inline]
    fn cos(self) -> Self {
        let (s, c) = self.v.sin_cos();
        self.chain(c, -s, -c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function of three variables using every operation.
    fn f<T: Real>(x: [T; 3]) -> T {
        let [a, b, c] = x;
        let u = a * b + c * 2.0 - 0.5;
        let w = (a * a + b * b + 1.0).sqrt();
        (u * u + 3.0).ln() * w / (c * c + 2.0) + a.sin() * b.cos() - (-c)
    }

    /// Gradient and Hessian against central differences (h = 1e-5: truncation
    /// O(h²) ≈ 1e-10, rounding ≈ 1e-16/h² ≈ 1e-6 for the Hessian).
    #[test]
    fn derivatives_match_finite_differences() {
        let x0 = [0.3, -1.2, 0.7];
        let d = f([D2::<3>::var(x0[0], 0), D2::var(x0[1], 1), D2::var(x0[2], 2)]);
        assert!((d.v - f(x0)).abs() < 1e-15);
        let h = 1e-5;
        let at = |i: usize, s: f64| {
            let mut x = x0;
            x[i] += s;
            x
        };
        for i in 0..3 {
            let gi = (f(at(i, h)) - f(at(i, -h))) / (2.0 * h);
            assert!((gi - d.g[i]).abs() < 1e-8, "g[{i}] {gi} vs {}", d.g[i]);
            for j in 0..3 {
                let mut pp = x0;
                pp[i] += h;
                pp[j] += h;
                let mut pm = x0;
                pm[i] += h;
                pm[j] -= h;
                let mut mp = x0;
                mp[i] -= h;
                mp[j] += h;
                let mut mm = x0;
                mm[i] -= h;
                mm[j] -= h;
                let hij = (f(pp) - f(pm) - f(mp) + f(mm)) / (4.0 * h * h);
                assert!(
                    (hij - d.h[i][j]).abs() < 1e-5,
                    "h[{i}][{j}] {hij} vs {}",
                    d.h[i][j]
                );
                assert_eq!(d.h[i][j], d.h[j][i], "Hessian symmetric");
            }
        }
    }
}
