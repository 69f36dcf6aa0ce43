//! Rules over an agent's capability declaration.

use super::walk::Document;
use super::Rule;
use crate::diagnostic::Diagnostic;

/// The rules of this family, in documentation order.
pub(super) const RULES: &[Rule] = &[];

/// Runs this family's checks on `document`.
pub(super) fn check(_document: &Document<'_>, _out: &mut Vec<Diagnostic>) {}
