// The edge profile plus Biome 2.4.15 (the official wasm build, 7.8 MB gzip without its debug names):
// within Workers' 10 MB (paid plan) limit because Ruff stays @wasm-fmt/ruff_fmt (0.15.20) as in edge,
// not the official 0.16.9 build of the full profile. Wasm is imported as modules.
import biomeWasm from 'formatbox/wasm/biome_wasm_bg.wasm';
import ruffFmtWasm from 'formatbox/wasm/ruff_fmt_bg.wasm';
import gofmtWasm from 'formatbox/wasm/gofmt.wasm';
import tomlWasm from 'formatbox/wasm/dprint-toml.wasm';
import { checkedWasm } from 'formatbox/core';
import { prettierFormatter } from 'formatbox/prettier';
import { biomeFormatter } from 'formatbox/biome';
import { ruffFmtFormatter } from 'formatbox/ruff';
import { gofmtFormatter } from 'formatbox/gofmt';
import { tomlFormatter } from 'formatbox/toml';
import { formatboxWorker } from './serve.js';

export default formatboxWorker('edge-biome', () => [
  prettierFormatter(),
  biomeFormatter({ wasm: checkedWasm('biome', biomeWasm) }),
  ruffFmtFormatter({ wasm: checkedWasm('ruff_fmt', ruffFmtWasm) }),
  gofmtFormatter({ wasm: checkedWasm('gofmt', gofmtWasm) }),
  tomlFormatter({ wasm: checkedWasm('toml', tomlWasm) }),
]);
