// @ts-check
'use strict';

const { ENTITY_DEFS, APP_CONFIG, isEntityType, buildMetadata } = require('./metadata');
const { ApiError, validationError, formatDateTime } = require('./util');
const { DEFAULT_VERSION } = require('./versions');
const { runList, listParamsFromQuery, compileWhere } = require('./where');
const { withSearchMetadata, subscribe } = require('./search');

/**
 * The operations behind the routes. Each returns the JSON value to reply with status 200 or throws an ApiError.
 *
 * @typedef {import('./store').Store} Store
 * @typedef {'both' | 'standard' | 'espocrm'} Dialect
 * @typedef {{ to: string[], cc: string[], bcc: string[], from: string | null, subject: string | null,
 *   body: string | null, isHtml: boolean, attachmentIds: string[], emailId: string, sentAt: string }} OutboxMail
 * @typedef {{
 *   store: Store, dialect: Dialect, headers: Record<string, string | string[] | undefined>,
 *   query: Record<string, any>, body: any, restricted: Set<string>, noStream: Set<string>, emailSendingFails: boolean,
 *   outbox: OutboxMail[], user: import('./users').SandboxUser, webhookScope: boolean,
 *   phoneNumbersAsWritten?: boolean, pendingPlacement?: import('./versions').Placement, keptAddresses?: Record<string, string>,
 * }} Ctx
 *   phoneNumbersAsWritten, keptAddresses: EspoCRM 7 (versions.js); pendingPlacement: the pipeline and stage of a write
 *   (versions.js)
 */

/** @param {Ctx} ctx @param {string} name */
const header = (ctx, name) => {
	const v = ctx.headers[name];
	return Array.isArray(v) ? v[0] : v;
};
/** @param {Ctx} ctx */
const skipDuplicateCheck = (ctx) =>
	String(header(ctx, 'x-skip-duplicate-check') || '').toLowerCase() === 'true';
/** @param {Ctx} ctx */
const unknownTypeStatus = (ctx) => (ctx.dialect === 'standard' ? 400 : 500);
/** EspoCRM's rules for lists, record shapes and errors: the 'espocrm' and 'both' dialects. @param {Ctx} ctx */
const espo = (ctx) => ctx.dialect !== 'standard';
/** How a request's values are read: EspoCRM 7 stores phone numbers as written (versions.js). @param {Ctx} ctx */
const readAs = (ctx) => ({ phoneNumbersAsWritten: ctx.phoneNumbersAsWritten });
/** The write options of a request: who makes the change, and how its values are read. @param {Ctx} ctx */
const by = (ctx) => ({ userId: ctx.user.id, ...readAs(ctx) });
/** The list parameters came as searchParams JSON (their types kept). @param {Ctx} ctx */
const fromJson = (ctx) =>
	typeof ctx.query.searchParams === 'string' && ctx.query.searchParams !== '';
/** A read's record: `full`, with isFollowed for the caller. @param {Ctx} ctx @param {string} entityType @param {any} raw */
const readOutput = (ctx, entityType, raw) =>
	ctx.store.output(entityType, raw, 'full', undefined, ctx.user.id);
/** @param {unknown} body @returns {Record<string, any>} */
function objectBody(body) {
	if (body === null || body === undefined) return {};
	if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, '');
	return /** @type {Record<string, any>} */ (body);
}
/** @param {string} id */
const notExists = (id) => new ApiError(404, `Record ${id} does not exist.`);
/** @param {string} id */
const notFound = (id) => new ApiError(404, `Record ${id} not found.`);

/** @param {Ctx} ctx @param {string} entityType */
function list(ctx, entityType) {
	// EspoCRM's Attachment controller lists only for admins (Controllers/Attachment.php).
	if (entityType === 'Attachment' && !ctx.user.isAdmin) throw new ApiError(403, '');
	return runList({
		store: ctx.store,
		entityType,
		records: ctx.store.table(entityType).values(),
		params: listParamsFromQuery(ctx.query),
		noTotal: String(header(ctx, 'x-no-total') || '').toLowerCase() === 'true',
		unknownTypeStatus: unknownTypeStatus(ctx),
		espo: espo(ctx),
		fromJson: fromJson(ctx),
		viewerId: ctx.user.id,
	});
}

/**
 * A read. EspoCRM keeps deleted records (marked deleted) and an admin still reads them, with `deleted: true`
 * (Record\Service::getEntity → getEntityEvenDeleted); other users get 404.
 * @param {Ctx} ctx @param {string} entityType @param {string} id
 */
function read(ctx, entityType, id) {
	const raw = ctx.store.table(entityType).get(id);
	if (!raw) {
		const deleted =
			espo(ctx) && ctx.user.isAdmin ? ctx.store.deletedRecord(entityType, id) : undefined;
		if (deleted) return deleted;
		throw notExists(id);
	}
	return readOutput(ctx, entityType, raw);
}

/** @param {Ctx} ctx @param {string} entityType @param {Record<string, unknown>[]} candidates @returns {never | void} */
function refuseDuplicates(ctx, entityType, candidates) {
	if (skipDuplicateCheck(ctx)) return;
	for (const values of candidates) {
		const dups = ctx.store.findDuplicates(entityType, values);
		// EspoCRM finds them with a list query: list items (Record\Service::processDuplicateCheck).
		if (dups.length)
			throw new ApiError(
				409,
				'duplicate',
				dups.map((r) =>
					ctx.store.output(entityType, r, espo(ctx) ? 'list' : 'full', undefined, ctx.user.id),
				),
			);
	}
}

/** @param {Ctx} ctx @param {string} entityType */
function create(ctx, entityType) {
	const body = objectBody(ctx.body);
	if (entityType === 'Attachment') return createAttachment(ctx, body);
	if (entityType === 'Email') return createEmail(ctx, body);
	// Record\Service::create: validation, then the linked records, then the duplicate check.
	const prepared = ctx.store.prepareCreate(entityType, body, readAs(ctx));
	ctx.store.checkLinks(entityType, prepared, null);
	refuseDuplicates(ctx, entityType, [prepared.values]);
	const raw = ctx.store.insert(entityType, body, by(ctx), prepared);
	return withWrittenTitle(entityType, body, createReply(ctx, entityType, raw));
}

/**
 * The create reply: EspoCRM's (espoCreate) in the 'espocrm' and 'both' dialects, the attributes that were set in
 * the standard one (server-behaviour.md).
 * @param {Ctx} ctx @param {string} entityType @param {any} raw
 */
function createReply(ctx, entityType, raw) {
	return ctx.store.output(
		entityType,
		raw,
		espo(ctx) ? 'espoCreate' : 'create',
		undefined,
		ctx.user.id,
	);
}

const ATTACHMENT_FIELD_TYPES = {
	Attachment: ['file', 'image', 'attachmentMultiple'],
	'Inline Attachment': ['wysiwyg'],
};
/** Extensions of app/image.json's allowed types, and how their files begin (what PHP's finfo detects). */
const IMAGE_TYPES = {
	png: {
		mime: 'image/png',
		magic: (/** @type {Buffer} */ b) =>
			b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
	},
	jpg: {
		mime: 'image/jpeg',
		magic: (/** @type {Buffer} */ b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
	},
	jpeg: {
		mime: 'image/jpeg',
		magic: (/** @type {Buffer} */ b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
	},
	gif: {
		mime: 'image/gif',
		magic: (/** @type {Buffer} */ b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
	},
	webp: {
		mime: 'image/webp',
		magic: (/** @type {Buffer} */ b) =>
			b.subarray(0, 4).toString('latin1') === 'RIFF' &&
			b.subarray(8, 12).toString('latin1') === 'WEBP',
	},
	svg: {
		mime: 'image/svg+xml',
		magic: (/** @type {Buffer} */ b) => /<svg[\s>]/i.test(b.subarray(0, 4096).toString('utf8')),
	},
};

/**
 * POST /Attachment as EspoCRM's Attachment service takes it (Services/Attachment::filterCreateInput,
 * Tools/Attachment/AccessChecker, Checker): the contents are what follows the first comma of `file`, base64
 * decoded (so a `file` that is not a data URI is stored empty); the target field must exist and be a file,
 * image or attachmentMultiple field; an image must be an image; then the usual validation (`name` required).
 * @param {Ctx} ctx @param {Record<string, any>} body
 */
function createAttachment(ctx, body) {
	if (!Object.prototype.hasOwnProperty.call(body, 'file'))
		throw new ApiError(400, 'No file contents.');
	if (typeof body.file !== 'string') throw new ApiError(400, 'Non-string file contents.');
	const { file, size: _size, parentId: _p, relatedId: _r, contents: _c, ...fields } = body;
	const part = file.split(',')[1];
	const contents = part ? Buffer.from(part, 'base64') : Buffer.alloc(0);
	if (fields.parentType) delete fields.relatedType;
	const relatedType = fields.parentType ?? fields.relatedType;
	const role = fields.role ?? 'Attachment';
	if (!relatedType || !fields.field) throw new ApiError(400, 'No `field` and `parentType`.');
	checkAttachmentTarget(ctx, String(relatedType), String(fields.field), role);
	const prepared = ctx.store.prepareCreate('Attachment', { ...fields, role }, {});
	const fieldType = ENTITY_DEFS[relatedType]?.fields[fields.field]?.type;
	if (fieldType === 'image' || role === 'Inline Attachment')
		checkImage(String(fields.name ?? ''), prepared.values.type, contents);
	prepared.values.size = contents.length;
	const raw = ctx.store.insert('Attachment', fields, by(ctx), prepared);
	raw._setKeys.add('size');
	ctx.store.files.set(raw.id, contents);
	return createReply(ctx, 'Attachment', raw);
}

/** Tools/Attachment/AccessChecker::check. @param {Ctx} ctx @param {string} relatedType @param {string} field @param {unknown} role */
function checkAttachmentTarget(ctx, relatedType, field, role) {
	const allowed =
		ATTACHMENT_FIELD_TYPES[/** @type {keyof typeof ATTACHMENT_FIELD_TYPES} */ (String(role))];
	if (!allowed) throw new ApiError(403, 'Role not allowed.');
	// A post's files (stream.js): Note, which the sandbox has no records of, has the attachmentMultiple field `attachments`.
	const fieldType =
		relatedType === 'Note'
			? field === 'attachments'
				? 'attachmentMultiple'
				: undefined
			: isEntityType(relatedType)
				? ENTITY_DEFS[relatedType].fields[field]?.type
				: undefined;
	if (!fieldType) throw new ApiError(403, `Field '${field}' does not exist.`);
	if (!allowed.includes(fieldType))
		throw new ApiError(403, `Field type '${fieldType}' is not allowed for ${role}.`);
	if (ctx.restricted.has(relatedType)) throw new ApiError(403, `No access to ${relatedType}.`);
}

/** Checker::checkTypeImage: extension, declared type and contents must agree. @param {string} name @param {unknown} type @param {Buffer} contents */
function checkImage(name, type, contents) {
	const ext = name.includes('.') ? (name.split('.').pop()?.toLowerCase() ?? '') : '';
	const known = IMAGE_TYPES[/** @type {keyof typeof IMAGE_TYPES} */ (ext)];
	if (!known) throw new ApiError(403, 'Not allowed file type.');
	if (String(type ?? '').toLowerCase() !== known.mime)
		throw new ApiError(403, 'Passed type does not correspond to extension.');
	if (contents.length && !known.magic(contents))
		throw new ApiError(403, 'Detected mime type does not correspond to extension.');
}

/** @param {unknown} v */
const addresses = (v) =>
	typeof v === 'string'
		? v
				.split(';')
				.map((s) => s.trim())
				.filter(Boolean)
		: [];

/**
 * E-mail: the standard interface sends every POST /Email; EspoCRM only a Sending one with a `from`, and
 * archives the others. 'both' sends the standard form (no status) and the EspoCRM form (status Sending).
 * @param {Ctx} ctx @param {Record<string, any>} body
 */
function createEmail(ctx, body) {
	const { store } = ctx;
	const prepared = store.prepareCreate('Email', body, {});
	const v = prepared.values;
	const status = body.status;
	let send;
	if (ctx.dialect === 'standard') send = true;
	else if (ctx.dialect === 'espocrm') send = status === 'Sending';
	else send = status === 'Sending' || status === undefined || status === null || status === '';
	const espoForm = ctx.dialect === 'espocrm' || (ctx.dialect === 'both' && status === 'Sending');
	if (espoForm && !v.from) throw validationError('Email', 'from', 'required');
	if (send && !v.to) throw validationError('Email', 'to', 'required');
	store.checkLinks('Email', prepared, null);
	if (!send) v.status = status === 'Draft' ? 'Draft' : 'Archived';
	else if (ctx.emailSendingFails) v.status = 'Draft';
	else {
		v.status = 'Sent';
		v.dateSent = formatDateTime();
	}
	const raw = store.insert('Email', body, by(ctx), prepared);
	if (send && ctx.emailSendingFails) {
		throw new ApiError(500, 'sendingFail', { id: raw.id, message: 'No system SMTP settings.' });
	}
	if (send) {
		ctx.outbox.push({
			emailId: raw.id,
			from: raw.from ?? null,
			to: addresses(raw.to),
			cc: addresses(raw.cc),
			bcc: addresses(raw.bcc),
			subject: raw.name ?? null,
			body: raw.body ?? null,
			isHtml: raw.isHtml !== false,
			attachmentIds: store.relatedIds('Email', raw.id, 'attachments'),
			sentAt: /** @type {string} */ (raw.dateSent),
		});
	}
	return createReply(ctx, 'Email', raw);
}

/** @param {Ctx} ctx @param {string} entityType @param {string} id */
function update(ctx, entityType, id) {
	const raw = ctx.store.table(entityType).get(id);
	if (!raw) throw notFound(id);
	const body = objectBody(ctx.body);
	checkVersion(ctx, entityType, raw, body);
	const prepared = ctx.store.prepareUpdate(entityType, raw, body, readAs(ctx));
	ctx.store.applyUpdate(entityType, raw, body, by(ctx), prepared);
	return withWrittenTitle(entityType, body, readOutput(ctx, entityType, raw));
}

/**
 * A Contact's title written without an Account is not stored (store.js, Hooks/Contact/Accounts), but EspoCRM's reply
 * to that write is the record as it holds it in memory: with the title written (compare-sandbox.js, "Contact title").
 * @param {string} entityType @param {Record<string, any>} body @param {Record<string, any>} reply
 */
function withWrittenTitle(entityType, body, reply) {
	if (entityType !== 'Contact' || body.title === undefined || reply.title !== null) return reply;
	return { ...reply, title: body.title };
}

/**
 * X-Version-Number (Record\Service::processConcurrencyControl): only types with optimistic concurrency control
 * have a version number; the update is refused only when the version differs AND a value sent differs from the
 * record's (PHP's strict comparison): 409 `modified` with the record's values of those attributes and its version.
 * @param {Ctx} ctx @param {string} entityType @param {any} raw @param {Record<string, any>} body
 */
function checkVersion(ctx, entityType, raw, body) {
	const version = header(ctx, 'x-version-number');
	if (
		version === undefined ||
		version === '' ||
		!ENTITY_DEFS[entityType].optimisticConcurrencyControl
	)
		return;
	if (Number.parseInt(version, 10) === raw.versionNumber) return;
	const current = readOutput(ctx, entityType, raw);
	/** @type {Record<string, unknown>} */
	const values = {};
	for (const [k, v] of Object.entries(body)) {
		const now = Object.prototype.hasOwnProperty.call(current, k) ? current[k] : null;
		if (JSON.stringify(now) !== JSON.stringify(v)) values[k] = now;
	}
	if (Object.keys(values).length)
		throw new ApiError(409, 'modified', { values, versionNumber: raw.versionNumber });
}

/** @param {Ctx} ctx @param {string} entityType @param {string} id */
function remove(ctx, entityType, id) {
	if (!ctx.store.remove(entityType, id)) throw notFound(id);
	return true;
}

/**
 * The parent of a relationship request must exist: EspoCRM's findLinked, link and unlink throw a NotFound without
 * a text (404, empty reason); the standard dialect names the record.
 * @param {Ctx} ctx @param {string} entityType @param {string} id
 */
function requireParent(ctx, entityType, id) {
	if (ctx.store.table(entityType).has(id)) return;
	throw espo(ctx) ? new ApiError(404, '') : notExists(id);
}

/** @param {Ctx} ctx @param {string} entityType @param {string} id @param {string} link */
function listRelated(ctx, entityType, id, link) {
	requireParent(ctx, entityType, id);
	const ld = ctx.store.requireLink(entityType, link);
	const foreignType = /** @type {string} */ (ld.entity);
	if (ctx.restricted.has(foreignType)) throw new ApiError(403, '');
	const table = ctx.store.table(foreignType);
	const records = ctx.store
		.relatedIds(entityType, id, link)
		.map((fid) => table.get(fid))
		.filter((r) => r !== undefined);
	return runList({
		store: ctx.store,
		entityType: foreignType,
		records: /** @type {any[]} */ (records),
		params: listParamsFromQuery(ctx.query),
		noTotal: String(header(ctx, 'x-no-total') || '').toLowerCase() === 'true',
		unknownTypeStatus: unknownTypeStatus(ctx),
		espo: espo(ctx),
		fromJson: fromJson(ctx),
		link,
		parentType: entityType,
		viewerId: ctx.user.id,
	});
}

/** @param {unknown} src @returns {string[] | null} */
function idsFrom(src) {
	if (!src || typeof src !== 'object') return null;
	const o = /** @type {Record<string, unknown>} */ (src);
	if (typeof o.id === 'string' && o.id) return [o.id];
	if (Array.isArray(o.ids) && o.ids.length) return o.ids.map(String);
	return null;
}

/** @param {Ctx} ctx @param {string} entityType @param {string} id @param {string} link */
function linkRecords(ctx, entityType, id, link) {
	requireParent(ctx, entityType, id);
	const ld = ctx.store.requireLink(entityType, link);
	const ids = idsFrom(ctx.body);
	// Controllers/Record::postActionCreateLink answers a body without id or ids with `false`.
	if (!ids) {
		if (espo(ctx)) return false;
		throw new ApiError(400, '');
	}
	// Record\Service::link: a related record that does not exist is a NotFound without a text.
	if (espo(ctx))
		for (const fid of ids)
			if (!ctx.store.table(/** @type {string} */ (ld.entity)).has(fid)) throw new ApiError(404, '');
	for (const fid of ids) ctx.store.linkIds(entityType, id, link, fid);
	return true;
}

/**
 * Unlink: the standard interface reads the id from the query, EspoCRM from the JSON body (a query id alone gets
 * 200 `false` there), 'both' takes either.
 * @param {Ctx} ctx @param {string} entityType @param {string} id @param {string} link
 */
function unlinkRecords(ctx, entityType, id, link) {
	requireParent(ctx, entityType, id);
	ctx.store.requireLink(entityType, link);
	const fromBody = idsFrom(ctx.body);
	const fromQuery = idsFrom(ctx.query);
	let ids;
	if (ctx.dialect === 'espocrm') {
		if (!fromBody) return false;
		ids = fromBody;
	} else if (ctx.dialect === 'standard') {
		if (!fromQuery) throw new ApiError(400, '');
		ids = fromQuery;
	} else {
		ids = fromBody || fromQuery;
		if (!ids) throw new ApiError(400, '');
	}
	for (const fid of ids) ctx.store.unlinkIds(entityType, id, link, fid);
	return true;
}

/**
 * Mass update and delete (Tools/MassUpdate/Processor): a record that fails validation or the check of linked
 * records is skipped, not an error; so is an unknown id.
 * @param {Ctx} ctx @param {string} entityType @param {string[]} ids @param {'update' | 'delete'} action
 * @param {Record<string, unknown>} data @returns {string[]} ids actually changed
 */
function massApply(ctx, entityType, ids, action, data) {
	const table = ctx.store.table(entityType);
	/** @type {string[]} */
	const done = [];
	for (const id of ids) {
		const raw = table.get(id);
		if (!raw) continue;
		if (action === 'update') {
			let prepared;
			try {
				prepared = ctx.store.prepareUpdate(entityType, raw, data, readAs(ctx));
			} catch (err) {
				if (err instanceof ApiError) continue;
				throw err;
			}
			ctx.store.applyUpdate(entityType, raw, data, by(ctx), prepared);
		} else ctx.store.remove(entityType, id);
		done.push(id);
	}
	return done;
}

/** @param {unknown} ids */
function requireIds(ids) {
	if (!Array.isArray(ids)) throw new ApiError(400, '');
	return ids.map(String);
}

/** Standard PUT /{Entity}/action/massUpdate. @param {Ctx} ctx @param {string} entityType */
function massUpdate(ctx, entityType) {
	const body = objectBody(ctx.body);
	const attributes = objectBody(body.attributes ?? body.data);
	massApply(ctx, entityType, requireIds(body.ids), 'update', attributes);
	return true;
}

/** Standard POST /{Entity}/action/massDelete. @param {Ctx} ctx @param {string} entityType */
function massDelete(ctx, entityType) {
	const body = objectBody(ctx.body);
	massApply(ctx, entityType, requireIds(body.ids), 'delete', {});
	return true;
}

/** EspoCRM 7+ POST /MassAction. @param {Ctx} ctx */
function massAction(ctx) {
	const body = objectBody(ctx.body);
	const entityType = body.entityType;
	if (typeof entityType !== 'string' || !isEntityType(entityType)) throw new ApiError(400, '');
	if (ctx.restricted.has(entityType)) throw new ApiError(403, '');
	if (body.action !== 'update' && body.action !== 'delete')
		throw new ApiError(400, `Mass action '${body.action}' does not exist.`);
	const params = objectBody(body.params);
	let ids;
	if (Array.isArray(params.ids)) ids = params.ids.map(String);
	else if (params.where !== undefined || params.searchParams !== undefined) {
		const where = params.where ?? objectBody(params.searchParams).where;
		const pred = compileWhere(where, {
			store: ctx.store,
			entityType,
			now: Date.now(),
			unknownTypeStatus: unknownTypeStatus(ctx),
		});
		ids = [...ctx.store.table(entityType).values()].filter(pred).map((r) => r.id);
	} else throw new ApiError(400, '');
	const done = massApply(
		ctx,
		entityType,
		ids,
		body.action,
		body.action === 'update' ? objectBody(body.data) : {},
	);
	return { count: done.length, ids: done };
}

const CONVERT_ORDER = ['Account', 'Contact', 'Opportunity'];

/**
 * Lead conversion, both forms. Only the types present in `records` are created; re-conversion is not refused.
 * @param {Ctx} ctx @param {string | undefined} pathId
 */
function convertLead(ctx, pathId) {
	const { store } = ctx;
	const body = objectBody(ctx.body);
	const id = pathId ?? body.id;
	if (typeof id !== 'string' || !id) throw new ApiError(400, '');
	const lead = store.table('Lead').get(id);
	if (!lead) throw notExists(id);
	const records = objectBody(body.records);
	/** @type {Record<string, { values: Record<string, unknown>, multiple: Record<string, string[]> }>} */
	const prepared = {};
	for (const type of CONVERT_ORDER) {
		if (records[type] && typeof records[type] === 'object')
			prepared[type] = store.prepareCreate(type, records[type], readAs(ctx));
	}
	if (!skipDuplicateCheck(ctx)) {
		const dups = [];
		for (const [type, p] of Object.entries(prepared)) {
			for (const r of store.findDuplicates(type, p.values))
				dups.push({
					...store.output(type, r, espo(ctx) ? 'list' : 'full', undefined, ctx.user.id),
					_entityType: type,
				});
		}
		if (dups.length) throw new ApiError(409, 'duplicate', dups);
	}
	/** @type {Record<string, string>} */
	const created = {};
	for (const type of CONVERT_ORDER) {
		const p = prepared[type];
		if (!p) continue;
		if (type !== 'Account' && created.Account && !p.values.accountId)
			p.values.accountId = created.Account;
		if (type === 'Opportunity' && created.Contact)
			p.multiple.contacts = [...new Set([...(p.multiple.contacts || []), created.Contact])];
		created[type] = store.insert(type, records[type], by(ctx), p).id;
	}
	/** @type {Record<string, unknown>} */
	const leadChanges = { status: 'Converted', convertedAt: formatDateTime() };
	if (created.Account) leadChanges.createdAccountId = created.Account;
	if (created.Contact) leadChanges.createdContactId = created.Contact;
	if (created.Opportunity) leadChanges.createdOpportunityId = created.Opportunity;
	store.applyUpdate('Lead', lead, leadChanges, { trusted: true, ...by(ctx) });
	return readOutput(ctx, 'Lead', lead);
}

/** @param {Ctx} ctx */
function metadata(ctx) {
	return withSearchMetadata(buildMetadata(ctx.restricted, ctx.user));
}

/** GET /App/user: the calling user and its access. @param {Ctx} ctx */
function appUser(ctx) {
	/** @type {Record<string, unknown>} */
	const table = {};
	for (const [name, def] of Object.entries(ENTITY_DEFS)) {
		if (name === 'Webhook') continue;
		table[name] = ctx.restricted.has(name)
			? false
			: {
					create: 'yes',
					read: 'all',
					edit: 'all',
					delete: 'all',
					stream: ctx.noStream.has(name) ? 'no' : 'all',
				};
		if (def.scope?.acl === false) table[name] = true;
	}
	// A boolean scope: API users need it in their role; admins always have it.
	table.Webhook = ctx.user.isAdmin || (ctx.user.isApi && ctx.webhookScope);
	const u = ctx.user;
	return {
		user: {
			id: u.id,
			userName: u.userName,
			name: [u.firstName, u.lastName].filter(Boolean).join(' '),
			type: u.type,
			isActive: true,
			emailAddress: `${u.userName}@sandbox.test`,
		},
		acl: { table, fieldTable: {}, assignmentPermission: 'all', userPermission: 'all' },
		preferences: {
			timeZone: 'UTC',
			language: 'en_US',
			dateFormat: 'YYYY-MM-DD',
			timeFormat: 'HH:mm',
		},
		settings: {
			version: DEFAULT_VERSION,
			recordsPerPage: 20,
			recordsPerPageSmall: 5,
			timeZone: APP_CONFIG.timeZone,
			defaultCurrency: APP_CONFIG.defaultCurrency,
			currencyList: APP_CONFIG.currencyList,
		},
	};
}

module.exports = {
	subscription: (
		/** @type {Ctx} */ ctx,
		/** @type {string} */ entityType,
		/** @type {string} */ id,
		/** @type {boolean} */ follow,
	) => subscribe(ctx.store, entityType, id, ctx.user.id, follow),
	list,
	read,
	create,
	update,
	remove,
	listRelated,
	linkRecords,
	unlinkRecords,
	massUpdate,
	massDelete,
	massAction,
	convertLead,
	metadata,
	appUser,
};
