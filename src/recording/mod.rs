//! Recorded AG-UI runs: captures read into their exchanges and events
//! ([`capture`]), a run's events compared with another's after normalising
//! what differs between any two runs ([`diff`]), and a recorded stream
//! fitted to a new request and served again ([`rewrite`], [`playback`]),
//! a run's state followed within a budget ([`follow`]), and a body's
//! events framed as its bytes come ([`framing`]).
//!
//! The CLI's `diff`, `replay` and `proxy` are thin commands over these.

pub mod capture;
pub mod diff;
pub mod follow;
pub mod framing;
pub mod normalize;
pub mod playback;
pub mod rewrite;

pub use capture::{read_capture, BodyLayout, Capture, Exchange, RecordedEvent};
pub use follow::StateFollower;
