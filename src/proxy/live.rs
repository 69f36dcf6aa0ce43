//! `proxy --ui`: the live view. The proxy serves a page at
//! [`PAGE_PATH`] on its own address and, at [`EVENTS_PATH`], a stream of
//! Server-Sent Events saying what each run does as it passes: its start,
//! how many events it has carried, each finding as it is made, and its
//! end. A page opened late is first sent the latest [`KEPT`] messages.
//!
//! The page builds what it shows with the DOM (text nodes, never markup
//! from the stream) under a policy that runs its own script alone: what
//! the traffic holds cannot run script in it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use hyper::{Request, Response};
use serde_json::Value;
use tokio::sync::broadcast;

use crate::serve::{self, Body};

/// Where the live view's page is served.
pub(crate) const PAGE_PATH: &str = "/_agui-lint/live";

/// Where its stream of messages is served.
pub(crate) const EVENTS_PATH: &str = "/_agui-lint/live/events";

/// Messages a page opened late is sent first.
const KEPT: usize = 2_000;

/// Messages a slow page may fall behind by before it is told it missed
/// some.
const BEHIND: usize = 4_096;

/// How often an idle stream sends a comment, so that nothing between the
/// page and the proxy closes it.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The live view's messages: sent to every open page, the latest kept.
pub(crate) struct Live {
    sender: broadcast::Sender<Arc<str>>,
    kept: Mutex<VecDeque<Arc<str>>>,
}

impl Live {
    /// A live view with no page open yet.
    pub(crate) fn new() -> Live {
        let (sender, _) = broadcast::channel(BEHIND);
        Live {
            sender,
            kept: Mutex::new(VecDeque::new()),
        }
    }

    /// Sends `message` (a JSON object) to every open page.
    pub(crate) fn send(&self, message: &Value) {
        let text: Arc<str> = Arc::from(message.to_string());
        {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            if kept.len() == KEPT {
                kept.pop_front();
            }
            kept.push_back(Arc::clone(&text));
        }
        // No page open is no failure.
        let _ = self.sender.send(text);
    }

    /// Answers a request for the page or its stream; `None` for any other
    /// path (forwarded as usual).
    pub(crate) fn answer(
        self: &Arc<Self>,
        request: &Request<hyper::body::Incoming>,
    ) -> Option<Response<Body>> {
        match request.uri().path() {
            PAGE_PATH => Some(page()),
            EVENTS_PATH => Some(self.stream()),
            _ => None,
        }
    }

    /// The stream of messages: the kept ones, then each new one.
    fn stream(self: &Arc<Self>) -> Response<Body> {
        let (feed, body) = Body::channel();
        // Subscribed before the kept messages are read, so that none falls
        // between the two.
        let mut receiver = self.sender.subscribe();
        let kept: Vec<Arc<str>> = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect();
        tokio::spawn(async move {
            for text in kept {
                if !feed.send(event(&text)).await {
                    return;
                }
            }
            loop {
                let next = tokio::select! {
                    next = receiver.recv() => next,
                    () = tokio::time::sleep(KEEP_ALIVE) => {
                        if !feed.send(Bytes::from_static(b": alive\n\n")).await {
                            return;
                        }
                        continue;
                    }
                    () = feed.closed() => return,
                };
                let sent = match next {
                    Ok(text) => feed.send(event(&text)).await,
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        let text =
                            serde_json::json!({"kind": "missed", "messages": missed}).to_string();
                        feed.send(event(&text)).await
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if !sent {
                    return;
                }
            }
        });
        let mut response = Response::new(body);
        let headers = response.headers_mut();
        headers.insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/event-stream"),
        );
        headers.insert(
            hyper::header::CACHE_CONTROL,
            hyper::header::HeaderValue::from_static("no-store"),
        );
        response
    }
}

/// One Server-Sent Event carrying `text` (JSON: one line).
fn event(text: &str) -> Bytes {
    Bytes::from(format!("data: {text}\n\n"))
}

/// The page.
fn page() -> Response<Body> {
    match crate::page::render::live_page() {
        Ok(html) => {
            let mut response = Response::new(Body::whole(html));
            response.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("text/html; charset=utf-8"),
            );
            response
        }
        Err(why) => serve::text(500, &format!("agui-lint proxy: {why}")),
    }
}
