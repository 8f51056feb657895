import type { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { isDateOnly, readMoment, serverDateTime, todayIn, wallClock } from '../fields/dates';
import type { Item } from '../item/item';
import { parseJsonParameter, requireWellFormed } from '../item/validation';
import { OPERATORS } from './listFields';

/**
 * A list's parameters (listFields.ts) as the list request's query: the filter's conditions as EspoCRM's where items
 * (with the dates and time zones EspoCRM needs), fields to return, order, and how many records are wanted.
 */

const OPERATOR_BY_VALUE = new Map(OPERATORS.map((operator) => [operator.value, operator]));

/**
 * Date-time fields, which EspoCRM stores as "YYYY-MM-DD HH:MM:SS": createdAt, modifiedAt and, by EspoCRM's
 * naming, other fields ending in "At", plus the date-time fields of its standard entity types.
 */
const DATE_TIME_FIELDS = new Set([
	'dateStart',
	'dateEnd',
	'dateSent',
	'dateCompleted',
	'lastViewedAt',
]);

function isDateTimeField(attribute: string) {
	return /[a-z]At$/.test(attribute) || DATE_TIME_FIELDS.has(attribute);
}

interface Condition {
	attribute?: string;
	operator?: string;
	value?: unknown;
	values?: unknown;
	from?: unknown;
	to?: unknown;
	days?: unknown;
}

type WhereItem = IDataObject & { type: string };

function listOf(value: unknown): unknown[] {
	if (Array.isArray(value)) return value;
	if (typeof value === 'string')
		return value
			.split(',')
			.map((part) => part.trim())
			.filter((part) => part !== '');
	return value === undefined || value === null || value === '' ? [] : [value];
}

/**
 * No field's name holds "#". EspoCRM 9.3.8 and later refuse it (403, Core/Select/Where/Checker); older versions took a
 * leading "#" as the alias of a column in the query: never a field of the record.
 */
const HASH_IN_FIELD =
	'a field name cannot hold "#" (EspoCRM 9.3.8 and later refuse it); use the name the field list shows';

/** Builds one where item from a condition, or says which part of which condition is wrong. */
export function whereItemOf(
	condition: Condition,
	position: number,
	timeZone: string,
): WhereItem | string {
	const attribute = String(condition.attribute ?? '').trim();
	const operator = OPERATOR_BY_VALUE.get(String(condition.operator));
	if (!operator) return `condition ${position} has an unknown operator "${condition.operator}"`;
	if (attribute === '') return `condition ${position} has no field`;
	if (attribute.includes('#'))
		return `condition ${position} names the field "${attribute}": ${HASH_IN_FIELD}`;

	const item: WhereItem = { type: operator.value, attribute };
	switch (operator.shape) {
		case 'one':
			if (condition.value === undefined || condition.value === null || condition.value === '') {
				return `condition ${position} (${attribute}) needs a value`;
			}
			item.value = condition.value as string;
			break;
		case 'list': {
			const values = listOf(condition.values);
			if (values.length === 0)
				return `condition ${position} (${attribute}) needs at least one value`;
			item.value = values as string[];
			break;
		}
		case 'range':
			if (!condition.from || !condition.to)
				return `condition ${position} (${attribute}) needs both From and To`;
			item.value = [condition.from, condition.to] as string[];
			break;
		case 'days': {
			const days = Number(condition.days);
			if (!Number.isInteger(days) || days < 0)
				return `condition ${position} (${attribute}) needs a whole number of days`;
			item.value = days;
			break;
		}
		case 'none':
			break;
	}
	if (operator.date && isDateTimeField(attribute)) {
		const dated = withDateTime(item, timeZone);
		if (!dated)
			return `condition ${position} (${attribute}) needs a date such as 2026-11-23 or a date-time such as 2026-11-23 14:38:36`;
		return dated.type === 'notOn' ? notOnDay(dated) : dated;
	}
	return operator.date ? inWorkflowDays(item, timeZone) : item;
}

/**
 * A relative date operator on a date field (`closeDate`), as explicit days of the workflow's time zone. EspoCRM
 * computes `today`, `past`, `lastXDays` and the periods of a date field in its own configured zone (UTC by default),
 * which is yesterday or tomorrow for a workflow far from it; `on`, `before`, `after` and `between` with dates are
 * exact on every server. Other operators are returned as they are.
 */
function inWorkflowDays(item: WhereItem, timeZone: string): WhereItem {
	const { type, value, ...rest } = item;
	const today = todayIn(timeZone);
	const days = Number(value ?? 0);
	const day = (moment: DateTime) => moment.toFormat('yyyy-MM-dd');
	const one = (oneType: string, moment: DateTime): WhereItem => ({
		...rest,
		type: oneType,
		value: day(moment),
	});
	const between = (from: DateTime, to: DateTime): WhereItem => ({
		...rest,
		type: 'between',
		value: [day(from), day(to)],
	});
	const period = (unit: 'month' | 'quarter' | 'year', offset: number) => {
		const start = today.plus({ [`${unit}s`]: offset }).startOf(unit);
		return between(start, start.endOf(unit));
	};
	switch (type) {
		case 'today':
			return one('on', today);
		case 'past':
			return one('before', today);
		case 'future':
			return one('after', today);
		case 'lastSevenDays':
			return between(today.minus({ days: 7 }), today);
		case 'lastXDays':
			return Number.isFinite(days) ? between(today.minus({ days }), today) : item;
		case 'nextXDays':
			return Number.isFinite(days) ? between(today, today.plus({ days })) : item;
		case 'olderThanXDays':
			return Number.isFinite(days) ? one('before', today.minus({ days })) : item;
		case 'afterXDays':
			return Number.isFinite(days) ? one('after', today.plus({ days })) : item;
		case 'currentMonth':
			return period('month', 0);
		case 'lastMonth':
			return period('month', -1);
		case 'nextMonth':
			return period('month', 1);
		case 'currentQuarter':
			return period('quarter', 0);
		case 'lastQuarter':
			return period('quarter', -1);
		case 'currentYear':
			return period('year', 0);
		case 'lastYear':
			return period('year', -1);
		default:
			return item;
	}
}

/**
 * "Not on a day" of a date-time field, as EspoCRM answers it rightly: it drops the value of `notOn` with `dateTime`
 * (8.1.5 matches every record then), but reads "before the day" and "after the day" in the item's time zone.
 */
function notOnDay(item: WhereItem): WhereItem {
	const { type, ...rest } = item;
	return {
		type: 'or',
		value: [
			{ ...rest, type: 'before' },
			{ ...rest, type: 'after' },
		],
	};
}

/**
 * A date operator on a date-time field, as EspoCRM answers it rightly: with `dateTime` and a time zone, in which
 * it reads dates (day boundaries) and date-times without a zone. A date-time value is an instant (see readMoment:
 * the server's own form is UTC, as copied from a record); it is sent in UTC when the item has no date, and as
 * wall-clock time of the workflow's zone otherwise, so that both kinds of value are read in one zone.
 * Undefined when a value is neither a date nor a date-time.
 */
function withDateTime(item: WhereItem, timeZone: string): WhereItem | undefined {
	if (item.value === undefined || item.value === null || typeof item.value === 'number') {
		return { ...item, dateTime: true, timeZone };
	}
	const values = Array.isArray(item.value) ? item.value : [item.value];
	const moments = values.map((value) =>
		isDateOnly(value) ? undefined : readMoment(value, timeZone),
	);
	if (values.some((value, index) => !isDateOnly(value) && moments[index] === undefined))
		return undefined;
	const zone = values.some(isDateOnly) ? timeZone : 'UTC';
	const sent = values.map((value, index) => {
		const moment = moments[index];
		if (!moment) return (value as string).trim();
		return zone === 'UTC' ? serverDateTime(moment) : wallClock(moment, zone);
	});
	return {
		...item,
		value: Array.isArray(item.value) ? sent : sent[0],
		dateTime: true,
		timeZone: zone,
	};
}

/** Checks a where list given as JSON: every item needs a type, and "and"/"or" a list of items. */
function checkWhereList(items: unknown, path: string): string | undefined {
	if (!Array.isArray(items)) return `${path} must be a list of where items`;
	for (const [index, item] of items.entries()) {
		const at = `${path}[${index}]`;
		if (item === null || typeof item !== 'object' || Array.isArray(item))
			return `${at} must be an object`;
		const { type, value, attribute } = item as IDataObject;
		if (typeof type !== 'string' || type === '') return `${at} has no "type"`;
		if (GROUP_TYPES.has(type) || type === 'subQueryIn' || type === 'subQueryNotIn') {
			const nested = checkWhereList(value, `${at}.value`);
			if (nested) return nested;
			continue;
		}
		if (typeof attribute !== 'string' || attribute === '') return `${at} has no "attribute"`;
		if (attribute.includes('#')) return `${at} has the attribute "${attribute}": ${HASH_IN_FIELD}`;
		const operator = OPERATOR_BY_VALUE.get(type);
		if (
			operator &&
			operator.shape !== 'none' &&
			(value === undefined || value === null || value === '')
		) {
			return `${at} (${type}) needs a "value"`;
		}
		if (
			operator &&
			(operator.shape === 'list' || operator.shape === 'range') &&
			!Array.isArray(value)
		) {
			return `${at} (${type}) needs a list as "value"`;
		}
	}
	return undefined;
}

const GROUP_TYPES = new Set(['and', 'or', 'not']);

/**
 * Gives the date operators of a where list written as JSON what the form's conditions get: on a date-time field,
 * `dateTime` and the workflow's time zone, and on a date field the relative operators as days of that zone, unless
 * the item says otherwise (`dateTime` or `timeZone` set).
 */
function withTimeZones(items: IDataObject[], timeZone: string): IDataObject[] {
	return items.map((item) => {
		const type = String(item.type);
		if (GROUP_TYPES.has(type) && Array.isArray(item.value)) {
			return { ...item, value: withTimeZones(item.value as IDataObject[], timeZone) };
		}
		const dateOperator = OPERATOR_BY_VALUE.get(type)?.date === true;
		if (!dateOperator || item.dateTime !== undefined) return item;
		if (!isDateTimeField(String(item.attribute)))
			return item.timeZone === undefined ? inWorkflowDays(item as WhereItem, timeZone) : item;
		// A value that is no date at all is left to the server to refuse: Where JSON is for the cases the form misses.
		const dated = withDateTime(item as WhereItem, timeZone);
		if (!dated) return { ...item, dateTime: true, timeZone };
		return dated.type === 'notOn' ? notOnDay(dated) : dated;
	});
}

/** The where list of the filter parameters, or undefined when there is no filter; refuses a wrong condition. */
export function whereOf(item: Item): IDataObject[] | undefined {
	const mode = item.parameter<string>('filterMode', 'none');
	let where: unknown;
	if (mode === 'conditions') {
		const conditions = item.parameter<Condition[]>('conditions.condition', []);
		const items = conditions.map((condition, index) =>
			whereItemOf(condition, index + 1, item.timeZone),
		);
		const problem = items.find((entry): entry is string => typeof entry === 'string');
		if (problem) throw item.refuse('Conditions', `: ${problem}`);
		items.forEach((where, index) =>
			requireWellFormed(item, where, 'Conditions', `condition ${index + 1}`),
		);
		const matchType = item.parameter<string>('matchType', 'and');
		where = matchType === 'or' && items.length > 1 ? [{ type: 'or', value: items }] : items;
	} else if (mode === 'json') {
		where = parseJsonParameter(item, item.parameter('whereJson'), 'Where (JSON)');
		const problem = checkWhereList(where, 'where');
		if (problem) throw item.refuse('Where (JSON)', `: ${problem}`);
		requireWellFormed(item, where, 'Where (JSON)', 'where');
		where = withTimeZones(where as IDataObject[], item.timeZone);
	}
	return Array.isArray(where) && where.length > 0 ? (where as IDataObject[]) : undefined;
}

/** The list query of the list parameters: fields to return, order and filter. */
export function listQueryOf(item: Item): IDataObject {
	const options = item.parameter<IDataObject>('listOptions', {});
	const select = ([] as unknown[])
		.concat(options.select ?? [])
		.join(',')
		.split(',')
		.map((name) => name.trim())
		.filter((name) => name !== '')
		.join(',');
	requireWellFormed(item, select, 'Fields to Return');
	requireWellFormed(item, options.orderBy, 'Sort By');
	const where = whereOf(item);
	return {
		...(select ? { select } : {}),
		...(options.orderBy ? { orderBy: options.orderBy } : {}),
		...(options.order ? { order: options.order } : {}),
		...(where ? { where } : {}),
	};
}

/** How many records a list operation returns: all of them for Return All, else the Limit. */
export function wantedRecords(item: Item): number {
	if (item.parameter('returnAll', false)) return Infinity;
	const limit = item.parameter<number>('limit', 50);
	if (!Number.isInteger(limit) || limit < 1)
		throw item.refuse('Limit', `must be a whole number of at least 1, not ${limit}`);
	return limit;
}
