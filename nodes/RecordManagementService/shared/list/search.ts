import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import type { Item } from '../item/item';
import { requireWellFormed } from '../item/validation';
import type { Dialect } from '../server/dialect';
import { listedEntityType, readServer } from '../server/formLists';

/**
 * EspoCRM's own ways of finding records, as its list views offer them: the search box (`textFilter`), the filter
 * menu (`primaryFilter`: Open, Won, Actual…) and its check-boxes (`boolFilterList`: Only My, Followed…). Every
 * list request of EspoCRM takes them (Core/Record/SearchParamsFetcher); a Standard server has none of them.
 */

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

const SEARCH_TEXT_HINT =
	"EspoCRM's search box: records whose name or other searched field (an e-mail address; Lead: also the account name; Case: the number) starts with the text, in any case. With a * the text is matched as a whole, * standing for any characters: *smith* finds smith anywhere, *@example.com addresses of that domain. EspoCRM servers only.";

/** Search Text, the EspoCRM filter and its check-boxes: list parameters of Get Many, Get Many Related and the trigger. */
export function searchFields(show: Show): INodeProperties[] {
	const dependsOn = ['entityType', 'customEntityType', 'link', 'customLink'];
	return [
		{
			displayName: 'Search Text (EspoCRM)',
			name: 'searchText',
			type: 'string',
			default: '',
			placeholder: 'e.g. smith',
			hint: SEARCH_TEXT_HINT,
			description:
				"Finds records as the search box of EspoCRM's list view does; combines with the other filters",
			displayOptions: { show },
		},
		{
			displayName: 'Filter (EspoCRM) Name or ID',
			name: 'primaryFilter',
			type: 'options',
			typeOptions: { loadOptionsMethod: 'getPrimaryFilters', loadOptionsDependsOn: dependsOn },
			default: '',
			description:
				'One of the entity type\'s filters from EspoCRM\'s list view menu (Open, Won, Actual…), or All. EspoCRM servers only. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			displayOptions: { show },
		},
		{
			displayName: 'Check-Box (EspoCRM) Names or IDs',
			name: 'boolFilterList',
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getBoolFilters', loadOptionsDependsOn: dependsOn },
			default: [],
			description:
				'Only My, Followed, My Team…: records that match any of those chosen, as seen by the API user of the credential. EspoCRM servers only. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			displayOptions: { show },
		},
	];
}

function namesOf(value: unknown): string[] {
	return ([] as unknown[])
		.concat(value ?? [])
		.join(',')
		.split(',')
		.map((name) => name.trim())
		.filter((name) => name !== '');
}

/**
 * The search parameters of a list request, `{}` when none is set. On a Standard server, which has no such search,
 * a set parameter is refused before anything is sent.
 */
export function searchQueryOf(item: Item, dialect: Dialect): IDataObject {
	const textFilter = String(item.parameter<string>('searchText', '') ?? '').trim();
	const primaryFilter = String(item.parameter<string>('primaryFilter', '') ?? '').trim();
	const boolFilterList = namesOf(item.parameter('boolFilterList', []));
	requireWellFormed(item, textFilter, 'Search Text (EspoCRM)');
	requireWellFormed(item, primaryFilter, 'Filter (EspoCRM)');
	requireWellFormed(item, boolFilterList, 'Check-Box (EspoCRM)');
	const query: IDataObject = {
		...(textFilter ? { textFilter } : {}),
		...(primaryFilter ? { primaryFilter } : {}),
		...(boolFilterList.length ? { boolFilterList } : {}),
	};
	if (dialect !== 'espocrm') {
		const set = [
			textFilter && 'Search Text (EspoCRM)',
			primaryFilter && 'Filter (EspoCRM)',
			boolFilterList.length && 'Check-Box (EspoCRM)',
		].find(Boolean);
		if (set) {
			throw item.refuse(
				String(set),
				'works with EspoCRM servers only',
				'The credential\'s Server is Standard, whose lists have no text search or filters of their own. Use the conditions of Filter instead, or a credential with Server "EspoCRM 7 or Later".',
			);
		}
	}
	return query;
}

interface SearchMetadata {
	scopes?: Record<string, { stream?: boolean }>;
	entityDefs?: Record<string, { links?: Record<string, { entity?: string }> }>;
	clientDefs?: Record<string, { filterList?: unknown[]; boolFilterList?: unknown[] }>;
}

type Translations = Record<string, { presetFilters?: IDataObject; boolFilters?: IDataObject }>;

/** An entry of clientDefs' filterList or boolFilterList: a name, or `{name, aux, isPortalOnly…}`. */
function filterName(entry: unknown): string | undefined {
	if (typeof entry === 'string') return entry;
	if (!entry || typeof entry !== 'object') return undefined;
	const { name, aux, isPortalOnly } = entry as IDataObject;
	// What EspoCRM's search view leaves out for a user of the CRM (views/record/search.js).
	if (aux || isPortalOnly || typeof name !== 'string') return undefined;
	return name;
}

/** The metadata and labels of an EspoCRM server, and the entity type whose records the form's list shows. */
async function readSearchDefinitions(context: ILoadOptionsFunctions) {
	const server = await readServer(context);
	// A Standard server has none of EspoCRM's filters (readServer reads no metadata there).
	if (!server.metadata) return undefined;
	const metadata = server.metadata as SearchMetadata;
	const translations = server.translations as Translations;
	const entityType = listedEntityType(context, server.metadata);
	const label = (group: 'presetFilters' | 'boolFilters', name: string) => {
		const text = translations[entityType]?.[group]?.[name] ?? translations.Global?.[group]?.[name];
		return typeof text === 'string' && text !== '' ? text : name;
	};
	return { metadata, entityType, label };
}

/** The entity type's primary filters (clientDefs.<type>.filterList), labelled as EspoCRM's filter menu shows them. */
export async function getPrimaryFilters(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const all: INodePropertyOptions = { name: 'All', value: '', description: 'No filter of EspoCRM' };
	const server = await readSearchDefinitions(this);
	if (!server) return [all];
	const names = (server.metadata.clientDefs?.[server.entityType]?.filterList ?? [])
		.map(filterName)
		.filter((name): name is string => !!name);
	return [
		all,
		...[...new Set(names)].map((name) => ({
			name: server.label('presetFilters', name),
			value: name,
			description: name,
		})),
	];
}

/**
 * The entity type's check-box filters (clientDefs.<type>.boolFilterList), and Followed where its records have a
 * stream, as EspoCRM's search view adds it.
 */
export async function getBoolFilters(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const server = await readSearchDefinitions(this);
	if (!server) return [];
	const names = (server.metadata.clientDefs?.[server.entityType]?.boolFilterList ?? [])
		.map(filterName)
		.filter((name): name is string => !!name);
	if (server.metadata.scopes?.[server.entityType]?.stream) names.push('followed');
	return [...new Set(names)].map((name) => ({
		name: server.label('boolFilters', name),
		value: name,
		description: name,
	}));
}
