import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError, entityTypeOf } from '../../shared/customOperations';
import { dialectOf } from '../../shared/dialect';
import type { Dialect } from '../../shared/dialect';
import { apiRequest } from '../../shared/transport';

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

export function idSourceFields(show: Show): INodeProperties[] {
	return [
		{
			displayName: 'Record IDs',
			name: 'ids',
			type: 'string',
			default: '={{ $json.id }}',
			required: true,
			description:
				'The IDs to change, gathered from all input items together: per item an ID, several separated by commas, or an expression that returns a list',
			displayOptions: { show },
		},
		{
			displayName: 'IDs per Request',
			name: 'chunkSize',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1000 },
			default: 100,
			description: 'How many IDs go into one request. 1,000 IDs with 100 per request are 10 requests.',
			displayOptions: { show },
		},
	];
}

export interface Chunk {
	ids: string[];
	pairedItem: IPairedItemData[];
}

/** Gathers the IDs of all input items, without repeats, in chunks that remember which items they came from. */
export function chunksOfIds(context: IExecuteFunctions): Chunk[] {
	const byId = new Map<string, Set<number>>();
	context.getInputData().forEach((_item, itemIndex) => {
		const value = context.getNodeParameter('ids', itemIndex) as unknown;
		const ids = Array.isArray(value) ? value : String(value ?? '').split(',');
		for (const raw of ids) {
			const id = String(raw ?? '').trim();
			if (id === '') continue;
			if (!byId.has(id)) byId.set(id, new Set());
			byId.get(id)!.add(itemIndex);
		}
	});
	if (byId.size === 0) {
		throw new NodeOperationError(context.getNode(), 'The parameter "Record IDs" gave no ID in any input item', {
			description: 'Nothing was sent. Check the expression of "Record IDs", for example {{ $json.id }}.',
		});
	}
	const chunkSize = context.getNodeParameter('chunkSize', 0) as number;
	if (!Number.isInteger(chunkSize) || chunkSize < 1) {
		throw new NodeOperationError(context.getNode(), `The parameter "IDs per Request" must be a whole number of at least 1 (${chunkSize})`);
	}
	const entries = [...byId.entries()];
	const chunks: Chunk[] = [];
	for (let start = 0; start < entries.length; start += chunkSize) {
		const slice = entries.slice(start, start + chunkSize);
		const items = new Set(slice.flatMap(([, itemIndexes]) => [...itemIndexes]));
		chunks.push({ ids: slice.map(([id]) => id), pairedItem: [...items].map((item) => ({ item })) });
	}
	return chunks;
}

type MassRequest = IHttpRequestOptions & { idempotent?: boolean };

/**
 * Gathers the IDs of all input items and sends them chunk after chunk, each in the request `requestFor` makes
 * for the credential's server, and outputs an item per chunk with what the server reported, plus `outcome`.
 * With "Continue on fail" a failed chunk becomes an error item and the next goes on.
 */
export async function sendInChunks(
	context: IExecuteFunctions,
	requestFor: (entityType: string, ids: string[], dialect: Dialect) => MassRequest,
	outcome: IDataObject = {},
): Promise<INodeExecutionData[][]> {
	const entityType = entityTypeOf(context, 0);
	const chunks = chunksOfIds(context);
	const dialect = await dialectOf(context);
	const output: INodeExecutionData[] = [];
	for (const chunk of chunks) {
		const itemIndex = chunk.pairedItem[0].item;
		try {
			const reply = await apiRequest(context, itemIndex, requestFor(entityType, chunk.ids, dialect));
			output.push({ json: { ...chunkResult(entityType, chunk, reply), ...outcome }, pairedItem: chunk.pairedItem });
		} catch (error) {
			const nodeError = asNodeError(context.getNode(), error, itemIndex);
			if (!context.continueOnFail()) throw nodeError;
			output.push({ json: { ids: chunk.ids }, error: nodeError, pairedItem: chunk.pairedItem });
		}
	}
	return [output];
}

/** What the server reported for a chunk: EspoCRM gives count and ids, a standard server only `true`. */
function chunkResult(entityType: string, chunk: Chunk, reply: unknown): IDataObject {
	const reported = reply !== null && typeof reply === 'object' ? (reply as IDataObject) : {};
	return {
		entityType,
		requested: chunk.ids.length,
		count: typeof reported.count === 'number' ? reported.count : chunk.ids.length,
		ids: Array.isArray(reported.ids) ? reported.ids : chunk.ids,
	};
}
