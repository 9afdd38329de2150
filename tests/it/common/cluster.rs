//! A local Redis Cluster for the tests: three primaries with a replica each, `redis-server`
//! processes on free loopback ports, joined with `redis-cli --cluster create`, stopped and
//! removed when dropped. The cluster bus ports are chosen explicitly (`--cluster-port`): the
//! default, the client port plus 10,000, does not exist for ports above 55,535, which the
//! operating system hands out as free ports.
#![allow(dead_code)]

use std::{
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

pub struct Cluster {
    /// Client port and process of each node, in the order given to `--cluster create`: the
    /// first three start as primaries.
    nodes: Vec<(u16, Child)>,
    dir: std::path::PathBuf,
    /// See [`Cluster::seed`].
    seed: u16,
}

/// Free loopback ports, all distinct (each is bound while the next is chosen).
fn free_ports(n: usize) -> Vec<u16> {
    let held: Vec<std::net::TcpListener> =
        (0..n).map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    held.iter().map(|l| l.local_addr().unwrap().port()).collect()
}

fn redis_cli(port: u16, args: &[&str]) -> String {
    let out = Command::new("redis-cli").arg("-p").arg(port.to_string()).args(args).output();
    out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default()
}

impl Cluster {
    pub fn start() -> Cluster {
        let dir = std::env::temp_dir().join(format!("wrench-cluster-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        let ports = free_ports(12);
        let (client, bus) = ports.split_at(6);
        let nodes = client
            .iter()
            .zip(bus)
            .map(|(&port, &bus)| {
                let child = Command::new("redis-server")
                    .args(["--port", &port.to_string(), "--cluster-port", &bus.to_string()])
                    .args(["--bind", "127.0.0.1", "--cluster-enabled", "yes"])
                    .args(["--cluster-config-file", &format!("nodes-{port}.conf"), "--cluster-node-timeout", "1000"])
                    // The other primaries keep serving their slots while one fails over (with
                    // the default, `yes`, Redis refuses every key, CLUSTERDOWN, meanwhile).
                    .args(["--cluster-require-full-coverage", "no"])
                    .args(["--save", "", "--appendonly", "no", "--dir"])
                    .arg(&dir)
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("redis-server runs (CI installs it)");
                (port, child)
            })
            .collect();
        let mut cluster = Cluster { nodes, dir, seed: 0 };
        for &port in client {
            let deadline = Instant::now() + Duration::from_secs(10);
            while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(Instant::now() < deadline, "redis-server on {port} did not start");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let addresses: Vec<String> = client.iter().map(|p| format!("127.0.0.1:{p}")).collect();
        let created = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addresses)
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .output()
            .unwrap();
        assert!(created.status.success(), "cluster create: {}", String::from_utf8_lossy(&created.stdout));
        cluster.wait_ready();
        cluster.seed = cluster.primaries()[0];
        cluster
    }

    /// Waits until every node reports `cluster_state:ok` and every replica has finished its
    /// first copy of its primary. The second matters for failover tests: a replica that never
    /// synchronised counts as disconnected since it started, longer than
    /// `cluster-replica-validity-factor` allows, so it refuses to take over and the cluster
    /// stays down (CLUSTERDOWN for every key) until the stopped primary returns.
    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let ready = |port: u16| {
            let replication = redis_cli(port, &["info", "replication"]);
            redis_cli(port, &["cluster", "info"]).contains("cluster_state:ok")
                && (replication.contains("role:master") || replication.contains("master_link_status:up"))
        };
        while !self.nodes.iter().all(|(p, _)| ready(*p)) {
            assert!(Instant::now() < deadline, "the cluster did not become ready");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A `redis-cluster://` URL naming every node, with the seed (a primary) first.
    pub fn url(&self) -> String {
        let seed = self.seed();
        let others: Vec<String> =
            self.nodes.iter().filter(|(p, _)| *p != seed).map(|(p, _)| format!("node=127.0.0.1:{p}")).collect();
        format!("redis-cluster://127.0.0.1:{seed}?{}", others.join("&"))
    }

    /// The node the URL names first, the one a client asks first for the slot map: the
    /// lowest-numbered primary at start (`--cluster create` chooses which nodes are primaries).
    pub fn seed(&self) -> u16 {
        self.seed
    }

    /// The port of the primary that holds `key`'s slot, asked of a running node.
    pub fn primary_of(&self, key: &str) -> u16 {
        let port = self.nodes.iter().map(|(p, _)| *p).find(|&p| !redis_cli(p, &["ping"]).is_empty()).unwrap();
        let slot: u16 = redis_cli(port, &["cluster", "keyslot", key]).trim().parse().unwrap();
        for line in redis_cli(port, &["cluster", "nodes"]).lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 9 || !f[2].contains("master") || f[2].contains("fail") {
                continue;
            }
            let owns = f[8..].iter().any(|range| match range.split_once('-') {
                Some((a, b)) => (a.parse::<u16>().unwrap_or(1)..=b.parse::<u16>().unwrap_or(0)).contains(&slot),
                None => range.parse::<u16>().is_ok_and(|s| s == slot),
            });
            if owns {
                return f[1].split(':').nth(1).and_then(|p| p.split('@').next()).unwrap().parse().unwrap();
            }
        }
        panic!("no primary holds slot {slot}");
    }

    /// The ports of the primaries that hold slots, asked of a running node.
    pub fn primaries(&self) -> Vec<u16> {
        let port = self.nodes.iter().map(|(p, _)| *p).find(|&p| !redis_cli(p, &["ping"]).is_empty()).unwrap();
        let mut ports: Vec<u16> = redis_cli(port, &["cluster", "nodes"])
            .lines()
            .map(|line| line.split_whitespace().collect::<Vec<_>>())
            .filter(|f| f.len() >= 9 && f[2].contains("master") && !f[2].contains("fail"))
            .map(|f| f[1].split(':').nth(1).and_then(|p| p.split('@').next()).unwrap().parse().unwrap())
            .collect();
        ports.sort();
        ports
    }

    /// A hash tag whose slot the primary on `port` holds: keys containing `{tag}` live there,
    /// whatever prefix the store under test adds.
    pub fn tag_on(&self, port: u16) -> String {
        (0..1_000)
            .map(|i| format!("t{i}"))
            .find(|tag| self.primary_of(&format!("{{{tag}}}")) == port)
            .expect("some tag hashes to every primary")
    }

    /// Kills the node on `port` at once (as a crash would).
    pub fn stop(&mut self, port: u16) {
        if let Some((_, child)) = self.nodes.iter_mut().find(|(p, _)| *p == port) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for (_, child) in &mut self.nodes {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
