'use strict'
// The conformance kit in a Node server's own tests (agui-lint/kit): a fetch
// handler driven in process and an Express app on 127.0.0.1, both writing
// their streams with the official @ag-ui/encoder 1.0; a handler that
// reuses its message ids across runs fails exactly that check.

const test = require('node:test')
const assert = require('node:assert/strict')
const express = require('express')
const { EventEncoder } = require('@ag-ui/encoder')
const { EventType } = require('@ag-ui/core')
const { SCENARIOS, runFetch, runExpress, EventCounter } = require('../lib/kit.js')

/** The events a scripted agent answers `input` with. */
function* agent(input, { reuseIds = false, slow = false } = {}) {
  let n = 0
  const fresh = (what) => (reuseIds ? 'msg-1' : `${input.runId}-${what}-${n++}`)
  const ids = { threadId: input.threadId, runId: input.runId }
  yield { type: EventType.RUN_STARTED, ...ids, protocolVersion: '1.0' }
  const last = input.messages[input.messages.length - 1] || {}
  const tools = input.tools || []
  if (tools.length > 0 && last.role === 'user') {
    for (const tool of tools) {
      const toolCallId = fresh('call')
      yield { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: tool.name }
      yield { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: '{"city":"Berlin"}' }
      yield { type: EventType.TOOL_CALL_END, toolCallId }
    }
  } else if (String(last.content).includes('shopping list')) {
    yield { type: EventType.STATE_DELTA, delta: [{ op: 'add', path: '/items/-', value: 'pears' }] }
  } else {
    const messageId = fresh('msg')
    yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' }
    const words = slow ? 200 : 1
    for (let i = 0; i < words; i++) yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: 'word ' }
    yield { type: EventType.TEXT_MESSAGE_END, messageId }
  }
  yield { type: EventType.RUN_FINISHED, ...ids }
}

/** What a server answers a body with before any run: an error, or the input. */
function parse(contentType, text) {
  if (!String(contentType).startsWith('application/json')) return [415, 'send application/json']
  let input
  try {
    input = JSON.parse(text)
  } catch {
    return [400, 'the body is not JSON']
  }
  if (typeof input.threadId !== 'string' || typeof input.runId !== 'string') return [422, 'threadId and runId are required']
  return [200, input]
}

/** A fetch handler (a route handler's shape) writing with the official encoder. */
function fetchHandler(options) {
  return async (request) => {
    const [status, input] = parse(request.headers.get('content-type'), await request.text())
    if (status !== 200) return Response.json({ detail: input }, { status })
    const encoder = new EventEncoder({ accept: request.headers.get('accept') })
    const events = agent(input, options)
    const body = new ReadableStream({
      async pull(controller) {
        const next = events.next()
        if (next.done) return controller.close()
        if (options?.slow) await new Promise((resolve) => setTimeout(resolve, 5))
        controller.enqueue(new TextEncoder().encode(encoder.encode(next.value)))
      },
    })
    return new Response(body, { headers: { 'Content-Type': encoder.getContentType() } })
  }
}

/** An Express app writing with the official encoder. */
function expressApp(options) {
  const app = express()
  app.use(express.text({ type: () => true }))
  app.post('/agent', async (req, res) => {
    const [status, input] = parse(req.headers['content-type'], req.body)
    if (status !== 200) return res.status(status).json({ detail: input })
    const encoder = new EventEncoder({ accept: req.headers.accept })
    res.setHeader('Content-Type', encoder.getContentType())
    let closed = false
    res.on('close', () => (closed = true))
    for (const event of agent(input, options)) {
      if (closed) return
      res.write(encoder.encode(event))
      if (options?.slow) await new Promise((resolve) => setTimeout(resolve, 5))
    }
    res.end()
  })
  return app
}

test('the kit knows its scenarios and refuses an unknown one', async () => {
  assert.deepEqual(SCENARIOS, ['text', 'multi-turn', 'tool', 'parallel-tools', 'state', 'interrupt', 'cancellation', 'version', 'bad-requests'])
  await assert.rejects(() => runFetch(fetchHandler(), '/agent', { scenarios: ['texts'] }), /'texts' is not a scenario of the kit/)
})

test('a fetch handler on the official encoder, driven in process', async () => {
  const report = await runFetch(fetchHandler(), '/agent')
  assert.deepEqual(
    report.notPassed(),
    {
      'multi-turn/snapshot-keeps-history': 'not-exercised',
      'interrupt/resume-accepted': 'not-exercised',
    },
    report.text,
  )
  assert.equal(report.verdict('tool', 'tool-result-taken-back'), 'passed')
  assert.equal(report.verdict('parallel-tools', 'parallel-calls-taken-back'), 'passed')
  assert.equal(report.verdict('state', 'state-deltas-apply'), 'passed')
  assert.equal(report.verdict('bad-requests', 'snake-case-rejected'), 'passed')
  assert.equal(report.ok, true, report.text)
  assert.match(report.junit, /<testsuite name="tool"/)
})

test('a handler reusing its message ids fails exactly that check', async () => {
  const report = await runFetch(fetchHandler({ reuseIds: true }), '/agent', { scenarios: ['multi-turn'] })
  const failed = Object.entries(report.notPassed()).filter(([, v]) => v === 'failed')
  assert.deepEqual(failed, [['multi-turn/ids-unique-across-runs', 'failed']], report.text)
  assert.equal(report.ok, false)
})

test('an Express app on 127.0.0.1: a slow run cancelled, the next one served', async () => {
  const report = await runExpress(expressApp({ slow: true }), '/agent', { scenarios: ['cancellation', 'text'] })
  assert.equal(report.verdict('cancellation', 'served-after-cancel'), 'passed', report.text)
  assert.equal(report.ok, true, report.text)
  const must = await runExpress(expressApp(), '/agent', { level: 'must', scenarios: ['bad-requests'] })
  // invalid-json-rejected and snake-case-rejected: the advice on the
  // Content-Type is left out with the SHOULDs.
  assert.deepEqual(
    must.json.scenarios.flatMap((s) => s.checks.map((c) => c.level)),
    ['MUST', 'MUST'],
    must.text,
  )
})

test('events are counted across chunks split anywhere', () => {
  const stream = Buffer.from(': hi\r\n\r\ndata: 1\r\n\r\ndata: 2\n\nevent: x\rdata: 3\r\r: no data\n\n')
  for (const size of [1, 2, 3, 7, stream.length]) {
    const counter = new EventCounter()
    for (let at = 0; at < stream.length; at += size) counter.feed(stream.subarray(at, at + size))
    assert.equal(counter.events, 3, `chunks of ${size}`)
  }
})

test('a handler that dies fails the check of that request, and the report is whole', async () => {
  let dead = false
  const inner = fetchHandler()
  const handler = async (request) => {
    if (dead) throw new Error('worker gone')
    try {
      JSON.parse(await request.clone().text())
    } catch {
      dead = true
      throw new Error('worker crashed')
    }
    return inner(request)
  }
  const report = await runFetch(handler, '/agent', { scenarios: ['text', 'bad-requests', 'version'] })
  assert.equal(report.verdict('text', 'run-served'), 'passed', report.text)
  assert.equal(report.verdict('bad-requests', 'invalid-json-rejected'), 'failed', report.text)
  assert.equal(report.verdict('version', 'version-declared'), 'not-exercised', report.text)
  assert.match(report.text, /request 1 \(a body that is not JSON\): no response came: worker crashed/)
  assert.match(report.text, /the server stopped answering after request 1 of the suite/)
  assert.equal(report.ok, false)
})
