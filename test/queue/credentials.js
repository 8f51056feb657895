'use strict';
/*
 * The credentials the queue-mode workflows use, imported with `n8n import:credentials` before n8n starts:
 *   - OAuth 2.0 client credentials against the sandbox's standard dialect, without a stored token (so the first
 *     executions fetch one): scenarios 1-3 and the polling trigger (4a);
 *   - an EspoCRM API key (an API user): the webhook trigger (4b; EspoCRM lets only API users register webhooks) and
 *     Email > Send with attachments (4c; attachments are EspoCRM only). The sandbox speaks both dialects.
 */
const { SANDBOX_CREDENTIALS: S } = require('../sandbox');

const CREDENTIAL = { id: 'rmsQueueOAuth0001', name: 'RMS sandbox (OAuth, queue mode)' };
const ESPO_CREDENTIAL = {
	id: 'rmsQueueEspoKey01',
	name: 'RMS sandbox (EspoCRM API key, queue mode)',
};

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
		{
			...ESPO_CREDENTIAL,
			type: 'recordManagementServiceApi',
			data: {
				baseUrl: origin,
				server: 'espocrm',
				authentication: 'apiKey',
				apiKey: S.apiKey,
			},
		},
	];
}

module.exports = { CREDENTIAL, ESPO_CREDENTIAL, credentialFile };
