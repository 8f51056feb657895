'use strict';
/*
 * The credentials the EspoCRM workflows use, all "EspoCRM 7 or later", pointing at the EspoCRM that the runner
 * started. Workflows reference them by id and name:
 *   "credentials": { "recordManagementServiceApi": { "id": "rmsEspoApiKey001", "name": "EspoCRM (API key)" } }
 */

const CREDENTIALS = {
	apiKey: { id: 'rmsEspoApiKey001', name: 'EspoCRM (API key)' },
	hmac: { id: 'rmsEspoHmac00001', name: 'EspoCRM (HMAC)' },
	basic: { id: 'rmsEspoBasic0001', name: 'EspoCRM (Basic, admin)' },
};

/** [{id, name, type, data}] for `n8n import:credentials`; keys = the `keys` of test/espocrm/rig/espocrm.js startEspo. */
function credentialFiles(origin, keys) {
	const base = { baseUrl: origin, server: 'espocrm', ignoreSslIssues: false };
	const data = {
		apiKey: { ...base, authentication: 'apiKey', apiKey: keys.apiKey.apiKey },
		hmac: {
			...base,
			authentication: 'hmac',
			apiKey: keys.hmac.apiKey,
			secretKey: keys.hmac.secretKey,
		},
		basic: {
			...base,
			authentication: 'basic',
			username: keys.admin.username,
			password: keys.admin.password,
		},
	};
	return Object.entries(CREDENTIALS).map(([k, c]) => ({
		id: c.id,
		name: c.name,
		type: 'recordManagementServiceApi',
		data: data[k],
	}));
}

module.exports = { CREDENTIALS, credentialFiles };
