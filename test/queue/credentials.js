'use strict';
/*
 * The credential the queue-mode workflows use: OAuth 2.0 client credentials against the sandbox, imported with
 * `n8n import:credentials` before n8n starts, without a stored token (so the first executions fetch one).
 */
const { SANDBOX_CREDENTIALS: S } = require('../sandbox');

const CREDENTIAL = { id: 'rmsQueueOAuth0001', name: 'RMS sandbox (OAuth, queue mode)' };

/** [{id, name, type, data}] for `n8n import:credentials` (n8n encrypts the plain values). */
function credentialFile(origin) {
	return [
		{
			...CREDENTIAL,
			type: 'recordManagementServiceApi',
			data: {
				baseUrl: origin,
				server: 'standard',
				authentication: 'oAuth2ClientCredentials',
				clientId: S.clientId,
				clientSecret: S.clientSecret,
				allowUnauthorizedCerts: false,
			},
		},
	];
}

module.exports = { CREDENTIAL, credentialFile };
