import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	duplicateCheckHeaders,
	recordBody,
	skipDuplicateCheckOption,
} from '../../shared/fields/recordBody';
import { asNodeError } from '../../shared/http/errors';
import { apiRequest } from '../../shared/http/request';
import type { ApiRequest } from '../../shared/http/request';
import { runOf } from '../../shared/http/run';
import { itemOf } from '../../shared/item/item';
import type { Item } from '../../shared/item/item';
import { pathOf } from '../../shared/item/paths';
import {
	entityTypeOf,
	requirePlainIdentifier,
	requireWellFormed,
} from '../../shared/item/validation';
import { ItemTurns, failureOf } from '../../shared/operation/forEachItem';
import { dialectOf } from '../../shared/server/dialect';
import type { Dialect } from '../../shared/server/dialect';
import { withStatusThroughPipeline } from './pipelines';
import { withPrimaryAddressesKept } from './primaryAddress';
import { DEFAULT_VALUES_PER_LOOKUP, LookupGroup, lookUpOne, matchValueOf } from './upsertLookup';
import type { MatchValue } from './upsertLookup';

const show = { operation: ['upsert'] };

export const upsertFields: INodeProperties[] = [
	{
		displayName: 'Match By Field Name or ID',
		name: 'matchField',
		type: 'options',
		typeOptions: {
			loadOptionsMethod: 'getSortableFields',
			loadOptionsDependsOn: ['entityType', 'customEntityType'],
		},
		default: 'emailAddress',
		required: true,
		description:
			'The field that identifies the record, for example emailAddress. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		displayOptions: { show },
	},
	{
		displayName: 'Match Value',
		name: 'matchValue',
		type: 'string',
		default: '',
		required: true,
		placeholder: '={{ $json.email }}',
		description:
			'The value the record has in that field (spaces around it are ignored, letter case too, as the server compares; a phone number written with + is also looked up as EspoCRM stores it, +1 555 400 0041 as +15554000041). The field is also set to it when the record is created.',
		displayOptions: { show },
	},
];

export const upsertOptions: INodeProperties = {
	displayName: 'Options',
	name: 'upsertOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	displayOptions: { show },
	options: [
		{
			displayName: 'When Several Records Match',
			name: 'onSeveralMatches',
			type: 'options',
			options: [
				{ name: 'Stop With an Error', value: 'error' },
				{ name: 'Update All of Them', value: 'updateAll' },
			],
			default: 'error',
		},
		skipDuplicateCheckOption,
		{
			displayName: 'Match Values per Look-Up',
			name: 'valuesPerLookup',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 200 },
			default: DEFAULT_VALUES_PER_LOOKUP,
			description:
				'How many match values one request looks up (fewer when they are long: a request line stays under 7,000 characters). 1,000 items with 100 per look-up are 10 look-ups and 1,000 writes.',
		},
	],
};

/** One input item, read. */
interface Upsert {
	item: Item;
	entityType: string;
	path: string;
	matchField: string;
	/** The match value, trimmed: what is written to the match field on create. */
	matchValue: string | number | boolean;
	/** What is looked up: the value in each form the server may have stored it in. */
	lookedUp: MatchValue;
	body: IDataObject;
	options: IDataObject;
}

function read(item: Item, dialect: Dialect): Upsert {
	const entityType = entityTypeOf(item);
	const path = pathOf(item, '/{entityType}', { entityType });
	const matchField = requirePlainIdentifier(item, item.parameter('matchField'), 'Match By Field');
	const given = item.parameter<unknown>('matchValue', '');
	if (given !== null && typeof given === 'object') {
		throw item.refuse(
			'Match Value',
			'must be one value, not a list or an object',
			'Give the one value that identifies the record, for example {{ $json.email }}.',
		);
	}
	const matchValue =
		typeof given === 'number' || typeof given === 'boolean' ? given : String(given ?? '').trim();
	if (matchValue === '') throw item.refuse('Match Value', 'is empty');
	// Looked up in a query string shared with other items: refused here, so that only this item fails.
	requireWellFormed(item, matchValue, 'Match Value');
	const options = item.parameter<IDataObject>('upsertOptions', {});
	const valuesPerLookup = options.valuesPerLookup ?? DEFAULT_VALUES_PER_LOOKUP;
	if (!Number.isInteger(valuesPerLookup) || (valuesPerLookup as number) < 1) {
		throw item.refuse(
			'Match Values per Look-Up',
			`must be a whole number of at least 1 (${String(valuesPerLookup)})`,
		);
	}
	return {
		item,
		entityType,
		path,
		matchField,
		matchValue,
		lookedUp: matchValueOf(matchValue, matchField, dialect),
		body: recordBody(item),
		options,
	};
}

/**
 * What one match value stands for in this run (per entity type and match field): the records the look-up found,
 * then the one the first item created. Its items write one after another, in input order.
 */
class MatchedRecords {
	ids?: string[];

	/** A write of this value failed (a create may have been carried out): the next item looks again before writing. */
	lookAgain = false;

	/** The last item of this value to write. */
	tail: Promise<void> = Promise.resolve();

	constructor(readonly found: Promise<IDataObject[]>) {
		// Awaited by the value's first item once its turn comes; a failed look-up must not count as unhandled meanwhile.
		found.catch(() => undefined);
	}
}

const idsOf = (records: IDataObject[]) => records.map((record) => String(record.id));

/** The item's write: POST when no record has the value, PUT to the one that has it (or each, with "Update All of Them"). */
async function write(
	upsert: Upsert,
	records: MatchedRecords,
	stopped: () => boolean,
): Promise<IDataObject[]> {
	const { item, path, matchField, matchValue, lookedUp, entityType, body, options } = upsert;
	let ids: string[];
	if (records.lookAgain) {
		ids = idsOf(await lookUpOne(item.run, item.index, path, matchField, lookedUp));
		records.lookAgain = false;
	} else {
		ids = records.ids ?? idsOf(await records.found);
	}
	records.ids = ids;
	// The node failed while this item waited for its look-up: it is not sent.
	if (stopped()) return [];
	// A write that failed may have been carried out (a create after a lost connection), or its record may be gone:
	// the value's next item looks again instead of trusting what this run knew.
	const send = async (request: ApiRequest) => {
		try {
			return await apiRequest(item.run, item.index, { ...request, expect: 'record' });
		} catch (error) {
			records.lookAgain = true;
			throw asNodeError(item.node, error, item.index);
		}
	};
	// On EspoCRM 10 with pipelines, a status written is set through the record's pipeline stage (pipelines.ts).
	const throughPipeline = async (sent: IDataObject, written: IDataObject) =>
		await withStatusThroughPipeline(item, entityType, path, sent, written);
	if (ids.length === 0) {
		const sent = { [matchField]: matchValue, ...body };
		const created = await send({
			method: 'POST',
			url: path,
			body: sent,
			headers: duplicateCheckHeaders(options),
		});
		records.ids = [String(created.id)];
		return [await throughPipeline(sent, created)];
	}
	if (ids.length > 1 && options.onSeveralMatches !== 'updateAll') {
		throw new NodeOperationError(
			item.node,
			`${ids.length} ${entityType} records have ${matchField} "${String(matchValue)}", so it is not clear which to update (item ${item.index})`,
			{
				itemIndex: item.index,
				description:
					'Pick a field that identifies one record, or set the option "When Several Records Match" to "Update All of Them".',
			},
		);
	}
	const updated: IDataObject[] = [];
	for (const id of ids) {
		const written = await send({ method: 'PUT', url: `${path}/${encodeURIComponent(id)}`, body });
		// EspoCRM 7.5 keeps the old address of a field written without its list (primaryAddress.ts).
		updated.push(
			await throughPipeline(body, await withPrimaryAddressesKept(item, path, body, written)),
		);
	}
	return updated;
}

/**
 * Looks up the match values of many items at once, then writes each item: POST /{entityType} when no record has its
 * value, PUT /{entityType}/{id} when one has (or each, with "Update All of Them"), an error naming the count when
 * several have. The items are read one after another; their values are gathered per entity type and match field and
 * looked up in chunks (`LookupGroup`: `in`, or an `or` of `equals` for a person's name), each chunk sent once full
 * while the next items are read, and each item written as soon as its chunk has answered: N items cost N writes and
 * about N / 100 look-ups instead of N look-ups. Values are compared as the server compares them: trimmed,
 * letter case ignored, a phone number also in the form the server stores it (`matchValueOf`). Items with the same value write one after another in input order: the first creates the
 * record, the others update it; no value is looked up twice, unless a create of it failed.
 */
export async function upsert(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const run = runOf(this);
	const count = this.getInputData().length;
	const dialect = await dialectOf(run);
	const turns = new ItemTurns();
	const groups = new Map<string, LookupGroup>();
	const byValue = new Map<string, MatchedRecords>();
	const results: INodeExecutionData[][] = new Array(count);
	const writes: Array<Promise<void>> = [];
	// Without "Continue on fail", the first failure fails the node: nothing further is sent, from the moment it
	// happens (making its error may read the metadata). An item fails as every custom operation's item does
	// (failureOf: as a tool, with the allowed values and the advice for the model).
	let failure: Promise<Error> | undefined;
	const fail = async (index: number, error: unknown) => {
		if (!this.continueOnFail()) failure ??= failureOf(run, index, error);
		else
			results[index] = [
				{ json: {}, error: await failureOf(run, index, error), pairedItem: { item: index } },
			];
	};

	for (let index = 0; index < count && !failure; index++) {
		let upsert: Upsert;
		try {
			upsert = await turns.run(async () => read(itemOf(run, index), dialect));
		} catch (error) {
			await fail(index, error);
			continue;
		}
		const group = JSON.stringify([upsert.path, upsert.matchField]);
		const { key } = upsert.lookedUp;
		let records = byValue.get(JSON.stringify([group, key]));
		if (!records) {
			let lookups = groups.get(group);
			if (!lookups) {
				lookups = new LookupGroup(
					run,
					upsert.path,
					upsert.matchField,
					(upsert.options.valuesPerLookup as number | undefined) ?? DEFAULT_VALUES_PER_LOOKUP,
				);
				groups.set(group, lookups);
			}
			records = new MatchedRecords(lookups.find(upsert.lookedUp, index));
			byValue.set(JSON.stringify([group, key]), records);
		}
		const matched = records;
		const written = matched.tail.then(async () => {
			if (failure) return;
			try {
				const output = await write(upsert, matched, () => failure !== undefined);
				results[index] = output.map((json) => ({ json, pairedItem: { item: index } }));
			} catch (error) {
				await fail(index, error);
			}
		});
		matched.tail = written;
		writes.push(written);
	}
	for (const lookups of groups.values()) {
		if (failure) lookups.abandon(await failure);
		else lookups.flush();
	}
	await Promise.all(writes);
	if (failure) throw await failure;
	return [results.flat()];
}
