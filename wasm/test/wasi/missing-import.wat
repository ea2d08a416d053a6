;; Imports a host function nobody provides.
(module
  (import "env" "steal_secrets" (func $steal))
  (memory (export "memory") 1)
  (func (export "_start") (call $steal)))
