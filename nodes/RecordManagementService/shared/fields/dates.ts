import { DateTime } from 'luxon';

/** The server's own form of a date-time: always UTC, as EspoCRM writes `createdAt`, `modifiedAt` and every date-time. */
const SERVER_FORMAT = 'yyyy-MM-dd HH:mm:ss';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export function isDateOnly(value: unknown): value is string {
	return typeof value === 'string' && DATE_ONLY.test(value.trim());
}

/**
 * Reads a date or date-time as n8n hands it over. The server's own form (YYYY-MM-DD HH:MM:SS) is UTC, as the server
 * writes it, so values copied from a record keep their instant; an ISO value with an offset or Z is the instant
 * written; an ISO value without a zone is wall-clock time in the workflow's time zone, as n8n reads such values.
 */
export function readMoment(value: unknown, timeZone: string): DateTime | undefined {
	if (value instanceof Date) return DateTime.fromJSDate(value);
	if (DateTime.isDateTime(value)) return value;
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	const server = DateTime.fromFormat(text, SERVER_FORMAT, { zone: 'utc' });
	if (server.isValid) return server;
	// setZone keeps the offset written in the value, so a date stays the date written.
	const parsed = DateTime.fromISO(text, { zone: timeZone, setZone: true });
	return parsed.isValid ? parsed : undefined;
}

/** An instant in the server's form (UTC). */
export function serverDateTime(moment: DateTime): string {
	return moment.toUTC().toFormat(SERVER_FORMAT);
}

/** Wall-clock time of an instant in a time zone, in the server's form. */
export function wallClock(moment: DateTime, timeZone: string): string {
	return moment.setZone(timeZone).toFormat(SERVER_FORMAT);
}

/** A date (YYYY-MM-DD) as written in the value's own zone. */
export function serverDate(moment: DateTime): string {
	return moment.toFormat('yyyy-MM-dd');
}

/** The start of today in a time zone (the workflow's: its days are the ones users mean). */
export function todayIn(timeZone: string): DateTime {
	return DateTime.now().setZone(timeZone).startOf('day');
}
