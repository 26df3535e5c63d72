//! Label widths for the layout, measured with the advance widths of the
//! embedded DejaVu Sans (the font the PNG is rendered with).

use std::sync::OnceLock;

use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};

/// Advance widths at a font size of 1 px: printable ASCII, and a fallback.
struct Advances {
    ascii: [f64; 128],
    fallback: f64,
}

fn advance(font: &FontRef<'_>, c: char) -> Option<f64> {
    let gid = font.charmap().map(c)?;
    font.glyph_metrics(Size::new(1.0), LocationRef::default()).advance_width(gid).map(f64::from)
}

fn advances() -> &'static Advances {
    static ADV: OnceLock<Advances> = OnceLock::new();
    ADV.get_or_init(|| {
        // DejaVu Sans averages about 0.6 em; used if the font cannot be read.
        let mut adv = Advances { ascii: [0.6; 128], fallback: 0.6 };
        if let Ok(font) = FontRef::new(dejavu::sans::regular()) {
            for (i, slot) in adv.ascii.iter_mut().enumerate().skip(32) {
                if let Some(w) = advance(&font, char::from(i as u8)) {
                    *slot = w;
                }
            }
            adv.fallback = advance(&font, 'M').unwrap_or(0.6);
        }
        adv
    })
}

/// Width in pixels of `s` set in DejaVu Sans at `size` px (no kerning).
pub(crate) fn text_width(s: &str, size: f64) -> f64 {
    let adv = advances();
    let mut w = 0.0;
    let mut font = None;
    for c in s.chars() {
        let a = if (c as u32) < 128 {
            adv.ascii[c as usize]
        } else {
            let f = font.get_or_insert_with(|| FontRef::new(dejavu::sans::regular()).ok());
            f.as_ref().and_then(|f| advance(f, c)).unwrap_or(adv.fallback)
        };
        w += a;
    }
    w * size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_plausible() {
        let m = text_width("M", 10.0);
        let i = text_width("i", 10.0);
        assert!(m > 7.0 && m < 10.0, "M: {m}");
        assert!(i > 2.0 && i < 4.0, "i: {i}");
        assert!(text_width("–µ", 10.0) > 5.0);
        assert_eq!(text_width("", 10.0), 0.0);
    }
}
