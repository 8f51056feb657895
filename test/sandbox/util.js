// @ts-check
'use strict';

const crypto = require('node:crypto');

/**
 * An error reply: status, X-Status-Reason text and an optional JSON body (EspoCRM puts the reason in a header
 * and leaves the body empty, except for duplicates and a few others). A null reason sends no X-Status-Reason at
 * all: EspoCRM's ErrorOutput writes the header only for its own exceptions (Error, Forbidden, Conflict,
 * BadRequest, NotFound, with an empty text when they have none), not for PHP's (TypeError, a database error, …).
 */
class ApiError extends Error {
	/** @param {number} status @param {string | null} [reason] @param {unknown} [body] @param {Record<string, string>} [headers] */
	constructor(status, reason = '', body = undefined, headers = undefined) {
		super(reason || `HTTP ${status}`);
		this.status = status;
		this.reason = reason;
		/** The body is EspoCRM's only (a validation failure's messageTranslation): the standard dialect drops it. */
		this.espoBody = false;
		this.body = body;
		this.headers = headers;
	}
}

/**
 * A field validation failure (Core/FieldValidation/FieldValidationManager → Exceptions/BadRequest::
 * createWithBody): the reason in the header and the label for the front end as a JSON body. The body is marked
 * EspoCRM's: the standard dialect sends none.
 * @param {string} entityType @param {string} field @param {string} type
 */
function validationError(entityType, field, type) {
	const err = new ApiError(
		400,
		`Field validation failure; entityType: ${entityType}, field: ${field}, type: ${type}.`,
		{ messageTranslation: { label: 'validationFailure', scope: null, data: { field, type } } },
	);
	err.espoBody = true;
	return err;
}

/** A PHP error that EspoCRM does not catch as its own: the status without an X-Status-Reason. @param {number} status */
const phpError = (status = 500) => new ApiError(status, null);

let lastIdMicros = 0n;
/**
 * 17 lowercase hex characters like EspoCRM's ids: 13 of microsecond time (kept strictly increasing, so ids sort
 * in creation order even within one millisecond) and 4 random.
 */
function newId() {
	let micros = BigInt(Date.now()) * 1000n;
	if (micros <= lastIdMicros) micros = lastIdMicros + 1n;
	lastIdMicros = micros;
	return micros.toString(16).padStart(13, '0').slice(-13) + crypto.randomBytes(2).toString('hex');
}

/** @param {number} n */
const pad = (n) => String(n).padStart(2, '0');

/** 'YYYY-MM-DD HH:MM:SS' in UTC, the storage format of EspoCRM date-times. @param {Date | number} [d] */
function formatDateTime(d = new Date()) {
	const x = typeof d === 'number' ? new Date(d) : d;
	return (
		`${x.getUTCFullYear()}-${pad(x.getUTCMonth() + 1)}-${pad(x.getUTCDate())} ` +
		`${pad(x.getUTCHours())}:${pad(x.getUTCMinutes())}:${pad(x.getUTCSeconds())}`
	);
}

/** @param {Date | number} d */
function formatDate(d) {
	const x = typeof d === 'number' ? new Date(d) : d;
	return `${x.getUTCFullYear()}-${pad(x.getUTCMonth() + 1)}-${pad(x.getUTCDate())}`;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE =
	/^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** @param {unknown} v @returns {string | null} 'YYYY-MM-DD' or null when not a valid date */
function parseDate(v) {
	if (typeof v !== 'string') return null;
	const m = DATE_RE.exec(v.trim());
	if (!m) return null;
	const t = Date.UTC(+m[1], +m[2] - 1, +m[3]);
	return formatDate(t) === v.trim() ? v.trim() : null;
}

/**
 * Input date-times: the storage format, or ISO 8601 with an optional offset (no offset means UTC).
 * @param {unknown} v @returns {string | null} normalised UTC 'YYYY-MM-DD HH:MM:SS', or null when invalid
 */
function parseDateTime(v) {
	if (typeof v !== 'string') return null;
	const m = DATETIME_RE.exec(v.trim());
	if (!m) return null;
	let t = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] || 0));
	if (Number.isNaN(t) || +m[2] > 12 || +m[3] > 31 || +m[4] > 23 || +m[5] > 59) return null;
	const off = m[7];
	if (off && off.toUpperCase() !== 'Z') {
		const sign = off[0] === '-' ? -1 : 1;
		const digits = off.slice(1).replace(':', '');
		t -= sign * (+digits.slice(0, 2) * 60 + +digits.slice(2)) * 60000;
	}
	return formatDateTime(t);
}

/** @param {string} dateStr 'YYYY-MM-DD' @param {number} days */
function addDays(dateStr, days) {
	const [y, m, d] = dateStr.split('-').map(Number);
	return formatDate(Date.UTC(y, m - 1, d + days));
}

/** @param {string} dateStr @param {number} months */
function addMonths(dateStr, months) {
	const [y, m, d] = dateStr.split('-').map(Number);
	return formatDate(Date.UTC(y, m - 1 + months, d));
}

/**
 * Offset of an IANA zone at an instant, in ms (local = utc + offset).
 * @param {number} instant @param {string} timeZone
 */
function zoneOffset(instant, timeZone) {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(instant));
	/** @type {Record<string, number>} */
	const p = {};
	for (const { type, value } of parts) p[type] = Number(value);
	const local = Date.UTC(p.year, p.month - 1, p.day, p.hour % 24, p.minute, p.second);
	return local - Math.floor(instant / 1000) * 1000;
}

/**
 * A wall-clock time in a zone → the UTC instant (ms), resolved as PHP's DateTime does: a time that does not exist
 * (skipped by a DST change) is read with the offset before the change (02:30 → 03:30 summer time), and a time that
 * exists twice is the first of the two.
 * @param {string} localDateTime 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS' @param {string} timeZone
 */
function zonedToUtc(localDateTime, timeZone) {
	const [date, time = '00:00:00'] = localDateTime.split(' ');
	const [y, mo, d] = date.split('-').map(Number);
	const [h, mi, s] = time.split(':').map(Number);
	return wallToInstant({ y, mo, d, h, mi, s: s || 0 }, timeZone);
}

/**
 * @typedef {{ y: number, mo: number, d: number, h: number, mi: number, s: number }} Wall  a wall-clock reading;
 *   fields may overflow (mo 13, h 24, d 0): they are normalised the way PHP's DateTime does.
 */

/** @param {Wall} w */
const wallAsUtc = (w) => Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);

/** @param {Wall} w @param {string} timeZone @returns {number} */
function wallToInstant(w, timeZone) {
	const guess = wallAsUtc(w);
	const DAY = 86_400_000;
	const before = zoneOffset(guess - DAY, timeZone);
	const after = zoneOffset(guess + DAY, timeZone);
	const t1 = guess - before;
	if (before === after || zoneOffset(t1, timeZone) === before) return t1;
	const t2 = guess - after;
	if (zoneOffset(t2, timeZone) === after) return t2;
	return t1; // in the gap: the offset before the change
}

/** @param {number} instant @param {string} timeZone @returns {Wall} */
function instantToWall(instant, timeZone) {
	const x = new Date(instant + zoneOffset(instant, timeZone));
	return {
		y: x.getUTCFullYear(),
		mo: x.getUTCMonth() + 1,
		d: x.getUTCDate(),
		h: x.getUTCHours(),
		mi: x.getUTCMinutes(),
		s: x.getUTCSeconds(),
	};
}

/** Normalises overflowing fields. @param {Wall} w @returns {Wall} */
function normaliseWall(w) {
	const x = new Date(wallAsUtc(w));
	return {
		y: x.getUTCFullYear(),
		mo: x.getUTCMonth() + 1,
		d: x.getUTCDate(),
		h: x.getUTCHours(),
		mi: x.getUTCMinutes(),
		s: x.getUTCSeconds(),
	};
}

const PHP_DATE_TIME_RE =
	/^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(Z|[+-]\d{1,2}(?::?\d{2})?|UTC|GMT)?$/i;

/**
 * `new DateTime($value, new DateTimeZone($timeZone))` of PHP, for the forms clients send: a date, a date-time
 * with or without seconds, `T` or space, and an optional zone (`Z`, `+02:00`, `UTC`). A value with its own zone is
 * that instant (PHP ignores the zone parameter then); one without is wall-clock time in `timeZone`. Also 'now',
 * 'today', 'tomorrow', 'yesterday'. Anything else throws, as PHP does.
 * @param {string} value @param {string} timeZone @param {number} now @returns {number} the instant (ms)
 */
function phpDateTime(value, timeZone, now) {
	const v = String(value).trim();
	const lower = v.toLowerCase();
	const today = instantToWall(now, timeZone);
	const midnight = (/** @type {number} */ days) =>
		wallToInstant(normaliseWall({ ...today, d: today.d + days, h: 0, mi: 0, s: 0 }), timeZone);
	if (lower === 'now') return Math.floor(now / 1000) * 1000;
	if (lower === 'today' || lower === 'midnight') return midnight(0);
	if (lower === 'tomorrow') return midnight(1);
	if (lower === 'yesterday') return midnight(-1);
	const m = PHP_DATE_TIME_RE.exec(v);
	if (!m) throw new Error(`DateTime::__construct(): Failed to parse time string (${v})`);
	/** @type {Wall} */
	const w = { y: +m[1], mo: +m[2], d: +m[3], h: +(m[4] || 0), mi: +(m[5] || 0), s: +(m[6] || 0) };
	if (w.mo < 1 || w.mo > 12 || w.d < 1 || w.d > 31 || w.h > 24 || w.mi > 59 || w.s > 60) {
		throw new Error(`DateTime::__construct(): Failed to parse time string (${v})`);
	}
	const zone = m[7];
	if (!zone) return wallToInstant(normaliseWall(w), timeZone);
	if (/^(Z|UTC|GMT)$/i.test(zone)) return wallAsUtc(w);
	const sign = zone[0] === '-' ? -1 : 1;
	const digits = zone.slice(1).replace(':', '');
	const hours = digits.length <= 2 ? +digits : +digits.slice(0, digits.length - 2);
	const minutes = digits.length <= 2 ? 0 : +digits.slice(-2);
	return wallAsUtc(w) - sign * (hours * 60 + minutes) * 60_000;
}

/**
 * The strict forms EspoCRM 8.1.5 validates (Core/Field/DateTime, Core/Field/Date): 'Y-m-d H:i:s', or 'Y-m-d H:i'
 * completed with ':00'; a date 'Y-m-d'. Anything else, ISO 8601 with `T` or a zone included, fails validation.
 * @param {unknown} v @returns {string | null}
 */
function parseStrictDateTime(v) {
	if (typeof v !== 'string') return null;
	const norm = v.length === 16 ? `${v}:00` : v;
	const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(norm);
	if (!m) return null;
	return formatDateTime(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) === norm
		? norm
		: null;
}

/** Today's date in a zone. @param {string} timeZone @param {number} [now] */
function todayIn(timeZone, now = Date.now()) {
	return formatDate(now + zoneOffset(now, timeZone));
}

/** @param {string} tz */
function isValidTimeZone(tz) {
	try {
		new Intl.DateTimeFormat('en-US', { timeZone: tz });
		return true;
	} catch {
		return false;
	}
}

/**
 * json_encode() of PHP with its default flags, as EspoCRM encodes webhook payloads (Core/Utils/Json::encode):
 * `/` escaped as `\\/` and every non-ASCII character as `\\uXXXX` (UTF-16 units, so emoji become two).
 * @param {unknown} value
 */
function phpJsonEncode(value) {
	return JSON.stringify(value)
		.replace(/\//g, '\\/')
		.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

module.exports = {
	ApiError,
	validationError,
	phpError,
	newId,
	formatDateTime,
	formatDate,
	parseDate,
	parseDateTime,
	parseStrictDateTime,
	addDays,
	addMonths,
	zoneOffset,
	zonedToUtc,
	wallToInstant,
	instantToWall,
	normaliseWall,
	phpDateTime,
	todayIn,
	isValidTimeZone,
	phpJsonEncode,
};
