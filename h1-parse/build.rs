//! Compiles the AVX-512 scanner path (`cfg(h1_avx512)`) when the compiler
//! has its intrinsics and target features, which are stable since Rust 1.89;
//! older compilers, down to the crate's MSRV, build the other paths only.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(out) = Command::new(rustc).arg("--version").output() else {
        return;
    };
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let version = String::from_utf8_lossy(&out.stdout);
    let mut parts = version
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .split(['.', '-'])
        .map(|p| p.parse::<u32>().ok());
    let (major, minor) = (parts.next().flatten(), parts.next().flatten());
    if let (Some(major), Some(minor)) = (major, minor) {
        // Declared only to compilers that check cfg names (1.80 on); older
        // cargo warns about the instruction.
        if major > 1 || minor >= 80 {
            println!("cargo:rustc-check-cfg=cfg(h1_avx512)");
        }
        if major > 1 || minor >= 89 {
            println!("cargo:rustc-cfg=h1_avx512");
        }
    }
}
