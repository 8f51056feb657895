import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IGetNodeParameterOptions,
	IHookFunctions,
	INode,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { messageForModel } from './tool';

/**
 * One input item as the node's code sees it: its parameters, resolved for this item. Custom operations, the preSend
 * functions of routed operations and the triggers read parameters through it, so that the same helpers serve them all
 * (n8n's contexts differ only in whether the item index is an argument).
 */
export interface Item {
	readonly index: number;
	readonly node: INode;
	/** The workflow's time zone. */
	readonly timeZone: string;
	/** The input item's JSON ({} for a trigger). */
	readonly json: IDataObject;
	parameter<T = unknown>(name: string, fallback?: T, options?: IGetNodeParameterOptions): T;
	/** A NodeOperationError about one parameter of this item, before anything is sent: `The parameter "X" <problem> (item N)`. */
	refuse(parameter: string, problem: string, description?: string): NodeOperationError;
}

function item(
	nodeOf: () => INode,
	index: number,
	timeZone: string,
	json: IDataObject,
	read: (name: string, fallback?: unknown, options?: IGetNodeParameterOptions) => unknown,
): Item {
	// Read only when needed: n8n's getNode() copies the whole node, and most items never need it.
	let node: INode | undefined;
	const theNode = () => (node ??= nodeOf());
	return {
		index,
		get node() {
			return theNode();
		},
		timeZone,
		json,
		parameter: <T>(name: string, fallback?: T, options?: IGetNodeParameterOptions) => read(name, fallback, options) as T,
		refuse: (parameter, problem, description) =>
			new NodeOperationError(
				theNode(),
				messageForModel(theNode(), `The parameter "${parameter}"${problem.startsWith(':') ? '' : ' '}${problem} (item ${index})`, description),
				{ itemIndex: index, ...(description ? { description } : {}) },
			),
	};
}

/** Item `index` of a custom operation's input. */
export function itemOf(context: IExecuteFunctions, index: number): Item {
	return item(() => context.getNode(), index, context.getTimezone(), context.getInputData()[index]?.json ?? {}, (name, fallback, options) =>
		context.getNodeParameter(name, index, fallback, options),
	);
}

/** The item a routed operation's preSend or pagination function runs for. */
export function routedItemOf(context: IExecuteSingleFunctions): Item {
	return item(() => context.getNode(), context.getItemIndex(), context.getTimezone(), context.getInputData().json, (name, fallback, options) =>
		context.getNodeParameter(name, fallback, options),
	);
}

/** A trigger's parameters (while it polls, registers its webhooks or receives one), as item 0. */
export function triggerItemOf(context: IPollFunctions | IHookFunctions | IWebhookFunctions): Item {
	return item(() => context.getNode(), 0, context.getTimezone(), {}, (name, fallback, options) =>
		context.getNodeParameter(name, fallback, options),
	);
}
