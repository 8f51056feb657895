// @ts-check
'use strict';

const { ENTITY_DEFS, getAttributes, getLink, isEntityType } = require('./metadata');
const {
  ApiError, validationError, newId, formatDateTime, parseDate, parseDateTime,
} = require('./util');

/**
 * @typedef {Record<string, any>} RawRecord  stored attributes that were set (plus hidden `_` keys), nothing computed
 * @typedef {Record<string, any>} ValueMap   what goes out on the wire
 * @typedef {{ trusted?: boolean }} WriteOptions  trusted: direct store access / internal actions may set
 *   read-only attributes (createdAt, createdAccountId, ...) and skip required checks
 */

const EMAIL_RE = /^[^\s@;,]+@[^\s@;,]+$/;

/** EspoCRM stores phone numbers without separators (`+1 555 0100` → `+15550100`). @param {string} v */
const normalisePhone = (v) => v.trim().replace(/[\s\-().]/g, '');

/** @param {unknown} v */
const isEmpty = (v) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

class Store {
  constructor() {
    /** @type {Map<string, Map<string, RawRecord>>} */
    this.records = new Map();
    /** many-to-many index: `${relationName}|${type}:${id}` → Set of `${type}:${id}`, kept in both directions */
    /** @type {Map<string, Set<string>>} */
    this.relations = new Map();
    /** @type {Map<string, Buffer>} attachment contents by attachment id */
    this.files = new Map();
    for (const type of Object.keys(ENTITY_DEFS)) this.records.set(type, new Map());
  }

  reset() {
    for (const map of this.records.values()) map.clear();
    this.relations.clear();
    this.files.clear();
  }

  /** @param {string} entityType */
  table(entityType) {
    const t = this.records.get(entityType);
    if (!t) throw new Error(`Unknown entity type ${entityType}`);
    return t;
  }

  // ---------------------------------------------------------------- direct access (tests, seed)

  /**
   * Creates a record without duplicate check and without a request. Accepts read-only attributes such as
   * createdAt (to place records in the past) and does not enforce required fields.
   * @param {string} entityType @param {Record<string, unknown>} fields @returns {ValueMap}
   */
  create(entityType, fields) {
    const raw = this.insert(entityType, fields, { trusted: true });
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
   * Validates and converts written values the way EspoCRM's field validators do. Unknown and (untrusted)
   * read-only attributes are dropped silently.
   * @param {string} entityType @param {Record<string, unknown>} data @param {boolean} isCreate
   * @param {WriteOptions} opts
   * @returns {{ values: Record<string, unknown>, multiple: Record<string, string[]> }}
   */
  normalise(entityType, data, isCreate, opts) {
    const attrs = getAttributes(entityType);
    const def = ENTITY_DEFS[entityType];
    /** @type {Record<string, unknown>} */
    const values = {};
    /** @type {Record<string, string[]>} */
    const multiple = {};
    const fail = (/** @type {string} */ field, /** @type {string} */ type) => validationError(entityType, field, type);

    for (const [key, input] of Object.entries(data || {})) {
      let name = key;
      const a0 = attrs.get(name);
      if (!a0) continue;
      if (a0.def.aliasOf) name = a0.def.aliasOf;
      const a = /** @type {import('./metadata').AttributeDef} */ (attrs.get(name));
      if (name === 'id' || name === 'versionNumber') continue;
      if (a.readOnly && !opts.trusted) continue;
      if (a.kind === 'object') continue;
      const field = a.field;
      const fd = a.def;
      if (input === null || input === undefined) {
        if (a.kind === 'array' && fd.type === 'linkMultiple') multiple[field] = [];
        else if (name.endsWith('Data') && (fd.type === 'email' || fd.type === 'phone')) continue;
        else values[name] = a.kind === 'array' ? [] : null;
        continue;
      }
      switch (a.kind) {
        case 'string': {
          if (typeof input === 'object') throw fail(field, 'valid');
          let v = String(input);
          if (fd.type === 'phone' && name === field) v = normalisePhone(v);
          if (fd.type === 'email' && name === field && v !== '' && !EMAIL_RE.test(v.trim())) throw fail(field, 'valid');
          if (fd.type === 'email') v = v.trim();
          if (fd.type === 'enum' && name === field && fd.options && !fd.options.includes(v) && v !== '') throw fail(field, 'valid');
          if (fd.maxLength && name === field && v.length > fd.maxLength) throw fail(field, 'maxLength');
          values[name] = v;
          break;
        }
        case 'int':
        case 'float': {
          if (input === '') { values[name] = null; break; }
          const n = typeof input === 'number' ? input : typeof input === 'string' && input.trim() !== '' ? Number(input) : NaN;
          if (!Number.isFinite(n) || (a.kind === 'int' && !Number.isInteger(n))) throw fail(field, 'valid');
          if (fd.min !== undefined && n < fd.min) throw fail(field, 'min');
          if (fd.max !== undefined && n > fd.max) throw fail(field, 'max');
          values[name] = n;
          break;
        }
        case 'bool':
          if (typeof input === 'boolean') values[name] = input;
          else if (input === 'true' || input === 1 || input === '1') values[name] = true;
          else if (input === 'false' || input === 0 || input === '0' || input === '') values[name] = false;
          else throw fail(field, 'valid');
          break;
        case 'date': {
          if (input === '') { values[name] = null; break; }
          const d = parseDate(input);
          if (!d) throw fail(field, 'valid');
          values[name] = d;
          break;
        }
        case 'datetime': {
          if (input === '') { values[name] = null; break; }
          const d = parseDateTime(input);
          if (!d) throw fail(field, 'valid');
          values[name] = d;
          break;
        }
        case 'id':
          if (typeof input !== 'string') throw fail(field, 'valid');
          values[name] = input === '' ? null : input;
          break;
        case 'array': {
          if (fd.type === 'email' || fd.type === 'phone') {
            // emailAddressData / phoneNumberData: the primary entry becomes the plain attribute.
            if (!Array.isArray(input)) throw fail(field, 'valid');
            const key2 = fd.type === 'email' ? 'emailAddress' : 'phoneNumber';
            const list = input.filter((e) => e && typeof e === 'object' && typeof e[key2] === 'string').map((e) => ({
              ...e, [key2]: fd.type === 'phone' ? normalisePhone(e[key2]) : e[key2].trim(), primary: Boolean(e.primary),
            }));
            if (fd.type === 'email' && list.some((e) => !EMAIL_RE.test(e.emailAddress))) throw fail(field, 'valid');
            if (list.length && !list.some((e) => e.primary)) list[0].primary = true;
            values[`_${name}`] = list;
            const primary = list.find((e) => e.primary);
            values[field] = primary ? primary[key2] : null;
            break;
          }
          if (!Array.isArray(input) || input.some((x) => typeof x !== 'string')) throw fail(field, 'valid');
          if (fd.type === 'linkMultiple') { multiple[field] = [...new Set(input)]; break; }
          if (fd.options && input.some((x) => !(/** @type {string[]} */ (fd.options)).includes(x))) throw fail(field, 'valid');
          values[name] = [...input];
          break;
        }
        default:
          break;
      }
    }
    if (opts.trusted) return { values, multiple };

    for (const [field, fd] of Object.entries(def.fields)) {
      if (!fd.required) continue;
      const attr = fd.type === 'link' ? `${field}Id` : field;
      if (isCreate ? isEmpty(values[attr]) : (attr in values && isEmpty(values[attr]))) throw fail(field, 'required');
    }
    return { values, multiple };
  }

  /** @param {string} entityType @param {Record<string, unknown>} data @param {WriteOptions} opts */
  prepareCreate(entityType, data, opts) {
    const { values, multiple } = this.normalise(entityType, data, true, opts);
    const def = ENTITY_DEFS[entityType];
    for (const [field, fd] of Object.entries(def.fields)) {
      if (fd.default !== undefined && !(field in values)) values[field] = fd.default;
      if (fd.type === 'currency' && values[field] != null && !values[`${field}Currency`]) values[`${field}Currency`] = 'USD';
    }
    return { values, multiple };
  }

  /**
   * @param {string} entityType @param {Record<string, unknown>} data @param {WriteOptions} [opts]
   * @param {{ values: Record<string, unknown>, multiple: Record<string, string[]> }} [prepared]
   */
  insert(entityType, data, opts = {}, prepared = undefined) {
    const { values, multiple } = prepared || this.prepareCreate(entityType, data, opts);
    const now = formatDateTime();
    const id = opts.trusted && typeof data.id === 'string' && data.id ? data.id : newId();
    /** @type {RawRecord} */
    const raw = { id, ...values };
    raw.createdAt = values.createdAt || now;
    raw.modifiedAt = values.modifiedAt || raw.createdAt;
    raw.versionNumber = 1;
    this.table(entityType).set(id, raw);
    this.writeMultiple(entityType, raw, multiple);
    // Remember what the client set, for the create reply (unset attributes stay absent there).
    Object.defineProperty(raw, '_setKeys', {
      value: new Set([...Object.keys(values), ...Object.keys(multiple).flatMap((f) => [`${f}Ids`, `${f}Names`])]),
      enumerable: false, writable: true,
    });
    return raw;
  }

  /** @param {string} entityType @param {RawRecord} raw @param {Record<string, string[]>} multiple */
  writeMultiple(entityType, raw, multiple) {
    for (const [field, ids] of Object.entries(multiple)) {
      for (const old of this.relatedIds(entityType, raw.id, field)) if (!ids.includes(old)) this.unlinkIds(entityType, raw.id, field, old);
      for (const fid of ids) this.linkIds(entityType, raw.id, field, fid);
    }
  }

  /** @param {string} entityType @param {RawRecord} raw @param {Record<string, unknown>} data @param {WriteOptions} [opts] */
  applyUpdate(entityType, raw, data, opts = {}) {
    const { values, multiple } = this.normalise(entityType, data, false, opts);
    const def = ENTITY_DEFS[entityType];
    for (const [field, fd] of Object.entries(def.fields)) {
      if (fd.type === 'currency' && values[field] != null && !values[`${field}Currency`] && !raw[`${field}Currency`]) values[`${field}Currency`] = 'USD';
    }
    for (const [k, v] of Object.entries(values)) {
      if ((k === 'emailAddress' || k === 'phoneNumber') && !(`_${k}Data` in values)) {
        // A new primary address replaces the old primary one; the other addresses stay.
        const key = `_${k}Data`;
        const others = (raw[key] || []).filter((/** @type {any} */ e) => !e.primary && e[k] !== v);
        raw[key] = v ? [{ [k]: v, primary: true }, ...others] : others;
      }
      raw[k] = v;
    }
    this.writeMultiple(entityType, raw, multiple);
    if (!(opts.trusted && values.modifiedAt)) raw.modifiedAt = formatDateTime();
    raw.versionNumber = (raw.versionNumber || 0) + 1;
    return raw;
  }

  /** @param {string} entityType @param {string} id */
  remove(entityType, id) {
    const raw = this.table(entityType).get(id);
    if (!raw) return false;
    for (const [link, ld] of Object.entries(ENTITY_DEFS[entityType].links)) {
      if (!ld.relationName) continue;
      for (const fid of this.relatedIds(entityType, id, link)) this.unlinkIds(entityType, id, link, fid);
    }
    this.table(entityType).delete(id);
    if (entityType === 'Attachment') this.files.delete(id);
    return true;
  }

  // ---------------------------------------------------------------- relationships

  /** @param {string} entityType @param {string} link */
  requireLink(entityType, link) {
    const ld = getLink(entityType, link);
    // EspoCRM 8.1.5 answers an unknown link with a 500 and an empty body.
    if (!ld || !ld.entity) throw new ApiError(500, '');
    return ld;
  }

  /** @param {string} rel @param {string} type @param {string} id */
  relKey(rel, type, id) {
    return `${rel}|${type}:${id}`;
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
    if (ld.relationName) {
      const set = this.relations.get(this.relKey(ld.relationName, entityType, id));
      if (!set) return [];
      const prefix = `${foreignType}:`;
      return [...set].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length))
        .filter((fid) => this.table(foreignType).has(fid));
    }
    const foreign = /** @type {string} */ (ld.foreign);
    /** @type {string[]} */
    const out = [];
    for (const r of this.table(foreignType).values()) {
      if (ld.type === 'hasChildren' ? r[`${foreign}Type`] === entityType && r[`${foreign}Id`] === id : r[`${foreign}Id`] === id) out.push(r.id);
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
    else if (ld.relationName) {
      const a = this.relKey(ld.relationName, entityType, id);
      const b = this.relKey(ld.relationName, foreignType, foreignId);
      if (!this.relations.has(a)) this.relations.set(a, new Set());
      if (!this.relations.has(b)) this.relations.set(b, new Set());
      /** @type {Set<string>} */ (this.relations.get(a)).add(`${foreignType}:${foreignId}`);
      /** @type {Set<string>} */ (this.relations.get(b)).add(`${entityType}:${id}`);
    } else if (ld.type === 'hasChildren') {
      fraw[`${ld.foreign}Type`] = entityType;
      fraw[`${ld.foreign}Id`] = id;
    } else fraw[`${ld.foreign}Id`] = id;
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
    } else if (ld.relationName) {
      this.relations.get(this.relKey(ld.relationName, entityType, id))?.delete(`${foreignType}:${foreignId}`);
      this.relations.get(this.relKey(ld.relationName, foreignType, foreignId))?.delete(`${entityType}:${id}`);
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
   * The wire form of a record. 'full': every attribute, nulls included (reads, lists). 'create': only what was
   * set, plus id, timestamps and the computed names (the create reply of EspoCRM).
   * @param {string} entityType @param {RawRecord} raw @param {'full' | 'create'} mode @param {Set<string>} [only]
   * @returns {ValueMap}
   */
  output(entityType, raw, mode, only) {
    const attrs = getAttributes(entityType);
    /** @type {Set<string> | undefined} */
    const setKeys = mode === 'create' ? raw._setKeys : undefined;
    /** @type {ValueMap} */
    const out = {};
    for (const [name, a] of attrs) {
      if (only && !only.has(name)) continue;
      const fd = a.def;
      if (setKeys && !['id', 'createdAt', 'modifiedAt', 'versionNumber'].includes(name)) {
        const computedShown = (fd.type === 'personName' && (raw.firstName || raw.lastName)) ||
          (fd.type === 'link' && name.endsWith('Name') && raw[`${a.field}Id`]) ||
          (fd.type === 'linkParent' && name.endsWith('Name') && raw[`${a.field}Id`]) ||
          (fd.aliasOf && raw[fd.aliasOf] !== undefined) ||
          (name === 'hasAttachment' && entityType === 'Email');
        if (!setKeys.has(name) && !computedShown) continue;
      }
      out[name] = this.attributeValue(entityType, raw, name, a);
    }
    return out;
  }

  /** @param {string} entityType @param {RawRecord} raw @param {string} name @param {import('./metadata').AttributeDef} a */
  attributeValue(entityType, raw, name, a) {
    const fd = a.def;
    if (a.storable) {
      const v = raw[name];
      if (v === undefined) return a.kind === 'array' ? (fd.type === 'multiEnum' ? [] : null) : null;
      return Array.isArray(v) ? [...v] : v;
    }
    switch (fd.type) {
      case 'personName': return personName(raw);
      case 'link': return this.nameOf(fd.entity, raw[`${a.field}Id`]);
      case 'linkParent': return this.nameOf(raw[`${a.field}Type`], raw[`${a.field}Id`]);
      case 'linkMultiple': {
        const ids = this.relatedIds(entityType, raw.id, a.field);
        if (name.endsWith('Ids')) return ids;
        /** @type {Record<string, unknown>} */
        const names = {};
        for (const id of ids) names[id] = this.nameOf(fd.entity, id);
        return names;
      }
      case 'email':
      case 'phone': {
        const key = fd.type === 'email' ? 'emailAddress' : 'phoneNumber';
        const list = raw[`_${name}`] || (raw[a.field] ? [{ [key]: raw[a.field], primary: true }] : []);
        return list.map((/** @type {any} */ e) => (fd.type === 'email'
          ? { emailAddress: e.emailAddress, lower: e.emailAddress.toLowerCase(), primary: e.primary, optOut: Boolean(e.optOut), invalid: Boolean(e.invalid) }
          : { phoneNumber: e.phoneNumber, primary: e.primary, type: e.type || 'Office', optOut: Boolean(e.optOut), invalid: Boolean(e.invalid) }));
      }
      default:
        if (fd.aliasOf) return raw[fd.aliasOf] ?? null;
        if (name === 'hasAttachment') return this.relatedIds(entityType, raw.id, 'attachments').length > 0;
        return null;
    }
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

/** @param {RawRecord} raw */
function personName(raw) {
  const s = [raw.firstName, raw.lastName].filter((x) => x).join(' ');
  return s === '' ? null : s;
}

module.exports = { Store, normalisePhone };
