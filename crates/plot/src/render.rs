//! Writing files: SVG as text, PNG by rasterising that SVG with resvg and the
//! embedded DejaVu Sans (no system fonts are looked at, so every machine
//! draws the same pixels).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg;
use resvg::usvg::fontdb::{Database, Source};

use crate::error::PlotError;

fn fontdb() -> Arc<Database> {
    static DB: OnceLock<Arc<Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = Database::new();
        for bytes in [dejavu::sans::regular(), dejavu::sans::bold()] {
            db.load_font_source(Source::Binary(Arc::new(bytes)));
        }
        // Whatever generic family an SVG asks for, it gets DejaVu Sans.
        let family = "DejaVu Sans";
        db.set_sans_serif_family(family);
        db.set_serif_family(family);
        db.set_monospace_family(family);
        db.set_cursive_family(family);
        db.set_fantasy_family(family);
        Arc::new(db)
    })
    .clone()
}

/// Rasterises an SVG document to a PNG of `width` x `height` pixels.
pub(crate) fn rasterise(svg: &str, width: u32, height: u32) -> Result<Vec<u8>, PlotError> {
    let opt = usvg::Options { font_family: "DejaVu Sans".to_string(), fontdb: fontdb(), ..usvg::Options::default() };
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| PlotError::Render { message: e.to_string() })?;
    let mut pixmap = Pixmap::new(width, height)
        .ok_or_else(|| PlotError::Render { message: format!("cannot allocate a {width}x{height} image") })?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    let size = tree.size();
    let t = Transform::from_scale(width as f32 / size.width(), height as f32 / size.height());
    resvg::render(&tree, t, &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| PlotError::Render { message: e.to_string() })
}

/// `<path>.svg` and `<path>.png`; a path already ending in `.svg` or `.png`
/// loses that extension first.
pub(crate) fn output_paths(path: &Path) -> (PathBuf, PathBuf) {
    let base = match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") || e.eq_ignore_ascii_case("png") => path.with_extension(""),
        _ => path.to_path_buf(),
    };
    let with = |ext: &str| {
        let mut s: OsString = base.clone().into_os_string();
        s.push(ext);
        PathBuf::from(s)
    };
    (with(".svg"), with(".png"))
}

pub(crate) fn write(path: &Path, bytes: &[u8]) -> Result<(), PlotError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| PlotError::Io { path: dir.to_path_buf(), source })?;
    }
    std::fs::write(path, bytes).map_err(|source| PlotError::Io { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_paths_append_extensions() {
        let (s, p) = output_paths(Path::new("out/fig3"));
        assert_eq!((s.as_path(), p.as_path()), (Path::new("out/fig3.svg"), Path::new("out/fig3.png")));
        let (s, _) = output_paths(Path::new("out/rmem.2560KB"));
        assert_eq!(s, Path::new("out/rmem.2560KB.svg"));
        let (s, p) = output_paths(Path::new("fig.PNG"));
        assert_eq!((s.as_path(), p.as_path()), (Path::new("fig.svg"), Path::new("fig.png")));
    }
}
