//! One exchange through the proxy, as a task: the client's request passed
//! on to the server as it arrives, and read (within the body timeout and
//! the memory budget) to be checked beside it, the response's head handed back as soon as it
//! comes, and its body passed on piece by piece, each piece before it is
//! checked, so that checking never delays what the client receives.
//!
//! A body the proxy cannot finish (the server broke it, went silent past
//! the idle timeout) aborts the client's connection: a cut stream never
//! reaches the client as a whole one. A client that leaves ends its
//! exchange and the connection to the server with it.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use agui_lint::unstable::input::har::DeliveryEnd;
use agui_lint::unstable::input::har_write::Sent;
use agui_lint::unstable::input::receiving::Receiving;
use agui_lint::unstable::input::Layout;
use agui_lint::unstable::recording::BodyLayout;
use bytes::Bytes;
use http_body_util::BodyExt as _;
use hyper::body::{Body as _, Incoming};
use hyper::{Request, Response};
use tokio::task::JoinHandle;

use super::upstream::{self, Connection, Failed};
use super::watch::Watch;
use super::Proxy;
use crate::serve::{self, Body, BodyRefused, Feed, Held};

/// One request: forwarded as it arrives, its response streamed back as it
/// comes.
pub(crate) async fn handle(proxy: Arc<Proxy>, request: Request<Incoming>) -> Response<Body> {
    if let Some(live) = &proxy.live {
        if let Some(answer) = live.answer(&request).await {
            return answer;
        }
    }
    let run = proxy
        .runs
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        + 1;
    let (parts, body) = request.into_parts();
    if serve::too_large(&body) {
        return serve::body_refused(BodyRefused::TooLarge);
    }
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let uri: hyper::Uri = match proxy.upstream.target(&path).parse() {
        Ok(uri) => uri,
        Err(e) => return serve::text(400, &format!("agui-lint proxy: {e}")),
    };
    // What the console shows of the request: its secret query values
    // masked, as the saved archive's URL is.
    let label = format!(
        "{} {}",
        parts.method,
        agui_lint::unstable::secrets::mask_url(&path)
    );
    let headers: Vec<(hyper::header::HeaderName, hyper::header::HeaderValue)> = parts
        .headers
        .iter()
        .filter(|(name, _)| upstream::forwarded(name.as_str()))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    let sent = Sent {
        method: parts.method.as_str().to_owned(),
        url: format!("{}{path}", proxy.target),
        headers: headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        // The body is the read's, once it is whole.
        body: Vec::new(),
        at: SystemTime::now(),
    };
    // The body goes on to the server piece by piece as it arrives, framed
    // as the client framed it (its length, or chunks), and is kept for its
    // check beside.
    let (onward, forwarded) = Body::channel_of(body.size_hint().exact());
    let mut reading = Box::pin(serve::read_passing(
        body,
        proxy.limits.body_timeout,
        proxy.limits.memory.share(),
        Some(onward),
    ));
    let mut forward = Request::new(forwarded);
    *forward.method_mut() = parts.method.clone();
    *forward.uri_mut() = uri;
    for (name, value) in headers {
        forward.headers_mut().append(name, value);
    }
    let started = Instant::now();
    let mut read = None;
    // A body the client breaks, sends too slowly or makes too large is
    // answered as such while the server has not answered (the server's
    // copy aborted); after that, the server's answer stands.
    let answered = {
        let sending = proxy.upstream.send(forward);
        tokio::pin!(sending);
        loop {
            tokio::select! {
                answered = &mut sending => break answered,
                result = &mut reading, if read.is_none() => match result {
                    Err(why) => return serve::body_refused(why),
                    Ok(whole) => read = Some(Ok(whole)),
                },
            }
        }
    };
    let checking = {
        let (proxy, label) = (Arc::clone(&proxy), label.clone());
        tokio::spawn(async move {
            let read = match read {
                Some(read) => read,
                None => reading.await,
            };
            check_request(proxy, run, label, read).await
        })
    };
    let (response, connection) = match answered {
        Ok(sent) => sent,
        Err(failed) => {
            let (status, why) = match failed {
                Failed::Unreachable(why) => (502, format!("the server cannot be reached: {why}")),
                Failed::TimedOut(why) => (504, format!("the server did not answer: {why}")),
            };
            if let Ok(Some(checked)) = checking.await {
                checked.watch.note(&why);
            }
            return serve::text(status, &format!("agui-lint proxy: {why}"));
        }
    };
    let head_at = Instant::now();
    let (parts, upstream_body) = response.into_parts();
    let status = parts.status.as_u16();
    let text_headers: Vec<(String, String)> = parts
        .headers
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let content_type = parts
        .headers
        .get(hyper::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    // A body framed by Transfer-Encoding is read as chunks whatever its
    // Content-Length says (RFC 9112 section 6.3): that length is not the
    // body's, and is not passed back.
    let chunked = parts.headers.contains_key(hyper::header::TRANSFER_ENCODING);
    let (feed, stream) = Body::channel();
    let mut back = Response::new(stream);
    *back.status_mut() = parts.status;
    for (name, value) in &parts.headers {
        if upstream::passed_back(name.as_str())
            && !(chunked && name == hyper::header::CONTENT_LENGTH)
        {
            back.headers_mut().append(name.clone(), value.clone());
        }
    }
    let passing = Passing {
        held: proxy.limits.memory.share(),
        proxy,
        sent,
        status,
        headers: text_headers,
        content_type,
        checking,
        started,
        head_at,
        request_held: None,
        _connection: connection,
    };
    tokio::spawn(passing.pass(upstream_body, feed));
    back
}

/// A response being passed on, and all its exchange holds until it ends.
struct Passing {
    proxy: Arc<Proxy>,
    sent: Sent,
    status: u16,
    headers: Vec<(String, String)>,
    content_type: Option<String>,
    /// The request's check, started beside its forwarding.
    checking: JoinHandle<Option<RequestChecked>>,
    /// When the request was sent, and when the response's head came.
    started: Instant,
    head_at: Instant,
    /// The kept response's share of the memory budget.
    held: Held,
    /// The request body's share, once its check is done.
    request_held: Option<Held>,
    /// The connection to the server, closed when the exchange ends.
    _connection: Connection,
}

impl Passing {
    /// Passes `body` to the client through `feed`, checking each piece
    /// after it is passed on, and ends the exchange.
    async fn pass(mut self, mut body: Incoming, feed: Feed) {
        let mut receiving = Receiving::new(self.started, self.head_at, self.proxy.keep);
        let idle = self.proxy.upstream.timeouts.idle;
        let mut watch: Option<Watch> = None;
        // How much of what was kept the watch has been fed.
        let mut fed = 0usize;
        let mut budget_spent = false;
        let (end, detail) = loop {
            let next = tokio::select! {
                next = tokio::time::timeout(idle, body.frame()) => next,
                () = feed.closed() => {
                    receiving.ended_now();
                    break (DeliveryEnd::ConnectionLost, Some("closed by the client".to_owned()));
                }
            };
            match next {
                Ok(None) => {
                    feed.end().await;
                    break (DeliveryEnd::Complete, None);
                }
                Ok(Some(Ok(frame))) => {
                    let Ok(data) = frame.into_data() else {
                        continue;
                    };
                    // The client first; the check after.
                    if !feed.send(data.clone()).await {
                        receiving.ended_now();
                        break (
                            DeliveryEnd::ConnectionLost,
                            Some("closed by the client".to_owned()),
                        );
                    }
                    let room = self
                        .proxy
                        .keep
                        .saturating_sub(receiving.body().len())
                        .min(data.len());
                    if !budget_spent && room > 0 && !self.held.grow(room) {
                        // What is kept stops here; the rest passes on,
                        // counted, as past --max-response-size.
                        budget_spent = true;
                        receiving.stop_keeping();
                    }
                    receiving.piece(&data);
                    if watch.is_none() && self.checking.is_finished() {
                        watch = self.watch_ready().await;
                    }
                    if let Some(watch) = watch.as_mut() {
                        let kept = receiving.body();
                        watch.feed(&kept[fed..]);
                        fed = kept.len();
                    }
                }
                Ok(Some(Err(e))) => {
                    // The client's connection is cut as the server's was.
                    feed.fail(e.to_string()).await;
                    receiving.ended_now();
                    break (DeliveryEnd::ConnectionLost, Some(e.to_string()));
                }
                Err(_) => {
                    let why = format!("nothing for {}", upstream::seconds(idle));
                    feed.fail(why.clone()).await;
                    receiving.ended_now();
                    break (DeliveryEnd::ConnectionLost, Some(why));
                }
            }
        };
        if watch.is_none() {
            watch = self.watch_ready().await;
        }
        if budget_spent {
            if let Some(watch) = &watch {
                watch.note("the memory budget (--max-memory) is spent: the rest of this response passed on unchecked");
            }
        }
        // The rest is checking and saving, on a thread of its own so that
        // other exchanges' pieces pass meanwhile.
        tokio::task::spawn_blocking(move || self.finish(receiving, watch, fed, end, detail));
    }

    /// The request's check, done: the watch, told of the response's head;
    /// the body it read, what the exchange saves.
    async fn watch_ready(&mut self) -> Option<Watch> {
        let checked = (&mut self.checking).await.ok().flatten()?;
        self.sent.body = Vec::from(checked.body);
        self.request_held = checked.held;
        let mut watch = checked.watch;
        watch.response(self.status, self.content_type.as_deref());
        Some(watch)
    }

    /// Feeds the watch what it has not seen, records the exchange and
    /// prints its summary.
    fn finish(
        self,
        receiving: Receiving,
        mut watch: Option<Watch>,
        fed: usize,
        end: DeliveryEnd,
        detail: Option<String>,
    ) {
        if let Some(watch) = watch.as_mut() {
            let kept = receiving.body();
            if fed < kept.len() {
                watch.feed(&kept[fed..]);
            }
        }
        let layout = match self
            .content_type
            .as_deref()
            .and_then(BodyLayout::of_media_type)
        {
            Some(BodyLayout::Proto) => Layout::Proto,
            Some(BodyLayout::JsonLines) => Layout::JsonLines,
            _ => Layout::Sse,
        };
        // Past the limit, the stream's last piece kept may be half a
        // record: what the archive holds (cut to whole records) is judged
        // instead.
        let over_limit = receiving.over_limit();
        let received = receiving.finish(layout, self.status, self.headers, end, None, detail);
        let entry = self.proxy.session.as_ref().and_then(|session| {
            session
                .lock()
                .ok()
                .map(|mut s| s.record(&self.sent, &received))
        });
        if let Some(watch) = watch {
            watch.finish(&self.sent, &received, entry, over_limit);
        }
        drop(self.held);
        drop(self.request_held);
    }
}

/// A request's check, and the body it read (what the exchange saves).
struct RequestChecked {
    watch: Watch,
    body: Bytes,
    /// The body's share of the memory budget.
    held: Option<Held>,
}

/// Checks the request body `read` (on a blocking thread: a large body
/// takes a while), or says why there is none to check.
async fn check_request(
    proxy: Arc<Proxy>,
    run: usize,
    label: String,
    read: Result<(Bytes, Held), BodyRefused>,
) -> Option<RequestChecked> {
    match read {
        Ok((body, held)) => {
            let checked = body.clone();
            let watch =
                tokio::task::spawn_blocking(move || Watch::new(proxy, run, &label, &checked))
                    .await
                    .ok()?;
            Some(RequestChecked {
                watch,
                body,
                held: Some(held),
            })
        }
        Err(why) => {
            let watch = Watch::new(proxy, run, &label, b"");
            watch.note(&format!(
                "the request's body was not read whole ({}): it is not checked or saved",
                why.told().1
            ));
            Some(RequestChecked {
                watch,
                body: Bytes::new(),
                held: None,
            })
        }
    }
}
