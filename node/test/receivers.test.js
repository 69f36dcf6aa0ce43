'use strict'
// The differential test: agui-lint's worst severity against what the
// official receivers at 1.0.0 do, run here (pinned in package-lock.json
// and in .ci/python-test.sh):
//
// - a request is received by servers: @ag-ui/core's RunAgentInputSchema
//   (zod) and ag-ui-protocol's RunAgentInput (pydantic, as FastAPI parses a
//   body; run by the Python in AGUI_LINT_PYTHON). An error where either
//   rejects it, nothing where both accept it.
// - a stream is received by @ag-ui/client: HttpAgent.runAgent on the
//   events served as SSE from 127.0.0.1. An error where the run fails, a
//   warning where the client warns (it strips or drops something),
//   nothing where it takes the stream without a word.
//
// The cases: the valid documents of tests/receivers/bases.json, and every
// one-defect variant of them: each closed set and union tag given a value
// no version defines, each key given null. Every disagreement is listed
// with its case. Where agui-lint deliberately says more than the
// receivers (a meaning rule no SDK checks), DELIBERATE names the rule and
// why.

const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const path = require('node:path')
const fs = require('node:fs')
const { execFileSync } = require('node:child_process')

const { RunAgentInputSchema } = require('@ag-ui/core/schemas')
const { HttpAgent } = require('@ag-ui/client')

const agui = require('..')

const repo = path.join(__dirname, '..', '..')
const bases = JSON.parse(fs.readFileSync(path.join(repo, 'tests', 'receivers', 'bases.json'), 'utf8'))
const validator = new agui.Validator()
/** Streams are judged as @ag-ui/client 1.0.0 receives them (`--client 1.0.0`). */
const asClient = new agui.Validator({ client: '1.0.0' })

/** Rules whose findings no official receiver acts on, by design: each
 * is a meaning check agui-lint adds, at the severity its docs give. */
const DELIBERATE = {
  'stream-truncated':
    'a stream that ends with its run open has no outcome: the transports page makes it fatal and upstream\'s conformance suite requires a client to fail the run (truncated-stream-fails-the-run); @ag-ui/client 1.0.0 does not yet',
  'tool-result-without-call':
    'a history holding a tool result for no call is refused by model providers when the client sends it back on the next turn; no SDK checks a conversation',
  // MUSTs of the 1.1 prose that @ag-ui/client 1.0.0 does not enforce yet;
  // upstream's conformance suite requires a client to fail the run on the
  // first two (duplicate-interrupt-id-fatal, second-run-on-another-thread-fatal).
  'interrupt-id-duplicate': "the interrupt-resume page makes an interrupt's id unique within its run",
  'run-started-other-thread': 'the lifecycle page keeps every run of one stream on one thread',
  'subagent-started-late': 'the subagents page announces an invocation before any event attributed to it',
  'duplicate-resume-entry': 'two answers to one interrupt contradict each other; the agent cannot tell which stands',
  // Meaning rules: what the receivers take without a word, and lose or
  // misread, which agui-lint warns about.
  'activity-message-in-input': 'an activity message is the client\'s own; a server receiving one gets UI state as history',
  'metadata-reserved-key': "the 'ag-ui' metadata key is reserved for the protocol",
  'activity-content-not-object': 'a patch whose result is not an object leaves an activity the UI cannot render',
  'activity-delta-without-snapshot': 'the client ignores a delta for an activity it never saw',
  'outcome-tool-call-answered': 'a pending tool call the run already answered is run twice',
  'protocol-version-missing': 'a 1.x run that declares no version is read as one from before versions',
  'run-id-reused': 'a client keying runs by id merges two runs',
  'snapshot-contradicts-stream': 'the snapshot replaces what the run streamed, silently',
  'tool-call-args-not-json': 'arguments that do not parse make the tool call fail after the stream looked fine',
}

/** The keys whose string values are drawn from a closed set or tag a
 * union member, in the 1.0 types. */
const CLOSED = new Set(['role', 'type', 'op', 'subtype', 'status'])
/** Slots open by meaning (any JSON): their insides are the application's,
 * not the protocol's, so no variant is made inside them. */
const OPEN = new Set(['parameters', 'state', 'forwardedProps', 'payload', 'snapshot', 'metadata', 'rawEvent', 'result', 'value'])
/** A value no version of the protocol defines anywhere. */
const UNKNOWN = 'hologram'

/** Every one-defect variant of `doc`: [where, what, variant]. */
function variants(doc) {
  const out = []
  const walk = (node, at, replace) => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${at}/${i}`, (v) => replace(node.map((x, j) => (j === i ? v : x)))))
      return
    }
    if (node === null || typeof node !== 'object') return
    for (const key of Object.keys(node)) {
      const here = `${at}/${key}`
      const put = (v) => replace({ ...node, [key]: v })
      if (CLOSED.has(key) && typeof node[key] === 'string') out.push([here, `${key} '${UNKNOWN}'`, put(UNKNOWN)])
      if (node[key] !== null) out.push([here, 'null', put(null)])
      if (!OPEN.has(key)) walk(node[key], here, put)
    }
  }
  walk(doc, '', (v) => v)
  return out
}

/** pydantic's verdict on each request, in one Python process. */
function pydanticAccepts(requests) {
  const python = process.env.AGUI_LINT_PYTHON
  assert.ok(python, 'AGUI_LINT_PYTHON names the Python with ag-ui-protocol 1.0.0 (.ci/node-test.sh sets it)')
  const script = [
    'import json, sys',
    'from pydantic import ValidationError',
    'from ag_ui.core import RunAgentInput',
    'out = []',
    'for text in json.load(sys.stdin):',
    '    try:',
    '        RunAgentInput.model_validate_json(text)',
    '        out.append(True)',
    '    except ValidationError:',
    '        out.append(False)',
    'print(json.dumps(out))',
  ].join('\n')
  const stdout = execFileSync(python, ['-c', script], {
    input: JSON.stringify(requests.map((r) => JSON.stringify(r))),
    maxBuffer: 64 * 1024 * 1024,
  })
  return JSON.parse(stdout)
}

/** What @ag-ui/client 1.0.0 does with `events` served as SSE:
 * 'error' (the run fails), 'warning' (it warns), or 'none'. */
function clientVerdict(events) {
  return rawVerdict(sse(events))
}

/** agui-lint's worst severity and its findings. */
function worst(result) {
  const findings = result.documents ? result.documents.flatMap((d) => d.diagnostics) : result.diagnostics
  const verdict = findings.some((d) => d.severity === 'error')
    ? 'error'
    : findings.some((d) => d.severity === 'warning')
      ? 'warning'
      : 'none'
  return { verdict, findings: findings.map((d) => `${d.severity}[${d.rule}] ${d.pointer}`) }
}

function sse(events) {
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')
}

/** A disagreement between the receivers' verdict and agui-lint's, the
 * findings of DELIBERATE rules left out of agui-lint's. */
function disagreement(name, theirs, ours) {
  const counted = ours.findings.filter((f) => !(f.replace(/^\w+\[([^\]]+)\].*$/, '$1') in DELIBERATE))
  const verdict = counted.some((f) => f.startsWith('error['))
    ? 'error'
    : counted.some((f) => f.startsWith('warning['))
      ? 'warning'
      : 'none'
  if (theirs === verdict) return null
  return `${name}: receivers ${theirs}, agui-lint ${ours.verdict} (${ours.findings.join('; ') || 'no findings'})`
}

test('the bases are clean for every receiver and for agui-lint', async () => {
  assert.equal(RunAgentInputSchema.safeParse(bases.request).success, true)
  assert.deepEqual(pydanticAccepts([bases.request]), [true])
  assert.deepEqual(worst(validator.checkRunAgentInput(JSON.stringify(bases.request))).findings, [])
  assert.deepEqual(await clientVerdict(bases.stream), { verdict: 'none', said: undefined })
  assert.deepEqual(worst(asClient.checkStream(sse(bases.stream), { format: 'sse' })).findings, [])
})

test('requests: an error exactly where zod or pydantic rejects the body', () => {
  const cases = variants(bases.request)
  assert.ok(cases.length > 80, `${cases.length} request variants`)
  const pydantic = pydanticAccepts(cases.map(([, , doc]) => doc))
  const found = []
  cases.forEach(([at, what, doc], i) => {
    const zod = RunAgentInputSchema.safeParse(doc).success
    const theirs = zod && pydantic[i] ? 'none' : 'error'
    const ours = worst(validator.checkRunAgentInput(JSON.stringify(doc)))
    const why = `zod ${zod ? 'accepts' : 'rejects'}, pydantic ${pydantic[i] ? 'accepts' : 'rejects'}`
    const d = disagreement(`request ${at} ${what} (${why})`, theirs, ours)
    if (d) found.push(d)
  })
  assert.deepEqual(found, [], `${found.length} of ${cases.length} requests disagree:\n${found.join('\n')}`)
})

test('streams: an error where @ag-ui/client fails the run, a warning where it strips or drops', async () => {
  const cases = variants(bases.stream)
  assert.ok(cases.length > 100, `${cases.length} stream variants`)
  const found = []
  for (const [at, what, events] of cases) {
    const theirs = await clientVerdict(events)
    const ours = worst(asClient.checkStream(sse(events), { format: 'sse' }))
    const d = disagreement(`stream ${at} ${what} (client: ${theirs.said || 'silent'})`, theirs.verdict, ours)
    if (d) found.push(d)
  }
  assert.deepEqual(found, [], `${found.length} of ${cases.length} streams disagree:\n${found.join('\n')}`)
})

// The default view is @ag-ui/client 1.0.0's: each family below is judged
// by a validator built with no option at all.

/** What @ag-ui/client 1.0.0 does with `body`, served byte for byte. */
async function rawVerdict(body) {
  const { server, url } = await serveRaw(body)
  const warnings = []
  const { warn, error } = console
  console.warn = (...args) => warnings.push(args.map(String).join(' '))
  console.error = () => {}
  try {
    await new HttpAgent({ url, threadId: 'thread-1' }).runAgent({ runId: 'run-2' })
    return { verdict: warnings.length > 0 ? 'warning' : 'none', said: warnings[0] }
  } catch (failure) {
    return { verdict: 'error', said: String(failure && failure.message ? failure.message : failure).slice(0, 160) }
  } finally {
    console.warn = warn
    console.error = error
    server.close()
  }
}

/** The base stream framed with `eol` ending each line, `dispatch` each
 * event (the blank line), the first event framed `first` when given. */
function framed(events, eol, first) {
  return events
    .map((e, i) => {
      const [line, blank] = i === 0 && first ? first : [eol, eol]
      return `data: ${JSON.stringify(e)}${line}${blank}`
    })
    .join('')
}

test('SSE framing: served byte for byte, judged as the client splits it, by default', async () => {
  const events = bases.stream
  const cases = {
    lf: framed(events, '\n'),
    crlf: framed(events, '\r\n'),
    cr: framed(events, '\r'),
    'crlf after an lf first event': framed(events, '\r\n', ['\n', '\n']),
    'lf lines, crlf blank lines': events.map((e) => `data: ${JSON.stringify(e)}\n\r\n`).join(''),
    'crlf lines, lf blank lines': events.map((e) => `data: ${JSON.stringify(e)}\r\n\n`).join(''),
    'one event, crlf': framed(events.slice(0, 1), '\r\n'),
  }
  const found = []
  for (const [name, body] of Object.entries(cases)) {
    const theirs = await rawVerdict(body)
    const ours = worst(validator.checkStream(body, { format: 'sse' }))
    const d = disagreement(`framing ${name} (client: ${theirs.said || 'silent'})`, theirs.verdict, ours)
    if (d) found.push(d)
  }
  assert.deepEqual(found, [], `${found.length} framings disagree:\n${found.join('\n')}`)
})

test('snapshots at every point of a stream: a warning where the client drops what is streaming', async () => {
  const events = bases.stream
  const history = bases.stream.find((e) => e.type === 'MESSAGES_SNAPSHOT').messages
  const found = []
  let cases = 0
  // Between the run's start and its end: an empty snapshot, the history
  // alone, and the run's final snapshot (every message and call it made).
  for (let at = 1; at < events.length; at++) {
    for (const [what, messages] of [['empty', []], ['history', history.slice(0, 1)], ['final', history]]) {
      const variant = [...events.slice(0, at), { type: 'MESSAGES_SNAPSHOT', messages }, ...events.slice(at)]
      const theirs = await clientVerdict(variant)
      const ours = worst(validator.checkStream(sse(variant), { format: 'sse' }))
      const d = disagreement(`${what} snapshot before event ${at} ${events[at].type} (client: ${theirs.said || 'silent'})`, theirs.verdict, ours)
      if (d) found.push(d)
      cases++
    }
  }
  assert.ok(cases > 60, `${cases} snapshot variants`)
  assert.deepEqual(found, [], `${found.length} of ${cases} snapshot variants disagree:\n${found.join('\n')}`)
})

test('declared versions: a warning where the client cannot interpret one or speaks an older', async () => {
  const found = []
  for (const version of ['1.0', '1.0.0', '1.1', '1.1.0', '1.2', '2.0', '0.0.57', '1', 'v1.0', 'draft', '']) {
    const events = [{ ...bases.stream[0], protocolVersion: version }, ...bases.stream.slice(1)]
    const theirs = await clientVerdict(events)
    const ours = worst(validator.checkStream(sse(events), { format: 'sse' }))
    const d = disagreement(`protocolVersion '${version}' (client: ${theirs.said || 'silent'})`, theirs.verdict, ours)
    if (d) found.push(d)
  }
  assert.deepEqual(found, [], `${found.length} versions disagree:\n${found.join('\n')}`)
})

/** `n` objects nested, innermost 1. */
function nested(n) {
  let value = 1
  for (let i = 0; i < n; i++) value = { a: value }
  return value
}

test('depth: requests and streams nested as deep as the receivers take them', async () => {
  const found = []
  // Requests: zod takes any depth, pydantic refuses past 200 levels (the
  // document counted); agui-lint checks to its own limit of 512.
  const depths = [150, 199, 200, 300, 505]
  const requests = depths.map((n) => ({ ...bases.request, state: nested(n) }))
  const pydantic = pydanticAccepts(requests)
  requests.forEach((doc, i) => {
    const zod = RunAgentInputSchema.safeParse(doc).success
    const theirs = zod && pydantic[i] ? 'none' : 'error'
    const ours = worst(validator.checkRunAgentInput(JSON.stringify(doc)))
    const d = disagreement(`request state nested ${depths[i]} (zod ${zod}, pydantic ${pydantic[i]})`, theirs, ours)
    if (d) found.push(d)
  })
  // Streams: @ag-ui/client parses with JSON.parse, which takes any depth.
  for (const n of depths) {
    const events = bases.stream.map((e) => (e.type === 'STATE_SNAPSHOT' ? { ...e, snapshot: { deep: nested(n) } } : e))
    const theirs = await clientVerdict(events)
    const ours = worst(validator.checkStream(sse(events), { format: 'sse' }))
    const d = disagreement(`state snapshot nested ${n} (client: ${theirs.said || 'silent'})`, theirs.verdict, ours)
    if (d) found.push(d)
  }
  assert.deepEqual(found, [], `${found.length} depths disagree:\n${found.join('\n')}`)
})

// --client: what agui-lint says the official client does, against the
// client itself, current and pinned to an older peer (its
// maxProtocolVersion, as upstream's era lanes run it).

const os = require('node:os')

/** HttpAgent pinned to a peer of `era` (none for 1.0.0). */
function pinnedAgent(era, url, messages = []) {
  class Pinned extends HttpAgent {
    get maxProtocolVersion() {
      return era === '1.0.0' ? '1.0.0' : era
    }
  }
  const agent = new Pinned({ url, threadId: 'thread-1' })
  agent.messages = messages
  return agent
}

/** Serves `body` to every POST, recording the request bodies. */
async function serveRaw(body) {
  const requests = []
  const server = http.createServer((request, response) => {
    let text = ''
    request.on('data', (chunk) => (text += chunk))
    request.on('end', () => {
      requests.push(text)
      response.writeHead(200, { 'Content-Type': 'text/event-stream' })
      response.end(body)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, requests, url: `http://127.0.0.1:${server.address().port}/agent` }
}

/** What a pinned client does with `body`, and the requests it sent. */
async function pinnedVerdict(era, body, messages) {
  const { server, requests, url } = await serveRaw(body)
  const warnings = []
  const { warn, error } = console
  console.warn = (...args) => warnings.push(args.map(String).join(' '))
  console.error = () => {}
  try {
    await pinnedAgent(era, url, messages).runAgent({ runId: 'run-2' })
    return { verdict: warnings.length > 0 ? 'warning' : 'none', warnings, requests }
  } catch (failure) {
    return { verdict: 'error', warnings, requests, failure: String(failure) }
  } finally {
    console.warn = warn
    console.error = error
    server.close()
  }
}

/** agui-lint's findings on `text` written to `name`, seen through `client`. */
function cliFindings(client, name, text) {
  const bin = process.env.AGUI_LINT_BIN
  assert.ok(bin, 'AGUI_LINT_BIN names the agui-lint binary (.ci/node-test.sh sets it)')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agui-lint-client-'))
  const file = path.join(dir, name)
  fs.writeFileSync(file, text)
  let stdout
  try {
    stdout = execFileSync(bin, ['check', '--format', 'json', '--client', client, file])
  } catch (failed) {
    stdout = failed.stdout
  }
  fs.rmSync(dir, { recursive: true })
  return JSON.parse(stdout).documents.flatMap((d) => d.diagnostics)
}

const ERAS = ['1.0.0', '0.0.57', '0.0.45', '0.0.39']

test('--client: subagent events are dropped where the pinned client drops them', async () => {
  const events = [
    { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-2', protocolVersion: '1.0' },
    { type: 'SUBAGENT_STARTED', subagentRunId: 'sub1', name: 'researcher' },
    { type: 'SUBAGENT_FINISHED', subagentRunId: 'sub1', outcome: { type: 'success' } },
    { type: 'RUN_FINISHED', threadId: 'thread-1', runId: 'run-2' },
  ]
  for (const era of ERAS) {
    const theirs = await pinnedVerdict(era, sse(events))
    const dropped = theirs.warnings.filter((w) => w.includes('dropping SUBAGENT_')).length
    const ours = cliFindings(era, 'run.jsonl', events.map((e) => JSON.stringify(e)).join('\n'))
    const flagged = ours.filter((d) => d.rule === 'client-drops-event')
    assert.equal(flagged.length, dropped, `${era}: client warned ${JSON.stringify(theirs.warnings)}`)
    assert.equal(dropped, era === '1.0.0' ? 0 : 2, `${era}: ${JSON.stringify(theirs.warnings)}`)
    assert.ok(flagged.every((d) => d.severity === 'warning'), era)
    assert.equal(theirs.verdict === 'error', false, era)
  }
})

test('--client 0.0.39: content flattened in the request the pinned client sends', async () => {
  const messages = [bases.request.messages[2]]
  const body = sse([
    { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-2' },
    { type: 'RUN_FINISHED', threadId: 'thread-1', runId: 'run-2' },
  ])
  for (const era of ['0.0.45', '0.0.39']) {
    const theirs = await pinnedVerdict(era, body, messages)
    const sent = JSON.parse(theirs.requests[0])
    const flattened = typeof sent.messages[0].content === 'string'
    const request = { threadId: 'thread-1', runId: 'run-2', messages }
    const ours = cliFindings(era, 'request.json', JSON.stringify(request))
    const flagged = ours.filter((d) => d.rule === 'client-flattens-content')
    assert.equal(flagged.length, flattened ? 1 : 0, `${era}: sent ${JSON.stringify(sent.messages[0].content)}`)
    assert.equal(flattened, era === '0.0.39', era)
  }
})

test('--client 1.0.0: a CRLF-framed stream fails the run, and agui-lint says so', async () => {
  const events = [
    { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-2', protocolVersion: '1.0' },
    { type: 'RUN_FINISHED', threadId: 'thread-1', runId: 'run-2' },
  ]
  const crlf = events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join('')
  const theirs = await pinnedVerdict('1.0.0', crlf)
  assert.equal(theirs.verdict, 'error', 'the official client reads a CRLF stream')
  const request = { threadId: 'thread-1', runId: 'run-2', protocolVersion: '1.0', messages: [] }
  const har = {
    log: {
      version: '1.2',
      creator: { name: 'receivers.test.js', version: '1' },
      entries: [
        {
          request: { method: 'POST', url: 'http://127.0.0.1/agent', headers: [], postData: { mimeType: 'application/json', text: JSON.stringify(request) } },
          response: { status: 200, headers: [], content: { mimeType: 'text/event-stream', text: crlf } },
        },
      ],
    },
  }
  const ours = cliFindings('1.0.0', 'run.har', JSON.stringify(har)).filter((d) => d.rule === 'sse-carriage-return')
  assert.equal(ours.length, 1)
  assert.equal(ours[0].severity, 'error')
})

/** Every file of `dir` with extension `ext`, as [name, text]. */
function corpus(dir, ext) {
  const root = path.join(repo, 'fixtures', '1.0', dir)
  return ['valid', 'invalid'].flatMap((folder) =>
    fs
      .readdirSync(path.join(root, folder))
      .filter((name) => name.endsWith(ext) && !name.startsWith('client-'))
      .map((name) => [`${dir}/${folder}/${name}`, fs.readFileSync(path.join(root, folder, name), 'utf8')]),
  )
}

test("the 1.0 fixture corpus: requests and streams judged as their receivers judge them", async () => {
  const found = []
  const requests = corpus('run-agent-input', '.json')
  assert.ok(requests.length >= 8, `${requests.length} requests`)
  const pydantic = pydanticAccepts(requests.map(([, text]) => JSON.parse(text)))
  requests.forEach(([name, text], i) => {
    const zod = RunAgentInputSchema.safeParse(JSON.parse(text)).success
    const theirs = zod && pydantic[i] ? 'none' : 'error'
    const d = disagreement(`${name} (zod ${zod}, pydantic ${pydantic[i]})`, theirs, worst(validator.checkRunAgentInput(text)))
    if (d) found.push(d)
  })
  const streams = corpus('streams', '.jsonl')
  assert.ok(streams.length >= 20, `${streams.length} streams`)
  for (const [name, text] of streams) {
    const lines = text.split('\n').filter((l) => l.trim() !== '')
    let events
    try {
      events = lines.map((l) => JSON.parse(l))
    } catch {
      continue // bytes that are not events: no client reads them as a stream
    }
    const theirs = await clientVerdict(events)
    const d = disagreement(`${name} (client: ${theirs.said || 'silent'})`, theirs.verdict, worst(asClient.checkStream(sse(events), { format: 'sse' })))
    if (d) found.push(d)
  }
  assert.deepEqual(found, [], `${found.length} fixtures disagree:\n${found.join('\n')}`)
})
