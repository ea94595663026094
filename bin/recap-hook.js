#!/usr/bin/env node
import '../dist/client/hook.js';
