//! A request body or document as Python hands it over, borrowed where it can be.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// A request body or document as Python hands it over: borrowed from
/// `bytes` and `str`, copied from `bytearray` (which may change under us).
pub(crate) enum Body<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl Body<'_> {
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Body::Borrowed(bytes) => bytes,
            Body::Owned(bytes) => bytes,
        }
    }
}

/// Reads `body` (`bytes`, `str`, `bytearray` or `memoryview`) without a
/// copy where Python allows it.
pub(crate) fn body<'a>(
    body: &'a Bound<'_, PyAny>,
    text: &'a mut Option<String>,
) -> PyResult<Body<'a>> {
    if let Ok(bytes) = body.cast::<PyBytes>() {
        return Ok(Body::Borrowed(bytes.as_bytes()));
    }
    if let Ok(string) = body.cast::<PyString>() {
        let cow = string.to_cow()?;
        return Ok(match cow {
            std::borrow::Cow::Borrowed(s) => Body::Borrowed(s.as_bytes()),
            std::borrow::Cow::Owned(s) => Body::Borrowed(text.insert(s).as_bytes()),
        });
    }
    if let Ok(array) = body.cast::<PyByteArray>() {
        return Ok(Body::Owned(array.to_vec()));
    }
    if body.hasattr("tobytes")? {
        // A memoryview (or any buffer that can say what it holds).
        let bytes = body.call_method0("tobytes")?;
        if let Ok(bytes) = bytes.cast::<PyBytes>() {
            return Ok(Body::Owned(bytes.as_bytes().to_vec()));
        }
    }
    Err(PyTypeError::new_err(format!(
        "the body must be bytes or str, not {}",
        body.get_type().name()?
    )))
}
