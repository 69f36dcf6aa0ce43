// jest for the matcher tests: agui-lint's matchers installed as a user
// installs them.
'use strict'

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  setupFilesAfterEnv: ['agui-lint/jest'],
}
