/**
 * The credential as n8n uses it: each scheme's headers as the sandbox receives them, the Base URL forms users
 * paste, the OAuth token shared by items and executions and renewed once when it stops working, clear errors,
 * and secrets that never reach output items or errors.
 */
import { createHmac } from 'crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject } from 'n8n-workflow';

import { testCredential } from './harness/engine';
import type { RunResult } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';
import type { Scheme } from './harness/sandboxRun';
import type { RecordedRequest } from './sandbox';

let onRequest: ((request: RecordedRequest) => void) | undefined;
const bed = useSandbox({ onRequest: (request) => onRequest?.(request) });

beforeEach(() => {
	onRequest = undefined;
	bed.sandbox.setDialect('both');
});

const SECRETS = [
	'sandbox-api-key',
	'sandbox-password',
	'sandbox-client-secret',
	'sandbox-hmac-secret',
];

const getContact = (id: string) => ({
	resource: 'record',
	operation: 'get',
	entityType: 'Contact',
	recordId: { __rl: true, mode: 'id', value: id },
});

const getEachContact = {
	...getContact(''),
	recordId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
};

function contacts(count: number) {
	return Array.from({ length: count }, (_, i) =>
		bed.sandbox.store.create('Contact', { firstName: 'N', lastName: `C${i}` }),
	);
}

/** Everything a run leaves behind for the user: output items, the node's error and the run data, serialized. */
function everything(result: RunResult): string {
	const seen = new WeakSet<object>();
	const walk = (value: unknown, depth: number): unknown => {
		if (value === null || typeof value !== 'object') return value;
		if (seen.has(value) || depth > 12) return '[seen]';
		seen.add(value);
		if (Array.isArray(value)) return value.map((entry) => walk(entry, depth + 1));
		const out: Record<string, unknown> = {};
		// Own properties, non-enumerable ones (message, stack, cause) included.
		for (const key of Object.getOwnPropertyNames(value)) {
			out[key] = walk((value as Record<string, unknown>)[key], depth + 1);
		}
		return out;
	};
	return JSON.stringify(
		walk({ items: result.items, error: result.error, runData: result.run.data.resultData }, 0),
	);
}

function bearerOf(request: RecordedRequest) {
	return /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
}

describe('headers of each scheme, as the sandbox receives them', () => {
	test('API key: X-Api-Key and nothing else', async () => {
		const [contact] = contacts(1);
		const result = await bed.run(getContact(contact.id));
		expect(result.error).toBeUndefined();
		expect(result.json[0]).toMatchObject({ id: contact.id });
		const [request] = bed.received();
		expect(request.headers['x-api-key']).toBe('sandbox-api-key');
		expect(request.headers.authorization).toBeUndefined();
		expect(request.headers['espo-authorization']).toBeUndefined();
	});

	test.each(['standard', 'espocrm'] as const)(
		'Basic with server %s: Authorization, and Espo-Authorization for EspoCRM only',
		async (server) => {
			bed.sandbox.setDialect(server);
			bed.use('basic', server);
			const [contact] = contacts(1);
			const result = await bed.run(getContact(contact.id));
			expect(result.error).toBeUndefined();
			const pair = Buffer.from('admin:sandbox-password').toString('base64');
			const [request] = bed.received();
			expect(request.status).toBe(200);
			expect(request.headers.authorization).toBe(`Basic ${pair}`);
			expect(request.headers['espo-authorization']).toBe(server === 'espocrm' ? pair : undefined);
			expect(request.headers['x-api-key']).toBeUndefined();
		},
	);

	test('OAuth 2.0: POST /Auth with the client credentials as JSON, then Bearer', async () => {
		bed.sandbox.setDialect('standard');
		bed.use('oAuth2ClientCredentials');
		const [contact] = contacts(1);
		const result = await bed.run(getContact(contact.id));
		expect(result.error).toBeUndefined();
		const [auth, get] = bed.received();
		expect(bed.received()).toHaveLength(2);
		expect(auth).toMatchObject({ method: 'POST', path: '/Auth', status: 200 });
		expect(auth.headers['content-type']).toMatch(/application\/json/);
		expect(auth.body).toEqual({
			grant_type: 'client_credentials',
			client_id: expect.stringMatching(/^sandbox-client-\d+$/),
			client_secret: 'sandbox-client-secret',
		});
		expect(auth.headers.authorization).toBeUndefined();
		expect(get).toMatchObject({ method: 'GET', path: `/Contact/${contact.id}`, status: 200 });
		const token = bed.store.get('rms').accessToken;
		expect(typeof token).toBe('string');
		expect(bearerOf(get)).toBe(token);
	});

	test('HMAC: X-Hmac-Authorization = base64(apiKey:rawHmacSha256(secret, "METHOD /path")), query excluded', async () => {
		bed.sandbox.setDialect('espocrm');
		bed.use('hmac', 'espocrm');
		contacts(2);
		const list = await bed.run({
			resource: 'record',
			operation: 'getMany',
			entityType: 'Contact',
			returnAll: false,
			limit: 1,
		});
		expect(list.error).toBeUndefined();
		const created = await bed.run({
			resource: 'record',
			operation: 'create',
			entityType: 'Contact',
			fields: { lastName: 'Signed' },
		});
		expect(created.error).toBeUndefined();
		const sign = (what: string) =>
			Buffer.concat([
				Buffer.from('sandbox-hmac-key:'),
				createHmac('sha256', 'sandbox-hmac-secret').update(what).digest(),
			]).toString('base64');
		const [get, post] = bed.received();
		expect(get).toMatchObject({ method: 'GET', path: '/Contact', status: 200 });
		expect(get.rawQuery).not.toBe('');
		expect(get.headers['x-hmac-authorization']).toBe(sign('GET /Contact'));
		expect(post).toMatchObject({ method: 'POST', path: '/Contact', status: 200 });
		expect(post.headers['x-hmac-authorization']).toBe(sign('POST /Contact'));
		expect(get.headers['x-api-key']).toBeUndefined();
	});
});

describe('Base URL', () => {
	test.each(['', '/', '/api/v1', '/api/v1/'])('origin + "%s" reaches /api/v1', async (suffix) => {
		bed.use('apiKey', 'standard', { baseUrl: `${bed.sandbox.origin}${suffix}` });
		const [contact] = contacts(1);
		const result = await bed.run(getContact(contact.id));
		expect(result.error).toBeUndefined();
		expect(result.json[0]).toMatchObject({ id: contact.id });
		const [request] = bed.received();
		// The sandbox strips /api/v1 from the path only when the request was under it.
		expect(request.path).toBe(`/Contact/${contact.id}`);
		expect(request.status).toBe(200);
	});

	test('ftp://x fails at once with a message about the Base URL, without a request', async () => {
		bed.use('apiKey', 'standard', { baseUrl: 'ftp://x' });
		const started = Date.now();
		const result = await bed.run(getContact('abc'));
		expect(result.error).toBeDefined();
		expect(`${result.error?.message} ${result.error?.description}`).toContain(
			'Base URL must start with http:// or https://',
		);
		expect(bed.received()).toEqual([]);
		// Not resent as if the server were unreachable.
		expect(Date.now() - started).toBeLessThan(2000);
	});
});

describe('OAuth 2.0 token', () => {
	beforeEach(() => {
		bed.sandbox.setDialect('standard');
		bed.use('oAuth2ClientCredentials');
	});

	test('20 items and 3 more runs share ONE token, stored in the credential', async () => {
		const records = contacts(20);
		const items = records.map((record) => ({ id: record.id }));
		const first = await bed.run(getEachContact, items);
		expect(first.error).toBeUndefined();
		expect(first.json.map((json) => json.id)).toEqual(records.map((record) => record.id));
		for (let run = 0; run < 3; run++) {
			const again = await bed.run(getEachContact, items.slice(0, 5));
			expect(again.error).toBeUndefined();
			expect(again.json).toHaveLength(5);
		}
		expect(bed.sandbox.tokensIssued).toBe(1);
		expect(bed.received('POST').map((r) => r.path)).toEqual(['/Auth']);
		const token = bed.store.get('rms').accessToken;
		const gets = bed.received('GET');
		expect(gets).toHaveLength(35);
		expect(gets.every((request) => request.status === 200 && bearerOf(request) === token)).toBe(
			true,
		);
	});

	test('a token that stops working between runs is renewed once; every item succeeds', async () => {
		const records = contacts(20);
		const items = records.map((record) => ({ id: record.id }));
		expect((await bed.run(getEachContact, items.slice(0, 2))).error).toBeUndefined();
		const oldToken = bed.store.get('rms').accessToken;
		bed.sandbox.expireTokens();
		bed.sandbox.clearRequests();

		const result = await bed.run(getEachContact, items);
		expect(result.error).toBeUndefined();
		expect(result.json.map((json) => json.id)).toEqual(records.map((record) => record.id));
		expect(bed.sandbox.tokensIssued).toBe(2);
		expect(bed.received('POST').map((r) => r.path)).toEqual(['/Auth']);
		const newToken = bed.store.get('rms').accessToken;
		expect(newToken).not.toBe(oldToken);
		const refused = bed.received('GET').filter((request) => request.status === 401);
		expect(refused).toHaveLength(1);
		expect(bed.received('GET').filter((request) => request.status === 200)).toHaveLength(20);
	});

	test('a token that stops working in the middle of a run (requests in flight) is renewed once; no item is lost', async () => {
		const records = contacts(20);
		const items = records.map((record) => ({ id: record.id }));
		bed.sandbox.faults.latencyMs = 20;
		let answered = 0;
		onRequest = (request) => {
			if (request.method === 'GET' && request.status === 200 && ++answered === 6)
				bed.sandbox.expireTokens();
		};
		const result = await bed.run(getEachContact, items);
		expect(result.error).toBeUndefined();
		expect(result.json.map((json) => json.id)).toEqual(records.map((record) => record.id));
		expect(bed.received('POST').map((r) => r.path)).toEqual(['/Auth', '/Auth']);
		expect(bed.sandbox.tokensIssued).toBe(2);
		expect(bed.received('GET').filter((request) => request.status === 200)).toHaveLength(20);
		// Several requests were in flight with the old token when it stopped working.
		expect(bed.received('GET').filter((request) => request.status === 401).length).toBeGreaterThan(
			1,
		);
		expect(bearerOf(bed.received('GET').at(-1)!)).toBe(bed.store.get('rms').accessToken);
	});

	test('a wrong client secret fails clearly, after a few requests, without a loop', async () => {
		bed.use('oAuth2ClientCredentials', 'standard', { clientSecret: 'wrong-client-secret' });
		const records = contacts(10);
		const result = await bed.run(
			getEachContact,
			records.map((record) => ({ id: record.id })),
		);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.httpCode).toBe('401');
		expect(result.error?.message).toMatch(/did not accept the credentials/);
		expect(result.error?.description).toMatch(/client ID and secret/);
		expect(bed.received().length).toBeLessThanOrEqual(3);
		expect(bed.received('GET')).toEqual([]);
		expect(bed.sandbox.tokensIssued).toBe(0);
	});

	test('a token reply without access_token is an error naming the field', async () => {
		bed.sandbox.faults.failNext({
			method: 'POST',
			pathPrefix: '/Auth',
			status: 200,
			body: { token_type: 'Bearer' },
			count: 20,
		});
		const [contact] = contacts(1);
		// No resends, to keep this quick: the Base URL test above shows the resending of such errors.
		const result = await bed.run({ ...getContact(contact.id), requestSettings: { maxRetries: 0 } });
		expect(result.error).toBeDefined();
		expect(`${result.error?.message} ${result.error?.description}`).toContain('access_token');
		expect(bed.received('GET')).toEqual([]);
		expect(bed.received('POST').length).toBeLessThanOrEqual(2);
	});
});

describe('refused credentials', () => {
	test.each([
		['apiKey', { apiKey: 'wrong-api-key' }],
		['basic', { password: 'wrong-password' }],
		['hmac', { secretKey: 'wrong-hmac-secret' }],
	] as Array<[Scheme, IDataObject]>)(
		'%s: NodeApiError 401 that says to check the credential',
		async (scheme, wrong) => {
			bed.use(scheme, 'standard', wrong);
			const [contact] = contacts(1);
			const result = await bed.run(getContact(contact.id));
			expect(result.error?.name).toBe('NodeApiError');
			expect(result.error?.httpCode).toBe('401');
			expect(result.error?.message).toContain('(401)');
			expect(result.error?.description).toMatch(
				/Check the authentication settings of the credential/,
			);
			// n8n-core resends a request once after a 401 (after preAuthentication), whatever the credential type.
			expect(bed.received().length).toBeGreaterThanOrEqual(1);
			expect(bed.received().length).toBeLessThanOrEqual(2);
			expect(bed.received().every((request) => request.status === 401)).toBe(true);
		},
	);
});

describe('secrets never reach output items or errors', () => {
	const schemes: Array<[Scheme, IDataObject]> = [
		['apiKey', { apiKey: 'wrong-api-key' }],
		['basic', { password: 'wrong-password' }],
		['oAuth2ClientCredentials', { clientSecret: 'wrong-client-secret' }],
		['hmac', { secretKey: 'wrong-hmac-secret' }],
	];

	test.each(schemes)(
		'%s: success, a failed request and refused credentials',
		async (scheme, wrong) => {
			const [contact] = contacts(1);
			const texts: string[] = [];
			bed.use(scheme, 'standard');
			const ok = await bed.run(getContact(contact.id));
			expect(ok.error).toBeUndefined();
			texts.push(everything(ok));
			const token = bed.store.get('rms').accessToken as string;
			if (scheme === 'oAuth2ClientCredentials') expect(token).not.toBe('');

			const missing = await bed.run(getContact('missing'));
			expect(missing.error?.httpCode).toBe('404');
			texts.push(everything(missing));
			const missingContinued = await bed.run(getContact('missing'), [{}], {
				onError: 'continueRegularOutput',
			});
			expect(missingContinued.json[0].error).toBeDefined();
			texts.push(everything(missingContinued));

			bed.use(scheme, 'standard', wrong);
			const refused = await bed.run(getContact(contact.id));
			expect(refused.error?.httpCode).toBe('401');
			texts.push(everything(refused));
			const refusedContinued = await bed.run(getContact(contact.id), [{}], {
				onError: 'continueRegularOutput',
			});
			expect(refusedContinued.json[0].error).toBeDefined();
			texts.push(everything(refusedContinued));

			const secrets = [...SECRETS, ...Object.values(wrong).map(String), ...(token ? [token] : [])];
			for (const text of texts) {
				for (const secret of secrets) expect(text).not.toContain(secret);
			}
		},
	);

	const everyScheme: Array<[Scheme, 'standard' | 'espocrm']> = [
		['apiKey', 'standard'],
		['basic', 'espocrm'],
		['oAuth2ClientCredentials', 'standard'],
		['hmac', 'espocrm'],
	];

	test.each(everyScheme)(
		'%s (%s): a proxy that echoes the request headers into its reason and body has every credential value and header redacted',
		async (scheme, server) => {
			bed.sandbox.setDialect(server);
			bed.use(scheme, server);
			const [contact] = contacts(1);
			// A misconfigured proxy: 502 with the request's headers in X-Status-Reason and in the JSON body.
			bed.sandbox.faults.failNext({
				status: 502,
				count: 2,
				echoRequestHeaders: true,
				pathPrefix: `/Contact/${contact.id}`,
			});
			const parameters = { ...getContact(contact.id), requestSettings: { maxRetries: 0 } };
			const failed = await bed.run(parameters);
			const continued = await bed.run(parameters, [{}], { onError: 'continueRegularOutput' });
			const [echoed] = bed.received('GET').filter((request) => request.status === 502);
			// What the request carried, as the proxy saw it: every authentication header value.
			const sent = ['authorization', 'x-api-key', 'espo-authorization', 'x-hmac-authorization']
				.map((name) => echoed.headers[name])
				.filter((value): value is string => typeof value === 'string')
				.flatMap((value) => [value, value.replace(/^(Bearer|Basic)\s+/i, '')]);
			expect(sent.length).toBeGreaterThan(0);
			expect(failed.error?.httpCode).toBe('502');
			expect(failed.error?.message).toContain('[redacted]');
			const token = bed.store.get('rms').accessToken as string;
			expect(continued.json[0].error).toBeDefined();
			for (const text of [everything(failed), everything(continued)]) {
				for (const secret of [...SECRETS, ...sent, ...(token ? [token] : [])])
					expect(text).not.toContain(secret);
			}
		},
	);
});

describe('the credential test (the Test button, and Save), as n8n runs it', () => {
	const everyScheme: Scheme[] = ['apiKey', 'basic', 'oAuth2ClientCredentials', 'hmac'];
	const everyCombination = everyScheme.flatMap((scheme) =>
		(['standard', 'espocrm'] as const)
			// EspoCRM has no token endpoint, and HMAC is EspoCRM's own scheme.
			.filter((server) =>
				scheme === 'oAuth2ClientCredentials'
					? server === 'standard'
					: scheme === 'hmac'
						? server === 'espocrm'
						: true,
			)
			.map(
				(server) =>
					[scheme, server, server === 'espocrm' ? '/App/user' : '/Contact'] as [
						Scheme,
						'standard' | 'espocrm',
						string,
					],
			),
	);

	test.each(everyCombination)(
		'%s on a %s server: succeeds with one request to GET %s, signed as every request is',
		async (scheme, server, path) => {
			bed.sandbox.setDialect(server);
			bed.use(scheme, server);
			expect(await testCredential(bed.store)).toEqual({
				status: 'OK',
				message: 'Connection successful',
			});
			const requests = bed.received().filter((request) => request.path !== '/Auth');
			expect(requests).toHaveLength(1);
			expect(requests[0]).toMatchObject({ method: 'GET', path, status: 200 });
			if (scheme === 'oAuth2ClientCredentials') expect(bed.sandbox.tokensIssued).toBe(1);
		},
	);

	test.each([
		['apiKey', 'standard', { apiKey: 'wrong-api-key' }],
		['apiKey', 'espocrm', { apiKey: 'wrong-api-key' }],
		['basic', 'standard', { password: 'wrong-password' }],
		['basic', 'espocrm', { password: 'wrong-password' }],
		['hmac', 'espocrm', { secretKey: 'wrong-hmac-secret' }],
	] as Array<[Scheme, 'standard' | 'espocrm', IDataObject]>)(
		'%s on a %s server, refused: the message says so, in one request, without the secret',
		async (scheme, server, wrong) => {
			bed.sandbox.setDialect(server);
			bed.use(scheme, server, wrong);
			const outcome = await testCredential(bed.store);
			expect(outcome).toEqual({
				status: 'Error',
				message: expect.stringMatching(/^The server refused these credentials \(401\)/),
			});
			for (const secret of Object.values(wrong))
				expect(outcome.message).not.toContain(String(secret));
			// One failed login, not two: EspoCRM blocks an address after 10 a minute.
			expect(bed.received()).toHaveLength(1);
		},
	);

	test('a wrong client secret: the token request is refused and the message says so', async () => {
		bed.sandbox.setDialect('standard');
		bed.use('oAuth2ClientCredentials', 'standard', { clientSecret: 'wrong-secret' });
		const outcome = await testCredential(bed.store);
		expect(outcome).toEqual({
			status: 'Error',
			message: 'The server refused the client ID or secret (POST /Auth answered 401).',
		});
		expect(bed.received().map((request) => request.path)).toEqual(['/Auth']);
	});

	test('OAuth against EspoCRM, which has no token endpoint, says to use API Key or HMAC', async () => {
		bed.sandbox.setDialect('espocrm');
		bed.use('oAuth2ClientCredentials', 'standard');
		expect((await testCredential(bed.store)).message).toMatch(
			/no token endpoint .*\/api\/v1\/Auth \(404\)\. EspoCRM has none: use API Key, HMAC or Basic/,
		);
	});

	test('a Base URL where nothing of the interface answers: the message points at the Base URL and the Server setting', async () => {
		bed.sandbox.setDialect('espocrm');
		bed.use('apiKey', 'espocrm', { baseUrl: `${bed.sandbox.origin}/crm` });
		const outcome = await testCredential(bed.store);
		expect(outcome.status).toBe('Error');
		expect(outcome.message).toContain(
			`Nothing answers at ${bed.sandbox.origin}/crm/api/v1/App/user (404)`,
		);
	});

	/** A server of its own for one test: a catch-all web page, or a port that accepts and never answers. */
	async function withServer(handler: http.RequestListener, run: (origin: string) => Promise<void>) {
		const server = http.createServer(handler);
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
		} finally {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		}
	}

	test.each(['standard', 'espocrm'] as const)(
		'a Base URL that answers 200 with a web page (%s) is not the API',
		async (server) => {
			await withServer(
				(_request, response) => {
					response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
					response.end('<!doctype html><html><body>Welcome</body></html>');
				},
				async (origin) => {
					bed.use('apiKey', server, { baseUrl: origin });
					const outcome = await testCredential(bed.store);
					expect(outcome).toEqual({
						status: 'Error',
						message: expect.stringContaining(
							'answers, but not as the API does (text/html: a web page)',
						),
					});
				},
			);
		},
	);

	test('a refused connection names the address and port and what to check', async () => {
		bed.use('apiKey', 'standard', { baseUrl: 'http://127.0.0.1:9' });
		expect(await testCredential(bed.store)).toEqual({
			status: 'Error',
			message:
				'Nothing accepts connections at 127.0.0.1:9 (connection refused). Check the address and port in the Base URL, and that the server is running.',
		});
	});

	test('an unknown host name says so', async () => {
		bed.use('apiKey', 'standard', { baseUrl: 'https://no-such-host.invalid' });
		expect((await testCredential(bed.store)).message).toMatch(
			/^The host name "no-such-host.invalid" could not be found \((ENOTFOUND|EAI_AGAIN)\)/,
		);
	});

	test('https:// to a port that speaks plain HTTP is a TLS problem, with what to try', async () => {
		const origin = bed.sandbox.origin.replace('http://', 'https://');
		bed.use('apiKey', 'standard', { baseUrl: origin });
		const outcome = await testCredential(bed.store);
		expect(outcome.message).toMatch(
			/^The secure \(HTTPS\) connection to 127\.0\.0\.1:\d+ failed \(the port does not speak HTTPS\)\. .*turn on "Ignore SSL Issues".*use http:\/\//,
		);
	});

	test('a server that never answers times out with a message about firewalls and ports', async () => {
		await withServer(
			() => {
				// Accepts the connection and says nothing.
			},
			async (origin) => {
				bed.use('apiKey', 'standard', { baseUrl: origin });
				const outcome = await testCredential(bed.store);
				expect(outcome.message).toMatch(
					/^No answer from 127\.0\.0\.1:\d+ within 15 seconds .*firewall/,
				);
			},
		);
	}, 30_000);
});

describe('a token endpoint that answers {} (a tiny server of its own)', () => {
	let server: http.Server;
	let origin: string;
	const seen: string[] = [];
	beforeAll(async () => {
		server = http.createServer((req, res) => {
			seen.push(`${req.method} ${req.url}`);
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(req.url === '/api/v1/Auth' ? '{}' : '{"id":"x"}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		await new Promise((resolve) => server.close(resolve));
	});

	test('the error names access_token and nothing but POST /Auth is sent', async () => {
		seen.length = 0;
		bed.use('oAuth2ClientCredentials', 'standard', { baseUrl: origin });
		const result = await bed.run({ ...getContact('x'), requestSettings: { maxRetries: 0 } });
		expect(result.error).toBeDefined();
		expect(`${result.error?.message} ${result.error?.description}`).toContain('access_token');
		expect(seen.every((line) => line === 'POST /api/v1/Auth')).toBe(true);
		expect(seen.length).toBeGreaterThanOrEqual(1);
		expect(seen.length).toBeLessThanOrEqual(2);
		expect(everything(result)).not.toContain('sandbox-client-secret');
	});
});
