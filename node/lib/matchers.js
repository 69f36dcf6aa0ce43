'use strict'
// Test matchers for vitest and jest: `expect(body).toBeValidRunAgentInput()`
// and `expect(events).toBeConformantAgUiStream()`, which fail with the CLI's
// human report of what is wrong. `agui-lint/vitest` and `agui-lint/jest`
// install them; this module is the matchers alone.

let shared = null

function validatorOf(options) {
  if (options && options.validator) return options.validator
  const { Validator } = require('../index.js')
  if (options && options.protocol) return new Validator({ protocol: options.protocol })
  if (!shared) shared = new Validator()
  return shared
}

/** A matcher's answer: `pass`, and what a failure (or a `.not` pass) says. */
function verdict(result, options, negated, found) {
  const pass = result.valid && (!options.strict || result.warnings === 0)
  return { pass, message: () => (pass ? negated : found()) }
}

/**
 * The body (a string, bytes or a parsed object) is a valid RunAgentInput;
 * with `{ strict: true }` it also has no warning.
 */
function toBeValidRunAgentInput(received, options = {}) {
  const validator = validatorOf(options)
  return verdict(
    validator.checkRunAgentInput(received),
    options,
    'expected the body not to be a valid RunAgentInput, and agui-lint found it valid',
    () => `expected a valid RunAgentInput; agui-lint found:\n\n${validator.text('run-agent-input', received, { path: 'body' })}`,
  )
}

/**
 * The stream (event objects as @ag-ui/client's HttpAgent emits them, or
 * SSE or JSON Lines text or bytes) keeps the protocol's rules; `request`
 * pairs it with the RunAgentInput it answers, `strict` fails warnings too.
 */
function toBeConformantAgUiStream(received, options = {}) {
  const result = validatorOf(options).checkStream(received, { request: options.request, path: 'stream' })
  return verdict(
    result,
    options,
    'expected the stream not to be conformant, and agui-lint found nothing wrong',
    () => `expected a conformant AG-UI stream; agui-lint found:\n\n${result.toText()}`,
  )
}

const matchers = { toBeValidRunAgentInput, toBeConformantAgUiStream }

module.exports = { matchers, toBeValidRunAgentInput, toBeConformantAgUiStream }
