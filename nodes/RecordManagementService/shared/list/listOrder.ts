import type { IDataObject } from 'n8n-workflow';

import type { EntityDefs } from '../server/metadata';
import type { KeysetOrder } from './keyset';

/**
 * Field types that EspoCRM 8 and 9 sort by their own column, and compare in `where` (`greaterThan`, `equals`,
 * `isNull`) with the column's collation as ORDER BY does: text as MariaDB's utf8mb4_unicode_ci sorts it (letter
 * case and trailing spaces ignored, in the sort and in the comparison alike), numbers, dates, date-times. Not here,
 * paged by offset: enum (sorted by its options' order), link and link-parent (by the related record's name),
 * person names and addresses (by several columns), e-mail and phone (by the primary address, compared with all of
 * them), currency, float, bool, text and the rest.
 */
const KEYSET_FIELD_TYPES = new Set([
	'id',
	'varchar',
	'url',
	'int',
	'autoincrement',
	'date',
	'datetime',
]);

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
export function keysetOrderOf(
	qs: IDataObject,
	defs: EntityDefs | undefined,
): KeysetOrder | undefined {
	if (!mayFollowOn(qs) || defs === undefined) return undefined;
	const chosen = typeof qs.orderBy === 'string' && qs.orderBy !== '';
	const field = chosen ? (qs.orderBy as string) : (defs.collection?.orderBy ?? 'id');
	const order = String(
		qs.order ?? (chosen ? 'asc' : (defs.collection?.order ?? 'asc')),
	).toLowerCase();
	if (order !== 'asc' && order !== 'desc') return undefined;
	const type = field === 'id' ? 'id' : defs.fields?.[field]?.type;
	if (type === undefined || !KEYSET_FIELD_TYPES.has(type)) return undefined;
	return { field, order };
}
