// The matchers under vitest itself (`agui-lint/vitest` installs them), on
// the events @ag-ui/client's HttpAgent emits from a live server: a stream
// the client passes but the protocol does not (a tool result for a call
// that never started) fails with agui-lint's findings.
import 'agui-lint/vitest'
import http from 'node:http'
import { expect, test } from 'vitest'
import { HttpAgent } from '@ag-ui/client'

const input = { threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} }

async function received(events) {
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' })
      for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`)
      response.end()
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const agent = new HttpAgent({ url: `http://127.0.0.1:${server.address().port}/agent`, threadId: 't' })
    const got = []
    await new Promise((resolve, reject) =>
      agent.run(input).subscribe({ next: (event) => got.push(event), error: reject, complete: resolve }),
    )
    return got
  } finally {
    server.close()
  }
}

const run = (...middle) => [
  { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
  ...middle,
  { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
]

test('a clean stream from HttpAgent is conformant', async () => {
  const events = await received(
    run(
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'hi' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm' },
    ),
  )
  expect(events).toBeConformantAgUiStream({ request: input })
  expect(input).toBeValidRunAgentInput()
})

test('a stream HttpAgent passes but the protocol does not fails with the findings', async () => {
  const events = await received(run({ type: 'TOOL_CALL_RESULT', messageId: 'x', toolCallId: 'never-started', content: '18C' }))
  expect(events.length).toBe(3) // the client took it
  let message = ''
  try {
    expect(events).toBeConformantAgUiStream({ request: input })
  } catch (error) {
    message = error.message
  }
  expect(message).toMatch(/expected a conformant AG-UI stream; agui-lint found:/)
  expect(message).toMatch(/error\[tool-call-result-without-start\]/)
  expect(events).not.toBeConformantAgUiStream()
  expect({ threadId: 't' }).not.toBeValidRunAgentInput()
})
