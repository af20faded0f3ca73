#!/usr/bin/env node
// The built-in targets (process, microvm) as an external adapter over the public target protocol v1: the same code as
// `target: process|microvm`, driven through the adapter's stdio instead of in the session host. Proves the protocol
// carries a whole target (same seed: same kill plan, same verdicts). Needs `npm run build` (it runs dist/).
// adapterOptions: { target: process | microvm, targetOptions: {...} } (the target's own options, as in a scenario).
import { serveBuiltin } from '../../dist/harness/targets/exec/serve.js';

serveBuiltin();
