'use strict'
// The official TypeScript SDK at 1.0.0 (@ag-ui/core, @ag-ui/encoder,
// @ag-ui/client, pinned in package-lock.json): what it encodes is checked
// clean, what @ag-ui/client's HttpAgent emits is checkable as event
// objects, and a broken stream it would pass is flagged.

const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')

const { EventType } = require('@ag-ui/core')
const { RunAgentInputSchema } = require('@ag-ui/core/schemas')
const { EventEncoder } = require('@ag-ui/encoder')
const { HttpAgent } = require('@ag-ui/client')

const agui = require('..')

const validator = new agui.Validator()

const input = {
  threadId: 'thread-1',
  runId: 'run-1',
  messages: [{ id: 'u1', role: 'user', content: 'What is the weather in Paris?' }],
  tools: [
    {
      name: 'get_weather',
      description: 'The weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  context: [],
  state: {},
  forwardedProps: {},
}

/** A turn that streams text, then calls the client-side tool. */
function turn({ endTool = true } = {}) {
  const events = [
    { type: EventType.RUN_STARTED, threadId: 'thread-1', runId: 'run-1' },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'a1', role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'a1', delta: 'Let me look.' },
    { type: EventType.TEXT_MESSAGE_END, messageId: 'a1' },
    { type: EventType.TOOL_CALL_START, toolCallId: 'c1', toolCallName: 'get_weather', parentMessageId: 'a2' },
    { type: EventType.TOOL_CALL_ARGS, toolCallId: 'c1', delta: '{"city": "Paris"}' },
  ]
  if (endTool) events.push({ type: EventType.TOOL_CALL_END, toolCallId: 'c1' })
  events.push({ type: EventType.RUN_FINISHED, threadId: 'thread-1', runId: 'run-1' })
  return events
}

test("the official request schema and agui-lint agree on a valid request", () => {
  assert.equal(RunAgentInputSchema.safeParse(input).success, true)
  assert.equal(validator.checkRunAgentInput(input).valid, true)
})

test("the official encoder's SSE is clean, whole and chunk by chunk", () => {
  const encoder = new EventEncoder()
  const sse = turn().map((event) => encoder.encode(event)).join('')
  const whole = validator.checkStream(sse, { format: 'sse', request: input })
  assert.equal(whole.valid, true, whole.toText())
  assert.equal(whole.warnings, 0, whole.toText())
  const checker = validator.streamChecker({ format: 'sse', request: input })
  const found = turn().flatMap((event) => checker.feed(encoder.encode(event))).concat(checker.finish())
  assert.deepEqual(found, [])
})

test('a tool call never ended is flagged, in the encoded stream and as objects', () => {
  const encoder = new EventEncoder()
  const broken = turn({ endTool: false })
  const sse = broken.map((event) => encoder.encode(event)).join('')
  const rules = validator.checkStream(sse, { format: 'sse' }).documents.flatMap((d) => d.diagnostics.map((x) => x.rule))
  assert.ok(rules.includes('run-finished-while-open'), rules.join(', '))
  const objects = validator.checkStream(broken).documents.flatMap((d) => d.diagnostics.map((x) => x.rule))
  assert.deepEqual(objects, rules)
})

/** A server on 127.0.0.1 that answers every POST with `events`, encoded. */
async function serve(events) {
  const encoder = new EventEncoder()
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.writeHead(200, { 'Content-Type': encoder.getContentType() })
      for (const event of events) response.write(encoder.encode(event))
      response.end()
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${server.address().port}/agent` }
}

/** The events HttpAgent emits for one run against `url`. */
async function received(url) {
  const agent = new HttpAgent({ url, threadId: 'thread-1' })
  agent.messages = input.messages
  const events = []
  await new Promise((resolve, reject) => {
    agent
      .run({ threadId: 'thread-1', runId: 'run-1', messages: input.messages, tools: input.tools, context: [], state: {}, forwardedProps: {} })
      .subscribe({ next: (event) => events.push(event), error: reject, complete: resolve })
  })
  return events
}

test("HttpAgent's events from a live server are checked as objects", async () => {
  const { server, url } = await serve(turn())
  try {
    const events = await received(url)
    assert.ok(events.length >= 8)
    const result = validator.checkStream(events, { request: input })
    assert.equal(result.valid, true, result.toText())
  } finally {
    server.close()
  }
})
