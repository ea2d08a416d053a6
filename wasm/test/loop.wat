;; Test-only runaway formatter: never returns (an infinite loop).
(module
  (func (export "format") (param i32) (result i32)
    (loop $forever
      (br $forever))
    (i32.const 0)))
