//! A service made of a function.

use std::convert::Infallible;
use std::future::{ready, Future, Ready};
use std::task::{Context, Poll};

use http::{Request, Response};
use tower_service::Service;

use crate::{Body, Incoming};

/// A [`Service`] that calls `f` for each request, and is always ready.
///
/// It is also its own make-service: [`serve`](crate::serve) serves each
/// connection with a clone of it.
///
/// ```
/// use h1_tokio::{service_fn, Body};
/// use http::{Request, Response};
///
/// let service = service_fn(|req: Request<Body>| async move {
///     let text = format!("you asked for {}", req.uri().path());
///     Ok::<_, std::convert::Infallible>(Response::new(text))
/// });
/// # let _ = service;
/// ```
pub fn service_fn<F, Fut, B, E>(f: F) -> ServiceFn<F>
where
    F: FnMut(Request<Body>) -> Fut,
    Fut: Future<Output = Result<Response<B>, E>>,
{
    ServiceFn { f }
}

/// The service of [`service_fn`].
#[derive(Clone, Copy, Debug)]
pub struct ServiceFn<F> {
    f: F,
}

impl<F, Fut, B, E> Service<Request<Body>> for ServiceFn<F>
where
    F: FnMut(Request<Body>) -> Fut,
    Fut: Future<Output = Result<Response<B>, E>>,
{
    type Response = Response<B>;
    type Error = E;
    type Future = Fut;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), E>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Body>) -> Fut {
        (self.f)(req)
    }
}

impl<F: Clone> Service<Incoming<'_>> for ServiceFn<F> {
    type Response = ServiceFn<F>;
    type Error = Infallible;
    type Future = Ready<Result<ServiceFn<F>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _conn: Incoming<'_>) -> Self::Future {
        ready(Ok(self.clone()))
    }
}
