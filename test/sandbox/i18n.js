// @ts-check
'use strict';

/**
 * GET /I18n (EspoCRM: Controllers/I18n → Tools/App/LanguageService::getDataForFrontend), the labels of the
 * interface. i18n-en_US.json holds EspoCRM 8.1.5's en_US files (application/Espo/Resources/i18n/en_US merged
 * with Modules/Crm/Resources/i18n/en_US, as EspoCRM's Language util merges them) for the sandbox's types and
 * Global, with Global.scopeNames cut to the sandbox's types; CProject's labels are made up, as a custom type's
 * are written by the entity manager.
 *
 * The route needs no authentication (routes.json: noAuth). With good credentials the user's data comes back:
 * types the user may not reach are removed, and a non-admin gets the small Settings and Admin parts. Without
 * credentials, or with bad ones, the answer is the one for the system user: Global without its scope names,
 * fields, links and options, and only the User scope (without its fields).
 */

const data = require('./i18n-en_US.json');

/** @param {unknown} v @returns {any} */
const copy = (v) => JSON.parse(JSON.stringify(v));

/**
 * @param {import('./users').SandboxUser | null} user null: not authenticated
 * @param {Set<string>} restricted entity types the user may not reach
 */
function i18nFor(user, restricted) {
	/** @type {Record<string, any>} */
	const out = copy(data);
	if (!user) {
		for (const key of ['scopeNames', 'scopeNamesPlural', 'dashlets', 'links', 'fields', 'options'])
			delete out.Global[key];
		for (const scope of Object.keys(out))
			if (scope !== 'Global' && scope !== 'User') delete out[scope];
		for (const key of [
			'fields',
			'links',
			'options',
			'filters',
			'presetFilters',
			'boolFilters',
			'tooltips',
		])
			delete out.User[key];
	} else {
		for (const scope of restricted) {
			delete out[scope];
			delete out.Global.scopeNames[scope];
			delete out.Global.scopeNamesPlural[scope];
		}
		if (!user.isAdmin) {
			out.Settings = {
				options: { auth2FAMethodList: { Totp: 'TOTP', Email: 'Email', Sms: 'SMS' } },
			};
			out.Admin = { messages: { userHasNoEmailAddress: 'User has no email address.' } };
		}
	}
	// Always added at the end (LanguageService): the password labels of User.
	out.User.fields = {
		...(out.User.fields || {}),
		password: data.User.fields.password ?? 'Password',
		passwordConfirm: data.User.fields.passwordConfirm ?? 'Confirm Password',
		newPassword: data.User.fields.newPassword ?? 'New Password',
		newPasswordConfirm: data.User.fields.newPasswordConfirm ?? 'Confirm New Password',
	};
	return out;
}

module.exports = { i18nFor };
