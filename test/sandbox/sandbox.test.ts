import axios, { AxiosRequestConfig, AxiosResponse } from 'axios';
import { createHmac } from 'node:crypto';
import { startSandbox, SANDBOX_CREDENTIALS, Sandbox } from '../sandbox';

let sb: Sandbox;
const KEY = { 'X-Api-Key': SANDBOX_CREDENTIALS.apiKey };

async function call(method: string, path: string, data?: unknown, headers: Record<string, string> = {}, extra: AxiosRequestConfig = {}): Promise<AxiosResponse> {
	return axios.request({
		method,
		url: sb.baseUrl + path,
		data,
		headers: { ...KEY, ...(data !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
		validateStatus: () => true,
		...extra,
	});
}
const get = (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers);
const post = (path: string, data: unknown, headers?: Record<string, string>) => call('POST', path, data, headers);

/** Builds a where query string with bracket syntax from a list of items. */
function whereQs(items: unknown[], prefix = 'where'): string {
	const parts: string[] = [];
	const walk = (v: unknown, key: string) => {
		if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${key}[${i}]`));
		else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${key}[${k}]`);
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
const utcDate = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const utcDateTime = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString().slice(0, 19).replace('T', ' ');

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
	test('create, read, update, delete', async () => {
		const c = await post('/Contact', { firstName: 'Ann', lastName: 'Lee', phoneNumber: '+1 555 0100', foo: 'ignored' });
		expect(c.status).toBe(200);
		expect(c.data.id).toMatch(/^[0-9a-f]{17}$/);
		expect(c.data).toMatchObject({ firstName: 'Ann', lastName: 'Lee', name: 'Ann Lee', phoneNumber: '+15550100' });
		expect(c.data.createdAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
		expect(c.data).not.toHaveProperty('description');
		expect(c.data).not.toHaveProperty('foo');

		const r = await get(`/Contact/${c.data.id}?select=firstName`);
		expect(r.data.description).toBeNull();
		expect(r.data.lastName).toBe('Lee');

		const u = await call('PATCH', `/Contact/${c.data.id}`, { description: 'x' });
		expect(u.status).toBe(200);
		expect(u.data).toMatchObject({ description: 'x', firstName: 'Ann', versionNumber: 2 });
		const p = await call('PUT', `/Contact/${c.data.id}`, { title: 'CEO' });
		expect(p.data).toMatchObject({ description: 'x', title: 'CEO' });

		expect((await call('PUT', `/Contact/${c.data.id}`, { title: 'y' }, { 'X-Version-Number': '1' })).headers['x-status-reason']).toBe('modified');

		const d = await call('DELETE', `/Contact/${c.data.id}`);
		expect(d.status).toBe(200);
		expect(d.data).toBe(true);
		const gone = await get(`/Contact/${c.data.id}`);
		expect(gone.status).toBe(404);
		expect(gone.headers['x-status-reason']).toBe(`Record ${c.data.id} does not exist.`);
		expect((await call('DELETE', `/Contact/${c.data.id}`)).headers['x-status-reason']).toBe(`Record ${c.data.id} not found.`);
	});

	test('errors: validation, unknown type, malformed JSON, non-JSON body', async () => {
		const v = await post('/Contact', { firstName: 'X' });
		expect(v.status).toBe(400);
		expect(v.headers['x-status-reason']).toBe('Field validation failure; entityType: Contact, field: lastName, type: required.');
		expect(v.data).toBe('');
		const foo = await get('/Foo');
		expect([foo.status, foo.headers['x-status-reason']]).toEqual([404, "Controller 'Foo' does not exist."]);
		const bad = await call('POST', '/Account', '{"name": ', { 'Content-Type': 'application/json' }, { transformRequest: [(d) => d] });
		expect(bad.status).toBe(500);
		const plain = await call('POST', '/Account', '{"name":"A"}', { 'Content-Type': 'text/plain' }, { transformRequest: [(d) => d] });
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

	test('duplicates and X-Skip-Duplicate-Check', async () => {
		await post('/Account', { name: 'Acme' });
		const dup = await post('/Account', { name: 'ACME' });
		expect(dup.status).toBe(409);
		expect(dup.headers['x-status-reason']).toBe('duplicate');
		expect(dup.data[0].name).toBe('Acme');
		expect((await post('/Account', { name: 'Acme' }, { 'X-Skip-Duplicate-Check': 'TRUE' })).status).toBe(200);
		await post('/Contact', { lastName: 'Doe', emailAddress: 'd@x.io' });
		expect((await post('/Contact', { lastName: 'Other', emailAddress: 'd@x.io' })).status).toBe(409);
	});
});

describe('lists', () => {
	test('paging, maxSize, select, X-No-Total, Email total', async () => {
		for (let i = 0; i < 7; i++) sb.store.create('Account', { name: `N${i}`, industry: 'Software' });
		const p = await get('/Account?maxSize=3&offset=6&orderBy=name&order=asc');
		expect(p.data.total).toBe(7);
		expect(p.data.list.map((x: { name: string }) => x.name)).toEqual(['N6']);
		const big = await get('/Account?maxSize=201');
		expect([big.status, big.headers['x-status-reason']]).toEqual([403, 'Max size should not exceed 200. Use offset and limit.']);
		const sel = await get('/Account?select=industry&maxSize=1');
		expect(Object.keys(sel.data.list[0]).sort()).toEqual(['id', 'industry', 'name']);
		expect((await get('/Account?maxSize=3', { 'X-No-Total': 'true' })).data.total).toBe(-1);
		expect((await get('/Account?maxSize=30', { 'X-No-Total': 'true' })).data.total).toBe(-2);
		sb.store.create('Email', { name: 'm' });
		expect((await get('/Email')).data.total).toBe(-2);
		const sp = await get(`/Account?searchParams=${encodeURIComponent(JSON.stringify({ where: [{ type: 'equals', attribute: 'name', value: 'N2' }], maxSize: 5 }))}`);
		expect(sp.data.list.map((x: { name: string }) => x.name)).toEqual(['N2']);
	});

	test('scalar where types', async () => {
		const a = sb.store.create('Opportunity', { name: 'Alpha deal', amount: 100, probability: 10, closeDate: utcDate(-40), stage: 'Proposal' });
		const b = sb.store.create('Opportunity', { name: 'Beta_deal', amount: 900, probability: 50, closeDate: utcDate(0), description: 'hot' });
		const c = sb.store.create('Opportunity', { name: 'Gamma', amount: 20, closeDate: utcDate(3) });
		const W = (type: string, attribute: string, value?: unknown) => ({ type, attribute, ...(value !== undefined ? { value } : {}) });
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
		for (const t of ['currentMonth', 'lastMonth', 'nextMonth', 'currentQuarter', 'lastQuarter', 'lastYear']) {
			expect((await get(`/Opportunity?${whereQs([W(t, 'closeDate')])}`)).status).toBe(200);
		}
		expect(await sorted([{ type: 'or', value: [W('equals', 'name', 'Gamma'), { type: 'and', value: [W('contains', 'name', 'deal'), W('greaterThan', 'amount', 500)] }] }])).toEqual(s(b, c));
		expect((await get(`/Opportunity?where[0][type]=equals&where[0][attribute]=name`)).headers['x-status-reason']).toBe('Bad where item.');
		const unknown = await get(`/Opportunity?${whereQs([W('sortOf', 'name', 'x')])}`);
		expect(unknown.status).toBe(500);
		sb.setDialect('standard');
		expect((await get(`/Opportunity?${whereQs([W('sortOf', 'name', 'x')])}`)).status).toBe(400);
	});

	test('bool, array and link where types; [] array syntax', async () => {
		const p1 = sb.store.create('CProject', { name: 'P1', labels: ['Client', 'Urgent'], isBillable: true });
		const p2 = sb.store.create('CProject', { name: 'P2', labels: ['Internal'] });
		const p3 = sb.store.create('CProject', { name: 'P3' });
		const s = (...x: { id: string }[]) => x.map((y) => y.id).sort();
		const q = async (items: unknown[]) => (await ids('CProject', items)).sort();
		expect(await q([{ type: 'isTrue', attribute: 'isBillable' }])).toEqual(s(p1));
		expect(await q([{ type: 'isFalse', attribute: 'isBillable' }])).toEqual(s(p2, p3));
		expect(await q([{ type: 'arrayAnyOf', attribute: 'labels', value: ['Urgent', 'Internal'] }])).toEqual(s(p1, p2));
		expect(await q([{ type: 'arrayNoneOf', attribute: 'labels', value: ['Urgent'] }])).toEqual(s(p2, p3));
		expect(await q([{ type: 'arrayAllOf', attribute: 'labels', value: ['Urgent', 'Client'] }])).toEqual(s(p1));
		expect(await q([{ type: 'arrayIsEmpty', attribute: 'labels' }])).toEqual(s(p3));
		expect(await q([{ type: 'arrayIsNotEmpty', attribute: 'labels' }])).toEqual(s(p1, p2));
		const brackets = await get('/CProject?where[0][type]=in&where[0][attribute]=name&where[0][value][]=P1&where[0][value][]=P3');
		expect(brackets.data.list.map((x: { id: string }) => x.id).sort()).toEqual(s(p1, p3));

		const acc = sb.store.create('Account', { name: 'Acc' });
		const c1 = sb.store.create('Contact', { lastName: 'One', accountId: acc.id });
		const c2 = sb.store.create('Contact', { lastName: 'Two' });
		const qc = async (items: unknown[]) => (await ids('Contact', items)).sort();
		expect(await qc([{ type: 'linkedWith', attribute: 'account', value: [acc.id] }])).toEqual(s(c1));
		expect(await qc([{ type: 'notLinkedWith', attribute: 'account', value: [acc.id] }])).toEqual(s(c2));
		expect(await qc([{ type: 'isLinked', attribute: 'account' }])).toEqual(s(c1));
		expect(await qc([{ type: 'isNotLinked', attribute: 'account' }])).toEqual(s(c2));
	});

	test('date-time quirk: date types on createdAt need dateTime=true', async () => {
		const fresh = sb.store.create('Contact', { lastName: 'Fresh' });
		const old = sb.store.create('Contact', { lastName: 'Old', createdAt: utcDateTime(-3 * 86_400_000) });
		const q = (items: unknown[]) => ids('Contact', items);
		// Without the flag: a record created now is "future", not "today"; lastXDays misses it.
		expect(await q([{ type: 'today', attribute: 'createdAt' }])).toEqual([]);
		expect(await q([{ type: 'future', attribute: 'createdAt' }])).toEqual([fresh.id]);
		expect(await q([{ type: 'lastXDays', attribute: 'createdAt', value: 1 }])).toEqual([]);
		// With it, in several zones.
		for (const timeZone of ['UTC', 'Europe/Berlin', 'America/New_York']) {
			const flag = { dateTime: true, timeZone };
			expect(await q([{ type: 'today', attribute: 'createdAt', ...flag }])).toEqual([fresh.id]);
			expect(await q([{ type: 'lastXDays', attribute: 'createdAt', value: 7, ...flag }])).toEqual([fresh.id, old.id]);
			expect(await q([{ type: 'olderThanXDays', attribute: 'createdAt', value: 1, ...flag }])).toEqual([old.id]);
			expect(await q([{ type: 'past', attribute: 'createdAt', ...flag }])).toContain(old.id);
		}
		const flag = { dateTime: 'true', timeZone: 'Europe/Berlin' };
		expect(await q([{ type: 'lastSevenDays', attribute: 'createdAt', ...flag }])).toEqual([fresh.id, old.id]);
		expect(await q([{ type: 'nextXDays', attribute: 'createdAt', value: 2, ...flag }])).not.toContain(old.id);
		expect(await q([{ type: 'afterXDays', attribute: 'createdAt', value: 1, ...flag }])).toEqual([]);
		expect(await q([{ type: 'greaterThan', attribute: 'createdAt', value: '2000-01-01 00:00:00', ...flag }])).toEqual([]);
		expect(await q([{ type: 'greaterThan', attribute: 'createdAt', value: '2000-01-01 00:00:00' }])).toEqual([fresh.id, old.id]);
		expect(await q([{ type: 'after', attribute: 'createdAt', value: utcDateTime(-86_400_000) }])).toEqual([fresh.id]);
		expect(await q([{ type: 'before', attribute: 'createdAt', value: utcDateTime(-86_400_000), dateTime: true, timeZone: 'UTC' }])).toEqual([old.id]);
		expect(await q([{ type: 'on', attribute: 'createdAt', value: old.createdAt.slice(0, 10), dateTime: true, timeZone: 'UTC' }])).toEqual([old.id]);
		expect(await q([{ type: 'between', attribute: 'createdAt', value: [utcDate(-5), utcDate(-2)], dateTime: true, timeZone: 'UTC' }])).toEqual([old.id]);
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
		expect(await tryAuth({ 'X-Hmac-Authorization': b64(Buffer.concat([Buffer.from(`${SANDBOX_CREDENTIALS.hmacApiKey}:`), raw])) }, '/Account?maxSize=1')).toBe(200);
		expect(await tryAuth({ 'X-Hmac-Authorization': b64(`${SANDBOX_CREDENTIALS.hmacApiKey}:${raw.toString('hex')}`) })).toBe(200);
		expect(await tryAuth({ 'X-Hmac-Authorization': b64(`${SANDBOX_CREDENTIALS.hmacApiKey}:${raw.toString('hex')}`) }, '/Contact')).toBe(401);

		const none = await axios.get(`${sb.baseUrl}/Account`, { validateStatus: () => true });
		expect(none.status).toBe(401);
		expect(none.headers['www-authenticate']).toBe('Basic realm=""');
		const wrong = await axios.get(`${sb.baseUrl}/Account`, { headers: { 'X-Api-Key': 'nope' }, validateStatus: () => true });
		expect([wrong.status, wrong.data]).toEqual([401, '']);

		const tok = await axios.post(`${sb.baseUrl}/Auth`, { grant_type: 'client_credentials', client_id: SANDBOX_CREDENTIALS.clientId, client_secret: SANDBOX_CREDENTIALS.clientSecret }, { validateStatus: () => true });
		expect(tok.status).toBe(200);
		expect(tok.data).toMatchObject({ token_type: 'Bearer' });
		expect(sb.tokensIssued).toBe(1);
		expect(await tryAuth({ ...noKey, Authorization: `Bearer ${tok.data.access_token}` })).toBe(200);
		sb.expireTokens();
		expect(await tryAuth({ Authorization: `Bearer ${tok.data.access_token}` })).toBe(401);
		const badClient = await axios.post(`${sb.baseUrl}/Auth`, { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' }, { validateStatus: () => true });
		expect([badClient.status, badClient.data]).toEqual([401, { error: 'invalid_client' }]);
		const badGrant = await axios.post(`${sb.baseUrl}/Auth`, { client_id: 'x' }, { validateStatus: () => true });
		expect([badGrant.status, badGrant.data]).toEqual([400, { error: 'unsupported_grant_type' }]);
		expect(noKey).toBeDefined();
	});

	test('token TTL and failed-login lock-out', async () => {
		const other = await startSandbox({ tokenTtlMs: 150, failedLoginLimit: 3 });
		try {
			const tok = await axios.post(`${other.baseUrl}/Auth`, { grant_type: 'client_credentials', client_id: SANDBOX_CREDENTIALS.clientId, client_secret: SANDBOX_CREDENTIALS.clientSecret });
			const auth = { Authorization: `Bearer ${tok.data.access_token}` };
			expect((await axios.get(`${other.baseUrl}/Lead`, { headers: auth, validateStatus: () => true })).status).toBe(200);
			await new Promise((r) => setTimeout(r, 200));
			expect((await axios.get(`${other.baseUrl}/Lead`, { headers: auth, validateStatus: () => true })).status).toBe(401);
			for (let i = 0; i < 3; i++) expect((await axios.get(`${other.baseUrl}/Lead`, { headers: { 'X-Api-Key': 'bad' }, validateStatus: () => true })).status).toBe(401);
			const locked = await axios.get(`${other.baseUrl}/Lead`, { headers: KEY, validateStatus: () => true });
			expect([locked.status, locked.headers['x-status-reason']]).toEqual([403, '']);
			other.reset();
			expect((await axios.get(`${other.baseUrl}/Lead`, { headers: KEY, validateStatus: () => true })).status).toBe(200);
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
		expect(c1.accountName).toBe('A');
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
		const mu = await call('PUT', '/Contact/action/massUpdate', { ids: [a.id, 'missing'], attributes: { description: 'm' } });
		expect([mu.status, mu.data]).toEqual([200, true]);
		expect(sb.store.get('Contact', a.id)!.description).toBe('m');
		const ma = await post('/MassAction', { entityType: 'Contact', action: 'update', params: { ids: [a.id, b.id, 'missing'] }, data: { title: 't' } });
		expect(ma.data).toEqual({ count: 2, ids: [a.id, b.id] });
		sb.setDialect('espocrm');
		const refused = await call('PUT', '/Contact/action/massUpdate', { ids: [a.id], attributes: {} });
		expect([refused.status, refused.headers['x-status-reason']]).toEqual([404, "Action PUT 'massUpdate' does not exist in controller 'Contact'."]);
		expect((await post('/Contact/action/massDelete', { ids: [a.id] })).headers['x-status-reason']).toBe("Action POST 'massDelete' does not exist in controller 'Contact'.");
		expect((await post('/MassAction', { entityType: 'Contact', action: 'delete', params: { ids: [a.id] } })).data).toEqual({ count: 1, ids: [a.id] });
		sb.setDialect('standard');
		const noMass = await post('/MassAction', { entityType: 'Contact', action: 'delete', params: { ids: [b.id] } });
		expect([noMass.status, noMass.headers['x-status-reason']]).toEqual([404, "Controller 'MassAction' does not exist."]);
		expect((await post('/Contact/action/massDelete', { ids: [b.id] })).data).toBe(true);
		expect(sb.store.count('Contact')).toBe(0);
	});

	test('lead conversion in both forms', async () => {
		const lead = sb.store.create('Lead', { firstName: 'L', lastName: 'Ead' });
		const records = { Account: { name: 'Conv Inc' }, Contact: { firstName: 'L', lastName: 'Ead' }, Opportunity: { name: 'Deal', amount: 500 } };
		const r = await post(`/Lead/${lead.id}/action/convert`, { records });
		expect(r.status).toBe(200);
		expect(r.data.status).toBe('Converted');
		const contact = sb.store.get('Contact', r.data.createdContactId)!;
		expect(contact.accountId).toBe(r.data.createdAccountId);
		expect(sb.store.get('Opportunity', r.data.createdOpportunityId)!.contactsIds).toEqual([contact.id]);
		expect((await post('/Lead/action/convert', { id: lead.id, records })).status).toBe(409);
		const again = await post('/Lead/action/convert', { id: lead.id, records: { Account: { name: 'Second' } } });
		expect(again.data.createdAccountId).not.toBe(r.data.createdAccountId);
		sb.setDialect('espocrm');
		expect((await post(`/Lead/${lead.id}/action/convert`, { records })).status).toBe(404);
		sb.setDialect('standard');
		expect((await post('/Lead/action/convert', { id: lead.id, records })).status).toBe(404);
	});

	test('e-mail by dialect, attachments', async () => {
		const att = await post('/Attachment', { name: 'a.txt', type: 'text/plain', role: 'Attachment', relatedType: 'Email', field: 'attachments', file: `data:text/plain;base64,${Buffer.from('hello').toString('base64')}` });
		expect(att.data).toMatchObject({ name: 'a.txt', size: 5 });
		const empty = await post('/Attachment', { name: 'b.txt', relatedType: 'Email', field: 'attachments', file: 'hello' });
		expect(empty.data.size).toBe(0);
		expect((await post('/Attachment', { name: 'c', relatedType: 'Email', field: 'attachments' })).headers['x-status-reason']).toBe('No file contents.');
		expect((await get('/Attachment')).status).toBe(403);
		const dl = await call('GET', `/Attachment/file/${att.data.id}`, undefined, {}, { responseType: 'arraybuffer' });
		expect(Buffer.from(dl.data).toString()).toBe('hello');
		expect(dl.headers['content-disposition']).toBe('attachment; filename="a.txt"');

		const standardMail = await post('/Email', { to: 'x@y.io', subject: 'Hi', body: 'b', isHtml: false, attachmentsIds: [att.data.id] });
		expect(standardMail.data).toMatchObject({ status: 'Sent', hasAttachment: true, attachmentsNames: { [att.data.id]: 'a.txt' }, subject: 'Hi' });
		expect((await post('/Email', { to: 'x@y.io', attachmentsIds: ['nope'] })).status).toBe(403);

		sb.setDialect('espocrm');
		const noFrom = await post('/Email', { to: 'x@y.io', subject: 'Hi', status: 'Sending' });
		expect(noFrom.headers['x-status-reason']).toBe('Field validation failure; entityType: Email, field: from, type: required.');
		expect((await post('/Email', { from: 'me@y.io', to: 'x@y.io', subject: 'Hi' })).data.status).toBe('Archived');
		const sent = await post('/Email', { from: 'me@y.io', to: 'x@y.io; z@y.io', subject: 'Hi', status: 'Sending' });
		expect(sent.data.status).toBe('Sent');
		expect(sent.data.dateSent).toBeTruthy();
		expect(sb.outbox.at(-1)!.to).toEqual(['x@y.io', 'z@y.io']);
		sb.faults.emailSendingFails = true;
		const fail = await post('/Email', { from: 'me@y.io', to: 'x@y.io', subject: 'Hi', status: 'Sending' });
		expect([fail.status, fail.headers['x-status-reason'], fail.data.message]).toEqual([500, 'sendingFail', 'No system SMTP settings.']);
		expect(sb.store.get('Email', fail.data.id)!.status).toBe('Draft');
	});

	test('metadata, app/user, restricted scopes', async () => {
		const md = await get('/Metadata');
		expect(md.data.scopes.CProject).toMatchObject({ entity: true, object: true, isCustom: true });
		expect(md.data.entityDefs.Lead.fields.status).toEqual({ type: 'enum', options: ['New', 'Assigned', 'In Process', 'Converted', 'Recycled', 'Dead'], default: 'New' });
		expect(md.data.entityDefs.Account.links.contacts).toMatchObject({ type: 'hasMany', entity: 'Contact' });
		expect((await get('/App/user')).data.acl.table.Contact).toEqual({ create: 'yes', read: 'all', edit: 'all', delete: 'all', stream: 'all' });
		sb.setRestrictedScopes(['CProject']);
		expect((await get('/Metadata')).data.scopes.CProject).toBeUndefined();
		expect((await get('/CProject')).status).toBe(403);
		sb.setDialect('standard');
		const none = await get('/Metadata');
		expect([none.status, none.headers['x-status-reason']]).toEqual([404, "Controller 'Metadata' does not exist."]);
		sb.setDialect('espocrm');
		expect((await post('/Auth', { grant_type: 'client_credentials' })).status).toBe(404);
	});
});

describe('faults and request log', () => {
	test('failNext with Retry-After, failEvery, dropNext, latency, request log', async () => {
		sb.faults.failNext({ count: 2, status: 429, retryAfter: 2, reason: 'slow down', method: 'GET', pathPrefix: '/Account' });
		const r1 = await get('/Account');
		expect([r1.status, r1.headers['retry-after'], r1.headers['x-status-reason']]).toEqual([429, '2', 'slow down']);
		expect((await get('/Contact')).status).toBe(200);
		expect((await get('/Account')).status).toBe(429);
		expect((await get('/Account')).status).toBe(200);

		sb.faults.failEvery({ every: 2, status: 503, times: 1 });
		expect([(await get('/Lead')).status, (await get('/Lead')).status, (await get('/Lead')).status, (await get('/Lead')).status]).toEqual([200, 503, 200, 200]);

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
		expect(sb.requests[0]).toMatchObject({ method: 'POST', path: '/Account', rawQuery: 'x[a][]=1', query: { x: { a: ['1'] } }, body: { name: 'Logged' }, status: 200 });
		expect(sb.requests[0].headers['x-api-key']).toBe(SANDBOX_CREDENTIALS.apiKey);
	});

	test('maxInFlight refuses at once and maxInFlightSeen counts', async () => {
		sb.faults.latencyMs = 100;
		await Promise.all(Array.from({ length: 6 }, () => get('/Contact')));
		expect(sb.maxInFlightSeen).toBe(6);
		sb.faults.maxInFlight = { limit: 3, status: 503, retryAfter: 1 };
		const statuses = (await Promise.all(Array.from({ length: 6 }, () => get('/Contact')))).map((r) => r.status).sort();
		expect(statuses).toEqual([200, 200, 200, 503, 503, 503]);
		expect(sb.requests.filter((r) => r.status === 503).every((r) => r.endedAt! - r.startedAt < 50)).toBe(true);
	});
});
