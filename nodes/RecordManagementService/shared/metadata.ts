import type {
	FieldType,
	ILoadOptionsFunctions,
	INodePropertyOptions,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { ENTITY_TYPE_OPTIONS } from './descriptions';
import { dialectOf } from './dialect';
import { readFailure } from './errors';
import { CREDENTIAL_TYPE } from './transport';
import { entityTypeFrom } from './validation';

/**
 * The form's lists. With the EspoCRM server they come from `GET /Metadata` (read once per list, when the user opens
 * it; never during an execution). A Standard server has no metadata: the lists are those of the interface, and free
 * text and expressions work with either.
 */

interface FieldDef {
	type: string;
	required?: boolean;
	readOnly?: boolean;
	notStorable?: boolean;
	disabled?: boolean;
	utility?: boolean;
	options?: string[];
}

interface LinkDef {
	type: string;
	entity?: string;
}

interface Metadata {
	scopes?: Record<string, { entity?: boolean; object?: boolean; isCustom?: boolean; disabled?: boolean }>;
	entityDefs?: Record<string, { fields?: Record<string, FieldDef>; links?: Record<string, LinkDef> }>;
}

/** The fields of the interface as specified, for servers without metadata. */
const INTERFACE_ATTRIBUTES: Array<[string, FieldType]> = [
	['id', 'string'],
	['name', 'string'],
	['firstName', 'string'],
	['lastName', 'string'],
	['emailAddress', 'string'],
	['phoneNumber', 'string'],
	['description', 'string'],
	['accountId', 'string'],
	['assignedUserId', 'string'],
	['status', 'string'],
	['amount', 'number'],
	['createdAt', 'dateTime'],
	['modifiedAt', 'dateTime'],
];

const READ_ONLY_ATTRIBUTES = new Set(['id', 'createdAt', 'modifiedAt']);

const STANDARD_LINKS = ['account', 'accounts', 'contacts', 'emails', 'leads', 'opportunities', 'teams'];

async function readMetadata(context: ILoadOptionsFunctions): Promise<Metadata | undefined> {
	if ((await dialectOf(context)) !== 'espocrm') return undefined;
	try {
		return (await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, {
			method: 'GET',
			url: '/Metadata',
			json: true,
		})) as Metadata;
	} catch (error) {
		const { status, reason } = readFailure(error);
		throw new NodeApiError(context.getNode(), { message: reason, httpCode: status === undefined ? null : String(status) }, {
			message: `Could not read the server's metadata${status ? ` (${status}${reason ? `: ${reason}` : ''})` : ''}`,
			description:
				'The lists are filled from EspoCRM\'s metadata. Check the credential, or type the name into the field as an expression instead.',
		});
	}
}

/** The entity type the form is about: Lead > Convert has no entity type parameter of its own. */
export function chosenEntityType(context: ILoadOptionsFunctions): string {
	if (context.getCurrentNodeParameter('resource') === 'lead') return 'Lead';
	const chosen = context.getCurrentNodeParameter('entityType') ?? 'Contact';
	return entityTypeFrom(context, chosen, () => context.getCurrentNodeParameter('customEntityType'), 0);
}

function definitionOf(context: ILoadOptionsFunctions, metadata: Metadata) {
	const entityType = chosenEntityType(context);
	const definition = metadata.entityDefs?.[entityType];
	if (!definition) {
		throw new NodeOperationError(context.getNode(), `The server's metadata has no entity type "${entityType}"`, {
			description: "Check the entity type, or the API user's access to it.",
		});
	}
	return definition;
}

const byName = (a: INodePropertyOptions, b: INodePropertyOptions) => a.name.localeCompare(b.name);

/** Custom types made in EspoCRM's entity manager are named with a "C" before the name users gave them. */
function entityTypeLabel(name: string, isCustom?: boolean) {
	return isCustom ? `${/^C[A-Z]/.test(name) ? name.slice(1) : name} (${name}, custom)` : name;
}

export async function getEntityTypes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const metadata = await readMetadata(this);
	if (!metadata) return ENTITY_TYPE_OPTIONS;
	const reachable = Object.entries(metadata.scopes ?? {})
		.filter(([, scope]) => scope.entity && scope.object && !scope.disabled)
		.map(([name, scope]) => ({ name: entityTypeLabel(name, scope.isCustom), value: name }))
		.sort(byName);
	return [...reachable, ENTITY_TYPE_OPTIONS[ENTITY_TYPE_OPTIONS.length - 1]];
}

interface Attribute {
	name: string;
	label: string;
	type: FieldType;
	field: string;
	definition: FieldDef;
}

/**
 * n8n's field mapper keeps, of each field, only its id, label and n8n type: the label is what tells a date field
 * (sent as YYYY-MM-DD) from a date-time field (sent as YYYY-MM-DD HH:MM:SS in UTC) when values are converted.
 */
export const DATE_ONLY_LABEL = '(date only)';

const ADDRESS_PARTS = ['Street', 'City', 'State', 'Country', 'PostalCode'];

/** The attributes a field is read and written as: a link as `<field>Id`, a currency with `<field>Currency`, … */
function attributesOf(field: string, definition: FieldDef): Attribute[] {
	const one = (name: string, type: FieldType, label = field): Attribute => ({ name, label, type, field, definition });
	switch (definition.type) {
		case 'link':
			return [one(`${field}Id`, 'string', `${field} (ID)`)];
		case 'linkMultiple':
			return [one(`${field}Ids`, 'array', `${field} (IDs)`)];
		case 'linkParent':
			return [one(`${field}Type`, 'string', `${field} (Type)`), one(`${field}Id`, 'string', `${field} (ID)`)];
		case 'currency':
			return [one(field, 'number'), one(`${field}Currency`, 'string', `${field} (Currency)`)];
		case 'personName':
			return [];
		case 'address':
			return ADDRESS_PARTS.map((part) => one(`${field}${part}`, 'string', `${field} (${part})`));
		case 'int':
		case 'float':
			return [one(field, 'number')];
		case 'bool':
			return [one(field, 'boolean')];
		case 'date':
			return [one(field, 'dateTime', `${field} ${DATE_ONLY_LABEL}`)];
		case 'datetime':
			return [one(field, 'dateTime')];
		case 'enum':
			return [one(field, 'options')];
		case 'multiEnum':
		case 'array':
			return [one(field, 'array')];
		default:
			return [one(field, 'string')];
	}
}

function attributesOfEntity(fields: Record<string, FieldDef>): Attribute[] {
	return Object.entries(fields)
		.filter(([, definition]) => !definition.disabled && !definition.utility)
		.flatMap(([field, definition]) => attributesOf(field, definition));
}

// Each list below reads the metadata once; the helpers take what was read.

function fieldOptions(context: ILoadOptionsFunctions, metadata: Metadata | undefined): INodePropertyOptions[] {
	if (!metadata) return INTERFACE_ATTRIBUTES.map(([name]) => ({ name, value: name }));
	const attributes = attributesOfEntity(definitionOf(context, metadata).fields ?? {});
	const options = [{ name: 'ID', value: 'id' }, ...attributes.map(({ name }) => ({ name, value: name }))];
	return [...new Map(options.map((option) => [option.value, option])).values()].sort(byName);
}

/** The relationships of the chosen entity type, with the entity type each leads to where the server says. */
function relationshipsOf(context: ILoadOptionsFunctions, metadata: Metadata | undefined): Array<{ link: string; entity?: string }> {
	if (!metadata) return STANDARD_LINKS.map((link) => ({ link }));
	return Object.entries(definitionOf(context, metadata).links ?? {})
		.filter(([, link]) => ['hasMany', 'belongsTo', 'hasOne', 'hasChildren'].includes(link.type))
		.map(([link, definition]) => ({ link, entity: definition.entity }));
}

/** Field names for Fields to Return, Sort By and Create or Update's match field. */
export async function getFields(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return fieldOptions(this, await readMetadata(this));
}

/** Relationship names, with the entity type each leads to. */
export async function getLinks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const links = relationshipsOf(this, await readMetadata(this))
		.map(({ link, entity }) => ({ name: entity ? `${link} (${entity})` : link, value: link }))
		.sort(byName);
	return [...links, { name: 'Other (Enter Name)', value: 'custom' }];
}

/** What a filter condition can name: the fields, and the relationships for the "Linked" operators. */
export async function getFilterAttributes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const metadata = await readMetadata(this);
	const links = relationshipsOf(this, metadata).map(({ link, entity }) => ({
		name: `${link} (relationship${entity ? ` to ${entity}` : ''})`,
		value: link,
	}));
	return [...fieldOptions(this, metadata), ...links.sort(byName)];
}

/** The writable fields for n8n's field mapper, typed, with the server's values for enum fields. */
export async function getMappingFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	// Required fields are marked only where a record is created; an update or mass update may leave them out.
	const operation = this.getCurrentNodeParameter('operation');
	const creating = operation === 'create' || operation === 'upsert';
	const metadata = await readMetadata(this);
	if (!metadata) {
		return {
			fields: INTERFACE_ATTRIBUTES.filter(([name]) => !READ_ONLY_ATTRIBUTES.has(name)).map(([name, type]) =>
				mapperField(name, name, type, false),
			),
		};
	}
	const writable = Object.fromEntries(
		Object.entries(definitionOf(this, metadata).fields ?? {}).filter(([, field]) => !field.readOnly && !field.notStorable),
	);
	// EspoCRM lists some attributes also as fields of their own (an address's parts): each is offered once.
	const attributes = [...new Map(attributesOfEntity(writable).map((attribute) => [attribute.name, attribute])).values()];
	return {
		fields: attributes.map((attribute) =>
			mapperField(
				attribute.name,
				attribute.label,
				attribute.type,
				creating && attribute.definition.required === true && attribute.name === attribute.field,
				attribute.definition.options,
			),
		),
	};
}

function mapperField(id: string, label: string, type: FieldType, required: boolean, options?: string[]): ResourceMapperField {
	return {
		id,
		displayName: label === id ? id : label,
		required,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type,
		...(type === 'options' ? { options: (options ?? []).map((value) => ({ name: value === '' ? '(None)' : value, value })) } : {}),
	};
}
