// @ts-check
'use strict';

/** The sandbox EspoCRM-like server: see index.d.ts for the API. */
const { startSandbox, Sandbox, SANDBOX_CREDENTIALS } = require('./server');
const { seedDemoData } = require('./seed');
const { ENTITY_DEFS } = require('./metadata');
const { SANDBOX_USERS } = require('./users');
const { startRecorder } = require('./recorder');
const { statusChangeNote } = require('./versions');

/**
 * The sandbox as `npm run sandbox` and `npm run dev` start it (cli.js): both dialects, the demo data, no failed-login
 * lock-out. `npm run test:e2e` starts the examples' sandbox with these too, so that they run as in the dev editor.
 */
const DEV_SANDBOX_OPTIONS = Object.freeze({
	dialect: /** @type {'both'} */ ('both'),
	seed: true,
	failedLoginLimit: 0,
});

module.exports = {
	startSandbox,
	Sandbox,
	SANDBOX_CREDENTIALS,
	SANDBOX_USERS,
	seedDemoData,
	ENTITY_DEFS,
	startRecorder,
	DEV_SANDBOX_OPTIONS,
	statusChangeNote,
};
