'use strict';
/**
 * Every scheme, in the real n8n: the sandbox redirects each node's first request (307) to a second listener on another
 * host. n8n's own helper would follow with X-Api-Key, Authorization, the HMAC header, a re-posted client secret; the
 * node follows no redirect to another origin, sends nothing there, and each node's error names the origin.
 */
const { startRecorder } = require('../../sandbox');

const NODES = ['Get (API key)', 'Create (Basic)', 'Get Many (OAuth)', 'Get (HMAC)'];

module.exports = async (result, sandbox, assert) => {
	const { recorder } = sandbox.state;
	sandbox.faults.clear();
	try {
		assert.deepEqual(recorder.requests, [], 'the other host received nothing');
		assert.equal(
			sandbox.requests.length,
			NODES.length,
			'one request per node: nothing resent after the redirect',
		);
		assert.ok(sandbox.requests.every((r) => r.status === 307));
		for (const name of NODES) {
			const [item] = result.items(name);
			assert.equal(result.error(name), undefined, `${name}: continued`);
			assert.match(
				String(item.error),
				new RegExp(
					`redirected the request \\(307\\) to another address, ${recorder.origin.replace(/\./g, '\\.')}`,
				),
				name,
			);
		}
		const saved = JSON.stringify(result);
		for (const secret of [
			'sandbox-api-key',
			'sandbox-password',
			'sandbox-client-secret',
			'sandbox-hmac-secret',
		]) {
			assert.ok(!saved.includes(secret), `no ${secret} in the run data`);
		}
	} finally {
		await recorder.close();
	}
};

module.exports.before = async (sandbox) => {
	sandbox.state.recorder = await startRecorder({ host: '127.0.0.2' });
	sandbox.faults.redirectNext({
		count: NODES.length,
		status: 307,
		location: `${sandbox.state.recorder.origin}{url}`,
	});
};
