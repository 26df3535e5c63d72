//! Compiles the BPF program (`bpf/rtac.bpf.c`) with clang when clang is
//! there; without it the crate builds and the BPF mode reports at run time
//! that it was built without its program (`--mode preload` still works).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=bpf/rtac.bpf.c");
    println!("cargo:rerun-if-env-changed=RTAC_CLANG");
    println!("cargo::rustc-check-cfg=cfg(rtac_bpf_object)");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("rtac.bpf.o");
    let clang = std::env::var("RTAC_CLANG").unwrap_or_else(|_| "clang".into());
    // <linux/bpf.h> includes <asm/types.h>, which Debian keeps per architecture.
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let multiarch = format!("/usr/include/{arch}-linux-gnu");
    let result = Command::new(&clang)
        .args(["-g", "-O2", "-target", "bpf", "-Wall", "-Werror"])
        .arg(format!("-I{multiarch}"))
        .args(["-c", "bpf/rtac.bpf.c", "-o"])
        .arg(&out)
        .status();
    match result {
        Ok(s) if s.success() => println!("cargo:rustc-cfg=rtac_bpf_object"),
        Ok(s) => panic!("{clang} failed to compile bpf/rtac.bpf.c ({s})"),
        Err(e) => {
            println!(
                "cargo:warning=rtac-live: {clang} not found ({e}): built without the BPF program; \
                 `rtac run --mode bpf` and `rtac daemon` will say so (install clang to build it)"
            );
            // Build again once clang appears: an install changes the
            // directories of PATH.
            println!("cargo:rerun-if-env-changed=PATH");
            let path = std::env::var_os("PATH").unwrap_or_default();
            for dir in std::env::split_paths(&path).filter(|d| d.is_dir()) {
                println!("cargo:rerun-if-changed={}", dir.display());
            }
        }
    }
}
