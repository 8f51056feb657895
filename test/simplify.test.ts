import { useSandbox } from './harness/sandboxRun';

/**
 * Simplify (shared/operation/simplify.ts): a compact form of the records Get, Get Many, Get Many Related, Create and Update
 * return, off by default. The node as an AI agent's tool is tested in the real n8n (npm run test:agents).
 */
const bed = useSandbox();

const BOOKKEEPING =
	/^(deleted|isFollowed|followersIds|followersNames|createdById|createdByName|modifiedById|modifiedByName)$|(Data|IsOptedOut|IsInvalid|Columns)$/;

const CUSTOM_LOOKALIKES = ['cShippingData', 'cSurveyColumns', 'constructorData'];

function expectCompact(record: Record<string, unknown>) {
	for (const [name, value] of Object.entries(record)) {
		expect({ name, value }).not.toEqual({ name, value: null });
		expect({ name, value }).not.toEqual({ name, value: '' });
		expect({ name, value }).not.toEqual({ name, value: [] });
		expect({ name, value }).not.toEqual({ name, value: {} });
		// custom fields that only end like EspoCRM's details: the last test
		if (!CUSTOM_LOOKALIKES.includes(name)) expect(name).not.toMatch(BOOKKEEPING);
	}
}

function seedAda() {
	return bed.sandbox.store.create('Contact', {
		firstName: 'Ada',
		lastName: 'Lovelace',
		emailAddress: 'ada@example.com',
		phoneNumber: '+44 20 7946 0000',
	});
}

describe('Simplify', () => {
	test('Get Many: off by default, every field as before; on, the same request and only the fields with a value', async () => {
		seedAda();
		const list = { resource: 'record', operation: 'getMany', entityType: 'Contact', limit: 10 };
		const full = await bed.run(list);
		const compact = await bed.run({ ...list, simplify: true });
		const [before, after] = bed.received('GET');
		expect(after.rawQuery).toBe(before.rawQuery);

		expect(full.json).toHaveLength(1);
		expect(full.json[0]).toHaveProperty('deleted', false);
		expect(full.json[0]).toHaveProperty('middleName', null);
		expect(full.json[0]).toHaveProperty('emailAddressIsOptedOut', false);

		expect(compact.json).toHaveLength(1);
		expectCompact(compact.json[0]);
		expect(compact.json[0]).toMatchObject({
			id: full.json[0].id,
			name: 'Ada Lovelace',
			firstName: 'Ada',
			lastName: 'Lovelace',
			emailAddress: 'ada@example.com',
			phoneNumber: full.json[0].phoneNumber,
			createdAt: full.json[0].createdAt,
		});
		// every field kept has the value the full record has
		for (const [name, value] of Object.entries(compact.json[0]))
			expect(full.json[0][name]).toEqual(value);
		expect(compact.items[0].pairedItem).toEqual({ item: 0 });
	});

	test('Get: the record by ID, compact when asked', async () => {
		const ada = seedAda();
		const get = {
			resource: 'record',
			operation: 'get',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'id', value: ada.id },
		};
		const full = await bed.run(get);
		const compact = await bed.run({ ...get, simplify: true });
		expect(full.json[0]).toHaveProperty('emailAddressData');
		expect(full.json[0]).toHaveProperty('followersIds');
		expectCompact(compact.json[0]);
		expect(compact.json[0]).toMatchObject({ id: ada.id, emailAddress: 'ada@example.com' });
		expect(bed.received('GET').map((r) => r.path)).toEqual([
			`/Contact/${ada.id}`,
			`/Contact/${ada.id}`,
		]);
	});

	test('per item, from an expression; Get Many Related and Create too', async () => {
		const account = bed.sandbox.store.create('Account', { name: 'Analytical Engines' });
		const deal = bed.sandbox.store.create('Opportunity', {
			name: 'Difference Engine',
			stage: 'Prospecting',
			amount: 1000,
			accountId: account.id,
		});
		const related = await bed.run(
			{
				resource: 'relationship',
				operation: 'getManyRelated',
				entityType: 'Account',
				recordId: { __rl: true, mode: 'id', value: account.id },
				link: 'opportunities',
				simplify: '={{ $json.compact }}',
			},
			[{ compact: true }, { compact: false }],
		);
		expect(related.json).toHaveLength(2);
		expectCompact(related.json[0]);
		expect(related.json[0]).toMatchObject({
			id: deal.id,
			name: 'Difference Engine',
			stage: 'Prospecting',
			accountName: 'Analytical Engines',
		});
		expect(Object.values(related.json[1])).toContain(null);
		expect(related.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);

		const created = await bed.run({
			resource: 'record',
			operation: 'create',
			entityType: 'Lead',
			simplify: true,
			fields: { lastName: 'Babbage' },
		});
		expectCompact(created.json[0]);
		expect(created.json[0]).toMatchObject({ lastName: 'Babbage' });
		expect(created.json[0].id).toBe(bed.sandbox.store.list('Lead')[0].id);
	});

	test('a list that finds nothing still returns no items outside an AI agent', async () => {
		const result = await bed.run({
			resource: 'record',
			operation: 'getMany',
			entityType: 'Contact',
			simplify: true,
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toEqual([]);
	});

	test('with Continue on fail, a failed item keeps its error and the others are simplified', async () => {
		const ada = seedAda();
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'update',
				entityType: 'Contact',
				simplify: true,
				recordId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				fields: { description: 'Countess' },
			},
			[{ id: ada.id }, { id: '0000000000000dead' }],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items).toHaveLength(2);
		expectCompact(result.json[0]);
		expect(result.json[0]).toMatchObject({ id: ada.id });
		expect(result.items[1].json.error).toMatch(/404/);
	});

	test('details are left out next to the field they belong to; a custom field that only ends the same way is kept', async () => {
		// An EspoCRM record with custom fields whose names end like its details (the sandbox knows no such fields).
		const record = {
			id: 'c0ffee0000000001',
			name: 'Ada Lovelace',
			emailAddress: 'ada@example.com',
			emailAddressData: [
				{ emailAddress: 'ada@example.com', primary: true, optOut: false, invalid: false },
			],
			emailAddressIsOptedOut: false,
			phoneNumberData: [{ phoneNumber: '+44 20 7946 0000', primary: true }],
			accountsIds: ['a1'],
			accountsNames: { a1: 'Analytical Engines' },
			accountsColumns: { a1: { role: 'Author' } },
			cShippingData: 'Dock 4',
			cSurveyColumns: 'Q1, Q2',
			constructorData: 'kept: not a field of the record',
		};
		bed.sandbox.faults.failNext({
			method: 'GET',
			pathPrefix: `/Contact/${record.id}`,
			status: 200,
			body: record,
		});
		const result = await bed.run({
			resource: 'record',
			operation: 'get',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'id', value: record.id },
			simplify: true,
		});
		expect(result.json).toEqual([
			{
				id: record.id,
				name: 'Ada Lovelace',
				emailAddress: 'ada@example.com',
				accountsIds: ['a1'],
				accountsNames: { a1: 'Analytical Engines' },
				cShippingData: 'Dock 4',
				cSurveyColumns: 'Q1, Q2',
				constructorData: 'kept: not a field of the record',
			},
		]);
		expectCompact(result.json[0]);
	});
});
