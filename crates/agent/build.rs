//! Embeds the LD_PRELOAD shim (librtac_preload.so) in release builds, so
//! that an installed `rtac` (`cargo install --path crates/cli`, which
//! installs binaries only) runs `rtac run --mode preload` with no library
//! beside it; `src/preload_lib.rs` writes it out at run time.
//!
//! A cdylib cannot be a dependency whose file a build script is told, so
//! this runs a second cargo on `crates/preload` with a target directory of
//! its own under OUT_DIR (no lock shared with the outer build), with the
//! workspace's release profile. It is done for the release profile only
//! (`RTAC_EMBED_PRELOAD=1` forces it, `=0` turns it off): debug and test
//! builds find the library that Cargo leaves beside their binaries.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(rtac_embedded_preload)");
    println!("cargo:rerun-if-env-changed=RTAC_EMBED_PRELOAD");
    let embed = match std::env::var("RTAC_EMBED_PRELOAD").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => std::env::var("PROFILE").as_deref() == Ok("release"),
    };
    if !embed {
        return;
    }
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let crates = manifest.parent().expect("crates/").to_path_buf();
    for watched in [
        "preload/src",
        "preload/Cargo.toml",
        "live/src",
        "live/bpf",
        "live/build.rs",
        "live/Cargo.toml",
        "core/src",
        "core/Cargo.toml",
    ] {
        println!("cargo:rerun-if-changed={}", crates.join(watched).display());
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let target_dir = out.join("preload-target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = std::env::var("TARGET").expect("TARGET");
    let host = std::env::var("HOST").expect("HOST");
    let mut cmd = Command::new(&cargo);
    cmd.args(["build", "--release", "--lib", "--manifest-path"])
        .arg(crates.join("preload/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        // what goes into every program needs no debug information
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
        .env("CARGO_PROFILE_RELEASE_STRIP", "debuginfo");
    if std::env::var_os("CARGO_NET_OFFLINE").is_some() {
        cmd.arg("--offline");
    }
    let mut lib_dir = target_dir.clone();
    if target != host {
        cmd.args(["--target", &target]);
        lib_dir = lib_dir.join(&target);
    }
    let lib = lib_dir.join("release").join("librtac_preload.so");
    match cmd.status() {
        Ok(s) if s.success() && lib.is_file() => {}
        Ok(s) => panic!(
            "building librtac_preload.so to embed it failed ({s}; {} expected); \
             RTAC_EMBED_PRELOAD=0 builds rtac without it",
            lib.display()
        ),
        Err(e) => panic!("cannot run {} to build librtac_preload.so: {e}", Path::new(&cargo).display()),
    }
    println!("cargo:rustc-env=RTAC_EMBEDDED_PRELOAD={}", lib.display());
    println!("cargo:rustc-cfg=rtac_embedded_preload");
}
