//! Axis ranges, tick positions and tick labels, and the data-to-pixel map.

/// How an automatic range is widened to tick marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    /// Out to the next tick at both ends (value axes: headroom above the data).
    Nice,
    /// To the next tick only where that adds little; otherwise the data's
    /// own end (time and parameter axes).
    Snug,
    /// Exactly the given range (a range the caller fixed).
    Exact,
}

/// The ticks of one axis and its final range.
#[derive(Clone, Debug)]
pub(crate) struct Ticks {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    /// Labelled ticks.
    pub major: Vec<(f64, String)>,
    /// Unlabelled ticks (log axes).
    pub minor: Vec<f64>,
}

impl Ticks {
    /// Ticks for data in [lo, hi] (finite; for `log`, positive).
    pub(crate) fn new(lo: f64, hi: f64, log: bool, fit: Fit) -> Ticks {
        if log {
            log_ticks(lo, hi, fit)
        } else {
            linear_ticks(lo, hi, fit)
        }
    }

    /// The map from this axis' range onto the pixels p0..p1.
    pub(crate) fn scale(&self, p0: f64, p1: f64) -> Scale {
        Scale { log: self.log, d0: self.lo, d1: self.hi, p0, p1 }
    }
}

/// A map from data values to pixels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scale {
    log: bool,
    d0: f64,
    d1: f64,
    p0: f64,
    p1: f64,
}

impl Scale {
    pub(crate) fn linear(d0: f64, d1: f64, p0: f64, p1: f64) -> Scale {
        Scale { log: false, d0, d1, p0, p1 }
    }

    pub(crate) fn map(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.log10() - self.d0.log10()) / (self.d1.log10() - self.d0.log10())
        } else {
            (v - self.d0) / (self.d1 - self.d0)
        };
        self.p0 + t * (self.p1 - self.p0)
    }

    /// Whether `v` can be placed on this axis at all (log axes need v > 0).
    pub(crate) fn accepts(&self, v: f64) -> bool {
        v.is_finite() && (!self.log || v > 0.0)
    }
}

/// Widens an empty or near-empty range so that it can be drawn.
fn widen(lo: f64, hi: f64, log: bool) -> (f64, f64) {
    if log {
        if hi / lo < 1.000_001 {
            return (lo / 2.0, hi * 2.0);
        }
        return (lo, hi);
    }
    let scale = lo.abs().max(hi.abs());
    if hi - lo <= scale * 1e-9 {
        let d = if scale == 0.0 { 1.0 } else { scale * 0.1 };
        return (lo - d, hi + d);
    }
    (lo, hi)
}

fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    let m = if n <= 1.0 + 1e-9 {
        1.0
    } else if n <= 2.0 + 1e-9 {
        2.0
    } else if n <= 2.5 + 1e-9 {
        2.5
    } else if n <= 5.0 + 1e-9 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Decimals needed to print multiples of `step` exactly.
fn decimals(step: f64) -> usize {
    let e = step.log10().floor();
    let lead = step / 10f64.powf(e);
    let mut d = (-e).max(0.0) as usize;
    if (lead - 2.5).abs() < 1e-6 {
        d += 1;
    }
    d
}

/// Whether an axis whose largest tick is `max_abs` labels in exponent form.
fn exponent_form(max_abs: f64) -> bool {
    max_abs != 0.0 && !(1e-3..1e6).contains(&max_abs)
}

/// A tick label: fixed decimals, or exponent form for very large or small values.
pub(crate) fn format_tick(v: f64, decimals: usize) -> String {
    format_tick_as(v, decimals, exponent_form(v.abs()))
}

fn format_tick_as(v: f64, decimals: usize, exponent: bool) -> String {
    if v == 0.0 {
        return format!("{:.decimals$}", 0.0);
    }
    if exponent {
        let s = format!("{v:e}");
        // Trim mantissas such as 2.5000000000000004e6.
        return match s.split_once('e') {
            Some((m, e)) => {
                let m: f64 = m.parse().unwrap_or(0.0);
                let mut m = format!("{m:.3}");
                while m.ends_with('0') {
                    m.pop();
                }
                if m.ends_with('.') {
                    m.pop();
                }
                format!("{m}e{e}")
            }
            None => s,
        };
    }
    let s = format!("{v:.decimals$}");
    if s.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
        return format!("{:.decimals$}", 0.0);
    }
    s
}

fn linear_ticks(lo: f64, hi: f64, fit: Fit) -> Ticks {
    let (lo, hi) = widen(lo, hi, false);
    let span = hi - lo;
    let step = nice_step(span / 6.0);
    // Nice ranges keep a little headroom, so that data never touches the frame
    // (a range starting at zero stays there).
    let room = if fit == Fit::Nice { 0.03 * span } else { 0.0 };
    let nice_lo = ((lo - if lo == 0.0 { 0.0 } else { room }) / step + 1e-9).floor() * step;
    let nice_hi = ((hi + if hi == 0.0 { 0.0 } else { room }) / step - 1e-9).ceil() * step;
    let (a, b) = match fit {
        Fit::Nice => (nice_lo, nice_hi),
        Fit::Snug => (
            if lo - nice_lo <= 0.06 * span { nice_lo } else { lo },
            if nice_hi - hi <= 0.06 * span { nice_hi } else { hi },
        ),
        Fit::Exact => (lo, hi),
    };
    let k0 = (a / step - 1e-9).ceil() as i64;
    let k1 = (b / step + 1e-9).floor() as i64;
    let d = decimals(step);
    let values: Vec<f64> =
        if k1 >= k0 && k1 - k0 <= 100 { (k0..=k1).map(|k| k as f64 * step).collect() } else { vec![a, b] };
    // One form for the whole axis: 0, 2e5, ..., 1.2e6 rather than 800000 next to 1.2e6.
    let exponent = exponent_form(values.iter().fold(0.0, |m: f64, v| m.max(v.abs())));
    let major = values.into_iter().map(|v| (v, format_tick_as(v, d, exponent))).collect();
    Ticks { lo: a, hi: b, log: false, major, minor: Vec::new() }
}

/// Ticks for two value axes from zero that share their grid lines: the same
/// number of intervals on both, chosen to waste the least room.
/// `None` unless both ranges start at zero and end above it.
pub(crate) fn aligned_from_zero(a: (f64, f64), b: (f64, f64)) -> Option<(Ticks, Ticks)> {
    if a.0 != 0.0 || b.0 != 0.0 || !(a.1 > 0.0 && b.1 > 0.0) {
        return None;
    }
    let (ha, hb) = (a.1 * 1.03, b.1 * 1.03);
    let mut best: Option<(f64, usize, f64, f64)> = None;
    for k in [5, 6, 4, 7, 3, 8] {
        let (sa, sb) = (nice_step(ha / k as f64), nice_step(hb / k as f64));
        let waste = k as f64 * sa / ha + k as f64 * sb / hb;
        if best.is_none_or(|(w, ..)| waste < w - 1e-9) {
            best = Some((waste, k, sa, sb));
        }
    }
    let (_, k, sa, sb) = best?;
    let make = |step: f64| {
        let d = decimals(step);
        let exponent = exponent_form(k as f64 * step);
        let major = (0..=k).map(|i| i as f64 * step).map(|v| (v, format_tick_as(v, d, exponent))).collect();
        Ticks { lo: 0.0, hi: k as f64 * step, log: false, major, minor: Vec::new() }
    };
    Some((make(sa), make(sb)))
}

fn log_ticks(lo: f64, hi: f64, fit: Fit) -> Ticks {
    let (lo, hi) = widen(lo, hi, true);
    let e0 = (lo.log10() + 1e-9).floor();
    let mut e1 = (hi.log10() - 1e-9).ceil();
    if e1 <= e0 {
        e1 = e0 + 1.0;
    }
    let (a, b) = match fit {
        Fit::Nice => (10f64.powf(e0), 10f64.powf(e1)),
        Fit::Snug => {
            // Snug on a log axis: out to the decade if within a factor of 1.5.
            let a = 10f64.powf(e0);
            let b = 10f64.powf(e1);
            (if lo / a <= 1.5 { a } else { lo }, if b / hi <= 1.5 { b } else { hi })
        }
        Fit::Exact => (lo, hi),
    };
    let span = (e1 - e0) as i64;
    let stride = ((span + 7) / 8).max(1);
    // Label more than decades when the axis covers few of them.
    let decades = (b / a).log10();
    let mults: &[i32] = if decades <= 1.2 {
        &[1, 2, 3, 4, 5, 6, 8]
    } else if decades <= 2.5 {
        &[1, 2, 5]
    } else {
        &[1]
    };
    let mut major = Vec::new();
    let mut minor = Vec::new();
    for e in e0 as i64..=e1 as i64 {
        for m in 1..=9 {
            let v = f64::from(m) * 10f64.powi(e as i32);
            if v < a * (1.0 - 1e-9) || v > b * (1.0 + 1e-9) {
                continue;
            }
            if mults.contains(&m) && (m != 1 || (e - e0 as i64) % stride == 0) {
                major.push((v, format_log(m, e as i32)));
            } else if span <= 6 {
                minor.push(v);
            }
        }
    }
    if major.len() < 2 {
        // A narrow fixed range inside one decade: label its ends.
        let d = decimals(nice_step((b - a) / 2.0));
        major = vec![(a, format_tick(a, d)), (b, format_tick(b, d))];
    }
    Ticks { lo: a, hi: b, log: true, major, minor }
}

fn format_log(m: i32, e: i32) -> String {
    if (-4..6).contains(&e) {
        let v = f64::from(m) * 10f64.powi(e);
        format!("{v:.*}", (-e).max(0) as usize)
    } else {
        format!("{m}e{e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(t: &Ticks) -> Vec<&str> {
        t.major.iter().map(|(_, s)| s.as_str()).collect()
    }

    #[test]
    fn linear_nice() {
        let t = Ticks::new(0.0, 352.0, false, Fit::Nice);
        assert_eq!((t.lo, t.hi), (0.0, 400.0));
        assert_eq!(labels(&t), ["0", "100", "200", "300", "400"]);
        let t = Ticks::new(0.0, 55.0, false, Fit::Nice);
        assert_eq!(labels(&t), ["0", "10", "20", "30", "40", "50", "60"]);
        let t = Ticks::new(0.0, 1.0, false, Fit::Exact);
        assert_eq!(labels(&t), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        let t = Ticks::new(-0.3, 0.3, false, Fit::Nice);
        assert!(labels(&t).contains(&"0.0"), "{:?}", labels(&t));
    }

    #[test]
    fn linear_snug_keeps_data_ends() {
        let t = Ticks::new(0.0, 31.2, false, Fit::Snug);
        assert_eq!((t.lo, t.hi), (0.0, 31.2));
        let t = Ticks::new(0.0, 29.5, false, Fit::Snug);
        assert_eq!((t.lo, t.hi), (0.0, 30.0));
    }

    #[test]
    fn degenerate_ranges_are_widened() {
        let t = Ticks::new(5.0, 5.0, false, Fit::Nice);
        assert!(t.lo < 5.0 && t.hi > 5.0);
        let t = Ticks::new(0.0, 0.0, false, Fit::Nice);
        assert!(t.lo < 0.0 && t.hi > 0.0);
        let t = Ticks::new(3.0, 3.0, true, Fit::Nice);
        assert!(t.lo < 3.0 && t.hi > 3.0);
    }

    #[test]
    fn log_ticks_label_decades() {
        let t = Ticks::new(3.0, 4000.0, true, Fit::Nice);
        assert_eq!((t.lo, t.hi), (1.0, 10000.0));
        assert_eq!(labels(&t), ["1", "10", "100", "1000", "10000"]);
        assert!(!t.minor.is_empty());
        let t = Ticks::new(20.0, 80.0, true, Fit::Nice);
        assert_eq!(labels(&t), ["10", "20", "30", "40", "50", "60", "80", "100"]);
        let t = Ticks::new(5.0, 200.0, true, Fit::Snug);
        assert_eq!(labels(&t), ["5", "10", "20", "50", "100", "200"]);
        let t = Ticks::new(0.002, 0.5, true, Fit::Nice);
        assert_eq!(labels(&t)[0], "0.001");
    }

    #[test]
    fn twin_axes_share_grid_lines() {
        let (a, b) = aligned_from_zero((0.0, 55.0), (0.0, 386.0)).unwrap();
        assert_eq!(a.major.len(), b.major.len());
        assert!(a.hi >= 55.0 && b.hi >= 386.0);
        assert!(a.hi <= 80.0 && b.hi <= 500.0, "{} {}", a.hi, b.hi);
        assert!(aligned_from_zero((1.0, 55.0), (0.0, 1.0)).is_none());
    }

    #[test]
    fn tick_format() {
        assert_eq!(format_tick(2_500_000.0, 0), "2.5e6");
        assert_eq!(format_tick(-0.0, 1), "0.0");
        assert_eq!(format_tick(0.30000000000000004, 1), "0.3");
        assert_eq!(format_tick(12.5, 1), "12.5");
        let t = Ticks::new(0.0, 1e6, false, Fit::Nice);
        assert_eq!(labels(&t), ["0", "2e5", "4e5", "6e5", "8e5", "1e6", "1.2e6"]);
    }

    #[test]
    fn scale_maps_ends() {
        let t = Ticks::new(1.0, 100.0, true, Fit::Exact);
        let s = t.scale(0.0, 200.0);
        assert!((s.map(10.0) - 100.0).abs() < 1e-9);
        let s = Scale::linear(0.0, 10.0, 100.0, 0.0);
        assert_eq!(s.map(5.0), 50.0);
    }
}
