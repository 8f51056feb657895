/**
 * Lists as EspoCRM users search them (issue 32): Search Text, the EspoCRM Filter and its check-box filters on Get Many,
 * Get Many Related, the polling trigger and the record locator; and Return All paging by ID. Run through n8n's engine
 * against the sandbox, which answers these parameters as EspoCRM 8.1.5 does (test/sandbox/search.js).
 */
import type { IDataObject } from 'n8n-workflow';

import { loadFormList } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';
import { pollingTrigger } from './harness/triggers';
import { SANDBOX_CREDENTIALS, SANDBOX_USERS } from './sandbox';
import type { RecordedRequest } from './sandbox';

let onRequest: ((request: RecordedRequest) => void) | undefined;
const bed = useSandbox({ onRequest: (request) => onRequest?.(request) });

beforeEach(() => {
	onRequest = undefined;
	bed.use('apiKey', 'espocrm');
});

const store = () => bed.sandbox.store;
const names = (items: IDataObject[]) => items.map((item) => String(item.name)).sort();
const getMany = (parameters: IDataObject) => ({
	resource: 'record',
	operation: 'getMany',
	returnAll: true,
	...parameters,
});
const lists = () =>
	bed
		.received('GET')
		.filter(
			(request) => !request.path.startsWith('/Metadata') && !request.path.startsWith('/I18n'),
		);

function contacts() {
	return {
		ada: store().create('Contact', {
			firstName: 'Ada',
			lastName: 'Lovelace',
			emailAddress: 'ada@engines.example.com',
			phoneNumber: '+44 20 7946 0001',
		}),
		grace: store().create('Contact', {
			firstName: 'Grace',
			lastName: 'Hopper',
			emailAddress: 'grace@navy.example.com',
			phoneNumber: '+1 555 0100',
		}),
		alan: store().create('Contact', {
			firstName: 'Alan',
			lastName: 'Turing',
			emailAddress: 'alan@bletchley.example.com',
			description: 'Adams',
		}),
	};
}

describe('Search Text', () => {
	test('finds by the start of a name and by e-mail address, as the search box does; combines with the conditions', async () => {
		contacts();
		const byName = await bed.run(getMany({ entityType: 'Contact', searchText: 'ada' }));
		expect(names(byName.json)).toEqual(['Ada Lovelace']);
		const byLastName = await bed.run(getMany({ entityType: 'Contact', searchText: 'hop' }));
		expect(names(byLastName.json)).toEqual(['Grace Hopper']);
		const byEmail = await bed.run(getMany({ entityType: 'Contact', searchText: 'alan@' }));
		expect(names(byEmail.json)).toEqual(['Alan Turing']);
		// With * the text is the whole pattern: any contact with an address at example.com.
		const wildcard = await bed.run(getMany({ entityType: 'Contact', searchText: '*.example.com' }));
		expect(names(wildcard.json)).toEqual(['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);
		const combined = await bed.run(
			getMany({
				entityType: 'Contact',
				searchText: '*.example.com',
				filterMode: 'conditions',
				conditions: { condition: [{ attribute: 'lastName', operator: 'startsWith', value: 'T' }] },
			}),
		);
		expect(names(combined.json)).toEqual(['Alan Turing']);
		const sent = lists().map((request) => request.query);
		expect(sent.map((query) => query.textFilter)).toEqual([
			'ada',
			'hop',
			'alan@',
			'*.example.com',
			'*.example.com',
		]);
		expect(sent[4].where).toEqual([{ type: 'startsWith', attribute: 'lastName', value: 'T' }]);
	});

	test('Get Many Related searches the related records', async () => {
		const account = store().create('Account', { name: 'Engines Ltd' });
		const { ada, grace } = contacts();
		store().link('Account', account.id, 'contacts', ada.id);
		store().link('Account', account.id, 'contacts', grace.id);
		const result = await bed.run({
			resource: 'relationship',
			operation: 'getManyRelated',
			entityType: 'Account',
			recordId: { __rl: true, mode: 'id', value: account.id },
			link: 'contacts',
			returnAll: true,
			searchText: 'grace',
		});
		expect(result.error).toBeUndefined();
		expect(result.json.map((record) => record.id)).toEqual([grace.id]);
		expect(lists().find((request) => request.path.endsWith('/contacts'))?.query.textFilter).toBe(
			'grace',
		);
	});

	test('on a Standard server it is refused before any request, naming the parameter and the item; other items go on', async () => {
		bed.use('apiKey', 'standard');
		contacts();
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'getMany',
				entityType: 'Contact',
				limit: 5,
				searchText: '={{ $json.search }}',
			},
			[{ search: 'ada' }, { search: '' }],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items[0].error?.message).toBe(
			'The parameter "Search Text (EspoCRM)" works with EspoCRM servers only (item 0)',
		);
		expect(result.items.slice(1).every((item) => item.error === undefined)).toBe(true);
		expect(lists()).toHaveLength(1);
		expect(lists()[0].query.textFilter).toBeUndefined();
	});
});

describe('EspoCRM Filter and check-box filters', () => {
	test('primary filters of Lead and Opportunity return what their definition says', async () => {
		for (const status of ['New', 'In Process', 'Converted', 'Dead'])
			store().create('Lead', { lastName: status, status });
		for (const stage of ['Prospecting', 'Closed Won', 'Closed Lost'])
			store().create('Opportunity', { name: stage, stage });
		const actual = await bed.run(getMany({ entityType: 'Lead', primaryFilter: 'actual' }));
		expect(names(actual.json)).toEqual(['In Process', 'New']);
		const converted = await bed.run(getMany({ entityType: 'Lead', primaryFilter: 'converted' }));
		expect(names(converted.json)).toEqual(['Converted']);
		const open = await bed.run(getMany({ entityType: 'Opportunity', primaryFilter: 'open' }));
		expect(names(open.json)).toEqual(['Prospecting']);
		const won = await bed.run(
			getMany({ entityType: 'Opportunity', primaryFilter: 'won', searchText: 'closed' }),
		);
		expect(names(won.json)).toEqual(['Closed Won']);
		expect(lists().map((request) => request.query.primaryFilter)).toEqual([
			'actual',
			'converted',
			'open',
			'won',
		]);
	});

	test("an unknown filter is the server's error, with its reason", async () => {
		const result = await bed.run(getMany({ entityType: 'Lead', primaryFilter: 'nope' }));
		expect(result.error?.message).toContain('500');
		expect(JSON.stringify(result.error)).toContain("No primary filter 'nope' for 'Lead'.");
	});

	test('Only My and Followed depend on the API user: the record it follows (through the API) and the one assigned to it', async () => {
		const { ada, grace, alan } = contacts();
		store().update('Contact', alan.id, { assignedUserId: SANDBOX_USERS.apiKey.id });
		const followed = await fetch(`${bed.sandbox.origin}/api/v1/Contact/${ada.id}/subscription`, {
			method: 'PUT',
			headers: { 'X-Api-Key': SANDBOX_CREDENTIALS.apiKey },
		});
		expect(await followed.json()).toBe(true);
		const onlyFollowed = await bed.run(
			getMany({ entityType: 'Contact', boolFilterList: ['followed'] }),
		);
		// The user assigned to a record follows it (EspoCRM's stream hook).
		expect(onlyFollowed.json.map((record) => record.id).sort()).toEqual([ada.id, alan.id].sort());
		const onlyMy = await bed.run(getMany({ entityType: 'Contact', boolFilterList: ['onlyMy'] }));
		expect(onlyMy.json.map((record) => record.id)).toEqual([alan.id]);
		const either = await bed.run(
			getMany({ entityType: 'Contact', boolFilterList: 'onlyMy, followed' }),
		);
		expect(either.json.map((record) => record.id).sort()).toEqual([ada.id, alan.id].sort());
		expect(either.json.map((record) => record.id)).not.toContain(grace.id);
		// Another API user follows nothing.
		bed.use('hmac', 'espocrm');
		const otherUser = await bed.run(
			getMany({ entityType: 'Contact', boolFilterList: ['followed'] }),
		);
		expect(otherUser.json).toEqual([]);
		expect(lists().map((request) => request.query.boolFilterList)).toEqual([
			['followed'],
			['onlyMy'],
			['onlyMy', 'followed'],
			['followed'],
		]);
	});

	test("the lists of the form: the entity type's filters and check-boxes, with the CRM's labels; the related type's for Get Many Related", async () => {
		const load = async (method: string, parameters: IDataObject) =>
			(await loadFormList(bed.store, 'loadOptions', method, parameters)) as Array<{
				name: string;
				value: string;
			}>;
		const lead = { resource: 'record', operation: 'getMany', entityType: 'Lead' };
		expect((await load('getPrimaryFilters', lead)).map(({ name, value }) => [name, value])).toEqual(
			[
				['All', ''],
				['Actual', 'actual'],
				['Converted', 'converted'],
			],
		);
		expect((await load('getBoolFilters', lead)).map(({ name, value }) => [name, value])).toEqual([
			['Only My', 'onlyMy'],
			['Followed', 'followed'],
		]);
		const related = {
			resource: 'relationship',
			operation: 'getManyRelated',
			entityType: 'Account',
			link: 'opportunities',
		};
		expect((await load('getPrimaryFilters', related)).map(({ value }) => value)).toEqual([
			'',
			'open',
			'won',
		]);
		bed.use('apiKey', 'standard');
		expect(await load('getPrimaryFilters', lead)).toEqual([
			{ name: 'All', value: '', description: 'No filter of EspoCRM' },
		]);
		expect(await load('getBoolFilters', lead)).toEqual([]);
	});
});

describe('the record locator and the polling trigger', () => {
	test('"From List" searches as EspoCRM\'s search box (by e-mail address too); a Standard server by name', async () => {
		const { grace } = contacts();
		const search = async () =>
			(await loadFormList(
				bed.store,
				'listSearch',
				'searchRecords',
				{ resource: 'record', operation: 'get', entityType: 'Contact' },
				'grace@',
			)) as {
				results: Array<{ name: string; value: string }>;
			};
		expect((await search()).results).toEqual([{ name: 'Grace Hopper', value: grace.id }]);
		expect(bed.received('GET').pop()?.query).toMatchObject({ textFilter: 'grace@' });
		bed.use('apiKey', 'standard');
		expect((await search()).results).toEqual([]);
		expect(bed.received('GET').pop()?.query.where).toEqual([
			{ type: 'contains', attribute: 'name', value: 'grace@' },
		]);
	});

	test('"From List" trims the typed text, as Search Text and EspoCRM\'s search box do', async () => {
		store().create('Account', { name: 'Smith Industries' });
		const smithson = store().create('Contact', { firstName: 'Ada', lastName: 'Smithson' });
		const search = async (entityType: string, filter: string) =>
			(await loadFormList(
				bed.store,
				'listSearch',
				'searchRecords',
				{ resource: 'record', operation: 'get', entityType },
				filter,
			)) as {
				results: Array<{ name: string; value: string }>;
			};
		// As typed, EspoCRM 8.1.5 finds nothing for " smith", and for "smith " only a name with a word after "smith".
		expect((await search('Contact', '  smith ')).results).toEqual([
			{ name: 'Ada Smithson', value: smithson.id },
		]);
		expect((await search('Contact', 'smith ')).results).toEqual([
			{ name: 'Ada Smithson', value: smithson.id },
		]);
		expect(bed.received('GET').map((request) => request.query.textFilter)).toEqual([
			'smith',
			'smith',
		]);
		// Only spaces: no search, the newest records.
		expect((await search('Contact', '   ')).results).toEqual([
			{ name: 'Ada Smithson', value: smithson.id },
		]);
		expect(bed.received('GET').pop()?.query).not.toHaveProperty('textFilter');
		bed.use('apiKey', 'standard');
		expect((await search('Account', ' smith ')).results.map((result) => result.name)).toEqual([
			'Smith Industries',
		]);
		expect(bed.received('GET').pop()?.query.where).toEqual([
			{ type: 'contains', attribute: 'name', value: 'smith' },
		]);
	});

	test('the trigger emits only the new records its search and filters find', async () => {
		const serverForm = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
		let clock = Date.now() - 86_400_000;
		const lead = (lastName: string, status: string) =>
			store().create('Lead', {
				lastName,
				status,
				createdAt: serverForm((clock += 1000)),
				modifiedAt: serverForm(clock),
			});
		lead('Before', 'New');
		const trigger = pollingTrigger(bed.store, {
			entityType: 'Lead',
			event: 'created',
			searchText: 'sm',
			primaryFilter: 'actual',
		});
		expect(await trigger.poll()).toBeNull();
		const smith = lead('Smith', 'New');
		lead('Smithers', 'Dead');
		lead('Jones', 'New');
		const emitted = await trigger.poll();
		expect(emitted?.map((record) => record.id)).toEqual([smith.id]);
		for (const request of bed.received('GET')) {
			expect(request.query).toMatchObject({ textFilter: 'sm', primaryFilter: 'actual' });
			expect(request.headers['x-no-total']).toBe('true');
		}
	});
});

describe('the polling trigger with Search Text', () => {
	test('reads every page of the records changed since the last poll: a text search may come in order of relevance', async () => {
		const serverForm = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
		let clock = Date.now() - 86_400_000;
		const lead = (lastName: string) =>
			store().create('Lead', {
				lastName,
				status: 'New',
				createdAt: serverForm((clock += 1000)),
				modifiedAt: serverForm(clock),
			});
		lead('Smith Before');
		const trigger = pollingTrigger(bed.store, {
			entityType: 'Lead',
			event: 'created',
			searchText: 'smith',
		});
		expect(await trigger.poll()).toBeNull();
		const since = serverForm(clock);
		bed.sandbox.clearRequests();
		// 450 new records: the poll cannot stop at the first page older than the last poll, so it reads all three.
		const created = Array.from({ length: 450 }, (_, n) => lead(`Smith ${n}`));
		const emitted = await trigger.poll();
		expect(emitted?.map((record) => record.id).sort()).toEqual(
			created.map((record) => record.id).sort(),
		);
		const pages = bed.received('GET').filter((request) => request.path === '/Lead');
		expect(pages.length).toBeGreaterThanOrEqual(3);
		for (const page of pages) {
			expect(page.query.where).toContainEqual({
				type: 'greaterThanOrEquals',
				attribute: 'createdAt',
				value: since,
			});
		}
	});
});

describe('Return All paging', () => {
	const many = (count: number) =>
		Array.from({ length: count }, (_, index) =>
			store().create('Contact', { firstName: 'P', lastName: `N${index}` }),
		);

	test('EspoCRM without a sort order: by ID, without the total; records created and deleted meanwhile', async () => {
		const existing = many(450);
		const doomed = existing[300];
		let created: IDataObject | undefined;
		onRequest = (request) => {
			if (request.path !== '/Contact' || created) return;
			// After the first page: one record deleted ahead of the cursor, one created (its ID is the newest).
			store().delete('Contact', doomed.id);
			created = store().create('Contact', { firstName: 'P', lastName: 'Late' });
		};
		const result = await bed.run(
			getMany({
				entityType: 'Contact',
				filterMode: 'conditions',
				conditions: { condition: [{ attribute: 'firstName', operator: 'equals', value: 'P' }] },
			}),
		);
		expect(result.error).toBeUndefined();
		const ids = result.json.map((record) => record.id as string);
		expect(new Set(ids).size).toBe(ids.length);
		const expected = [...existing.filter((record) => record !== doomed), created!].map(
			(record) => record.id as string,
		);
		expect([...ids].sort()).toEqual([...expected].sort());
		expect(ids).toEqual([...ids].sort());

		const requests = lists();
		expect(requests).toHaveLength(3);
		for (const [index, request] of requests.entries()) {
			expect(request.headers['x-no-total']).toBe('true');
			expect(request.query).toMatchObject({ orderBy: 'id', order: 'asc', maxSize: '200' });
			expect(request.query.offset).toBeUndefined();
			const where = request.query.where as IDataObject[];
			expect(where[0]).toEqual({ type: 'equals', attribute: 'firstName', value: 'P' });
			if (index === 0) expect(where).toHaveLength(1);
			else
				expect(where[1]).toEqual({
					type: 'greaterThan',
					attribute: 'id',
					value: ids[index * 200 - 1],
				});
		}
	});

	test('a list that ignores the ID condition (EspoCRM: opted-out members of a target list) is read again by offset, each record once', async () => {
		many(450);
		bed.sandbox.faults.ignoresWhereAndOrder = true;
		const result = await bed.run(getMany({ entityType: 'Contact' }));
		expect(result.error).toBeUndefined();
		const ids = result.json.map((record) => record.id as string);
		expect(ids).toHaveLength(450);
		expect(new Set(ids).size).toBe(450);
		// Two pages by ID (the second repeats the first), then by offset from the start.
		expect(lists().map((request) => request.query.offset ?? 'id')).toEqual([
			'id',
			'id',
			'0',
			'200',
			'400',
		]);
	});

	test('with a sort order, or a Standard server: by offset, the total only on the first page', async () => {
		many(450);
		const sorted = await bed.run(
			getMany({ entityType: 'Contact', listOptions: { orderBy: 'lastName', order: 'asc' } }),
		);
		expect(sorted.json).toHaveLength(450);
		const requests = lists();
		expect(requests.map((request) => request.query.offset)).toEqual(['0', '200', '400']);
		expect(requests.map((request) => request.headers['x-no-total'])).toEqual([
			undefined,
			'true',
			'true',
		]);

		bed.sandbox.clearRequests();
		bed.use('apiKey', 'standard');
		const standard = await bed.run(getMany({ entityType: 'Contact' }));
		expect(standard.json).toHaveLength(450);
		expect(
			lists().map((request) => [
				request.query.offset,
				request.query.orderBy,
				request.headers['x-no-total'],
			]),
		).toEqual([
			['0', undefined, undefined],
			['200', undefined, 'true'],
			['400', undefined, 'true'],
		]);
	});

	test('a Limit of a page or less never asks for the total', async () => {
		many(30);
		const result = await bed.run({
			resource: 'record',
			operation: 'getMany',
			entityType: 'Contact',
			limit: 20,
		});
		expect(result.json).toHaveLength(20);
		expect(lists().map((request) => request.headers['x-no-total'])).toEqual(['true']);
	});
});

describe("Return All in the list's order (issue 40.4, version 1.1)", () => {
	const v11 = { typeVersion: 1.1 };
	const ids = (items: IDataObject[]) => items.map((item) => String(item.id));
	/** The list's requests, metadata left out. */
	const listRequests = () =>
		lists().filter((request) => request.path === '/Contact' || request.path === '/Account');

	test('without a sort order: the order of a Limit (Contact: createdAt, newest first), paged from the last record; created and deleted meanwhile', async () => {
		// 450 records, many created within the same second: the ID breaks the ties, as EspoCRM's ORDER BY does.
		const existing = Array.from({ length: 450 }, (_, index) =>
			store().create('Contact', { firstName: 'P', lastName: `N${index}` }),
		);
		const limited = await bed.run(
			getMany({ entityType: 'Contact', returnAll: false, limit: 250 }),
			undefined,
			v11,
		);
		expect(limited.json).toHaveLength(250);

		bed.sandbox.clearRequests();
		// 220th newest: among the Limit's 250, on Return All's second page; deleted once the first page is read.
		const doomed = existing[229];
		expect(ids(limited.json)).toContain(doomed.id);
		let created: IDataObject | undefined;
		onRequest = (request) => {
			if (request.path !== '/Contact' || created) return;
			store().delete('Contact', doomed.id);
			created = store().create('Contact', { firstName: 'P', lastName: 'Late' });
		};
		const all = await bed.run(getMany({ entityType: 'Contact' }), undefined, v11);
		expect(all.error).toBeUndefined();
		const read = ids(all.json);
		expect(new Set(read).size).toBe(read.length);
		// Every record that was there throughout, once; the one created meanwhile once if it sorts after the cursor
		// (created in the same second as others, its ID decides), else not.
		expect(read.filter((id) => id !== created!.id).sort()).toEqual(
			ids(existing.filter((record) => record !== doomed)).sort(),
		);
		// The first 250 of Return All are the Limit's 250, but for the one deleted meanwhile.
		expect(read.slice(0, 249)).toEqual(ids(limited.json).filter((id) => id !== doomed.id));

		const requests = listRequests();
		expect(requests).toHaveLength(3);
		for (const [index, request] of requests.entries()) {
			// The second page counts the records after the first: a long list is read in segments (see "a long list").
			expect(request.headers['x-no-total']).toBe(index === 1 ? undefined : 'true');
			expect(request.query.maxSize).toBe('200');
			expect(request.query.offset).toBeUndefined();
			if (index === 0) {
				// The first page in the server's default order, before its metadata is read: no orderBy, no order.
				expect(request.query.orderBy).toBeUndefined();
				expect(request.query.order).toBeUndefined();
				expect(request.query.where).toBeUndefined();
				continue;
			}
			expect(request.query).toMatchObject({ orderBy: 'createdAt', order: 'desc' });
			const last = all.json[index * 200 - 1];
			expect(request.query.where).toEqual([
				{
					type: 'or',
					value: [
						{ type: 'lessThan', attribute: 'createdAt', value: String(last.createdAt) },
						{
							type: 'and',
							value: [
								{ type: 'equals', attribute: 'createdAt', value: String(last.createdAt) },
								{ type: 'lessThan', attribute: 'id', value: String(last.id) },
							],
						},
						{ type: 'isNull', attribute: 'createdAt' },
					],
				},
			]);
		}
	});

	test.each(['asc', 'desc'] as const)(
		'sorted by a text field (%s): NULLs, letter case and ties in the order of a Limit, every record once',
		async (order) => {
			const statuses = [null, 'alpha', 'Alpha', 'beta', null, 'BETA', 'gamma', 'alpha'];
			for (let index = 0; index < 430; index++)
				store().create('Account', {
					name: `Firm ${index}`,
					status: statuses[index % statuses.length],
				});
			const parameters = getMany({
				entityType: 'Account',
				listOptions: { orderBy: 'status', order },
			});
			const limited = await bed.run(
				{ ...parameters, returnAll: false, limit: 430 },
				undefined,
				v11,
			);
			bed.sandbox.clearRequests();
			const all = await bed.run(parameters, undefined, v11);
			expect(all.error).toBeUndefined();
			expect(ids(all.json)).toEqual(ids(limited.json));
			const requests = listRequests();
			expect(requests).toHaveLength(3);
			expect(
				requests.every(
					(request) => request.query.offset === undefined && request.query.orderBy === 'status',
				),
			).toBe(true);
		},
	);

	describe('a long list (two segments of 5,000 records or more after the first page): in segments read side by side', () => {
		const statuses = [null, 'alpha', 'Alpha', 'beta', null, 'BETA', 'gamma', 'alpha', 'delta'];
		const accounts = (
			count: number,
			status = (index: number): string | null => statuses[index % statuses.length],
		) =>
			Array.from({ length: count }, (_, index) =>
				store().create('Account', { name: `Firm ${index}`, status: status(index) }),
			);
		const byStatus = (order: 'asc' | 'desc') =>
			getMany({ entityType: 'Account', listOptions: { orderBy: 'status', order } });
		/** The segments' cuts: one record each, read by offset. */
		const isCut = (request: RecordedRequest) => request.query.maxSize === '1';
		/** A segment's first page: from its cut on (the ID condition includes the cut's own). */
		const startsAtCut = (request: RecordedRequest) =>
			/"(less|greater)ThanOrEquals","attribute":"id"/.test(
				JSON.stringify(request.query.where ?? []),
			);

		test('cut at records read by offset; the order of a Limit, every record once, records created and deleted meanwhile', async () => {
			// 200 on the first page, then 15,000: three segments, cut at the 5,000th and 10,000th after the first page.
			accounts(15_200);
			const limited = await bed.run(
				{ ...byStatus('desc'), returnAll: false, limit: 15_200 },
				undefined,
				v11,
			);
			expect(limited.json).toHaveLength(15_200);
			bed.sandbox.clearRequests();

			// While the cuts are read: a record deleted in each segment (the list's 700th, 5,300th and 10,300th), three
			// created (one sorts before the first page).
			const doomed = [700, 5_300, 10_300].map((place) => limited.json[place]);
			const created: IDataObject[] = [];
			onRequest = (request) => {
				if (created.length || request.path !== '/Account' || !isCut(request)) return;
				for (const record of doomed) store().delete('Account', String(record.id));
				for (const status of ['zeta', 'alpha', null])
					created.push(store().create('Account', { name: 'Late', status }));
			};
			const all = await bed.run(byStatus('desc'), undefined, v11);
			expect(all.error).toBeUndefined();
			const requests = listRequests();
			const read = ids(all.json);
			expect(new Set(read).size).toBe(read.length);
			const createdIds = new Set(ids(created));
			const gone = new Set(ids(doomed));
			expect(read.filter((id) => !createdIds.has(id))).toEqual(
				ids(limited.json).filter((id) => !gone.has(id)),
			);
			// The ones created meanwhile come in their place, if at all: the one before the first page does not.
			const now = ids(
				(await bed.run({ ...byStatus('desc'), returnAll: false, limit: 15_203 }, undefined, v11))
					.json,
			);
			expect(read).toEqual(now.filter((id) => read.includes(id) || !createdIds.has(id)));
			expect(read).not.toContain(created[0].id);

			const [first, second] = requests;
			expect(first.headers['x-no-total']).toBe('true');
			expect(first.query.where).toBeUndefined();
			// The second page counts the records after the first page.
			expect(second.headers['x-no-total']).toBeUndefined();
			const afterFirstPage = second.query.where as IDataObject[];
			expect(afterFirstPage).toHaveLength(1);
			// Two cuts, each a record of the sort field only, without the total: the first 5,000 records after the first
			// page, the second 4,999 after the first cut (the 10,000th after the first page).
			const cuts = requests.filter(isCut);
			expect(
				cuts.map((request) => [
					request.query.offset,
					request.query.select,
					request.headers['x-no-total'],
				]),
			).toEqual([
				['5000', 'status', 'true'],
				['4999', 'status', 'true'],
			]);
			expect(cuts[0].query.where).toEqual(afterFirstPage);
			const pages = requests.slice(2).filter((request) => !isCut(request));
			for (const page of pages) {
				expect(page.query).toMatchObject({ orderBy: 'status', order: 'desc', maxSize: '200' });
				expect(page.query.offset).toBeUndefined();
				expect(page.headers['x-no-total']).toBe('true');
			}
			const starts = pages.filter(startsAtCut);
			expect(starts).toHaveLength(2);
			// The second cut is read after the first (the records after it), where the second segment starts (from it on).
			const startsFrom = starts.map((page) =>
				JSON.stringify([(page.query.where as IDataObject[])[0]]),
			);
			expect(startsFrom).toContain(
				JSON.stringify(cuts[1].query.where).replace(
					'"lessThan","attribute":"id"',
					'"lessThanOrEquals","attribute":"id"',
				),
			);
			// Each segment starts as soon as its cuts are read, beside the first one's pages (Max Parallel Requests 5).
			expect(requests.indexOf(starts[0])).toBeLessThan(requests.indexOf(cuts[1]) + 3);
			expect(requests.indexOf(starts[1])).toBeLessThan(requests.indexOf(cuts[1]) + 4);
			// Every page but the last segment's ends before the next segment's cut.
			expect(
				pages.filter((page) => (page.query.where as IDataObject[]).length === 1).length,
			).toBeGreaterThan(10);
			expect(
				pages.filter((page) => (page.query.where as IDataObject[]).length === 2).length,
			).toBeGreaterThan(40);

			// One request at a time (Max Parallel Requests 1): the same records in the same order.
			const oneByOne = await bed.run(
				{ ...byStatus('desc'), requestSettings: { maxParallel: 1 } },
				undefined,
				v11,
			);
			expect(ids(oneByOne.json)).toEqual(now);
		});

		test.each(['asc', 'desc'] as const)(
			'cuts among records without a value and with an empty one (%s): no record in two segments',
			async (order) => {
				// Ascending: 8,000 NULLs, then 5,000 empty, then the rest; the cuts fall on a NULL and on an empty value
				// (5,200th and 10,200th place), descending on an empty value and on a NULL.
				accounts(15_200, (index) =>
					index < 8_000 ? null : index < 13_000 ? '' : `v${index % 97}`,
				);
				const limited = await bed.run(
					{ ...byStatus(order), returnAll: false, limit: 15_200 },
					undefined,
					v11,
				);
				bed.sandbox.clearRequests();
				const all = await bed.run(byStatus(order), undefined, v11);
				expect(ids(all.json)).toEqual(ids(limited.json));
				const requests = listRequests();
				const starts = JSON.stringify(
					requests.filter(startsAtCut).map((request) => request.query.where),
				);
				expect(starts).toContain('"isNull"');
				expect(starts).toContain('"value":""');
				// Each segment exactly 5,000 records (25 full pages and an empty one): a record in two segments would make
				// one of them longer, and cost a page more.
				expect(requests).toHaveLength(1 + 2 + 3 * 26);
			},
		);

		test('a list that ignores the conditions (opted-out members of a target list) is read again by offset, each record once', async () => {
			accounts(10_400);
			bed.sandbox.faults.ignoresWhereAndOrder = true;
			const all = await bed.run(byStatus('desc'), undefined, v11);
			expect(all.error).toBeUndefined();
			expect(new Set(ids(all.json)).size).toBe(10_400);
			expect(all.json).toHaveLength(10_400);
			// The second page repeats the first: no cuts; by offset after the first page (the same query as offset 0), to
			// the empty page after the last.
			const offsets = listRequests().map((request) => request.query.offset);
			expect(offsets).toEqual([
				undefined,
				undefined,
				...Array.from({ length: 52 }, (_, index) => String((index + 1) * 200)),
			]);
		});

		test('a page refused in one segment fails the item, and the other segments send nothing more', async () => {
			accounts(15_200);
			let segmentStarts = 0;
			onRequest = (request) => {
				if (request.path === '/Account' && startsAtCut(request) && ++segmentStarts === 2) {
					bed.sandbox.faults.failNext({
						method: 'GET',
						pathPrefix: '/Account',
						status: 400,
						reason: 'Bad page',
					});
				}
			};
			const all = await bed.run(byStatus('desc'), undefined, v11);
			expect(all.error?.message).toMatch(/400|Bad page/);
			const sent = listRequests().length;
			await new Promise((resolve) => setTimeout(resolve, 100));
			expect(listRequests()).toHaveLength(sent);
			expect(sent).toBeLessThan(20);
		});
	});

	test('sorted by an enum (EspoCRM sorts by its options, not comparable in where): by offset, in the order of a Limit', async () => {
		const types = ['Reseller', 'Customer', '', 'Partner'];
		for (let index = 0; index < 250; index++)
			store().create('Account', { name: `Firm ${index}`, type: types[index % types.length] });
		const parameters = getMany({ entityType: 'Account', listOptions: { orderBy: 'type' } });
		const limited = await bed.run({ ...parameters, returnAll: false, limit: 250 }, undefined, v11);
		bed.sandbox.clearRequests();
		const all = await bed.run(parameters, undefined, v11);
		expect(ids(all.json)).toEqual(ids(limited.json));
		// The first page as the list comes, then by offset once the metadata says the field is an enum; the second
		// page counts, since the first did not.
		expect(
			listRequests().map((request) => [
				request.query.offset,
				request.query.orderBy,
				request.headers['x-no-total'],
			]),
		).toEqual([
			[undefined, 'type', 'true'],
			['200', 'type', undefined],
		]);
	});

	test("Get Many Related: by offset in the related list's order, as a Limit (version 1 paged by ID)", async () => {
		const account = store().create('Account', { name: 'Engines Ltd' });
		for (let index = 0; index < 210; index++) {
			const contact = store().create('Contact', { firstName: 'P', lastName: `N${index}` });
			store().link('Account', account.id, 'contacts', contact.id);
		}
		const related = (parameters: IDataObject) => ({
			resource: 'relationship',
			operation: 'getManyRelated',
			entityType: 'Account',
			recordId: { __rl: true, mode: 'id', value: account.id },
			link: 'contacts',
			listOptions: { select: 'lastName' },
			...parameters,
		});
		const limited = await bed.run(related({ returnAll: false, limit: 210 }), undefined, v11);
		bed.sandbox.clearRequests();
		const all = await bed.run(related({ returnAll: true }), undefined, v11);
		expect(ids(all.json)).toEqual(ids(limited.json));
		expect(lists().map((request) => [request.query.offset, request.query.orderBy])).toEqual([
			['0', undefined],
			['200', undefined],
		]);
	});

	test('Search Text: by offset (EspoCRM may order a full-text search by relevance)', async () => {
		for (let index = 0; index < 210; index++)
			store().create('Contact', { firstName: 'Ada', lastName: `N${index}` });
		const all = await bed.run(
			getMany({ entityType: 'Contact', searchText: 'ada' }),
			undefined,
			v11,
		);
		expect(all.json).toHaveLength(210);
		expect(listRequests().map((request) => request.query.offset)).toEqual(['0', '200']);
	});
});
