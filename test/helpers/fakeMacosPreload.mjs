// Loaded into every Node process of a test run on the fake macOS platform (NODE_OPTIONS
// --import, set by test/helpers/daemon.ts's sandbox when RECAP_TEST_PLATFORM=fake-macos): puts
// src/platform/fakeMacos.ts in place before recap's code loads, as onFakeMacos.mjs does for
// one command. A test-only switch: recap itself never reads RECAP_TEST_PLATFORM, and a hook
// whose agent clears NODE_OPTIONS (recap's installs do) runs on the real platform.
import { fakeMacos } from '../../dist/platform/fakeMacos.js';

globalThis[Symbol.for('recap.platform')] = fakeMacos({ notices: process.env.FAKE_MACOS_NOTICES });
