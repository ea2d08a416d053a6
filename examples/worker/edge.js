// The edge profile: Prettier (JS/TS/CSS/Markdown/YAML/JSON…), Ruff through @wasm-fmt/ruff_fmt (Ruff
// 0.15.20, 1.2 MB), gofmt and TOML. Fits a 3 MB (gzip) Workers limit. Wasm is imported as modules.
import ruffFmtWasm from 'formatbox/wasm/ruff_fmt_bg.wasm';
import gofmtWasm from 'formatbox/wasm/gofmt.wasm';
import tomlWasm from 'formatbox/wasm/dprint-toml.wasm';
import { checkedWasm } from 'formatbox/core';
import { prettierFormatter } from 'formatbox/prettier';
import { ruffFmtFormatter } from 'formatbox/ruff';
import { gofmtFormatter } from 'formatbox/gofmt';
import { tomlFormatter } from 'formatbox/toml';
import { formatboxWorker } from './serve.js';

export default formatboxWorker('edge', () => [
  prettierFormatter(),
  ruffFmtFormatter({ wasm: checkedWasm('ruff_fmt', ruffFmtWasm) }),
  gofmtFormatter({ wasm: checkedWasm('gofmt', gofmtWasm) }),
  tomlFormatter({ wasm: checkedWasm('toml', tomlWasm) }),
]);
