import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { dialectOf } from '../../shared/server/dialect';
import type { Dialect } from '../../shared/server/dialect';
import { asNodeError } from '../../shared/http/errors';
import type { FailedResponse } from '../../shared/http/failure';
import type { Item } from '../../shared/item/item';
import { itemOf } from '../../shared/item/item';
import { inParallel } from '../../shared/http/parallel';
import { send } from '../../shared/http/request';
import type { ApiRequest } from '../../shared/http/request';
import type { Run } from '../../shared/http/run';
import { outcomeUnknown } from '../../shared/http/send';
import { entityTypeOf, idsFrom } from '../../shared/item/validation';

const show = { operation: ['massUpdate', 'massDelete'] };

export const idSourceFields: INodeProperties[] = [
	{
		displayName: 'Record IDs From',
		name: 'idSource',
		type: 'options',
		options: [
			{
				name: 'A Field of the Input Items',
				value: 'field',
				description:
					'Each input item holds its record ID in a field, as the records of Get Many do',
			},
			{
				name: 'An Expression',
				value: 'expression',
				description:
					'An expression per input item, which may give an ID, several separated by commas, or a list',
			},
		],
		default: 'field',
		displayOptions: { show },
	},
	{
		displayName: 'ID Field',
		name: 'idField',
		type: 'string',
		default: 'id',
		required: true,
		description:
			'Name of the field of the input items that holds the ID (or a list of IDs); dots lead into nested fields. Read directly, without an expression per item: the fast way for thousands of items.',
		displayOptions: { show: { ...show, idSource: ['field'] } },
	},
	{
		displayName: 'Record IDs',
		name: 'ids',
		type: 'string',
		default: '={{ $json.id }}',
		required: true,
		description:
			'The IDs to change, gathered from all input items together: per item an ID, several separated by commas, or an expression that returns a list. An item that gives none is left out.',
		displayOptions: { show: { ...show, idSource: ['expression'] } },
	},
	{
		displayName: 'IDs per Request',
		name: 'chunkSize',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 1000 },
		default: 100,
		description:
			'How many IDs go into one request. 1,000 IDs with 100 per request are 10 requests.',
		displayOptions: { show },
	},
];

export interface Chunk {
	ids: string[];
	pairedItem: IPairedItemData[];
}

interface GatheredIds {
	chunks: Chunk[];
	/** With "Continue on fail": the items that gave no usable ID, each carrying its error. */
	refused: INodeExecutionData[];
}

/**
 * Reads the IDs of one input item. From a field, the field name is read once (as item 0 gives it) and each item's
 * JSON is looked into directly, with no expression to resolve per item.
 */
function idReader(run: Run<IExecuteFunctions>): { idsOf: (item: Item) => string[]; none: string } {
	const first = itemOf(run, 0);
	if (first.parameter<string>('idSource', 'field') === 'expression') {
		return {
			idsOf: (item) => idsFrom(item, item.parameter('ids'), 'Record IDs'),
			none: 'The parameter "Record IDs" gave no ID in any input item',
		};
	}
	const field = first.parameter<string>('idField', 'id').trim();
	if (field === '') throw first.refuse('ID Field', 'is empty');
	const path = field.split('.');
	// A key that contains dots itself is taken as it is; otherwise the dots lead into nested objects.
	const valueOf = (json: IDataObject): unknown =>
		field in json
			? json[field]
			: path.reduce<unknown>((value, key) => (value as IDataObject | undefined)?.[key], json);
	return {
		idsOf: (item) => idsFrom(item, valueOf(item.json), `ID Field (${field})`),
		none: `No input item has a record ID in the field "${field}" (parameter "ID Field")`,
	};
}

/**
 * Gathers the IDs of all input items, without repeats, in chunks that remember which items they came from.
 * An item that gives no ID is left out (a way to pick items); if none gives one, nothing is sent and the node fails.
 * An entry that is not an ID is an error of its item.
 */
export function gatherIds(run: Run<IExecuteFunctions>): GatheredIds {
	const { context, node } = run;
	const { idsOf, none } = idReader(run);
	const byId = new Map<string, Set<number>>();
	const refused: INodeExecutionData[] = [];
	const count = context.getInputData().length;
	for (let index = 0; index < count; index++) {
		try {
			for (const id of idsOf(itemOf(run, index)))
				byId.set(id, (byId.get(id) ?? new Set()).add(index));
		} catch (error) {
			const nodeError = asNodeError(node, error, index);
			if (!context.continueOnFail()) throw nodeError;
			refused.push({ json: {}, error: nodeError, pairedItem: { item: index } });
		}
	}
	if (byId.size === 0 && refused.length === 0) {
		throw new NodeOperationError(node, none, {
			description:
				'Nothing was sent. Check "Record IDs From": the field name (for example "id") or the expression (for example {{ $json.id }}).',
		});
	}
	const chunkSize = itemOf(run, 0).parameter<number>('chunkSize', 100);
	if (!Number.isInteger(chunkSize) || chunkSize < 1) {
		throw new NodeOperationError(
			node,
			`The parameter "IDs per Request" must be a whole number of at least 1 (${chunkSize})`,
		);
	}
	const entries = [...byId.entries()];
	const chunks: Chunk[] = [];
	for (let start = 0; start < entries.length; start += chunkSize) {
		const slice = entries.slice(start, start + chunkSize);
		const items = new Set(slice.flatMap(([, itemIndexes]) => [...itemIndexes]));
		chunks.push({ ids: slice.map(([id]) => id), pairedItem: [...items].map((item) => ({ item })) });
	}
	return { chunks, refused };
}

/** What a chunk's request did, for its output item. */
export interface ChunkOutcome {
	/** What the server reported: EspoCRM gives `count` and `ids`; a Standard server only `true`. */
	reply: unknown;
	/** Failures before the answer, after which the request was sent again. */
	earlierFailures: FailedResponse[];
}

/**
 * Gathers the IDs of all input items and sends them in chunks, several at once within Max Parallel Requests, each in
 * the request `requestFor` makes for the credential's server; outputs an item per chunk, in order, made by `describe`.
 * With "Continue on fail" a failed chunk becomes an error item and the others go on; without it, no further chunk
 * is sent.
 */
export async function sendInChunks(
	run: Run<IExecuteFunctions>,
	requestFor: (entityType: string, ids: string[], dialect: Dialect) => ApiRequest,
	describe: (chunk: Chunk, outcome: ChunkOutcome) => IDataObject,
): Promise<INodeExecutionData[][]> {
	const { context, node } = run;
	const entityType = entityTypeOf(itemOf(run, 0));
	const { chunks, refused } = gatherIds(run);
	const dialect = await dialectOf(run);
	const outputs: INodeExecutionData[] = new Array(chunks.length);
	await inParallel(chunks.length, run.settings.maxParallel, async (index) => {
		const chunk = chunks[index];
		const itemIndex = chunk.pairedItem[0].item;
		try {
			const { body, earlierFailures } = await send<unknown>(
				run,
				itemIndex,
				requestFor(entityType, chunk.ids, dialect),
			);
			outputs[index] = {
				json: { entityType, ...describe(chunk, { reply: body, earlierFailures }) },
				pairedItem: chunk.pairedItem,
			};
		} catch (error) {
			const nodeError = asNodeError(node, error, itemIndex);
			if (!context.continueOnFail()) throw nodeError;
			outputs[index] = {
				json: { entityType, ids: chunk.ids },
				error: nodeError,
				pairedItem: chunk.pairedItem,
			};
		}
	});
	return [[...refused, ...outputs]];
}

/** The server's count and IDs (EspoCRM); a Standard server replies `true`, so every ID sent counts. */
export function reported(chunk: Chunk, reply: unknown): { count: number; ids: string[] } {
	const body = reply !== null && typeof reply === 'object' ? (reply as IDataObject) : {};
	return {
		count: typeof body.count === 'number' ? body.count : chunk.ids.length,
		ids: Array.isArray(body.ids) ? (body.ids as string[]) : chunk.ids,
	};
}

/** The failure after which the request was sent again although the server may have carried it out, if any. */
export function unknownFirstAttempt(outcome: ChunkOutcome): string | undefined {
	const failure = outcome.earlierFailures.find(outcomeUnknown);
	if (!failure) return undefined;
	return failure.networkCode
		? `the connection was lost before the server answered (${failure.networkCode})`
		: `the gateway answered ${failure.status}`;
}
