//! What `agui-lint proxy` and `agui-lint replay` share: a listener on the
//! address asked for (a non-loopback one is said to be reachable from
//! elsewhere), HTTP/1.1 connections served by hyper on a small tokio
//! runtime, and response bodies sent as their bytes come.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::Body as _;
use http_body::Frame;
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper::{Request, Response};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

/// Threads that check exchanges (their requests, their ends) beside the
/// two that carry the traffic.
const BLOCKING_THREADS: usize = 8;

/// How long a client may take to send a request's head.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The most of a request's body read (the official client's runs are far
/// smaller; a larger body is refused with 413).
pub(crate) const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// A response body: whole, or fed piece by piece by a [`Feed`]. A stream
/// ends cleanly only when its feed says it ended: an error from the feed,
/// or a feed dropped before its end (a task that failed, a panic), aborts
/// the client's connection, so that a cut stream never reaches the client
/// as a whole one.
pub(crate) enum Body {
    /// All of it at once.
    Whole(Option<Bytes>),
    /// Pieces as they come.
    Stream(Streamed),
}

/// The receiving half of a streamed [`Body`].
pub(crate) struct Streamed {
    receiver: mpsc::Receiver<Piece>,
    /// The body's length, when its sender said it.
    length: Option<u64>,
    /// Data was handed to hyper since it last waited: it may be in hyper's
    /// buffer, not yet written to the client.
    unflushed: bool,
    /// A failure held back until what came before it is written.
    failure: Option<io::Error>,
}

/// What a [`Feed`] sends down a streamed body.
pub(crate) enum Piece {
    /// The next bytes.
    Data(Bytes),
    /// The body ended whole.
    End,
    /// The body cannot be finished: the connection is aborted.
    Fail(io::Error),
}

/// The sending half of a streamed [`Body`].
pub(crate) struct Feed(mpsc::Sender<Piece>);

impl Feed {
    /// Sends `bytes`; `false` when the client went away.
    pub(crate) async fn send(&self, bytes: Bytes) -> bool {
        self.0.send(Piece::Data(bytes)).await.is_ok()
    }

    /// Waits until the client went away (the body dropped).
    pub(crate) async fn closed(&self) {
        self.0.closed().await;
    }

    /// Ends the body whole.
    pub(crate) async fn end(self) {
        let _ = self.0.send(Piece::End).await;
    }

    /// Aborts the client's connection with `why`.
    pub(crate) async fn fail(self, why: String) {
        let _ = self.0.send(Piece::Fail(io::Error::other(why))).await;
    }
}

impl Body {
    /// A whole body of `bytes`.
    pub(crate) fn whole(bytes: impl Into<Bytes>) -> Body {
        Body::Whole(Some(bytes.into()))
    }

    /// A streamed body and the feed that fills it (a few pieces are queued
    /// before the feed waits for the client).
    pub(crate) fn channel() -> (Feed, Body) {
        Body::channel_of(None)
    }

    /// A streamed body of `length` bytes, when known (so that hyper frames
    /// it with that `Content-Length`, as its sender did, rather than in
    /// chunks), and the feed that fills it.
    pub(crate) fn channel_of(length: Option<u64>) -> (Feed, Body) {
        let (sender, receiver) = mpsc::channel(16);
        (
            Feed(sender),
            Body::Stream(Streamed {
                receiver,
                length,
                unflushed: false,
                failure: None,
            }),
        )
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let body = self.get_mut();
        match body {
            Body::Whole(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Body::Stream(streamed) => {
                if let Some(failure) = streamed.failure.take() {
                    return Poll::Ready(Some(Err(failure)));
                }
                let failure = match streamed.receiver.poll_recv(cx) {
                    Poll::Pending => {
                        streamed.unflushed = false;
                        return Poll::Pending;
                    }
                    Poll::Ready(Some(Piece::Data(bytes))) => {
                        streamed.unflushed = true;
                        return Poll::Ready(Some(Ok(Frame::data(bytes))));
                    }
                    Poll::Ready(Some(Piece::End)) => {
                        // Ended: polled again, it stays ended.
                        *body = Body::Whole(None);
                        return Poll::Ready(None);
                    }
                    Poll::Ready(Some(Piece::Fail(error))) => error,
                    Poll::Ready(None) => {
                        io::Error::other("the stream ended before its feed finished it")
                    }
                };
                if streamed.unflushed {
                    // hyper drops its buffer when a body fails: it is
                    // told to wait once, and writes what it holds, so the
                    // client gets every byte that came before the break.
                    streamed.unflushed = false;
                    streamed.failure = Some(failure);
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Poll::Ready(Some(Err(failure)))
            }
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self {
            Body::Whole(bytes) => {
                http_body::SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            Body::Stream(Streamed {
                length: Some(length),
                ..
            }) => http_body::SizeHint::with_exact(*length),
            Body::Stream(_) => http_body::SizeHint::default(),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Whole(None))
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

/// What a server holds at most at once: exchanges in flight (past them a
/// request is answered 503 at once), and bytes of buffered bodies and kept
/// streams across every exchange.
pub(crate) struct Limits {
    /// Exchanges served at once.
    pub exchanges: usize,
    /// Most time a client may take to send a request's body.
    pub body_timeout: Duration,
    /// Bytes of bodies held at once, across exchanges.
    pub memory: Arc<Budget>,
}

/// Bytes that may be held at once across exchanges.
pub(crate) struct Budget {
    used: AtomicUsize,
    max: usize,
}

impl Budget {
    /// A budget of `max` bytes.
    pub(crate) fn new(max: usize) -> Arc<Budget> {
        Arc::new(Budget {
            used: AtomicUsize::new(0),
            max,
        })
    }

    /// A share of the budget holding nothing yet.
    pub(crate) fn share(self: &Arc<Self>) -> Held {
        Held {
            budget: Arc::clone(self),
            bytes: 0,
        }
    }
}

/// Bytes taken from a [`Budget`], given back when dropped.
pub(crate) struct Held {
    budget: Arc<Budget>,
    bytes: usize,
}

impl Held {
    /// Takes `bytes` more; `false` (nothing taken) when the budget has not
    /// that much left.
    pub(crate) fn grow(&mut self, bytes: usize) -> bool {
        let before = self.budget.used.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) > self.budget.max {
            self.budget.used.fetch_sub(bytes, Ordering::Relaxed);
            return false;
        }
        self.bytes += bytes;
        true
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// Why a request's body could not be read: the response that says so.
pub(crate) fn body_refused(why: BodyRefused) -> Response<Body> {
    let (status, message) = why.told();
    text(status, &message)
}

impl BodyRefused {
    /// The status that answers the refusal, and the words that explain it.
    pub(crate) fn told(&self) -> (u16, String) {
        match self {
            BodyRefused::TooLarge => (413, format!("request body over {MAX_REQUEST_BYTES} bytes")),
            BodyRefused::NoMemory => (
                503,
                "busy: the memory set aside for bodies is in use (--max-memory); try again"
                    .to_owned(),
            ),
            BodyRefused::TooSlow(after) => (
                408,
                format!(
                    "the request body was not sent within {} s",
                    after.as_secs_f64()
                ),
            ),
            BodyRefused::Broken(why) => (400, format!("cannot read the request body: {why}")),
        }
    }
}

/// Why a request's body was not read whole.
#[derive(Debug, Clone)]
pub(crate) enum BodyRefused {
    /// Over [`MAX_REQUEST_BYTES`].
    TooLarge,
    /// The memory budget is spent.
    NoMemory,
    /// Not sent within the body timeout.
    TooSlow(Duration),
    /// The client's connection failed.
    Broken(String),
}

/// A request's body, read whole up to [`MAX_REQUEST_BYTES`] within
/// `limits`, and the budget it holds.
pub(crate) async fn read_body(
    body: Incoming,
    limits: &Limits,
) -> Result<(Bytes, Held), BodyRefused> {
    if too_large(&body) {
        return Err(BodyRefused::TooLarge);
    }
    read_passing(body, limits.body_timeout, limits.memory.share(), None).await
}

/// Whether `body` says it is longer than [`MAX_REQUEST_BYTES`].
pub(crate) fn too_large(body: &Incoming) -> bool {
    body.size_hint().lower() > MAX_REQUEST_BYTES as u64
}

/// A request's body, read whole up to [`MAX_REQUEST_BYTES`] within
/// `timeout` and `held`, each piece passed on through `onward` (when
/// given) as it arrives, once it is known to fit. The onward body ends whole
/// when the request's does, and is aborted when it is refused; a receiver
/// that stopped reading does not stop the reading.
pub(crate) async fn read_passing(
    body: Incoming,
    timeout: Duration,
    mut held: Held,
    mut onward: Option<Feed>,
) -> Result<(Bytes, Held), BodyRefused> {
    let mut kept = bytes::BytesMut::new();
    let read = async {
        let mut body = body;
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| BodyRefused::Broken(e.to_string()))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if kept.len() + data.len() > MAX_REQUEST_BYTES {
                return Err(BodyRefused::TooLarge);
            }
            if !held.grow(data.len()) {
                return Err(BodyRefused::NoMemory);
            }
            if let Some(feed) = &onward {
                if !feed.send(data.clone()).await {
                    onward = None;
                }
            }
            kept.extend_from_slice(&data);
        }
        Ok(())
    };
    let read = match tokio::time::timeout(timeout, read).await {
        Ok(read) => read,
        Err(_) => Err(BodyRefused::TooSlow(timeout)),
    };
    match (read, onward) {
        (Ok(()), Some(feed)) => {
            feed.end().await;
            Ok((kept.freeze(), held))
        }
        (Ok(()), None) => Ok((kept.freeze(), held)),
        (Err(why), Some(feed)) => {
            feed.fail(why.told().1).await;
            Err(why)
        }
        (Err(why), None) => Err(why),
    }
}

/// Binds `address` and serves every connection with `handle` until the
/// process ends, at most `exchanges` at once (past them a request is
/// answered 503 at once, its exchange not started). `command` names the
/// command in what is printed, and `pages` the pages of its own it serves
/// (a name and a path each), printed with the address bound.
pub(crate) fn serve<H, F>(
    command: &str,
    address: SocketAddr,
    exchanges: usize,
    pages: &[(&str, &str)],
    handle: H,
) -> Result<(), String>
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
    for (name, path) in pages {
        crate::console::say(format_args!(
            "agui-lint {command}: {name} at http://{bound}{path}"
        ));
    }
    if !bound.ip().is_loopback() {
        crate::console::say(format_args!(
            "agui-lint {command}: {} is not a loopback address: other machines can reach this {command}",
            bound.ip()
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // Checking is the blocking pool's work, and it is bound by the
        // cores: more threads would hold more stacks, not check faster.
        .max_blocking_threads(BLOCKING_THREADS)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| format!("cannot listen on {address}: {e}"))?;
        let in_flight = Arc::new(Semaphore::new(exchanges.max(1)));
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
            let in_flight = Arc::clone(&in_flight);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    // The permit is held until the response's body is done
                    // with (sent whole, or dropped with its client).
                    let permit = Arc::clone(&in_flight).try_acquire_owned().ok();
                    let answer = permit.is_some().then(|| handle(request));
                    async move {
                        Ok::<_, Infallible>(match (answer, permit) {
                            (Some(answer), Some(permit)) => answer.await.map(|body| Served {
                                body,
                                _permit: Some(permit),
                            }),
                            _ => text(
                                503,
                                &format!("busy: {exchanges} exchanges in flight (--max-exchanges); try again"),
                            )
                            .map(|body| Served {
                                body,
                                _permit: None,
                            }),
                        })
                    }
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

/// A response's body and the exchange's place among those in flight,
/// given back when the body is done with.
struct Served {
    body: Body,
    _permit: Option<OwnedSemaphorePermit>,
}

impl http_body::Body for Served {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }
}
