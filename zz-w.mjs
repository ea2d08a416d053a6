import { Worker } from 'node:worker_threads';
const limits = process.argv[2] === 'limits' ? { maxOldGenerationSizeMb: 1024 } : process.argv[2] === 'young' ? { maxOldGenerationSizeMb: 1024, maxYoungGenerationSizeMb: 48 } : undefined;
const w = new Worker(new URL('./zz-pr.mjs', import.meta.url), { argv: ['same'], ...(limits ? { resourceLimits: limits } : {}) });
await new Promise((r) => w.on('exit', r));
