// The ES module face of agui-lint's Node package: the same objects as the
// CommonJS index.js, whose names Node's loader reads from its exports.
import agui from './index.js'

export * from './index.js'
export default agui
