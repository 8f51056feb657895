import type { IDataObject } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { RECORD_URL } from '../../../../shared/recordAddress';
import { asNodeError } from '../http/errors';
import type { Item } from './item';
import { brokenTextIn } from '../http/text';

/** Entity type and relationship names become path segments: only plain identifiers can never reach another path. */
const PLAIN_IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]*$/;

const RECORD_URL_ONLY = new RegExp(`^${RECORD_URL}.*$`);

export function requirePlainIdentifier(item: Item, value: unknown, parameter: string): string {
	const name = typeof value === 'string' ? value.trim() : '';
	if (!PLAIN_IDENTIFIER.test(name)) {
		throw item.refuse(
			parameter,
			`must be a plain name such as "Contact" or "opportunities", not ${JSON.stringify(value ?? '')}`,
			'Use letters, digits and underscores only, starting with a letter: the name becomes part of the request path.',
		);
	}
	return name;
}

/**
 * Refuses a value that holds a broken character (text.ts: half of an emoji, as cutting text short leaves it) before
 * anything of the item is sent: in a request's address it cannot be encoded (encodeURIComponent throws "URI
 * malformed", n8n's query encoder sends another character instead). `part` says where in the parameter, as
 * "condition 2"; the path inside the value is added: "condition 2 (value)", "where[0].value".
 */
export function requireWellFormed(item: Item, value: unknown, parameter: string, part = ''): void {
	const broken = brokenTextIn(value);
	if (!broken) return;
	const inside = broken.path.replace(/^\./, '');
	const where =
		!part || !inside
			? part || inside
			: inside.startsWith('[')
				? `${part}${inside}`
				: `${part} (${inside})`;
	throw item.refuse(
		parameter,
		`${where ? `: ${where} ` : ''}holds a broken character, such as half of an emoji`,
		`Character ${broken.position + 1}${inside ? ` of ${inside}` : ''} is ${broken.codeUnit}, one half of a character written with two UTF-16 code units, as cutting text short can leave. Such a value cannot be sent in a request's address, so nothing was sent for this item. Correct the text where it comes from, or leave the broken half out with an expression such as {{ $json.text.replace(/[\\uD800-\\uDFFF]/gu, '') }}.`,
	);
}

/**
 * A record ID, which goes into a path encoded. Encoding leaves "." and "..", which URL parsers resolve as
 * steps up the path (even when written %2E), so those are refused like an empty ID.
 */
export function requireId(item: Item, value: unknown, parameter: string): string {
	if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
		throw item.refuse(
			parameter,
			'must be one ID, not a list or an object',
			'Give the ID of one record, for example with an expression such as {{ $json.id }}.',
		);
	}
	const id =
		typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	requireWellFormed(item, id, parameter);
	if (id === '' || id === '.' || id === '..') {
		throw item.refuse(
			parameter,
			id === '' ? 'is empty' : `is not a record ID ("${id}")`,
			'Give the ID of the record, for example from an earlier node with an expression such as {{ $json.id }}.',
		);
	}
	return id;
}

/** IDs given as one ID, several separated by commas, or a list from an expression; empty entries are skipped. */
export function idsFrom(item: Item, value: unknown, parameter: string): string[] {
	const entries = Array.isArray(value)
		? value
		: value === undefined || value === null
			? []
			: String(value).split(',');
	return entries
		.filter((entry) => !(typeof entry === 'string' && entry.trim() === ''))
		.map((entry) => requireId(item, entry, parameter));
}

/** Parses a JSON parameter, which n8n hands over as text or, from an expression, already parsed. */
export function parseJsonParameter<T = IDataObject>(
	item: Item,
	value: unknown,
	parameter: string,
): T {
	if (typeof value !== 'string') return value as T;
	try {
		return jsonParse<T>(value);
	} catch (error) {
		throw item.refuse(parameter, 'is not valid JSON', (error as Error).message);
	}
}

/** Parses a JSON parameter that must hold an object (the fields of a record). */
export function parseJsonObject(item: Item, value: unknown, parameter: string): IDataObject {
	const parsed = parseJsonParameter<unknown>(item, value, parameter);
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw item.refuse(
			parameter,
			'must be a JSON object',
			'Write the fields as an object, such as {"name": "Acme"}.',
		);
	}
	return parsed as IDataObject;
}

/** The parameter that names the item's entity type, as refusals name it: "Entity Type", or "Entity Type Name" for "Other". */
export function entityTypeParameterOf(item: Item): string {
	return item.parameter('entityType') === 'custom' ? 'Entity Type Name' : 'Entity Type';
}

/** The entity type chosen, or typed under "Entity Type Name"; anything but a plain name is refused. */
export function entityTypeOf(item: Item): string {
	const chosen = item.parameter('entityType');
	return chosen === 'custom'
		? requirePlainIdentifier(item, item.parameter('customEntityType', ''), 'Entity Type Name')
		: requirePlainIdentifier(item, chosen, 'Entity Type');
}

/** The relationship chosen, or typed under "Relationship Name". */
export function linkOf(item: Item): string {
	const chosen = item.parameter('link');
	return chosen === 'custom'
		? requirePlainIdentifier(item, item.parameter('customLink', ''), 'Relationship Name')
		: requirePlainIdentifier(item, chosen, 'Relationship');
}

/**
 * The ID a record locator (`recordId`, or the lead of Convert) points at. n8n resolves the expression first, then
 * takes the ID out of a "By URL" address with the mode's pattern. An address typed under "By ID" (or saved by
 * something other than the editor) is reduced to its ID too: an ID never looks like one.
 */
export function recordIdOf(item: Item, parameter = 'recordId', label = 'Record'): string {
	let value: unknown;
	try {
		value = item.parameter(parameter, undefined, { extractValue: true });
	} catch (error) {
		if (!/value is invalid/i.test((error as Error).message))
			throw asNodeError(item.node, error, item.index);
		throw item.refuse(
			label,
			'is not a record address such as https://crm.example.com/#Contact/view/<id>',
			'Copy the address of the record from the browser, or choose "By ID".',
		);
	}
	const text = typeof value === 'string' ? value.trim().replace(RECORD_URL_ONLY, '$1') : value;
	return requireId(item, text, label);
}
