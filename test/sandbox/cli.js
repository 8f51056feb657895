#!/usr/bin/env node
// @ts-check
'use strict';

/**
 * Standalone sandbox (`npm run sandbox`, and `npm run dev`): seeded, no failed-login lock-out, one log line per
 * request, webhooks delivered (webhooks.deliver()) every SANDBOX_WEBHOOK_INTERVAL_MS (default 5000; 0 turns it off), as
 * EspoCRM's cron runs its webhook job.
 */
const { startSandbox, SANDBOX_CREDENTIALS } = require('./server');
const { SANDBOX_USERS } = require('./users');
const { DEV_SANDBOX_OPTIONS } = require('./index');

async function main() {
	const port = Number(process.env.SANDBOX_PORT || 8787);
	const dialect = /** @type {any} */ (process.env.SANDBOX_DIALECT || DEV_SANDBOX_OPTIONS.dialect);
	const host = process.env.SANDBOX_HOST || '127.0.0.1';
	const intervalEnv = process.env.SANDBOX_WEBHOOK_INTERVAL_MS;
	const webhookDeliveryIntervalMs =
		intervalEnv === undefined || intervalEnv === '' ? 5000 : Number(intervalEnv);
	if (!Number.isFinite(webhookDeliveryIntervalMs) || webhookDeliveryIntervalMs < 0) {
		throw new Error(
			`SANDBOX_WEBHOOK_INTERVAL_MS must be a number of milliseconds >= 0, not '${intervalEnv}'`,
		);
	}
	const sandbox = await startSandbox({
		...DEV_SANDBOX_OPTIONS,
		port,
		host,
		dialect,
		webhookDeliveryIntervalMs,
		onRequest: (r) => {
			const ms = r.endedAt !== null ? Math.round(r.endedAt - r.startedAt) : 0;
			process.stdout.write(
				`${r.method} ${r.path}${r.rawQuery ? `?${decodeSafe(r.rawQuery)}` : ''} ${r.status} ${ms}ms\n`,
			);
		},
	});
	process.stdout.write(
		`Sandbox (${sandbox.dialect} dialect) listening on ${sandbox.baseUrl}\n` +
			`  API key:          X-Api-Key: ${SANDBOX_CREDENTIALS.apiKey}  (API user ${SANDBOX_USERS.apiKey.id})\n` +
			`  Basic:            ${SANDBOX_CREDENTIALS.username} / ${SANDBOX_CREDENTIALS.password}  (admin, user ${SANDBOX_USERS.admin.id})\n` +
			`  HMAC:             key ${SANDBOX_CREDENTIALS.hmacApiKey}, secret ${SANDBOX_CREDENTIALS.hmacSecret}  (API user ${SANDBOX_USERS.hmac.id})\n` +
			`  OAuth (POST /Auth): client ${SANDBOX_CREDENTIALS.clientId}, secret ${SANDBOX_CREDENTIALS.clientSecret}  (regular user ${SANDBOX_USERS.oauth.id})\n` +
			`  Webhooks:         ${webhookDeliveryIntervalMs > 0 ? `delivered every ${webhookDeliveryIntervalMs} ms` : 'not delivered'} (SANDBOX_WEBHOOK_INTERVAL_MS)\n`,
	);
	let closing = false;
	const stop = async (/** @type {string} */ signal) => {
		if (closing) return;
		closing = true;
		process.stdout.write(`${signal}: shutting down\n`);
		await sandbox.close();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop('SIGINT'));
	process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** @param {string} s */
function decodeSafe(s) {
	try {
		return decodeURIComponent(s.replace(/\+/g, ' '));
	} catch {
		return s;
	}
}

main().catch((err) => {
	process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
	process.exit(1);
});
