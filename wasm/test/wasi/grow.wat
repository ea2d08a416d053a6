;; Grows its memory by 16 pages (1 MiB) at a time and never stops, whatever memory.grow answers.
(module
  (memory (export "memory") 1)
  (func (export "_start")
    (loop $more
      (drop (memory.grow (i32.const 16)))
      (br $more))))
