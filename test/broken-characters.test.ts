/**
 * One broken character must not lose a batch (issue 40, item 2): a value holding a lone UTF-16 surrogate ("\ud83d",
 * half of an emoji, as cutting text short leaves it) cannot go into a request's address. Such a value is refused for
 * its item alone, naming the parameter and the item, before anything of that item is sent; in a JSON body it is sent
 * as U+FFFD, which EspoCRM 8.1.5 stores (it answers the escaped half with 500, as the sandbox does). Run through n8n's
 * engine against the sandbox, asserting the output items and the requests the sandbox received.
 */
import type { IDataObject } from 'n8n-workflow';

import { loadFormList } from './harness/engine';
import type { RunResult } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';
import { SANDBOX_CREDENTIALS } from './sandbox';
import type { RecordedRequest } from './sandbox';

const bed = useSandbox();

/** Half of 😀 (U+1F600): what is left when text is cut between its two UTF-16 code units. */
const HALF = '\ud83d';
const BROKEN = `café ${HALF}`;

const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const byUrl = (value: string) => ({
	__rl: true,
	mode: 'url',
	value,
	__regex: 'https?://.+#[A-Za-z0-9_]+/view/([^/?#]+)',
});
const continueOnFail = { onError: 'continueRegularOutput' } as const;
const errorOf = (result: RunResult, index: number) =>
	result.items[index].error as RunResult['error'];
const refusal = (parameter: string, index: number, part = '') =>
	`The parameter "${parameter}"${part ? `: ${part} ` : ' '}holds a broken character, such as half of an emoji (item ${index})`;

/** Whether anything the sandbox received carries the broken value, or what n8n's encoder makes of it. */
const carriesBrokenValue = (request: RecordedRequest) =>
	/café|caf%C3%A9/.test(
		`${request.rawQuery} ${request.path} ${JSON.stringify(request.body ?? '')}`,
	);

describe('Create or Update', () => {
	const upsertByEmail = {
		resource: 'record',
		operation: 'upsert',
		entityType: 'Contact',
		matchField: 'emailAddress',
		matchValue: '={{ $json.email }}',
		fields: { lastName: '={{ $json.name }}' },
	};
	const items = Array.from({ length: 40 }, (_, n) => ({
		email: n === 17 ? `${BROKEN}@example.com` : `person${n}@example.com`,
		name: `Person ${n}`,
	}));

	test('with Continue On Fail, 40 items, one with half an emoji as Match Value: 39 written, that one refused by name', async () => {
		const result = await bed.run(upsertByEmail, items, continueOnFail);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(40);
		expect(result.items.filter((item) => item.error)).toHaveLength(1);
		expect(errorOf(result, 17)?.message).toBe(refusal('Match Value', 17));
		expect(errorOf(result, 17)?.description).toContain('Character 6 is \\ud83d');
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		// One look-up of the 39 values, a create each; the broken value was never sent.
		expect(bed.received('GET')).toHaveLength(1);
		expect(bed.received('POST')).toHaveLength(39);
		expect(bed.received().some(carriesBrokenValue)).toBe(false);
		expect(bed.sandbox.store.list('Contact')).toHaveLength(39);
	});

	test('without Continue On Fail the node fails with that message; the items before it were read, not yet sent', async () => {
		const result = await bed.run(upsertByEmail, items);
		expect(result.error?.message).toBe(refusal('Match Value', 17));
		expect(result.error?.context?.itemIndex).toBe(17);
		// Items 0 to 16 wait for their look-up, sent when 100 values are gathered or the input ends: the node fails
		// first, so nothing at all was sent.
		expect(bed.received()).toEqual([]);
	});
});

describe("a record ID, in the editor's locator shapes", () => {
	const contacts = () => [
		bed.sandbox.store.create('Contact', { lastName: 'One' }),
		bed.sandbox.store.create('Contact', { lastName: 'Two' }),
	];

	const idFromItem = byId('={{ $json.id }}');
	const urlFromItem = byUrl('={{ "https://crm.example.com/#Contact/view/" + $json.id }}');

	test.each([
		['Update, By ID', 'update', idFromItem, { fields: { description: 'Boss' } }],
		['Update, By URL', 'update', urlFromItem, { fields: { description: 'Boss' } }],
		['Get, By ID', 'get', idFromItem, {}],
		['Get, By URL', 'get', urlFromItem, {}],
		['Delete', 'delete', idFromItem, {}],
	])(
		'%s: the item with a broken ID is refused, naming "Record"; the others are sent',
		async (_name, operation, recordId, extra) => {
			const [one, two] = contacts();
			const result = await bed.run(
				{ resource: 'record', operation, entityType: 'Contact', recordId, ...extra },
				[{ id: one.id }, { id: `${two.id.slice(0, 5)}${HALF}` }, { id: two.id }],
				continueOnFail,
			);
			expect(result.items).toHaveLength(3);
			expect(errorOf(result, 0)).toBeUndefined();
			expect(errorOf(result, 1)?.message).toBe(refusal('Record', 1));
			expect(errorOf(result, 2)).toBeUndefined();
			expect(bed.received().map((request) => request.path)).toEqual([
				`/Contact/${one.id}`,
				`/Contact/${two.id}`,
			]);
		},
	);

	test('a saved locator value without an expression, and the related IDs of Link', async () => {
		const [one, two] = contacts();
		const account = bed.sandbox.store.create('Account', { name: 'Acme' });
		const update = await bed.run({
			resource: 'record',
			operation: 'update',
			entityType: 'Contact',
			recordId: byId(`ab${HALF}`),
			fields: { description: 'x' },
		});
		expect(update.error?.message).toBe(refusal('Record', 0));
		const link = await bed.run(
			{
				resource: 'relationship',
				operation: 'link',
				entityType: 'Account',
				recordId: byId(account.id),
				link: 'contacts',
				relatedIds: '={{ $json.ids }}',
			},
			[{ ids: [one.id] }, { ids: [two.id, `x${HALF}`] }],
			continueOnFail,
		);
		expect(errorOf(link, 0)).toBeUndefined();
		expect(errorOf(link, 1)?.message).toBe(refusal('Related Record IDs', 1));
		expect(bed.received().map((request) => `${request.method} ${request.path}`)).toEqual([
			`POST /Account/${account.id}/contacts`,
		]);
	});
});

describe('Get Many', () => {
	beforeEach(() => {
		bed.sandbox.setDialect('espocrm');
		bed.use('apiKey', 'espocrm');
		bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: 'Lovelace' });
	});

	const getMany = (parameters: IDataObject) => ({
		resource: 'record',
		operation: 'getMany',
		entityType: 'Contact',
		returnAll: true,
		...parameters,
	});

	test.each([
		['Search Text', { searchText: '={{ $json.text }}' }, refusal('Search Text (EspoCRM)', 1)],
		[
			"a condition's value",
			{
				filterMode: 'conditions',
				conditions: {
					condition: [
						{ attribute: 'lastName', operator: 'startsWith', value: '={{ $json.text }}' },
					],
				},
			},
			refusal('Conditions', 1, 'condition 1 (value)'),
		],
		[
			'a value of "Is One Of"',
			{
				filterMode: 'conditions',
				conditions: {
					condition: [
						{ attribute: 'firstName', operator: 'in', values: '={{ ["Ada", $json.text] }}' },
					],
				},
			},
			refusal('Conditions', 1, 'condition 1 (value[1])'),
		],
		[
			'Where (JSON)',
			{
				filterMode: 'json',
				whereJson: '={{ [{ type: "startsWith", attribute: "lastName", value: $json.text }] }}',
			},
			refusal('Where (JSON)', 1, 'where[0].value'),
		],
	])(
		'%s with a broken character: refused for its item; the others are sent',
		async (_name, parameters, message) => {
			const result = await bed.run(
				getMany(parameters),
				[{ text: 'Lov' }, { text: `Lov${HALF}` }],
				continueOnFail,
			);
			expect(result.json[0]).toMatchObject({ name: 'Ada Lovelace' });
			expect(errorOf(result, 1)?.message).toBe(message);
			// One list request, item 0's: n8n's encoder would have sent item 1's half emoji as another character.
			expect(bed.received()).toHaveLength(1);
		},
	);
});

describe('a broken character in a body', () => {
	test('is sent as U+FFFD: the record is stored with the rest of its text (EspoCRM answers the escaped half with 500)', async () => {
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'create',
				entityType: 'Contact',
				fields: { lastName: '={{ $json.name }}', description: '={{ $json.text }}' },
			},
			[
				{ name: 'Lovelace', text: `Great talk ${HALF}` },
				{ name: 'Hopper', text: 'Fine 😀' },
			],
		);
		expect(result.error).toBeUndefined();
		expect(result.json.map((record) => record.description)).toEqual([
			'Great talk \ufffd',
			'Fine 😀',
		]);
		expect(bed.received().map((request) => (request.body as IDataObject).description)).toEqual([
			'Great talk \ufffd',
			'Fine 😀',
		]);
	});

	test('the sandbox, as EspoCRM 8.1.5, refuses a body with an escaped lone surrogate: 500, no reason, empty body', async () => {
		const response = await fetch(`${bed.sandbox.baseUrl}/Contact`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', 'X-Api-Key': SANDBOX_CREDENTIALS.apiKey },
			body: '{"lastName": "cut\\ud83d"}',
		});
		expect([
			response.status,
			response.headers.get('x-status-reason'),
			await response.text(),
		]).toEqual([500, null, '']);
	});
});

test("a value that reaches an address without a parameter check (the record locator's search) is refused before it is sent", async () => {
	bed.sandbox.setDialect('espocrm');
	bed.use('apiKey', 'espocrm');
	await expect(
		loadFormList(
			bed.store,
			'listSearch',
			'searchRecords',
			{ resource: 'record', operation: 'get', entityType: 'Contact' },
			`Lov${HALF}`,
		),
	).rejects.toThrow(
		"A value for the request's address holds a broken character, such as half of an emoji (item 0)",
	);
	// n8n's query encoder would have searched for "Lov🐀".
	expect(bed.received()).toEqual([]);
});
