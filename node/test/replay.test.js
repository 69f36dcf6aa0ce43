'use strict'
// `agui-lint replay` consumed by the official client: every framework
// adapter's recorded session (tests/data/frameworks/*/*.har), served by
// `agui-lint replay` with the ids fitted to @ag-ui/client's HttpAgent's
// requests, gives the agent the same messages, state and failures as the
// recorded bytes served as they were by a plain Node server.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { spawn } = require('node:child_process')

const { HttpAgent } = require('@ag-ui/client')

const root = path.join(__dirname, '..', '..')
const bin = process.env.AGUI_LINT_BIN || path.join(root, 'target', 'debug', 'agui-lint')
const frameworks = path.join(root, 'tests', 'data', 'frameworks')

/** Every recorded session: [name, file]. */
function sessions() {
  const found = []
  for (const framework of fs.readdirSync(frameworks).sort()) {
    const dir = path.join(frameworks, framework)
    if (!fs.statSync(dir).isDirectory()) continue
    for (const file of fs.readdirSync(dir).sort()) {
      if (file.endsWith('.har')) found.push([`${framework}/${file}`, path.join(dir, file)])
    }
  }
  return found
}

/** The recorded response bodies of a HAR, in order, and the thread id
 * its first request gave. */
function recording(file) {
  const har = JSON.parse(fs.readFileSync(file, 'utf8'))
  const bodies = har.log.entries.map((entry) => {
    const content = entry.response.content
    return content.encoding === 'base64' ? Buffer.from(content.text, 'base64') : Buffer.from(content.text, 'utf8')
  })
  const threadId = JSON.parse(har.log.entries[0].request.postData.text).threadId
  return { bodies, threadId }
}

/** A server answering its k-th POST with the k-th recorded body, as recorded. */
async function original(recorded) {
  let next = 0
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' })
      response.end(recorded[next++ % recorded.length])
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}/agent`, close: () => server.close() }
}

/** `agui-lint replay FILE` on a free port. */
async function replay(file) {
  const child = spawn(bin, ['replay', file, '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] })
  const url = await new Promise((resolve, reject) => {
    let said = ''
    child.stderr.on('data', (chunk) => {
      said += chunk
      const found = /listening on (http:\/\/\S+)\n/.exec(said)
      if (found) resolve(`${found[1]}/agent`)
    })
    child.on('exit', (code) => reject(new Error(`agui-lint replay exited ${code}: ${said}`)))
  })
  return { url, close: () => child.kill() }
}

/** What HttpAgent makes of `runs` runs against `url`: its messages, its
 * state and each run's failure. Console output of the client is muted. */
async function consume(url, runs, threadId) {
  const agent = new HttpAgent({ url, threadId })
  const failures = []
  const { warn, error } = console
  console.warn = () => {}
  console.error = () => {}
  try {
    for (let k = 0; k < runs; k++) {
      try {
        await agent.runAgent({ runId: `run-${k}` })
        failures.push(null)
      } catch (failure) {
        failures.push(String(failure && failure.message ? failure.message : failure))
      }
    }
  } finally {
    console.warn = warn
    console.error = error
  }
  return { messages: agent.messages, state: agent.state, failures }
}

test('every recorded session replayed gives HttpAgent what the recording gave it', async () => {
  const all = sessions()
  assert.ok(all.length >= 30, `${all.length} sessions`)
  let withMessages = 0
  for (const [name, file] of all) {
    const { bodies, threadId } = recording(file)
    const served = await original(bodies)
    const replayed = await replay(file)
    try {
      // The recording as it was, to a client on the recorded thread; the
      // replay to a client on another thread, whose id it must carry
      // wherever the recording carried its own (ADK echoes it in state).
      const expected = await consume(served.url, bodies.length, threadId)
      const got = await consume(replayed.url, bodies.length, 'thread-replayed')
      assert.deepEqual(
        JSON.parse(JSON.stringify(got)),
        JSON.parse(JSON.stringify(expected).split(JSON.stringify(threadId)).join('"thread-replayed"')),
        name,
      )
      if (expected.messages.length > 0) withMessages++
    } finally {
      served.close()
      replayed.close()
    }
  }
  // The comparison means something only if the sessions gave messages.
  assert.ok(withMessages >= 25, `${withMessages} sessions gave messages`)
})
