'use strict';
/*
 * A phase of `npm run test:espocrm` (test/espocrm/run.js): forms.espocrm.ts, the forms' lists, the credential
 * test and the polling trigger against the real EspoCRM, run by the repository's jest (the engine harness, as
 * `npm test` runs its suites) in a process of its own, after the workflows.
 */
const { REPO, runAgainstEspocrm } = require('../lib/child-phase');

const NAME = 'forms, credential test, polling trigger (engine harness)';

/** Resolves when jest passes; rejects with jest's output when it does not. */
async function run({ origin, credentials, log }) {
	const args = [
		require.resolve('jest/bin/jest'),
		'--rootDir',
		REPO,
		'--testMatch',
		'<rootDir>/test/espocrm/forms/*.espocrm.ts',
		'--verbose',
	];
	const lines = await runAgainstEspocrm(args, { origin, credentials });
	log(`${NAME}: ${lines.find((line) => line.includes('Tests:'))?.trim() ?? 'passed'}`);
}

module.exports = { name: NAME, run };
