;; Test-only failing formatter: traps (like a Rust panic compiled to wasm) and recurses without bound.
(module
  (func (export "format") (param i32) (result i32)
    unreachable)
  (func $deep (export "recurse") (param i32) (result i32)
    (call $deep (i32.add (local.get 0) (i32.const 1)))))
