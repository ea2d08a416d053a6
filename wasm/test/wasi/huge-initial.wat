;; Needs 4 GiB of memory at start.
(module
  (memory (export "memory") 65535)
  (func (export "_start")))
