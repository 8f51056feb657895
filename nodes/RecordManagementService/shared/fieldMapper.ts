import type { IDataObject, INode, ResourceMapperField, ResourceMapperValue } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { DateTime } from 'luxon';

import { DATE_ONLY_LABEL } from './metadata';

type Value = string | number | boolean | null | unknown[];

function refuse(node: INode, field: string, expected: string, value: unknown, itemIndex: number): never {
	throw new NodeOperationError(
		node,
		`The field "${field}" needs ${expected}; ${JSON.stringify(value)} is not one (item ${itemIndex})`,
		{ itemIndex, description: 'Change the value mapped to this field, or convert it in an earlier node.' },
	);
}

/**
 * Reads a date or date-time as n8n hands it over. The server's own form (YYYY-MM-DD HH:MM:SS) is UTC, as the
 * server writes it, so values copied from a record keep their time; an ISO value without a zone is in the
 * workflow's time zone, as n8n reads such values.
 */
function toDateTime(value: unknown, timeZone: string): DateTime | undefined {
	if (value instanceof Date) return DateTime.fromJSDate(value);
	if (DateTime.isDateTime(value)) return value;
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	const server = DateTime.fromFormat(text, 'yyyy-MM-dd HH:mm:ss', { zone: 'utc' });
	if (server.isValid) return server;
	// setZone keeps the offset written in the value, so a date stays the date written.
	const parsed = DateTime.fromISO(text, { zone: timeZone, setZone: true });
	return parsed.isValid ? parsed : undefined;
}

/** Converts one mapped value to what the server expects for the field's type. */
function convert(node: INode, field: ResourceMapperField, value: unknown, itemIndex: number, timeZone: string): Value {
	switch (field.type) {
		case 'number': {
			const number = typeof value === 'number' ? value : Number(String(value).trim());
			if (typeof value === 'boolean' || String(value).trim() === '' || !Number.isFinite(number)) {
				return refuse(node, field.id, 'a number', value, itemIndex);
			}
			return number;
		}
		case 'boolean': {
			if (typeof value === 'boolean') return value;
			const text = String(value).trim().toLowerCase();
			if (['true', '1', 'yes'].includes(text)) return true;
			if (['false', '0', 'no'].includes(text)) return false;
			return refuse(node, field.id, 'true or false', value, itemIndex);
		}
		case 'dateTime': {
			const moment = toDateTime(value, timeZone);
			if (!moment) return refuse(node, field.id, 'a date', value, itemIndex);
			return field.displayName.endsWith(DATE_ONLY_LABEL)
				? moment.toFormat('yyyy-MM-dd')
				: moment.toUTC().toFormat('yyyy-MM-dd HH:mm:ss');
		}
		case 'array':
			if (Array.isArray(value)) return value;
			return String(value)
				.split(',')
				.map((part) => part.trim())
				.filter((part) => part !== '');
		default:
			return typeof value === 'object' ? JSON.stringify(value) : (value as Value);
	}
}

/**
 * The record's fields from n8n's field mapper (`columns`). Its value carries the schema the user mapped against,
 * so no metadata is read during an execution. "Map Automatically" takes the input item's fields that the entity
 * type has. Empty values are left out: the mapper lists every field, and an empty one is one the user left alone.
 */
export function mappedFields(
	node: INode,
	columns: ResourceMapperValue,
	itemIndex: number,
	item: IDataObject,
	timeZone: string,
): IDataObject {
	const schema = new Map(columns.schema.filter((field) => !field.removed).map((field) => [field.id, field]));
	const values =
		columns.mappingMode === 'autoMapInputData'
			? Object.fromEntries(Object.entries(item).filter(([name]) => schema.has(name)))
			: (columns.value ?? {});
	const body: IDataObject = {};
	for (const [name, value] of Object.entries(values)) {
		if (value === null || value === undefined || value === '') continue;
		const field = schema.get(name);
		body[name] = field ? (convert(node, field, value, itemIndex, timeZone) as IDataObject[string]) : value;
	}
	return body;
}
