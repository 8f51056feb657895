import type { IDataObject } from 'n8n-workflow';

import { forItem } from '../../shared/http/errors';
import { readFailure } from '../../shared/http/failure';
import { apiRequest } from '../../shared/http/request';
import type { Run } from '../../shared/http/run';
import { listRecords } from '../../shared/list/listing';
import type { Dialect } from '../../shared/server/dialect';
import { storedPhoneDigitsOf, storedPhoneFormsOf } from './phoneNumber';

/**
 * The longest query string a look-up may have. Web servers in front of a CRM refuse longer request lines (Apache at
 * 8,190 bytes, nginx's default buffers at 8 KB, Node's own servers at 16 KB of headers): 7,000 leaves room for the
 * path and the rest of the line.
 */
export const MAX_LOOKUP_QUERY_LENGTH = 7000;

/** Match values per look-up unless the option says otherwise. */
export const DEFAULT_VALUES_PER_LOOKUP = 100;

/**
 * A match value as the server compares it: EspoCRM's columns compare case-insensitively (MySQL's `_ci` collations)
 * and the node trims what it sends, so records are matched back to the values by their trimmed lower-case form.
 */
export function matchKeyOf(value: unknown): string {
	// Without accents too: EspoCRM's MySQL collation finds "José" for "Jose", so both are the same record's value.
	return String(value).trim().normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** One item's match value: what the look-up sends, and the key that stands for it in this run. */
export interface MatchValue {
	/** The forms the server may have stored the value in (a phone number: as given and in E.164), each sent. */
	forms: Array<string | number | boolean>;
	/** The attribute the forms are compared with: the match field, or a phone field's `<field>Numeric` (its digits). */
	attribute: string;
	/** The matchKeyOf form of the first (a phone number's E.164): values with the same key are one record's. */
	key: string;
}

/** A phone field, by its name (`phoneNumber`, `cMobilePhone`): two spellings of one number are one record's value. */
const PHONE_FIELD = /phone/i;

/**
 * The value as the server may hold it. A phone number written with "+" in a phone field of EspoCRM is compared by
 * its digits (`<field>Numeric`, storedPhoneDigitsOf), which finds it whether EspoCRM stored it as written (7.x:
 * "+1 555 400 0041") or in E.164 (8 and later: "+15554000041"). Elsewhere, a value that looks like a phone number is
 * looked up in E.164 and as given (a Standard server; any field's value may be one); only in a phone field are two
 * spellings of one number one record's: elsewhere "+1 23" and "+123" stay two values.
 */
export function matchValueOf(
	value: string | number | boolean,
	matchField: string,
	dialect: Dialect,
): MatchValue {
	const phoneField = PHONE_FIELD.test(matchField);
	const digits =
		typeof value === 'string' && phoneField && dialect === 'espocrm'
			? storedPhoneDigitsOf(value)
			: undefined;
	const forms = typeof value === 'string' ? storedPhoneFormsOf(value) : [value];
	const key = matchKeyOf(phoneField ? forms[0] : value);
	return digits
		? { forms: digits, attribute: `${matchField}Numeric`, key }
		: { forms, attribute: matchField, key };
}

/**
 * The values of a record that the server compares a match value with. For an e-mail or phone field EspoCRM compares
 * every address of the record (`emailAddressData`), not only the primary one the field shows.
 */
function comparedValues(record: IDataObject, field: string): unknown[] {
	const values: unknown[] = [record[field]];
	const data = record[`${field}Data`];
	if (Array.isArray(data)) {
		for (const entry of data as IDataObject[])
			values.push(entry?.emailAddress ?? entry?.phoneNumber);
	}
	return values.filter((value) => value !== undefined && value !== null);
}

/**
 * The where item that finds the records of several match values in one request. `in` serves every field except a
 * person's `name` (Contact, Lead, User), which EspoCRM composes from first and last name and can only compare with
 * `equals` (8.1.5 answers `in` on it with 500): `name` is looked up with an `or` of `equals`, which every server takes.
 */
function whereFor(field: string, values: unknown[]): IDataObject {
	if (field === 'name')
		return {
			type: 'or',
			value: values.map((value) => ({ type: 'equals', attribute: field, value })),
		};
	return { type: 'in', attribute: field, value: values };
}

/** The where list of match values, each compared with its attribute (a phone field: by digits or as text). */
function whereOfValues(values: MatchValue[]): IDataObject[] {
	const byAttribute = new Map<string, unknown[]>();
	for (const { attribute, forms } of values)
		byAttribute.set(attribute, [...(byAttribute.get(attribute) ?? []), ...forms]);
	const items = [...byAttribute].map(([attribute, forms]) => whereFor(attribute, forms));
	return items.length === 1 ? items : [{ type: 'or', value: items }];
}

/**
 * How many characters the `index`th value adds to the look-up's query string, as n8n sends it (`qs` with indices:
 * `where%5B0%5D%5Bvalue%5D%5B7%5D=ada%40example.com&`). A phone field's values may sit one level deeper (an `or` of
 * its digits and its text: `where[0][value][1][value][7]`), which its keys are counted with.
 */
function queryLengthOf(field: string, value: unknown, index: number): number {
	const pair = (key: string, text: string) =>
		encodeURIComponent(key).length + encodeURIComponent(text).length + 2;
	if (PHONE_FIELD.test(field)) return pair(`where[0][value][1][value][${index}]`, String(value));
	if (field !== 'name') return pair(`where[0][value][${index}]`, String(value));
	const at = `where[0][value][${index}]`;
	return (
		pair(`${at}[type]`, 'equals') +
		pair(`${at}[attribute]`, field) +
		pair(`${at}[value]`, String(value))
	);
}

interface Wanted extends MatchValue {
	itemIndex: number;
	resolve: (records: IDataObject[]) => void;
	reject: (error: unknown) => void;
}

/**
 * The records that have one match value, exactly as the server answers `equals` (`in` for its several forms):
 * used where a shared look-up cannot tell which of its records belong to which value.
 */
export async function lookUpOne(
	run: Run,
	itemIndex: number,
	path: string,
	field: string,
	value: MatchValue,
) {
	const { forms, attribute } = value;
	return await listRecords(run, itemIndex, {
		url: path,
		qs: {
			where:
				forms.length === 1
					? [{ type: 'equals', attribute, value: forms[0] }]
					: whereOfValues([value]),
			select: `id,${field}`,
		},
	});
}

/**
 * Gathers the match values of one entity type and match field and looks them up together, in chunks bounded by the
 * number of values and the length of the query string. A chunk is sent as soon as it is full (the items are still
 * being read meanwhile), the last one when the input ends; the run bounds how many requests are open.
 */
export class LookupGroup {
	private chunk: Wanted[] = [];

	/** How many forms the chunk sends: the index of the next one in the query string. */
	private formCount = 0;

	/** The query string's length without the values: the where item's type and attribute, select, offset, maxSize. */
	private readonly baseLength: number;

	private queryLength: number;

	constructor(
		private readonly run: Run,
		private readonly path: string,
		private readonly field: string,
		private readonly valuesPerLookup: number,
	) {
		// A phone field's look-up may compare by digits and as text: an `or` of two where items, each with its attribute.
		this.baseLength =
			200 + 2 * field.length + (PHONE_FIELD.test(field) ? 2 * (field.length + 40) : 0);
		this.queryLength = this.baseLength;
	}

	/** The records that have this match value. */
	find(value: MatchValue, itemIndex: number): Promise<IDataObject[]> {
		const lengthFrom = (first: number) =>
			value.forms.reduce<number>(
				(sum, form, index) => sum + queryLengthOf(this.field, form, first + index),
				0,
			);
		if (
			this.chunk.length > 0 &&
			this.queryLength + lengthFrom(this.formCount) > MAX_LOOKUP_QUERY_LENGTH
		)
			this.flush();
		this.queryLength += lengthFrom(this.formCount);
		this.formCount += value.forms.length;
		const found = new Promise<IDataObject[]>((resolve, reject) =>
			this.chunk.push({ ...value, itemIndex, resolve, reject }),
		);
		if (this.chunk.length >= this.valuesPerLookup) this.flush();
		return found;
	}

	flush(): void {
		const chunk = this.takeChunk();
		if (chunk.length > 0) void this.lookUp(chunk);
	}

	/** The values not yet sent are not looked up (the node failed): their items fail with `error`. */
	abandon(error: unknown): void {
		for (const wanted of this.takeChunk()) wanted.reject(forItem(error, wanted.itemIndex));
	}

	private takeChunk(): Wanted[] {
		const chunk = this.chunk;
		this.chunk = [];
		this.formCount = 0;
		this.queryLength = this.baseLength;
		return chunk;
	}

	private async lookUp(chunk: Wanted[]): Promise<void> {
		let records: IDataObject[];
		try {
			records = await listRecords(this.run, chunk[0].itemIndex, {
				url: this.path,
				qs: { where: whereOfValues(chunk), select: `id,${this.field}` },
			});
		} catch (error) {
			// A refusal of the request itself (a value the server cannot take, a field it cannot compare that way):
			// each value is looked up alone, so that only the items whose value is refused fail.
			const { status } = readFailure(error);
			if (chunk.length > 1 && (status === 400 || status === 500)) {
				await Promise.all(chunk.map(async (wanted) => await this.lookUpAlone(wanted)));
			} else {
				for (const wanted of chunk) wanted.reject(forItem(error, wanted.itemIndex));
			}
			return;
		}
		try {
			const byKey = await this.matchBack(chunk, records);
			await Promise.all(
				chunk.map(async (wanted) => {
					const mine = byKey.get(wanted.key);
					if (mine) wanted.resolve(mine);
					else await this.lookUpAlone(wanted);
				}),
			);
		} catch (error) {
			for (const wanted of chunk) wanted.reject(forItem(error, wanted.itemIndex));
		}
	}

	private async lookUpAlone(wanted: Wanted): Promise<void> {
		try {
			wanted.resolve(await lookUpOne(this.run, wanted.itemIndex, this.path, this.field, wanted));
		} catch (error) {
			wanted.reject(error);
		}
	}

	/**
	 * The records of each value of the chunk, by comparing their values with the chunk's. A record none of whose
	 * values is among them was matched by the server through something the list does not show (EspoCRM lists only
	 * the primary e-mail address; the others come with the record itself): such records are read one by one. If one
	 * still cannot be placed, the values that have no record are left out of the map, to be looked up alone.
	 */
	private async matchBack(
		chunk: Wanted[],
		records: IDataObject[],
	): Promise<Map<string, IDataObject[]>> {
		const byKey = new Map<string, IDataObject[]>(chunk.map((wanted) => [wanted.key, []]));
		// Each form of a value stands for the value (a phone number as stored and as given, or its digits).
		const byDigits = (attribute: string) => attribute !== this.field;
		const formKey = (value: unknown, digits: boolean) =>
			digits ? `digits:${String(value).replace(/[^0-9]/g, '')}` : matchKeyOf(value);
		const valueKeyOf = new Map<string, string>();
		for (const wanted of chunk)
			for (const form of wanted.forms)
				valueKeyOf.set(formKey(form, byDigits(wanted.attribute)), wanted.key);
		const place = (record: IDataObject) => {
			const keys = new Set(
				comparedValues(record, this.field)
					.flatMap((value) => [
						valueKeyOf.get(formKey(value, false)),
						valueKeyOf.get(formKey(value, true)),
					])
					.filter((key) => key !== undefined),
			);
			for (const key of keys) byKey.get(key)!.push(record);
			return keys.size > 0;
		};
		const unplaced = records.filter((record) => !place(record));
		if (unplaced.length === 0) return byKey;
		const read = await Promise.all(
			unplaced.map(
				async (record) =>
					await apiRequest(this.run, chunk[0].itemIndex, {
						method: 'GET',
						url: `${this.path}/${encodeURIComponent(String(record.id))}`,
						expect: 'record',
					}),
			),
		);
		if (read.map(place).every(Boolean)) return byKey;
		for (const [key, mine] of byKey) if (mine.length === 0) byKey.delete(key);
		return byKey;
	}
}
