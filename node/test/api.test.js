'use strict'
// The package's API against the repository's fixtures and the official 1.0
// traffic: the same verdicts and rules as the CLI.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const { readFileSync, readdirSync, existsSync } = require('node:fs')
const { join } = require('node:path')

const agui = require('..')

const REPO = join(__dirname, '..', '..')
const TRAFFIC = join(REPO, 'tests', 'upstream', 'traffic-1.0')
const STREAMS = join(REPO, 'fixtures', '1.1', 'streams')
const CLI = process.env.AGUI_LINT_BIN || join(REPO, 'target', 'debug', 'agui-lint')

const validator = new agui.Validator()

test('the official 1.0 client requests are valid and judged as 1.0', () => {
  const requests = readdirSync(TRAFFIC).filter((name) => name.endsWith('.request.json'))
  assert.ok(requests.length >= 3)
  for (const name of requests) {
    const body = readFileSync(join(TRAFFIC, name))
    const result = validator.checkRunAgentInput(body)
    assert.equal(result.valid, true, `${name}: ${JSON.stringify(result.diagnostics)}`)
    assert.equal(result.protocol, '1.0')
  }
})

test('a string, a Buffer, a Uint8Array and a parsed object get one verdict', () => {
  const text = '{"threadId":"t","runId":"r","messages":[{"id":"m","role":"tool","content":"x","toolCallId":"c"}],"tools":[],"context":[],"state":{},"forwardedProps":{}}'
  const verdicts = [text, Buffer.from(text), new Uint8Array(Buffer.from(text)), JSON.parse(text)].map((body) => {
    const result = validator.checkRunAgentInput(body)
    return [result.valid, result.diagnostics.map((d) => d.rule)]
  })
  for (const verdict of verdicts) assert.deepEqual(verdict, [false, ['tool-result-without-call']])
})

test('findings carry rule, severity, pointer, line, column and help', () => {
  const body = '{\n  "id": "m1",\n  "role": "tool",\n  "content": "18C",\n  "tool_call_id": "c1"\n}\n'
  const result = validator.validate('message', body)
  assert.equal(result.valid, false)
  const missing = result.diagnostics.find((d) => d.rule === 'missing-field')
  assert.equal(missing.severity, 'error')
  assert.equal(missing.pointer, '')
  assert.match(missing.help, /toolCallId/)
  const unknown = result.diagnostics.find((d) => d.rule === 'unknown-field')
  assert.equal(unknown.severity, 'warning')
  assert.equal(unknown.line, 5)
  assert.equal(unknown.column, 3)
  assert.equal(result.errors, 1)
  assert.equal(result.warnings, 1)
})

test("toJSON is the CLI's --format json document, byte for byte", () => {
  const name = join(REPO, 'fixtures', '1.1', 'run-agent-input', 'invalid')
  const files = readdirSync(name).filter((f) => f.endsWith('.json')).slice(0, 5)
  assert.ok(files.length > 0)
  for (const file of files) {
    const body = readFileSync(join(name, file))
    const ours = JSON.stringify(validator.checkRunAgentInput(body, { path: '-' }).toJSON(), null, 2) + '\n'
    let cli
    try {
      cli = execFileSync(CLI, ['check', '-', '--kind', 'run-agent-input', '--format', 'json'], { input: body })
    } catch (error) {
      cli = error.stdout // exit 1: the fixture is invalid
    }
    assert.equal(ours, cli.toString('utf8'), file)
  }
})

test("a clean document's Result knows its protocol and kind, and its JSON is the CLI's", () => {
  const cases = [
    ['run-agent-input', join(TRAFFIC, 'tools.request.json'), '1.0', 'run-agent-input'],
    ['auto', join(TRAFFIC, 'chat.request.json'), '1.0', 'run-agent-input'],
    ['auto', join(REPO, 'fixtures', '1.1', 'message', 'valid', readdirSync(join(REPO, 'fixtures', '1.1', 'message', 'valid'))[0]), '1.1', 'message'],
  ]
  for (const [kind, file, protocol, told] of cases) {
    const body = readFileSync(file)
    const result = validator.validate(kind, body)
    assert.equal(result.valid, true, file)
    assert.deepEqual([result.protocol, result.kind, result.errors, result.warnings, result.infos], [protocol, told, 0, 0, 0], file)
    assert.deepEqual(result.diagnostics, [])
    const args = ['check', '-', '--format', 'json'].concat(kind === 'auto' ? [] : ['--kind', kind])
    assert.equal(result.jsonText(), execFileSync(CLI, args, { input: body }).toString('utf8'), file)
    assert.equal(result.toJSON().documents[0].kind, told)
  }
})

test('settings: select, ignore, severity, masking, protocol, and unknown options refused', () => {
  const body = '{"id":"m","role":"tool","content":"secret","tool_call_id":"c"}'
  const ignoring = new agui.Validator({ ignore: ['unknown-field'] })
  assert.deepEqual(ignoring.validate('message', body).diagnostics.map((d) => d.rule), ['missing-field'])
  const selecting = new agui.Validator({ select: ['unknown-field'], severity: { 'unknown-field': 'error' } })
  const selected = selecting.validate('message', body).diagnostics
  assert.deepEqual(selected.map((d) => [d.rule, d.severity]), [['unknown-field', 'error']])
  const masked = new agui.Validator({ maskValues: true }).validate('message', '{"id":"m","role":"nobody"}')
  assert.ok(!JSON.stringify(masked.toJSON()).includes('nobody'))
  const old = new agui.Validator({ protocol: '0' }).validate('message', '{"id":"m","role":"user","content":"hi"}')
  assert.equal(old.protocol, '0')
  assert.throws(() => new agui.Validator({ ignroe: ['x'] }), /unknown field `ignroe`/)
  assert.throws(() => new agui.Validator({ ignore: ['no-such-rule'] }), /no-such-rule/)
  assert.throws(() => new agui.Validator({ severity: { 'unknown-field': 'fatal' } }), /unknown severity/)
})

test('validateAsync gives the verdict validate gives, small body or large', async () => {
  const small = readFileSync(join(TRAFFIC, 'tools.request.json'))
  const input = JSON.parse(small)
  input.messages = []
  for (let i = 0; i < 2000; i++) input.messages.push({ id: `m${i}`, role: 'user', content: 'x'.repeat(20) })
  input.messages.push({ id: 'm0', role: 'user', content: 'again' })
  const large = Buffer.from(JSON.stringify(input))
  assert.ok(large.length > agui.ASYNC_THRESHOLD_BYTES)
  for (const body of [small, large]) {
    const sync = validator.checkRunAgentInput(body)
    const async = await validator.checkRunAgentInputAsync(body)
    assert.deepEqual(async.toJSON(), sync.toJSON())
  }
  assert.ok(validator.checkRunAgentInput(large).diagnostics.some((d) => d.rule === 'duplicate-message-id'))
})

test('the official 1.0 server stream is clean, whole and fed a byte at a time', () => {
  const sse = readFileSync(join(TRAFFIC, 'chat.response.sse'))
  const request = readFileSync(join(TRAFFIC, 'chat.request.json'))
  const whole = validator.checkStream(sse, { format: 'sse', request })
  assert.equal(whole.valid, true, whole.toText())
  assert.ok(whole.documents.length > 3)
  const checker = validator.streamChecker({ format: 'sse', request })
  const found = []
  for (let i = 0; i < sse.length; i += 7) found.push(...checker.feed(sse.subarray(i, i + 7)))
  found.push(...checker.finish())
  assert.deepEqual(found, [])
  assert.equal(checker.records, whole.documents.length) // kept once finished
})

test('every broken stream of the fixtures is flagged with the rule it is named after', () => {
  const dir = join(STREAMS, 'invalid')
  const names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'))
  assert.ok(names.length >= 40, `${names.length} streams`)
  const known = agui.rules().map((r) => r.name)
  for (const name of names) {
    // Named after its rule, with an optional `-detail` (as tests/fixtures.rs reads them).
    const stem = name.replace(/\.jsonl$/, '')
    const rule = known.filter((r) => stem === r || stem.startsWith(`${r}-`)).sort((a, b) => b.length - a.length)[0]
    assert.ok(rule, `${name} names no rule`)
    const bytes = readFileSync(join(dir, name))
    // `client-<rule>-<profile>`: seen through that official client.
    const client = stem.startsWith('client-') ? stem.split('-').pop() : undefined
    const seenBy = client ? new agui.Validator({ client }) : validator
    const whole = seenBy.checkStream(bytes, { format: 'jsonl', path: name })
    const fired = new Set(whole.documents.flatMap((d) => d.diagnostics.map((x) => x.rule)))
    assert.ok(fired.has(rule), `${name}: ${[...fired]}`)
    // Fed as event objects, as @ag-ui/client emits them, where the lines are events.
    const lines = bytes.toString('utf8').split('\n').filter((l) => l.trim() !== '')
    let events
    try {
      events = lines.map((l) => JSON.parse(l))
    } catch {
      continue // a stream broken at the JSON level has no objects to feed
    }
    const checker = seenBy.streamChecker({ format: 'jsonl', path: name })
    const found = events.flatMap((event) => checker.feed(event)).concat(checker.finish())
    const fedFired = new Set(found.flatMap((d) => d.diagnostics.map((x) => x.rule)))
    assert.ok(fedFired.has(rule), `${name} fed as objects: ${[...fedFired]}`)
  }
})

test('a finished checker refuses more, and bad arguments are errors, not crashes', () => {
  const checker = validator.streamChecker({ format: 'jsonl' })
  checker.finish()
  assert.throws(() => checker.feed('{}\n'), /finished/)
  assert.throws(() => validator.validate('no-such-kind', '{}'), /no-such-kind/)
  assert.throws(() => validator.checkStream('x', { format: 'xml' }), /unknown stream format/)
  assert.throws(() => validator.checkRunAgentInput(undefined), TypeError)
  const broken = validator.checkRunAgentInput('{"threadId": ')
  assert.equal(broken.valid, false)
  assert.equal(broken.diagnostics[0].rule, 'invalid-json')
})

test('rules() lists every rule the CLI knows, with docs', () => {
  const list = agui.rules()
  const cli = JSON.parse(execFileSync(CLI, ['rule', '--all', '--format', 'json']))
  assert.deepEqual(list.map((r) => r.name), cli.map((r) => r.name))
  for (const rule of list) {
    assert.ok(rule.summary.length > 0 && rule.docs.length > 0, rule.name)
    assert.ok(['error', 'warning', 'info'].includes(rule.severity))
  }
  assert.ok(agui.kinds().includes('run-agent-input'))
  assert.equal(agui.version, require('../package.json').version)
})

test('the CLI binary the comparisons use is there', () => {
  assert.ok(existsSync(CLI), `${CLI} (build it with cargo build)`)
})

test('the stream checkers of one validator share one state total', () => {
  const shared = new agui.Validator({ maxStateSize: 1 << 20, maxTotalStateSize: 1 << 20 })
  const state = {}
  for (let i = 0; i < 3000; i++) state[`key-${String(i).padStart(5, '0')}`] = 'v'
  const events = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    { type: 'STATE_SNAPSHOT', snapshot: state },
    { type: 'STEP_STARTED', stepName: 's' },
  ]
  const jsonl = events.map((e) => JSON.stringify(e) + '\n').join('')
  const over = (found) =>
    found.flatMap((d) => d.diagnostics).filter((x) => x.rule === 'state-over-budget')
  // Two streams open at once fit the total; a third does not, until one of
  // the two ends and gives its share back.
  const [a, b, c] = [0, 1, 2].map(() => shared.streamChecker({ format: 'jsonl' }))
  assert.deepEqual(over(a.feed(jsonl)), [])
  assert.deepEqual(over(b.feed(jsonl)), [])
  const refused = over(c.feed(jsonl))
  assert.equal(refused.length, 1)
  assert.match(refused[0].message, /streams checked at once may hold in all/)
  a.finish()
  assert.deepEqual(over(c.feed(jsonl.split('\n').slice(1).join('\n'))), [])
})
