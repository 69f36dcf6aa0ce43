'use strict'
// The response check: bytes passed on unchanged, web and Node streams, the
// official encoder's output clean, broken streams reported with their rules.

const test = require('node:test')
const assert = require('node:assert/strict')
const { Readable } = require('node:stream')
const { readFileSync } = require('node:fs')
const { join } = require('node:path')
const { EventEncoder } = require('@ag-ui/encoder')

const agui = require('..')

const TRAFFIC = join(__dirname, '..', '..', 'tests', 'upstream', 'traffic-1.0')
const sse = readFileSync(join(TRAFFIC, 'chat.response.sse'))
const request = readFileSync(join(TRAFFIC, 'chat.request.json'))

/** `bytes` cut into pieces of `size` (an SSE event split anywhere). */
function pieces(bytes, size) {
  const out = []
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size))
  return out
}

async function drainWeb(stream) {
  const chunks = []
  for await (const chunk of stream) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

async function drainNode(stream) {
  const chunks = []
  for await (const chunk of stream) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

test('a web stream passes unchanged, and a clean stream reports nothing', async () => {
  const findings = []
  const stats = new agui.ResponseStats()
  const body = ReadableStream.from(pieces(sse, 13))
  const passed = await drainWeb(agui.checkResponse(body, { request, stats, onFinding: (f) => findings.push(f) }))
  assert.deepEqual(passed, sse)
  assert.deepEqual(findings, [])
  assert.equal(stats.streams, 1)
  assert.ok(stats.records > 3, `${stats.records} records`)
})

test('a Node stream of the encoder output cut short is reported, its bytes unchanged', async () => {
  const encoder = new EventEncoder()
  const events = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'hi' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
  ]
  const text = events.map((e) => encoder.encode(e)).join('')
  const findings = []
  const out = agui.checkResponse(Readable.from(pieces(Buffer.from(text), 5)), {
    onFinding: (finding, context) => findings.push([finding.rule, context.record]),
  })
  assert.equal((await drainNode(out)).toString('utf8'), text)
  assert.deepEqual(findings, [['run-finished-while-open', 4]])
})

test('a fetch Response is checked as it is read, status and headers kept', async () => {
  const findings = []
  const original = new Response(ReadableStream.from(pieces(Buffer.from('data: {"type":"TEXT_MESSAGE_END","messageId":"x"}\n\n'), 4)), {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream', 'X-Agent': 'a' },
  })
  const checked = agui.checkedResponse(original, { onFinding: (f) => findings.push(f.rule) })
  assert.equal(checked.status, 200)
  assert.equal(checked.headers.get('x-agent'), 'a')
  assert.equal(await checked.text(), 'data: {"type":"TEXT_MESSAGE_END","messageId":"x"}\n\n')
  assert.ok(findings.length > 0, 'a message ended that never started is a finding')
})

test('a failing reporter never breaks the stream', async () => {
  const body = ReadableStream.from([Buffer.from('data: {"type":"TEXT_MESSAGE_END","messageId":"x"}\n\n')])
  const warn = console.warn
  const warned = []
  console.warn = (line) => warned.push(line)
  try {
    const passed = await drainWeb(
      agui.checkResponse(body, {
        onFinding: () => {
          throw new Error('reporter broke')
        },
      }),
    )
    assert.equal(passed.toString(), 'data: {"type":"TEXT_MESSAGE_END","messageId":"x"}\n\n')
  } finally {
    console.warn = warn
  }
  assert.ok(warned.some((line) => line.includes('reporter broke')))
})
