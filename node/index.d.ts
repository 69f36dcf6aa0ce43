// Types of the agui-lint Node package (index.js).

/** A body to check: the bytes as received, a string, or a value already parsed. */
export type Body = string | Buffer | Uint8Array | ArrayBuffer | object | null | number | boolean

/** How seriously a finding is taken. */
export type Severity = 'error' | 'warning' | 'info'

/** A protocol version agui-lint judges by, or `auto`. */
export type ProtocolChoice = 'auto' | '1.1' | '1.0' | '0'

/** A kind of document (`kinds()` lists them), or `auto`. */
export type KindName =
  | 'auto'
  | 'run-agent-input'
  | 'message'
  | 'messages'
  | 'tool'
  | 'tools'
  | 'tool-call'
  | 'context'
  | 'input-content'
  | 'capabilities'
  | 'event'
  | 'events'
  | 'resume-entry'
  | 'interrupt'

/** The settings of a Validator, as `agui-lint.toml` and the CLI's flags have them. */
export interface ValidatorOptions {
  /** The version that judges documents declaring none; a document's own declaration wins. */
  protocol?: ProtocolChoice
  /** See streams and requests through the official client: `@ag-ui/client` 1.0.0 with a current peer (`'1.0.0'`) or one pinned to an older version (any version, judged as its era's profile: `'0.0.47'` as `'0.0.57'`, as the client compares versions). */
  client?: string
  /** Report only these rules. */
  select?: string[]
  /** Never report these rules. */
  ignore?: string[]
  /** Another severity for a rule, e.g. `{ 'unknown-field': 'error' }`. */
  severity?: Record<string, Severity>
  /** Keep the document's values out of every finding. */
  maskValues?: boolean
  /** An agui-lint.toml to start from. */
  config?: string
  /** Most findings a document reports (the rest are counted in one `too-many-findings`). */
  maxFindings?: number
  /** Largest document checked, in bytes. */
  maxDocumentSize?: number
  /** Most a stream's state may take, in bytes. */
  maxStateSize?: number
  /** Most the states of every stream this validator follows at once may take together, in bytes. */
  maxTotalStateSize?: number
}

/** Another place a finding involves. */
export interface Related {
  pointer: string
  message: string
  record?: number | null
  line?: number | null
  column?: number | null
}

/** One finding. */
export interface Diagnostic {
  /** The rule's stable kebab-case name. */
  rule: string
  severity: Severity
  /** One sentence saying what is wrong. */
  message: string
  /** JSON pointer (RFC 6901, 0-based) of the node. */
  pointer: string
  /** 1-based line within the document. */
  line?: number | null
  /** 1-based column, in code points. */
  column?: number | null
  /** How to fix it. */
  help?: string | null
  related?: Related[]
}

/** The `agui-lint check --format json` document. */
export interface JsonDocument {
  tool: 'agui-lint'
  version: string
  documents: Array<{
    path: string
    record: number | null
    context?: string
    kind: string | null
    protocol: string
    valid: boolean
    diagnostics: Diagnostic[]
  }>
  summary: { documents: number; valid: number; errors: number; warnings: number; infos: number }
}

/** What a check found in one document. */
export declare class Result {
  /** No error left (warnings allowed). */
  readonly valid: boolean
  /** The protocol version that judged the document. */
  readonly protocol: string
  readonly kind: string | null
  /** The record's 1-based number in its stream, or null. */
  readonly record: number | null
  readonly diagnostics: Diagnostic[]
  readonly errors: number
  readonly warnings: number
  readonly infos: number
  /** The document `agui-lint check --format json` prints for this one. */
  toJSON(): JsonDocument
}

/** What a check of a whole captured stream found. */
export declare class StreamResult {
  readonly valid: boolean
  /** One Result per record, in stream order. */
  readonly documents: Result[]
  readonly errors: number
  readonly warnings: number
  readonly infos: number
  toJSON(): JsonDocument
  /** What `agui-lint check` prints for the stream (the human format). */
  toText(options?: { color?: boolean }): string
}

/** Options of a stream check. */
export interface StreamOptions {
  /** `sse`, `jsonl`, `proto` (AG-UI's binary transport), or `auto` (told from the first bytes; `checkStream` also takes `har`). */
  format?: 'sse' | 'jsonl' | 'har' | 'proto' | 'auto'
  /** The records' kind (`auto`: events). */
  kind?: KindName
  /** The name the stream is reported under. */
  path?: string
  /** The RunAgentInput the stream answers: its tools, version and state pair with it. */
  request?: unknown
}

/** One event stream checked as it comes. */
export declare class StreamChecker {
  /** Feeds the next chunk (split anywhere) or one event object; the records made final that have findings. */
  feed(chunk: string | Uint8Array | ArrayBuffer | object): Result[]
  /** Ends the stream: what is left, with what the end found still open. */
  finish(): Result[]
  /** How many records have been checked so far; once finished, how many the stream held. */
  readonly records: number
}

/** The validator: compiled once per process, shared by every instance; thread-safe. */
export declare class Validator {
  constructor(options?: ValidatorOptions)
  readonly maxFindings: number
  /** Checks a RunAgentInput on this thread. */
  checkRunAgentInput(body: Body, options?: { path?: string }): Result
  /** Checks a RunAgentInput, off the JavaScript thread when it is larger than ASYNC_THRESHOLD_BYTES. */
  checkRunAgentInputAsync(body: Body, options?: { path?: string }): Promise<Result>
  /** Checks a document of `kind`. */
  validate(kind: KindName, body: Body, options?: { path?: string }): Result
  /** `validate`, off the JavaScript thread for a large body. */
  validateAsync(kind: KindName, body: Body, options?: { path?: string }): Promise<Result>
  /** Checks a captured stream whole: bytes, a string, or event objects. */
  checkStream(body: Body | object[], options?: StreamOptions): StreamResult
  /** A checker of a live stream. */
  streamChecker(options?: StreamOptions): StreamChecker
  /** The human report of one document, as `agui-lint check` prints it. */
  text(kind: KindName, body: Body, options?: { path?: string; color?: boolean }): string
}

/** A rule agui-lint can report. */
export interface Rule {
  name: string
  severity: Severity
  summary: string
  /** The Markdown documentation `agui-lint rule NAME` prints. */
  docs: string
  protocols: string[]
}

/** Every rule agui-lint can report. */
export declare function rules(): Rule[]
/** The kinds of document `validate` checks. */
export declare function kinds(): string[]
/** The agui-lint version the addon was built from. */
export declare const version: string
/** Bodies larger than this are checked off the JavaScript thread by the `...Async` methods. */
export declare const ASYNC_THRESHOLD_BYTES: number

/** A guard's refusal: the status and the JSON body every agui-lint guard sends. */
export declare class Rejection {
  readonly status: 413 | 415 | 422
  /** JSON text with a final newline: the `--format json` document for a 422, else `{"tool","version","error"}`. */
  readonly body: string
  /** The check's Result, for a 422. */
  readonly result: Result | null
}

/** Options of a Guard. */
export interface GuardOptions {
  /** The validator to check with (default: one with the default settings). */
  validator?: Validator
  /** Largest body accepted, in bytes (default 2 MiB). */
  bodyLimit?: number
  /** Called with the findings of a request let through that has warnings or infos. */
  onWarnings?: (result: Result, path: string) => void
}

/** The request guard of an AG-UI endpoint. */
export declare class Guard {
  constructor(options?: GuardOptions)
  readonly validator: Validator
  readonly bodyLimit: number
  /** Express (and Connect) middleware; mount it on the AG-UI route before express.json(). Sets req.body and req.aguiLint. */
  express(): (req: any, res: any, next: (error?: unknown) => void) => void
  /** A fetch-style handler behind the guard. */
  fetch<Rest extends unknown[]>(
    handler: (request: Request, ...rest: Rest) => Response | Promise<Response>,
  ): (request: Request, ...rest: Rest) => Promise<Response>
  /** A 415 or 413 from the headers alone; null when the body is to be read. */
  checkHeaders(headers: { contentType?: string | null; contentEncoding?: string | null; contentLength?: string | null }): Rejection | null
  /** Checks a body already read. */
  checkBody(body: Buffer, path: string): Promise<{ result?: Result; rejection?: Rejection }>
}

/** What the fetch guard found for a request it let through. */
export declare function validatedRequest(request: Request): { result: Result; input: unknown } | undefined

/** Counts of the response checks. */
export declare class ResponseStats {
  streams: number
  records: number
  errors: number
  warnings: number
  infos: number
  checkFailures: number
}

/** Options of a response check. */
export interface ResponseCheckOptions extends StreamOptions {
  validator?: Validator
  /** Called for each finding (default: a line on standard error). */
  onFinding?: (finding: Diagnostic, context: { path: string; record: number | null; protocol: string }) => void
  /** Counts to add to, shared across streams. */
  stats?: ResponseStats
}

/** The stream, its bytes checked as they pass (report mode: passed on unchanged). */
export declare function checkResponse<S extends ReadableStream | NodeJS.ReadableStream>(body: S, options?: ResponseCheckOptions): S extends ReadableStream ? ReadableStream : NodeJS.ReadableStream
/** A fetch Response whose body is checked as it is sent. */
export declare function checkedResponse(response: Response, options?: ResponseCheckOptions): Response
