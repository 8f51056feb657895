// @ts-check
'use strict';

/**
 * Entity definitions of the sandbox: the single source for fields, attribute types and links, used by the store
 * (what may be written, what a read returns, how relationships are kept) and by GET /Metadata.
 * Field and link definitions follow EspoCRM 8.1.5's entityDefs (names, types, flags), cut down to what the node
 * needs; the field types' own definitions are in application/Espo/Resources/metadata/fields/*.json there.
 */

/**
 * @typedef {{
 *   type: string, required?: boolean, readOnly?: boolean, notStorable?: boolean, options?: Array<string | number>,
 *   maxCount?: number,
 *   default?: unknown, maxLength?: number, min?: number, max?: number, entity?: string, entityList?: string[],
 *   isCustom?: boolean, aliasOf?: string, utility?: boolean, disabled?: boolean, pattern?: string,
 *   suppressValidationList?: string[], after?: string, before?: string, start?: string, end?: string,
 *   link?: string, field?: string, prefix?: string, padLength?: number, nextNumber?: number, len?: number,
 *   notNull?: boolean, unique?: boolean, autoincrement?: boolean, sourceList?: string[], maxFileSize?: number,
 *   accept?: string[], typeList?: string[], defaultType?: string, columns?: Record<string, string>,
 *   apiReadOnly?: boolean, stored?: boolean, hidden?: boolean, createOnly?: boolean, computed?: string, noLoad?: boolean,
 *   optionsReference?: string,
 * }} FieldDef
 *   apiReadOnly (sandbox only, never published): EspoCRM ignores writes to the field although its entityDefs do
 *   not say readOnly (number and autoincrement fields are read-only by their type, fields/number.json).
 *   stored (sandbox only): a notStorable field the sandbox keeps as a plain attribute.
 *   hidden (sandbox only): a field of EspoCRM's entityDefs that the sandbox's records carry (reads, lists) but its
 *   GET /Metadata does not publish (createdBy, modifiedBy, Contact's accountIsInactive, campaign, …).
 *   createOnly (sandbox only): an attribute that only EspoCRM's create reply shows (a not-stored bool's default).
 *   computed (sandbox only): how the store computes a not-stored value (see Store#computedValue).
 *   noLoad: a link-multiple field that reads, lists and create replies leave out (unless a select asks for it).
 * @typedef {{ type: 'belongsTo' | 'hasMany' | 'hasChildren' | 'belongsToParent' | 'hasOne', entity?: string,
 *   foreign?: string, relationName?: string, entityList?: string[], skipOrmDefs?: boolean, utility?: boolean,
 *   isCustom?: boolean, hidden?: boolean }} LinkDef
 * @typedef {{ object?: boolean, tab?: boolean, acl?: boolean | string }} ScopeDef
 * @typedef {{ fields: Record<string, FieldDef>, links: Record<string, LinkDef>, isCustom?: boolean,
 *   duplicateKeys?: string[][], alwaysNoTotal?: boolean, collection?: { orderBy: string, order: 'asc' | 'desc' },
 *   scope?: ScopeDef, event?: boolean, stream?: boolean, optimisticConcurrencyControl?: boolean }} EntityDef
 *   event: EspoCRM's Event repository (Meeting, Call, Task): `<field>Date` makes an all-day record.
 *   stream: scopes.<Type>.stream: records have followers (isFollowed, followersIds, followersNames).
 *   optimisticConcurrencyControl: the record has a versionNumber and X-Version-Number is checked on update.
 * @typedef {'string' | 'int' | 'float' | 'bool' | 'date' | 'datetime' | 'array' | 'object' | 'id' | 'json'} ValueKind
 * @typedef {{ name: string, field: string, kind: ValueKind, fieldType: string, storable: boolean,
 *   readOnly: boolean, def: FieldDef, role?: string }} AttributeDef
 *   role: what the attribute is of its field ('id', 'name', 'ids', 'names', 'types', 'currency', 'date', 'data', 'type')
 */

/** metadata/fields/<type>.json of EspoCRM 8.1.5, the types the sandbox uses, cut to their validation lists and flags. */
const FIELD_TYPES = require('./metadata-fields.json');

/** Sandbox settings that EspoCRM keeps in its config (data/config.php). */
const APP_CONFIG = Object.freeze({
	timeZone: 'UTC',
	defaultCurrency: 'USD',
	// A configured instance: the default config has only USD.
	currencyList: ['USD', 'EUR', 'GBP'],
});

/** EspoCRM's app/regExpPatterns.json, the ones field validation uses. */
const REG_EXP_PATTERNS = Object.freeze({
	noBadCharacters: '[^<>=]+',
	id: '[A-Za-z0-9_=\\-\\.]+',
	phoneNumberLoose: '[0-9A-Za-z_@:#\\+\\(\\)\\-\\. ]+',
	// Copied as EspoCRM has it, with its `(a-zA-Z0-9)` group that is not a character class.
	uriOptionalProtocol:
		"((a-zA-Z0-9)\\:\\/\\/)?[a-zA-Z0-9%\\.\\/\\?\\:@\\-_=#$!+*\\(\\)',]+\\.([a-zA-Z0-9%\\&\\.\\/\\?\\:@\\-_=#$!+*\\(\\)',])*",
});

const base = () => ({
	createdAt: /** @type {FieldDef} */ ({ type: 'datetime', readOnly: true }),
	modifiedAt: /** @type {FieldDef} */ ({ type: 'datetime', readOnly: true }),
	// Every EspoCRM type has them (set to the user who created or last changed the record); not published here.
	createdBy: /** @type {FieldDef} */ ({
		type: 'link',
		readOnly: true,
		entity: 'User',
		hidden: true,
	}),
	modifiedBy: /** @type {FieldDef} */ ({
		type: 'link',
		readOnly: true,
		entity: 'User',
		hidden: true,
	}),
});
const assignment = () => ({
	assignedUser: /** @type {FieldDef} */ ({ type: 'link', entity: 'User' }),
	teams: /** @type {FieldDef} */ ({ type: 'linkMultiple', entity: 'Team' }),
});
const assignmentLinks = () => ({
	assignedUser: /** @type {LinkDef} */ ({ type: 'belongsTo', entity: 'User' }),
	teams: /** @type {LinkDef} */ ({ type: 'hasMany', entity: 'Team', relationName: 'entityTeam' }),
});
/** Activities a record has (EspoCRM's Crm module): Meeting and Call through their parent or attendees, Task through its parent. */
const activityLinks = (/** @type {'parent' | 'contacts' | 'leads'} */ via) => ({
	meetings: /** @type {LinkDef} */ (
		via === 'parent'
			? { type: 'hasChildren', entity: 'Meeting', foreign: 'parent' }
			: {
					type: 'hasMany',
					entity: 'Meeting',
					foreign: via,
					relationName: via === 'contacts' ? 'contactMeeting' : 'leadMeeting',
				}
	),
	calls: /** @type {LinkDef} */ (
		via === 'parent'
			? { type: 'hasChildren', entity: 'Call', foreign: 'parent' }
			: {
					type: 'hasMany',
					entity: 'Call',
					foreign: via,
					relationName: via === 'contacts' ? 'callContact' : 'callLead',
				}
	),
	tasks: /** @type {LinkDef} */ ({ type: 'hasChildren', entity: 'Task', foreign: 'parent' }),
});
const personName = () => ({
	name: /** @type {FieldDef} */ ({ type: 'personName' }),
	salutationName: /** @type {FieldDef} */ ({
		type: 'enum',
		options: ['', 'Mr.', 'Ms.', 'Mrs.', 'Dr.'],
	}),
	firstName: /** @type {FieldDef} */ ({ type: 'varchar', maxLength: 100 }),
	lastName: /** @type {FieldDef} */ ({ type: 'varchar', maxLength: 100, required: true }),
	// The personName type's fourth part (fields/personName.json); the default name format leaves it out of `name`.
	middleName: /** @type {FieldDef} */ ({ type: 'varchar', maxLength: 100, hidden: true }),
});
/** Fields EspoCRM's Account, Contact and Lead have for campaigns (no Campaign type in the sandbox: always empty). */
const campaign = () => ({
	campaign: /** @type {FieldDef} */ ({
		type: 'link',
		entity: 'Campaign',
		hidden: true,
		apiReadOnly: true,
	}),
});
/** A not-stored bool that only the create reply shows, as its default (targetListIsOptedOut, contactIsInactive). */
const createOnlyBool = () =>
	/** @type {FieldDef} */ ({
		type: 'bool',
		notStorable: true,
		readOnly: true,
		hidden: true,
		createOnly: true,
	});
const INDUSTRIES = [
	'',
	'Advertising',
	'Agriculture',
	'Banking',
	'Construction',
	'Consulting',
	'Education',
	'Finance',
	'Healthcare',
	'Insurance',
	'Legal',
	'Manufacturing',
	'Retail',
	'Software',
	'Telecommunications',
	'Travel',
];
const PARENT_TYPES = ['Account', 'Contact', 'Lead', 'Opportunity', 'CProject'];
/** Meeting's and Call's parent list in EspoCRM (Case is not a sandbox type: a Case parent is a non-existing record). */
const EVENT_PARENT_TYPES = ['Account', 'Lead', 'Contact', 'Opportunity', 'Case'];
const EVENT_STATUSES = ['Planned', 'Held', 'Not Held'];

/** Meeting and Call (Modules/Crm/Resources/metadata/entityDefs/{Meeting,Call}.json), key fields. */
function eventDef(/** @type {'Meeting' | 'Call'} */ type) {
	const isMeeting = type === 'Meeting';
	/** @type {EntityDef} */
	const def = {
		event: true,
		fields: {
			name: { type: 'varchar', required: true, pattern: '$noBadCharacters' },
			status: { type: 'enum', options: EVENT_STATUSES, default: 'Planned' },
			// Meeting: datetimeOptional (all-day meetings); Call: plain datetime. Both required; Meeting's dateEnd
			// suppresses its required check (the client fills it from the duration).
			dateStart: {
				type: isMeeting ? 'datetimeOptional' : 'datetime',
				required: true,
				default: 'javascript: return this.dateTime.getNow(15);',
			},
			dateEnd: isMeeting
				? {
						type: 'datetimeOptional',
						required: true,
						after: 'dateStart',
						suppressValidationList: ['required'],
					}
				: { type: 'datetime', required: true, after: 'dateStart' },
			...(isMeeting ? { isAllDay: /** @type {FieldDef} */ ({ type: 'bool' }) } : {}),
			// Not stored: read as TIMESTAMPDIFF_SECOND(dateStart, dateEnd); the create reply shows the default.
			duration: {
				type: 'duration',
				start: 'dateStart',
				end: 'dateEnd',
				notStorable: true,
				options: isMeeting
					? [900, 1800, 3600, 7200, 10800, 86400]
					: [300, 600, 900, 1800, 2700, 3600, 7200],
				default: isMeeting ? 3600 : 300,
			},
			...(isMeeting
				? {}
				: {
						direction: /** @type {FieldDef} */ ({
							type: 'enum',
							options: ['Outbound', 'Inbound'],
							default: 'Outbound',
						}),
					}),
			description: { type: 'text' },
			// Not stored (the Reminder records): [] on every read of the sandbox.
			reminders: { type: 'jsonArray', notStorable: true, hidden: true, computed: 'emptyArray' },
			...(isMeeting
				? {}
				: {
						phoneNumbersMap: /** @type {FieldDef} */ ({
							type: 'jsonObject',
							notStorable: true,
							readOnly: true,
							hidden: true,
							computed: 'emptyObject',
						}),
					}),
			parent: { type: 'linkParent', entityList: EVENT_PARENT_TYPES },
			// Set from the parent by a hook (Hooks/Meeting/ParentLink.php), never written by clients.
			account: { type: 'link', readOnly: true, entity: 'Account' },
			users: { type: 'linkMultiple', entity: 'User', columns: { status: 'acceptanceStatus' } },
			contacts: {
				type: 'linkMultiple',
				entity: 'Contact',
				columns: { status: 'acceptanceStatus' },
			},
			leads: { type: 'linkMultiple', entity: 'Lead', columns: { status: 'acceptanceStatus' } },
			...base(),
			assignedUser: { type: 'link', required: true, entity: 'User' },
			teams: { type: 'linkMultiple', entity: 'Team' },
		},
		links: {
			account: { type: 'belongsTo', entity: 'Account' },
			assignedUser: { type: 'belongsTo', entity: 'User' },
			teams: { type: 'hasMany', entity: 'Team', relationName: 'entityTeam' },
			users: {
				type: 'hasMany',
				entity: 'User',
				foreign: isMeeting ? 'meetings' : 'calls',
				relationName: isMeeting ? 'meetingUser' : 'callUser',
			},
			contacts: {
				type: 'hasMany',
				entity: 'Contact',
				foreign: isMeeting ? 'meetings' : 'calls',
				relationName: isMeeting ? 'contactMeeting' : 'callContact',
			},
			leads: {
				type: 'hasMany',
				entity: 'Lead',
				foreign: isMeeting ? 'meetings' : 'calls',
				relationName: isMeeting ? 'leadMeeting' : 'callLead',
			},
			parent: {
				type: 'belongsToParent',
				foreign: isMeeting ? 'meetings' : 'calls',
				entityList: EVENT_PARENT_TYPES,
			},
		},
		collection: { orderBy: 'dateStart', order: 'desc' },
		// Meeting is a stream scope in EspoCRM, Call is not.
		stream: isMeeting,
	};
	return def;
}

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
			// EspoCRM's Account has these too (not published by the sandbox).
			sicCode: { type: 'varchar', maxLength: 40, hidden: true },
			shippingAddress: { type: 'address', hidden: true },
			...campaign(),
			originalLead: {
				type: 'linkOne',
				entity: 'Lead',
				readOnly: true,
				notStorable: true,
				hidden: true,
			},
			contactIsInactive: createOnlyBool(),
			targetListIsOptedOut: createOnlyBool(),
			...assignment(),
			...base(),
		},
		links: {
			contacts: { type: 'hasMany', entity: 'Contact', foreign: 'account' },
			originalLead: { type: 'hasOne', entity: 'Lead', foreign: 'createdAccount', hidden: true },
			opportunities: { type: 'hasMany', entity: 'Opportunity', foreign: 'account' },
			cProjects: { type: 'hasMany', entity: 'CProject', foreign: 'account' },
			emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
			...activityLinks('parent'),
			...assignmentLinks(),
		},
		duplicateKeys: [['name'], ['emailAddress']],
		stream: true,
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
			// Not a field of EspoCRM's Contact: the ORM's attributes of the hasMany link, writable (opportunitiesIds) but
			// never read (noLoad, as targetLists has).
			opportunities: {
				type: 'linkMultiple',
				entity: 'Opportunity',
				notStorable: true,
				hidden: true,
				noLoad: true,
			},
			// EspoCRM's Contact has these too (not published by the sandbox). The accounts of a contact are its account
			// here (EspoCRM keeps a many-to-many list with the primary one as accountId; role is the contact's title).
			accounts: {
				type: 'linkMultiple',
				entity: 'Account',
				columns: { role: 'contactRole', isInactive: 'contactIsInactive' },
				readOnly: true,
				notStorable: true,
				hidden: true,
				computed: 'contactAccounts',
			},
			accountIsInactive: {
				type: 'bool',
				notStorable: true,
				readOnly: true,
				hidden: true,
				computed: 'accountIsInactive',
			},
			accountType: {
				type: 'foreign',
				link: 'account',
				field: 'type',
				readOnly: true,
				hidden: true,
			},
			hasPortalUser: {
				type: 'bool',
				notStorable: true,
				readOnly: true,
				hidden: true,
				computed: 'false',
			},
			...campaign(),
			portalUser: {
				type: 'linkOne',
				entity: 'User',
				readOnly: true,
				notStorable: true,
				hidden: true,
			},
			originalLead: {
				type: 'linkOne',
				entity: 'Lead',
				readOnly: true,
				notStorable: true,
				hidden: true,
			},
			targetListIsOptedOut: createOnlyBool(),
			...assignment(),
			...base(),
		},
		links: {
			account: { type: 'belongsTo', entity: 'Account', foreign: 'contacts' },
			portalUser: { type: 'hasOne', entity: 'User', foreign: 'contact', hidden: true },
			originalLead: { type: 'hasOne', entity: 'Lead', foreign: 'createdContact', hidden: true },
			opportunities: {
				type: 'hasMany',
				entity: 'Opportunity',
				foreign: 'contacts',
				relationName: 'contactOpportunity',
			},
			emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
			...activityLinks('contacts'),
			...assignmentLinks(),
		},
		duplicateKeys: [['firstName', 'lastName'], ['emailAddress']],
		stream: true,
	},
	Lead: {
		fields: {
			...personName(),
			title: { type: 'varchar', maxLength: 100 },
			status: {
				type: 'enum',
				options: ['New', 'Assigned', 'In Process', 'Converted', 'Recycled', 'Dead'],
				default: 'New',
			},
			source: {
				type: 'enum',
				options: [
					'',
					'Call',
					'Email',
					'Existing Customer',
					'Partner',
					'Public Relations',
					'Web Site',
					'Campaign',
					'Other',
				],
			},
			industry: { type: 'enum', optionsReference: 'Account.industry' },
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
			...campaign(),
			targetListIsOptedOut: createOnlyBool(),
			...assignment(),
			...base(),
		},
		links: {
			createdAccount: { type: 'belongsTo', entity: 'Account' },
			createdContact: { type: 'belongsTo', entity: 'Contact' },
			createdOpportunity: { type: 'belongsTo', entity: 'Opportunity' },
			emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
			...activityLinks('leads'),
			...assignmentLinks(),
		},
		duplicateKeys: [['firstName', 'lastName'], ['emailAddress']],
		stream: true,
	},
	Opportunity: {
		fields: {
			name: { type: 'varchar', required: true, maxLength: 249 },
			amount: { type: 'currency', min: 0 },
			stage: {
				type: 'enum',
				default: 'Prospecting',
				options: [
					'Prospecting',
					'Qualification',
					'Proposal',
					'Negotiation',
					'Closed Won',
					'Closed Lost',
				],
			},
			probability: { type: 'int', min: 0, max: 100 },
			closeDate: { type: 'date' },
			// As in EspoCRM 8.1.5: no options of its own, those of Lead.source (for validation, and in the metadata).
			leadSource: { type: 'enum', optionsReference: 'Lead.source' },
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
			contacts: {
				type: 'hasMany',
				entity: 'Contact',
				foreign: 'opportunities',
				relationName: 'contactOpportunity',
			},
			emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
			...activityLinks('parent'),
			...assignmentLinks(),
		},
		stream: true,
	},
	Email: {
		fields: {
			name: { type: 'varchar', maxLength: 255 },
			// EspoCRM keeps the subject in `name`; `subject` is a not-storable alias of it.
			subject: { type: 'varchar', notStorable: true, aliasOf: 'name' },
			// Not stored by EspoCRM (read from the e-mail's address relations); the sandbox keeps them as text.
			from: { type: 'varchar', notStorable: true, stored: true },
			to: { type: 'varchar', notStorable: true, stored: true },
			cc: { type: 'varchar', notStorable: true, stored: true },
			bcc: { type: 'varchar', notStorable: true, stored: true },
			body: { type: 'wysiwyg' },
			isHtml: { type: 'bool', default: true },
			status: { type: 'enum', options: ['Draft', 'Sending', 'Sent', 'Archived', 'Failed'] },
			dateSent: { type: 'datetime' },
			parent: { type: 'linkParent', entityList: PARENT_TYPES },
			// attachmentMultiple: Attachment records whose parent is the e-mail (and whose `field` is empty or 'attachments').
			attachments: { type: 'attachmentMultiple', entity: 'Attachment', sourceList: ['Document'] },
			hasAttachment: { type: 'bool', readOnly: true, notStorable: true },
			...assignment(),
			...base(),
		},
		links: {
			parent: { type: 'belongsToParent', entityList: PARENT_TYPES },
			attachments: {
				type: 'hasChildren',
				entity: 'Attachment',
				foreign: 'parent',
				relationName: 'attachments',
			},
			...assignmentLinks(),
		},
		alwaysNoTotal: true,
	},
	Attachment: {
		fields: {
			name: { type: 'varchar', required: true, maxLength: 255 },
			type: { type: 'varchar', maxLength: 100 },
			// Not read-only in EspoCRM's entityDefs, but computed from the contents on upload.
			size: { type: 'int', min: 0, apiReadOnly: true },
			role: {
				type: 'enum',
				maxLength: 36,
				options: [
					'Attachment',
					'Inline Attachment',
					'Import File',
					'Export File',
					'Mail Merge',
					'Mass Pdf',
				],
			},
			field: { type: 'varchar', utility: true },
			related: { type: 'linkParent' },
			parent: { type: 'linkParent' },
			createdAt: { type: 'datetime', readOnly: true },
			modifiedAt: { type: 'datetime', readOnly: true },
		},
		links: {
			parent: { type: 'belongsToParent' },
			related: { type: 'belongsToParent' },
		},
		scope: { object: false, tab: false, acl: false },
	},
	User: {
		fields: {
			userName: { type: 'varchar', required: true, maxLength: 50 },
			...personName(),
			type: {
				type: 'enum',
				options: ['regular', 'admin', 'api', 'portal', 'system'],
				default: 'regular',
			},
			isActive: { type: 'bool', default: true },
			emailAddress: { type: 'email' },
			phoneNumber: { type: 'phone' },
			teams: { type: 'linkMultiple', entity: 'Team' },
			...base(),
		},
		links: {
			teams: { type: 'hasMany', entity: 'Team', foreign: 'users', relationName: 'teamUser' },
			meetings: {
				type: 'hasMany',
				entity: 'Meeting',
				foreign: 'users',
				relationName: 'meetingUser',
			},
			calls: { type: 'hasMany', entity: 'Call', foreign: 'users', relationName: 'callUser' },
		},
		collection: { orderBy: 'userName', order: 'asc' },
	},
	Team: {
		fields: {
			name: { type: 'varchar', required: true, maxLength: 100 },
			...base(),
		},
		links: {
			users: { type: 'hasMany', entity: 'User', foreign: 'teams', relationName: 'teamUser' },
		},
		collection: { orderBy: 'name', order: 'asc' },
		scope: { object: false },
	},
	Meeting: eventDef('Meeting'),
	Call: eventDef('Call'),
	Task: {
		event: true,
		fields: {
			name: { type: 'varchar', required: true, pattern: '$noBadCharacters' },
			status: {
				type: 'enum',
				options: ['Not Started', 'Started', 'Completed', 'Canceled', 'Deferred'],
				default: 'Not Started',
			},
			priority: { type: 'enum', options: ['Low', 'Normal', 'High', 'Urgent'], default: 'Normal' },
			// datetimeOptional and not required: a task may have a due day (dateEndDate) or a due time (dateEnd).
			dateStart: { type: 'datetimeOptional', before: 'dateEnd' },
			dateEnd: { type: 'datetimeOptional', after: 'dateStart' },
			// Task's entityDefs list the date parts of its datetimeOptional fields themselves, as utility fields.
			dateStartDate: { type: 'date', utility: true },
			dateEndDate: { type: 'date', utility: true },
			// Set by a hook when the status becomes Completed (Hooks/Task/DateCompleted.php).
			dateCompleted: { type: 'datetime', readOnly: true },
			isOverdue: { type: 'bool', readOnly: true, notStorable: true, utility: true },
			description: { type: 'text' },
			parent: {
				type: 'linkParent',
				entityList: ['Account', 'Contact', 'Lead', 'Opportunity', 'Case'],
			},
			account: { type: 'link', readOnly: true, entity: 'Account' },
			contact: { type: 'link', readOnly: true, entity: 'Contact' },
			...base(),
			assignedUser: { type: 'link', required: true, entity: 'User' },
			teams: { type: 'linkMultiple', entity: 'Team' },
			attachments: { type: 'attachmentMultiple', entity: 'Attachment', sourceList: ['Document'] },
		},
		links: {
			assignedUser: { type: 'belongsTo', entity: 'User', foreign: 'tasks' },
			teams: { type: 'hasMany', entity: 'Team', relationName: 'entityTeam' },
			parent: {
				type: 'belongsToParent',
				foreign: 'tasks',
				entityList: ['Account', 'Contact', 'Lead', 'Opportunity', 'Case'],
			},
			account: { type: 'belongsTo', entity: 'Account' },
			contact: { type: 'belongsTo', entity: 'Contact' },
			attachments: {
				type: 'hasChildren',
				entity: 'Attachment',
				foreign: 'parent',
				relationName: 'attachments',
			},
		},
		stream: true,
	},
	CProject: {
		isCustom: true,
		// A custom type made as "Base Plus" has a stream; "optimistic concurrency control" is an entity manager option:
		// the one type of the sandbox whose records have a versionNumber (X-Version-Number checked on update).
		stream: true,
		optimisticConcurrencyControl: true,
		fields: {
			name: { type: 'varchar', required: true, maxLength: 150 },
			status: {
				type: 'enum',
				options: ['Draft', 'Active', 'On Hold', 'Completed', 'Cancelled'],
				default: 'Draft',
			},
			labels: {
				type: 'multiEnum',
				options: ['Internal', 'Client', 'Urgent', 'Research', 'Maintenance'],
			},
			budget: { type: 'currency' },
			hours: { type: 'float' },
			priority: { type: 'int', min: 1, max: 5 },
			startDate: { type: 'date' },
			deadline: { type: 'datetime' },
			isBillable: { type: 'bool', default: false },
			description: { type: 'text' },
			account: { type: 'link', entity: 'Account' },
			// One field of each remaining type, as the entity manager (or a developer's metadata) would define them.
			// varchar with `options`: the options are suggestions for the form; any text is accepted.
			cCategory: {
				type: 'varchar',
				maxLength: 100,
				options: ['Internal', 'Customer', 'Partner'],
				isCustom: true,
			},
			// number: EspoCRM's auto-number, a string `<prefix><padded counter>` set on create; writes are ignored
			// (the NextNumber processor restores it). Its entityDefs carry the type's fieldDefs, not `readOnly`.
			cNumber: {
				type: 'number',
				len: 36,
				notNull: false,
				unique: false,
				prefix: 'PRJ-',
				padLength: 5,
				nextNumber: 1,
				isCustom: true,
				apiReadOnly: true,
			},
			// autoincrement: an int the database assigns (never reused after deletes); writes are ignored.
			cSeq: {
				type: 'autoincrement',
				autoincrement: true,
				unique: true,
				isCustom: true,
				apiReadOnly: true,
			},
			// array: a list of strings, free values when there are no options; each at most 100 characters.
			cTags: { type: 'array', isCustom: true },
			// checklist: the options that are ticked, a list of strings among `options`.
			cChecklist: {
				type: 'checklist',
				options: ['Scope agreed', 'Budget approved', 'Kick-off held'],
				isCustom: true,
			},
			// urlMultiple: a list of URLs, each matching EspoCRM's uriOptionalProtocol pattern, at most 255 characters.
			cLinks: { type: 'urlMultiple', isCustom: true },
			// attachmentMultiple: Attachment ids (cFilesIds); the attachments get the project as their parent.
			cFiles: { type: 'attachmentMultiple', entity: 'Attachment', isCustom: true },
			// file / image: one Attachment id (cContractId, cLogoId); an image upload must be a real image.
			cContract: { type: 'file', entity: 'Attachment', isCustom: true },
			cLogo: { type: 'image', entity: 'Attachment', isCustom: true },
			// jsonObject: any JSON object; anything that is not an object is stored as null, without an error.
			cSettings: { type: 'jsonObject', isCustom: true },
			// jsonArray: any JSON array; anything else is refused (validation type `array`).
			cSteps: { type: 'jsonArray', isCustom: true },
			// foreign: a field of the linked account, read-only (fields/foreign.json has fieldDefs readOnly).
			cAccountIndustry: {
				type: 'foreign',
				link: 'account',
				field: 'industry',
				readOnly: true,
				isCustom: true,
			},
			// A one-to-one relationship of projects: link on this side, linkOne (hasOne) on the other.
			cPredecessor: { type: 'link', entity: 'CProject', isCustom: true },
			cSuccessor: { type: 'linkOne', entity: 'CProject', isCustom: true },
			// wysiwyg: HTML text.
			cNotes: { type: 'wysiwyg', isCustom: true },
			// url: text matching EspoCRM's uriOptionalProtocol pattern (at most 255 characters); '' is not valid, null is.
			cWebsite: { type: 'url', isCustom: true },
			// An e-mail address and a phone number, as the Company and Person templates have (the field types
			// email and phone cannot be added by the field manager, and only these names are stored).
			emailAddress: { type: 'email' },
			phoneNumber: { type: 'phone' },
			...assignment(),
			...base(),
		},
		links: {
			account: { type: 'belongsTo', entity: 'Account', foreign: 'cProjects' },
			emails: { type: 'hasChildren', entity: 'Email', foreign: 'parent' },
			cFiles: {
				type: 'hasChildren',
				entity: 'Attachment',
				foreign: 'parent',
				relationName: 'attachments',
				utility: true,
			},
			cContract: { type: 'belongsTo', entity: 'Attachment', skipOrmDefs: true, utility: true },
			cLogo: { type: 'belongsTo', entity: 'Attachment', skipOrmDefs: true, utility: true },
			cPredecessor: {
				type: 'belongsTo',
				entity: 'CProject',
				foreign: 'cSuccessor',
				isCustom: true,
			},
			cSuccessor: { type: 'hasOne', entity: 'CProject', foreign: 'cPredecessor', isCustom: true },
			...assignmentLinks(),
		},
	},
	// Webhooks of API users (entityDefs/Webhook.json). Not an `object` scope: no webhooks about webhooks.
	Webhook: {
		fields: {
			event: { type: 'varchar', maxLength: 100, required: true },
			url: { type: 'varchar', maxLength: 512, required: true },
			isActive: { type: 'bool', default: true },
			user: { type: 'link', entity: 'User' },
			entityType: { type: 'varchar', readOnly: true },
			type: {
				type: 'enum',
				options: ['create', 'update', 'fieldUpdate', 'delete'],
				readOnly: true,
			},
			field: { type: 'varchar', readOnly: true },
			secretKey: { type: 'varchar', maxLength: 100, readOnly: true },
			...base(),
		},
		links: {
			user: { type: 'belongsTo', entity: 'User' },
		},
		scope: { object: false, tab: false, acl: 'boolean' },
	},
};

/**
 * Sub-fields EspoCRM's metadata builder adds next to a field (Utils/Metadata/BuilderHelper::getAdditionalFieldList),
 * from the `fields` of the field type's definition. Only datetimeOptional is listed here: the sub-fields of
 * currency (`<field>Currency`), email and phone (`<field>IsOptedOut`, `<field>IsInvalid`), personName and address
 * are not published by the sandbox (see buildMetadata).
 * @type {Record<string, Record<string, FieldDef>>}
 */
const TYPE_SUB_FIELDS = {
	datetimeOptional: { Date: { type: 'date', disabled: true } },
};
/** BuilderHelper::$copiedDefParams, the parent's params a sub-field inherits. */
const COPIED_DEF_PARAMS = ['readOnly', 'disabled', 'notStorable'];

/** @type {Record<string, ValueKind>} */
const SIMPLE_KINDS = {
	varchar: 'string',
	text: 'string',
	wysiwyg: 'string',
	email: 'string',
	phone: 'string',
	url: 'string',
	enum: 'string',
	int: 'int',
	float: 'float',
	bool: 'bool',
	date: 'date',
	datetime: 'datetime',
	multiEnum: 'array',
	array: 'array',
	checklist: 'array',
	urlMultiple: 'array',
	jsonArray: 'json',
	jsonObject: 'object',
	number: 'string',
	autoincrement: 'int',
	duration: 'int',
};

/** @type {Map<string, Map<string, AttributeDef>>} */
const attributeCache = new Map();

/**
 * Attributes (what travels in JSON) of an entity type, derived from its fields the way EspoCRM's field converters
 * do (Core/Utils/Database/Orm/FieldConverters): link → xId + xName, linkMultiple → xIds + xNames,
 * currency → x + xCurrency, datetimeOptional → x + xDate, ...
 * @param {string} entityType
 * @returns {Map<string, AttributeDef>}
 */
function getAttributes(entityType) {
	const cached = attributeCache.get(entityType);
	if (cached) return cached;
	const def = ENTITY_DEFS[entityType];
	/** @type {Map<string, AttributeDef>} */
	const attrs = new Map();
	/**
	 * @param {string} name @param {string} field @param {ValueKind} kind @param {boolean} storable @param {FieldDef} fd
	 * @param {boolean} [ro] @param {string} [role]
	 */
	const add = (name, field, kind, storable, fd, ro, role) => {
		// A field listed separately that is also a sub-attribute (Task's dateStartDate) stays with its main field.
		if (attrs.has(name)) return;
		attrs.set(name, {
			name,
			field,
			kind,
			fieldType: fd.type,
			storable,
			readOnly: Boolean(ro ?? fd.readOnly),
			def: fd,
			role,
		});
	};
	add('id', 'id', 'id', true, { type: 'id' }, true);
	// The ORM's own attribute: records are only marked deleted (an admin still reads them).
	add(
		'deleted',
		'deleted',
		'bool',
		false,
		{ type: 'bool', readOnly: true, notStorable: true },
		true,
		'deleted',
	);
	for (const [field, fd] of Object.entries(def.fields)) {
		const storable = !fd.notStorable || Boolean(fd.stored);
		switch (fd.type) {
			case 'link':
			case 'file':
			case 'image':
				add(`${field}Id`, field, 'id', true, fd, undefined, 'id');
				add(`${field}Name`, field, 'string', false, fd, true, 'name');
				break;
			case 'linkOne':
				// Both not stored: the id is the other record's `<foreign>Id`.
				add(`${field}Id`, field, 'id', false, fd, undefined, 'id');
				add(`${field}Name`, field, 'string', false, fd, true, 'name');
				break;
			case 'linkMultiple':
				add(`${field}Ids`, field, 'array', false, fd, undefined, 'ids');
				add(`${field}Names`, field, 'object', false, fd, true, 'names');
				if (fd.columns) add(`${field}Columns`, field, 'object', false, fd, true, 'columns');
				break;
			case 'attachmentMultiple':
				add(`${field}Ids`, field, 'array', false, fd, undefined, 'ids');
				add(`${field}Names`, field, 'object', false, fd, true, 'names');
				// Added by the Attachments link converter (relationName 'attachments').
				add(`${field}Types`, field, 'object', false, fd, true, 'types');
				break;
			case 'linkParent':
				add(`${field}Type`, field, 'string', true, fd, undefined, 'type');
				add(`${field}Id`, field, 'id', true, fd, undefined, 'id');
				add(`${field}Name`, field, 'string', false, fd, true, 'name');
				break;
			case 'currency':
				add(field, field, 'float', true, fd);
				add(`${field}Currency`, field, 'string', true, fd, undefined, 'currency');
				// fields/currency.json: the amount in the default currency.
				add(`${field}Converted`, field, 'float', false, fd, true, 'converted');
				break;
			case 'personName':
				add(field, field, 'string', false, fd, true);
				break;
			case 'address':
				for (const part of ['Street', 'City', 'State', 'Country', 'PostalCode'])
					add(`${field}${part}`, field, 'string', true, fd);
				break;
			case 'email':
			case 'phone':
				add(field, field, 'string', true, fd);
				add(`${field}Data`, field, 'array', false, fd, undefined, 'data');
				// fields/email.json, fields/phone.json: the primary address's flags.
				add(`${field}IsOptedOut`, field, 'bool', false, fd, true, 'optOut');
				add(`${field}IsInvalid`, field, 'bool', false, fd, true, 'invalid');
				break;
			case 'datetimeOptional':
				add(field, field, 'datetime', true, fd);
				add(`${field}Date`, field, 'date', true, fd, undefined, 'date');
				break;
			case 'foreign': {
				const foreignDef = foreignFieldDef(entityType, fd);
				add(field, field, SIMPLE_KINDS[foreignDef?.type || ''] || 'string', false, fd, true);
				break;
			}
			case 'number':
			case 'autoincrement':
				add(field, field, SIMPLE_KINDS[fd.type], true, fd, fd.readOnly);
				break;
			default:
				add(field, field, SIMPLE_KINDS[fd.type] || 'string', storable && !fd.aliasOf, fd);
		}
	}
	// Stream scopes: the followers (Core/Utils/Database/Orm: isFollowed, followersIds, followersNames).
	if (def.stream) {
		add(
			'isFollowed',
			'isFollowed',
			'bool',
			false,
			{ type: 'bool', readOnly: true, notStorable: true },
			true,
			'isFollowed',
		);
		add(
			'followersIds',
			'followers',
			'array',
			false,
			{ type: 'linkMultiple', readOnly: true, notStorable: true },
			true,
			'followersIds',
		);
		add(
			'followersNames',
			'followers',
			'object',
			false,
			{ type: 'linkMultiple', readOnly: true, notStorable: true },
			true,
			'followersNames',
		);
	}
	// Only types with optimistic concurrency control have a version number.
	if (def.optimisticConcurrencyControl)
		add('versionNumber', 'versionNumber', 'int', true, { type: 'int' }, true);
	attributeCache.set(entityType, attrs);
	return attrs;
}

/** The field a `foreign` field shows. @param {string} entityType @param {FieldDef} fd @returns {FieldDef | undefined} */
function foreignFieldDef(entityType, fd) {
	const link = getLink(entityType, fd.link || '');
	return link && link.entity ? ENTITY_DEFS[link.entity]?.fields[fd.field || ''] : undefined;
}

/** @param {string} name */
function isEntityType(name) {
	return Object.prototype.hasOwnProperty.call(ENTITY_DEFS, name);
}

/** Types whose records trigger webhooks and may be named in a webhook event (scopes.<Type>.object). @param {string} name */
function isObjectType(name) {
	return isEntityType(name) && ENTITY_DEFS[name].scope?.object !== false;
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

/** Default list order (entityDefs.<Type>.collection). @param {string} entityType */
function collectionOf(entityType) {
	return ENTITY_DEFS[entityType]?.collection ?? { orderBy: 'createdAt', order: 'desc' };
}

const INTERNAL_KEYS = new Set([
	'aliasOf',
	'entity',
	'apiReadOnly',
	'stored',
	'hidden',
	'createOnly',
	'computed',
	'noLoad',
]);

/** @param {FieldDef} fd */
function publicFieldDef(fd) {
	/** @type {Record<string, unknown>} */
	const out = {};
	for (const [k, v] of Object.entries(fd))
		if (!INTERNAL_KEYS.has(k)) out[k] = Array.isArray(v) ? [...v] : v;
	return out;
}

/** The fields of an entity type as GET /Metadata shows them, with the sub-fields the builder adds. @param {EntityDef} def */
function publicFields(def) {
	/** @type {Record<string, Record<string, unknown>>} */
	const fields = {};
	for (const [f, fd] of Object.entries(def.fields)) if (!fd.hidden) fields[f] = publicFieldDef(fd);
	for (const [f, fd] of Object.entries(def.fields)) {
		if (fd.hidden) continue;
		for (const [suffix, sub] of Object.entries(TYPE_SUB_FIELDS[fd.type] || {})) {
			/** @type {Record<string, unknown>} */
			const generated = { ...sub };
			for (const p of COPIED_DEF_PARAMS)
				if (fd[/** @type {keyof FieldDef} */ (p)] !== undefined)
					generated[p] = fd[/** @type {keyof FieldDef} */ (p)];
			// An explicit definition (Task's dateStartDate) is merged over the generated one, as DataUtil::merge does.
			fields[`${f}${suffix}`] = { ...generated, ...(fields[`${f}${suffix}`] || {}) };
		}
	}
	return fields;
}

/**
 * The body of GET /Metadata: only what the user may reach (restricted types are absent, as on EspoCRM). Besides
 * scopes and entityDefs (what the node reads), the other top-level keys EspoCRM 8.1.5 sends, each with a small
 * part of its content: app, clientDefs, dashlets, entityAcl, fields (metadata-fields.json: the field types'
 * validation lists), integrations, streamDefs, themes; an admin also gets authenticationMethods and recordDefs
 * (Tools/App/MetadataService::getDataForFrontend).
 * @param {Set<string>} restricted @param {{ isAdmin: boolean }} [user]
 */
function buildMetadata(restricted, user = { isAdmin: false }) {
	/** @type {Record<string, unknown>} */
	const scopes = {};
	/** @type {Record<string, unknown>} */
	const entityDefs = {};
	for (const [name, def] of Object.entries(ENTITY_DEFS)) {
		if (restricted.has(name)) continue;
		const scope = def.scope || {};
		scopes[name] = {
			entity: true,
			...(scope.object === false ? {} : { object: true }),
			tab: scope.tab ?? !['Email'].includes(name),
			acl: scope.acl ?? true,
			...(def.isCustom ? { isCustom: true, customizable: true } : {}),
			...(def.event ? { module: 'Crm', calendar: true, activity: name !== 'Task' } : {}),
		};
		/** @type {Record<string, unknown>} */
		const fields = { id: { type: 'id', readOnly: true }, ...publicFields(def) };
		/** @type {Record<string, unknown>} */
		const links = {};
		for (const [l, ld] of Object.entries(def.links)) {
			if (restricted.has(ld.entity || '') || ld.hidden) continue;
			/** @type {Record<string, unknown>} */
			const out = { type: ld.type };
			for (const key of [
				'entity',
				'foreign',
				'relationName',
				'entityList',
				'skipOrmDefs',
				'utility',
				'isCustom',
			]) {
				const v = /** @type {Record<string, unknown>} */ (ld)[key];
				if (v !== undefined) out[key] = v;
			}
			links[l] = out;
		}
		const { orderBy, order } = collectionOf(name);
		// The builder mirrors orderBy/order as sortBy/asc for old clients (Utils/Metadata/Builder::addAdditionalField).
		entityDefs[name] = {
			fields,
			links,
			collection: { orderBy, order, sortBy: orderBy, asc: order === 'asc' },
		};
	}
	// A few non-record scopes, as a real instance has, so that clients must filter on `entity`.
	scopes.Global = { entity: false };
	scopes.Import = { entity: true, object: false, tab: true };
	const types = Object.keys(entityDefs);
	/** @type {Record<string, unknown>} */
	const out = {
		app: {
			currency: { symbolMap: { USD: '$', EUR: '€', GBP: '£' }, precision: 2 },
			regExpPatterns: Object.fromEntries(
				Object.entries(REG_EXP_PATTERNS).map(([k, pattern]) => [k, { pattern }]),
			),
			language: { list: ['en_US'] },
		},
		clientDefs: Object.fromEntries(
			types.map((t) => [
				t,
				{ controller: t === 'Email' ? 'controllers/email' : 'controllers/record' },
			]),
		),
		dashlets: {
			Stream: { view: 'views/dashlets/stream' },
			Records: { view: 'views/dashlets/records' },
			...(types.includes('Opportunity')
				? {
						Opportunities: {
							view: 'views/dashlets/abstract/record-list',
							entityType: 'Opportunity',
						},
					}
				: {}),
		},
		entityAcl: {
			...(types.includes('Attachment')
				? {
						Attachment: {
							fields: {
								storage: { readOnly: true },
								source: { readOnly: true },
								sourceId: { readOnly: true },
							},
						},
					}
				: {}),
			...(types.includes('User')
				? { User: { fields: { apiKey: { onlyAdmin: true }, secretKey: { onlyAdmin: true } } } }
				: {}),
		},
		entityDefs,
		fields: JSON.parse(JSON.stringify(FIELD_TYPES)),
		integrations: {
			GoogleMaps: {
				fields: { apiKey: { type: 'varchar', maxLength: 255, required: true } },
				allowUserAccounts: false,
				authMethod: 'GoogleMaps',
			},
		},
		scopes,
		streamDefs: Object.fromEntries(
			['Call', 'Meeting', 'Task']
				.filter((t) => types.includes(t))
				.map((t) => [t, t === 'Task' ? {} : { followingUsersField: 'users' }]),
		),
		themes: {
			Espo: { stylesheet: 'client/css/espo/espo.css' },
			Dark: { stylesheet: 'client/css/espo/dark.css' },
			Light: { stylesheet: 'client/css/espo/light.css' },
		},
	};
	if (user.isAdmin) {
		out.authenticationMethods = {
			Espo: { portalDefault: true, settings: { isAvailable: true } },
			ApiKey: { api: true },
			Hmac: { api: true },
		};
		out.recordDefs = Object.fromEntries(types.map((t) => [t, {}]));
	}
	return out;
}

/**
 * The options of an enum or multi-enum field: its own, or those of the field its `optionsReference` names
 * ("Lead.source"), as EspoCRM's EnumType validator reads them. @param {FieldDef} fd
 */
function optionsOf(fd) {
	if (fd.options || !fd.optionsReference || !fd.optionsReference.includes('.')) return fd.options;
	const [scope, field] = fd.optionsReference.split('.');
	return ENTITY_DEFS[scope]?.fields[field]?.options;
}

module.exports = {
	optionsOf,
	ENTITY_DEFS,
	APP_CONFIG,
	REG_EXP_PATTERNS,
	getAttributes,
	getLink,
	isEntityType,
	isObjectType,
	hasName,
	collectionOf,
	foreignFieldDef,
	buildMetadata,
};
