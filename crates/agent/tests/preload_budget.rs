//! The preload mode's window budgets (no privilege needed): a program's
//! two loopback downloads share the process's budget of the group `lo`,
//! which the closing line and the log name; with `budget=connection`
//! neither does.

use std::process::Command;

mod common;
use common::server;

/// Two connections to 127.0.0.1:PORT, read to the end together.
const RECEIVE: &str = r#"
import selectors, socket, sys
port = int(sys.argv[1])
sel = selectors.DefaultSelector()
for _ in range(2):
    c = socket.create_connection(("127.0.0.1", port))
    c.sendall(b"x")
    sel.register(c, selectors.EVENT_READ)
got = 0
while sel.get_map():
    for key, _ in sel.select():
        b = key.fileobj.recv(65536)
        if not b:
            sel.unregister(key.fileobj)
            key.fileobj.close()
        got += len(b)
print("DONE", got)
"#;

/// The shim built with this test (beside the test binary): a copy beside
/// rtac-dev may be an older build's.
fn preload() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    [deps.join("librtac_preload.so"), deps.parent().unwrap().join("librtac_preload.so")]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("librtac_preload.so not found next to {}", exe.display()))
}

fn run(controller: &str, tag: &str) -> (String, Vec<rtac_live::log::LogRecord>) {
    let total = 4 << 20;
    let port = server(total);
    let dir = std::env::temp_dir().join(format!("rtac-preload-budget-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("receive.py");
    std::fs::write(&script, RECEIVE).unwrap();
    let log = dir.join("steps.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_rtac-dev"))
        .args(["run", "--mode", "preload", "-c", controller, "--preload"])
        .arg(preload())
        .arg("--log")
        .arg(&log)
        .arg("--")
        .arg("python3")
        .arg(&script)
        .arg(port.to_string())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), format!("DONE {}", 2 * total));
    let rows = rtac_live::log::read_log(&log).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (stderr, rows)
}

#[test]
fn a_programs_loopback_connections_share_the_budget_of_lo() {
    let (stderr, rows) = run("rtac", "link");
    assert!(stderr.contains("controlled 2 TCP socket(s) in 1 process(es)"), "{stderr}");
    assert!(stderr.contains("window budgets per access link: lo in pid"), "{stderr}");
    assert!(stderr.contains(": 2 socket(s)"), "{stderr}");
    let conns: std::collections::BTreeSet<u64> = rows.iter().map(|r| r.conn).collect();
    assert_eq!(conns.len(), 2, "two connections logged");
    assert!(rows.iter().all(|r| r.group == "lo"), "every row names lo");
}

#[test]
fn budget_connection_gives_each_connection_its_own_controller() {
    let (stderr, rows) = run("rtac:budget=connection", "own");
    assert!(stderr.contains("controlled 2 TCP socket(s)"), "{stderr}");
    assert!(!stderr.contains("window budgets"), "{stderr}");
    assert!(!rows.is_empty() && rows.iter().all(|r| r.group.is_empty()));
}
