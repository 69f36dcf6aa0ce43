//! A capture of AG-UI's binary transport, written frame by frame as the
//! official encoder writes them: runs of a started run, a streamed answer
//! of non-ASCII deltas, a streamed tool call and its result, a state
//! snapshot and deltas, every event timestamped. Its JSON Lines twin is
//! what agui-lint's decoder makes of each frame: the same events.

use super::{sentence, Lcg};

fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A length-delimited field.
fn field(number: u64, payload: &[u8], out: &mut Vec<u8>) {
    varint(number << 3 | 2, out);
    varint(payload.len() as u64, out);
    out.extend_from_slice(payload);
}

/// A varint field.
fn number(number: u64, value: u64, out: &mut Vec<u8>) {
    varint(number << 3, out);
    varint(value, out);
}

/// A `Value` holding a string.
fn string_value(text: &str) -> Vec<u8> {
    let mut value = Vec::new();
    field(3, text.as_bytes(), &mut value);
    value
}

/// A `Value` holding a number.
fn number_value(n: f64) -> Vec<u8> {
    let mut value = Vec::new();
    varint(2 << 3 | 1, &mut value);
    value.extend_from_slice(&n.to_le_bytes());
    value
}

/// A `Struct` of `members`, each a `Value`.
fn object(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut object = Vec::new();
    for (key, value) in members {
        let mut entry = Vec::new();
        field(1, key.as_bytes(), &mut entry);
        field(2, value, &mut entry);
        field(1, &entry, &mut object);
    }
    object
}

/// One frame: member `member` of `Event`, of type `event_type`, at `clock`.
fn frame(member: u64, event_type: u64, clock: u64, fields: &[u8], out: &mut Vec<u8>) {
    let mut base = Vec::new();
    if event_type != 0 {
        number(1, event_type, &mut base);
    }
    number(2, clock, &mut base);
    let mut event = Vec::new();
    field(1, &base, &mut event);
    event.extend_from_slice(fields);
    let mut message = Vec::new();
    field(member, &event, &mut message);
    out.extend_from_slice(&(message.len() as u32).to_be_bytes());
    out.extend_from_slice(&message);
}

/// Strings as fields, in order from field 2.
fn strings(values: &[&str]) -> Vec<u8> {
    let mut fields = Vec::new();
    for (i, value) in values.iter().enumerate() {
        field(2 + i as u64, value.as_bytes(), &mut fields);
    }
    fields
}

/// One run's frames.
fn run(rng: &mut Lcg, run: u64, clock: &mut u64, out: &mut Vec<u8>) -> usize {
    let mut frames = 0;
    let mut tick = |clock: &mut u64| {
        *clock += 1 + rng_step(run);
        frames += 1;
        *clock
    };
    let run_id = format!("run-{run}");
    let mut started = strings(&["thread-capture", &run_id]);
    field(6, b"1.1", &mut started);
    frame(12, 11, tick(clock), &started, out);
    let message = format!("msg-{run}");
    frame(1, 0, tick(clock), &strings(&[&message, "assistant"]), out);
    for _ in 0..(150 + rng.below(150)) {
        let words = 1 + rng.below(4) as usize;
        let mut delta = sentence(rng, words);
        if rng.below(4) == 0 {
            delta.push_str(" — grüße ☂");
        }
        frame(2, 1, tick(clock), &strings(&[&message, &delta]), out);
    }
    frame(3, 2, tick(clock), &strings(&[&message]), out);
    let call = format!("call-{run}");
    frame(
        4,
        3,
        tick(clock),
        &strings(&[&call, "get_weather", &message]),
        out,
    );
    for piece in ["{\"city\":", "\"Zürich\",", "\"days\":", "3}"] {
        frame(5, 4, tick(clock), &strings(&[&call, piece]), out);
    }
    frame(6, 5, tick(clock), &strings(&[&call]), out);
    let mut result = Vec::new();
    field(3, format!("result-{run}").as_bytes(), &mut result);
    field(4, call.as_bytes(), &mut result);
    field(5, "12°C, Regen".as_bytes(), &mut result);
    frame(22, 21, tick(clock), &result, out);
    let state = object(&[
        ("city", string_value("Zürich")),
        ("turn", number_value(run as f64)),
        ("status", string_value("searching")),
    ]);
    let mut snapshot = Vec::new();
    let mut value = Vec::new();
    field(5, &state, &mut value);
    field(2, &value, &mut snapshot);
    frame(7, 6, tick(clock), &snapshot, out);
    for step in 0..3 {
        let mut operation = Vec::new();
        number(1, 2, &mut operation);
        field(2, b"/status", &mut operation);
        field(4, &string_value(&format!("step {step}")), &mut operation);
        let mut delta = Vec::new();
        field(2, &operation, &mut delta);
        frame(8, 7, tick(clock), &delta, out);
    }
    let mut finished = strings(&["thread-capture", &run_id]);
    field(5, b"success", &mut finished);
    frame(13, 12, tick(clock), &finished, out);
    frames
}

fn rng_step(run: u64) -> u64 {
    run % 7
}

/// What a written binary capture holds.
pub struct Written {
    /// Bytes written.
    pub bytes: usize,
    /// Frames written.
    pub frames: usize,
}

/// A binary capture of about `target` bytes.
pub fn capture(out: &mut impl std::io::Write, target: usize) -> std::io::Result<Written> {
    let mut rng = Lcg::new(0xB1_7A_2E);
    let mut clock = 1_733_400_000_000;
    let mut written = Written {
        bytes: 0,
        frames: 0,
    };
    let mut buffer = Vec::new();
    let mut n = 0;
    while written.bytes < target {
        buffer.clear();
        written.frames += run(&mut rng, n, &mut clock, &mut buffer);
        out.write_all(&buffer)?;
        written.bytes += buffer.len();
        n += 1;
    }
    Ok(written)
}
