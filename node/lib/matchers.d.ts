// Types of agui-lint's test matchers (lib/matchers.js).
import type { Validator } from '../index'

export interface MatcherOptions {
  validator?: Validator
  protocol?: '1.1' | '1.0' | '0'
  strict?: boolean
  /** For streams: the RunAgentInput the stream answers. */
  request?: unknown
}

export interface MatcherResult {
  pass: boolean
  message: () => string
}

export declare function toBeValidRunAgentInput(received: unknown, options?: MatcherOptions): MatcherResult
export declare function toBeConformantAgUiStream(received: unknown, options?: MatcherOptions): MatcherResult
export declare const matchers: {
  toBeValidRunAgentInput: typeof toBeValidRunAgentInput
  toBeConformantAgUiStream: typeof toBeConformantAgUiStream
}

declare module 'vitest' {
  interface Assertion<T = any> {
    toBeValidRunAgentInput(options?: MatcherOptions): T
    toBeConformantAgUiStream(options?: MatcherOptions): T
  }
}
