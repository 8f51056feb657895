import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { KeysetOrder } from './keyset';
import { apiRequest } from './transport';

/**
 * Field types that EspoCRM 8 and 9 sort by their own column, and compare in `where` (`greaterThan`, `equals`,
 * `isNull`) with the column's collation as ORDER BY does: text as MariaDB's utf8mb4_unicode_ci sorts it (letter
 * case and trailing spaces ignored, in the sort and in the comparison alike), numbers, dates, date-times. Not here,
 * paged by offset: enum (sorted by its options' order), link and link-parent (by the related record's name),
 * person names and addresses (by several columns), e-mail and phone (by the primary address, compared with all of
 * them), currency, float, bool, text and the rest.
 */
const KEYSET_FIELD_TYPES = new Set(['id', 'varchar', 'url', 'int', 'autoincrement', 'date', 'datetime']);

interface EntityDefs {
	fields?: Record<string, { type?: string }>;
	collection?: { orderBy?: string; order?: string };
}

/**
 * The order Return All can page in from the last record read (version 1.1 on), EspoCRM's own for the list: the
 * chosen Sort By (ascending unless Sort Order says otherwise), else the entity type's default
 * (`entityDefs.<Type>.collection`: Contact by createdAt, descending), else the ID. Undefined where paging must count
 * an offset: a field type whose order a `where` cannot follow exactly (KEYSET_FIELD_TYPES), Search Text (EspoCRM
 * may order a full-text search by relevance first), metadata the server does not give. `metadata` reads the
 * server's metadata (once per run).
 */
export async function keysetOrderOf(qs: IDataObject, entityType: string, metadata: () => Promise<IDataObject>): Promise<KeysetOrder | undefined> {
	if (qs.textFilter !== undefined || qs.q !== undefined) return undefined;
	// Without the metadata (an API user refused it) the order is not known: by offset.
	const all = await metadata().catch(() => undefined);
	if (all === undefined) return undefined;
	const defs = ((all.entityDefs as IDataObject | undefined)?.[entityType] ?? {}) as EntityDefs;
	const chosen = typeof qs.orderBy === 'string' && qs.orderBy !== '';
	const field = chosen ? (qs.orderBy as string) : (defs.collection?.orderBy ?? 'id');
	const order = String(qs.order ?? (chosen ? 'asc' : (defs.collection?.order ?? 'asc'))).toLowerCase();
	if (order !== 'asc' && order !== 'desc') return undefined;
	const type = field === 'id' ? 'id' : defs.fields?.[field]?.type;
	if (type === undefined || !KEYSET_FIELD_TYPES.has(type)) return undefined;
	return { field, order };
}

/** The server's metadata, read at the first call of the run only. */
export function metadataOnce(context: IExecuteFunctions): () => Promise<IDataObject> {
	let metadata: Promise<IDataObject> | undefined;
	return async () => await (metadata ??= apiRequest(context, 0, { method: 'GET', url: '/Metadata' }));
}
