import { createHmac } from 'crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/**
 * EspoCRM's signature over "METHOD /path" (path after /api/v1, no query), with the raw digest every version accepts.
 * The credential sends it as `X-Hmac-Authorization`; the node computes it again to redact it from what a server
 * echoes back (it carries no time, so a leaked one could be sent again).
 */
export function hmacAuthorization(
	credentials: ICredentialDataDecryptedObject,
	options: { method?: string; url: string },
) {
	const method = (options.method ?? 'GET').toUpperCase();
	const path = new URL(options.url, 'http://path.only').pathname;
	const signature = createHmac('sha256', String(credentials.secretKey))
		.update(`${method} ${path}`)
		.digest();
	return Buffer.concat([Buffer.from(`${credentials.apiKey}:`), signature]).toString('base64');
}
