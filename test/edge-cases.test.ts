/**
 * Edge cases a review found: odd IDs, expressions that give lists, empty changes, errors that must keep saying
 * what really happened, and date filters written as JSON.
 */
import { useSandbox } from './harness/sandboxRun';

const bed = useSandbox();

const record = (operation: string, id: unknown, extra: Record<string, unknown> = {}) => ({
	resource: 'record',
	operation,
	entityType: 'Contact',
	recordId: { __rl: true, mode: 'id', value: id },
	...extra,
});

describe('IDs', () => {
	test.each(['..', '.', ' .. '])(
		'the ID %j is refused before anything is sent (it would step up the path)',
		async (id) => {
			const result = await bed.run(record('delete', id), [{}], {
				onError: 'continueRegularOutput',
			});
			expect(result.items[0].error?.message).toContain('"Record" is not a record ID');
			expect(bed.received()).toEqual([]);
		},
	);

	test('a Link whose record is ".." is refused instead of reaching POST /Contact', async () => {
		const result = await bed.run(
			{
				resource: 'relationship',
				operation: 'link',
				entityType: 'Account',
				recordId: { __rl: true, mode: 'id', value: '..' },
				link: 'custom',
				customLink: 'Contact',
				relatedIds: 'x',
			},
			[{}],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items[0].error).toBeDefined();
		expect(bed.received()).toEqual([]);
	});

	test('an ID expression that gives a list is refused as not one ID', async () => {
		const result = await bed.run(record('get', '={{ ["a", "b"] }}'), [{}], {
			onError: 'continueRegularOutput',
		});
		expect(result.items[0].error?.message).toContain('must be one ID');
		expect(bed.received()).toEqual([]);
	});

	test('"By URL" works for a workflow saved without the editor (no stored pattern)', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'Grace', lastName: 'Hopper' });
		const result = await bed.run({
			...record('get', ''),
			recordId: {
				__rl: true,
				mode: 'url',
				value: `https://crm.example.com/#Contact/view/${contact.id}`,
			},
		});
		expect(result.error).toBeUndefined();
		expect(bed.received().map((request) => request.path)).toEqual([`/Contact/${contact.id}`]);
	});
});

describe('changes with nothing in them', () => {
	test('Update with no field is refused instead of sending an empty PUT', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'A', lastName: 'B' });
		const result = await bed.run(record('update', contact.id, { fields: {} }), [{}], {
			onError: 'continueRegularOutput',
		});
		expect(result.items[0].error?.message).toBe('The parameter "Fields" is empty (item 0)');
		expect(bed.received()).toEqual([]);
	});

	test('Mass Update with no field is refused', async () => {
		const result = await bed.run(
			{ resource: 'bulk', operation: 'massUpdate', entityType: 'Contact', fields: {} },
			[{ id: 'a' }],
		);
		expect(result.error?.message).toBe('The parameter "Fields" is empty (item 0)');
		expect(bed.received()).toEqual([]);
	});

	test('bulk: an item that gives no ID is left out, and the output pairs only the items that gave one', async () => {
		const contacts = [1, 2].map((n) =>
			bed.sandbox.store.create('Contact', { firstName: 'C', lastName: `N${n}` }),
		);
		const result = await bed.run(
			{ resource: 'bulk', operation: 'massDelete', entityType: 'Contact' },
			[{ id: contacts[0].id }, { name: 'no id' }, { id: contacts[1].id }],
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0]).toMatchObject({
			json: { ids: [contacts[0].id, contacts[1].id], deleted: true },
			pairedItem: [{ item: 0 }, { item: 2 }],
		});
		expect(bed.sandbox.store.count('Contact')).toBe(0);
	});

	test('bulk: with Continue on fail, an item whose ID is not one becomes an error item and the others are sent', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'C', lastName: 'N' });
		const result = await bed.run(
			{ resource: 'bulk', operation: 'massDelete', entityType: 'Contact' },
			[{ id: '..' }, { id: contact.id }],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items).toHaveLength(2);
		expect(result.items[0]).toMatchObject({ pairedItem: { item: 0 } });
		expect(result.items[0].error?.message).toContain('is not a record ID');
		expect(result.items[1].json).toMatchObject({ ids: [contact.id], deleted: true });
	});

	test('bulk: an ID list entry that is not text is refused, not sent as "[object Object]"', async () => {
		const result = await bed.run(
			{
				resource: 'bulk',
				operation: 'massDelete',
				entityType: 'Contact',
				idSource: 'expression',
				ids: '={{ [{ id: "x" }] }}',
			},
			[{}],
		);
		expect(result.error?.message).toContain('must be one ID');
		expect(bed.received()).toEqual([]);
	});

	test('Convert: More Fields must be a JSON object', async () => {
		const lead = bed.sandbox.store.create('Lead', { firstName: 'L', lastName: 'M' });
		const result = await bed.run({
			resource: 'lead',
			operation: 'convert',
			leadId: { __rl: true, mode: 'id', value: lead.id },
			records: { Account: { name: 'Acme', moreFields: '[1, 2]' } },
		});
		expect(result.error?.message).toBe(
			'The parameter "Records to Create > Account > More Fields (JSON)" must be a JSON object (item 0)',
		);
		expect(bed.received()).toEqual([]);
	});
});

describe('errors keep saying what happened', () => {
	test('an e-mail the server stored without sending: the error says it is kept, not that nothing was sent', async () => {
		bed.sandbox.setDialect('espocrm');
		// A Standard credential against EspoCRM sends no "Sending" status, so EspoCRM archives the e-mail.
		const result = await bed.run({
			resource: 'email',
			operation: 'send',
			to: 'a@example.com',
			subject: 'Hi',
			body: 'Hello',
			from: 'me@example.com',
		});
		expect(result.error?.message).toContain(
			'stored the e-mail but did not send it (status "Archived"',
		);
		expect(result.error?.description).toContain('kept on the server');
		bed.sandbox.setDialect('both');
	});

	test('a create that meets 502 is not resent, and the error says it may have been carried out', async () => {
		bed.sandbox.faults.failNext({ status: 502, method: 'POST' });
		const result = await bed.run({
			resource: 'record',
			operation: 'create',
			entityType: 'Contact',
			fields: { lastName: 'X' },
		});
		expect(result.error?.httpCode).toBe('502');
		expect(result.error?.description).toMatch(/not sent again.*may have carried it out/);
		expect(bed.received('POST')).toHaveLength(1);
	});

	test('a Retry-After beyond the allowed wait: the error says which setting to raise', async () => {
		bed.sandbox.faults.failNext({ status: 503, retryAfter: 600 });
		const result = await bed.run({
			...record('get', 'x'),
			requestSettings: { maxRetryWaitSeconds: 10 },
		});
		expect(result.error?.description).toContain('600 seconds, longer than "Max Wait Before Retry"');
	});
});

describe('expressions and dates', () => {
	test('To given as a list by an expression becomes one ";"-separated string', async () => {
		const result = await bed.run({
			resource: 'email',
			operation: 'send',
			to: '={{ ["a@example.com", "b@example.com"] }}',
			subject: 'Hi',
			body: 'Hello',
		});
		expect(result.error).toBeUndefined();
		expect(bed.received('POST')[0].body.to).toBe('a@example.com;b@example.com');
	});

	test('a date operator in Where JSON gets the time zone on a date-time field, as in the form', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'New', lastName: 'Today' });
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'getMany',
				entityType: 'Contact',
				returnAll: true,
				filterMode: 'json',
				whereJson: '[{ "type": "or", "value": [{ "type": "today", "attribute": "createdAt" }] }]',
			},
			[{}],
			{ timezone: 'Europe/Berlin' },
		);
		expect(result.json.map((json) => json.id)).toEqual([contact.id]);
		expect(bed.received()[0].query.where[0].value[0]).toMatchObject({
			type: 'today',
			dateTime: 'true',
			timeZone: 'Europe/Berlin',
		});
	});
});

describe('a mass action resent after a lost connection says what is known', () => {
	test.each(['standard', 'espocrm'] as const)(
		'Mass Delete (%s): the first attempt deleted the records, the resend finds none',
		async (dialect) => {
			bed.sandbox.setDialect(dialect);
			bed.use('apiKey', dialect);
			const records = [1, 2, 3].map((n) =>
				bed.sandbox.store.create('Contact', { firstName: 'D', lastName: `N${n}` }),
			);
			// The server carries out the request, then the connection drops before the answer.
			bed.sandbox.faults.dropNext({ after: true, method: 'POST' });
			const result = await bed.run(
				{ resource: 'bulk', operation: 'massDelete', entityType: 'Contact' },
				records.map(({ id }) => ({ id })),
			);
			expect(result.error).toBeUndefined();
			expect(bed.received('POST').map((request) => request.status)).toEqual([0, 200]);
			expect(bed.sandbox.store.count('Contact')).toBe(0);
			const [output] = result.json;
			expect(output.firstAttempt).toMatch(
				/^unknown: the connection was lost before the server answered \(\w+\), so the request was sent again$/,
			);
			if (dialect === 'espocrm') {
				// Neither "deleted" nor "not deleted": an IF node on `deleted` or `outcome` must not take a wrong branch.
				expect(output).toMatchObject({
					requested: 3,
					outcome: 'unknown',
					deleted: null,
					count: null,
					ids: null,
					deletedWhenResent: [],
					notFoundWhenResent: records.map(({ id }) => id),
				});
				expect(output.note).toBe(
					'The second attempt deleted 0 of 3. It did not find the others: the first attempt deleted them, they never existed, or the API user may not delete them.',
				);
			}
		},
	);
});

describe('EspoCRM 9 answers 400 where 8.x answered 500', () => {
	// 9.1.7's answer to an order by an unknown field (compare-sandbox.js, `list orderBy unknown field`); the sandbox
	// answers as 8.1.5 does (500), so 9.1.7's answer is injected.
	test("a list whose sort field the server refuses (400 Order by non-existing field …) points at the list's settings", async () => {
		bed.sandbox.setDialect('espocrm');
		bed.use('apiKey', 'espocrm');
		bed.sandbox.faults.failNext({
			status: 400,
			reason: "Order by non-existing field 'lastNme'.",
			method: 'GET',
			pathPrefix: '/Contact',
		});
		const result = await bed.run({
			resource: 'record',
			operation: 'getMany',
			entityType: 'Contact',
			returnAll: false,
			limit: 5,
			listOptions: { orderBy: 'lastNme', order: 'asc' },
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.httpCode).toBe('400');
		expect(result.error?.message).toBe(
			"The server refused the list's settings (400): Order by non-existing field 'lastNme'.",
		);
		expect(result.error?.description).toContain('the sort field and order');
		expect(bed.received().filter((r) => r.path === '/Contact')).toEqual([
			expect.objectContaining({ method: 'GET', status: 400 }),
		]);
	});
});
