import type { IDataObject } from 'n8n-workflow';

import type { FailedResponse } from './failure';

/**
 * Refusals that came with an EspoCRM release, explained in the user's terms (what happened, who can change it, and
 * whether running the node again can help). errors.ts asks here first.
 */

/** EspoCRM 10's refusal of a change to a locked record (Tools/Lock/LockValidationHelper), and of its deletion. */
export const LOCKED_RECORD = /^cannot(Modify|Remove)LockedRecord$/;
/** EspoCRM 9's refusal of a sender address that the API user may not send from (Email's CheckFromAddress hook). */
const FROM_ADDRESS_REFUSED = /not allowed 'from' address/i;
/** EspoCRM 9.3.8's refusal of a where item whose attribute holds "#" (Core/Select/Where/Checker). */
const CHARACTER_IN_ATTRIBUTE = /not allowed character in attribute/i;

/** What the server's body names: EspoCRM's `messageTranslation.data.<key>`. */
function translationData(body: unknown, key: string): string | undefined {
	const data = ((body as IDataObject | undefined)?.messageTranslation as IDataObject | undefined)
		?.data as IDataObject | undefined;
	const value = data?.[key];
	return typeof value === 'string' && value !== '' ? value : undefined;
}

const UNLOCK =
	'Only a user whose role has the Lock permission can unlock it, in EspoCRM: the record > Unlock (or Unlock in the list view for several). Running the node again does not help while it is locked; nothing was changed.';

export function explainVersionRefusal({
	status,
	reason,
	body,
}: FailedResponse): { message: string; description: string } | undefined {
	const said = reason ? `: ${reason}` : '';
	if (status === 409 && reason === 'cannotModifyLockedRecord') {
		const field = translationData(body, 'field');
		return {
			message: `The record is locked: EspoCRM does not let anyone change ${field ? `its field "${field}"` : 'it'} (409 cannotModifyLockedRecord)`,
			description: `A locked record keeps its values (except fields marked Not Lockable) until it is unlocked. ${UNLOCK}`,
		};
	}
	if (status === 409 && reason === 'cannotRemoveLockedRecord') {
		return {
			message:
				'The record is locked: EspoCRM does not let anyone delete it (409 cannotRemoveLockedRecord)',
			description: UNLOCK,
		};
	}
	if (status === 403 && CHARACTER_IN_ATTRIBUTE.test(reason)) {
		return {
			message: `The server refused a field name of the filter (403)${said}`,
			description:
				'EspoCRM 9.3.8 and later refuse a field name that holds "#" in a filter. Use the name EspoCRM knows the field by (pick it from the list to see them).',
		};
	}
	if (status === 403 && FROM_ADDRESS_REFUSED.test(reason)) {
		return {
			message: `The server refused the sender address in "From" (403)${said}`,
			description:
				'EspoCRM 9 lets an API user send only from its own e-mail address (Administration > API Users > the user > Email), from a group e-mail account shared with it (Administration > Group Email Accounts: the address, Use SMTP and Shared on; the user\'s role: Group Email Accounts allowed), or from the system address when a group e-mail account with SMTP holds that address and Administration > Outbound Emails > Is Shared is on. Use such an address in "From", or ask the administrator to set one up. No e-mail was sent or kept. ' +
				"EspoCRM 9.3 and later save a group e-mail account whose SMTP server is on an internal address (localhost, a Docker network, a LAN) only when that server's host:port is listed in emailServerAllowedAddressList, in EspoCRM's data/config.php (Administration has no field for it): for an SMTP server mail on port 25, 'emailServerAllowedAddressList' => ['mail:25'],",
		};
	}
	return undefined;
}
