//! `agui-lint replay CAPTURE... --listen ADDR`: a mock AG-UI server that
//! answers each `POST` with a recorded response stream, chosen and fitted
//! by the library's [`playback`](agui_lint::unstable::recording::playback).

use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use agui_lint::unstable::recording::playback::{Chooser, Ids, Matching, Pace, Prepared, Served};
use agui_lint::unstable::recording::read_capture;
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Method, Request, Response};
use serde_json::Value;

use crate::cli::{MatchArg, PaceArg, ReplayArgs};
use crate::serve::{self, Body, Budget, Limits};

/// One recording, made ready to serve, and where it came from.
struct Recording {
    capture: String,
    /// Its place in the capture ("entry 3"), empty for a capture that is
    /// one response.
    origin: String,
    prepared: Prepared,
}

/// What every connection shares.
struct Replay {
    recordings: Vec<Recording>,
    chooser: Mutex<Chooser>,
    keep_ids: bool,
    pace: Pace,
    quiet: bool,
    limits: Limits,
}

/// Runs the command: serves until the process ends.
pub(crate) fn command(args: &ReplayArgs) -> Result<ExitCode, String> {
    let mut recordings = Vec::new();
    let matching = match args.matching {
        MatchArg::Order => Matching::Order,
        MatchArg::Request => Matching::Request,
    };
    let mut choosing = Chooser::new(&[], matching);
    for path in &args.captures {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
        let capture = read_capture(&bytes, Path::new(path)).map_err(|e| format!("{name}: {e}"))?;
        drop(bytes);
        choosing.extend(&capture.exchanges);
        // Each recording is held once, as the bytes it serves: the
        // capture's events are not kept.
        recordings.extend(capture.exchanges.iter().map(|exchange| Recording {
            capture: name.clone(),
            origin: exchange.origin.clone(),
            prepared: Prepared::new(exchange),
        }));
    }
    if recordings.is_empty() {
        return Err("the captures hold no recorded response to replay".to_owned());
    }
    let replay = Arc::new(Replay {
        chooser: Mutex::new(choosing),
        recordings,
        keep_ids: args.keep_ids,
        pace: match args.pace {
            PaceArg::Fast => Pace::Fast,
            PaceArg::Recorded => Pace::Recorded,
        },
        quiet: args.quiet,
        limits: Limits {
            exchanges: args.limits.max_exchanges,
            body_timeout: args.limits.body_timeout,
            memory: Budget::new(args.limits.max_memory),
        },
    });
    if !args.quiet {
        crate::console::say(format_args!(
            "agui-lint replay: {} recorded response(s), served {}",
            replay.recordings.len(),
            match matching {
                Matching::Order => "in order",
                Matching::Request => "by request",
            }
        ));
    }
    let exchanges = replay.limits.exchanges;
    serve::serve("replay", args.listen, exchanges, &[], move |request| {
        let replay = Arc::clone(&replay);
        async move { answer(&replay, request).await }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The recorded answer to one request.
async fn answer(replay: &Arc<Replay>, request: Request<Incoming>) -> Response<Body> {
    if request.method() != Method::POST {
        return serve::text(
            405,
            "agui-lint replay answers POST requests with recorded runs",
        );
    }
    let path = request.uri().path().to_owned();
    let body = match serve::read_body(request.into_body(), &replay.limits).await {
        Ok((body, _held)) => body,
        Err(why) => return serve::body_refused(why),
    };
    let incoming: Option<Value> = serde_json::from_slice(&body).ok();
    let chosen = replay
        .chooser
        .lock()
        .ok()
        .and_then(|mut chooser| chooser.choose(incoming.as_ref()));
    let Some(recording) = chosen.and_then(|index| replay.recordings.get(index)) else {
        return serve::text(500, "no recording to replay");
    };
    let prepared = &recording.prepared;
    let playing = prepared.play(incoming.as_ref(), replay.keep_ids);
    if !replay.quiet {
        let place = if recording.origin.is_empty() {
            String::new()
        } else {
            format!(" {}", recording.origin)
        };
        let what = if prepared.is_stream() {
            let ids = match playing.ids {
                Ids::Kept => "ids as recorded",
                Ids::Rewritten => "ids fitted to the request",
            };
            format!("{} event(s), {ids}", prepared.events())
        } else {
            format!(
                "a recorded {} {}, not an event stream, served as recorded",
                prepared.status(),
                prepared.media_type()
            )
        };
        crate::console::say(format_args!(
            "agui-lint replay: POST {path} ← {}{place}: {what}",
            recording.capture,
        ));
    }
    let (status, media_type) = (prepared.status(), prepared.media_type().to_owned());
    let (sender, stream) = Body::channel();
    let (pace, keep_ids) = (replay.pace, replay.keep_ids);
    let index = chosen.unwrap_or_default();
    let replay = Arc::clone(replay);
    tokio::spawn(async move {
        let Some(recording) = replay.recordings.get(index) else {
            return;
        };
        let prepared = &recording.prepared;
        // The same playing as the one said above: its choice of ids
        // depends on the request and the recording alone.
        let playing = prepared.play(incoming.as_ref(), keep_ids);
        for k in 0..prepared.pieces() {
            let wait = prepared.wait(k, pace);
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
            // A piece as recorded is a view of the one copy every client
            // shares; a piece with fitted ids is made as it is sent.
            let bytes = match playing.piece(k) {
                Served::Recorded(range) => Bytes::from_owner(Shared {
                    body: Arc::clone(prepared.body()),
                    range,
                }),
                Served::Fitted(bytes) => Bytes::from(bytes),
            };
            if bytes.is_empty() {
                continue;
            }
            if !sender.send(bytes).await {
                // The client went away.
                return;
            }
        }
        sender.end().await;
    });
    let mut response = Response::new(stream);
    *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::OK);
    if let Ok(value) = HeaderValue::from_str(&media_type) {
        response.headers_mut().insert(CONTENT_TYPE, value);
    }
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A range of a recording's one copy, as the bytes of a piece sent.
struct Shared {
    body: Arc<[u8]>,
    range: std::ops::Range<usize>,
}

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        self.body.get(self.range.clone()).unwrap_or_default()
    }
}
