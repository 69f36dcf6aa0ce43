'use strict'
// The response check of an AG-UI endpoint, in `report` mode: the stream a
// server answers with (a web ReadableStream, a Node stream such as the one
// a server writes @ag-ui/encoder's output into, or a fetch Response) is
// passed on byte for byte, and fed as it passes to a StreamChecker paired
// with the request it answers. Each finding goes to `onFinding(finding,
// context)`; the stream is never held back longer than its own check, and a
// check that throws never breaks the stream it watches.

const { Transform } = require('node:stream')

/** Counts a service can export: streams checked, records, findings. */
class ResponseStats {
  constructor() {
    this.streams = 0
    this.records = 0
    this.errors = 0
    this.warnings = 0
    this.infos = 0
    /** Checks that failed themselves (never the stream). */
    this.checkFailures = 0
  }
}

/** The default reporter: one line on standard error per finding. */
function warn(finding, context) {
  const at = finding.pointer === '' ? '' : ` at ${finding.pointer}`
  const record = context.record == null ? '' : ` in record ${context.record}`
  console.warn(`agui-lint: ${context.path}: ${finding.severity}[${finding.rule}] ${finding.message}${at}${record}`)
}

/**
 * The observer of one response: `push(chunk)` as bytes pass, `end()` when
 * the stream ends. Reports through `onFinding`, counts in `stats`.
 */
class ResponseCheck {
  constructor({ validator, request, format = 'sse', kind = 'auto', path = '-', onFinding = warn, stats } = {}) {
    if (!validator) {
      const { Validator } = require('../index.js')
      validator = new Validator()
    }
    this.path = path
    this.onFinding = onFinding
    this.stats = stats || new ResponseStats()
    this.stats.streams += 1
    this.checker = validator.streamChecker({ format, kind, path, request })
    this.failed = false
  }

  /** Feeds a chunk that has just been passed on. */
  push(chunk) {
    if (this.failed) return
    this.report(() => this.checker.feed(chunk))
  }

  /** Ends the check: what the end of the stream found still open. */
  end() {
    if (this.failed) return
    this.report(() => this.checker.finish())
    this.failed = true // finished: nothing more is fed
  }

  report(step) {
    let results
    try {
      const before = this.checker.records
      results = step()
      this.stats.records += Math.max(0, this.checker.records - before)
    } catch (error) {
      this.failed = true
      this.stats.checkFailures += 1
      console.warn(`agui-lint: the response check of ${this.path} stopped: ${error.message}`)
      return
    }
    for (const result of results) {
      for (const finding of result.diagnostics) {
        if (finding.severity === 'error') this.stats.errors += 1
        else if (finding.severity === 'warning') this.stats.warnings += 1
        else this.stats.infos += 1
        try {
          this.onFinding(finding, { path: this.path, record: result.record, protocol: result.protocol })
        } catch (error) {
          console.warn(`agui-lint: onFinding threw: ${error.message}`)
        }
      }
    }
  }
}

/**
 * `body` with its bytes checked as they pass: a web ReadableStream gives a
 * ReadableStream, a Node Readable a Transform stream, both carrying the
 * same bytes.
 */
function checkResponse(body, options = {}) {
  const check = new ResponseCheck(options)
  if (body && typeof body.getReader === 'function') {
    return body.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          controller.enqueue(chunk)
          check.push(typeof chunk === 'string' ? chunk : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        },
        flush() {
          check.end()
        },
      }),
    )
  }
  if (body && typeof body.pipe === 'function') {
    const passing = new Transform({
      transform(chunk, encoding, callback) {
        callback(null, chunk)
        check.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk)
      },
      flush(callback) {
        check.end()
        callback()
      },
    })
    body.on('error', (error) => passing.destroy(error))
    return body.pipe(passing)
  }
  throw new TypeError('agui-lint: checkResponse takes a web ReadableStream or a Node Readable')
}

/** A fetch Response whose body is checked as it is sent (status and headers kept). */
function checkedResponse(response, options = {}) {
  if (!response.body) return response
  const type = response.headers.get('content-type') || ''
  const format = options.format || (type.includes('ndjson') || type.includes('jsonl') ? 'jsonl' : 'sse')
  return new Response(checkResponse(response.body, { ...options, format }), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}

module.exports = { checkResponse, checkedResponse, ResponseCheck, ResponseStats }
