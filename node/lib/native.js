'use strict'
// Loads the addon built for this platform: `napi build --platform` names
// it agui-lint.<platform>-<arch>[-<abi>].node (Linux adds gnu or musl).

const { existsSync } = require('node:fs')
const { join } = require('node:path')

function linuxAbi() {
  // glibc's loader reports its version; musl's has none.
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null
  return report && report.header && report.header.glibcVersionRuntime ? 'gnu' : 'musl'
}

function triple() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${linuxAbi()}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

function load() {
  const name = `agui-lint.${triple()}.node`
  const local = join(__dirname, '..', name)
  if (existsSync(local)) return require(local)
  throw new Error(
    `agui-lint: no native addon for ${triple()} (looked for ${name}); ` +
      'build it with `npm run build` in the package folder (a Rust toolchain is needed)',
  )
}

module.exports = load()
