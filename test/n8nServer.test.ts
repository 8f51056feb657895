/**
 * The harness's calls to a running n8n (test/lib/n8n-server.js) wait out n8n not serving them: at a load of 8 to 9
 * on 2 cores n8n loses its database for a moment ("Database ping failed (1): Database connection timed out") and
 * answers every REST call with 503 "Database is not ready!" until it has reconnected. Checked against a small local
 * server that answers as n8n 2.41.1 does then.
 */
import { createServer } from 'http';
import type { IncomingMessage, Server, ServerResponse } from 'http';
import type { AddressInfo } from 'net';

interface Answer {
	status: number;
	text: string;
}

// Plain JavaScript of the repository's scripts, without type declarations: the part these tests use.
const n8nServer = require('./lib/n8n-server') as {
	login(baseUrl: string): Promise<{ cookie: string }>;
	activateWorkflow(
		baseUrl: string,
		cookie: string,
		id: string,
	): Promise<{ id: string; active: boolean }>;
	n8nRequest(
		method: string,
		url: string,
		options?: object,
		wait?: { timeoutMs?: number },
	): Promise<Answer>;
};

const NOT_READY = JSON.stringify({ code: 503, message: 'Database is not ready!' });

type Reply = 'notReady' | 'reset' | ((request: IncomingMessage, response: ServerResponse) => void);

/** A stand-in for n8n: each request of a route takes the next reply of its script; the last one repeats. */
async function fakeN8n(routes: Record<string, Reply[]>) {
	const served: string[] = [];
	const counts: Record<string, number> = {};
	const server: Server = createServer((request, response) => {
		const route = `${request.method} ${request.url}`;
		served.push(route);
		const script = routes[route];
		if (!script) {
			response.writeHead(404).end();
			return;
		}
		const reply = script[Math.min(counts[route] ?? 0, script.length - 1)];
		counts[route] = (counts[route] ?? 0) + 1;
		request.resume();
		request.on('end', () => {
			if (reply === 'notReady')
				response.writeHead(503, { 'content-type': 'application/json' }).end(NOT_READY);
			else if (reply === 'reset') request.socket.destroy();
			else reply(request, response);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		served,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

const json =
	(status: number, body: unknown, headers: Record<string, string> = {}) =>
	(_request: IncomingMessage, response: ServerResponse) =>
		response
			.writeHead(status, { 'content-type': 'application/json', ...headers })
			.end(JSON.stringify(body));

describe("the harness's calls to n8n", () => {
	let n8n: Awaited<ReturnType<typeof fakeN8n>> | undefined;
	afterEach(async () => {
		await n8n?.close();
		n8n = undefined;
	});

	test('a login answered 503 "Database is not ready!" twice is made again until n8n serves it', async () => {
		n8n = await fakeN8n({
			'POST /rest/login': [
				'notReady',
				'notReady',
				json(
					200,
					{ data: { id: 'owner' } },
					{ 'set-cookie': 'n8n-auth=session; Path=/; HttpOnly' },
				),
			],
		});

		const { cookie } = await n8nServer.login(n8n.baseUrl);

		expect(cookie).toBe('n8n-auth=session');
		expect(n8n.served).toEqual(['POST /rest/login', 'POST /rest/login', 'POST /rest/login']);
	});

	test('publishing a workflow waits through a 503 of its read and a reset connection of its activation', async () => {
		n8n = await fakeN8n({
			'GET /rest/workflows/wf1': ['notReady', json(200, { data: { id: 'wf1', versionId: 'v7' } })],
			'POST /rest/workflows/wf1/activate': [
				'reset',
				json(200, { data: { id: 'wf1', active: true } }),
			],
		});

		const published = await n8nServer.activateWorkflow(n8n.baseUrl, 'n8n-auth=session', 'wf1');

		expect(published).toEqual({ id: 'wf1', active: true });
		expect(n8n.served).toEqual([
			'GET /rest/workflows/wf1',
			'GET /rest/workflows/wf1',
			'POST /rest/workflows/wf1/activate',
			'POST /rest/workflows/wf1/activate',
		]);
	});

	test('any other answer is returned at once: a refused login is not tried again', async () => {
		n8n = await fakeN8n({
			'POST /rest/login': [json(401, { code: 401, message: 'Wrong username or password' })],
		});

		await expect(n8nServer.login(n8n.baseUrl)).rejects.toThrow(
			'n8n login as owner@example.com failed: 401 {"code":401,"message":"Wrong username or password"}',
		);
		expect(n8n.served).toEqual(['POST /rest/login']);
	});

	test('the wait is bounded: an n8n that stays unavailable fails the call with its last answer', async () => {
		n8n = await fakeN8n({ 'GET /rest/settings': ['notReady'] });

		await expect(
			n8nServer.n8nRequest('GET', `${n8n.baseUrl}/rest/settings`, {}, { timeoutMs: 1000 }),
		).rejects.toThrow(
			`waiting for n8n to serve GET ${n8n.baseUrl}/rest/settings (last error: 503 ${NOT_READY})`,
		);
		expect(n8n.served.length).toBeGreaterThan(1);
	});
});
