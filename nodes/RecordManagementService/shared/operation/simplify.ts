import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { runOf } from '../http/run';
import { parameterOfItem } from '../item/item';
import { runsAsTool } from '../tool/mode';

/**
 * Simplify: a compact form of the records that Get, Get Many and Get Many Related return (and Create, Update, Create or
 * Update and Stream > Post, whose answer is the whole record or note), for AI agents (a tool's output fills the model's
 * context) and for workflows that only need the values. Fields to Return (on lists) already limits what the server
 * sends; Simplify also drops what no one reads from what is left.
 */
const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description:
		"Whether to return a compact form of each record: fields without a value are left out, and so is the server's bookkeeping (deletion and follower flags, the details of each e-mail address and phone number, relationship columns, who created or changed the record). Useful when an AI agent reads the result.",
};

// Stream > Post: the note it created (EspoCRM's answer is 450-500 characters, mostly empty or bookkeeping).
const operations = {
	resource: ['record', 'relationship', 'stream'],
	operation: ['get', 'getMany', 'getManyRelated', 'create', 'update', 'upsert', 'post'],
};

/**
 * Off by default, so that workflows keep every field; on by default for a tool from version 1.2: a model needs the
 * values, and whole records fill its context (a tool of version 1 or 1.1 keeps its default, off). Three declarations
 * because n8n's displayOptions cannot say "a tool of version 1.2": each key of `show` and `hide` is one condition.
 */
export const simplifyFields: INodeProperties[] = [
	{ ...simplifyField, displayOptions: { show: operations, hide: { '@tool': [true] } } },
	{
		...simplifyField,
		displayOptions: { show: { ...operations, '@tool': [true], '@version': [1, 1.1] } },
	},
	{
		...simplifyField,
		default: true,
		displayOptions: {
			show: { ...operations, '@tool': [true], '@version': [{ _cnd: { gte: 1.2 } }] },
		},
	},
];

/** The server's bookkeeping attributes, which Simplify leaves out whatever their value. */
const BOOKKEEPING = new Set([
	'deleted',
	'isFollowed',
	'followersIds',
	'followersNames',
	'versionNumber',
	'phoneNumbersMap',
]);
/**
 * Opt-out and invalid flags (`emailAddressIsOptedOut`, `phoneNumberIsInvalid`, `targetListIsOptedOut`: EspoCRM's own
 * suffixes), and who made or last changed the record.
 */
const BOOKKEEPING_PATTERN = /(IsOptedOut|IsInvalid)$|^(createdBy|modifiedBy)(Id|Name)$/;

/** The fields whose addresses or numbers EspoCRM details in `…Data`. */
const DETAILED_FIELDS = new Set(['emailAddress', 'phoneNumber']);

/**
 * Details of another field of the record: the addresses and numbers behind `emailAddress` and `phoneNumber`
 * (`emailAddressData`, also where the field itself is not in the answer), and a relationship's columns next to its IDs
 * (`accountsColumns` by `accountsIds`). A custom field that only ends the same way (`cShippingData`) belongs to no
 * other field and is kept.
 */
function isDetailOfAnotherField(name: string, record: IDataObject): boolean {
	const has = (field: string) => Object.prototype.hasOwnProperty.call(record, field);
	const owner = /^(.+)Data$/.exec(name)?.[1];
	if (owner !== undefined) return DETAILED_FIELDS.has(owner) || has(owner);
	const link = /^(.+)Columns$/.exec(name)?.[1];
	return link !== undefined && has(`${link}Ids`);
}

function isEmpty(value: unknown): boolean {
	if (value === null || value === undefined || value === '') return true;
	if (Array.isArray(value)) return value.length === 0;
	return typeof value === 'object' && Object.keys(value as object).length === 0;
}

/** A record without its empty fields and the server's bookkeeping. */
export function simplifyRecord(record: IDataObject): IDataObject {
	const compact: IDataObject = {};
	for (const [name, value] of Object.entries(record)) {
		if (
			isEmpty(value) ||
			BOOKKEEPING.has(name) ||
			BOOKKEEPING_PATTERN.test(name) ||
			isDetailOfAnotherField(name, record)
		)
			continue;
		compact[name] = value;
	}
	return compact;
}

/** What a list tool tells the model when nothing matched (n8n would hand it an empty text). */
export const NOTHING_FOUND: IDataObject = { found: 0, message: 'No records match.' };

type CustomOperation = (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

/**
 * A custom operation with Simplify applied to the records of each input item that asks for it; for a list (Get Many,
 * Get Many Related) run as an AI agent's tool, a "nothing found" item instead of no output at all.
 */
export function withSimplify(operation: CustomOperation, { list = false } = {}): CustomOperation {
	return async function (this: IExecuteFunctions) {
		const [items] = await operation.call(this);
		const run = runOf(this);
		const asked = new Map<number, boolean>();
		const simplifies = (index: number) => {
			if (!asked.has(index))
				asked.set(index, parameterOfItem<boolean>(run, index, 'simplify', false) === true);
			return asked.get(index) === true;
		};
		const output = items.map((item) => {
			const index = Array.isArray(item.pairedItem)
				? undefined
				: typeof item.pairedItem === 'object'
					? item.pairedItem.item
					: item.pairedItem;
			if (item.error || index === undefined || !simplifies(index)) return item;
			return { ...item, json: simplifyRecord(item.json) };
		});
		if (list && output.length === 0 && runsAsTool(run.node))
			return [[{ json: { ...NOTHING_FOUND }, pairedItem: { item: 0 } }]];
		return [output];
	};
}

/** postReceive of Get (routed): the record simplified when the item asks for it. */
export async function simplifyRoutedRecord(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	if (this.getNodeParameter('simplify', false) !== true) return items;
	return items.map((item) => ({ ...item, json: simplifyRecord(item.json) }));
}
