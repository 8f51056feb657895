import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { KeysetOrder } from './keyset';
import { apiRequest, runOf } from '../http/request';
import type { RequestContext } from '../http/request';

/**
 * Field types that EspoCRM 8 and 9 sort by their own column, and compare in `where` (`greaterThan`, `equals`,
 * `isNull`) with the column's collation as ORDER BY does: text as MariaDB's utf8mb4_unicode_ci sorts it (letter
 * case and trailing spaces ignored, in the sort and in the comparison alike), numbers, dates, date-times. Not here,
 * paged by offset: enum (sorted by its options' order), link and link-parent (by the related record's name),
 * person names and addresses (by several columns), e-mail and phone (by the primary address, compared with all of
 * them), currency, float, bool, text and the rest.
 */
const KEYSET_FIELD_TYPES = new Set(['id', 'varchar', 'url', 'int', 'autoincrement', 'date', 'datetime']);

/** What Return All reads of an entity type's metadata: its default order and its fields' types. */
export interface EntityDefs {
	fields?: Record<string, { type?: string }>;
	collection?: { orderBy?: string; order?: string };
}

/**
 * Whether Return All may follow on from the last record read at all, before anything is known of the entity type:
 * not with Search Text (EspoCRM may order a full-text search by relevance first).
 */
export function mayFollowOn(qs: IDataObject): boolean {
	return qs.textFilter === undefined && qs.q === undefined;
}

/**
 * The order Return All can page in from the last record read (version 1.1 on), EspoCRM's own for the list: the
 * chosen Sort By (ascending unless Sort Order says otherwise), else the entity type's default
 * (`entityDefs.<Type>.collection`: Contact by createdAt, descending), else the ID. This is the order EspoCRM gives
 * a list request without `orderBy` and `order` (Select/SelectBuilder::applyDefaultOrder, the ID breaking ties in the
 * same direction), so the first page can be asked for before this is known. Undefined where paging must count an
 * offset: a field type whose order a `where` cannot follow exactly (KEYSET_FIELD_TYPES), metadata the server does not
 * give (`defs` undefined).
 */
export function keysetOrderOf(qs: IDataObject, defs: EntityDefs | undefined): KeysetOrder | undefined {
	if (!mayFollowOn(qs) || defs === undefined) return undefined;
	const chosen = typeof qs.orderBy === 'string' && qs.orderBy !== '';
	const field = chosen ? (qs.orderBy as string) : (defs.collection?.orderBy ?? 'id');
	const order = String(qs.order ?? (chosen ? 'asc' : (defs.collection?.order ?? 'asc'))).toLowerCase();
	if (order !== 'asc' && order !== 'desc') return undefined;
	const type = field === 'id' ? 'id' : defs.fields?.[field]?.type;
	if (type === undefined || !KEYSET_FIELD_TYPES.has(type)) return undefined;
	return { field, order };
}

/** The entity types' metadata read in a run (see `entityDefsOfRun`). */
const entityDefsOfRuns = new WeakMap<object, Map<string, Promise<EntityDefs | undefined>>>();

/**
 * The metadata of one entity type (its `entityDefs`), read once per run and entity type. Return All asks for it only
 * once a first page came back full. EspoCRM 8.2 and later answer `GET /Metadata?key=entityDefs.<Type>` with that part
 * alone, to any user (Controllers/Metadata::getActionRead, Tools/App/MetadataService::getDataForFrontendByKey: 13 KB
 * for Contact on 9.1.7); earlier versions ignore the key and send the whole metadata (276 KB for the tests' API user
 * on 8.1.5), of which this part is kept. EspoCRM has no narrower read for a user who is not an administrator (`GET
 * /Metadata/action/get?key=` is for administrators only). On 9.1.7 both take the server about as long (it builds the
 * whole metadata either way): the narrow read saves bytes, and n8n's parsing of them. Undefined when the server does
 * not give it (a type the user may not reach: 8.2+ answer with an empty body; a refusal): Return All then pages by
 * offset.
 */
export async function entityDefsOfRun(context: RequestContext, itemIndex: number, entityType: string): Promise<EntityDefs | undefined> {
	const run = runOf(context);
	let ofRun = entityDefsOfRuns.get(run);
	if (!ofRun) entityDefsOfRuns.set(run, (ofRun = new Map()));
	let defs = ofRun.get(entityType);
	if (!defs) {
		defs = apiRequest<IDataObject | null>(context, itemIndex, { method: 'GET', url: '/Metadata', qs: { key: `entityDefs.${entityType}` } }).then(
			(answer) => entityDefsIn(answer, entityType),
			() => undefined,
		);
		ofRun.set(entityType, defs);
	}
	return await defs;
}

/** The entity type's part of an answer to `GET /Metadata?key=entityDefs.<Type>`: itself (8.2+), or taken from the whole (before 8.2). */
function entityDefsIn(answer: IDataObject | null | undefined, entityType: string): EntityDefs | undefined {
	if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return undefined;
	const whole = answer.entityDefs;
	if (whole !== undefined) {
		const defs = whole !== null && typeof whole === 'object' ? (whole as IDataObject)[entityType] : undefined;
		return defs !== null && typeof defs === 'object' ? (defs as EntityDefs) : undefined;
	}
	return answer as EntityDefs;
}

/** The server's whole metadata, read at the first call of the run only. */
export function metadataOnce(context: IExecuteFunctions): () => Promise<IDataObject> {
	let metadata: Promise<IDataObject> | undefined;
	return async () => await (metadata ??= apiRequest(context, 0, { method: 'GET', url: '/Metadata' }));
}
