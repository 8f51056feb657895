'use strict';
/*
 * The AI-agent examples of examples/ (those with n8n's AI Agent node) as npm run test:agents executes them; npm run
 * test:e2e leaves them out (test/e2e/examples/index.js), having no model to give them.
 *
 * The committed files stay as users import them; on a copy, every credential of our nodes points at the sandbox
 * credential the check names (`module.exports.credential`, a key of test/e2e/credentials.js) and every OpenAI
 * credential at the scripted model's. Each example has its check here: examples/<example file name>.check.js, run as
 * `example-<file name>`.
 */
const fs = require('fs');
const path = require('path');
const { CREDENTIALS } = require('../e2e/credentials');
const { withCredential, isAgentWorkflow, EXAMPLES_DIR } = require('../e2e/examples');

const MODEL_CREDENTIAL = {
	id: 'rmsAgentsModel01',
	name: 'Scripted model (OpenAI-compatible, 127.0.0.1)',
};

/** Every OpenAI credential reference points at the scripted model's credential. */
function withScriptedModel(workflow) {
	return {
		...workflow,
		nodes: workflow.nodes.map((n) =>
			n.credentials && n.credentials.openAiApi
				? { ...n, credentials: { ...n.credentials, openAiApi: { ...MODEL_CREDENTIAL } } }
				: n,
		),
	};
}

/** [{ name, json, checkFile }] for the runner's `extraWorkflows`, in file-name order. */
function agentExampleWorkflows() {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => ({
			file,
			json: JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')),
		}))
		.filter(({ json }) => isAgentWorkflow(json))
		.map(({ file, json }) => {
			const base = file.slice(0, -5);
			const checkFile = path.join(__dirname, 'examples', `${base}.check.js`);
			if (!fs.existsSync(checkFile))
				throw new Error(`examples/${file} has no check: add test/agents/examples/${base}.check.js`);
			const credential = CREDENTIALS[require(checkFile).credential];
			if (!credential)
				throw new Error(
					`${checkFile}: module.exports.credential must name one of ${Object.keys(CREDENTIALS).join(', ')}`,
				);
			return {
				name: `example-${base}`,
				json: withScriptedModel(withCredential(json, credential)),
				checkFile,
			};
		});
}

module.exports = { agentExampleWorkflows, MODEL_CREDENTIAL };
