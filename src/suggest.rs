//! "Did you mean" suggestions for misspelled keys and values.

/// The candidate closest to `word`, if any is close enough to be a likely
/// misspelling: same text in another case or spelling convention, or within
/// a small edit distance for its length.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let folded = fold(word);
    let mut best: Option<(f64, &'a str)> = None;
    for candidate in candidates {
        if candidate == word {
            continue;
        }
        if fold(candidate) == folded {
            return Some(candidate);
        }
        let score =
            strsim::normalized_damerau_levenshtein(&word.to_lowercase(), &candidate.to_lowercase());
        let distance = strsim::damerau_levenshtein(&word.to_lowercase(), &candidate.to_lowercase());
        let close = distance <= 2 || score >= 0.75;
        if close && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// `word` without case and without `_`/`-`, so that `tool_call_id`,
/// `ToolCallID` and `toolCallId` compare equal.
fn fold(word: &str) -> String {
    word.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `word` is written in snake_case (has an underscore between
/// lowercase words), the spelling the Python SDK also accepts.
pub fn is_snake_case(word: &str) -> bool {
    word.contains('_')
        && !word.starts_with('_')
        && word
            .chars()
            .all(|c| c == '_' || c.is_ascii_lowercase() || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_spelling_variants_and_near_misses() {
        let keys = ["threadId", "runId", "toolCallId", "content"];
        assert_eq!(closest("tool_call_id", keys), Some("toolCallId"));
        assert_eq!(closest("threadID", keys), Some("threadId"));
        assert_eq!(closest("contnet", keys), Some("content"));
        assert_eq!(closest("timestamp", keys), None);
        assert_eq!(
            closest("assitant", ["assistant", "user", "tool"]),
            Some("assistant")
        );
        assert_eq!(
            closest("img", ["text", "image", "audio", "video", "document"]),
            Some("image")
        );
    }

    #[test]
    fn recognises_snake_case() {
        assert!(is_snake_case("tool_call_id"));
        assert!(!is_snake_case("toolCallId"));
        assert!(!is_snake_case("_private"));
    }
}
