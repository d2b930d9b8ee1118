//! What axum needs of a server beyond `tower::Service`, with the `axum`
//! feature: a `Router` is its own make-service for [`serve`](crate::serve),
//! and the client's address reaches the `ConnectInfo` extractor through
//! `into_make_service_with_connect_info::<SocketAddr>()`.

use std::convert::Infallible;
use std::future::{ready, Ready};
use std::net::SocketAddr;
use std::task::{Context, Poll};

use axum::extract::connect_info::Connected;
use axum::routing::{MethodRouter, Router};
use tower_service::Service;

use crate::Incoming;

impl Connected<Incoming<'_>> for SocketAddr {
    fn connect_info(conn: Incoming<'_>) -> SocketAddr {
        conn.remote_addr()
    }
}

/// As `axum::serve` takes it: each connection gets a clone.
impl Service<Incoming<'_>> for Router<()> {
    type Response = Router<()>;
    type Error = Infallible;
    type Future = Ready<Result<Router<()>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _conn: Incoming<'_>) -> Self::Future {
        ready(Ok(self.clone()))
    }
}

/// As `axum::serve` takes it: each connection gets a clone.
impl Service<Incoming<'_>> for MethodRouter<()> {
    type Response = MethodRouter<()>;
    type Error = Infallible;
    type Future = Ready<Result<MethodRouter<()>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _conn: Incoming<'_>) -> Self::Future {
        ready(Ok(self.clone()))
    }
}
