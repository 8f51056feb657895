/**
 * The workflows of the compatibility fixture, as a user builds them in the editor: what was set in the form (values
 * that equal a default included, as a user may "set" them). `RMS_COMPAT_RECORD=<version> npx jest test/compat` turns
 * them into the workflows the editor of a release SAVES (only the parameters that differ from that release's
 * defaults, compat.ts `savedParameters`) and records the requests that release sends for each
 * (test/compat/<version>/; CONTRIBUTING.md, "The compatibility fixture").
 *
 * After the recording, this file is NOT what the test runs: compat.test.ts reads the stored JSON, so that a change
 * here cannot change what a released version's workflows are. Cover every resource/operation of the action node
 * and the parameters of both triggers; prefer workflows that leave most parameters at their defaults (a changed
 * default then changes the requests), plus some with options set (a renamed or reinterpreted option then does).
 */
import type { IDataObject } from 'n8n-workflow';

import type { Scheme } from '../harness/sandboxRun';

export type CompatNode = 'action' | 'pollingTrigger' | 'webhookTrigger';

export interface CompatCase {
	name: string;
	node: CompatNode;
	/** As set in the form. */
	parameters: IDataObject;
	/** Input items of the action node (`$binary` as in test/harness/engine.ts TestInput); one empty item if absent. */
	items?: IDataObject[];
	/** Records in the sandbox before the workflow runs: { Contact: [{ id, ... }] }; fixed IDs. `@ago:<seconds>` in a
	 * value becomes the server's form of that moment before now (record times the triggers compare). */
	seed?: Record<string, IDataObject[]>;
	/** Triggers: the changes after the activation (polling: after the first poll), in the same form as `seed`; an
	 * `@update` / `@delete` key changes a seeded record instead of creating one. */
	later?: Record<string, IDataObject[]>;
	/** Links between seeded records: [entityType, id, link, foreignId]. */
	links?: Array<[string, string, string, string]>;
	/** Attachment contents by seeded Attachment ID. */
	files?: Record<string, string>;
	/** EspoCRM stream notes before the workflow runs, oldest first (test/sandbox/stream.js `add`; their IDs are the
	 * sandbox's own and never sent). */
	notes?: IDataObject[];
	/** Action node: also compare the names of the fields of each output item (what Simplify and similar output
	 * parameters change, where the requests stay the same). Only where the sandbox's answer is stable. */
	compareOutputFields?: boolean;
	credential?: { scheme?: Scheme; server?: 'standard' | 'espocrm' };
	dialect?: 'both' | 'standard' | 'espocrm';
}

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

// Fixed IDs (17 hex digits, as the sandbox's own), told apart from the ones a run creates (compat.ts normalize()).
const ADA = 'c0a0000000000000a';
const GRACE = 'c0a0000000000000b';
const ALAN = 'c0a0000000000000c';
const ACME = 'acc000000000000a1';
const GLOBEX = 'acc000000000000a2';
const INITECH = 'acc000000000000a3';
const DEAL = '0bb000000000000d1';
const LEAD = '1ead0000000000001';
const FILE = 'a77000000000000f1';
const PROJECT = 'c9900000000000001';
const TASK = '7a5c0000000000001';
const FILE_UMLAUT = 'a77000000000000f2';
/** The API user of the sandbox's API-key credential (test/sandbox/users.js): follows the records assigned to it. */
const API_USER = '6700000000000a001';

const contacts = {
	Contact: [
		{ id: ADA, firstName: 'Ada', lastName: 'Lovelace', emailAddress: 'ada@example.com' },
		{ id: GRACE, firstName: 'Grace', lastName: 'Hopper', emailAddress: 'grace@example.com' },
		{ id: ALAN, firstName: 'Alan', lastName: 'Turing', emailAddress: 'alan@example.com' },
	],
};
const accounts = {
	Account: [
		{ id: ACME, name: 'Acme' },
		{ id: GLOBEX, name: 'Globex' },
		{ id: INITECH, name: 'Initech' },
	],
};

/** More accounts than one page holds (200): Return All reads a second page. */
const manyAccounts = {
	Account: Array.from({ length: 203 }, (_, i) => ({
		id: `acc00000000001${i.toString(16).padStart(3, '0')}`,
		name: `Company ${String(i).padStart(3, '0')}`,
	})),
};
const binaryFile = (text: string, fileName: string, mimeType = 'text/plain') => ({
	base64: Buffer.from(text, 'utf8').toString('base64'),
	fileName,
	mimeType,
});

export const CASES: CompatCase[] = [
	// ---------------------------------------------------------------------------------------------- record
	{
		name: 'record create: fields (resource, operation and entity type at their defaults)',
		node: 'action',
		parameters: {
			resource: 'record',
			operation: 'create',
			entityType: 'Contact',
			bodyMode: 'fields',
			fields: { firstName: 'Ada', lastName: 'Lovelace', emailAddress: 'ada@example.com' },
		},
		compareOutputFields: true,
	},
	{
		name: 'record create: fields from expressions, custom fields, skip duplicate check',
		node: 'action',
		parameters: {
			operation: 'create',
			entityType: 'Account',
			fields: { name: '={{ $json.company }}', description: 'From n8n' },
			customFields: { field: [{ name: 'website', value: '={{ $json.site }}' }] },
			createOptions: { skipDuplicateCheck: true },
		},
		items: [
			{ company: 'Acme', site: 'https://acme.example' },
			{ company: 'Globex', site: 'https://globex.example' },
		],
	},
	{
		name: 'record create: JSON body at its default',
		node: 'action',
		parameters: { operation: 'create', bodyMode: 'json' },
	},
	{
		name: 'record create: JSON body set',
		node: 'action',
		parameters: {
			operation: 'create',
			entityType: 'Opportunity',
			bodyMode: 'json',
			jsonBody: '={{ JSON.stringify({ name: $json.deal, amount: 1200, stage: "Prospecting" }) }}',
		},
		items: [{ deal: 'Big deal' }],
	},
	{
		name: 'record create: field mapper',
		node: 'action',
		parameters: {
			operation: 'create',
			entityType: 'Opportunity',
			bodyMode: 'mapper',
			columns: {
				mappingMode: 'defineBelow',
				value: {
					name: '={{ $json.deal }}',
					amount: '={{ $json.value }}',
					closeDate: '2026-12-31',
					stage: 'Qualification',
					accountId: ACME,
				},
				matchingColumns: [],
				schema: '@schema',
				attemptToConvertTypes: false,
				convertFieldsToString: false,
			},
		},
		items: [{ deal: 'Mapped deal', value: '1250.50' }],
		seed: accounts,
	},
	{
		name: 'record upsert: a match is updated',
		node: 'action',
		parameters: {
			operation: 'upsert',
			matchValue: '={{ $json.email }}',
			fields: { firstName: 'Ada', lastName: 'King', emailAddress: '={{ $json.email }}' },
		},
		items: [{ email: 'ada@example.com' }],
		seed: contacts,
	},
	{
		name: 'record upsert: no match is created; match field and options set',
		node: 'action',
		parameters: {
			operation: 'upsert',
			entityType: 'Account',
			matchField: 'name',
			matchValue: 'Umbrella',
			fields: { name: 'Umbrella' },
			upsertOptions: { onSeveralMatches: 'updateAll', skipDuplicateCheck: true },
		},
		seed: accounts,
	},
	{
		name: 'record get',
		node: 'action',
		parameters: { operation: 'get', recordId: byId(GRACE) },
		seed: contacts,
		compareOutputFields: true,
	},
	{
		name: 'record get: request settings set',
		node: 'action',
		parameters: {
			operation: 'get',
			recordId: byId('={{ $json.id }}'),
			requestSettings: {
				maxParallel: 1,
				maxRetries: 0,
				maxRetryWaitSeconds: 5,
				timeoutSeconds: 10,
			},
		},
		items: [{ id: ADA }, { id: ALAN }],
		seed: contacts,
	},
	{
		name: 'record get many: every option at its default',
		node: 'action',
		parameters: { operation: 'getMany' },
		seed: contacts,
		compareOutputFields: true,
	},
	{
		name: 'record get many: return all, conditions, select and order',
		node: 'action',
		parameters: {
			operation: 'getMany',
			entityType: 'Account',
			returnAll: true,
			filterMode: 'conditions',
			matchType: 'or',
			conditions: {
				condition: [
					{ attribute: 'name', operator: 'startsWith', value: 'Ac' },
					{ attribute: 'name', operator: 'in', values: 'Globex, Initech' },
					{ attribute: 'createdAt', operator: 'lastXDays', days: 30 },
				],
			},
			listOptions: { select: ['name', 'description'], orderBy: 'name', order: 'asc' },
		},
		seed: accounts,
	},
	{
		name: 'record get many: where JSON at its default, limit set',
		node: 'action',
		parameters: { operation: 'getMany', entityType: 'Lead', filterMode: 'json', limit: 2 },
		seed: { Lead: [{ id: LEAD, firstName: 'Lea', lastName: 'Lead', status: 'New' }] },
	},
	{
		name: 'record get many: a custom entity type',
		node: 'action',
		parameters: {
			operation: 'getMany',
			entityType: 'custom',
			customEntityType: 'CProject',
			limit: 10,
			filterMode: 'conditions',
			conditions: { condition: [{ attribute: 'name', value: 'Apollo' }] },
		},
		seed: { CProject: [{ id: PROJECT, name: 'Apollo' }] },
	},
	{
		name: 'record update: fields',
		node: 'action',
		parameters: {
			operation: 'update',
			recordId: byId(ADA),
			fields: { description: 'Updated by n8n', phoneNumber: '+44 20 7946 0000' },
		},
		seed: contacts,
		compareOutputFields: true,
	},
	{
		name: 'record update: JSON body and record ID from expressions',
		node: 'action',
		parameters: {
			operation: 'update',
			entityType: 'Account',
			recordId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			bodyMode: 'json',
			jsonBody: '={{ JSON.stringify({ description: "Item " + $itemIndex }) }}',
		},
		items: [{ id: ACME }, { id: GLOBEX }],
		seed: accounts,
	},
	{
		name: 'record delete',
		node: 'action',
		parameters: { operation: 'delete', recordId: byId(ALAN) },
		seed: contacts,
	},
	{
		name: 'record get: simplified, output fields compared',
		node: 'action',
		parameters: { operation: 'get', recordId: byId(ADA), simplify: true },
		seed: contacts,
		compareOutputFields: true,
	},
	{
		name: 'record get many: simplified, limit set',
		node: 'action',
		parameters: { operation: 'getMany', limit: 2, simplify: true },
		seed: contacts,
		compareOutputFields: true,
	},
	{
		name: 'record create: simplified',
		node: 'action',
		parameters: {
			operation: 'create',
			fields: { firstName: 'Ada', lastName: 'Lovelace' },
			simplify: true,
		},
		compareOutputFields: true,
	},
	{
		name: 'record update: simplified',
		node: 'action',
		parameters: {
			operation: 'update',
			recordId: byId(GRACE),
			fields: { description: 'Compact' },
			simplify: true,
		},
		seed: contacts,
		compareOutputFields: true,
	},
	{
		name: 'record get many: search text, EspoCRM filter and check-box filters (EspoCRM)',
		node: 'action',
		parameters: {
			operation: 'getMany',
			entityType: 'Opportunity',
			searchText: 'deal',
			primaryFilter: 'open',
			boolFilterList: ['onlyMy', 'followed'],
		},
		seed: {
			Opportunity: [
				{ id: DEAL, name: 'Deal', stage: 'Prospecting', amount: 10, assignedUserId: API_USER },
			],
		},
		credential: { server: 'espocrm' },
	},
	{
		name: 'record get many: return all from EspoCRM without a sort, paged by ID (EspoCRM)',
		node: 'action',
		parameters: { operation: 'getMany', entityType: 'Account', returnAll: true },
		seed: manyAccounts,
		credential: { server: 'espocrm' },
	},
	{
		name: 'record get many: return all from EspoCRM sorted, paged by offset (EspoCRM)',
		node: 'action',
		parameters: {
			operation: 'getMany',
			entityType: 'Account',
			returnAll: true,
			listOptions: { orderBy: 'name', order: 'desc' },
		},
		seed: manyAccounts,
		credential: { server: 'espocrm' },
	},
	{
		name: 'record upsert: several items share a match value (options at their defaults)',
		node: 'action',
		parameters: {
			operation: 'upsert',
			matchValue: '={{ $json.email }}',
			fields: { lastName: '={{ $json.name }}', emailAddress: '={{ $json.email }}' },
		},
		items: [
			{ email: 'ada@example.com', name: 'King' },
			{ email: 'new@example.com', name: 'Newcomer' },
			{ email: 'ada@example.com', name: 'Lovelace' },
			{ email: 'new@example.com', name: 'Later' },
		],
		seed: contacts,
	},
	{
		name: 'record upsert: match values per look-up set',
		node: 'action',
		parameters: {
			operation: 'upsert',
			matchValue: '={{ $json.email }}',
			fields: { lastName: '={{ $json.name }}' },
			upsertOptions: { valuesPerLookup: 2 },
		},
		items: [
			{ email: 'ada@example.com', name: 'King' },
			{ email: 'grace@example.com', name: 'Hopper' },
			{ email: 'alan@example.com', name: 'Turing' },
		],
		seed: contacts,
	},
	// ---------------------------------------------------------------------------------------------- relationship
	{
		name: 'relationship get many related: operation and link at their defaults',
		node: 'action',
		parameters: { resource: 'relationship', entityType: 'Account', recordId: byId(ACME) },
		seed: {
			...accounts,
			Opportunity: [{ id: DEAL, name: 'Deal', accountId: ACME, stage: 'Prospecting', amount: 10 }],
		},
		compareOutputFields: true,
	},
	{
		name: 'relationship get many related: contacts, return all, conditions',
		node: 'action',
		parameters: {
			resource: 'relationship',
			operation: 'getManyRelated',
			entityType: 'Account',
			recordId: byId(ACME),
			link: 'contacts',
			returnAll: true,
			filterMode: 'conditions',
			conditions: {
				condition: [{ attribute: 'lastName', operator: 'notEquals', value: 'Turing' }],
			},
			listOptions: { select: ['firstName', 'lastName'] },
		},
		seed: { ...accounts, ...contacts },
		links: [
			['Account', ACME, 'contacts', ADA],
			['Account', ACME, 'contacts', ALAN],
		],
	},
	{
		name: 'relationship link',
		node: 'action',
		parameters: {
			resource: 'relationship',
			operation: 'link',
			entityType: 'Account',
			recordId: byId(GLOBEX),
			link: 'contacts',
			relatedIds: `${ADA}, ${GRACE}`,
		},
		seed: { ...accounts, ...contacts },
	},
	{
		name: 'relationship unlink, custom link',
		node: 'action',
		parameters: {
			resource: 'relationship',
			operation: 'unlink',
			entityType: 'Account',
			recordId: byId(ACME),
			link: 'custom',
			customLink: 'contacts',
			relatedId: ADA,
		},
		seed: { ...accounts, ...contacts },
		links: [['Account', ACME, 'contacts', ADA]],
	},
	{
		name: 'relationship get many related: simplified, search text and EspoCRM filter (EspoCRM)',
		node: 'action',
		parameters: {
			resource: 'relationship',
			entityType: 'Account',
			recordId: byId(ACME),
			link: 'opportunities',
			searchText: 'deal',
			primaryFilter: 'open',
			boolFilterList: ['onlyMy'],
			simplify: true,
		},
		seed: {
			...accounts,
			Opportunity: [
				{
					id: DEAL,
					name: 'Deal',
					accountId: ACME,
					stage: 'Prospecting',
					amount: 10,
					assignedUserId: API_USER,
				},
			],
		},
		credential: { server: 'espocrm' },
		compareOutputFields: true,
	},
	{
		name: 'relationship unlink: several IDs',
		node: 'action',
		parameters: {
			resource: 'relationship',
			operation: 'unlink',
			entityType: 'Account',
			recordId: byId(ACME),
			link: 'contacts',
			relatedId: `${ADA}, ${GRACE}`,
		},
		seed: { ...accounts, ...contacts },
		links: [
			['Account', ACME, 'contacts', ADA],
			['Account', ACME, 'contacts', GRACE],
		],
	},
	// ---------------------------------------------------------------------------------------------- bulk
	{
		name: 'bulk mass update: operation, ID source and chunk size at their defaults',
		node: 'action',
		parameters: { resource: 'bulk', entityType: 'Account', fields: { description: 'Bulk' } },
		items: [{ id: ACME }, { id: GLOBEX }],
		seed: accounts,
	},
	{
		name: 'bulk mass update: IDs from an expression at its default, JSON body',
		node: 'action',
		parameters: {
			resource: 'bulk',
			operation: 'massUpdate',
			entityType: 'Account',
			idSource: 'expression',
			bodyMode: 'json',
			jsonBody: '{ "description": "Bulk JSON" }',
		},
		items: [{ id: ACME }, { id: INITECH }],
		seed: accounts,
	},
	{
		name: 'bulk mass update: IDs from another field, chunks of 2',
		node: 'action',
		parameters: {
			resource: 'bulk',
			operation: 'massUpdate',
			idField: 'recordId',
			chunkSize: 2,
			fields: { description: 'Chunked' },
		},
		items: [{ recordId: ADA }, { recordId: GRACE }, { recordId: ALAN }],
		seed: contacts,
	},
	{
		name: 'bulk mass delete',
		node: 'action',
		parameters: { resource: 'bulk', operation: 'massDelete', entityType: 'Account' },
		items: [{ id: ACME }, { id: GLOBEX }],
		seed: accounts,
	},
	{
		name: 'bulk mass delete: IDs from an expression',
		node: 'action',
		parameters: {
			resource: 'bulk',
			operation: 'massDelete',
			idSource: 'expression',
			ids: '={{ $json.contact }}',
		},
		items: [{ contact: ADA }, { contact: GRACE }],
		seed: contacts,
	},
	// ---------------------------------------------------------------------------------------------- lead
	{
		name: 'lead convert: to a contact and an account',
		node: 'action',
		parameters: {
			resource: 'lead',
			leadId: byId(LEAD),
			records: {
				Contact: { firstName: 'Lea', lastName: 'Lead' },
				Account: { name: 'Lead Co', moreFields: '{ "website": "https://lead.example" }' },
			},
		},
		seed: {
			Lead: [
				{ id: LEAD, firstName: 'Lea', lastName: 'Lead', accountName: 'Lead Co', status: 'New' },
			],
		},
	},
	{
		name: 'lead convert: opportunity, if converted: skip',
		node: 'action',
		parameters: {
			resource: 'lead',
			operation: 'convert',
			leadId: byId(LEAD),
			records: { Opportunity: { name: 'Lead deal', amount: 500 } },
			ifConverted: 'skip',
		},
		seed: { Lead: [{ id: LEAD, firstName: 'Lea', lastName: 'Lead', status: 'New' }] },
	},
	// ---------------------------------------------------------------------------------------------- email
	{
		name: 'email send: plain text, options at their defaults',
		node: 'action',
		parameters: {
			resource: 'email',
			to: 'ada@example.com',
			subject: 'Hello',
			body: 'Hi Ada',
			from: 'crm@example.com',
		},
	},
	{
		name: 'email send: HTML, cc, bcc, parent, attachments (EspoCRM)',
		node: 'action',
		parameters: {
			resource: 'email',
			operation: 'send',
			to: '={{ $json.email }}',
			subject: 'Your documents',
			body: '<p>Attached.</p>',
			isHtml: true,
			from: 'crm@example.com',
			emailOptions: {
				attachments: 'invoice',
				cc: 'cc@example.com',
				bcc: 'bcc@example.com',
				parentType: 'Contact',
				parentId: GRACE,
			},
		},
		items: [
			{
				email: 'grace@example.com',
				$binary: {
					invoice: {
						base64: Buffer.from('invoice 42\n').toString('base64'),
						fileName: 'invoice.txt',
						mimeType: 'text/plain',
					},
				},
			},
		],
		seed: contacts,
		credential: { server: 'espocrm' },
	},
	// ---------------------------------------------------------------------------------------------- attachment
	{
		name: 'attachment download (EspoCRM)',
		node: 'action',
		parameters: { resource: 'attachment', attachmentId: FILE },
		seed: {
			Attachment: [{ id: FILE, name: 'note.txt', type: 'text/plain', size: 6, role: 'Attachment' }],
		},
		files: { [FILE]: 'notes\n' },
		credential: { server: 'espocrm' },
	},
	{
		name: 'attachment download: binary field set (EspoCRM)',
		node: 'action',
		parameters: {
			resource: 'attachment',
			operation: 'download',
			attachmentId: '={{ $json.file }}',
			binaryPropertyName: 'file',
		},
		items: [{ file: FILE }],
		seed: {
			Attachment: [{ id: FILE, name: 'note.txt', type: 'text/plain', size: 6, role: 'Attachment' }],
		},
		files: { [FILE]: 'notes\n' },
		credential: { server: 'espocrm' },
	},
	{
		name: 'attachment download: a non-ASCII file name (EspoCRM)',
		node: 'action',
		parameters: { resource: 'attachment', attachmentId: FILE_UMLAUT },
		seed: {
			Attachment: [
				{
					id: FILE_UMLAUT,
					name: 'Grüße-Überblick 日本語 ✓.txt',
					type: 'text/plain',
					size: 6,
					role: 'Attachment',
				},
			],
		},
		files: { [FILE_UMLAUT]: 'Grüße\n' },
		credential: { server: 'espocrm' },
	},
	// ---------------------------------------------------------------------------------------------- stream
	{
		name: 'stream post: text, operation at its default (EspoCRM)',
		node: 'action',
		parameters: {
			resource: 'stream',
			entityType: 'Contact',
			recordId: byId(ADA),
			post: 'Called her: **follow up** next week',
		},
		seed: contacts,
		credential: { server: 'espocrm' },
	},
	{
		name: 'stream post: files from binary data, internal (EspoCRM)',
		node: 'action',
		parameters: {
			resource: 'stream',
			operation: 'post',
			entityType: 'custom',
			customEntityType: 'Task',
			recordId: byId('={{ $json.taskId }}'),
			post: '={{ "Receipt for " + $json.taskId }}',
			postOptions: { attachments: 'receipt, scan', isInternal: true },
		},
		items: [
			{
				taskId: TASK,
				$binary: {
					receipt: binaryFile('Receipt №123 — paid\n', 'Quittung-Müller.txt'),
					scan: binaryFile('%PDF-1.4 scan\n', 'scan.pdf', 'application/pdf'),
				},
			},
		],
		seed: { Task: [{ id: TASK, name: 'Pay the printer repair', status: 'Not Started' }] },
		credential: { server: 'espocrm' },
	},
	{
		name: "stream get many: a record's stream, every option at its default (EspoCRM)",
		node: 'action',
		parameters: {
			resource: 'stream',
			operation: 'getStream',
			entityType: 'Contact',
			recordId: byId(ADA),
		},
		seed: contacts,
		notes: [
			{ type: 'Create', parentType: 'Contact', parentId: ADA },
			{ type: 'Post', parentType: 'Contact', parentId: ADA, post: 'First call' },
			{ type: 'Update', parentType: 'Contact', parentId: ADA },
		],
		credential: { server: 'espocrm' },
	},
	{
		name: "stream get many: a record's stream, return all, note types (EspoCRM)",
		node: 'action',
		parameters: {
			resource: 'stream',
			operation: 'getStream',
			streamOf: 'record',
			entityType: 'Contact',
			recordId: byId(ADA),
			returnAll: true,
			streamOptions: { noteTypes: ['Post', 'Status'] },
		},
		seed: contacts,
		notes: [
			{ type: 'Create', parentType: 'Contact', parentId: ADA },
			{ type: 'Post', parentType: 'Contact', parentId: ADA, post: 'First call' },
			{ type: 'Status', parentType: 'Contact', parentId: ADA, data: { value: 'Assigned' } },
			{ type: 'Post', parentType: 'Contact', parentId: GRACE, post: 'Not hers' },
		],
		credential: { server: 'espocrm' },
	},
	{
		name: "stream get many: the API user's own stream, limit set (EspoCRM)",
		node: 'action',
		parameters: { resource: 'stream', operation: 'getStream', streamOf: 'user', limit: 2 },
		seed: {
			Contact: [
				{ id: ADA, firstName: 'Ada', lastName: 'Lovelace', assignedUserId: API_USER },
				{ id: GRACE, firstName: 'Grace', lastName: 'Hopper' },
			],
		},
		notes: [
			{ type: 'Post', parentType: 'Contact', parentId: ADA, post: 'Followed 1' },
			{ type: 'Post', parentType: 'Contact', parentId: GRACE, post: 'Not followed' },
			{ type: 'Post', parentType: 'Contact', parentId: ADA, post: 'Followed 2' },
			{ type: 'Post', parentType: 'Contact', parentId: ADA, post: 'Followed 3' },
		],
		credential: { server: 'espocrm' },
	},
	{
		name: 'stream follow (EspoCRM)',
		node: 'action',
		parameters: {
			resource: 'stream',
			operation: 'follow',
			entityType: 'Contact',
			recordId: byId(GRACE),
		},
		seed: contacts,
		credential: { server: 'espocrm' },
	},
	{
		name: 'stream unfollow (EspoCRM)',
		node: 'action',
		parameters: {
			resource: 'stream',
			operation: 'unfollow',
			entityType: 'Contact',
			recordId: byId('={{ $json.id }}'),
		},
		items: [{ id: ADA }, { id: GRACE }],
		seed: {
			Contact: [
				{ id: ADA, firstName: 'Ada', lastName: 'Lovelace', assignedUserId: API_USER },
				{ id: GRACE, firstName: 'Grace', lastName: 'Hopper' },
			],
		},
		credential: { server: 'espocrm' },
	},
	// ---------------------------------------------------------------------------------------------- triggers
	{
		name: 'polling trigger: every parameter at its default',
		node: 'pollingTrigger',
		parameters: { entityType: 'Contact', event: 'created' },
		seed: {
			Contact: [
				{
					id: ADA,
					firstName: 'Ada',
					lastName: 'Lovelace',
					createdAt: '@ago:7200',
					modifiedAt: '@ago:7200',
				},
			],
		},
		later: {
			Contact: [
				{
					id: GRACE,
					firstName: 'Grace',
					lastName: 'Hopper',
					createdAt: '@ago:60',
					modifiedAt: '@ago:60',
				},
			],
		},
	},
	{
		name: 'polling trigger: created or updated, conditions, select',
		node: 'pollingTrigger',
		parameters: {
			entityType: 'Account',
			event: 'createdOrUpdated',
			filterMode: 'conditions',
			matchType: 'or',
			conditions: { condition: [{ attribute: 'name', operator: 'startsWith', value: 'A' }] },
			select: ['name', 'description'],
		},
		seed: {
			Account: [{ id: ACME, name: 'Acme', createdAt: '@ago:7200', modifiedAt: '@ago:7200' }],
		},
		later: {
			'@update': [
				{ entityType: 'Account', id: ACME, description: 'changed', modifiedAt: '@ago:30' },
			],
		},
	},
	{
		name: 'polling trigger: where JSON at its default, an entity type typed in (custom)',
		node: 'pollingTrigger',
		parameters: { entityType: 'custom', customEntityType: 'Lead', filterMode: 'json' },
		seed: {
			Lead: [
				{
					id: LEAD,
					lastName: 'Lead',
					status: 'New',
					createdAt: '@ago:7200',
					modifiedAt: '@ago:7200',
				},
			],
		},
		later: {
			Lead: [
				{
					id: '1ead0000000000002',
					lastName: 'Later',
					status: 'New',
					createdAt: '@ago:60',
					modifiedAt: '@ago:60',
				},
			],
		},
	},
	{
		name: 'polling trigger: search text, EspoCRM filter and check-box filters (EspoCRM)',
		node: 'pollingTrigger',
		parameters: {
			entityType: 'Lead',
			event: 'created',
			searchText: 'le',
			primaryFilter: 'actual',
			boolFilterList: ['onlyMy'],
		},
		seed: {
			Lead: [
				{
					id: LEAD,
					lastName: 'Lead',
					status: 'New',
					assignedUserId: API_USER,
					createdAt: '@ago:7200',
					modifiedAt: '@ago:7200',
				},
			],
		},
		later: {
			Lead: [
				{
					id: '1ead0000000000002',
					lastName: 'Leader',
					status: 'Assigned',
					assignedUserId: API_USER,
					createdAt: '@ago:60',
					modifiedAt: '@ago:60',
				},
			],
		},
		credential: { server: 'espocrm' },
	},
	{
		name: "polling trigger: new stream note of a record's stream, every option at its default (EspoCRM)",
		node: 'pollingTrigger',
		parameters: { event: 'streamNote', entityType: 'Contact', recordId: byId(ADA) },
		seed: contacts,
		notes: [
			{
				type: 'Post',
				parentType: 'Contact',
				parentId: ADA,
				post: 'First call',
				createdAt: '@ago:7200',
			},
		],
		credential: { server: 'espocrm' },
	},
	{
		name: "polling trigger: new stream note of the API user's stream, every note type (EspoCRM)",
		node: 'pollingTrigger',
		parameters: { event: 'streamNote', streamOf: 'user', noteTypes: [] },
		seed: contacts,
		notes: [
			{
				type: 'Post',
				parentType: 'Contact',
				parentId: ADA,
				post: 'First call',
				createdAt: '@ago:7200',
			},
		],
		credential: { server: 'espocrm' },
	},
	{
		name: 'webhook trigger: every parameter at its default (EspoCRM)',
		node: 'webhookTrigger',
		parameters: { entityType: 'Contact', events: ['create'] },
		later: { Contact: [{ id: GRACE, firstName: 'Grace', lastName: 'Hopper' }] },
		credential: { server: 'espocrm' },
		dialect: 'espocrm',
	},
	{
		name: 'webhook trigger: update and delete, full record at its default (EspoCRM)',
		node: 'webhookTrigger',
		parameters: { entityType: 'Account', events: ['update', 'delete'] },
		seed: accounts,
		later: {
			'@update': [{ entityType: 'Account', id: ACME, description: 'changed' }],
			'@delete': [{ entityType: 'Account', id: GLOBEX }],
		},
		credential: { server: 'espocrm' },
		dialect: 'espocrm',
	},
	{
		name: 'webhook trigger: field update without the full record (EspoCRM)',
		node: 'webhookTrigger',
		parameters: {
			entityType: 'Contact',
			events: ['fieldUpdate'],
			field: 'emailAddress',
			includeFullRecord: false,
		},
		seed: contacts,
		later: {
			'@update': [{ entityType: 'Contact', id: ADA, emailAddress: 'ada.king@example.com' }],
		},
		credential: { server: 'espocrm' },
		dialect: 'espocrm',
	},
];
