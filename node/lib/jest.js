'use strict'
// A jest setup file (`setupFilesAfterEnv: ['agui-lint/jest']`): installs
// agui-lint's matchers on jest's global `expect`.
const { matchers } = require('./matchers.js')

if (typeof expect === 'undefined' || typeof expect.extend !== 'function') {
  throw new Error('agui-lint/jest: no global expect; list it in setupFilesAfterEnv of the jest config')
}
expect.extend(matchers)
