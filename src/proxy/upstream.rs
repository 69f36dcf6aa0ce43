//! The server's side of the proxy: where it is, a connection opened to it
//! for each exchange (plain TCP, or TLS through rustls), and the request
//! sent on it by hyper's client, each step within its timeout.
//!
//! Every exchange is a task on the proxy's runtime, not a thread: a
//! thousand streams waiting on a slow server cost a thousand small tasks.
//! A connection is the exchange's own and is closed when the exchange is
//! dropped (its client went away, a timeout): nothing waits on a server
//! for a client that is gone.

use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use crate::serve::Body;

/// Headers of one connection (RFC 9110 §7.6.1), and those the client and
/// the server each set for their own connection: not passed on. The
/// client's `Accept-Encoding` is not passed on either, so that the server
/// answers in a form the proxy can check (what the client receives is
/// still exactly what the server sent).
const NOT_FORWARDED: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// Whether a client's request header is passed on to the server.
pub(crate) fn forwarded(name: &str) -> bool {
    !NOT_FORWARDED.iter().any(|n| name.eq_ignore_ascii_case(n))
        && !name.eq_ignore_ascii_case("accept-encoding")
}

/// Whether a server's response header is passed back to the client (its
/// framing is hyper's to write for the client's connection).
pub(crate) fn passed_back(name: &str) -> bool {
    !NOT_FORWARDED[..9]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n))
}

/// How long each step with the server may take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    /// Opening the connection (and TLS).
    pub connect: Duration,
    /// From the request sent to the response's head.
    pub first_byte: Duration,
    /// Between two pieces of the response's body.
    pub idle: Duration,
}

/// Why an exchange with the server did not reach a response's head.
pub(crate) enum Failed {
    /// The server refused or broke the connection (502).
    Unreachable(String),
    /// A step took longer than its timeout (504).
    TimedOut(String),
}

/// The agent server the proxy forwards to.
pub(crate) struct Upstream {
    host: String,
    port: u16,
    /// The `Host` header sent: the URL's host and port, never its user
    /// information.
    authority: String,
    /// The URL's path, without a trailing `/`, that each request's path
    /// follows.
    base_path: String,
    /// Set for an `https` server.
    tls: Option<tokio_rustls::TlsConnector>,
    /// The timeouts of every exchange.
    pub timeouts: Timeouts,
}

impl Upstream {
    /// The server at `url` (http or https).
    pub(crate) fn new(url: &url::Url, timeouts: Timeouts) -> Result<Upstream, String> {
        let tls = match url.scheme() {
            "http" => None,
            "https" => Some(tls_connector()?),
            _ => return Err("an http or https URL".to_owned()),
        };
        let host = url.host_str().ok_or("a URL with a host")?.to_owned();
        let port = url
            .port_or_known_default()
            .ok_or("a URL with a port or a known scheme")?;
        let authority = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.clone(),
        };
        Ok(Upstream {
            // `[::1]` is the URL's spelling; the socket's is `::1`.
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            port,
            authority,
            base_path: url.path().trim_end_matches('/').to_owned(),
            tls,
            timeouts,
        })
    }

    /// The request target sent for the client's `path_and_query`.
    pub(crate) fn target(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.base_path)
    }

    /// Sends `request` (its target from [`Self::target`], its headers the
    /// forwarded ones) on a connection of its own: the response's head,
    /// and the connection's driver, aborted when dropped.
    pub(crate) async fn send(
        &self,
        mut request: hyper::Request<Body>,
    ) -> Result<(hyper::Response<Incoming>, Connection), Failed> {
        let connect = self.timeouts.connect;
        let (mut sender, connection) = match tokio::time::timeout(connect, self.connect()).await {
            Ok(Ok(connected)) => connected,
            Ok(Err(why)) => return Err(Failed::Unreachable(why)),
            Err(_) => {
                return Err(Failed::TimedOut(format!(
                    "no connection within {}",
                    seconds(connect)
                )))
            }
        };
        if let Ok(host) = hyper::header::HeaderValue::from_str(&self.authority) {
            request.headers_mut().insert(hyper::header::HOST, host);
        }
        let first_byte = self.timeouts.first_byte;
        match tokio::time::timeout(first_byte, sender.send_request(request)).await {
            Ok(Ok(response)) => Ok((response, connection)),
            Ok(Err(e)) => Err(Failed::Unreachable(e.to_string())),
            Err(_) => Err(Failed::TimedOut(format!(
                "no response within {}",
                seconds(first_byte)
            ))),
        }
    }

    /// A new connection and its driver.
    async fn connect(&self) -> Result<(SendRequest<Body>, Connection), String> {
        let tcp = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|e| e.to_string())?;
        let _ = tcp.set_nodelay(true);
        match &self.tls {
            None => handshake(tcp).await,
            Some(tls) => {
                let name = rustls::pki_types::ServerName::try_from(self.host.clone())
                    .map_err(|e| e.to_string())?;
                let stream = tls.connect(name, tcp).await.map_err(|e| e.to_string())?;
                handshake(stream).await
            }
        }
    }
}

/// The task that drives one connection to the server, aborted (the
/// connection closed) when this is dropped.
pub(crate) struct Connection(JoinHandle<()>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// HTTP/1.1 over `stream`.
async fn handshake<S>(stream: S) -> Result<(SendRequest<Body>, Connection), String>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok((sender, Connection(driver)))
}

/// TLS for an `https` server: the roots of webpki-roots (as the probe's),
/// HTTP/1.1 offered.
fn tls_connector() -> Result<tokio_rustls::TlsConnector, String> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| format!("cannot set up TLS: {e}"))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// `d` as people write it: `10 s`, `1.5 s`.
pub(crate) fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}
