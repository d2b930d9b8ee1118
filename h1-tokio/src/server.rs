//! Serving a TCP listener, as `axum::serve` does: every accepted
//! connection served on a task of its own with a service made for it, and
//! a graceful shutdown.

use std::convert::Infallible;
use std::fmt;
use std::future::{poll_fn, Future, IntoFuture};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Waker};
use std::time::Duration;

use http::{Request, Response};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tower_service::Service;

use crate::{serve_connection, Body, BoxError, Config};

/// Serves every connection `listener` accepts with a service
/// `make_service` makes for it, each on a task of its own (see [`Serve`]
/// for the settings), like `axum::serve`: switching an axum application
/// changes one line.
///
#[cfg_attr(feature = "axum", doc = "```no_run")]
#[cfg_attr(not(feature = "axum"), doc = "```ignore")]
/// use axum::{routing::get, Router};
///
/// # async fn run() -> std::io::Result<()> {
/// let app = Router::new().route("/", get(|| async { "Hello, World!" }));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// // was: axum::serve(listener, app).await
/// h1_tokio::serve(listener, app).await
/// # }
/// ```
///
/// `make_service` is called with each connection's [`Incoming`]: an axum
/// `Router` (with the `axum` feature) or an [`h1_tokio::service_fn`](crate::service_fn)
/// clones itself; axum's `into_make_service_with_connect_info::<SocketAddr>()`
/// gives handlers the client's address as the `ConnectInfo` extractor
/// expects it; a tower `MakeService` of one's own may look at the
/// connection before it answers.
///
/// The future runs until accepting fails for a reason that concerns the
/// listener (a connection that fails to be accepted is skipped, and a
/// process out of file descriptors waits for some to be freed);
/// [`with_graceful_shutdown`](Serve::with_graceful_shutdown) ends it on a
/// signal.
pub fn serve<M>(listener: TcpListener, make_service: M) -> Serve<M> {
    Serve {
        listener,
        make_service,
        config: Config::default(),
        max_connections: 10_000,
        grace: Duration::from_secs(30),
    }
}

/// A connection just accepted, as the make-service passed to [`serve`]
/// sees it.
#[derive(Debug)]
pub struct Incoming<'a> {
    io: &'a TcpStream,
    remote_addr: SocketAddr,
}

impl Incoming<'_> {
    /// The connection's socket.
    pub fn io(&self) -> &TcpStream {
        self.io
    }

    /// The client's address.
    pub fn remote_addr(&self) -> SocketAddr {
        self.remote_addr
    }
}

/// A listener being served: what [`serve`] returns. Await it (it is
/// [`IntoFuture`]) to run it; set h1's connection settings and the
/// server's limits first.
///
#[cfg_attr(feature = "axum", doc = "```no_run")]
#[cfg_attr(not(feature = "axum"), doc = "```ignore")]
/// use std::time::Duration;
///
/// # async fn run(app: axum::Router) -> std::io::Result<()> {
/// let mut config = h1_tokio::Config::default();
/// config.header_read_timeout = Some(Duration::from_secs(10));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// h1_tokio::serve(listener, app)
///     .config(config)
///     .max_connections(50_000)
///     .with_graceful_shutdown(async {
///         let _ = tokio::signal::ctrl_c().await;
///     })
///     .await
/// # }
/// ```
#[must_use = "a listener is served only while the future is polled"]
pub struct Serve<M> {
    listener: TcpListener,
    make_service: M,
    config: Config,
    max_connections: usize,
    grace: Duration,
}

impl<M> fmt::Debug for Serve<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Serve")
            .field("listener", &self.listener)
            .field("config", &self.config)
            .field("max_connections", &self.max_connections)
            .field("grace", &self.grace)
            .finish_non_exhaustive()
    }
}

impl<M> Serve<M> {
    /// The settings of every connection (default: [`Config::default`]).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Most connections served at once (default 10,000); more wait in the
    /// kernel's backlog until one ends.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// How long a graceful shutdown waits for the connections to finish
    /// their requests (default 30 s); those still running then are ended.
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `signal` completes, then shuts down gracefully: it
    /// stops accepting, every connection answers the requests it has
    /// received (the last answer says `Connection: close`), idle ones
    /// close at once, and after the [`grace`](Self::grace) period those
    /// still running are ended. The future completes when all have.
    pub fn with_graceful_shutdown<F>(self, signal: F) -> WithGracefulShutdown<M, F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        WithGracefulShutdown {
            serve: self,
            signal,
        }
    }
}

/// [`Serve`] with a shutdown signal: see
/// [`Serve::with_graceful_shutdown`].
#[must_use = "a listener is served only while the future is polled"]
pub struct WithGracefulShutdown<M, F> {
    serve: Serve<M>,
    signal: F,
}

impl<M, F> fmt::Debug for WithGracefulShutdown<M, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WithGracefulShutdown")
            .field("serve", &self.serve)
            .finish_non_exhaustive()
    }
}

/// The future [`Serve`] and [`WithGracefulShutdown`] turn into.
pub type ServeFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

impl<M, S, B> IntoFuture for Serve<M>
where
    M: for<'a> Service<Incoming<'a>, Error = Infallible, Response = S> + Send + 'static,
    for<'a> <M as Service<Incoming<'a>>>::Future: Send,
    S: Service<Request<Body>, Response = Response<B>> + Send + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Output = io::Result<()>;
    type IntoFuture = ServeFuture;

    fn into_future(self) -> ServeFuture {
        Box::pin(run(self, std::future::pending()))
    }
}

impl<M, F, S, B> IntoFuture for WithGracefulShutdown<M, F>
where
    M: for<'a> Service<Incoming<'a>, Error = Infallible, Response = S> + Send + 'static,
    for<'a> <M as Service<Incoming<'a>>>::Future: Send,
    S: Service<Request<Body>, Response = Response<B>> + Send + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
    F: Future<Output = ()> + Send + 'static,
{
    type Output = io::Result<()>;
    type IntoFuture = ServeFuture;

    fn into_future(self) -> ServeFuture {
        Box::pin(run(self.serve, self.signal))
    }
}

/// The accept loop, then the shutdown.
async fn run<M, S, B>(serve: Serve<M>, signal: impl Future<Output = ()>) -> io::Result<()>
where
    M: for<'a> Service<Incoming<'a>, Error = Infallible, Response = S>,
    S: Service<Request<Body>, Response = Response<B>> + Send + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let Serve {
        listener,
        mut make_service,
        config,
        max_connections,
        grace,
    } = serve;
    let stop = Arc::new(Stop::default());
    let mut failed = None;
    let permits = Arc::new(Semaphore::new(max_connections));
    let mut tasks = JoinSet::new();
    tokio::pin!(signal);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut signal => break,
        };
        let (stream, remote_addr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // The connection went away before it was accepted: keep
                // accepting.
                Err(e) if transient(&e) => continue,
                // The listener itself is broken: the connections being
                // served are finished as in a shutdown, then the error is
                // returned.
                Err(e) if broken(&e) => {
                    failed = Some(e);
                    break;
                }
                // Anything else (descriptors or buffers ran out, a network
                // error of one connection): accepting again soon may
                // succeed, and connections ending free resources.
                Err(e) => {
                    let pause = if matches!(e.raw_os_error(), Some(23 | 24)) { 50 } else { 1_000 };
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                    continue;
                }
            },
            () = &mut signal => break,
        };
        let _ = stream.set_nodelay(true);
        let service = {
            let made = async {
                poll_fn(|cx| make_service.poll_ready(cx)).await?;
                make_service
                    .call(Incoming {
                        io: &stream,
                        remote_addr,
                    })
                    .await
            };
            match made.await {
                Ok(service) => service,
                Err(never) => match never {},
            }
        };
        let stop = Arc::clone(&stop);
        let config = config.clone();
        tasks.spawn(async move {
            let mut conn = serve_connection(stream, service, config);
            let mut watch = Watch::default();
            let _ = poll_fn(|cx| {
                if watch.stopped(&stop, cx) {
                    Pin::new(&mut conn).graceful_shutdown();
                }
                Pin::new(&mut conn).poll(cx)
            })
            .await;
            watch.leave(&stop);
            drop(permit);
        });
        while tasks.try_join_next().is_some() {}
    }
    drop(listener);
    stop.stop();
    let finished = async { while tasks.join_next().await.is_some() {} };
    if tokio::time::timeout(grace, finished).await.is_err() {
        tasks.abort_all();
        while tasks.join_next().await.is_some() {}
    }
    failed.map_or(Ok(()), Err)
}

/// Accept errors that say the listener cannot accept again: it is not a
/// socket, or not a listening one any more.
fn broken(e: &io::Error) -> bool {
    // EBADF, EINVAL, ENOTSOCK (Linux's numbers, as tokio reports them).
    e.kind() == io::ErrorKind::InvalidInput || matches!(e.raw_os_error(), Some(9 | 22 | 88))
}

/// Accept errors that concern one connection, not the listener.
fn transient(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}

/// The shutdown signal of a [`serve`]'s connections: set once, when
/// every connection that is waiting on it is woken. A connection looks at
/// a flag on each poll and leaves its waker once, so a poll that finds no
/// signal costs a flag read and no registration.
#[derive(Default)]
struct Stop {
    set: AtomicBool,
    /// The connections' wakers; `None` where a connection has left.
    wakers: Mutex<Vec<Option<Waker>>>,
}

impl Stop {
    fn stop(&self) {
        self.set.store(true, Ordering::Release);
        let wakers = std::mem::take(&mut *self.lock());
        for waker in wakers.into_iter().flatten() {
            waker.wake();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Option<Waker>>> {
        // Each critical section is a push, a take or a store: a panic in
        // one cannot leave the list torn.
        self.wakers.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A connection's place in [`Stop`].
#[derive(Default)]
struct Watch {
    /// Where its waker is, and the waker left there.
    left: Option<(usize, Waker)>,
    /// The signal was seen (and acted on).
    seen: bool,
}

impl Watch {
    /// Whether the signal came since the last call; the connection's
    /// waker is left with the signal (again when it changed).
    fn stopped(&mut self, stop: &Stop, cx: &mut Context<'_>) -> bool {
        if self.seen {
            return false;
        }
        if !self
            .left
            .as_ref()
            .is_some_and(|(_, w)| w.will_wake(cx.waker()))
        {
            let mut wakers = stop.lock();
            let waker = cx.waker().clone();
            let at = match &self.left {
                Some((at, _)) => *at,
                None => {
                    wakers.push(None);
                    wakers.len() - 1
                }
            };
            // Past the end when stopped since it was left (the list was
            // taken): the flag below says so.
            if let Some(slot) = wakers.get_mut(at) {
                *slot = Some(waker.clone());
            }
            self.left = Some((at, waker));
        }
        // Looked at after the waker is left: a signal set in between has
        // woken it, or is seen here.
        self.seen = stop.set.load(Ordering::Acquire);
        self.seen
    }

    /// The connection has ended: its waker is taken back.
    fn leave(&mut self, stop: &Stop) {
        if let Some((at, _)) = self.left.take() {
            let mut wakers = stop.lock();
            if let Some(slot) = wakers.get_mut(at) {
                *slot = None;
            }
            // The list shrinks when its last connections have left.
            while wakers.last().is_some_and(Option::is_none) {
                wakers.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    use super::*;

    #[derive(Default)]
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn the_signal_wakes_the_connections_still_there_once() {
        let stop = Stop::default();
        let counts: Vec<Arc<Count>> = (0..4).map(|_| Arc::default()).collect();
        let wakers: Vec<Waker> = counts.iter().map(|c| Waker::from(Arc::clone(c))).collect();
        let mut watches: Vec<Watch> = (0..4).map(|_| Watch::default()).collect();
        for (watch, waker) in watches.iter_mut().zip(&wakers) {
            // Polled twice: left once.
            for _ in 0..2 {
                assert!(!watch.stopped(&stop, &mut Context::from_waker(waker)));
            }
        }
        assert_eq!(stop.lock().len(), 4);
        // The last leaves (the list shrinks), one in the middle too (a hole).
        watches[3].leave(&stop);
        watches[1].leave(&stop);
        assert_eq!(stop.lock().len(), 3);
        // A new connection takes the place at the end.
        let mut late = Watch::default();
        assert!(!late.stopped(&stop, &mut Context::from_waker(&wakers[3])));
        assert_eq!(stop.lock().len(), 4);
        stop.stop();
        let woken: Vec<usize> = counts.iter().map(|c| c.0.load(Ordering::SeqCst)).collect();
        assert_eq!(woken, [1, 0, 1, 1], "those there, once each");
        for i in [0, 2] {
            let cx = &mut Context::from_waker(&wakers[i]);
            assert!(watches[i].stopped(&stop, cx), "connection {i} sees it");
            assert!(!watches[i].stopped(&stop, cx), "once");
            watches[i].leave(&stop);
        }
        late.leave(&stop);
        assert!(stop.lock().is_empty());
    }
}
