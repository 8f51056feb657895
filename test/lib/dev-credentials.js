'use strict';
/*
 * The two credentials of the dev editor (`npm run dev`, scripts/dev.js), both pointing at its sandbox with the API key:
 * one for a Standard server, one for EspoCRM (the same sandbox, whose EspoCRM dialect gives the form its lists of
 * entity types and fields). The examples (test/e2e) and the browser test of the editor (test/editor) use them with
 * the same ids and names, as users meet them in the dev editor.
 */
const { SANDBOX_CREDENTIALS: S } = require('../sandbox');

const DEV_CREDENTIALS = {
	standard: { id: 'rmsDevSandboxKey', name: 'Sandbox (API key)' },
	espocrm: { id: 'rmsDevSandboxEspo', name: 'Sandbox as EspoCRM (API key)' },
};

/** [{id, name, type, data}] for `n8n import:credentials` (n8n encrypts the plain data values). */
function devCredentialFiles(sandboxOrigin) {
	return Object.entries(DEV_CREDENTIALS).map(([server, c]) => ({
		...c,
		type: 'recordManagementServiceApi',
		data: {
			baseUrl: sandboxOrigin,
			server,
			authentication: 'apiKey',
			apiKey: S.apiKey,
			ignoreSslIssues: false,
		},
	}));
}

module.exports = { DEV_CREDENTIALS, devCredentialFiles };
