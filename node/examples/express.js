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
  events.write(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId, runId, protocolVersion })}\n\n`)
  events.end(`data: ${JSON.stringify({ type: 'RUN_FINISHED', threadId, runId })}\n\n`)
})

if (require.main === module) app.listen(8000, '127.0.0.1')
module.exports = app
