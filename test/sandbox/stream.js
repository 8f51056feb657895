// @ts-check
'use strict';

/**
 * EspoCRM's streams, as EspoCRM 8.1.5 serves them ('espocrm' and 'both' dialects; a Standard server has none of these
 * routes and answers as it does for any unknown controller or link). Sources (application/Espo in the 8.1.5 release):
 *   - POST /Note: Services/Note.php (beforeCreateEntity: a parent the user may not read is 403; only type Post for
 *     non-admins), Classes/Acl/Note/AccessChecker::checkEntityCreate (a parent that does not exist is 403 too)
 *   - GET /{entityType}/{id}/stream: Controllers/Stream::getActionList, Tools/Stream/RecordService::find (the notes of
 *     the record, newest first by `number`, the total counted; `where` and `filter` (posts, updates) apply)
 *   - both lists: `after=<createdAt>`, the notes created strictly after it (see `page`)
 *   - GET /Stream: RecordService::findUser (the notes of the records the user follows and the user's own posts
 *     without a parent; no count: total -1 when there is more, -2 when not)
 *   - PUT / DELETE /{entityType}/{id}/subscription: Core/Record/Service::follow / unfollow, Tools/Stream/Service::
 *     followEntity (true also when already followed; on a type without stream nothing is recorded, still true)
 *   - a type whose stream the role does not allow (Sandbox.setNoStreamScopes): a post to its records is 403 "No
 *     create access.", their stream and a follow 403 (RecordService::find, Record\Service::follow: Forbidden)
 * A note: {id, number, type, post, data, parentType, parentId, parentName, attachmentsIds/Names/Types, isInternal,
 * isGlobal, createdAt, modifiedAt, createdById, createdByName}. The followers are the records' own (store.js:
 * isFollowed, followersIds).
 *
 * @typedef {import('./handlers').Ctx} Ctx
 * @typedef {import('./store').Store} Store
 * @typedef {Record<string, any> & { id: string, number: number, type: string, parentType: string | null,
 *   parentId: string | null, createdById: string | null }} Note
 */

const { ENTITY_DEFS, isEntityType } = require('./metadata');
const { ApiError, newId, formatDateTime } = require('./util');
const { MAX_SIZE_LIMIT } = require('./where');

/** entityDefs.Note.fields.type.options */
const NOTE_TYPES = [
	'Post',
	'Create',
	'CreateRelated',
	'Update',
	'Status',
	'Assign',
	'Relate',
	'Unrelate',
	'EmailReceived',
	'EmailSent',
];

/**
 * A stream's where item: `and`, `or`, the note's `type` (in, equals, notIn, notEquals), and `like` on its `data` (the
 * JSON text EspoCRM stores, compared as MariaDB's LIKE with its case-insensitive collation).
 * @param {any} item @returns {(note: Note) => boolean}
 */
function noteFilter(item) {
	if ((item?.type === 'and' || item?.type === 'or') && Array.isArray(item.value)) {
		const parts = item.value.map(noteFilter);
		return item.type === 'and'
			? (note) => parts.every((part) => part(note))
			: (note) => parts.some((part) => part(note));
	}
	if (item?.attribute === 'type' && ['in', 'equals', 'notIn', 'notEquals'].includes(item.type)) {
		const values = [].concat(item.value ?? []).map(String);
		const keep = item.type === 'in' || item.type === 'equals';
		return (note) => values.includes(note.type) === keep;
	}
	if (item?.attribute === 'data' && item.type === 'like' && typeof item.value === 'string') {
		const pattern = new RegExp(
			`^${item.value
				.split('')
				.map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
				.join('')}$`,
			'is',
		);
		return (note) => pattern.test(JSON.stringify(note.data ?? {}));
	}
	throw new ApiError(
		400,
		'The sandbox filters streams only by type (in, equals, notIn, notEquals), data (like), and and/or of those.',
	);
}

/** The notes of one sandbox (its store's), and what the routes do with them. */
class Streams {
	/** @param {Store} store */
	constructor(store) {
		this.store = store;
		/** @type {Note[]} in creation order */
		this.notes = [];
		this.number = 0;
	}

	reset() {
		this.notes = [];
		this.number = 0;
	}

	/**
	 * Adds a note without a request (tests: the Create, Update, Status… notes EspoCRM writes itself).
	 * @param {Partial<Note> & { parentType?: string | null, parentId?: string | null }} fields @returns {Note}
	 */
	add(fields) {
		const now = formatDateTime();
		const createdById = fields.createdById ?? '1';
		/** @type {Note} */
		const note = {
			id: newId(),
			type: 'Post',
			post: null,
			data: {},
			parentType: null,
			parentId: null,
			isInternal: false,
			isGlobal: false,
			createdAt: now,
			modifiedAt: now,
			...fields,
			number: ++this.number,
			createdById,
		};
		note.createdByName = this.store.nameOf('User', createdById);
		this.notes.push(note);
		return note;
	}

	/**
	 * A note as EspoCRM replies with it. The create reply (Record\Service::create): no number, isGlobal or createdByName,
	 * with parentName and relatedName. A stream's list item (RecordService::find): every attribute, the parent's name
	 * only when the parent is not the record whose stream it is (`streamOf`); attachments of posts loaded.
	 * @param {Note} note @param {'create' | 'list'} form @param {{ type: string, id: string }} [streamOf]
	 */
	output(note, form = 'list', streamOf = undefined) {
		const ids = /** @type {string[]} */ (note.attachmentsIds ?? []);
		const attachments = ids.map((id) => this.store.table('Attachment').get(id));
		const {
			number: _number,
			isGlobal: _isGlobal,
			createdByName: _createdByName,
			...created
		} = note;
		const ownParent =
			streamOf && note.parentType === streamOf.type && note.parentId === streamOf.id;
		const parentName =
			note.parentType && note.parentId ? this.store.nameOf(note.parentType, note.parentId) : null;
		return {
			...(form === 'create'
				? { ...created, deleted: false, parentName, relatedName: null }
				: {
						relatedId: null,
						relatedType: null,
						superParentId: null,
						superParentType: null,
						targetType: null,
						createdByGender: null,
						modifiedById: null,
						modifiedByName: null,
						deleted: false,
						...note,
						...(ownParent ? {} : { parentName }),
					}),
			...(note.type === 'Post' || note.type === 'EmailReceived'
				? {
						attachmentsIds: ids,
						attachmentsNames: Object.fromEntries(
							ids.map((id, i) => [id, attachments[i]?.name ?? null]),
						),
						attachmentsTypes: Object.fromEntries(
							ids.map((id, i) => [id, attachments[i]?.type ?? null]),
						),
					}
				: {}),
		};
	}

	/**
	 * The parent record of a stream request or a post, checked as EspoCRM does: restricted types are 403.
	 * @param {Ctx} ctx @param {string} entityType @param {string} id
	 */
	parent(ctx, entityType, id) {
		if (!isEntityType(entityType))
			throw new ApiError(404, `Controller '${entityType}' does not exist.`);
		if (ctx.restricted.has(entityType)) throw new ApiError(403, '');
		return this.store.table(entityType).get(id);
	}

	/** POST /Note. @param {Ctx} ctx */
	create(ctx) {
		const body =
			ctx.body && typeof ctx.body === 'object' && !Array.isArray(ctx.body) ? ctx.body : {};
		const type = body.type ?? 'Post';
		if (body.parentType && body.parentId) {
			// A parent the user may not read the stream of, or that does not exist: Record\Service::create's access check
			// (Classes/Acl/Note/AccessChecker::checkEntityCreate).
			const noAccess = () => new ApiError(403, 'No create access.');
			if (
				!isEntityType(String(body.parentType)) ||
				ctx.restricted.has(String(body.parentType)) ||
				ctx.noStream.has(String(body.parentType))
			)
				throw noAccess();
			if (!this.store.table(String(body.parentType)).get(String(body.parentId))) throw noAccess();
		}
		if (type !== 'Post' && !ctx.user.isAdmin) throw new ApiError(403, "Only 'Post' type allowed.");
		if (!NOTE_TYPES.includes(type)) throw new ApiError(400, '');
		const attachmentsIds = Array.isArray(body.attachmentsIds)
			? body.attachmentsIds.map(String)
			: [];
		const note = this.add({
			type,
			post: body.post ?? null,
			parentType: body.parentType ?? null,
			parentId: body.parentId ?? null,
			isInternal: Boolean(body.isInternal),
			attachmentsIds,
			createdById: ctx.user.id,
		});
		return this.output(note, 'create');
	}

	/**
	 * The paging, `after` and `where` on `type` of a stream request. `after` (Controllers/Stream::fetchSearchParams) is
	 * a where item `createdAt` of type after, without the date-time flag: ItemGeneralConverter::processAfter, a plain
	 * `createdAt > value` in SQL, so the value is compared as the server writes it (UTC, YYYY-MM-DD HH:MM:SS), strictly.
	 * @param {Ctx} ctx @param {Note[]} notes newest first @param {{ type: string, id: string }} [streamOf]
	 */
	page(ctx, notes, streamOf = undefined) {
		const maxSize =
			ctx.query.maxSize === undefined || ctx.query.maxSize === ''
				? null
				: Number.parseInt(String(ctx.query.maxSize), 10) || 0;
		const offset = Number.parseInt(String(ctx.query.offset ?? '0'), 10) || 0;
		if (maxSize !== null && maxSize > MAX_SIZE_LIMIT)
			throw new ApiError(
				403,
				`Max size should not exceed ${MAX_SIZE_LIMIT}. Use offset and limit.`,
			);
		const where = Array.isArray(ctx.query.where) ? ctx.query.where : [];
		let found = notes;
		const after = typeof ctx.query.after === 'string' ? ctx.query.after : '';
		if (after) found = found.filter((note) => String(note.createdAt) > after);
		const matches = where.map(noteFilter);
		found = found.filter((note) => matches.every((match) => match(note)));
		if (ctx.query.filter === 'posts') found = found.filter((note) => note.type === 'Post');
		if (ctx.query.filter === 'updates')
			found = found.filter((note) => note.type === 'Update' || note.type === 'Status');
		const size = maxSize ?? MAX_SIZE_LIMIT;
		return {
			found,
			list: found.slice(offset, offset + size).map((note) => this.output(note, 'list', streamOf)),
			more: found.length > offset + size,
		};
	}

	/** GET /{entityType}/{id}/stream: the record's notes with the total. @param {Ctx} ctx @param {string} entityType @param {string} id */
	recordStream(ctx, entityType, id) {
		if (!this.parent(ctx, entityType, id)) throw new ApiError(404, '');
		// The record is found first, then its stream checked (acl checkEntity stream).
		if (ctx.noStream.has(entityType)) throw new ApiError(403, '');
		const notes = this.notes
			.filter((note) => note.parentType === entityType && note.parentId === id)
			.reverse();
		const { found, list } = this.page(ctx, notes, { type: entityType, id });
		return { total: found.length, list };
	}

	/**
	 * GET /Stream: the notes of the records the user follows and the user's own posts without a parent; no count.
	 * @param {Ctx} ctx
	 */
	userStream(ctx) {
		const userId = ctx.user.id;
		const followed = (/** @type {Note} */ note) => {
			if (!note.parentType || !note.parentId || !isEntityType(note.parentType)) return false;
			const raw = this.store.table(note.parentType).get(note.parentId);
			return Boolean(raw && /** @type {string[]} */ (raw._followers || []).includes(userId));
		};
		const notes = this.notes
			.filter(
				(note) =>
					followed(note) || (!note.parentId && note.type === 'Post' && note.createdById === userId),
			)
			.reverse();
		const { list, more } = this.page(ctx, notes);
		return { total: more ? -1 : -2, list };
	}

	/**
	 * PUT (follow) or DELETE (unfollow) /{entityType}/{id}/subscription: true, also when nothing changed.
	 * @param {Ctx} ctx @param {string} entityType @param {string} id @param {boolean} follow
	 */
	subscription(ctx, entityType, id, follow) {
		// Follow checks the role's stream access of the type before it looks for the record; unfollow does not check it.
		if (follow && ctx.noStream.has(entityType)) throw new ApiError(403, '');
		const raw = this.parent(ctx, entityType, id);
		if (!raw) throw new ApiError(404, '');
		if (!ENTITY_DEFS[entityType].stream) return true;
		const followers = /** @type {string[]} */ (raw._followers || []);
		const next = follow
			? [...new Set([...followers, ctx.user.id])]
			: followers.filter((userId) => userId !== ctx.user.id);
		Object.defineProperty(raw, '_followers', {
			value: next,
			enumerable: false,
			writable: true,
			configurable: true,
		});
		return true;
	}
}

module.exports = { Streams, NOTE_TYPES };
