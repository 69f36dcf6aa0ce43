'use strict'
// The conformance kit for agent servers, in a Node server's own tests: the
// kit (agui-lint's, in Rust) plans each request from the responses so far;
// this sends them to a fetch handler in process (a Next.js route handler,
// a Hono app's `fetch`, the CopilotKit runtime's shape), to an Express app
// on 127.0.0.1, or to a URL, and hands back what came.

const http = require('node:http')
const native = require('./native.js')

/** The built-in scenarios, in the order the kit runs them. */
const SCENARIOS = native.scenarioNames()

/** A run of the kit, judged. */
class KitReport {
  constructor(kit) {
    const human = JSON.parse(kit.report('human'))
    /** Whether the run passes (no failure the expected failures do not list, none they list passes). */
    this.ok = !human.fails
    /** The human report: one line per scenario and check. */
    this.text = human.text
    /** The JSON report, parsed. */
    this.json = JSON.parse(JSON.parse(kit.report('json')).text)
    /** The JUnit XML report. */
    this.junit = JSON.parse(kit.report('junit')).text
  }

  /** The verdict of `check` in `scenario`: passed, failed, not-exercised, expected-failure, fixed-but-listed. */
  verdict(scenario, check) {
    const found = this.json.scenarios.find((s) => s.name === scenario)?.checks.find((c) => c.check === check)
    if (!found) throw new Error(`${scenario}/${check} was not judged`)
    return found.verdict
  }

  /** Every check not passed, as `{ "scenario/check": verdict }`. */
  notPassed() {
    const found = {}
    for (const scenario of this.json.scenarios) {
      for (const check of scenario.checks) {
        if (check.verdict !== 'passed') found[`${scenario.name}/${check.check}`] = check.verdict
      }
    }
    return found
  }
}

/**
 * Counts the Server-Sent Events a body dispatches, fed its chunks as they
 * come; each byte is looked at once (LF, CRLF or CR line ends).
 */
class EventCounter {
  constructor() {
    this.events = 0
    this._partial = ''
    this._data = false
    this._afterCr = false
  }

  feed(chunk) {
    let text = Buffer.from(chunk).toString('latin1')
    if (text.length === 0) return this.events
    if (this._afterCr && text.startsWith('\n')) text = text.slice(1)
    this._afterCr = false
    text = this._partial + text
    const end = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'))
    if (end < 0) {
      this._partial = text
      return this.events
    }
    this._afterCr = text[end] === '\r'
    this._partial = text.slice(end + 1)
    const lines = text.slice(0, end + 1).replace(/\r\n/g, '\n').replace(/\r/g, '\n').split('\n')
    lines.pop()
    for (const line of lines) {
      if (line === '') {
        if (this._data) this.events += 1
        this._data = false
      } else if (line.startsWith('data')) {
        this._data = true
      }
    }
    return this.events
  }
}

function makeKit(url, options = {}) {
  return new native.NativeKit({
    url,
    scenarios: options.scenarios,
    scenarioFiles: options.scenarioFiles,
    version: options.version === null ? 'none' : options.version,
    level: options.level,
    expectedFailures: options.expectedFailures,
    strict: options.strict,
  })
}

/** Runs `kit`, sending each request with `send(request)` → [status, headers, body, complete]. */
async function drive(kit, send) {
  let answered = false
  for (;;) {
    const request = kit.nextRequest()
    if (request === null || request === undefined) break
    if (request.waitBeforeMs) await new Promise((resolve) => setTimeout(resolve, request.waitBeforeMs))
    let response
    try {
      response = await send(request)
    } catch (error) {
      // Nothing listening, before anything answered, is the caller's
      // mistake; a server that dies mid-suite is a finding of its own.
      if (!answered && neverConnected(error)) throw error
      kit.recordUnanswered(describe(error))
      continue
    }
    answered = true
    const [status, headers, body, complete] = response
    kit.record(status, headers, body, complete)
  }
  return new KitReport(kit)
}

/** Whether `error` says nothing listens at the address. */
function neverConnected(error) {
  const code = error && (error.code || (error.cause && error.cause.code))
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'
}

/** What a failed send says, with its cause when it has one. */
function describe(error) {
  const text = String((error && error.message) || error)
  const cause = error && error.cause && (error.cause.code || error.cause.message)
  return cause ? `${text} (${cause})` : text
}

/** The request's headers with `extra` added, the kit's winning. */
function merged(request, extra) {
  const names = new Set(request.headers.map(([name]) => name.toLowerCase()))
  const headers = new Headers()
  for (const [name, value] of request.headers) headers.set(name, value)
  for (const [name, value] of Object.entries(extra || {})) {
    if (!names.has(name.toLowerCase())) headers.set(name, value)
  }
  return headers
}

/** Reads `response`'s body, stopping after `limit` events when set. */
async function read(response, limit, abort) {
  const headers = [...response.headers.entries()]
  const chunks = []
  let complete = true
  if (response.body) {
    const reader = response.body.getReader()
    const counter = new EventCounter()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(Buffer.from(value))
      if (limit !== null && limit !== undefined && counter.feed(value) >= limit) {
        complete = false
        abort.abort()
        await reader.cancel().catch(() => {})
        break
      }
    }
  }
  return [response.status, headers, Buffer.concat(chunks), complete]
}

/**
 * Runs the kit against a fetch handler in process: `handler(request)`
 * returns a `Response` (or a promise of one). `path` is the endpoint's
 * path; options: scenarios, scenarioFiles, version (null: none), level
 * ('must' | 'should'), expectedFailures (a TOML file), strict (a SHOULD
 * failure fails too), headers.
 */
async function runFetch(handler, path = '/', options = {}) {
  const url = new URL(path, 'http://localhost').href
  const kit = makeKit(url, options)
  return drive(kit, async (request) => {
    const abort = new AbortController()
    const response = await handler(
      new Request(url, { method: 'POST', headers: merged(request, options.headers), body: request.body, signal: abort.signal }),
    )
    return read(response, request.cancelAfterEvents, abort)
  })
}

/** Runs the kit against a live endpoint at `url` (fetch over the network). */
async function runUrl(url, options = {}) {
  const kit = makeKit(url, options)
  return drive(kit, async (request) => {
    const abort = new AbortController()
    let response
    try {
      response = await fetch(url, { method: 'POST', headers: merged(request, options.headers), body: request.body, signal: abort.signal })
    } catch (error) {
      throw new Error(`cannot reach ${url}: ${error.message}`, { cause: error.cause || error })
    }
    return read(response, request.cancelAfterEvents, abort)
  })
}

/**
 * Runs the kit against an Express app (or any `(req, res)` handler),
 * served for the run on a free port of 127.0.0.1.
 */
async function runExpress(app, path = '/', options = {}) {
  const server = http.createServer(app)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    return await runUrl(`http://127.0.0.1:${server.address().port}${path}`, options)
  } finally {
    server.closeAllConnections?.()
    await new Promise((resolve) => server.close(resolve))
  }
}

module.exports = { SCENARIOS, KitReport, EventCounter, runFetch, runUrl, runExpress }
