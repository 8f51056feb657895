#!/usr/bin/env node
// @ts-check
'use strict';

/** Standalone sandbox (`npm run sandbox`): seeded, no failed-login lock-out, one log line per request. */
const { startSandbox, SANDBOX_CREDENTIALS } = require('./server');

async function main() {
  const port = Number(process.env.SANDBOX_PORT || 8787);
  const dialect = /** @type {any} */ (process.env.SANDBOX_DIALECT || 'both');
  const host = process.env.SANDBOX_HOST || '127.0.0.1';
  const sandbox = await startSandbox({
    port, host, dialect, seed: true, failedLoginLimit: 0,
    onRequest: (r) => {
      const ms = r.endedAt !== null ? Math.round(r.endedAt - r.startedAt) : 0;
      process.stdout.write(`${r.method} ${r.path}${r.rawQuery ? `?${decodeSafe(r.rawQuery)}` : ''} ${r.status} ${ms}ms\n`);
    },
  });
  process.stdout.write(
    `Sandbox (${sandbox.dialect} dialect) listening on ${sandbox.baseUrl}\n` +
    `  API key:          X-Api-Key: ${SANDBOX_CREDENTIALS.apiKey}\n` +
    `  Basic:            ${SANDBOX_CREDENTIALS.username} / ${SANDBOX_CREDENTIALS.password}\n` +
    `  HMAC:             key ${SANDBOX_CREDENTIALS.hmacApiKey}, secret ${SANDBOX_CREDENTIALS.hmacSecret}\n` +
    `  OAuth (POST /Auth): client ${SANDBOX_CREDENTIALS.clientId}, secret ${SANDBOX_CREDENTIALS.clientSecret}\n`,
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
