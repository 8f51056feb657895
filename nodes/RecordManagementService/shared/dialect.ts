import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './transport';
import type { RequestContext } from './transport';

export type Dialect = 'standard' | 'espocrm';

/** The "Server" setting of the credential: the interface as specified, or EspoCRM 7 and later. */
export async function dialectOf(context: RequestContext | ILoadOptionsFunctions): Promise<Dialect> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	return credentials.server === 'espocrm' ? 'espocrm' : 'standard';
}
