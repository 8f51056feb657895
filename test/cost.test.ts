/**
 * Per-item cost, measured through n8n's engine: how often each expression is evaluated per item (n8n's
 * RoutingNode resolves every declared parameter of a routed operation twice before sending), how many requests a
 * list takes, and how many are in flight. Timings are the benchmark's business (npm run bench), not the tests'.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { RecordManagementService } from '../nodes/RecordManagementService/RecordManagementService.node';
import { NODE_TYPE, TOOL_NODE_TYPE, countEvaluations, countParameterReads } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';

const bed = useSandbox();

const ITEMS = 4;
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

describe('every parameter is declared once', () => {
	test('no two declarations share a name, but the alternatives of node versions (the resource and operation selectors aside, which hold no expression)', () => {
		const { properties } = new RecordManagementService().description;
		const names = properties
			.filter((property: INodeProperties) => !property.noDataExpression)
			.map((property) => property.name);
		const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
		// Light versioning (CONTRIBUTING.md) declares a parameter once per version whose default or form differs: the tool's
		// description (versions 1 and 1.1; from 1.2 generated or written) and Simplify (on by default for a tool from 1.2).
		expect(repeated.sort()).toEqual(['simplify', 'toolDescription']);
		// Alternatives, never two at once: for every version, as a node or as a tool, n8n shows at most one of them.
		const operation = { resource: 'record', operation: 'get' };
		for (const name of repeated)
			for (const typeVersion of [1, 1.1, 1.2])
				for (const type of [NODE_TYPE, TOOL_NODE_TYPE])
					for (const toolDescriptionType of ['auto', 'manual']) {
						const shown = properties.filter(
							(property) =>
								property.name === name &&
								NodeHelpers.displayParameter(
									{ ...operation, toolDescriptionType },
									property,
									{ typeVersion },
									{ ...new RecordManagementService().description, name: type },
								),
						);
						expect({ name, typeVersion, type, toolDescriptionType, shown: shown.length }).toEqual({
							name,
							typeVersion,
							type,
							toolDescriptionType,
							shown: type === NODE_TYPE && name === 'toolDescription' ? 0 : 1,
						});
					}
		expect(
			properties
				.filter((property) => property.name === 'operation')
				.every((property) => property.noDataExpression),
		).toBe(true);
	});
});

// An expression that reads one field of the item as it is (`{{ $json.first }}`) is not evaluated at all by a custom
// operation (shared/item/item.ts, and the next describe); these tests count what n8n's engine evaluates, so their expressions
// are written `{{ ($json.first) }}`, which gives the same value through the engine.
describe('expression evaluations per item and field: at most 3 for any operation', () => {
	/** Runs the node over ITEMS items and returns, per expression of the parameters, its evaluations per item. */
	async function perItem(
		parameters: IDataObject,
		items: IDataObject[],
		settings: IDataObject = {},
	) {
		const { result, evaluations } = await countEvaluations(
			async () => await bed.run(parameters, items, settings),
		);
		expect(result.error).toBeUndefined();
		for (const item of result.items) expect(item.error).toBeUndefined();
		const own = JSON.stringify(parameters);
		return Object.fromEntries(
			[...evaluations.entries()]
				.filter(([expression]) => own.includes(JSON.stringify(expression).slice(1, -1)))
				.map(([expression, count]) => [expression, count / items.length]),
		);
	}

	function contacts(count = ITEMS) {
		return Array.from({ length: count }, (_, n) =>
			bed.sandbox.store.create('Contact', {
				firstName: `F${n}`,
				lastName: `L${n}`,
				emailAddress: `c${n}@example.com`,
			}),
		);
	}

	const fieldsFromItem = { firstName: '={{ ($json.first) }}', lastName: '={{ ($json.last) }}' };
	const newPeople = Array.from({ length: ITEMS }, (_, n) => ({
		first: `A${n}`,
		last: `B${n}`,
		email: `n${n}@example.com`,
	}));

	test('Create: each field once', async () => {
		const counts = await perItem(
			{ resource: 'record', operation: 'create', entityType: 'Contact', fields: fieldsFromItem },
			newPeople,
		);
		expect(counts).toEqual({ '={{ ($json.first) }}': 1, '={{ ($json.last) }}': 1 });
		expect(bed.received('POST')).toHaveLength(ITEMS);
	});

	test('Update: the record and each field once', async () => {
		const records = contacts();
		const counts = await perItem(
			{
				resource: 'record',
				operation: 'update',
				entityType: 'Contact',
				recordId: byId('={{ ($json.id) }}'),
				fields: { description: '={{ ($json.note) }}' },
			},
			records.map((record) => ({ id: record.id, note: 'Met at the fair' })),
		);
		expect(counts).toEqual({ '={{ ($json.id) }}': 1, '={{ ($json.note) }}': 1 });
	});

	test('Create or Update: match value and fields once', async () => {
		const counts = await perItem(
			{
				resource: 'record',
				operation: 'upsert',
				entityType: 'Contact',
				matchField: 'emailAddress',
				matchValue: '={{ ($json.email) }}',
				fields: fieldsFromItem,
			},
			newPeople,
		);
		expect(counts).toEqual({
			'={{ ($json.email) }}': 1,
			'={{ ($json.first) }}': 1,
			'={{ ($json.last) }}': 1,
		});
	});

	test.each(['get', 'delete'])(
		'%s (routed): the record ID three times, the most n8n allows',
		async (operation) => {
			const records = contacts();
			const counts = await perItem(
				{
					resource: 'record',
					operation,
					entityType: 'Contact',
					recordId: byId('={{ ($json.id) }}'),
				},
				records.map(({ id }) => ({ id })),
			);
			expect(counts).toEqual({ '={{ ($json.id) }}': 3 });
		},
	);

	test('Get Many: a condition value once', async () => {
		contacts();
		const counts = await perItem(
			{
				resource: 'record',
				operation: 'getMany',
				entityType: 'Contact',
				limit: 1,
				filterMode: 'conditions',
				conditions: {
					condition: [{ attribute: 'lastName', operator: 'equals', value: '={{ ($json.last) }}' }],
				},
			},
			[{ last: 'L0' }, { last: 'L1' }],
		);
		expect(counts).toEqual({ '={{ ($json.last) }}': 1 });
	});

	test('Get Many Related, Link, Unlink: the record ID once', async () => {
		const account = bed.sandbox.store.create('Account', { name: 'Acme' });
		const records = contacts();
		const items = records.map((record) => ({ account: account.id, contact: record.id }));
		const target = {
			entityType: 'Account',
			recordId: byId('={{ ($json.account) }}'),
			link: 'contacts',
		};
		expect(
			await perItem(
				{
					resource: 'relationship',
					operation: 'link',
					...target,
					relatedIds: '={{ ($json.contact) }}',
				},
				items,
			),
		).toEqual({
			'={{ ($json.account) }}': 1,
			'={{ ($json.contact) }}': 1,
		});
		expect(
			await perItem(
				{ resource: 'relationship', operation: 'getManyRelated', ...target, returnAll: true },
				items.slice(0, 2),
			),
		).toEqual({
			'={{ ($json.account) }}': 1,
		});
		expect(
			await perItem(
				{
					resource: 'relationship',
					operation: 'unlink',
					...target,
					relatedId: '={{ ($json.contact) }}',
				},
				items,
			),
		).toEqual({
			'={{ ($json.account) }}': 1,
			'={{ ($json.contact) }}': 1,
		});
	});

	test('Mass Update: no expression per item with IDs from a field; one with IDs from an expression', async () => {
		const records = contacts();
		const fromField = await perItem(
			{
				resource: 'bulk',
				operation: 'massUpdate',
				entityType: 'Contact',
				idSource: 'field',
				idField: 'id',
				fields: { description: '={{ "VIP" }}' },
			},
			records.map(({ id }) => ({ id })),
		);
		// The fields to set are read once, as the first item gives them.
		expect(fromField).toEqual({ '={{ "VIP" }}': 1 / ITEMS });
		const fromExpression = await perItem(
			{
				resource: 'bulk',
				operation: 'massDelete',
				entityType: 'Contact',
				idSource: 'expression',
				ids: '={{ ($json.id) }}',
			},
			records.map(({ id }) => ({ id })),
		);
		expect(fromExpression).toEqual({ '={{ ($json.id) }}': 1 });
	});

	test('Lead Convert and Email Send: each parameter once', async () => {
		const leads = Array.from({ length: ITEMS }, (_, n) =>
			bed.sandbox.store.create('Lead', { firstName: 'L', lastName: `N${n}` }),
		);
		expect(
			await perItem(
				{
					resource: 'lead',
					operation: 'convert',
					leadId: byId('={{ ($json.id) }}'),
					records: { Contact: { lastName: '={{ ($json.last) }}' } },
				},
				leads.map((lead, n) => ({ id: lead.id, last: `Converted${n}` })),
			),
		).toEqual({ '={{ ($json.id) }}': 1, '={{ ($json.last) }}': 1 });
		expect(
			await perItem(
				{
					resource: 'email',
					operation: 'send',
					to: '={{ ($json.email) }}',
					subject: '={{ "Hello " + $json.first }}',
					body: 'Hi',
				},
				newPeople,
			),
		).toEqual({ '={{ ($json.email) }}': 1, '={{ "Hello " + $json.first }}': 1 });
	});
});

describe('fields read as they are from the item: no evaluation, the same requests as through the engine', () => {
	const people = [
		{
			first: 'Ada',
			'last name': 'Lovelace',
			age: 36,
			vip: true,
			note: 'x',
			nested: { a: 1 },
			empty: null,
		},
		{
			first: '  Grace ',
			'last name': "O'Hopper",
			age: 0,
			vip: false,
			note: '',
			nested: [1, 2],
			empty: null,
		},
	];
	/** The same parameters twice: fields as n8n's drag and drop writes them, and through the engine. */
	const asDropped = {
		firstName: '={{ $json.first }}',
		lastName: '={{ $json["last name"] }}',
		description: "={{ $json['note'] }}",
	};
	const throughEngine = {
		firstName: '={{ ($json.first) }}',
		lastName: '={{ ($json["last name"]) }}',
		description: "={{ ($json['note']) }}",
	};
	const custom = (expression: (field: string) => string) => ({
		field: ['age', 'vip', 'nested', 'empty', 'missing'].map((field) => ({
			name: `c${field}`,
			value: expression(field),
		})),
	});

	async function created(fields: IDataObject, customFields: IDataObject) {
		bed.sandbox.reset();
		const { result, evaluations } = await countEvaluations(
			async () =>
				await bed.run(
					{ resource: 'record', operation: 'create', entityType: 'Contact', fields, customFields },
					people,
				),
		);
		expect(result.error).toBeUndefined();
		return {
			bodies: bed.received('POST').map((request) => request.body),
			evaluations,
			out: result.json,
		};
	}

	test('Create: text, numbers and true/false are taken as they are; objects, null and missing fields go to the engine', async () => {
		const dropped = await created(
			asDropped,
			custom((field) => `={{ $json.${field} }}`),
		);
		const engine = await created(
			throughEngine,
			custom((field) => `={{ ($json.${field}) }}`),
		);
		expect(dropped.bodies).toEqual(engine.bodies);
		expect(dropped.bodies[1]).toMatchObject({
			firstName: '  Grace ',
			lastName: "O'Hopper",
			description: '',
			cage: 0,
			cvip: false,
			cnested: [1, 2],
			cempty: null,
		});
		expect(dropped.out.map((json) => json.lastName)).toEqual(['Lovelace', "O'Hopper"]);
		// The collection with an object field is evaluated by the engine whole; the form's fields are not.
		expect(
			[...dropped.evaluations.keys()].filter((expression) =>
				Object.values(asDropped).includes(expression),
			),
		).toEqual([]);
		expect(dropped.evaluations.get('={{ $json.nested }}')).toBe(people.length);
	});
});

describe("what a create reads of n8n's parameters per item (issue 48)", () => {
	test('fields from the item, Skip Duplicate Check, Simplify: nothing through getNodeParameter per item, the Request Settings once per run', async () => {
		const items = Array.from({ length: ITEMS }, (_, n) => ({
			first: `A${n}`,
			last: `B${n}`,
			email: `n${n}@example.com`,
		}));
		const { result, reads } = await countParameterReads(
			async () =>
				await bed.run(
					{
						resource: 'record',
						operation: 'create',
						entityType: 'Contact',
						fields: {
							firstName: '={{ $json.first }}',
							lastName: '={{ $json.last }}',
							emailAddress: '={{ $json.email }}',
						},
						createOptions: { skipDuplicateCheck: true },
						simplify: true,
					},
					items,
				),
		);
		expect(result.error).toBeUndefined();
		expect(result.json.map((json) => json.firstName)).toEqual(['A0', 'A1', 'A2', 'A3']);
		expect(
			bed.received('POST').map((request) => request.headers['x-skip-duplicate-check']),
		).toEqual(['true', 'true', 'true', 'true']);
		expect(Object.fromEntries(reads)).toEqual({ requestSettings: 1 });
	});
});

describe('fields the engine refuses to read are refused as before', () => {
	test.each(['caller', 'constructor', 'prototype'])(
		'`{{ $json.%s }}`: n8n refuses it, and nothing is sent',
		async (field) => {
			const result = await bed.run(
				{
					resource: 'record',
					operation: 'create',
					entityType: 'Contact',
					fields: { description: `={{ $json.${field} }}` },
				},
				[{ [field]: 'from a call log' }],
			);
			expect(result.error).toBeDefined();
			expect(bed.received('POST')).toHaveLength(0);
		},
	);
});

describe('fields whose names the engine refuses in the text of an expression', () => {
	// Measured with n8n-workflow 2.41: the engine refuses any expression with `.constructor` in its text, and reads
	// `$json.globalThis` as the global object, which its sanitiser then refuses. Taken from the item, such a field is
	// what it holds; the node keeps that, as it keeps the engine's refusal of any other expression (docs/performance.md).
	test.each([
		['constructorName', 'Expression contains invalid constructor function call'],
		['constructor_id', 'Expression contains invalid constructor function call'],
		['globalThis', 'Unknown property type ObjectExpression while sanitising expression'],
	])(
		'`{{ $json.%s }}` is sent as the item holds it; through the engine the item fails',
		async (field, refusal) => {
			const create = (description: string) => ({
				resource: 'record',
				operation: 'create',
				entityType: 'Contact',
				fields: { lastName: 'Caller', description },
			});
			const item = { [field]: 'from a call log' };

			const dropped = await bed.run(create(`={{ $json.${field} }}`), [item]);
			expect(dropped.error).toBeUndefined();
			expect(bed.received('POST').map((request) => request.body)).toEqual([
				{ lastName: 'Caller', description: 'from a call log' },
			]);

			bed.sandbox.clearRequests();
			const throughEngine = await bed.run(create(`={{ $json.${field} + '' }}`), [item]);
			expect(throughEngine.error?.message).toBe(refusal);
			expect(bed.received('POST')).toHaveLength(0);
		},
	);

	test("`toString`, `valueOf` and other names of every object are read as the item's fields by both", async () => {
		for (const field of ['toString', 'valueOf', 'hasOwnProperty']) {
			for (const description of [`={{ $json.${field} }}`, `={{ $json.${field} + '' }}`]) {
				bed.sandbox.reset();
				const result = await bed.run(
					{
						resource: 'record',
						operation: 'create',
						entityType: 'Contact',
						fields: { lastName: 'Caller', description },
					},
					[{ [field]: 'from a call log' }],
				);
				expect(result.error).toBeUndefined();
				expect(bed.received('POST').map((request) => request.body)).toEqual([
					{ lastName: 'Caller', description: 'from a call log' },
				]);
			}
		}
	});
});

describe('Return All pages in parallel when the first page tells the total', () => {
	const seed = (count: number) => {
		for (let n = 0; n < count; n++)
			bed.sandbox.store.create('Contact', { firstName: 'P', lastName: `N${n}` });
	};
	const getAll = {
		resource: 'record',
		operation: 'getMany',
		entityType: 'Contact',
		returnAll: true,
	};

	test('4,000 records: 21 requests (the pages the total predicts, then one that comes back empty), several at once, each record once', async () => {
		seed(4000);
		bed.sandbox.faults.latencyMs = 5;
		const result = await bed.run(getAll);
		expect(result.error).toBeUndefined();
		expect(result.json).toHaveLength(4000);
		expect(new Set(result.json.map((json) => json.id)).size).toBe(4000);
		const requests = bed.received('GET');
		expect(requests).toHaveLength(21);
		expect(requests.map((request) => Number(request.query.offset)).sort((a, b) => a - b)).toEqual(
			Array.from({ length: 21 }, (_, n) => n * 200),
		);
		expect(requests.every((request) => request.query.maxSize === '200')).toBe(true);
		// The first two pages go alone (the second proves the server honours offset), then Max Parallel Requests (5).
		expect(bed.sandbox.maxInFlightSeen).toBe(5);
	});

	test('a Limit of 450 reads 3 pages, the last of 50', async () => {
		seed(1000);
		const result = await bed.run({ ...getAll, returnAll: false, limit: 450 });
		expect(result.json).toHaveLength(450);
		expect(
			bed.received('GET').map((request) => [request.query.offset, request.query.maxSize]),
		).toEqual([
			['0', '200'],
			['200', '200'],
			['400', '50'],
		]);
	});

	test('a server that ignores offset answers the first page again: Return All stops there (2 requests, not 3)', async () => {
		seed(450);
		bed.sandbox.faults.ignoresOffset = true;
		const result = await bed.run(getAll);
		expect(result.json).toHaveLength(200);
		expect(bed.received('GET').map((request) => request.query.offset)).toEqual(['0', '200']);
	});

	test('a list without a total (EspoCRM answers -2 for e-mails) is read one page after another', async () => {
		for (let n = 0; n < 450; n++)
			bed.sandbox.store.create('Email', { name: `Mail ${n}`, status: 'Archived' });
		const result = await bed.run({ ...getAll, entityType: 'Email' });
		expect(result.json).toHaveLength(450);
		expect(bed.received('GET').map((request) => request.query.offset)).toEqual(['0', '200', '400']);
		expect(bed.sandbox.maxInFlightSeen).toBe(1);
	});
});

describe("Return All in the list's order (version 1.1, EspoCRM): a second page, and the metadata, only when the list goes on", () => {
	const v11 = { typeVersion: 1.1 };
	const seed = (count: number) =>
		Array.from({ length: count }, (_, n) =>
			bed.sandbox.store.create('Contact', {
				firstName: 'P',
				lastName: `N${String(n).padStart(3, '0')}`,
			}),
		);
	const getAll = (listOptions: IDataObject = {}) => ({
		resource: 'record',
		operation: 'getMany',
		entityType: 'Contact',
		returnAll: true,
		listOptions,
	});
	const ids = (items: IDataObject[]) => items.map((item) => String(item.id));

	beforeEach(() => bed.use('apiKey', 'espocrm'));

	test.each([
		['without a sort order', {}],
		['sorted by lastName', { orderBy: 'lastName' }],
		[
			'sorted, descending, with Fields to Return',
			{ orderBy: 'lastName', order: 'desc', select: 'firstName' },
		],
	])(
		'a list of one page (%s): exactly one request, without the total, in the order of a Limit',
		async (_, listOptions) => {
			seed(150);
			const limited = await bed.run(
				{ ...getAll(listOptions), returnAll: false, limit: 200 },
				undefined,
				v11,
			);
			bed.sandbox.clearRequests();
			const all = await bed.run(getAll(listOptions), undefined, v11);
			expect(all.error).toBeUndefined();
			expect(ids(all.json)).toEqual(ids(limited.json));
			expect(all.json).toHaveLength(150);
			const [only, ...more] = bed.received();
			expect(more).toEqual([]);
			expect(only.path).toBe('/Contact');
			expect(only.headers['x-no-total']).toBe('true');
			expect(only.query.orderBy).toBe((listOptions as IDataObject).orderBy);
			expect(only.query.order).toBe((listOptions as IDataObject).order);
		},
	);

	test.each([
		['8.1.5: the whole metadata, the key ignored', false],
		["8.2 and later (9.1.7): only the entity type's part", true],
	])(
		'a longer list (%s): the metadata once per run, after the first page; each record once, in the order of a Limit',
		async (_, byKey) => {
			if (byKey) bed.sandbox.setServerVersion('9.1.7');
			seed(450);
			const limited = await bed.run({ ...getAll(), returnAll: false, limit: 450 }, undefined, v11);
			bed.sandbox.clearRequests();
			// Two input items, each a Return All of the same list.
			const all = await bed.run(getAll(), [{}, {}], v11);
			expect(all.error).toBeUndefined();
			const expected = ids(limited.json);
			expect(ids(all.json)).toEqual([...expected, ...expected]);

			const requests = bed.received();
			const metadata = requests.filter((request) => request.path === '/Metadata');
			expect(metadata.map((request) => request.query)).toEqual([{ key: 'entityDefs.Contact' }]);
			// After a first page came back full, before any page that follows on from it.
			const at = requests.indexOf(metadata[0]);
			expect(at).toBeGreaterThan(0);
			expect(
				requests
					.slice(0, at)
					.every((request) => request.path === '/Contact' && request.query.orderBy === undefined),
			).toBe(true);
			const following = requests.filter(
				(request) => request.path === '/Contact' && request.query.where !== undefined,
			);
			expect(following.length).toBe(4);
			expect(
				following.every(
					(request) => requests.indexOf(request) > at && request.query.orderBy === 'createdAt',
				),
			).toBe(true);
			// Nothing by offset: the order was known from the metadata in either form.
			expect(requests.filter((request) => request.query.offset !== undefined)).toEqual([]);
		},
	);

	test('a list of exactly one full page reads the metadata and a second, empty page: a full page may be followed by more', async () => {
		seed(200);
		const all = await bed.run(getAll(), undefined, v11);
		expect(all.json).toHaveLength(200);
		expect(bed.received().map((request) => request.path)).toEqual([
			'/Contact',
			'/Metadata',
			'/Contact',
		]);
	});

	test('a list without a total (e-mails) sorted by an enum: by offset after the first page, one page after another', async () => {
		for (let n = 0; n < 450; n++)
			bed.sandbox.store.create('Email', {
				name: `Mail ${n}`,
				status: n % 2 ? 'Archived' : 'Draft',
			});
		const parameters = { ...getAll({ orderBy: 'status' }), entityType: 'Email' };
		const limited = await bed.run({ ...parameters, returnAll: false, limit: 450 }, undefined, v11);
		bed.sandbox.clearRequests();
		const all = await bed.run(parameters, undefined, v11);
		expect(ids(all.json)).toEqual(ids(limited.json));
		expect(all.json).toHaveLength(450);
		// The second page asks for the total in vain (EspoCRM never counts e-mails): the next pages one after another.
		expect(bed.received().map((request) => [request.path, request.query.offset])).toEqual([
			['/Email', undefined],
			['/Metadata', undefined],
			['/Email', '200'],
			['/Email', '400'],
		]);
		expect(bed.sandbox.maxInFlightSeen).toBe(1);
	});

	test('the metadata refused (a role without it): the list goes on by offset after the first page, each record once', async () => {
		seed(450);
		const limited = await bed.run({ ...getAll(), returnAll: false, limit: 450 }, undefined, v11);
		bed.sandbox.clearRequests();
		bed.sandbox.faults.failNext({ method: 'GET', pathPrefix: '/Metadata', status: 403 });
		const all = await bed.run(getAll(), undefined, v11);
		expect(all.error).toBeUndefined();
		expect(ids(all.json)).toEqual(ids(limited.json));
		expect(
			bed
				.received()
				.map((request) => [request.path, request.query.offset, request.headers['x-no-total']]),
		).toEqual([
			['/Contact', undefined, 'true'],
			['/Metadata', undefined, undefined],
			// The second page counts, so that the pages up to the total can be read at once.
			['/Contact', '200', undefined],
			['/Contact', '400', 'true'],
		]);
	});
});
