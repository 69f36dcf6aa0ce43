'use strict'
// agui-lint for Node: the AG-UI protocol validator's checks, rules and JSON
// document, from the Rust library through a napi-rs addon (lib/native.js).
// Results are built from the `agui-lint check --format json` document the
// addon returns, so they read as the CLI's and the Python package's do.

const native = require('./lib/native.js')
// guard.js reaches back for Validator only when a Guard is made.
const { Guard, Rejection, validatedRequest } = require('./lib/guard.js')
const { checkResponse, checkedResponse, ResponseStats } = require('./lib/response.js')

/**
 * Bodies up to this many bytes are checked on the JavaScript thread by the
 * `...Async` methods (a check this size takes tens of microseconds, less
 * than a hop to the thread pool); larger ones run as napi async work on
 * libuv's thread pool, so the event loop goes on meanwhile.
 */
const ASYNC_THRESHOLD_BYTES = 32 * 1024

/** A body as bytes: a string, a Buffer or Uint8Array, or a parsed value. */
function toBuffer(body) {
  if (typeof body === 'string') return Buffer.from(body, 'utf8')
  if (Buffer.isBuffer(body)) return body
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  if (body instanceof ArrayBuffer) return Buffer.from(body)
  if (body === undefined) throw new TypeError('agui-lint: no body to check (undefined)')
  // An object already parsed (a request's JSON, an event object): checked
  // as the JSON it would be sent as.
  return Buffer.from(JSON.stringify(body), 'utf8')
}

/**
 * What a check found in one document. Made from the addon's report (its
 * verdict and counts read directly; the findings converted from the
 * `--format json` document only when first asked for, so a clean request
 * costs no rendering) or from one document of a stream's JSON document.
 */
class Result {
  constructor(source, path = '-') {
    if (typeof source.json === 'function') {
      // Each read of the addon's report crosses into native code: only the
      // verdict is read now, the rest when asked for.
      /** @private */
      this._native = source
      /** @private */
      this._path = path
      /** No error left (warnings allowed). */
      this.valid = source.valid
      return
    }
    /** @private */
    this._document = source
    /** @private */
    this._checked = source.documents[0]
    this.valid = this._checked.valid
  }

  /** The protocol version that judged the document. */
  get protocol() {
    return this._native ? this._native.protocol : this._checked.protocol
  }

  /** The kind the document was checked as, or null. */
  get kind() {
    return this._native ? (this._native.kind ?? null) : this._checked.kind
  }

  /** The record's number in its stream (1-based), or null. */
  get record() {
    return this._native ? null : this._checked.record
  }

  /** Every finding, in position order. */
  get diagnostics() {
    if (this._diagnostics === undefined) {
      this._diagnostics =
        this._native && this._native.findings === 0 ? [] : this.toJSON().documents[0].diagnostics
    }
    return this._diagnostics
  }

  /** How many findings are errors. */
  get errors() {
    return this._native ? this._native.errors : countOf(this.diagnostics, 'error')
  }

  /** How many findings are warnings. */
  get warnings() {
    return this._native ? this._native.warnings : countOf(this.diagnostics, 'warning')
  }

  /** How many findings are infos. */
  get infos() {
    return this._native ? this._native.infos : countOf(this.diagnostics, 'info')
  }

  /** The document `agui-lint check --format json` prints for this one. */
  toJSON() {
    if (this._document === undefined) this._document = JSON.parse(this.jsonText())
    return this._document
  }

  /** That document as the CLI prints it (pretty, with a final newline): a guard's 422 body. */
  jsonText() {
    if (this._text === undefined) {
      this._text = this._native ? this._native.json(this._path) : JSON.stringify(this._document, null, 2) + '\n'
    }
    return this._text
  }
}

const KINDS = native.kinds()
/** Index of each kind name in the addon's `kinds()`, as `verdict` takes it. */
const KIND_INDEX = new Map(KINDS.map((name, index) => [name, index]))
KIND_INDEX.set('auto', 0xffffffff)
const PROTOCOLS = native.protocols()

/**
 * The report of a document the addon found nothing in, from `verdict`'s
 * clean code: read as the addon's report is (a `Result` tells the two
 * apart by nothing), its JSON document made by checking again, only when
 * asked for. Kept small: one is made per clean request.
 */
class CleanReport {
  constructor(code, validator, kind, bytes) {
    this.code = code
    this.validator = validator
    this.checkedAs = kind
    this.bytes = bytes
  }

  get valid() {
    return true
  }

  get protocol() {
    return PROTOCOLS[this.code >> 4]
  }

  get kind() {
    return (this.code & 15) === 0 ? null : KINDS[(this.code & 15) - 1]
  }

  get findings() {
    return 0
  }

  get errors() {
    return 0
  }

  get warnings() {
    return 0
  }

  get infos() {
    return 0
  }

  /** The `--format json` document, from the addon's report of the same check. */
  json(path) {
    return this.validator.check(this.checkedAs, this.bytes).json(path)
  }
}

/** The Result of `native.verdict`'s answer for a body of `kind`. */
function verdictResult(validator, kind, index, bytes, path) {
  const verdict = validator.verdict(index, bytes)
  if (typeof verdict !== 'number') return new Result(verdict, path)
  return new Result(new CleanReport(verdict, validator, kind, bytes), path)
}

function countOf(diagnostics, severity) {
  let n = 0
  for (const d of diagnostics) if (d.severity === severity) n += 1
  return n
}

/** One Result per record of a `--format json` document of a stream. */
function resultsOf(json) {
  if (json == null) return []
  return resultsOfDocument(JSON.parse(json))
}

function resultsOfDocument(document) {
  return document.documents.map(
    (checked) => new Result({ tool: document.tool, version: document.version, documents: [checked], summary: summaryOf([checked]) }),
  )
}

function summaryOf(documents) {
  const summary = { documents: documents.length, valid: 0, errors: 0, warnings: 0, infos: 0 }
  for (const d of documents) {
    if (d.valid) summary.valid += 1
    summary.errors += countOf(d.diagnostics, 'error')
    summary.warnings += countOf(d.diagnostics, 'warning')
    summary.infos += countOf(d.diagnostics, 'info')
  }
  return summary
}

/** What a check of a whole captured stream found. */
class StreamResult {
  constructor(nativeResult) {
    /** @private */
    this._native = nativeResult
    /** @private */
    this._document = JSON.parse(nativeResult.json())
    const summary = this._document.summary
    /** One Result per record, in stream order. */
    this.documents = resultsOfDocument(this._document)
    this.valid = summary.errors === 0
    this.errors = summary.errors
    this.warnings = summary.warnings
    this.infos = summary.infos
  }

  /** The document `agui-lint check --format json` prints for the stream. */
  toJSON() {
    return this._document
  }

  /** What `agui-lint check` prints for the stream (the human format). */
  toText({ color = false } = {}) {
    return this._native.text(color)
  }
}

/** The text of a stream: bytes, a string, or event objects (as JSON Lines). */
function streamBody(body, format) {
  if (Array.isArray(body)) {
    const lines = body.map((event) => JSON.stringify(event)).join('\n')
    return { bytes: Buffer.from(lines + '\n', 'utf8'), format: 'jsonl' }
  }
  return { bytes: toBuffer(body), format }
}

function requestText(request) {
  if (request === undefined || request === null) return undefined
  return toBuffer(request).toString('utf8')
}

/**
 * The validator: the compiled schemas of every kind and protocol version
 * (compiled once per process, shared by every Validator) and the settings
 * that decide which rules report and how seriously. Build it once and share
 * it.
 */
class Validator {
  /**
   * @param {object} [options] protocol, select, ignore, severity,
   *   maskValues, config, maxFindings, maxDocumentSize, maxStateSize,
   *   maxTotalStateSize
   */
  constructor(options = {}) {
    /** @private */
    this._native = new native.NativeValidator(JSON.stringify(options))
  }

  /** The most findings a document reports. */
  get maxFindings() {
    return this._native.maxFindings
  }

  /** Checks a RunAgentInput (the body of the request that starts a run). */
  checkRunAgentInput(body, { path = '-' } = {}) {
    return this.validate('run-agent-input', body, { path })
  }

  /** `checkRunAgentInput`, off the JavaScript thread for a large body. */
  checkRunAgentInputAsync(body, { path = '-' } = {}) {
    return this.validateAsync('run-agent-input', body, { path })
  }

  /** Checks `body` as a document of `kind` (`"auto"`: told from its shape). */
  validate(kind, body, { path = '-' } = {}) {
    const index = KIND_INDEX.get(kind ?? 'auto')
    // An unknown kind goes to `check`, which names it in its error.
    if (index === undefined) return new Result(this._native.check(kind, toBuffer(body)), path)
    return verdictResult(this._native, kind, index, toBuffer(body), path)
  }

  /** `validate`, off the JavaScript thread for a body over ASYNC_THRESHOLD_BYTES. */
  async validateAsync(kind, body, { path = '-' } = {}) {
    const bytes = toBuffer(body)
    if (bytes.length <= ASYNC_THRESHOLD_BYTES) return this.validate(kind, bytes, { path })
    return new Result(await this._native.checkAsync(kind, bytes), path)
  }

  /**
   * Checks a captured stream whole: SSE or JSON Lines bytes, a HAR, or an
   * array of event objects (as `@ag-ui/client` emits them).
   */
  checkStream(body, { format = 'auto', kind = 'auto', path = '-', request } = {}) {
    const stream = streamBody(body, format)
    return new StreamResult(this._native.checkStream(stream.bytes, stream.format, kind, path, requestText(request)))
  }

  /** A checker of a live stream, fed as its bytes (or events) arrive. */
  streamChecker(options = {}) {
    return new StreamChecker(this, options)
  }

  /** The human report of one document, as `agui-lint check` prints it. */
  text(kind, body, { path = '-', color = false } = {}) {
    return native.documentText(this._native, kind, toBuffer(body), path, color)
  }
}

/**
 * One event stream checked as it comes: `feed(chunk)` with each chunk
 * (split anywhere) or event object, `finish()` at its end. Each returns the
 * records made final that have findings.
 */
class StreamChecker {
  constructor(validator, { format = 'sse', kind = 'auto', path = '-', request } = {}) {
    /** @private */
    this._format = format
    /** @private */
    this._native = new native.NativeStreamChecker(validator._native, format, kind, path, requestText(request))
  }

  /** Feeds the next chunk (bytes or string) or one event object. */
  feed(chunk) {
    let bytes
    if (typeof chunk === 'string' || chunk instanceof Uint8Array || chunk instanceof ArrayBuffer) {
      bytes = toBuffer(chunk)
    } else if (this._format === 'proto') {
      throw new TypeError('a binary (proto) stream is fed bytes, not event objects')
    } else {
      const json = JSON.stringify(chunk)
      bytes = Buffer.from(this._format === 'sse' ? `data: ${json}\n\n` : `${json}\n`, 'utf8')
    }
    return resultsOf(this._native.feed(bytes))
  }

  /** Ends the stream: what is left, with what the end found still open. */
  finish() {
    return resultsOf(this._native.finish())
  }

  /** How many records have been checked so far; once finished, how many the stream held. */
  get records() {
    return this._native.records
  }
}

/** Every rule agui-lint can report: name, severity, summary, docs, protocols. */
function rules() {
  return JSON.parse(native.rulesJson())
}

/** The kinds of document `validate` checks. */
function kinds() {
  return native.kinds()
}

/** The agui-lint version the addon was built from. */
const version = native.version()

// Every name as a shorthand property, so that Node's ES module loader sees
// each one and index.mjs can re-export them all.
module.exports = {
  Validator,
  Guard,
  Rejection,
  validatedRequest,
  checkResponse,
  checkedResponse,
  ResponseStats,
  Result,
  StreamResult,
  StreamChecker,
  rules,
  kinds,
  version,
  ASYNC_THRESHOLD_BYTES,
}
