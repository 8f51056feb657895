import type {
	FieldType,
	IDataObject,
	ILoadOptionsFunctions,
	INodePropertyOptions,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { ENTITY_TYPE_OPTIONS } from '../fields/target';
import { dialectOf } from './dialect';
import { readFailure } from '../http/failure';
import { LABEL_DATE_ONLY, LABEL_DATE_OR_DATE_TIME, LABEL_LIST } from '../fields/fieldMapper';
import type { Item } from '../item/item';
import { INTERFACE_FIELDS } from '../fields/recordBody';
import { apiRequest, runOf } from '../http/request';
import type { RequestContext } from '../http/request';
import { entityTypeOf } from '../item/validation';

/**
 * The form's lists. With the EspoCRM server they come from `GET /Metadata` and, for the labels users know from the
 * CRM, `GET /I18n` (both read when the user opens a list; never during an execution). A Standard server has neither:
 * the lists are those of the interface, and free text and expressions work with either.
 */

interface FieldDef {
	type: string;
	required?: boolean;
	readOnly?: boolean;
	notStorable?: boolean;
	disabled?: boolean;
	utility?: boolean;
	options?: Array<string | number>;
	/** "Lead.source": the enum takes the options (and their labels) of that field (Opportunity.leadSource). */
	optionsReference?: string;
}

interface LinkDef {
	type: string;
	entity?: string;
}

interface Metadata {
	scopes?: Record<string, { entity?: boolean; object?: boolean; isCustom?: boolean; disabled?: boolean; stream?: boolean }>;
	entityDefs?: Record<string, { fields?: Record<string, FieldDef>; links?: Record<string, LinkDef> }>;
}

/** EspoCRM's translations: `<Scope>.fields`, `.links`, `.options.<field>`, and `Global.scopeNames`. */
type Translations = Record<string, { fields?: IDataObject; links?: IDataObject; options?: Record<string, IDataObject>; scopeNames?: IDataObject }>;

/** Labels as the CRM shows them, falling back to names where the server gives none. */
class Labels {
	constructor(private readonly translations: Translations = {}) {}

	private text(value: unknown) {
		return typeof value === 'string' && value.trim() !== '' ? value : undefined;
	}

	scope(name: string) {
		return this.text(this.translations.Global?.scopeNames?.[name]) ?? name;
	}

	field(scope: string, field: string) {
		return this.text(this.translations[scope]?.fields?.[field]) ?? this.text(this.translations.Global?.fields?.[field]) ?? field;
	}

	link(scope: string, link: string) {
		return this.text(this.translations[scope]?.links?.[link]) ?? this.text(this.translations.Global?.links?.[link]) ?? link;
	}

	option(scope: string, field: string, value: string | number) {
		return this.text(this.translations[scope]?.options?.[field]?.[String(value)]) ?? (value === '' ? '(None)' : String(value));
	}
}

/**
 * "Do Not Call (doNotCall)": the label users know, and the name the API and expressions use; with a hint on how a
 * value is written where the type does not say it ("Close Date (closeDate, date only)").
 */
function labelled(label: string, name: string, hint?: string) {
	const inParentheses = [label === name ? undefined : name, hint].filter(Boolean).join(', ');
	return inParentheses ? `${label} (${inParentheses})` : label;
}

export interface Server {
	/** Undefined for a Standard server, which has no metadata. */
	metadata?: Metadata;
	labels: Labels;
	/** EspoCRM's labels as it sends them (`GET /I18n`), for what Labels does not name. */
	translations: Translations;
}

/**
 * The metadata and labels of the credential's server, for the form's lists. Sent as the node's other requests are
 * (shared/transport.ts): never to another origin, within the Timeout, read up to a bound, checked to be JSON.
 */
export async function readServer(context: ILoadOptionsFunctions): Promise<Server> {
	if ((await dialectOf(context)) !== 'espocrm') return { labels: new Labels(), translations: {} };
	const get = async (url: string, qs?: IDataObject) => await apiRequest(context, 0, { method: 'GET', url, qs });
	const [metadata, translations] = await Promise.all([
		get('/Metadata').catch((error) => {
			const { status, reason } = readFailure(error);
			throw new NodeApiError(context.getNode(), { message: reason, httpCode: status === undefined ? null : String(status) }, {
				message: `Could not read the server's metadata${status ? ` (${status}${reason ? `: ${reason}` : ''})` : `: ${(error as Error).message}`}`,
				description:
					"The lists are filled from EspoCRM's metadata. Check the credential, or type the name into the field as an expression instead.",
			});
		}),
		// Labels are a convenience: without them the lists show names.
		get('/I18n', { default: 'true' }).catch(() => ({})),
	]);
	return { metadata: metadata as Metadata, labels: new Labels(translations as Translations), translations: translations as Translations };
}

/** The scopes of the server's metadata, per run (see `scopesOfRun`). */
const scopesOfRuns = new WeakMap<object, Promise<Metadata['scopes']>>();

/**
 * The scopes of an EspoCRM server's metadata (which entity types there are, which have a stream), for a check an
 * execution makes before it sends (Stream > Post and Follow). Read once per run, by the first item that asks, and
 * only by the operations that ask: the metadata is a few hundred kilobytes. Undefined when it cannot be read (the
 * check is then left to the server).
 */
export async function scopesOfRun(context: RequestContext, itemIndex: number): Promise<Metadata['scopes']> {
	const run = runOf(context);
	let scopes = scopesOfRuns.get(run);
	if (!scopes) {
		scopes = apiRequest<Metadata>(context, itemIndex, { method: 'GET', url: '/Metadata' }).then(
			(metadata) => metadata?.scopes,
			() => undefined,
		);
		scopesOfRuns.set(run, scopes);
	}
	return await scopes;
}

/** The form as a parameter reader for the shared helpers (item 0). */
function formItem(context: ILoadOptionsFunctions): Item {
	return {
		index: 0,
		node: context.getNode(),
		timeZone: context.getTimezone(),
		json: {},
		parameter: <T>(name: string, fallback?: T) => (context.getCurrentNodeParameter(name) ?? fallback) as T,
		refuse: (parameter, problem, description) =>
			new NodeOperationError(context.getNode(), `The parameter "${parameter}" ${problem}`, { description }),
	};
}

/** The entity type the form is about: Lead > Convert has no entity type parameter of its own. */
export function chosenEntityType(context: ILoadOptionsFunctions): string {
	if (context.getCurrentNodeParameter('resource') === 'lead') return 'Lead';
	return entityTypeOf(formItem(context));
}

/**
 * The entity type whose records a list shows: Get Many Related lists the records its relationship leads to, so its
 * Fields to Return, Sort By and filter fields are the related type's.
 */
function listedEntityType(context: ILoadOptionsFunctions, metadata?: Metadata): string {
	const entityType = chosenEntityType(context);
	if (context.getCurrentNodeParameter('operation') !== 'getManyRelated') return entityType;
	const chosen = context.getCurrentNodeParameter('link');
	const link = String((chosen === 'custom' ? context.getCurrentNodeParameter('customLink') : chosen) ?? '');
	if (!metadata) return STANDARD_LINK_TARGETS[link] ?? entityType;
	return metadata.entityDefs?.[entityType]?.links?.[link]?.entity ?? entityType;
}

function definitionOf(context: ILoadOptionsFunctions, metadata: Metadata, entityType = chosenEntityType(context)) {
	const definition = metadata.entityDefs?.[entityType];
	if (!definition) {
		throw new NodeOperationError(context.getNode(), `The server's metadata has no entity type "${entityType}"`, {
			description: "Check the entity type, or the API user's access to it.",
		});
	}
	return { entityType, fields: definition.fields ?? {}, links: definition.links ?? {} };
}

const byName = (a: INodePropertyOptions, b: INodePropertyOptions) => a.name.localeCompare(b.name);

/** Custom types made in EspoCRM's entity manager are named with a "C" before the name users gave them. */
function entityTypeLabel(name: string, label: string, isCustom?: boolean) {
	if (!isCustom) return labelled(label, name);
	const given = label !== name ? label : /^C[A-Z]/.test(name) ? name.slice(1) : name;
	return `${given} (${name}, custom)`;
}

export async function getEntityTypes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const { metadata, labels } = await readServer(this);
	if (!metadata) return ENTITY_TYPE_OPTIONS;
	const reachable = Object.entries(metadata.scopes ?? {})
		.filter(([, scope]) => scope.entity && scope.object && !scope.disabled)
		.map(([name, scope]) => ({ name: entityTypeLabel(name, labels.scope(name), scope.isCustom), value: name }))
		.sort(byName);
	return [...reachable, ENTITY_TYPE_OPTIONS[ENTITY_TYPE_OPTIONS.length - 1]];
}

/** One attribute as the API reads and writes it (a field may have several: a link is written as `<field>Id`). */
interface Attribute {
	name: string;
	label: string;
	type: FieldType;
	/** Whether a create or update may set it. */
	writable: boolean;
	/** Whether lists can be sorted and filtered by it (stored, one value). */
	sortable: boolean;
	/** The attribute that carries the field's "required" (a link's ID, not its name). */
	carriesRequired?: boolean;
	/** How a value is written, where the n8n type does not say it. */
	hint?: string;
	options?: INodePropertyOptions[];
}

const ADDRESS_PARTS: Array<[string, string]> = [
	['Street', 'Street'],
	['City', 'City'],
	['State', 'State'],
	['Country', 'Country'],
	['PostalCode', 'Postal Code'],
];

/**
 * How each EspoCRM field type (7 to 9) is offered: the attributes it is read and written as, with their n8n type.
 * Types left out have no attribute a workflow could use: `password` (never served), `map` (not stored),
 * `linkOne` and `foreign` are read-only here (written through the other record), and `number`/`autoincrement`
 * are numbered by the server.
 */
/** Where an enum field's options and their labels come from: the field itself, or the one it references. */
interface OptionSource {
	scope: string;
	field: string;
}

function attributesOf(scope: string, field: string, definition: FieldDef, labels: Labels, optionSource: OptionSource = { scope, field }): Attribute[] {
	const label = labels.field(scope, field);
	const writable = !definition.readOnly && !definition.notStorable;
	const sortable = !definition.notStorable;
	const one = (type: FieldType, extra: Partial<Attribute> = {}): Attribute => ({
		name: field,
		label,
		type,
		writable,
		sortable,
		carriesRequired: true,
		...extra,
	});
	const part = (suffix: string, partLabel: string, type: FieldType, extra: Partial<Attribute> = {}): Attribute => ({
		name: `${field}${suffix}`,
		label: `${label} ${partLabel}`,
		type,
		writable,
		sortable,
		...extra,
	});
	switch (definition.type) {
		case 'link':
			return [part('Id', 'ID', 'string', { carriesRequired: true }), part('Name', 'Name', 'string', { writable: false })];
		case 'linkOne':
		case 'foreign':
			return definition.type === 'foreign'
				? [one('string', { writable: false })]
				: [part('Id', 'ID', 'string', { writable: false }), part('Name', 'Name', 'string', { writable: false })];
		case 'linkMultiple':
			return [part('Ids', 'IDs', 'array', { sortable: false, carriesRequired: true })];
		case 'linkParent':
			return [
				part('Type', 'Type', 'string', { carriesRequired: true }),
				part('Id', 'ID', 'string', { carriesRequired: true }),
				part('Name', 'Name', 'string', { writable: false }),
			];
		case 'file':
		case 'image':
			return [part('Id', '(Attachment ID)', 'string', { carriesRequired: true }), part('Name', 'Name', 'string', { writable: false })];
		case 'attachmentMultiple':
			return [part('Ids', '(Attachment IDs)', 'array', { sortable: false, carriesRequired: true })];
		case 'currency':
			return [one('number'), part('Currency', 'Currency', 'string')];
		case 'rangeInt':
		case 'rangeFloat':
		case 'rangeCurrency':
			return [part('From', 'From', 'number', { carriesRequired: true }), part('To', 'To', 'number')];
		case 'personName':
			// Its parts (salutationName, firstName, lastName) are fields of their own; `name` sorts and filters by the whole.
			return [one('string', { writable: false })];
		case 'address':
			return ADDRESS_PARTS.map(([suffix, partLabel]) => part(suffix, partLabel, 'string'));
		case 'number':
		case 'autoincrement':
			return [one(definition.type === 'number' ? 'string' : 'number', { writable: false })];
		case 'int':
		case 'float':
		case 'duration':
			return [one('number')];
		case 'bool':
			return [one('boolean')];
		case 'date':
			return [one('dateTime', { hint: LABEL_DATE_ONLY })];
		case 'datetime':
			return [one('dateTime')];
		case 'datetimeOptional':
			return [one('dateTime', { hint: LABEL_DATE_OR_DATE_TIME })];
		case 'enum':
		case 'enumInt':
		case 'enumFloat':
			// EspoCRM lists some generated attributes (a currency's …Currency) as enums without options: free text then.
			if (!definition.options?.length) return [one('string')];
			return [
				one('options', {
					options: (definition.options ?? []).map((value) => ({ name: labels.option(optionSource.scope, optionSource.field, value), value })),
				}),
			];
		case 'multiEnum':
		case 'checklist':
		case 'array':
		case 'arrayInt':
		case 'urlMultiple':
		case 'jsonArray':
			return [one('array', { sortable: false })];
		case 'jsonObject':
			return [one('object', { sortable: false })];
		case 'password':
		case 'map':
			return [];
		default:
			// varchar (also with options: a suggestion list, free text allowed), text, wysiwyg, email, phone, url, …
			return [one('string')];
	}
}

/**
 * A field whose options are another field's (`optionsReference`, as EspoCRM's Opportunity.leadSource → Lead.source):
 * with those options, labelled as that field's. The metadata carries the referenced field even for a type the user
 * cannot reach (EspoCRM's AclDependencyProvider).
 */
function withReferencedOptions(scope: string, field: string, definition: FieldDef, entityDefs: Metadata['entityDefs'] = {}) {
	const reference = definition.optionsReference;
	if (definition.options?.length || !reference?.includes('.')) return { definition, optionSource: { scope, field } };
	const [referencedScope, referencedField] = reference.split('.');
	const options = entityDefs[referencedScope]?.fields?.[referencedField]?.options;
	if (!options?.length) return { definition, optionSource: { scope, field } };
	return { definition: { ...definition, options }, optionSource: { scope: referencedScope, field: referencedField } };
}

function attributesOfEntity(scope: string, fields: Record<string, FieldDef>, labels: Labels, entityDefs?: Metadata['entityDefs']): Attribute[] {
	const attributes = Object.entries(fields)
		.filter(([, definition]) => !definition.disabled && !definition.utility)
		.map(([field, definition]) => [field, withReferencedOptions(scope, field, definition, entityDefs)] as const)
		.flatMap(([field, { definition, optionSource }]) =>
			attributesOf(scope, field, definition, labels, optionSource).map((attribute) => ({
				...attribute,
				carriesRequired: attribute.carriesRequired === true && definition.required === true,
			})),
		);
	// EspoCRM lists some attributes also as fields of their own (an address's parts): each is offered once.
	return [...new Map(attributes.map((attribute) => [attribute.name, attribute])).values()];
}

/**
 * Every attribute of the records a relationship leads to, as a list query's `select`: EspoCRM 8 answers a list of
 * related records without `select` with little more than their IDs. Undefined when the metadata does not say.
 */
export function relatedRecordSelect(metadata: IDataObject, entityType: string, link: string): string | undefined {
	const defs = (metadata as Metadata).entityDefs ?? {};
	const foreign = defs[entityType]?.links?.[link]?.entity;
	const fields = foreign ? defs[foreign]?.fields : undefined;
	if (!foreign || !fields) return undefined;
	return [...new Set(['id', ...attributesOfEntity(foreign, fields, new Labels()).map((attribute) => attribute.name)])].join(',');
}

/** The interface's own fields for a Standard server: only those the chosen entity type has. */
function interfaceAttributes(entityType: string): Attribute[] {
	const own = INTERFACE_FIELDS.filter((field) => !field.notOn?.includes(entityType)).map(
		(field): Attribute => ({ name: field.field, label: field.label, type: field.kind, writable: true, sortable: true }),
	);
	const fixed = (name: string, label: string, type: FieldType): Attribute => ({ name, label, type, writable: false, sortable: true });
	return [fixed('id', 'ID', 'string'), ...own, fixed('createdAt', 'Created At', 'dateTime'), fixed('modifiedAt', 'Modified At', 'dateTime')];
}

/** The attributes of the records the list is about (`listedEntityType`): from the metadata, or the interface's for a Standard server. */
function attributesFor(context: ILoadOptionsFunctions, server: Server): Attribute[] {
	if (!server.metadata) return interfaceAttributes(listedEntityType(context));
	const { entityType, fields } = definitionOf(context, server.metadata, listedEntityType(context, server.metadata));
	const id: Attribute = { name: 'id', label: 'ID', type: 'string', writable: false, sortable: true };
	// EspoCRM's metadata lists `id` among the fields too: offered once, as the fixed one.
	return [id, ...attributesOfEntity(entityType, fields, server.labels, server.metadata.entityDefs).filter((attribute) => attribute.name !== 'id')];
}

const asOptions = (attributes: Attribute[]) =>
	attributes.map(({ name, label }) => ({ name: labelled(label, name), value: name })).sort(byName);

/** The relationships of an entity type (the chosen one unless given), with the type each leads to where the server says. */
function relationshipsOf(context: ILoadOptionsFunctions, server: Server, of = chosenEntityType(context)): INodePropertyOptions[] {
	if (!server.metadata) return STANDARD_LINKS.map((link) => ({ name: link, value: link }));
	const { entityType, links } = definitionOf(context, server.metadata, of);
	return Object.entries(links)
		.filter(([, link]) => ['hasMany', 'belongsTo', 'hasOne', 'hasChildren'].includes(link.type))
		.map(([link, definition]) => {
			const to = definition.entity ? ` → ${server.labels.scope(definition.entity)}` : '';
			return { name: `${labelled(server.labels.link(entityType, link), link)}${to}`, value: link };
		})
		.sort(byName);
}

/** The Standard interface's common relationships, and the entity type each leads to. */
const STANDARD_LINK_TARGETS: Record<string, string> = {
	account: 'Account',
	accounts: 'Account',
	contacts: 'Contact',
	emails: 'Email',
	leads: 'Lead',
	opportunities: 'Opportunity',
	teams: 'Team',
};
const STANDARD_LINKS = Object.keys(STANDARD_LINK_TARGETS);

/** Fields to Return: everything a record can show. */
export async function getFields(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return asOptions(attributesFor(this, await readServer(this)));
}

/** Sort By and Create or Update's Match By: stored attributes of one value. */
export async function getSortableFields(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return asOptions(attributesFor(this, await readServer(this)).filter((attribute) => attribute.sortable));
}

/** Relationship names, with the entity type each leads to. */
export async function getLinks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return [...relationshipsOf(this, await readServer(this)), { name: 'Other (Enter Name)', value: 'custom' }];
}

/** What a filter condition can name: the fields, and the relationships for the "Linked" operators. */
export async function getFilterAttributes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const server = await readServer(this);
	const links = relationshipsOf(this, server, listedEntityType(this, server.metadata)).map(({ name, value }) => ({ name: `${name} (relationship)`, value }));
	const attributes = attributesFor(this, server).filter((attribute) => attribute.sortable || attribute.type === 'array');
	const valuesOf = new Map(attributes.map((attribute) => [attribute.name, attribute.options]));
	// A filter's value is typed in: the values an enum field takes (its own or those it references) are shown with it.
	const withValues = asOptions(attributes).map((option) => {
		const values = valuesOf.get(option.value)?.filter((value) => value.value !== '');
		if (!values?.length) return option;
		const shown = values.map(({ name, value }) => (name === String(value) ? String(value) : `${String(value)} (${name})`));
		return { ...option, description: `Values: ${shown.join(', ')}` };
	});
	return [...withValues, ...links];
}

/** The writable fields for n8n's field mapper, typed, labelled, with the server's values for enum fields. */
export async function getMappingFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	// Required fields are marked only where a record is created; an update or mass update may leave them out.
	const operation = this.getCurrentNodeParameter('operation');
	const creating = operation === 'create' || operation === 'upsert';
	const attributes = attributesFor(this, await readServer(this)).filter((attribute) => attribute.writable);
	return {
		fields: attributes.map((attribute): ResourceMapperField => {
			// n8n refuses a literal `a, b` in a field of type "array" before the run: lists are text that says so.
			const isList = attribute.type === 'array';
			return {
				id: attribute.name,
				displayName: labelled(attribute.label, attribute.name, isList ? LABEL_LIST : attribute.hint),
				required: creating && attribute.carriesRequired === true,
				defaultMatch: false,
				canBeUsedToMatch: false,
				display: true,
				type: isList ? 'string' : attribute.type,
				...(attribute.options ? { options: attribute.options } : {}),
			};
		}),
	};
}
