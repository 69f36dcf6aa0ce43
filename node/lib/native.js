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
  // Built here (`npm run build`), or beside the package in a checkout.
  const local = join(__dirname, '..', name)
  if (existsSync(local)) return require(local)
  // Installed from npm: the platform's package, an optional dependency.
  const platformPackage = `agui-lint-${triple()}`
  try {
    return require(platformPackage)
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error
  }
  throw new Error(
    `agui-lint: no native addon for ${triple()} (looked for ${name} and the package ${platformPackage}); ` +
      'build it with `npm run build` in the package folder (a Rust toolchain is needed)',
  )
}

module.exports = load()
