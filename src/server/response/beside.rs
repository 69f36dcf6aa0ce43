//! A report-mode check on a task of its own, beside its stream, fed the
//! frames through a bounded queue ([`super::QUEUE_FRAMES`]); a stream that
//! fills it waits, or leaves its check behind ([`super::Lagging`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::sync::mpsc;

use super::check::Check;
use super::{Counters, Lagging, QUEUE_FRAMES};

/// What a frame of a stream checked beside it is to its check.
pub(super) enum Fed {
    Frame(Bytes),
    /// The agent's body ended.
    End,
}

/// The wait for room in a check's queue.
type Room = Pin<
    Box<dyn Future<Output = Result<mpsc::OwnedPermit<Fed>, mpsc::error::SendError<()>>> + Send>,
>;

/// A check running on a task of its own, fed through a bounded queue.
pub(super) struct Beside {
    /// `None` once the stream ended, or while waiting for room.
    queue: Option<mpsc::Sender<Fed>>,
    /// What waits for room in the queue, and the wait.
    pub(super) waiting: Option<(Fed, Room)>,
    counters: Arc<Counters>,
    lagging: Lagging,
    /// Set when the stream left its check behind ([`Lagging::Stop`]), so
    /// that the check, finding its queue closed, says so rather than that
    /// the stream was dropped.
    outpaced: Arc<AtomicBool>,
}

impl Beside {
    pub(super) fn spawn(runtime: &tokio::runtime::Handle, mut check: Box<Check>) -> Beside {
        let (queue, mut frames) = mpsc::channel(QUEUE_FRAMES);
        let counters = check.responses.counters.clone();
        let lagging = check.responses.lagging;
        let outpaced = Arc::new(AtomicBool::new(false));
        let left_behind = outpaced.clone();
        runtime.spawn(async move {
            while let Some(fed) = frames.recv().await {
                match fed {
                    Fed::Frame(bytes) => check.feed(&bytes),
                    Fed::End => return check.finish(),
                }
            }
            if left_behind.load(Ordering::Acquire) {
                check.outpaced();
            } else {
                check.abandon();
            }
        });
        Beside {
            queue: Some(queue),
            waiting: None,
            counters,
            lagging,
            outpaced,
        }
    }

    /// Hands `fed` to the check: ready at once while the queue has room,
    /// else once it has.
    pub(super) fn offer(&mut self, fed: Fed, cx: &mut Context<'_>) -> Poll<()> {
        let Some(queue) = self.queue.take() else {
            return Poll::Ready(());
        };
        match queue.try_send(fed) {
            Ok(()) => {
                self.queue = Some(queue);
                Poll::Ready(())
            }
            // The check has ended (its task is gone): nothing to feed.
            Err(mpsc::error::TrySendError::Closed(_)) => Poll::Ready(()),
            // The stream goes on without its check, which ends once it
            // has read what is queued (the queue is dropped here).
            Err(mpsc::error::TrySendError::Full(_)) if self.lagging == Lagging::Stop => {
                self.outpaced.store(true, Ordering::Release);
                Poll::Ready(())
            }
            Err(mpsc::error::TrySendError::Full(fed)) => {
                self.counters.waits.fetch_add(1, Ordering::Relaxed);
                self.waiting = Some((fed, Box::pin(queue.reserve_owned())));
                self.wait(cx)
            }
        }
    }

    /// Waits for room for what waits, then queues it.
    pub(super) fn wait(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some((_, room)) = &mut self.waiting else {
            return Poll::Ready(());
        };
        let Poll::Ready(permit) = room.as_mut().poll(cx) else {
            return Poll::Pending;
        };
        let waited = self.waiting.take();
        if let (Ok(permit), Some((fed, _))) = (permit, waited) {
            self.queue = Some(permit.send(fed));
        }
        Poll::Ready(())
    }
}
