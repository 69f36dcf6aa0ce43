'use strict'
// The matchers as vitest and jest call them (`this`-free functions
// returning { pass, message }), on the objects @ag-ui/client emits.

const test = require('node:test')
const assert = require('node:assert/strict')

const { toBeValidRunAgentInput, toBeConformantAgUiStream } = require('../lib/matchers.js')

const input = { threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} }

test('a valid RunAgentInput passes; a broken one fails with the human report', () => {
  assert.equal(toBeValidRunAgentInput(input).pass, true)
  const failed = toBeValidRunAgentInput({ ...input, thread_id: 't', threadId: undefined })
  assert.equal(failed.pass, false)
  const message = failed.message()
  assert.match(message, /error\[missing-field\] missing required key 'threadId'/)
  assert.match(message, /found 'thread_id'/)
})

test('a broken event stream fails with the findings, a clean one passes', () => {
  const clean = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
  ]
  assert.equal(toBeConformantAgUiStream(clean).pass, true)
  const broken = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    { type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'f' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
  ]
  const failed = toBeConformantAgUiStream(broken)
  assert.equal(failed.pass, false)
  assert.match(failed.message(), /error\[run-finished-while-open\]/)
  assert.match(failed.message(), /in record 3/)
  // strict: warnings fail too.
  const warned = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r', extra_key: 1 }, clean[1]]
  assert.equal(toBeConformantAgUiStream(warned).pass, true)
  assert.equal(toBeConformantAgUiStream(warned, { strict: true }).pass, false)
})
