'use strict';
/*
 * A phase of `npm run test:espocrm` (scripts/espocrm/run.js): forms.espocrm.ts, the forms' lists, the credential
 * test and the polling trigger against the real EspoCRM, run by the repository's jest (the engine harness, as
 * `npm test` runs its suites) in a process of its own, alongside the workflows.
 */
const path = require('path');
const { spawn } = require('child_process');

const NAME = 'forms, credential test, polling trigger (engine harness)';
const REPO = path.resolve(__dirname, '..', '..', '..');

/** Resolves when jest passes; rejects with jest's output when it does not. */
function run({ origin, credentials, log }) {
	return new Promise((resolve, reject) => {
		const args = [require.resolve('jest/bin/jest'), '--rootDir', REPO, '--testMatch', '<rootDir>/test/espocrm/forms/*.espocrm.ts', '--verbose'];
		const child = spawn(process.execPath, args, {
			cwd: REPO,
			env: { ...process.env, RMS_ESPOCRM: JSON.stringify({ origin, credentials }) },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		child.on('error', reject);
		child.on('close', (code) => {
			if (code === 0) {
				log(`${NAME}: ${output.split('\n').find((line) => line.includes('Tests:'))?.trim() ?? 'passed'}`);
				resolve();
			} else {
				const problem = new Error(`jest exited with ${code}`);
				problem.lines = output.split('\n').slice(-80).map((line) => `      ${line}`);
				reject(problem);
			}
		});
	});
}

module.exports = { name: NAME, run };
