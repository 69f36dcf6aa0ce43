// A fetch-style AG-UI endpoint (a Next.js route handler, a Hono route, the
// CopilotKit runtime's shape) guarded both ways, in TypeScript: the request
// checked before the handler runs, the event stream as it is sent.
// `.ci/node-test.sh` type-checks it against the packed package.

import { Guard, Validator, checkedResponse, validatedRequest, type Diagnostic, type Result } from 'agui-lint'

const validator = new Validator({ ignore: ['unknown-field'] })
const guard = new Guard({
  validator,
  onWarnings: (result: Result, path: string) => console.warn(path, result.warnings),
})

export const POST = guard.fetch(async (request: Request): Promise<Response> => {
  const seen = validatedRequest(request)
  const input = seen?.input as { threadId: string; runId: string }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // What @ag-ui/encoder's EventEncoder writes for each event.
      const send = (event: object) => controller.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(event)}\n\n`))
      send({ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId })
      send({ type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId })
      controller.close()
    },
  })
  const response = new Response(body, { headers: { 'Content-Type': 'text/event-stream' } })
  return checkedResponse(response, {
    validator,
    request: seen?.input,
    onFinding: (finding: Diagnostic, context) => console.warn(finding.rule, context.record),
  })
})

const result: Result = validator.checkRunAgentInput('{}')
const rules: string[] = result.diagnostics.map((d) => d.rule)
console.log(rules)
