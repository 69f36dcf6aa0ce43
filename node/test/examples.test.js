'use strict'
// The README's and examples/' recipes run: the Express example serves a
// guarded endpoint whose stream is checked.

const test = require('node:test')
const assert = require('node:assert/strict')
const { readFileSync } = require('node:fs')
const { join } = require('node:path')

test('examples/express.js guards its endpoint and streams a clean run', async () => {
  const app = require('../examples/express.js')
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const url = `http://127.0.0.1:${server.address().port}/agent`
  const warned = []
  const warn = console.warn
  console.warn = (line) => warned.push(line)
  try {
    const body = readFileSync(join(__dirname, '..', '..', 'tests', 'upstream', 'traffic-1.0', 'chat.request.json'))
    const ok = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
    assert.equal(ok.status, 200)
    const text = await ok.text()
    assert.match(text, /RUN_STARTED/)
    assert.match(text, /RUN_FINISHED/)
    const refused = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
    assert.equal(refused.status, 422)
  } finally {
    console.warn = warn
    server.close()
  }
  assert.deepEqual(warned, [], 'the example streams a conformant run')
})
