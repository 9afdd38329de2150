//! The `wrench` command: run the server, print the OpenAPI document, make API keys.

use std::{path::PathBuf, process::ExitCode};

const USAGE: &str = "\
wrench: a self-hostable HTTP API of developer utilities

Usage:
  wrench [serve] [--config FILE]   run the server (settings: WRENCH_* variables, see README)
  wrench openapi                   print the OpenAPI document
  wrench keys new                  print a fresh API key and the digest to configure
  wrench --version | --help";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["--help" | "-h" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        ["--version" | "-V"] => {
            println!("wrench {} (API {})", env!("CARGO_PKG_VERSION"), wrench::openapi::API_VERSION);
            ExitCode::SUCCESS
        }
        ["openapi"] => match serde_json::to_string_pretty(&wrench::openapi_document()) {
            Ok(doc) => {
                println!("{doc}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e.to_string()),
        },
        ["keys", "new"] => match wrench::keys::new_key() {
            Ok((key, digest)) => {
                println!("key:    {key}");
                println!("digest: {digest}");
                println!();
                println!("Give the key to the client; add the digest to WRENCH_API_KEYS (comma-separated).");
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
        [] | ["serve"] => serve(None),
        ["serve", "--config", file] | ["--config", file] => serve(Some(PathBuf::from(file))),
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn serve(file: Option<PathBuf>) -> ExitCode {
    let config = match wrench::config::Config::load(file.as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(&format!("configuration: {e}")),
    };
    // Parsers recurse once per nesting level (up to the shared limit of 128): 8 MiB of stack
    // per thread is reserved address space, touched only as deep as a request goes.
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().thread_stack_size(8 << 20).build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("could not start the runtime: {e}")),
    };
    match runtime.block_on(wrench::http::serve(config, wrench::operations())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("wrench: {message}");
    ExitCode::FAILURE
}
