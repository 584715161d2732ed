#!/usr/bin/env node
// npm links this file into node_modules/.bin: `npx pepe` then starts the checkout's command at once.
import '../pepe.mjs';
