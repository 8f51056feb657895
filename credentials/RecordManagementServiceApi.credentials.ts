import { createHash } from 'crypto';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { apiBaseUrl, followRedirects } from '../shared/addresses';
import { isBodyStream, parseJsonAnswer, readUpTo } from '../shared/answerBody';
import { hmacAuthorization } from '../shared/hmac';

type Scheme = 'apiKey' | 'basic' | 'oAuth2ClientCredentials' | 'hmac';

export class RecordManagementServiceApi implements ICredentialType {
	name = 'recordManagementServiceApi';

	displayName = 'Record Management Service API';

	documentationUrl =
		'https://github.com/record-management-service/n8n-nodes-record-management-service#credentials';

	icon: Icon = {
		light: 'file:../nodes/RecordManagementService/recordManagementService.svg',
		dark: 'file:../nodes/RecordManagementService/recordManagementService.dark.svg',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://crm.example.com',
			description: 'Address of the server. "/api/v1" is added when missing.',
		},
		{
			displayName: 'Server',
			name: 'server',
			type: 'options',
			options: [
				{
					name: 'Standard',
					value: 'standard',
					description: 'A server that follows the Record Management Service interface as specified',
				},
				{
					name: 'EspoCRM 7 or Later',
					value: 'espocrm',
					description:
						'EspoCRM: mass actions, lead conversion, unlink and e-mail sending in its own form',
				},
			],
			default: 'standard',
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'options',
			options: [
				{ name: 'API Key', value: 'apiKey' },
				{ name: 'Basic (User Name and Password)', value: 'basic' },
				{ name: 'OAuth 2.0 Client Credentials', value: 'oAuth2ClientCredentials' },
				{ name: 'HMAC (EspoCRM)', value: 'hmac' },
			],
			default: 'apiKey',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authentication: ['apiKey', 'hmac'] } },
		},
		{
			displayName: 'Secret Key',
			name: 'secretKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: "The API user's secret key, used to sign each request",
			displayOptions: { show: { authentication: ['hmac'] } },
		},
		{
			displayName: 'User Name',
			name: 'username',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { authentication: ['basic'] } },
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authentication: ['basic'] } },
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { authentication: ['oAuth2ClientCredentials'] } },
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authentication: ['oAuth2ClientCredentials'] } },
		},
		{
			displayName: 'Ignore SSL Issues (Insecure)',
			name: 'ignoreSslIssues',
			type: 'boolean',
			default: false,
			description: 'Whether to connect even if SSL certificate validation is not possible',
		},
		{
			// Filled by preAuthentication and stored by n8n, so every item, execution and worker shares one token.
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
	];

	/**
	 * n8n calls this when the stored token is empty and again after a 401, then retries the request once.
	 * Only the OAuth scheme has a token; the other schemes return nothing, which n8n does not store.
	 * The requests in flight when a token stops working all get 401 and all call this with that token: they
	 * share one new token instead of each asking POST /Auth for its own.
	 * On first use, n8n stores the new token on the credential only after the request that fetched it; runs that
	 * read the credential before that find it empty. They share the token just issued in this process, for
	 * 10 seconds at most (SHARE_ISSUED_TOKEN_MS), instead of asking for another. (Each n8n process, queue-mode
	 * workers included, may still fetch one token at first use: processes share only what n8n stores.)
	 */
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		if (credentials.authentication !== 'oAuth2ClientCredentials') return {};

		const client = clientKey(credentials);
		const failedToken = String(credentials.accessToken ?? '');
		const known = tokenRenewals.get(client);
		const justIssued =
			known?.settledAt !== undefined && Date.now() - known.settledAt < SHARE_ISSUED_TOKEN_MS;
		if (
			known &&
			known.replaces === failedToken &&
			(failedToken !== '' || known.settledAt === undefined || justIssued)
		) {
			return { accessToken: await known.token };
		}
		const renewal: TokenRenewal = { replaces: failedToken, token: requestToken(this, credentials) };
		tokenRenewals.set(client, renewal);
		try {
			const accessToken = await renewal.token;
			renewal.settledAt = Date.now();
			return { accessToken };
		} catch (error) {
			if (tokenRenewals.get(client) === renewal) tokenRenewals.delete(client);
			throw error;
		}
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const options: IHttpRequestOptions = {
			...requestOptions,
			baseURL: apiBaseUrl(credentials.baseUrl),
			headers: { ...requestOptions.headers },
		};
		if (credentials.ignoreSslIssues === true) options.skipSslCertificateValidation = true;
		// n8n's helper follows redirects and carries custom headers (X-Api-Key, X-Hmac-Authorization, Espo-Authorization)
		// to any host, Authorization too by default. No request with a credential follows one: the node's requests follow
		// those within the origin themselves (followRedirects, shared/addresses.ts); every other caller gets the 3xx as an
		// error.
		options.disableFollowRedirect = true;
		options.sendCredentialsOnCrossOriginRedirect = false;

		const headers = options.headers as Record<string, string>;
		switch (credentials.authentication as Scheme) {
			case 'basic': {
				const pair = Buffer.from(`${credentials.username}:${credentials.password}`).toString(
					'base64',
				);
				headers.Authorization = `Basic ${pair}`;
				// EspoCRM's own header survives web servers that strip Authorization before PHP sees it.
				if (credentials.server === 'espocrm') headers['Espo-Authorization'] = pair;
				break;
			}
			case 'oAuth2ClientCredentials':
				headers.Authorization = `Bearer ${credentials.accessToken}`;
				break;
			case 'hmac':
				headers['X-Hmac-Authorization'] = hmacAuthorization(credentials, options);
				break;
			default:
				headers['X-Api-Key'] = String(credentials.apiKey);
		}
		return options;
	}
}

interface TokenRenewal {
	/** The token that stopped working ('' when there was none yet). */
	replaces: string;
	token: Promise<string>;
	/** When the token arrived; undefined while it is being fetched. */
	settledAt?: number;
}

/** How long a token issued at first use is shared with runs that read the credential before n8n stored it. */
const SHARE_ISSUED_TOKEN_MS = 10_000;

/**
 * The latest token request per client (server, client ID and a hash of the secret), in this n8n process: a
 * short-lived share of a token being issued. The token itself lives in n8n's credential storage.
 */
const tokenRenewals = new Map<string, TokenRenewal>();

function clientKey(credentials: ICredentialDataDecryptedObject) {
	const secret = createHash('sha256').update(String(credentials.clientSecret)).digest('hex');
	return JSON.stringify([String(credentials.baseUrl), String(credentials.clientId), secret]);
}

/** How long the token request may take: it has no node parameters to read a Timeout from. */
const TOKEN_TIMEOUT_MS = 30_000;

/** Same-origin redirects of the token request followed at most (a trailing slash, a moved path). */
const MAX_TOKEN_REDIRECTS = 3;

/** The most of a token reply that is read: a token and its type and lifetime are a few hundred bytes. */
const MAX_TOKEN_REPLY_BYTES = 64 * 1024;

async function requestToken(
	helper: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): Promise<string> {
	const tokenUrl = `${apiBaseUrl(credentials.baseUrl)}/Auth`;
	const reply = await followRedirects({
		from: () => tokenUrl,
		method: 'POST',
		max: MAX_TOKEN_REDIRECTS,
		attempt: async (address) => {
			const response = (await helper.helpers.httpRequest({
				method: 'POST',
				url: address ?? tokenUrl,
				headers: { 'Content-Type': 'application/json' },
				body: {
					grant_type: 'client_credentials',
					client_id: credentials.clientId,
					client_secret: credentials.clientSecret,
				},
				json: true,
				skipSslCertificateValidation: credentials.ignoreSslIssues === true,
				// A 307 would post the client secret wherever it points: redirects are decided by followRedirects.
				disableFollowRedirect: true,
				sendCredentialsOnCrossOriginRedirect: false,
				timeout: TOKEN_TIMEOUT_MS,
				// Read below, up to a bound: n8n's helper would read any answer whole (a hostile server's, too).
				encoding: 'stream',
				returnFullResponse: true,
			})) as IN8nHttpFullResponse;
			const bytes = isBodyStream(response.body)
				? await readUpTo(response.body, MAX_TOKEN_REPLY_BYTES)
				: Buffer.from(String(response.body ?? ''));
			if (bytes === undefined) {
				throw new Error(
					`The token reply of POST /Auth is larger than ${MAX_TOKEN_REPLY_BYTES / 1024} KB: the node stopped reading it. Check that the Base URL points at the API.`,
				);
			}
			return parseJsonAnswer(bytes.toString('utf8')) as { access_token?: unknown } | undefined;
		},
		redirectOf: (outcome) => {
			if (!('error' in outcome)) return undefined;
			const response = (
				outcome.error as {
					response?: {
						status?: number;
						headers?: Record<string, unknown>;
						data?: { destroy?: () => void };
					};
				}
			).response;
			const status = response?.status ?? 0;
			if (status < 300 || status > 399 || response?.headers?.location === undefined)
				return undefined;
			// A redirect's own body is not read (other errors' bodies are, up to a bound, for their message).
			response.data?.destroy?.();
			return { status, location: response.headers.location };
		},
		refuse: ({ message, tooMany }) =>
			new Error(
				message !== undefined
					? `POST /Auth: ${message}. Check the Base URL of the credential.`
					: `POST /Auth was redirected more than ${tooMany} times: check the Base URL of the credential.`,
			),
	});

	if (typeof reply?.access_token !== 'string' || reply.access_token === '') {
		throw new Error(
			'The token reply of POST /Auth has no "access_token" field: check that the Base URL points at the API and that the server supports OAuth 2.0 client credentials',
		);
	}
	return reply.access_token;
}
