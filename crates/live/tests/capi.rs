//! The C ABI from C: compiles tests/capi_test.c against include/rtac.h,
//! links librtac_live.so and runs it. Needs a C compiler (`cc`).

use std::path::PathBuf;
use std::process::Command;

fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    for d in [deps.clone(), deps.parent().unwrap().to_path_buf()] {
        if d.join("librtac_live.so").exists() {
            return d;
        }
    }
    panic!("librtac_live.so not found next to {}", exe.display());
}

#[test]
fn a_c_program_drives_a_controller_through_the_header() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("rtac-capi-{}", std::process::id()));
    let lib = lib_dir();
    let cc = Command::new("cc")
        .arg("-std=c11")
        .arg("-Wall")
        .arg("-Werror")
        .arg("-I")
        .arg(manifest.join("include"))
        .arg(manifest.join("tests/capi_test.c"))
        .arg("-o")
        .arg(&out)
        .arg("-L")
        .arg(&lib)
        .arg("-lrtac_live")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .output()
        .expect("a C compiler `cc` is needed for this test (Debian package gcc)");
    assert!(cc.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&cc.stderr));
    let run = Command::new(&out).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains("capi ok"), "{stdout}");
    let _ = std::fs::remove_file(out);
}
