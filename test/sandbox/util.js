// @ts-check
'use strict';

const crypto = require('node:crypto');

/**
 * An error reply: status, X-Status-Reason text and an optional JSON body (EspoCRM puts the reason in a header
 * and leaves the body empty, except for duplicates and a few others).
 */
class ApiError extends Error {
  /** @param {number} status @param {string} [reason] @param {unknown} [body] @param {Record<string, string>} [headers] */
  constructor(status, reason = '', body = undefined, headers = undefined) {
    super(reason || `HTTP ${status}`);
    this.status = status;
    this.reason = reason;
    this.body = body;
    this.headers = headers;
  }
}

/** @param {string} entityType @param {string} field @param {string} type */
function validationError(entityType, field, type) {
  return new ApiError(400, `Field validation failure; entityType: ${entityType}, field: ${field}, type: ${type}.`);
}

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
  return `${x.getUTCFullYear()}-${pad(x.getUTCMonth() + 1)}-${pad(x.getUTCDate())} ` +
    `${pad(x.getUTCHours())}:${pad(x.getUTCMinutes())}:${pad(x.getUTCSeconds())}`;
}

/** @param {Date | number} d */
function formatDate(d) {
  const x = typeof d === 'number' ? new Date(d) : d;
  return `${x.getUTCFullYear()}-${pad(x.getUTCMonth() + 1)}-${pad(x.getUTCDate())}`;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

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
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(instant));
  /** @type {Record<string, number>} */
  const p = {};
  for (const { type, value } of parts) p[type] = Number(value);
  const local = Date.UTC(p.year, p.month - 1, p.day, p.hour % 24, p.minute, p.second);
  return local - Math.floor(instant / 1000) * 1000;
}

/**
 * A wall-clock time in a zone → the UTC instant (ms). Two passes settle DST transitions.
 * @param {string} localDateTime 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS' @param {string} timeZone
 */
function zonedToUtc(localDateTime, timeZone) {
  const [date, time = '00:00:00'] = localDateTime.split(' ');
  const [y, mo, d] = date.split('-').map(Number);
  const [h, mi, s] = time.split(':').map(Number);
  const guess = Date.UTC(y, mo - 1, d, h, mi, s || 0);
  let t = guess - zoneOffset(guess, timeZone);
  t = guess - zoneOffset(t, timeZone);
  return t;
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

module.exports = {
  ApiError, validationError, newId, formatDateTime, formatDate, parseDate, parseDateTime, addDays, addMonths,
  zoneOffset, zonedToUtc, todayIn, isValidTimeZone,
};
