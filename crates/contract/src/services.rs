//! Group services: state that a group of operations keeps for as long as a server runs (the
//! short-link visit queue, the webhook inbox cache, the day's visitor salt), owned by the group
//! that uses it and reached through a typed accessor, `Ctx::service` (`op.rs`).
//!
//! A service is a type of the operations crate that implements [`Service`]. Nothing below that
//! crate names it: the server holds one [`Services`] per store it serves and hands it to every
//! request's context, and a service starts the first time an operation asks for it, built from
//! that server's settings, store and outbound layer ([`Foundation`]; so it is bound to the
//! store it serves, and a process that serves several stores, as tests do, has one of each per
//! store). When the server stops, after its last request has
//! answered, it calls [`Services::stop`], which gives each started service its [`Service::stop`]
//! in the order they started.
//!
//! A service's `start` runs while the set is locked: it must not ask the context for another
//! service (that would wait on itself). Starting is cheap by design: anything slow belongs in
//! the service's own first use.

use std::{
    any::{Any, TypeId},
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex},
};

use wrench_infra::{config::Config, outbound::Net, store::Store};

/// What a service starts from: the settings, store and outbound layer of its server.
pub struct Foundation<'a> {
    pub config: &'a Arc<Config>,
    pub store: &'a Arc<dyn Store>,
    pub net: &'a Arc<Net>,
}

/// What a service's stop returns.
pub type Stopping<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// State a group of operations keeps for the life of a server.
pub trait Service: Send + Sync + 'static {
    /// Builds the service for the server `with` describes, on its first use.
    fn start(with: &Foundation<'_>) -> Self
    where
        Self: Sized;

    /// Finishes the service's work when the server stops (queued writes, for example). The
    /// default has nothing to finish.
    fn stop(&self) -> Stopping<'_> {
        Box::pin(std::future::ready(()))
    }
}

/// A started service, its type erased.
trait Started: Send + Sync {
    fn as_any(&self) -> &(dyn Any + Send + Sync);
    fn stop(&self) -> Stopping<'_>;
}

struct Held<T: Service>(Arc<T>);

impl<T: Service> Started for Held<T> {
    fn as_any(&self) -> &(dyn Any + Send + Sync) {
        &self.0
    }

    fn stop(&self) -> Stopping<'_> {
        self.0.stop()
    }
}

/// The services of one server (one store), started as they are first asked for.
#[derive(Default)]
pub struct Services {
    started: Mutex<Vec<(TypeId, Arc<dyn Started>)>>,
}

impl Services {
    /// The service `T`, started now from `with` if this is its first use.
    pub fn get<T: Service>(&self, with: &Foundation<'_>) -> Arc<T> {
        let mut started = self.started.lock().unwrap_or_else(|e| e.into_inner());
        let id = TypeId::of::<T>();
        if let Some((_, held)) = started.iter().find(|(t, _)| *t == id) {
            return held.as_any().downcast_ref::<Arc<T>>().expect("a service is held under its own type").clone();
        }
        let service = Arc::new(T::start(with));
        started.push((id, Arc::new(Held(service.clone()))));
        service
    }

    /// Stops every started service, in the order they started.
    pub async fn stop(&self) {
        let started: Vec<Arc<dyn Started>> =
            self.started.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(_, s)| s.clone()).collect();
        for service in started {
            service.stop().await;
        }
    }

    /// How many services have started.
    pub fn started(&self) -> usize {
        self.started.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    static STARTS: AtomicUsize = AtomicUsize::new(0);

    struct Counter {
        stops: AtomicUsize,
        store: Arc<dyn Store>,
    }

    impl Service for Counter {
        fn start(with: &Foundation<'_>) -> Self {
            STARTS.fetch_add(1, Ordering::SeqCst);
            Counter { stops: AtomicUsize::new(0), store: with.store.clone() }
        }

        fn stop(&self) -> Stopping<'_> {
            self.stops.fetch_add(1, Ordering::SeqCst);
            Box::pin(std::future::ready(()))
        }
    }

    struct Other;

    impl Service for Other {
        fn start(_: &Foundation<'_>) -> Self {
            Other
        }
    }

    struct Server {
        config: Arc<Config>,
        store: Arc<dyn Store>,
        net: Arc<Net>,
        services: Services,
    }

    impl Server {
        fn new() -> Server {
            let store = wrench_infra::store::embedded::EmbeddedStore::in_memory().expect("an in-memory store opens");
            let net = Net::new(&Default::default(), "http://127.0.0.1:8080").expect("the default layer builds");
            Server {
                config: Arc::new(Config::default()),
                store: Arc::new(store),
                net: Arc::new(net),
                services: Services::default(),
            }
        }

        fn get<T: Service>(&self) -> Arc<T> {
            self.services.get(&Foundation { config: &self.config, store: &self.store, net: &self.net })
        }
    }

    #[tokio::test]
    async fn a_service_starts_once_per_set_from_its_server_and_stops_with_it() {
        let server = Server::new();
        let before = STARTS.load(Ordering::SeqCst);
        let a = server.get::<Counter>();
        let b = server.get::<Counter>();
        assert!(Arc::ptr_eq(&a, &b), "one instance per set");
        assert_eq!(STARTS.load(Ordering::SeqCst), before + 1);
        assert!(Arc::ptr_eq(&a.store, &server.store), "started from its own server's store");
        let _ = server.get::<Other>();
        assert_eq!(server.services.started(), 2);
        // Another server has services of its own.
        let elsewhere = Server::new();
        assert!(!Arc::ptr_eq(&a, &elsewhere.get::<Counter>()));
        server.services.stop().await;
        assert_eq!(a.stops.load(Ordering::SeqCst), 1);
        assert_eq!(elsewhere.get::<Counter>().stops.load(Ordering::SeqCst), 0);
    }
}
