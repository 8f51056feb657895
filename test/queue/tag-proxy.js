'use strict';
/*
 * Which n8n process sent a request? Each process gets HTTP_PROXY pointing at its own tag proxy (in the runner's
 * process); the proxy forwards every plain-HTTP request unchanged to its target and adds one header,
 * `x-rms-queue-process: <name>`, which the sandbox records with the request (sandbox.requests[i].headers).
 *
 * n8n 2.41.1 routes the requests of nodes through the proxy named by HTTP_PROXY (@n8n/backend-network installs a
 * global proxy agent when a *_PROXY variable is set, and axios requests resolve the environment proxy per URL).
 * Only http:// targets are forwarded (CONNECT is refused): the sandbox speaks plain HTTP.
 * A lost connection on either side is passed on as a lost connection, so the node sees what it would see directly.
 */

const http = require('http');

const TAG_HEADER = 'x-rms-queue-process';

/**
 * Starts a tag proxy on 127.0.0.1:<free port>. Resolves { url, port, name, requests (count), close() }.
 * @param {string} name the value of the x-rms-queue-process header
 */
function startTagProxy(name) {
	const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
	const sockets = new Set();
	const state = { requests: 0, errors: 0 };
	const server = http.createServer((req, res) => {
		state.requests++;
		let target;
		try {
			target = new URL(req.url);
		} catch {
			res.writeHead(400, { 'content-type': 'text/plain' });
			res.end('tag proxy: absolute http:// URL expected');
			return;
		}
		if (target.protocol !== 'http:') {
			res.writeHead(400, { 'content-type': 'text/plain' });
			res.end('tag proxy: only http:// targets');
			return;
		}
		const headers = { ...req.headers };
		delete headers['proxy-connection'];
		delete headers['proxy-authorization'];
		headers[TAG_HEADER] = name;
		const up = http.request(
			{
				host: target.hostname.replace(/^\[|\]$/g, ''),
				port: target.port || 80,
				method: req.method,
				path: `${target.pathname}${target.search}`,
				headers,
				agent,
			},
			(upRes) => {
				res.writeHead(upRes.statusCode, upRes.statusMessage, upRes.rawHeaders);
				upRes.pipe(res);
				upRes.on('error', () => res.destroy());
			},
		);
		up.on('error', () => {
			// the target dropped the connection (or is gone): drop ours too
			state.errors++;
			res.destroy();
		});
		req.on('error', () => up.destroy());
		req.pipe(up);
	});
	server.on('connect', (req, socket) => {
		socket.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
	});
	server.on('connection', (s) => {
		sockets.add(s);
		s.on('close', () => sockets.delete(s));
	});
	server.keepAliveTimeout = 5000;
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			resolve({
				name,
				port,
				url: `http://127.0.0.1:${port}`,
				get requests() {
					return state.requests;
				},
				get errors() {
					return state.errors;
				},
				close: () =>
					new Promise((r) => {
						server.close(() => r());
						for (const s of sockets) s.destroy();
						agent.destroy();
					}),
			});
		});
	});
}

/** Environment that sends a process's plain-HTTP requests through `proxy` (and nothing else through any proxy). */
function proxyEnv(env, proxy) {
	const e = { ...env };
	for (const k of Object.keys(e)) if (/^(https?|all|no)_proxy$/i.test(k)) delete e[k];
	e.HTTP_PROXY = proxy.url;
	e.http_proxy = proxy.url;
	return e;
}

module.exports = { startTagProxy, proxyEnv, TAG_HEADER };
