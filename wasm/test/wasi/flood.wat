;; Writes the same 64 KiB to stdout forever.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  ;; iovec at 0: {buf = 65536, len = 65536}
  (data (i32.const 0) "\00\00\01\00\00\00\01\00")
  (func (export "_start")
    (loop $again
      (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 16)))
      (br $again))))
