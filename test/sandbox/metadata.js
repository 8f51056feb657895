// @ts-check
'use strict';

/**
 * Entity definitions of the sandbox: the single source for fields, attribute types and links, used by the store
 * (what may be written, what a read returns, how relationships are kept) and by GET /Metadata.
 * Field and link definitions follow EspoCRM's entityDefs (names, types, flags), cut down to what the node needs.
 */

/**
 * @typedef {{
 *   type: string, required?: boolean, readOnly?: boolean, notStorable?: boolean, options?: string[],
 *   default?: unknown, maxLength?: number, min?: number, max?: number, entity?: string, entityList?: string[],
 *   isCustom?: boolean, aliasOf?: string,
 * }} FieldDef
 * @typedef {{ type: 'belongsTo' | 'hasMany' | 'hasChildren' | 'belongsToParent', entity?: string, foreign?: string,
 *   relationName?: string, entityList?: string[] }} LinkDef
 * @typedef {{ fields: Record<string, FieldDef>, links: Record<string, LinkDef>, isCustom?: boolean,
 *   duplicateKeys?: string[][], alwaysNoTotal?: boolean, nameAttribute?: string }} EntityDef
 * @typedef {'string' | 'int' | 'float' | 'bool' | 'date' | 'datetime' | 'array' | 'object' | 'id'} ValueKind
 * @typedef {{ name: string, field: string, kind: ValueKind, fieldType: string, storable: boolean,
 *   readOnly: boolean, def: FieldDef }} AttributeDef
 */

const base = () => ({
  createdAt: { type: 'datetime', readOnly: true },
  modifiedAt: { type: 'datetime', readOnly: true },
});
const assignment = () => ({
  assignedUser: { type: 'link', entity: 'User' },
  teams: { type: 'linkMultiple', entity: 'Team' },
});
const assignmentLinks = () => ({
  assignedUser: /** @type {LinkDef} */ ({ type: 'belongsTo', entity: 'User' }),
  teams: /** @type {LinkDef} */ ({ type: 'hasMany', entity: 'Team', relationName: 'entityTeam' }),
});
const personName = () => ({
  name: { type: 'personName' },
  salutationName: { type: 'enum', options: ['', 'Mr.', 'Ms.', 'Mrs.', 'Dr.'] },
  firstName: { type: 'varchar', maxLength: 100 },
  lastName: { type: 'varchar', maxLength: 100, required: true },
});
const INDUSTRIES = ['', 'Advertising', 'Agriculture', 'Banking', 'Construction', 'Consulting', 'Education',
  'Finance', 'Healthcare', 'Insurance', 'Legal', 'Manufacturing', 'Retail', 'Software', 'Telecommunications',
  'Travel'];
const PARENT_TYPES = ['Account', 'Contact', 'Lead', 'Opportunity', 'CProject'];

/** @type {Record<string, EntityDef>} */
const ENTITY_DEFS = {
  Account: {
    fields: {
      name: { type: 'varchar', required: true, maxLength: 249 },
      emailAddress: { type: 'email' },
      phoneNumber: { type: 'phone' },
      website: { type: 'url' },
      type: { type: 'enum', options: ['', 'Customer', 'Investor', 'Partner', 'Reseller'] },
      industry: { type: 'enum', options: INDUSTRIES },
      // Not in stock EspoCRM: the interface's filter and mass-update examples use `status` on accounts.
      status: { type: 'varchar', maxLength: 100 },
      description: { type: 'text' },
      billingAddress: { type: 'address' },
      ...assignment(),
      ...base(),
    },
    links: {
      contacts: { type: 'hasMany', entity: 'Contact', foreign: 'account' },
      opportunities: { type: 'hasMany', entity: 'Opportunity', foreign: 'account' },
      cProjects: { type: 'hasMany', entity: 'CProject', foreign: 'account' },
      emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
      ...assignmentLinks(),
    },
    duplicateKeys: [['name'], ['emailAddress']],
  },
  Contact: {
    fields: {
      ...personName(),
      title: { type: 'varchar', maxLength: 100 },
      emailAddress: { type: 'email' },
      phoneNumber: { type: 'phone' },
      doNotCall: { type: 'bool', default: false },
      description: { type: 'text' },
      address: { type: 'address' },
      account: { type: 'link', entity: 'Account' },
      opportunities: { type: 'linkMultiple', entity: 'Opportunity', notStorable: true },
      ...assignment(),
      ...base(),
    },
    links: {
      account: { type: 'belongsTo', entity: 'Account', foreign: 'contacts' },
      opportunities: { type: 'hasMany', entity: 'Opportunity', foreign: 'contacts', relationName: 'contactOpportunity' },
      emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
      ...assignmentLinks(),
    },
    duplicateKeys: [['firstName', 'lastName'], ['emailAddress']],
  },
  Lead: {
    fields: {
      ...personName(),
      title: { type: 'varchar', maxLength: 100 },
      status: { type: 'enum', options: ['New', 'Assigned', 'In Process', 'Converted', 'Recycled', 'Dead'], default: 'New' },
      source: { type: 'enum', options: ['', 'Call', 'Email', 'Existing Customer', 'Partner', 'Public Relations', 'Web Site', 'Campaign', 'Other'] },
      industry: { type: 'enum', options: INDUSTRIES },
      opportunityAmount: { type: 'currency' },
      accountName: { type: 'varchar', maxLength: 255 },
      website: { type: 'url' },
      emailAddress: { type: 'email' },
      phoneNumber: { type: 'phone' },
      doNotCall: { type: 'bool', default: false },
      description: { type: 'text' },
      address: { type: 'address' },
      convertedAt: { type: 'datetime', readOnly: true },
      createdAccount: { type: 'link', entity: 'Account', readOnly: true },
      createdContact: { type: 'link', entity: 'Contact', readOnly: true },
      createdOpportunity: { type: 'link', entity: 'Opportunity', readOnly: true },
      ...assignment(),
      ...base(),
    },
    links: {
      createdAccount: { type: 'belongsTo', entity: 'Account' },
      createdContact: { type: 'belongsTo', entity: 'Contact' },
      createdOpportunity: { type: 'belongsTo', entity: 'Opportunity' },
      emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
      ...assignmentLinks(),
    },
    duplicateKeys: [['firstName', 'lastName'], ['emailAddress']],
  },
  Opportunity: {
    fields: {
      name: { type: 'varchar', required: true, maxLength: 249 },
      amount: { type: 'currency', min: 0 },
      stage: {
        type: 'enum', default: 'Prospecting',
        options: ['Prospecting', 'Qualification', 'Proposal', 'Negotiation', 'Closed Won', 'Closed Lost'],
      },
      probability: { type: 'int', min: 0, max: 100 },
      closeDate: { type: 'date' },
      leadSource: { type: 'enum', options: ['', 'Call', 'Email', 'Existing Customer', 'Partner', 'Public Relations', 'Web Site', 'Campaign', 'Other'] },
      // Not in stock EspoCRM (stage is): kept because the interface's examples filter on `status`.
      status: { type: 'varchar', maxLength: 100 },
      description: { type: 'text' },
      account: { type: 'link', entity: 'Account' },
      contacts: { type: 'linkMultiple', entity: 'Contact' },
      ...assignment(),
      ...base(),
    },
    links: {
      account: { type: 'belongsTo', entity: 'Account', foreign: 'opportunities' },
      contacts: { type: 'hasMany', entity: 'Contact', foreign: 'opportunities', relationName: 'contactOpportunity' },
      emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
      ...assignmentLinks(),
    },
  },
  Email: {
    fields: {
      name: { type: 'varchar', maxLength: 255 },
      // EspoCRM keeps the subject in `name`; `subject` is a not-storable alias of it.
      subject: { type: 'varchar', notStorable: true, aliasOf: 'name' },
      from: { type: 'varchar' },
      to: { type: 'varchar' },
      cc: { type: 'varchar' },
      bcc: { type: 'varchar' },
      body: { type: 'wysiwyg' },
      isHtml: { type: 'bool', default: true },
      status: { type: 'enum', options: ['Draft', 'Sending', 'Sent', 'Archived', 'Failed'] },
      dateSent: { type: 'datetime' },
      parent: { type: 'linkParent', entityList: PARENT_TYPES },
      attachments: { type: 'linkMultiple', entity: 'Attachment' },
      hasAttachment: { type: 'bool', readOnly: true, notStorable: true },
      ...assignment(),
      ...base(),
    },
    links: {
      parent: { type: 'belongsToParent', entityList: PARENT_TYPES },
      attachments: { type: 'hasChildren', entity: 'Attachment', foreign: 'parent' },
      ...assignmentLinks(),
    },
    alwaysNoTotal: true,
  },
  Attachment: {
    fields: {
      name: { type: 'varchar', required: true, maxLength: 255 },
      type: { type: 'varchar', maxLength: 100 },
      size: { type: 'int', readOnly: true },
      role: { type: 'enum', options: ['Attachment', 'Inline Attachment', 'Import File', 'Export File', 'Mail Merge', 'Mass Pdf'] },
      field: { type: 'varchar' },
      related: { type: 'linkParent' },
      parent: { type: 'linkParent' },
      createdAt: { type: 'datetime', readOnly: true },
      modifiedAt: { type: 'datetime', readOnly: true },
    },
    links: {
      parent: { type: 'belongsToParent' },
      related: { type: 'belongsToParent' },
    },
  },
  User: {
    fields: {
      userName: { type: 'varchar', required: true, maxLength: 50 },
      ...personName(),
      type: { type: 'enum', options: ['regular', 'admin', 'api', 'portal', 'system'], default: 'regular' },
      isActive: { type: 'bool', default: true },
      emailAddress: { type: 'email' },
      phoneNumber: { type: 'phone' },
      teams: { type: 'linkMultiple', entity: 'Team' },
      ...base(),
    },
    links: {
      teams: { type: 'hasMany', entity: 'Team', foreign: 'users', relationName: 'teamUser' },
    },
  },
  Team: {
    fields: {
      name: { type: 'varchar', required: true, maxLength: 100 },
      ...base(),
    },
    links: {
      users: { type: 'hasMany', entity: 'User', foreign: 'teams', relationName: 'teamUser' },
    },
  },
  CProject: {
    isCustom: true,
    fields: {
      name: { type: 'varchar', required: true, maxLength: 150 },
      status: { type: 'enum', options: ['Draft', 'Active', 'On Hold', 'Completed', 'Cancelled'], default: 'Draft' },
      labels: { type: 'multiEnum', options: ['Internal', 'Client', 'Urgent', 'Research', 'Maintenance'] },
      budget: { type: 'currency' },
      hours: { type: 'float' },
      priority: { type: 'int', min: 1, max: 5 },
      startDate: { type: 'date' },
      deadline: { type: 'datetime' },
      isBillable: { type: 'bool', default: false },
      description: { type: 'text' },
      account: { type: 'link', entity: 'Account' },
      ...assignment(),
      ...base(),
    },
    links: {
      account: { type: 'belongsTo', entity: 'Account', foreign: 'cProjects' },
      emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
      ...assignmentLinks(),
    },
  },
};

/** @type {Record<string, ValueKind>} */
const SIMPLE_KINDS = {
  varchar: 'string', text: 'string', wysiwyg: 'string', email: 'string', phone: 'string', url: 'string',
  enum: 'string', int: 'int', float: 'float', bool: 'bool', date: 'date', datetime: 'datetime', multiEnum: 'array',
};

/** @type {Map<string, Map<string, AttributeDef>>} */
const attributeCache = new Map();

/**
 * Attributes (what travels in JSON) of an entity type, derived from its fields the way EspoCRM does:
 * link → xId + xName, linkMultiple → xIds + xNames, currency → x + xCurrency, ...
 * @param {string} entityType
 * @returns {Map<string, AttributeDef>}
 */
function getAttributes(entityType) {
  const cached = attributeCache.get(entityType);
  if (cached) return cached;
  const def = ENTITY_DEFS[entityType];
  /** @type {Map<string, AttributeDef>} */
  const attrs = new Map();
  /** @param {string} name @param {string} field @param {ValueKind} kind @param {boolean} storable @param {FieldDef} fd @param {boolean} [ro] */
  const add = (name, field, kind, storable, fd, ro) =>
    attrs.set(name, { name, field, kind, fieldType: fd.type, storable, readOnly: Boolean(ro ?? fd.readOnly), def: fd });
  add('id', 'id', 'id', true, { type: 'id' }, true);
  for (const [field, fd] of Object.entries(def.fields)) {
    const storable = !fd.notStorable;
    switch (fd.type) {
      case 'link':
        add(`${field}Id`, field, 'id', true, fd);
        add(`${field}Name`, field, 'string', false, fd, true);
        break;
      case 'linkMultiple':
        add(`${field}Ids`, field, 'array', false, fd);
        add(`${field}Names`, field, 'object', false, fd, true);
        break;
      case 'linkParent':
        add(`${field}Type`, field, 'string', true, fd);
        add(`${field}Id`, field, 'id', true, fd);
        add(`${field}Name`, field, 'string', false, fd, true);
        break;
      case 'currency':
        add(field, field, 'float', true, fd);
        add(`${field}Currency`, field, 'string', true, fd);
        break;
      case 'personName':
        add(field, field, 'string', false, fd, true);
        break;
      case 'address':
        for (const part of ['Street', 'City', 'State', 'Country', 'PostalCode']) add(`${field}${part}`, field, 'string', true, fd);
        break;
      case 'email':
        add(field, field, 'string', true, fd);
        add(`${field}Data`, field, 'array', false, fd);
        break;
      case 'phone':
        add(field, field, 'string', true, fd);
        add(`${field}Data`, field, 'array', false, fd);
        break;
      default:
        add(field, field, SIMPLE_KINDS[fd.type] || 'string', storable && !fd.aliasOf, fd);
    }
  }
  add('versionNumber', 'versionNumber', 'int', true, { type: 'int' }, true);
  attributeCache.set(entityType, attrs);
  return attrs;
}

/** @param {string} name */
function isEntityType(name) {
  return Object.prototype.hasOwnProperty.call(ENTITY_DEFS, name);
}

/** @param {string} entityType @param {string} link @returns {LinkDef | undefined} */
function getLink(entityType, link) {
  const def = ENTITY_DEFS[entityType];
  return def && Object.prototype.hasOwnProperty.call(def.links, link) ? def.links[link] : undefined;
}

/** @param {string} entityType */
function hasName(entityType) {
  return Boolean(ENTITY_DEFS[entityType]?.fields.name);
}

/** @param {FieldDef} fd */
function publicFieldDef(fd) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [k, v] of Object.entries(fd)) if (k !== 'aliasOf' && k !== 'entity' && k !== 'entityList') out[k] = v;
  if (fd.entityList) out.entityList = fd.entityList;
  return out;
}

/**
 * The body of GET /Metadata: only what the user may reach (restricted types are absent, as on EspoCRM).
 * @param {Set<string>} restricted
 */
function buildMetadata(restricted) {
  /** @type {Record<string, unknown>} */
  const scopes = {};
  /** @type {Record<string, unknown>} */
  const entityDefs = {};
  for (const [name, def] of Object.entries(ENTITY_DEFS)) {
    if (restricted.has(name)) continue;
    scopes[name] = {
      entity: true, object: name !== 'Attachment', tab: !['Attachment', 'Email'].includes(name), acl: true,
      ...(def.isCustom ? { isCustom: true, customizable: true } : {}),
    };
    /** @type {Record<string, unknown>} */
    const fields = { id: { type: 'id', readOnly: true } };
    for (const [f, fd] of Object.entries(def.fields)) fields[f] = publicFieldDef(fd);
    /** @type {Record<string, unknown>} */
    const links = {};
    for (const [l, ld] of Object.entries(def.links)) {
      if (restricted.has(ld.entity || '')) continue;
      /** @type {Record<string, unknown>} */
      const out = { type: ld.type };
      if (ld.entity) out.entity = ld.entity;
      if (ld.foreign) out.foreign = ld.foreign;
      if (ld.relationName) out.relationName = ld.relationName;
      if (ld.entityList) out.entityList = ld.entityList;
      links[l] = out;
    }
    entityDefs[name] = { fields, links, collection: { orderBy: 'createdAt', order: 'desc' } };
  }
  // A few non-record scopes, as a real instance has, so that clients must filter on `entity`.
  scopes.Global = { entity: false };
  scopes.Import = { entity: true, object: false, tab: true };
  return { scopes, entityDefs };
}

module.exports = { ENTITY_DEFS, getAttributes, getLink, isEntityType, hasName, buildMetadata };
