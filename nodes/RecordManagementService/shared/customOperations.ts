import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from './errors';
import { entityTypeFrom } from './validation';

/**
 * Runs a custom operation item by item, in order, with n8n's "Continue on fail": a failed item becomes an item
 * carrying its error, and the others go on. Items run one after another on purpose: Create or Update and
 * Convert look before they write, which parallel items could race.
 */
export async function eachItem(
	context: IExecuteFunctions,
	run: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
): Promise<INodeExecutionData[][]> {
	const output: INodeExecutionData[] = [];
	const items = context.getInputData();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const result = await run(itemIndex);
			for (const json of Array.isArray(result) ? result : [result]) {
				output.push({ json, pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			const nodeError = asNodeError(context.getNode(), error, itemIndex);
			if (!context.continueOnFail()) throw nodeError;
			output.push({ json: {}, error: nodeError, pairedItem: { item: itemIndex } });
		}
	}
	return [output];
}

/** The entity type of an item, checked as `checkEntityType` does for routed operations. */
export function entityTypeOf(context: IExecuteFunctions, itemIndex: number): string {
	return entityTypeFrom(
		context,
		context.getNodeParameter('entityType', itemIndex),
		() => context.getNodeParameter('customEntityType', itemIndex),
		itemIndex,
	);
}
