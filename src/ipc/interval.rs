//! Closed intervals with outward rounding: an enclosure of every value a function can
//! take over a box of inputs, for the conservative curved CCD of 004 §4.3.
//!
//! Every operation rounds its lower bound down and its upper bound up by one ulp
//! (`next_down`/`next_up`), so a result always contains the exact real result of
//! the exact operation on any points of the operands, whatever the rounding of the
//! underlying f64 operation (correctly rounded: off by at most half an ulp).
//! Elementary functions (`sqrt`, `ln`, `sin`, `cos`) are bounded from their monotone
//! pieces and their extrema inside the interval, then widened by two ulps of their
//! magnitude (the libm results are within one ulp).

use super::ad::Real;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// [lo, hi], lo ≤ hi (or the whole line for an undefined result).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

const ENTIRE: Interval = Interval {
    lo: f64::NEG_INFINITY,
    hi: f64::INFINITY,
};

impl Interval {
    #[inline]
    pub fn new(lo: f64, hi: f64) -> Self {
        debug_assert!(lo <= hi || lo.is_nan() || hi.is_nan());
        Interval { lo, hi }
    }
    #[inline]
    pub fn point(x: f64) -> Self {
        Interval { lo: x, hi: x }
    }
    /// Outward-rounded [lo, hi].
    #[inline]
    fn out(lo: f64, hi: f64) -> Self {
        if lo.is_nan() || hi.is_nan() {
            return ENTIRE;
        }
        Interval {
            lo: lo.next_down(),
            hi: hi.next_up(),
        }
    }
    /// Widened by `ulps` units of the larger magnitude (for libm functions).
    #[inline]
    fn widen(lo: f64, hi: f64, ulps: f64) -> Self {
        let m = lo.abs().max(hi.abs()) * f64::EPSILON * ulps;
        Self::out(lo - m, hi + m)
    }
    #[inline]
    pub fn width(&self) -> f64 {
        self.hi - self.lo
    }
    #[inline]
    pub fn mid(&self) -> f64 {
        0.5 * (self.lo + self.hi)
    }
    #[inline]
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
    /// Whether the interval meets [−δ, δ].
    #[inline]
    pub fn meets_zero(&self, delta: f64) -> bool {
        self.lo <= delta && self.hi >= -delta
    }
    /// The two halves.
    #[inline]
    pub fn split(&self) -> (Self, Self) {
        let m = self.mid();
        (Interval::new(self.lo, m), Interval::new(m, self.hi))
    }
    /// Whether some point of the interval lies in {x : x = kπ/2 + c} for the given
    /// phase (c = 0: extrema of cos at kπ; c = π/2 for sin's extrema at π/2 + kπ).
    fn has_extremum(&self, phase: f64) -> Option<bool> {
        // The period-π lattice kπ + phase inside [lo, hi]; returns whether its first
        // hit is a maximum (even k) — only used for spans shorter than π.
        let k = ((self.lo - phase) / std::f64::consts::PI).ceil();
        let x = k * std::f64::consts::PI + phase;
        (x <= self.hi).then_some((k as i64).rem_euclid(2) == 0)
    }
}

impl Add for Interval {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self::out(self.lo + o.lo, self.hi + o.hi)
    }
}

impl Sub for Interval {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self::out(self.lo - o.hi, self.hi - o.lo)
    }
}

impl Neg for Interval {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Interval::new(-self.hi, -self.lo)
    }
}

impl Mul for Interval {
    type Output = Self;
    #[inline]
    fn mul(self, o: Self) -> Self {
        let p = [
            self.lo * o.lo,
            self.lo * o.hi,
            self.hi * o.lo,
            self.hi * o.hi,
        ];
        let lo = p.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Self::out(lo, hi)
    }
}

impl Div for Interval {
    type Output = Self;
    #[inline]
    fn div(self, o: Self) -> Self {
        if o.lo <= 0.0 && o.hi >= 0.0 {
            return ENTIRE;
        }
        let q = [
            self.lo / o.lo,
            self.lo / o.hi,
            self.hi / o.lo,
            self.hi / o.hi,
        ];
        let lo = q.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = q.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Self::out(lo, hi)
    }
}

impl Add<f64> for Interval {
    type Output = Self;
    #[inline]
    fn add(self, c: f64) -> Self {
        self + Interval::point(c)
    }
}

impl Sub<f64> for Interval {
    type Output = Self;
    #[inline]
    fn sub(self, c: f64) -> Self {
        self - Interval::point(c)
    }
}

impl Mul<f64> for Interval {
    type Output = Self;
    #[inline]
    fn mul(self, c: f64) -> Self {
        self * Interval::point(c)
    }
}

impl Real for Interval {
    #[inline]
    fn cst(x: f64) -> Self {
        Interval::point(x)
    }
    /// The upper bound: the geometry's branches (e.g. Rodrigues' series below a
    /// threshold of |θ|²) take the series only when the whole interval is below it.
    #[inline]
    fn val(&self) -> f64 {
        self.hi
    }
    #[inline]
    fn pad(self, r: f64) -> Self {
        Self::out(self.lo - r, self.hi + r)
    }
    fn sqrt(self) -> Self {
        if self.hi < 0.0 {
            return ENTIRE;
        }
        Self::widen(self.lo.max(0.0).sqrt(), self.hi.sqrt(), 1.0)
    }
    fn ln(self) -> Self {
        if self.lo <= 0.0 {
            return Interval::new(f64::NEG_INFINITY, self.hi.ln().next_up());
        }
        Self::widen(self.lo.ln(), self.hi.ln(), 2.0)
    }
    fn sin(self) -> Self {
        if self.width() >= std::f64::consts::PI || !self.width().is_finite() {
            return Interval::new(-1.0, 1.0);
        }
        let (a, b) = (self.lo.sin(), self.hi.sin());
        let (mut lo, mut hi) = (a.min(b), a.max(b));
        // Extrema of sin at π/2 + kπ: a maximum for even k.
        if let Some(max) = self.has_extremum(std::f64::consts::FRAC_PI_2) {
            if max {
                hi = 1.0;
            } else {
                lo = -1.0;
            }
        }
        let r = Self::widen(lo, hi, 2.0);
        Interval::new(r.lo.max(-1.0), r.hi.min(1.0))
    }
    fn cos(self) -> Self {
        if self.width() >= std::f64::consts::PI || !self.width().is_finite() {
            return Interval::new(-1.0, 1.0);
        }
        let (a, b) = (self.lo.cos(), self.hi.cos());
        let (mut lo, mut hi) = (a.min(b), a.max(b));
        // Extrema of cos at kπ: a maximum for even k.
        if let Some(max) = self.has_extremum(0.0) {
            if max {
                hi = 1.0;
            } else {
                lo = -1.0;
            }
        }
        let r = Self::widen(lo, hi, 2.0);
        Interval::new(r.lo.max(-1.0), r.hi.min(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every function's enclosure contains its values at 200 points of the interval.
    #[test]
    fn enclosures_contain_sampled_values() {
        let f = |x: Interval| {
            (x.sin() * x.cos() + x * x * 0.5) / (x * x + 1.0) - (x + 3.0).sqrt() * (x + 2.0).ln()
        };
        let g = |x: f64| {
            (x.sin() * x.cos() + x * x * 0.5) / (x * x + 1.0) - (x + 3.0).sqrt() * (x + 2.0).ln()
        };
        for (lo, hi) in [
            (-1.0, -0.2),
            (-0.3, 0.4),
            (0.9, 2.5),
            (1.5, 1.6),
            (-1.5, 1.5),
        ] {
            let r = f(Interval::new(lo, hi));
            for k in 0..=200 {
                let x = lo + (hi - lo) * k as f64 / 200.0;
                assert!(r.contains(g(x)), "[{lo}, {hi}]: {} outside {r:?}", g(x));
            }
        }
    }

    /// sin and cos reach ±1 when the interval holds an extremum.
    #[test]
    fn trig_extrema() {
        let s = Interval::new(1.0, 2.0).sin();
        assert_eq!(s.hi, 1.0);
        let c = Interval::new(3.0, 3.5).cos();
        assert_eq!(c.lo, -1.0);
        let c = Interval::new(-0.1, 0.2).cos();
        assert_eq!(c.hi, 1.0);
        assert!(c.lo <= 0.2f64.cos() && c.lo > 0.97);
    }
}
