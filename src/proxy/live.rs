//! `proxy --ui`: the live view. The proxy serves a page at
//! [`PAGE_PATH`] on its own address and, at [`EVENTS_PATH`], a stream of
//! Server-Sent Events saying what each run does as it passes: its start,
//! how many events it has carried and the bars of its timeline they
//! changed ([`super::timeline`]), each finding as it is made (with the
//! record it is on, which the timeline marks), and its end. A page opened
//! late is first sent the latest [`KEPT`] messages (within
//! [`KEPT_BYTES`]). Each ended run's exchange is kept (the latest [`KEPT_RUNS`], within
//! [`KEPT_RUN_BYTES`]) and drawn at [`RUN_PATH`]`N` as the page `agui-lint
//! report` writes of a saved session: its timeline, state, conversation
//! and findings in place.
//!
//! The page builds what it shows with the DOM (text nodes, never markup
//! from the stream) under a policy that runs its own script alone: what
//! the traffic holds cannot run script in it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agui_lint::unstable::input::har_write::{archive_with, Masking, Received, Sent};
use bytes::Bytes;
use hyper::{Request, Response};
use serde_json::Value;
use tokio::sync::broadcast;

use crate::serve::{self, Body};

/// Where the live view's page is served.
pub(crate) const PAGE_PATH: &str = "/_agui-lint/live";

/// Where its stream of messages is served.
pub(crate) const EVENTS_PATH: &str = "/_agui-lint/live/events";

/// Where run `N`'s page is served: `/_agui-lint/live/run/N`.
pub(crate) const RUN_PATH: &str = "/_agui-lint/live/run/";

/// Ended runs whose exchange is kept to be drawn.
const KEPT_RUNS: usize = 100;

/// The most bytes of exchanges kept to be drawn; the oldest go first.
const KEPT_RUN_BYTES: usize = 64 * 1024 * 1024;

/// Messages a page opened late is sent first.
const KEPT: usize = 2_000;

/// The most bytes of messages kept for a page opened late; the oldest go
/// first.
const KEPT_BYTES: usize = 8 * 1024 * 1024;

/// Messages a slow page may fall behind by before it is told it missed
/// some.
const BEHIND: usize = 4_096;

/// How often an idle stream sends a comment, so that nothing between the
/// page and the proxy closes it.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The live view's messages: sent to every open page, the latest kept.
pub(crate) struct Live {
    sender: broadcast::Sender<Arc<str>>,
    /// The latest messages, and their bytes.
    kept: Mutex<(VecDeque<Arc<str>>, usize)>,
    /// Ended runs' exchanges, each as a one-entry HTTP Archive.
    runs: Mutex<KeptRuns>,
    /// What a kept exchange masks, as the saved session does.
    masking: Masking,
    /// Header names masked beside the built-in ones (`--secret-header`).
    secret_headers: Vec<String>,
}

/// The exchanges of the latest ended runs, oldest first.
#[derive(Default)]
struct KeptRuns {
    runs: VecDeque<(usize, Arc<[u8]>)>,
    bytes: usize,
}

impl Live {
    /// A live view with no page open yet, whose kept exchanges mask what
    /// the saved session masks (`masking`, `secret_headers`).
    pub(crate) fn new(masking: Masking, secret_headers: &[String]) -> Live {
        let (sender, _) = broadcast::channel(BEHIND);
        Live {
            sender,
            kept: Mutex::new((VecDeque::new(), 0)),
            runs: Mutex::new(KeptRuns::default()),
            masking,
            secret_headers: secret_headers.to_vec(),
        }
    }

    /// Keeps run `run`'s exchange (`sent`, `received`) to be drawn; the
    /// oldest kept go to make room. The path of its page, or `None` when it
    /// is larger than all that is kept.
    pub(crate) fn keep_run(&self, run: usize, sent: &Sent, received: &Received) -> Option<String> {
        let archive: Arc<[u8]> = Arc::from(archive_with(
            &[(sent.clone(), received.clone())],
            &[],
            self.masking,
            &self.secret_headers,
        ));
        if archive.len() > KEPT_RUN_BYTES {
            return None;
        }
        let mut kept = self.runs.lock().unwrap_or_else(PoisonError::into_inner);
        while kept.runs.len() == KEPT_RUNS || kept.bytes + archive.len() > KEPT_RUN_BYTES {
            let Some((_, old)) = kept.runs.pop_front() else {
                break;
            };
            kept.bytes -= old.len();
        }
        kept.bytes += archive.len();
        kept.runs.push_back((run, archive));
        Some(format!("{RUN_PATH}{run}"))
    }

    /// Run `run`'s exchange, when it is still kept.
    fn kept_run(&self, run: usize) -> Option<Arc<[u8]>> {
        let kept = self.runs.lock().unwrap_or_else(PoisonError::into_inner);
        kept.runs
            .iter()
            .find(|(n, _)| *n == run)
            .map(|(_, archive)| Arc::clone(archive))
    }

    /// Sends `message` (a JSON object) to every open page.
    pub(crate) fn send(&self, message: &Value) {
        let text: Arc<str> = Arc::from(message.to_string());
        {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            let (messages, bytes) = &mut *kept;
            while messages.len() == KEPT || *bytes + text.len() > KEPT_BYTES {
                let Some(old) = messages.pop_front() else {
                    break;
                };
                *bytes -= old.len();
            }
            *bytes += text.len();
            messages.push_back(Arc::clone(&text));
        }
        // No page open is no failure.
        let _ = self.sender.send(text);
    }

    /// Answers a request for the page, its stream or a run's page; `None`
    /// for any other path (forwarded as usual).
    pub(crate) async fn answer(
        self: &Arc<Self>,
        request: &Request<hyper::body::Incoming>,
    ) -> Option<Response<Body>> {
        let path = request.uri().path();
        match path {
            PAGE_PATH => Some(page()),
            EVENTS_PATH => Some(self.stream()),
            _ => {
                let run = path.strip_prefix(RUN_PATH)?;
                Some(self.run_page(run).await)
            }
        }
    }

    /// The page of run `run` (its number as the path says it), drawn from
    /// its kept exchange off the proxy's own tasks.
    async fn run_page(&self, run: &str) -> Response<Body> {
        let Some(archive) = run.parse().ok().and_then(|n| self.kept_run(n)) else {
            return serve::text(
                404,
                &format!(
                    "agui-lint proxy: run {run} is not kept (the live view keeps the latest {KEPT_RUNS} runs' exchanges, {} MiB at most)",
                    KEPT_RUN_BYTES >> 20
                ),
            );
        };
        let name = format!("run-{run}.har");
        let drawn =
            tokio::task::spawn_blocking(move || crate::page::capture_page(&name, archive)).await;
        match drawn {
            Ok(Ok(html)) => html_response(html),
            Ok(Err(why)) => serve::text(500, &format!("agui-lint proxy: {why}")),
            Err(e) => serve::text(500, &format!("agui-lint proxy: {e}")),
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
            .0
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
        Ok(html) => html_response(html),
        Err(why) => serve::text(500, &format!("agui-lint proxy: {why}")),
    }
}

/// A response of the page `html`.
fn html_response(html: impl Into<Bytes>) -> Response<Body> {
    let mut response = Response::new(Body::whole(html));
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-store"),
    );
    response
}
