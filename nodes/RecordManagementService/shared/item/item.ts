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
import { NodeOperationError, isSafeObjectProperty } from 'n8n-workflow';

import { runOf } from '../http/run';
import type { Run } from '../http/run';
import { checkToolArguments, withDeclaredTypes } from '../tool/arguments';
import { messageForModel, runsAsTool } from '../tool/mode';

/**
 * One input item as the node's code sees it: its parameters, resolved for this item. Custom operations, the preSend
 * functions of routed operations and the triggers read parameters through it, so that the same helpers serve them all
 * (n8n's contexts differ only in whether the item index is an argument).
 */
export interface Item {
	/** The run the item belongs to: what its requests share (http/run.ts). */
	readonly run: Run;
	readonly index: number;
	readonly node: INode;
	/** The workflow's time zone. */
	readonly timeZone: string;
	/** The input item's JSON ({} for a trigger). */
	readonly json: IDataObject;
	/** Whether the node runs as an AI agent's tool (its parameters from the model's arguments, its errors to the model). */
	readonly asTool?: boolean;
	/** Whether a trigger reads the parameters: there is no input item to name in a message. */
	readonly inTrigger?: boolean;
	parameter<T = unknown>(name: string, fallback?: T, options?: IGetNodeParameterOptions): T;
	/** A NodeOperationError about one parameter of this item, before anything is sent: `The parameter "X" <problem> (item N)` (a trigger's without the item). */
	refuse(parameter: string, problem: string, description?: string): NodeOperationError;
}

/** ` (item N)`, which ends a message about one input item; nothing for a trigger, which has no input items. */
export function ofItem(item: Pick<Item, 'index' | 'inTrigger'>): string {
	return item.inTrigger ? '' : ` (item ${item.index})`;
}

/** How an Item reads its parameters, and what it is. */
interface ItemSource {
	run: Run;
	index: number;
	json: IDataObject;
	read: (name: string, fallback?: unknown, options?: IGetNodeParameterOptions) => unknown;
	asTool?: boolean;
	inTrigger?: boolean;
}

function item({ run, index, json, read, asTool = false, inTrigger = false }: ItemSource): Item {
	return {
		run,
		index,
		// The run's copy: n8n's getNode() copies the whole node on every call.
		get node() {
			return run.node;
		},
		timeZone: run.context.getTimezone(),
		json,
		asTool,
		inTrigger,
		parameter: <T>(name: string, fallback?: T, options?: IGetNodeParameterOptions) =>
			read(name, fallback, options) as T,
		refuse: (parameter, problem, description) =>
			new NodeOperationError(
				run.node,
				messageForModel(
					run.node,
					`The parameter "${parameter}"${problem.startsWith(':') ? '' : ' '}${problem}${ofItem({ index, inTrigger })}`,
					description,
				),
				{ itemIndex: index, ...(description ? { description } : {}) },
			),
	};
}

/**
 * `={{ $json.field }}`, `={{ $json['field'] }}` and `={{ $json["field"] }}`: one field of the input item, as n8n's drag
 * and drop writes it. Names with braces are left out (n8n's template splitter reads `}}` in them as the end).
 */
const ITEM_FIELD_EXPRESSION =
	/^=\{\{\s*\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*(?:'([^'\\{}]*)'|"([^"\\{}]*)")\s*\])\s*\}\}$/;

const NEEDS_ENGINE = Symbol('needs the expression engine');

/**
 * A parameter's value for one item without n8n's expression engine, where that gives what `getNodeParameter` would:
 * every expression in it reads one field of the item, and that field holds text, a number or true/false (n8n returns
 * such a value as it is). Anything else is the engine's: an object, null or a missing field, a name the engine refuses
 * (`constructor`, `caller`, … : n8n-workflow's `isSafeObjectProperty`). The engine also refuses `.constructor…` and
 * `.globalThis` anywhere in an expression's text; a field so named (`constructorName`) is still taken from the item
 * here, which docs/performance.md states (tested in cost.test.ts). After evaluating, n8n converts only values
 * whose description declares a `validateType` (none of this node's) and a field mapper's `columns.value` (this node
 * reads `columns` whole, which n8n does not convert).
 *
 * Why: n8n 2.41 evaluates each expression in an isolated context at about 0.45 ms, as long as a request to a fast
 * server takes; for 1,000 creates with three mapped fields that was 1.1 s of a 1.8 s run, spent between one answer
 * and the next request (docs/performance.md).
 */
function valueWithoutEngine(raw: unknown, json: IDataObject): unknown {
	if (typeof raw === 'string') {
		if (!raw.startsWith('=')) return raw;
		const match = ITEM_FIELD_EXPRESSION.exec(raw);
		const field = match?.[1] ?? match?.[2] ?? match?.[3];
		if (
			field === undefined ||
			!isSafeObjectProperty(field) ||
			!Object.prototype.hasOwnProperty.call(json, field)
		)
			return NEEDS_ENGINE;
		const value = json[field];
		const plain =
			typeof value === 'string' ||
			typeof value === 'boolean' ||
			(typeof value === 'number' && Number.isFinite(value));
		return plain ? value : NEEDS_ENGINE;
	}
	if (raw === null || typeof raw !== 'object') return raw;
	const entries: Array<[string, unknown]> = [];
	for (const [key, element] of Object.entries(raw)) {
		const value = valueWithoutEngine(element, json);
		if (value === NEEDS_ENGINE) return NEEDS_ENGINE;
		entries.push([key, value]);
	}
	return Array.isArray(raw) ? entries.map(([, value]) => value) : Object.fromEntries(entries);
}

/** The node's parameter `name` (a dotted path) as saved, expressions unevaluated. */
function savedParameter(node: INode, name: string): unknown {
	let value: unknown = node.parameters;
	for (const key of name.split('.'))
		value = value === null || typeof value !== 'object' ? undefined : (value as IDataObject)[key];
	return value;
}

/** A parameter of a custom operation for one item, without n8n's expression engine where that gives the same value. */
function readParameter(
	context: IExecuteFunctions,
	node: INode,
	index: number,
	json: IDataObject,
	name: string,
	fallback?: unknown,
	options?: IGetNodeParameterOptions,
) {
	const saved = options === undefined ? savedParameter(node, name) : undefined;
	const value = saved === undefined ? NEEDS_ENGINE : valueWithoutEngine(saved, json);
	return value === NEEDS_ENGINE ? context.getNodeParameter(name, index, fallback, options) : value;
}

/**
 * One parameter of a custom operation for item `index`, read as `itemOf(…).parameter` reads it, where a whole Item
 * is not needed (the output's Simplify). As an AI agent's tool, through the engine.
 */
export function parameterOfItem<T>(
	run: Run<IExecuteFunctions>,
	index: number,
	name: string,
	fallback?: T,
): T {
	const { node, context } = run;
	if (runsAsTool(node)) return context.getNodeParameter(name, index, fallback) as T;
	return readParameter(
		context,
		node,
		index,
		context.getInputData()[index]?.json ?? {},
		name,
		fallback,
	) as T;
}

/** Item `index` of a custom operation's input. */
export function itemOf(run: Run<IExecuteFunctions>, index: number): Item {
	const { node, context } = run;
	const json = context.getInputData()[index]?.json ?? {};
	// As an AI agent's tool, `$json` is what n8n makes of the agent's item and the model's arguments (in n8n 2.41 the
	// item with the arguments laid over it), which has changed between versions: only the engine knows.
	if (runsAsTool(node)) {
		// The model's arguments are checked before anything is read for the item, so that nothing is sent for a wrong one.
		checkToolArguments(node, index, (key) =>
			context.evaluateExpression(`{{ $fromAI('${key}') }}`, index),
		);
		const read = (name: string, fallback?: unknown, options?: IGetNodeParameterOptions) =>
			withDeclaredTypes(
				savedParameter(node, name),
				context.getNodeParameter(name, index, fallback, options),
			);
		return item({ run, index, json, read, asTool: true });
	}
	return item({
		run,
		index,
		json,
		read: (name, fallback, options) =>
			readParameter(context, node, index, json, name, fallback, options),
	});
}

/**
 * The item a routed operation's preSend or postReceive function runs for: n8n calls each with the item's own context,
 * so it is where the item's run is looked up.
 */
export function routedItemOf(context: IExecuteSingleFunctions): Item {
	const run = runOf(context);
	const index = context.getItemIndex();
	const asTool = runsAsTool(run.node);
	if (asTool)
		checkToolArguments(run.node, index, (key) =>
			context.evaluateExpression(`{{ $fromAI('${key}') }}`, index),
		);
	const read = (name: string, fallback?: unknown, options?: IGetNodeParameterOptions) =>
		context.getNodeParameter(name, fallback, options);
	return item({ run, index, json: context.getInputData().json, read, asTool });
}

/** A trigger's parameters (while it polls, registers its webhooks or receives one), as item 0. */
export function triggerItemOf(run: Run<IPollFunctions | IHookFunctions | IWebhookFunctions>): Item {
	const { context } = run;
	const read = (name: string, fallback?: unknown, options?: IGetNodeParameterOptions) =>
		context.getNodeParameter(name, fallback, options);
	return item({ run, index: 0, json: {}, read, inTrigger: true });
}
