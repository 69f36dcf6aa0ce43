'use strict'
// agui-lint against what a TypeScript server does today, on the same bytes,
// interleaved, medians of many rounds:
//   requests: RunAgentInputSchema.safeParse(JSON.parse(body)) (@ag-ui/core)
//             against validator.checkRunAgentInput(body), on the official
//             1.0 client's request bodies and on larger generated ones;
//   streams:  @ag-ui/client's verifyEvents over the parsed events against
//             validator.checkStream(bytes);
//   the async threshold: checkRunAgentInput against checkRunAgentInputAsync
//             by body size, and how long each blocks the event loop.
// `node bench/bench.js` after `npm run build`; BENCHMARKS.md records a run.

const { readFileSync, readdirSync } = require('node:fs')
const { join } = require('node:path')
const { performance } = require('node:perf_hooks')
const { RunAgentInputSchema } = require('@ag-ui/core/schemas')
const { verifyEvents } = require('@ag-ui/client')
const { from } = require('rxjs')

const agui = require('..')

const TRAFFIC = join(__dirname, '..', '..', 'tests', 'upstream', 'traffic-1.0')
const validator = new agui.Validator()

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** Times each of `runs` (name → fn) `rounds` times, interleaved; ns per call. */
function interleaved(runs, { rounds = 31, calls = 50 } = {}) {
  const times = Object.fromEntries(Object.keys(runs).map((name) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(runs)) {
      const start = performance.now()
      for (let i = 0; i < calls; i++) fn()
      times[name].push(((performance.now() - start) * 1e6) / calls)
    }
  }
  return Object.fromEntries(Object.entries(times).map(([name, t]) => [name, median(t)]))
}

function generated(messages) {
  const input = JSON.parse(readFileSync(join(TRAFFIC, 'tools.request.json')))
  input.messages = []
  for (let i = 0; i < messages; i++) {
    input.messages.push({ id: `u${i}`, role: 'user', content: `question ${i}: ${'lorem ipsum '.repeat(8)}` })
    input.messages.push({
      id: `a${i}`,
      role: 'assistant',
      content: 'let me check',
      toolCalls: [{ id: `c${i}`, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    })
    input.messages.push({ id: `t${i}`, role: 'tool', content: '18C', toolCallId: `c${i}` })
  }
  return Buffer.from(JSON.stringify(input))
}

function row(cells) {
  console.log(`| ${cells.join(' | ')} |`)
}

const bodies = readdirSync(TRAFFIC)
  .filter((name) => name.endsWith('.request.json'))
  .map((name) => [name, readFileSync(join(TRAFFIC, name))])
bodies.push(['generated, 30 turns', generated(30)], ['generated, 300 turns', generated(300)], ['generated, 3000 turns', generated(3000)])

console.log('## Requests: agui-lint against @ag-ui/core\n')
row(['body', 'bytes', 'safeParse(JSON.parse) µs', 'checkRunAgentInput µs', 'ratio'])
row(['---', '---:', '---:', '---:', '---:'])
for (const [name, body] of bodies) {
  if (!validator.checkRunAgentInput(body).valid) throw new Error(`${name} is not valid`)
  if (!RunAgentInputSchema.safeParse(JSON.parse(body)).success) throw new Error(`${name} is refused by zod`)
  const calls = body.length > 1e6 ? 2 : body.length > 1e5 ? 10 : 200
  const t = interleaved(
    {
      zod: () => RunAgentInputSchema.safeParse(JSON.parse(body.toString('utf8'))),
      agui: () => validator.checkRunAgentInput(body),
    },
    { calls },
  )
  row([name, body.length, (t.zod / 1e3).toFixed(1), (t.agui / 1e3).toFixed(1), `${(t.agui / t.zod).toFixed(2)}×`])
}

console.log('\n## Streams: agui-lint against @ag-ui/client verifyEvents\n')
function streamOf(runs) {
  const lines = []
  for (let r = 0; r < runs; r++) {
    lines.push({ type: 'RUN_STARTED', threadId: 't', runId: `r${r}` })
    lines.push({ type: 'TEXT_MESSAGE_START', messageId: `m${r}`, role: 'assistant' })
    for (let i = 0; i < 20; i++) lines.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: `m${r}`, delta: `token ${i} ` })
    lines.push({ type: 'TEXT_MESSAGE_END', messageId: `m${r}` })
    lines.push({ type: 'TOOL_CALL_START', toolCallId: `c${r}`, toolCallName: 'get_weather', parentMessageId: `m${r}` })
    lines.push({ type: 'TOOL_CALL_ARGS', toolCallId: `c${r}`, delta: '{"city":"Paris"}' })
    lines.push({ type: 'TOOL_CALL_END', toolCallId: `c${r}` })
    lines.push({ type: 'RUN_FINISHED', threadId: 't', runId: `r${r}` })
  }
  return lines
}
row(['stream', 'events', 'verifyEvents(JSON.parse) µs', 'checkStream(bytes) µs', 'ratio'])
row(['---', '---:', '---:', '---:', '---:'])
for (const runs of [1, 10, 100]) {
  const events = streamOf(runs)
  const sse = Buffer.from(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''))
  const text = sse.toString('utf8')
  if (!validator.checkStream(sse, { format: 'sse' }).valid) throw new Error('the stream is not valid')
  // verifyEvents is an rxjs operator; from() emits synchronously, so the
  // subscription completes within the call.
  const verify = () => {
    const parsed = text.split('\n\n').filter(Boolean).map((block) => JSON.parse(block.slice(6)))
    let count = 0
    from(parsed).pipe(verifyEvents()).subscribe({ next: () => (count += 1), error: (e) => { throw e } })
    return count
  }
  if (verify() !== events.length) throw new Error('verifyEvents did not pass every event')
  const t = interleaved(
    { verify, agui: () => validator.checkStream(sse, { format: 'sse' }) },
    { calls: runs >= 100 ? 3 : 20 },
  )
  row([`${runs} run${runs === 1 ? '' : 's'}`, events.length, (t.verify / 1e3).toFixed(1), (t.agui / 1e3).toFixed(1), `${(t.agui / t.verify).toFixed(2)}×`])
}

console.log('\n## The async threshold: on the thread or off it\n')
row(['body', 'bytes', 'checkRunAgentInput µs (blocks the loop)', 'via the thread pool µs (round trip)'])
row(['---', '---:', '---:', '---:'])
;(async () => {
  for (const turns of [1, 3, 10, 30, 100, 300]) {
    const body = generated(turns)
    const sync = interleaved({ sync: () => validator.checkRunAgentInput(body) }, { calls: 20 }).sync
    const rounds = []
    for (let i = 0; i < 31; i++) {
      const start = performance.now()
      await validator._native.checkAsync('run-agent-input', body)
      rounds.push((performance.now() - start) * 1e3)
    }
    row([`${turns} turns`, body.length, (sync / 1e3).toFixed(1), median(rounds).toFixed(1)])
  }
})()
