// @ts-check
'use strict';

const { ENTITY_DEFS, APP_CONFIG, getAttributes } = require('./metadata');
const { ApiError } = require('./util');

/**
 * EspoCRM 8.1.5's search parameters of a list request (Core/Record/SearchParamsFetcher, Core/Select/SearchParams):
 * `textFilter` (or `q`), the search box; `primaryFilter`, the filter menu; `boolFilterList[]`, its check-boxes. The
 * web UI sends them as where items instead (`{type: 'textFilter' | 'primary' | 'bool', value}`), which
 * SearchParams::adjustParams takes out of the where list. All combine with AND; several bool filters with OR.
 * Only the 'espocrm' and 'both' dialects know them; the 'standard' dialect ignores them.
 *
 * The definitions are EspoCRM's (Modules/Crm/Resources/metadata/entityDefs/<Type>.json `collection.textFilterFields`,
 * clientDefs/<Type>.json `filterList` and `boolFilterList`) for the sandbox's types; the filters' meaning is that of
 * the classes named.
 */

/** @typedef {import('./store').Store} Store @typedef {Record<string, any>} RawRecord */

/**
 * @typedef {{ textFilterFields?: string[], filterList?: unknown[], boolFilterList?: string[] }} SearchDef
 * @type {Record<string, SearchDef>}
 */
const SEARCH_DEFS = {
	Account: {
		textFilterFields: ['name', 'emailAddress'],
		filterList: [{ name: 'recentlyCreated' }],
		boolFilterList: ['onlyMy'],
	},
	Contact: {
		textFilterFields: ['name', 'emailAddress'],
		filterList: ['portalUsers'],
		boolFilterList: ['onlyMy'],
	},
	Lead: {
		textFilterFields: ['name', 'accountName', 'emailAddress'],
		filterList: [{ name: 'actual' }, { name: 'converted', style: 'success' }],
		boolFilterList: ['onlyMy'],
	},
	Opportunity: {
		filterList: [{ name: 'open' }, { name: 'won', style: 'success' }],
		boolFilterList: ['onlyMy'],
	},
	Meeting: {
		filterList: [{ name: 'planned' }, { name: 'held', style: 'success' }, { name: 'todays' }],
		boolFilterList: ['onlyMy'],
	},
	Call: {
		filterList: [{ name: 'planned' }, { name: 'held', style: 'success' }, { name: 'todays' }],
		boolFilterList: ['onlyMy'],
	},
	Task: {
		filterList: [
			'actual',
			{ name: 'completed', style: 'success' },
			{ name: 'todays' },
			{ name: 'overdue', style: 'danger' },
			{ name: 'deferred' },
		],
		boolFilterList: ['onlyMy'],
	},
	CProject: { boolFilterList: ['onlyMy'] },
};

/** Config defaults of 8.1.5 (Resources/defaults/config.php, Core/Select/Text/ConfigProvider). */
const TEXT_FILTER_CONTAINS_MIN_LENGTH = 4;
const PHONE_NUMBER_NUMERIC_SEARCH = true;

/** Statuses that are no longer "actual" (entityDefs.<Type>.fields.status.notActualOptions). */
const NOT_ACTUAL = {
	Lead: ['Converted', 'Recycled', 'Dead'],
	Task: ['Completed', 'Canceled', 'Deferred'],
};

/** An activity's statuses while it is to be done, and once done (scopes.<Type>.activityStatusList, completedStatusList). */
const ACTIVITY_STATUSES = {
	Meeting: ['Planned'],
	Call: ['Planned'],
	Task: ['Not Started', 'Started'],
};
const COMPLETED_STATUSES = { Meeting: ['Held'], Call: ['Held'], Task: ['Completed'] };

/**
 * @param {string} entityType @param {RawRecord} raw @param {string} attribute @param {Store} store
 * @returns {unknown}
 */
function valueOf(store, entityType, raw, attribute) {
	const a = getAttributes(entityType).get(attribute);
	return a ? store.attributeValue(entityType, raw, attribute, a) : raw[attribute];
}

/** MySQL's LIKE with its case-insensitive collation. @param {string} pattern */
function likeRegExp(pattern) {
	let re = '';
	for (const c of pattern)
		re += c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
	return new RegExp(`^${re}$`, 'is');
}

/**
 * The text search (Core/Select/Text/Applier, DefaultFilter): over the type's textFilterFields (`name` when it has
 * none), any of them matching. Without `*`, a field matches when it starts with the text (a text field, or any
 * field when textFilterUseContainsForVarchar, when it contains it, for texts of 4 characters or more); with `*`
 * the text is the whole LIKE pattern, `*` standing for `%`. An e-mail field is skipped for a text with a space
 * and matches any address of the record; a phone field only takes digits and ()-+% and space, and compares digits
 * (phoneNumberNumericSearch); an int field compares a number. A person's name matches its first name, last name,
 * "first last" and "last first" (the ORM's personName where clause).
 * @param {Store} store @param {string} entityType @param {string} text @returns {(raw: RawRecord) => boolean}
 */
function textPredicate(store, entityType, text) {
	const fields = SEARCH_DEFS[entityType]?.textFilterFields ?? ['name'];
	const wildcard = text.includes('*');
	const filter = wildcard ? text.replace(/\*/g, '%') : text;
	const fieldDefs = ENTITY_DEFS[entityType].fields;
	/** @type {Array<(raw: RawRecord) => boolean>} */
	const tests = [];
	for (const field of fields) {
		const fd = fieldDefs[field];
		const type = fd?.type;
		if (type === 'int') {
			if (filter.trim() !== '' && !Number.isNaN(Number(filter)))
				tests.push((raw) => Number(raw[field]) === parseInt(filter, 10));
			continue;
		}
		if (type === 'email' && filter.includes(' ')) continue;
		let pattern = filter;
		let digitsOnly = false;
		if (type === 'phone') {
			if (!/[0-9()\-+% ]+$/.test(filter)) continue;
			if (PHONE_NUMBER_NUMERIC_SEARCH) {
				pattern = filter.replace(/[^0-9%]/g, '');
				digitsOnly = true;
			}
			if (!pattern) continue;
		}
		if (!wildcard) {
			const contains =
				pattern.length >= TEXT_FILTER_CONTAINS_MIN_LENGTH &&
				(type === 'text' || type === 'wysiwyg');
			pattern = contains ? `%${pattern}%` : `${pattern}%`;
		}
		const re = likeRegExp(pattern);
		const matches = (/** @type {unknown} */ v) =>
			v !== null &&
			v !== undefined &&
			re.test(digitsOnly ? String(v).replace(/[^0-9]/g, '') : String(v));
		if (type === 'personName') {
			tests.push((raw) => {
				const first = raw.firstName ?? '';
				const last = raw.lastName ?? '';
				return [raw.firstName, raw.lastName, `${first} ${last}`, `${last} ${first}`].some(matches);
			});
		} else if (type === 'email' || type === 'phone') {
			tests.push((raw) => {
				const data = /** @type {any[]} */ (valueOf(store, entityType, raw, `${field}Data`) || []);
				const key = type === 'email' ? 'emailAddress' : 'phoneNumber';
				return data.length ? data.some((entry) => matches(entry[key])) : matches(raw[field]);
			});
		} else {
			tests.push((raw) => matches(valueOf(store, entityType, raw, field)));
		}
	}
	// No field to search: nothing matches (DefaultFilter: `id = NULL`).
	return (raw) => tests.some((test) => test(raw));
}

/**
 * A primary filter (Modules/Crm/Classes/Select/<Type>/PrimaryFilters/*): a predicate, or where items where EspoCRM's
 * filter converts date items in the user's time zone (Todays, Overdue, ActualStartingNotInFuture: the sandbox's users
 * have the system's). An unknown one is EspoCRM's `Error`: 500 `No primary filter '<name>' for '<Type>'.`
 * (Core/Select/Primary/Applier).
 * @param {string} entityType @param {string} name @param {number} now
 * @returns {{ test: (raw: RawRecord) => boolean } | { where: Record<string, unknown>[] }}
 */
function primaryFilter(entityType, name, now) {
	const unknown = () => new ApiError(500, `No primary filter '${name}' for '${entityType}'.`);
	// SQL's NOT IN is not true for NULL.
	const notIn =
		(/** @type {string} */ field, /** @type {string[]} */ values) =>
		(/** @type {RawRecord} */ raw) =>
			raw[field] !== null && raw[field] !== undefined && !values.includes(raw[field]);
	const isIn =
		(/** @type {string} */ field, /** @type {string[]} */ values) =>
		(/** @type {RawRecord} */ raw) =>
			values.includes(raw[field]);
	const dateItem = (/** @type {string} */ type, /** @type {string} */ attribute) => ({
		type,
		attribute,
		dateTime: true,
		timeZone: APP_CONFIG.timeZone,
	});
	const test = (/** @type {(raw: RawRecord) => boolean} */ predicate) => ({ test: predicate });
	switch (`${entityType}.${name}`) {
		case 'Lead.actual':
			return test(notIn('status', NOT_ACTUAL.Lead));
		case 'Lead.converted':
			return test(isIn('status', ['Converted']));
		// Won: stages of probability 100; lost: of probability 0 (Opportunity/Utils/StageListPoriver).
		case 'Opportunity.open':
			return test(notIn('stage', ['Closed Won', 'Closed Lost']));
		case 'Opportunity.won':
			return test(isIn('stage', ['Closed Won']));
		case 'Opportunity.lost':
			return test(isIn('stage', ['Closed Lost']));
		// No portal users in the sandbox.
		case 'Contact.portalUsers':
			return test(() => false);
		case 'Contact.notPortalUsers':
			return test(() => true);
		case 'Account.customers':
			return test(isIn('type', ['Customer']));
		case 'Account.partners':
			return test(isIn('type', ['Partner']));
		case 'Account.resellers':
			return test(isIn('type', ['Reseller']));
		case 'Account.recentlyCreated': {
			const from = new Date(now - 7 * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
			return test((raw) => typeof raw.createdAt === 'string' && raw.createdAt >= from);
		}
		// Meeting/PrimaryFilters, which Call's selectDefs use too; Task/PrimaryFilters.
		case 'Meeting.planned':
		case 'Call.planned':
		case 'Task.actual':
			return test(
				entityType === 'Task'
					? notIn('status', NOT_ACTUAL.Task)
					: isIn('status', ACTIVITY_STATUSES[entityType]),
			);
		case 'Meeting.held':
		case 'Call.held':
		case 'Task.completed':
			return test(isIn('status', COMPLETED_STATUSES[entityType]));
		case 'Task.deferred':
			return test(isIn('status', ['Deferred']));
		// A meeting or call today by its start, a task by its due date.
		case 'Meeting.todays':
		case 'Call.todays':
			return { where: [dateItem('today', 'dateStart')] };
		case 'Task.todays':
			return { where: [dateItem('today', 'dateEnd')] };
		case 'Task.overdue':
			return {
				where: [
					dateItem('past', 'dateEnd'),
					{
						type: 'notIn',
						attribute: 'status',
						value: NOT_ACTUAL.Task.filter((s) => s !== 'Deferred'),
					},
				],
			};
		case 'Task.actualStartingNotInFuture':
			return {
				where: [
					{ type: 'notIn', attribute: 'status', value: NOT_ACTUAL.Task },
					{
						type: 'or',
						value: [
							{ type: 'isNull', attribute: 'dateStart' },
							{
								type: 'or',
								value: [dateItem('past', 'dateStart'), dateItem('today', 'dateStart')],
							},
						],
					},
				],
			};
		default:
			throw unknown();
	}
}

/**
 * A bool filter (Core/Select/SelectManager::boolFilterOnlyMy, onlyMyTeam; Core/Select/Bool/Filters/Followed):
 * Only My is the records assigned to the user (createdBy where the type has no assigned user), Followed those the
 * user follows, My Team those of the user's teams (the sandbox's users have none). An unknown one: 500
 * `No bool filter '<name>' for '<Type>'.`
 * @param {string} entityType @param {string} name @param {string | null} viewerId @returns {(raw: RawRecord) => boolean}
 */
function boolPredicate(entityType, name, viewerId) {
	const def = ENTITY_DEFS[entityType];
	switch (name) {
		case 'onlyMy':
			if (def.fields.assignedUser) return (raw) => raw.assignedUserId === viewerId;
			return (raw) => raw.createdById === viewerId;
		case 'followed':
			return (raw) => Boolean(viewerId && (raw._followers || []).includes(viewerId));
		case 'onlyMyTeam':
			return () => false;
		default:
			throw new ApiError(500, `No bool filter '${name}' for '${entityType}'.`);
	}
}

/**
 * The search parameters of a list request, the web UI's where items among them taken out of the where list.
 * @param {Record<string, any>} params @returns {{ params: Record<string, any>, textFilter?: string,
 *   primaryFilter?: string, boolFilterList: string[] }}
 */
function takeSearchParams(params) {
	let textFilter =
		params.textFilter ||
		(typeof params.q === 'string' && params.q.trim() !== '' ? params.q.trim() : undefined);
	let primaryFilter = params.primaryFilter || undefined;
	/** @type {string[]} */
	let boolFilterList = params.boolFilterList ? [].concat(params.boolFilterList).map(String) : [];
	let where = params.where;
	if (Array.isArray(where)) {
		where = where.filter((item) => {
			const type = item && typeof item === 'object' ? item.type : undefined;
			if (type === 'textFilter') textFilter = item.value;
			else if (type === 'primary' && item.value) primaryFilter = item.value;
			else if (type === 'bool' && Array.isArray(item.value) && item.value.length)
				boolFilterList = item.value.map(String);
			else return true;
			return false;
		});
	}
	return { params: { ...params, where }, textFilter, primaryFilter, boolFilterList };
}

/**
 * The predicate of a list's search parameters, and its params without the search where items (with those of a primary
 * filter that EspoCRM builds from date items).
 * @param {{ store: Store, entityType: string, params: Record<string, any>, viewerId: string | null, now: number }} args
 * @returns {{ params: Record<string, any>, predicate: (raw: RawRecord) => boolean }}
 */
function searchOf({ store, entityType, params, viewerId, now }) {
	const taken = takeSearchParams(params);
	if (taken.textFilter !== undefined && typeof taken.textFilter !== 'string')
		throw new ApiError(500, '');
	/** @type {Array<(raw: RawRecord) => boolean>} */
	const tests = [];
	let where = taken.params.where;
	if (taken.primaryFilter) {
		const filter = primaryFilter(entityType, String(taken.primaryFilter), now);
		if ('test' in filter) tests.push(filter.test);
		// A where that is not a list is refused as it is (compileWhere).
		else if (where === undefined || where === null) where = filter.where;
		else if (Array.isArray(where)) where = [...where, ...filter.where];
	}
	if (taken.boolFilterList.length) {
		const any = taken.boolFilterList.map((name) => boolPredicate(entityType, name, viewerId));
		tests.push((raw) => any.some((test) => test(raw)));
	}
	if (taken.textFilter) tests.push(textPredicate(store, entityType, taken.textFilter));
	return {
		params: { ...taken.params, where },
		predicate: (raw) => tests.every((test) => test(raw)),
	};
}

/**
 * GET /Metadata with the search definitions: clientDefs' filterList and boolFilterList, entityDefs'
 * collection.textFilterFields, and scopes' `stream` (EspoCRM's search view offers Followed where it is set).
 * @param {Record<string, any>} metadata the body of buildMetadata
 */
function withSearchMetadata(metadata) {
	for (const entityType of Object.keys(metadata.entityDefs)) {
		const def = SEARCH_DEFS[entityType] || {};
		const clientDefs = (metadata.clientDefs[entityType] ??= {});
		if (def.filterList) clientDefs.filterList = def.filterList;
		if (def.boolFilterList) clientDefs.boolFilterList = def.boolFilterList;
		if (def.textFilterFields)
			metadata.entityDefs[entityType].collection.textFilterFields = def.textFilterFields;
		if (ENTITY_DEFS[entityType]?.stream && metadata.scopes[entityType])
			metadata.scopes[entityType].stream = true;
	}
	return metadata;
}

/**
 * PUT / DELETE /{Entity}/{id}/subscription (Controllers/Record → Tools/Stream/Service::followEntity): the user
 * follows the record, or no longer does; `true`. A type without a stream: 403.
 * @param {Store} store @param {string} entityType @param {string} id @param {string} userId @param {boolean} follow
 */
function subscribe(store, entityType, id, userId, follow) {
	if (!ENTITY_DEFS[entityType].stream) throw new ApiError(403, '');
	const raw = store.table(entityType).get(id);
	if (!raw) throw new ApiError(404, '');
	const followers = /** @type {string[]} */ (
		(raw._followers || []).filter((/** @type {string} */ f) => f !== userId)
	);
	if (follow) followers.push(userId);
	Object.defineProperty(raw, '_followers', {
		value: followers,
		enumerable: false,
		writable: true,
		configurable: true,
	});
	return true;
}

module.exports = { SEARCH_DEFS, searchOf, withSearchMetadata, subscribe, takeSearchParams };
