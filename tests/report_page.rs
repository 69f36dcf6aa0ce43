//! `agui-lint report`: one self-contained HTML page of a capture, that
//! shows each run's lanes, state and findings in place, and that nothing a
//! capture holds can turn into markup or script.

use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;

/// The page `report` writes of `capture` (named `name`).
fn page_of(name: &str, capture: &[u8]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, capture).expect("write");
    let out = dir.path().join("page.html");
    let output = cargo_bin_cmd!("agui-lint")
        .current_dir(dir.path())
        .args(["report", path.to_str().expect("path"), "-o"])
        .arg(&out)
        .output()
        .expect("run");
    assert!(output.status.success(), "{output:?}");
    std::fs::read_to_string(&out).expect("page")
}

/// Markup and script a capture may carry, in every place the page shows
/// text: ids, names, message text, tool arguments, state, and a byte that
/// is not UTF-8.
const HOSTILE: &[u8] = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t</script><script>alert(1)</script>\",\"runId\":\"r<img src=x onerror=alert(2)>\"}\n\n\
data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\\\"><script>alert(3)</script>\",\"role\":\"assistant\"}\n\n\
data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\\\"><script>alert(3)</script>\",\"delta\":\"</script><svg onload=alert(4)>\"}\n\n\
data: {\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c1\",\"toolCallName\":\"<b>f</b>\"}\n\n\
data: {\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"c1\",\"delta\":\"{\\\"q\\\": \\\"</title></rect></a></svg><script>alert(5)</script>\"}\n\n\
data: {\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\"</pre><script>alert(6)</script>\":\"\xff\xfe\"}}\n\n\
data: {\"type\":\"STATE_DELTA\",\"delta\":[{\"op\":\"add\",\"path\":\"/x\",\"value\":\"</details><script>alert(7)</script>\"}]}\n\n";

#[test]
fn nothing_a_capture_holds_becomes_markup_or_script() {
    let page = page_of("hostile.sse", HOSTILE);
    // The page's own two script blocks, and no other.
    assert_eq!(page.matches("<script").count(), 2, "{page}");
    for injected in ["<img", "<svg onload", "<b>f</b>", "alert(1)</script>"] {
        assert!(!page.contains(injected), "{injected} reached the page");
    }
    // The embedded data cannot close its block.
    let data = page
        .split("id=\"report-data\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("embedded data");
    assert!(!data.contains('<'), "{data}");
    let parsed: serde_json::Value = serde_json::from_str(data).expect("the data is JSON");
    assert!(parsed["sources"][0]["findings"]
        .as_array()
        .is_some_and(|f| !f.is_empty()));
    // The policy runs no script without the page's nonce.
    assert!(page.contains("script-src 'nonce-"), "{page}");
    // What the capture said is shown, as text.
    assert!(
        page.contains("&lt;b&gt;f&lt;&#x2f;b&gt;"),
        "the tool's name as text"
    );
}

#[test]
fn a_run_shows_its_lanes_state_and_findings_in_place() {
    let capture = "\
{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r1\"}
{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\"count\":1}}
{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"call-1\",\"toolCallName\":\"search\"}
{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"call-1\",\"delta\":\"{\\\"q\\\":\"}
{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"call-1\",\"delta\":\"\\\"x\\\"}\"}
{\"type\":\"STATE_DELTA\",\"delta\":[{\"op\":\"replace\",\"path\":\"/count\",\"value\":2}]}
{\"type\":\"STATE_DELTA\",\"delta\":[{\"op\":\"remove\",\"path\":\"/missing\"}]}
{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r1\"}
";
    let page = page_of("run.jsonl", capture.as_bytes());
    // The tool call's lane, left open (no TOOL_CALL_END), its arguments
    // assembled from two pieces.
    assert!(page.contains("tool call: search call-1 (open)"), "{page}");
    assert!(page.contains("arguments in 2 piece(s)"), "{page}");
    assert!(page.contains("{&quot;q&quot;:&quot;x&quot;}"), "{page}");
    // The state after the delta, and the delta that did not apply.
    assert!(page.contains("replace &#x2f;count = 2"), "{page}");
    assert!(page.contains("&quot;count&quot;: 2"), "{page}");
    assert!(page.contains("not applied:"), "{page}");
    // The conversation the official client holds after the run: the
    // assistant's call, with its arguments as assembled.
    let conversation = page
        .split("holds it after this response: 1 message(s)")
        .nth(1)
        .expect("the client's view");
    assert!(
        conversation.contains("<td>assistant</td><td>tool calls:")
            && conversation.contains("&quot;name&quot;:&quot;search&quot;"),
        "{conversation}"
    );
    // The open call's finding, at the event it points to, linked both ways.
    let rule = "run-finished-while-open";
    assert!(page.contains(&format!("data-rule=\"{rule}\"")), "{page}");
    let row = page
        .split(&format!("data-rule=\"{rule}\""))
        .nth(1)
        .expect("the finding's row");
    let at = row
        .split("<a href=\"#")
        .nth(2)
        .and_then(|rest| rest.split('"').next())
        .expect("the finding links to its event");
    assert!(page.contains(&format!("<tr id=\"{at}\"")), "{at}");
}

#[test]
fn every_fixture_capture_gets_a_page() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("fixtures.html");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/1.1/streams/invalid");
    let output = cargo_bin_cmd!("agui-lint")
        .args(["report"])
        .arg(&fixtures)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("run");
    assert!(output.status.success(), "{output:?}");
    let page = std::fs::read_to_string(&out).expect("page");
    let captures = std::fs::read_dir(&fixtures).expect("fixtures").count();
    assert_eq!(page.matches("<h2 id=\"s").count(), captures);
    // Each invalid capture is named after the rule it breaks, and shows it.
    for entry in std::fs::read_dir(&fixtures).expect("fixtures") {
        let name = entry.expect("entry").file_name();
        let name = name.to_string_lossy();
        let stem = name
            .rsplit_once('.')
            .map_or(name.as_ref(), |(stem, _)| stem);
        let rule = agui_lint::rules::all()
            .iter()
            .map(|r| r.name)
            .filter(|r| stem.starts_with(r))
            .max_by_key(|r| r.len());
        let Some(rule) = rule else { continue };
        // A capture named after a client version is judged through that
        // client (`client-drops-event-0.0.57`).
        let client = stem.rsplit('-').next().filter(|v| {
            v.split('.').count() == 3 && v.split('.').all(|p| p.parse::<u32>().is_ok())
        });
        let page = match client {
            Some(version) => {
                let output = cargo_bin_cmd!("agui-lint")
                    .args(["report", "--client", version, "-o", "-"])
                    .arg(fixtures.join(name.as_ref()))
                    .output()
                    .expect("run");
                String::from_utf8(output.stdout).expect("UTF-8")
            }
            None => page.clone(),
        };
        assert!(
            page.contains(&format!("data-rule=\"{rule}\"")),
            "{name}: {rule}"
        );
    }
}

/// Every capture kind gets its runs drawn: an HTTP Archive's exchanges
/// with their requests, binary frames decoded, Server-Sent Events.
#[test]
fn every_capture_kind_is_drawn() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("kinds.html");
    let output = cargo_bin_cmd!("agui-lint")
        .current_dir(root)
        .args([
            "report",
            "fixtures/1.1/streams/valid/resume-missing-interrupt.har",
            "tests/data/proto/captures/fixtures-1.1-valid/full-run.aguipb",
            "tests/upstream/traffic-1.0/chat.response.sse",
            "-o",
        ])
        .arg(&out)
        .output()
        .expect("run");
    assert!(output.status.success(), "{output:?}");
    let page = std::fs::read_to_string(&out).expect("page");
    let sections: Vec<&str> = page.split("<h2 id=\"s").skip(1).collect();
    assert_eq!(sections.len(), 3, "{page}");
    // The archive: two exchanges, each with its request and its run.
    assert_eq!(
        sections[0].matches("Request: thread").count(),
        2,
        "{}",
        sections[0]
    );
    // The frames, decoded into events and drawn.
    assert!(sections[1].contains("frame 1 (byte 0)"), "{}", sections[1]);
    assert!(
        sections[1].contains("<svg class=\"timeline\""),
        "{}",
        sections[1]
    );
    // The stream of the official server, its message assembled.
    assert!(
        sections[2].contains("message: assistant"),
        "{}",
        sections[2]
    );
}

/// An activity's content is followed as the state is: each snapshot and
/// delta with the content after it.
#[test]
fn activities_evolve_beside_the_state() {
    let capture = "\
{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r1\"}
{\"type\":\"ACTIVITY_SNAPSHOT\",\"messageId\":\"a1\",\"activityType\":\"search\",\"content\":{\"found\":1}}
{\"type\":\"ACTIVITY_DELTA\",\"messageId\":\"a1\",\"activityType\":\"search\",\"patch\":[{\"op\":\"replace\",\"path\":\"/found\",\"value\":2}]}
{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r1\"}
";
    let page = page_of("activity.jsonl", capture.as_bytes());
    assert!(page.contains("activity a1 snapshot"), "{page}");
    assert!(page.contains("activity a1 delta"), "{page}");
    assert!(page.contains("replace &#x2f;found = 2"), "{page}");
    assert!(page.contains("&quot;found&quot;: 2"), "{page}");
}

/// A capture over 16 MiB of a layout read a piece at a time is drawn from
/// its file as it is read: every run in the outline or drawn, every
/// finding listed and linked.
#[test]
fn a_large_capture_is_drawn_as_it_is_read() {
    let text = "x".repeat(6_000);
    let capture: String = (0..3_000)
        .map(|k| {
            format!(
                "{{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r{k}\"}}
{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m{k}\",\"role\":\"assistant\"}}
{{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m{k}\",\"delta\":\"{text}\"}}
{{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m{k}\"}}
{{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r{k}\",\"extra\":1}}
"
            )
        })
        .collect();
    assert!(capture.len() > 16 * 1024 * 1024, "{}", capture.len());
    let page = page_of("large.jsonl", capture.as_bytes());
    assert_eq!(page.matches("data-rule=\"unknown-field\"").count(), 3_000);
    assert!(page.contains("run(s) in outline"), "no outline");
    assert!(page.contains("run r2999"), "the last run");
    // Each finding links to its event, or to its run's line of the outline.
    let links = page.matches("<td><a href=\"#s0-x0-r").count();
    assert_eq!(links, 3_000);
}

/// A capture with more findings than a table lists: every one is on the
/// page, the first ones as rows and the rest in its data, each once, each
/// linked to a place the page has, none able to close its block.
#[test]
fn every_finding_is_on_the_page_past_the_listed_ones() {
    const LISTED: usize = 10_000;
    let events = LISTED + 250;
    let mut capture =
        String::from("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n");
    for n in 0..events {
        capture.push_str(&format!(
            "{{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":{n},\"</script><b>{n}\":1}}\n"
        ));
    }
    capture.push_str("{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n");
    let page = page_of("many.jsonl", capture.as_bytes());
    assert!(!page.contains("<b>"), "markup reached the page");
    let rows = page.matches("<tr id=\"f0-").count();
    assert_eq!(rows, LISTED);
    let block = page
        .split("id=\"s0-more\" data-more-of=\"s0\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("the findings past the listed ones");
    assert!(!block.contains('<') && !block.contains('>'), "{block}");
    let more: Vec<serde_json::Value> = serde_json::from_str(block).expect("rows of JSON");
    assert_eq!(rows + more.len(), events, "each finding once");
    // The rows past the listed ones are the last lines' findings, in order,
    // each with its rule, severity, line and a place on the page.
    for (k, row) in more.iter().enumerate() {
        let line = LISTED + 2 + k;
        assert_eq!(row[0], "unknown-field", "{row}");
        assert_eq!(row[1], "warning", "{row}");
        assert_eq!(
            row[2],
            format!("unknown key '</script><b>{}'", line - 2),
            "{row}"
        );
        assert_eq!(row[4], format!("record {line}"), "{row}");
        assert_eq!(row[5], line, "{row}");
        assert_eq!(row[8], "run r", "{row}");
        let anchor = row[9].as_str().expect("an anchor");
        assert!(page.contains(&format!(" id=\"{anchor}\"")), "{anchor}");
    }
    // The table says how many are listed, and its script lists the rest.
    assert!(
        page.contains(&format!("{LISTED} of {events} findings listed")),
        "{}",
        &page[..2000]
    );
    assert!(page.contains("id=\"s0-more-button\" hidden>"), "the button");
    let data = page
        .split("id=\"report-data\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("embedded data");
    let data: serde_json::Value = serde_json::from_str(data).expect("the data is JSON");
    assert_eq!(data["sources"][0]["more_findings"], events - LISTED);
    assert!(data["sources"][0]["rules"]["unknown-field"]["link"]
        .as_str()
        .is_some_and(|link| link.ends_with("unknown-field.md")));
}
