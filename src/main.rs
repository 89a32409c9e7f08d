//! The `git-skill` binary: parse, run, render, exit. Everything else lives in the library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
