import type { IDataObject, ResourceMapperField, ResourceMapperValue } from 'n8n-workflow';
import { NodeOperationError, jsonParse } from 'n8n-workflow';

import { isDateOnly, readMoment, serverDate, serverDateTime } from './dates';
import type { Item } from '../item/item';

/**
 * n8n's field mapper keeps, of each field, only its id, label and n8n type. Where two EspoCRM types share an n8n
 * type but are written differently, the label says which (and so tells it to the user too):
 * a date (YYYY-MM-DD), a date-time (YYYY-MM-DD HH:MM:SS in UTC), or a date-time that may be a date (all-day events).
 */
export const LABEL_DATE_ONLY = 'date only';
export const LABEL_DATE_OR_DATE_TIME = 'date or date-time';
/**
 * A list (multi-enum, array, checklist, IDs of a link-multiple…): offered as text, since n8n refuses a literal
 * `a, b` in a field of its type "array" before the run ("expects a array"). A list from an expression passes too.
 */
export const LABEL_LIST = 'list: a, b';

type Value = string | number | boolean | null | unknown[] | IDataObject;

function labelSays(field: ResourceMapperField, hint: string) {
	return field.displayName.endsWith(`, ${hint})`) || field.displayName.endsWith(`(${hint})`);
}

/**
 * Converts one mapped value to what the server expects for the field's type, as attribute → value pairs. A field
 * that may be a date or a date-time (EspoCRM's datetimeOptional: Meeting and Task dateStart/dateEnd) takes a date in
 * its `…Date` attribute (an all-day event; the server derives the date-time) and a date-time in itself, with the
 * `…Date` attribute cleared, as EspoCRM's own form writes them.
 */
function convert(item: Item, field: ResourceMapperField, value: unknown): IDataObject {
	const refuse = (expected: string): never => {
		throw new NodeOperationError(
			item.node,
			`The field "${field.id}" needs ${expected}; ${JSON.stringify(value)} is not one (item ${item.index})`,
			{
				itemIndex: item.index,
				description: 'Change the value mapped to this field, or convert it in an earlier node.',
			},
		);
	};
	const one = (converted: Value): IDataObject => ({ [field.id]: converted as IDataObject[string] });
	switch (field.type) {
		case 'number': {
			const number = typeof value === 'number' ? value : Number(String(value).trim());
			if (typeof value === 'boolean' || String(value).trim() === '' || !Number.isFinite(number))
				return refuse('a number');
			return one(number);
		}
		case 'boolean': {
			if (typeof value === 'boolean') return one(value);
			const text = String(value).trim().toLowerCase();
			if (['true', '1', 'yes'].includes(text)) return one(true);
			if (['false', '0', 'no'].includes(text)) return one(false);
			return refuse('true or false');
		}
		case 'dateTime': {
			const optional = labelSays(field, LABEL_DATE_OR_DATE_TIME);
			if (optional && isDateOnly(value)) return { [`${field.id}Date`]: value.trim() };
			const moment = readMoment(value, item.timeZone);
			if (!moment) return refuse('a date');
			if (labelSays(field, LABEL_DATE_ONLY)) return one(serverDate(moment));
			return optional
				? { [field.id]: serverDateTime(moment), [`${field.id}Date`]: null }
				: one(serverDateTime(moment));
		}
		case 'string':
			if (!labelSays(field, LABEL_LIST))
				return one(typeof value === 'object' ? JSON.stringify(value) : (value as Value));
			return one(listOf(value) ?? refuse('a list'));
		case 'array':
			// Mappings saved before lists were offered as text.
			return one(listOf(value) ?? refuse('a list'));
		case 'object':
			if (typeof value === 'object' && !Array.isArray(value)) return one(value as IDataObject);
			return one(
				parseJson(
					value,
					(parsed) => parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed),
				) ?? refuse('a JSON object'),
			);
		default:
			return one(typeof value === 'object' ? JSON.stringify(value) : (value as Value));
	}
}

/** A list as given: a list, a JSON list, or `a, b` (items trimmed, empty ones left out). */
function listOf(value: unknown): unknown[] | undefined {
	if (Array.isArray(value)) return value;
	if (typeof value === 'string' && value.trim().startsWith('['))
		return parseJson(value, Array.isArray) as unknown[] | undefined;
	return String(value)
		.split(',')
		.map((part) => part.trim())
		.filter((part) => part !== '');
}

function parseJson(value: unknown, fits: (parsed: unknown) => boolean): Value | undefined {
	try {
		const parsed = jsonParse<Value>(String(value));
		return fits(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The record's fields from n8n's field mapper (`columns`). Its value carries the schema the user mapped against,
 * so no metadata is read during an execution. "Map Automatically" takes the input item's fields that the entity
 * type has. Empty values are left out: the mapper lists every field, and an empty one is one the user left alone.
 */
export function mappedFields(item: Item, columns: ResourceMapperValue): IDataObject {
	const schema = new Map(
		columns.schema.filter((field) => !field.removed).map((field) => [field.id, field]),
	);
	const values =
		columns.mappingMode === 'autoMapInputData'
			? Object.fromEntries(Object.entries(item.json).filter(([name]) => schema.has(name)))
			: (columns.value ?? {});
	const body: IDataObject = {};
	for (const [name, value] of Object.entries(values)) {
		if (value === null || value === undefined || value === '') continue;
		const field = schema.get(name);
		Object.assign(body, field ? convert(item, field, value) : { [name]: value });
	}
	return body;
}
