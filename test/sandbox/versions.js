// @ts-check
'use strict';

/**
 * What EspoCRM versions answer differently where the node must react, behind one switch: `sandbox.setServerVersion()`
 * (option `serverVersion`; default '8.1.5', the version the rest of the sandbox follows). Dialects 'espocrm' and
 * 'both'. Each rule names the release it came with and where it was read (application/Espo of that release) or
 * measured:
 *
 * - before 8.0 (7.5.6, measured): a phone number is stored as written, trimmed (8.x: E.164, fields.js); an update that
 *   writes an e-mail address or phone number without its list (`emailAddressData`, `phoneNumberData`) keeps the old
 *   one, and answers with the value written (Core/FieldProcessing/PhoneNumber/Saver::process: the list read before the
 *   save is stored again; 8.0 stores it only when it changed).
 * - 8.2.0 on (Controllers/Metadata::getActionRead, Tools/App/MetadataService::getDataForFrontendByKey; EspoCRM's commit
 *   "metadata get by key endpoint", first in 8.2.0; measured on 9.1.7): `GET /Metadata?key=a.b` answers that part of
 *   the metadata alone (Util::getValueByKey), and an empty body where the path leads nowhere (PHP's null). 8.1.5
 *   ignores the key.
 * - 9.0 on (9.1.7, measured; Classes/RecordHooks/Email/CheckFromAddress): an e-mail sent (`status: Sending`) by a user
 *   who is not an admin from another address than the user's own: 403 `Not allowed 'from' address.`, nothing kept.
 *   (The group e-mail accounts and the system address that EspoCRM also lets such a user send from are not modelled.)
 * - 9.3.2 on (Classes/FieldValidators/Webhook/Url/NotInternal, Core/Webhook/AddressUtil, Core/Utils/Security/HostCheck;
 *   measured on 9.3.4): a webhook URL on an internal address is refused, 400 `Field validation failure; entityType:
 *   Webhook, field: url, type: notInternal.` with EspoCRM's validation body, unless its `host:port` (80 or 443 by the
 *   scheme when none is given) is in `webhookAllowedAddressList` (setAllowLists). Internal: an IP address in a private
 *   or reserved range (PHP's FILTER_FLAG_NO_PRIV_RANGE | FILTER_FLAG_NO_RES_RANGE), an IPv6 address in brackets, and a
 *   host name EspoCRM cannot resolve to public addresses; the sandbox resolves nothing: `localhost` and names without a
 *   dot (a Docker service) count as internal, other names as public.
 * - 9.3.8 on (Core/Select/Where/Checker, read in 10.0.0): a where item whose attribute holds `#`, nested ones too:
 *   403 `Not allowed character in attribute.`
 * - 10.0 on:
 *   - locked records (Tools/Lock/LockValidationHelper, Core/Api/ErrorOutput): an update that changes a field of a
 *     locked record is 409 `cannotModifyLockedRecord` with the body `{"messageTranslation": {"label":
 *     "cannotModifyLockedRecord", "scope": null, "data": {"field": "<the field's label>"}}}`; a delete of one 409
 *     `cannotRemoveLockedRecord` (`data: {}`). An update that changes nothing, or only modifiedAt and the like, passes.
 *     Records are locked with lock(); only `isLocked` is added to their reads.
 *   - pipelines (docs/general/pipelines.md; Core/Utils/Metadata/AdditionalBuilder/Pipelines, Core/Record/Defaults/
 *     DefaultPopulator::processPipeline, Hooks/Common/PipelineStageStatus, Classes/FieldValidators/Common/PipelineStage/
 *     Valid, Classes/AppParams/Pipelines) for the types given to setPipelines: the status field (Opportunity `stage`,
 *     others `status`) is read-only, so a value sent for it is dropped without a word; a new record gets the first
 *     pipeline and its first stage unless `pipelineId` / `pipelineStageId` say otherwise, and its status is the stage's
 *     mapped status; `pipelineStageId` changes the stage (and the status); a stage of another pipeline is 400 `Field
 *     validation failure; entityType: <type>, field: pipelineStage, type: valid.`. Records carry `pipelineId`,
 *     `pipelineName`, `pipelineStageId`, `pipelineStageName`; `GET /Metadata` has `scopes.<type>.pipelines`,
 *     `statusField`, the status field read-only and the two link fields; `GET /App/user` the user's pipelines under
 *     `appParams.pipelines`. Mass Update and lead conversion are not modelled.
 * `GET /App/user` tells the version (`settings.version`).
 *
 * @typedef {import('./handlers').Ctx} Ctx
 * @typedef {{ status: number, body?: unknown, reason?: string, headers?: Record<string, string | number> }} Reply
 * @typedef {{ id: string, name: string, mappedStatus: string }} Stage
 * @typedef {{ id: string, name: string, stages: Stage[] }} Pipeline
 * @typedef {{ pipelineId: string, pipelineStageId: string }} Placement
 */

const { ApiError } = require('./util');
const { ENTITY_DEFS, isEntityType, getAttributes } = require('./metadata');

const DEFAULT_VERSION = '8.1.5';

/** A version as one number: 9.3.8 → 90308. @param {string} version */
function versionNumber(version) {
	const [major = 0, minor = 0, patch = 0] = String(version)
		.split('.')
		.map((part) => Number.parseInt(part, 10) || 0);
	return major * 10000 + minor * 100 + patch;
}

/** The field a type's pipeline stages map to (scopes.<type>.statusField). @param {string} entityType */
const statusFieldOf = (entityType) => (entityType === 'Opportunity' ? 'stage' : 'status');

/** Attributes whose change is no change of a locked record (LockValidationHelper::$ignoreFieldList). */
const LOCK_IGNORED = new Set([
	'modifiedAt',
	'modifiedById',
	'modifiedByName',
	'isLocked',
	'streamUpdatedAt',
	'id',
]);

/** @param {string} entityType @param {string} field @param {string} type */
const validationFailure = (entityType, field, type) =>
	new ApiError(
		400,
		`Field validation failure; entityType: ${entityType}, field: ${field}, type: ${type}.`,
		{
			messageTranslation: { label: 'validationFailure', scope: null, data: { field, type } },
		},
	);

/** PHP's FILTER_FLAG_NO_PRIV_RANGE | FILTER_FLAG_NO_RES_RANGE on an IPv4 address, and the sandbox's rule for names. @param {string} host */
function isInternalHost(host) {
	const ip = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
	if (ip) {
		const [a, b] = [Number(ip[1]), Number(ip[2])];
		return (
			a === 0 ||
			a === 10 ||
			a === 127 ||
			(a === 169 && b === 254) ||
			(a === 172 && b >= 16 && b <= 31) ||
			(a === 192 && b === 168) ||
			a >= 240
		);
	}
	return host.startsWith('[') || host === 'localhost' || !host.includes('.');
}

/** A where list (the query's, parsed) holds an attribute with `#`, at any depth. @param {unknown} where */
function hasHashAttribute(where) {
	if (!Array.isArray(where)) return false;
	return where.some(
		(item) =>
			item &&
			typeof item === 'object' &&
			((typeof item.attribute === 'string' && item.attribute.includes('#')) ||
				hasHashAttribute(item.value)),
	);
}

class ServerVersion {
	/** @param {string} [version] */
	constructor(version = DEFAULT_VERSION) {
		this.initial = version;
		this.set(version);
	}

	/** Back to the version the sandbox was started with, with no allow-list, lock or pipeline. */
	reset() {
		this.set(this.initial);
	}

	/** @param {string} version such as '7.5.6', '9.3.4', '10.0.0' */
	set(version) {
		this.version = String(version);
		/** @type {string[]} */
		this.webhookAllowedAddressList = [];
		/** @type {Set<string>} `${entityType}:${id}` */
		this.locked = new Set();
		/** @type {Record<string, Pipeline[]>} */
		this.pipelines = {};
		/** @type {Map<string, Placement>} `${entityType}:${id}` → where a record stands */
		this.placements = new Map();
	}

	/** @param {string} least */
	atLeast(least) {
		return versionNumber(this.version) >= versionNumber(least);
	}

	/** EspoCRM 7 stores a phone number as written (fields.js reads this). */
	get phoneNumbersAsWritten() {
		return !this.atLeast('8.0.0');
	}

	/** @param {string} entityType @param {string} id */
	lock(entityType, id) {
		this.locked.add(`${entityType}:${id}`);
	}

	/** @param {string} entityType @param {Pipeline[]} pipelines in their order; the first is the default */
	setPipelines(entityType, pipelines) {
		this.pipelines[entityType] = pipelines;
	}

	/** @param {string} entityType */
	hasPipelines(entityType) {
		return (
			this.atLeast('10.0.0') &&
			Array.isArray(this.pipelines[entityType]) &&
			this.pipelines[entityType].length > 0
		);
	}

	/**
	 * Where a record stands: what was written through the API, else (a record stored by a test) the first pipeline and
	 * the stage mapped to its status, or that pipeline's first stage.
	 * @param {Ctx} ctx @param {string} entityType @param {string} id @returns {Placement}
	 */
	placementOf(ctx, entityType, id) {
		const known = this.placements.get(`${entityType}:${id}`);
		if (known) return known;
		const [pipeline] = this.pipelines[entityType];
		const status = ctx.store.table(entityType).get(id)?.[statusFieldOf(entityType)];
		const stage = pipeline.stages.find((s) => s.mappedStatus === status) ?? pipeline.stages[0];
		return { pipelineId: pipeline.id, pipelineStageId: stage.id };
	}

	/**
	 * The checks that come before the operation, in the order EspoCRM makes them; may rewrite the body (pipelines).
	 * @param {Ctx} ctx @param {string} method @param {string[]} segs
	 */
	before(ctx, method, segs) {
		if (ctx.dialect === 'standard') return;
		const [ctrl, id] = segs;
		const body =
			ctx.body && typeof ctx.body === 'object' && !Array.isArray(ctx.body)
				? /** @type {Record<string, any>} */ (ctx.body)
				: null;
		if (method === 'GET' && this.atLeast('9.3.8') && hasHashAttribute(ctx.query.where))
			throw new ApiError(403, 'Not allowed character in attribute.');
		if (
			ctrl === 'Webhook' &&
			segs.length === 1 &&
			method === 'POST' &&
			body &&
			this.atLeast('9.3.2')
		)
			this.checkWebhookUrl(ctx, body);
		if (ctrl === 'Email' && segs.length === 1 && method === 'POST' && body && this.atLeast('9.0.0'))
			this.checkFromAddress(ctx, body);
		if (
			isEntityType(ctrl) &&
			segs.length === 2 &&
			(method === 'PUT' || method === 'PATCH') &&
			body &&
			!this.atLeast('8.0.0')
		)
			this.keepAddresses(ctx, ctrl, body);
		if (!isEntityType(ctrl) || !this.atLeast('10.0.0')) return;
		if (
			segs.length === 2 &&
			(method === 'PUT' || method === 'PATCH' || method === 'DELETE') &&
			this.locked.has(`${ctrl}:${id}`)
		) {
			this.checkLocked(ctx, ctrl, id, method === 'DELETE' ? null : (body ?? {}));
		}
		if (
			this.hasPipelines(ctrl) &&
			body &&
			((segs.length === 1 && method === 'POST') ||
				(segs.length === 2 && (method === 'PUT' || method === 'PATCH')))
		) {
			ctx.body = this.placeInPipeline(ctx, ctrl, segs.length === 2 ? id : null, body);
		}
	}

	/**
	 * What the operation answered, with what this version adds (pipelines, the version, a lock).
	 * @param {Ctx} ctx @param {string} method @param {string[]} segs @param {Reply} reply @returns {Reply}
	 */
	after(ctx, method, segs, reply) {
		if (ctx.dialect === 'standard' || reply.status !== 200) return reply;
		const [ctrl, id] = segs;
		if (ctrl === 'App' && segs[1] === 'user')
			return { ...reply, body: this.appUser(/** @type {any} */ (reply.body)) };
		if (ctrl === 'Metadata')
			return this.metadataReply(ctx, this.metadata(/** @type {any} */ (reply.body)));
		if (ctx.keptAddresses)
			return { ...reply, body: { .../** @type {any} */ (reply.body), ...ctx.keptAddresses } };
		if (!isEntityType(ctrl) || !this.atLeast('10.0.0') || (segs.length !== 1 && segs.length !== 2))
			return reply;
		const body = /** @type {any} */ (reply.body);
		if (segs.length === 1 && method === 'POST' && body?.id && ctx.pendingPlacement)
			this.placements.set(`${ctrl}:${body.id}`, ctx.pendingPlacement);
		if (segs.length === 2 && method !== 'DELETE' && ctx.pendingPlacement)
			this.placements.set(`${ctrl}:${id}`, ctx.pendingPlacement);
		const shown = (/** @type {any} */ record) =>
			record && typeof record === 'object' && record.id
				? this.withVersionAttributes(ctx, ctrl, record)
				: record;
		if (segs.length === 1 && method === 'GET' && Array.isArray(body?.list))
			return { ...reply, body: { ...body, list: body.list.map(shown) } };
		if (method !== 'DELETE') return { ...reply, body: shown(body) };
		return reply;
	}

	/** @param {Ctx} ctx @param {string} entityType @param {Record<string, any>} record */
	withVersionAttributes(ctx, entityType, record) {
		const out = { ...record };
		if (this.locked.has(`${entityType}:${record.id}`)) out.isLocked = true;
		if (this.hasPipelines(entityType)) {
			const { pipelineId, pipelineStageId } = this.placementOf(ctx, entityType, record.id);
			const pipeline = this.pipelines[entityType].find((p) => p.id === pipelineId);
			Object.assign(out, {
				pipelineId,
				pipelineName: pipeline?.name ?? null,
				pipelineStageId,
				pipelineStageName: pipeline?.stages.find((s) => s.id === pipelineStageId)?.name ?? null,
			});
		}
		return out;
	}

	/**
	 * EspoCRM 7: an e-mail address or phone number written without its list is not stored; the answer shows it.
	 * @param {Ctx} ctx @param {string} entityType @param {Record<string, any>} body
	 */
	keepAddresses(ctx, entityType, body) {
		const attributes = getAttributes(entityType);
		for (const [attribute, value] of Object.entries(body)) {
			const a = attributes.get(attribute);
			if (
				!a ||
				a.role ||
				(a.fieldType !== 'email' && a.fieldType !== 'phone') ||
				typeof value !== 'string' ||
				body[`${attribute}Data`] !== undefined
			)
				continue;
			ctx.keptAddresses = { ...ctx.keptAddresses, [attribute]: value };
			delete body[attribute];
		}
	}

	/** @param {Ctx} ctx @param {Record<string, any>} body */
	checkWebhookUrl(ctx, body) {
		if (!ctx.user.isAdmin && !(ctx.user.isApi && ctx.webhookScope)) return; // refused for access first (webhooks.js)
		let url;
		try {
			url = new URL(String(body.url ?? ''));
		} catch {
			return; // not a URL: the field's own validation
		}
		const port =
			url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
		if (this.webhookAllowedAddressList.includes(`${url.hostname}:${port}`)) return;
		if (isInternalHost(url.hostname)) throw validationFailure('Webhook', 'url', 'notInternal');
	}

	/** @param {Ctx} ctx @param {Record<string, any>} body */
	checkFromAddress(ctx, body) {
		if (ctx.user.isAdmin || body.status !== 'Sending') return;
		const own = `${ctx.user.userName}@sandbox.test`;
		if (
			String(body.from ?? '')
				.trim()
				.toLowerCase() !== own
		)
			throw new ApiError(403, "Not allowed 'from' address.");
	}

	/**
	 * @param {Ctx} ctx @param {string} entityType @param {string} id @param {Record<string, any> | null} changes null
	 *   for a delete
	 */
	checkLocked(ctx, entityType, id, changes) {
		const raw = ctx.store.table(entityType).get(id);
		if (!raw) return; // 404 from the operation
		if (changes === null) {
			throw new ApiError(409, 'cannotRemoveLockedRecord', {
				messageTranslation: { label: 'cannotRemoveLockedRecord', scope: null, data: {} },
			});
		}
		const current = ctx.store.output(entityType, raw, 'full');
		const fields = ENTITY_DEFS[entityType].fields;
		const changed = Object.keys(changes).find((attribute) => {
			const field =
				attribute in fields ? attribute : attribute.replace(/(Id|Ids|Name|Names|Currency)$/, '');
			if (LOCK_IGNORED.has(attribute) || !(field in fields) || fields[field].readOnly) return false;
			return (
				JSON.stringify(current[attribute] ?? null) !== JSON.stringify(changes[attribute] ?? null)
			);
		});
		if (changed === undefined) return;
		const field =
			changed in fields ? changed : changed.replace(/(Id|Ids|Name|Names|Currency)$/, '');
		const label = field.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase());
		throw new ApiError(409, 'cannotModifyLockedRecord', {
			messageTranslation: {
				label: 'cannotModifyLockedRecord',
				scope: null,
				data: { field: label },
			},
		});
	}

	/**
	 * The body as EspoCRM 10 takes it for a type with pipelines: the status field dropped (read-only), the pipeline and
	 * stage defaulted on create, checked, and the status set from the stage.
	 * @param {Ctx} ctx @param {string} entityType @param {string | null} id null on create @param {Record<string, any>} body
	 */
	placeInPipeline(ctx, entityType, id, body) {
		const statusField = statusFieldOf(entityType);
		const { [statusField]: _dropped, pipelineName: _pn, pipelineStageName: _sn, ...rest } = body;
		const pipelines = this.pipelines[entityType];
		const current =
			id === null
				? null
				: ctx.store.table(entityType).get(id)
					? this.placementOf(ctx, entityType, id)
					: null;
		if (id !== null && !current) return rest; // 404 from the operation
		const givenPipeline =
			rest.pipelineId !== undefined && rest.pipelineId !== null
				? String(rest.pipelineId)
				: undefined;
		const givenStage =
			rest.pipelineStageId !== undefined && rest.pipelineStageId !== null
				? String(rest.pipelineStageId)
				: undefined;
		delete rest.pipelineId;
		delete rest.pipelineStageId;
		if (current && givenPipeline === undefined && givenStage === undefined) return rest;
		const pipelineId = givenPipeline ?? current?.pipelineId ?? pipelines[0].id;
		const pipeline = pipelines.find((p) => p.id === pipelineId);
		if (!pipeline) throw validationFailure(entityType, 'pipeline', 'valid');
		const stageId =
			givenStage ??
			(current && current.pipelineId === pipelineId
				? current.pipelineStageId
				: pipeline.stages[0]?.id);
		const stage = pipeline.stages.find((s) => s.id === stageId);
		if (!stage) throw validationFailure(entityType, 'pipelineStage', 'valid');
		ctx.pendingPlacement = { pipelineId, pipelineStageId: stage.id };
		return { ...rest, [statusField]: stage.mappedStatus };
	}

	/** @param {Record<string, any>} body */
	appUser(body) {
		/** @type {Record<string, any>} */
		const out = { ...body, settings: { ...body.settings, version: this.version } };
		if (!this.atLeast('10.0.0')) return out;
		/** @type {Record<string, unknown[]>} */
		const pipelines = {};
		for (const [entityType, list] of Object.entries(this.pipelines)) {
			pipelines[entityType] = list.map((p) => ({
				id: p.id,
				name: p.name,
				entityType,
				isAvailableForAll: true,
				teamIds: [],
				color: null,
				stages: p.stages.map((s) => ({
					id: s.id,
					name: s.name,
					mappedStatus: s.mappedStatus,
					style: null,
				})),
			}));
		}
		return { ...out, appParams: { ...out.appParams, pipelines } };
	}

	/** The whole metadata, or from 8.2 the part its `key` names. @param {Ctx} ctx @param {Record<string, any>} metadata @returns {Reply} */
	metadataReply(ctx, metadata) {
		const { key } = ctx.query;
		if (!this.atLeast('8.2.0') || typeof key !== 'string') return { status: 200, body: metadata };
		/** @type {unknown} */
		let part = metadata;
		for (const name of key.split('.')) {
			part =
				part !== null &&
				typeof part === 'object' &&
				Object.prototype.hasOwnProperty.call(part, name)
					? /** @type {any} */ (part)[name]
					: null;
		}
		return part === null
			? { status: 200, body: Buffer.from(''), headers: { 'Content-Type': 'application/json' } }
			: { status: 200, body: part };
	}

	/** @param {Record<string, any>} body */
	metadata(body) {
		const types = Object.keys(this.pipelines).filter(
			(entityType) => this.hasPipelines(entityType) && body.scopes?.[entityType],
		);
		if (!types.length) return body;
		const out = { ...body, scopes: { ...body.scopes }, entityDefs: { ...body.entityDefs } };
		for (const entityType of types) {
			const statusField = statusFieldOf(entityType);
			const defs = out.entityDefs[entityType];
			out.scopes[entityType] = { ...out.scopes[entityType], pipelines: true, statusField };
			out.entityDefs[entityType] = {
				...defs,
				fields: {
					...defs.fields,
					[statusField]: { ...defs.fields[statusField], readOnly: true },
					pipeline: { type: 'link', required: true },
					pipelineStage: { type: 'link' },
				},
				links: {
					...defs.links,
					pipeline: { type: 'belongsTo', entity: 'Pipeline' },
					pipelineStage: { type: 'belongsTo', entity: 'PipelineStage' },
				},
			};
		}
		return out;
	}
}

/**
 * The note EspoCRM writes itself when the status field of a record changes (for `sandbox.streams.add`): up to 9.1 a
 * `Status` note (`data: {field, value, style}`, measured on 7.5.6 and 9.1.7), from 9.2 on an `Update` note with the
 * new value (`data: {fields: [], attributes: {was: {}, became: {}}, value}`, Tools/Stream/Service::handleAudited,
 * measured on 9.3.4).
 * @param {string} version @param {string} field @param {string} value
 */
function statusChangeNote(version, field, value) {
	if (versionNumber(version) >= versionNumber('9.2.0'))
		return { type: 'Update', data: { fields: [], attributes: { was: {}, became: {} }, value } };
	return { type: 'Status', data: { field, value, style: 'default' } };
}

module.exports = { ServerVersion, statusChangeNote, versionNumber, DEFAULT_VERSION };
