'use strict'
// AG-UI's binary transport against the official 1.0 encoder and decoder
// (@ag-ui/encoder, @ag-ui/proto, pinned in package-lock.json): what
// `agui-lint decode` prints of each vendored capture, re-encoded by the
// official encoder, gives the capture's bytes back; a stream the encoder
// makes now decodes as the official decoder decodes it; and the addon
// checks a binary capture as it checks its JSON twin.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { EventEncoder } = require('@ag-ui/encoder')
const proto = require('@ag-ui/proto')

const agui = require('..')

const root = path.join(__dirname, '..', '..')
const captures = path.join(root, 'tests', 'data', 'proto', 'captures')
const bin = process.env.AGUI_LINT_BIN || path.join(root, 'target', 'debug', 'agui-lint')
const encoder = new EventEncoder({ accept: proto.AGUI_MEDIA_TYPE })

function binaryCaptures(dir = captures) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return binaryCaptures(full)
    return entry.name.endsWith('.aguipb') ? [full] : []
  })
}

function decode(file) {
  const run = spawnSync(bin, ['decode', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  assert.equal(run.status, 0, `${file}: ${run.stderr}`)
  return run.stdout.split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line))
}

test('decode output re-encoded by the official encoder gives the original bytes', () => {
  const files = binaryCaptures()
  assert.ok(files.length >= 80, `${files.length} captures`)
  let frames = 0
  for (const file of files) {
    const events = decode(file)
    frames += events.length
    const again = Buffer.concat(events.map((event) => Buffer.from(encoder.encodeProtobuf(event))))
    assert.ok(again.equals(fs.readFileSync(file)), `${file}: re-encoded bytes differ`)
  }
  assert.ok(frames > 400, `${frames} frames`)
})

test('a stream the official encoder makes now decodes as its decoder decodes it', () => {
  const events = fs
    .readFileSync(path.join(root, 'tests', 'data', 'proto', 'every-event.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line))
  const frames = events.map((event) => Buffer.from(encoder.encodeProtobuf(event)))
  const file = path.join(fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'agui-proto-')), 'now.aguipb')
  fs.writeFileSync(file, Buffer.concat(frames))
  const ours = decode(file)
  const theirs = frames.map((frame) => proto.decode(frame.subarray(4)))
  assert.equal(ours.length, theirs.length)
  ours.forEach((event, i) => {
    // The official decoder leaves absent members undefined; JSON drops them.
    assert.deepEqual(event, JSON.parse(JSON.stringify(theirs[i])), `frame ${i + 1}`)
  })
})

test('the addon checks a binary capture, whole or fed in pieces, as its JSON twin', () => {
  const validator = new agui.Validator()
  const binary = fs.readFileSync(path.join(captures, 'fixtures-1.1-invalid', 'step-started-twice.aguipb'))
  const twin = fs.readFileSync(path.join(root, 'fixtures', '1.1', 'streams', 'invalid', 'step-started-twice.jsonl'))
  const rules = (results) => results.flatMap((r) => r.diagnostics.map((d) => d.rule)).sort()
  const whole = validator.checkStream(binary, { format: 'proto' })
  const json = validator.checkStream(twin, { format: 'jsonl' })
  assert.ok(rules(json.documents).includes('step-started-twice'))
  assert.deepEqual(rules(whole.documents), rules(json.documents))
  assert.deepEqual(rules(validator.checkStream(binary).documents), rules(json.documents), 'auto tells the binary framing')
  const checker = validator.streamChecker({ format: 'proto' })
  const found = []
  for (let at = 0; at < binary.length; at += 3) found.push(...checker.feed(binary.subarray(at, at + 3)))
  found.push(...checker.finish())
  assert.deepEqual(rules(found), rules(json.documents))
  assert.throws(() => validator.streamChecker({ format: 'proto' }).feed({ type: 'RUN_STARTED' }), TypeError)
})
