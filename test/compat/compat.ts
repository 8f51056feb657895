/**
 * Runs the compatibility fixture: workflows as a released version's editor saved them, through n8n's engine (the
 * action node with WorkflowExecute/RoutingNode, the triggers with n8n-core's poll, hook and webhook contexts)
 * against the sandbox, and what the sandbox received, in a form that two runs can be compared in.
 *
 * The comparison (normalize()):
 * - per request: method, path, the parsed query, the parsed body and the request's `x-…` headers other than the
 *   credentials' (X-Skip-Duplicate-Check is behaviour; X-Api-Key and X-Hmac-Authorization are secrets and vary);
 * - the requests of a workflow as a multiset (sorted): the node sends up to Max Parallel Requests at once, so their
 *   order of arrival is not part of the behaviour (the count and the content are);
 * - volatile values replaced, in every string of path, query, body and headers:
 *     an ID the run created (17 hex digits, not one of the fixture's seeded IDs)  → `<created id>`
 *     a date-time (`2026-11-25 14:30:12`, `2026-11-25T14:30:12.345Z`, `…+01:00`) → its digits as `N`
 *       (`NNNN-NN-NN NN:NN:NN`: the form stays compared, the moment does not; the triggers send "since the last
 *       poll" and the seeds' times are relative to now)
 *     `127.0.0.1:<port>` (the sandbox's and the webhook endpoint's free ports) → `127.0.0.1:<port>`
 * - per workflow also: whether it failed (the error's message) and how many items came out; for the cases that ask
 *   (compareOutputFields), the field names of each output item (Simplify changes them, not the requests).
 */
import type {
	IDataObject,
	INode,
	INodeType,
	IVersionedNodeType,
	IWorkflowBase,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, Workflow } from 'n8n-workflow';

import type { RecordedRequest, Sandbox } from '../sandbox';
import {
	CREDENTIAL_TYPE,
	CredentialStore,
	NODE_TYPE,
	NodeTypes,
	POLL_TRIGGER_TYPE,
	WEBHOOK_TRIGGER_TYPE,
	executeWorkflow,
	loadFormList,
} from '../harness/engine';
import { credentialFor } from '../harness/sandboxRun';
import { pollingTrigger, webhookTrigger } from '../harness/triggers';
import type { CompatCase, CompatNode } from './cases';

const INPUT_NODE_TYPE = 'test.input';
const TYPE_OF: Record<CompatNode, string> = {
	action: NODE_TYPE,
	pollingTrigger: POLL_TRIGGER_TYPE,
	webhookTrigger: WEBHOOK_TRIGGER_TYPE,
};

/** A case as stored: the workflow as the editor saved it, and what the test bed needs around it. */
export interface StoredCase extends Omit<CompatCase, 'parameters' | 'items'> {
	workflow: Pick<IWorkflowBase, 'nodes' | 'connections'>;
}

export interface Observed {
	/** Normalized, sorted (see above). */
	requests: IDataObject[];
	/** The node's error message, or null. */
	error: string | null;
	/** Items out: the action node's output count; the polling trigger's per poll (null: nothing new); the webhook
	 * trigger's per delivery. */
	items: Array<number | null>;
	/** Cases with compareOutputFields: the sorted field names of each output item of the action node, in order. */
	outputFields?: string[][];
}

/**
 * n8n's node registry for stored workflows: the node type of the version the workflow saved (`typeVersion`), as n8n
 * resolves it (NodeHelpers.getVersionedNodeType: a VersionedNodeType gives the description of that version).
 */
class VersionedNodeTypes extends NodeTypes {
	getByNameAndVersion(name: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(
			this.getByName(name) as INodeType | IVersionedNodeType,
			version,
		);
	}
}
const nodeTypes = new VersionedNodeTypes();

/**
 * The parameters the editor saves for what the user set: those that differ from the defaults of the node version,
 * and none that the form does not show (n8n's NodeHelpers.getNodeParameters with returnDefaults false, as the
 * editor calls it when it saves a workflow).
 */
export function savedParameters(
	type: string,
	typeVersion: number,
	parameters: IDataObject,
): IDataObject {
	const description = nodeTypes.getByNameAndVersion(type, typeVersion).description;
	const node = { typeVersion } as INode;
	return (NodeHelpers.getNodeParameters(
		description.properties,
		parameters as never,
		false,
		false,
		node,
		description,
	) ?? {}) as IDataObject;
}

/** The workflow the editor of the release saves for a case (recording only). */
export async function storedCaseOf(
	testCase: CompatCase,
	store: CredentialStore,
): Promise<StoredCase> {
	const { parameters, items, ...rest } = testCase;
	const type = TYPE_OF[testCase.node];
	const typeVersion = Number(
		(nodeTypes.getByNameAndVersion(type).description.defaultVersion ??
			nodeTypes.getByNameAndVersion(type).description.version) as number,
	);
	let set = parameters;
	const columns = set.columns as IDataObject | undefined;
	if (columns?.schema === '@schema') {
		// the field mapper saves the fields it listed (the editor asks getMappingFields)
		const { fields } = (await loadFormList(store, 'resourceMapping', 'getMappingFields', {
			resource: 'record',
			...set,
			columns: undefined,
		})) as { fields: IDataObject[] };
		set = { ...set, columns: { ...columns, schema: fields } };
	}
	const node: INode = {
		id: 'compat-node',
		name: 'Record Management Service',
		type,
		typeVersion,
		position: [220, 0],
		parameters: savedParameters(type, typeVersion, set) as INode['parameters'],
		credentials: { [CREDENTIAL_TYPE]: { id: 'rms', name: 'Sandbox' } },
	};
	if (testCase.node !== 'action') return { ...rest, workflow: { nodes: [node], connections: {} } };
	const input: INode = {
		id: 'compat-input',
		name: 'Input',
		type: INPUT_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { items: JSON.stringify(items ?? [{}]) },
	};
	return {
		...rest,
		workflow: {
			nodes: [input, node],
			connections: {
				Input: { main: [[{ node: node.name, type: NodeConnectionTypes.Main, index: 0 }]] },
			},
		},
	};
}

/** The server's form of a moment: UTC, to the second. */
const serverForm = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

function resolveTimes(fields: IDataObject): IDataObject {
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(fields)) {
		const ago = typeof value === 'string' ? /^@ago:(\d+)$/.exec(value) : null;
		out[key] = ago ? serverForm(Date.now() - Number(ago[1]) * 1000) : value;
	}
	return out;
}

function applyChanges(sandbox: Sandbox, changes: Record<string, IDataObject[]> = {}) {
	for (const [key, list] of Object.entries(changes)) {
		for (const entry of list) {
			if (key === '@update') {
				const { entityType, id, ...fields } = entry;
				sandbox.store.update(entityType as string, id as string, resolveTimes(fields));
			} else if (key === '@delete')
				sandbox.store.delete(entry.entityType as string, entry.id as string);
			else sandbox.store.create(key, resolveTimes(entry));
		}
	}
}

/** Every ID a case seeds or changes: these stay as they are in the comparison. */
function fixedIds(stored: StoredCase): Set<string> {
	const ids = new Set<string>();
	for (const changes of [stored.seed, stored.later])
		for (const list of Object.values(changes ?? {}))
			for (const entry of list) ids.add(String(entry.id));
	return ids;
}

/** Runs one stored case against the sandbox (reset first); resolves what it did, normalized. */
export async function runStoredCase(
	storedCase: StoredCase,
	sandbox: Sandbox,
	store: CredentialStore,
): Promise<Observed> {
	// a copy: n8n's Workflow fills the defaults into the parameters of the nodes it is given
	const stored = JSON.parse(JSON.stringify(storedCase)) as StoredCase;
	sandbox.setDialect(stored.dialect ?? 'both');
	sandbox.reset();
	store.set(
		'rms',
		credentialFor(
			sandbox,
			stored.credential?.scheme ?? 'apiKey',
			stored.credential?.server ?? 'standard',
		) as never,
	);
	applyChanges(sandbox, stored.seed);
	for (const [entityType, id, link, foreignId] of stored.links ?? [])
		sandbox.store.link(entityType, id, link, foreignId);
	for (const [id, text] of Object.entries(stored.files ?? {}))
		sandbox.store.files.set(id, Buffer.from(text, 'utf8'));
	for (const note of stored.notes ?? []) sandbox.streams.add(resolveTimes(note));
	sandbox.clearRequests();

	const node = stored.workflow.nodes.find((n) => n.type === TYPE_OF[stored.node]);
	if (!node)
		throw new Error(`${stored.name}: the stored workflow has no ${TYPE_OF[stored.node]} node`);
	const observed: Observed = { requests: [], error: null, items: [] };
	if (stored.node === 'action') {
		const result = await runWorkflow(stored, store);
		observed.error = result.error;
		observed.items = [result.items.length];
		if (stored.compareOutputFields)
			observed.outputFields = result.items.map((json) => Object.keys(json).sort());
	} else if (stored.node === 'pollingTrigger') {
		const trigger = pollingTrigger(store, node.parameters as IDataObject);
		try {
			observed.items.push(countOf(await trigger.poll()));
			applyChanges(sandbox, stored.later);
			observed.items.push(countOf(await trigger.poll()));
		} catch (error) {
			observed.error = (error as Error).message;
		}
	} else {
		const trigger = await webhookTrigger(store, node.parameters as IDataObject);
		try {
			await trigger.activate();
			applyChanges(sandbox, stored.later);
			await sandbox.webhooks.deliver();
			await trigger.idle();
			await trigger.deactivate();
			observed.items = trigger.started.map((items) => items.length);
		} catch (error) {
			observed.error = (error as Error).message;
		} finally {
			await trigger.close();
		}
	}
	observed.requests = normalize(sandbox.requests, fixedIds(stored));
	return observed;
}

const countOf = (items: IDataObject[] | null) => (items === null ? null : items.length);

/** The stored workflow through n8n's WorkflowExecute, as `n8n execute` runs a saved workflow. */
async function runWorkflow(
	stored: StoredCase,
	store: CredentialStore,
): Promise<{ error: string | null; items: IDataObject[] }> {
	const nodes = stored.workflow.nodes as INode[];
	const workflow = new Workflow({
		id: 'compat-workflow',
		name: stored.name,
		nodes,
		connections: stored.workflow.connections,
		active: false,
		nodeTypes,
		settings: { timezone: 'UTC', executionOrder: 'v1' },
	});
	const run = await executeWorkflow(workflow, store);
	const name = nodes.find((n) => n.type === NODE_TYPE)!.name;
	const task = run.data.resultData.runData[name]?.[0];
	const error = task?.error ?? run.data.resultData.error;
	return {
		error: error ? String(error.message) : null,
		items: (task?.data?.main?.[0] ?? []).map((item) => item.json),
	};
}

// ---------------------------------------------------------------------------------------------------------
// Normalization

/** x-… headers of the node's requests that are not credentials. */
const SECRET_HEADERS = new Set(['x-api-key', 'x-hmac-authorization']);
const DATE_TIME = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const SANDBOX_ID = /\b[0-9a-f]{17}\b/g;
const LOCAL_ORIGIN = /127\.0\.0\.1:\d+/g;

function normalizeValue(value: unknown, fixed: Set<string>): unknown {
	if (typeof value === 'string') {
		return value
			.replace(LOCAL_ORIGIN, '127.0.0.1:<port>')
			.replace(DATE_TIME, (text) => text.replace(/\d/g, 'N'))
			.replace(SANDBOX_ID, (id) => (fixed.has(id) ? id : '<created id>'));
	}
	if (Array.isArray(value)) return value.map((v) => normalizeValue(v, fixed));
	if (value && typeof value === 'object') {
		const out: IDataObject = {};
		for (const key of Object.keys(value).sort())
			out[normalizeValue(key, fixed) as string] = normalizeValue(
				(value as IDataObject)[key],
				fixed,
			) as never;
		return out;
	}
	return value;
}

export function normalize(requests: RecordedRequest[], fixed: Set<string>): IDataObject[] {
	const shaped = requests.map((request) => {
		const headers: IDataObject = {};
		for (const [name, value] of Object.entries(request.headers))
			if (name.startsWith('x-') && !SECRET_HEADERS.has(name)) headers[name] = value as string;
		return normalizeValue(
			{
				method: request.method,
				path: request.path,
				query: request.query,
				body: request.body ?? null,
				headers,
			},
			fixed,
		) as IDataObject;
	});
	return shaped
		.map((request) => [JSON.stringify(request), request] as const)
		.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
		.map(([, request]) => request);
}
