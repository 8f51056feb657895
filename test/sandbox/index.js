// @ts-check
'use strict';

/** The sandbox EspoCRM-like server: see index.d.ts for the API. */
const { startSandbox, Sandbox, SANDBOX_CREDENTIALS } = require('./server');
const { seedDemoData } = require('./seed');
const { ENTITY_DEFS } = require('./metadata');
const { SANDBOX_USERS } = require('./users');
const { startRecorder } = require('./recorder');

module.exports = { startSandbox, Sandbox, SANDBOX_CREDENTIALS, SANDBOX_USERS, seedDemoData, ENTITY_DEFS, startRecorder };
