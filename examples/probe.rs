#[path = "/work/main/benches/payloads/mod.rs"]
mod payloads;
use agui_lint::Kind;
fn time(v: &agui_lint::Validator, kind: Kind, b: &[u8], what: &str) {
    let n = 300;
    let t = std::time::Instant::now();
    for _ in 0..n {
        let r = v.validate(kind, b);
        std::hint::black_box(r);
    }
    let d = t.elapsed() / n;
    let t = std::time::Instant::now();
    for _ in 0..n {
        let r: serde_json::Value = serde_json::from_slice(b).unwrap();
        std::hint::black_box(r);
    }
    let base = t.elapsed() / n;
    eprintln!(
        "{what}: {} bytes {:?} (Value parse {:?}) x{:.1}",
        b.len(),
        d,
        base,
        d.as_secs_f64() / base.as_secs_f64()
    );
}
fn main() {
    let v = agui_lint::Validator::new().unwrap();
    let m = payloads::medium();
    time(&v, Kind::RunAgentInput, &payloads::bytes(&m), "medium");
    time(&v, Kind::Tools, &payloads::bytes(&m["tools"]), "tools");
    time(
        &v,
        Kind::Messages,
        &payloads::bytes(&m["messages"]),
        "messages",
    );
    time(&v, Kind::Tool, &payloads::bytes(&m["tools"][0]), "one tool");
    let mut plain = m["tools"][0].clone();
    plain["parameters"] = serde_json::json!({"type":"object"});
    time(
        &v,
        Kind::Tool,
        &payloads::bytes(&plain),
        "one tool trivial params",
    );
}
