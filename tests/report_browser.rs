//! `agui-lint report`'s pages opened in a real browser (headless
//! Chromium): what a person sees is asserted from the DOM after the page's
//! script ran, the page logs nothing to the console (no error, no policy
//! violation), and a capture's markup and script stay text.
//!
//! Needs Chromium: `.ci/browser-test.sh` installs it and runs these with
//! `--ignored` (`AGUI_LINT_CHROMIUM` names the binary, else `chromium` on
//! the PATH). With `AGUI_LINT_WRITE_DOCS=1` the screenshots in the docs
//! book's report guide are written anew.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::cargo_bin_cmd;

#[path = "common/listening.rs"]
#[allow(dead_code)]
mod listening;

/// The browser: `AGUI_LINT_CHROMIUM`, else `chromium` on the PATH.
fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("AGUI_LINT_CHROMIUM") {
        return PathBuf::from(path);
    }
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join("chromium"))
        .find(|path| path.is_file());
    found.expect("these tests need Chromium: set AGUI_LINT_CHROMIUM or put chromium on the PATH (.ci/browser-test.sh installs it)")
}

/// Runs Chromium headless on the page at `page` with `args`; its stdout,
/// and the console messages it logged.
fn browse(page: &Path, args: &[&str]) -> (String, Vec<String>) {
    let mut all = vec!["--virtual-time-budget=5000"];
    all.extend_from_slice(args);
    browse_url(&format!("file://{}", page.display()), &all)
}

/// [`browse`] of the page at `url`.
fn browse_url(url: &str, args: &[&str]) -> (String, Vec<String>) {
    let profile = tempfile::tempdir().expect("profile dir");
    let output = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(output.status.success(), "chromium failed: {output:?}");
    let console = String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|line| line.contains(":CONSOLE"))
        .map(str::to_owned)
        .collect();
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        console,
    )
}

/// Writes the report of `path` (relative to `cwd`, so that the page names
/// it as a user would) to `out`.
fn report(cwd: &Path, path: &str, out: &Path) {
    let output = cargo_bin_cmd!("agui-lint")
        .current_dir(cwd)
        .args(["report", path, "-o"])
        .arg(out)
        .output()
        .expect("run");
    assert!(output.status.success(), "{output:?}");
}

/// The DOM of `page` after its script ran, asserting that nothing was
/// logged to the console; and its screenshot, written to the docs book
/// as `name` when asked.
fn opened(page: &Path, name: &str) -> String {
    let (dom, console) = browse(page, &["--dump-dom"]);
    assert!(console.is_empty(), "the page logged: {console:#?}");
    let shot = tempfile::tempdir().expect("dir");
    let png = shot.path().join(name);
    let (_, console) = browse(
        page,
        &[
            "--window-size=1280,1000",
            &format!("--screenshot={}", png.display()),
        ],
    );
    assert!(console.is_empty(), "the page logged: {console:#?}");
    let bytes = std::fs::read(&png).expect("screenshot");
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
        "{} bytes",
        bytes.len()
    );
    if std::env::var_os("AGUI_LINT_WRITE_DOCS").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/guides/images");
        std::fs::create_dir_all(&docs).expect("images dir");
        std::fs::write(docs.join(name), bytes).expect("write screenshot");
    }
    dom
}

#[test]
#[ignore = "needs Chromium: run by .ci/browser-test.sh"]
fn the_fixture_corpus_opens_with_every_finding_and_its_failing_lane() {
    let dir = tempfile::tempdir().expect("dir");
    let page = dir.path().join("fixtures.html");
    report(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        "fixtures/1.1/streams/invalid",
        &page,
    );
    let dom = opened(&page, "report-fixtures.png");
    // The page's script ran: the filters it shows are no longer hidden.
    assert!(
        dom.contains("<div class=\"filters\" data-filters=\"s0\">"),
        "the filters stayed hidden"
    );
    // A tool call left open when the run finished: its lane says so, and
    // the finding is in the table with its text.
    assert!(dom.contains("(open)"), "no open lane");
    assert!(dom.contains("data-rule=\"run-finished-while-open\""));
    assert!(dom.contains("RUN_FINISHED while subagent 's-1' is open"));
}

#[test]
#[ignore = "needs Chromium: run by .ci/browser-test.sh"]
fn a_session_shows_its_requests_state_diffs_and_the_clients_conversation() {
    let dir = tempfile::tempdir().expect("dir");
    let capture = dir.path().join("session.jsonl");
    std::fs::write(
        &capture,
        "\
{\"threadId\":\"t\",\"runId\":\"r1\",\"messages\":[{\"id\":\"u1\",\"role\":\"user\",\"content\":\"count to two\"}],\"tools\":[],\"context\":[],\"state\":{\"count\":0},\"forwardedProps\":{}}
{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r1\"}
{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\"count\":0}}
{\"type\":\"STATE_DELTA\",\"delta\":[{\"op\":\"replace\",\"path\":\"/count\",\"value\":1}]}
{\"type\":\"STATE_DELTA\",\"delta\":[{\"op\":\"replace\",\"path\":\"/missing/count\",\"value\":2}]}
{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"a1\",\"role\":\"assistant\"}
{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"a1\",\"delta\":\"one, \"}
{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"a1\",\"delta\":\"two\"}
{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"a1\"}
{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r1\"}
",
    )
    .expect("write");
    let page = dir.path().join("session.html");
    report(dir.path(), "session.jsonl", &page);
    let dom = opened(&page, "report-session.png");
    assert!(dom.contains("count to two"), "the request's message");
    assert!(dom.contains("replace /count = 1"), "the delta's operations");
    assert!(dom.contains("not applied:"), "the refused delta");
    assert!(
        dom.contains("<td>assistant</td><td>one, two</td>"),
        "the client's conversation"
    );
    assert!(dom.contains("data-rule=\"state-delta-not-applicable\""));
}

#[test]
#[ignore = "needs Chromium: run by .ci/browser-test.sh"]
fn a_capture_cannot_run_script_in_its_page() {
    let dir = tempfile::tempdir().expect("dir");
    let capture = dir.path().join("hostile.sse");
    let pwn = "document.title='PWNED'";
    std::fs::write(
        &capture,
        format!(
            "data: {{\"type\":\"RUN_STARTED\",\"threadId\":\"</script><script>{pwn}</script>\",\"runId\":\"<img src=x onerror=\\\"{pwn}\\\">\"}}\n\n\
             data: {{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}}\n\n\
             data: {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"</title></rect></a></svg><svg onload=\\\"{pwn}\\\">\"}}\n\n"
        )
        .into_bytes()
        .into_iter()
        .chain(*b"data: {\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\"k\":\"\xff\"}}\n\n")
        .collect::<Vec<u8>>(),
    )
    .expect("write");
    let page = dir.path().join("hostile.html");
    report(dir.path(), "hostile.sse", &page);
    let dom = opened(&page, "report-hostile.png");
    assert!(!dom.contains("PWNED</title>"), "a capture's script ran");
    assert!(dom.contains("<title>agui-lint report:"), "{dom}");
    assert_eq!(dom.matches("<script").count(), 2, "{dom}");
    assert!(
        !dom.contains("<img") && !dom.contains("<svg onload"),
        "{dom}"
    );
}

#[test]
#[ignore = "needs Chromium: run by .ci/browser-test.sh"]
fn a_diff_opens_with_its_runs_side_by_side() {
    let dir = tempfile::tempdir().expect("dir");
    let run = |id: &str, weather: &str, last: &str| {
        format!(
            "{{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"{id}\"}}
{{\"type\":\"STEP_STARTED\",\"stepName\":\"plan\"}}
{{\"type\":\"STEP_FINISHED\",\"stepName\":\"plan\"}}
{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"{id}-m\",\"role\":\"assistant\"}}
{{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"{id}-m\",\"delta\":\"The weather in Paris is {weather} today.\"}}
{{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"{id}-m\"}}
{last}
{{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"{id}\"}}
"
        )
    };
    std::fs::write(
        dir.path().join("recorded.jsonl"),
        run(
            "r1",
            "sunny",
            "{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\"n\":1}}",
        ),
    )
    .expect("write");
    std::fs::write(
        dir.path().join("today.jsonl"),
        run(
            "r9",
            "rainy",
            "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c\",\"toolCallName\":\"umbrella\"}\n{\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"c\"}",
        ),
    )
    .expect("write");
    let page = dir.path().join("diff.html");
    let output = cargo_bin_cmd!("agui-lint")
        .current_dir(dir.path())
        .args([
            "diff",
            "recorded.jsonl",
            "today.jsonl",
            "--format",
            "html",
            "-o",
        ])
        .arg(&page)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let dom = opened(&page, "report-diff.png");
    assert!(
        dom.contains("<del>sunny</del><ins>rainy</ins>"),
        "the word diff"
    );
    assert!(
        dom.contains("toolCallName: umbrella"),
        "what only today's run has"
    );
    assert!(
        dom.contains("<tr class=\"row-removed\">"),
        "what only the recording has"
    );
}

/// The DOM of the page at `url` once `ready` holds for it (or after 20 s),
/// read through Chromium's DevTools protocol, and the console messages it
/// logged: for a page whose stream stays open (the live view), which
/// `--dump-dom` would wait on forever.
fn dom_when(url: &str, ready: impl Fn(&str) -> bool) -> (String, Vec<String>) {
    devtools(url, &[], "document.documentElement.outerHTML", ready)
}

/// What `probe` (a script expression whose value is a string) says of the
/// page at `url` once `ready` holds for it (or after 20 s), the DevTools
/// calls `setup` made first, and the console messages the page logged.
fn devtools(
    url: &str,
    setup: &[(&str, serde_json::Value)],
    probe: &str,
    ready: impl Fn(&str) -> bool,
) -> (String, Vec<String>) {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    let profile = tempfile::tempdir().expect("profile dir");
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--remote-debugging-port=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run chromium");
    // Read as it comes, so that a full pipe never stops the browser.
    let mut stderr = child.stderr.take().expect("stderr");
    let logged = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let active = profile.path().join("DevToolsActivePort");
    let port = loop {
        if let Some(port) = std::fs::read_to_string(&active)
            .ok()
            .and_then(|text| text.lines().next().map(str::to_owned))
            .filter(|line| !line.is_empty())
        {
            break port;
        }
        assert!(
            Instant::now() < deadline,
            "chromium opened no DevTools port"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let targets = {
        let mut stream =
            std::net::TcpStream::connect(format!("127.0.0.1:{port}")).expect("devtools");
        write!(
            stream,
            "GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        )
        .expect("ask");
        // The DevTools server keeps the connection open: the body is read
        // to its Content-Length.
        let mut seen = Vec::new();
        let mut piece = [0u8; 4096];
        loop {
            let n = stream.read(&mut piece).expect("targets");
            assert!(
                n > 0,
                "the DevTools server closed: {}",
                String::from_utf8_lossy(&seen)
            );
            seen.extend_from_slice(&piece[..n]);
            let text = String::from_utf8_lossy(&seen).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if body.len() >= length {
                    break text;
                }
            }
        }
    };
    let list: serde_json::Value = serde_json::from_str(
        targets
            .split_once("\r\n\r\n")
            .map_or("[]", |(_, body)| body),
    )
    .expect("the targets as JSON");
    let page = list
        .as_array()
        .and_then(|targets| targets.iter().find(|t| t["type"] == "page"))
        .and_then(|t| t["webSocketDebuggerUrl"].as_str())
        .expect("a page target")
        .to_owned();
    let (mut socket, _) = tungstenite::connect(page).expect("connect to the page");
    let mut call = |id: u64, method: &str, params: serde_json::Value| -> serde_json::Value {
        let message = serde_json::json!({"id": id, "method": method, "params": params});
        socket
            .send(tungstenite::Message::Text(message.to_string().into()))
            .expect("send");
        loop {
            let reply = socket.read().expect("read");
            if let tungstenite::Message::Text(text) = reply {
                let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
                if value["id"] == id {
                    return value;
                }
            }
        }
    };
    let mut id = 0;
    for (method, params) in setup {
        id += 1;
        call(id, method, params.clone());
    }
    call(id + 1, "Page.navigate", serde_json::json!({"url": url}));
    let mut dom = String::new();
    for id in id + 2.. {
        let reply = call(
            id,
            "Runtime.evaluate",
            serde_json::json!({"expression": probe, "returnByValue": true}),
        );
        dom = reply["result"]["result"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if ready(&dom) || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = child.kill();
    let _ = child.wait();
    let console = logged
        .join()
        .expect("stderr")
        .lines()
        .filter(|line| line.contains(":CONSOLE"))
        .map(str::to_owned)
        .collect();
    (dom, console)
}

#[test]
#[ignore = "needs Chromium: run by .ci/browser-test.sh"]
fn the_proxys_live_view_shows_runs_as_they_pass() {
    let capture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/1.1/streams/invalid/duplicate-start.jsonl");
    let server = listening::Listening::start(&[
        "replay",
        "--keep-ids",
        "--listen",
        "127.0.0.1:0",
        capture.to_str().expect("path"),
    ]);
    let proxy = listening::Listening::start(&[
        "proxy",
        "--to",
        &server.url,
        "--listen",
        "127.0.0.1:0",
        "--ui",
        "--quiet",
    ]);
    let agent = format!("{}/agent", proxy.url);
    let run = move |agent: &str| {
        let seen = listening::post(
            agent,
            "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"tools\":[],\"context\":[],\"state\":{},\"forwardedProps\":{}}",
            &[],
        );
        assert_eq!(seen.status, 200);
    };
    // One run before the page opens (sent when it connects), one while it
    // is open (sent as it passes).
    run(&agent);
    let url = format!("{}/_agui-lint/live", proxy.url);
    let poster = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(2));
        run(&agent);
    });
    // Both runs ended: the end draws what no event closed as open.
    let (dom, console) = dom_when(&url, |dom| {
        dom.contains("id=\"run-2\"") && dom.contains("href=\"/_agui-lint/live/run/2\"")
    });
    let _ = poster.join();
    assert!(console.is_empty(), "the page logged: {console:#?}");
    assert!(dom.contains(">live<"), "{dom}");
    for run in ["run-1", "run-2"] {
        let row = dom
            .split(&format!("id=\"{run}\""))
            .nth(1)
            .and_then(|rest| rest.split("</tr>").next())
            .unwrap_or_else(|| panic!("no {run}: {dom}"));
        assert!(row.contains("<td>POST /agent</td>"), "{row}");
        assert!(row.contains(">duplicate-start</a>"), "{row}");
        // Its timeline, drawn as the events passed: the tool call the
        // second start left open, marked with its error.
        let number = run.trim_start_matches("run-");
        let drawing = dom
            .split(&format!("id=\"timeline-{number}\""))
            .nth(1)
            .and_then(|rest| rest.split("</tr>").next())
            .unwrap_or_else(|| panic!("no timeline of {run}: {dom}"));
        assert!(drawing.contains("<svg class=\"timeline\""), "{drawing}");
        assert!(
            drawing.contains(">tool call: search (open) ✖</text>"),
            "{drawing}"
        );
        assert!(drawing.contains("class=\"mark error\""), "{drawing}");
        assert!(drawing.contains("2 item(s) over 3 event(s)"), "{drawing}");
    }
    // An ended run links to its report, which opens as `agui-lint report`
    // draws it: the timeline and the finding in place.
    assert!(
        dom.contains("href=\"/_agui-lint/live/run/1\""),
        "no link to run 1's report: {dom}"
    );
    let (drawn, console) = browse_url(
        &format!("{}/_agui-lint/live/run/1", proxy.url),
        &["--dump-dom"],
    );
    assert!(console.is_empty(), "run 1's page logged: {console:#?}");
    assert!(drawn.contains("<svg class=\"timeline\""), "{drawn}");
    assert!(drawn.contains("data-rule=\"duplicate-start\""), "{drawn}");
}

#[test]
#[ignore = "needs Chromium: run by .ci/browser-test.sh"]
fn a_report_reads_at_200_percent_zoom_and_every_control_takes_the_keyboard() {
    let dir = tempfile::tempdir().expect("dir");
    let page = dir.path().join("fixtures.html");
    report(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        "fixtures/1.1/streams/invalid",
        &page,
    );
    // A 1280-pixel window at 200%: a 640-pixel viewport at twice the
    // pixels.
    let zoom =
        serde_json::json!({"width": 640, "height": 800, "deviceScaleFactor": 2, "mobile": false});
    let probe = "document.readyState !== 'complete' ? '' : JSON.stringify({
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        links: [...document.querySelectorAll('svg a')].filter(a => { a.focus(); return document.activeElement !== a; }).length,
        bars: document.querySelectorAll('svg a').length,
        summaries: [...document.querySelectorAll('summary')].filter(s => s.checkVisibility()).filter(s => { s.focus(); return document.activeElement !== s; }).map(s => s.textContent.slice(0, 60)),
        shown: [...document.querySelectorAll('summary')].filter(s => s.checkVisibility()).length,
        selects: [...document.querySelectorAll('select')].filter(s => { s.focus(); return document.activeElement !== s; }).length,
    })";
    let (seen, console) = devtools(
        &format!("file://{}", page.display()),
        &[("Emulation.setDeviceMetricsOverride", zoom)],
        probe,
        |seen| !seen.is_empty(),
    );
    assert!(console.is_empty(), "the page logged: {console:#?}");
    let seen: serde_json::Value = serde_json::from_str(&seen).expect("what the page said");
    assert!(
        seen["overflow"].as_i64() <= Some(0),
        "the page scrolls sideways at 200%: {seen}"
    );
    assert!(seen["bars"].as_u64() > Some(10), "{seen}");
    assert_eq!(seen["links"], 0, "bars that take no focus: {seen}");
    assert!(seen["shown"].as_u64() > Some(10), "{seen}");
    assert_eq!(
        seen["summaries"],
        serde_json::json!([]),
        "sections that take no focus: {seen}"
    );
    assert_eq!(seen["selects"], 0, "filters that take no focus: {seen}");
}

/// A capture with more findings than the table lists: its button lists
/// the rest from the page's data, as text, each linked to its run, and
/// takes the keyboard.
#[test]
#[ignore = "needs Chromium: run by .ci/browser-test.sh"]
fn the_findings_past_the_listed_ones_are_listed_on_request() {
    let dir = tempfile::tempdir().expect("dir");
    let mut capture =
        String::from("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n");
    for n in 0..10_100 {
        capture.push_str(&format!(
            "{{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":{n},\"<img src=x onerror=alert({n})>\":1}}\n"
        ));
    }
    capture.push_str("{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n");
    std::fs::write(dir.path().join("many.jsonl"), capture).expect("write");
    let page = dir.path().join("many.html");
    report(dir.path(), "many.jsonl", &page);
    let probe = "document.readyState !== 'complete' ? '' : (() => {
        const button = document.getElementById('s0-more-button');
        const rows = () => document.querySelectorAll('#s0-findings tbody tr').length;
        const before = rows();
        const shown = !button.hidden;
        button.focus();
        const focused = document.activeElement === button;
        button.click();
        const last = document.querySelector('#s0-findings tbody tr:last-child');
        return JSON.stringify({
            before, shown, focused, after: rows(), hidden: button.hidden,
            images: document.querySelectorAll('img').length,
            note: document.getElementById('s0-more-note').textContent,
            last: last.textContent,
            link: last.querySelector('td:nth-child(3) a').getAttribute('href'),
            id: last.id,
        });
    })()";
    let (seen, console) = devtools(&format!("file://{}", page.display()), &[], probe, |seen| {
        !seen.is_empty()
    });
    assert!(console.is_empty(), "the page logged: {console:#?}");
    let seen: serde_json::Value = serde_json::from_str(&seen).expect("what the page said");
    assert_eq!(seen["before"], 10_000, "{seen}");
    assert_eq!(seen["shown"], true, "{seen}");
    assert_eq!(seen["focused"], true, "{seen}");
    assert_eq!(seen["after"], 10_100, "{seen}");
    assert_eq!(seen["hidden"], true, "all listed: {seen}");
    assert_eq!(seen["images"], 0, "markup from the capture: {seen}");
    assert_eq!(seen["note"], "10100 of 10100 findings listed.", "{seen}");
    assert_eq!(seen["id"], "f0-10099", "{seen}");
    assert_eq!(seen["link"], "#s0-x0-r0", "{seen}");
    let last = seen["last"].as_str().unwrap_or_default();
    assert!(
        last.contains("unknown key '<img src=x onerror=alert(10099)>'"),
        "{last}"
    );
}
