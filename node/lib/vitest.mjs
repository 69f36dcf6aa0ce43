// A vitest setup file (`setupFiles: ['agui-lint/vitest']`), or an import at
// the top of a test file: installs agui-lint's matchers on vitest's expect.
import { expect } from 'vitest'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { matchers } = require('./matchers.js')

expect.extend(matchers)
