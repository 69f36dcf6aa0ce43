'use strict'
// The conformance kit against @ag-ui/mastra 1.1.2: a Mastra `Agent` whose
// model is scripted (the AI SDK's MockLanguageModelV3; no LLM, no
// network), wrapped in `MastraAgent` and served by a fetch handler that
// writes its events with the official @ag-ui/encoder, as a Node AG-UI
// server does (@ag-ui/mastra has no HTTP layer of its own: the handler's
// answers to bodies that are no run input are this file's, not Mastra's).
// Models: one that calls every offered tool, streaming each call's
// arguments in two pieces; one that reasons before it answers; one that
// fails. What each gets is recorded below with why.

const test = require('node:test')
const assert = require('node:assert/strict')
const { Agent } = require('@mastra/core/agent')
const { MockLanguageModelV3, simulateReadableStream } = require('ai/test')
const { MastraAgent } = require('@ag-ui/mastra')
const { EventEncoder } = require('@ag-ui/encoder')
const { runFetch } = require('../lib/kit.js')

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}
let calls = 0

/** The parts a model of `kind` streams for a call with `options`. */
function parts(kind, options) {
  if (kind === 'failing') throw new Error('model unavailable: quota')
  const last = options.prompt[options.prompt.length - 1]
  const tools = (options.tools || []).map((t) => t.name)
  const out = [{ type: 'stream-start', warnings: [] }]
  if (kind === 'reasoning') {
    out.push(
      { type: 'reasoning-start', id: 'r1' },
      { type: 'reasoning-delta', id: 'r1', delta: 'The user asks; I answer.' },
      { type: 'reasoning-end', id: 'r1' },
    )
  }
  if (kind === 'tools' && tools.length > 0 && last.role !== 'tool') {
    for (const toolName of tools) {
      const id = `call-${calls++}`
      out.push(
        { type: 'tool-input-start', id, toolName },
        { type: 'tool-input-delta', id, delta: '{"city": ' },
        { type: 'tool-input-delta', id, delta: '"Berlin"}' },
        { type: 'tool-input-end', id },
        { type: 'tool-call', toolCallId: id, toolName, input: '{"city": "Berlin"}' },
      )
    }
    out.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage })
    return out
  }
  out.push(
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'I can ' },
    { type: 'text-delta', id: 't1', delta: 'answer questions.' },
    { type: 'text-end', id: 't1' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  )
  return out
}

/** A fetch handler serving a Mastra agent whose model is of `kind`;
 * `bodies` keeps each request body. */
function mastraHandler(kind, bodies = []) {
  const model = new MockLanguageModelV3({
    doStream: async (options) => ({ stream: simulateReadableStream({ chunks: parts(kind, options) }) }),
  })
  const core = new Agent({ id: 'kit', name: 'kit', instructions: 'A scripted test agent.', model })
  return async (request) => {
    const text = await request.text()
    bodies.push(text)
    let input
    try {
      input = JSON.parse(text)
    } catch {
      return Response.json({ detail: 'the body is not JSON' }, { status: 400 })
    }
    if (typeof input?.threadId !== 'string' || typeof input.runId !== 'string') {
      return Response.json({ detail: 'threadId and runId are required' }, { status: 422 })
    }
    const encoder = new EventEncoder({ accept: request.headers.get('accept') })
    const agent = new MastraAgent({ agent: core, resourceId: 'kit', agentId: 'kit' })
    const bytes = (event) => new TextEncoder().encode(encoder.encode(event))
    let subscription
    let closed = false
    const body = new ReadableStream({
      start(controller) {
        const close = () => {
          if (!closed) {
            closed = true
            controller.close()
          }
        }
        subscription = agent.run(input).subscribe({
          next: (event) => closed || controller.enqueue(bytes(event)),
          // What the agent throws ends the run as a server says so.
          error: (error) => {
            if (!closed) controller.enqueue(bytes({ type: 'RUN_ERROR', message: String(error?.message ?? error) }))
            close()
          },
          complete: close,
        })
      },
      cancel() {
        closed = true
        subscription?.unsubscribe()
      },
    })
    return new Response(body, { headers: { 'Content-Type': encoder.getContentType() } })
  }
}

/** Mastra logs a model's failure on console.error; the test reads the report. */
async function quietly(run) {
  const { error } = console
  console.error = () => {}
  try {
    return await run()
  } finally {
    console.error = error
  }
}

// What @ag-ui/mastra 1.1.2 gets with a model calling every offered tool:
// every check not passed, with why; all others pass.
// - RUN_STARTED declares no protocolVersion.
// - No MESSAGES_SNAPSHOT on a later turn; no state event; no interrupt
//   without a suspending tool.
// - The run fails over a resume entry naming an interrupt it never raised
//   ("could not find a suspended run"; a SHOULD: a warning).
// - A text/plain body is served (this handler's, advice).
const RECORDED = {
  'multi-turn/snapshot-keeps-history': 'not-exercised',
  'state/state-deltas-apply': 'not-exercised',
  'state/state-continuity': 'not-exercised',
  'interrupt/resume-accepted': 'not-exercised',
  'interrupt/unknown-resume-handled': 'failed',
  'version/version-declared': 'failed',
  'bad-requests/wrong-content-type-rejected': 'failed',
}

test('@ag-ui/mastra under the kit', async () => {
  const report = await quietly(() => runFetch(mastraHandler('tools'), '/agent'))
  assert.deepEqual(report.notPassed(), RECORDED, report.text)
  assert.equal(report.verdict('parallel-tools', 'parallel-calls-taken-back'), 'passed', report.text)
  assert.equal(report.verdict('tool', 'tool-result-taken-back'), 'passed', report.text)
  assert.equal(report.ok, false, report.text)
})

test('a Mastra model that fails every run fails no check of the agent', async () => {
  const report = await quietly(() => runFetch(mastraHandler('failing'), '/agent'))
  const failed = Object.entries(report.notPassed()).filter(([, v]) => v === 'failed')
  // What fails is the server's own, whatever its model does.
  assert.deepEqual(
    failed,
    [
      ['version/version-declared', 'failed'],
      ['bad-requests/wrong-content-type-rejected', 'failed'],
    ],
    report.text,
  )
  assert.ok(report.json.agentFailure, report.text)
  assert.match(report.text, /^the agent failed/)
  assert.match(report.text, /model unavailable: quota/)
})

test('a Mastra model that reasons is sent its reasoning back', async () => {
  const bodies = []
  const report = await quietly(() => runFetch(mastraHandler('reasoning', bodies), '/agent', { scenarios: ['multi-turn'] }))
  assert.equal(report.verdict('multi-turn', 'history-taken-back'), 'passed', report.text)
  const second = JSON.parse(bodies[1])
  assert.ok(second.messages.some((m) => m.role === 'reasoning'), JSON.stringify(second.messages))
})
