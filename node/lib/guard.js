'use strict'
// The request guard of an AG-UI endpoint: a RunAgentInput body checked
// before the handler runs, answered as the Rust and Python guards answer:
//
//   a valid RunAgentInput (warnings allowed)     the handler's answer
//   JSON that is not a valid RunAgentInput        422  the `--format json` document
//   a Content-Type other than JSON                415  {"tool","version","error"}
//   a Content-Encoding other than identity        415  {"tool","version","error"}
//   a body over the limit (2 MiB by default)      413  {"tool","version","error"}
//
// `Guard.check` is the framework-free core; `express()` and `fetch()` put it
// in front of an Express route and of a fetch-style handler (Request in,
// Response out: Hono, Next.js route handlers, the CopilotKit runtime).

const DEFAULT_BODY_LIMIT = 2 * 1024 * 1024

/** `size` bytes as the Rust guard writes it: `512 bytes`, `2 MiB`. */
function size(bytes) {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit + 1 < units.length) {
    value /= 1024
    unit += 1
  }
  const text = value.toFixed(1)
  return `${text.endsWith('.0') ? text.slice(0, -2) : text} ${units[unit]}`
}

/** `application/json` or `application/*+json`, with any parameters. */
function isJson(contentType) {
  if (contentType == null) return false
  const essence = String(contentType).split(';', 1)[0].trim().toLowerCase()
  const [kind, subtype = ''] = essence.split('/', 2)
  return kind === 'application' && (subtype === 'json' || (subtype.length > 5 && subtype.endsWith('+json')))
}

/** A refusal: the status and the JSON body every agui-lint guard sends. */
class Rejection {
  constructor(status, body, result = null) {
    this.status = status
    /** The answer's body, JSON text ending in a newline. */
    this.body = body
    /** The check's Result, for a 422. */
    this.result = result
  }

  static error(status, message, version) {
    return new Rejection(status, JSON.stringify({ tool: 'agui-lint', version, error: message }) + '\n')
  }
}

/** Reads a Node request stream, stopping at `limit` bytes (null when over). */
function readNode(stream, limit) {
  return new Promise((resolve, reject) => {
    const chunks = []
    let length = 0
    let over = false
    stream.on('data', (chunk) => {
      if (over) return
      length += chunk.length
      if (length > limit) {
        over = true
        chunks.length = 0
        resolve(null)
        stream.resume()
        return
      }
      chunks.push(chunk)
    })
    stream.on('end', () => over || resolve(Buffer.concat(chunks, length)))
    stream.on('error', reject)
  })
}

/** Reads a web request's body, stopping at `limit` bytes (null when over). */
async function readWeb(request, limit) {
  if (request.body == null) return Buffer.alloc(0)
  const reader = request.body.getReader()
  const chunks = []
  let length = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    length += value.byteLength
    if (length > limit) {
      await reader.cancel().catch(() => {})
      return null
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, length)
}

const validated = new WeakMap()

/** What the fetch guard found for a request it let through: `{ result, input }`. */
function validatedRequest(request) {
  return validated.get(request)
}

/**
 * The guard: a shared Validator, the body limit, and what becomes of the
 * findings that do not block a request (`onWarnings(result, path)`).
 */
class Guard {
  constructor({ validator, bodyLimit = DEFAULT_BODY_LIMIT, onWarnings } = {}) {
    if (!validator) {
      const { Validator } = require('../index.js')
      validator = new Validator()
    }
    this.validator = validator
    this.bodyLimit = bodyLimit
    this.onWarnings = onWarnings
    /** The agui-lint version the answers name. */
    this.version = require('../index.js').version
  }

  /** A 415 or 413 from the headers alone, before the body is read; else null. */
  checkHeaders({ contentType, contentEncoding, contentLength }) {
    if (!isJson(contentType)) {
      const message =
        contentType == null
          ? 'the body must be JSON (Content-Type: application/json)'
          : `the body must be JSON (Content-Type: application/json), not '${contentType}'`
      return Rejection.error(415, message, this.version)
    }
    if (contentEncoding != null && String(contentEncoding).split(',').some((p) => p.trim() && p.trim().toLowerCase() !== 'identity')) {
      return Rejection.error(
        415,
        `the body is sent with Content-Encoding '${contentEncoding}'; agui-lint checks bodies as sent, so decompress them before the guard`,
        this.version,
      )
    }
    if (contentLength != null && /^\s*\d+\s*$/.test(String(contentLength)) && Number(contentLength) > this.bodyLimit) {
      return this.tooLarge()
    }
    return null
  }

  /** The 413 answer. */
  tooLarge() {
    return Rejection.error(413, `the body is over the limit of ${size(this.bodyLimit)}`, this.version)
  }

  /**
   * Checks a body already read: the Result when it is a valid RunAgentInput,
   * else the 422 Rejection. Large bodies are checked off the JavaScript
   * thread.
   */
  async checkBody(body, path) {
    if (body.length > this.bodyLimit) return { rejection: this.tooLarge() }
    const result = await this.validator.checkRunAgentInputAsync(body, { path })
    if (!result.valid) return { rejection: new Rejection(422, result.jsonText(), result) }
    if (result.diagnostics.length > 0 && this.onWarnings) this.onWarnings(result, path)
    return { result }
  }

  /** Express (and Connect) middleware: mount it on the AG-UI route, before `express.json()`. */
  express() {
    return (req, res, next) => {
      const refused = this.checkHeaders({
        contentType: req.headers['content-type'],
        contentEncoding: req.headers['content-encoding'],
        contentLength: req.headers['content-length'],
      })
      const send = (rejection) => {
        res.statusCode = rejection.status
        res.setHeader('Content-Type', 'application/json')
        res.end(rejection.body)
      }
      if (refused) return send(refused)
      readNode(req, this.bodyLimit)
        .then(async (body) => {
          if (body === null) return send(this.tooLarge())
          const { rejection, result } = await this.checkBody(body, req.originalUrl || req.url || '-')
          if (rejection) return send(rejection)
          // What `express.json()` would have given, so handlers read req.body.
          req.body = JSON.parse(body.toString('utf8'))
          req.aguiLint = { result, body }
          next()
        })
        .catch(next)
    }
  }

  /**
   * A fetch-style handler behind the guard: `(request, ...rest) => Response`.
   * The handler gets a request whose body can be read again, and
   * `validatedRequest(request)` gives it `{ result, input }`.
   */
  fetch(handler) {
    return async (request, ...rest) => {
      const headers = request.headers
      const refused = this.checkHeaders({
        contentType: headers.get('content-type'),
        contentEncoding: headers.get('content-encoding'),
        contentLength: headers.get('content-length'),
      })
      const answer = (rejection) =>
        new Response(rejection.body, { status: rejection.status, headers: { 'Content-Type': 'application/json' } })
      if (refused) return answer(refused)
      const body = await readWeb(request, this.bodyLimit)
      if (body === null) return answer(this.tooLarge())
      const { rejection, result } = await this.checkBody(body, new URL(request.url).pathname)
      if (rejection) return answer(rejection)
      const guarded = new Request(request, { body, duplex: 'half' })
      validated.set(guarded, { result, input: JSON.parse(body.toString('utf8')) })
      return handler(guarded, ...rest)
    }
  }
}

module.exports = { Guard, Rejection, validatedRequest, isJson, size, DEFAULT_BODY_LIMIT }
