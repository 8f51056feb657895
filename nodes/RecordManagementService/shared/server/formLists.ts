import type {
	ILoadOptionsFunctions,
	INodePropertyOptions,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { LABEL_LIST } from '../fields/fieldMapper';
import { ENTITY_TYPE_OPTIONS } from '../fields/target';
import { readFailure } from '../http/failure';
import { apiRequest } from '../http/request';
import { runOf } from '../http/run';
import type { Item } from '../item/item';
import { entityTypeOf } from '../item/validation';
import { Labels, attributesOfEntity, interfaceAttributes, labelled } from './attributes';
import type { Attribute, Translations } from './attributes';
import { dialectOf } from './dialect';
import { readMetadata } from './metadata';
import type { Metadata } from './metadata';

/**
 * The form's lists. With the EspoCRM server they come from `GET /Metadata` and, for the labels users know from the
 * CRM, `GET /I18n` (both read when the user opens a list; never during an execution). A Standard server has neither:
 * the lists are those of the interface, and free text and expressions work with either.
 */

export interface Server {
	/** Undefined for a Standard server, which has no metadata. */
	metadata?: Metadata;
	labels: Labels;
	/** EspoCRM's labels as it sends them (`GET /I18n`), for what Labels does not name. */
	translations: Translations;
}

/**
 * The metadata and labels of the credential's server, for the form's lists. Sent as the node's other requests are
 * (http/): never to another origin, within the Timeout, read up to a bound, checked to be JSON.
 */
export async function readServer(context: ILoadOptionsFunctions): Promise<Server> {
	const run = runOf(context);
	if ((await dialectOf(run)) !== 'espocrm') return { labels: new Labels(), translations: {} };
	const [metadata, translations] = await Promise.all([
		readMetadata(run, 0).catch((error) => {
			const { status, reason } = readFailure(error);
			throw new NodeApiError(
				context.getNode(),
				{ message: reason, httpCode: status === undefined ? null : String(status) },
				{
					message: `Could not read the server's metadata${status ? ` (${status}${reason ? `: ${reason}` : ''})` : `: ${(error as Error).message}`}`,
					description:
						"The lists are filled from EspoCRM's metadata. Check the credential, or type the name into the field as an expression instead.",
				},
			);
		}),
		// Labels are a convenience: without them the lists show names.
		apiRequest<Translations>(run, 0, {
			method: 'GET',
			url: '/I18n',
			qs: { default: 'true' },
		}).catch(() => ({}) as Translations),
	]);
	return { metadata, labels: new Labels(translations), translations };
}

/** The form as a parameter reader for the shared helpers (item 0). */
function formItem(context: ILoadOptionsFunctions): Item {
	return {
		run: runOf(context),
		index: 0,
		node: context.getNode(),
		timeZone: context.getTimezone(),
		json: {},
		parameter: <T>(name: string, fallback?: T) =>
			(context.getCurrentNodeParameter(name) ?? fallback) as T,
		refuse: (parameter, problem, description) =>
			new NodeOperationError(context.getNode(), `The parameter "${parameter}" ${problem}`, {
				description,
			}),
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
export function listedEntityType(context: ILoadOptionsFunctions, metadata?: Metadata): string {
	const entityType = chosenEntityType(context);
	if (context.getCurrentNodeParameter('operation') !== 'getManyRelated') return entityType;
	const chosen = context.getCurrentNodeParameter('link');
	const link = String(
		(chosen === 'custom' ? context.getCurrentNodeParameter('customLink') : chosen) ?? '',
	);
	if (!metadata) return STANDARD_LINK_TARGETS[link] ?? entityType;
	return metadata.entityDefs?.[entityType]?.links?.[link]?.entity ?? entityType;
}

function definitionOf(
	context: ILoadOptionsFunctions,
	metadata: Metadata,
	entityType = chosenEntityType(context),
) {
	const definition = metadata.entityDefs?.[entityType];
	if (!definition) {
		throw new NodeOperationError(
			context.getNode(),
			`The server's metadata has no entity type "${entityType}"`,
			{
				description: "Check the entity type, or the API user's access to it.",
			},
		);
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
		.map(([name, scope]) => ({
			name: entityTypeLabel(name, labels.scope(name), scope.isCustom),
			value: name,
		}))
		.sort(byName);
	return [...reachable, ENTITY_TYPE_OPTIONS[ENTITY_TYPE_OPTIONS.length - 1]];
}

/** The attributes of the records the list is about (`listedEntityType`): from the metadata, or the interface's for a Standard server. */
function attributesFor(context: ILoadOptionsFunctions, server: Server): Attribute[] {
	if (!server.metadata) return interfaceAttributes(listedEntityType(context));
	const { entityType, fields } = definitionOf(
		context,
		server.metadata,
		listedEntityType(context, server.metadata),
	);
	const id: Attribute = {
		name: 'id',
		label: 'ID',
		type: 'string',
		writable: false,
		sortable: true,
	};
	// EspoCRM's metadata lists `id` among the fields too: offered once, as the fixed one.
	return [
		id,
		...attributesOfEntity(entityType, fields, server.labels, server.metadata.entityDefs).filter(
			(attribute) => attribute.name !== 'id',
		),
	];
}

const asOptions = (attributes: Attribute[]) =>
	attributes.map(({ name, label }) => ({ name: labelled(label, name), value: name })).sort(byName);

/** The relationships of an entity type (the chosen one unless given), with the type each leads to where the server says. */
function relationshipsOf(
	context: ILoadOptionsFunctions,
	server: Server,
	of = chosenEntityType(context),
): INodePropertyOptions[] {
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
export async function getSortableFields(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return asOptions(
		attributesFor(this, await readServer(this)).filter((attribute) => attribute.sortable),
	);
}

/** Relationship names, with the entity type each leads to. */
export async function getLinks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return [
		...relationshipsOf(this, await readServer(this)),
		{ name: 'Other (Enter Name)', value: 'custom' },
	];
}

/** What a filter condition can name: the fields, and the relationships for the "Linked" operators. */
export async function getFilterAttributes(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const server = await readServer(this);
	const links = relationshipsOf(this, server, listedEntityType(this, server.metadata)).map(
		({ name, value }) => ({ name: `${name} (relationship)`, value }),
	);
	const attributes = attributesFor(this, server).filter(
		(attribute) => attribute.sortable || attribute.type === 'array',
	);
	const valuesOf = new Map(attributes.map((attribute) => [attribute.name, attribute.options]));
	// A filter's value is typed in: the values an enum field takes (its own or those it references) are shown with it.
	const withValues = asOptions(attributes).map((option) => {
		const values = valuesOf.get(option.value)?.filter((value) => value.value !== '');
		if (!values?.length) return option;
		const shown = values.map(({ name, value }) =>
			name === String(value) ? String(value) : `${String(value)} (${name})`,
		);
		return { ...option, description: `Values: ${shown.join(', ')}` };
	});
	return [...withValues, ...links];
}

/** The writable fields for n8n's field mapper, typed, labelled, with the server's values for enum fields. */
export async function getMappingFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	// Required fields are marked only where a record is created; an update or mass update may leave them out.
	const operation = this.getCurrentNodeParameter('operation');
	const creating = operation === 'create' || operation === 'upsert';
	const attributes = attributesFor(this, await readServer(this)).filter(
		(attribute) => attribute.writable,
	);
	return {
		fields: attributes.map((attribute): ResourceMapperField => {
			// n8n refuses a literal `a, b` in a field of type "array" before the run: lists are text that says so.
			const isList = attribute.type === 'array';
			return {
				id: attribute.name,
				displayName: labelled(
					attribute.label,
					attribute.name,
					isList ? LABEL_LIST : attribute.hint,
				),
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
