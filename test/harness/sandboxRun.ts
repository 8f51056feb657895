/**
 * A sandbox server and a credential pointing at it, for tests that run the node through n8n's engine.
 * Each test file starts one sandbox (beforeAll) and resets it between tests.
 */
import type { IDataObject } from 'n8n-workflow';

import { SANDBOX_CREDENTIALS, startSandbox } from '../sandbox';
import type { Dialect, RecordedRequest, Sandbox, SandboxOptions } from '../sandbox';
import { CredentialStore, runNode } from './engine';
import type { RunOptions, RunResult } from './engine';

export type Scheme = 'apiKey' | 'basic' | 'oAuth2ClientCredentials' | 'hmac';

let clients = 0;

/** Credential values for a scheme against the sandbox, as a user would fill the form. */
export function credentialFor(
	sandbox: Sandbox,
	scheme: Scheme = 'apiKey',
	server: 'standard' | 'espocrm' = 'standard',
) {
	const common = { baseUrl: sandbox.origin, server, authentication: scheme };
	switch (scheme) {
		case 'basic':
			return {
				...common,
				username: SANDBOX_CREDENTIALS.username,
				password: SANDBOX_CREDENTIALS.password,
			};
		case 'oAuth2ClientCredentials':
			// A client of its own per credential: n8n processes share a token just issued for a client (for 10 s), and a
			// test that counts tokens must not get the one an earlier test was issued.
			return {
				...common,
				clientId: `${SANDBOX_CREDENTIALS.clientId}-${++clients}`,
				clientSecret: SANDBOX_CREDENTIALS.clientSecret,
			};
		case 'hmac':
			return {
				...common,
				apiKey: SANDBOX_CREDENTIALS.hmacApiKey,
				secretKey: SANDBOX_CREDENTIALS.hmacSecret,
			};
		default:
			return { ...common, apiKey: SANDBOX_CREDENTIALS.apiKey };
	}
}

export interface TestBed {
	sandbox: Sandbox;
	/** The credential store (n8n's database of credentials); `use` replaces the credential. */
	store: CredentialStore;
	use(scheme?: Scheme, server?: 'standard' | 'espocrm', overrides?: IDataObject): void;
	/** Runs the node with these parameters over these input items (one empty item by default). */
	run(
		parameters: IDataObject,
		items?: IDataObject[],
		options?: Pick<RunOptions, 'onError' | 'timezone' | 'settings' | 'typeVersion' | 'asTool'>,
	): Promise<RunResult>;
	/** Requests the sandbox received since the last reset, optionally only those of one method. */
	received(method?: string): RecordedRequest[];
}

export function useSandbox(options: SandboxOptions & { dialect?: Dialect } = {}): TestBed {
	const bed = { store: new CredentialStore() } as TestBed;
	beforeAll(async () => {
		bed.sandbox = await startSandbox({ failedLoginLimit: 0, ...options });
	});
	afterAll(async () => {
		await bed.sandbox.close();
	});
	beforeEach(() => {
		bed.sandbox.reset();
		bed.use();
	});
	bed.use = (scheme = 'apiKey', server = 'standard', overrides = {}) => {
		bed.store.set('rms', {
			...credentialFor(bed.sandbox, scheme, server),
			...overrides,
		} as IDataObject as never);
	};
	bed.run = async (parameters, items, runOptions = {}) =>
		await runNode({ parameters, items, store: bed.store, ...runOptions });
	bed.received = (method) =>
		bed.sandbox.requests.filter((request) => !method || request.method === method);
	return bed;
}
