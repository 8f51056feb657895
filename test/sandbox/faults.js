// @ts-check
'use strict';

/**
 * Fault switches, applied before authentication so that a client's retry and back-off paths can be exercised
 * deterministically.
 *
 * @typedef {{ method?: string, pathPrefix?: string }} FaultFilter
 * @typedef {FaultFilter & { count?: number, status: number, retryAfter?: number | string, reason?: string, body?: unknown,
 *   echoRequestHeaders?: boolean }} FailNextOptions
 *   echoRequestHeaders: the refusal repeats the request's headers verbatim (credentials included) in its
 *   X-Status-Reason and JSON body, as a misconfigured proxy or debug page does.
 * @typedef {FaultFilter & { every: number, status: number, retryAfter?: number | string, reason?: string, times?: number,
 *   echoRequestHeaders?: boolean }} FailEveryOptions
 * @typedef {FaultFilter & { count?: number, after?: boolean }} DropNextOptions
 *   after: the request is carried out first (records changed), then the connection is lost without an answer.
 * @typedef {{ limit: number, status?: number, retryAfter?: number | string, reason?: string }} MaxInFlightOptions
 * @typedef {FaultFilter & { count?: number, status?: number, location: string }} RedirectNextOptions
 *   location: the Location header; `{url}` in it becomes the request's path and query (`http://127.0.0.2:9{url}`).
 * @typedef {'html' | 'list' | 'record' | 'huge' | 'silent'} AnswerKind
 * @typedef {FaultFilter & { count?: number, kind: AnswerKind, bytes?: number, chunked?: boolean }} AnswerNextOptions
 *   html: 200 text/html (a login page); list: 200 with a JSON array of two records; record: 200 with one record
 *   (where a list is expected); huge: 200 application/json of `bytes` (default 256 MB), written as the client reads it,
 *   with Content-Length unless `chunked`; silent: the request is read and never answered.
 * @typedef {{ status: number, reason?: string }} I18nFailure
 * @typedef {{ kind: 'drop', after: boolean } | { kind: 'fail', status: number, retryAfter?: number | string, reason?: string,
 *   body?: unknown, echoRequestHeaders?: boolean } | { kind: 'redirect', status: number, location: string }
 *   | { kind: 'answer', answer: AnswerKind, bytes: number, chunked: boolean }} FaultDecision
 */

/** @param {FaultFilter} f @param {string} method @param {string} path */
function matches(f, method, path) {
	if (f.method && f.method.toUpperCase() !== method.toUpperCase()) return false;
	if (f.pathPrefix && !path.startsWith(f.pathPrefix)) return false;
	return true;
}

class Faults {
	constructor() {
		/** Delay before every reply, in ms (refusals for maxInFlight excepted: they come at once). */
		this.latencyMs = 0;
		/** Extra delay before POST /Auth answers, in ms (widens the window of token races). */
		this.authLatencyMs = 0;
		/** @type {MaxInFlightOptions | null} */
		this.maxInFlight = null;
		/** A mail with status Sending fails like EspoCRM without SMTP settings. */
		this.emailSendingFails = false;
		/**
		 * Every request, API or not, gets 200 `text/html` with a small web page, as a web server's or proxy's
		 * catch-all does when the base URL points to the wrong place.
		 */
		this.htmlCatchAll = false;
		/** @type {I18nFailure | null} GET /I18n fails with this status (the node then falls back to names). */
		this.i18nFailure = null;
		/** Lists ignore `offset` (query string): every page is the first, as on a server that does not page. */
		this.ignoresOffset = false;
		/** Lists ignore `where`, `orderBy` and `order` but page by offset, as EspoCRM's opted-out members of a target list. */
		this.ignoresWhereAndOrder = false;
		/** @type {Array<FailNextOptions & { remaining: number }>} */
		this.failQueue = [];
		/** @type {Array<FailEveryOptions & { seen: number, fired: number }>} */
		this.failEveryRules = [];
		/** @type {Array<DropNextOptions & { remaining: number }>} */
		this.dropQueue = [];
		/** @type {Array<RedirectNextOptions & { remaining: number }>} */
		this.redirectQueue = [];
		/** @type {Array<AnswerNextOptions & { remaining: number }>} */
		this.answerQueue = [];
	}

	/**
	 * The next `count` (default 1) matching requests are redirected (`status`, default 302) to `location`, as a proxy,
	 * a load balancer or a moved server does. Use `startRecorder()` for a second listener that records what it gets.
	 * @param {RedirectNextOptions} opts
	 */
	redirectNext(opts) {
		this.redirectQueue.push({ ...opts, remaining: opts.count ?? 1 });
	}

	/**
	 * The next `count` (default 1) matching requests get an answer of the wrong kind (see AnswerNextOptions) instead of
	 * being carried out: a login page, a JSON list where a record belongs, a huge body, or no answer at all.
	 * @param {AnswerNextOptions} opts
	 */
	answerNext(opts) {
		this.answerQueue.push({ ...opts, remaining: opts.count ?? 1 });
	}

	/** The next `count` (default 1) matching requests get `status`. Calls queue up, first match wins. @param {FailNextOptions} opts */
	failNext(opts) {
		this.failQueue.push({ ...opts, remaining: opts.count ?? 1 });
	}

	/** Every `every`-th matching request fails, at most `times` times (default unlimited). @param {FailEveryOptions} opts */
	failEvery(opts) {
		if (!(opts.every >= 1)) throw new Error('failEvery: every must be >= 1');
		this.failEveryRules.push({ ...opts, seen: 0, fired: 0 });
	}

	/**
	 * The next `count` (default 1) matching requests lose their connection without a reply; with `after`, once
	 * they have been carried out.
	 * @param {DropNextOptions} [opts]
	 */
	dropNext(opts = {}) {
		this.dropQueue.push({ ...opts, remaining: opts.count ?? 1 });
	}

	clear() {
		Object.assign(this, new Faults());
	}

	/**
	 * Decides the fate of one request: drops first, then failNext, then failEvery (whose counters only see the
	 * requests that reach it).
	 * @param {string} method @param {string} path @returns {FaultDecision | null}
	 */
	decide(method, path) {
		const redirect = this.redirectQueue.find((r) => r.remaining > 0 && matches(r, method, path));
		if (redirect) {
			redirect.remaining--;
			this.redirectQueue = this.redirectQueue.filter((r) => r.remaining > 0);
			return { kind: 'redirect', status: redirect.status ?? 302, location: redirect.location };
		}
		const answer = this.answerQueue.find((a) => a.remaining > 0 && matches(a, method, path));
		if (answer) {
			answer.remaining--;
			this.answerQueue = this.answerQueue.filter((a) => a.remaining > 0);
			return {
				kind: 'answer',
				answer: answer.kind,
				bytes: answer.bytes ?? 256 * 1024 * 1024,
				chunked: Boolean(answer.chunked),
			};
		}
		const drop = this.dropQueue.find((d) => d.remaining > 0 && matches(d, method, path));
		if (drop) {
			drop.remaining--;
			this.dropQueue = this.dropQueue.filter((d) => d.remaining > 0);
			return { kind: 'drop', after: Boolean(drop.after) };
		}
		const fail = this.failQueue.find((f) => f.remaining > 0 && matches(f, method, path));
		if (fail) {
			fail.remaining--;
			this.failQueue = this.failQueue.filter((f) => f.remaining > 0);
			return {
				kind: 'fail',
				status: fail.status,
				retryAfter: fail.retryAfter,
				reason: fail.reason,
				body: fail.body,
				echoRequestHeaders: fail.echoRequestHeaders,
			};
		}
		for (const rule of this.failEveryRules) {
			if (!matches(rule, method, path)) continue;
			rule.seen++;
			if (rule.seen % rule.every === 0 && rule.fired < (rule.times ?? Infinity)) {
				rule.fired++;
				return {
					kind: 'fail',
					status: rule.status,
					retryAfter: rule.retryAfter,
					reason: rule.reason,
					echoRequestHeaders: rule.echoRequestHeaders,
				};
			}
		}
		return null;
	}
}

/** The small page a web server's catch-all serves. */
const CATCH_ALL_PAGE =
	'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Welcome</title></head>\n' +
	'<body><h1>It works!</h1><p>This is the default web page of this server.</p></body>\n</html>\n';

/** A login page, as a proxy or a single sign-on gateway answers in the API's place. */
const LOGIN_PAGE =
	'<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form method="post" action="/login">' +
	'<input name="username"><input name="password" type="password"><button>Sign in</button></form></body></html>\n';

module.exports = { Faults, CATCH_ALL_PAGE, LOGIN_PAGE };
