//! `agui-lint replay CAPTURE... --listen ADDR`: a mock AG-UI server that
//! answers each `POST` with a recorded response stream, chosen and fitted
//! by the library's [`playback`](agui_lint::unstable::recording::playback).

use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use agui_lint::unstable::recording::playback::{playback, Chooser, Ids, Matching, Pace};
use agui_lint::unstable::recording::{read_capture, Exchange};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Method, Request, Response};
use serde_json::Value;

use crate::cli::{MatchArg, PaceArg, ReplayArgs};
use crate::serve::{self, Body, Budget, Limits};

/// One recording and the capture it came from.
struct Recording {
    capture: String,
    exchange: Exchange,
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
    for path in &args.captures {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
        let capture = read_capture(&bytes, Path::new(path)).map_err(|e| format!("{name}: {e}"))?;
        recordings.extend(capture.exchanges.into_iter().map(|exchange| Recording {
            capture: name.clone(),
            exchange,
        }));
    }
    if recordings.is_empty() {
        return Err("the captures hold no recorded response to replay".to_owned());
    }
    let matching = match args.matching {
        MatchArg::Order => Matching::Order,
        MatchArg::Request => Matching::Request,
    };
    let exchanges: Vec<Exchange> = recordings.iter().map(|r| r.exchange.clone()).collect();
    let replay = Arc::new(Replay {
        chooser: Mutex::new(Chooser::new(&exchanges, matching)),
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
    serve::serve("replay", args.listen, exchanges, move |request| {
        let replay = Arc::clone(&replay);
        async move { answer(&replay, request).await }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The recorded answer to one request.
async fn answer(replay: &Replay, request: Request<Incoming>) -> Response<Body> {
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
    let played = playback(
        &recording.exchange,
        incoming.as_ref(),
        replay.keep_ids,
        replay.pace,
    );
    if !replay.quiet {
        let place = if recording.exchange.origin.is_empty() {
            String::new()
        } else {
            format!(" {}", recording.exchange.origin)
        };
        let ids = match played.ids {
            Ids::Kept => "ids as recorded",
            Ids::Rewritten => "ids fitted to the request",
            Ids::NotRewritable => {
                "ids as recorded (the binary frames' ids differ in length from the request's)"
            }
        };
        crate::console::say(format_args!(
            "agui-lint replay: POST {path} ← {}{place}: {} event(s), {ids}",
            recording.capture,
            recording.exchange.events.len()
        ));
    }
    let (sender, stream) = Body::channel();
    tokio::spawn(async move {
        for piece in played.pieces {
            if !piece.wait.is_zero() {
                tokio::time::sleep(piece.wait).await;
            }
            if !sender.send(Bytes::from(piece.bytes)).await {
                // The client went away.
                return;
            }
        }
        sender.end().await;
    });
    let mut response = Response::new(stream);
    *response.status_mut() =
        hyper::StatusCode::from_u16(played.status).unwrap_or(hyper::StatusCode::OK);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(played.media_type));
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
