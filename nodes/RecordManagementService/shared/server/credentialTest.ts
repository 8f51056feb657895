import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { RecordManagementServiceApi } from '../../../../credentials/RecordManagementServiceApi.credentials';
import { apiBaseUrl, followRedirects } from '../../../../shared/addresses';

/**
 * The Test button (and Save) of the credential. It asks what every request of the node asks, signed as every
 * request is signed, and tells apart what users meet: refused credentials, denied access, a Base URL that is not
 * the API (a web page, a proxy's catch-all), an unreachable host, a TLS problem.
 */

interface Reply {
	statusCode: number;
	headers: IDataObject;
	body: unknown;
}

const TIMEOUT_MS = 15_000;

/** Redirects within the origin the test follows at most. */
const MAX_REDIRECTS = 5;

/** A redirect the test does not follow: its message is the test's result. */
class RedirectRefused extends Error {}

/** What a failed connection means, and what to check. */
function networkProblem(error: unknown, target: URL): string {
	const code = String(
		(error as { code?: unknown }).code ??
			(error as { cause?: { code?: unknown } }).cause?.code ??
			'',
	);
	const where = `${target.hostname}:${target.port || (target.protocol === 'https:' ? 443 : 80)}`;
	if (code === 'ECONNREFUSED') {
		return `Nothing accepts connections at ${where} (connection refused). Check the address and port in the Base URL, and that the server is running.`;
	}
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
		return `The host name "${target.hostname}" could not be found (${code}). Check its spelling, and that the machine n8n runs on can resolve it (DNS, VPN).`;
	}
	if (
		['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED'].includes(code) ||
		/timeout/i.test(String((error as Error).message))
	) {
		return `No answer from ${where} within ${TIMEOUT_MS / 1000} seconds (${code || 'timeout'}). Check that a firewall lets n8n through to this port, and that the port is right.`;
	}
	if (code === 'ECONNRESET' || code === 'EPIPE') {
		return `${where} closed the connection without answering (${code}). Check http:// or https:// in the Base URL: the port may speak the other one.`;
	}
	const message = String((error as Error).message ?? '');
	if (/CERT|SSL|TLS|EPROTO|self.signed/i.test(`${code} ${message}`)) {
		// OpenSSL's own text ("write EPROTO 80…:error:0A00010B:SSL routines:…:wrong version number:…") ends in the reason.
		const reason = /wrong version number/i.test(message)
			? 'the port does not speak HTTPS'
			: code || message.split('\n')[0].slice(0, 120);
		return `The secure (HTTPS) connection to ${where} failed (${reason}). If the server uses a self-signed or internal certificate, turn on "Ignore SSL Issues"; if it speaks plain HTTP, use http:// in the Base URL.`;
	}
	return `${where} could not be reached: ${(error as Error).message || code}. Check the Base URL.`;
}

/** Whether the reply is the interface's JSON: a list envelope (Standard) or EspoCRM's app data with a user. */
function isInterfaceJson(reply: Reply, server: unknown): boolean {
	const body = typeof reply.body === 'string' ? safeJson(reply.body) : reply.body;
	if (body === null || typeof body !== 'object') return false;
	return server === 'espocrm'
		? typeof (body as IDataObject).user === 'object'
		: Array.isArray((body as IDataObject).list);
}

function safeJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

function statusProblem(
	reply: Reply,
	data: ICredentialDataDecryptedObject,
	base: string,
): string | undefined {
	const reason = String(reply.headers['x-status-reason'] ?? '').trim();
	switch (reply.statusCode) {
		case 401:
			return 'The server refused these credentials (401): check the API key, the user name and password, the client ID and secret, or the HMAC keys, and that the API user is active.';
		case 403:
			return reason
				? `The server accepted the credentials but denied access (403: ${reason}). Check the API user's role.`
				: "The server denied access (403). Check the API user's role; EspoCRM also answers so for a minute after more than 10 failed logins from one address.";
		case 404:
			return data.server === 'espocrm'
				? `Nothing answers at ${base}/App/user (404). Enter the address of EspoCRM itself, such as https://crm.example.com, or choose Server "Standard" if this is not EspoCRM.`
				: `Nothing answers at ${base}/Contact (404). Enter the address of the server, such as https://crm.example.com; for EspoCRM choose Server "EspoCRM 7 or Later".`;
		default:
			if (reply.statusCode >= 500)
				return `The server failed to answer (${reply.statusCode}${reason ? `: ${reason}` : ''}). Its log says why.`;
			if (reply.statusCode >= 300)
				return `The server answered ${reply.statusCode}${reason ? ` (${reason})` : ''}. Check the Base URL.`;
			return undefined;
	}
}

export async function testCredentials(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = { ...(credential.data ?? {}) };
	let base: string;
	try {
		base = apiBaseUrl(data.baseUrl);
	} catch (error) {
		return { status: 'Error', message: (error as Error).message };
	}
	const target = new URL(base);
	// A credential test gets one HTTP helper from n8n, request(): it has no httpRequest (nodes do).
	const { request } = this.helpers;
	const credentialType = new RecordManagementServiceApi();
	/**
	 * One request of the test, signed for its path by `sign` (as every request of the node is signed). n8n's request()
	 * would follow a redirect with every header to any host: the test follows only those the node follows.
	 */
	const call = async (
		method: string,
		url: string,
		options: IDataObject = {},
		sign = false,
	): Promise<Reply> =>
		await followRedirects({
			from: () => (/^https?:\/\//i.test(url) ? url : `${base}${url}`),
			method,
			max: MAX_REDIRECTS,
			attempt: async (address) => {
				// Within the API root the path stays relative, so that it is signed as the server reads it; the redirect's
				// address carries the query the server wants.
				const path =
					address === undefined
						? url
						: address.startsWith(`${base}/`)
							? address.slice(base.length)
							: address;
				const signed = sign
					? (
							await credentialType.authenticate(data, {
								method: method as 'GET',
								url: path,
								headers: {},
							})
						).headers
					: {};
				return (await request({
					method,
					uri: /^https?:\/\//i.test(path) ? path : `${base}${path}`,
					simple: false,
					resolveWithFullResponse: true,
					rejectUnauthorized: data.ignoreSslIssues !== true,
					timeout: TIMEOUT_MS,
					followRedirect: false,
					followAllRedirects: false,
					...options,
					...(address === undefined ? {} : { qs: undefined }),
					headers: { ...(options.headers as IDataObject), ...signed },
				})) as Reply;
			},
			redirectOf: (outcome) => {
				if (!('answer' in outcome)) return undefined;
				const { statusCode, headers } = outcome.answer;
				return statusCode >= 300 && statusCode <= 399 && headers.location !== undefined
					? { status: statusCode, location: headers.location }
					: undefined;
			},
			refuse: ({ message, tooMany }) =>
				new RedirectRefused(
					message !== undefined
						? `${message}. Put the address the server answers at in the Base URL.`
						: `The server redirected more than ${tooMany} times: check the Base URL.`,
				),
		});

	try {
		if (data.authentication === 'oAuth2ClientCredentials') {
			const reply = await call('POST', '/Auth', {
				body: {
					grant_type: 'client_credentials',
					client_id: data.clientId,
					client_secret: data.clientSecret,
				},
				json: true,
			});
			if (reply.statusCode === 401 || reply.statusCode === 400) {
				return {
					status: 'Error',
					message: `The server refused the client ID or secret (POST /Auth answered ${reply.statusCode}).`,
				};
			}
			if (reply.statusCode === 404) {
				return {
					status: 'Error',
					message: `There is no token endpoint at ${base}/Auth (404). EspoCRM has none: use API Key, HMAC or Basic with it.`,
				};
			}
			const token = (reply.body as IDataObject | undefined)?.access_token;
			if (reply.statusCode !== 200 || typeof token !== 'string' || token === '') {
				return {
					status: 'Error',
					message: `POST /Auth answered ${reply.statusCode} without an access_token: check the Base URL.`,
				};
			}
			data.accessToken = token;
		}
		const probe =
			data.server === 'espocrm'
				? { url: '/App/user', qs: {} }
				: { url: '/Contact', qs: { maxSize: 1 } };
		const reply = await call(
			'GET',
			probe.url,
			{ qs: probe.qs, headers: { Accept: 'application/json' } },
			true,
		);
		const problem = statusProblem(reply, data, base);
		if (problem) return { status: 'Error', message: problem };
		if (!isInterfaceJson(reply, data.server)) {
			const type = String(reply.headers['content-type'] ?? 'no content type').split(';')[0];
			return {
				status: 'Error',
				message: `${base} answers, but not as the API does (${type}${/html/i.test(type) ? ': a web page' : ''}). Enter the address of the CRM itself, such as https://crm.example.com (the node adds /api/v1), and check that no proxy or login page answers in its place.`,
			};
		}
		return { status: 'OK', message: 'Connection successful' };
	} catch (error) {
		if (error instanceof RedirectRefused) return { status: 'Error', message: error.message };
		return { status: 'Error', message: networkProblem(error, target) };
	}
}
