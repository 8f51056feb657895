'use strict';
/*
 * The example workflows of examples/ as the end-to-end run executes them (issue 20: they must not rot).
 *
 * The committed files stay as users import them; the test-only changes are made here, on a copy:
 *   - every credential reference of our nodes ({"id": "", "name": "Record Management Service account"}) points at
 *     the sandbox credential that the example's check names (`module.exports.credential`, a key of
 *     test/e2e/credentials.js);
 *   - the polling trigger (Record Management Service Trigger), which `n8n execute` cannot start, becomes a Manual
 *     Trigger followed by our node's Record > Get Many under the trigger's name, asking for what the trigger's
 *     "Fetch Test Event" returns: the newest record (by createdAt, or modifiedAt for "created or updated"), with the
 *     trigger's filter and fields, limit 1 (nodes/RecordManagementServiceTrigger/poll.ts, manual mode). The nodes
 *     after it run unchanged, and `$('New contact')` still names the first node's item.
 * A workflow with a Manual Trigger beside another trigger (02: Schedule Trigger) needs nothing: `n8n execute`
 * starts from the Manual Trigger.
 *
 * Each example has its check beside this file: <example file name>.check.js, run as `example-<file name>`.
 *
 * As a user of `npm run dev` runs them: after the dev editor's own workflow (scripts/dev-workflow.json, run first as
 * `example-00-dev-workflow`), with the dev credentials ("Sandbox (API key)", "Sandbox as EspoCRM (API key)",
 * test/e2e/credentials.js: devStandard, devEspo), the one each example's sticky note names, against a sandbox of
 * their own started as `npm run dev` starts its sandbox, demo data included (test/e2e/run.js).
 */
const fs = require('fs');
const path = require('path');
const { CREDENTIALS } = require('../credentials');

const EXAMPLES_DIR = path.resolve(__dirname, '..', '..', '..', 'examples');
const DEV_WORKFLOW = path.resolve(__dirname, '..', '..', '..', 'scripts', 'dev-workflow.json');
const OUR_NODE = 'n8n-nodes-record-management-service.recordManagementService';
const POLLING_TRIGGER = 'n8n-nodes-record-management-service.recordManagementServiceTrigger';
const CREDENTIAL_TYPE = 'recordManagementServiceApi';

/** The polling trigger replaced by a Manual Trigger and a Get Many of what "Fetch Test Event" returns. */
function pollingTriggerAsManualStart(workflow) {
	const trigger = workflow.nodes.find((n) => n.type === POLLING_TRIGGER);
	if (!trigger) return workflow;
	const p = trigger.parameters || {};
	const start = {
		id: `${trigger.id}-start`,
		name: 'Start (test: instead of the polling trigger)',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [trigger.position[0] - 220, trigger.position[1]],
		parameters: {},
	};
	const select = [].concat(p.select || []);
	const fetchTestEvent = {
		id: trigger.id,
		name: trigger.name,
		type: OUR_NODE,
		typeVersion: 1,
		position: trigger.position,
		parameters: {
			resource: 'record',
			operation: 'getMany',
			entityType: p.entityType || 'Contact',
			...(p.customEntityType ? { customEntityType: p.customEntityType } : {}),
			returnAll: false,
			limit: 1,
			...(p.filterMode && p.filterMode !== 'none'
				? {
						filterMode: p.filterMode,
						matchType: p.matchType,
						conditions: p.conditions,
						whereJson: p.whereJson,
					}
				: {}),
			listOptions: {
				...(select.length ? { select } : {}),
				orderBy: p.event === 'createdOrUpdated' ? 'modifiedAt' : 'createdAt',
				order: 'desc',
			},
		},
		credentials: trigger.credentials,
	};
	return {
		...workflow,
		nodes: [start, fetchTestEvent, ...workflow.nodes.filter((n) => n !== trigger)],
		connections: {
			...workflow.connections,
			[start.name]: { main: [[{ node: trigger.name, type: 'main', index: 0 }]] },
		},
	};
}

/** Whether a workflow has n8n's AI Agent node. */
function isAgentWorkflow(workflow) {
	return (workflow.nodes || []).some((node) => node.type === '@n8n/n8n-nodes-langchain.agent');
}

/** Every reference to our credential points at `credential` ({id, name}). */
function withCredential(workflow, credential) {
	return {
		...workflow,
		nodes: workflow.nodes.map((n) =>
			n.credentials && n.credentials[CREDENTIAL_TYPE]
				? { ...n, credentials: { ...n.credentials, [CREDENTIAL_TYPE]: { ...credential } } }
				: n,
		),
	};
}

/** [{ name, json, checkFile }] for the runner's `extraWorkflows`: the dev workflow, then the examples in file-name order. */
function exampleWorkflows() {
	const devWorkflow = {
		name: 'example-00-dev-workflow',
		json: JSON.parse(fs.readFileSync(DEV_WORKFLOW, 'utf8')),
		checkFile: path.join(__dirname, '00-dev-workflow.check.js'),
	};
	return [devWorkflow, ...examples()];
}

function examples() {
	return (
		fs
			.readdirSync(EXAMPLES_DIR)
			.filter((f) => f.endsWith('.json'))
			.sort()
			// the AI-agent examples need a model: npm run test:agents runs them with its scripted one (test/agents/)
			.filter(
				(file) =>
					!isAgentWorkflow(JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'))),
			)
			.map((file) => {
				const base = file.slice(0, -5);
				const source = path.join(EXAMPLES_DIR, file);
				const checkFile = path.join(__dirname, `${base}.check.js`);
				if (!fs.existsSync(checkFile))
					throw new Error(`examples/${file} has no check: add test/e2e/examples/${base}.check.js`);
				const key = require(checkFile).credential;
				const credential = CREDENTIALS[key];
				if (!credential)
					throw new Error(
						`${checkFile}: module.exports.credential must name one of ${Object.keys(CREDENTIALS).join(', ')}`,
					);
				const original = JSON.parse(fs.readFileSync(source, 'utf8'));
				const json = withCredential(pollingTriggerAsManualStart(original), credential);
				return { name: `example-${base}`, json, checkFile };
			})
	);
}

module.exports = {
	exampleWorkflows,
	pollingTriggerAsManualStart,
	withCredential,
	isAgentWorkflow,
	EXAMPLES_DIR,
};
