//! Every chart kind writes a well-formed SVG and a PNG of the right size;
//! bad data gives errors, not panics; output is deterministic.

use std::path::{Path, PathBuf};

use rtac_plot::{
    save_chart, Axis, BarChart, BoxChart, BoxLayout, CdfChart, Chart, Metric, PlotError, Saved, Summary, SweepChart,
    SweepPoint, TimeSeriesChart, Whiskers,
};

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("rtac-plot-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn png_dimensions(png: &[u8]) -> (u32, u32) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert_eq!(&png[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&png[16..20]), be(&png[20..24]))
}

/// Both files exist; the SVG is XML holding the title and every name as
/// text; the PNG has the expected size.
fn check_saved(saved: &Saved, title: &str, names: &[&str], size: (u32, u32)) {
    let svg = std::fs::read_to_string(&saved.svg).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    for want in std::iter::once(&title).chain(names) {
        assert!(texts.iter().any(|t| t == want), "{want:?} not among the SVG's texts");
    }
    let png = std::fs::read(&saved.png).unwrap();
    assert_eq!(png_dimensions(&png), size);
}

fn samples(n: usize, center: f64, spread: f64) -> Vec<f64> {
    (0..n).map(|i| center + spread * ((i * 7919 % n) as f64 / n as f64 - 0.5)).collect()
}

fn box_chart() -> BoxChart {
    BoxChart::new("Fig. 3 & co", Metric::new("Throughput", "Mbit/s"), Metric::new("Delay", "ms"))
        .x_label("Receiver", "")
        .category("Auto-tuning", &samples(200, 52.0, 2.0), &samples(200, 350.0, 80.0))
        .category("DRWA", &samples(200, 51.0, 3.0), &samples(200, 145.0, 40.0))
        .category("RTAC", &samples(200, 52.5, 2.0), &samples(200, 71.0, 20.0))
}

fn bar_chart() -> BarChart {
    BarChart::new("Competition")
        .y_label("Throughput", "Mbit/s")
        .categories(["Auto-tuning", "DRWA", "RTAC"])
        .series("flow 1", &[27.0, 29.0, 27.5])
        .series_with_errors("flow 2", &[26.0, 24.0, f64::NAN], &[1.0, 2.0, 1.0])
        .reference_line(27.5, "fair share")
        .show_values(true)
}

fn cdf_chart() -> CdfChart {
    CdfChart::new("RTT CDF")
        .x_label("RTT", "ms")
        .log_x(true)
        .series("Auto-tuning", &samples(3000, 350.0, 100.0))
        .series("RTAC", &[60.0, 70.0, f64::NAN, 80.0, 0.0, -1.0])
}

fn time_series_chart() -> TimeSeriesChart {
    let t: Vec<f64> = (0..2000).map(|i| f64::from(i) * 0.01).collect();
    TimeSeriesChart::new("Windows and RTT")
        .y_label("Window", "packets")
        .y2_label("RTT", "ms")
        .series("cwnd", t.iter().map(|&x| (x, 100.0 + 50.0 * (x * 0.5).fract())))
        .series("rwnd", t.iter().map(|&x| (x, 140.0)))
        .series_on(
            "RTT",
            Axis::Right,
            t.iter().map(|&x| (x, if (5.0..6.0).contains(&x) { f64::NAN } else { 60.0 + x })),
        )
        .shade("blockage", [(5.0, 6.0), (12.0, 12.5)])
}

fn sweep_chart() -> SweepChart {
    SweepChart::new("Sweep")
        .x_label("Propagation delay", "ms")
        .y_label("Throughput", "Mbit/s")
        .series("Auto-tuning", [(10.0, 52.0), (25.0, 51.0), (50.0, 49.0)])
        .series(
            "RTAC",
            [
                SweepPoint::new(10.0, 53.0).with_error(51.0, 54.0),
                SweepPoint::new(25.0, 52.0),
                SweepPoint::new(50.0, f64::NAN),
            ],
        )
}

#[test]
fn box_chart_twin_axes_writes_svg_and_png() {
    let dir = TempDir::new("box-twin");
    let saved = box_chart().show_means(true).save(dir.join("fig3")).unwrap();
    assert_eq!(saved.svg, dir.join("fig3.svg"));
    assert_eq!(saved.png, dir.join("fig3.png"));
    check_saved(
        &saved,
        "Fig. 3 & co",
        &[
            "Auto-tuning",
            "DRWA",
            "RTAC",
            "Throughput (left axis)",
            "Delay (right axis)",
            "Throughput (Mbit/s)",
            "Delay (ms)",
        ],
        (900, 600),
    );
}

#[test]
fn box_chart_panels_writes_svg_and_png() {
    let dir = TempDir::new("box-panels");
    let chart = box_chart().layout(BoxLayout::Panels).whiskers(Whiskers::MinMax).size(1000, 500);
    let saved = chart.save(dir.join("fig6")).unwrap();
    check_saved(&saved, "Fig. 3 & co", &["RTAC", "Throughput", "Delay", "min–max", "mean", "median"], (1000, 500));
}

#[test]
fn box_chart_from_summaries() {
    let s = Summary::from_samples(&samples(50, 10.0, 2.0)).unwrap();
    let chart = BoxChart::new("summaries", Metric::new("A", ""), Metric::new("B", "s"))
        .category_summary("one", s, s)
        .whiskers(Whiskers::None);
    let svg = chart.to_svg().unwrap();
    assert!(svg.contains(">B (s)<"));
    let mut bad = s;
    bad.p75 = f64::NAN;
    let err = BoxChart::new("bad", Metric::new("A", ""), Metric::new("B", "")).category_summary("one", bad, s).to_svg();
    assert!(matches!(err, Err(PlotError::InvalidInput { .. })), "{err:?}");
}

#[test]
fn bar_chart_writes_svg_and_png() {
    let dir = TempDir::new("bar");
    let saved = bar_chart().save(dir.join("bars.svg")).unwrap();
    assert_eq!(saved.svg, dir.join("bars.svg"));
    check_saved(&saved, "Competition", &["flow 1", "flow 2", "fair share", "Throughput (Mbit/s)", "DRWA"], (900, 600));
}

#[test]
fn cdf_chart_writes_svg_and_png() {
    let dir = TempDir::new("cdf");
    let saved = cdf_chart().save(dir.join("sub/dir/cdf")).unwrap();
    check_saved(&saved, "RTT CDF", &["Auto-tuning", "RTAC", "RTT (ms)", "CDF"], (900, 600));
}

#[test]
fn time_series_chart_writes_svg_and_png() {
    let dir = TempDir::new("ts");
    let saved = time_series_chart().save(dir.join("ts")).unwrap();
    check_saved(
        &saved,
        "Windows and RTT",
        &["cwnd", "rwnd", "RTT", "blockage", "Window (packets)", "RTT (ms)", "Time (s)"],
        (900, 600),
    );
}

#[test]
fn sweep_chart_writes_svg_and_png() {
    let dir = TempDir::new("sweep");
    let saved = sweep_chart().log_x(true).save(dir.join("sweep")).unwrap();
    check_saved(&saved, "Sweep", &["Auto-tuning", "RTAC", "Propagation delay (ms)", "Throughput (Mbit/s)"], (900, 600));
}

#[test]
fn png_size_follows_size_and_scale() {
    let chart = sweep_chart().size(400, 300).png_scale(2.0);
    assert_eq!(chart.png_size(), (800, 600));
    assert_eq!(png_dimensions(&chart.to_png().unwrap()), (800, 600));
    assert!(chart.to_svg().unwrap().contains(r#"width="400" height="300""#));
}

#[test]
fn same_input_gives_identical_output() {
    let charts: Vec<Box<dyn Chart>> = vec![
        Box::new(box_chart()),
        Box::new(box_chart().layout(BoxLayout::Panels)),
        Box::new(bar_chart()),
        Box::new(cdf_chart()),
        Box::new(time_series_chart()),
        Box::new(sweep_chart()),
    ];
    for c in &charts {
        assert_eq!(c.to_svg().unwrap(), c.to_svg().unwrap());
    }
    let c = time_series_chart();
    assert_eq!(c.to_png().unwrap(), c.to_png().unwrap());
}

#[test]
fn dyn_charts_can_be_saved() {
    let dir = TempDir::new("dyn");
    let chart: Box<dyn Chart> = Box::new(bar_chart());
    let saved = save_chart(chart.as_ref(), &dir.join("dyn")).unwrap();
    assert!(saved.svg.exists() && saved.png.exists());
}

fn is_empty<T: std::fmt::Debug>(r: Result<T, PlotError>) -> bool {
    matches!(r, Err(PlotError::EmptyData { .. }))
}

fn is_no_finite<T: std::fmt::Debug>(r: Result<T, PlotError>) -> bool {
    matches!(r, Err(PlotError::NoFiniteData { .. }))
}

#[test]
fn empty_data_is_an_error() {
    let m = || Metric::new("T", "");
    assert!(is_empty(BoxChart::new("b", m(), m()).to_svg()));
    assert!(is_empty(BoxChart::new("b", m(), m()).category("x", &[], &[1.0]).to_svg()));
    assert!(is_empty(BarChart::new("b").categories(["a"]).to_svg()));
    assert!(is_empty(BarChart::new("b").series("s", &[1.0]).to_svg()));
    assert!(is_empty(CdfChart::new("c").to_svg()));
    assert!(is_empty(CdfChart::new("c").series("s", &[]).to_svg()));
    assert!(is_empty(TimeSeriesChart::new("t").to_svg()));
    assert!(is_empty(TimeSeriesChart::new("t").series("s", []).to_svg()));
    assert!(is_empty(SweepChart::new("s").to_svg()));
    assert!(is_empty(SweepChart::new("s").series("s", Vec::<(f64, f64)>::new()).to_svg()));
    // save reports it too, and writes nothing.
    let dir = TempDir::new("empty");
    assert!(is_empty(CdfChart::new("c").save(dir.join("none"))));
    assert!(!dir.join("none.svg").exists());
}

#[test]
fn all_nan_is_an_error() {
    let nan = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
    let m = || Metric::new("T", "");
    assert!(is_no_finite(BoxChart::new("b", m(), m()).category("x", &[1.0], &nan).to_svg()));
    assert!(is_no_finite(BarChart::new("b").categories(["a", "b", "c"]).series("s", &nan).to_svg()));
    assert!(is_no_finite(CdfChart::new("c").series("ok", &[1.0]).series("s", &nan).to_svg()));
    // On a log axis, values <= 0 are skipped like NaN.
    assert!(is_no_finite(CdfChart::new("c").log_x(true).series("s", &[0.0, -1.0]).to_svg()));
    assert!(is_no_finite(TimeSeriesChart::new("t").series("s", nan.map(|v| (0.0, v))).to_svg()));
    assert!(is_no_finite(TimeSeriesChart::new("t").series("s", nan.map(|v| (v, 1.0))).to_svg()));
    assert!(is_no_finite(SweepChart::new("s").series("s", nan.map(|v| (1.0, v))).to_svg()));
    let err = SweepChart::new("s").log_y(true).series("neg", [(1.0, -2.0)]).to_svg().unwrap_err();
    assert!(err.to_string().contains("\"neg\""), "{err}");
}

/// The tick labels of the value axis that are below zero.
fn negative_labels(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("SVG is well-formed XML");
    doc.descendants()
        .filter_map(|n| n.text())
        .filter(|t| t.starts_with('-') || t.starts_with('\u{2212}'))
        .filter(|t| t.trim_start_matches(['-', '\u{2212}']).parse::<f64>().is_ok_and(|v| v > 0.0))
        .map(str::to_string)
        .collect()
}

#[test]
fn error_bars_stop_at_the_floor() {
    // 1 ± 3 Mbit/s: a rate cannot be -2, so neither the bar nor the axis
    // goes below 0.
    let rates = || BarChart::new("r").categories(["a", "b"]).series_with_errors("s", &[1.0, 5.0], &[3.0, 1.0]);
    let svg = rates().to_svg().unwrap();
    assert_eq!(negative_labels(&svg), Vec::<String>::new());
    // A chart with a negative value has no floor: its error bars are whole.
    let signed = BarChart::new("d").categories(["a", "b"]).series_with_errors("s", &[1.0, -5.0], &[3.0, 1.0]);
    assert!(!negative_labels(&signed.to_svg().unwrap()).is_empty());
    // An explicit floor: -inf turns clipping off, 0.5 cuts above zero.
    assert!(!negative_labels(&rates().floor(f64::NEG_INFINITY).to_svg().unwrap()).is_empty());
    assert_eq!(negative_labels(&rates().floor(0.5).to_svg().unwrap()), Vec::<String>::new());
    assert_ne!(rates().floor(0.5).to_svg().unwrap(), svg);
}

#[test]
fn invalid_input_is_an_error() {
    let invalid = |r: Result<String, PlotError>| matches!(r, Err(PlotError::InvalidInput { .. }));
    assert!(invalid(BarChart::new("b").categories(["a", "b"]).series("s", &[1.0]).to_svg()));
    assert!(invalid(BarChart::new("b").categories(["a"]).series_with_errors("s", &[1.0], &[]).to_svg()));
    assert!(invalid(sweep_chart().size(0, 600).to_svg()));
    assert!(invalid(sweep_chart().png_scale(f64::NAN).to_svg()));
    assert!(invalid(sweep_chart().y_range(5.0, 1.0).to_svg()));
    assert!(invalid(sweep_chart().log_x(true).x_range(0.0, 10.0).to_svg()));
    assert!(invalid(time_series_chart().x_range(f64::NAN, 1.0).to_svg()));
}

#[test]
fn io_error_names_the_path() {
    let dir = TempDir::new("io");
    let file = dir.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    // A directory cannot be created under a file.
    let err = bar_chart().save(file.join("chart")).unwrap_err();
    match &err {
        PlotError::Io { path, .. } => assert!(path.starts_with(&file), "{}", path.display()),
        other => panic!("expected Io, got {other:?}"),
    }
    assert!(err.to_string().contains("a-file"), "{err}");
}

#[test]
fn text_is_escaped() {
    let svg = BarChart::new("A & B <x>").categories(["\"q\""]).series("it's", &[1.0]).to_svg().unwrap();
    assert!(svg.contains("A &amp; B &lt;x&gt;"));
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(texts.contains(&"\"q\"") && texts.contains(&"it's") && texts.contains(&"A & B <x>"));
}

#[test]
fn long_series_are_thinned() {
    let n = 200_000;
    let pts = (0..n).map(|i| (f64::from(i) * 1e-4, f64::from(i % 97)));
    let svg = TimeSeriesChart::new("long").series("y", pts).to_svg().unwrap();
    assert!(svg.len() < 200_000, "SVG of {} bytes", svg.len());
    let samples: Vec<f64> = (0..n).map(f64::from).collect();
    let svg = CdfChart::new("long").series("y", &samples).to_svg().unwrap();
    assert!(svg.len() < 200_000, "SVG of {} bytes", svg.len());
}

#[test]
fn long_category_names_and_many_legend_entries_render() {
    let names: Vec<String> = (0..8).map(|i| format!("receiver with a long name {i}")).collect();
    let mut chart = BarChart::new("crowded").categories(names.iter().cloned());
    for i in 0..10 {
        chart = chart.series(format!("series number {i}"), &[f64::from(i) - 3.0; 8]);
    }
    let svg = chart.to_svg().unwrap();
    assert!(svg.contains("rotate(-30)"));
    assert_eq!(png_dimensions(&chart.to_png().unwrap()), (900, 600));
    let _ = Path::new("");
}
