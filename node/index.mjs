// The ES module face of agui-lint's Node package: the same objects as the
// CommonJS index.js.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const agui = require('./index.js')

export const {
  Validator,
  Result,
  StreamResult,
  StreamChecker,
  Guard,
  Rejection,
  validatedRequest,
  checkResponse,
  checkedResponse,
  ResponseStats,
  rules,
  kinds,
  version,
  ASYNC_THRESHOLD_BYTES,
} = agui
export default agui
