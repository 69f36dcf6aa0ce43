//! What `agui-lint proxy` and `agui-lint replay` share: a listener on the
//! address asked for (a non-loopback one is said to be reachable from
//! elsewhere), HTTP/1.1 connections served by hyper on a small tokio
//! runtime, and response bodies sent as their bytes come.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::Frame;
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper::{Request, Response};
use tokio::sync::mpsc;

/// How long a client may take to send a request's head.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The most of a request's body read (the official client's runs are far
/// smaller; a larger body is refused with 413).
pub(crate) const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// A response body: whole, or fed from a channel piece by piece. An error
/// on the channel aborts the connection, as the upstream's did.
pub(crate) enum Body {
    /// All of it at once.
    Whole(Option<Bytes>),
    /// Pieces as they come.
    Stream(mpsc::Receiver<io::Result<Bytes>>),
}

impl Body {
    /// A whole body of `bytes`.
    pub(crate) fn whole(bytes: impl Into<Bytes>) -> Body {
        Body::Whole(Some(bytes.into()))
    }

    /// A streamed body and the sender that feeds it (a few pieces are
    /// queued before the sender waits for the client).
    pub(crate) fn channel() -> (mpsc::Sender<io::Result<Bytes>>, Body) {
        let (sender, receiver) = mpsc::channel(16);
        (sender, Body::Stream(receiver))
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        match self.get_mut() {
            Body::Whole(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Body::Stream(receiver) => receiver
                .poll_recv(cx)
                .map(|piece| piece.map(|piece| piece.map(Frame::data))),
        }
    }
}

/// A plain-text response.
pub(crate) fn text(status: u16, message: &str) -> Response<Body> {
    let mut response = Response::new(Body::whole(format!("{message}\n")));
    *response.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A request's body, read whole up to [`MAX_REQUEST_BYTES`]; `Err` with
/// the response to send when it is larger or the client went away.
pub(crate) async fn read_body(body: Incoming) -> Result<Bytes, Response<Body>> {
    match http_body_util::Limited::new(body, MAX_REQUEST_BYTES)
        .collect()
        .await
    {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(text(
            413,
            &format!("request body over {MAX_REQUEST_BYTES} bytes"),
        )),
        Err(e) => Err(text(400, &format!("cannot read the request body: {e}"))),
    }
}

/// Binds `address` and serves every connection with `handle` until the
/// process ends. `command` names the command in what is printed.
pub(crate) fn serve<H, F>(command: &str, address: SocketAddr, handle: H) -> Result<(), String>
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let listener = std::net::TcpListener::bind(address)
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    crate::console::say(format_args!(
        "agui-lint {command}: listening on http://{bound}"
    ));
    if !bound.ip().is_loopback() {
        crate::console::say(format_args!(
            "agui-lint {command}: {} is not a loopback address: other machines can reach this {command}",
            bound.ip()
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| format!("cannot listen on {address}: {e}"))?;
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                // A connection that failed before it was accepted (reset,
                // out of descriptors for a moment) ends itself only.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            };
            let handle = handle.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let answer = handle(request);
                    async move { Ok::<_, Infallible>(answer.await) }
                });
                let mut builder = hyper::server::conn::http1::Builder::new();
                // Nothing is added to what passes: a Date header is the
                // server's to send, or not.
                builder
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(HEADER_READ_TIMEOUT)
                    .auto_date_header(false);
                // A client that goes away ends its connection only.
                let _ = builder
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}
