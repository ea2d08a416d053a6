;; Grows its memory until memory.grow refuses (-1), then exits with code 7.
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (loop $more
      (if (i32.eq (memory.grow (i32.const 16)) (i32.const -1))
        (then (call $exit (i32.const 7))))
      (br $more))))
