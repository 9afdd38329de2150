//! The `wrench` command: run the server, print the OpenAPI document, make API keys.

use std::{path::PathBuf, process::ExitCode};

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

mod allocator;
mod health;
use allocator::{large_blocks_from_the_system, release_free_memory};

/// A self-hostable HTTP API of developer utilities.
///
/// Settings come from WRENCH_* variables and an optional TOML file; the README lists them.
#[derive(Debug, Parser)]
#[command(name = "wrench")]
struct Cli {
    /// A TOML settings file (the WRENCH_* variables win over it); also WRENCH_CONFIG.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Run the server, as `wrench serve` does.
    #[command(flatten)]
    serve: Dev,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server (what `wrench` alone does).
    Serve(Dev),
    /// Serve every operation as an MCP tool over stdin and stdout; calls carry the key in
    /// WRENCH_API_KEY, if set.
    Mcp(Dev),
    /// Print the OpenAPI document.
    Openapi {
        /// The OpenAPI version to print: 3.1, or its 3.0.3 rendering for older generators.
        #[arg(long, value_enum, default_value = "3.1")]
        spec: Spec,
    },
    /// Load the configured data sets and say what each holds; fails if one does not load.
    Data,
    /// Build every embedded table in turn and print the time and resident memory each adds
    /// (memory read from /proc, so Linux only).
    Tables,
    /// Manage API keys.
    #[command(subcommand)]
    Keys(Keys),
    /// Ask the running server's /health (or /ready) and exit 0 if it answers 200, else 1:
    /// a container healthcheck or exec probe that needs no shell or curl.
    Health {
        /// Ask /ready (the embedded tables built, the store reachable) instead of /health.
        #[arg(long)]
        ready: bool,
        /// The server's address; by default the configured listen address (WRENCH_LISTEN),
        /// on loopback when it listens on every interface.
        #[arg(long, value_name = "HOST:PORT")]
        address: Option<std::net::SocketAddr>,
        /// Seconds to wait for the answer, connecting included.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=300))]
        timeout: u64,
    },
    /// Evaluate one jq program for json/query: started by the server itself, reads the program
    /// and document on stdin and writes the answer on stdout.
    #[command(name = "jq-worker", hide = true)]
    JqWorker,
}

#[derive(Debug, Subcommand)]
enum Keys {
    /// Print a fresh API key and the digest to add to WRENCH_API_KEYS.
    New,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Spec {
    #[value(name = "3.1")]
    V31,
    #[value(name = "3.0")]
    V30,
}

#[derive(Debug, Args, Default)]
struct Dev {
    /// Turn the anonymous rate limits off, for a developer's own machine.
    #[arg(long)]
    dev: bool,
}

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
    large_blocks_from_the_system();
    // Made once per process; clap keeps `&'static str`s.
    let version: &'static str =
        format!("{} (API {})", env!("CARGO_PKG_VERSION"), wrench_server::openapi::API_VERSION).leak();
    let matches = Cli::command().version(version).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let file = cli.config.as_deref();
    let dev = cli.serve.dev;
    if dev && !matches!(cli.command, None | Some(Command::Serve(_) | Command::Mcp(_))) {
        Cli::command()
            .error(clap::error::ErrorKind::ArgumentConflict, "--dev applies to `wrench serve` and `wrench mcp` only")
            .exit();
    }
    match cli.command {
        None => run(file, dev, Serving::Http),
        Some(Command::Serve(args)) => run(file, dev || args.dev, Serving::Http),
        Some(Command::Mcp(args)) => run(file, dev || args.dev, Serving::McpStdio),
        Some(Command::Openapi { spec: Spec::V31 }) => print_json(&wrench::openapi_document()),
        Some(Command::Openapi { spec: Spec::V30 }) => {
            print_json(&wrench_server::openapi::v30::render(&wrench::openapi_document()))
        }
        Some(Command::Data) => data(file),
        Some(Command::Tables) => tables(),
        Some(Command::JqWorker) => ExitCode::from(wrench_kit::jq::worker::main() as u8),
        Some(Command::Health { ready, address, timeout }) => health(file, ready, address, timeout),
        Some(Command::Keys(Keys::New)) => match wrench_server::keys::new_key() {
            Ok((key, digest)) => {
                println!("key:    {key}");
                println!("digest: {digest}");
                println!();
                println!("Give the key to the client; add the digest to WRENCH_API_KEYS (comma-separated).");
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
    }
}

/// Which way the service is offered.
enum Serving {
    Http,
    /// MCP over stdin and stdout, for desktop clients.
    McpStdio,
}

fn run(file: Option<&std::path::Path>, dev: bool, serving: Serving) -> ExitCode {
    let mut config = match wrench_infra::config::Config::load(file) {
        Ok(c) => c,
        Err(e) => return fail(&format!("configuration: {e}")),
    };
    if dev {
        // For a developer's own machine: Swagger UI's "Try it out" and local scripts are not
        // stopped by the anonymous quota. Keyed quotas and everything else stay as configured.
        config.anon_quota = wrench_infra::config::Quota::UNLIMITED;
        eprintln!("wrench: --dev: anonymous rate limits are off; do not expose this instance to others");
    }
    // Parsers recurse once per nesting level (up to the shared limit of 128): 8 MiB of stack
    // per thread is reserved address space, touched only as deep as a request goes.
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().thread_stack_size(8 << 20).build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("could not start the runtime: {e}")),
    };
    wrench_server::http::on_memory_freed(release_free_memory);
    let served = match serving {
        Serving::Http => runtime.block_on(wrench_server::http::serve(config, wrench::registry())),
        Serving::McpStdio => {
            let key = std::env::var("WRENCH_API_KEY").ok().filter(|k| !k.is_empty());
            runtime.block_on(wrench_server::http::serve_mcp_stdio(config, wrench::registry(), key))
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// Loads every configured data set as the server would and prints what each holds, or why
/// it is not there. Fails when a configured data set does not load.
fn data(file: Option<&std::path::Path>) -> ExitCode {
    let config = match wrench_infra::config::Config::load(file) {
        Ok(c) => c,
        Err(e) => return fail(&format!("configuration: {e}")),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("could not start the runtime: {e}")),
    };
    let sets = wrench_infra::datasets::Datasets::new(&config.datasets);
    let started = std::time::Instant::now();
    runtime.block_on(sets.load_all());
    let mut failed = false;
    println!("Embedded: {}", wrench_infra::datasets::embedded_summary());
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
            failed |= s.state == wrench_infra::datasets::slot::State::Failed;
        }
    }
    println!();
    println!("loaded in {:.2} s", started.elapsed().as_secs_f64());
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// The process's resident memory in KiB, where /proc tells it.
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

/// Builds each embedded table once, in the registry's order, printing what it took: time, and
/// the resident memory it holds once what building it freed has been given back.
fn tables() -> ExitCode {
    let registry = wrench::registry();
    let mb = |kib: Option<u64>| kib.map_or("-".to_string(), |k| format!("{:.1}", k as f64 / 1024.0));
    release_free_memory();
    let before = rss_kib();
    println!("{:<36} {:>8} {:>9}", "table", "ms", "RSS +MB");
    let mut last = before;
    for table in &registry.tables {
        let started = std::time::Instant::now();
        (table.run)();
        let ms = started.elapsed().as_secs_f64() * 1e3;
        // What the table holds, not what building it freed.
        release_free_memory();
        let now = rss_kib();
        let added = match (last, now) {
            (Some(a), Some(b)) => format!("{:.1}", (b as f64 - a as f64) / 1024.0),
            _ => "-".to_string(),
        };
        println!("{:<36} {:>8.1} {:>9}", table.name, ms, added);
        last = now;
    }
    println!("RSS before: {} MB; after every table: {} MB", mb(before), mb(last));
    ExitCode::SUCCESS
}

/// `wrench health`: one request, its status on stderr only when it is not 200 (a
/// healthcheck's output is kept by the container engine; a passing one need not fill it).
fn health(
    file: Option<&std::path::Path>,
    ready: bool,
    address: Option<std::net::SocketAddr>,
    timeout: u64,
) -> ExitCode {
    let address = match address {
        Some(a) => a,
        None => match wrench_infra::config::Config::load(file) {
            Ok(c) => health::probe_address(c.listen),
            Err(e) => return fail(&format!("configuration: {e}")),
        },
    };
    let path = if ready { "/ready" } else { "/health" };
    match health::status(address, path, std::time::Duration::from_secs(timeout)) {
        Ok(200) => ExitCode::SUCCESS,
        Ok(code) => fail(&format!("{path} at {address} answered {code}")),
        Err(e) => fail(&e),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("wrench: {message}");
    ExitCode::FAILURE
}
