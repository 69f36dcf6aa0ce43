// Makes the binary captures under tests/data/proto/captures/ with the
// official AG-UI 1.0 encoder: each JSON event capture the tests already
// vendor, every event encoded by `@ag-ui/encoder` in protobuf mode (a
// 4-byte big-endian length, then `@ag-ui/proto`'s message), and beside it
// what the official decoder (`@ag-ui/proto`'s `decode`) makes of each frame.
//
// The captures are committed, so the tests need no npm. To remake them:
//   (cd node && npm ci) && node tests/data/proto/make-captures.mjs
// The package versions come from node/package-lock.json (pinned there) and
// are written to captures/MANIFEST.md.

import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const require = createRequire(path.join(root, "node/package.json"));
const { EventEncoder } = require("@ag-ui/encoder");
const proto = require("@ag-ui/proto");

const version = (name) =>
  JSON.parse(fs.readFileSync(path.join(root, "node/node_modules", name, "package.json"), "utf8")).version;

/** The events of a JSON Lines or SSE capture. */
function events(file) {
  const text = fs.readFileSync(file, "utf8");
  if (file.endsWith(".sse")) {
    return text
      .split(/\r?\n\r?\n/)
      .map((block) =>
        block
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n"),
      )
      .filter((data) => data.length > 0)
      .map((data) => JSON.parse(data));
  }
  return text
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line));
}

const sources = [["every-event", path.join(here, "every-event.jsonl")]];
for (const name of ["events-chunks.jsonl", "events-error.jsonl", "events-interrupt.jsonl", "chat.response.sse"]) {
  sources.push([`traffic-1.0/${name.replace(/\.[a-z]+$/, "")}`, path.join(root, "tests/upstream/traffic-1.0", name)]);
}
for (const validity of ["valid", "invalid"]) {
  const folder = path.join(root, "fixtures/1.1/streams", validity);
  for (const name of fs.readdirSync(folder).sort()) {
    if (name.endsWith(".jsonl")) sources.push([`fixtures-1.1-${validity}/${name.replace(/\.jsonl$/, "")}`, path.join(folder, name)]);
  }
}

const out = path.join(here, "captures");
fs.rmSync(out, { recursive: true, force: true });
const encoder = new EventEncoder({ accept: proto.AGUI_MEDIA_TYPE });
const made = [];
const skipped = [];
for (const [name, file] of sources) {
  let read;
  try {
    read = events(file);
  } catch (error) {
    skipped.push([file, `not JSON events: ${error.message}`]);
    continue;
  }
  const frames = [];
  const decoded = [];
  try {
    for (const event of read) {
      const frame = encoder.encodeProtobuf(event);
      frames.push(frame);
      try {
        decoded.push(JSON.stringify(proto.decode(frame.subarray(4))));
      } catch (error) {
        decoded.push(JSON.stringify({ decodeError: error.message }));
      }
    }
  } catch (error) {
    skipped.push([file, `the encoder refused an event: ${error.message}`]);
    continue;
  }
  const target = path.join(out, `${name}.aguipb`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, Buffer.concat(frames.map((f) => Buffer.from(f))));
  fs.writeFileSync(path.join(out, `${name}.official.jsonl`), decoded.map((d) => d + "\n").join(""));
  made.push([name, path.relative(root, file), frames.length]);
}

const manifest = [
  "# Binary captures made by the official encoder",
  "",
  `Made by \`tests/data/proto/make-captures.mjs\` with \`@ag-ui/encoder\` ${version("@ag-ui/encoder")} and \`@ag-ui/proto\` ${version("@ag-ui/proto")} (MIT, ag-ui-protocol/ag-ui).`,
  "Each `NAME.aguipb` is the JSON capture named below, every event encoded in protobuf mode;",
  "`NAME.official.jsonl` is what `@ag-ui/proto`'s `decode` makes of each frame, one line a frame.",
  "",
  "| capture | from | frames |",
  "|---|---|---|",
  ...made.map(([name, from, count]) => `| \`${name}.aguipb\` | \`${from}\` | ${count} |`),
  "",
  "Not encoded:",
  "",
  ...skipped.map(([file, why]) => `- \`${path.relative(root, file)}\`: ${why}`),
  "",
];
fs.writeFileSync(path.join(out, "MANIFEST.md"), manifest.join("\n"));
console.log(`${made.length} captures, ${skipped.length} skipped`);
