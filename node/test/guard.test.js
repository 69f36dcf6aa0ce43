'use strict'
// The request guard in front of an Express app and a fetch-style handler,
// served on 127.0.0.1 and sent what the official 1.0 client sends, and the
// bodies a guard must refuse: the answers are the Rust and Python guards'.

const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const { readFileSync, readdirSync } = require('node:fs')
const { join } = require('node:path')
const express = require('express')

const agui = require('..')

const TRAFFIC = join(__dirname, '..', '..', 'tests', 'upstream', 'traffic-1.0')
const requests = readdirSync(TRAFFIC)
  .filter((name) => name.endsWith('.request.json'))
  .map((name) => readFileSync(join(TRAFFIC, name)))

const ORPHAN = JSON.stringify({
  threadId: 't',
  runId: 'r',
  messages: [{ id: 'm', role: 'tool', content: 'x', toolCallId: 'never-made' }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
})

/** An Express app whose /agent route is guarded; it echoes what it got. */
function expressApp(guard) {
  const app = express()
  app.post('/agent', guard.express(), (req, res) => {
    res.json({ threadId: req.body.threadId, findings: req.aguiLint.result.diagnostics.length })
  })
  return http.createServer(app)
}

/** A fetch-style handler behind the guard, served by a tiny Node adapter. */
function fetchApp(guard) {
  const handler = guard.fetch(async (request) => {
    const input = await request.json() // the body can be read again
    const seen = agui.validatedRequest(request)
    return Response.json({ threadId: input.threadId, findings: seen.result.diagnostics.length })
  })
  return http.createServer(async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers,
      body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
    })
    const response = await handler(request)
    res.writeHead(response.status, Object.fromEntries(response.headers))
    res.end(Buffer.from(await response.arrayBuffer()))
  })
}

async function listen(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${server.address().port}/agent`
}

async function post(url, body, headers = { 'Content-Type': 'application/json' }) {
  const response = await fetch(url, { method: 'POST', headers, body })
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() }
}

for (const [name, make] of [
  ['express', expressApp],
  ['fetch', fetchApp],
]) {
  test(`${name}: the official client's requests reach the handler; bad ones get the guards' answers`, async () => {
    const guard = new agui.Guard({ bodyLimit: 64 * 1024 })
    const server = make(guard)
    const url = await listen(server)
    try {
      for (const body of requests) {
        const answer = await post(url, body)
        assert.equal(answer.status, 200, answer.text)
        assert.equal(JSON.parse(answer.text).threadId, JSON.parse(body).threadId)
      }
      // 422: the CLI's --format json document, under the request's path.
      const invalid = await post(url, ORPHAN)
      assert.equal(invalid.status, 422)
      assert.match(invalid.type, /application\/json/)
      const document = JSON.parse(invalid.text)
      assert.equal(document.tool, 'agui-lint')
      assert.equal(document.documents[0].path, '/agent')
      assert.equal(document.documents[0].diagnostics[0].rule, 'tool-result-without-call')
      assert.equal(invalid.text, new agui.Validator().checkRunAgentInput(ORPHAN, { path: '/agent' }).jsonText())
      const broken = await post(url, '{"threadId": ')
      assert.equal(broken.status, 422)
      assert.equal(JSON.parse(broken.text).documents[0].diagnostics[0].rule, 'invalid-json')
      // 415: not JSON, or encoded.
      const text = await post(url, ORPHAN, { 'Content-Type': 'text/plain' })
      assert.equal(text.status, 415)
      assert.deepEqual(JSON.parse(text.text), {
        tool: 'agui-lint',
        version: agui.version,
        error: "the body must be JSON (Content-Type: application/json), not 'text/plain'",
      })
      const gzip = await post(url, ORPHAN, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' })
      assert.equal(gzip.status, 415)
      assert.match(JSON.parse(gzip.text).error, /Content-Encoding 'gzip'/)
      // 413: over the limit, declared or not.
      const large = JSON.stringify({ ...JSON.parse(ORPHAN), state: { pad: 'x'.repeat(70 * 1024) } })
      const over = await post(url, large)
      assert.equal(over.status, 413)
      assert.equal(JSON.parse(over.text).error, 'the body is over the limit of 64 KiB')
    } finally {
      server.close()
    }
  })
}

test('sizes read as the Rust guard writes them', () => {
  const { size } = require('../lib/guard.js')
  assert.equal(size(1), '1 byte')
  assert.equal(size(512), '512 bytes')
  assert.equal(size(2 * 1024 * 1024), '2 MiB')
  assert.equal(size(1536), '1.5 KiB')
})

test('a warning lets the request through and reaches onWarnings', async () => {
  const seen = []
  const guard = new agui.Guard({ onWarnings: (result, path) => seen.push([path, result.diagnostics.map((d) => d.rule)]) })
  const body = JSON.stringify({ ...JSON.parse(requests[0]), extra_key: 1 })
  const { result, rejection } = await guard.checkBody(Buffer.from(body), '/agent')
  assert.equal(rejection, undefined)
  assert.equal(result.valid, true)
  assert.deepEqual(seen, [['/agent', ['unknown-field']]])
})
