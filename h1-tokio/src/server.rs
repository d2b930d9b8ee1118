//! A listening server: accepts connections, serves each on a task of its
//! own, and shuts down gracefully.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http::{Request, Response};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinSet;
use tower_service::Service;

use crate::raw::{self, Handler};
use crate::transport::Shutdown;
use crate::{serve, Body, BoxError, Config};

/// A TCP server: every accepted connection is served on a task of its own
/// by [`serve_connection`](crate::serve_connection) (or [`raw::serve`]),
/// at most [`max_connections`](Self::max_connections) at once (the kernel's
/// backlog holds the rest), until a shutdown signal; then it stops
/// accepting, lets every connection finish the requests it has received
/// (the last answer of each says `Connection: close`; idle connections
/// close at once), and after the [`grace`](Self::grace) period ends those
/// still running.
///
/// ```no_run
/// use h1_tokio::{service_fn, Body, Config, Server};
/// use http::{Request, Response};
///
/// # async fn run() -> std::io::Result<()> {
/// let hello = service_fn(|_req: Request<Body>| async {
///     Ok::<_, std::convert::Infallible>(Response::new(String::from("Hello, World!")))
/// });
/// // Whatever says to stop: a signal handler, an admin endpoint, ...
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// # drop(stop);
/// let server = Server::bind("127.0.0.1:8080", Config::default()).await?;
/// server
///     .serve(hello, async {
///         let _ = stopped.await;
///     })
///     .await
/// # }
/// ```
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    config: Config,
    max_connections: usize,
    grace: Duration,
}

impl Server {
    /// A server listening on `addr`.
    pub async fn bind(addr: impl ToSocketAddrs, config: Config) -> io::Result<Server> {
        Ok(Server::from_listener(
            TcpListener::bind(addr).await?,
            config,
        ))
    }

    /// A server accepting on `listener`.
    pub fn from_listener(listener: TcpListener, config: Config) -> Server {
        Server {
            listener,
            config,
            max_connections: 10_000,
            grace: Duration::from_secs(30),
        }
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Most connections served at once (default 10,000); more wait in the
    /// kernel's backlog until one ends.
    pub fn max_connections(mut self, n: usize) -> Server {
        self.max_connections = n.max(1);
        self
    }

    /// How long a shutdown waits for the connections to finish their
    /// requests (default 30 s); those still running then are ended.
    pub fn grace(mut self, grace: Duration) -> Server {
        self.grace = grace;
        self
    }

    /// Serves every connection with a clone of `service` until `shutdown`
    /// completes, then shuts down gracefully (see [`Server`]).
    pub async fn serve<S, B>(self, service: S, shutdown: impl Future<Output = ()>) -> io::Result<()>
    where
        S: Service<Request<Body>, Response = Response<B>> + Clone + Send + 'static,
        S::Future: Send,
        S::Error: Into<BoxError>,
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        self.run(shutdown, move |stream, config, stop| {
            let service = service.clone();
            async move {
                let _ = serve::serve_until(stream, service, config, Some(stop)).await;
            }
        })
        .await
    }

    /// Serves every connection with a handler from `make` until
    /// `shutdown` completes, then shuts down gracefully (see [`Server`]).
    pub async fn serve_raw<H, M>(
        self,
        make: M,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<()>
    where
        H: Handler + Send + 'static,
        M: Fn() -> H,
    {
        self.run(shutdown, move |stream, config, stop| {
            let handler = make();
            async move {
                let _ = raw::serve_until(stream, handler, config, Some(stop)).await;
            }
        })
        .await
    }

    /// The accept loop and the shutdown, for any way of serving a
    /// connection.
    async fn run<F, C>(
        self,
        shutdown: impl Future<Output = ()>,
        mut connection: C,
    ) -> io::Result<()>
    where
        C: FnMut(tokio::net::TcpStream, Config, Shutdown) -> F,
        F: Future<Output = ()> + Send + 'static,
    {
        let Server {
            listener,
            config,
            max_connections,
            grace,
        } = self;
        let (stop, stopped) = watch::channel(());
        let permits = Arc::new(Semaphore::new(max_connections));
        let mut tasks = JoinSet::new();
        tokio::pin!(shutdown);
        loop {
            let permit = tokio::select! {
                permit = Arc::clone(&permits).acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => break,
                },
                () = &mut shutdown => break,
            };
            let stream = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    // The connection went away before it was accepted:
                    // keep accepting.
                    Err(e) if transient(&e) => continue,
                    // Descriptors ran out: connections ending free some.
                    Err(e) if matches!(e.raw_os_error(), Some(23 | 24)) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                    Err(e) => return Err(e),
                },
                () = &mut shutdown => break,
            };
            let _ = stream.set_nodelay(true);
            let mut stopped = stopped.clone();
            let stop: Shutdown = Box::pin(async move {
                // A send or the sender's end: either is the signal.
                let _ = stopped.changed().await;
            });
            let served = connection(stream, config.clone(), stop);
            tasks.spawn(async move {
                served.await;
                drop(permit);
            });
            while tasks.try_join_next().is_some() {}
        }
        drop(listener);
        let _ = stop.send(());
        let finished = async { while tasks.join_next().await.is_some() {} };
        if tokio::time::timeout(grace, finished).await.is_err() {
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
        }
        Ok(())
    }
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
