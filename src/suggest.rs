//! "Did you mean" suggestions for misspelled keys and values.

/// The candidate closest to `word`, if any is close enough to be a likely
/// misspelling: same text in another case or spelling convention, or within
/// a small edit distance for its length.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let folded = fold(word);
    let lower = word.to_lowercase();
    let lower_length = lower.chars().count();
    let mut best: Option<(f64, &'a str)> = None;
    for candidate in candidates {
        if candidate == word {
            continue;
        }
        if folds_to(candidate, &folded) {
            return Some(candidate);
        }
        // The distance is at least the difference in length: a candidate
        // too far by that alone is never measured (the unknown keys of a
        // warned body meet every key of their object).
        let candidate_length = if candidate.is_ascii() {
            candidate.len()
        } else {
            candidate.chars().flat_map(char::to_lowercase).count()
        };
        let longest = lower_length.max(candidate_length);
        let at_least = lower_length.abs_diff(candidate_length);
        if at_least > 2 && at_least * 4 > longest {
            continue;
        }
        let candidate_lower = candidate.to_lowercase();
        let distance = strsim::damerau_levenshtein(&lower, &candidate_lower);
        // As strsim's normalized distance: 1 for two empty words.
        let score = if longest == 0 {
            1.0
        } else {
            1.0 - distance as f64 / longest as f64
        };
        let close = distance <= 2 || score >= 0.75;
        if close && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Whether `candidate` folds ([`fold`]) to `folded`, without building
/// its folded text.
fn folds_to(candidate: &str, folded: &str) -> bool {
    candidate
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .eq(folded.chars())
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

    /// The suggestion as it was first written (strsim's normalized and
    /// plain distances of every pair): the measure that skips candidates
    /// too far by length must suggest what it suggested.
    fn closest_measuring_all<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
        let folded = fold(word);
        let mut best: Option<(f64, &'a str)> = None;
        for &candidate in candidates {
            if candidate == word {
                continue;
            }
            if fold(candidate) == folded {
                return Some(candidate);
            }
            let (a, b) = (word.to_lowercase(), candidate.to_lowercase());
            let score = strsim::normalized_damerau_levenshtein(&a, &b);
            let distance = strsim::damerau_levenshtein(&a, &b);
            if (distance <= 2 || score >= 0.75) && best.is_none_or(|(s, _)| score > s) {
                best = Some((score, candidate));
            }
        }
        best.map(|(_, c)| c)
    }

    #[test]
    fn skipping_far_candidates_suggests_what_measuring_all_does() {
        let keys = [
            "threadId",
            "runId",
            "parentRunId",
            "state",
            "messages",
            "tools",
            "context",
            "forwardedProps",
            "protocolVersion",
            "resume",
            "id",
            "role",
            "content",
            "name",
            "toolCalls",
            "toolCallId",
            "encryptedValue",
            "activityType",
            "x",
            "",
            "Ärger",
            "İd",
            "assistant",
            "user",
            "developer",
            "reasoning",
            "description",
            "parameters",
        ];
        let mut words: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        for key in keys {
            let chars: Vec<char> = key.chars().collect();
            for i in 0..chars.len() {
                let mut dropped = chars.clone();
                dropped.remove(i);
                words.push(dropped.into_iter().collect());
                let mut doubled = chars.clone();
                doubled.insert(i, chars[i]);
                words.push(doubled.into_iter().collect());
            }
            words.push(format!("{key}s"));
            words.push(format!("my_{key}"));
            words.push(key.to_uppercase());
        }
        words.extend(
            [
                "colour",
                "timestamp",
                "a",
                "ab",
                "abcdefghijklmnop",
                "ärger",
                "ID",
            ]
            .map(String::from),
        );
        for word in &words {
            assert_eq!(
                closest(word, keys),
                closest_measuring_all(word, &keys),
                "{word:?}"
            );
        }
    }

    #[test]
    fn recognises_snake_case() {
        assert!(is_snake_case("tool_call_id"));
        assert!(!is_snake_case("toolCallId"));
        assert!(!is_snake_case("_private"));
    }
}
