import { useSandbox } from './harness/sandboxRun';

const bed = useSandbox();

const createContact = {
	resource: 'record',
	operation: 'create',
	entityType: 'Contact',
	bodyMode: 'json',
	jsonBody: '={{ JSON.stringify({ firstName: "P", lastName: "N" + $itemIndex }) }}',
};
const getContact = (id: string) => ({
	resource: 'record',
	operation: 'get',
	entityType: 'Contact',
	recordId: { __rl: true, mode: 'id', value: id },
});
const items = (count: number) => Array.from({ length: count }, (_unused, index) => ({ index }));

describe('transient faults', () => {
	test("n8n's own Retry On Fail re-sends the items that had succeeded: 1 failure among 50 creates makes duplicates", async () => {
		// This is why the node retries by itself: n8n re-runs the whole node with all its items.
		bed.sandbox.faults.failEvery({ every: 25, status: 500, method: 'POST', times: 1 });
		const result = await bed.run(
			{ ...createContact, createOptions: { skipDuplicateCheck: true } },
			items(50),
			{
				settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
			},
		);
		expect(result.error).toBeUndefined();
		// The first run created the items before the failure (and those under way), the second run all 50 again.
		const records = bed.sandbox.store.list('Contact');
		expect(new Set(records.map((record) => record.lastName)).size).toBe(50);
		expect(records.length).toBeGreaterThanOrEqual(24 + 50);
	});

	test("n8n's Retry On Fail after a refused credential tries again: the retry does not inherit the refusal", async () => {
		// A password changed on the server and back, a token revoked and re-issued: the second try must send.
		bed.sandbox.faults.failNext({ count: 2, status: 401, method: 'POST' });
		const result = await bed.run(
			{ ...createContact, createOptions: { skipDuplicateCheck: true } },
			items(3),
			{
				settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.json).toHaveLength(3);
		// First try: the first request alone, refused twice (n8n itself sends it again after a 401), so the others were
		// not sent; second try: all three.
		expect(bed.received('POST').map((request) => request.status)).toEqual([
			401, 401, 200, 200, 200,
		]);
	});

	test("the same for a routed operation (Get), whose items n8n's retry routes again with the same execute data", async () => {
		const ids = ['A', 'B', 'C'].map(
			(lastName) => bed.sandbox.store.create('Contact', { lastName }).id as string,
		);
		bed.sandbox.faults.failNext({ count: 2, status: 401, method: 'GET' });
		const result = await bed.run(
			getContact('={{ $json.id }}'),
			ids.map((id) => ({ id })),
			{
				settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.json.map((record) => record.id)).toEqual(ids);
		expect(bed.received('GET').map((request) => request.status)).toEqual([401, 401, 200, 200, 200]);
	});

	test('500 creates with injected 429s and 503s end with exactly 500 records and no error', async () => {
		bed.sandbox.faults.failEvery({
			every: 7,
			status: 429,
			retryAfter: 0,
			reason: 'Slow down',
			method: 'POST',
		});
		bed.sandbox.faults.failEvery({ every: 11, status: 503, retryAfter: 0, method: 'POST' });
		const result = await bed.run(createContact, items(500));
		expect(result.error).toBeUndefined();
		expect(result.items.filter((item) => item.error)).toHaveLength(0);
		expect(result.json).toHaveLength(500);
		expect(bed.sandbox.store.count('Contact')).toBe(500);
		const refused = bed
			.received('POST')
			.filter((request) => request.status === 429 || request.status === 503);
		expect(refused.length).toBeGreaterThan(50);
		// Every item keeps its own record: the output ids are the 500 records on the server.
		expect(new Set(result.json.map((json) => json.id)).size).toBe(500);
	});

	test('a create whose connection drops is not sent again (the server may have carried it out)', async () => {
		bed.sandbox.faults.dropNext({ method: 'POST' });
		const result = await bed.run(createContact, [{}]);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toMatch(/could not be reached/);
		expect(result.error?.description).toMatch(/not resent/);
		expect(bed.received('POST')).toHaveLength(1);
	});

	test('a read whose connection drops, or that meets 502 or 504, is sent again', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'A', lastName: 'B' });
		bed.sandbox.faults.dropNext({ method: 'GET' });
		bed.sandbox.faults.failNext({ status: 502, method: 'GET' });
		bed.sandbox.faults.failNext({ status: 504, method: 'GET' });
		const result = await bed.run(getContact(contact.id));
		expect(result.error).toBeUndefined();
		expect(result.json[0].id).toBe(contact.id);
		expect(bed.received('GET').map((request) => request.status)).toEqual([0, 502, 504, 200]);
	});

	test('a Retry-After beyond the allowed wait fails at once, with the server reason kept', async () => {
		bed.sandbox.faults.failNext({ status: 429, retryAfter: 3600, reason: 'Rate limit reached' });
		const result = await bed.run({
			...getContact('x'),
			requestSettings: { maxRetryWaitSeconds: 5 },
		});
		expect(result.error?.httpCode).toBe('429');
		expect(result.error?.message).toContain('Rate limit reached');
		expect(bed.received()).toHaveLength(1);
	});

	test('2,000 items against a server that refuses more than 8 requests in flight finish without errors under the defaults', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'A', lastName: 'B' });
		bed.sandbox.faults.maxInFlight = { limit: 8, status: 503, retryAfter: 1 };
		const result = await bed.run(getContact(contact.id), items(2000));
		expect(result.error).toBeUndefined();
		expect(result.json).toHaveLength(2000);
		expect(bed.received().filter((request) => request.status === 503)).toHaveLength(0);
		expect(bed.sandbox.maxInFlightSeen).toBeLessThanOrEqual(5);
	});
});

describe('server errors', () => {
	test.each([
		[
			400,
			'Field validation failure; entityType: Contact, field: lastName, type: required.',
			/fields sent/,
		],
		[401, '', /credential/],
		[403, 'No edit access.', /role/],
		[403, 'Max size should not exceed 200. Use offset and limit.', /Return All or a Limit/],
		[404, 'Record x does not exist.', /record ID/],
		[409, 'modified', /Read the record again/],
		[500, '', /server log/],
		[502, '', /try again later/],
		[503, 'Maintenance', /try again later/],
	])(
		'%i %s becomes a NodeApiError with the status, the reason and what to do',
		async (status, reason, advice) => {
			bed.sandbox.faults.failNext({ status, reason, count: 3 });
			const result = await bed.run({
				...getContact('x'),
				requestSettings: { maxRetries: 1, maxRetryWaitSeconds: 0 },
			});
			expect(result.error?.name).toBe('NodeApiError');
			expect(result.error?.httpCode).toBe(String(status));
			expect(result.error?.message).toContain(`(${status})`);
			if (reason) expect(result.error?.message).toContain(reason);
			expect(result.error?.description).toMatch(advice);
		},
	);

	test('a 409 duplicate names the records found and points at "Skip Duplicate Check"', async () => {
		bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: 'Lovelace' });
		const result = await bed.run({
			resource: 'record',
			operation: 'create',
			entityType: 'Contact',
			fields: { firstName: 'Ada', lastName: 'Lovelace' },
		});
		expect(result.error?.httpCode).toBe('409');
		expect(result.error?.message).toContain('Ada Lovelace');
		expect(result.error?.description).toContain('Skip Duplicate Check');
	});

	test('with "Continue on fail", failed items carry their error and all others succeed', async () => {
		const contacts = [1, 2, 3, 4].map((n) =>
			bed.sandbox.store.create('Contact', { firstName: 'C', lastName: `N${n}` }),
		);
		const ids = [
			contacts[0].id,
			'missing-1',
			contacts[1].id,
			'missing-2',
			contacts[2].id,
			contacts[3].id,
		];
		const result = await bed.run(
			{ ...getContact('={{ $json.id }}') },
			ids.map((id) => ({ id })),
			{ onError: 'continueRegularOutput' },
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(6);
		expect(result.items.map((item) => (item.error ? 'error' : item.json.id))).toEqual([
			contacts[0].id,
			'error',
			contacts[1].id,
			'error',
			contacts[2].id,
			contacts[3].id,
		]);
		expect(String(result.items[1].error?.message)).toContain('Record missing-1 does not exist.');
	});

	test('refused credentials stop the run after the first request instead of repeating a failed login per item', async () => {
		bed.use('apiKey', 'standard', { apiKey: 'wrong' });
		const result = await bed.run(getContact('x'), items(30), { onError: 'continueRegularOutput' });
		expect(result.items).toHaveLength(30);
		expect(result.items.every((item) => item.error?.message.includes('(401)'))).toBe(true);
		// n8n itself repeats a 401 once (to refresh a token); the other 29 items send nothing.
		expect(bed.received().length).toBeLessThanOrEqual(2);
	});
});
