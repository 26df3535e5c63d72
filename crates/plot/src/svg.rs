//! A minimal SVG writer. Numbers are printed with at most two decimals so
//! the same chart always gives the same bytes.

use std::fmt::Write;

use crate::style::{Marker, FONT_FAMILY};

/// A number for an SVG attribute: two decimals at most, no trailing zeros,
/// clamped to a sane range (a point far outside the canvas is clipped anyway).
pub(crate) fn num(v: f64) -> String {
    let v = if v.is_finite() { v.clamp(-1e5, 1e5) } else { 0.0 };
    let mut s = format!("{v:.2}");
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
    if s == "-0" {
        s = "0".to_string();
    }
    s
}

/// Escapes text for element content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' && c != '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

pub(crate) struct Svg {
    out: String,
}

impl Svg {
    /// Starts a document of `width` x `height` pixels on a white background.
    pub(crate) fn new(width: u32, height: u32, title: &str) -> Svg {
        let mut out = String::with_capacity(64 * 1024);
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="{FONT_FAMILY}">"#
        );
        let _ = writeln!(out, "<title>{}</title>", esc(title));
        let _ = writeln!(out, r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#FFFFFF"/>"##);
        Svg { out }
    }

    pub(crate) fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }

    pub(crate) fn raw(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    pub(crate) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, style: &str) {
        let (x, w) = if w < 0.0 { (x + w, -w) } else { (x, w) };
        let (y, h) = if h < 0.0 { (y + h, -h) } else { (y, h) };
        let _ = writeln!(
            self.out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" {style}/>"#,
            num(x),
            num(y),
            num(w),
            num(h)
        );
    }

    pub(crate) fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, style: &str) {
        let _ = writeln!(
            self.out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" {style}/>"#,
            num(x1),
            num(y1),
            num(x2),
            num(y2)
        );
    }

    /// An open polyline; nothing for fewer than two points.
    pub(crate) fn polyline(&mut self, pts: &[(f64, f64)], style: &str) {
        if pts.len() < 2 {
            return;
        }
        self.out.push_str(r#"<polyline fill="none" points=""#);
        for (i, (x, y)) in pts.iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            let _ = write!(self.out, "{},{}", num(*x), num(*y));
        }
        let _ = writeln!(self.out, r#"" {style}/>"#);
    }

    /// Text whose baseline starts, centres or ends at (x, y).
    pub(crate) fn text(&mut self, x: f64, y: f64, size: f64, anchor: Anchor, content: &str, extra: &str) {
        let _ = writeln!(
            self.out,
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="{}" {extra}>{}</text>"#,
            num(x),
            num(y),
            num(size),
            anchor.attr(),
            esc(content)
        );
    }

    /// Text rotated by `angle` degrees (negative: counter-clockwise) about (x, y).
    pub(crate) fn text_rotated(
        &mut self,
        (x, y): (f64, f64),
        angle: f64,
        size: f64,
        anchor: Anchor,
        content: &str,
        extra: &str,
    ) {
        let _ = writeln!(
            self.out,
            r#"<text transform="translate({},{}) rotate({})" font-size="{}" text-anchor="{}" {extra}>{}</text>"#,
            num(x),
            num(y),
            num(angle),
            num(size),
            anchor.attr(),
            esc(content)
        );
    }

    /// A marker of `size` pixels across centred on (x, y).
    pub(crate) fn marker(&mut self, shape: Marker, x: f64, y: f64, size: f64, style: &str) {
        let r = size / 2.0;
        let d = match shape {
            Marker::Circle => {
                let _ = writeln!(self.out, r#"<circle cx="{}" cy="{}" r="{}" {style}/>"#, num(x), num(y), num(r));
                return;
            }
            Marker::Square => {
                let r = r * 0.9;
                format!("M{} {}h{}v{}h{}Z", num(x - r), num(y - r), num(2.0 * r), num(2.0 * r), num(-2.0 * r))
            }
            Marker::TriangleUp => {
                let r = r * 1.15;
                format!(
                    "M{} {}L{} {}L{} {}Z",
                    num(x),
                    num(y - r),
                    num(x + r * 0.866),
                    num(y + r * 0.5),
                    num(x - r * 0.866),
                    num(y + r * 0.5)
                )
            }
            Marker::TriangleDown => {
                let r = r * 1.15;
                format!(
                    "M{} {}L{} {}L{} {}Z",
                    num(x),
                    num(y + r),
                    num(x + r * 0.866),
                    num(y - r * 0.5),
                    num(x - r * 0.866),
                    num(y - r * 0.5)
                )
            }
            Marker::Diamond => {
                let r = r * 1.2;
                format!(
                    "M{} {}L{} {}L{} {}L{} {}Z",
                    num(x),
                    num(y - r),
                    num(x + r),
                    num(y),
                    num(x),
                    num(y + r),
                    num(x - r),
                    num(y)
                )
            }
            Marker::Cross => {
                let r = r * 0.85;
                format!(
                    "M{} {}L{} {}M{} {}L{} {}",
                    num(x - r),
                    num(y - r),
                    num(x + r),
                    num(y + r),
                    num(x - r),
                    num(y + r),
                    num(x + r),
                    num(y - r)
                )
            }
        };
        let _ = writeln!(self.out, r#"<path d="{d}" {style}/>"#);
    }

    pub(crate) fn open_group(&mut self, attrs: &str) {
        let _ = writeln!(self.out, "<g {attrs}>");
    }

    pub(crate) fn close_group(&mut self) {
        self.out.push_str("</g>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_stable() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(1.256), "1.26");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(1e300), "100000");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc(r#"a<b & "c"'"#), "a&lt;b &amp; &quot;c&quot;&apos;");
        assert_eq!(esc("x\u{1}y"), "x y");
    }
}
