/**
 * Runs our node inside n8n's real execution engine (n8n-core's WorkflowExecute and RoutingNode), with our
 * credential type's own `authenticate` and `preAuthentication`, the way n8n runs a workflow.
 *
 * What a real n8n instance provides around the engine (the node and credential type registries, the encrypted
 * credential store) is reproduced here after n8n's CLI (`packages/cli/src/credentials-helper.ts`): nothing of
 * the node, of the HTTP layer or of n8n's helpers is stubbed.
 */
import {
	CredentialTestContext,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	WorkflowExecute,
} from 'n8n-core';
import { NodeExecutionContext } from 'n8n-core/dist/execution-engine/node-execution-context/node-execution-context';
import type {
	IBinaryKeyData,
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialsDecrypted,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRun,
	ITaskData,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	IRequestOptionsSimplified,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	Expression,
	ICredentialsHelper,
	NodeConnectionTypes,
	NodeHelpers,
	Workflow,
} from 'n8n-workflow';

import { RecordManagementServiceApi } from '../../credentials/RecordManagementServiceApi.credentials';
import { RecordManagementService } from '../../nodes/RecordManagementService/RecordManagementService.node';
import { RecordManagementServiceTrigger } from '../../nodes/RecordManagementServiceTrigger/RecordManagementServiceTrigger.node';
import { RecordManagementServiceWebhookTrigger } from '../../nodes/RecordManagementServiceWebhookTrigger/RecordManagementServiceWebhookTrigger.node';

export const NODE_TYPE = 'n8n-nodes-record-management-service.recordManagementService';
/** The type n8n makes of a `usableAsTool` node for AI agents (its name with "Tool" at the end). */
export const TOOL_NODE_TYPE = `${NODE_TYPE}Tool`;
export const POLL_TRIGGER_TYPE =
	'n8n-nodes-record-management-service.recordManagementServiceTrigger';
export const WEBHOOK_TRIGGER_TYPE =
	'n8n-nodes-record-management-service.recordManagementServiceWebhookTrigger';
export const CREDENTIAL_TYPE = 'recordManagementServiceApi';
const INPUT_NODE_TYPE = 'test.input';

/**
 * Emits the items a test gives it: stands in for a Manual Trigger followed by a node that produces data. An item's
 * `$binary` ({ field: { base64, fileName, mimeType } }) becomes n8n binary data, stored by n8n's own helper.
 */
class TestInput implements INodeType {
	description = {
		displayName: 'Test Input',
		name: INPUT_NODE_TYPE,
		group: ['input'],
		version: 1,
		description: '',
		defaults: { name: 'Input' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Items', name: 'items', type: 'json', default: '[]' },
		] as INodeProperties[],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = JSON.parse(this.getNodeParameter('items', 0) as string) as IDataObject[];
		return [
			await Promise.all(
				items.map(async ({ $binary, ...json }) => {
					if (!$binary) return { json };
					const binary: IBinaryKeyData = {};
					for (const [field, file] of Object.entries(
						$binary as Record<string, { base64: string; fileName?: string; mimeType?: string }>,
					)) {
						binary[field] = await this.helpers.prepareBinaryData(
							Buffer.from(file.base64, 'base64'),
							file.fileName,
							file.mimeType,
						);
					}
					return { json, binary };
				}),
			),
		];
	}
}

/**
 * The node as n8n offers it to AI agents, run here as a step of the workflow (as n8n 2.41's AI Agent runs its tools):
 * the same code under the tool's type name, so that the node knows it is a tool; `$fromAI(key)` reads the model's
 * argument from the input item, as n8n's engine does when no agent ran before.
 */
function asToolType(node: RecordManagementService): INodeType {
	node.description = {
		...node.description,
		name: `${node.description.name}Tool`,
		displayName: `${node.description.displayName} Tool`,
	};
	return node;
}

export class NodeTypes implements INodeTypes {
	private readonly types: Record<string, INodeType> = {
		[NODE_TYPE]: new RecordManagementService(),
		[TOOL_NODE_TYPE]: asToolType(new RecordManagementService()),
		[POLL_TRIGGER_TYPE]: new RecordManagementServiceTrigger(),
		[WEBHOOK_TRIGGER_TYPE]: new RecordManagementServiceWebhookTrigger(),
		[INPUT_NODE_TYPE]: new TestInput(),
	};

	getByName(name: string): INodeType | IVersionedNodeType {
		return this.types[name];
	}

	/** One class serves every version of a node (n8n's light versioning): the version is the node's to read. */
	getByNameAndVersion(name: string, _version?: number): INodeType {
		return this.types[name];
	}

	getKnownTypes() {
		return {};
	}
}

/**
 * Plays the part of n8n's database of credentials: values persist across executions, and what
 * preAuthentication returns is written back, as n8n's CredentialsHelper does.
 */
export class CredentialStore {
	private readonly data = new Map<string, ICredentialDataDecryptedObject>();

	updates = 0;

	/** How long a write takes, as n8n's database write of a renewed token does (encryption, a query). */
	saveDelayMs = 0;

	set(id: string, data: ICredentialDataDecryptedObject) {
		this.data.set(id, { ...data });
	}

	get(id: string): ICredentialDataDecryptedObject {
		const stored = this.data.get(id);
		if (!stored) throw new Error(`No credential with id ${id}`);
		return { ...stored };
	}

	async save(id: string, data: ICredentialDataDecryptedObject) {
		if (this.saveDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.saveDelayMs));
		this.updates++;
		this.data.set(id, { ...data });
	}
}

const credentialType: ICredentialType = new RecordManagementServiceApi();

class CredentialsHelper extends ICredentialsHelper {
	constructor(private readonly store: CredentialStore) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	): Promise<IHttpRequestOptions> {
		if (typeof credentialType.authenticate !== 'function')
			throw new Error('expected an authenticate function');
		return await credentialType.authenticate(credentials, requestOptions as IHttpRequestOptions);
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const expirable = credentialType.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (!expirable || typeof credentialType.preAuthentication !== 'function') return undefined;
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;

		const output = await credentialType.preAuthentication.call(helpers, credentials);
		if (output[expirable.name] === undefined) return undefined;
		const details = node.credentials?.[CREDENTIAL_TYPE];
		if (!details?.id) return undefined;
		await this.store.save(details.id, {
			...this.store.get(details.id),
			...(output as ICredentialDataDecryptedObject),
		});
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(): Promise<never> {
		throw new Error('not used by the engine');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.store.get(nodeCredentials.id as string);
		// n8n fills in the defaults of properties that were never stored, the hidden token among them.
		return NodeHelpers.getNodeParameters(
			credentialType.properties,
			stored as never,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		_type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		await this.store.save(nodeCredentials.id as string, data);
	}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(): INodeProperties[] {
		return credentialType.properties;
	}
}

export interface RunOptions {
	parameters: IDataObject;
	/** Input items; one empty item when not given, as after a Manual Trigger. */
	items?: IDataObject[];
	store: CredentialStore;
	credentialId?: string;
	/** n8n's "On Error" node setting. */
	onError?: INode['onError'];
	/** Other node settings: n8n's own "Retry On Fail" (retryOnFail, maxTries, waitBetweenTries), "Always Output Data". */
	settings?: Pick<INode, 'retryOnFail' | 'maxTries' | 'waitBetweenTries' | 'alwaysOutputData'>;
	timezone?: string;
	/** The node's version (`typeVersion`); 1 when not given, as the tests written for version 1 expect. */
	typeVersion?: number;
	/** Runs the node as an AI agent's tool (its Tool type), the input items holding the model's arguments. */
	asTool?: boolean;
}

export interface RunResult {
	/** Output items of our node (json and error of each). */
	items: INodeExecutionData[];
	json: IDataObject[];
	/** The node's error when it failed as a whole (no "Continue on fail"). */
	error?: Error & { description?: string; httpCode?: string; context?: IDataObject };
	run: IRun;
}

let executionCount = 0;

export async function runNode(options: RunOptions): Promise<RunResult> {
	const credentialId = options.credentialId ?? 'rms';
	const nodes: INode[] = [
		{
			id: 'input',
			name: 'Input',
			type: INPUT_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { items: JSON.stringify(options.items ?? [{}]) },
		},
		{
			id: 'rms',
			name: 'Record Management Service',
			type: options.asTool ? TOOL_NODE_TYPE : NODE_TYPE,
			typeVersion: options.typeVersion ?? 1,
			position: [200, 0],
			parameters: options.parameters as INode['parameters'],
			credentials: { [CREDENTIAL_TYPE]: { id: credentialId, name: 'Sandbox' } },
			...(options.onError ? { onError: options.onError } : {}),
			...options.settings,
		},
	];
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'Test',
		nodes,
		connections: {
			Input: {
				main: [[{ node: 'Record Management Service', type: NodeConnectionTypes.Main, index: 0 }]],
			},
		},
		active: false,
		nodeTypes: new NodeTypes(),
		settings: { timezone: options.timezone ?? 'UTC', executionOrder: 'v1' },
	});

	const run = await executeWorkflow(workflow, options.store);

	const taskData: ITaskData | undefined =
		run.data.resultData.runData['Record Management Service']?.[0];
	const items = (taskData?.data?.main?.[0] ?? []) as INodeExecutionData[];
	const error = (taskData?.error ?? undefined) as RunResult['error'];
	return { items, json: items.map((item) => item.json), error, run };
}

/** Runs a workflow from its "Input" node with n8n's WorkflowExecute, in manual mode, as `n8n execute` would. */
export async function executeWorkflow(workflow: Workflow, store: CredentialStore): Promise<IRun> {
	const mode: WorkflowExecuteMode = 'manual';
	const executionId = `test-${++executionCount}`;
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		id: workflow.id,
		name: workflow.name,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		settings: {},
	} as never);
	return await new WorkflowExecute(additionalDataFor(store, hooks, executionId), mode).run({
		workflow,
		startNode: workflow.getNode('Input')!,
	});
}

export function additionalDataFor(
	store: CredentialStore,
	hooks?: ExecutionLifecycleHooks,
	executionId?: string,
	currentNodeParameters?: IDataObject,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new CredentialsHelper(store),
		hooks,
		executionId,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		variables: {},
		userId: 'test-user',
		currentNodeParameters,
		executionTimeoutTimestamp: undefined,
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not used');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('code runners are not used');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

/**
 * Fills a list of the form as the editor asks n8n for it: n8n's LoadOptionsContext over a workflow holding only
 * the node with the parameters the user has set so far (`kind` is the node's `methods` group).
 */
export async function loadFormList(
	store: CredentialStore,
	kind: 'loadOptions' | 'resourceMapping' | 'listSearch',
	method: string,
	parameters: IDataObject,
	...args: unknown[]
): Promise<unknown> {
	const node: INode = {
		id: 'rms',
		name: 'Record Management Service',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INode['parameters'],
		credentials: { [CREDENTIAL_TYPE]: { id: 'rms', name: 'Sandbox' } },
	};
	const nodeTypes = new NodeTypes();
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const context = new LoadOptionsContext(
		workflow,
		workflow.getNode(node.name)!,
		additionalDataFor(
			store,
			undefined,
			undefined,
			workflow.getNode(node.name)!.parameters as IDataObject,
		),
		`parameters.${method}`,
	);
	const methods = (nodeTypes.getByNameAndVersion(NODE_TYPE).methods ?? {}) as Record<
		string,
		Record<string, Function>
	>;
	return await methods[kind][method].call(context, ...args);
}

/**
 * Tests a stored credential as n8n's Test button (and Save) does (packages/cli/src/services/credentials-tester.service.ts):
 * the credential type has no `test` request, so n8n calls the function the node names in `testedBy`, in a
 * CredentialTestContext, with the decrypted credential.
 */
export async function testCredential(
	store: CredentialStore,
	credentialId = 'rms',
): Promise<{ status: 'OK' | 'Error'; message: string }> {
	const nodeType = new RecordManagementService();
	const testedBy = nodeType.description.credentials?.find(
		(credential) => credential.name === CREDENTIAL_TYPE,
	)?.testedBy;
	if (typeof testedBy !== 'string' || credentialType.test)
		throw new Error('expected the credential to be tested by the node');
	const additionalData = additionalDataFor(store);
	const decrypted: ICredentialsDecrypted = {
		id: credentialId,
		name: 'Sandbox',
		type: CREDENTIAL_TYPE,
		data: await additionalData.credentialsHelper.getDecrypted(
			additionalData,
			{ id: credentialId, name: 'Sandbox' },
			CREDENTIAL_TYPE,
			'internal',
		),
	};
	const test = (nodeType.methods.credentialTest as Record<string, ICredentialTestFunction>)[
		testedBy
	];
	return (await test.call(new CredentialTestContext(additionalData), decrypted)) as {
		status: 'OK' | 'Error';
		message: string;
	};
}

/**
 * Counts the evaluations of each expression while `work` runs: n8n's Expression resolves every parameter value
 * through `resolveSimpleParameterValue`, which evaluates the ones that are expressions (they start with "=").
 * The spy passes every call through unchanged.
 */
export async function countEvaluations<T>(
	work: () => Promise<T>,
): Promise<{ result: T; evaluations: Map<string, number> }> {
	const spy = jest.spyOn(Expression.prototype, 'resolveSimpleParameterValue');
	try {
		const result = await work();
		const evaluations = new Map<string, number>();
		for (const [value] of spy.mock.calls) {
			if (typeof value === 'string' && value.startsWith('='))
				evaluations.set(value, (evaluations.get(value) ?? 0) + 1);
		}
		return { result, evaluations };
	} finally {
		spy.mockRestore();
	}
}

/**
 * Counts the parameters this package's node reads through n8n's getNodeParameter while `work` runs, by name (each
 * read resolves the value: expressions, defaults, the parameter's type). The node reads what it can as saved
 * (shared/item/item.ts). The spy passes every call through unchanged.
 */
export async function countParameterReads<T>(
	work: () => Promise<T>,
): Promise<{ result: T; reads: Map<string, number> }> {
	const prototype = NodeExecutionContext.prototype as unknown as {
		_getNodeParameter: (name: string) => unknown;
	};
	const spy = jest.spyOn(prototype, '_getNodeParameter');
	try {
		const result = await work();
		const reads = new Map<string, number>();
		spy.mock.calls.forEach(([name], call) => {
			const { node } = spy.mock.contexts[call] as unknown as { node: { type: string } };
			if (node.type === NODE_TYPE) reads.set(name, (reads.get(name) ?? 0) + 1);
		});
		return { result, reads };
	} finally {
		spy.mockRestore();
	}
}
