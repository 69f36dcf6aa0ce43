"""Makes the binary transport's fixtures (fixtures/1.1/streams/*/proto-*.aguipb)
from a clean run the official encoder wrote (captures/fixtures-1.1-valid/
full-run.aguipb), each invalid one broken in the one way its rule names.

    python3 tests/data/proto/make-fixtures.py
"""

import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CLEAN = (HERE / "captures/fixtures-1.1-valid/full-run.aguipb").read_bytes()


def frames(data):
    out, at = [], 0
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        out.append(data[at + 4 : at + 4 + length])
        at += 4 + length
    return out


def join(messages):
    return b"".join(struct.pack(">I", len(m)) + m for m in messages)


def field(number, wire_type, payload):
    tag = number << 3 | wire_type
    key = bytearray()
    while True:
        byte = tag & 0x7F
        tag >>= 7
        key.append(byte | (0x80 if tag else 0))
        if not tag:
            break
    if wire_type == 2:
        return bytes(key) + bytes([len(payload)]) + payload
    return bytes(key) + payload


def text_content(delta, extra=b""):
    """A TEXT_MESSAGE_CONTENT of message "m1" (as full-run.jsonl names it)."""
    base = field(1, 2, field(1, 0, b"\x01"))
    event = base + field(2, 2, b"m1") + field(3, 2, delta) + extra
    return field(2, 2, event)


messages = frames(CLEAN)
first_text = next(i for i, m in enumerate(messages) if m[:1] == b"\x8a")  # member 17: TEXT_MESSAGE_CHUNK
invalid = ROOT / "fixtures/1.1/streams/invalid"
valid = ROOT / "fixtures/1.1/streams/valid"

fixtures = {
    # The last frame (RUN_FINISHED) cut after half its bytes.
    "proto-frame-truncated": CLEAN[: len(CLEAN) - len(messages[-1]) // 2],
    # A newline after the last frame, as a proxy adding one would write it.
    "proto-trailing-bytes": CLEAN + b"\n",
    # A frame whose base_event declares TEXT_MESSAGE_START for a chunk.
    "proto-message-invalid": join(
        messages[:first_text] + [field(17, 2, field(1, 2, b"") + field(2, 2, b"m9"))] + messages[first_text:]
    ),
    # An event of member 40, which AG-UI 1.1 does not define.
    "proto-unknown-event": join(messages[:1] + [field(40, 2, field(1, 2, b"hello"))] + messages[1:]),
    # A TEXT_MESSAGE_CHUNK carrying field 15, unknown to TextMessageChunkEvent
    # (its member's tag is two bytes, then a one-byte length).
    "proto-unknown-field": join(
        messages[:first_text] + [messages[first_text][:2] + bytes([messages[first_text][2] + 2]) + messages[first_text][3:] + field(15, 0, b"\x01")] + messages[first_text + 1 :]
    ),
}
# A delta whose last byte starts a two-byte character: broken UTF-8.
broken = field(17, 2, field(1, 2, field(1, 0, b"\x13")) + field(2, 2, b"m7") + field(4, 2, b"caf\xc3"))
fixtures["proto-invalid-utf8"] = join(messages[: first_text + 1] + [broken] + messages[first_text + 1 :])

for name, data in fixtures.items():
    (invalid / f"{name}.aguipb").write_bytes(data)
    # The correct form of each: the run as the official encoder wrote it.
    (valid / f"{name}.aguipb").write_bytes(CLEAN)
print(f"{len(fixtures)} fixtures")


def har(body, run):
    """A HAR of one run whose response is `body` in the binary transport,
    as a browser's devtools export a binary body: base64."""
    import base64
    import json

    thread, run_id = run
    request = json.dumps(
        {"threadId": thread, "runId": run_id, "state": {}, "messages": [], "tools": [], "context": [], "forwardedProps": {}}
    )
    media = "application/vnd.ag-ui.event+proto"
    entry = {
        "startedDateTime": "2026-12-05T10:00:00.000Z",
        "time": 12,
        "request": {
            "method": "POST",
            "url": "http://127.0.0.1:8000/agent",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "Accept", "value": media}],
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": len(request),
            "postData": {"mimeType": "application/json", "text": request},
        },
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": media}],
            "cookies": [],
            "content": {"size": len(body), "mimeType": media, "text": base64.b64encode(body).decode(), "encoding": "base64"},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(body),
        },
        "cache": {},
        "timings": {"send": 0, "wait": 10, "receive": 2},
    }
    archive = {"log": {"version": "1.2", "creator": {"name": "make-fixtures.py", "version": "1"}, "entries": [entry]}}
    return (json.dumps(archive, indent=2) + "\n").encode()


RUN = ("t-1", "run-1")
(valid / "proto-response.har").write_bytes(har(CLEAN, RUN))
(invalid / "proto-frame-truncated-har-response.har").write_bytes(har(fixtures["proto-frame-truncated"], RUN))
