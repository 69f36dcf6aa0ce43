//! The response body the layer hands on: the agent's frames unchanged,
//! each fed to the stream's check on the way.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};

use super::beside::{Beside, Fed};
use super::check::Check;

/// How a stream is checked.
pub(super) enum Checking {
    /// Each frame before it is handed on (enforce, or no tokio runtime).
    InLine(Box<Check>),
    /// On a task of its own (report).
    Beside(Beside),
}

/// A response body that passes the agent's frames on unchanged, checking
/// them on the way when the guard checks responses; made by
/// [`crate::server::Guard::layer`].
pub struct CheckedBody<B> {
    /// The agent's body; `None` once [`ResponseMode::Enforce`] ended the
    /// stream (dropping it stops the agent's work for it).
    inner: Option<Pin<Box<B>>>,
    check: Option<Checking>,
}

impl<B> std::fmt::Debug for CheckedBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckedBody")
            .field("checked", &self.check.is_some())
            .field("ended", &self.inner.is_none())
            .finish()
    }
}

impl<B> CheckedBody<B> {
    pub(super) fn new(body: B, check: Option<Checking>) -> Self {
        CheckedBody {
            inner: Some(Box::pin(body)),
            check,
        }
    }
}

impl<B: From<Bytes>> From<Bytes> for CheckedBody<B> {
    fn from(bytes: Bytes) -> Self {
        CheckedBody::new(B::from(bytes), None)
    }
}

impl<B> Body for CheckedBody<B>
where
    B: Body,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        if let Some(Checking::Beside(beside)) = &mut this.check {
            // A frame (or the end) waiting for room in the check's queue
            // is handed on once it is queued.
            if let Some((fed, _)) = &beside.waiting {
                let frame = match fed {
                    Fed::Frame(bytes) => Some(bytes.clone()),
                    Fed::End => None,
                };
                if beside.wait(cx).is_pending() {
                    return Poll::Pending;
                }
                return Poll::Ready(frame.map(|bytes| Ok(Frame::data(bytes))));
            }
        }
        if let Some(Checking::InLine(check)) = &mut this.check {
            if let Some(closing) = check.closing.take() {
                // Enforce: the agent's body goes; the RUN_ERROR is the last
                // frame.
                this.inner = None;
                check.end_early();
                return Poll::Ready(Some(Ok(Frame::data(closing))));
            }
        }
        let Some(inner) = &mut this.inner else {
            return Poll::Ready(None);
        };
        match inner.as_mut().poll_frame(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(frame))) => {
                let frame = frame.map_data(|mut data| data.copy_to_bytes(data.remaining()));
                if let Some(bytes) = frame.data_ref() {
                    let waiting = match &mut this.check {
                        Some(Checking::InLine(check)) => {
                            check.feed(bytes);
                            false
                        }
                        Some(Checking::Beside(beside)) => {
                            beside.offer(Fed::Frame(bytes.clone()), cx).is_pending()
                        }
                        None => false,
                    };
                    if waiting {
                        // Handed on once queued (above).
                        return Poll::Pending;
                    }
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(error))),
            Poll::Ready(None) => {
                this.inner = None;
                let waiting = match &mut this.check {
                    Some(Checking::InLine(check)) => {
                        check.finish();
                        if let Some(closing) = check.closing.take() {
                            check.end_early();
                            return Poll::Ready(Some(Ok(Frame::data(closing))));
                        }
                        false
                    }
                    Some(Checking::Beside(beside)) => beside.offer(Fed::End, cx).is_pending(),
                    None => false,
                };
                if waiting {
                    return Poll::Pending;
                }
                Poll::Ready(None)
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match (&self.inner, &self.check) {
            (None, Some(Checking::InLine(check))) => check.closing.is_none(),
            (None, Some(Checking::Beside(beside))) => beside.waiting.is_none(),
            (None, None) => true,
            // The end is seen by polling, so that the stream's end is
            // checked.
            (Some(_), Some(_)) => false,
            (Some(inner), None) => inner.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match (&self.inner, &self.check) {
            (Some(inner), None | Some(Checking::Beside(_))) => inner.size_hint(),
            (None, Some(Checking::InLine(check))) if check.closing.is_some() => SizeHint::default(),
            (None, _) => SizeHint::with_exact(0),
            // An enforced body may end early or carry a RUN_ERROR of its own.
            (Some(_), Some(Checking::InLine(_))) => SizeHint::default(),
        }
    }
}

impl<B> Drop for CheckedBody<B> {
    fn drop(&mut self) {
        // A check beside the stream sees its queue close without an end.
        if let Some(Checking::InLine(check)) = &mut self.check {
            check.abandon();
        }
    }
}
