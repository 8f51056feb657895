import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { entityTypeOf } from '../../shared/customOperations';
import { asNodeError } from '../../shared/errors';
import { idsFrom } from '../../shared/validation';
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
				'The IDs to change, gathered from all input items together: per item an ID, several separated by commas, or an expression that returns a list. An item that gives none is left out.',
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

interface GatheredIds {
	chunks: Chunk[];
	/** With "Continue on fail": the items that gave no usable ID, each carrying its error. */
	refused: INodeExecutionData[];
}

/**
 * Gathers the IDs of all input items, without repeats, in chunks that remember which items they came from.
 * An item whose expression gives no ID is left out (a way to pick items); if none gives one, nothing is sent and
 * the node fails. An entry that is not an ID is an error of its item.
 */
export function gatherIds(context: IExecuteFunctions): GatheredIds {
	const byId = new Map<string, Set<number>>();
	const refused: INodeExecutionData[] = [];
	context.getInputData().forEach((_item, itemIndex) => {
		try {
			const ids = idsFrom(context, context.getNodeParameter('ids', itemIndex), 'Record IDs', itemIndex);
			for (const id of ids) byId.set(id, (byId.get(id) ?? new Set()).add(itemIndex));
		} catch (error) {
			const nodeError = asNodeError(context.getNode(), error, itemIndex);
			if (!context.continueOnFail()) throw nodeError;
			refused.push({ json: {}, error: nodeError, pairedItem: { item: itemIndex } });
		}
	});
	if (byId.size === 0 && refused.length === 0) {
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
	return { chunks, refused };
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
	const { chunks, refused } = gatherIds(context);
	const dialect = await dialectOf(context);
	const output: INodeExecutionData[] = [...refused];
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
