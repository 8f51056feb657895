// @ts-check
'use strict';

const {
	ENTITY_DEFS,
	APP_CONFIG,
	getAttributes,
	getLink,
	hasName,
	collectionOf,
} = require('./metadata');
const { selectAttributeList } = require('./espo');
const { searchOf } = require('./search');
const {
	ApiError,
	phpError,
	formatDateTime,
	addDays,
	addMonths,
	todayIn,
	isValidTimeZone,
	parseDateTime,
	phpDateTime,
	instantToWall,
	wallToInstant,
	normaliseWall,
} = require('./util');

/**
 * @typedef {import('./store').Store} Store
 * @typedef {import('./store').RawRecord} RawRecord
 * @typedef {(raw: RawRecord) => boolean} Predicate
 * @typedef {{ store: Store, entityType: string, now: number, unknownTypeStatus: number }} WhereContext
 */

const MAX_SIZE_LIMIT = 200;
const badItem = () => new ApiError(400, 'Bad where item.');

// The where types of EspoCRM 8.1.5 (Core/Select/Where/Item/Type.php). nextQuarter and nextYear are not among them.
const PERIOD_TYPES = [
	'currentMonth',
	'lastMonth',
	'nextMonth',
	'currentQuarter',
	'lastQuarter',
	'currentYear',
	'lastYear',
	'currentFiscalYear',
	'lastFiscalYear',
	'currentFiscalQuarter',
	'lastFiscalQuarter',
];
const NO_VALUE_TYPES = new Set([
	'isNull',
	'isNotNull',
	'isTrue',
	'isFalse',
	'today',
	'past',
	'future',
	'lastSevenDays',
	'ever',
	'any',
	'none',
	...PERIOD_TYPES,
	'arrayIsEmpty',
	'arrayIsNotEmpty',
	'isLinked',
	'isNotLinked',
]);
const LINK_TYPES = new Set([
	'linkedWith',
	'notLinkedWith',
	'linkedWithAll',
	'isLinked',
	'isNotLinked',
]);
const DATE_TYPES = new Set([
	'today',
	'past',
	'future',
	'lastSevenDays',
	'lastXDays',
	'nextXDays',
	'olderThanXDays',
	'afterXDays',
	...PERIOD_TYPES,
	'on',
	'notOn',
	'between',
	'after',
	'before',
	'ever',
]);
const ALL_TYPES = new Set([
	...NO_VALUE_TYPES,
	...LINK_TYPES,
	...DATE_TYPES,
	'equals',
	'notEquals',
	'in',
	'notIn',
	'greaterThan',
	'lessThan',
	'greaterThanOrEquals',
	'lessThanOrEquals',
	'like',
	'notLike',
	'contains',
	'notContains',
	'startsWith',
	'endsWith',
	'arrayAnyOf',
	'arrayNoneOf',
	'arrayAllOf',
	'and',
	'or',
]);

/** PHP truthiness of a where parameter: '' and '0' are false, the string 'false' is true. @param {unknown} v */
const phpTruthy = (v) =>
	!(
		v === undefined ||
		v === null ||
		v === false ||
		v === '' ||
		v === '0' ||
		v === 0 ||
		(Array.isArray(v) && v.length === 0)
	);
/** PHP's empty(). */
const phpEmpty = (/** @type {unknown} */ v) => !phpTruthy(v);
/** An error of EspoCRM's where machinery (Espo\Core\Exceptions\Error): 500 with the message as reason. @param {string} reason */
const whereError = (reason) => new ApiError(500, reason);

/** @param {unknown} v */
const truthy = (v) => v === true || v === 'true' || v === '1' || v === 1;

/**
 * A value as MySQL compares it with the column: date and date-time columns compare as 'YYYY-MM-DD HH:MM:SS'
 * (a bare date is read as midnight, and a DATE column is promoted when the other side has a time). This is what
 * makes EspoCRM's date filters on date-time attributes answer wrongly without `dateTime=true`.
 * @param {string} kind @param {unknown} v
 */
function asComparable(kind, v) {
	if (v === null || v === undefined) return null;
	if (kind === 'int' || kind === 'float') return typeof v === 'number' ? v : Number(v);
	if (kind === 'bool') return truthy(v);
	const s = String(v);
	if (kind === 'datetime' || kind === 'date') {
		if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return `${s} 00:00:00`;
		return parseDateTime(s) ?? s;
	}
	return s;
}

/** SQL three-valued comparison collapsed to JS: null on either side compares as "no match". @returns {number | null} */
function compare(/** @type {unknown} */ a, /** @type {unknown} */ b) {
	if (a === null || a === undefined || b === null || b === undefined) return null;
	if (typeof a === 'number' && typeof b === 'number')
		return Number.isNaN(a) || Number.isNaN(b) ? null : a - b;
	if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
	// utf8mb4_unicode_ci: case-insensitive.
	const x = String(a).toLowerCase();
	const y = String(b).toLowerCase();
	return x < y ? -1 : x > y ? 1 : 0;
}

/** SQL LIKE (case-insensitive, % and _, backslash escapes) → RegExp. @param {string} pattern */
function likeToRegExp(pattern) {
	let re = '';
	for (let i = 0; i < pattern.length; i++) {
		const c = pattern[i];
		if (c === '\\' && i + 1 < pattern.length)
			re += pattern[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
		else if (c === '%') re += '.*';
		else if (c === '_') re += '.';
		else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
	}
	return new RegExp(`^${re}$`, 'is');
}

/** @param {unknown} v @returns {unknown[]} */
const asArray = (v) => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/**
 * Builds a predicate from a list of where items (implicitly AND-ed).
 * @param {unknown} where @param {WhereContext} ctx @returns {Predicate}
 */
function compileWhere(where, ctx) {
	if (where === undefined || where === null || where === '') return () => true;
	if (!Array.isArray(where)) throw badItem();
	const preds = where.map((item) => compileItem(item, ctx));
	return (raw) => preds.every((p) => p(raw));
}

/**
 * `<phone field>Numeric` (Orm/FieldConverters/Phone.php, EspoCRM 7.5 and later): the digits of every number of the
 * record (the phone_number table's `numeric` column, made with `preg_replace('/[^0-9]/', '', $number)` of the stored
 * form), compared with `equals` or `in`; undefined when the attribute is not one.
 * @param {string} entityType @param {string} attribute @param {string} type @param {unknown} value @param {Store} store
 * @returns {Predicate | undefined}
 */
function numericPhonePredicate(entityType, attribute, type, value, store) {
	const field = attribute.endsWith('Numeric') ? attribute.slice(0, -'Numeric'.length) : '';
	const attrs = getAttributes(entityType);
	const fieldDef = attrs.get(field);
	if (!field || fieldDef?.fieldType !== 'phone' || fieldDef.role) return undefined;
	if (type !== 'equals' && type !== 'in')
		throw new ApiError(400, `The sandbox compares ${attribute} only with equals and in.`);
	const wanted = new Set(asArray(value).map((v) => String(v)));
	const dataDef = attrs.get(`${field}Data`);
	return (raw) => {
		const numbers = dataDef
			? /** @type {any[]} */ (store.attributeValue(entityType, raw, `${field}Data`, dataDef)).map(
					(e) => e.phoneNumber,
				)
			: [store.attributeValue(entityType, raw, field, fieldDef)];
		return numbers.some(
			(number) => typeof number === 'string' && wanted.has(number.replace(/[^0-9]/g, '')),
		);
	};
}

/** @param {unknown} item @param {WhereContext} ctx @returns {Predicate} */
function compileItem(item, ctx) {
	if (!item || typeof item !== 'object' || Array.isArray(item)) throw badItem();
	const it = /** @type {Record<string, any>} */ (item);
	const type = it.type;
	if (typeof type !== 'string' || type === '') throw badItem();
	if (!ALL_TYPES.has(type)) {
		// EspoCRM 8.1.5 fails with 500, an empty body and the reason of its Error (Where/ItemGeneralConverter::convert);
		// 8.2+ (and the standard dialect here) with 400.
		throw new ApiError(
			ctx.unknownTypeStatus,
			ctx.unknownTypeStatus === 400 ? 'Unknown where type.' : `Unknown where item type '${type}'.`,
		);
	}
	const value = it.value;
	const isDateTimeItem = phpTruthy(it.dateTime);
	// (A date-time item without a value is the transformer's to judge, below.)
	if (!NO_VALUE_TYPES.has(type) && value === undefined && !isDateTimeItem) throw badItem();

	if (type === 'and' || type === 'or') {
		if (!Array.isArray(value)) throw badItem();
		const preds = value.map((sub) => compileItem(sub, ctx));
		if (preds.length === 0) return () => true;
		return type === 'and'
			? (raw) => preds.every((p) => p(raw))
			: (raw) => preds.some((p) => p(raw));
	}

	const attribute = it.attribute;
	if (typeof attribute !== 'string' || attribute === '') throw badItem();
	const { store, entityType } = ctx;

	if (LINK_TYPES.has(type)) {
		const ld = getLink(entityType, attribute);
		if (!ld || !ld.entity) throw new ApiError(400, `Not existing link '${attribute}' in where.`);
		const ids = new Set(asArray(value).map(String));
		const related = (/** @type {RawRecord} */ raw) =>
			store.relatedIds(entityType, raw.id, attribute);
		switch (type) {
			case 'linkedWith':
				return (raw) => related(raw).some((id) => ids.has(id));
			case 'notLinkedWith':
				return (raw) => !related(raw).some((id) => ids.has(id));
			case 'linkedWithAll':
				return (raw) => [...ids].every((id) => related(raw).includes(id));
			case 'isLinked':
				return (raw) => related(raw).length > 0;
			default:
				return (raw) => related(raw).length === 0;
		}
	}

	const numeric = numericPhonePredicate(entityType, attribute, type, value, store);
	if (numeric) return numeric;
	const attrDef = getAttributes(entityType).get(attribute);
	if (!attrDef) throw new ApiError(400, `Not existing attribute '${attribute}' in where.`);
	const kind = attrDef.kind;
	const get = (/** @type {RawRecord} */ raw) =>
		store.attributeValue(entityType, raw, attribute, attrDef);
	const conv = (/** @type {unknown} */ v) => asComparable(kind, v);
	/** @param {(c: number) => boolean} test @param {unknown} operand @returns {Predicate} */
	const cmp = (test, operand) => {
		const b = conv(operand);
		return (raw) => {
			const c = compare(conv(get(raw)), b);
			return c !== null && test(c);
		};
	};
	/** @param {unknown} from @param {unknown} to inclusive range, as SQL BETWEEN / >= AND <= */
	const range = (from, to) => {
		const f = cmp((c) => c >= 0, from);
		const t = cmp((c) => c <= 0, to);
		return (/** @type {RawRecord} */ raw) => f(raw) && t(raw);
	};
	/** @param {unknown} from @param {unknown} to half-open range >= AND < */
	const halfOpen = (from, to) => {
		const f = cmp((c) => c >= 0, from);
		const t = cmp((c) => c < 0, to);
		return (/** @type {RawRecord} */ raw) => f(raw) && t(raw);
	};
	/** @param {string} pattern @param {boolean} negate @returns {Predicate} */
	const like = (pattern, negate) => {
		const re = likeToRegExp(pattern);
		return (raw) => {
			const v = get(raw);
			if (v === null || v === undefined) return false;
			return re.test(String(v)) !== negate;
		};
	};

	// `dateTime` (any attribute, PHP truthiness): the item is first rewritten by EspoCRM's DateTimeItemTransformer.
	if (isDateTimeItem) {
		const t = transformDateTimeItem(type, value, it.timeZone, ctx.now);
		return transformedPredicate(t, { get, cmp, range, like });
	}
	if (DATE_TYPES.has(type))
		return datePredicate(type, value, ctx.now, { cmp, range, halfOpen, get });

	// EspoCRM compares an e-mail or phone field with every address of the record, not only the primary one
	// (Orm/FieldConverters/Email.php, Phone.php: `=` and `IN` join all of them).
	if (
		(attrDef.fieldType === 'email' || attrDef.fieldType === 'phone') &&
		!attrDef.role &&
		(type === 'equals' || type === 'in')
	) {
		const dataDef = getAttributes(entityType).get(`${attribute}Data`);
		const key = attrDef.fieldType === 'email' ? 'emailAddress' : 'phoneNumber';
		const wanted = asArray(value).map(conv);
		return (raw) => {
			const all = dataDef
				? /** @type {any[]} */ (
						store.attributeValue(entityType, raw, `${attribute}Data`, dataDef)
					).map((e) => e[key])
				: [get(raw)];
			return all.some((v) => wanted.some((w) => compare(conv(v), w) === 0));
		};
	}

	switch (type) {
		case 'equals':
			if (Array.isArray(value)) return inPredicate(value, false, get, conv);
			return cmp((c) => c === 0, value);
		case 'notEquals':
			if (Array.isArray(value)) return inPredicate(value, true, get, conv);
			return cmp((c) => c !== 0, value);
		case 'in':
			return inPredicate(asArray(value), false, get, conv);
		case 'notIn':
			return inPredicate(asArray(value), true, get, conv);
		case 'greaterThan':
			return cmp((c) => c > 0, value);
		case 'lessThan':
			return cmp((c) => c < 0, value);
		case 'greaterThanOrEquals':
			return cmp((c) => c >= 0, value);
		case 'lessThanOrEquals':
			return cmp((c) => c <= 0, value);
		case 'like':
			return like(String(value), false);
		case 'notLike':
			return like(String(value), true);
		// EspoCRM wraps the value without escaping it: % and _ inside stay wildcards.
		case 'contains':
			return like(`%${value}%`, false);
		case 'notContains':
			return like(`%${value}%`, true);
		case 'startsWith':
			return like(`${value}%`, false);
		case 'endsWith':
			return like(`%${value}`, false);
		case 'isNull':
			return (raw) => get(raw) === null || get(raw) === undefined;
		case 'isNotNull':
			return (raw) => get(raw) !== null && get(raw) !== undefined;
		case 'isTrue':
			return (raw) => get(raw) === true;
		// Bool columns are NOT NULL DEFAULT 0 in EspoCRM, so a missing value reads as false.
		case 'isFalse':
			return (raw) => get(raw) === false || get(raw) === null;
		case 'any':
			return () => true;
		case 'none':
			return () => false;
		case 'arrayAnyOf':
		case 'arrayNoneOf':
		case 'arrayAllOf': {
			const wanted = asArray(value).map((x) => String(x).toLowerCase());
			return (raw) => {
				const have = new Set(asArray(get(raw)).map((x) => String(x).toLowerCase()));
				if (type === 'arrayAnyOf') return wanted.some((w) => have.has(w));
				if (type === 'arrayNoneOf') return !wanted.some((w) => have.has(w));
				return wanted.every((w) => have.has(w));
			};
		}
		case 'arrayIsEmpty':
			return (raw) => asArray(get(raw)).length === 0;
		case 'arrayIsNotEmpty':
			return (raw) => asArray(get(raw)).length > 0;
		default:
			throw new ApiError(ctx.unknownTypeStatus, '');
	}
}

/** @param {unknown[]} values @param {boolean} negate @param {(r: RawRecord) => unknown} get @param {(v: unknown) => unknown} conv @returns {Predicate} */
function inPredicate(values, negate, get, conv) {
	const set = values.map(conv);
	return (raw) => {
		const v = conv(get(raw));
		if (v === null || v === undefined) return false; // NULL IN (...) and NULL NOT IN (...) are both unknown
		const hit = set.some((x) => compare(v, x) === 0);
		return negate ? !hit : hit;
	};
}

/** @param {string} today @param {string} type @returns {[string, string] | null} first day of the period, first day after it */
function period(today, type) {
	const [y, m] = today.split('-').map(Number);
	const monthStart = `${y}-${String(m).padStart(2, '0')}-01`;
	const qStartMonth = Math.floor((m - 1) / 3) * 3 + 1;
	const quarterStart = `${y}-${String(qStartMonth).padStart(2, '0')}-01`;
	const yearStart = `${y}-01-01`;
	// fiscalYearShift is 0: fiscal years and quarters are calendar ones.
	switch (type) {
		case 'currentMonth':
			return [monthStart, addMonths(monthStart, 1)];
		case 'lastMonth':
			return [addMonths(monthStart, -1), monthStart];
		case 'nextMonth':
			return [addMonths(monthStart, 1), addMonths(monthStart, 2)];
		case 'currentQuarter':
		case 'currentFiscalQuarter':
			return [quarterStart, addMonths(quarterStart, 3)];
		case 'lastQuarter':
		case 'lastFiscalQuarter':
			return [addMonths(quarterStart, -3), quarterStart];
		case 'currentYear':
		case 'currentFiscalYear':
			return [yearStart, addMonths(yearStart, 12)];
		case 'lastYear':
		case 'lastFiscalYear':
			return [addMonths(yearStart, -12), yearStart];
		default:
			return null;
	}
}

/** intval() of a number of days. @param {unknown} v */
function days(v) {
	const n = typeof v === 'number' ? v : parseFloat(String(v));
	return Number.isFinite(n) ? Math.trunc(n) : 0;
}

/**
 * Date types without `dateTime` (ItemGeneralConverter::process*): compared with dates of the system time zone
 * (UTC), whatever `timeZone` the item carries. On a date-time attribute the dates are read as midnight (see
 * asComparable), which is why a record created a second ago is in the `future` there.
 * @param {string} type @param {unknown} value @param {number} now
 * @param {{ cmp: (t: (c: number) => boolean, v: unknown) => Predicate, range: (a: unknown, b: unknown) => Predicate,
 *   halfOpen: (a: unknown, b: unknown) => Predicate, get: (r: RawRecord) => unknown }} ops
 * @returns {Predicate}
 */
function datePredicate(type, value, now, { cmp, range, halfOpen, get }) {
	const today = todayIn(APP_CONFIG.timeZone, now);
	const p = period(today, type);
	if (p) return halfOpen(p[0], p[1]);
	switch (type) {
		case 'today':
			return cmp((c) => c === 0, today);
		case 'past':
			return cmp((c) => c < 0, today);
		case 'future':
			return cmp((c) => c > 0, today);
		case 'lastSevenDays':
			return range(addDays(today, -7), today);
		case 'lastXDays':
			return range(addDays(today, -days(value)), today);
		case 'nextXDays':
			return range(today, addDays(today, days(value)));
		case 'olderThanXDays':
			return cmp((c) => c < 0, addDays(today, -days(value)));
		case 'afterXDays':
			return cmp((c) => c > 0, addDays(today, days(value)));
		case 'on':
			return cmp((c) => c === 0, value);
		case 'notOn':
			return cmp((c) => c !== 0, value);
		case 'after':
			return cmp((c) => c > 0, value);
		case 'before':
			return cmp((c) => c < 0, value);
		case 'ever':
			return (raw) => get(raw) !== null && get(raw) !== undefined;
		case 'between': {
			if (!Array.isArray(value) || value.length < 2) throw whereError("Bad where item 'between'.");
			return range(value[0], value[1]);
		}
		default:
			throw badItem();
	}
}

/** @typedef {{ type: string, value?: unknown }} TransformedItem */

/**
 * EspoCRM's DateTimeItemTransformer (Core/Select/Where/DateTimeItemTransformer.php), for items with
 * `dateTime=true`: the day boundaries are computed in `timeZone` with PHP's DateTime and turned into UTC
 * date-times, and the item becomes `between` (both ends included), `before` or `after`. Its quirks are kept:
 *   - values are parsed by PHP: a value with its own offset or `Z` is that instant, one without is wall-clock time
 *     in `timeZone`, a date is that day in `timeZone`;
 *   - `between` adds the day to a date end in UTC, after the conversion (an hour off across a DST change);
 *   - periods (currentMonth, …) end at the first second of the next period, included;
 *   - nextXDays ends at 00:59:59 of the day after the last (setTime(24, 59, 59));
 *   - afterXDays is after the midnight that starts day X, not the one that ends it;
 *   - every other type (notOn, equals, greaterThan, …) keeps its type but loses its value.
 * @param {string} type @param {unknown} value @param {unknown} timeZoneParam @param {number} nowMs
 * @returns {TransformedItem}
 */
function transformDateTimeItem(type, value, timeZoneParam, nowMs) {
	const tz = typeof timeZoneParam === 'string' && timeZoneParam !== '' ? timeZoneParam : 'UTC';
	// new DateTimeZone('Foo') throws a plain exception: 500 without a reason.
	if (!isValidTimeZone(tz)) throw phpError(500);
	if (phpEmpty(value) && ['on', 'before', 'after'].includes(type))
		throw whereError('Bad where item. Empty value.');
	const utc = (/** @type {number} */ t) => formatDateTime(t);
	/** @param {unknown} v */
	const parse = (v) => {
		try {
			return phpDateTime(String(v), tz, nowMs);
		} catch {
			throw phpError(500);
		}
	};
	const nowWall = instantToWall(nowMs, tz);
	/** A wall-clock time relative to now, normalised and resolved in tz. @param {Partial<import('./util').Wall>} w */
	const at = (w) => wallToInstant(normaliseWall({ ...nowWall, ...w }), tz);
	/** End of the day that starts at a local midnight: +1 day -1 second in wall-clock time. @param {number} t */
	const endOfLocalDay = (t) => {
		const w = instantToWall(t, tz);
		return wallToInstant(normaliseWall({ ...w, d: w.d + 1, s: w.s - 1 }), tz);
	};
	const dateLike = (/** @type {unknown} */ v) => String(v).length <= 10;
	const nowUtc = utc(Math.floor(nowMs / 1000) * 1000);
	const n = days(value);
	switch (type) {
		case 'today': {
			const from = at({ h: 0, mi: 0, s: 0 });
			return { type: 'between', value: [utc(from), utc(endOfLocalDay(from))] };
		}
		case 'past':
			return { type: 'before', value: nowUtc };
		case 'future':
			return { type: 'after', value: nowUtc };
		case 'lastSevenDays':
			return { type: 'between', value: [utc(at({ d: nowWall.d - 7, h: 0, mi: 0, s: 0 })), nowUtc] };
		case 'lastXDays':
			return { type: 'between', value: [utc(at({ d: nowWall.d - n, h: 0, mi: 0, s: 0 })), nowUtc] };
		case 'nextXDays':
			return {
				type: 'between',
				value: [nowUtc, utc(at({ d: nowWall.d + n, h: 24, mi: 59, s: 59 }))],
			};
		case 'olderThanXDays':
			return { type: 'before', value: utc(at({ d: nowWall.d - n, h: 0, mi: 0, s: 0 })) };
		case 'afterXDays':
			return { type: 'after', value: utc(at({ d: nowWall.d + n, h: 0, mi: 0, s: 0 })) };
		case 'on': {
			const from = parse(value);
			return {
				type: 'between',
				value: [utc(from), utc(dateLike(value) ? endOfLocalDay(from) : from)],
			};
		}
		case 'before':
			return { type: 'before', value: utc(parse(value)) };
		case 'after': {
			const t = parse(value);
			return { type: 'after', value: utc(dateLike(value) ? endOfLocalDay(t) : t) };
		}
		case 'between': {
			if (!Array.isArray(value) || value.length < 2) throw whereError('Bad where item. Bad value.');
			const from = parse(value[0]);
			const to = parse(value[1]) + (dateLike(value[1]) ? 86_399_000 : 0);
			return { type: 'between', value: [utc(from), utc(to)] };
		}
		case 'currentMonth':
		case 'lastMonth':
		case 'nextMonth': {
			const shift = type === 'lastMonth' ? -1 : type === 'nextMonth' ? 1 : 0;
			return {
				type: 'between',
				value: [
					utc(at({ mo: nowWall.mo + shift, d: 1, h: 0, mi: 0, s: 0 })),
					utc(at({ mo: nowWall.mo + shift + 1, d: 1, h: 0, mi: 0, s: 0 })),
				],
			};
		}
		case 'currentQuarter':
		case 'lastQuarter':
		case 'currentFiscalQuarter':
		case 'lastFiscalQuarter': {
			const quarterStart =
				Math.floor((nowWall.mo - 1) / 3) * 3 + 1 - (type.startsWith('last') ? 3 : 0);
			return {
				type: 'between',
				value: [
					utc(at({ mo: quarterStart, d: 1, h: 0, mi: 0, s: 0 })),
					utc(at({ mo: quarterStart + 3, d: 1, h: 0, mi: 0, s: 0 })),
				],
			};
		}
		case 'currentYear':
		case 'lastYear':
		case 'currentFiscalYear':
		case 'lastFiscalYear': {
			const year = nowWall.y - (type.startsWith('last') ? 1 : 0);
			return {
				type: 'between',
				value: [
					utc(at({ y: year, mo: 1, d: 1, h: 0, mi: 0, s: 0 })),
					utc(at({ y: year + 1, mo: 1, d: 1, h: 0, mi: 0, s: 0 })),
				],
			};
		}
		default:
			return { type };
	}
}

/**
 * The transformed item as ItemGeneralConverter and the ORM build it: between → >= AND <=, before → <,
 * after → >; a type that lost its value compares with NULL (`= NULL` is IS NULL in EspoCRM's ORM).
 * @param {TransformedItem} t
 * @param {{ get: (r: RawRecord) => unknown, cmp: (t: (c: number) => boolean, v: unknown) => Predicate,
 *   range: (a: unknown, b: unknown) => Predicate, like: (p: string, negate: boolean) => Predicate }} ops
 * @returns {Predicate}
 */
function transformedPredicate(t, { get, cmp, range, like }) {
	const v = /** @type {unknown[]} */ (t.value);
	const isNull = (/** @type {RawRecord} */ raw) => get(raw) === null || get(raw) === undefined;
	switch (t.type) {
		case 'between':
			return range(v[0], v[1]);
		case 'before':
			return cmp((c) => c < 0, t.value);
		case 'after':
			return cmp((c) => c > 0, t.value);
		case 'equals':
		case 'on':
		case 'isNull':
			return isNull;
		case 'notEquals':
		case 'notOn':
		case 'isNotNull':
		case 'ever':
			return (raw) => !isNull(raw);
		// '%' . null . '%' is '%%': LIKE matches every value that is not NULL.
		case 'contains':
		case 'startsWith':
		case 'endsWith':
			return like('%', false);
		case 'isTrue':
			return (raw) => get(raw) === true;
		case 'isFalse':
			return (raw) => get(raw) === false || isNull(raw);
		case 'any':
			return () => true;
		case 'in':
			throw whereError("Bad where item 'in'.");
		case 'notIn':
			throw whereError("Bad where item 'notIn'.");
		case 'arrayAnyOf':
		case 'arrayAllOf':
			throw whereError('Bad where item. No value.');
		case 'and':
		case 'or':
			throw whereError('Bad where item.');
		// > NULL, LIKE NULL, NOT LIKE '%%', …: no row.
		default:
			return () => false;
	}
}

/**
 * @typedef {{ select?: unknown, where?: unknown, orderBy?: unknown, order?: unknown, offset?: unknown,
 *   maxSize?: unknown }} ListParams
 */

/**
 * List parameters from the query: either the separate parameters or `searchParams=<JSON>` replacing them all.
 * @param {Record<string, any>} query @returns {ListParams}
 */
function listParamsFromQuery(query) {
	if (typeof query.searchParams === 'string' && query.searchParams !== '') {
		try {
			const parsed = JSON.parse(query.searchParams);
			if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
				throw new Error('not an object');
			return parsed;
		} catch {
			throw new ApiError(400, 'Bad searchParams.');
		}
	}
	return query;
}

/** @param {unknown} v @param {number} dflt @param {string} what */
function intParam(v, dflt, what) {
	if (v === undefined || v === null || v === '') return dflt;
	const n = typeof v === 'number' ? v : Number(v);
	if (!Number.isInteger(n) || n < 0) throw new ApiError(400, `Bad ${what}.`);
	return n;
}

/**
 * maxSize and offset as EspoCRM 8.1.5 reads them (Record/SearchParamsFetcher, Select/SearchParams::fromRaw): from
 * the query, PHP's intval (`abc` is 0: an empty page); in searchParams JSON, a maxSize that is no integer is
 * 400 `maxSize must be integer.` and an offset that is none a 500. A negative value reaches the database as a
 * LIMIT it refuses: 500 without a reason.
 * @param {ListParams} params @param {boolean} fromJson
 */
function espoPaging(params, fromJson) {
	/** @param {unknown} v @param {'maxSize' | 'offset'} what @returns {number | null} */
	const read = (v, what) => {
		if (v === undefined || v === null || (!fromJson && v === '')) return null;
		if (fromJson) {
			if (typeof v !== 'number' || !Number.isInteger(v)) {
				if (what === 'maxSize') throw new ApiError(400, 'maxSize must be integer.');
				throw phpError(500);
			}
			return v;
		}
		return intval(v);
	};
	const maxSize = read(params.maxSize, 'maxSize');
	const offset = read(params.offset, 'offset');
	if (maxSize !== null && maxSize > MAX_SIZE_LIMIT)
		throw new ApiError(403, `Max size should not exceed ${MAX_SIZE_LIMIT}. Use offset and limit.`);
	if ((maxSize !== null && maxSize < 0) || (offset !== null && offset < 0)) throw phpError(500);
	return { maxSize: maxSize ?? MAX_SIZE_LIMIT, offset: offset ?? 0 };
}

/** PHP's intval of a query string value. @param {unknown} v */
function intval(v) {
	const m = /^\s*[+-]?\d+/.exec(String(v));
	return m ? parseInt(m[0], 10) : 0;
}

/**
 * The attribute a field name sorts by: a link by its name, a linkParent by its type.
 * @param {string} entityType @param {string} orderBy
 */
function orderAttributeOf(entityType, orderBy) {
	const fd = ENTITY_DEFS[entityType].fields[orderBy];
	if (fd && ['link', 'file', 'image', 'linkOne'].includes(fd.type)) return `${orderBy}Name`;
	if (fd && fd.type === 'linkParent') return `${orderBy}Type`;
	return orderBy;
}

/**
 * The attributes of a field (Utils/FieldUtil::getAttributeList): a personName is its parts and the whole.
 * @param {string} entityType @param {string} field
 */
function fieldAttributes(entityType, field) {
	const fd = ENTITY_DEFS[entityType].fields[field];
	if (!fd) return [];
	const attrs = getAttributes(entityType);
	if (fd.type === 'personName')
		return ['salutationName', 'firstName', 'lastName', 'middleName', field].filter((a) =>
			attrs.has(a),
		);
	return [...attrs.values()]
		.filter((a) => a.field === field && a.role !== 'converted')
		.map((a) => a.name);
}

/**
 * Filters, sorts and pages records into the list envelope.
 *   espo: EspoCRM 8.1.5's rules (the 'espocrm' and 'both' dialects): paging as espoPaging reads it; a bad `order`
 *   is a 500 without a reason and an unknown orderBy a 500 `Order by non-existing field '…'.`
 *   (Select/SearchParams::fromRaw, Select/Order/Applier::applyOrder); list items in the 'list' form; `select`
 *   as Select\Applier builds it (espo.js), and a related list (link, parentType) without select cut the same way
 *   when the parent type's service has mandatory select attributes for the link. Otherwise (the standard
 *   dialect): 400 for bad parameters, full records, and a select of id, name, the attributes asked and their names.
 * @param {{ store: Store, entityType: string, records: Iterable<RawRecord>, params: ListParams, noTotal: boolean,
 *   unknownTypeStatus: number, now?: number, espo?: boolean, fromJson?: boolean, link?: string | null,
 *   parentType?: string | null, viewerId?: string | null }} args
 */
function runList({
	store,
	entityType,
	records,
	params,
	noTotal,
	unknownTypeStatus,
	now = Date.now(),
	espo = false,
	fromJson = false,
	link = null,
	parentType = null,
	viewerId = null,
}) {
	let maxSize;
	let offset;
	if (espo) ({ maxSize, offset } = espoPaging(params, fromJson));
	else {
		maxSize = intParam(params.maxSize, MAX_SIZE_LIMIT, 'maxSize');
		if (maxSize > MAX_SIZE_LIMIT)
			throw new ApiError(
				403,
				`Max size should not exceed ${MAX_SIZE_LIMIT}. Use offset and limit.`,
			);
		offset = intParam(params.offset, 0, 'offset');
	}
	const attrs = getAttributes(entityType);

	// Without orderBy and order: the type's default (entityDefs.<Type>.collection); orderBy without order: asc.
	// Ties are ordered by id in the same direction (Core/Select/Order/Applier::applyOrder).
	const collection = collectionOf(entityType);
	let order = collection.order;
	let orderBy = collection.orderBy;
	let orderByField = collection.orderBy;
	if (params.order !== undefined && params.order !== '' && params.order !== null) {
		const o = String(params.order).toLowerCase();
		if (o !== 'asc' && o !== 'desc') {
			if (espo) throw phpError(500);
			throw new ApiError(400, 'Bad order.');
		}
	}
	if (params.orderBy !== undefined && params.orderBy !== '' && params.orderBy !== null) {
		orderByField = String(params.orderBy);
		orderBy = orderAttributeOf(entityType, orderByField);
		order = 'asc';
		if (!attrs.has(orderBy)) {
			if (espo) throw new ApiError(500, `Order by non-existing field '${orderByField}'.`);
			throw new ApiError(400, `Not existing orderBy '${orderBy}'.`);
		}
	}
	if (params.order !== undefined && params.order !== '' && params.order !== null)
		order = String(params.order).toLowerCase() === 'asc' ? 'asc' : 'desc';

	// EspoCRM's search parameters (search.js); the standard dialect has none.
	const search = espo
		? searchOf({ store, entityType, params, viewerId, now })
		: { params, predicate: () => true };
	const predicate = compileWhere(search.params.where, {
		store,
		entityType,
		now,
		unknownTypeStatus,
	});
	const matched = [...records].filter((raw) => predicate(raw) && search.predicate(raw));
	const orderAttr = /** @type {import('./metadata').AttributeDef} */ (attrs.get(orderBy));
	const dir = order === 'asc' ? 1 : -1;
	const keyed = matched.map((raw) => ({
		raw,
		key: asComparable(orderAttr.kind, store.attributeValue(entityType, raw, orderBy, orderAttr)),
	}));
	keyed.sort((x, y) => {
		// MySQL puts NULL first in ascending order and last in descending order.
		if (x.key === null && y.key !== null) return -dir;
		if (y.key === null && x.key !== null) return dir;
		const c = compare(x.key, y.key) || 0;
		if (c !== 0) return c * dir;
		return (x.raw.id < y.raw.id ? -1 : x.raw.id > y.raw.id ? 1 : 0) * dir;
	});
	const page = keyed.slice(offset, offset + maxSize).map((k) => k.raw);

	const asked =
		params.select !== undefined && params.select !== '' && params.select !== null
			? (Array.isArray(params.select)
					? params.select.map(String)
					: String(params.select).split(',')
				)
					.map((s) => s.trim())
					.filter(Boolean)
			: null;
	/** @type {Set<string> | undefined} */
	let only;
	if (espo) {
		const selected = selectAttributeList({
			entityType,
			passed: asked,
			orderByField,
			link,
			parentType,
			hasAttribute: (a) => attrs.has(a),
			fieldAttributes: (f) => fieldAttributes(entityType, f),
		});
		if (selected) only = new Set(selected);
	} else if (asked) {
		only = new Set(['id']);
		if (hasName(entityType)) only.add('name');
		for (const a of asked) {
			if (!attrs.has(a)) continue;
			only.add(a);
			if (a.endsWith('Id') && attrs.has(`${a.slice(0, -2)}Name`)) only.add(`${a.slice(0, -2)}Name`);
			if (a.endsWith('Ids') && attrs.has(`${a.slice(0, -3)}Names`))
				only.add(`${a.slice(0, -3)}Names`);
		}
	}
	const list = page.map((raw) =>
		store.output(entityType, raw, espo ? 'list' : 'full', only, viewerId),
	);
	// A `q` query parameter counts nothing either (Core/Record/FindParamsFetcher).
	const hideTotal =
		noTotal ||
		Boolean(ENTITY_DEFS[entityType].alwaysNoTotal) ||
		(espo && !fromJson && Boolean(params.q));
	const total = hideTotal ? (offset + maxSize < matched.length ? -1 : -2) : matched.length;
	return { total, list };
}

module.exports = { compileWhere, runList, listParamsFromQuery, likeToRegExp, MAX_SIZE_LIMIT };
