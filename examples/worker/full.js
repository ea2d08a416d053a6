// The full profile: the edge profile plus Biome and the official Ruff build (0.16.9; ruff_fmt stays
// for ranges and .pyi stubs). Biome's wasm alone is 8.4 MB gzip. Wasm is imported as modules.
import biomeWasm from 'formatbox/wasm/biome_wasm_bg.wasm';
import ruffWasm from 'formatbox/wasm/ruff_wasm_bg.wasm';
import ruffFmtWasm from 'formatbox/wasm/ruff_fmt_bg.wasm';
import gofmtWasm from 'formatbox/wasm/gofmt.wasm';
import tomlWasm from 'formatbox/wasm/dprint-toml.wasm';
import { checkedWasm } from 'formatbox/core';
import { prettierFormatter } from 'formatbox/prettier';
import { biomeFormatter } from 'formatbox/biome';
import { ruffFormatter } from 'formatbox/ruff';
import { gofmtFormatter } from 'formatbox/gofmt';
import { tomlFormatter } from 'formatbox/toml';
import { formatboxWorker } from './serve.js';

export default formatboxWorker('full', () => [
  prettierFormatter(),
  biomeFormatter({ wasm: checkedWasm('biome', biomeWasm) }),
  ruffFormatter({ wasm: checkedWasm('ruff', ruffWasm), ruffFmtWasm: checkedWasm('ruff_fmt', ruffFmtWasm) }),
  gofmtFormatter({ wasm: checkedWasm('gofmt', gofmtWasm) }),
  tomlFormatter({ wasm: checkedWasm('toml', tomlWasm) }),
]);
