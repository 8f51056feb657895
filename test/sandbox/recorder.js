// @ts-check
'use strict';

const http = require('node:http');

/**
 * A second listener that records everything it receives and answers 200 with JSON that looks like a record and a
 * list, so that a client which followed a redirect to it would take the answer. It stands for the other host a
 * proxy, a compromised server or a typo redirects to: tests assert that it received no request at all, or no secret.
 *
 * @typedef {{ method: string, url: string, headers: Record<string, string | string[] | undefined>, body: string }} RecorderRequest
 * @typedef {{ origin: string, requests: RecorderRequest[], close(): Promise<void> }} Recorder
 */

/** @param {{ host?: string, port?: number }} [options] @returns {Promise<Recorder>} */
async function startRecorder(options = {}) {
	/** @type {RecorderRequest[]} */
	const requests = [];
	const server = http.createServer((req, res) => {
		/** @type {Buffer[]} */
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			requests.push({
				method: String(req.method),
				url: String(req.url),
				headers: { ...req.headers },
				body: Buffer.concat(chunks).toString('utf8'),
			});
			const body = JSON.stringify({
				id: 'recorded',
				name: 'Recorded',
				list: [],
				total: 0,
				access_token: 'recorded-token',
			});
			res.writeHead(200, {
				'Content-Type': 'application/json',
				'Content-Length': Buffer.byteLength(body),
			});
			res.end(body);
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, options.host ?? '127.0.0.2', () => resolve(undefined));
	});
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	return {
		origin: `http://${address.address}:${address.port}`,
		requests,
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve(undefined));
				server.closeAllConnections();
			}),
	};
}

module.exports = { startRecorder };
