//! Runs the shared fakes for a wrench server under test (CI's contract fuzzing), until killed.
//! The first argument is where to write the test authority's PEM file; the settings that point
//! wrench at the fakes are printed, one `NAME=value` per line, then `ready`.

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| "wrench-fakes-ca.pem".into());
    let fakes = match wrench_fakes::start(path.into()).await {
        Ok(f) => f,
        Err(e) => {
            eprintln!("wrench-fakes: {e}");
            std::process::exit(1);
        }
    };
    for (k, v) in fakes.settings() {
        println!("{k}={v}");
    }
    println!("ready");
    std::future::pending::<()>().await;
}
