/**
 * Servers that misbehave as real deployments do: a redirect to another host (a proxy, a moved server, an attacker's
 * Location), a login page or a list where a record belongs, a huge answer, no answer at all. Every scheme, through
 * n8n's engine: no credential, token or signature reaches the other host, every answer is checked before it becomes
 * an item, memory and waits stay bounded.
 */
import type { IDataObject } from 'n8n-workflow';

import { loadFormList, testCredential } from './harness/engine';
import type { RunResult } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';
import type { Scheme } from './harness/sandboxRun';
import { startRecorder } from './sandbox';
import type { Recorder } from './sandbox';

const bed = useSandbox();
let recorder: Recorder;
// Another port on the sandbox's own host: another origin all the same.
let samePortlessHost: Recorder;

beforeAll(async () => {
	recorder = await startRecorder({ host: '127.0.0.2' });
	samePortlessHost = await startRecorder({ host: '127.0.0.1' });
});
afterAll(async () => {
	await recorder.close();
	await samePortlessHost.close();
});
beforeEach(() => {
	recorder.requests.length = 0;
	samePortlessHost.requests.length = 0;
	bed.sandbox.setDialect('both');
});

const SCHEMES: Array<[Scheme, 'standard' | 'espocrm']> = [
	['apiKey', 'standard'],
	['basic', 'espocrm'],
	['oAuth2ClientCredentials', 'standard'],
	['hmac', 'espocrm'],
];

/** Every secret of every scheme as it would travel: the values, the Basic pair, the bearer token (looked up later). */
const SECRET_VALUES = [
	'sandbox-api-key',
	'sandbox-password',
	'sandbox-client-secret',
	'sandbox-hmac-secret',
	'sandbox-hmac-key',
];

/** Everything the run left for the user, serialized (items, the error with its description, the run data). */
function everything(result: RunResult): string {
	const error = result.error as (Error & { description?: string }) | undefined;
	return JSON.stringify({
		items: result.items,
		error: error && { message: error.message, description: error.description },
		run: result.run.data.resultData,
	});
}

function expectNothingReached(listener: Recorder) {
	// Nothing at all: the node never follows a redirect to another origin.
	expect(listener.requests).toEqual([]);
}

function expectNoSecretIn(text: string) {
	for (const secret of [...SECRET_VALUES, Buffer.from('admin:sandbox-password').toString('base64')])
		expect(text).not.toContain(secret);
	const token = bed.store.get('rms').accessToken;
	if (typeof token === 'string' && token) expect(text).not.toContain(token);
}

const getContact = (id: string) => ({
	resource: 'record',
	operation: 'get',
	entityType: 'Contact',
	recordId: { __rl: true, mode: 'id', value: id },
});
const deleteContact = (id: string) => ({ ...getContact(id), operation: 'delete' });
const createContact = {
	resource: 'record',
	operation: 'create',
	entityType: 'Contact',
	fields: { lastName: 'Hostile' },
};
const listContacts = {
	resource: 'record',
	operation: 'getMany',
	entityType: 'Contact',
	returnAll: true,
};
const updateContact = (id: string) => ({
	...getContact(id),
	operation: 'update',
	fields: { lastName: 'Changed' },
});

describe('a redirect to another origin: nothing secret goes there, the error names where it pointed', () => {
	describe.each(SCHEMES)('%s (%s)', (scheme, server) => {
		beforeEach(() => {
			bed.sandbox.setDialect(server);
			bed.use(scheme, server);
		});

		test.each([301, 302, 303, 307, 308])(
			'Get (routed) redirected with %i to another host',
			async (status) => {
				const contact = bed.sandbox.store.create('Contact', { lastName: 'Kept' });
				bed.sandbox.faults.redirectNext({
					status,
					pathPrefix: '/Contact',
					location: `${recorder.origin}{url}`,
				});
				const result = await bed.run(getContact(contact.id));
				expectNothingReached(recorder);
				expect(result.error?.message).toBe(
					`The server redirected the request (${status}) to another address, ${recorder.origin}: the node did not follow and did not send the credentials there`,
				);
				expect(result.error?.description).toMatch(/Base URL/);
				// Sent once: no second request after a 401 from elsewhere, no resend.
				expect(bed.received().filter((request) => request.path !== '/Auth')).toHaveLength(1);
				expectNoSecretIn(everything(result));
			},
		);

		test.each([
			['Create', () => createContact, 'POST'],
			['Update', (id: string) => updateContact(id), 'PUT'],
			['Delete (routed)', (id: string) => deleteContact(id), 'DELETE'],
			['Get Many', () => listContacts, 'GET'],
		] as Array<[string, (id: string) => IDataObject, string]>)(
			'%s redirected with 307 to another port of the same host',
			async (_name, parameters, method) => {
				const contact = bed.sandbox.store.create('Contact', { lastName: 'Kept' });
				bed.sandbox.faults.redirectNext({
					status: 307,
					method,
					pathPrefix: '/Contact',
					location: `${samePortlessHost.origin}{url}`,
				});
				const result = await bed.run(parameters(contact.id), [{}], {
					onError: 'continueRegularOutput',
				});
				expectNothingReached(samePortlessHost);
				expect(result.json[0].error).toBeDefined();
				expect(result.items[0].error?.message).toContain(
					`to another address, ${samePortlessHost.origin}`,
				);
				expect(bed.sandbox.store.get('Contact', contact.id)?.lastName).toBe('Kept');
				expectNoSecretIn(everything(result));
			},
		);

		test('the credential test, redirected: an error naming the other origin, nothing sent there', async () => {
			bed.sandbox.faults.redirectNext({ count: 2, location: `${recorder.origin}{url}` });
			const result = await testCredential(bed.store);
			expectNothingReached(recorder);
			expect(result.status).toBe('Error');
			expect(result.message).toContain(`to another address, ${recorder.origin}`);
			expectNoSecretIn(result.message);
		});
	});

	test('OAuth: POST /Auth redirected with 307 does not post the client secret to the other host', async () => {
		bed.sandbox.setDialect('standard');
		bed.use('oAuth2ClientCredentials');
		bed.sandbox.faults.redirectNext({
			status: 307,
			method: 'POST',
			pathPrefix: '/Auth',
			location: `${recorder.origin}{url}`,
		});
		const result = await bed.run(getContact('any'));
		expectNothingReached(recorder);
		expect(result.error?.message).toBe(
			`POST /Auth: The server redirected the request (307) to another address, ${recorder.origin}: the node did not follow and did not send the credentials there. Check the Base URL of the credential.`,
		);
		expect(bed.received().map(({ method, path }) => `${method} ${path}`)).toEqual(['POST /Auth']);
		expectNoSecretIn(everything(result));
	});

	test('the redirect names the origin only, never the path or query it pointed to', async () => {
		bed.sandbox.faults.redirectNext({
			location: `${recorder.origin}/collect?token=leaked-looking-value`,
		});
		const result = await bed.run(getContact('any'));
		expect(everything(result)).not.toContain('leaked-looking-value');
		expect(everything(result)).not.toContain('/collect');
	});

	test('http:// to https:// on the same host is refused with the fix: https:// in the Base URL', async () => {
		const httpsOrigin = bed.sandbox.origin.replace(/^http:/, 'https:');
		bed.sandbox.faults.redirectNext({ status: 301, location: `${httpsOrigin}{url}` });
		const result = await bed.run(getContact('any'));
		expect(result.error?.message).toBe(
			`The server redirects http:// to https:// (301 to ${httpsOrigin}). Put ${httpsOrigin} in the credential's Base URL: the node does not follow, because the credentials were already sent unencrypted and would be sent again`,
		);
		expect(bed.received()).toHaveLength(1);
	});
});

describe('a redirect within the origin is followed, signed for where it leads', () => {
	test.each(SCHEMES)(
		'%s (%s): Get redirected to the same address answers the record',
		async (scheme, server) => {
			bed.sandbox.setDialect(server);
			bed.use(scheme, server);
			const contact = bed.sandbox.store.create('Contact', { lastName: 'Found' });
			bed.sandbox.faults.redirectNext({
				status: 301,
				pathPrefix: '/Contact',
				location: `${bed.sandbox.origin}{url}`,
			});
			const result = await bed.run(getContact(contact.id));
			expect(result.error).toBeUndefined();
			expect(result.json).toEqual([expect.objectContaining({ id: contact.id, lastName: 'Found' })]);
			const gets = bed.received('GET');
			expect(gets.map((request) => request.status)).toEqual([301, 200]);
			// The HMAC signature of the second request covers its path: the sandbox checks it.
		},
	);

	test('a Create redirected with 307 within the origin is posted there, once', async () => {
		bed.sandbox.faults.redirectNext({
			status: 307,
			method: 'POST',
			location: `${bed.sandbox.origin}{url}`,
		});
		const result = await bed.run(createContact);
		expect(result.error).toBeUndefined();
		expect(bed.received('POST').map((request) => request.status)).toEqual([307, 200]);
		expect(bed.sandbox.store.count('Contact')).toBe(1);
	});

	test('a Delete (routed) redirected with 307 within the origin is followed', async () => {
		const contact = bed.sandbox.store.create('Contact', { lastName: 'Gone' });
		bed.sandbox.faults.redirectNext({
			status: 307,
			method: 'DELETE',
			location: `${bed.sandbox.origin}{url}`,
		});
		const result = await bed.run(deleteContact(contact.id));
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([{ deleted: true }]);
		expect(bed.received('DELETE').map((request) => request.status)).toEqual([307, 200]);
	});

	test('a Create redirected with 302 is refused: following would turn it into a read and lose the change', async () => {
		bed.sandbox.faults.redirectNext({
			status: 302,
			method: 'POST',
			location: `${bed.sandbox.origin}{url}`,
		});
		const result = await bed.run(createContact);
		expect(result.error?.message).toBe(
			'The server redirected a POST request with 302, which would turn it into a read and drop the change: the node did not follow',
		);
		expect(bed.received()).toHaveLength(1);
	});
});

describe('an answer that is not what the operation reads is refused, saying what came back', () => {
	test.each(SCHEMES)(
		'%s (%s): a login page (HTML 200) on Get and on Create',
		async (scheme, server) => {
			bed.sandbox.setDialect(server);
			bed.use(scheme, server);
			const contact = bed.sandbox.store.create('Contact', { lastName: 'Kept' });
			bed.sandbox.faults.answerNext({ kind: 'html', method: 'GET', pathPrefix: '/Contact' });
			const get = await bed.run(getContact(contact.id));
			expect(get.error?.message).toBe(
				`The server's answer to GET /Contact/${contact.id} is not JSON: it sent a web page (text/html), beginning: <!DOCTYPE html> <html><head><title>Sign in</title></head><body><form method="post" action="/login"><input name="username"><input name="password" type="password"><button>Sign in</button></form></body><…`,
			);
			expect(get.error?.description).toMatch(/Base URL .* proxy, login page/);
			bed.sandbox.faults.answerNext({ kind: 'html', method: 'POST', pathPrefix: '/Contact' });
			const create = await bed.run(createContact, [{}, {}], { onError: 'continueRegularOutput' });
			// With Continue on fail the page is an error item, the other item is created.
			expect(create.items[0].error?.message).toMatch(
				/^The server's answer to POST \/Contact is not JSON: it sent a web page \(text\/html\)/,
			);
			expect(create.json[1]).toMatchObject({ lastName: 'Hostile', id: expect.any(String) });
			expectNoSecretIn(everything(get) + everything(create));
		},
	);

	test('a JSON list on Create is refused instead of becoming two "created" records', async () => {
		bed.sandbox.faults.answerNext({ kind: 'list', method: 'POST' });
		const result = await bed.run(createContact);
		expect(result.items).toHaveLength(0);
		expect(result.error?.message).toBe(
			'The server\'s answer to POST /Contact is not a record: it sent a JSON list of 2 (application/json), beginning: [{"id":"listed-1","name":"First"},{"id":"listed-2","name":"Second"}]',
		);
	});

	test('a JSON list on Get is refused', async () => {
		bed.sandbox.faults.answerNext({ kind: 'list', method: 'GET' });
		const result = await bed.run(getContact('any'));
		expect(result.items).toHaveLength(0);
		expect(result.error?.message).toMatch(
			/^The server's answer to GET \/Contact\/any is not a record: it sent a JSON list of 2/,
		);
	});

	test('a record where a list belongs (Get Many) is refused, not "list is not iterable"', async () => {
		bed.sandbox.faults.answerNext({ kind: 'record', method: 'GET' });
		const result = await bed.run(listContacts);
		expect(result.error?.message).toBe(
			'The server\'s answer to GET /Contact is not a list (it has no "list"): it sent JSON object (application/json), beginning: {"id":"single-1","name":"Single"}',
		);
	});

	test('what the page says is redacted: a proxy page that echoes the API key', async () => {
		bed.sandbox.faults.failNext({ status: 200, echoRequestHeaders: true });
		const result = await bed.run(getContact('any'));
		expect(result.error?.message).toMatch(
			/^The server's answer to GET \/Contact\/any is not a record \(it has no "id"\): it sent JSON object \(application\/json\), beginning: .*"X-Api-Key":"\[redacted\]"/i,
		);
		expectNoSecretIn(everything(result));
	});
});

describe('a huge answer is refused before it is read whole', () => {
	const HUGE = 512 * 1024 * 1024;

	test('with Content-Length: refused at once, before reading', async () => {
		bed.sandbox.faults.answerNext({ kind: 'huge', bytes: HUGE });
		const result = await bed.run(listContacts);
		expect(result.error?.message).toBe(
			"The server's answer to GET /Contact is larger than 16 MB: the node stopped reading it",
		);
		expect(result.error?.description).toMatch(/^The node reads answers of up to 16 MB/);
		const [request] = bed.received();
		expect(request.answerBytesSent).toBeLessThan(32 * 1024 * 1024);
	});

	test('Delete (routed): its answer, which the node does not use, is not read; the deletion is reported', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: 'Lovelace' });
		bed.sandbox.faults.answerNext({ kind: 'huge', bytes: HUGE, chunked: true, method: 'DELETE' });
		const result = await bed.run({
			resource: 'record',
			operation: 'delete',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'id', value: contact.id },
		});
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([{ deleted: true }]);
		expect(bed.received()[0].answerBytesSent).toBeLessThan(64 * 1024 * 1024);
	});

	test('a download is read up to 256 MB: a larger one is refused before reading', async () => {
		bed.sandbox.setDialect('espocrm');
		bed.use('apiKey', 'espocrm');
		bed.sandbox.faults.answerNext({
			kind: 'huge',
			bytes: 300 * 1024 * 1024,
			pathPrefix: '/Attachment',
		});
		const result = await bed.run({
			resource: 'attachment',
			operation: 'download',
			attachmentId: 'a1',
			binaryPropertyName: 'file',
		});
		expect(result.error?.message).toBe(
			"The server's answer to GET /Attachment/file/a1 is larger than 256 MB: the node stopped reading it",
		);
		expect(result.error?.description).toMatch(/^Downloads are read up to 256 MB/);
		expect(bed.received()[0].answerBytesSent).toBeLessThan(32 * 1024 * 1024);
	});

	test.each(['apiKey', 'hmac'] as Scheme[])(
		'%s: without Content-Length: reading stops at the bound, memory stays far below the answer',
		async (scheme) => {
			bed.use(scheme, scheme === 'hmac' ? 'espocrm' : 'standard');
			const before = process.memoryUsage();
			bed.sandbox.faults.answerNext({ kind: 'huge', bytes: HUGE, chunked: true });
			const result = await bed.run(getContact('any'));
			const after = process.memoryUsage();
			expect(result.error?.message).toBe(
				"The server's answer to GET /Contact/any is larger than 16 MB: the node stopped reading it",
			);
			// The server writes only as fast as the client reads: what left it is what n8n read, plus socket buffers.
			const [request] = bed.received();
			expect(request.answerBytesSent).toBeLessThan(64 * 1024 * 1024);
			// Held whole, 512 MB would take gigabytes (n8n's helper holds an answer about 8.5 times); a bound of 16 MB, not.
			const grown = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
			expect(grown).toBeLessThan(HUGE / 2);
		},
	);
});

describe('a huge token reply (POST /Auth) is not read whole either', () => {
	test('OAuth 2.0: reading stops at 64 KB; the error says so; nothing else is sent', async () => {
		bed.use('oAuth2ClientCredentials');
		bed.sandbox.faults.answerNext({
			kind: 'huge',
			bytes: 512 * 1024 * 1024,
			chunked: true,
			method: 'POST',
			pathPrefix: '/Auth',
		});
		const result = await bed.run(getContact('any'));
		expect(result.error?.message).toMatch(
			/The token reply of POST \/Auth is larger than 64 KB: the node stopped reading it/,
		);
		expect(bed.received().map((request) => request.path)).toEqual(['/Auth']);
		// The server writes only as fast as the client reads: what left it is what n8n read, plus socket buffers.
		expect(bed.received()[0].answerBytesSent).toBeLessThan(64 * 1024 * 1024);
		expectNoSecretIn(everything(result));
	});
});

describe('a server that never answers: the Timeout, one resend of a read at most', () => {
	test.each(SCHEMES)(
		'%s (%s): Get times out after 1 s, is sent twice, and says so',
		async (scheme, server) => {
			bed.sandbox.setDialect(server);
			bed.use(scheme, server);
			bed.sandbox.faults.answerNext({
				kind: 'silent',
				count: 10,
				method: 'GET',
				pathPrefix: '/Contact',
			});
			const result = await bed.run({
				...getContact('any'),
				requestSettings: { timeoutSeconds: 1 },
			});
			expect(result.error?.message).toBe('The server did not answer: timed out after 1 s');
			expect(result.error?.description).toMatch(
				/sent 2 times\. Raise "Timeout" under Request Settings/,
			);
			expect(
				bed.received('GET').filter((request) => request.path.startsWith('/Contact')),
			).toHaveLength(2);
		},
	);

	test('a Create that times out is not sent again', async () => {
		bed.sandbox.faults.answerNext({ kind: 'silent', count: 10, method: 'POST' });
		const result = await bed.run({ ...createContact, requestSettings: { timeoutSeconds: 1 } });
		expect(result.error?.message).toBe('The server did not answer: timed out after 1 s');
		expect(result.error?.description).toMatch(/not resent after a timeout/);
		expect(bed.received('POST')).toHaveLength(1);
	});

	test('Get Many times out too (a custom operation)', async () => {
		bed.sandbox.faults.answerNext({ kind: 'silent', count: 10, method: 'GET' });
		const result = await bed.run({
			...listContacts,
			requestSettings: { timeoutSeconds: 1, maxRetries: 5 },
		});
		expect(result.error?.message).toBe('The server did not answer: timed out after 1 s');
		expect(bed.received('GET')).toHaveLength(2);
	});
});

describe("a failure before any request is not worded as the server's", () => {
	test("n8n's database fails while loading the credential: n8n's failure, nothing sent", async () => {
		const get = jest.spyOn(bed.store, 'get').mockImplementation(() => {
			throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
		});
		try {
			const result = await bed.run(createContact);
			expect(result.error?.message).toBe(
				'n8n could not load the credential "Sandbox": nothing was sent to the server',
			);
			expect(result.error?.description).toMatch(
				/^n8n said: connect ECONNREFUSED 127\.0\.0\.1:5432\. This is n8n's own failure/,
			);
			expect(bed.received()).toHaveLength(0);
		} finally {
			get.mockRestore();
		}
	});
});

describe('e-mail addresses with a display name', () => {
	const email = (parameters: IDataObject) => ({
		resource: 'email',
		operation: 'send',
		subject: 'Hi',
		body: 'Hello',
		...parameters,
	});

	test('EspoCRM: "Name <address>" is sent as the address, the sender\'s name kept in fromString', async () => {
		bed.sandbox.setDialect('espocrm');
		bed.use('apiKey', 'espocrm');
		const result = await bed.run(
			email({
				to: 'Ann <ann@example.org>; "Doe, Bob" <bob@example.org>, carl@example.org',
				from: 'Sales Team <sales@example.com>',
				emailOptions: { cc: '"Dee \\"D\\" Dee" <dee@example.org>', attachments: '' },
			}),
		);
		expect(result.error).toBeUndefined();
		const [post] = bed.received('POST');
		expect(post.body).toMatchObject({
			to: 'ann@example.org;bob@example.org;carl@example.org',
			cc: 'dee@example.org',
			from: 'sales@example.com',
			fromString: '"Sales Team" <sales@example.com>',
		});
		expect(bed.sandbox.outbox[0]).toMatchObject({
			to: ['ann@example.org', 'bob@example.org', 'carl@example.org'],
			cc: ['dee@example.org'],
		});
	});

	test('Standard: the addresses only', async () => {
		bed.sandbox.setDialect('standard');
		const result = await bed.run(
			email({ to: 'Ann <ann@example.org>', from: 'Sales <sales@example.com>' }),
		);
		expect(result.error).toBeUndefined();
		const [post] = bed.received('POST');
		expect(post.body).toMatchObject({ to: 'ann@example.org', from: 'sales@example.com' });
		expect(post.body.fromString).toBeUndefined();
	});

	test.each([
		[
			'To',
			{ to: 'Ann <ann@example.org>\r\nBcc: spy@example.net' },
			'Ann <ann@example.org> Bcc: spy@example.net',
		],
		['To', { to: 'ann@example.org\nBcc: spy@example.net' }, 'ann@example.org Bcc: spy@example.net'],
		[
			'To',
			{ to: 'Ann\r\nBcc: spy@example.net <ann@example.org>' },
			'Ann Bcc: spy@example.net <ann@example.org>',
		],
		['To', { to: 'Ann <not-an-address>' }, 'Ann <not-an-address>'],
		[
			'To',
			{ to: 'Ann <ann@example.org> <bob@example.org>' },
			'Ann <ann@example.org> <bob@example.org>',
		],
		['To', { to: '"Unterminated <ann@example.org>' }, '"Unterminated <ann@example.org>'],
		['To', { to: 'Ann <ann@example.org' }, 'Ann <ann@example.org'],
	])('%s %j is refused before anything is sent', async (parameter, parameters, shown) => {
		const result = await bed.run(email({ from: 'me@example.com', ...parameters }));
		expect(result.error?.message).toBe(
			`The parameter "${parameter}" has "${shown}", which is not an e-mail address (item 0)`,
		);
		expect(bed.received()).toEqual([]);
	});

	test('From with two addresses is refused', async () => {
		const result = await bed.run(
			email({ to: 'ann@example.org', from: 'A <a@example.com>; b@example.com' }),
		);
		expect(result.error?.message).toBe('The parameter "From" has more than one address (item 0)');
		expect(bed.received()).toEqual([]);
	});
});

describe('what an answer echoes of the request is redacted, whole', () => {
	/** Every run of 8 characters of a secret: a part of one is a leak too. */
	function expectNoPartOf(secret: string, text: string) {
		for (let at = 0; at + 8 <= secret.length; at++)
			expect(text).not.toContain(secret.slice(at, at + 8));
	}

	test('a key that the 200 characters of the excerpt cut in two', async () => {
		// A key longer than the excerpt: wherever the echo puts it, the cut falls inside it.
		const longKey = `k3y-${'x7Qp'.repeat(80)}`;
		bed.use('apiKey', 'standard', { apiKey: longKey });
		bed.sandbox.faults.failNext({ status: 200, echoRequestHeaders: true });
		const result = await bed.run(getContact('any'));
		expect(result.error?.message).toMatch(/is not a record/);
		expectNoPartOf(longKey, everything(result));
	});

	test('HMAC: the X-Hmac-Authorization header of the request, which could be sent again', async () => {
		bed.sandbox.setDialect('espocrm');
		bed.use('hmac', 'espocrm');
		bed.sandbox.faults.failNext({ status: 200, echoRequestHeaders: true });
		const result = await bed.run(getContact('any'));
		expect(result.error?.message).toMatch(/is not a record/);
		const sent = bed.received()[0].headers['x-hmac-authorization'] as string;
		expect(sent).toBeTruthy();
		expectNoPartOf(sent, everything(result));
	});
});

describe("the form's lists are sent as every other request", () => {
	test('"From List" answered by a login page: refused, saying what came back (not a TypeError)', async () => {
		bed.sandbox.faults.answerNext({ kind: 'html', method: 'GET', pathPrefix: '/Contact' });
		await expect(
			loadFormList(bed.store, 'listSearch', 'searchRecords', {
				resource: 'record',
				operation: 'get',
				entityType: 'Contact',
			}),
		).rejects.toThrow(
			/^The server's answer to GET \/Contact is not JSON: it sent a web page \(text\/html\)/,
		);
	});

	test('the metadata of the field lists waits no longer than the Timeout', async () => {
		bed.sandbox.setDialect('espocrm');
		bed.use('apiKey', 'espocrm');
		bed.sandbox.faults.answerNext({
			kind: 'silent',
			method: 'GET',
			pathPrefix: '/Metadata',
			count: 5,
		});
		await expect(
			loadFormList(bed.store, 'loadOptions', 'getFields', {
				resource: 'record',
				operation: 'getMany',
				entityType: 'Contact',
				requestSettings: { timeoutSeconds: 1 },
			}),
		).rejects.toThrow(/timed out after 1 s/);
	});
});

describe('every write of the EspoCRM resources reads a record back', () => {
	test('Stream > Post answered with a JSON list: refused, not output as the note', async () => {
		bed.sandbox.setDialect('espocrm');
		bed.use('apiKey', 'espocrm');
		const contact = bed.sandbox.store.create('Contact', { firstName: 'Ann', lastName: 'Post' });
		bed.sandbox.faults.answerNext({ kind: 'list', method: 'POST', pathPrefix: '/Note' });
		const result = await bed.run({
			resource: 'stream',
			operation: 'post',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'id', value: contact.id },
			post: 'Signed.',
		});
		expect(result.error?.message).toMatch(
			/^The server's answer to POST \/Note is not a record: it sent a JSON list of 2/,
		);
	});
});
