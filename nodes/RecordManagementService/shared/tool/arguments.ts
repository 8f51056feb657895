import type { FromAIArgument, IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError, extractFromAICalls } from 'n8n-workflow';

import { RECORD_URL } from '../../../../shared/recordAddress';

/**
 * The arguments an AI agent's model gives a tool (`$fromAI(key, description, type)` in its parameters), checked
 * before the tool sends anything.
 *
 * n8n (2.41) hands the model a JSON schema of the arguments, every one required and typed, but runs the tool call
 * without checking it against that schema: an argument the model left out resolves to `undefined`, and the node would
 * send the rest (a Task with its parent's type and no parent ID, which EspoCRM stores attached to nothing) and tell
 * the model it succeeded. So, when the node runs as a tool, every `$fromAI` argument of the parameters the operation
 * reads is checked first; what is wrong is refused with a message that names the argument, says what it must hold
 * (the description the model was given) and reaches the model as the tool's result. Values of another kind are
 * converted where that is exact (a number for text), refused where it is not (text for a number).
 */

/** A parameter, or a value inside one, written with `$fromAI`: where it is in the node's parameters, and its calls. */
interface ArgumentSite {
	path: Array<string | number>;
	calls: FromAIArgument[];
}

/** The record's own fields: an empty value there may be meant (to clear a field), unlike an empty record ID or type. */
const RECORD_FIELD_PARAMETERS = new Set(['fields', 'customFields', 'columns', 'jsonBody']);

/** Parameters that hold record IDs (one, or several separated by commas). */
const ID_PARAMETERS = new Set(['recordId', 'relatedId', 'relatedIds', 'attachmentId', 'ids']);

/**
 * A record ID as the model passes it on: letters, digits, "-" and "_" (EspoCRM's 17 characters, a UUID), or, for a
 * record locator, the record's address. A name, an e-mail address or a sentence is not one.
 */
const ID_FORM = /^[A-Za-z0-9_-]+$/;
const RECORD_ADDRESS = new RegExp(`^${RECORD_URL}`);

/** A parameter that is nothing but one `$fromAI` call with literal arguments: its value is the model's argument. */
const SINGLE_CALL =
	/^=\{\{\s*\$fromAI\s*\((?:[^()'"`]|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)*\)\s*\}\}$/i;
/** n8n finds `$fromAI` in any case. */
const HAS_CALL = /\$fromAI/i;

/** Every `$fromAI` in the node's parameters, with where it is. */
function argumentSites(node: INode): ArgumentSite[] {
	const sites: ArgumentSite[] = [];
	const visit = (value: unknown, path: Array<string | number>) => {
		if (typeof value === 'string') {
			if (!HAS_CALL.test(value)) return;
			const calls = extractFromAICalls(value);
			if (calls.length) sites.push({ path, calls });
		} else if (Array.isArray(value)) {
			value.forEach((element, index) => visit(element, [...path, index]));
		} else if (value !== null && typeof value === 'object') {
			for (const [key, element] of Object.entries(value)) visit(element, [...path, key]);
		}
	};
	visit(node.parameters, []);
	return sites;
}

function valueAt(root: unknown, path: Array<string | number>): unknown {
	let value = root;
	for (const key of path)
		value = value === null || typeof value !== 'object' ? undefined : (value as IDataObject)[key];
	return value;
}

/** The record field a site fills, when it is one: `fields.parentId`, `columns.value.parentId`, a custom field's row. */
function recordFieldOf(node: INode, path: Array<string | number>): string | undefined {
	const [parameter] = path;
	if (parameter === 'fields' && path.length === 2) return String(path[1]);
	if (parameter === 'columns' && path[1] === 'value' && path.length === 3) return String(path[2]);
	if (parameter === 'customFields' && path[path.length - 1] === 'value') {
		const name = valueAt(node.parameters, [...path.slice(0, -1), 'name']);
		return typeof name === 'string' && !name.startsWith('=') ? name.trim() : undefined;
	}
	return undefined;
}

/** Whether a site holds record IDs: an ID parameter (or its locator's value), or a record field named like a link's ID. */
function holdsIds(node: INode, path: Array<string | number>): boolean {
	if (ID_PARAMETERS.has(String(path[0]))) return true;
	const field = recordFieldOf(node, path);
	return field !== undefined && /[a-z0-9](Id|Ids)$/.test(field);
}

const KIND: Record<string, string> = {
	string: 'text',
	number: 'a number',
	boolean: 'true or false',
	json: 'JSON',
};

/** What the model was told the argument holds, for the refusal. */
function whatItHolds(call: FromAIArgument): string {
	const kind = KIND[call.type ?? 'string'] ?? 'text';
	return call.description
		? `It must hold ${kind}: ${call.description.replace(/[.\s]*$/, '')}.`
		: `It must hold ${kind}.`;
}

function isBlank(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

/**
 * The argument converted to the type the model was told, where that is exact; `undefined` where it cannot be: text
 * for a number (unless it is one written out), anything for true/false but true, false and their words.
 */
function asDeclaredType(
	value: unknown,
	type: FromAIArgument['type'],
): { value: unknown } | undefined {
	switch (type ?? 'string') {
		case 'string':
			return typeof value === 'number' || typeof value === 'boolean'
				? { value: String(value) }
				: typeof value === 'string'
					? { value }
					: undefined;
		case 'number':
			if (typeof value === 'number' && Number.isFinite(value)) return { value };
			return typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)
				? { value: Number(value) }
				: undefined;
		case 'boolean':
			if (typeof value === 'boolean') return { value };
			return value === 'true' || value === 'false' ? { value: value === 'true' } : undefined;
		default:
			return { value };
	}
}

/**
 * Refuses, before any request, the arguments of one tool call that are wrong: missing (the model left it out and the
 * call gives no default), empty where the parameter needs a value (anything but a record's own fields), of a kind that
 * does not convert exactly, or an ID that is not one. `argument(key)` is the model's argument as n8n's engine gives it.
 */
export function checkToolArguments(
	node: INode,
	itemIndex: number,
	argument: (key: string) => unknown,
): void {
	for (const site of argumentSites(node)) {
		for (const call of site.calls) {
			const refuse = (problem: string, advice = 'Nothing was sent: call the tool again with it.') =>
				new NodeOperationError(
					node,
					`The argument "${call.key}" ${problem}. ${whatItHolds(call)} ${advice}`,
					{
						itemIndex,
						description: `The AI model called the tool without a usable "${call.key}"; the tool's parameter "${String(site.path[0])}" reads it with $fromAI.`,
					},
				);
			const given = argument(call.key);
			if (given === undefined || given === null) {
				if (call.defaultValue !== undefined) continue;
				throw refuse('is missing');
			}
			const converted = asDeclaredType(given, call.type);
			if (converted === undefined)
				throw refuse(`must be ${KIND[call.type ?? 'string']}, not ${JSON.stringify(given)}`);
			const value = converted.value;
			const inRecordFields = RECORD_FIELD_PARAMETERS.has(String(site.path[0]));
			if (!inRecordFields && isBlank(value)) throw refuse('is empty');
			if (holdsIds(node, site.path) && typeof value === 'string' && value.trim() !== '') {
				const ids =
					String(site.path[0]) === 'recordId'
						? [value.trim()]
						: value
								.split(',')
								.map((id) => id.trim())
								.filter(Boolean);
				const notAnId = ids.find((id) => !ID_FORM.test(id) && !RECORD_ADDRESS.test(id));
				if (notAnId !== undefined) {
					throw refuse(
						`is not a record ID: ${JSON.stringify(notAnId)}`,
						'A record ID is the "id" of a record a tool returned (such as 6b02e09eadb4139af), not its name or e-mail address: look the record up first.',
					);
				}
			}
		}
	}
}

/**
 * A parameter's value as the node reads it in a tool call, with the arguments the parameter is nothing but converted
 * to the type the model was told (a number the model gave for text is sent as text). `saved` is the parameter as the
 * node holds it (expressions unevaluated), `value` what n8n's engine made of it.
 */
export function withDeclaredTypes(saved: unknown, value: unknown): unknown {
	if (typeof saved === 'string') {
		if (!SINGLE_CALL.test(saved)) return value;
		const calls = extractFromAICalls(saved);
		return calls.length !== 1 || value === undefined || value === null
			? value
			: (asDeclaredType(value, calls[0].type)?.value ?? value);
	}
	if (saved === null || typeof saved !== 'object' || value === null || typeof value !== 'object') {
		// A record locator read with `extractValue`: the value is its ID, the saved parameter the locator.
		const locator = saved as { __rl?: unknown; value?: unknown } | null;
		return locator?.__rl === true && typeof value !== 'object'
			? withDeclaredTypes(locator.value, value)
			: value;
	}
	if (Array.isArray(value))
		return value.map((element, index) => withDeclaredTypes((saved as unknown[])[index], element));
	const converted: IDataObject = {};
	for (const [key, element] of Object.entries(value as IDataObject)) {
		converted[key] = withDeclaredTypes((saved as IDataObject)[key], element) as IDataObject[string];
	}
	return converted;
}

/**
 * A link to a record of any type is two fields, its type and its ID (`parentType`, `parentId`): in a tool call, one
 * without the other is refused, before EspoCRM stores a record attached to nothing.
 */
export function checkLinkPairs(node: INode, itemIndex: number, body: IDataObject): void {
	for (const [field, type] of Object.entries(body)) {
		const link = /^(.+)Type$/.exec(field)?.[1];
		if (link === undefined) continue;
		const idField = `${link}Id`;
		const present = Object.prototype.hasOwnProperty.call(body, idField);
		if (!present && link !== 'parent') continue;
		const id = body[idField];
		if (isBlank(type) === isBlank(id)) continue;
		const [given, missing] = isBlank(id) ? [field, idField] : [idField, field];
		throw new NodeOperationError(
			node,
			`The field "${missing}" is empty, but "${given}" is set: a link to a record needs both its type and its ID. Nothing was sent: call the tool again with both.`,
			{ itemIndex },
		);
	}
}
