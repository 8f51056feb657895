import { NodeOperationError } from 'n8n-workflow';

import type { Run } from '../http/run';
import { ofItem } from '../item/item';
import type { Item } from '../item/item';

export type Dialect = 'standard' | 'espocrm';

/** The "Server" setting of the credential: the interface as specified, or EspoCRM 7 and later. */
export async function dialectOf(run: Run): Promise<Dialect> {
	return (await run.credentials()).server === 'espocrm' ? 'espocrm' : 'standard';
}

/**
 * Refuses, before any request, an operation that only EspoCRM has (`what`, such as "Stream > Post") when the
 * credential's Server is Standard: the interface as specified has no such endpoints, and a Standard server would
 * answer 404 without saying why.
 */
export function requireEspoCrm(item: Item, dialect: Dialect, what: string): void {
	if (dialect === 'espocrm') return;
	throw new NodeOperationError(item.node, `${what} needs the EspoCRM server${ofItem(item)}`, {
		itemIndex: item.index,
		description:
			'The interface as specified has no such operation. If the server is EspoCRM, choose "EspoCRM 7 or Later" as Server in the credential.',
	});
}
