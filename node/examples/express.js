// An Express AG-UI endpoint behind agui-lint's guard, in plain JavaScript.
// `node examples/express.js` serves it on 127.0.0.1:8000; `.ci/node-test.sh`
// loads it from the packed package.

const express = require('express')
const { Guard, checkResponse } = require('agui-lint')

const guard = new Guard()
const app = express()

app.post('/agent', guard.express(), (req, res) => {
  const { threadId, runId, protocolVersion } = req.body // a valid RunAgentInput
  res.setHeader('Content-Type', 'text/event-stream')
  const { PassThrough } = require('node:stream')
  const events = new PassThrough()
  checkResponse(events, { request: req.body }).pipe(res) // findings on standard error
  // Declare the version this server speaks, never an echo of the request's
  // (1.0 to a consumer that declared 1.0; none to one that declared none).
  const own = protocolVersion === undefined ? undefined : protocolVersion === '1.0' ? '1.0' : '1.1'
  events.write(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId, runId, protocolVersion: own })}\n\n`)
  events.end(`data: ${JSON.stringify({ type: 'RUN_FINISHED', threadId, runId })}\n\n`)
})

if (require.main === module) app.listen(8000, '127.0.0.1')
module.exports = app
