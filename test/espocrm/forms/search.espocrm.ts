/**
 * Lists as EspoCRM users search them (issue 32), against the real EspoCRM (8.1.5 and 9.1.7): Search Text compared with the request
 * the CRM's own search box sends, each primary filter offered for Contact, Lead, Opportunity and Case compared with
 * what its definition selects (the same records asked for with plain where conditions), Only My and Followed as the
 * API user, and Return All paging by ID. The node runs through n8n's engine (test/harness/engine.ts). A phase of
 * `npm run test:espocrm` (test/espocrm/forms/phase.js runs every *.espocrm.ts of this folder).
 */
import type { IDataObject } from 'n8n-workflow';

import { CredentialStore, loadFormList, runNode } from '../../harness/engine';

interface Target {
	origin: string;
	credentials: Array<{ id: string; name: string; data: Record<string, string | boolean> }>;
}

const { origin, credentials } = JSON.parse(process.env.RMS_ESPOCRM ?? 'null') as Target;
const credential = (scheme: 'API key' | 'Basic') =>
	credentials.find((c) => c.name.includes(`(${scheme}`))!.data;

const store = new CredentialStore();
beforeEach(() => store.set('rms', credential('API key')));

/** A request to EspoCRM's API, as the API key's user or as the admin. */
async function api(
	method: string,
	path: string,
	{
		body,
		query,
		as = 'API key',
	}: { body?: unknown; query?: string; as?: 'API key' | 'Basic' } = {},
) {
	const auth: Record<string, string> =
		as === 'Basic'
			? {
					Authorization: `Basic ${Buffer.from(`${credential('Basic').username}:${credential('Basic').password}`).toString('base64')}`,
				}
			: { 'X-Api-Key': String(credential('API key').apiKey) };
	const reply = await fetch(`${origin}/api/v1${path}${query ? `?${query}` : ''}`, {
		method,
		headers: { 'Content-Type': 'application/json', 'X-Skip-Duplicate-Check': 'true', ...auth },
		...(body === undefined ? {} : { body: JSON.stringify(body) }),
	});
	if (reply.status !== 200)
		throw new Error(
			`${method} ${path}: ${reply.status} ${reply.headers.get('x-status-reason') ?? ''}`,
		);
	return (await reply.json()) as IDataObject;
}

/** The IDs of a list request with this query string (all pages), as the API user. */
async function idsOf(path: string, query: string): Promise<string[]> {
	const ids: string[] = [];
	for (let offset = 0; ; offset += 200) {
		const page = await api('GET', path, {
			query: `${query}&select=id&maxSize=200&offset=${offset}`,
		});
		const list = page.list as IDataObject[];
		ids.push(...list.map((record) => String(record.id)));
		if (list.length < 200) return ids.sort();
	}
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
const sortedIds = (items: IDataObject[]) => items.map((item) => String(item.id)).sort();

async function getMany(entityType: string, parameters: IDataObject) {
	const result = await runNode({
		parameters: {
			resource: 'record',
			operation: 'getMany',
			entityType,
			returnAll: true,
			...parameters,
		},
		store,
	});
	if (result.error) throw result.error;
	return result.json;
}

const tag = `s${Date.now().toString(36)}`;

describe('Search Text on the real EspoCRM, compared with the request of its search box', () => {
	beforeAll(async () => {
		await api('POST', '/Contact', {
			body: {
				firstName: `Ada${tag}`,
				lastName: 'Lovelace',
				emailAddress: `ada.${tag}@engines.example.com`,
				phoneNumber: '+44 20 7946 0001',
			},
		});
		await api('POST', '/Contact', {
			body: {
				firstName: `Grace${tag}`,
				lastName: 'Hopper',
				emailAddress: `grace.${tag}@navy.example.com`,
				phoneNumber: '+1 555 0100',
			},
		});
		await api('POST', '/Contact', {
			body: {
				firstName: 'Alan',
				lastName: `Turing${tag}`,
				emailAddress: `alan.${tag}@bletchley.example.com`,
			},
		});
	});

	// The web UI sends its search box as a where item of type textFilter (client/src/search-manager.js).
	const asTheSearchBox = async (text: string) =>
		await idsOf('/Contact', q({ 'where[0][type]': 'textFilter', 'where[0][value]': text }));

	test.each([
		['a first name', `ada${tag}`, 1],
		['a last name', `turing${tag}`, 1],
		['first and last name', `grace${tag} hop`, 1],
		['an e-mail address', `grace.${tag}@`, 1],
		['an e-mail domain with a wildcard', `*${tag}@*.example.com`, 3],
		// Contact's text filter fields are name and emailAddress: the phone is not searched (0 found, as in the CRM).
		['a phone number', '+1 555 0100', 0],
	])('by %s: %s', async (_, text, count) => {
		const found = sortedIds(await getMany('Contact', { searchText: text }));
		expect(found).toEqual(await asTheSearchBox(text));
		if (count > 0) expect(found).toHaveLength(count);
		else expect(found.filter((id) => id.includes(tag))).toEqual([]);
	});

	test('combined with conditions', async () => {
		const found = await getMany('Contact', {
			searchText: `*${tag}@*`,
			filterMode: 'conditions',
			conditions: { condition: [{ attribute: 'lastName', operator: 'equals', value: 'Hopper' }] },
		});
		expect(found.map((record) => record.name)).toEqual([`Grace${tag} Hopper`]);
	});
});

describe('each EspoCRM Filter offered returns what its definition selects', () => {
	let metadata: IDataObject;
	const field = (entityType: string, name: string) =>
		((metadata.entityDefs as IDataObject)[entityType] as { fields: Record<string, IDataObject> })
			.fields[name];

	beforeAll(async () => {
		metadata = await api('GET', '/Metadata');
		for (const status of ['New', 'In Process', 'Converted', 'Recycled', 'Dead'])
			await api('POST', '/Lead', { body: { lastName: `${tag} ${status}`, status } });
		for (const stage of ['Prospecting', 'Negotiation', 'Closed Won', 'Closed Lost']) {
			const probability = (field('Opportunity', 'stage').probabilityMap as Record<string, number>)[
				stage
			];
			await api('POST', '/Opportunity', {
				body: { name: `${tag} ${stage}`, stage, probability, amount: 100, closeDate: '2026-12-31' },
			});
		}
		const account = await api('POST', '/Account', { body: { name: `${tag} Account` } });
		for (const status of ['New', 'Assigned', 'Pending', 'Closed', 'Rejected', 'Duplicate'])
			await api('POST', '/Case', {
				body: { name: `${tag} ${status}`, status, accountId: account.id },
			});
	});

	/** The where conditions that select what each filter of EspoCRM 8.1.5 selects (Modules/Crm/Classes/Select/…). */
	const definitions: Record<string, (entityType: string) => Record<string, string> | 'none'> = {
		'Lead.actual': () => whereNotIn('status', field('Lead', 'status').notActualOptions as string[]),
		'Lead.converted': () => ({
			'where[0][type]': 'equals',
			'where[0][attribute]': 'status',
			'where[0][value]': 'Converted',
		}),
		'Opportunity.open': () =>
			whereNotIn(
				'stage',
				stagesWithProbability((p) => p === 100 || !p),
			),
		'Opportunity.won': () =>
			whereIn(
				'stage',
				stagesWithProbability((p) => p === 100),
			),
		'Case.open': () => whereNotIn('status', field('Case', 'status').notActualOptions as string[]),
		'Case.closed': () => ({
			'where[0][type]': 'equals',
			'where[0][attribute]': 'status',
			'where[0][value]': 'Closed',
		}),
		// No contact of the test instance has a portal user.
		'Contact.portalUsers': () => 'none',
	};
	const whereIn = (attribute: string, values: string[], type = 'in') =>
		Object.fromEntries([
			['where[0][type]', type],
			['where[0][attribute]', attribute],
			...values.map((value, index) => [`where[0][value][${index}]`, value]),
		]);
	const whereNotIn = (attribute: string, values: string[]) => whereIn(attribute, values, 'notIn');
	const stagesWithProbability = (test: (probability: number | undefined) => boolean) => {
		const stage = field('Opportunity', 'stage');
		const map = stage.probabilityMap as Record<string, number>;
		return (stage.options as string[]).filter((option) => test(map[option]));
	};

	test.each(['Contact', 'Lead', 'Opportunity', 'Case'])('%s', async (entityType) => {
		const offered = (
			(await loadFormList(store, 'loadOptions', 'getPrimaryFilters', {
				resource: 'record',
				operation: 'getMany',
				entityType,
			})) as Array<{
				value: string;
			}>
		)
			.map((option) => option.value)
			.filter((value) => value !== '');
		expect(offered.length).toBeGreaterThan(0);
		for (const name of offered) {
			const definition = definitions[`${entityType}.${name}`];
			expect(definition).toBeDefined();
			const found = sortedIds(await getMany(entityType, { primaryFilter: name }));
			const expected = definition(entityType);
			if (expected === 'none') expect(found).toEqual([]);
			else expect(found).toEqual(await idsOf(`/${entityType}`, q(expected)));
			// The records of this run are among them as the definition says.
			if (entityType !== 'Contact') expect(found.length).toBeGreaterThan(0);
		}
	});
});

describe('Only My and Followed as the API user', () => {
	test('the record the API user follows (through the API) and the one assigned to it', async () => {
		const me = (await api('GET', '/App/user')).user as IDataObject;
		const followed = await api('POST', '/Account', { body: { name: `${tag} Followed` } });
		const mine = await api('POST', '/Account', {
			body: { name: `${tag} Mine`, assignedUserId: me.id },
		});
		const other = await api('POST', '/Account', { body: { name: `${tag} Other` }, as: 'Basic' });
		expect(await api('PUT', `/Account/${followed.id}/subscription`)).toBe(true);

		const onlyFollowed = sortedIds(await getMany('Account', { boolFilterList: ['followed'] }));
		expect(onlyFollowed).toEqual(await idsOf('/Account', q({ 'boolFilterList[]': 'followed' })));
		expect(onlyFollowed).toContain(followed.id);
		expect(onlyFollowed).not.toContain(other.id);
		const onlyMy = sortedIds(await getMany('Account', { boolFilterList: ['onlyMy'] }));
		expect(onlyMy).toEqual(
			await idsOf(
				'/Account',
				q({
					'where[0][type]': 'equals',
					'where[0][attribute]': 'assignedUserId',
					'where[0][value]': String(me.id),
				}),
			),
		);
		expect(onlyMy).toContain(mine.id);
		expect(onlyMy).not.toContain(other.id);
		// The admin did not follow the record the API user follows: the same filter gives the admin's list.
		store.set('rms', credential('Basic'));
		const adminFollowed = sortedIds(await getMany('Account', { boolFilterList: ['followed'] }));
		expect(adminFollowed).not.toContain(followed.id);
	});
});

describe('Return All by ID on the real EspoCRM', () => {
	test('430 Target Lists: every record once, in ID order, with and without Fields to Return', async () => {
		const created: string[] = [];
		for (let n = 0; n < 430; n += 10) {
			created.push(
				...(await Promise.all(
					Array.from({ length: 10 }, async (_, k) =>
						String((await api('POST', '/TargetList', { body: { name: `${tag}-${n + k}` } })).id),
					),
				)),
			);
		}
		const condition = {
			filterMode: 'conditions',
			conditions: { condition: [{ attribute: 'name', operator: 'startsWith', value: `${tag}-` }] },
		};
		const found = await getMany('TargetList', { ...condition, listOptions: { select: ['name'] } });
		const ids = found.map((record) => String(record.id));
		expect(new Set(ids).size).toBe(ids.length);
		expect([...ids].sort()).toEqual([...created].sort());
		expect(ids).toEqual([...ids].sort());
		expect(sortedIds(await getMany('TargetList', condition))).toEqual([...created].sort());
	});
});
