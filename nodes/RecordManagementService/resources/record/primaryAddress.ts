import type { IDataObject } from 'n8n-workflow';

import type { Item } from '../../shared/item/item';
import { apiRequest } from '../../shared/http/request';
import { storedPhoneDigitsOf } from './phoneNumber';

/**
 * EspoCRM 7.5 drops a new e-mail address or phone number that an update writes without its list (`emailAddressData`,
 * `phoneNumberData`): it reads the record with its list before saving and stores that list again, so the old address
 * stays, while its answer shows the value written (Core/FieldProcessing/PhoneNumber/Saver::process and the e-mail
 * one: `if ($phoneNumberData !== null)`; 8.0 added `&& $entity->isAttributeChanged('phoneNumberData')`). Measured on
 * 7.5.6: the answer says `phoneNumber: "+1 555 0199"` with `phoneNumberData` still holding only the old number, and
 * a read shows the old one; the same for `emailAddress`.
 *
 * When the answer's list does not hold a value the update wrote, the node writes the list as EspoCRM 8 would have
 * made it (Saver::storePrimary): the value in place of the primary address, the others kept. One more request, on
 * 7.x only: from 8.0 on the answer lists the value written. An update that sends the list itself is left as it is.
 */
export async function withPrimaryAddressesKept(
	item: Item,
	path: string,
	body: IDataObject,
	written: IDataObject,
): Promise<IDataObject> {
	const lists: IDataObject = {};
	for (const [field, value] of Object.entries(body)) {
		const list = written[`${field}Data`];
		if (
			typeof value !== 'string' ||
			value.trim() === '' ||
			body[`${field}Data`] !== undefined ||
			!Array.isArray(list)
		)
			continue;
		const entries = list as IDataObject[];
		const key = addressKeyOf(field, entries);
		if (entries.some((entry) => sameAddress(key, entry[key], value))) continue;
		const primary = entries.find((entry) => entry.primary === true);
		const others = entries.filter(
			(entry) => entry !== primary && !sameAddress(key, entry[key], value),
		);
		lists[field] = value;
		lists[`${field}Data`] = [
			{ ...primary, [key]: value.trim(), primary: true },
			...others.map((entry) => ({ ...entry, primary: false })),
		];
	}
	if (Object.keys(lists).length === 0) return written;
	return await apiRequest(item.run, item.index, {
		method: 'PUT',
		url: `${path}/${encodeURIComponent(String(written.id))}`,
		expect: 'record',
		body: lists,
	});
}

/** The key of an entry of the list: `emailAddress` of an e-mail field, `phoneNumber` of a phone field. */
function addressKeyOf(field: string, entries: IDataObject[]): 'emailAddress' | 'phoneNumber' {
	const known = entries.find(
		(entry) => typeof entry.emailAddress === 'string' || typeof entry.phoneNumber === 'string',
	);
	if (known) return typeof known.phoneNumber === 'string' ? 'phoneNumber' : 'emailAddress';
	return /phone/i.test(field) ? 'phoneNumber' : 'emailAddress';
}

/**
 * Whether the list's address is the value written, as the server may have stored it: an e-mail address in any letter
 * case, a phone number by its digits as written or in E.164 (8.x stores `+1 800 FLOWERS` as `+18003569377`).
 */
function sameAddress(key: 'emailAddress' | 'phoneNumber', stored: unknown, value: string): boolean {
	if (typeof stored !== 'string') return false;
	if (key === 'emailAddress') return stored.trim().toLowerCase() === value.trim().toLowerCase();
	const digits = (text: string) => text.replace(/[^0-9]/g, '');
	return (
		digits(stored) !== '' &&
		[digits(value), ...(storedPhoneDigitsOf(value.trim()) ?? [])].includes(digits(stored))
	);
}
