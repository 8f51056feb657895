/**
 * Create or Update at scale (issue 31) and by a trimmed key (issue 33, item 2): the match values of many items are
 * looked up together, in chunks, then each item is written once. Run through n8n's engine against the sandbox,
 * asserting the output items, the requests the sandbox received and what it stores.
 */
import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from './harness/sandboxRun';
import type { RunResult } from './harness/engine';
import type { RecordedRequest } from './sandbox';

const bed = useSandbox();

const store = () => bed.sandbox.store;
const paths = (requests: RecordedRequest[]) =>
	requests.map((request) => `${request.method} ${request.path}`);
const lookups = () => bed.received('GET').filter((request) => request.path === '/Contact');

const upsertByEmail = (parameters: IDataObject = {}) => ({
	resource: 'record',
	operation: 'upsert',
	entityType: 'Contact',
	matchField: 'emailAddress',
	matchValue: '={{ $json.email }}',
	fields: {
		firstName: '={{ $json.first }}',
		lastName: '={{ $json.last }}',
		description: '={{ $json.note }}',
	},
	...parameters,
});

function expectNoOutputError(result: RunResult) {
	expect(result.error).toBeUndefined();
	for (const item of result.items) expect(item.error).toBeUndefined();
}

/** The where item of a look-up, as the sandbox parsed it. */
const whereOf = (request: RecordedRequest) => (request.query as IDataObject).where as IDataObject[];

describe('Create or Update at scale', () => {
	test('250 items, 150 of their values stored in other letter case, 20 values twice: N + ceil(N / 100) requests, each record once', async () => {
		// 150 stored, written differently from the input (upper case); the input has spaces around every value.
		const stored = Array.from({ length: 150 }, (_, n) =>
			store().create('Contact', {
				firstName: 'Old',
				lastName: `Stored${n}`,
				emailAddress: `Person${n}@Example.COM`,
			}),
		);
		const items: IDataObject[] = Array.from({ length: 230 }, (_, n) => ({
			email: `  person${n}@example.com `,
			first: 'New',
			last: `Person${n}`,
			note: 'first',
		}));
		// 20 values come again later in the input (10 stored ones, 10 new ones), with other values.
		for (const n of [
			...Array.from({ length: 10 }, (_, k) => k * 7),
			...Array.from({ length: 10 }, (_, k) => 160 + k * 7),
		]) {
			items.push({
				email: `PERSON${n}@example.com`,
				first: 'Again',
				last: `Person${n}`,
				note: 'second',
			});
		}
		expect(items).toHaveLength(250);
		bed.sandbox.faults.latencyMs = 5;

		const result = await bed.run(upsertByEmail(), items);
		expectNoOutputError(result);

		// 230 values: 3 look-ups of at most 100 values; a write per item.
		const requests = bed.received();
		expect(requests.length).toBeLessThanOrEqual(250 + Math.ceil(250 / 100));
		expect(lookups()).toHaveLength(3);
		for (const lookup of lookups()) {
			const [where] = whereOf(lookup);
			expect(where).toMatchObject({ type: 'in', attribute: 'emailAddress' });
			expect((where.value as string[]).length).toBeLessThanOrEqual(100);
			// Sent trimmed.
			expect((where.value as string[]).every((value) => value === value.trim())).toBe(true);
		}
		expect(bed.received('POST')).toHaveLength(80);
		expect(bed.received('PUT')).toHaveLength(170);
		expect(requests.every((request) => request.status === 200)).toBe(true);

		// Every value once in the store, with the input's last values; the stored ones kept their ids.
		const contacts = store().list('Contact');
		expect(contacts).toHaveLength(230);
		const byEmail = new Map(
			contacts.map((contact) => [String(contact.emailAddress).toLowerCase(), contact]),
		);
		expect(byEmail.size).toBe(230);
		for (const [n, record] of stored.entries())
			expect(byEmail.get(`person${n}@example.com`)?.id).toBe(record.id);
		expect(byEmail.get('person7@example.com')).toMatchObject({
			firstName: 'Again',
			description: 'second',
		});
		expect(byEmail.get('person167@example.com')).toMatchObject({
			firstName: 'Again',
			description: 'second',
		});
		expect(byEmail.get('person8@example.com')).toMatchObject({
			firstName: 'New',
			description: 'first',
		});
		// New records got the value trimmed.
		expect(byEmail.get('person200@example.com')?.emailAddress).toBe('person200@example.com');

		// One output item per input item, in input order; a repeated value updates the record its first item wrote.
		expect(result.items).toHaveLength(250);
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		const firstOf167 = result.json[167];
		expect(result.json[230 + 11]).toMatchObject({ id: firstOf167.id, description: 'second' });
		const post167 = bed
			.received('POST')
			.find((request) => request.body.emailAddress === 'person167@example.com');
		const put167 = bed
			.received('PUT')
			.find((request) => request.path === `/Contact/${String(firstOf167.id)}`);
		expect(post167?.body).toMatchObject({ firstName: 'New', description: 'first' });
		expect(put167?.body).toMatchObject({ firstName: 'Again', description: 'second' });
		expect(requests.indexOf(post167!)).toBeLessThan(requests.indexOf(put167!));
	});

	test('the same value many times with Max Parallel Requests 5: one create, then updates in input order', async () => {
		bed.sandbox.faults.latencyMs = 5;
		const items = Array.from({ length: 12 }, (_, n) => ({
			email: n % 2 ? 'Same@example.com' : ' same@example.com',
			first: 'S',
			last: 'Same',
			note: `v${n}`,
		}));
		const result = await bed.run(upsertByEmail(), items);
		expectNoOutputError(result);
		expect(paths(bed.received())).toEqual([
			'GET /Contact',
			'POST /Contact',
			...Array(11).fill(`PUT /Contact/${String(result.json[0].id)}`),
		]);
		expect(bed.received('PUT').map((request) => request.body.description)).toEqual(
			items.slice(1).map((item) => item.note),
		);
		expect(store().list('Contact')).toEqual([
			expect.objectContaining({ emailAddress: 'same@example.com', description: 'v11' }),
		]);
	});

	test('the look-ups are sent several at once, within Max Parallel Requests', async () => {
		bed.sandbox.faults.latencyMs = 30;
		const items = Array.from({ length: 40 }, (_, n) => ({
			email: `p${n}@example.com`,
			first: 'P',
			last: `P${n}`,
			note: '',
		}));
		const result = await bed.run(
			upsertByEmail({ upsertOptions: { valuesPerLookup: 5 }, requestSettings: { maxParallel: 3 } }),
			items,
		);
		expectNoOutputError(result);
		expect(lookups()).toHaveLength(8);
		expect(bed.received()).toHaveLength(48);
		expect(bed.sandbox.maxInFlightSeen).toBeGreaterThan(1);
		expect(bed.sandbox.maxInFlightSeen).toBeLessThanOrEqual(3);
		expect(store().count('Contact')).toBe(40);
	});

	test('a long value makes a chunk smaller: no look-up has a query string over 7,000 characters', async () => {
		const long = 'x'.repeat(180);
		const items = Array.from({ length: 60 }, (_, n) => ({
			email: `${long}${n}@example.com`,
			first: 'L',
			last: `L${n}`,
			note: '',
		}));
		const result = await bed.run(upsertByEmail(), items);
		expectNoOutputError(result);
		expect(lookups().length).toBeGreaterThan(1);
		for (const lookup of lookups()) expect(lookup.rawQuery.length).toBeLessThanOrEqual(7000);
		expect(store().count('Contact')).toBe(60);
	});
});

describe('Create or Update matches as the server does', () => {
	test('issue 33.2: "  cora@example.com  " updates the stored Cora@Example.com; " Dora " creates "Dora" once', async () => {
		const cora = store().create('Contact', {
			firstName: 'Cora',
			lastName: 'Old',
			emailAddress: 'Cora@Example.com',
		});
		const result = await bed.run(upsertByEmail(), [
			{ email: '  cora@example.com  ', first: 'Cora', last: 'New', note: 'n' },
		]);
		expectNoOutputError(result);
		expect(paths(bed.received())).toEqual(['GET /Contact', `PUT /Contact/${cora.id}`]);
		expect(store().list('Contact')).toEqual([
			expect.objectContaining({ id: cora.id, lastName: 'New' }),
		]);

		bed.sandbox.clearRequests();
		const accounts = {
			resource: 'record',
			operation: 'upsert',
			entityType: 'Account',
			matchField: 'name',
			matchValue: '={{ $json.name }}',
			fields: { description: '={{ $json.note }}' },
		};
		const first = await bed.run(accounts, [{ name: ' Dora ', note: 'one' }]);
		expectNoOutputError(first);
		expect(bed.received('POST')[0].body).toEqual({ name: 'Dora', description: 'one' });
		const second = await bed.run(accounts, [{ name: 'DORA  ', note: 'two' }]);
		expectNoOutputError(second);
		expect(store().list('Account')).toEqual([
			expect.objectContaining({ name: 'Dora', description: 'two' }),
		]);
	});

	test("a person's name is looked up with an or of equals (EspoCRM has no `in` for it)", async () => {
		const ada = store().create('Contact', { firstName: 'Ada', lastName: 'Lovelace' });
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'upsert',
				entityType: 'Contact',
				matchField: 'name',
				matchValue: '={{ $json.name }}',
				fields: { lastName: '={{ $json.last }}', description: '={{ $json.note }}' },
			},
			[
				{ name: 'ada lovelace', last: 'Lovelace', note: 'a' },
				{ name: 'Grace Hopper', last: 'Hopper', note: 'g' },
			],
		);
		expectNoOutputError(result);
		const [lookup] = lookups();
		expect(whereOf(lookup)).toEqual([
			{
				type: 'or',
				value: [
					{ type: 'equals', attribute: 'name', value: 'ada lovelace' },
					{ type: 'equals', attribute: 'name', value: 'Grace Hopper' },
				],
			},
		]);
		expect(paths(bed.received())).toEqual([
			'GET /Contact',
			`PUT /Contact/${ada.id}`,
			'POST /Contact',
		]);
	});

	test.each(['espocrm', 'standard'] as const)(
		'%s: a record found by one of its other e-mail addresses is updated, not created again',
		async (dialect) => {
			bed.sandbox.setDialect(dialect);
			bed.use('apiKey', dialect);
			try {
				const multi = store().create('Contact', {
					lastName: 'Multi',
					emailAddress: 'main@example.com',
					emailAddressData: [
						{ emailAddress: 'main@example.com', primary: true },
						{ emailAddress: 'Other@example.com', primary: false },
					],
				});
				const plain = store().create('Contact', {
					lastName: 'Plain',
					emailAddress: 'plain@example.com',
				});
				const result = await bed.run(upsertByEmail(), [
					{ email: 'other@example.com', first: 'M', last: 'Multi', note: 'by other' },
					{ email: 'plain@example.com', first: 'P', last: 'Plain', note: 'plain' },
					{ email: 'new@example.com', first: 'N', last: 'New', note: 'new' },
				]);
				expectNoOutputError(result);
				expect(result.json.map((json) => json.id)).toEqual([
					multi.id,
					plain.id,
					expect.any(String),
				]);
				expect(store().count('Contact')).toBe(3);
				expect(store().get('Contact', multi.id)).toMatchObject({ description: 'by other' });
				// A list shows only the primary address: the record is read to see its others.
				expect(paths(bed.received()).sort()).toEqual(
					[
						'GET /Contact',
						`GET /Contact/${multi.id}`,
						`PUT /Contact/${multi.id}`,
						`PUT /Contact/${plain.id}`,
						'POST /Contact',
					].sort(),
				);
			} finally {
				bed.sandbox.setDialect('both');
			}
		},
	);
});

describe('Create or Update: failures stay with their items', () => {
	test('a look-up refused with 500 is sent again value by value; every item still written once', async () => {
		store().create('Contact', { lastName: 'Found', emailAddress: 'found@example.com' });
		bed.sandbox.faults.failNext({
			method: 'GET',
			pathPrefix: '/Contact',
			status: 500,
			reason: 'boom',
		});
		const result = await bed.run(upsertByEmail(), [
			{ email: 'found@example.com', first: 'F', last: 'Found', note: 'f' },
			{ email: 'new@example.com', first: 'N', last: 'New', note: 'n' },
		]);
		expectNoOutputError(result);
		const gets = lookups();
		expect(gets.map((request) => whereOf(request)[0].type)).toEqual(['in', 'equals', 'equals']);
		expect(bed.received('PUT')).toHaveLength(1);
		expect(bed.received('POST')).toHaveLength(1);
		expect(store().count('Contact')).toBe(2);
	});

	test('a look-up that keeps failing (503 beyond the retries) fails its items only, with Continue on fail', async () => {
		const items = Array.from({ length: 4 }, (_, n) => ({
			email: `c${n}@example.com`,
			first: 'C',
			last: `C${n}`,
			note: '',
		}));
		bed.sandbox.faults.failNext({ method: 'GET', pathPrefix: '/Contact', status: 503, count: 1 });
		const result = await bed.run(
			upsertByEmail({
				upsertOptions: { valuesPerLookup: 2 },
				requestSettings: { maxRetries: 0, maxParallel: 1 },
			}),
			items,
			{ onError: 'continueRegularOutput' },
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(4);
		expect((result.items[0].error as RunResult['error'])?.httpCode).toBe('503');
		expect((result.items[1].error as RunResult['error'])?.httpCode).toBe('503');
		// One request failed for both items: each error names its own item.
		expect(
			result.items
				.slice(0, 2)
				.map((item) => (item.error as RunResult['error'])?.context?.itemIndex),
		).toEqual([0, 1]);
		expect(result.items[2].error).toBeUndefined();
		expect(result.items[3].error).toBeUndefined();
		expect(lookups()).toHaveLength(2);
		expect(bed.received('POST').map((request) => request.body.emailAddress)).toEqual([
			'c2@example.com',
			'c3@example.com',
		]);
	});

	test('a create the server refuses fails that item; the next item of the value looks again and creates', async () => {
		bed.sandbox.faults.failNext({
			method: 'POST',
			pathPrefix: '/Contact',
			status: 400,
			reason: 'Field validation failure',
		});
		const result = await bed.run(
			upsertByEmail(),
			[
				{ email: 'x@example.com', first: 'X', last: 'One', note: '1' },
				{ email: 'y@example.com', first: 'Y', last: 'Two', note: '2' },
				{ email: 'x@example.com', first: 'X', last: 'Three', note: '3' },
			],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items).toHaveLength(3);
		expect((result.items[0].error as RunResult['error'])?.httpCode).toBe('400');
		expect(result.items[1].json).toMatchObject({ emailAddress: 'y@example.com' });
		expect(result.items[2].json).toMatchObject({
			emailAddress: 'x@example.com',
			lastName: 'Three',
		});
		// Look-up of both values, the failed create, y's create, x looked up again, x's create.
		expect(lookups().map((request) => whereOf(request)[0].type)).toEqual(['in', 'equals']);
		expect(bed.received('POST')).toHaveLength(3);
		expect(store().count('Contact')).toBe(2);
	});

	test('an update refused (404) fails that item; the next item of the value looks again before it writes', async () => {
		const gone = store().create('Contact', { lastName: 'Gone', emailAddress: 'gone@example.com' });
		bed.sandbox.faults.failNext({ method: 'PUT', pathPrefix: `/Contact/${gone.id}`, status: 404 });
		const result = await bed.run(
			upsertByEmail(),
			[
				{ email: 'gone@example.com', first: 'G', last: 'One', note: '1' },
				{ email: 'gone@example.com', first: 'G', last: 'Two', note: '2' },
			],
			{ onError: 'continueRegularOutput' },
		);
		expect((result.items[0].error as RunResult['error'])?.httpCode).toBe('404');
		// The record is still there (the 404 came from the fault switch): the second item finds it again and updates it.
		expect(result.items[1].json).toMatchObject({ id: gone.id, lastName: 'Two' });
		expect(paths(bed.received())).toEqual([
			'GET /Contact',
			`PUT /Contact/${gone.id}`,
			'GET /Contact',
			`PUT /Contact/${gone.id}`,
		]);
		expect(whereOf(lookups()[1])).toEqual([
			{ type: 'equals', attribute: 'emailAddress', value: 'gone@example.com' },
		]);
	});

	test('bad input of one item: with Continue on fail the others are written, without it nothing is sent', async () => {
		const items = [
			{ email: 'a@example.com', first: 'A', last: 'A', note: '' },
			{ email: '   ', first: 'B', last: 'B', note: '' },
			{ email: 'c@example.com', first: 'C', last: 'C', note: '' },
		];
		const continued = await bed.run(upsertByEmail(), items, { onError: 'continueRegularOutput' });
		expect((continued.items[1].error as RunResult['error'])?.message).toContain(
			'"Match Value" is empty (item 1)',
		);
		expect(continued.items[0].json).toMatchObject({ emailAddress: 'a@example.com' });
		expect(continued.items[2].json).toMatchObject({ emailAddress: 'c@example.com' });
		expect(paths(bed.received())).toEqual(['GET /Contact', 'POST /Contact', 'POST /Contact']);

		bed.sandbox.clearRequests();
		const failed = await bed.run(upsertByEmail(), items);
		expect(failed.error?.name).toBe('NodeOperationError');
		expect(failed.error?.message).toContain('"Match Value" is empty (item 1)');
		expect(bed.received()).toEqual([]);
	});
});

describe('Create or Update trusts no answer that is not a record', () => {
	test("a create answered with a JSON list fails its item; the value's next item does not write to /undefined", async () => {
		bed.sandbox.faults.answerNext({ kind: 'list', method: 'POST' });
		const items = [
			{ email: 'eve@example.com', first: 'Eve', last: 'One', note: 'first' },
			{ email: 'eve@example.com', first: 'Eve', last: 'Two', note: 'second' },
		];
		const result = await bed.run(upsertByEmail(), items, { onError: 'continueRegularOutput' });
		expect(result.items[0].error?.message).toMatch(/is not a record/);
		expect(paths(bed.received()).filter((path) => path.includes('undefined'))).toEqual([]);
		// The second item looks again (the first may or may not have been created) and writes once.
		expect(result.items[1].error).toBeUndefined();
		expect(
			store()
				.list('Contact')
				.filter((contact) => contact.lastName === 'Two'),
		).toHaveLength(1);
	});

	test('values that differ only in accents are one record, as in EspoCRM\'s collation: "José" updates the stored "Jose"', async () => {
		const jose = store().create('Account', { name: 'Jose' });
		const accounts = {
			resource: 'record',
			operation: 'upsert',
			entityType: 'Account',
			matchField: 'name',
			matchValue: '={{ $json.name }}',
			fields: { description: '={{ $json.note }}' },
		};
		const result = await bed.run(accounts, [
			{ name: 'Jose', note: 'one' },
			{ name: 'José', note: 'two' },
		]);
		expectNoOutputError(result);
		expect(bed.received('POST')).toEqual([]);
		expect(store().list('Account')).toEqual([
			expect.objectContaining({ id: jose.id, description: 'two' }),
		]);
	});
});

describe('Create or Update by phone number (issue 40.1): matched in the form EspoCRM stores it', () => {
	const upsertByPhone = {
		resource: 'record',
		operation: 'upsert',
		entityType: 'Contact',
		matchField: 'phoneNumber',
		matchValue: '={{ $json.phone }}',
		fields: { lastName: '={{ $json.last }}', description: '={{ $json.note }}' },
	};
	const number = (n: number) => `+1555400${String(n).padStart(4, '0')}`;

	test('20 items written "+1 555 400 0041" update the 20 contacts stored as "+15554000041": one look-up, no create', async () => {
		const stored = Array.from({ length: 20 }, (_, n) =>
			store().create('Contact', { lastName: `Phone${n}`, phoneNumber: number(41 + n) }),
		);
		expect(stored.map((contact) => contact.phoneNumber)).toEqual(
			Array.from({ length: 20 }, (_, n) => number(41 + n)),
		);
		const items = Array.from({ length: 20 }, (_, n) => ({
			phone: ` +1 555 400 ${String(41 + n).padStart(4, '0')} `,
			last: `Phone${n}`,
			note: 'updated',
		}));

		const result = await bed.run(upsertByPhone, items);
		expectNoOutputError(result);

		expect(bed.received('POST')).toEqual([]);
		expect(
			bed
				.received('PUT')
				.map((request) => request.path)
				.sort(),
		).toEqual(stored.map((contact) => `/Contact/${contact.id}`).sort());
		expect(result.json.map((json) => json.id)).toEqual(stored.map((contact) => contact.id));
		expect(store().count('Contact')).toBe(20);
		// One look-up: each value as EspoCRM stores it and as given.
		expect(lookups()).toHaveLength(1);
		const [where] = whereOf(lookups()[0]);
		expect(where).toMatchObject({ type: 'in', attribute: 'phoneNumber' });
		expect(where.value).toEqual(
			expect.arrayContaining([number(41), '+1 555 400 0041', number(60), '+1 555 400 0060']),
		);
	});

	test('in a field that is not a phone field, "+1 23" and "+123" are two values: two records are created', async () => {
		const result = await bed.run(
			{ ...upsertByPhone, matchField: 'description', fields: { lastName: '={{ $json.last }}' } },
			[
				{ phone: '+1 23', last: 'Spaced' },
				{ phone: '+123', last: 'Joined' },
			],
		);
		expectNoOutputError(result);
		expect(bed.received('POST').map((request) => request.body)).toEqual([
			{ lastName: 'Spaced', description: '+1 23' },
			{ lastName: 'Joined', description: '+123' },
		]);
		expect(store().count('Contact')).toBe(2);
	});

	test('other spellings EspoCRM stores in E.164, a second number, a number without "+" and a new one written twice', async () => {
		const dashed = store().create('Contact', { lastName: 'Dashed', phoneNumber: number(70) });
		const extension = store().create('Contact', { lastName: 'Extension', phoneNumber: number(71) });
		const vanity = store().create('Contact', { lastName: 'Vanity', phoneNumber: '+1 800 FLOWERS' });
		const second = store().create('Contact', {
			lastName: 'Second',
			phoneNumber: number(72),
			phoneNumberData: [
				{ phoneNumber: number(72), primary: true },
				{ phoneNumber: '+1 555 400 0073', primary: false },
			],
		});
		const local = store().create('Contact', { lastName: 'Local', phoneNumber: '555 400 0074' });
		// As EspoCRM 8.1.5 stores them.
		expect([
			vanity.phoneNumber,
			store().get('Contact', second.id)?.phoneNumberData,
			local.phoneNumber,
		]).toEqual([
			'+18003569377',
			[
				expect.objectContaining({ phoneNumber: number(72) }),
				expect.objectContaining({ phoneNumber: number(73) }),
			],
			'555 400 0074',
		]);

		const result = await bed.run(upsertByPhone, [
			{ phone: '+1 (555) 400-0070', last: 'Dashed', note: 'dashed' },
			{ phone: '+1.555.400.0071 ext. 9', last: 'Extension', note: 'extension' },
			{ phone: '+1-800-flowers', last: 'Vanity', note: 'vanity' },
			{ phone: '+1 555 400 0073', last: 'Second', note: 'second' },
			{ phone: '555 400 0074', last: 'Local', note: 'local' },
			{ phone: '+1 555 400 0075', last: 'New', note: 'created' },
			{ phone: '+15554000075', last: 'New', note: 'updated' },
		]);
		expectNoOutputError(result);

		expect(result.json.map((json) => json.id)).toEqual([
			dashed.id,
			extension.id,
			vanity.id,
			second.id,
			local.id,
			expect.any(String),
			result.json[5].id,
		]);
		expect(bed.received('POST')).toHaveLength(1);
		expect(store().count('Contact')).toBe(6);
		expect(store().get('Contact', String(result.json[5].id))).toMatchObject({
			phoneNumber: number(75),
			description: 'updated',
		});
	});

	const items = [
		{ phone: '+1 555 400 0041', last: 'Spaced', note: 'updated' },
		{ phone: '+15554000042', last: 'Joined', note: 'updated' },
		{ phone: '+1.555.400.0043', last: 'Dotted', note: 'updated' },
		{ phone: '+1 555 400 0044 ext. 12', last: 'Extension', note: 'updated' },
		{ phone: '+1 555 400 0045', last: 'Second', note: 'updated' },
		{ phone: '555 400 0046', last: 'Local', note: 'updated' },
	];
	/** Contacts written in other forms than the items: as 7.5 stores them, as written; 8.x in E.164. */
	const storeContacts = () => [
		store().create('Contact', { lastName: 'Spaced', phoneNumber: '+1 (555) 400-0041' }),
		store().create('Contact', { lastName: 'Joined', phoneNumber: '+1 555 400 0042' }),
		store().create('Contact', { lastName: 'Dotted', phoneNumber: '+1-555-400-0043' }),
		store().create('Contact', { lastName: 'Extension', phoneNumber: '+1 (555) 400-0044 ext. 12' }),
		store().create('Contact', {
			lastName: 'Second',
			phoneNumber: '+1 555 400 9999',
			phoneNumberData: [
				{ phoneNumber: '+1 555 400 9999', primary: true },
				{ phoneNumber: '+1 (555) 400-0045', primary: false },
			],
		}),
		store().create('Contact', { lastName: 'Local', phoneNumber: '555 400 0046' }),
	];

	test.each(['7.5.6', '8.1.5'])(
		'EspoCRM %s (7.5 stores numbers as written, issue 46): every item updates its contact, however each number was written and stored: one look-up, no create',
		async (version) => {
			bed.sandbox.setDialect('espocrm');
			bed.use('apiKey', 'espocrm');
			bed.sandbox.setServerVersion(version);
			const stored = storeContacts();
			expect(stored.map((contact) => contact.phoneNumber)).toEqual(
				version === '7.5.6'
					? [
							'+1 (555) 400-0041',
							'+1 555 400 0042',
							'+1-555-400-0043',
							'+1 (555) 400-0044 ext. 12',
							'+1 555 400 9999',
							'555 400 0046',
						]
					: [
							'+15554000041',
							'+15554000042',
							'+15554000043',
							'+15554000044',
							'+15554009999',
							'555 400 0046',
						],
			);

			const result = await bed.run(upsertByPhone, items);
			expectNoOutputError(result);

			expect(result.json.map((json) => json.id)).toEqual(stored.map((contact) => contact.id));
			expect(bed.received('POST')).toEqual([]);
			expect(store().count('Contact')).toBe(6);
			// One look-up: the numbers written with "+" by their digits (any form stored), the local one as text; the
			// record found only by its second number read to place it.
			const lookups = bed.received('GET').filter((request) => request.path === '/Contact');
			expect(lookups).toHaveLength(1);
			const [where] = (lookups[0].query as IDataObject).where as IDataObject[];
			expect(where).toEqual({
				type: 'or',
				value: [
					{
						type: 'in',
						attribute: 'phoneNumberNumeric',
						value: [
							'15554000041',
							'15554000042',
							'15554000043',
							'15554000044',
							'1555400004412',
							'15554000045',
						],
					},
					{ type: 'in', attribute: 'phoneNumber', value: ['555 400 0046'] },
				],
			});
			expect(paths(bed.received('GET')).filter((path) => path !== 'GET /Contact')).toEqual([
				`GET /Contact/${stored[4].id}`,
			]);
		},
	);

	test('a Standard server has no digits attribute: the number is looked up as given and in E.164, as before', async () => {
		bed.sandbox.setDialect('standard');
		store().create('Contact', { lastName: 'Joined', phoneNumber: '+15554000042' });
		const result = await bed.run(upsertByPhone, [items[1]]);
		expectNoOutputError(result);
		const [lookup] = bed.received('GET');
		expect((lookup.query as IDataObject).where).toEqual([
			{ type: 'in', attribute: 'phoneNumber', value: ['+15554000042'] },
		]);
	});
});
