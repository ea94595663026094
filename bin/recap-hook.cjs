#!/usr/bin/env node
// CommonJS on purpose: it starts faster than an ES module, and the hook runs on every tool call.
require('../dist/client/hook.cjs');
