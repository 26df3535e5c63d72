//! `rtac plot DIR` draws the output of `rtac sim --out DIR`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TINY: &str = r#"
name = "tiny"
duration = "3s"
seed = 3
controllers = ["autotuning", "rtac"]

[[link]]
name = "bn"
rate = "10mbit"
delay = "10ms"
queue = "droptail:packets=100"

[[flow]]
count = 2
cc = "cubic"
"#;

fn temp_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rtac-plot-sim-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rtac(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtac")).args(args).output().expect("the rtac binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn plot_draws_the_output_of_sim() {
    let dir = temp_dir("draws");
    let scenario = dir.join("tiny.toml");
    std::fs::write(&scenario, TINY).unwrap();
    let out = dir.join("out");
    let o = rtac(&["sim", scenario.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));

    let o = rtac(&["plot", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.contains("2 runs (autotuning, rtac), wrote 8 charts"), "{stdout}");
    for chart in ["sim-throughput", "sim-window", "sim-rtt", "sim-queue"] {
        for ext in ["png", "svg"] {
            let p = out.join(format!("{chart}.{ext}"));
            let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
            assert!(len > 0, "{} missing or empty", p.display());
        }
        // One line per run, named after it.
        let svg = std::fs::read_to_string(out.join(format!("{chart}.svg"))).unwrap();
        assert!(svg.contains("autotuning") && svg.contains("rtac"), "{chart}.svg lacks a run");
    }

    // --out puts the charts elsewhere.
    let elsewhere = dir.join("charts");
    let o = rtac(&["plot", out.to_str().unwrap(), "--out", elsewhere.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(std::fs::metadata(elsewhere.join("sim-queue.png")).unwrap().len() > 0);
}

#[test]
fn a_directory_of_neither_kind_is_a_clear_error() {
    let dir = temp_dir("neither");
    std::fs::write(dir.join("notes.txt"), "nothing to draw").unwrap();
    let o = rtac(&["plot", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(
        e.contains("a directory without down.log or up.log") && e.contains("summary.json (`rtac sim --out`)"),
        "{e}"
    );
}
