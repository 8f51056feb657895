/**
 * Runs the two trigger nodes through n8n-core's own contexts, as n8n runs them: the polling trigger's poll() in a
 * PollContext whose workflow static data persists between polls (n8n keeps it in its database), the webhook
 * trigger's checkExists/create/delete in a HookContext, and each request EspoCRM (here: the sandbox) delivers in a
 * WebhookContext, received by a real HTTP server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HookContext, PollContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IWebhookData,
	IWebhookResponseData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import {
	CREDENTIAL_TYPE,
	NodeTypes,
	POLL_TRIGGER_TYPE,
	WEBHOOK_TRIGGER_TYPE,
	additionalDataFor,
} from './engine';
import type { CredentialStore } from './engine';

const nodeTypes = new NodeTypes();

function workflowOf(
	type: string,
	parameters: IDataObject,
	staticData: IDataObject,
	timezone = 'UTC',
) {
	const node: INode = {
		id: 'trigger',
		name: 'Trigger',
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INode['parameters'],
		credentials: { [CREDENTIAL_TYPE]: { id: 'rms', name: 'Sandbox' } },
	};
	const workflow = new Workflow({
		id: 'trigger-workflow',
		name: 'Trigger',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData,
		settings: { timezone },
	});
	return { workflow, node: workflow.getNode('Trigger')! };
}

/**
 * A polling trigger whose static data lives on between polls, like a workflow's in n8n's database. As in n8n, the
 * polls of one activation share one PollContext; "Fetch Test Event" gets one of its own.
 */
export function pollingTrigger(store: CredentialStore, parameters: IDataObject, timezone?: string) {
	const staticData: IDataObject = {};
	const activate = (mode: WorkflowExecuteMode) => {
		const { workflow, node } = workflowOf(POLL_TRIGGER_TYPE, parameters, staticData, timezone);
		return {
			workflow,
			context: new PollContext(workflow, node, additionalDataFor(store), mode, 'activate'),
		};
	};
	let activation: ReturnType<typeof activate> | undefined;
	return {
		staticData,
		/** One poll; 'manual' is the editor's "Fetch Test Event". */
		async poll(mode: WorkflowExecuteMode = 'trigger'): Promise<IDataObject[] | null> {
			const { workflow, context } =
				mode === 'manual' ? activate(mode) : (activation ??= activate(mode));
			const type = nodeTypes.getByNameAndVersion(POLL_TRIGGER_TYPE) as INodeType;
			const output = await type.poll!.call(context);
			// n8n saves the static data when the poll changed it (it commits it with the emitted items).
			if (workflow.staticData.__dataChanged) {
				Object.assign(staticData, JSON.parse(JSON.stringify(workflow.staticData)));
				workflow.staticData.__dataChanged = false;
			}
			return output ? output[0].map((item: INodeExecutionData) => item.json) : null;
		},
	};
}

/**
 * A webhook trigger with an HTTP endpoint of its own: `activate()` runs checkExists and create as n8n does when a
 * workflow is published, every request to the endpoint runs the node's webhook() as n8n's webhook server does
 * (raw body kept, Express-like response), and `deactivate()` runs delete.
 */
export async function webhookTrigger(store: CredentialStore, parameters: IDataObject) {
	const staticData: IDataObject = {};
	const started: IDataObject[][] = [];
	const answers: number[] = [];
	const handling = new Set<Promise<void>>();
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			// The node answers a delivery before it has read the records: tests wait for the whole handling.
			const done = handle(request, response, Buffer.concat(chunks)).finally(() =>
				handling.delete(done),
			);
			handling.add(done);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	const contextParts = () => {
		const { workflow, node } = workflowOf(WEBHOOK_TRIGGER_TYPE, parameters, staticData);
		const additionalData = additionalDataFor(store);
		additionalData.webhookBaseUrl = `${base}/webhook`;
		const type = nodeTypes.getByNameAndVersion(WEBHOOK_TRIGGER_TYPE) as INodeType;
		const webhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: 'webhook',
			webhookDescription: type.description.webhooks![0],
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
		} as unknown as IWebhookData;
		return { workflow, node, additionalData, type, webhookData };
	};
	const keep = (workflow: Workflow) => {
		if (workflow.staticData.__dataChanged)
			Object.assign(staticData, JSON.parse(JSON.stringify(workflow.staticData)));
	};

	async function handle(
		request: http.IncomingMessage,
		response: http.ServerResponse,
		body: Buffer,
	) {
		const { workflow, node, additionalData, type, webhookData } = contextParts();
		// What n8n's body parser and Express add to the request and the response.
		Object.assign(request, {
			rawBody: body,
			readRawBody: async () => undefined,
			body: safeJson(body),
		});
		const express = Object.assign(response, {
			status(code: number) {
				response.statusCode = code;
				return express;
			},
		});
		response.on('finish', () => answers.push(response.statusCode));
		additionalData.httpRequest = request as never;
		additionalData.httpResponse = express as never;
		try {
			const context = new WebhookContext(
				workflow,
				node,
				additionalData,
				'webhook',
				webhookData,
				[],
				null,
			);
			const result: IWebhookResponseData = await type.webhook!.call(context);
			if (result.workflowData) started.push(result.workflowData[0].map((item) => item.json));
			if (!result.noWebhookResponse) {
				response.writeHead(200, { 'Content-Type': 'application/json' });
				response.end('{"message":"Workflow was started"}');
			}
		} catch (error) {
			response.writeHead(500);
			response.end(String((error as Error).message));
		}
		keep(workflow);
	}

	async function hook(method: 'checkExists' | 'create' | 'delete') {
		const { workflow, node, additionalData, type, webhookData } = contextParts();
		const context = new HookContext(
			workflow,
			node,
			additionalData,
			'trigger',
			'activate',
			webhookData,
		);
		const result = await type.webhookMethods!.default![method]!.call(context);
		keep(workflow);
		return result;
	}

	return {
		url: `${base}/webhook/trigger-workflow/trigger/webhook`,
		staticData,
		/** The items of each execution a delivery started. */
		started,
		/** The status the endpoint answered to each delivery. */
		answers,
		/** Resolves when every delivery received so far has been handled (its execution started or refused). */
		idle: async () => {
			while (handling.size > 0) await Promise.all([...handling]);
		},
		async activate() {
			if (!(await hook('checkExists'))) await hook('create');
		},
		checkExists: async () => await hook('checkExists'),
		deactivate: async () => await hook('delete'),
		close: async () => await new Promise((resolve) => server.close(resolve)),
	};
}

function safeJson(body: Buffer): unknown {
	try {
		return JSON.parse(body.toString('utf8'));
	} catch {
		return {};
	}
}
