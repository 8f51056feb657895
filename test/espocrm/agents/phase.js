'use strict';
/*
 * A phase of `npm run test:espocrm` (scripts/espocrm/run.js): the node as tools of n8n's AI Agent against the real
 * EspoCRM, with the scripted model: `npm run test:agents` (scripts/agents.js) in a process of its own, given this
 * EspoCRM as RMS_ESPOCRM, runs there the workflows of test/agents/workflows/ whose check says `anyCrm` (06-inbox: ten
 * e-mails, three mistakes the model recovers from). It uses the package built by test:espocrm (--no-build) and an
 * n8n of its own (its own user folder under .e2e/agents/).
 */
const path = require('path');
const { spawn } = require('child_process');

const NAME = 'AI Agent tools, a whole inbox (test:agents on EspoCRM)';
const REPO = path.resolve(__dirname, '..', '..', '..');

/** Resolves when test:agents passes; rejects with its output when it does not. */
function run({ origin, credentials, log }) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [path.join(REPO, 'scripts', 'agents.js'), '--no-build'], {
			cwd: REPO,
			env: { ...process.env, E2E_ONLY: '', RMS_ESPOCRM: JSON.stringify({ origin, credentials }) },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		child.on('error', reject);
		child.on('close', (code) => {
			const lines = output.split('\n');
			if (code === 0) {
				log(`${NAME}: ${lines.filter((line) => /^(PASS|\s+06-inbox:)/.test(line)).map((line) => line.trim()).join('; ')}`);
				resolve();
			} else {
				const problem = new Error(`test:agents exited with ${code}`);
				problem.lines = lines.slice(-80).map((line) => `      ${line}`);
				reject(problem);
			}
		});
	});
}

module.exports = { name: NAME, run };
