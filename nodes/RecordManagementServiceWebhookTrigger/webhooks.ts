import type { Hmac } from 'crypto';
import { createHmac, timingSafeEqual } from 'crypto';
import type {
	IDataObject,
	IHookFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { asNodeError } from '../RecordManagementService/shared/http/errors';
import { readFailure } from '../RecordManagementService/shared/http/failure';
import { inParallel } from '../RecordManagementService/shared/http/parallel';
import { apiRequest } from '../RecordManagementService/shared/http/request';
import { runOf } from '../RecordManagementService/shared/http/run';
import type { Run } from '../RecordManagementService/shared/http/run';
import { triggerItemOf } from '../RecordManagementService/shared/item/item';
import {
	entityTypeOf,
	requirePlainIdentifier,
} from '../RecordManagementService/shared/item/validation';
import {
	remedied,
	withRemedyInMessage,
} from '../RecordManagementService/shared/operation/activation';
import { dialectOf } from '../RecordManagementService/shared/server/dialect';

/** The webhooks this trigger registered, kept in n8n's workflow static data (shared by every n8n process). */
interface Registered {
	id: string;
	/** EspoCRM's event name, such as "Contact.update". */
	event: string;
	secretKey: string;
}

interface WebhookState {
	url?: string;
	webhooks?: Registered[];
}

/** EspoCRM's event names for the chosen events: `<EntityType>.create`, `.update`, `.delete`, `.fieldUpdate.<field>`. */
function wantedEvents(run: Run<IHookFunctions>): string[] {
	const item = triggerItemOf(run);
	const entityType = entityTypeOf(item);
	const events = item.parameter<string[]>('events', []);
	if (events.length === 0) throw item.refuse('Events', 'is empty', 'Choose at least one event.');
	return events.map((event) =>
		event === 'fieldUpdate'
			? `${entityType}.fieldUpdate.${requirePlainIdentifier(item, item.parameter('field', ''), 'Field')}`
			: `${entityType}.${event}`,
	);
}

const state = (context: IHookFunctions | IWebhookFunctions) =>
	context.getWorkflowStaticData('node') as WebhookState;

async function requireEspoCrm(run: Run<IHookFunctions>) {
	if ((await dialectOf(run)) !== 'espocrm') {
		throw remedied(
			new NodeOperationError(
				run.node,
				'Webhooks need the EspoCRM server: choose "EspoCRM 7 or Later" as Server in the credential, or use the Record Management Service Trigger, which polls any server',
				{ description: 'The interface as specified has no events.' },
			),
		);
	}
}

/** Deletes registered webhooks; one already gone is fine. */
async function unregister(run: Run<IHookFunctions>, webhooks: Registered[]) {
	await inParallel(webhooks.length, run.settings.maxParallel, async (index) => {
		try {
			await apiRequest(run, 0, {
				method: 'DELETE',
				url: `/Webhook/${encodeURIComponent(webhooks[index].id)}`,
			});
		} catch (error) {
			if (readFailure(error).status !== 404) throw asNodeError(run.node, error);
		}
	});
}

export const lifecycle = {
	/** Whether every webhook this trigger needs is registered on the server, for this URL. */
	async checkExists(this: IHookFunctions): Promise<boolean> {
		try {
			return await webhooksExist(runOf(this));
		} catch (error) {
			throw withRemedyInMessage(error);
		}
	},

	/** POST /Webhook once per event, with n8n's production URL; replaces what an earlier activation left. */
	async create(this: IHookFunctions): Promise<boolean> {
		try {
			return await registerWebhooks(runOf(this));
		} catch (error) {
			throw withRemedyInMessage(error);
		}
	},

	async delete(this: IHookFunctions): Promise<boolean> {
		const data = state(this);
		await unregister(runOf(this), data.webhooks ?? []);
		data.webhooks = [];
		delete data.url;
		return true;
	},
};

/** Whether every webhook this trigger needs is registered on the server, for this URL. */
async function webhooksExist(run: Run<IHookFunctions>): Promise<boolean> {
	const { context } = run;
	const { url, webhooks = [] } = state(context);
	const wanted = wantedEvents(run);
	if (
		url !== context.getNodeWebhookUrl('default') ||
		webhooks
			.map((webhook) => webhook.event)
			.sort()
			.join() !== [...wanted].sort().join()
	) {
		return false;
	}
	for (const webhook of webhooks) {
		try {
			const found = await apiRequest(run, 0, {
				method: 'GET',
				url: `/Webhook/${encodeURIComponent(webhook.id)}`,
			});
			if (found.url !== url || found.event !== webhook.event) return false;
		} catch (error) {
			if (readFailure(error).status === 404) return false;
			throw asNodeError(run.node, error);
		}
	}
	return true;
}

/** POST /Webhook once per event, with n8n's production URL; replaces what an earlier activation left. */
async function registerWebhooks(run: Run<IHookFunctions>): Promise<boolean> {
	const { context } = run;
	await requireEspoCrm(run);
	const data = state(context);
	const url = context.getNodeWebhookUrl('default') as string;
	await unregister(run, data.webhooks ?? []);
	data.webhooks = [];
	data.url = url;
	for (const event of wantedEvents(run)) {
		try {
			const webhook = await apiRequest(run, 0, {
				method: 'POST',
				url: '/Webhook',
				body: { event, url },
			});
			if (typeof webhook.id !== 'string' || webhook.id === '') {
				throw new NodeOperationError(
					run.node,
					`EspoCRM registered the webhook for ${event} without giving its ID: check that the credential's Base URL leads to EspoCRM's API (…/api/v1) and that EspoCRM is version 7 or later`,
				);
			}
			data.webhooks.push({ id: webhook.id, event, secretKey: String(webhook.secretKey ?? '') });
			// Without its secret key no delivery could be verified: anyone knowing the ID could start the workflow.
			if (typeof webhook.secretKey !== 'string' || webhook.secretKey === '') {
				throw new NodeOperationError(
					run.node,
					`EspoCRM registered the webhook for ${event} without a secret key, so its deliveries could not be verified: check the EspoCRM version (7 or later) and its webhook settings`,
				);
			}
		} catch (error) {
			// Leave nothing half registered.
			await unregister(run, data.webhooks).catch(() => undefined);
			data.webhooks = [];
			const failure = readFailure(error);
			if (failure.status === 400 && NOT_INTERNAL.test(failure.reason))
				throw remedied(internalUrlRefused(run, event, url));
			if (failure.status === 403) {
				throw remedied(
					new NodeApiError(
						run.node,
						{ message: 'Forbidden', httpCode: '403' },
						{
							message: `EspoCRM refused to register the webhook for ${event} (403): in EspoCRM, enable the scope "Webhooks" in the role of the API user (Administration > Roles), and use an API user (API Key or HMAC authentication) or an administrator`,
							description:
								'Other users cannot register webhooks. An API user may have 50 webhooks at most: delete unused ones (Administration > Webhooks).',
							httpCode: '403',
						},
					),
				);
			}
			throw asNodeError(run.node, error);
		}
	}
	return true;
}

/** EspoCRM 9.3.2's refusal of a webhook URL on an internal address (Classes/FieldValidators/Webhook/Url/NotInternal). */
const NOT_INTERNAL = /field: url, type: notInternal/;

/**
 * What to add to EspoCRM's allow-list for n8n's webhook URL: its `host:port` as EspoCRM compares it (Core/Webhook/
 * AddressUtil: the URL's host, and its port or else 80 for http and 443 for https).
 */
function allowListEntryOf(url: string): string {
	const parsed = new URL(url);
	return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
}

/**
 * EspoCRM 9.3.2 and later register a webhook on an internal address (localhost, a private network: the same Docker
 * network, a LAN; also a host name EspoCRM cannot resolve) only when its `host:port` is in webhookAllowedAddressList.
 * n8n shows only the message when publishing fails, so the message says it all.
 */
function internalUrlRefused(run: Run, event: string, url: string): NodeApiError {
	const entry = allowListEntryOf(url);
	return new NodeApiError(
		run.node,
		{ message: 'Bad Request', httpCode: '400' },
		{
			message: `EspoCRM refused to register the webhook for ${event} (400): n8n's webhook URL ${url} is on an internal address, which EspoCRM 9.3.2 and later call only when it is listed. In EspoCRM's data/config.php (Administration has no field for it) add ${entry} to webhookAllowedAddressList: 'webhookAllowedAddressList' => ['${entry}'], then publish the workflow again`,
			description:
				"Or give n8n an address EspoCRM reaches as a public one (n8n's WEBHOOK_URL), or use the Record Management Service Trigger, which polls and needs nothing on EspoCRM. EspoCRM also counts a host name it cannot resolve as internal.",
			httpCode: '400',
		},
	);
}

/**
 * Which registered webhook sent the request. EspoCRM signs each delivery with `base64("<webhookId>:" + HMAC-SHA256
 * of the body with the webhook's secret key)`: in `X-Signature` with the HMAC as raw bytes (EspoCRM 7 and 8; later
 * versions still send it, until 11), and in `Signature` with the HMAC in hex (newer versions). Either one that holds
 * will do; none gets `{}`, and a signature naming a webhook this trigger does not have gets its ID.
 */
function verify(
	headers: Record<string, string | string[] | undefined>,
	body: Buffer,
	webhooks: Registered[],
): { webhook?: Registered; unknownId?: string } {
	let unknownId: string | undefined;
	for (const [header, digest] of [
		['x-signature', (mac: Hmac) => mac.digest()],
		['signature', (mac: Hmac) => Buffer.from(mac.digest('hex'), 'utf8')],
	] as const) {
		const signature = headers[header];
		if (typeof signature !== 'string' || signature === '') continue;
		const decoded = Buffer.from(signature, 'base64');
		const colon = decoded.indexOf(0x3a);
		if (colon <= 0) continue;
		const id = decoded.subarray(0, colon).toString('utf8');
		const webhook = webhooks.find((candidate) => candidate.id === id);
		if (!webhook) {
			unknownId ??= id;
			continue;
		}
		const given = decoded.subarray(colon + 1);
		const expected = digest(createHmac('sha256', webhook.secretKey).update(body));
		if (given.length === expected.length && timingSafeEqual(given, expected)) return { webhook };
	}
	return { unknownId };
}

/**
 * A delivery from EspoCRM: checked before anything else (a wrong or missing signature gets 401 and starts nothing;
 * a webhook this trigger no longer has gets 410, which makes EspoCRM delete it), then one item per record.
 */
export async function receive(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	const response = this.getResponseObject();
	if (!request.rawBody) await request.readRawBody();
	const { webhook, unknownId } = verify(
		request.headers,
		request.rawBody ?? Buffer.alloc(0),
		state(this).webhooks ?? [],
	);
	if (!webhook) {
		response.status(unknownId !== undefined ? 410 : 401).end();
		return { noWebhookResponse: true };
	}
	let records: IDataObject[];
	try {
		const parsed = JSON.parse(request.rawBody.toString('utf8')) as unknown;
		records = (Array.isArray(parsed) ? parsed : [parsed]).filter(
			(record): record is IDataObject => record !== null && typeof record === 'object',
		);
	} catch {
		response.status(400).end();
		return { noWebhookResponse: true };
	}
	// EspoCRM waits 10 seconds for the answer, then delivers the batch again: answer before reading any record.
	response.status(200).end();
	if (records.length === 0) return { noWebhookResponse: true };
	const [entityType, action] = webhook.event.split('.');
	const run = runOf(this);
	const items: INodeExecutionData[] = new Array(records.length);
	const fullRecord =
		action !== 'create' &&
		action !== 'delete' &&
		this.getNodeParameter('includeFullRecord', true) === true;
	await inParallel(records.length, run.settings.maxParallel, async (index) => {
		const record = records[index];
		if (action === 'delete') {
			items[index] = { json: { id: record.id, deleted: true } };
		} else if (fullRecord) {
			items[index] = { json: await readRecord(run, entityType, record) };
		} else {
			items[index] = { json: record };
		}
	});
	return { noWebhookResponse: true, workflowData: [items] };
}

/**
 * The whole record that an update names (EspoCRM sends only what changed). The delivery is already answered, so a
 * record that cannot be read still starts the workflow, with what changed and why it is not whole.
 */
async function readRecord(
	run: Run<IWebhookFunctions>,
	entityType: string,
	changed: IDataObject,
): Promise<IDataObject> {
	try {
		return await apiRequest(run, 0, {
			method: 'GET',
			url: `/${entityType}/${encodeURIComponent(String(changed.id))}`,
			expect: 'record',
		});
	} catch (error) {
		if (readFailure(error).status === 404) return { ...changed, deleted: true };
		return { ...changed, fullRecordError: asNodeError(run.node, error).message };
	}
}
