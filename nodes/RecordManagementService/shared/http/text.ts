/**
 * Broken text: a lone UTF-16 surrogate, half of a character that JavaScript writes as two code units (an emoji, a
 * rare CJK character), as cutting text short by code units leaves it ("\ud83d"). Such a string has no UTF-8 form:
 * `encodeURIComponent` throws `URI malformed` on it, n8n's query encoder sends another character in its place, and
 * EspoCRM's JSON decoder refuses a body holding it.
 */

/** With the `u` flag a pair is one code point outside this range: only a surrogate without its other half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const LONE_SURROGATES = /[\uD800-\uDFFF]/gu;

/** Where in a value the first broken character is. */
export interface BrokenText {
	/** The path to the text within the value, as `[0].value` or `.name`; empty for the value itself. */
	path: string;
	/** The code unit's position in that text. */
	position: number;
	/** The code unit, written as `\ud83d`. */
	codeUnit: string;
}

/** The first broken character in a text, or in the texts (keys too) of a list or an object, if any. */
export function brokenTextIn(value: unknown, path = ''): BrokenText | undefined {
	if (typeof value === 'string') {
		const match = LONE_SURROGATE.exec(value);
		if (!match) return undefined;
		return { path, position: match.index, codeUnit: `\\u${match[0].charCodeAt(0).toString(16)}` };
	}
	if (value === null || typeof value !== 'object') return undefined;
	if (Array.isArray(value)) {
		for (const [index, element] of value.entries()) {
			const found = brokenTextIn(element, `${path}[${index}]`);
			if (found) return found;
		}
		return undefined;
	}
	for (const [key, element] of Object.entries(value)) {
		const found = brokenTextIn(key, path) ?? brokenTextIn(element, `${path}.${key}`);
		if (found) return found;
	}
	return undefined;
}

/**
 * A JSON body with every broken character replaced by U+FFFD (�); the same object when it has none (the usual case:
 * nothing is copied). See `exchange` in request.ts for why a body is mended while an address is refused.
 */
export function mendedBody<T>(value: T): T {
	if (typeof value === 'string')
		return (LONE_SURROGATE.test(value) ? value.replace(LONE_SURROGATES, '\uFFFD') : value) as T;
	if (
		value === null ||
		typeof value !== 'object' ||
		Buffer.isBuffer(value) ||
		ArrayBuffer.isView(value)
	)
		return value;
	if (Array.isArray(value)) {
		const mended = value.map((element: unknown) => mendedBody(element));
		return (mended.some((element, index) => element !== value[index]) ? mended : value) as T;
	}
	// Plain objects only: a stream or a form is not JSON and goes as it is.
	if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
		return value;
	let changed = false;
	const entries = Object.entries(value).map(([key, element]) => {
		const mended = [mendedBody(key), mendedBody(element)] as const;
		changed ||= mended[0] !== key || mended[1] !== element;
		return mended;
	});
	return (changed ? Object.fromEntries(entries) : value) as T;
}
