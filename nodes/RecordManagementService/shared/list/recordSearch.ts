import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequest } from '../http/request';
import { runOf } from '../http/run';
import { dialectOf } from '../server/dialect';
import { chosenEntityType } from '../server/formLists';
import { pageRequest } from './page';

const SEARCH_PAGE_SIZE = 50;

/**
 * "From List" of a record: the records of the entity type, newest first, searched by name; on EspoCRM as its search
 * box searches (name, e-mail address…, `*` as a wildcard).
 */
export async function searchRecords(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const entityType = chosenEntityType(this);
	const offset = Number(paginationToken ?? 0);
	// Trimmed, as Search Text and EspoCRM's search box are: EspoCRM 8.1.5 matches the text as typed, so " smith" would
	// find nothing and "smith " only names with a word after "smith".
	const text = filter?.trim() ?? '';
	const run = runOf(this);
	const search = !text
		? {}
		: (await dialectOf(run)) === 'espocrm'
			? { textFilter: text }
			: { where: [{ type: 'contains', attribute: 'name', value: text }] };
	// With the count: the list is not read to its end.
	const request = { url: `/${entityType}`, qs: search };
	const page = await apiRequest<{ list: Array<{ id: string; name?: string }> }>(
		run,
		0,
		pageRequest(request, { select: 'name', offset, maxSize: SEARCH_PAGE_SIZE, total: true }),
	);
	return {
		results: page.list.map((record) => ({ name: record.name || record.id, value: record.id })),
		paginationToken:
			page.list.length === SEARCH_PAGE_SIZE ? String(offset + SEARCH_PAGE_SIZE) : undefined,
	};
}
