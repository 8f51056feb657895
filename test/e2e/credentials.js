'use strict';
/*
 * The credentials the e2e workflows use, one per authentication scheme, all pointing at the sandbox.
 * Workflows reference them by id and name:
 *   "credentials": { "recordManagementServiceApi": { "id": "rmsE2eApiKey0001", "name": "RMS sandbox (API key)" } }
 * `webhook` points at the second sandbox, the one of the webhook phase (test/e2e/webhook/), when its origin is given;
 * `devStandard` and `devEspo` at the sandbox of the examples (seeded as `npm run dev` starts it), when `devOrigin` is.
 */
const { SANDBOX_CREDENTIALS: S } = require('../sandbox');
const { DEV_CREDENTIALS, devCredentialFiles } = require('../lib/dev-credentials');

const CREDENTIALS = {
	apiKey: { id: 'rmsE2eApiKey0001', name: 'RMS sandbox (API key)' },
	basic: { id: 'rmsE2eBasic00001', name: 'RMS sandbox (Basic)' },
	oauth: { id: 'rmsE2eOAuth00001', name: 'RMS sandbox (OAuth client credentials)' },
	hmac: { id: 'rmsE2eHmac000001', name: 'RMS sandbox (HMAC, EspoCRM)' },
	espoApiKey: { id: 'rmsE2eEspoKey001', name: 'RMS sandbox (EspoCRM, API key)' },
	webhook: { id: 'rmsE2eWebhook001', name: 'RMS webhook sandbox (EspoCRM, API key)' },
	// The two credentials of `npm run dev` (scripts/dev.js), with its ids and names: the examples run with them, as
	// users import them into the dev editor.
	devStandard: DEV_CREDENTIALS.standard,
	devEspo: DEV_CREDENTIALS.espocrm,
};

/** [{id, name, type, data}] for `n8n import:credentials` (n8n encrypts the plain data values). */
function credentialFiles(origin, { webhookOrigin, devOrigin = origin } = {}) {
	const base = { baseUrl: origin, server: 'standard', allowUnauthorizedCerts: false };
	const data = {
		apiKey: { ...base, authentication: 'apiKey', apiKey: S.apiKey },
		basic: { ...base, authentication: 'basic', username: S.username, password: S.password },
		oauth: {
			...base,
			authentication: 'oAuth2ClientCredentials',
			clientId: S.clientId,
			clientSecret: S.clientSecret,
		},
		hmac: {
			...base,
			server: 'espocrm',
			authentication: 'hmac',
			apiKey: S.hmacApiKey,
			secretKey: S.hmacSecret,
		},
		espoApiKey: { ...base, server: 'espocrm', authentication: 'apiKey', apiKey: S.apiKey },
		// as scripts/dev.js imports them
		...Object.fromEntries(
			devCredentialFiles(devOrigin).map((c) => [
				c.id === DEV_CREDENTIALS.standard.id ? 'devStandard' : 'devEspo',
				c.data,
			]),
		),
		// the webhook trigger needs EspoCRM and an API user (API key or HMAC)
		webhook: webhookOrigin && {
			...base,
			baseUrl: webhookOrigin,
			server: 'espocrm',
			authentication: 'apiKey',
			apiKey: S.apiKey,
		},
	};
	return Object.entries(CREDENTIALS)
		.filter(([k]) => data[k])
		.map(([k, c]) => ({
			id: c.id,
			name: c.name,
			type: 'recordManagementServiceApi',
			data: data[k],
		}));
}

module.exports = { CREDENTIALS, credentialFiles };
