// @ts-check
'use strict';

/**
 * The users behind the sandbox's credentials. On EspoCRM an API key and an HMAC key belong to API users (type
 * 'api'), Basic authentication logs in a regular or admin user; the sandbox's Basic user is the admin. The Bearer
 * token of the interface's OAuth flow has no EspoCRM equivalent: it is a regular (non-admin, non-API) user here.
 * They are User records of the store (re-created by every reset), so that links to them (assignedUserId, a
 * webhook's userId) point to existing records.
 *
 * @typedef {'admin' | 'apiKey' | 'hmac' | 'oauth'} UserKey
 * @typedef {{ key: UserKey, id: string, userName: string, firstName: string, lastName: string,
 *   type: 'admin' | 'api' | 'regular', isAdmin: boolean, isApi: boolean }} SandboxUser
 */

/** @type {Readonly<Record<UserKey, SandboxUser>>} */
const SANDBOX_USERS = Object.freeze({
	// EspoCRM's first admin has the id '1'.
	admin: {
		key: 'admin',
		id: '1',
		userName: 'admin',
		firstName: '',
		lastName: 'Admin',
		type: 'admin',
		isAdmin: true,
		isApi: false,
	},
	apiKey: {
		key: 'apiKey',
		id: '6700000000000a001',
		userName: 'api-key-user',
		firstName: '',
		lastName: 'API Key User',
		type: 'api',
		isAdmin: false,
		isApi: true,
	},
	hmac: {
		key: 'hmac',
		id: '6700000000000a002',
		userName: 'hmac-user',
		firstName: '',
		lastName: 'HMAC User',
		type: 'api',
		isAdmin: false,
		isApi: true,
	},
	oauth: {
		key: 'oauth',
		id: '6700000000000a003',
		userName: 'oauth-client',
		firstName: '',
		lastName: 'OAuth Client',
		type: 'regular',
		isAdmin: false,
		isApi: false,
	},
});

/** @param {string | null | undefined} id @returns {SandboxUser | undefined} */
function userById(id) {
	return Object.values(SANDBOX_USERS).find((u) => u.id === id);
}

module.exports = { SANDBOX_USERS, userById };
