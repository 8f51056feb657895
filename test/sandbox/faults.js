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
 * @typedef {{ status: number, reason?: string }} I18nFailure
 * @typedef {{ kind: 'drop', after: boolean } | { kind: 'fail', status: number, retryAfter?: number | string, reason?: string,
 *   body?: unknown, echoRequestHeaders?: boolean }} FaultDecision
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
    /** @type {Array<FailNextOptions & { remaining: number }>} */
    this.failQueue = [];
    /** @type {Array<FailEveryOptions & { seen: number, fired: number }>} */
    this.failEveryRules = [];
    /** @type {Array<DropNextOptions & { remaining: number }>} */
    this.dropQueue = [];
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
    this.latencyMs = 0;
    this.authLatencyMs = 0;
    this.maxInFlight = null;
    this.emailSendingFails = false;
    this.htmlCatchAll = false;
    this.i18nFailure = null;
    this.ignoresOffset = false;
    this.failQueue = [];
    this.failEveryRules = [];
    this.dropQueue = [];
  }

  /**
   * Decides the fate of one request: drops first, then failNext, then failEvery (whose counters only see the
   * requests that reach it).
   * @param {string} method @param {string} path @returns {FaultDecision | null}
   */
  decide(method, path) {
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
        kind: 'fail', status: fail.status, retryAfter: fail.retryAfter, reason: fail.reason, body: fail.body,
        echoRequestHeaders: fail.echoRequestHeaders,
      };
    }
    for (const rule of this.failEveryRules) {
      if (!matches(rule, method, path)) continue;
      rule.seen++;
      if (rule.seen % rule.every === 0 && rule.fired < (rule.times ?? Infinity)) {
        rule.fired++;
        return { kind: 'fail', status: rule.status, retryAfter: rule.retryAfter, reason: rule.reason, echoRequestHeaders: rule.echoRequestHeaders };
      }
    }
    return null;
  }
}

/** The small page a web server's catch-all serves. */
const CATCH_ALL_PAGE = '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Welcome</title></head>\n' +
  '<body><h1>It works!</h1><p>This is the default web page of this server.</p></body>\n</html>\n';

module.exports = { Faults, CATCH_ALL_PAGE };
