import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, IPairedItemData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError } from '../../shared/customOperations';

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

/** Sends chunk after chunk; with "Continue on fail" a failed chunk becomes an error item and the next one goes on. */
export async function eachChunk(
	context: IExecuteFunctions,
	chunks: Chunk[],
	send: (chunk: Chunk) => Promise<IDataObject>,
): Promise<INodeExecutionData[][]> {
	const output: INodeExecutionData[] = [];
	for (const chunk of chunks) {
		try {
			output.push({ json: await send(chunk), pairedItem: chunk.pairedItem });
		} catch (error) {
			const nodeError = asNodeError(context.getNode(), error, chunk.pairedItem[0].item);
			if (!context.continueOnFail()) throw nodeError;
			output.push({ json: { ids: chunk.ids }, error: nodeError, pairedItem: chunk.pairedItem });
		}
	}
	return [output];
}

/** What the server reported for a chunk: EspoCRM gives count and ids, a standard server only `true`. */
export function chunkResult(entityType: string, chunk: Chunk, reply: unknown): IDataObject {
	const reported = reply !== null && typeof reply === 'object' ? (reply as IDataObject) : {};
	return {
		entityType,
		requested: chunk.ids.length,
		count: typeof reported.count === 'number' ? reported.count : chunk.ids.length,
		ids: Array.isArray(reported.ids) ? reported.ids : chunk.ids,
	};
}
