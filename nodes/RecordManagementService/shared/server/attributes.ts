import type { FieldType, IDataObject, INodePropertyOptions } from 'n8n-workflow';

import { LABEL_DATE_ONLY, LABEL_DATE_OR_DATE_TIME } from '../fields/fieldMapper';
import { INTERFACE_FIELDS } from '../fields/recordBody';
import type { FieldDef, Metadata } from './metadata';

/**
 * The attributes of an entity type as the API reads and writes them, from its fields in the metadata (or the
 * interface's fields for a Standard server), labelled as the CRM labels them.
 */

/** EspoCRM's translations: `<Scope>.fields`, `.links`, `.options.<field>`, and `Global.scopeNames`. */
export type Translations = Record<
	string,
	{
		fields?: IDataObject;
		links?: IDataObject;
		options?: Record<string, IDataObject>;
		scopeNames?: IDataObject;
	}
>;

/** Labels as the CRM shows them, falling back to names where the server gives none. */
export class Labels {
	constructor(private readonly translations: Translations = {}) {}

	private text(value: unknown) {
		return typeof value === 'string' && value.trim() !== '' ? value : undefined;
	}

	scope(name: string) {
		return this.text(this.translations.Global?.scopeNames?.[name]) ?? name;
	}

	field(scope: string, field: string) {
		return (
			this.text(this.translations[scope]?.fields?.[field]) ??
			this.text(this.translations.Global?.fields?.[field]) ??
			field
		);
	}

	link(scope: string, link: string) {
		return (
			this.text(this.translations[scope]?.links?.[link]) ??
			this.text(this.translations.Global?.links?.[link]) ??
			link
		);
	}

	option(scope: string, field: string, value: string | number) {
		return (
			this.text(this.translations[scope]?.options?.[field]?.[String(value)]) ??
			(value === '' ? '(None)' : String(value))
		);
	}
}

/**
 * "Do Not Call (doNotCall)": the label users know, and the name the API and expressions use; with a hint on how a
 * value is written where the type does not say it ("Close Date (closeDate, date only)").
 */
export function labelled(label: string, name: string, hint?: string) {
	const inParentheses = [label === name ? undefined : name, hint].filter(Boolean).join(', ');
	return inParentheses ? `${label} (${inParentheses})` : label;
}

/** One attribute as the API reads and writes it (a field may have several: a link is written as `<field>Id`). */
export interface Attribute {
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

function attributesOf(
	scope: string,
	field: string,
	definition: FieldDef,
	labels: Labels,
	optionSource: OptionSource = { scope, field },
): Attribute[] {
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
	const part = (
		suffix: string,
		partLabel: string,
		type: FieldType,
		extra: Partial<Attribute> = {},
	): Attribute => ({
		name: `${field}${suffix}`,
		label: `${label} ${partLabel}`,
		type,
		writable,
		sortable,
		...extra,
	});
	switch (definition.type) {
		case 'link':
			return [
				part('Id', 'ID', 'string', { carriesRequired: true }),
				part('Name', 'Name', 'string', { writable: false }),
			];
		case 'linkOne':
		case 'foreign':
			return definition.type === 'foreign'
				? [one('string', { writable: false })]
				: [
						part('Id', 'ID', 'string', { writable: false }),
						part('Name', 'Name', 'string', { writable: false }),
					];
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
			return [
				part('Id', '(Attachment ID)', 'string', { carriesRequired: true }),
				part('Name', 'Name', 'string', { writable: false }),
			];
		case 'attachmentMultiple':
			return [part('Ids', '(Attachment IDs)', 'array', { sortable: false, carriesRequired: true })];
		case 'currency':
			return [one('number'), part('Currency', 'Currency', 'string')];
		case 'rangeInt':
		case 'rangeFloat':
		case 'rangeCurrency':
			return [
				part('From', 'From', 'number', { carriesRequired: true }),
				part('To', 'To', 'number'),
			];
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
					options: (definition.options ?? []).map((value) => ({
						name: labels.option(optionSource.scope, optionSource.field, value),
						value,
					})),
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
function withReferencedOptions(
	scope: string,
	field: string,
	definition: FieldDef,
	entityDefs: Metadata['entityDefs'] = {},
) {
	const reference = definition.optionsReference;
	if (definition.options?.length || !reference?.includes('.'))
		return { definition, optionSource: { scope, field } };
	const [referencedScope, referencedField] = reference.split('.');
	const options = entityDefs[referencedScope]?.fields?.[referencedField]?.options;
	if (!options?.length) return { definition, optionSource: { scope, field } };
	return {
		definition: { ...definition, options },
		optionSource: { scope: referencedScope, field: referencedField },
	};
}

export function attributesOfEntity(
	scope: string,
	fields: Record<string, FieldDef>,
	labels: Labels,
	entityDefs?: Metadata['entityDefs'],
): Attribute[] {
	const attributes = Object.entries(fields)
		.filter(([, definition]) => !definition.disabled && !definition.utility)
		.map(
			([field, definition]) =>
				[field, withReferencedOptions(scope, field, definition, entityDefs)] as const,
		)
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
export function relatedRecordSelect(
	metadata: Metadata,
	entityType: string,
	link: string,
): string | undefined {
	const defs = metadata.entityDefs ?? {};
	const foreign = defs[entityType]?.links?.[link]?.entity;
	const fields = foreign ? defs[foreign]?.fields : undefined;
	if (!foreign || !fields) return undefined;
	return [
		...new Set([
			'id',
			...attributesOfEntity(foreign, fields, new Labels()).map((attribute) => attribute.name),
		]),
	].join(',');
}

/** The interface's own fields for a Standard server: only those the chosen entity type has. */
export function interfaceAttributes(entityType: string): Attribute[] {
	const own = INTERFACE_FIELDS.filter((field) => !field.notOn?.includes(entityType)).map(
		(field): Attribute => ({
			name: field.field,
			label: field.label,
			type: field.kind,
			writable: true,
			sortable: true,
		}),
	);
	const fixed = (name: string, label: string, type: FieldType): Attribute => ({
		name,
		label,
		type,
		writable: false,
		sortable: true,
	});
	return [
		fixed('id', 'ID', 'string'),
		...own,
		fixed('createdAt', 'Created At', 'dateTime'),
		fixed('modifiedAt', 'Modified At', 'dateTime'),
	];
}
