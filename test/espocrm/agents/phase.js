'use strict';
/*
 * A phase of `npm run test:espocrm` (test/espocrm/run.js): the node as tools of n8n's AI Agent against the real
 * EspoCRM, with the scripted model: `npm run test:agents` (test/agents/run.js) in a process of its own, given this
 * EspoCRM as RMS_ESPOCRM, runs there the workflows of test/agents/workflows/ whose check says `anyCrm` (06-inbox: ten
 * e-mails, three mistakes the model recovers from). It uses the package built by test:espocrm (--no-build) and an
 * n8n of its own (its own user folder under .e2e/agents/).
 */
const path = require('path');
const { REPO, runAgainstEspocrm } = require('../lib/child-phase');

const NAME = 'AI Agent tools, a whole inbox (test:agents on EspoCRM)';

/** Resolves when test:agents passes; rejects with its output when it does not. */
async function run({ origin, credentials, log }) {
	const lines = await runAgainstEspocrm(
		[path.join(REPO, 'test', 'agents', 'run.js'), '--no-build'],
		{ origin, credentials, env: { E2E_ONLY: '' } },
	);
	log(
		`${NAME}: ${lines
			.filter((line) => /^(PASS|\s+06-inbox:)/.test(line))
			.map((line) => line.trim())
			.join('; ')}`,
	);
}

module.exports = { name: NAME, run };
