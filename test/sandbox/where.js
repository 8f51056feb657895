// @ts-check
'use strict';

const { ENTITY_DEFS, getAttributes, getLink, hasName } = require('./metadata');
const {
  ApiError, formatDateTime, addDays, addMonths, zonedToUtc, todayIn, isValidTimeZone, parseDateTime,
} = require('./util');

/**
 * @typedef {import('./store').Store} Store
 * @typedef {import('./store').RawRecord} RawRecord
 * @typedef {(raw: RawRecord) => boolean} Predicate
 * @typedef {{ store: Store, entityType: string, now: number, unknownTypeStatus: number }} WhereContext
 */

const MAX_SIZE_LIMIT = 200;
const badItem = () => new ApiError(400, 'Bad where item.');

const NO_VALUE_TYPES = new Set([
  'isNull', 'isNotNull', 'isTrue', 'isFalse', 'today', 'past', 'future', 'lastSevenDays', 'currentMonth',
  'lastMonth', 'nextMonth', 'currentQuarter', 'lastQuarter', 'nextQuarter', 'currentYear', 'lastYear', 'nextYear',
  'arrayIsEmpty', 'arrayIsNotEmpty', 'isLinked', 'isNotLinked',
]);
const LINK_TYPES = new Set(['linkedWith', 'notLinkedWith', 'isLinked', 'isNotLinked']);
const DATE_TYPES = new Set([
  'today', 'past', 'future', 'lastSevenDays', 'lastXDays', 'nextXDays', 'olderThanXDays', 'afterXDays',
  'currentMonth', 'lastMonth', 'nextMonth', 'currentQuarter', 'lastQuarter', 'nextQuarter', 'currentYear',
  'lastYear', 'nextYear', 'on', 'notOn', 'between', 'after', 'before',
]);
const ALL_TYPES = new Set([
  ...NO_VALUE_TYPES, ...LINK_TYPES, ...DATE_TYPES, 'equals', 'notEquals', 'in', 'notIn', 'greaterThan', 'lessThan',
  'greaterThanOrEquals', 'lessThanOrEquals', 'like', 'notLike', 'contains', 'notContains', 'startsWith', 'endsWith',
  'arrayAnyOf', 'arrayNoneOf', 'arrayAllOf', 'and', 'or',
]);

/** @param {unknown} v */
const truthy = (v) => v === true || v === 'true' || v === '1' || v === 1;

/**
 * MySQL compares a DATETIME column with a bare date string by reading the string as midnight: this is what
 * makes EspoCRM's date filters on date-time attributes answer wrongly without `dateTime=true`.
 * @param {string} kind @param {unknown} v
 */
function asComparable(kind, v) {
  if (v === null || v === undefined) return null;
  if (kind === 'int' || kind === 'float') return typeof v === 'number' ? v : Number(v);
  if (kind === 'bool') return truthy(v);
  const s = String(v);
  if (kind === 'datetime') {
    if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return `${s} 00:00:00`;
    return parseDateTime(s) ?? s;
  }
  return s;
}

/** SQL three-valued comparison collapsed to JS: null on either side compares as "no match". @returns {number | null} */
function compare(/** @type {unknown} */ a, /** @type {unknown} */ b) {
  if (a === null || a === undefined || b === null || b === undefined) return null;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) || Number.isNaN(b) ? null : a - b;
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
    if (c === '\\' && i + 1 < pattern.length) re += pattern[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
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

/** @param {unknown} item @param {WhereContext} ctx @returns {Predicate} */
function compileItem(item, ctx) {
  if (!item || typeof item !== 'object' || Array.isArray(item)) throw badItem();
  const it = /** @type {Record<string, any>} */ (item);
  const type = it.type;
  if (typeof type !== 'string' || type === '') throw badItem();
  if (!ALL_TYPES.has(type)) {
    // EspoCRM 8.1.5 fails with 500 and an empty body; 8.2+ (and the standard dialect here) with 400.
    throw new ApiError(ctx.unknownTypeStatus, ctx.unknownTypeStatus === 400 ? 'Unknown where type.' : '');
  }
  const value = it.value;
  if (!NO_VALUE_TYPES.has(type) && value === undefined) throw badItem();

  if (type === 'and' || type === 'or') {
    if (!Array.isArray(value)) throw badItem();
    const preds = value.map((sub) => compileItem(sub, ctx));
    if (preds.length === 0) return () => true;
    return type === 'and' ? (raw) => preds.every((p) => p(raw)) : (raw) => preds.some((p) => p(raw));
  }

  const attribute = it.attribute;
  if (typeof attribute !== 'string' || attribute === '') throw badItem();
  const { store, entityType } = ctx;

  if (LINK_TYPES.has(type)) {
    const ld = getLink(entityType, attribute);
    if (!ld || !ld.entity) throw new ApiError(400, `Not existing link '${attribute}' in where.`);
    const ids = new Set(asArray(value).map(String));
    const related = (/** @type {RawRecord} */ raw) => store.relatedIds(entityType, raw.id, attribute);
    switch (type) {
      case 'linkedWith': return (raw) => related(raw).some((id) => ids.has(id));
      case 'notLinkedWith': return (raw) => !related(raw).some((id) => ids.has(id));
      case 'isLinked': return (raw) => related(raw).length > 0;
      default: return (raw) => related(raw).length === 0;
    }
  }

  const attrDef = getAttributes(entityType).get(attribute);
  if (!attrDef) throw new ApiError(400, `Not existing attribute '${attribute}' in where.`);
  const kind = attrDef.kind;
  const get = (/** @type {RawRecord} */ raw) => store.attributeValue(entityType, raw, attribute, attrDef);
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

  const timeZone = typeof it.timeZone === 'string' && it.timeZone ? it.timeZone : 'UTC';
  if (!isValidTimeZone(timeZone)) throw badItem();
  const isDateTimeItem = kind === 'datetime' && truthy(it.dateTime);

  if (isDateTimeItem) {
    const p = dateTimePredicate(type, value, timeZone, ctx.now, halfOpen, cmp);
    if (p) return p;
  } else if (DATE_TYPES.has(type)) {
    return datePredicate(type, value, timeZone, ctx.now, { cmp, range, halfOpen });
  }

  switch (type) {
    case 'equals':
      if (Array.isArray(value)) return inPredicate(value, false, get, conv);
      return cmp((c) => c === 0, value);
    case 'notEquals':
      if (Array.isArray(value)) return inPredicate(value, true, get, conv);
      return cmp((c) => c !== 0, value);
    case 'in': return inPredicate(asArray(value), false, get, conv);
    case 'notIn': return inPredicate(asArray(value), true, get, conv);
    case 'greaterThan': return cmp((c) => c > 0, value);
    case 'lessThan': return cmp((c) => c < 0, value);
    case 'greaterThanOrEquals': return cmp((c) => c >= 0, value);
    case 'lessThanOrEquals': return cmp((c) => c <= 0, value);
    case 'like': return like(String(value), false);
    case 'notLike': return like(String(value), true);
    // EspoCRM wraps the value without escaping it: % and _ inside stay wildcards.
    case 'contains': return like(`%${value}%`, false);
    case 'notContains': return like(`%${value}%`, true);
    case 'startsWith': return like(`${value}%`, false);
    case 'endsWith': return like(`%${value}`, false);
    case 'isNull': return (raw) => get(raw) === null || get(raw) === undefined;
    case 'isNotNull': return (raw) => get(raw) !== null && get(raw) !== undefined;
    case 'isTrue': return (raw) => get(raw) === true;
    // Bool columns are NOT NULL DEFAULT 0 in EspoCRM, so a missing value reads as false.
    case 'isFalse': return (raw) => get(raw) === false || get(raw) === null;
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
    case 'arrayIsEmpty': return (raw) => asArray(get(raw)).length === 0;
    case 'arrayIsNotEmpty': return (raw) => asArray(get(raw)).length > 0;
    default: throw new ApiError(ctx.unknownTypeStatus, '');
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
  switch (type) {
    case 'currentMonth': return [monthStart, addMonths(monthStart, 1)];
    case 'lastMonth': return [addMonths(monthStart, -1), monthStart];
    case 'nextMonth': return [addMonths(monthStart, 1), addMonths(monthStart, 2)];
    case 'currentQuarter': return [quarterStart, addMonths(quarterStart, 3)];
    case 'lastQuarter': return [addMonths(quarterStart, -3), quarterStart];
    case 'nextQuarter': return [addMonths(quarterStart, 3), addMonths(quarterStart, 6)];
    case 'currentYear': return [yearStart, addMonths(yearStart, 12)];
    case 'lastYear': return [addMonths(yearStart, -12), yearStart];
    case 'nextYear': return [addMonths(yearStart, 12), addMonths(yearStart, 24)];
    default: return null;
  }
}

/** @param {unknown} v */
function days(v) {
  const n = Number(v);
  if (!Number.isFinite(n)) throw badItem();
  return Math.trunc(n);
}

/**
 * Date semantics as EspoCRM builds them for a date (or for a date-time attribute without `dateTime=true`, where
 * the comparisons then run against midnight strings, see asComparable).
 * @param {string} type @param {unknown} value @param {string} timeZone @param {number} now
 * @param {{ cmp: (t: (c: number) => boolean, v: unknown) => Predicate, range: (a: unknown, b: unknown) => Predicate,
 *   halfOpen: (a: unknown, b: unknown) => Predicate }} ops
 * @returns {Predicate}
 */
function datePredicate(type, value, timeZone, now, { cmp, range, halfOpen }) {
  const today = todayIn(timeZone, now);
  const p = period(today, type);
  if (p) return halfOpen(p[0], p[1]);
  switch (type) {
    case 'today': return cmp((c) => c === 0, today);
    case 'past': return cmp((c) => c < 0, today);
    case 'future': return cmp((c) => c > 0, today);
    case 'lastSevenDays': return range(addDays(today, -7), today);
    case 'lastXDays': return range(addDays(today, -days(value)), today);
    case 'nextXDays': return range(today, addDays(today, days(value)));
    case 'olderThanXDays': return cmp((c) => c < 0, addDays(today, -days(value)));
    case 'afterXDays': return cmp((c) => c > 0, addDays(today, days(value)));
    case 'on': return cmp((c) => c === 0, value);
    case 'notOn': return cmp((c) => c !== 0, value);
    case 'after': return cmp((c) => c > 0, value);
    case 'before': return cmp((c) => c < 0, value);
    case 'between': {
      if (!Array.isArray(value) || value.length < 2) throw badItem();
      return range(value[0], value[1]);
    }
    default: throw badItem();
  }
}

/**
 * `dateTime=true` items on date-time attributes: day boundaries computed in the item's time zone and turned
 * into UTC instants, as EspoCRM's DateTimeItemTransformer does. Returns null for types it leaves alone.
 * @param {string} type @param {unknown} value @param {string} tz @param {number} now
 * @param {(a: unknown, b: unknown) => Predicate} halfOpen
 * @param {(t: (c: number) => boolean, v: unknown) => Predicate} cmp
 * @returns {Predicate | null}
 */
function dateTimePredicate(type, value, tz, now, halfOpen, cmp) {
  const today = todayIn(tz, now);
  const start = (/** @type {string} */ date) => formatDateTime(zonedToUtc(date, tz));
  const nowStr = formatDateTime(now);
  const isDateOnly = (/** @type {unknown} */ v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);
  const local = (/** @type {unknown} */ v) => {
    const s = parseDateTime(String(v).replace(/(Z|[+-]\d{2}:?\d{2})$/i, ''));
    if (!s) throw badItem();
    return formatDateTime(zonedToUtc(s, tz));
  };
  const p = period(today, type);
  if (p) return halfOpen(start(p[0]), start(p[1]));
  switch (type) {
    case 'today': return halfOpen(start(today), start(addDays(today, 1)));
    case 'past': return cmp((c) => c < 0, nowStr);
    case 'future': return cmp((c) => c > 0, nowStr);
    case 'lastSevenDays': return halfOpen(start(addDays(today, -7)), formatDateTime(now + 1000));
    case 'lastXDays': return halfOpen(start(addDays(today, -days(value))), formatDateTime(now + 1000));
    case 'nextXDays': return halfOpen(nowStr, start(addDays(today, days(value) + 1)));
    case 'olderThanXDays': return cmp((c) => c < 0, start(addDays(today, -days(value))));
    case 'afterXDays': return cmp((c) => c >= 0, start(addDays(today, days(value) + 1)));
    case 'on':
    case 'notOn': {
      if (!isDateOnly(value)) throw badItem();
      const inDay = halfOpen(start(/** @type {string} */ (value)), start(addDays(/** @type {string} */ (value), 1)));
      if (type === 'on') return inDay;
      const notNull = cmp(() => true, '0000-00-00 00:00:00');
      return (raw) => notNull(raw) && !inDay(raw);
    }
    case 'between': {
      if (!Array.isArray(value) || value.length < 2) throw badItem();
      const from = isDateOnly(value[0]) ? start(value[0]) : local(value[0]);
      const to = isDateOnly(value[1]) ? start(addDays(value[1], 1)) : local(value[1]);
      return halfOpen(from, to);
    }
    case 'after':
      return isDateOnly(value) ? cmp((c) => c >= 0, start(addDays(/** @type {string} */ (value), 1))) : cmp((c) => c > 0, local(value));
    case 'before':
      return isDateOnly(value) ? cmp((c) => c < 0, start(/** @type {string} */ (value))) : cmp((c) => c < 0, local(value));
    // Measured on 8.1.5: with dateTime=true these come out as a condition no row satisfies.
    case 'greaterThan':
    case 'lessThan':
    case 'greaterThanOrEquals':
    case 'lessThanOrEquals':
      return () => false;
    default:
      return null;
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
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
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
 * Filters, sorts and pages records into the list envelope.
 * @param {{ store: Store, entityType: string, records: Iterable<RawRecord>, params: ListParams, noTotal: boolean,
 *   unknownTypeStatus: number, now?: number }} args
 */
function runList({ store, entityType, records, params, noTotal, unknownTypeStatus, now = Date.now() }) {
  const maxSize = intParam(params.maxSize, MAX_SIZE_LIMIT, 'maxSize');
  if (maxSize > MAX_SIZE_LIMIT) throw new ApiError(403, `Max size should not exceed ${MAX_SIZE_LIMIT}. Use offset and limit.`);
  const offset = intParam(params.offset, 0, 'offset');
  const attrs = getAttributes(entityType);

  let order = 'desc';
  let orderBy = 'createdAt';
  if (params.orderBy !== undefined && params.orderBy !== '') {
    orderBy = String(params.orderBy);
    order = 'asc';
    if (!attrs.has(orderBy)) throw new ApiError(400, `Not existing orderBy '${orderBy}'.`);
  }
  if (params.order !== undefined && params.order !== '') {
    const o = String(params.order).toLowerCase();
    if (o !== 'asc' && o !== 'desc') throw new ApiError(400, 'Bad order.');
    order = o;
  }

  const predicate = compileWhere(params.where, { store, entityType, now, unknownTypeStatus });
  const matched = [...records].filter(predicate);
  const orderAttr = /** @type {import('./metadata').AttributeDef} */ (attrs.get(orderBy));
  const dir = order === 'asc' ? 1 : -1;
  const keyed = matched.map((raw) => ({ raw, key: asComparable(orderAttr.kind, store.attributeValue(entityType, raw, orderBy, orderAttr)) }));
  keyed.sort((x, y) => {
    // MySQL puts NULL first in ascending order and last in descending order.
    if (x.key === null && y.key !== null) return -dir;
    if (y.key === null && x.key !== null) return dir;
    const c = compare(x.key, y.key) || 0;
    if (c !== 0) return c * dir;
    return (x.raw.id < y.raw.id ? -1 : x.raw.id > y.raw.id ? 1 : 0) * dir;
  });
  const page = keyed.slice(offset, offset + maxSize).map((k) => k.raw);

  /** @type {Set<string> | undefined} */
  let only;
  if (params.select !== undefined && params.select !== '') {
    const asked = Array.isArray(params.select) ? params.select.map(String) : String(params.select).split(',');
    only = new Set(['id']);
    if (hasName(entityType)) only.add('name');
    for (const a of asked.map((s) => s.trim()).filter(Boolean)) {
      if (!attrs.has(a)) continue;
      only.add(a);
      if (a.endsWith('Id') && attrs.has(`${a.slice(0, -2)}Name`)) only.add(`${a.slice(0, -2)}Name`);
      if (a.endsWith('Ids') && attrs.has(`${a.slice(0, -3)}Names`)) only.add(`${a.slice(0, -3)}Names`);
    }
  }
  const list = page.map((raw) => store.output(entityType, raw, 'full', only));
  const hideTotal = noTotal || Boolean(ENTITY_DEFS[entityType].alwaysNoTotal);
  const total = hideTotal ? (offset + maxSize < matched.length ? -1 : -2) : matched.length;
  return { total, list };
}

module.exports = { compileWhere, runList, listParamsFromQuery, likeToRegExp, MAX_SIZE_LIMIT };
