;; Claims to be a dprint plugin (schema 4) and never finishes instantiating: its start function loops.
(module
  (memory (export "memory") 1)
  (func $spin (loop $forever (br $forever)))
  (func (export "dprint_plugin_version_4") (result i32) (i32.const 4))
  (start $spin))
