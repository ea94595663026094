#!/usr/bin/env node
import { main } from '../dist/client/cli.js';

await main();
