// The matchers under jest itself (`setupFilesAfterEnv: ['agui-lint/jest']`,
// in test-jest/jest.config.js), on event objects as @ag-ui/client emits them.
'use strict'

const run = (...middle) => [
  { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
  ...middle,
  { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
]

test('a conformant stream and a valid body pass', () => {
  expect(run({ type: 'STEP_STARTED', stepName: 's' }, { type: 'STEP_FINISHED', stepName: 's' })).toBeConformantAgUiStream()
  expect({ threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} }).toBeValidRunAgentInput()
})

test('a broken stream fails with the CLI findings', () => {
  const broken = run({ type: 'TOOL_CALL_RESULT', messageId: 'x', toolCallId: 'never-started', content: '18C' })
  expect(() => expect(broken).toBeConformantAgUiStream()).toThrow(/error\[tool-call-result-without-start\]/)
  expect(broken).not.toBeConformantAgUiStream()
})
