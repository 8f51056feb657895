import type { IDataObject } from 'n8n-workflow';

import { forItem } from '../http/errors';
import { apiRequest } from '../http/request';
import type { Run } from '../http/run';

/**
 * The server's metadata (EspoCRM's `GET /Metadata`): which entity types there are, their fields, links and default
 * order. The one place it is read, for the form's lists and for what a run needs of it, each part once per run.
 */

export interface FieldDef {
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

export interface LinkDef {
	type: string;
	entity?: string;
}

/** What Return All reads of an entity type's metadata: its default order and its fields' types. */
export interface EntityDefs {
	fields?: Record<string, FieldDef>;
	links?: Record<string, LinkDef>;
	collection?: { orderBy?: string; order?: string };
}

export interface Metadata {
	scopes?: Record<
		string,
		{ entity?: boolean; object?: boolean; isCustom?: boolean; disabled?: boolean; stream?: boolean }
	>;
	entityDefs?: Record<string, EntityDefs>;
}

/**
 * `GET /Metadata`, or the part of it under `key` (`GET /Metadata?key=entityDefs.Contact`), read once per run and key.
 * EspoCRM 8.2 and later answer a key with that part alone, to any user (Controllers/Metadata::getActionRead,
 * Tools/App/MetadataService::getDataForFrontendByKey: 13 KB for Contact on 9.1.7, where the whole is 276 KB on 8.1.5);
 * earlier versions ignore the key and send the whole (see `entityDefsOfRun`). A failure is kept too: the run does not
 * ask again.
 */
export async function readMetadata<T = Metadata>(
	run: Run,
	itemIndex: number,
	key?: string,
): Promise<T> {
	return await run
		.once(
			`metadata ${key ?? ''}`,
			async () =>
				await apiRequest<T>(run, itemIndex, {
					method: 'GET',
					url: '/Metadata',
					...(key === undefined ? {} : { qs: { key } }),
				}),
		)
		.catch((error: unknown) => {
			// The kept failure was the first asker's: each item fails as itself.
			throw forItem(error, itemIndex);
		});
}

/**
 * The scopes of an EspoCRM server's metadata (which entity types there are, which have a stream), for a check an
 * execution makes before it sends (Stream > Post and Follow). Read by the first item that asks, and only by the
 * operations that ask: the metadata is a few hundred kilobytes. Undefined when it cannot be read (the check is then
 * left to the server).
 */
export async function scopesOfRun(run: Run, itemIndex: number): Promise<Metadata['scopes']> {
	return await readMetadata(run, itemIndex).then(
		(metadata) => metadata?.scopes,
		() => undefined,
	);
}

/**
 * The metadata of one entity type (its `entityDefs`), by key. Return All asks for it only once a first page came back
 * full. EspoCRM has no narrower read for a user who is not an administrator (`GET /Metadata/action/get?key=` is for
 * administrators only). On 9.1.7 both reads take the server about as long (it builds the whole metadata either way):
 * the narrow read saves bytes, and n8n's parsing of them. Undefined when the server does not give it (a type the user
 * may not reach: 8.2+ answer with an empty body; a refusal): Return All then pages by offset.
 */
export async function entityDefsOfRun(
	run: Run,
	itemIndex: number,
	entityType: string,
): Promise<EntityDefs | undefined> {
	return await readMetadata<IDataObject | null>(run, itemIndex, `entityDefs.${entityType}`).then(
		(answer) => entityDefsIn(answer, entityType),
		() => undefined,
	);
}

/** The entity type's part of an answer to `GET /Metadata?key=entityDefs.<Type>`: itself (8.2+), or taken from the whole (before 8.2). */
function entityDefsIn(
	answer: IDataObject | null | undefined,
	entityType: string,
): EntityDefs | undefined {
	if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return undefined;
	const whole = answer.entityDefs;
	if (whole !== undefined) {
		const defs =
			whole !== null && typeof whole === 'object' ? (whole as IDataObject)[entityType] : undefined;
		return defs !== null && typeof defs === 'object' ? (defs as EntityDefs) : undefined;
	}
	return answer as EntityDefs;
}
