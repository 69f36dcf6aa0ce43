//! `agui-lint proxy --to URL`: a reverse proxy in front of an AG-UI
//! server that checks the traffic as it passes.
//!
//! The client's connection is served by hyper ([`crate::serve`]); each
//! request is forwarded by hyper's client on a connection of its own
//! ([`upstream`]) as a task ([`exchange`]), which hands the response's head
//! back at once and its body on piece by piece as it is read, unchanged,
//! before the piece is checked ([`watch`]); with `--ui`, the live view
//! ([`live`]) is told each run's findings and timeline ([`timeline`]).

mod exchange;
mod live;
mod session;
mod timeline;
mod upstream;
mod watch;

use std::process::ExitCode;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

use agui_lint::unstable::input::har_write::Masking;
use agui_lint::Validator;

use crate::cli::{ProxyArgs, ProxyFormat};
use crate::serve::{self, Budget, Limits};
use session::Session;
use upstream::{Timeouts, Upstream};

/// What every connection shares.
pub(crate) struct Proxy {
    /// The server's base URL, without a trailing `/`, as printed and saved.
    target: String,
    upstream: Upstream,
    validator: Validator,
    format: ProxyFormat,
    quiet: bool,
    keep: usize,
    limits: Limits,
    runs: AtomicUsize,
    session: Option<Mutex<Session>>,
    /// Printing is one line at a time across runs.
    out: Mutex<()>,
    /// The live view (`--ui`).
    live: Option<Arc<live::Live>>,
}

/// Runs the command: proxies until the process ends.
pub(crate) fn command(args: ProxyArgs) -> Result<ExitCode, String> {
    if args.ui && !args.listen.ip().is_loopback() {
        return Err(format!(
            "--ui shows the traffic's findings: it is served on a loopback address only, not {}",
            args.listen
        ));
    }
    let parsed = url::Url::parse(&args.to).map_err(|e| format!("--to {}: {e}", args.to))?;
    let upstream = Upstream::new(
        &parsed,
        Timeouts {
            connect: args.connect_timeout,
            first_byte: args.first_byte_timeout,
            idle: args.idle_timeout,
        },
    )
    .map_err(|e| {
        format!(
            "--to {}: {e}",
            agui_lint::unstable::secrets::mask_url(&args.to)
        )
    })?;
    let session = match &args.save {
        Some(dir) => Some(Mutex::new(Session::create(
            dir,
            args.save_secrets,
            &args.secret_headers,
            args.quiet,
        )?)),
        None => None,
    };
    let proxy = Arc::new(Proxy {
        target: args.to.trim_end_matches('/').to_owned(),
        upstream,
        validator: Validator::new().map_err(|e| e.to_string())?,
        format: args.format,
        quiet: args.quiet,
        keep: args.max_response_size,
        limits: Limits {
            exchanges: args.limits.max_exchanges,
            body_timeout: args.limits.body_timeout,
            memory: Budget::new(args.limits.max_memory),
        },
        runs: AtomicUsize::new(0),
        session,
        out: Mutex::new(()),
        live: args.ui.then(|| {
            let masking = if args.save_secrets {
                Masking::Nothing
            } else {
                Masking::Secrets
            };
            Arc::new(live::Live::new(masking, &args.secret_headers))
        }),
    });
    if !args.quiet {
        crate::console::say(format_args!(
            "agui-lint proxy: forwarding to {}",
            agui_lint::unstable::secrets::mask_url(&proxy.target)
        ));
    }
    let exchanges = proxy.limits.exchanges;
    let pages: &[(&str, &str)] = if args.ui {
        &[("live view", live::PAGE_PATH)]
    } else {
        &[]
    };
    serve::serve("proxy", args.listen, exchanges, pages, move |request| {
        let proxy = Arc::clone(&proxy);
        async move { exchange::handle(proxy, request).await }
    })?;
    Ok(ExitCode::SUCCESS)
}
