//! Renders one chart of each kind (and the box chart in both layouts) from
//! made-up but plausible data into the directory given as argument:
//!
//! ```sh
//! cargo run -p rtac-plot --example gallery -- /tmp/gallery
//! ```

use std::path::PathBuf;

use rtac_plot::{
    Axis, BarChart, BoxChart, BoxLayout, CdfChart, Chart, Metric, PlotError, SweepChart, SweepPoint, TimeSeriesChart,
};

/// A small deterministic generator of noise in [-1, 1) (no dependencies).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    /// `n` samples around `center` with relative spread `spread` and a right tail.
    fn samples(&mut self, n: usize, center: f64, spread: f64) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let a = self.next();
                let b = self.next().abs();
                center * (1.0 + spread * (a + b * b * 1.5))
            })
            .collect()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: gallery OUTPUT_DIR")?);
    let mut noise = Noise(42);
    let receivers = ["Auto-tuning", "DRWA", "RTAC"];
    let delays = [350.0, 145.0, 71.0];
    let mut written = Vec::new();

    // 1. Throughput-delay boxes, as in the RTAC paper's Figs. 3 and 6.
    let mut boxes =
        BoxChart::new("LTE, one CUBIC download", Metric::new("Throughput", "Mbit/s"), Metric::new("Delay", "ms"))
            .x_label("Receiver", "");
    for (r, d) in receivers.iter().zip(delays) {
        boxes = boxes.category(*r, &noise.samples(300, 52.5, 0.02), &noise.samples(300, d, 0.15));
    }
    written.push(boxes.clone().show_means(true).save(dir.join("box_twin"))?);
    written.push(boxes.layout(BoxLayout::Panels).save(dir.join("box_panels"))?);

    // A box chart over tcp_rmem_max values (categories with units).
    let mut rmem =
        BoxChart::new("Static receive buffer", Metric::new("Throughput", "Mbit/s"), Metric::new("RTT", "ms"))
            .x_label("tcp_rmem_max", "KB");
    for (kb, tput, rtt) in
        [(64, 9.8, 52.0), (256, 38.0, 55.0), (512, 52.0, 75.0), (1024, 53.0, 150.0), (2560, 53.0, 340.0)]
    {
        rmem = rmem.category(kb.to_string(), &noise.samples(200, tput, 0.03), &noise.samples(200, rtt, 0.08));
    }
    written.push(rmem.save(dir.join("box_rmem"))?);

    // 2. Grouped bars: two flows competing, with the fair share.
    let bars = BarChart::new("Two flows sharing a 55 Mbit/s cell")
        .x_label("Receiver of flow 2 (flow 1: Auto-tuning)", "")
        .y_label("Throughput", "Mbit/s")
        .categories(receivers)
        .series_with_errors("flow 1 (Auto-tuning)", &[27.3, 30.1, 28.0], &[1.2, 1.8, 1.1])
        .series_with_errors("flow 2", &[27.1, 24.6, 26.9], &[1.1, 2.0, 1.3])
        .reference_line(27.5, "fair share")
        .show_values(true);
    written.push(bars.save(dir.join("bars"))?);

    // 3. CDFs of RTT samples, log x.
    let mut cdf = CdfChart::new("RTT distribution").x_label("RTT", "ms").log_x(true);
    for (r, d) in receivers.iter().zip(delays) {
        cdf = cdf.series(*r, &noise.samples(5000, d, 0.2));
    }
    written.push(cdf.save(dir.join("cdf"))?);

    // 4. Time series: windows on the left, RTT on the right, blockages shaded.
    let t: Vec<f64> = (0..3000).map(|i| f64::from(i) * 0.01).collect();
    let blocked = |x: f64| (8.0..10.0).contains(&x) || (19.0..20.5).contains(&x);
    let cwnd: Vec<(f64, f64)> = t
        .iter()
        .map(|&x| {
            let saw = 200.0 + 120.0 * ((x * 0.7).fract());
            (x, if blocked(x) { 40.0 } else { saw.min(40.0 + x * 60.0) })
        })
        .collect();
    let rwnd: Vec<(f64, f64)> = t.iter().map(|&x| (x, 260.0 + 30.0 * (x * 0.9).sin())).collect();
    let rtt: Vec<(f64, f64)> = t
        .iter()
        .map(|&x| (x, if blocked(x) { f64::NAN } else { 55.0 + 20.0 * (x * 0.7).fract() + 2.0 * noise.next() }))
        .collect();
    let ts = TimeSeriesChart::new("RTAC over a mmWave link with blockage")
        .y_label("Window", "packets")
        .y2_label("RTT", "ms")
        .series("cwnd", cwnd)
        .series("rwnd", rwnd)
        .series_on("RTT", Axis::Right, rtt)
        .shade("blockage", [(8.0, 10.0), (19.0, 20.5)]);
    written.push(ts.save(dir.join("timeseries"))?);

    // 5. Sweep: throughput against propagation delay, with error bars.
    let props = [5.0, 10.0, 25.0, 50.0, 100.0, 200.0];
    let mut sweep = SweepChart::new("Throughput vs propagation delay")
        .from_zero(false)
        .x_label("One-way propagation delay", "ms")
        .y_label("Throughput", "Mbit/s")
        .log_x(true);
    for (i, r) in receivers.iter().enumerate() {
        let pts: Vec<SweepPoint> = props
            .iter()
            .map(|&p| {
                let y = 53.0 - (i as f64 + 1.0) * 0.02 * p + noise.next();
                SweepPoint::new(p, y).with_error(y - 2.0, y + 1.5)
            })
            .collect();
        sweep = sweep.series(*r, pts);
    }
    written.push(sweep.save(dir.join("sweep"))?);

    for w in &written {
        println!("{}  {}", w.svg.display(), w.png.display());
    }
    // Errors are values, not panics:
    let err: PlotError = CdfChart::new("empty").series("none", &[f64::NAN]).to_svg().unwrap_err();
    println!("an all-NaN series gives: {err}");
    Ok(())
}
