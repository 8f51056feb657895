import axios, { AxiosRequestConfig, AxiosResponse } from 'axios';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, SANDBOX_CREDENTIALS, SANDBOX_USERS, Sandbox } from '../sandbox';

let sb: Sandbox;
const KEY = { 'X-Api-Key': SANDBOX_CREDENTIALS.apiKey };

async function call(
	method: string,
	path: string,
	data?: unknown,
	headers: Record<string, string> = {},
	extra: AxiosRequestConfig = {},
): Promise<AxiosResponse> {
	return axios.request({
		method,
		url: sb.baseUrl + path,
		data,
		headers: {
			...KEY,
			...(data !== undefined ? { 'Content-Type': 'application/json' } : {}),
			...headers,
		},
		validateStatus: () => true,
		...extra,
	});
}
const get = (path: string, headers?: Record<string, string>) =>
	call('GET', path, undefined, headers);
const post = (path: string, data: unknown, headers?: Record<string, string>) =>
	call('POST', path, data, headers);

/** Builds a where query string with bracket syntax from a list of items. */
function whereQs(items: unknown[], prefix = 'where'): string {
	const parts: string[] = [];
	const walk = (v: unknown, key: string) => {
		if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${key}[${i}]`));
		else if (v && typeof v === 'object')
			for (const [k, x] of Object.entries(v)) walk(x, `${key}[${k}]`);
		else parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
	};
	walk(items, prefix);
	return parts.join('&');
}
async function ids(entity: string, items: unknown[], extra = ''): Promise<string[]> {
	const r = await get(`/${entity}?${whereQs(items)}${extra}`);
	expect(r.status).toBe(200);
	return r.data.list.map((x: { id: string }) => x.id);
}
const utcDate = (offsetDays = 0) =>
	new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const utcDateTime = (offsetMs = 0) =>
	new Date(Date.now() + offsetMs).toISOString().slice(0, 19).replace('T', ' ');

beforeAll(async () => {
	sb = await startSandbox();
});
afterAll(async () => {
	await sb.close();
});
beforeEach(() => {
	sb.reset();
	sb.setDialect('both');
});

describe('records', () => {
	test('a phone number is stored as EspoCRM 8.1.5 stores it: with "+" in E.164, without "+" as given', async () => {
		// Each under another name: EspoCRM's duplicate check would refuse a second Contact of the same name.
		const stored = async (phoneNumber: string) =>
			(await post('/Contact', { lastName: `Phone ${phoneNumber}`, phoneNumber })).data.phoneNumber;
		expect(await stored(' +1 555 400 0041 ')).toBe('+15554000041');
		expect(await stored('+1 (555) 400-0041 ext. 7')).toBe('+15554000041');
		expect(await stored('+1-800-FLOWERS')).toBe('+18003569377');
		expect(await stored(' 555 400 0041 ')).toBe('555 400 0041');
		expect(await stored('+12')).toBe('+12');
	});

	test('create, read, update, delete', async () => {
		const c = await post('/Contact', {
			firstName: 'Ann',
			lastName: 'Lee',
			phoneNumber: '+1 555 0100',
			foo: 'ignored',
		});
		expect(c.status).toBe(200);
		expect(c.data.id).toMatch(/^[0-9a-f]{17}$/);
		expect(c.data).toMatchObject({
			firstName: 'Ann',
			lastName: 'Lee',
			name: 'Ann Lee',
			phoneNumber: '+15550100',
		});
		expect(c.data.createdAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
		expect(c.data).not.toHaveProperty('description');
		expect(c.data).not.toHaveProperty('foo');

		const r = await get(`/Contact/${c.data.id}?select=firstName`);
		expect(r.data.description).toBeNull();
		expect(r.data.lastName).toBe('Lee');

		const u = await call('PATCH', `/Contact/${c.data.id}`, { description: 'x' });
		expect(u.status).toBe(200);
		expect(u.data).toMatchObject({ description: 'x', firstName: 'Ann' });
		// Contact has no optimistic concurrency control in EspoCRM: no versionNumber, X-Version-Number ignored.
		expect(u.data).not.toHaveProperty('versionNumber');
		const p = await call(
			'PUT',
			`/Contact/${c.data.id}`,
			{ addressCity: 'Paris' },
			{ 'X-Version-Number': '1' },
		);
		expect(p.data).toMatchObject({ description: 'x', addressCity: 'Paris' });

		const d = await call('DELETE', `/Contact/${c.data.id}`);
		expect(d.status).toBe(200);
		expect(d.data).toBe(true);
		const gone = await get(`/Contact/${c.data.id}`);
		expect(gone.status).toBe(404);
		expect(gone.headers['x-status-reason']).toBe(`Record ${c.data.id} does not exist.`);
		expect((await call('DELETE', `/Contact/${c.data.id}`)).headers['x-status-reason']).toBe(
			`Record ${c.data.id} not found.`,
		);
	});

	test("a Contact's title is its role on its Account: written without one it is dropped (200), as EspoCRM 8.1.5 does", async () => {
		// The reply shows the title written (the record as EspoCRM holds it in memory); a read, what is stored.
		const lone = await post('/Contact', { firstName: 'Ann', lastName: 'Alone', title: 'CEO' });
		expect([lone.status, lone.data.title]).toEqual([200, 'CEO']);
		expect((await get(`/Contact/${lone.data.id}`)).data.title).toBeNull();
		const put = await call('PUT', `/Contact/${lone.data.id}`, { title: 'CTO' });
		expect([put.status, put.data.title]).toEqual([200, 'CTO']);
		expect((await get(`/Contact/${lone.data.id}`)).data.title).toBeNull();
		const acc = (await post('/Account', { name: 'Roles Inc' })).data;
		const employed = (
			await post('/Contact', {
				firstName: 'Bea',
				lastName: 'Employed',
				accountId: acc.id,
				title: 'CEO',
			})
		).data;
		expect((await get(`/Contact/${employed.id}`)).data).toMatchObject({
			title: 'CEO',
			accountId: acc.id,
		});
		await call('PUT', `/Contact/${employed.id}`, { accountId: null });
		expect((await get(`/Contact/${employed.id}`)).data.title).toBeNull();
	});

	test('errors: validation, unknown type, malformed JSON, non-JSON body', async () => {
		const v = await post('/Contact', { firstName: 'X' });
		expect(v.status).toBe(400);
		expect(v.headers['x-status-reason']).toBe(
			'Field validation failure; entityType: Contact, field: lastName, type: required.',
		);
		expect(v.data).toEqual({
			messageTranslation: {
				label: 'validationFailure',
				scope: null,
				data: { field: 'lastName', type: 'required' },
			},
		});
		const foo = await get('/Foo');
		expect([foo.status, foo.headers['x-status-reason']]).toEqual([
			404,
			"Controller 'Foo' does not exist.",
		]);
		const bad = await call(
			'POST',
			'/Account',
			'{"name": ',
			{ 'Content-Type': 'application/json' },
			{ transformRequest: [(d) => d] },
		);
		expect(bad.status).toBe(500);
		const plain = await call(
			'POST',
			'/Account',
			'{"name":"A"}',
			{ 'Content-Type': 'text/plain' },
			{ transformRequest: [(d) => d] },
		);
		expect(plain.headers['x-status-reason']).toContain('field: name, type: required');
		expect((await post('/Lead', { lastName: 'L', status: 'Bogus' })).status).toBe(400);
	});

	test('ids are time-ordered and default order is createdAt desc', async () => {
		const created = [];
		for (let i = 0; i < 5; i++) created.push(sb.store.create('Account', { name: `A${i}` }).id);
		expect([...created].sort()).toEqual(created);
		const r = await get('/Account');
		expect(r.data.list.map((x: { id: string }) => x.id)).toEqual([...created].reverse());
	});

	test('GET /Metadata?key=: ignored as 8.1.5 ignores it; from 8.2 that part alone, an empty body where there is none', async () => {
		const whole = await get('/Metadata?key=entityDefs.Contact');
		expect(whole.data.entityDefs.Contact.collection).toEqual(
			expect.objectContaining({ orderBy: 'createdAt', order: 'desc' }),
		);
		sb.setServerVersion('9.1.7');
		const part = await get('/Metadata?key=entityDefs.Contact');
		expect(part.data.entityDefs).toBeUndefined();
		expect(part.data.fields.lastName.type).toBe('varchar');
		expect(part.data).toEqual(whole.data.entityDefs.Contact);
		const none = await get('/Metadata?key=entityDefs.NoSuchType', { Accept: 'application/json' });
		expect([none.status, none.headers['content-type'], none.data]).toEqual([
			200,
			'application/json',
			'',
		]);
	});

	test('duplicates and X-Skip-Duplicate-Check', async () => {
		await post('/Account', { name: 'Acme' });
		const dup = await post('/Account', { name: 'ACME' });
		expect(dup.status).toBe(409);
		expect(dup.headers['x-status-reason']).toBe('duplicate');
		expect(dup.data[0].name).toBe('Acme');
		expect(
			(await post('/Account', { name: 'Acme' }, { 'X-Skip-Duplicate-Check': 'TRUE' })).status,
		).toBe(200);
		await post('/Contact', { lastName: 'Doe', emailAddress: 'd@x.io' });
		expect((await post('/Contact', { lastName: 'Other', emailAddress: 'd@x.io' })).status).toBe(
			409,
		);
	});
});

describe('lists', () => {
	test('paging, maxSize, select, X-No-Total, Email total', async () => {
		for (let i = 0; i < 7; i++) sb.store.create('Account', { name: `N${i}`, industry: 'Software' });
		const p = await get('/Account?maxSize=3&offset=6&orderBy=name&order=asc');
		expect(p.data.total).toBe(7);
		expect(p.data.list.map((x: { name: string }) => x.name)).toEqual(['N6']);
		const big = await get('/Account?maxSize=201');
		expect([big.status, big.headers['x-status-reason']]).toEqual([
			403,
			'Max size should not exceed 200. Use offset and limit.',
		]);
		const sel = await get('/Account?select=industry&maxSize=1');
		expect(Object.keys(sel.data.list[0]).sort()).toEqual([
			'assignedUserId',
			'createdAt',
			'createdById',
			'id',
			'industry',
		]);
		expect((await get('/Account?maxSize=3', { 'X-No-Total': 'true' })).data.total).toBe(-1);
		expect((await get('/Account?maxSize=30', { 'X-No-Total': 'true' })).data.total).toBe(-2);
		sb.store.create('Email', { name: 'm' });
		expect((await get('/Email')).data.total).toBe(-2);
		const sp = await get(
			`/Account?searchParams=${encodeURIComponent(JSON.stringify({ where: [{ type: 'equals', attribute: 'name', value: 'N2' }], maxSize: 5 }))}`,
		);
		expect(sp.data.list.map((x: { name: string }) => x.name)).toEqual(['N2']);
	});

	test('scalar where types', async () => {
		const a = sb.store.create('Opportunity', {
			name: 'Alpha deal',
			amount: 100,
			probability: 10,
			closeDate: utcDate(-40),
			stage: 'Proposal',
		});
		const b = sb.store.create('Opportunity', {
			name: 'Beta_deal',
			amount: 900,
			probability: 50,
			closeDate: utcDate(0),
			description: 'hot',
		});
		const c = sb.store.create('Opportunity', { name: 'Gamma', amount: 20, closeDate: utcDate(3) });
		const W = (type: string, attribute: string, value?: unknown) => ({
			type,
			attribute,
			...(value !== undefined ? { value } : {}),
		});
		const sorted = async (items: unknown[]) => (await ids('Opportunity', items)).sort();
		const s = (...x: { id: string }[]) => x.map((y) => y.id).sort();
		expect(await sorted([W('equals', 'name', 'alpha DEAL')])).toEqual(s(a));
		expect(await sorted([W('equals', 'name', ['Gamma', 'Beta_deal'])])).toEqual(s(b, c));
		expect(await sorted([W('notEquals', 'name', 'Gamma')])).toEqual(s(a, b));
		expect(await sorted([W('in', 'stage', ['Proposal'])])).toEqual(s(a));
		expect(await sorted([W('notIn', 'stage', ['Proposal'])])).toEqual(s(b, c));
		expect(await sorted([W('greaterThan', 'amount', '99')])).toEqual(s(a, b));
		expect(await sorted([W('lessThan', 'amount', '100')])).toEqual(s(c));
		expect(await sorted([W('greaterThanOrEquals', 'amount', '100')])).toEqual(s(a, b));
		expect(await sorted([W('lessThanOrEquals', 'probability', '10')])).toEqual(s(a));
		expect(await sorted([W('like', 'name', '%a\\_d%')])).toEqual(s(b));
		expect(await sorted([W('notLike', 'name', '%deal')])).toEqual(s(c));
		expect(await sorted([W('contains', 'name', 'DEAL')])).toEqual(s(a, b));
		expect(await sorted([W('notContains', 'name', 'deal')])).toEqual(s(c));
		expect(await sorted([W('startsWith', 'name', 'gam')])).toEqual(s(c));
		expect(await sorted([W('endsWith', 'name', 'deal')])).toEqual(s(a, b));
		expect(await sorted([W('isNull', 'description')])).toEqual(s(a, c));
		expect(await sorted([W('isNotNull', 'description')])).toEqual(s(b));
		expect(await sorted([W('after', 'closeDate', utcDate(-1))])).toEqual(s(b, c));
		expect(await sorted([W('before', 'closeDate', utcDate())])).toEqual(s(a));
		expect(await sorted([W('between', 'closeDate', [utcDate(-50), utcDate(0)])])).toEqual(s(a, b));
		expect(await sorted([W('on', 'closeDate', utcDate())])).toEqual(s(b));
		expect(await sorted([W('notOn', 'closeDate', utcDate())])).toEqual(s(a, c));
		expect(await sorted([W('today', 'closeDate')])).toEqual(s(b));
		expect(await sorted([W('past', 'closeDate')])).toEqual(s(a));
		expect(await sorted([W('future', 'closeDate')])).toEqual(s(c));
		expect(await sorted([W('lastSevenDays', 'closeDate')])).toEqual(s(b));
		expect(await sorted([W('lastXDays', 'closeDate', 45)])).toEqual(s(a, b));
		expect(await sorted([W('nextXDays', 'closeDate', 5)])).toEqual(s(b, c));
		expect(await sorted([W('olderThanXDays', 'closeDate', 30)])).toEqual(s(a));
		expect(await sorted([W('afterXDays', 'closeDate', 1)])).toEqual(s(c));
		expect(await sorted([W('currentYear', 'createdAt')])).toEqual(s(a, b, c));
		for (const t of [
			'currentMonth',
			'lastMonth',
			'nextMonth',
			'currentQuarter',
			'lastQuarter',
			'lastYear',
		]) {
			expect((await get(`/Opportunity?${whereQs([W(t, 'closeDate')])}`)).status).toBe(200);
		}
		expect(
			await sorted([
				{
					type: 'or',
					value: [
						W('equals', 'name', 'Gamma'),
						{
							type: 'and',
							value: [W('contains', 'name', 'deal'), W('greaterThan', 'amount', 500)],
						},
					],
				},
			]),
		).toEqual(s(b, c));
		expect(
			(await get(`/Opportunity?where[0][type]=equals&where[0][attribute]=name`)).headers[
				'x-status-reason'
			],
		).toBe('Bad where item.');
		const unknown = await get(`/Opportunity?${whereQs([W('sortOf', 'name', 'x')])}`);
		expect(unknown.status).toBe(500);
		sb.setDialect('standard');
		expect((await get(`/Opportunity?${whereQs([W('sortOf', 'name', 'x')])}`)).status).toBe(400);
	});

	test('bool, array and link where types; [] array syntax', async () => {
		const p1 = sb.store.create('CProject', {
			name: 'P1',
			labels: ['Client', 'Urgent'],
			isBillable: true,
		});
		const p2 = sb.store.create('CProject', { name: 'P2', labels: ['Internal'] });
		const p3 = sb.store.create('CProject', { name: 'P3' });
		const s = (...x: { id: string }[]) => x.map((y) => y.id).sort();
		const q = async (items: unknown[]) => (await ids('CProject', items)).sort();
		expect(await q([{ type: 'isTrue', attribute: 'isBillable' }])).toEqual(s(p1));
		expect(await q([{ type: 'isFalse', attribute: 'isBillable' }])).toEqual(s(p2, p3));
		expect(
			await q([{ type: 'arrayAnyOf', attribute: 'labels', value: ['Urgent', 'Internal'] }]),
		).toEqual(s(p1, p2));
		expect(await q([{ type: 'arrayNoneOf', attribute: 'labels', value: ['Urgent'] }])).toEqual(
			s(p2, p3),
		);
		expect(
			await q([{ type: 'arrayAllOf', attribute: 'labels', value: ['Urgent', 'Client'] }]),
		).toEqual(s(p1));
		expect(await q([{ type: 'arrayIsEmpty', attribute: 'labels' }])).toEqual(s(p3));
		expect(await q([{ type: 'arrayIsNotEmpty', attribute: 'labels' }])).toEqual(s(p1, p2));
		const brackets = await get(
			'/CProject?where[0][type]=in&where[0][attribute]=name&where[0][value][]=P1&where[0][value][]=P3',
		);
		expect(brackets.data.list.map((x: { id: string }) => x.id).sort()).toEqual(s(p1, p3));

		const acc = sb.store.create('Account', { name: 'Acc' });
		const c1 = sb.store.create('Contact', { lastName: 'One', accountId: acc.id });
		const c2 = sb.store.create('Contact', { lastName: 'Two' });
		const qc = async (items: unknown[]) => (await ids('Contact', items)).sort();
		expect(await qc([{ type: 'linkedWith', attribute: 'account', value: [acc.id] }])).toEqual(
			s(c1),
		);
		expect(await qc([{ type: 'notLinkedWith', attribute: 'account', value: [acc.id] }])).toEqual(
			s(c2),
		);
		expect(await qc([{ type: 'isLinked', attribute: 'account' }])).toEqual(s(c1));
		expect(await qc([{ type: 'isNotLinked', attribute: 'account' }])).toEqual(s(c2));
	});

	test('date-time quirk: date types on createdAt need dateTime=true', async () => {
		const fresh = sb.store.create('Contact', { lastName: 'Fresh' });
		const old = sb.store.create('Contact', {
			lastName: 'Old',
			createdAt: utcDateTime(-3 * 86_400_000),
		});
		const q = (items: unknown[]) => ids('Contact', items);
		// Without the flag: a record created now is "future", not "today"; lastXDays misses it.
		expect(await q([{ type: 'today', attribute: 'createdAt' }])).toEqual([]);
		expect(await q([{ type: 'future', attribute: 'createdAt' }])).toEqual([fresh.id]);
		expect(await q([{ type: 'lastXDays', attribute: 'createdAt', value: 1 }])).toEqual([]);
		// With it, in several zones.
		for (const timeZone of ['UTC', 'Europe/Berlin', 'America/New_York']) {
			const flag = { dateTime: true, timeZone };
			expect(await q([{ type: 'today', attribute: 'createdAt', ...flag }])).toEqual([fresh.id]);
			expect(await q([{ type: 'lastXDays', attribute: 'createdAt', value: 7, ...flag }])).toEqual([
				fresh.id,
				old.id,
			]);
			expect(
				await q([{ type: 'olderThanXDays', attribute: 'createdAt', value: 1, ...flag }]),
			).toEqual([old.id]);
			expect(await q([{ type: 'past', attribute: 'createdAt', ...flag }])).toContain(old.id);
		}
		const flag = { dateTime: 'true', timeZone: 'Europe/Berlin' };
		expect(await q([{ type: 'lastSevenDays', attribute: 'createdAt', ...flag }])).toEqual([
			fresh.id,
			old.id,
		]);
		expect(
			await q([{ type: 'nextXDays', attribute: 'createdAt', value: 2, ...flag }]),
		).not.toContain(old.id);
		expect(await q([{ type: 'afterXDays', attribute: 'createdAt', value: 1, ...flag }])).toEqual(
			[],
		);
		expect(
			await q([
				{ type: 'greaterThan', attribute: 'createdAt', value: '2000-01-01 00:00:00', ...flag },
			]),
		).toEqual([]);
		expect(
			await q([{ type: 'greaterThan', attribute: 'createdAt', value: '2000-01-01 00:00:00' }]),
		).toEqual([fresh.id, old.id]);
		expect(
			await q([{ type: 'after', attribute: 'createdAt', value: utcDateTime(-86_400_000) }]),
		).toEqual([fresh.id]);
		expect(
			await q([
				{
					type: 'before',
					attribute: 'createdAt',
					value: utcDateTime(-86_400_000),
					dateTime: true,
					timeZone: 'UTC',
				},
			]),
		).toEqual([old.id]);
		expect(
			await q([
				{
					type: 'on',
					attribute: 'createdAt',
					value: old.createdAt.slice(0, 10),
					dateTime: true,
					timeZone: 'UTC',
				},
			]),
		).toEqual([old.id]);
		expect(
			await q([
				{
					type: 'between',
					attribute: 'createdAt',
					value: [utcDate(-5), utcDate(-2)],
					dateTime: true,
					timeZone: 'UTC',
				},
			]),
		).toEqual([old.id]);
	});
});

describe('authentication', () => {
	test('api key, basic, espo, hmac (raw and hex), bearer; refusals', async () => {
		const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
		const basic = b64(`${SANDBOX_CREDENTIALS.username}:${SANDBOX_CREDENTIALS.password}`);
		const noKey = { 'X-Api-Key': '' };
		const tryAuth = async (headers: Record<string, string>, path = '/Account') =>
			(await axios.get(sb.baseUrl + path, { headers, validateStatus: () => true })).status;
		expect(await tryAuth(KEY)).toBe(200);
		expect(await tryAuth({ Authorization: `Basic ${basic}` })).toBe(200);
		expect(await tryAuth({ 'Espo-Authorization': basic })).toBe(200);
		const mac = createHmac('sha256', SANDBOX_CREDENTIALS.hmacSecret).update('GET /Account');
		const raw = mac.digest();
		expect(
			await tryAuth(
				{
					'X-Hmac-Authorization': b64(
						Buffer.concat([Buffer.from(`${SANDBOX_CREDENTIALS.hmacApiKey}:`), raw]),
					),
				},
				'/Account?maxSize=1',
			),
		).toBe(200);
		expect(
			await tryAuth({
				'X-Hmac-Authorization': b64(`${SANDBOX_CREDENTIALS.hmacApiKey}:${raw.toString('hex')}`),
			}),
		).toBe(200);
		expect(
			await tryAuth(
				{ 'X-Hmac-Authorization': b64(`${SANDBOX_CREDENTIALS.hmacApiKey}:${raw.toString('hex')}`) },
				'/Contact',
			),
		).toBe(401);

		const none = await axios.get(`${sb.baseUrl}/Account`, { validateStatus: () => true });
		expect(none.status).toBe(401);
		expect(none.headers['www-authenticate']).toBe('Basic realm=""');
		const wrong = await axios.get(`${sb.baseUrl}/Account`, {
			headers: { 'X-Api-Key': 'nope' },
			validateStatus: () => true,
		});
		expect([wrong.status, wrong.data]).toEqual([401, '']);

		const tok = await axios.post(
			`${sb.baseUrl}/Auth`,
			{
				grant_type: 'client_credentials',
				client_id: SANDBOX_CREDENTIALS.clientId,
				client_secret: SANDBOX_CREDENTIALS.clientSecret,
			},
			{ validateStatus: () => true },
		);
		expect(tok.status).toBe(200);
		expect(tok.data).toMatchObject({ token_type: 'Bearer' });
		expect(sb.tokensIssued).toBe(1);
		expect(await tryAuth({ ...noKey, Authorization: `Bearer ${tok.data.access_token}` })).toBe(200);
		sb.expireTokens();
		expect(await tryAuth({ Authorization: `Bearer ${tok.data.access_token}` })).toBe(401);
		const badClient = await axios.post(
			`${sb.baseUrl}/Auth`,
			{ grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' },
			{ validateStatus: () => true },
		);
		expect([badClient.status, badClient.data]).toEqual([401, { error: 'invalid_client' }]);
		const badGrant = await axios.post(
			`${sb.baseUrl}/Auth`,
			{ client_id: 'x' },
			{ validateStatus: () => true },
		);
		expect([badGrant.status, badGrant.data]).toEqual([400, { error: 'unsupported_grant_type' }]);
		expect(noKey).toBeDefined();
	});

	test('token TTL and failed-login lock-out', async () => {
		const other = await startSandbox({ tokenTtlMs: 150, failedLoginLimit: 3 });
		try {
			const tok = await axios.post(`${other.baseUrl}/Auth`, {
				grant_type: 'client_credentials',
				client_id: SANDBOX_CREDENTIALS.clientId,
				client_secret: SANDBOX_CREDENTIALS.clientSecret,
			});
			const auth = { Authorization: `Bearer ${tok.data.access_token}` };
			expect(
				(await axios.get(`${other.baseUrl}/Lead`, { headers: auth, validateStatus: () => true }))
					.status,
			).toBe(200);
			await new Promise((r) => setTimeout(r, 200));
			expect(
				(await axios.get(`${other.baseUrl}/Lead`, { headers: auth, validateStatus: () => true }))
					.status,
			).toBe(401);
			for (let i = 0; i < 3; i++)
				expect(
					(
						await axios.get(`${other.baseUrl}/Lead`, {
							headers: { 'X-Api-Key': 'bad' },
							validateStatus: () => true,
						})
					).status,
				).toBe(401);
			const locked = await axios.get(`${other.baseUrl}/Lead`, {
				headers: KEY,
				validateStatus: () => true,
			});
			expect([locked.status, locked.headers['x-status-reason']]).toEqual([403, '']);
			other.reset();
			expect(
				(await axios.get(`${other.baseUrl}/Lead`, { headers: KEY, validateStatus: () => true }))
					.status,
			).toBe(200);
		} finally {
			await other.close();
		}
	});
});

describe('relationships and dialects', () => {
	test('link, related list, unlink by dialect, accountId consistency', async () => {
		const acc = (await post('/Account', { name: 'A' })).data;
		const c1 = (await post('/Contact', { lastName: 'C1', accountId: acc.id })).data;
		const c2 = (await post('/Contact', { lastName: 'C2' })).data;
		// EspoCRM's create reply has the link's id, not its name (the read has both).
		expect(c1).not.toHaveProperty('accountName');
		expect((await get(`/Contact/${c1.id}`)).data.accountName).toBe('A');
		expect((await post(`/Account/${acc.id}/contacts`, { id: c2.id })).data).toBe(true);
		const rel = await get(`/Account/${acc.id}/contacts?orderBy=lastName&order=asc&select=lastName`);
		expect(rel.data).toMatchObject({ total: 2, list: [{ lastName: 'C1' }, { lastName: 'C2' }] });
		expect((await get(`/Contact/${c2.id}`)).data.accountId).toBe(acc.id);
		expect((await get(`/Account/${acc.id}/nope`)).status).toBe(500);

		sb.setDialect('espocrm');
		const q = await call('DELETE', `/Account/${acc.id}/contacts?id=${c2.id}`);
		expect([q.status, q.data]).toEqual([200, false]);
		expect(sb.store.related('Account', acc.id, 'contacts')).toHaveLength(2);
		expect((await call('DELETE', `/Account/${acc.id}/contacts`, { id: c2.id })).data).toBe(true);
		expect(sb.store.related('Account', acc.id, 'contacts')).toHaveLength(1);
		sb.setDialect('standard');
		expect((await call('DELETE', `/Account/${acc.id}/contacts?id=${c1.id}`)).data).toBe(true);
		expect(sb.store.get('Contact', c1.id)!.accountId).toBeNull();

		const opp = sb.store.create('Opportunity', { name: 'O' });
		sb.store.link('Opportunity', opp.id, 'contacts', c1.id);
		expect(sb.store.related('Contact', c1.id, 'opportunities').map((o) => o.id)).toEqual([opp.id]);
		expect(sb.store.get('Opportunity', opp.id)!.contactsIds).toEqual([c1.id]);
	});

	test('mass actions in both forms and their refusals', async () => {
		const a = sb.store.create('Contact', { lastName: 'A' });
		const b = sb.store.create('Contact', { lastName: 'B' });
		const mu = await call('PUT', '/Contact/action/massUpdate', {
			ids: [a.id, 'missing'],
			attributes: { description: 'm' },
		});
		expect([mu.status, mu.data]).toEqual([200, true]);
		expect(sb.store.get('Contact', a.id)!.description).toBe('m');
		const ma = await post('/MassAction', {
			entityType: 'Contact',
			action: 'update',
			params: { ids: [a.id, b.id, 'missing'] },
			data: { addressCity: 't' },
		});
		expect(ma.data).toEqual({ count: 2, ids: [a.id, b.id] });
		sb.setDialect('espocrm');
		const refused = await call('PUT', '/Contact/action/massUpdate', {
			ids: [a.id],
			attributes: {},
		});
		expect([refused.status, refused.headers['x-status-reason']]).toEqual([
			404,
			"Action PUT 'massUpdate' does not exist in controller 'Contact'.",
		]);
		expect(
			(await post('/Contact/action/massDelete', { ids: [a.id] })).headers['x-status-reason'],
		).toBe("Action POST 'massDelete' does not exist in controller 'Contact'.");
		expect(
			(
				await post('/MassAction', {
					entityType: 'Contact',
					action: 'delete',
					params: { ids: [a.id] },
				})
			).data,
		).toEqual({ count: 1, ids: [a.id] });
		sb.setDialect('standard');
		const noMass = await post('/MassAction', {
			entityType: 'Contact',
			action: 'delete',
			params: { ids: [b.id] },
		});
		expect([noMass.status, noMass.headers['x-status-reason']]).toEqual([
			404,
			"Controller 'MassAction' does not exist.",
		]);
		expect((await post('/Contact/action/massDelete', { ids: [b.id] })).data).toBe(true);
		expect(sb.store.count('Contact')).toBe(0);
	});

	test('lead conversion in both forms', async () => {
		const lead = sb.store.create('Lead', { firstName: 'L', lastName: 'Ead' });
		const records = {
			Account: { name: 'Conv Inc' },
			Contact: { firstName: 'L', lastName: 'Ead' },
			Opportunity: { name: 'Deal', amount: 500 },
		};
		const r = await post(`/Lead/${lead.id}/action/convert`, { records });
		expect(r.status).toBe(200);
		expect(r.data.status).toBe('Converted');
		const contact = sb.store.get('Contact', r.data.createdContactId)!;
		expect(contact.accountId).toBe(r.data.createdAccountId);
		expect(sb.store.get('Opportunity', r.data.createdOpportunityId)!.contactsIds).toEqual([
			contact.id,
		]);
		expect((await post('/Lead/action/convert', { id: lead.id, records })).status).toBe(409);
		const again = await post('/Lead/action/convert', {
			id: lead.id,
			records: { Account: { name: 'Second' } },
		});
		expect(again.data.createdAccountId).not.toBe(r.data.createdAccountId);
		sb.setDialect('espocrm');
		expect((await post(`/Lead/${lead.id}/action/convert`, { records })).status).toBe(404);
		sb.setDialect('standard');
		expect((await post('/Lead/action/convert', { id: lead.id, records })).status).toBe(404);
	});

	test('e-mail by dialect, attachments', async () => {
		const att = await post('/Attachment', {
			name: 'a.txt',
			type: 'text/plain',
			role: 'Attachment',
			relatedType: 'Email',
			field: 'attachments',
			file: `data:text/plain;base64,${Buffer.from('hello').toString('base64')}`,
		});
		expect(att.data).toMatchObject({ name: 'a.txt', size: 5 });
		const empty = await post('/Attachment', {
			name: 'b.txt',
			relatedType: 'Email',
			field: 'attachments',
			file: 'hello',
		});
		expect(empty.data.size).toBe(0);
		expect(
			(await post('/Attachment', { name: 'c', relatedType: 'Email', field: 'attachments' }))
				.headers['x-status-reason'],
		).toBe('No file contents.');
		expect((await get('/Attachment')).status).toBe(403);
		const dl = await call(
			'GET',
			`/Attachment/file/${att.data.id}`,
			undefined,
			{},
			{ responseType: 'arraybuffer' },
		);
		expect(Buffer.from(dl.data).toString()).toBe('hello');
		expect(dl.headers['content-disposition']).toBe('attachment; filename="a.txt"');

		const standardMail = await post('/Email', {
			to: 'x@y.io',
			subject: 'Hi',
			body: 'b',
			isHtml: false,
			attachmentsIds: [att.data.id],
		});
		expect(standardMail.data).toMatchObject({
			status: 'Sent',
			hasAttachment: true,
			attachmentsNames: { [att.data.id]: 'a.txt' },
			subject: 'Hi',
		});
		expect((await post('/Email', { to: 'x@y.io', attachmentsIds: ['nope'] })).status).toBe(403);

		sb.setDialect('espocrm');
		const noFrom = await post('/Email', { to: 'x@y.io', subject: 'Hi', status: 'Sending' });
		expect(noFrom.headers['x-status-reason']).toBe(
			'Field validation failure; entityType: Email, field: from, type: required.',
		);
		expect(
			(await post('/Email', { from: 'me@y.io', to: 'x@y.io', subject: 'Hi' })).data.status,
		).toBe('Archived');
		const sent = await post('/Email', {
			from: 'me@y.io',
			to: 'x@y.io; z@y.io',
			subject: 'Hi',
			status: 'Sending',
		});
		expect(sent.data.status).toBe('Sent');
		expect(sent.data.dateSent).toBeTruthy();
		expect(sb.outbox.at(-1)!.to).toEqual(['x@y.io', 'z@y.io']);
		sb.faults.emailSendingFails = true;
		const fail = await post('/Email', {
			from: 'me@y.io',
			to: 'x@y.io',
			subject: 'Hi',
			status: 'Sending',
		});
		expect([fail.status, fail.headers['x-status-reason'], fail.data.message]).toEqual([
			500,
			'sendingFail',
			'No system SMTP settings.',
		]);
		expect(sb.store.get('Email', fail.data.id)!.status).toBe('Draft');
	});

	test('metadata, app/user, restricted scopes', async () => {
		const md = await get('/Metadata');
		expect(md.data.scopes.CProject).toMatchObject({ entity: true, object: true, isCustom: true });
		expect(md.data.entityDefs.Lead.fields.status).toEqual({
			type: 'enum',
			options: ['New', 'Assigned', 'In Process', 'Converted', 'Recycled', 'Dead'],
			default: 'New',
		});
		expect(md.data.entityDefs.Account.links.contacts).toMatchObject({
			type: 'hasMany',
			entity: 'Contact',
		});
		expect((await get('/App/user')).data.acl.table.Contact).toEqual({
			create: 'yes',
			read: 'all',
			edit: 'all',
			delete: 'all',
			stream: 'all',
		});
		sb.setRestrictedScopes(['CProject']);
		expect((await get('/Metadata')).data.scopes.CProject).toBeUndefined();
		expect((await get('/CProject')).status).toBe(403);
		sb.setDialect('standard');
		const none = await get('/Metadata');
		expect([none.status, none.headers['x-status-reason']]).toEqual([
			404,
			"Controller 'Metadata' does not exist.",
		]);
		sb.setDialect('espocrm');
		expect((await post('/Auth', { grant_type: 'client_credentials' })).status).toBe(404);
	});
});

describe('faults and request log', () => {
	test('failNext with Retry-After, failEvery, dropNext, latency, request log', async () => {
		sb.faults.failNext({
			count: 2,
			status: 429,
			retryAfter: 2,
			reason: 'slow down',
			method: 'GET',
			pathPrefix: '/Account',
		});
		const r1 = await get('/Account');
		expect([r1.status, r1.headers['retry-after'], r1.headers['x-status-reason']]).toEqual([
			429,
			'2',
			'slow down',
		]);
		expect((await get('/Contact')).status).toBe(200);
		expect((await get('/Account')).status).toBe(429);
		expect((await get('/Account')).status).toBe(200);

		sb.faults.failEvery({ every: 2, status: 503, times: 1 });
		expect([
			(await get('/Lead')).status,
			(await get('/Lead')).status,
			(await get('/Lead')).status,
			(await get('/Lead')).status,
		]).toEqual([200, 503, 200, 200]);

		sb.faults.dropNext({ count: 1 });
		await expect(axios.get(`${sb.baseUrl}/Lead`, { headers: KEY })).rejects.toThrow();
		expect(sb.requests.at(-1)!.status).toBe(0);

		sb.faults.latencyMs = 80;
		const t = Date.now();
		await get('/Lead');
		expect(Date.now() - t).toBeGreaterThanOrEqual(75);
		sb.faults.latencyMs = 0;

		sb.clearRequests();
		await post('/Account?x[a][]=1', { name: 'Logged' });
		expect(sb.requests[0]).toMatchObject({
			method: 'POST',
			path: '/Account',
			rawQuery: 'x[a][]=1',
			query: { x: { a: ['1'] } },
			body: { name: 'Logged' },
			status: 200,
		});
		expect(sb.requests[0].headers['x-api-key']).toBe(SANDBOX_CREDENTIALS.apiKey);
	});

	test('maxInFlight refuses at once and maxInFlightSeen counts', async () => {
		sb.faults.latencyMs = 100;
		await Promise.all(Array.from({ length: 6 }, () => get('/Contact')));
		expect(sb.maxInFlightSeen).toBe(6);
		sb.faults.maxInFlight = { limit: 3, status: 503, retryAfter: 1 };
		const statuses = (await Promise.all(Array.from({ length: 6 }, () => get('/Contact'))))
			.map((r) => r.status)
			.sort();
		expect(statuses).toEqual([200, 200, 200, 503, 503, 503]);
		expect(
			sb.requests.filter((r) => r.status === 503).every((r) => r.endedAt! - r.startedAt < 50),
		).toBe(true);
	});
});

// ---------------------------------------------------------------------------------------------------------------
// Helpers for the tests below.

const ADMIN = {
	'X-Api-Key': '',
	Authorization: `Basic ${Buffer.from(`${SANDBOX_CREDENTIALS.username}:${SANDBOX_CREDENTIALS.password}`).toString('base64')}`,
};
/** X-Hmac-Authorization for one request (the path without /api/v1 and without the query). */
function hmac(method: string, path: string): Record<string, string> {
	const digest = createHmac('sha256', SANDBOX_CREDENTIALS.hmacSecret)
		.update(`${method} ${path.split('?')[0]}`)
		.digest();
	return {
		'X-Api-Key': '',
		'X-Hmac-Authorization': Buffer.concat([
			Buffer.from(`${SANDBOX_CREDENTIALS.hmacApiKey}:`),
			digest,
		]).toString('base64'),
	};
}
async function bearer(): Promise<Record<string, string>> {
	const tok = await axios.post(`${sb.baseUrl}/Auth`, {
		grant_type: 'client_credentials',
		client_id: SANDBOX_CREDENTIALS.clientId,
		client_secret: SANDBOX_CREDENTIALS.clientSecret,
	});
	return { 'X-Api-Key': '', Authorization: `Bearer ${tok.data.access_token}` };
}
const reason = (r: AxiosResponse) => [r.status, r.headers['x-status-reason']];

interface Received {
	headers: http.IncomingHttpHeaders;
	raw: Buffer;
	body: any;
}
/** A webhook receiver: answers each POST with the next status of `statuses` (then 200), records what came. */
async function receiver(
	statuses: number[] = [],
): Promise<{ url: string; got: Received[]; close: () => Promise<void>; answer: number[] }> {
	const got: Received[] = [];
	const answer = [...statuses];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const raw = Buffer.concat(chunks);
			got.push({ headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) });
			res.writeHead(answer.length ? answer.shift()! : 200);
			res.end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		got,
		answer,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
/** Checks X-Signature the way a receiver must: on the raw body, base64(`<webhookId>:` + raw HMAC-SHA256). */
function signatureOk(r: Received, webhookId: string, secretKey: string): boolean {
	const expected = Buffer.concat([
		Buffer.from(`${webhookId}:`),
		createHmac('sha256', secretKey).update(r.raw).digest(),
	]).toString('base64');
	return r.headers['x-signature'] === expected;
}

describe('webhooks', () => {
	test('only with EspoCRM: the standard dialect has no Webhook controller', async () => {
		sb.setDialect('standard');
		expect(
			reason(await post('/Webhook', { event: 'Contact.create', url: 'http://127.0.0.1:1/x' })),
		).toEqual([404, "Controller 'Webhook' does not exist."]);
		sb.setDialect('espocrm');
		expect(
			(await post('/Webhook', { event: 'Contact.create', url: 'http://127.0.0.1:1/x' })).status,
		).toBe(201);
	});

	test('create replies 201 with the webhook and its secret; the event is checked as EspoCRM does (403)', async () => {
		const r = await post('/Webhook', {
			event: 'Contact.create',
			url: 'https://n8n.example.com/webhook/a',
			secretKey: 'mine',
			entityType: 'Lead',
		});
		expect(r.status).toBe(201);
		expect(r.data).toMatchObject({
			event: 'Contact.create',
			url: 'https://n8n.example.com/webhook/a',
			isActive: true,
			entityType: 'Contact',
			type: 'create',
			field: null,
			userId: SANDBOX_USERS.apiKey.id,
		});
		expect(r.data.id).toMatch(/^[0-9a-f]{17}$/);
		expect(r.data.secretKey).toMatch(/^[0-9a-f]{32}$/);
		expect(r.data.createdAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
		const field = await post('/Webhook', {
			event: 'Contact.fieldUpdate.lastName',
			url: 'https://x.example.com',
		});
		expect(field.data).toMatchObject({ type: 'fieldUpdate', field: 'lastName' });
		const refused = async (event: unknown) =>
			reason(await post('/Webhook', { event, url: 'https://x.example.com' }));
		expect(await refused('Foo.create')).toEqual([
			403,
			'Entity type is not available for Webhooks.',
		]);
		expect(await refused('Team.create')).toEqual([
			403,
			'Entity type is not available for Webhooks.',
		]);
		expect(await refused('Contact.bogus')).toEqual([403, 'Not supported event.']);
		expect(await refused('Contact')).toEqual([403, 'Not supported event.']);
		expect(await refused('Contact.fieldUpdate')).toEqual([403, 'Field is empty.']);
		expect(await refused('Contact.fieldUpdate.nope')).toEqual([403, 'Field does not exist.']);
		expect(await refused(undefined)).toEqual([
			400,
			'Field validation failure; entityType: Webhook, field: event, type: required.',
		]);
		expect(reason(await post('/Webhook', { event: 'Contact.create' }))).toEqual([
			400,
			'Field validation failure; entityType: Webhook, field: url, type: required.',
		]);
		sb.setRestrictedScopes(['CProject']);
		expect(await refused('CProject.create')).toEqual([403, 'Entity type is forbidden.']);
		expect(
			(
				await call(
					'POST',
					'/Webhook',
					{ event: 'CProject.create', url: 'https://x.example.com' },
					ADMIN,
				)
			).status,
		).toBe(201);
	});

	test('API-key user, HMAC user and admin are different users; OAuth tokens are refused', async () => {
		const mine = (await post('/Webhook', { event: 'Contact.create', url: 'https://a.example.com' }))
			.data;
		const hmacHook = (
			await call(
				'POST',
				'/Webhook',
				{ event: 'Lead.create', url: 'https://b.example.com' },
				hmac('POST', '/Webhook'),
			)
		).data;
		expect(hmacHook.userId).toBe(SANDBOX_USERS.hmac.id);
		const adminHook = (
			await call(
				'POST',
				'/Webhook',
				{ event: 'Account.create', url: 'https://c.example.com' },
				ADMIN,
			)
		).data;
		expect(adminHook.userId).toBeNull();

		const listKey = await get('/Webhook');
		expect(listKey.data).toEqual({
			total: 1,
			list: [expect.objectContaining({ id: mine.id, secretKey: mine.secretKey })],
		});
		const listHmac = await call('GET', '/Webhook?maxSize=5', undefined, hmac('GET', '/Webhook'));
		expect(listHmac.data.list.map((w: { id: string }) => w.id)).toEqual([hmacHook.id]);
		// Admins see every webhook (Classes/Select/Webhook/AccessControlFilters/Mandatory).
		expect(
			(await call('GET', '/Webhook?orderBy=url&order=asc', undefined, ADMIN)).data.list.map(
				(w: { id: string }) => w.id,
			),
		).toEqual([mine.id, hmacHook.id, adminHook.id]);
		expect((await get('/Webhook?maxSize=201')).status).toBe(403);

		expect((await get(`/Webhook/${mine.id}`)).data.secretKey).toBe(mine.secretKey);
		expect(reason(await get(`/Webhook/${hmacHook.id}`))).toEqual([403, "No 'read' access."]);
		expect(reason(await get('/Webhook/nope'))).toEqual([404, 'Record nope does not exist.']);
		expect(reason(await call('DELETE', `/Webhook/${hmacHook.id}`))).toEqual([
			403,
			'No delete access.',
		]);
		expect(reason(await call('DELETE', '/Webhook/nope'))).toEqual([404, 'Record nope not found.']);

		const oauth = await bearer();
		expect(reason(await call('GET', '/Webhook', undefined, oauth))).toEqual([
			403,
			"No access to 'Webhook'.",
		]);
		expect(
			reason(
				await call(
					'POST',
					'/Webhook',
					{ event: 'Contact.create', url: 'https://d.example.com' },
					oauth,
				),
			),
		).toEqual([403, "No access to 'Webhook'."]);

		const del = await call('DELETE', `/Webhook/${mine.id}`);
		expect([del.status, del.data]).toEqual([200, true]);
		expect(
			sb.webhooks
				.list()
				.map((w) => w.id)
				.sort(),
		).toEqual([hmacHook.id, adminHook.id].sort());
		expect((await call('DELETE', `/Webhook/${hmacHook.id}`, undefined, ADMIN)).data).toBe(true);
	});

	test('at most 50 per API user; admins have no limit', async () => {
		for (let i = 0; i < 50; i++)
			expect(
				(await post('/Webhook', { event: 'Contact.create', url: `https://x.example.com/${i}` }))
					.status,
			).toBe(201);
		expect(
			reason(await post('/Webhook', { event: 'Contact.create', url: 'https://x.example.com/50' })),
		).toEqual([403, 'Webhook number per user exceeded the limit.']);
		// Another API user has its own count.
		expect(
			(
				await call(
					'POST',
					'/Webhook',
					{ event: 'Contact.create', url: 'https://y.example.com' },
					hmac('POST', '/Webhook'),
				)
			).status,
		).toBe(201);
		for (let i = 0; i < 51; i++)
			expect(
				(
					await call(
						'POST',
						'/Webhook',
						{ event: 'Lead.create', url: `https://z.example.com/${i}` },
						ADMIN,
					)
				).status,
			).toBe(201);
	});

	test('without the Webhook scope in the role: 403 with an empty reason (admins are not affected)', async () => {
		sb.setWebhookScope(false);
		expect(
			reason(await post('/Webhook', { event: 'Contact.create', url: 'https://x.example.com' })),
		).toEqual([403, '']);
		expect(reason(await get('/Webhook'))).toEqual([403, '']);
		expect((await get('/App/user')).data.acl.table.Webhook).toBe(false);
		expect((await get('/Metadata')).data.scopes.Webhook).toBeUndefined();
		expect(
			(
				await call(
					'POST',
					'/Webhook',
					{ event: 'Contact.create', url: 'https://x.example.com' },
					ADMIN,
				)
			).status,
		).toBe(201);
		sb.reset();
		expect((await get('/App/user')).data.acl.table.Webhook).toBe(true);
		const other = await startSandbox({ restrictedScopes: ['Webhook'] });
		try {
			const r = await axios.post(
				`${other.baseUrl}/Webhook`,
				{ event: 'Contact.create', url: 'https://x.example.com' },
				{ headers: KEY, validateStatus: () => true },
			);
			expect(reason(r)).toEqual([403, '']);
		} finally {
			await other.close();
		}
	});

	test('events of the API, queued while a webhook exists, delivered by the job as EspoCRM sends them', async () => {
		const rx = await receiver();
		try {
			const before = (await post('/Contact', { firstName: 'Too', lastName: 'Early' })).data;
			const hooks: Record<string, { id: string; secretKey: string }> = {};
			for (const event of [
				'Contact.create',
				'Contact.update',
				'Contact.delete',
				'Contact.fieldUpdate.lastName',
				'Contact.fieldUpdate.account',
			]) {
				hooks[event] = (await post('/Webhook', { event, url: `${rx.url}?e=${event}` })).data;
			}
			const acc = (await post('/Account', { name: 'Acme' })).data;
			const c = (
				await post('/Contact', { firstName: 'Ada', lastName: 'Byron', description: 'Countess' })
			).data;
			await call('PUT', `/Contact/${c.id}`, { lastName: 'Lovelace', description: 'Countess' });
			await call('PUT', `/Contact/${c.id}`, { lastName: 'Lovelace' }); // nothing changes: no event
			await call('PATCH', `/Contact/${c.id}`, { accountId: acc.id });
			await call('DELETE', `/Contact/${c.id}`);
			await call('DELETE', `/Contact/${before.id}`);
			expect(rx.got).toHaveLength(0); // nothing is sent before the job runs

			const report = await sb.webhooks.deliver();
			expect(report.requests.map((r) => [r.event, r.count, r.status, r.outcome])).toEqual([
				['Contact.create', 1, 200, 'delivered'],
				['Contact.update', 2, 200, 'delivered'],
				['Contact.fieldUpdate.lastName', 1, 200, 'delivered'],
				['Contact.fieldUpdate.account', 1, 200, 'delivered'],
				['Contact.delete', 2, 200, 'delivered'],
			]);
			expect(report).toMatchObject({ runs: 1, dropped: 0, deletedWebhooks: [], pending: 0 });
			const byEvent = (event: string) =>
				rx.got.find(
					(r) =>
						r.body &&
						sb.webhooks.deliveries.find((d) => d.event === event && d.body === r.raw.toString()),
				) as Received;

			const created = byEvent('Contact.create');
			expect(created.headers['content-type']).toBe('application/json');
			expect(
				signatureOk(created, hooks['Contact.create'].id, hooks['Contact.create'].secretKey),
			).toBe(true);
			expect(created.body).toEqual([
				expect.objectContaining({
					id: c.id,
					firstName: 'Ada',
					lastName: 'Byron',
					description: 'Countess',
					createdAt: c.createdAt,
				}),
			]);
			// Only the changed attributes plus id (the person's name changes with its last name).
			expect(byEvent('Contact.update').body).toEqual([
				{ id: c.id, lastName: 'Lovelace', name: 'Ada Lovelace' },
				{ id: c.id, accountId: acc.id, accountName: 'Acme' },
			]);
			expect(byEvent('Contact.fieldUpdate.lastName').body).toEqual([
				{ id: c.id, lastName: 'Lovelace' },
			]);
			expect(byEvent('Contact.fieldUpdate.account').body).toEqual([
				{ id: c.id, accountId: acc.id, accountName: 'Acme' },
			]);
			// The contact deleted before any webhook existed is there: the delete came after.
			expect(byEvent('Contact.delete').body).toEqual([{ id: c.id }, { id: before.id }]);
			for (const r of rx.got) {
				const d = sb.webhooks.deliveries.find((x) => x.body === r.raw.toString())!;
				expect(
					signatureOk(
						r,
						d.webhookId,
						sb.webhooks.list().find((w) => w.id === d.webhookId)!.secretKey,
					),
				).toBe(true);
			}
			expect((await sb.webhooks.deliver()).requests).toEqual([]);
		} finally {
			await rx.close();
		}
	});

	test('mass update, mass delete, lead conversion and direct store changes make events too', async () => {
		const rx = await receiver();
		try {
			for (const event of [
				'Contact.create',
				'Contact.update',
				'Contact.delete',
				'Account.create',
				'Lead.update',
			])
				await post('/Webhook', { event, url: rx.url });
			const a = sb.store.create('Contact', { lastName: 'A' });
			const b = sb.store.create('Contact', { lastName: 'B' });
			sb.store.update('Contact', a.id, { addressCity: 'Direct' });
			await post('/MassAction', {
				entityType: 'Contact',
				action: 'update',
				params: { ids: [a.id, b.id] },
				data: { description: 'mass' },
			});
			await call('PUT', '/Contact/action/massUpdate', {
				ids: [b.id],
				attributes: { addressCity: 'Std' },
			});
			const lead = sb.store.create('Lead', { firstName: 'L', lastName: 'Ead' });
			await post('/Lead/action/convert', {
				id: lead.id,
				records: { Account: { name: 'Conv' }, Contact: { firstName: 'L', lastName: 'Ead' } },
			});
			await post('/MassAction', {
				entityType: 'Contact',
				action: 'delete',
				params: { ids: [a.id] },
			});
			sb.store.delete('Contact', b.id);
			await sb.webhooks.deliverAll();
			const all = sb.webhooks.deliveries.flatMap((d) =>
				d.payload.map((p) => [
					d.event,
					p.id,
					Object.keys(p)
						.filter((k) => k !== 'id')
						.sort()
						.join(','),
				]),
			);
			expect(all).toEqual(
				expect.arrayContaining([
					['Contact.create', a.id, expect.any(String)],
					['Contact.update', a.id, 'addressCity'],
					['Contact.update', a.id, 'description'],
					['Contact.update', b.id, 'description'],
					['Contact.update', b.id, 'addressCity'],
					['Account.create', expect.any(String), expect.stringContaining('name')],
					['Lead.update', lead.id, expect.stringContaining('createdAccountId')],
					['Contact.delete', a.id, ''],
					['Contact.delete', b.id, ''],
				]),
			);
			const leadUpdate = sb.webhooks.deliveries.find((d) => d.event === 'Lead.update')!.payload[0];
			expect(leadUpdate).toMatchObject({ id: lead.id, status: 'Converted' });
			expect(Object.keys(leadUpdate)).not.toContain('modifiedAt');
		} finally {
			await rx.close();
		}
	});

	test('batches: deliver() sends everything queued, up to 50 records per request; runJob() is one EspoCRM run', async () => {
		const rx = await receiver();
		try {
			await post('/Webhook', { event: 'Account.create', url: rx.url });
			for (let i = 0; i < 120; i++) sb.store.create('Account', { name: `A${i}` });
			const report = await sb.webhooks.deliver();
			expect(report.requests.map((r) => r.count)).toEqual([50, 50, 20]);
			expect(rx.got.flatMap((r) => r.body.map((x: { name: string }) => x.name))).toEqual(
				Array.from({ length: 120 }, (_, i) => `A${i}`),
			);
			// EspoCRM's job takes 20 events per run, and sends one request per webhook and run.
			for (let i = 0; i < 70; i++) sb.store.create('Account', { name: `B${i}` });
			const first = await sb.webhooks.runJob();
			expect([first.requests.map((r) => r.count), first.pending]).toEqual([[20], 50]);
			const runs = [];
			for (let r = await sb.webhooks.runJob(); r.requests.length; r = await sb.webhooks.runJob())
				runs.push(r.requests[0].count);
			expect(runs).toEqual([20, 20, 10]);
		} finally {
			await rx.close();
		}
		const small = await startSandbox({ webhookConfig: { batchSize: 7 } });
		const rx2 = await receiver();
		try {
			await axios.post(
				`${small.baseUrl}/Webhook`,
				{ event: 'Account.create', url: rx2.url },
				{ headers: KEY },
			);
			for (let i = 0; i < 16; i++) small.store.create('Account', { name: `C${i}` });
			expect((await small.webhooks.deliver()).requests.map((r) => r.count)).toEqual([7, 7, 2]);
		} finally {
			await small.close();
			await rx2.close();
		}
	});

	test('what the answer means: retried 4 times, given up, webhook deleted on 410', async () => {
		const rx = await receiver([500, 503, 401, 500, 404, 410]);
		try {
			const hook = (await post('/Webhook', { event: 'Contact.create', url: rx.url })).data;
			sb.store.create('Contact', { lastName: 'One' });
			const report = await sb.webhooks.deliverAll();
			// Four attempts, then the batch is dropped.
			expect(report.requests.map((r) => [r.status, r.outcome])).toEqual([
				[500, 'retry'],
				[503, 'retry'],
				[401, 'retry'],
				[500, 'failed'],
			]);
			expect(report.dropped).toBe(1);
			sb.store.create('Contact', { lastName: 'Two' });
			sb.store.create('Contact', { lastName: 'Three' });
			const next = await sb.webhooks.deliverAll();
			expect(next.requests.map((r) => [r.status, r.outcome])).toEqual([
				[404, 'retry'],
				[410, 'webhookDeleted'],
			]);
			expect(next.deletedWebhooks).toEqual([hook.id]);
			expect(sb.webhooks.list()).toEqual([]);
			expect((await get(`/Webhook/${hook.id}`)).status).toBe(404);
		} finally {
			await rx.close();
		}
	});

	test('other 4xx and 5xx give up at once; no answer is status 0 and retried; a timeout is 408', async () => {
		const rx = await receiver([400, 502]);
		try {
			await post('/Webhook', { event: 'Contact.create', url: rx.url });
			sb.store.create('Contact', { lastName: 'One' });
			expect((await sb.webhooks.deliverAll()).requests.map((r) => [r.status, r.outcome])).toEqual([
				[400, 'failed'],
			]);
			sb.store.create('Contact', { lastName: 'Two' });
			expect((await sb.webhooks.deliverAll()).requests.map((r) => [r.status, r.outcome])).toEqual([
				[502, 'failed'],
			]);
		} finally {
			await rx.close();
		}
		sb.reset();
		// Nothing listens there any more.
		await post('/Webhook', { event: 'Contact.create', url: rx.url });
		sb.store.create('Contact', { lastName: 'Gone' });
		const refused = await sb.webhooks.deliver();
		expect(refused.requests.map((r) => [r.status, r.outcome])).toEqual([[0, 'retry']]);
		const slow = http.createServer(() => undefined);
		await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', () => resolve()));
		const other = await startSandbox({
			webhookConfig: { timeoutMs: 100, failAttemptPeriodMs: 600_000 },
		});
		try {
			await axios.post(
				`${other.baseUrl}/Webhook`,
				{
					event: 'Contact.create',
					url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`,
				},
				{ headers: KEY },
			);
			other.store.create('Contact', { lastName: 'Slow' });
			const t = await other.webhooks.deliverAll();
			expect(t.requests.map((r) => [r.status, r.outcome])).toEqual([[408, 'retry']]);
			// The retry waits 10 minutes: a later run finds it due.
			expect(t.pending).toBe(1);
			expect(
				(await other.webhooks.deliver({ now: Date.now() + 600_001 })).requests.map((r) => r.status),
			).toEqual([408]);
		} finally {
			await other.close();
			slow.closeAllConnections();
			await new Promise((resolve) => slow.close(resolve));
		}
	});

	test('records the webhook user may not read are left out; the body is PHP JSON, signed as sent', async () => {
		const rx = await receiver();
		try {
			const hook = (await post('/Webhook', { event: 'CProject.create', url: rx.url })).data;
			sb.setRestrictedScopes(['CProject']);
			sb.store.create('CProject', { name: 'Hidden' });
			const report = await sb.webhooks.deliver();
			expect([report.requests.length, report.dropped]).toEqual([0, 1]);
			sb.setRestrictedScopes([]);
			sb.store.create('CProject', {
				name: 'Ünïcode / "quoted" 😀',
				cWebsite: 'https://x.example.com/a',
			});
			await sb.webhooks.deliver();
			const raw = rx.got[0].raw.toString('utf8');
			expect(raw).toContain('\\u00dcn\\u00efcode \\/ \\"quoted\\" \\ud83d\\ude00');
			expect(raw).toContain('https:\\/\\/x.example.com\\/a');
			expect(signatureOk(rx.got[0], hook.id, hook.secretKey)).toBe(true);
			expect(rx.got[0].body[0].name).toBe('Ünïcode / "quoted" 😀');
		} finally {
			await rx.close();
		}
	});

	test('delivered on a timer with webhookDeliveryIntervalMs, until close()', async () => {
		const rx = await receiver();
		const timed = await startSandbox({ webhookDeliveryIntervalMs: 30 });
		try {
			await axios.post(
				`${timed.baseUrl}/Webhook`,
				{ event: 'Lead.create', url: rx.url },
				{ headers: KEY },
			);
			await axios.post(`${timed.baseUrl}/Lead`, { lastName: 'Timed' }, { headers: KEY });
			for (let i = 0; i < 100 && rx.got.length === 0; i++)
				await new Promise((resolve) => setTimeout(resolve, 20));
			expect(rx.got[0].body[0]).toMatchObject({ lastName: 'Timed' });
		} finally {
			await timed.close();
			await rx.close();
		}
	});
});

describe('labels: GET /I18n', () => {
	test("EspoCRM's en_US labels for the sandbox's types, shaped as EspoCRM serves them", async () => {
		const r = await get('/I18n?default=true');
		expect(r.status).toBe(200);
		const d = r.data;
		expect(d.Global.scopeNames).toMatchObject({
			Contact: 'Contact',
			Opportunity: 'Opportunity',
			Meeting: 'Meeting',
			CProject: 'Project',
		});
		expect(d.Global.scopeNamesPlural).toMatchObject({
			Contact: 'Contacts',
			Opportunity: 'Opportunities',
			CProject: 'Projects',
		});
		expect(d.Global.fields.createdAt).toBe('Created At');
		// A scope file has its own labels; the common ones are in Global (the client falls back to them).
		expect(d.Contact.fields).toMatchObject({ title: 'Account Title', doNotCall: 'Do Not Call' });
		expect(d.Contact.fields.createdAt).toBeUndefined();
		expect(d.Contact.links.account).toBe('Account (Primary)');
		expect(d.Lead.options.status).toEqual({
			New: 'New',
			Assigned: 'Assigned',
			'In Process': 'In Process',
			Converted: 'Converted',
			Recycled: 'Recycled',
			Dead: 'Dead',
		});
		expect(d.Meeting.fields).toMatchObject({
			dateStart: 'Date Start',
			dateStartDate: 'Date Start (all day)',
		});
		expect(d.Opportunity.options.stage['Closed Won']).toBe('Closed Won');
		expect(d.CProject.fields.cAccountIndustry).toBe('Account Industry');
		// Any query is the same; the standard dialect has none of it.
		expect((await get('/I18n')).data).toEqual(d);
		sb.setRestrictedScopes(['CProject']);
		const cut = (await get('/I18n?default=true')).data;
		expect([cut.CProject, cut.Global.scopeNames.CProject]).toEqual([undefined, undefined]);
		sb.setDialect('standard');
		expect(reason(await get('/I18n?default=true'))).toEqual([
			404,
			"Controller 'I18n' does not exist.",
		]);
	});

	test('needs no login: without (good) credentials the system user gets Global without scope labels', async () => {
		const anon = await axios.get(`${sb.baseUrl}/I18n?default=true`, { validateStatus: () => true });
		expect(anon.status).toBe(200);
		expect(anon.data.Global.scopeNames).toBeUndefined();
		expect(anon.data.Contact).toBeUndefined();
		const bad = await axios.get(`${sb.baseUrl}/I18n?default=true`, {
			headers: { 'X-Api-Key': 'wrong' },
			validateStatus: () => true,
		});
		expect([bad.status, bad.data.Global.scopeNames]).toEqual([200, undefined]);
	});

	test('a fault switch makes it fail, for the fallback to names', async () => {
		sb.faults.i18nFailure = { status: 403 };
		expect(reason(await get('/I18n?default=true'))).toEqual([403, '']);
		expect(reason(await get('/I18n?default=true'))).toEqual([403, '']);
		sb.faults.clear();
		expect((await get('/I18n?default=true')).status).toBe(200);
	});
});

describe('field types', () => {
	test('Meeting: datetimeOptional dates, all-day records, required fields, duration, parent and attendees', async () => {
		const acc = (await post('/Account', { name: 'Acme' })).data;
		expect(reason(await post('/Meeting', { name: 'M', dateStart: '2026-05-01 10:00:00' }))).toEqual(
			[400, 'Field validation failure; entityType: Meeting, field: assignedUser, type: required.'],
		);
		expect(
			reason(await post('/Meeting', { name: 'M', assignedUserId: SANDBOX_USERS.apiKey.id })),
		).toEqual([
			400,
			'Field validation failure; entityType: Meeting, field: dateStart, type: required.',
		]);
		// A date written into the date-time attribute is not valid; ISO 8601 with T neither (EspoCRM 8.1.5).
		for (const dateStart of ['2026-05-01', '2026-05-01T10:00:00Z']) {
			expect(
				reason(
					await post('/Meeting', { name: 'M', dateStart, assignedUserId: SANDBOX_USERS.apiKey.id }),
				),
			).toEqual([
				400,
				'Field validation failure; entityType: Meeting, field: dateStart, type: valid.',
			]);
		}
		expect(
			reason(
				await post('/Meeting', {
					name: 'M<x>',
					dateStart: '2026-05-01 10:00',
					assignedUserId: SANDBOX_USERS.apiKey.id,
				}),
			),
		).toEqual([400, 'Field validation failure; entityType: Meeting, field: name, type: pattern.']);
		const timed = await post('/Meeting', {
			name: 'Timed',
			dateStart: '2026-05-01 10:00',
			dateEnd: '2026-05-01 11:30:00',
			parentType: 'Account',
			parentId: acc.id,
			assignedUserId: SANDBOX_USERS.apiKey.id,
		});
		expect(timed.status).toBe(200);
		// The create reply shows the duration's default, as EspoCRM's; a read computes it.
		expect(timed.data).toMatchObject({
			dateStart: '2026-05-01 10:00:00',
			duration: 3600,
			accountId: acc.id,
			usersIds: [SANDBOX_USERS.apiKey.id],
			status: 'Planned',
			isAllDay: false,
		});
		expect((await get(`/Meeting/${timed.data.id}`)).data).toMatchObject({
			duration: 5400,
			dateStartDate: null,
			usersNames: { [SANDBOX_USERS.apiKey.id]: 'API Key User' },
		});
		// dateEnd may be left out (its required check is suppressed).
		const allDay = await post('/Meeting', {
			name: 'Offsite',
			dateStartDate: '2026-05-04',
			dateEndDate: '2026-05-05',
			assignedUserId: SANDBOX_USERS.apiKey.id,
		});
		expect(allDay.data).toMatchObject({
			dateStart: '2026-05-04 00:00:00',
			dateEnd: '2026-05-06 00:00:00',
			dateStartDate: '2026-05-04',
			dateEndDate: '2026-05-05',
		});
		// While the date part is set, it decides the time: clear it to make the meeting timed again.
		const stays = await call('PUT', `/Meeting/${allDay.data.id}`, {
			dateStart: '2026-05-04 09:00:00',
		});
		expect(stays.data.dateStart).toBe('2026-05-04 00:00:00');
		const retimed = await call('PUT', `/Meeting/${allDay.data.id}`, {
			dateStart: '2026-05-04 09:00:00',
			dateStartDate: null,
		});
		expect(retimed.data).toMatchObject({ dateStart: '2026-05-04 09:00:00', dateStartDate: null });
		expect(
			reason(
				await post('/Meeting', { name: 'M', dateStartDate: '2026-02-30', assignedUserId: '1' }),
			),
		).toEqual([
			400,
			'Field validation failure; entityType: Meeting, field: dateStart, type: valid.',
		]);
		expect(
			reason(
				await post('/Meeting', {
					name: 'M',
					dateStart: '2026-05-01 10:00',
					assignedUserId: 'nobody',
				}),
			),
		).toEqual([
			403,
			"Can't relate with non-existing record. entity type: Meeting, link: assignedUser.",
		]);
		const contact = sb.store.create('Contact', { lastName: 'Guest' });
		const withGuest = await post('/Meeting', {
			name: 'G',
			dateStart: '2026-04-30 10:00',
			contactsIds: [contact.id],
			assignedUserId: '1',
		});
		expect(sb.store.related('Contact', contact.id, 'meetings').map((m) => m.id)).toEqual([
			withGuest.data.id,
		]);
		expect(
			(await get(`/Account/${acc.id}/meetings`)).data.list.map((m: { name: string }) => m.name),
		).toEqual(['Timed']);
		// Meetings list newest start first (collection orderBy dateStart desc).
		expect((await get('/Meeting')).data.list.map((m: { name: string }) => m.name)).toEqual([
			'Offsite',
			'Timed',
			'G',
		]);
	});

	test('Call: plain datetime, both dates required; Task: optional dates and its completion date', async () => {
		const user = SANDBOX_USERS.apiKey.id;
		expect(
			reason(
				await post('/Call', { name: 'C', dateStart: '2026-05-01 10:00:00', assignedUserId: user }),
			),
		).toEqual([400, 'Field validation failure; entityType: Call, field: dateEnd, type: required.']);
		const call1 = await post('/Call', {
			name: 'C',
			dateStart: '2026-05-01 10:00:00',
			dateEnd: '2026-05-01 10:05:00',
			assignedUserId: user,
			dateStartDate: '2026-01-01',
		});
		expect(call1.data).toMatchObject({ direction: 'Outbound', duration: 300 });
		expect(call1.data).not.toHaveProperty('dateStartDate');
		const task = await post('/Task', { name: 'T', assignedUserId: user });
		expect(task.data).toMatchObject({
			status: 'Not Started',
			priority: 'Normal',
			dateCompleted: null,
		});
		const due = await call('PUT', `/Task/${task.data.id}`, {
			dateEndDate: '2026-06-01',
			status: 'Completed',
		});
		expect(due.data).toMatchObject({
			dateEnd: '2026-06-02 00:00:00',
			dateEndDate: '2026-06-01',
			status: 'Completed',
		});
		expect(due.data.dateCompleted).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
		expect(
			(await call('PUT', `/Task/${task.data.id}`, { status: 'Started' })).data.dateCompleted,
		).toBeNull();
	});

	test('CProject: one field of each remaining type, validated as EspoCRM validates it', async () => {
		const acc = sb.store.create('Account', { name: 'Acme', industry: 'Software' });
		const r = await post('/CProject', {
			name: 'P',
			cCategory: 'Anything goes',
			cNumber: 'X-1',
			cSeq: 99,
			cTags: ['a', 'b'],
			cChecklist: ['Scope agreed'],
			cLinks: ['https://a.example.com', 'b.example.com/x'],
			cSettings: { a: 1 },
			cSteps: [1, 'two', { three: 3 }],
			accountId: acc.id,
			cAccountIndustry: 'Banking',
			cNotes: '<p>Hi</p>',
			cWebsite: 'www.example.com',
			emailAddress: 'p@example.com',
			phoneNumber: '+1 555 0100',
			budget: '12.5',
			hours: '3',
			priority: '4',
			isBillable: 'yes',
			startDate: '2026-02-01',
			deadline: '2026-02-01 10:00',
		});
		expect(r.status).toBe(200);
		// number and autoincrement are set by the server; bool takes only true/'true'/1/'1'; numbers are converted.
		expect(r.data).toMatchObject({
			cNumber: 'PRJ-00001',
			cSeq: 1,
			cTags: ['a', 'b'],
			cSettings: { a: 1 },
			cSteps: [1, 'two', { three: 3 }],
			budget: 12.5,
			budgetCurrency: 'USD',
			hours: 3,
			priority: 4,
			isBillable: false,
			deadline: '2026-02-01 10:00:00',
			phoneNumber: '+15550100',
		});
		const read = (await get(`/CProject/${r.data.id}`)).data;
		expect(read).toMatchObject({
			cAccountIndustry: 'Software',
			cFilesIds: [],
			cContractId: null,
			cSuccessorId: null,
			labels: [],
		});
		expect((await post('/CProject', { name: 'Q' })).data.cNumber).toBe('PRJ-00002');
		expect(
			(await call('PUT', `/CProject/${r.data.id}`, { cNumber: 'Y', cSeq: 5 })).data,
		).toMatchObject({ cNumber: 'PRJ-00001', cSeq: 1 });
		expect((await post('/CProject', { name: 'S', cSettings: [1, 2] })).data.cSettings).toBeNull();

		const fails = async (data: Record<string, unknown>) =>
			(await post('/CProject', { name: 'F', ...data })).headers['x-status-reason'];
		const v = (field: string, type: string) =>
			`Field validation failure; entityType: CProject, field: ${field}, type: ${type}.`;
		expect(await fails({ cTags: 'a' })).toBe(v('cTags', 'array'));
		expect(await fails({ cTags: [1] })).toBe(v('cTags', 'arrayOfString'));
		expect(await fails({ cTags: ['x'.repeat(101)] })).toBe(v('cTags', 'maxItemLength'));
		expect(await fails({ cChecklist: ['Nope'] })).toBe(v('cChecklist', 'valid'));
		expect(await fails({ labels: ['Client', ''] })).toBe(v('labels', 'valid'));
		expect(await fails({ cLinks: [''] })).toBe(v('cLinks', 'noEmptyString'));
		expect(await fails({ labels: ['Nope'] })).toBe(v('labels', 'valid'));
		expect(await fails({ cLinks: ['not a url'] })).toBe(v('cLinks', 'pattern'));
		expect(await fails({ cSteps: { a: 1 } })).toBe(v('cSteps', 'array'));
		expect(await fails({ cWebsite: 'nope' })).toBe(v('cWebsite', 'valid'));
		expect(await fails({ emailAddress: 'nope' })).toBe(v('emailAddress', 'emailAddress'));
		expect(await fails({ hours: 'abc' })).toBe(v('hours', 'valid'));
		// intval('abc') is 0, which min=1 refuses before `valid` is checked.
		expect(await fails({ priority: 'abc' })).toBe(v('priority', 'min'));
		expect(await fails({ priority: 9 })).toBe(v('priority', 'max'));
		expect(await fails({ budget: 10, budgetCurrency: 'XYZ' })).toBe(v('budget', 'validCurrency'));
		expect(await fails({ status: 'Nope' })).toBe(v('status', 'valid'));
		expect(await fails({ startDate: '2026-02-30' })).toBe(v('startDate', 'valid'));
		expect(await fails({ deadline: '2026-02-01' })).toBe(v('deadline', 'valid'));
		expect(await fails({ cCategory: 'x'.repeat(101) })).toBe(v('cCategory', 'maxLength'));
		expect(await fails({ cContractId: 'has space' })).toBe(v('cContract', 'pattern'));
		expect(await fails({ name: '' })).toBe(v('name', 'required'));
		expect(
			(await post('/CProject', { name: 'F', cContractId: 'missing' })).headers['x-status-reason'],
		).toBe("Can't relate with non-existing record. entity type: CProject, link: cContract.");
		expect((await post('/CProject', { name: 'F', cNotes: {} })).status).toBe(500);
	});

	test('linkOne and file fields, attachmentMultiple', async () => {
		const a = (await post('/CProject', { name: 'A' })).data;
		const b = (await post('/CProject', { name: 'B', cPredecessorId: a.id })).data;
		expect((await get(`/CProject/${a.id}`)).data).toMatchObject({
			cSuccessorId: b.id,
			cSuccessorName: 'B',
		});
		const c = (await post('/CProject', { name: 'C' })).data;
		// Writing the linkOne side moves the other record's link (one-to-one).
		await call('PUT', `/CProject/${a.id}`, { cSuccessorId: c.id });
		expect([
			sb.store.get('CProject', b.id)!.cPredecessorId,
			sb.store.get('CProject', c.id)!.cPredecessorId,
		]).toEqual([null, a.id]);

		const upload = (
			name: string,
			field: string,
			type = 'application/pdf',
			bytes = Buffer.from('%PDF-1.4'),
		) =>
			post('/Attachment', {
				name,
				type,
				role: 'Attachment',
				relatedType: 'CProject',
				field,
				file: `data:${type};base64,${bytes.toString('base64')}`,
			});
		const contract = (await upload('c.pdf', 'cContract')).data;
		const f1 = (await upload('1.txt', 'cFiles', 'text/plain')).data;
		const f2 = (await upload('2.txt', 'cFiles', 'text/plain')).data;
		const p = await post('/CProject', {
			name: 'Files',
			cContractId: contract.id,
			cFilesIds: [f1.id, f2.id],
		});
		expect(p.data).toMatchObject({
			cContractId: contract.id,
			cFilesIds: [f1.id, f2.id],
			cFilesNames: { [f1.id]: '1.txt', [f2.id]: '2.txt' },
		});
		expect((await get(`/CProject/${p.data.id}`)).data.cContractName).toBe('c.pdf');
		expect((await get(`/CProject/${p.data.id}`)).data.cFilesTypes).toEqual({
			[f1.id]: 'text/plain',
			[f2.id]: 'text/plain',
		});
		// An image must be an image: extension, declared type and contents agree.
		const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
		expect((await upload('logo.png', 'cLogo', 'image/png', png)).status).toBe(200);
		expect(reason(await upload('logo.pdf', 'cLogo', 'application/pdf'))).toEqual([
			403,
			'Not allowed file type.',
		]);
		expect(reason(await upload('logo.png', 'cLogo', 'image/jpeg', png))).toEqual([
			403,
			'Passed type does not correspond to extension.',
		]);
		expect(reason(await upload('logo.png', 'cLogo', 'image/png', Buffer.from('not png')))).toEqual([
			403,
			'Detected mime type does not correspond to extension.',
		]);
		expect(reason(await upload('x.txt', 'name'))).toEqual([
			403,
			"Field type 'varchar' is not allowed for Attachment.",
		]);
		expect(reason(await upload('x.txt', 'nope'))).toEqual([403, "Field 'nope' does not exist."]);
	});

	test('GET /Metadata shows the fields as EspoCRM does', async () => {
		const d = (await get('/Metadata')).data;
		const meeting = d.entityDefs.Meeting.fields;
		expect(meeting.dateStart).toEqual({
			type: 'datetimeOptional',
			required: true,
			default: 'javascript: return this.dateTime.getNow(15);',
		});
		expect(meeting.dateEnd).toEqual({
			type: 'datetimeOptional',
			required: true,
			after: 'dateStart',
			suppressValidationList: ['required'],
		});
		// The builder adds the date part of a datetimeOptional field; Task's own definition is merged over it.
		expect(meeting.dateStartDate).toEqual({ type: 'date', disabled: true });
		expect(d.entityDefs.Task.fields.dateEndDate).toEqual({
			type: 'date',
			disabled: true,
			utility: true,
		});
		expect(meeting.duration).toMatchObject({
			type: 'duration',
			notStorable: true,
			start: 'dateStart',
			end: 'dateEnd',
			default: 3600,
		});
		expect(meeting.assignedUser).toEqual({ type: 'link', required: true });
		expect(meeting.account).toEqual({ type: 'link', readOnly: true });
		expect(d.entityDefs.Call.fields.dateStart.type).toBe('datetime');
		expect(d.entityDefs.Meeting.links.contacts).toMatchObject({
			type: 'hasMany',
			entity: 'Contact',
			foreign: 'meetings',
		});
		expect(d.entityDefs.Meeting.collection).toMatchObject({ orderBy: 'dateStart', order: 'desc' });
		expect(d.scopes.Meeting).toMatchObject({ entity: true, object: true });
		expect(d.scopes.Team.object).toBeUndefined();
		const p = d.entityDefs.CProject.fields;
		// number and autoincrement carry their type's fieldDefs but no readOnly flag: the type makes them read-only.
		expect(p.cNumber).toEqual({
			type: 'number',
			len: 36,
			notNull: false,
			unique: false,
			prefix: 'PRJ-',
			padLength: 5,
			nextNumber: 1,
			isCustom: true,
		});
		expect(p.cSeq).toEqual({
			type: 'autoincrement',
			autoincrement: true,
			unique: true,
			isCustom: true,
		});
		expect(p.cAccountIndustry).toEqual({
			type: 'foreign',
			link: 'account',
			field: 'industry',
			readOnly: true,
			isCustom: true,
		});
		expect(p.cSuccessor).toEqual({ type: 'linkOne', isCustom: true });
		expect(p.cFiles).toEqual({ type: 'attachmentMultiple', isCustom: true });
		expect(p.cCategory).toEqual({
			type: 'varchar',
			maxLength: 100,
			options: ['Internal', 'Customer', 'Partner'],
			isCustom: true,
		});
		for (const [field, type] of [
			['cTags', 'array'],
			['cChecklist', 'checklist'],
			['cLinks', 'urlMultiple'],
			['cContract', 'file'],
			['cLogo', 'image'],
			['cSettings', 'jsonObject'],
			['cSteps', 'jsonArray'],
			['cNotes', 'wysiwyg'],
			['cWebsite', 'url'],
		]) {
			expect(`${field}: ${p[field].type}`).toBe(`${field}: ${type}`);
		}
		expect(d.entityDefs.CProject.links.cSuccessor).toEqual({
			type: 'hasOne',
			entity: 'CProject',
			foreign: 'cPredecessor',
			isCustom: true,
		});
		expect(d.entityDefs.Email.fields.attachments.type).toBe('attachmentMultiple');
	});
});

describe('primary filters of Meeting, Call and Task (Modules/Crm/Classes/Select/*/PrimaryFilters)', () => {
	const DAY = 86_400_000;
	beforeEach(() => sb.setDialect('espocrm'));
	const names = async (entity: string, filter: string) => {
		const r = await get(`/${entity}?primaryFilter=${filter}&select=name&orderBy=name&order=asc`);
		expect(r.status).toBe(200);
		return r.data.list.map((x: { name: string }) => x.name);
	};
	/**
	 * Runs `check` again when UTC midnight fell inside it: its "today" records were made the day before. In the day's
	 * first two seconds it waits: the day's first second is not yet before now.
	 */
	const onOneDay = async (check: () => Promise<void>) => {
		const intoTheDay = Date.now() % DAY;
		if (intoTheDay < 2000) await new Promise((resolve) => setTimeout(resolve, 2000 - intoTheDay));
		const day = utcDate();
		await check();
		if (utcDate() !== day) {
			sb.reset();
			sb.setDialect('espocrm');
			await check();
		}
	};

	test("Meeting and Call: planned and held by status, todays by the start in the user's time zone", async () => {
		await onOneDay(async () => {
			for (const entity of ['Meeting', 'Call']) {
				const add = (name: string, status: string, start: string, end = start) =>
					sb.store.create(entity, { name, status, dateStart: start, dateEnd: end });
				add('a planned today', 'Planned', utcDateTime());
				add('b held yesterday', 'Held', utcDateTime(-DAY - 60_000));
				add('c not held tomorrow', 'Not Held', utcDateTime(DAY + 60_000));
				add('d held, from yesterday to today', 'Held', utcDateTime(-DAY - 60_000), utcDateTime());
				expect(await names(entity, 'planned')).toEqual(['a planned today']);
				expect(await names(entity, 'held')).toEqual([
					'b held yesterday',
					'd held, from yesterday to today',
				]);
				expect(await names(entity, 'todays')).toEqual(['a planned today']);
			}
		});
	});

	test('Task: actual, completed, deferred by status; todays and overdue by the due date; actualStartingNotInFuture', async () => {
		await onOneDay(async () => {
			// the first and last second of today (UTC): before and after now, whatever the time of day
			const [earlierToday, laterToday] = [`${utcDate()} 00:00:00`, `${utcDate()} 23:59:59`];
			const add = (
				name: string,
				status: string,
				dateStart: string | null,
				dateEnd: string | null,
			) => sb.store.create('Task', { name, status, dateStart, dateEnd });
			add('a open, overdue', 'Not Started', utcDateTime(-2 * DAY), utcDateTime(-DAY - 60_000));
			add(
				'b started, due later today, starts tomorrow',
				'Started',
				utcDateTime(DAY + 60_000),
				laterToday,
			);
			add('c completed late', 'Completed', null, utcDateTime(-DAY - 60_000));
			add('d deferred, past due', 'Deferred', null, utcDateTime(-DAY - 60_000));
			add('e open, no dates', 'Not Started', null, null);
			add('f canceled, due today', 'Canceled', null, laterToday);
			add('g started, due earlier today', 'Started', null, earlierToday);
			const open = [
				'a open, overdue',
				'b started, due later today, starts tomorrow',
				'e open, no dates',
				'g started, due earlier today',
			];
			expect(await names('Task', 'actual')).toEqual(open);
			expect(await names('Task', 'completed')).toEqual(['c completed late']);
			expect(await names('Task', 'deferred')).toEqual(['d deferred, past due']);
			expect(await names('Task', 'todays')).toEqual([
				'b started, due later today, starts tomorrow',
				'f canceled, due today',
				'g started, due earlier today',
			]);
			// Overdue: due before now (not before today), and not completed or canceled; deferred ones count.
			expect(await names('Task', 'overdue')).toEqual([
				'a open, overdue',
				'd deferred, past due',
				'g started, due earlier today',
			]);
			expect(await names('Task', 'actualStartingNotInFuture')).toEqual([
				'a open, overdue',
				'e open, no dates',
				'g started, due earlier today',
			]);
		});
	});

	test("the filter menu lists them, with the styles of EspoCRM's metadata", async () => {
		const { data } = await get('/Metadata');
		expect(data.clientDefs.Meeting.filterList).toEqual([
			{ name: 'planned' },
			{ name: 'held', style: 'success' },
			{ name: 'todays' },
		]);
		expect(
			data.clientDefs.Task.filterList.map((f: string | { name: string }) =>
				typeof f === 'string' ? f : f.name,
			),
		).toEqual(['actual', 'completed', 'todays', 'overdue', 'deferred']);
	});
});

describe('date-time filters as EspoCRM computes them (dateTime=true)', () => {
	const at = (iso: string) =>
		sb.store.create('Contact', { lastName: iso, createdAt: iso.replace('T', ' ').replace('Z', '') })
			.id;
	const q = async (item: Record<string, unknown>) =>
		(
			await ids(
				'Contact',
				[{ attribute: 'createdAt', dateTime: true, ...item }],
				'&orderBy=createdAt&order=asc',
			)
		).map((id) => sb.store.get('Contact', id)!.lastName);

	test('a day is a day in the time zone: UTC-11 and UTC+14', async () => {
		for (const iso of [
			'2026-01-15T10:59:59Z',
			'2026-01-15T11:00:00Z',
			'2026-01-16T10:59:59Z',
			'2026-01-16T11:00:00Z',
			'2026-01-14T09:59:59Z',
			'2026-01-14T10:00:00Z',
			'2026-01-15T09:59:59Z',
			'2026-01-15T10:00:00Z',
		])
			at(iso);
		expect(await q({ type: 'on', value: '2026-01-15', timeZone: 'Pacific/Pago_Pago' })).toEqual([
			'2026-01-15T11:00:00Z',
			'2026-01-16T10:59:59Z',
		]);
		expect(await q({ type: 'on', value: '2026-01-15', timeZone: 'Pacific/Kiritimati' })).toEqual([
			'2026-01-14T10:00:00Z',
			'2026-01-15T09:59:59Z',
		]);
		// after a day: from the next day on (the end of the day is excluded by > 23:59:59).
		expect(await q({ type: 'after', value: '2026-01-15', timeZone: 'Pacific/Pago_Pago' })).toEqual([
			'2026-01-16T11:00:00Z',
		]);
		expect(
			await q({ type: 'before', value: '2026-01-15', timeZone: 'Pacific/Kiritimati' }),
		).toEqual(['2026-01-14T09:59:59Z']);
		expect(
			await q({
				type: 'between',
				value: ['2026-01-15', '2026-01-15'],
				timeZone: 'Pacific/Kiritimati',
			}),
		).toEqual(['2026-01-14T10:00:00Z', '2026-01-15T09:59:59Z']);
		// A value without a zone is wall-clock time there; one with an offset or Z is that instant, whatever the zone.
		expect(
			await q({
				type: 'between',
				value: ['2026-01-15 00:00:00', '2026-01-15 23:59:59'],
				timeZone: 'Pacific/Pago_Pago',
			}),
		).toEqual(['2026-01-15T11:00:00Z', '2026-01-16T10:59:59Z']);
		expect(
			await q({
				type: 'between',
				value: ['2026-01-15T11:00:00Z', '2026-01-16T00:00:00+01:00'],
				timeZone: 'Pacific/Kiritimati',
			}),
		).toEqual(['2026-01-15T11:00:00Z']);
		expect(
			await q({ type: 'on', value: '2026-01-15T10:00:00+00:00', timeZone: 'Pacific/Pago_Pago' }),
		).toEqual(['2026-01-15T10:00:00Z']);
		expect(
			await q({ type: 'after', value: '2026-01-16T10:59:59Z', timeZone: 'Pacific/Kiritimati' }),
		).toEqual(['2026-01-16T11:00:00Z']);
		// Without dateTime: the stored UTC text is compared with the value (a date is midnight UTC).
		expect(
			await ids('Contact', [{ type: 'on', attribute: 'createdAt', value: '2026-01-15' }]),
		).toEqual([]);
		const after = await ids('Contact', [
			{
				type: 'after',
				attribute: 'createdAt',
				value: '2026-01-16',
				timeZone: 'Pacific/Kiritimati',
			},
		]);
		expect(after.map((id) => sb.store.get('Contact', id)!.lastName).sort()).toEqual([
			'2026-01-16T10:59:59Z',
			'2026-01-16T11:00:00Z',
		]);
	});

	test('America/New_York across the DST change: 23-hour day; between adds its day in UTC (an hour too much)', async () => {
		for (const iso of [
			'2026-03-08T04:59:59Z',
			'2026-03-08T05:00:00Z',
			'2026-03-09T03:59:59Z',
			'2026-03-09T04:00:00Z',
			'2026-03-09T04:59:59Z',
			'2026-03-09T05:00:00Z',
		])
			at(iso);
		const tz = 'America/New_York';
		expect(await q({ type: 'on', value: '2026-03-08', timeZone: tz })).toEqual([
			'2026-03-08T05:00:00Z',
			'2026-03-09T03:59:59Z',
		]);
		expect(await q({ type: 'between', value: ['2026-03-08', '2026-03-08'], timeZone: tz })).toEqual(
			[
				'2026-03-08T05:00:00Z',
				'2026-03-09T03:59:59Z',
				'2026-03-09T04:00:00Z',
				'2026-03-09T04:59:59Z',
			],
		);
		expect(await q({ type: 'after', value: '2026-03-08', timeZone: tz })).toEqual([
			'2026-03-09T04:00:00Z',
			'2026-03-09T04:59:59Z',
			'2026-03-09T05:00:00Z',
		]);
		// 02:30 does not exist that night: PHP reads it as 03:30 EDT (07:30 UTC).
		expect(await q({ type: 'before', value: '2026-03-08 02:30:00', timeZone: tz })).toEqual([
			'2026-03-08T04:59:59Z',
			'2026-03-08T05:00:00Z',
		]);
	});

	test('quirks kept: notOn and value types lose their value; bad zone or empty value is a 500', async () => {
		at('2026-01-15T12:00:00Z');
		at('2026-02-15T12:00:00Z');
		// DateTimeItemTransformer has no notOn: the item becomes `createdAt != NULL`, every record.
		expect(await q({ type: 'notOn', value: '2026-01-15', timeZone: 'UTC' })).toEqual([
			'2026-01-15T12:00:00Z',
			'2026-02-15T12:00:00Z',
		]);
		expect(await q({ type: 'greaterThan', value: '2000-01-01 00:00:00', timeZone: 'UTC' })).toEqual(
			[],
		);
		expect(await q({ type: 'equals', value: '2026-01-15 12:00:00', timeZone: 'UTC' })).toEqual([]);
		expect(
			reason(
				await get(
					`/Contact?${whereQs([{ type: 'on', attribute: 'createdAt', dateTime: true, timeZone: 'Mars/Olympus', value: '2026-01-15' }])}`,
				),
			),
		).toEqual([500, undefined]);
		expect(
			reason(
				await get(
					`/Contact?${whereQs([{ type: 'on', attribute: 'createdAt', dateTime: true, value: '' }])}`,
				),
			),
		).toEqual([500, 'Bad where item. Empty value.']);
		// `dateTime=false` is a non-empty string: PHP takes it as true.
		expect(
			(
				await get(
					`/Contact?${whereQs([{ type: 'on', attribute: 'createdAt', dateTime: 'false', timeZone: 'UTC', value: '2026-01-15' }])}`,
				)
			).data.total,
		).toBe(1);
		expect(
			(await get(`/Contact?${whereQs([{ type: 'nextYear', attribute: 'createdAt' }])}`)).status,
		).toBe(500);
	});

	test('today and periods in far zones find a record created now', async () => {
		const id = sb.store.create('Contact', { lastName: 'Now' }).id;
		for (const timeZone of ['Pacific/Pago_Pago', 'America/New_York', 'Pacific/Kiritimati']) {
			for (const type of [
				'today',
				'currentMonth',
				'currentYear',
				'lastSevenDays',
				'currentQuarter',
			]) {
				expect(
					`${timeZone} ${type}: ${(await ids('Contact', [{ type, attribute: 'createdAt', dateTime: true, timeZone }])).join()}`,
				).toBe(`${timeZone} ${type}: ${id}`);
			}
			expect(
				await ids('Contact', [
					{ type: 'lastXDays', attribute: 'createdAt', value: 0, dateTime: true, timeZone },
				]),
			).toEqual([id]);
			expect(
				await ids('Contact', [
					{ type: 'future', attribute: 'createdAt', dateTime: true, timeZone },
				]),
			).toEqual([]);
		}
	});
});

describe('faults: credentials echoed, drop after, HTML catch-all, slow token', () => {
	test('echoRequestHeaders repeats every header verbatim, credentials included', async () => {
		sb.faults.failNext({
			status: 502,
			reason: 'Bad Gateway',
			echoRequestHeaders: true,
			count: 4,
			pathPrefix: '/Contact',
		});
		const key = await get('/Contact');
		expect(key.status).toBe(502);
		expect(key.headers['x-status-reason']).toContain(`X-Api-Key: ${SANDBOX_CREDENTIALS.apiKey}`);
		expect(key.headers['x-status-reason']).toMatch(/^Bad Gateway Request headers: /);
		expect(key.data.requestHeaders['X-Api-Key']).toBe(SANDBOX_CREDENTIALS.apiKey);
		const espo = Buffer.from('admin:sandbox-password').toString('base64');
		const basic = await call('GET', '/Contact', undefined, {
			...ADMIN,
			'Espo-Authorization': espo,
		});
		expect(basic.headers['x-status-reason']).toContain(`Authorization: Basic ${espo}`);
		expect(basic.headers['x-status-reason']).toContain(`Espo-Authorization: ${espo}`);
		const h = hmac('GET', '/Contact');
		expect(
			(await call('GET', '/Contact', undefined, h)).data.requestHeaders['X-Hmac-Authorization'],
		).toBe(h['X-Hmac-Authorization']);
		const token = await bearer();
		expect((await call('GET', '/Contact', undefined, token)).headers['x-status-reason']).toContain(
			token.Authorization,
		);
	});

	test('dropNext({ after: true }) carries the request out, then loses the answer', async () => {
		const a = sb.store.create('Contact', { lastName: 'A' });
		const b = sb.store.create('Contact', { lastName: 'B' });
		sb.faults.dropNext({ after: true, pathPrefix: '/MassAction' });
		await expect(
			axios.post(
				`${sb.baseUrl}/MassAction`,
				{ entityType: 'Contact', action: 'delete', params: { ids: [a.id, b.id] } },
				{ headers: KEY },
			),
		).rejects.toThrow();
		expect(sb.requests.at(-1)!.status).toBe(0);
		expect(sb.store.count('Contact')).toBe(0);
		// Sent again, it finds nothing left to delete.
		expect(
			(
				await post('/MassAction', {
					entityType: 'Contact',
					action: 'delete',
					params: { ids: [a.id, b.id] },
				})
			).data,
		).toEqual({ count: 0, ids: [] });
	});

	test('htmlCatchAll: every path answers 200 with a web page', async () => {
		sb.faults.htmlCatchAll = true;
		for (const url of [
			`${sb.baseUrl}/Contact`,
			`${sb.baseUrl}/App/user`,
			`${sb.origin}/`,
			`${sb.origin}/index.php`,
		]) {
			const r = await axios.get(url, { validateStatus: () => true });
			expect([r.status, r.headers['content-type']]).toEqual([200, 'text/html; charset=UTF-8']);
			expect(r.data).toContain('<html');
		}
		expect((await post('/Contact', { lastName: 'X' })).headers['content-type']).toBe(
			'text/html; charset=UTF-8',
		);
		expect(sb.store.count('Contact')).toBe(0);
		sb.faults.clear();
		expect((await get('/Contact')).headers['content-type']).toBe('application/json');
	});

	test('authLatencyMs slows POST /Auth only', async () => {
		sb.faults.authLatencyMs = 150;
		let t = Date.now();
		await bearer();
		expect(Date.now() - t).toBeGreaterThanOrEqual(140);
		t = Date.now();
		await get('/Contact');
		expect(Date.now() - t).toBeLessThan(140);
	});
});

describe('attachments', () => {
	const dataUri = (type: string, bytes: Buffer) =>
		`data:${type};base64,${bytes.toString('base64')}`;

	test('upload, refusals, download', async () => {
		const bytes = Buffer.from([0, 1, 2, 250, 251, 252]);
		const up = await post('/Attachment', {
			name: 'rapport é.bin',
			type: 'application/octet-stream',
			role: 'Attachment',
			relatedType: 'Email',
			field: 'attachments',
			file: dataUri('application/octet-stream', bytes),
		});
		expect(up.status).toBe(200);
		expect(up.data).toMatchObject({
			name: 'rapport é.bin',
			type: 'application/octet-stream',
			size: 6,
			role: 'Attachment',
			field: 'attachments',
			relatedType: 'Email',
		});
		const dl = await call(
			'GET',
			`/Attachment/file/${up.data.id}`,
			undefined,
			{},
			{ responseType: 'arraybuffer' },
		);
		expect(Buffer.from(dl.data)).toEqual(bytes);
		expect(dl.headers['content-type']).toBe('application/octet-stream');
		// The name goes out as its UTF-8 bytes, unescaped.
		expect(
			Buffer.from(dl.headers['content-disposition'] as string, 'latin1').toString('utf8'),
		).toBe('attachment; filename="rapport é.bin"');
		expect(reason(await get('/Attachment/file/nope'))).toEqual([404, '']);

		const base = { name: 'a.txt', relatedType: 'Email', field: 'attachments' };
		expect((await post('/Attachment', { ...base, file: 'not a data uri' })).data.size).toBe(0);
		expect((await post('/Attachment', { ...base, file: '' })).data.size).toBe(0);
		expect(reason(await post('/Attachment', base))).toEqual([400, 'No file contents.']);
		expect(reason(await post('/Attachment', { ...base, file: null }))).toEqual([
			400,
			'Non-string file contents.',
		]);
		expect(
			reason(
				await post('/Attachment', {
					relatedType: 'Email',
					field: 'attachments',
					file: 'data:text/plain;base64,aGk=',
				}),
			),
		).toEqual([
			400,
			'Field validation failure; entityType: Attachment, field: name, type: required.',
		]);
		expect(
			reason(await post('/Attachment', { name: 'a', file: 'data:text/plain;base64,aGk=' })),
		).toEqual([400, 'No `field` and `parentType`.']);
		expect(
			reason(
				await post('/Attachment', {
					name: 'a',
					relatedType: 'Email',
					file: 'data:text/plain;base64,aGk=',
				}),
			),
		).toEqual([400, 'No `field` and `parentType`.']);
		expect(
			(
				await post('/Attachment', {
					name: 'a',
					parentType: 'Email',
					field: 'attachments',
					file: 'data:text/plain;base64,aGk=',
				})
			).data,
		).toMatchObject({ parentType: 'Email', size: 2 });
		expect(
			reason(await post('/Attachment', { ...base, role: 'Export File', file: 'data:,' })),
		).toEqual([403, 'Role not allowed.']);
		// Listing: admins only.
		expect(reason(await get('/Attachment'))).toEqual([403, '']);
		expect((await call('GET', '/Attachment', undefined, ADMIN)).data.total).toBeGreaterThan(0);
		sb.setDialect('standard');
		expect(reason(await post('/Attachment', { ...base, file: 'data:,' }))).toEqual([
			404,
			"Controller 'Attachment' does not exist.",
		]);
		expect(reason(await get(`/Attachment/file/${up.data.id}`))).toEqual([
			404,
			"Controller 'Attachment' does not exist.",
		]);
	});

	test('an e-mail carries attachments by id; an unknown id is refused as EspoCRM does', async () => {
		const up = (
			await post('/Attachment', {
				name: 'hello.txt',
				type: 'text/plain',
				relatedType: 'Email',
				field: 'attachments',
				file: dataUri('text/plain', Buffer.from('hello')),
			})
		).data;
		const bad = await post('/Email', {
			from: 'me@x.io',
			to: 'you@x.io',
			subject: 'S',
			status: 'Sending',
			attachmentsIds: [up.id, 'nope'],
		});
		expect(reason(bad)).toEqual([
			403,
			"Can't relate with non-existing record. entity type: Email, link: attachments.",
		]);
		expect(bad.data).toEqual({
			messageTranslation: {
				label: 'cannotRelateNonExisting',
				scope: null,
				data: { foreignEntityType: 'Attachment' },
			},
		});
		expect(sb.store.count('Email')).toBe(0);
		const sent = await post('/Email', {
			from: 'me@x.io',
			to: 'you@x.io',
			subject: 'S',
			status: 'Sending',
			attachmentsIds: [up.id],
		});
		expect(sent.data).toMatchObject({
			status: 'Sent',
			attachmentsIds: [up.id],
			attachmentsNames: { [up.id]: 'hello.txt' },
			hasAttachment: true,
		});
		expect((await get(`/Email/${sent.data.id}`)).data).toMatchObject({
			attachmentsIds: [up.id],
			attachmentsNames: { [up.id]: 'hello.txt' },
			attachmentsTypes: { [up.id]: 'text/plain' },
			hasAttachment: true,
		});
		expect(sb.outbox.at(-1)!.attachmentIds).toEqual([up.id]);
		expect(sb.store.get('Attachment', up.id)).toMatchObject({
			parentType: 'Email',
			parentId: sent.data.id,
		});
	});

	test('a 10 MB file goes up and comes back', async () => {
		const bytes = Buffer.alloc(10 * 1024 * 1024);
		for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i % 251;
		const t = Date.now();
		const up = await post('/Attachment', {
			name: 'big.bin',
			type: 'application/octet-stream',
			relatedType: 'Email',
			field: 'attachments',
			file: dataUri('application/octet-stream', bytes),
		});
		expect(up.data.size).toBe(bytes.length);
		const dl = await call(
			'GET',
			`/Attachment/file/${up.data.id}`,
			undefined,
			{},
			{ responseType: 'arraybuffer' },
		);
		expect(Buffer.from(dl.data).equals(bytes)).toBe(true);
		expect(Date.now() - t).toBeLessThan(10_000);
	});
});

describe('tied timestamps and modifiedAt', () => {
	test('records of the same second list in a stable order: id breaks ties, in the same direction', async () => {
		const createdAt = '2026-01-01 10:00:00';
		const made = Array.from(
			{ length: 12 },
			(_, i) =>
				sb.store.create('Contact', { lastName: `S${i}`, createdAt, modifiedAt: createdAt }).id,
		);
		expect(sb.store.get('Contact', made[0])).toMatchObject({ createdAt, modifiedAt: createdAt });
		const desc = await get('/Contact?orderBy=createdAt&order=desc&maxSize=5');
		const all: string[] = [];
		for (let offset = 0; offset < 12; offset += 5)
			all.push(
				...(
					await get(`/Contact?orderBy=createdAt&order=desc&maxSize=5&offset=${offset}`)
				).data.list.map((x: { id: string }) => x.id),
			);
		expect(all).toEqual([...made].reverse());
		expect(desc.data.list.map((x: { id: string }) => x.id)).toEqual(
			[...made].reverse().slice(0, 5),
		);
		const asc = (await get('/Contact?orderBy=modifiedAt&order=asc')).data.list.map(
			(x: { id: string }) => x.id,
		);
		expect(asc).toEqual(made);
	});

	test('modifiedAt moves when something changes (API, mass update, store.update), not on an empty change', async () => {
		const old = '2020-01-01 00:00:00';
		const c = sb.store.create('Contact', { lastName: 'M', createdAt: old, modifiedAt: old });
		expect((await call('PUT', `/Contact/${c.id}`, { lastName: 'M' })).data.modifiedAt).toBe(old);
		expect((await call('PUT', `/Contact/${c.id}`, { addressCity: 'T' })).data.modifiedAt).not.toBe(
			old,
		);
		sb.store.update('Contact', c.id, { modifiedAt: old });
		await post('/MassAction', {
			entityType: 'Contact',
			action: 'update',
			params: { ids: [c.id] },
			data: { addressCity: 'U' },
		});
		expect(sb.store.get('Contact', c.id)!.modifiedAt).not.toBe(old);
		sb.store.update('Contact', c.id, { modifiedAt: old });
		expect(sb.store.update('Contact', c.id, { addressCity: 'V' }).modifiedAt).not.toBe(old);
		expect(sb.store.get('Contact', c.id)!.createdAt).toBe(old);
	});
});

/**
 * What test/espocrm/compare-sandbox.js found where the sandbox and a real EspoCRM 8.1.5 answered differently,
 * now as EspoCRM answers (the 'espocrm' dialect, and 'both' where noted).
 */
describe('as EspoCRM 8.1.5 answers (compare-sandbox.js)', () => {
	const keys = (o: Record<string, unknown>) => Object.keys(o).sort();
	const hasReasonHeader = (r: AxiosResponse) =>
		Object.prototype.hasOwnProperty.call(r.headers, 'x-status-reason');
	beforeEach(() => sb.setDialect('espocrm'));

	test('1. an admin reads a deleted record (deleted: true); the API user gets 404', async () => {
		const acc = (await post('/Account', { name: 'Keeps' })).data;
		const c = (
			await post('/Contact', {
				firstName: 'Del',
				lastName: 'Ete',
				emailAddress: 'del@x.io',
				accountId: acc.id,
			})
		).data;
		expect((await call('DELETE', `/Contact/${c.id}`)).data).toBe(true);
		expect(reason(await get(`/Contact/${c.id}`))).toEqual([404, `Record ${c.id} does not exist.`]);
		const asAdmin = await call('GET', `/Contact/${c.id}`, undefined, ADMIN);
		expect(asAdmin.status).toBe(200);
		expect(asAdmin.data).toMatchObject({
			id: c.id,
			deleted: true,
			name: 'Del Ete',
			emailAddress: 'del@x.io',
			accountId: acc.id,
			accountName: 'Keeps',
		});
		// Only a read sees it: update and delete do not (Record\Service::update/delete use getById).
		expect(reason(await call('PUT', `/Contact/${c.id}`, { description: 'x' }, ADMIN))).toEqual([
			404,
			`Record ${c.id} not found.`,
		]);
		expect(reason(await call('DELETE', `/Contact/${c.id}`, undefined, ADMIN))).toEqual([
			404,
			`Record ${c.id} not found.`,
		]);
		expect((await call('GET', '/Contact', undefined, ADMIN)).data.total).toBe(0);
		sb.setDialect('both');
		expect((await call('GET', `/Contact/${c.id}`, undefined, ADMIN)).data.deleted).toBe(true);
		sb.setDialect('standard');
		expect((await call('GET', `/Contact/${c.id}`, undefined, ADMIN)).status).toBe(404);
		sb.reset();
		sb.setDialect('espocrm');
		expect((await call('GET', `/Contact/${c.id}`, undefined, ADMIN)).status).toBe(404);
	});

	test('2. a related list without select: Account → contacts has id and system attributes only; other links full records', async () => {
		const acc = (await post('/Account', { name: 'Rel' })).data;
		const a = (
			await post('/Contact', {
				firstName: 'Zed',
				lastName: 'Alpha',
				emailAddress: 'z@x.io',
				accountId: acc.id,
				assignedUserId: SANDBOX_USERS.apiKey.id,
			})
		).data;
		await post('/Contact', { firstName: 'Amy', lastName: 'Beta', accountId: acc.id });
		await post('/Opportunity', { name: 'Deal', amount: 10, accountId: acc.id });
		// Account's service has linkMandatorySelectAttributeList contacts → [accountIsInactive]: the select is no longer ['*'].
		const plain = await get(`/Account/${acc.id}/contacts`);
		expect(plain.data.total).toBe(2);
		for (const r of plain.data.list)
			expect(keys(r)).toEqual([
				'accountIsInactive',
				'assignedUserId',
				'createdAt',
				'createdById',
				'id',
			]);
		expect(plain.data.list.find((r: { id: string }) => r.id === a.id)).toMatchObject({
			accountIsInactive: false,
			assignedUserId: SANDBOX_USERS.apiKey.id,
			createdById: SANDBOX_USERS.apiKey.id,
		});
		// The order-by field's attributes join (not createdAt then); a person's name is made of the parts loaded.
		const ordered = await get(`/Account/${acc.id}/contacts?orderBy=lastName`);
		expect(keys(ordered.data.list[0])).toEqual([
			'accountIsInactive',
			'assignedUserId',
			'createdById',
			'id',
			'lastName',
			'name',
		]);
		expect(ordered.data.list.map((r: { name: string }) => r.name)).toEqual(['Alpha', 'Beta']);
		const selected = await get(`/Account/${acc.id}/contacts?select=firstName,lastName`);
		expect(keys(selected.data.list[0])).toEqual([
			'accountId',
			'accountIsInactive',
			'accountName',
			'assignedUserId',
			'createdAt',
			'createdById',
			'firstName',
			'id',
			'lastName',
			'name',
		]);
		expect(selected.data.list.map((r: { name: string }) => r.name).sort()).toEqual([
			'Amy Beta',
			'Zed Alpha',
		]);
		// No mandatory attributes for Account → opportunities: list items as a list shows them.
		const opps = await get(`/Account/${acc.id}/opportunities`);
		expect(opps.data.list[0]).toMatchObject({
			name: 'Deal',
			amount: 10,
			accountName: 'Rel',
			deleted: false,
		});
		// The standard dialect: full records.
		sb.setDialect('standard');
		expect((await get(`/Account/${acc.id}/contacts`)).data.list[0]).toMatchObject({
			firstName: expect.any(String),
			lastName: expect.any(String),
			emailAddressData: expect.any(Array),
		});
	});

	test("3. select adds id, the ACL attributes, the service's mandatory ones and the order-by field, not name", async () => {
		const acc = (await post('/Account', { name: 'Sel', industry: 'Software' })).data;
		await post('/Contact', { firstName: 'Ann', lastName: 'Lee', accountId: acc.id });
		const first = (await get('/Contact?select=firstName&maxSize=1')).data.list[0];
		expect(keys(first)).toEqual([
			'accountId',
			'accountName',
			'assignedUserId',
			'createdAt',
			'createdById',
			'firstName',
			'id',
			'name',
		]);
		expect(first).toMatchObject({
			firstName: 'Ann',
			name: 'Ann',
			accountName: 'Sel',
			assignedUserId: null,
		});
		expect(keys((await get('/Contact?select=noSuchField')).data.list[0])).toEqual([
			'accountId',
			'accountName',
			'assignedUserId',
			'createdAt',
			'createdById',
			'id',
		]);
		expect(keys((await get('/Account?select=industry')).data.list[0])).toEqual([
			'assignedUserId',
			'createdAt',
			'createdById',
			'id',
			'industry',
		]);
		expect(keys((await get('/Account?select=name&orderBy=industry')).data.list[0])).toEqual([
			'assignedUserId',
			'createdById',
			'id',
			'industry',
			'name',
		]);
		// No name pairing: a link's id comes without its name, unless asked; link-multiple ids bring their names.
		expect(keys((await get('/Account?select=assignedUserId,teamsIds')).data.list[0])).toEqual([
			'assignedUserId',
			'createdAt',
			'createdById',
			'id',
			'teamsIds',
			'teamsNames',
		]);
		// selectDefs' dependency map and the linkParent loader (Meeting).
		await post('/Meeting', {
			name: 'M',
			dateStart: '2026-05-01 10:00:00',
			dateEnd: '2026-05-01 11:00:00',
			assignedUserId: SANDBOX_USERS.apiKey.id,
		});
		expect(keys((await get('/Meeting?select=name')).data.list[0])).toEqual([
			'assignedUserId',
			'createdById',
			'dateEnd',
			'dateEndDate',
			'dateStart',
			'dateStartDate',
			'id',
			'name',
			'parentName',
		]);
		sb.setDialect('both');
		expect(keys((await get('/Account?select=industry')).data.list[0])).toEqual([
			'assignedUserId',
			'createdAt',
			'createdById',
			'id',
			'industry',
		]);
		sb.setDialect('standard');
		expect(keys((await get('/Account?select=industry')).data.list[0])).toEqual([
			'id',
			'industry',
			'name',
		]);
	});

	test('4. attribute sets of create, read, list and a 409 body; versionNumber only with optimistic concurrency control', async () => {
		const c = await post('/Contact', { firstName: 'Pro', lastName: 'Be' });
		// The 26 attributes EspoCRM 8.1.5 replied (measured).
		const espoCreate = [
			'accountIsInactive',
			'accountsColumns',
			'accountsIds',
			'accountsNames',
			'createdAt',
			'createdById',
			'deleted',
			'doNotCall',
			'emailAddressData',
			'emailAddressIsInvalid',
			'emailAddressIsOptedOut',
			'firstName',
			'followersIds',
			'followersNames',
			'hasPortalUser',
			'id',
			'isFollowed',
			'lastName',
			'modifiedAt',
			'name',
			'phoneNumberData',
			'phoneNumberIsInvalid',
			'phoneNumberIsOptedOut',
			'targetListIsOptedOut',
			'teamsIds',
			'teamsNames',
		];
		expect(keys(c.data)).toEqual(espoCreate);
		expect(c.data).toMatchObject({
			deleted: false,
			createdById: SANDBOX_USERS.apiKey.id,
			emailAddressIsOptedOut: false,
			isFollowed: false,
			followersIds: [],
			targetListIsOptedOut: false,
		});
		// Assigned to the caller: followed, and the assigned user's name comes (the stream hook loads it).
		const assigned = (
			await post('/Contact', {
				lastName: 'Mine',
				assignedUserId: SANDBOX_USERS.apiKey.id,
				emailAddress: 'm@x.io',
			})
		).data;
		expect(assigned).toMatchObject({
			isFollowed: true,
			followersIds: [SANDBOX_USERS.apiKey.id],
			assignedUserName: 'API Key User',
			emailAddressData: [expect.objectContaining({ emailAddress: 'm@x.io' })],
		});

		const read = (await get(`/Contact/${c.data.id}`)).data;
		for (const k of [
			'accountType',
			'campaignId',
			'campaignName',
			'createdByName',
			'modifiedById',
			'modifiedByName',
			'middleName',
			'originalLeadId',
			'portalUserId',
			'emailAddressIsOptedOut',
		]) {
			expect(read).toHaveProperty(k, k === 'createdByName' ? 'API Key User' : null);
		}
		expect(read).toMatchObject({
			deleted: false,
			isFollowed: false,
			emailAddressData: [],
			teamsIds: [],
		});
		expect(read).not.toHaveProperty('versionNumber');
		expect(read).not.toHaveProperty('targetListIsOptedOut');
		expect(
			(await call('PATCH', `/Contact/${c.data.id}`, { addressCity: 'Dr' })).data.modifiedById,
		).toBe(SANDBOX_USERS.apiKey.id);

		// A list item: no link-multiple, address-data or follower attributes.
		const item = (
			await get(
				`/Contact?where[0][type]=equals&where[0][attribute]=id&where[0][value]=${c.data.id}`,
			)
		).data.list[0];
		expect(item).toMatchObject({
			deleted: false,
			createdByName: 'API Key User',
			addressCity: 'Dr',
		});
		for (const k of [
			'emailAddressData',
			'phoneNumberData',
			'teamsIds',
			'accountsIds',
			'isFollowed',
			'followersIds',
		])
			expect(item).not.toHaveProperty(k);
		// A 409's records are list items.
		const dup = await post('/Contact', { firstName: 'Pro', lastName: 'Be' });
		expect(dup.status).toBe(409);
		expect(keys(dup.data[0])).toEqual(keys(item));

		// CProject (optimistic concurrency control): versionNumber, and X-Version-Number refused only when a value differs.
		const p = (await post('/CProject', { name: 'V' })).data;
		expect(p.versionNumber).toBe(1);
		expect((await call('PUT', `/CProject/${p.id}`, { hours: 2 })).data.versionNumber).toBe(2);
		const stale = await call(
			'PUT',
			`/CProject/${p.id}`,
			{ hours: 3, name: 'V' },
			{ 'X-Version-Number': '1' },
		);
		expect(reason(stale)).toEqual([409, 'modified']);
		expect(stale.data).toEqual({ values: { hours: 2 }, versionNumber: 2 });
		expect(
			(await call('PUT', `/CProject/${p.id}`, { hours: 2 }, { 'X-Version-Number': '1' })).status,
		).toBe(200);

		// The standard dialect keeps server-behaviour.md's create reply: the attributes that were set.
		sb.setDialect('standard');
		const std = (await post('/Contact', { firstName: 'Std', lastName: 'Reply' })).data;
		expect(keys(std)).toEqual([
			'createdAt',
			'createdById',
			'doNotCall',
			'firstName',
			'id',
			'lastName',
			'modifiedAt',
			'name',
		]);
	});

	test('5. a validation failure has a messageTranslation body (also an e-mail without from); not in the standard dialect', async () => {
		const v = await post('/Contact', { firstName: 'X' });
		expect(reason(v)).toEqual([
			400,
			'Field validation failure; entityType: Contact, field: lastName, type: required.',
		]);
		expect(v.data).toEqual({
			messageTranslation: {
				label: 'validationFailure',
				scope: null,
				data: { field: 'lastName', type: 'required' },
			},
		});
		// Without Content-Type: application/json the body is taken as empty, and fails the same way.
		const plain = await call(
			'POST',
			'/Contact',
			'{"lastName":"A"}',
			{ 'Content-Type': 'text/plain' },
			{ transformRequest: [(d) => d] },
		);
		expect(plain.data).toEqual({
			messageTranslation: {
				label: 'validationFailure',
				scope: null,
				data: { field: 'lastName', type: 'required' },
			},
		});
		const mail = await post('/Email', {
			status: 'Sending',
			to: 'x@example.com',
			subject: 'no from',
			body: 'b',
		});
		expect(reason(mail)).toEqual([
			400,
			'Field validation failure; entityType: Email, field: from, type: required.',
		]);
		expect(mail.data).toEqual({
			messageTranslation: {
				label: 'validationFailure',
				scope: null,
				data: { field: 'from', type: 'required' },
			},
		});
		sb.setDialect('both');
		expect(
			(await post('/Lead', { lastName: 'L', status: 'Bogus' })).data.messageTranslation.data,
		).toEqual({ field: 'status', type: 'valid' });
		sb.setDialect('standard');
		expect((await post('/Contact', { firstName: 'X' })).data).toBe('');
	});

	test('6-8. list errors: unknown where type (reason), bad order (500, no reason), unknown orderBy (500, reason); odd paging', async () => {
		const bad = await get(
			`/Contact?${whereQs([{ type: 'noSuchType', attribute: 'lastName', value: 'x' }])}`,
		);
		expect(reason(bad)).toEqual([500, "Unknown where item type 'noSuchType'."]);
		expect(bad.data).toBe('');
		const sideways = await get('/Contact?orderBy=lastName&order=sideways');
		expect(sideways.status).toBe(500);
		expect(hasReasonHeader(sideways)).toBe(false);
		expect((await get('/Contact?orderBy=lastName&order=DESC')).status).toBe(200);
		expect(reason(await get('/Contact?orderBy=noSuchField'))).toEqual([
			500,
			"Order by non-existing field 'noSuchField'.",
		]);
		const acc = (await post('/Account', { name: 'O' })).data;
		expect(reason(await get(`/Account/${acc.id}/contacts?orderBy=noSuchField`))).toEqual([
			500,
			"Order by non-existing field 'noSuchField'.",
		]);
		// intval: maxSize=abc is 0 (an empty page); a negative offset reaches the database: 500 without a reason.
		await post('/Contact', { lastName: 'One' });
		expect((await get('/Contact?maxSize=abc')).data).toEqual({ total: 1, list: [] });
		const negative = await get('/Contact?offset=-1');
		expect([negative.status, hasReasonHeader(negative)]).toEqual([500, false]);
		sb.setDialect('both');
		expect(reason(await get('/Contact?orderBy=noSuchField'))).toEqual([
			500,
			"Order by non-existing field 'noSuchField'.",
		]);
		sb.setDialect('standard');
		expect(reason(await get('/Contact?orderBy=lastName&order=sideways'))).toEqual([
			400,
			'Bad order.',
		]);
		expect(
			reason(
				await get(
					`/Contact?${whereQs([{ type: 'noSuchType', attribute: 'lastName', value: 'x' }])}`,
				),
			),
		).toEqual([400, 'Unknown where type.']);
	});

	test("9. a path no route takes: Slim's 404 (405 for another method), before authentication, without a reason", async () => {
		const lead = (await post('/Lead', { lastName: 'Conv' })).data;
		const json = await call(
			'POST',
			`/Lead/${lead.id}/action/convert`,
			{ records: {} },
			{ Accept: 'application/json' },
		);
		expect([json.status, hasReasonHeader(json), json.headers['content-type']]).toEqual([
			404,
			false,
			'application/json',
		]);
		expect(json.data).toEqual({ message: '404 Not Found' });
		const html = await call(
			'GET',
			`/Account/${lead.id}/contacts/x`,
			undefined,
			{ Accept: '*/*' },
			{ responseType: 'text' },
		);
		expect([html.status, html.headers['content-type']]).toEqual([404, 'text/html;charset=UTF-8']);
		expect(html.data).toContain('<title>404 Not Found</title>');
		const put = await call('PUT', '/Contact', {}, { Accept: 'application/json' });
		expect([put.status, put.headers.allow, put.data]).toEqual([
			405,
			'GET, POST',
			{ message: '405 Method Not Allowed' },
		]);
		expect(
			(await call('PATCH', `/Account/${lead.id}/contacts`, {}, { Accept: 'application/json' }))
				.headers.allow,
		).toBe('GET, POST, DELETE');
		// Routing comes first: no credentials, still 404.
		const anon = await axios.post(
			`${sb.baseUrl}/Lead/${lead.id}/action/convert`,
			{},
			{ headers: { Accept: 'application/json' }, validateStatus: () => true },
		);
		expect(anon.status).toBe(404);
		expect((await get('/')).data).toBe('EspoCRM REST API');
		// 'both' has the standard routes too; the standard dialect keeps its empty 404.
		sb.setDialect('both');
		expect(
			(
				await post(`/Lead/${lead.id}/action/convert`, {
					records: { Account: { name: 'Conv Inc' } },
				})
			).data.status,
		).toBe('Converted');
		expect(
			(await call('GET', '/Contact/a/b/c', undefined, { Accept: 'application/json' })).data,
		).toEqual({ message: '404 Not Found' });
		sb.setDialect('standard');
		const std = await call('PUT', '/Contact', {});
		expect([std.status, std.data]).toEqual([404, '']);
	});

	test("10. GET /Metadata has EspoCRM's top-level keys (an admin two more)", async () => {
		const md = (await get('/Metadata')).data;
		expect(keys(md)).toEqual([
			'app',
			'clientDefs',
			'dashlets',
			'entityAcl',
			'entityDefs',
			'fields',
			'integrations',
			'scopes',
			'streamDefs',
			'themes',
		]);
		expect(md.fields.varchar).toMatchObject({
			validationList: ['required', 'maxLength', 'pattern'],
			mandatoryValidationList: ['maxLength'],
		});
		expect(md.app.regExpPatterns.noBadCharacters).toEqual({ pattern: '[^<>=]+' });
		expect(md.clientDefs.Contact.controller).toBe('controllers/record');
		// The hidden fields of the records are not published; the published ones did not change.
		expect(md.entityDefs.Contact.fields).not.toHaveProperty('createdBy');
		expect(md.entityDefs.Contact.links).not.toHaveProperty('originalLead');
		const admin = (await call('GET', '/Metadata', undefined, ADMIN)).data;
		expect(keys(admin)).toEqual([
			'app',
			'authenticationMethods',
			'clientDefs',
			'dashlets',
			'entityAcl',
			'entityDefs',
			'fields',
			'integrations',
			'recordDefs',
			'scopes',
			'streamDefs',
			'themes',
		]);
	});

	test('11. no X-Status-Reason where EspoCRM sends none; an empty one where it sends an empty one', async () => {
		const malformed = await call(
			'POST',
			'/Account',
			'{"name": ',
			{ 'Content-Type': 'application/json' },
			{ transformRequest: [(d) => d] },
		);
		expect([malformed.status, hasReasonHeader(malformed), malformed.data]).toEqual([
			500,
			false,
			'',
		]);
		const acc = (await post('/Account', { name: 'L' })).data;
		const link = await get(`/Account/${acc.id}/noSuchLink`);
		expect([link.status, hasReasonHeader(link)]).toEqual([500, false]);
		const varcharObject = await post('/Account', { name: { a: 1 } });
		expect([varcharObject.status, hasReasonHeader(varcharObject)]).toEqual([500, false]);
		// EspoCRM's own exceptions without a text: the header is there, empty.
		expect(reason(await get('/Attachment'))).toEqual([403, '']);
		expect(reason(await get('/Contact/0000000000000dead/opportunities'))).toEqual([404, '']);
		expect(reason(await post('/MassAction', { action: 'update', params: { ids: [] } }))).toEqual([
			400,
			'',
		]);
		// Relationship requests: a body without ids is `false`; an unknown related record a 404 with an empty reason.
		expect((await post(`/Account/${acc.id}/contacts`, {})).data).toBe(false);
		expect(reason(await post(`/Account/${acc.id}/contacts`, { id: '0000000000000dead' }))).toEqual([
			404,
			'',
		]);
		// A proxy's refusal made by the fault switches has no X-Status-Reason unless given one.
		sb.faults.failNext({ status: 502 });
		const proxy = await get('/Contact');
		expect([proxy.status, hasReasonHeader(proxy)]).toEqual([502, false]);
	});
	test('12. streams: a post to a Call is stored (no stream there), a post to a record that does not exist is 403 "No create access."; a role without Stream', async () => {
		const call_ = (
			await post('/Call', {
				name: 'Kick-off',
				dateStart: '2026-11-28 10:00:00',
				dateEnd: '2026-11-28 10:30:00',
				assignedUserId: SANDBOX_USERS.apiKey.id,
			})
		).data;
		expect(
			(await post('/Note', { type: 'Post', parentType: 'Call', parentId: call_.id, post: 'x' }))
				.status,
		).toBe(200);
		const callStream = await get(`/Call/${call_.id}/stream`);
		expect([callStream.status, callStream.data.total]).toEqual([200, 1]);
		expect(reason(await call('PUT', `/Call/${call_.id}/subscription`))).toEqual([200, undefined]);
		expect(
			reason(
				await post('/Note', {
					type: 'Post',
					parentType: 'Contact',
					parentId: '0000000000000dead',
					post: 'x',
				}),
			),
		).toEqual([403, 'No create access.']);
		const metadata = (await get('/Metadata')).data;
		expect([metadata.scopes.Contact.stream, metadata.scopes.Call.stream]).toEqual([
			true,
			undefined,
		]);

		const c = (await post('/Contact', { lastName: 'Streamless' })).data;
		sb.setNoStreamScopes(['Contact']);
		expect(
			reason(
				await post('/Note', { type: 'Post', parentType: 'Contact', parentId: c.id, post: 'x' }),
			),
		).toEqual([403, 'No create access.']);
		expect((await get(`/Contact/${c.id}`)).status).toBe(200);
		expect((await get(`/Contact/${c.id}/stream`)).status).toBe(403);
		expect((await call('PUT', `/Contact/${c.id}/subscription`)).status).toBe(403);
		expect((await call('DELETE', `/Contact/${c.id}/subscription`)).data).toBe(true);
		expect((await get('/App/user')).data.acl.table.Contact.stream).toBe('no');
		expect((await call('GET', `/Contact/${c.id}/stream`, undefined, ADMIN)).status).toBe(200);
		sb.reset();
		expect((await post('/Contact', { lastName: 'Again' })).status).toBe(200);
	});
});
