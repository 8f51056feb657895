/**
 * Where the requests of the credential and of the node go: the API root a Base URL names, and which redirects stay
 * within it.
 */

/**
 * Accepts what users paste (`https://crm.example.com`, with or without a trailing slash or `/api/v1`)
 * and returns the API root every path of the interface is relative to.
 */
export function apiBaseUrl(baseUrl: unknown): string {
	const trimmed = String(baseUrl ?? '').trim();
	if (!/^https?:\/\/[^/\s]+/i.test(trimmed)) {
		throw new Error(
			`The credential's Base URL must start with http:// or https:// and name a host, for example https://crm.example.com (it is "${trimmed}")`,
		);
	}
	return `${trimmed.replace(/\/+$/, '').replace(/\/api\/v1$/i, '')}/api/v1`;
}

/** What to do about a redirect: follow it (same origin only), or refuse it with a message that names where it pointed. */
export type RedirectDecision = { follow: URL } | { refuse: string };

/**
 * Whether a request of this node may follow a redirect. Only within the origin (scheme, host and port) of the request:
 * elsewhere the credential (a header, a token, a signature, a client secret) would go to a server the user never
 * named. `http://` to `https://` on the same host is refused too, with the fix: the credential has then already
 * crossed the network unencrypted once, and following would send it a second time. A redirect that would turn a
 * change into a read (301, 302 or 303 of anything but GET) is refused as well: the change would be lost silently.
 * The message names the origin it pointed to, never its path or query (they may carry tokens).
 */
export function redirectDecision(
	from: string,
	method: string | undefined,
	status: number,
	location: unknown,
): RedirectDecision {
	const source = new URL(from);
	let target: URL;
	try {
		target = new URL(String(location ?? ''), source);
	} catch {
		return {
			refuse: `The server redirected the request (${status}) to an address that is not one ("${String(
				location,
			)
				.slice(0, 100)
				.replace(/\/\/[^/@\s]*@/, '//[redacted]@')}")`,
		};
	}
	if (target.origin !== source.origin) {
		if (
			source.protocol === 'http:' &&
			target.protocol === 'https:' &&
			target.hostname === source.hostname
		) {
			return {
				refuse: `The server redirects http:// to https:// (${status} to ${target.origin}). Put ${target.origin} in the credential's Base URL: the node does not follow, because the credentials were already sent unencrypted and would be sent again`,
			};
		}
		return {
			refuse: `The server redirected the request (${status}) to another address, ${target.origin}: the node did not follow and did not send the credentials there`,
		};
	}
	const read = ['GET', 'HEAD'].includes((method ?? 'GET').toUpperCase());
	if (!read && status !== 307 && status !== 308) {
		return {
			refuse: `The server redirected a ${(method ?? '').toUpperCase()} request with ${status}, which would turn it into a read and drop the change: the node did not follow`,
		};
	}
	return { follow: target };
}

/** A redirect a request met: its status and where it points. */
export interface Redirected {
	status: number;
	location: unknown;
}

/** Why a redirect was not followed: `redirectDecision`'s message, or `tooMany` when the most were followed already. */
export interface RedirectRefusal {
	status: number;
	message?: string;
	tooMany?: number;
}

/**
 * One request that follows the redirects it meets, as `redirectDecision` allows and `max` times at most: the one way
 * the node's requests, the credential's token request and the credential test follow redirects (each turns n8n's
 * own following off). `attempt` sends to an address (`hops` redirects after the first); `redirectOf` tells a redirect
 * in what it answered or threw; `refuse` makes the error of a redirect not followed. `from` is the first address,
 * asked for only when a redirect comes (the request was sent, so it is one).
 */
export async function followRedirects<T>(request: {
	from: () => string;
	method: string | undefined;
	max: number;
	attempt: (address: string | undefined, hops: number) => Promise<T>;
	redirectOf: (
		outcome: { answer: T } | { error: unknown },
	) => Promise<Redirected | undefined> | Redirected | undefined;
	refuse: (refusal: RedirectRefusal) => Error;
}): Promise<T> {
	let address: string | undefined;
	for (let hops = 0; ; hops++) {
		let outcome: { answer: T } | { error: unknown };
		try {
			outcome = { answer: await request.attempt(address, hops) };
		} catch (error) {
			outcome = { error };
		}
		const redirected = await request.redirectOf(outcome);
		if (!redirected) {
			if ('error' in outcome) throw outcome.error;
			return outcome.answer;
		}
		const decision = redirectDecision(
			(address ??= request.from()),
			request.method,
			redirected.status,
			redirected.location,
		);
		if ('refuse' in decision)
			throw request.refuse({ status: redirected.status, message: decision.refuse });
		if (hops >= request.max)
			throw request.refuse({ status: redirected.status, tooMany: request.max });
		address = decision.follow.href;
	}
}
