// @ts-check
'use strict';

/**
 * What EspoCRM 8.1.5 does around the records that the interface as specified leaves open, kept in one place:
 * its routing (Slim: 404 and 405 for paths no route takes), the select rules of its list queries, and the
 * services' mandatory select attributes. Sources (application/Espo in the 8.1.5 release):
 *   - Resources/routes.json, Core/Api/Starter.php (Slim's error middleware), vendor/slim/slim/Slim/Handlers/ErrorHandler.php
 *   - Core/Select/Select/Applier.php (select: id, the ACL attributes, the ones asked, the order-by field's,
 *     selectDefs' selectAttributesDependencyMap)
 *   - Core/Record/Service.php (prepareSearchParams: no select is ['*']; mandatorySelectAttributeList and
 *     linkMandatorySelectAttributeList of Modules/Crm/Services/{Contact,Opportunity,Account}.php, Services/Email.php,
 *     Services/User.php)
 */

/** Resources/routes.json (and Modules/Crm's, which has none of its own for the API): method, path pattern. */
const ROUTES = /** @type {Array<[string, string]>} */ ([
	['GET', '/'],
	['GET', '/App/user'],
	['POST', '/App/destroyAuthToken'],
	['GET', '/App/about'],
	['GET', '/Metadata'],
	['GET', '/I18n'],
	['GET', '/Settings'],
	['PATCH', '/Settings'],
	['PUT', '/Settings'],
	['GET', '/Stream'],
	['GET', '/GlobalSearch'],
	['POST', '/LeadCapture/:apiKey'],
	['OPTIONS', '/LeadCapture/:apiKey'],
	['POST', '/:controller/action/:action'],
	['PUT', '/:controller/action/:action'],
	['GET', '/:controller/action/:action'],
	['GET', '/:controller/layout/:name'],
	['PUT', '/:controller/layout/:name'],
	['PUT', '/:controller/layout/:name/:setId'],
	['POST', '/Admin/rebuild'],
	['POST', '/Admin/clearCache'],
	['GET', '/Admin/jobs'],
	['GET', '/Admin/fieldManager/:scope/:name'],
	['POST', '/Admin/fieldManager/:scope'],
	['PUT', '/Admin/fieldManager/:scope/:name'],
	['PATCH', '/Admin/fieldManager/:scope/:name'],
	['DELETE', '/Admin/fieldManager/:scope/:name'],
	['GET', '/CurrencyRate'],
	['PUT', '/CurrencyRate'],
	['POST', '/Action'],
	['POST', '/MassAction'],
	['GET', '/MassAction/:id/status'],
	['POST', '/MassAction/:id/subscribe'],
	['POST', '/Export'],
	['GET', '/Export/:id/status'],
	['POST', '/Export/:id/subscribe'],
	['POST', '/Import'],
	['POST', '/Import/file'],
	['POST', '/Import/:id/revert'],
	['POST', '/Import/:id/removeDuplicates'],
	['POST', '/Import/:id/unmarkDuplicates'],
	['POST', '/Import/:id/exportErrors'],
	['PUT', '/Kanban/order'],
	['GET', '/Kanban/:entityType'],
	['GET', '/Attachment/file/:id'],
	['POST', '/Attachment/chunk/:id'],
	['POST', '/Attachment/fromImageUrl'],
	['POST', '/Attachment/copy/:id'],
	['POST', '/EmailTemplate/:id/prepare'],
	['POST', '/Email/:id/attachments/copy'],
	['POST', '/Email/sendTest'],
	['POST', '/Email/inbox/read'],
	['DELETE', '/Email/inbox/read'],
	['POST', '/Email/inbox/important'],
	['DELETE', '/Email/inbox/important'],
	['POST', '/Email/inbox/inTrash'],
	['DELETE', '/Email/inbox/inTrash'],
	['POST', '/Email/inbox/folders/:folderId'],
	['GET', '/Email/inbox/notReadCounts'],
	['GET', '/Email/insertFieldData'],
	['GET', '/EmailAddress/search'],
	['GET', '/User/:id/acl'],
	['POST', '/UserSecurity/apiKey/generate'],
	['PUT', '/UserSecurity/password'],
	['POST', '/UserSecurity/password/recovery'],
	['POST', '/UserSecurity/password/generate'],
	['POST', '/User/passwordChangeRequest'],
	['POST', '/User/changePasswordByRequest'],
	['GET', '/Oidc/authorizationData'],
	['POST', '/Oidc/backchannelLogout'],
	['GET', '/:controller/:id'],
	['GET', '/:controller'],
	['POST', '/:controller'],
	['PUT', '/:controller/:id'],
	['PATCH', '/:controller/:id'],
	['DELETE', '/:controller/:id'],
	['GET', '/:controller/:id/stream'],
	['GET', '/:controller/:id/posts'],
	['PUT', '/:controller/:id/subscription'],
	['DELETE', '/:controller/:id/subscription'],
	['GET', '/:controller/:id/:link'],
	['POST', '/:controller/:id/:link'],
	['DELETE', '/:controller/:id/:link'],
]);

/** The routes of the interface as specified that EspoCRM lacks (served in the 'both' dialect). */
const STANDARD_ONLY_ROUTES = /** @type {Array<[string, string]>} */ ([
	['POST', '/:controller/:id/action/:action'],
]);

/** @param {string} pattern @param {string[]} segs */
function patternMatches(pattern, segs) {
	const parts = pattern === '/' ? [''] : pattern.slice(1).split('/');
	if (parts.length !== segs.length) return false;
	// FastRoute's placeholders are [^/]+: an empty segment never matches one.
	return parts.every((p, i) => (p.startsWith(':') ? segs[i] !== '' : p === segs[i]));
}

/**
 * Slim's routing of a path (after /api/v1): whether a route takes it, and if only with other methods, which.
 * @param {string} method @param {string} path @param {boolean} withStandardRoutes
 * @returns {{ found: true } | { found: false, allowed: string[] }}  allowed empty: 404, else 405
 */
function matchRoute(method, path, withStandardRoutes) {
	const segs = path === '/' || path === '' ? [''] : path.replace(/^\//, '').split('/');
	/** @type {string[]} */
	const allowed = [];
	const routes = withStandardRoutes ? [...ROUTES, ...STANDARD_ONLY_ROUTES] : ROUTES;
	for (const [m, pattern] of routes) {
		if (!patternMatches(pattern, segs)) continue;
		if (m === method) return { found: true };
		if (!allowed.includes(m)) allowed.push(m);
	}
	return { found: false, allowed };
}

const SLIM_ERRORS = {
	404: {
		title: '404 Not Found',
		description: 'The requested resource could not be found. Please verify the URI and try again.',
	},
	405: {
		title: '405 Method Not Allowed',
		description: 'The request method is not supported for the requested resource.',
	},
};
const SLIM_RENDERERS = [
	'application/json',
	'application/xml',
	'text/xml',
	'text/html',
	'text/plain',
];

/**
 * Slim's ErrorHandler::determineContentType: the first item of Accept (split on commas, compared as is) that has a
 * renderer (text/plain only when nothing else is asked for), else a `+json` / `+xml` suffix, else HTML.
 * @param {string} accept
 */
function slimContentType(accept) {
	const wanted = accept.split(',').filter((item) => SLIM_RENDERERS.includes(item));
	if (wanted.length) return wanted[0] === 'text/plain' && wanted.length > 1 ? wanted[1] : wanted[0];
	const suffix = /\+(json|xml)/.exec(accept);
	if (suffix) return `application/${suffix[1]}`;
	return 'text/html';
}

/**
 * The reply of Slim's error middleware for a path no route takes (404) or a method the path's routes do not take
 * (405, with Allow): no X-Status-Reason, a body in the format the Accept header asks for (JSON pretty-printed as
 * PHP's JSON_PRETTY_PRINT does; PHP adds a charset to text types).
 * @param {404 | 405} status @param {string} accept @param {string[]} [allowed]
 * @returns {{ status: number, body: Buffer, headers: Record<string, string> }}
 */
function slimErrorReply(status, accept, allowed = []) {
	const { title, description } = SLIM_ERRORS[status];
	const type = slimContentType(accept);
	let text;
	if (type === 'application/json') text = JSON.stringify({ message: title }, null, 4);
	else if (type === 'application/xml' || type === 'text/xml')
		text = `<error>\n  <message>${title}</message>\n</error>`;
	else if (type === 'text/plain') text = `${title}\n`;
	else {
		text =
			'<!doctype html><html lang="en">    <head>        <meta charset="utf-8">        <meta name="viewport" content="width=device-width, initial-scale=1">' +
			`        <title>${title}</title>        <style>            body{margin:0;padding:30px;font:12px/1.5 Helvetica,Arial,Verdana,sans-serif}` +
			'            h1{margin:0;font-size:48px;font-weight:normal;line-height:48px}            strong{display:inline-block;width:65px}        </style>' +
			`    </head>    <body>        <h1>${title}</h1>        <div><p>${description}</p></div>        <a href="#" onclick="window.history.go(-1)">Go Back</a>    </body></html>`;
	}
	/** @type {Record<string, string>} */
	const headers = { 'Content-Type': type.startsWith('text/') ? `${type};charset=UTF-8` : type };
	if (status === 405) headers.Allow = allowed.join(', ');
	return { status, body: Buffer.from(text, 'utf8'), headers };
}

/** Select\Applier::$aclAttributeList (no type of the sandbox has selectDefs' aclAttributeList). */
const ACL_ATTRIBUTES = ['assignedUserId', 'createdById'];

/** The record services' $mandatorySelectAttributeList: added to a `select` of that type's lists. */
const MANDATORY_SELECT = /** @type {Record<string, string[]>} */ ({
	Contact: ['accountId', 'accountName'],
	Opportunity: ['accountId', 'accountName'],
	Email: [
		'name',
		'createdById',
		'dateSent',
		'fromString',
		'fromEmailAddressId',
		'fromEmailAddressName',
		'parentId',
		'parentType',
		'isHtml',
		'isReplied',
		'status',
		'accountId',
		'folderId',
		'messageId',
		'sentById',
		'replyToString',
		'hasAttachment',
		'groupFolderId',
	],
	User: ['isActive', 'userName', 'type'],
});

/**
 * The record services' $linkMandatorySelectAttributeList (`<Type>.<link>` → attributes of the related records).
 * Record\Service::prepareSearchParams turns a missing select into ['*'] first; with these added, the select list is
 * no longer ['*'] and the Applier builds a real one from it, where '*' is no attribute: the related records come
 * back with id, the ACL attributes, these and the order-by field only. Only Account → contacts (and the target
 * list links, which the sandbox lacks) are concerned; every other related list without select has full records.
 */
const LINK_MANDATORY_SELECT = /** @type {Record<string, string[]>} */ ({
	'Account.contacts': ['accountIsInactive'],
});

/** selectDefs.<Type>.selectAttributesDependencyMap. */
const SELECT_DEPENDENCIES = /** @type {Record<string, Record<string, string[]>>} */ ({
	Email: {
		subject: ['name'],
		personStringData: ['fromString', 'fromEmailAddressId'],
		replyToName: ['replyToString'],
	},
	Meeting: {
		duration: ['dateStart', 'dateEnd'],
		dateStart: ['dateEnd'],
		dateStartDate: ['dateEnd', 'dateEndDate'],
	},
	Call: { duration: ['dateStart', 'dateEnd'], dateStart: ['dateEnd'] },
	Task: { dateEnd: ['status'] },
});

/**
 * The attributes a list query of EspoCRM selects (Select\Applier::getSelectAttributeList), or null for all.
 * @param {{ entityType: string, passed: string[] | null, orderByField: string, hasAttribute: (a: string) => boolean,
 *   fieldAttributes: (field: string) => string[], link?: string | null, parentType?: string | null }} args
 *   passed: the `select` parameter split, null when absent; link/parentType: for related lists
 * @returns {string[] | null}
 */
function selectAttributeList({
	entityType,
	passed,
	orderByField,
	hasAttribute,
	fieldAttributes,
	link = null,
	parentType = null,
}) {
	// Record\Service::prepareSearchParams (of the listed type): its mandatory attributes join a select; no select is ['*'].
	let select = passed;
	const mandatory = MANDATORY_SELECT[entityType];
	if (select && mandatory) select = [...new Set([...select, ...mandatory])];
	if (!select) select = ['*'];
	// prepareLinkSearchParams (of the parent type), for related lists.
	const linkMandatory =
		link && parentType ? LINK_MANDATORY_SELECT[`${parentType}.${link}`] : undefined;
	if (linkMandatory) select = [...new Set([...select, ...linkMandatory])];
	if (select.length === 1 && select[0] === '*') return null;

	/** @type {string[]} */
	const list = [];
	const add = (/** @type {string} */ a) => {
		if (!list.includes(a) && hasAttribute(a)) list.push(a);
	};
	add('id');
	for (const a of ACL_ATTRIBUTES) add(a);
	for (const a of select) add(a);
	for (const a of fieldAttributes(orderByField)) add(a);
	for (const [a, dependants] of Object.entries(SELECT_DEPENDENCIES[entityType] || {})) {
		if (list.includes(a)) for (const d of dependants) add(d);
	}
	return list;
}

module.exports = {
	matchRoute,
	slimErrorReply,
	selectAttributeList,
	MANDATORY_SELECT,
	LINK_MANDATORY_SELECT,
};
