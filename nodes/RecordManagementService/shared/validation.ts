import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError, jsonParse } from 'n8n-workflow';

/** Entity type and relationship names become path segments: only plain identifiers can never reach another path. */
const PLAIN_IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]*$/;

type ParameterContext = Pick<IExecuteSingleFunctions, 'getNode'> & { getItemIndex?: () => number };

export function requirePlainIdentifier(
	context: ParameterContext,
	value: unknown,
	parameter: string,
	itemIndex: number,
): string {
	const name = typeof value === 'string' ? value.trim() : '';
	if (!PLAIN_IDENTIFIER.test(name)) {
		throw new NodeOperationError(
			context.getNode(),
			`The parameter "${parameter}" must be a plain name such as "Contact" or "opportunities" (item ${itemIndex}: ${JSON.stringify(value ?? '')})`,
			{
				itemIndex,
				description: 'Use letters, digits and underscores only, starting with a letter: the name becomes part of the request path.',
			},
		);
	}
	return name;
}

/**
 * A record ID, which goes into a path encoded. Encoding leaves "." and "..", which URL parsers resolve as
 * steps up the path (even when written %2E), so those are refused like an empty ID.
 */
export function requireId(context: ParameterContext, value: unknown, parameter: string, itemIndex: number): string {
	if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
		throw new NodeOperationError(context.getNode(), `The parameter "${parameter}" must be one ID, not a list or an object (item ${itemIndex})`, {
			itemIndex,
			description: 'Give the ID of one record, for example with an expression such as {{ $json.id }}.',
		});
	}
	const id = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	if (id === '' || id === '.' || id === '..') {
		throw new NodeOperationError(
			context.getNode(),
			`The parameter "${parameter}" ${id === '' ? 'is empty' : `is not a record ID ("${id}")`} (item ${itemIndex})`,
			{
				itemIndex,
				description: 'Give the ID of the record, for example from an earlier node with an expression such as {{ $json.id }}.',
			},
		);
	}
	return id;
}

/** IDs given as one ID, several separated by commas, or a list from an expression; empty entries are skipped. */
export function idsFrom(context: ParameterContext, value: unknown, parameter: string, itemIndex: number): string[] {
	const entries = Array.isArray(value) ? value : value === undefined || value === null ? [] : String(value).split(',');
	return entries
		.filter((entry) => !(typeof entry === 'string' && entry.trim() === ''))
		.map((entry) => requireId(context, entry, parameter, itemIndex));
}

/** Parses a JSON parameter that must hold an object (the fields of a record). */
export function parseJsonObject(context: ParameterContext, value: unknown, parameter: string, itemIndex: number): IDataObject {
	const parsed = parseJsonParameter<unknown>(context, value, parameter, itemIndex);
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw new NodeOperationError(context.getNode(), `The parameter "${parameter}" must be a JSON object (item ${itemIndex})`, {
			itemIndex,
			description: 'Write the fields as an object, such as {"name": "Acme"}.',
		});
	}
	return parsed as IDataObject;
}

/** Parses a JSON parameter, which n8n hands over as text or, from an expression, already parsed. */
export function parseJsonParameter<T = IDataObject>(
	context: ParameterContext,
	value: unknown,
	parameter: string,
	itemIndex: number,
): T {
	if (typeof value !== 'string') return value as T;
	try {
		return jsonParse<T>(value);
	} catch (error) {
		throw new NodeOperationError(context.getNode(), `The parameter "${parameter}" is not valid JSON (item ${itemIndex})`, {
			itemIndex,
			description: (error as Error).message,
		});
	}
}

/** The entity type chosen, or typed under "Entity Type Name"; anything but a plain name is refused. */
export function entityTypeFrom(context: ParameterContext, chosen: unknown, typedName: () => unknown, itemIndex: number): string {
	return chosen === 'custom'
		? requirePlainIdentifier(context, typedName(), 'Entity Type Name', itemIndex)
		: requirePlainIdentifier(context, chosen, 'Entity Type', itemIndex);
}

/** preSend of the entity type: refuses a name that is not a plain identifier before anything is sent. */
export async function checkEntityType(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	entityTypeFrom(this, this.getNodeParameter('entityType'), () => this.getNodeParameter('customEntityType'), this.getItemIndex());
	return request;
}

/** preSend of a record ID: refuses an empty one. The URL expression encodes it, so `/`, `?` or `#` stay in one path segment. */
export async function checkRecordId(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const itemIndex = this.getItemIndex();
	requireId(this, this.getNodeParameter('recordId', undefined, { extractValue: true }), 'Record ID', itemIndex);
	return request;
}

/** preSend of a relationship name: refuses anything but a plain identifier. */
export async function checkLink(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const itemIndex = this.getItemIndex();
	const chosen = this.getNodeParameter('link') as string;
	const link = chosen === 'custom' ? this.getNodeParameter('customLink') : chosen;
	requirePlainIdentifier(this, link, chosen === 'custom' ? 'Relationship Name' : 'Relationship', itemIndex);
	return request;
}
