'use strict'
// The conformance kit's client is @ag-ui/client 1.0.0: for every recorded
// framework session (tests/data/frameworks/*/*.har, each exchange), every
// exchange of the kit's own scenarios run against real adapters
// (tests/data/kit-client/sessions/*/*.har) and every case of tests/data/kit-client/cases.json, the request the kit
// sends after the run (tests/data/kit-client/kit.json, written by
// `AGUI_LINT_WRITE_KIT_CLIENT=1 cargo test --test kit_client`) carries
// the messages and state HttpAgent sends after consuming the same
// response. Fails listing every difference.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { HttpAgent } = require('@ag-ui/client')

const root = path.join(__dirname, '..', '..')
const data = path.join(root, 'tests', 'data')

/** Every case, as the Rust test lists them: [name, request, body, mediaType]. */
function cases() {
  const found = sessions(path.join(data, 'frameworks'), '')
  assert.ok(found.length >= 40, `${found.length} recorded framework exchanges`)
  // The kit's own scenarios run end to end against real adapters
  // (tests/data/kit-client/sessions/record.py); a body that is not a run
  // input (the bad-requests scenario's) is no case.
  const kit = sessions(path.join(data, 'kit-client', 'sessions'), 'kit/')
  assert.ok(kit.length >= 40, `${kit.length} kit exchanges`)
  found.push(...kit)
  const synthetic = JSON.parse(fs.readFileSync(path.join(data, 'kit-client', 'cases.json'), 'utf8'))
  for (const c of synthetic.cases) found.push([c.name, c.request, Buffer.from(c.body, 'utf8'), 'text/event-stream'])
  return found
}

/** Each exchange of the HARs in the folders of `root` whose request is a
 * run input answered with 200, named `${prefix}FOLDER/FILE#K`. */
function sessions(root, prefix) {
  const found = []
  for (const server of fs.readdirSync(root).sort()) {
    const dir = path.join(root, server)
    if (!fs.statSync(dir).isDirectory()) continue
    for (const file of fs.readdirSync(dir).sort()) {
      if (!file.endsWith('.har')) continue
      const har = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))
      har.log.entries.forEach((entry, k) => {
        let request
        try {
          request = JSON.parse(entry.request.postData.text)
        } catch {
          return
        }
        if (typeof request?.threadId !== 'string' || !Array.isArray(request.messages) || entry.response.status !== 200) return
        const content = entry.response.content
        const body = content.encoding === 'base64' ? Buffer.from(content.text, 'base64') : Buffer.from(content.text || '', 'utf8')
        found.push([`${prefix}${server}/${file}#${k}`, request, body, content.mimeType || 'text/event-stream'])
      })
    }
  }
  return found
}

/** What HttpAgent sends after `request`'s run was answered with `body`. */
async function followUp(request, body, mediaType) {
  let sent
  const fetch = async (_url, init) => {
    if (sent === undefined && init.body && JSON.parse(init.body).runId === request.runId) {
      return new Response(body, { status: 200, headers: { 'Content-Type': mediaType } })
    }
    sent = JSON.parse(init.body)
    const ids = { threadId: sent.threadId, runId: sent.runId }
    const end = `data: ${JSON.stringify({ type: 'RUN_STARTED', ...ids })}\n\ndata: ${JSON.stringify({ type: 'RUN_FINISHED', ...ids })}\n\n`
    return new Response(end, { status: 200, headers: { 'Content-Type': 'text/event-stream' } })
  }
  const agent = new HttpAgent({
    url: 'http://kit.invalid/agent',
    threadId: request.threadId,
    initialMessages: request.messages,
    initialState: request.state ?? {},
    fetch,
  })
  const { warn, error, debug } = console
  console.warn = console.error = console.debug = () => {}
  try {
    const options = { runId: request.runId, tools: request.tools, context: request.context, forwardedProps: request.forwardedProps }
    if (request.resume !== undefined) options.resume = request.resume
    await agent.runAgent(options).catch(() => {})
    // An interrupted run leaves interrupts the next input must answer.
    const resume = agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status: 'resolved' }))
    await agent.runAgent({ runId: 'agui-lint-follow-up', ...(resume.length > 0 && { resume }) }).catch(() => {})
  } finally {
    Object.assign(console, { warn, error, debug })
  }
  return sent
}

test('the kit sends back what HttpAgent sends back, for every recorded session and case', async () => {
  const kit = new Map(JSON.parse(fs.readFileSync(path.join(data, 'kit-client', 'kit.json'), 'utf8')).cases.map((c) => [c.name, c]))
  const all = cases()
  assert.ok(all.length >= 50, `${all.length} cases`)
  const differences = []
  for (const [name, request, body, mediaType] of all) {
    const ours = kit.get(name)
    if (!ours) {
      differences.push(`${name}: not in kit.json (regenerate it)`)
      continue
    }
    const theirs = await followUp(request, body, mediaType)
    if (!theirs) {
      differences.push(`${name}: HttpAgent sent no follow-up`)
      continue
    }
    for (const key of ['messages', 'state']) {
      try {
        assert.deepStrictEqual(ours[key], theirs[key])
      } catch {
        differences.push(`${name}: ${key}\n  kit:       ${JSON.stringify(ours[key])}\n  HttpAgent: ${JSON.stringify(theirs[key])}`)
      }
    }
  }
  assert.deepEqual(differences, [], `${differences.length} of ${all.length} differ:\n${differences.join('\n')}`)
})
