#!/usr/bin/env node
'use strict';
/*
 * Sends the same requests to the sandbox (test/sandbox, in this process) and to a fresh real EspoCRM (the release given
 * at run time), and prints where their answers differ (status, X-Status-Reason, the shape of the body). A tool for
 * whoever keeps the sandbox close to EspoCRM; it changes neither.
 *
 *   node test/espocrm/compare-sandbox.js            every probe
 *   node test/espocrm/compare-sandbox.js --all      also the probes whose answers agree
 *   node test/espocrm/compare-sandbox.js --json     the answers side by side as JSON
 */

const { startEspo, releaseOrSkip } = require('./rig/espocrm');
const { espoClient } = require('./rig/client');

const isId = (v) => typeof v === 'string' && /^[0-9a-f]{17}$/.test(v);

/** A body as its shape: ids and times replaced, lists cut to their first element plus the length. */
function shape(v, depth = 0) {
	if (Array.isArray(v)) return v.length ? [`${v.length} item(s)`, shape(v[0], depth + 1)] : [];
	if (v && typeof v === 'object') {
		if (depth > 2) return '{…}';
		const o = {};
		for (const k of Object.keys(v).sort()) o[k] = shape(v[k], depth + 1);
		return o;
	}
	if (isId(v)) return '<id>';
	if (typeof v === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?$/.test(v)) return '<date-time>';
	if (typeof v === 'string' && /^\d{4}-\d\d-\d\d$/.test(v)) return '<date>';
	return v;
}

function sortKeys(v) {
	if (Array.isArray(v)) return v.map(sortKeys);
	if (v && typeof v === 'object')
		return Object.fromEntries(
			Object.keys(v)
				.sort()
				.map((k) => [k, sortKeys(v[k])]),
		);
	return v;
}

function summary(r, { keysOnly = false, pick } = {}) {
	const out = { status: r.status };
	// an empty X-Status-Reason and none at all are the same to a client
	if (r.reason) out.reason = String(r.reason).replace(/[0-9a-f]{17}/g, '<id>');
	if (r.headers['www-authenticate'] !== undefined)
		out.wwwAuthenticate = r.headers['www-authenticate'];
	if (pick) out.body = sortKeys(pick(r.body));
	else if (keysOnly && r.body && typeof r.body === 'object' && !Array.isArray(r.body))
		out.keys = Object.keys(r.body).sort();
	else out.body = r.text === '' ? '' : shape(r.body);
	return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Each probe: (ctx) => summary. ctx: {key (API user client), admin, anon, bad, server ('sandbox'|'espocrm'), tag} */
const PROBES = [
	[
		'create Contact: reply fields',
		async ({ key, tag }) =>
			summary(await key.post('/Contact', { firstName: 'Pro', lastName: `Be-${tag}` }), {
				keysOnly: true,
			}),
	],
	[
		'create Contact with a phone number: normalised',
		async ({ key, tag }) =>
			summary(
				await key.post('/Contact', {
					firstName: 'Ph',
					lastName: `One-${tag}`,
					phoneNumber: '+1 555 0100',
				}),
				{ pick: (b) => b && b.phoneNumber },
			),
	],
	[
		'create Contact: duplicate (same names)',
		async ({ key, tag }) => {
			await key.post('/Contact', { firstName: 'Dup', lastName: `Licate-${tag}` });
			return summary(await key.post('/Contact', { firstName: 'Dup', lastName: `Licate-${tag}` }), {
				pick: (b) =>
					Array.isArray(b) ? `${b.length} record(s), keys ${Object.keys(b[0] || {}).length}` : b,
			});
		},
	],
	[
		'create Contact: duplicate with X-Skip-Duplicate-Check',
		async ({ key, tag }) => {
			await key.post('/Contact', { firstName: 'Skip', lastName: `Dup-${tag}` });
			return summary(
				await key.post(
					'/Contact',
					{ firstName: 'Skip', lastName: `Dup-${tag}` },
					{ headers: { 'x-skip-duplicate-check': 'true' } },
				),
				{ pick: (b) => b && isId(b.id) },
			);
		},
	],
	[
		'create Contact without lastName',
		async ({ key }) => summary(await key.post('/Contact', { firstName: 'NoLast' })),
	],
	[
		'create Contact with an unknown field',
		async ({ key, tag }) =>
			summary(await key.post('/Contact', { lastName: `Unk-${tag}`, noSuchField: 1 }), {
				pick: (b) => b && 'noSuchField' in b,
			}),
	],
	[
		'create Contact with malformed JSON',
		async ({ key }) =>
			summary(
				await key.request('POST', '/Contact', {
					body: '{"lastName": ',
					headers: { 'content-type': 'application/json' },
				}),
			),
	],
	[
		'create Contact with a lone surrogate escaped in the body',
		async ({ key }) =>
			summary(
				await key.request('POST', '/Contact', {
					body: '{"lastName": "cut\\ud83d"}',
					headers: { 'content-type': 'application/json' },
				}),
			),
	],
	[
		'create Contact without Content-Type',
		async ({ key, tag }) =>
			summary(
				await key.request('POST', '/Contact', {
					body: JSON.stringify({ lastName: `NoCT-${tag}` }),
					headers: { 'content-type': 'text/plain' },
				}),
				{ pick: (b) => b && (b.lastName || null) },
			),
	],
	[
		'read Contact: fields (nulls included)',
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { firstName: 'Read', lastName: `Me-${tag}` })).body;
			return summary(await key.get(`/Contact/${c.id}`), { keysOnly: true });
		},
	],
	['read unknown id', async ({ key }) => summary(await key.get('/Contact/0000000000000dead'))],
	[
		'update unknown id',
		async ({ key }) => summary(await key.put('/Contact/0000000000000dead', { title: 'x' })),
	],
	[
		'Contact title without an Account: the reply, then a read',
		async ({ key, tag }) => {
			const written = await key.post('/Contact', {
				firstName: 'Ti',
				lastName: `Tle-${tag}`,
				title: 'CEO',
			});
			const read = written.body && (await key.get(`/Contact/${written.body.id}`)).body;
			return summary(written, {
				pick: (b) => b && { reply: b.title ?? null, read: read ? read.title : 'unread' },
			});
		},
	],
	[
		'Contact title with an Account: kept as the role',
		async ({ key, tag }) => {
			const account = (await key.post('/Account', { name: `Role-${tag}` })).body;
			const written = await key.post('/Contact', {
				firstName: 'Ti',
				lastName: `Role-${tag}`,
				title: 'CEO',
				accountId: account.id,
			});
			const read = written.body && (await key.get(`/Contact/${written.body.id}`)).body;
			return summary(written, {
				pick: (b) => b && { reply: b.title ?? null, read: read ? read.title : 'unread' },
			});
		},
	],
	['delete unknown id', async ({ key }) => summary(await key.delete('/Contact/0000000000000dead'))],
	[
		'PATCH replies the whole record',
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { firstName: 'Pat', lastName: `Ch-${tag}` })).body;
			return summary(await key.patch(`/Contact/${c.id}`, { title: 'Dr' }), {
				pick: (b) => b && { title: b.title, firstName: b.firstName },
			});
		},
	],
	[
		'delete, then read as the API user and as admin',
		async ({ key, admin, tag }) => {
			const c = (await key.post('/Contact', { firstName: 'Del', lastName: `Ete-${tag}` })).body;
			const d = await key.delete(`/Contact/${c.id}`);
			const asUser = await key.get(`/Contact/${c.id}`);
			const asAdmin = await admin.get(`/Contact/${c.id}`);
			return {
				delete: summary(d),
				readAsUser: asUser.status,
				readAsAdmin: `${asAdmin.status}${asAdmin.body && asAdmin.body.deleted ? ' deleted:true' : ''}`,
			};
		},
	],
	['unknown entity type', async ({ key }) => summary(await key.get('/Foo'))],
	['list maxSize=201', async ({ key }) => summary(await key.get('/Contact', { maxSize: 201 }))],
	[
		'list: envelope and total',
		async ({ key }) =>
			summary(await key.get('/Contact', { maxSize: 1 }), {
				pick: (b) =>
					b && {
						total: typeof b.total === 'number' ? (b.total >= 0 ? '>=0' : b.total) : b.total,
						keys: Object.keys(b).sort(),
					},
			}),
	],
	[
		'list with X-No-Total',
		async ({ key }) =>
			summary(await key.get('/Contact', { maxSize: 1 }, { headers: { 'x-no-total': 'true' } }), {
				pick: (b) => b && b.total,
			}),
	],
	[
		'Email list total',
		async ({ key }) =>
			summary(await key.get('/Email', { maxSize: 1 }), { pick: (b) => b && b.total }),
	],
	[
		'list select=firstName: fields',
		async ({ key }) =>
			summary(await key.get('/Contact', { maxSize: 1, select: 'firstName' }), {
				pick: (b) => b && b.list && b.list[0] && Object.keys(b.list[0]).sort(),
			}),
	],
	[
		'list unknown where type',
		async ({ key }) =>
			summary(
				await key.get('/Contact', {
					where: [{ type: 'noSuchType', attribute: 'lastName', value: 'x' }],
				}),
			),
	],
	[
		'list order=sideways',
		async ({ key }) =>
			summary(await key.get('/Contact', { orderBy: 'lastName', order: 'sideways', maxSize: 1 }), {
				pick: (b) => b && Array.isArray(b.list),
			}),
	],
	[
		'list orderBy unknown field',
		async ({ key }) =>
			summary(await key.get('/Contact', { orderBy: 'noSuchField', maxSize: 1 }), {
				pick: (b) => b && Array.isArray(b.list),
			}),
	],
	[
		'createdAt "after" its own value, dateTime + timeZone Pacific/Kiritimati',
		async ({ key, tag }) => {
			const a = (await key.post('/Contact', { firstName: 'A', lastName: `Tz-${tag}` })).body;
			await sleep(1100);
			await key.post('/Contact', { firstName: 'B', lastName: `Tz-${tag}` });
			const q = (extra) =>
				key.get('/Contact', {
					where: [
						{ type: 'equals', attribute: 'lastName', value: `Tz-${tag}` },
						{ type: 'after', attribute: 'createdAt', value: a.createdAt, ...extra },
					],
				});
			const names = (r) =>
				r.body && r.body.list
					? r.body.list
							.map((c) => c.firstName)
							.sort()
							.join(',')
					: r.status;
			return {
				plain: names(await q({})),
				kiritimati: names(await q({ dateTime: true, timeZone: 'Pacific/Kiritimati' })),
				pagoPago: names(await q({ dateTime: true, timeZone: 'Pacific/Pago_Pago' })),
				utc: names(await q({ dateTime: true, timeZone: 'UTC' })),
			};
		},
	],
	[
		'createdAt "today" with and without dateTime + timeZone',
		async ({ key, tag }) => {
			await key.post('/Contact', { firstName: 'T', lastName: `Today-${tag}` });
			const q = (extra) =>
				key.get('/Contact', {
					where: [
						{ type: 'equals', attribute: 'lastName', value: `Today-${tag}` },
						{ type: 'today', attribute: 'createdAt', ...extra },
					],
				});
			const n = (r) => (r.body && r.body.list ? r.body.list.length : r.status);
			const fut = await key.get('/Contact', {
				where: [
					{ type: 'equals', attribute: 'lastName', value: `Today-${tag}` },
					{ type: 'future', attribute: 'createdAt' },
				],
			});
			return {
				withoutFlag: n(await q({})),
				withFlag: n(await q({ dateTime: true, timeZone: 'UTC' })),
				futureWithoutFlag: n(fut),
			};
		},
	],
	[
		'createdAt greaterThan with dateTime=true',
		async ({ key, tag }) => {
			await key.post('/Contact', { firstName: 'G', lastName: `Gt-${tag}` });
			const r = await key.get('/Contact', {
				where: [
					{ type: 'equals', attribute: 'lastName', value: `Gt-${tag}` },
					{
						type: 'greaterThan',
						attribute: 'createdAt',
						value: '2000-01-01 00:00:00',
						dateTime: true,
						timeZone: 'UTC',
					},
				],
			});
			return { status: r.status, found: r.body && r.body.list ? r.body.list.length : null };
		},
	],
	[
		'link unknown link name',
		async ({ key, tag }) => {
			const a = (await key.post('/Account', { name: `Acc-${tag}` })).body;
			return summary(await key.get(`/Account/${a.id}/noSuchLink`));
		},
	],
	[
		'link (ids) reply, unlink with the id only in the query',
		async ({ key, tag }) => {
			const a = (await key.post('/Account', { name: `Lnk-${tag}` })).body;
			const c = (await key.post('/Contact', { lastName: `Lnk-${tag}` })).body;
			const link = await key.post(`/Account/${a.id}/contacts`, { ids: [c.id] });
			const unlinkQuery = await key.request('DELETE', `/Account/${a.id}/contacts`, {
				query: { id: c.id },
			});
			const still = await key.get(`/Account/${a.id}/contacts`);
			const unlinkBody = await key.delete(`/Account/${a.id}/contacts`, { id: c.id });
			const after = await key.get(`/Account/${a.id}/contacts`);
			return {
				link: summary(link),
				unlinkQueryOnly: summary(unlinkQuery),
				linkedAfterQueryUnlink: still.body.list.length,
				unlinkBody: summary(unlinkBody),
				linkedAfter: after.body.list.length,
			};
		},
	],
	[
		'related list without select: fields of the records',
		async ({ key, tag }) => {
			const a = (await key.post('/Account', { name: `RelSel-${tag}` })).body;
			const c = (
				await key.post('/Contact', {
					firstName: 'Rel',
					lastName: `Sel-${tag}`,
					emailAddress: `relsel-${tag}@example.com`,
				})
			).body;
			await key.post(`/Account/${a.id}/contacts`, { id: c.id });
			const fields = async (q) => {
				const r = await key.get(`/Account/${a.id}/contacts`, q);
				const rec = r.body && r.body.list && r.body.list[0];
				return rec
					? ['firstName', 'lastName', 'emailAddress'].filter((f) => f in rec).join(',') ||
							'(none of firstName, lastName, emailAddress)'
					: r.status;
			};
			return {
				noSelect: await fields({}),
				select: await fields({ select: 'firstName,lastName' }),
				orderByLastName: await fields({ orderBy: 'lastName' }),
			};
		},
	],
	[
		'mass update / delete at the standard paths',
		async ({ key }) => ({
			massUpdate: summary(
				await key.put('/Contact/action/massUpdate', {
					ids: ['0000000000000dead'],
					attributes: { title: 'x' },
				}),
			),
			massDelete: summary(
				await key.post('/Contact/action/massDelete', { ids: ['0000000000000dead'] }),
			),
		}),
	],
	[
		'POST /MassAction update with a deleted and an unknown id',
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { lastName: `Mass-${tag}` })).body;
			const gone = (await key.post('/Contact', { lastName: `MassGone-${tag}` })).body;
			await key.delete(`/Contact/${gone.id}`);
			return summary(
				await key.post('/MassAction', {
					entityType: 'Contact',
					action: 'update',
					params: { ids: [c.id, gone.id, '0000000000000dead'] },
					data: { title: 'M' },
				}),
			);
		},
	],
	[
		'POST /MassAction delete',
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { lastName: `MassDel-${tag}` })).body;
			return summary(
				await key.post('/MassAction', {
					entityType: 'Contact',
					action: 'delete',
					params: { ids: [c.id] },
				}),
			);
		},
	],
	[
		'lead convert (EspoCRM path), then again',
		async ({ key, tag }) => {
			const l = (await key.post('/Lead', { firstName: 'Le', lastName: `Ad-${tag}` })).body;
			const records = {
				Account: { name: `LeadAcc-${tag}` },
				Contact: { firstName: 'Le', lastName: `Ad-${tag}` },
			};
			const first = await key.post('/Lead/action/convert', { id: l.id, records });
			const again = await key.post('/Lead/action/convert', {
				id: l.id,
				records: { Account: { name: `LeadAcc2-${tag}` } },
			});
			const pick = (b) =>
				b && {
					status: b.status,
					createdAccountId: isId(b.createdAccountId),
					createdContactId: isId(b.createdContactId),
					createdOpportunityId:
						b.createdOpportunityId === undefined ? 'absent' : b.createdOpportunityId,
				};
			return {
				first: summary(first, { pick }),
				again: summary(again, { pick }),
				standardPath: summary(await key.post(`/Lead/${l.id}/action/convert`, { records })),
			};
		},
	],
	[
		'e-mail without status: archived, not sent',
		async ({ key, server }) =>
			summary(
				await key.post('/Email', {
					from: server === 'espocrm' ? 'crm@espocrm.test' : 'crm@example.com',
					to: 'x@example.com',
					subject: 'archived',
					body: 'b',
				}),
				{ pick: (b) => b && { status: b.status } },
			),
	],
	[
		'e-mail Sending without from',
		async ({ key }) =>
			summary(
				await key.post('/Email', {
					status: 'Sending',
					to: 'x@example.com',
					subject: 'no from',
					body: 'b',
				}),
				{ pick: (b) => b && (b.status || b.message || b) },
			),
	],
	[
		'GET /App/user: acl for Contact',
		async ({ key }) =>
			summary(await key.get('/App/user'), {
				pick: (b) => b && b.acl && b.acl.table && b.acl.table.Contact,
			}),
	],
	[
		'GET /Metadata: top-level keys',
		async ({ key }) =>
			summary(await key.get('/Metadata'), { pick: (b) => b && Object.keys(b).sort() }),
	],
	[
		'webhook create as the API user',
		async ({ key }) =>
			summary(
				await key.post('/Webhook', { event: 'Contact.create', url: 'http://127.0.0.1:9/hook' }),
				{ pick: (b) => b && { id: isId(b.id), secretKey: typeof b.secretKey } },
			),
	],
	[
		'attachment upload, not a data URI',
		async ({ key }) =>
			summary(
				await key.post('/Attachment', {
					name: 'a.txt',
					type: 'text/plain',
					role: 'Attachment',
					relatedType: 'Email',
					field: 'attachments',
					file: 'plain text',
				}),
				{ pick: (b) => b && { size: b.size } },
			),
	],
	[
		'stream: post with a file: reply fields',
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { firstName: 'Str', lastName: `Eam-${tag}` })).body;
			const a = (
				await key.post('/Attachment', {
					name: 'ä.txt',
					type: 'text/plain',
					role: 'Attachment',
					relatedType: 'Note',
					field: 'attachments',
					file: 'data:text/plain;base64,aGk=',
				})
			).body;
			const note = await key.post('/Note', {
				type: 'Post',
				parentType: 'Contact',
				parentId: c.id,
				post: 'hi **there**',
				attachmentsIds: [a.id],
			});
			return summary(note, {
				pick: (b) =>
					b && {
						keys: Object.keys(b).sort(),
						type: b.type,
						attachmentsIds: (b.attachmentsIds || []).length,
						attachmentsNames: Object.values(b.attachmentsNames || {}),
					},
			});
		},
	],
	[
		"stream: a record's stream: total and the keys of a post",
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { firstName: 'Str', lastName: `List-${tag}` })).body;
			for (const post of ['one', 'two', 'three'])
				await key.post('/Note', { type: 'Post', parentType: 'Contact', parentId: c.id, post });
			const r = await key.get(`/Contact/${c.id}/stream`, { offset: 1, maxSize: 1 });
			const all = await key.get(`/Contact/${c.id}/stream`, { offset: 0, maxSize: 10 });
			return summary(r, {
				pick: (b) =>
					b && {
						total: b.total,
						length: b.list.length,
						post: b.list[0] && b.list[0].post,
						keys: b.list[0] && Object.keys(b.list[0]).sort(),
						types: all.body.list.map((n) => n.type),
					},
			});
		},
	],
	[
		'stream: where on type (in)',
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { firstName: 'Str', lastName: `Where-${tag}` })).body;
			await key.post('/Note', { type: 'Post', parentType: 'Contact', parentId: c.id, post: 'p' });
			const r = await key.get(
				`/Contact/${c.id}/stream?offset=0&maxSize=10&where[0][type]=in&where[0][attribute]=type&where[0][value][0]=Post`,
			);
			return summary(r, { pick: (b) => b && { total: b.total, types: b.list.map((n) => n.type) } });
		},
	],
	[
		"stream: the user's own stream after Follow (total)",
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { firstName: 'Str', lastName: `User-${tag}` })).body;
			const follow = [
				await key.put(`/Contact/${c.id}/subscription`),
				await key.put(`/Contact/${c.id}/subscription`),
			];
			await key.post('/Note', { type: 'Post', parentType: 'Contact', parentId: c.id, post: 'a' });
			await key.post('/Note', { type: 'Post', parentType: 'Contact', parentId: c.id, post: 'b' });
			const first = await key.get('/Stream', { offset: 0, maxSize: 1 });
			const typed = await key.get(
				'/Stream?offset=0&maxSize=200&where[0][type]=in&where[0][attribute]=type&where[0][value][0]=Post',
			);
			const read = (await key.get(`/Contact/${c.id}`)).body;
			const unfollow = [
				await key.delete(`/Contact/${c.id}/subscription`),
				await key.delete(`/Contact/${c.id}/subscription`),
			];
			return {
				follow: follow.map((r) => `${r.status} ${r.text}`),
				first: summary(first, {
					pick: (b) =>
						b && { total: b.total, length: b.list.length, post: b.list[0] && b.list[0].post },
				}),
				typed: summary(typed, {
					pick: (b) => b && { total: b.total, types: [...new Set(b.list.map((n) => n.type))] },
				}),
				isFollowed: read.isFollowed,
				unfollow: unfollow.map((r) => `${r.status} ${r.text}`),
				isFollowedAfter: (await key.get(`/Contact/${c.id}`)).body.isFollowed,
			};
		},
	],
	[
		'stream: post to a record of a type the API user may not read',
		async ({ key, admin, server, tag }) => {
			const folder =
				server === 'espocrm'
					? (await admin.post('/DocumentFolder', { name: `Hidden-${tag}` })).body.id
					: '0000000000000f01d';
			return summary(
				await key.post('/Note', {
					type: 'Post',
					parentType: 'DocumentFolder',
					parentId: folder,
					post: 'x',
				}),
			);
		},
	],
	[
		'stream: post to a record that does not exist',
		async ({ key }) =>
			summary(
				await key.post('/Note', {
					type: 'Post',
					parentType: 'Contact',
					parentId: '0000000000000dead',
					post: 'x',
				}),
			),
	],
	[
		'stream: a stream of a record that does not exist',
		async ({ key }) =>
			summary(await key.get('/Contact/0000000000000dead/stream', { offset: 0, maxSize: 5 })),
	],
	[
		'stream: maxSize 201',
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { firstName: 'Str', lastName: `Max-${tag}` })).body;
			return {
				record: summary(await key.get(`/Contact/${c.id}/stream`, { offset: 0, maxSize: 201 })),
				user: summary(await key.get('/Stream', { offset: 0, maxSize: 201 })),
			};
		},
	],
	// The polling trigger's New Stream Note asks for the notes from the last poll's second on: `after` must be strict.
	[
		"stream: after=<createdAt>, on a record's stream and the user's",
		async ({ key, tag }) => {
			const c = (await key.post('/Contact', { firstName: 'Str', lastName: `After-${tag}` })).body;
			await key.put(`/Contact/${c.id}/subscription`);
			const first = (
				await key.post('/Note', {
					type: 'Post',
					parentType: 'Contact',
					parentId: c.id,
					post: 'first',
				})
			).body;
			await new Promise((resolve) => setTimeout(resolve, 1100));
			await key.post('/Note', {
				type: 'Post',
				parentType: 'Contact',
				parentId: c.id,
				post: 'second',
			});
			const before = new Date(Date.parse(`${first.createdAt}Z`) - 1000)
				.toISOString()
				.slice(0, 19)
				.replace('T', ' ');
			const posts = (r) =>
				r.status === 200
					? r.body.list.filter((n) => n.type === 'Post' && n.parentId === c.id).map((n) => n.post)
					: r.status;
			return {
				recordAfterFirst: posts(
					await key.get(`/Contact/${c.id}/stream`, {
						offset: 0,
						maxSize: 10,
						after: first.createdAt,
					}),
				),
				recordAfterSecondBefore: posts(
					await key.get(`/Contact/${c.id}/stream`, { offset: 0, maxSize: 10, after: before }),
				),
				userAfterFirst: posts(
					await key.get('/Stream', { offset: 0, maxSize: 10, after: first.createdAt }),
				),
				userAfterSecondBefore: posts(
					await key.get('/Stream', { offset: 0, maxSize: 10, after: before }),
				),
			};
		},
	],
	[
		'stream: follow a record that does not exist',
		async ({ key }) => summary(await key.put('/Contact/0000000000000dead/subscription')),
	],
	[
		'stream: a Call (no stream): post, its stream, follow',
		async ({ key, tag }) => {
			const me = (await key.get('/App/user')).body.user.id;
			const call = (
				await key.post('/Call', {
					name: `Call-${tag}`,
					dateStart: '2026-11-28 10:00:00',
					dateEnd: '2026-11-28 10:30:00',
					assignedUserId: me,
				})
			).body;
			const post = await key.post('/Note', {
				type: 'Post',
				parentType: 'Call',
				parentId: call.id,
				post: 'x',
			});
			const stream = await key.get(`/Call/${call.id}/stream`, { offset: 0, maxSize: 5 });
			const follow = await key.put(`/Call/${call.id}/subscription`);
			return {
				post: summary(post, { pick: (b) => b && b.parentType }),
				stream: summary(stream, { pick: (b) => b && b.total }),
				follow: summary(follow),
			};
		},
	],
	['wrong API key', async ({ bad }) => summary(await bad.get('/Contact', { maxSize: 1 }))],
	['no credentials', async ({ anon }) => summary(await anon.get('/Contact', { maxSize: 1 }))],
	// Issue 32: the search parameters of lists, X-No-Total and paging by ID.
	...(() => {
		const names = (b) =>
			b && Array.isArray(b.list)
				? {
						total: b.total,
						names: b.list.map((r) => String(r.name).replace(/-[a-z]+[0-9a-z]+$/, '-<tag>')).sort(),
					}
				: b;
		const seed = async (key, tag) => {
			await key.post('/Contact', {
				firstName: `Srch${tag}`,
				lastName: 'Lovelace',
				emailAddress: `srch.${tag}@engines.example.com`,
				phoneNumber: '+44 20 7946 0001',
			});
			await key.post('/Contact', {
				firstName: 'Grace',
				lastName: `Srch${tag}`,
				emailAddress: `grace.${tag}@navy.example.com`,
				phoneNumber: '+1 555 0100',
			});
		};
		const text = (label, filter, extra = {}) => [
			`textFilter: ${label}`,
			async ({ key, tag }) => {
				await seed(key, tag);
				return summary(
					await key.get('/Contact', { select: 'name', ...extra, textFilter: filter(tag) }),
					{ pick: (b) => (b && Array.isArray(b.list) ? b.list.length : b) },
				);
			},
		];
		return [
			text('first name, any case', (tag) => `srch${tag}`),
			text('"first last"', (tag) => `srch${tag} love`),
			text('e-mail address', (tag) => `grace.${tag}@`),
			text('wildcard *', (tag) => `*${tag}@*.example.com`),
			text('a phone number (not a text filter field of Contact)', () => '+1 555 0100'),
			text('the middle of a name without *', (tag) => `rch${tag}`),
			text('spaces around the text', (tag) => ` srch${tag} `),
			[
				'q instead of textFilter: total',
				async ({ key, tag }) => {
					await seed(key, tag);
					return summary(await key.get('/Contact', { select: 'name', q: `grace.${tag}@` }), {
						pick: (b) => b && { total: b.total, count: b.list.length },
					});
				},
			],
			[
				'textFilter as a where item (the web UI)',
				async ({ key, tag }) => {
					await seed(key, tag);
					return summary(
						await key.get('/Contact', {
							select: 'name',
							where: [{ type: 'textFilter', value: `grace.${tag}@` }],
						}),
						{ pick: (b) => b && b.list.length },
					);
				},
			],
			[
				'primaryFilter Lead actual and converted',
				async ({ key, tag }) => {
					for (const status of ['New', 'Converted', 'Dead'])
						await key.post('/Lead', { lastName: `Pf ${status}-${tag}`, status });
					const where = [
						{ type: 'startsWith', attribute: 'lastName', value: 'Pf ' },
						{ type: 'endsWith', attribute: 'lastName', value: tag },
					];
					const actual = await key.get('/Lead', { select: 'name', where, primaryFilter: 'actual' });
					const converted = await key.get('/Lead', {
						select: 'name',
						where,
						primaryFilter: 'converted',
					});
					return {
						actual: summary(actual, { pick: names }),
						converted: summary(converted, { pick: names }),
					};
				},
			],
			[
				"primaryFilter Meeting, Call, Task (statuses; today, past in the user's time zone)",
				async ({ key, tag }) => {
					// UTC date-times, as the API takes them, `days` from now; within two minutes of midnight UTC some of "today"
					// fall on another day: run the probe again then
					const at = (days) =>
						new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
					const made = {
						Meeting: [
							['a', 'Planned', at(0), at(0)],
							['b', 'Held', at(-1.1), at(-1.1)],
							['c', 'Not Held', at(1.1), at(1.1)],
							['d', 'Held', at(-1.1), at(0)],
						],
						Call: [
							['a', 'Planned', at(0), at(0)],
							['b', 'Held', at(-1.1), at(-1.1)],
							['d', 'Held', at(-1.1), at(0)],
						],
						// b due later today, g earlier today (overdue: past is before now, not before today)
						Task: [
							['a', 'Not Started', at(-2), at(-1.1)],
							['b', 'Started', at(1.1), at(2 / 1440)],
							['c', 'Completed', null, at(-1.1)],
							['d', 'Deferred', null, at(-1.1)],
							['e', 'Not Started', null, null],
							['f', 'Canceled', null, at(0)],
							['g', 'Started', null, at(-2 / 1440)],
						],
					};
					const filters = {
						Meeting: ['planned', 'held', 'todays'],
						Call: ['planned', 'held', 'todays'],
						Task: [
							'actual',
							'completed',
							'deferred',
							'todays',
							'overdue',
							'actualStartingNotInFuture',
						],
					};
					const out = {};
					// activities need an assigned user: the API user
					const assignedUserId = (await key.get('/App/user')).body.user.id;
					for (const [entity, rows] of Object.entries(made)) {
						for (const [name, status, dateStart, dateEnd] of rows) {
							const r = await key.post(`/${entity}`, {
								name: `${name}-${tag}`,
								status,
								dateStart,
								dateEnd,
								assignedUserId,
							});
							if (r.status !== 200) return summary(r);
						}
						const where = [{ type: 'endsWith', attribute: 'name', value: `-${tag}` }];
						for (const filter of filters[entity]) {
							const r = await key.get(`/${entity}`, {
								select: 'name',
								where,
								primaryFilter: filter,
							});
							out[`${entity}.${filter}`] =
								r.status === 200
									? r.body.list
											.map((x) => x.name.slice(0, 1))
											.sort()
											.join('')
									: summary(r);
						}
					}
					return out;
				},
			],
			[
				'primaryFilter unknown',
				async ({ key }) =>
					summary(await key.get('/Contact', { select: 'name', primaryFilter: 'nope' }), {
						pick: () => null,
					}),
			],
			[
				'boolFilterList unknown',
				async ({ key }) =>
					summary(await key.get('/Contact', { select: 'name', boolFilterList: ['nope'] }), {
						pick: () => null,
					}),
			],
			[
				'boolFilterList followed after PUT subscription',
				async ({ key, tag }) => {
					const c = (await key.post('/Contact', { firstName: 'Fol', lastName: `Low-${tag}` })).body;
					const before = await key.get('/Contact', {
						select: 'name',
						boolFilterList: ['followed'],
					});
					const sub = await key.request('PUT', `/Contact/${c.id}/subscription`);
					const after = await key.get('/Contact', {
						select: 'name',
						boolFilterList: ['followed'],
						where: [{ type: 'equals', attribute: 'id', value: c.id }],
					});
					return {
						before: before.body.list.length,
						subscribe: summary(sub),
						after: after.body.list.length,
					};
				},
			],
			[
				'X-No-Total: total on a page with more, and on the last page',
				async ({ key, tag }) => {
					for (let i = 0; i < 3; i++) await key.post('/Account', { name: `Nt${i}-${tag}` });
					const where = [
						{ type: 'startsWith', attribute: 'name', value: 'Nt' },
						{ type: 'endsWith', attribute: 'name', value: tag },
					];
					const more = await key.request('GET', '/Account', {
						query: { select: 'name', maxSize: 2, where },
						headers: { 'x-no-total': 'true' },
					});
					const last = await key.request('GET', '/Account', {
						query: { select: 'name', maxSize: 2, offset: 2, where },
						headers: { 'x-no-total': 'true' },
					});
					return {
						more: summary(more, { pick: (b) => b && b.total }),
						last: summary(last, { pick: (b) => b && b.total }),
					};
				},
			],
			[
				'keyset: orderBy=id, where id greaterThan',
				async ({ key, tag }) => {
					const ids = [];
					for (let i = 0; i < 3; i++)
						ids.push((await key.post('/Account', { name: `Ks${i}-${tag}` })).body.id);
					const where = [
						{ type: 'startsWith', attribute: 'name', value: 'Ks' },
						{ type: 'endsWith', attribute: 'name', value: tag },
						{ type: 'greaterThan', attribute: 'id', value: [...ids].sort()[0] },
					];
					const r = await key.get('/Account', {
						select: 'name',
						orderBy: 'id',
						order: 'asc',
						where,
					});
					return summary(r, {
						pick: (b) =>
							b && {
								ascending: b.list.map((x) => x.id).join() === [...ids].sort().slice(1).join(),
								count: b.list.length,
							},
					});
				},
			],
		];
	})(),
];

async function run(server, clients, only) {
	const out = {};
	const tag = `${server}${Date.now().toString(36)}`;
	for (const [name, probe] of PROBES) {
		if (only && !name.includes(only)) continue;
		try {
			out[name] = await probe({ ...clients, server, tag });
		} catch (e) {
			out[name] = { error: e.message };
		}
	}
	return out;
}

async function main() {
	const args = process.argv.slice(2);
	const only = process.env.PROBE_ONLY || '';
	const release = await releaseOrSkip('node test/espocrm/compare-sandbox.js');
	if (!release) return 0;
	const { startSandbox, SANDBOX_CREDENTIALS: S } = require('../sandbox');
	const sandbox = await startSandbox({ port: 0, dialect: 'espocrm' });
	const espo = await startEspo({ instance: 'test', fresh: true, release });
	try {
		const sb = await run(
			'sandbox',
			{
				key: espoClient(sandbox.origin, { apiKey: S.apiKey }),
				admin: espoClient(sandbox.origin, { username: S.username, password: S.password }),
				anon: espoClient(sandbox.origin, {}),
				bad: espoClient(sandbox.origin, { apiKey: 'wrong-key' }),
			},
			only,
		);
		const es = await run(
			'espocrm',
			{
				key: espo.client('apiKey'),
				admin: espo.admin,
				anon: espoClient(espo.origin, {}),
				bad: espoClient(espo.origin, { apiKey: 'wrong-key' }),
			},
			only,
		);
		if (args.includes('--json')) {
			console.log(
				JSON.stringify(
					Object.fromEntries(Object.keys(sb).map((k) => [k, { sandbox: sb[k], espocrm: es[k] }])),
					null,
					2,
				),
			);
			return;
		}
		let differ = 0;
		for (const name of Object.keys(sb)) {
			const a = JSON.stringify(sb[name]);
			const b = JSON.stringify(es[name]);
			if (a === b && !args.includes('--all')) continue;
			if (a !== b) differ++;
			console.log(`${a === b ? 'SAME' : 'DIFF'}  ${name}`);
			console.log(`      sandbox: ${a}`);
			if (a !== b) console.log(`      EspoCRM: ${b}`);
		}
		console.log(
			`\n${Object.keys(sb).length} probes, ${differ} differ (EspoCRM ${espo.version}, sandbox with dialect "espocrm")`,
		);
	} finally {
		await sandbox.close();
		await espo.stop();
	}
}

main().catch((e) => {
	console.error(e && e.stack ? e.stack : e);
	process.exit(1);
});
