;; Test-only runaway formatter: allocates without bound. It grows its memory by 256 pages
;; (16 MiB) at a time and touches every 4 KiB page of the new part so it is really committed;
;; once memory.grow fails (at the 4 GiB wasm32 limit) it spins.
(module
  (memory (export "memory") 1 65536)
  (func (export "format") (param i32) (result i32)
    (local $at i32)
    (local $end i32)
    (loop $more
      (local.set $at (memory.grow (i32.const 256)))
      (if (i32.ne (local.get $at) (i32.const -1))
        (then
          (local.set $at (i32.mul (local.get $at) (i32.const 65536)))
          (local.set $end (i32.add (local.get $at) (i32.const 16777216)))
          (loop $touch
            (i32.store (local.get $at) (i32.const 1))
            (local.set $at (i32.add (local.get $at) (i32.const 4096)))
            (br_if $touch (i32.lt_u (local.get $at) (local.get $end))))))
      (br $more))
    (i32.const 0)))
