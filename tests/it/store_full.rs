//! A store with no room, for real: a `redis-server` at a small `maxmemory` (and one primary of
//! a Redis Cluster at its limit), and the embedded store on a small tmpfs in a user and mount
//! namespace of its own (`unshare -rmpf`), filled by the server's own writes and by another
//! file. In each, writes answer 507 `STORE_FULL` with `Retry-After` while every acknowledged
//! item still reads, `/ready` stays 200 and `/health` says the store is not writable and why;
//! once room returns, writes work again within seconds, without a restart, and nothing
//! acknowledged is lost (the embedded store is also read back after a restart). Parts that
//! cannot run here (no `redis-server`, no namespaces) say so with a SKIPPED line; CI sets
//! `WRENCH_TEST_REQUIRE_MOUNTNS`, which makes a missing namespace a failure.

use crate::common;

use std::{
    collections::HashMap,
    process::{Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A JSON answer: status, the `Retry-After` header, the body.
struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: Value,
}

async fn call(client: &reqwest::Client, method: reqwest::Method, url: String, body: Option<Value>) -> Answer {
    let mut request = client.request(method, url);
    if let Some(body) = body {
        request = request.header("Content-Type", "application/json").body(body.to_string());
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
    let body = serde_json::from_str(&response.text().await.unwrap()).unwrap_or(Value::Null);
    Answer { status, retry_after, body }
}

/// Creates a paste; its id when stored, else the refusal.
async fn paste(client: &reqwest::Client, base: &str, content: &str) -> Result<String, Answer> {
    paste_with_token(client, base, content).await.map(|(id, _)| id)
}

/// Creates a paste; its id and delete token when stored, else the refusal.
async fn paste_with_token(client: &reqwest::Client, base: &str, content: &str) -> Result<(String, String), Answer> {
    let a =
        call(client, reqwest::Method::POST, format!("{base}/v1/paste/create"), Some(json!({"content": content}))).await;
    match a.status {
        200 => Ok((
            a.body["data"]["id"].as_str().unwrap().to_string(),
            a.body["data"]["deleteToken"].as_str().unwrap().to_string(),
        )),
        _ => Err(a),
    }
}

/// Every paste in `kept` reads back whole.
async fn all_read_back(client: &reqwest::Client, base: &str, kept: &HashMap<String, String>) {
    for (id, content) in kept {
        let a = call(client, reqwest::Method::GET, format!("{base}/v1/paste/{id}"), None).await;
        assert_eq!(a.status, 200, "paste {id}: {}", a.body);
        assert!(a.body["data"]["content"] == content.as_str(), "paste {id} came back different");
    }
}

/// A refusal for lack of room, as the contract words it.
fn assert_full(a: &Answer, what: &str) {
    assert_eq!(a.status, 507, "{what}: {}", a.body);
    assert_eq!(a.body["error"]["code"], "STORE_FULL", "{what}");
    assert_eq!(a.retry_after.as_deref(), Some("5"), "{what}: Retry-After");
}

async fn store_state(client: &reqwest::Client, base: &str) -> Value {
    call(client, reqwest::Method::GET, format!("{base}/health"), None).await.body["data"]["store"].clone()
}

async fn ready(client: &reqwest::Client, base: &str) -> u16 {
    call(client, reqwest::Method::GET, format!("{base}/ready"), None).await.status
}

fn redis_cli(port: u16, args: &[&str]) -> String {
    let out = Command::new("redis-cli").arg("-p").arg(port.to_string()).args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test]
async fn a_full_redis_refuses_writes_with_507_and_nothing_else() {
    let port = free_port();
    let redis = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .args(["--maxmemory", "6mb", "--maxmemory-policy", "noeviction"])
        .stdout(Stdio::null())
        .spawn();
    let Ok(redis) = redis else {
        common::skipped("redis-server does not start here");
        return;
    };
    let _redis = common::Killed(redis);
    // Anonymous callers are counted in the store, as by default: a full Redis refuses the
    // counts too, and the requests go through regardless.
    let (store, addr, serving) = common::serve_on_redis(port, "wrench-full-test:").await;
    assert!(store.ping().await.is_ok(), "the test's Redis did not start");
    let base = format!("http://{addr}");
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();

    // Before: pastes, a short link without limits and one with a visit limit, an inbox.
    let mut kept = HashMap::new();
    for i in 0..20 {
        let content = format!("paste {i} ").repeat(50);
        kept.insert(paste(&client, &base, &content).await.unwrap_or_else(|a| panic!("{}", a.body)), content);
    }
    let link = |body: Value| {
        let client = client.clone();
        let base = base.clone();
        async move {
            let a = call(&client, reqwest::Method::POST, format!("{base}/v1/short-url/create"), Some(body)).await;
            assert_eq!(a.status, 200, "{}", a.body);
            a.body["data"]["slug"].as_str().unwrap().to_string()
        }
    };
    let open_link = link(json!({"url": "https://example.com/open"})).await;
    let limited_link = link(json!({"url": "https://example.com/limited", "maxVisits": 1000})).await;
    let inbox = call(&client, reqwest::Method::POST, format!("{base}/v1/webhook/inbox/create"), Some(json!({}))).await;
    let inbox = inbox.body["data"]["id"].as_str().unwrap().to_string();
    let recipe = json!({"recipe": {"steps": ["base64Decode", {"op": "textCase", "args": {"to": "upper"}}]}});
    let stored = call(&client, reqwest::Method::POST, format!("{base}/v1/recipes"), Some(recipe.clone())).await;
    assert_eq!(stored.status, 200, "{}", stored.body);
    let run_url = stored.body["data"]["runUrl"].as_str().unwrap().to_string();
    assert!(run_url.starts_with("http://"), "{}", stored.body);
    let run_path = format!("{base}/v1/recipes/{}/run", stored.body["data"]["id"].as_str().unwrap());

    // Redis fills up with the service's own writes.
    let big = "x".repeat(256 * 1024);
    let refused = loop {
        match paste(&client, &base, &big).await {
            Ok(id) => {
                kept.insert(id, big.clone());
            }
            Err(a) => break a,
        }
        assert!(kept.len() < 200, "6 MB of Redis took {} pastes of 256 KiB", kept.len());
    };
    assert_full(&refused, "the paste that found Redis full");
    assert!(refused.body["error"]["message"].as_str().unwrap().contains("memory limit"), "{}", refused.body);
    // Redis refuses a write while what it holds (request buffers included) is over the limit,
    // so a small write may still fit between two large ones. From here it is held over its
    // limit, as other clients writing to it would hold it: every write is refused.
    let used: u64 = redis_cli(port, &["info", "memory"])
        .lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap();
    assert_eq!(redis_cli(port, &["config", "set", "maxmemory", &(used / 2).to_string()]), "OK");

    // While it is full: three writers go on writing and are refused with 507, while everything
    // stored reads, an open short link redirects, a stored recipe runs, /ready says ready, and
    // no breaker opens.
    let writers: Vec<_> = (0..3)
        .map(|_| {
            let (client, base, big) = (client.clone(), base.clone(), big.clone());
            tokio::spawn(async move {
                let until = Instant::now() + Duration::from_secs(3);
                let mut statuses = Vec::new();
                while Instant::now() < until {
                    statuses.push(match paste(&client, &base, &big).await {
                        Ok(_) => 200,
                        Err(a) => a.status,
                    });
                }
                statuses
            })
        })
        .collect();
    let mut rounds = 0;
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        all_read_back(&client, &base, &kept).await;
        let a = call(&client, reqwest::Method::GET, format!("{base}/v1/short-url/r/{open_link}"), None).await;
        assert_eq!(a.status, 302, "a full Redis still redirects an open link");
        assert_eq!(ready(&client, &base).await, 200, "a full Redis is still ready");
        rounds += 1;
    }
    let statuses: Vec<u16> =
        futures_util::future::join_all(writers).await.into_iter().flat_map(Result::unwrap).collect();
    let refusals = statuses.iter().filter(|s| **s == 507).count();
    assert!(refusals > 0 && refusals == statuses.len(), "writes while Redis is full: {statuses:?}");
    let limited = call(&client, reqwest::Method::GET, format!("{base}/v1/short-url/r/{limited_link}"), None).await;
    assert_full(&limited, "a link whose visit must be spent");
    let delivery =
        call(&client, reqwest::Method::POST, format!("{base}/v1/webhook/inbox/{inbox}/receive"), Some(json!({"a": 1})))
            .await;
    assert_full(&delivery, "a webhook delivery");
    let ran = call(&client, reqwest::Method::POST, run_path.clone(), Some(json!({"input": "aGVsbG8="}))).await;
    assert_eq!((ran.status, &ran.body["data"]["result"]["converted"]), (200, &json!("HELLO")), "{}", ran.body);
    let refused = call(&client, reqwest::Method::POST, format!("{base}/v1/recipes"), Some(recipe.clone())).await;
    assert_full(&refused, "a recipe to store");
    let state = store_state(&client, &base).await;
    assert_eq!(state["reachable"], true, "{state}");
    assert_eq!(state["writable"], false, "{state}");
    assert!(state["reason"].as_str().unwrap().contains("memory limit"), "{state}");
    let metrics = reqwest::get(format!("{base}/metrics")).await.unwrap().text().await.unwrap();
    assert!(metrics.contains("wrench_store_circuit_open 0"), "a refusal opened the breaker");

    // Room returns (the limit is raised): writes work again at once, with no restart.
    assert_eq!(redis_cli(port, &["config", "set", "maxmemory", "0"]), "OK");
    let id = paste(&client, &base, "room again").await.unwrap_or_else(|a| panic!("{}", a.body));
    kept.insert(id, "room again".into());
    assert_eq!(store_state(&client, &base).await["writable"], true);
    let a = call(&client, reqwest::Method::GET, format!("{base}/v1/short-url/r/{limited_link}"), None).await;
    assert_eq!(a.status, 302);
    let again = call(&client, reqwest::Method::POST, format!("{base}/v1/recipes"), Some(recipe)).await;
    assert_eq!(again.status, 200, "{}", again.body);
    all_read_back(&client, &base, &kept).await;
    eprintln!(
        "{} pastes stored before Redis was full; while full: {refusals} writes refused with 507, \
         {rounds} rounds of reads of all of them, redirects and /ready all answered",
        kept.len() - 1
    );
    serving.abort();
}

/// One primary of a Redis Cluster at its memory limit: writes to its slots are refused (as
/// `Full`, which opens no breaker), reads of its slots and everything on the other primaries go
/// on, the store says which part is full, and the primary's slots take writes again once it has
/// room.
#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn a_full_primary_of_a_cluster_refuses_its_writes_alone() {
    use wrench_infra::store::{Store, StoreError, breaker::Breaker, redis::RedisStore};
    let cluster = common::cluster::Cluster::start();
    let redis = RedisStore::connect(&cluster.url(), "wrench-full-test:").unwrap();
    assert!(redis.wait_connected(Duration::from_secs(5)).await, "the cluster does not answer");
    let breaker = Arc::new(Breaker::new(Arc::new(redis)));
    let store: Arc<dyn Store> = breaker.clone();
    let primaries = cluster.primaries();
    let victim = primaries[1];
    let on = |port: u16, name: &str| format!("{name}{{{}}}", cluster.tag_on(port));
    let (full_key, others): (String, Vec<String>) =
        (on(victim, "k"), primaries.iter().filter(|&&p| p != victim).map(|&p| on(p, "k")).collect());
    store.put(&full_key, b"before", None).await.unwrap();
    assert!(store.writable().await.is_ok());

    // Any write is refused while the primary holds more than its limit.
    assert_eq!(redis_cli(victim, &["config", "set", "maxmemory", "1"]), "OK");
    for _ in 0..20 {
        let refused = store.put(&full_key, b"after", None).await;
        assert!(matches!(refused, Err(StoreError::Full(_))), "{refused:?}");
        assert_eq!(store.get(&full_key).await.unwrap().as_deref(), Some(&b"before"[..]), "reads of its slots go on");
        for key in &others {
            store.put(key, b"on", None).await.unwrap();
            assert!(store.incr(&format!("{key}:n"), None).await.unwrap().0 > 0);
        }
    }
    assert!(breaker.open_parts().is_empty(), "a refusal opened a breaker: {:?}", breaker.open_parts());
    let state = store.writable().await;
    assert!(
        matches!(&state, Err(StoreError::Full(why)) if why.starts_with("1 of the Redis Cluster's primaries")),
        "{state:?}"
    );

    // Room returns on that primary: its slots take writes again, with the same client.
    assert_eq!(redis_cli(victim, &["config", "set", "maxmemory", "0"]), "OK");
    store.put(&full_key, b"after", None).await.unwrap();
    assert_eq!(store.get(&full_key).await.unwrap().as_deref(), Some(&b"after"[..]));
    let state = store.writable().await;
    assert!(state.is_ok(), "{state:?}");
}

/// The real binary with its data directory on a 24 MiB tmpfs that only it sees: a user, mount
/// and PID namespace of its own (`unshare -rmpf`), where a shell mounts the tmpfs, starts and
/// kills the server, and fills or frees the disk with a file of its own, on command.
struct SmallDisk {
    shell: common::Killed,
    commands: std::process::ChildStdin,
    answers: std::io::BufReader<std::process::ChildStdout>,
    port: u16,
    log: std::path::PathBuf,
    dir: std::path::PathBuf,
}

/// The shell in the namespace: one command a line, one answer a line.
const SHELL: &str = r#"
mount -t tmpfs -o size=24m tmpfs "$MNT" || exit 1
echo mounted
pid=
while read -r cmd; do
  case "$cmd" in
    start) "$BIN" serve >>"$LOG" 2>&1 & pid=$!; echo started ;;
    kill) kill -9 "$pid"; wait "$pid" 2>/dev/null; echo killed ;;
    fill) dd if=/dev/zero of="$MNT/ballast" bs=64k >/dev/null 2>&1; echo filled ;;
    fill10) dd if=/dev/zero of="$MNT/ballast" bs=64k count=160 >/dev/null 2>&1; echo filled ;;
    free) rm -f "$MNT/ballast"; echo freed ;;
  esac
done
"#;

impl SmallDisk {
    /// `None` (after saying why) where namespaces cannot be made here.
    fn start() -> Option<SmallDisk> {
        use std::io::BufRead;
        let dir = std::env::temp_dir().join(format!("wrench-small-disk-{}", uuid::Uuid::new_v4().simple()));
        let mnt = dir.join("disk");
        std::fs::create_dir_all(&mnt).unwrap();
        let (port, log) = (free_port(), dir.join("server.log"));
        let shell = Command::new("unshare")
            .args(["-rmpf", "--kill-child", "sh", "-c", SHELL])
            .env("MNT", &mnt)
            // WRENCH_TEST_BIN runs the same against another build (a release build, say).
            .env("BIN", std::env::var_os("WRENCH_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_wrench").into()))
            .env("LOG", &log)
            .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
            .env("WRENCH_DATA_DIR", mnt.join("data"))
            .env("WRENCH_LOG", "warn")
            .env("WRENCH_RATE_ANON_PER_MINUTE", "0")
            .env("WRENCH_RATE_ANON_PER_DAY", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut shell = match shell {
            Ok(shell) => common::Killed(shell),
            Err(e) => return SmallDisk::unavailable(&dir, &format!("`unshare` does not run here ({e})")),
        };
        let commands = shell.0.stdin.take().unwrap();
        let mut answers = std::io::BufReader::new(shell.0.stdout.take().unwrap());
        let mut first = String::new();
        let _ = answers.read_line(&mut first);
        if first.trim() != "mounted" {
            return SmallDisk::unavailable(
                &dir,
                "no user and mount namespace with a tmpfs could be made (unshare -rmpf)",
            );
        }
        Some(SmallDisk { shell, commands, answers, port, log, dir })
    }

    fn unavailable(dir: &std::path::Path, why: &str) -> Option<SmallDisk> {
        let _ = std::fs::remove_dir_all(dir);
        assert!(std::env::var_os("WRENCH_TEST_REQUIRE_MOUNTNS").is_none(), "{why}; WRENCH_TEST_REQUIRE_MOUNTNS is set");
        common::skipped(why);
        None
    }

    fn run(&mut self, command: &str) {
        use std::io::{BufRead, Write};
        writeln!(self.commands, "{command}").unwrap();
        let mut answer = String::new();
        self.answers.read_line(&mut answer).unwrap();
        assert!(!answer.is_empty(), "the namespace's shell ended at {command:?}");
    }

    async fn start_server(&mut self) -> String {
        self.run("start");
        common::when_listening(self.port, Duration::from_secs(10)).await;
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = &self.shell;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Pastes until one is refused; each acknowledged one in `kept` (and its delete token in
/// `tokens`). The refusal.
async fn fill_with_pastes(
    client: &reqwest::Client,
    base: &str,
    kept: &mut HashMap<String, String>,
    tokens: &mut HashMap<String, String>,
) -> Answer {
    // Each paste is told apart by its number.
    let content = |i: usize| format!("{i:06}:").repeat(128 * 1024 / 7);
    loop {
        let i = kept.len();
        match paste_with_token(client, base, &content(i)).await {
            Ok((id, token)) => {
                kept.insert(id.clone(), content(i));
                tokens.insert(id, token);
            }
            Err(a) => return a,
        }
        assert!(i < 400, "a 24 MiB disk took {i} pastes of 128 KiB");
    }
}

#[tokio::test]
async fn a_full_disk_refuses_writes_keeps_reads_and_heals_without_a_restart() {
    let Some(mut disk) = SmallDisk::start() else { return };
    let base = disk.start_server().await;
    let client = reqwest::Client::new();
    let (mut kept, mut tokens) = (HashMap::new(), HashMap::new());

    // Another program's 10 MiB file, then the server's pastes fill the disk: new data is
    // refused at the reserve, while everything stored reads and the instance stays ready.
    disk.run("fill10");
    let refused = fill_with_pastes(&client, &base, &mut kept, &mut tokens).await;
    assert_full(&refused, "the paste that found the disk full");
    let message = refused.body["error"]["message"].as_str().unwrap();
    assert!(message.contains("disk") && !message.contains(&disk.dir.display().to_string()), "{message}");
    assert!(kept.len() >= 20, "only {} pastes fitted", kept.len());
    let state = store_state(&client, &base).await;
    assert_eq!((state["reachable"].clone(), state["writable"].clone()), (json!(true), json!(false)), "{state}");
    assert!(state["reason"].as_str().unwrap().contains("reserve"), "{state}");
    assert_eq!(ready(&client, &base).await, 200);
    all_read_back(&client, &base, &kept).await;

    // The other program's file goes: writes work again at once, with no restart.
    disk.run("free");
    let id = paste(&client, &base, "room again").await.unwrap_or_else(|a| panic!("{}", a.body));
    kept.insert(id, "room again".into());
    assert_eq!(store_state(&client, &base).await["writable"], true);

    // The server fills the disk again; deleting pastes makes room inside the store's file (the
    // disk shows no more room than before), which writes use within seconds.
    assert_full(&fill_with_pastes(&client, &base, &mut kept, &mut tokens).await, "the disk full again");
    let gone: Vec<String> = tokens.keys().take(20).cloned().collect();
    for id in &gone {
        let deleted = client.delete(format!("{base}/v1/paste/{id}")).header("X-Delete-Token", &tokens[id]).send().await;
        assert_eq!(deleted.unwrap().status(), 200, "a deletion on a full disk");
        kept.remove(id);
    }
    let deleted_at = Instant::now();
    for i in 0..5 {
        let id = loop {
            match paste(&client, &base, &format!("in freed pages {i}")).await {
                Ok(id) => break id,
                Err(a) => assert_full(&a, "a paste after deletions"),
            }
            assert!(deleted_at.elapsed() < Duration::from_secs(10), "writes did not use the room deletions made");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        kept.insert(id, format!("in freed pages {i}"));
    }
    let reused_after = deleted_at.elapsed();

    // Another program takes every byte left. Writes that fit in what is left of the pages the
    // deletions freed still go ahead; the first that does not is refused (its commit meets the
    // full disk, which costs a reopen of the file and nothing else), and so are the next. Reads
    // go on, the instance stays ready, and a deletion (the way to make room) gets an answer,
    // whatever the disk could give it.
    disk.run("fill");
    assert_full(&fill_with_pastes(&client, &base, &mut kept, &mut tokens).await, "a paste on a full disk");
    for i in 0..5 {
        let content = format!("{i:06}:").repeat(128 * 1024 / 7);
        assert_full(&paste(&client, &base, &content).await.unwrap_err(), "a paste on a full disk");
    }
    let (victim, token) = tokens.iter().find(|(id, _)| kept.contains_key(*id)).unwrap();
    let deleted = client.delete(format!("{base}/v1/paste/{victim}")).header("X-Delete-Token", token).send().await;
    let deleted = deleted.unwrap().status().as_u16();
    assert!([200, 507].contains(&deleted), "a deletion on a disk with no byte left: {deleted}");
    if deleted == 200 {
        kept.remove(&victim.clone());
    }
    all_read_back(&client, &base, &kept).await;
    assert_eq!(ready(&client, &base).await, 200);
    disk.run("free");

    // Killed and restarted on the same disk: everything acknowledged is there, none torn, and
    // nothing deleted came back.
    disk.run("kill");
    let base = disk.start_server().await;
    all_read_back(&client, &base, &kept).await;
    for id in &gone {
        assert_eq!(call(&client, reqwest::Method::GET, format!("{base}/v1/paste/{id}"), None).await.status, 404);
    }
    disk.run("kill");
    let log = std::fs::read_to_string(&disk.log).unwrap_or_default();
    eprintln!(
        "{} pastes acknowledged on a 24 MiB disk, read back after a restart; writes used the room of {} deletions \
         after {reused_after:?}; the server said:\n{log}",
        kept.len(),
        gone.len()
    );
}
