//! The `git-skill` binary: parse, run, render, exit. Everything else lives in the library.

mod cli;

// musl's allocator is slow under the scan's threads; the static release builds use mimalloc.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
