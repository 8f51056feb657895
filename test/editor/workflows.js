'use strict';
/*
 * The workflows the editor test opens, imported with the n8n CLI before n8n starts. Each node is one form to look at:
 * its id is what the test opens (`/workflow/<workflow id>/<node id>`). Built from the sandbox, which holds the records
 * some of them point at.
 */
const { PACKAGE_NAME } = require('../lib/n8n-env');
const { DEV_CREDENTIALS } = require('../lib/dev-credentials');

const NODE = `${PACKAGE_NAME}.recordManagementService`;
const TOOL = `${NODE}Tool`;
const TRIGGER = `${PACKAGE_NAME}.recordManagementServiceTrigger`;
const credential = (server) => ({ recordManagementServiceApi: DEV_CREDENTIALS[server] });
const byId = (value) => ({ __rl: true, mode: 'id', value });

/** Every operation of the action node, as the form's Resource and Operation lists offer them. */
const OPERATIONS = [
	['record', 'create'],
	['record', 'upsert'],
	['record', 'delete'],
	['record', 'get'],
	['record', 'getMany'],
	['record', 'update'],
	['relationship', 'getManyRelated'],
	['relationship', 'link'],
	['relationship', 'unlink'],
	['bulk', 'massDelete'],
	['bulk', 'massUpdate'],
	['lead', 'convert'],
	['email', 'send'],
	['attachment', 'download'],
	['stream', 'follow'],
	['stream', 'getStream'],
	['stream', 'post'],
	['stream', 'unfollow'],
];

/** Lays nodes out in rows of six, as a person would leave them on the canvas. */
function placed(nodes) {
	return nodes.map((node, n) => ({ position: [(n % 6) * 240, Math.floor(n / 6) * 220], ...node }));
}

function workflow(id, name, nodes, connections = {}) {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: placed(nodes),
		connections,
	};
}

const main = (to) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });

function editorWorkflows(sandbox) {
	// a contact whose stream has no note yet (the sandbox's demo data posts on some records)
	const quiet = sandbox.store.create('Contact', {
		firstName: 'Quinn',
		lastName: 'Quiet',
		emailAddress: 'quinn.quiet@example.com',
	});
	const contactTypes = new Set(['record', 'relationship', 'stream']);
	const forms = OPERATIONS.map(([resource, operation]) => ({
		id: `form-${resource}-${operation}`,
		name: `${resource} ${operation}`,
		type: NODE,
		typeVersion: 1.2,
		parameters: {
			resource,
			operation,
			...(contactTypes.has(resource) ? { entityType: 'Contact' } : {}),
		},
		credentials: credential('espocrm'),
	}));
	return {
		empty: workflow('rmsEditorEmpty01', 'Editor test: a new workflow', []),
		forms: workflow(
			'rmsEditorForms01',
			'Editor test: every form',
			[
				{
					id: 'start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					parameters: {},
				},
				{
					id: 'list-contacts',
					name: 'List contacts',
					type: NODE,
					typeVersion: 1.2,
					parameters: { resource: 'record', operation: 'getMany', entityType: 'Contact', limit: 3 },
					credentials: credential('espocrm'),
				},
				...forms,
				{
					id: 'standard-getMany',
					name: 'Standard server: get many',
					type: NODE,
					typeVersion: 1.2,
					parameters: { resource: 'record', operation: 'getMany', entityType: 'Contact' },
					credentials: credential('standard'),
				},
				{
					id: 'mapper-create-lead',
					name: 'Create a lead (field mapper)',
					type: NODE,
					typeVersion: 1.2,
					parameters: {
						resource: 'record',
						operation: 'create',
						entityType: 'Lead',
						bodyMode: 'mapper',
					},
					credentials: credential('espocrm'),
				},
				{
					id: 'send-with-attachments',
					name: 'Send with attachments',
					type: NODE,
					typeVersion: 1.2,
					parameters: {
						resource: 'email',
						operation: 'send',
						emailOptions: { attachments: 'data' },
					},
					credentials: credential('espocrm'),
				},
			],
			{ Start: main('List contacts') },
		),
		tools: workflow(
			'rmsEditorTools01',
			'Editor test: tools of an AI agent',
			[
				{
					id: 'agent',
					name: 'CRM assistant',
					type: '@n8n/n8n-nodes-langchain.agent',
					typeVersion: 3.1,
					parameters: { promptType: 'define', text: 'Log the e-mail' },
				},
				{
					id: 'tool-new',
					name: 'Create lead',
					type: TOOL,
					typeVersion: 1.2,
					parameters: {
						resource: 'record',
						operation: 'create',
						entityType: 'Lead',
						fields: { lastName: "={{ $fromAI('lastName', 'Last name of the person', 'string') }}" },
					},
					credentials: credential('espocrm'),
				},
				{
					// as version 1.1 saved it: no Tool Description stored (its default, the generated one), Simplify off
					id: 'tool-saved',
					name: 'Find contact',
					type: TOOL,
					typeVersion: 1.1,
					parameters: {
						resource: 'record',
						operation: 'getMany',
						entityType: 'Contact',
						limit: 3,
						filterMode: 'conditions',
						conditions: {
							condition: [
								{
									attribute: 'emailAddress',
									operator: 'equals',
									value: "={{ $fromAI('email', 'The e-mail address', 'string') }}",
								},
							],
						},
					},
					credentials: credential('espocrm'),
				},
			],
			{
				'Create lead': { ai_tool: [[{ node: 'CRM assistant', type: 'ai_tool', index: 0 }]] },
				'Find contact': { ai_tool: [[{ node: 'CRM assistant', type: 'ai_tool', index: 0 }]] },
			},
		),
		triggers: workflow('rmsEditorTrigger', 'Editor test: triggers', [
			{
				id: 'trigger-created',
				name: 'New contact',
				type: TRIGGER,
				typeVersion: 1,
				parameters: { entityType: 'Contact', event: 'created' },
				credentials: credential('espocrm'),
			},
			{
				id: 'trigger-stream-standard',
				name: 'New note, Standard server',
				type: TRIGGER,
				typeVersion: 1,
				parameters: { event: 'streamNote', entityType: 'Contact', recordId: byId(quiet.id) },
				credentials: credential('standard'),
			},
			{
				id: 'trigger-stream-quiet',
				name: 'New note on a quiet record',
				type: TRIGGER,
				typeVersion: 1,
				parameters: { event: 'streamNote', entityType: 'Contact', recordId: byId(quiet.id) },
				credentials: credential('espocrm'),
			},
		]),
	};
}

module.exports = { editorWorkflows, OPERATIONS };
