//! Logging: one subscriber for the process, from `WRENCH_LOG` and `WRENCH_LOG_FORMAT`, and a
//! panic hook that logs where a panic happened but never its message (messages can quote
//! client input). The line each request writes is the HTTP layer's (`http::App`), built by
//! `access_log`; this module sets up where lines go.

use wrench_infra::config::{Config, LogFormat};

/// Flushes the log when dropped: first the pending access lines (`access_log`), then the
/// background writer's queue.
pub struct LogGuard {
    _writer: tracing_appender::non_blocking::WorkerGuard,
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        // Runs before the fields drop: the writer still takes lines.
        crate::access_log::flush();
    }
}

/// Installs the log subscriber from the config and returns the guard that flushes buffered
/// lines when dropped; keep it alive for as long as the server runs.
///
/// Lines are handed to a background thread that writes them to stderr in batches, so a
/// request never waits on the terminal or a slow log collector. Nothing is dropped: when the buffer
/// (128,000 lines) is full, requests wait for it instead of losing lines.
pub fn init(config: &Config) -> Option<LogGuard> {
    use tracing_subscriber::EnvFilter;
    let mut filter = EnvFilter::try_new(&config.log).unwrap_or_else(|_| EnvFilter::new("info"));
    // The SVG renderer's warnings quote the text being drawn (a missing glyph, say) and ICU4X's
    // quote the locale or currency asked for: request content, so these crates never log,
    // whatever WRENCH_LOG says.
    for quiet in ["usvg=off", "resvg=off", "fontdb=off", "icu_provider=off"] {
        if let Ok(directive) = quiet.parse() {
            filter = filter.add_directive(directive);
        }
    }
    // The worker flushes whenever its queue is empty, so buffering batches lines under load
    // (one write instead of one per line) without holding any back when traffic is light.
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .finish(std::io::BufWriter::with_capacity(64 * 1024, std::io::stderr()));
    // Colours only for a person at a terminal; log files and collectors get plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let access = writer.clone();
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(writer);
    let installed = match config.log_format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
    // The access line is built by hand (`access_log`) when it goes to the same writer in plain
    // text or JSON; coloured lines for a terminal stay with the formatter.
    if installed.is_ok() && !ansi && tracing::enabled!(target: "wrench::request", tracing::Level::INFO) {
        crate::access_log::install(access, matches!(config.log_format, LogFormat::Json));
    }
    // Log where a panic happened but not its message: messages can quote client input.
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        tracing::error!(%location, "panic");
    }));
    installed.ok().map(|_| LogGuard { _writer: guard })
}
