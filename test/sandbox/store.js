// @ts-check
'use strict';

const {
	ENTITY_DEFS,
	APP_CONFIG,
	getAttributes,
	getLink,
	isEntityType,
	foreignFieldDef,
} = require('./metadata');
const { readInput, validateFields } = require('./fields');
const { ApiError, phpError, newId, formatDateTime, zonedToUtc } = require('./util');
const { SANDBOX_USERS } = require('./users');

/**
 * The records of the sandbox, in memory, with EspoCRM's write rules: field validation (fields.js), the checks of
 * linked records, the hooks that fill fields (activities' account, a task's completion date, auto-numbers) and
 * the change events that webhooks are made of.
 *
 * @typedef {Record<string, any>} RawRecord  stored attributes that were set (plus hidden `_` keys), nothing computed
 * @typedef {Record<string, any>} ValueMap   what goes out on the wire
 * @typedef {{ trusted?: boolean, silent?: boolean, userId?: string | null, phoneNumbersAsWritten?: boolean }} WriteOptions  trusted: direct store
 *   access / internal actions may set read-only attributes (createdAt, createdAccountId, ...) and skip required
 *   checks and the checks of linked records; silent: no change event (EspoCRM's SaveOption::SILENT); userId: the
 *   user making the change (createdById, modifiedById, followers); phoneNumbersAsWritten: EspoCRM 7's storage of
 *   phone numbers (versions.js)
 * @typedef {'full' | 'list' | 'create' | 'espoCreate'} OutputMode  full: a read (every attribute, nulls included);
 *   list: a list item of EspoCRM (no link-multiple, address-data or follower attributes); create: the attributes
 *   that were set (the create reply as server-behaviour.md has it, and what a create webhook carries); espoCreate:
 *   EspoCRM 8.1.5's create reply
 * @typedef {{ values: Record<string, unknown>, multiple: Record<string, string[]> }} Prepared
 * @typedef {{ action: 'create' | 'update' | 'delete', entityType: string, id: string, data: ValueMap,
 *   record: ValueMap }} ChangeEvent  data: what a webhook of the action carries; record: the record after it
 */

/** @param {unknown} v */
const isEmpty = (v) =>
	v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
/** @param {unknown} v */
const clone = (v) => (v && typeof v === 'object' ? JSON.parse(JSON.stringify(v)) : v);
/**
 * Attributes EspoCRM's webhook manager leaves out of update events (Core/Webhook/Manager::$skipAttributeList), and
 * the sandbox's attributes that follow from others (not changes of their own).
 */
const NOT_A_CHANGE = new Set([
	'modifiedAt',
	'versionNumber',
	'isFollowed',
	'modifiedById',
	'modifiedByName',
	'followersIds',
	'followersNames',
	'deleted',
]);
/** Roles of attributes computed from others (see metadata.getAttributes). */
const DERIVED_ROLES = new Set(['optOut', 'invalid', 'converted']);

class Store {
	constructor() {
		/** @type {Map<string, Map<string, RawRecord>>} */
		this.records = new Map();
		/** many-to-many index: `${relationName}|${type}:${id}` → Set of `${type}:${id}`, kept in both directions */
		/** @type {Map<string, Set<string>>} */
		this.relations = new Map();
		/** @type {Map<string, Buffer>} attachment contents by attachment id */
		this.files = new Map();
		/** @type {Map<string, number>} next values of number and autoincrement fields, by `${type}.${field}` */
		this.counters = new Map();
		/**
		 * Deleted records as they were, by `${type}:${id}`: EspoCRM only marks records deleted, and an admin still
		 * reads them (Record\Service::getEntity → getEntityEvenDeleted), with `deleted: true`.
		 * @type {Map<string, ValueMap>}
		 */
		this.deletedRecords = new Map();
		/** @type {Array<{ fn: (e: ChangeEvent) => void, wants: (entityType: string) => boolean }>} */
		this.listeners = [];
		/** EspoCRM 7 stores phone numbers as written (set by the sandbox's server version: versions.js). */
		this.phoneNumbersAsWritten = false;
		for (const type of Object.keys(ENTITY_DEFS)) this.records.set(type, new Map());
		this.addSandboxUsers();
	}

	/** Clears every record, relation, file and counter; the sandbox's users are created again. */
	reset() {
		for (const map of this.records.values()) map.clear();
		this.relations.clear();
		this.files.clear();
		this.counters.clear();
		this.deletedRecords.clear();
		this.addSandboxUsers();
	}

	addSandboxUsers() {
		for (const u of Object.values(SANDBOX_USERS)) {
			this.insert(
				'User',
				{
					id: u.id,
					userName: u.userName,
					firstName: u.firstName,
					lastName: u.lastName,
					type: u.type,
					createdAt: '2024-01-01 00:00:00',
				},
				{ trusted: true, silent: true },
			);
		}
	}

	/**
	 * Calls `listener` after every record change (API and direct). `wants` saves the work of building events
	 * nobody listens to (the webhooks only want types that have webhooks).
	 * @param {(e: ChangeEvent) => void} listener @param {(entityType: string) => boolean} [wants]
	 */
	onChange(listener, wants = () => true) {
		const entry = { fn: listener, wants };
		this.listeners.push(entry);
		return () => {
			this.listeners = this.listeners.filter((l) => l !== entry);
		};
	}

	/** @param {string} entityType */
	wanted(entityType) {
		return this.listeners.some((l) => l.wants(entityType));
	}

	/** @param {ChangeEvent} event */
	emit(event) {
		for (const l of this.listeners) if (l.wants(event.entityType)) l.fn(event);
	}

	/** @param {string} entityType */
	table(entityType) {
		const t = this.records.get(entityType);
		if (!t) throw new Error(`Unknown entity type ${entityType}`);
		return t;
	}

	// ---------------------------------------------------------------- direct access (tests, seed)

	/**
	 * Creates a record without request, duplicate check, required-field check or check of linked records.
	 * Accepts read-only attributes such as createdAt and modifiedAt (to place records in the past) and an `id`.
	 * Webhooks see the change. Phone numbers are stored as the server version stores them (phoneNumbersAsWritten).
	 * @param {string} entityType @param {Record<string, unknown>} fields @returns {ValueMap}
	 */
	create(entityType, fields) {
		const raw = this.insert(entityType, fields, {
			trusted: true,
			phoneNumbersAsWritten: this.phoneNumbersAsWritten,
		});
		return this.output(entityType, raw, 'full');
	}

	/** @param {string} entityType @param {string} id @returns {ValueMap | undefined} */
	get(entityType, id) {
		const raw = this.table(entityType).get(id);
		return raw && this.output(entityType, raw, 'full');
	}

	/** @param {string} entityType @returns {ValueMap[]} in creation order */
	list(entityType) {
		return [...this.table(entityType).values()].map((r) => this.output(entityType, r, 'full'));
	}

	/** @param {string} entityType */
	count(entityType) {
		return this.table(entityType).size;
	}

	/** @param {string} entityType @param {string} id @param {Record<string, unknown>} fields */
	update(entityType, id, fields) {
		const raw = this.table(entityType).get(id);
		if (!raw) throw new ApiError(404, `Record ${id} not found.`);
		this.applyUpdate(entityType, raw, fields, { trusted: true });
		return this.output(entityType, raw, 'full');
	}

	/** @param {string} entityType @param {string} id */
	delete(entityType, id) {
		return this.remove(entityType, id);
	}

	/** @param {string} entityType @param {string} id @param {string} link @param {string} foreignId */
	link(entityType, id, link, foreignId) {
		this.linkIds(entityType, id, link, foreignId);
		return true;
	}

	/** @param {string} entityType @param {string} id @param {string} link @param {string} foreignId */
	unlink(entityType, id, link, foreignId) {
		this.unlinkIds(entityType, id, link, foreignId);
		return true;
	}

	/** @param {string} entityType @param {string} id @param {string} link @returns {ValueMap[]} */
	related(entityType, id, link) {
		const ld = this.requireLink(entityType, link);
		const foreignType = /** @type {string} */ (ld.entity);
		return this.relatedIds(entityType, id, link)
			.map((fid) => this.table(foreignType).get(fid))
			.filter(Boolean)
			.map((r) => this.output(foreignType, /** @type {RawRecord} */ (r), 'full'));
	}

	// ---------------------------------------------------------------- writes

	/**
	 * The values of a new record: the request read as EspoCRM's ORM reads it, the defaults of a new entity, the
	 * default currency (Record\Service::populateDefaults), then field validation (untrusted only).
	 * @param {string} entityType @param {Record<string, unknown>} data @param {WriteOptions} opts @returns {Prepared}
	 */
	prepareCreate(entityType, data, opts) {
		const { values, multiple } = readInput(entityType, data, opts);
		const def = ENTITY_DEFS[entityType];
		for (const [field, fd] of Object.entries(def.fields)) {
			const jsDefault = typeof fd.default === 'string' && fd.default.startsWith('javascript:');
			if (fd.default !== undefined && !jsDefault && !fd.notStorable && !(field in values))
				values[field] = clone(fd.default);
			// A bool attribute defaults to false (Core/Utils/Database/Orm/Converter: BOOL `default ??= false`).
			else if (
				fd.type === 'bool' &&
				!fd.notStorable &&
				fd.default === undefined &&
				!(field in values)
			)
				values[field] = false;
			// `if ($entity->get($field) && !$entity->get($field . 'Currency'))`: an amount of 0 gets no currency.
			if (fd.type === 'currency' && values[field] && !values[`${field}Currency`])
				values[`${field}Currency`] = APP_CONFIG.defaultCurrency;
		}
		if (!opts.trusted) validateFields(entityType, { ...values }, data || {}, true);
		return { values, multiple };
	}

	/**
	 * Field validation of an update, on the record as it would be saved; only the fields sent are checked.
	 * @param {string} entityType @param {RawRecord} raw @param {Record<string, unknown>} data @param {WriteOptions} opts
	 * @returns {Prepared}
	 */
	prepareUpdate(entityType, raw, data, opts) {
		const prepared = readInput(entityType, data, opts);
		if (!opts.trusted) {
			const entity = { ...this.output(entityType, raw, 'full'), ...prepared.values };
			validateFields(entityType, entity, data || {}, false);
			this.checkLinks(entityType, prepared, raw);
		}
		return prepared;
	}

	/**
	 * The linked records a write names must exist (Core/Record/Access/LinkCheck): link, linkOne, file, image and
	 * linkParent ids, and the new ids of linkMultiple and attachmentMultiple fields. Else 403, with a JSON body.
	 * @param {string} entityType @param {Prepared} prepared @param {RawRecord | null} raw the record before an update
	 */
	checkLinks(entityType, prepared, raw) {
		const { values, multiple } = prepared;
		for (const [name, ld] of Object.entries(ENTITY_DEFS[entityType].links)) {
			if (['belongsTo', 'belongsToParent', 'hasOne'].includes(ld.type)) {
				const id = values[`${name}Id`];
				if (
					id === undefined ||
					id === null ||
					(raw && raw[`${name}Id`] === id) ||
					(ld.type === 'hasOne' && raw && this.hasOneId(entityType, raw, name) === id)
				)
					continue;
				const foreignType =
					ld.type === 'belongsToParent'
						? (values[`${name}Type`] ?? raw?.[`${name}Type`])
						: ld.entity;
				if (!foreignType) continue;
				this.requireExisting(entityType, name, String(foreignType), String(id));
			} else if (multiple[name]) {
				const old = raw ? this.relatedIds(entityType, raw.id, name) : [];
				for (const id of multiple[name])
					if (!old.includes(id))
						this.requireExisting(entityType, name, /** @type {string} */ (ld.entity), id);
			}
		}
	}

	/** @param {string} entityType @param {string} link @param {string} foreignType @param {string} id */
	requireExisting(entityType, link, foreignType, id) {
		if (isEntityType(foreignType) && this.table(foreignType).has(id)) return;
		throw new ApiError(
			403,
			`Can't relate with non-existing record. entity type: ${entityType}, link: ${link}.`,
			{
				messageTranslation: {
					label: 'cannotRelateNonExisting',
					scope: null,
					data: { foreignEntityType: foreignType },
				},
			},
		);
	}

	/**
	 * @param {string} entityType @param {Record<string, unknown>} data @param {WriteOptions} [opts]
	 * @param {Prepared} [prepared]
	 */
	insert(entityType, data, opts = {}, prepared = undefined) {
		const { values, multiple } = prepared || this.prepareCreate(entityType, data, opts);
		const now = formatDateTime();
		const id = opts.trusted && typeof data.id === 'string' && data.id ? data.id : newId();
		/** @type {RawRecord} */
		const raw = { id };
		this.assignValues(entityType, raw, values);
		raw.createdAt = values.createdAt || now;
		raw.modifiedAt = values.modifiedAt || raw.createdAt;
		if (getAttributes(entityType).has('createdById') && !raw.createdById)
			raw.createdById = opts.userId ?? null;
		if (ENTITY_DEFS[entityType].optimisticConcurrencyControl) raw.versionNumber = 1;
		this.applyHooks(entityType, raw, null, opts);
		this.assignNumbers(entityType, raw, values, opts);
		this.table(entityType).set(id, raw);
		this.writeMultiple(entityType, raw, multiple);
		this.writeHasOne(entityType, raw, values, null);
		const hooked = this.afterSaveHooks(entityType, raw);
		this.follow(entityType, raw, null);
		// Remember what the client set, for the create reply (unset attributes stay absent there), and the values of
		// not-stored fields the create reply shows (a Meeting's duration: the default, whatever the dates).
		Object.defineProperty(raw, '_setKeys', {
			value: new Set([
				...Object.keys(raw),
				...Object.keys(values).filter((k) => k.endsWith('Id')),
				...[...Object.keys(multiple), ...hooked].flatMap((f) => [`${f}Ids`, `${f}Names`]),
			]),
			enumerable: false,
			writable: true,
		});
		Object.defineProperty(raw, '_createValues', {
			value: this.notStoredCreateValues(entityType, data),
			enumerable: false,
			writable: true,
		});
		if (!opts.silent && this.wanted(entityType)) {
			const reply = this.output(entityType, raw, 'create');
			this.emit({
				action: 'create',
				entityType,
				id,
				data: reply,
				record: this.output(entityType, raw, 'full'),
			});
		}
		return raw;
	}

	/** @param {string} entityType @param {Record<string, unknown>} data */
	notStoredCreateValues(entityType, data) {
		/** @type {Record<string, unknown>} */
		const out = {};
		for (const [field, fd] of Object.entries(ENTITY_DEFS[entityType].fields)) {
			if (fd.type !== 'duration') continue;
			const given = data?.[field];
			out[field] =
				given !== undefined && given !== null
					? Math.trunc(Number(given)) || 0
					: (fd.default ?? null);
		}
		return out;
	}

	/**
	 * Copies written values into a stored record: e-mail and phone lists kept aside, a new primary address
	 * replacing the old primary one.
	 * @param {string} entityType @param {RawRecord} raw @param {Record<string, unknown>} values
	 */
	assignValues(entityType, raw, values) {
		const attrs = getAttributes(entityType);
		for (const [k, v] of Object.entries(values)) {
			const a = attrs.get(k);
			if (!a || a.role === 'ids' || a.fieldType === 'linkOne') continue;
			if (a.role === 'data') {
				raw[`_${k}`] = v;
				continue;
			}
			if (
				(a.fieldType === 'email' || a.fieldType === 'phone') &&
				a.name === a.field &&
				!(`${k}Data` in values)
			) {
				const key = `_${k}Data`;
				const others = (raw[key] || []).filter((/** @type {any} */ e) => !e.primary && e[k] !== v);
				raw[key] = v ? [{ [k]: v, primary: true }, ...others] : others;
			}
			raw[k] = clone(v);
		}
	}

	/**
	 * number fields get `<prefix><padded counter>` and autoincrement fields the next integer on create; on update
	 * both keep their value (the NextNumber processor restores it). Direct store access may set them.
	 * @param {string} entityType @param {RawRecord} raw @param {Record<string, unknown>} values @param {WriteOptions} opts
	 */
	assignNumbers(entityType, raw, values, opts) {
		for (const [field, fd] of Object.entries(ENTITY_DEFS[entityType].fields)) {
			if (fd.type !== 'number' && fd.type !== 'autoincrement') continue;
			if (opts.trusted && values[field] !== undefined && values[field] !== null) continue;
			const key = `${entityType}.${field}`;
			const n = this.counters.get(key) ?? (fd.type === 'number' ? (fd.nextNumber ?? 1) : 1);
			this.counters.set(key, n + 1);
			raw[field] =
				fd.type === 'number'
					? `${fd.prefix || ''}${String(n).padStart(fd.padLength || 0, '0')}`
					: n;
		}
	}

	/**
	 * What EspoCRM's repositories and beforeSave hooks do to Meeting, Call and Task.
	 * @param {string} entityType @param {RawRecord} raw the record being saved @param {RawRecord | null} fetched
	 *   the record before an update @param {WriteOptions} opts
	 */
	applyHooks(entityType, raw, fetched, opts) {
		const def = ENTITY_DEFS[entityType];
		if (!def.event) return;
		// Core/Repositories/Event::beforeSave: a date part makes the record all-day, its time the midnight of the
		// system time zone; the end day is exclusive (the end is the midnight after it).
		for (const field of ['dateStart', 'dateEnd']) {
			const dateAttr = `${field}Date`;
			if (!getAttributes(entityType).has(dateAttr) || !(dateAttr in raw)) continue;
			const day = raw[dateAttr];
			if (!day) {
				raw[dateAttr] = null;
				continue;
			}
			const midnight = zonedToUtc(`${day} 00:00:00`, APP_CONFIG.timeZone);
			raw[field] = formatDateTime(field === 'dateEnd' ? midnight + 86_400_000 : midnight);
		}
		const parentChanged =
			!fetched || fetched.parentId !== raw.parentId || fetched.parentType !== raw.parentType;
		if (fetched && fetched.parentId !== raw.parentId) {
			raw.accountId = null;
			if (entityType === 'Task') raw.contactId = null;
		}
		if (parentChanged && raw.parentId && raw.parentType) this.linkActivityParent(entityType, raw);
		// Hooks/Task/DateCompleted: set when the status becomes Completed, cleared when it changes to another one.
		if (
			entityType === 'Task' &&
			(!fetched || fetched.status !== raw.status) &&
			!(opts.trusted && raw.dateCompleted && !fetched)
		) {
			raw.dateCompleted = raw.status === 'Completed' ? formatDateTime() : null;
		}
	}

	/**
	 * Hooks/{Meeting,Call,Task}/ParentLink: the activity's account (and a task's contact) from its parent.
	 * @param {string} entityType @param {RawRecord} raw
	 */
	linkActivityParent(entityType, raw) {
		const type = raw.parentType;
		const parent = isEntityType(type) ? this.table(type).get(raw.parentId) : undefined;
		if (!parent) return;
		let accountId = null;
		let contactId = null;
		if (type === 'Account') accountId = parent.id;
		else if (type === 'Lead' && parent.status === 'Converted') {
			accountId = parent.createdAccountId || null;
			if (entityType === 'Task') contactId = parent.createdContactId || null;
		} else if (type === 'Contact' && entityType === 'Task') contactId = parent.id;
		if (!accountId && parent.accountId && getLink(type, 'account')?.entity === 'Account')
			accountId = parent.accountId;
		if (accountId) raw.accountId = accountId;
		if (entityType === 'Task' && contactId) raw.contactId = contactId;
	}

	/**
	 * Hooks/{Meeting,Call}/Users: the assigned user attends; Hooks/Contact/Accounts: the title kept only with an Account.
	 * @param {string} entityType @param {RawRecord} raw @returns {string[]} the link-multiple fields it changed
	 */
	afterSaveHooks(entityType, raw) {
		// Hooks/Contact/Accounts: a Contact's title is not stored on the Contact but as its role on the primary Account
		// (notStorable, read through accountContactPrimary.role), so EspoCRM drops a title written without an Account.
		if (
			entityType === 'Contact' &&
			raw.title != null &&
			!(raw.accountId && this.table('Account').has(raw.accountId))
		)
			raw.title = null;
		if (
			(entityType === 'Meeting' || entityType === 'Call') &&
			raw.assignedUserId &&
			this.table('User').has(raw.assignedUserId)
		) {
			this.linkIds(entityType, raw.id, 'users', raw.assignedUserId);
			return ['users'];
		}
		return [];
	}

	/** @param {string} entityType @param {RawRecord} raw @param {Record<string, string[]>} multiple */
	writeMultiple(entityType, raw, multiple) {
		for (const [field, ids] of Object.entries(multiple)) {
			for (const old of this.relatedIds(entityType, raw.id, field))
				if (!ids.includes(old)) this.unlinkIds(entityType, raw.id, field, old);
			for (const fid of ids)
				if (this.table(/** @type {string} */ (getLink(entityType, field)?.entity)).has(fid))
					this.linkIds(entityType, raw.id, field, fid);
		}
	}

	/**
	 * linkOne fields (hasOne): `<field>Id` is stored on the other record, as its `<foreign>Id`
	 * (Core/FieldProcessing/Relation/Saver::processHasOneItem).
	 * @param {string} entityType @param {RawRecord} raw @param {Record<string, unknown>} values @param {RawRecord | null} fetched
	 */
	writeHasOne(entityType, raw, values, fetched) {
		for (const [field, fd] of Object.entries(ENTITY_DEFS[entityType].fields)) {
			if (fd.type !== 'linkOne' || !(`${field}Id` in values)) continue;
			const id = values[`${field}Id`];
			if (fetched && this.hasOneId(entityType, raw, field) === id) continue;
			const ld = /** @type {import('./metadata').LinkDef} */ (getLink(entityType, field));
			const key = `${ld.foreign}Id`;
			for (const other of this.table(/** @type {string} */ (ld.entity)).values())
				if (other[key] === raw.id) other[key] = null;
			const target = id ? this.table(/** @type {string} */ (ld.entity)).get(String(id)) : undefined;
			if (target) target[key] = raw.id;
		}
		// The belongsTo side of a one-to-one: a record that pointed to the same one lets go of it.
		for (const [name, ld] of Object.entries(ENTITY_DEFS[entityType].links)) {
			if (
				ld.type !== 'belongsTo' ||
				!ld.foreign ||
				getLink(/** @type {string} */ (ld.entity), ld.foreign)?.type !== 'hasOne'
			)
				continue;
			const id = raw[`${name}Id`];
			if (!id || (fetched && fetched[`${name}Id`] === id)) continue;
			for (const other of this.table(entityType).values())
				if (other.id !== raw.id && other[`${name}Id`] === id) other[`${name}Id`] = null;
		}
	}

	/** @param {string} entityType @param {RawRecord} raw @param {string} field */
	hasOneId(entityType, raw, field) {
		const ld = getLink(entityType, field);
		if (!ld || !ld.entity) return null;
		for (const other of this.table(ld.entity).values())
			if (other[`${ld.foreign}Id`] === raw.id) return other.id;
		return null;
	}

	/**
	 * Updates a stored record. modifiedAt moves only when something changed (Core/Repositories/Database); the
	 * version number on every save. Emits the webhook event with the changed attributes.
	 * @param {string} entityType @param {RawRecord} raw @param {Record<string, unknown>} data @param {WriteOptions} [opts]
	 * @param {Prepared} [prepared]
	 */
	applyUpdate(entityType, raw, data, opts = {}, prepared = undefined) {
		const { values, multiple } = prepared || this.prepareUpdate(entityType, raw, data, opts);
		const def = ENTITY_DEFS[entityType];
		for (const [field, fd] of Object.entries(def.fields)) {
			if (
				fd.type === 'currency' &&
				values[field] &&
				!values[`${field}Currency`] &&
				!raw[`${field}Currency`]
			)
				values[`${field}Currency`] = APP_CONFIG.defaultCurrency;
		}
		const before = this.output(entityType, raw, 'full');
		const fetched = { ...raw };
		const { modifiedAt, ...rest } = values;
		this.assignValues(entityType, raw, rest);
		this.applyHooks(entityType, raw, fetched, opts);
		this.writeMultiple(entityType, raw, multiple);
		this.writeHasOne(entityType, raw, values, fetched);
		this.afterSaveHooks(entityType, raw);
		const after = this.output(entityType, raw, 'full');
		/** @type {ValueMap} */
		const changed = {};
		const attrs = getAttributes(entityType);
		for (const [k, v] of Object.entries(after)) {
			const a = attrs.get(k);
			const derived = a && (DERIVED_ROLES.has(a.role || '') || (a.def.hidden && a.readOnly));
			if (!NOT_A_CHANGE.has(k) && !derived && JSON.stringify(v) !== JSON.stringify(before[k]))
				changed[k] = v;
		}
		const hasChanges = Object.keys(changed).length > 0;
		if (opts.trusted && modifiedAt) raw.modifiedAt = modifiedAt;
		else if (hasChanges) raw.modifiedAt = formatDateTime();
		if (hasChanges && opts.userId && getAttributes(entityType).has('modifiedById'))
			raw.modifiedById = opts.userId;
		this.follow(entityType, raw, fetched);
		if (ENTITY_DEFS[entityType].optimisticConcurrencyControl)
			raw.versionNumber = (raw.versionNumber || 0) + 1;
		if (hasChanges && !opts.silent && this.wanted(entityType)) {
			this.emit({
				action: 'update',
				entityType,
				id: raw.id,
				data: { ...changed, id: raw.id },
				record: this.output(entityType, raw, 'full'),
			});
		}
		return raw;
	}

	/** @param {string} entityType @param {string} id @param {WriteOptions} [opts] */
	remove(entityType, id, opts = {}) {
		const raw = this.table(entityType).get(id);
		if (!raw) return false;
		const record = this.wanted(entityType) ? this.output(entityType, raw, 'full') : {};
		this.deletedRecords.set(`${entityType}:${id}`, {
			...this.output(entityType, raw, 'full'),
			deleted: true,
		});
		for (const [link, ld] of Object.entries(ENTITY_DEFS[entityType].links)) {
			if (!ld.relationName || ld.type === 'hasChildren') continue;
			for (const fid of this.relatedIds(entityType, id, link))
				this.unlinkIds(entityType, id, link, fid);
		}
		this.table(entityType).delete(id);
		if (entityType === 'Attachment') this.files.delete(id);
		if (!opts.silent && this.wanted(entityType))
			this.emit({ action: 'delete', entityType, id, data: { id }, record });
		return true;
	}

	// ---------------------------------------------------------------- relationships

	/** @param {string} entityType @param {string} link */
	requireLink(entityType, link) {
		const ld = getLink(entityType, link);
		// EspoCRM 8.1.5 answers an unknown link with a 500, an empty body and no X-Status-Reason (a PHP error).
		if (!ld || !ld.entity) throw phpError(500);
		return ld;
	}

	/** @param {string} rel @param {string} type @param {string} id */
	relKey(rel, type, id) {
		return `${rel}|${type}:${id}`;
	}

	/**
	 * @param {import('./metadata').LinkDef} ld @returns {boolean} whether the link is kept in the relation index
	 *   (many-to-many); hasChildren links named 'attachments' are not: they are attachments with a parent.
	 */
	isManyMany(ld) {
		return Boolean(ld.relationName) && ld.type === 'hasMany';
	}

	/** @param {string} entityType @param {string} id @param {string} link @returns {string[]} */
	relatedIds(entityType, id, link) {
		const ld = this.requireLink(entityType, link);
		const foreignType = /** @type {string} */ (ld.entity);
		const raw = this.table(entityType).get(id);
		if (!raw) return [];
		if (ld.type === 'belongsTo') {
			const fid = raw[`${link}Id`];
			return fid && this.table(foreignType).has(fid) ? [fid] : [];
		}
		if (this.isManyMany(ld)) {
			const set = this.relations.get(
				this.relKey(/** @type {string} */ (ld.relationName), entityType, id),
			);
			if (!set) return [];
			const prefix = `${foreignType}:`;
			return [...set]
				.filter((k) => k.startsWith(prefix))
				.map((k) => k.slice(prefix.length))
				.filter((fid) => this.table(foreignType).has(fid));
		}
		const foreign = /** @type {string} */ (ld.foreign);
		// Attachments of an attachmentMultiple field: those whose `field` is empty or the field's name
		// (Core/Utils/Database/Orm/LinkConverters/Attachments).
		const fieldMatches = (/** @type {RawRecord} */ r) =>
			ld.relationName !== 'attachments' || !r.field || r.field === link;
		/** @type {string[]} */
		const out = [];
		for (const r of this.table(foreignType).values()) {
			const own =
				ld.type === 'hasChildren'
					? r[`${foreign}Type`] === entityType && r[`${foreign}Id`] === id
					: r[`${foreign}Id`] === id;
			if (own && fieldMatches(r)) out.push(r.id);
		}
		return out;
	}

	/** @param {string} entityType @param {string} id @param {string} link @param {string} foreignId */
	linkIds(entityType, id, link, foreignId) {
		const ld = this.requireLink(entityType, link);
		const foreignType = /** @type {string} */ (ld.entity);
		const raw = this.table(entityType).get(id);
		if (!raw) throw new ApiError(404, `Record ${id} does not exist.`);
		const fraw = this.table(foreignType).get(foreignId);
		if (!fraw) throw new ApiError(404, `Record ${foreignId} does not exist.`);
		if (ld.type === 'belongsTo') raw[`${link}Id`] = foreignId;
		else if (this.isManyMany(ld)) {
			const rel = /** @type {string} */ (ld.relationName);
			const a = this.relKey(rel, entityType, id);
			const b = this.relKey(rel, foreignType, foreignId);
			if (!this.relations.has(a)) this.relations.set(a, new Set());
			if (!this.relations.has(b)) this.relations.set(b, new Set());
			/** @type {Set<string>} */ (this.relations.get(a)).add(`${foreignType}:${foreignId}`);
			/** @type {Set<string>} */ (this.relations.get(b)).add(`${entityType}:${id}`);
		} else if (ld.type === 'hasChildren') {
			fraw[`${ld.foreign}Type`] = entityType;
			fraw[`${ld.foreign}Id`] = id;
		} else {
			if (ld.type === 'hasOne')
				for (const other of this.table(foreignType).values())
					if (other[`${ld.foreign}Id`] === id) other[`${ld.foreign}Id`] = null;
			fraw[`${ld.foreign}Id`] = id;
		}
	}

	/** @param {string} entityType @param {string} id @param {string} link @param {string} foreignId */
	unlinkIds(entityType, id, link, foreignId) {
		const ld = this.requireLink(entityType, link);
		const foreignType = /** @type {string} */ (ld.entity);
		const raw = this.table(entityType).get(id);
		if (!raw) throw new ApiError(404, `Record ${id} does not exist.`);
		const fraw = this.table(foreignType).get(foreignId);
		if (ld.type === 'belongsTo') {
			if (raw[`${link}Id`] === foreignId) raw[`${link}Id`] = null;
		} else if (this.isManyMany(ld)) {
			const rel = /** @type {string} */ (ld.relationName);
			this.relations.get(this.relKey(rel, entityType, id))?.delete(`${foreignType}:${foreignId}`);
			this.relations.get(this.relKey(rel, foreignType, foreignId))?.delete(`${entityType}:${id}`);
		} else if (fraw && ld.type === 'hasChildren') {
			if (fraw[`${ld.foreign}Type`] === entityType && fraw[`${ld.foreign}Id`] === id) {
				fraw[`${ld.foreign}Type`] = null;
				fraw[`${ld.foreign}Id`] = null;
			}
		} else if (fraw && fraw[`${ld.foreign}Id`] === id) fraw[`${ld.foreign}Id`] = null;
	}

	// ---------------------------------------------------------------- reads

	/** @param {string | null | undefined} entityType @param {string | null | undefined} id */
	nameOf(entityType, id) {
		if (!entityType || !id || !isEntityType(entityType)) return null;
		const raw = this.table(entityType).get(id);
		if (!raw) return null;
		if (ENTITY_DEFS[entityType].fields.name?.type === 'personName') return personName(raw);
		return raw.name ?? null;
	}

	/**
	 * The followers of a stream record (Hooks/Common/Stream → Tools/Stream/HookProcessor): the assigned user follows
	 * a record assigned to them, on create and when the assignment changes. (The creator would follow too if their
	 * preferences said so; API users have none.)
	 * @param {string} entityType @param {RawRecord} raw @param {RawRecord | null} fetched
	 */
	follow(entityType, raw, fetched) {
		if (!ENTITY_DEFS[entityType].stream) return;
		const followers = /** @type {string[]} */ (raw._followers || []);
		const assigned = raw.assignedUserId;
		if (
			assigned &&
			(!fetched || fetched.assignedUserId !== assigned) &&
			!followers.includes(assigned) &&
			this.table('User').has(assigned)
		) {
			followers.push(assigned);
		}
		Object.defineProperty(raw, '_followers', {
			value: followers,
			enumerable: false,
			writable: true,
			configurable: true,
		});
	}

	/**
	 * A deleted record as an admin reads it (`deleted: true`), or undefined.
	 * @param {string} entityType @param {string} id
	 */
	deletedRecord(entityType, id) {
		const r = this.deletedRecords.get(`${entityType}:${id}`);
		return r && clone(r);
	}

	/**
	 * The wire form of a record.
	 *   'full': every attribute, nulls included (a read; also the standard dialect's list items).
	 *   'list': a list item of EspoCRM (Core/FieldProcessing/ListLoadProcessor): the read without the link-multiple
	 *     attributes (unless the select asks for them: LinkMultiple\ListLoader), emailAddressData/phoneNumberData and
	 *     followers (the read loaders of app/fieldProcessing.json do not run for lists); a linkParent's name always.
	 *     With `only` (a select), only those attributes.
	 *   'create': what was set, plus id, timestamps and the computed names (server-behaviour.md's create reply; what a
	 *     create webhook carries).
	 *   'espoCreate': EspoCRM 8.1.5's create reply (Record\Service::create: the entity after save, then the read
	 *     loaders): what was set, the defaults of every bool (not-stored ones included), deleted, createdById, the
	 *     link-multiple and address-data attributes, a linkParent's name, followers; a link's name only for the
	 *     assigned user of a stream type (the stream hook loads it); no nulls of unset attributes.
	 * @param {string} entityType @param {RawRecord} raw @param {OutputMode} mode @param {Set<string>} [only]
	 * @param {string | null} [viewerId] the user reading (isFollowed)
	 * @returns {ValueMap}
	 */
	output(entityType, raw, mode, only, viewerId = null) {
		const attrs = getAttributes(entityType);
		const def = ENTITY_DEFS[entityType];
		const creating = mode === 'create' || mode === 'espoCreate';
		/** @type {Set<string> | undefined} */
		const setKeys = creating ? raw._setKeys : undefined;
		/** @type {Record<string, unknown>} */
		const createValues = (creating && raw._createValues) || {};
		/** @type {ValueMap} */
		const out = {};
		for (const [name, a] of attrs) {
			if (only && !only.has(name) && !(mode === 'list' && this.listLoaded(a, only))) continue;
			if (a.def.noLoad && !only) continue;
			if (a.def.createOnly) {
				if (mode === 'espoCreate') out[name] = false;
				continue;
			}
			if (mode === 'list' && !only && LIST_SKIPPED_ROLES.has(a.role || '')) continue;
			if (name in createValues) {
				out[name] = createValues[name];
				continue;
			}
			const fd = a.def;
			if (
				mode === 'create' &&
				setKeys &&
				!['id', 'createdAt', 'modifiedAt', 'versionNumber'].includes(name)
			) {
				const computedShown =
					(fd.type === 'personName' && (raw.firstName || raw.lastName)) ||
					(a.role === 'name' && raw[`${a.field}Id`] && !fd.hidden) ||
					(a.role === 'types' && setKeys.has(`${a.field}Ids`)) ||
					(fd.aliasOf && raw[fd.aliasOf] !== undefined) ||
					(name === 'hasAttachment' && entityType === 'Email');
				if (!setKeys.has(name) && !computedShown) continue;
			}
			if (
				mode === 'espoCreate' &&
				setKeys &&
				!this.espoCreateShows(entityType, raw, name, a, setKeys)
			)
				continue;
			let v = this.attributeValue(entityType, raw, name, a, viewerId);
			if (
				mode === 'espoCreate' &&
				v === null &&
				(a.kind === 'bool' || a.role === 'optOut' || a.role === 'invalid')
			)
				v = false;
			out[name] = v;
		}
		// Person entities compose `name` from the parts that were loaded (Core/Entities/Person::_setFirstName).
		if (
			only &&
			mode === 'list' &&
			def.fields.name?.type === 'personName' &&
			!only.has('name') &&
			['firstName', 'lastName', 'middleName'].some((p) => only.has(p))
		) {
			const s = [
				only.has('firstName') ? raw.firstName : null,
				only.has('middleName') ? raw.middleName : null,
				only.has('lastName') ? raw.lastName : null,
			]
				.filter((x) => x)
				.join(' ');
			out.name = s === '' ? null : s;
		}
		return out;
	}

	/**
	 * Attributes a list loader adds to a selected list item: a linkParent's name (LinkParent\Loader) and the
	 * link-multiple attributes when their ids or names are selected (LinkMultiple\ListLoader).
	 * @param {import('./metadata').AttributeDef} a @param {Set<string>} only
	 */
	listLoaded(a, only) {
		if (a.fieldType === 'linkParent' && a.role === 'name') return true;
		if (['ids', 'names', 'columns', 'types'].includes(a.role || '') && !a.def.notStorable) {
			return only.has(`${a.field}Ids`) || only.has(`${a.field}Names`);
		}
		return false;
	}

	/**
	 * Whether EspoCRM's create reply has the attribute (see output()).
	 * @param {string} entityType @param {RawRecord} raw @param {string} name @param {import('./metadata').AttributeDef} a
	 * @param {Set<string>} setKeys
	 */
	espoCreateShows(entityType, raw, name, a, setKeys) {
		const fd = a.def;
		if (['id', 'deleted', 'createdAt', 'modifiedAt', 'versionNumber'].includes(name)) return true;
		if (name === 'createdById') return Boolean(raw.createdById);
		if (
			a.kind === 'bool' ||
			[
				'optOut',
				'invalid',
				'data',
				'ids',
				'names',
				'columns',
				'types',
				'isFollowed',
				'followersIds',
				'followersNames',
			].includes(a.role || '')
		)
			return true;
		if (fd.type === 'personName') return Boolean(raw.firstName || raw.lastName);
		if (a.fieldType === 'linkParent' && a.role === 'name') return true;
		if (a.role === 'name')
			return (
				name === 'assignedUserName' && Boolean(ENTITY_DEFS[entityType].stream && raw.assignedUserId)
			);
		if (fd.aliasOf) return raw[fd.aliasOf] !== undefined;
		if (fd.computed && (a.kind === 'json' || a.kind === 'object')) return true;
		return setKeys.has(name);
	}

	/**
	 * @param {string} entityType @param {RawRecord} raw @param {string} name @param {import('./metadata').AttributeDef} a
	 * @param {string | null} [viewerId]
	 */
	attributeValue(entityType, raw, name, a, viewerId = null) {
		const fd = a.def;
		switch (a.role) {
			case 'deleted':
				return false;
			case 'isFollowed':
				return Boolean(viewerId && (raw._followers || []).includes(viewerId));
			case 'followersIds':
				return [...(raw._followers || [])];
			case 'followersNames':
				return Object.fromEntries(
					(raw._followers || []).map((/** @type {string} */ id) => [id, this.nameOf('User', id)]),
				);
			// Amounts in the default currency (rates of 1: the sandbox converts nothing).
			case 'converted':
				return raw[a.field] ?? null;
			case 'optOut':
			case 'invalid': {
				const items = /** @type {any[]} */ (
					this.attributeValue(
						entityType,
						raw,
						`${a.field}Data`,
						/** @type {any} */ (getAttributes(entityType).get(`${a.field}Data`)),
					)
				);
				const primary = items.find((e) => e.primary) || items[0];
				return primary ? Boolean(a.role === 'optOut' ? primary.optOut : primary.invalid) : null;
			}
			default:
		}
		if (fd.computed) return this.computedValue(entityType, raw, a);
		if (a.storable) {
			const v = raw[name];
			// List fields stored as JSON arrays read as [] when never written.
			if (v === undefined)
				return ['multiEnum', 'array', 'checklist', 'urlMultiple'].includes(fd.type) ? [] : null;
			return clone(v);
		}
		switch (fd.type) {
			case 'personName':
				return personName(raw);
			case 'link':
			case 'file':
			case 'image':
				return this.nameOf(fd.entity, raw[`${a.field}Id`]);
			case 'linkOne': {
				const id = this.hasOneId(entityType, raw, a.field);
				return a.role === 'id' ? id : this.nameOf(fd.entity, id);
			}
			case 'linkParent':
				return this.nameOf(raw[`${a.field}Type`], raw[`${a.field}Id`]);
			case 'linkMultiple':
			case 'attachmentMultiple':
				return this.linkMultipleValue(entityType, raw, a);
			case 'email':
			case 'phone': {
				const key = fd.type === 'email' ? 'emailAddress' : 'phoneNumber';
				const items =
					raw[`_${name}`] || (raw[a.field] ? [{ [key]: raw[a.field], primary: true }] : []);
				return items.map((/** @type {any} */ e) =>
					fd.type === 'email'
						? {
								emailAddress: e.emailAddress,
								lower: e.emailAddress.toLowerCase(),
								primary: e.primary,
								optOut: Boolean(e.optOut),
								invalid: Boolean(e.invalid),
							}
						: {
								phoneNumber: e.phoneNumber,
								primary: e.primary,
								type: e.type || 'Office',
								optOut: Boolean(e.optOut),
								invalid: Boolean(e.invalid),
							},
				);
			}
			case 'duration': {
				const start = fd.start && raw[fd.start];
				const end = fd.end && raw[fd.end];
				if (!start || !end) return null;
				return Math.round(
					(Date.parse(`${end.replace(' ', 'T')}Z`) - Date.parse(`${start.replace(' ', 'T')}Z`)) /
						1000,
				);
			}
			case 'foreign': {
				const ld = getLink(entityType, fd.link || '');
				const target = ld && ld.entity ? this.table(ld.entity).get(raw[`${fd.link}Id`]) : undefined;
				const def = foreignFieldDef(entityType, fd);
				if (!target || !def) return null;
				return clone(target[/** @type {string} */ (fd.field)] ?? null);
			}
			default:
				if (fd.aliasOf) return raw[fd.aliasOf] ?? null;
				if (name === 'hasAttachment')
					return this.relatedIds(entityType, raw.id, 'attachments').length > 0;
				return null;
		}
	}

	/**
	 * Not-stored values of EspoCRM's fields that the sandbox derives (FieldDef.computed).
	 * @param {string} entityType @param {RawRecord} raw @param {import('./metadata').AttributeDef} a
	 */
	computedValue(entityType, raw, a) {
		const accountId =
			raw.accountId && this.table('Account').has(raw.accountId) ? raw.accountId : null;
		switch (a.def.computed) {
			case 'false':
				return false;
			case 'emptyArray':
				return [];
			case 'emptyObject':
				return {};
			// The primary account relation's isInactive (Contact.accountIsInactive selects accountContactPrimary.isInactive).
			case 'accountIsInactive':
				return accountId ? false : null;
			// Contact.accounts: the account, with the contact's title as its role.
			case 'contactAccounts':
				if (a.role === 'ids') return accountId ? [accountId] : [];
				if (a.role === 'names')
					return accountId ? { [accountId]: this.nameOf('Account', accountId) } : {};
				return accountId ? { [accountId]: { role: raw.title ?? null, isInactive: false } } : {};
			default:
				return null;
		}
	}

	/** xIds, xNames, xTypes (attachments), xColumns (Meeting attendees). @param {string} entityType @param {RawRecord} raw @param {import('./metadata').AttributeDef} a */
	linkMultipleValue(entityType, raw, a) {
		const fd = a.def;
		const ids = this.relatedIds(entityType, raw.id, a.field);
		if (a.role === 'ids') return ids;
		/** @type {Record<string, unknown>} */
		const map = {};
		for (const id of ids) {
			if (a.role === 'types') map[id] = this.table('Attachment').get(id)?.type ?? null;
			else if (a.role === 'columns') map[id] = { status: 'None' };
			else map[id] = this.nameOf(fd.entity, id);
		}
		return map;
	}

	/**
	 * Existing records that look like the one to create (EspoCRM's duplicate check): Account by name or e-mail,
	 * Contact and Lead by first + last name or e-mail, case-insensitively as MySQL compares.
	 * @param {string} entityType @param {Record<string, unknown>} values @returns {RawRecord[]}
	 */
	findDuplicates(entityType, values) {
		const keys = ENTITY_DEFS[entityType].duplicateKeys;
		if (!keys) return [];
		const norm = (/** @type {unknown} */ v) => (v == null ? '' : String(v).trim().toLowerCase());
		/** @type {RawRecord[]} */
		const out = [];
		for (const r of this.table(entityType).values()) {
			const hit = keys.some((group) => {
				// The name group needs its last element (name / lastName) set; firstName may be empty on both sides.
				if (norm(values[group[group.length - 1]]) === '') return false;
				return group.every((k) => norm(values[k]) === norm(r[k]));
			});
			if (hit) out.push(r);
			if (out.length >= 5) break;
		}
		return out;
	}
}

/** What an EspoCRM list item leaves out (see Store#output). */
const LIST_SKIPPED_ROLES = new Set([
	'ids',
	'names',
	'columns',
	'types',
	'data',
	'isFollowed',
	'followersIds',
	'followersNames',
]);

/** @param {RawRecord} raw */
function personName(raw) {
	const s = [raw.firstName, raw.lastName].filter((x) => x).join(' ');
	return s === '' ? null : s;
}

module.exports = { Store, isEmpty };
