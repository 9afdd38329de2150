//! The `wrench` command: run the server, print the OpenAPI document, make API keys.

use std::{path::PathBuf, process::ExitCode};

const USAGE: &str = "\
wrench: a self-hostable HTTP API of developer utilities

Usage:
  wrench [serve] [--config FILE] [--dev]
                                   run the server (settings: WRENCH_* variables, see README);
                                   --dev turns the anonymous rate limits off, for local use
  wrench openapi [--spec 3.0]      print the OpenAPI 3.1 document (or its 3.0.3 rendering)
  wrench mcp [--config FILE] [--dev]
                                   serve every operation as an MCP tool over stdin/stdout
                                   (WRENCH_API_KEY: the key its calls carry)
  wrench data [--config FILE]      load the configured data sets and say what each holds
  wrench keys new                  print a fresh API key and the digest to configure
  wrench --version | --help";

fn print_json(doc: &serde_json::Value) -> ExitCode {
    match serde_json::to_string_pretty(doc) {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e.to_string()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    let dev = args.contains(&"--dev");
    args.retain(|a| *a != "--dev");
    if dev && !matches!(args.as_slice(), [] | ["serve", ..] | ["mcp", ..] | ["--config", _]) {
        eprintln!("--dev applies to `wrench serve` and `wrench mcp` only\n\n{USAGE}");
        return ExitCode::from(2);
    }
    match args.as_slice() {
        ["--help" | "-h" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        ["--version" | "-V"] => {
            println!("wrench {} (API {})", env!("CARGO_PKG_VERSION"), wrench::openapi::API_VERSION);
            ExitCode::SUCCESS
        }
        ["openapi"] | ["openapi", "--spec", "3.1"] => print_json(&wrench::openapi_document()),
        ["openapi", "--spec", "3.0"] => print_json(&wrench::openapi::v30::render(&wrench::openapi_document())),
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
        ["data"] => data(None),
        ["data", "--config", file] => data(Some(PathBuf::from(file))),
        ["mcp"] => run(None, dev, Serving::McpStdio),
        ["mcp", "--config", file] => run(Some(PathBuf::from(file)), dev, Serving::McpStdio),
        [] | ["serve"] => serve(None, dev),
        ["serve", "--config", file] | ["--config", file] => serve(Some(PathBuf::from(file)), dev),
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Which way the service is offered.
enum Serving {
    Http,
    /// MCP over stdin and stdout, for desktop clients.
    McpStdio,
}

fn serve(file: Option<PathBuf>, dev: bool) -> ExitCode {
    run(file, dev, Serving::Http)
}

fn run(file: Option<PathBuf>, dev: bool, serving: Serving) -> ExitCode {
    let mut config = match wrench::config::Config::load(file.as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(&format!("configuration: {e}")),
    };
    if dev {
        // For a developer's own machine: Swagger UI's "Try it out" and local scripts are not
        // stopped by the anonymous quota. Keyed quotas and everything else stay as configured.
        config.anon_quota = wrench::config::Quota::UNLIMITED;
        eprintln!("wrench: --dev: anonymous rate limits are off; do not expose this instance to others");
    }
    // Parsers recurse once per nesting level (up to the shared limit of 128): 8 MiB of stack
    // per thread is reserved address space, touched only as deep as a request goes.
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().thread_stack_size(8 << 20).build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("could not start the runtime: {e}")),
    };
    let served = match serving {
        Serving::Http => runtime.block_on(wrench::http::serve(config, wrench::operations())),
        Serving::McpStdio => {
            let key = std::env::var("WRENCH_API_KEY").ok().filter(|k| !k.is_empty());
            runtime.block_on(wrench::http::serve_mcp_stdio(config, wrench::operations(), key))
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// Loads every configured data set as the server would and prints what each holds, or why
/// it is not there. Fails when a configured data set does not load.
fn data(file: Option<PathBuf>) -> ExitCode {
    let config = match wrench::config::Config::load(file.as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(&format!("configuration: {e}")),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("could not start the runtime: {e}")),
    };
    let sets = wrench::datasets::Datasets::new(&config.datasets);
    let started = std::time::Instant::now();
    runtime.block_on(sets.load_all());
    let mut failed = false;
    println!("Embedded: {}", wrench::datasets::embedded_summary());
    for s in sets.status() {
        println!();
        println!("{} ({}): {}", s.name, s.setting, s.state);
        for f in &s.files {
            println!("  file:     {f}");
        }
        if let Some(m) = &s.summary {
            println!("  format:   {}", m.format);
            println!("  source:   {}", m.source);
            println!("  built:    {}", m.built.as_deref().unwrap_or("not stated"));
            println!("  records:  {}", m.records);
            println!("  licence:  {}", m.licence);
            if let Some(a) = &m.attribution {
                println!("  credit:   {a}");
            }
        }
        if let Some(e) = &s.error {
            println!("  error:    {e}");
            failed |= s.state == "failed";
        }
    }
    println!();
    println!("loaded in {:.2} s", started.elapsed().as_secs_f64());
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("wrench: {message}");
    ExitCode::FAILURE
}
