/** The conformance kit for agent servers, in a Node server's own tests. */

/** The built-in scenarios, in the order the kit runs them. */
export declare const SCENARIOS: string[]

/** What to run. */
export interface KitOptions {
  /** Built-in scenario names (default: all). */
  scenarios?: string[]
  /** Users' scenario files (JSON conversation templates). */
  scenarioFiles?: string[]
  /** What first requests declare as protocolVersion (default "1.0"; null: nothing). */
  version?: string | null
  /** Judge only the MUSTs ("must"), or every check ("should"). */
  level?: 'must' | 'should'
  /** A TOML file of the checks the server is known to fail, each with a reason. */
  expectedFailures?: string
  /** Headers sent with every request (the kit's own win). */
  headers?: Record<string, string>
  /** Whether a SHOULD failure fails the run too (default: only MUST failures do). */
  strict?: boolean
}

/** A verdict: passed, failed, not exercised, failed for a cause another check reports, an expected failure, or a listed failure that now passes. */
export type Verdict = 'passed' | 'failed' | 'not-exercised' | 'same-cause' | 'expected-failure' | 'fixed-but-listed'

/** A run of the kit, judged. */
export declare class KitReport {
  /** Whether the run passes: no MUST failure (nor SHOULD, when strict) the expected failures do not list. */
  readonly ok: boolean
  /** The human report: one line per scenario and check. */
  readonly text: string
  /** The JSON report, parsed. */
  readonly json: {
    scenarios: {
      name: string
      checks: {
        check: string
        level: 'MUST' | 'SHOULD' | 'ADVICE'
        spec: string
        verdict: Verdict
        fails: boolean
        requires: string
        restsOn: { text: string; url: string }[]
        why?: string
        reason?: string
      }[]
    }[]
    agentFailure: string | null
    summary: { passed: number; failed: number; warnings: number; notExercised: number; sameCause: number; expectedFailures: number; fixedButListed: number }
  }
  /** The JUnit XML report. */
  readonly junit: string
  /** The verdict of `check` in `scenario`. */
  verdict(scenario: string, check: string): Verdict
  /** Every check not passed, as `{ "scenario/check": verdict }`. */
  notPassed(): Record<string, Verdict>
}

/** Runs the kit against a fetch handler in process. */
export declare function runFetch(
  handler: (request: Request) => Response | Promise<Response>,
  path?: string,
  options?: KitOptions,
): Promise<KitReport>

/** Runs the kit against a live endpoint. */
export declare function runUrl(url: string, options?: KitOptions): Promise<KitReport>

/** Runs the kit against an Express app (any `(req, res)` handler), served on 127.0.0.1 for the run. */
export declare function runExpress(app: unknown, path?: string, options?: KitOptions): Promise<KitReport>
