;; Asks the host for its memory instead of defining one.
(module
  (import "env" "memory" (memory 1))
  (export "memory" (memory 0))
  (func (export "_start")))
