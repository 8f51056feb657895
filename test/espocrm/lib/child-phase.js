'use strict';
/*
 * What the phases of `npm run test:espocrm` that run a suite of the repository in a process of their own share:
 * the suite gets the EspoCRM under test as RMS_ESPOCRM = {origin, credentials}.
 */
const path = require('path');
const { spawn } = require('child_process');

const REPO = path.resolve(__dirname, '..', '..', '..');

/**
 * Runs `node <args>` in the repository against this EspoCRM. Resolves with its output's lines when it exits 0;
 * rejects with an error carrying its last 80 lines (shown under the failed phase) otherwise.
 */
function runAgainstEspocrm(args, { origin, credentials, env = {} }) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, args, {
			cwd: REPO,
			env: { ...process.env, ...env, RMS_ESPOCRM: JSON.stringify({ origin, credentials }) },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		child.on('error', reject);
		child.on('close', (code) => {
			const lines = output.split('\n');
			if (code === 0) return resolve(lines);
			const problem = new Error(`${path.basename(args[0])} exited with ${code}`);
			problem.lines = lines.slice(-80).map((line) => `      ${line}`);
			reject(problem);
		});
	});
}

module.exports = { REPO, runAgainstEspocrm };
