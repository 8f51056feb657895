// @ts-check
'use strict';

/**
 * Query strings the way PHP reads them (EspoCRM's $_GET): `a[b][]=1&a[b][]=2` → {a: {b: ['1', '2']}}, and
 * `where[0][value][1]=x` → indexed arrays. Objects whose keys are all integers become arrays, ordered by key.
 */

/** @param {string} s */
function decode(s) {
	const t = s.replace(/\+/g, ' ');
	try {
		return decodeURIComponent(t);
	} catch {
		return t;
	}
}

/** @param {Record<string, any>} obj */
function nextIndex(obj) {
	let max = -1;
	for (const k of Object.keys(obj)) if (/^\d+$/.test(k)) max = Math.max(max, Number(k));
	return String(max + 1);
}

/** @param {unknown} v @returns {unknown} */
function finalise(v) {
	if (!v || typeof v !== 'object') return v;
	const obj = /** @type {Record<string, unknown>} */ (v);
	const keys = Object.keys(obj);
	for (const k of keys) obj[k] = finalise(obj[k]);
	if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
		return keys
			.map(Number)
			.sort((a, b) => a - b)
			.map((k) => obj[String(k)]);
	}
	return { ...obj };
}

/** @param {string} raw the part after '?' @returns {Record<string, any>} */
function parsePhpQuery(raw) {
	/** @type {Record<string, any>} */
	const root = Object.create(null);
	if (!raw) return {};
	for (const part of raw.split('&')) {
		if (!part) continue;
		const eq = part.indexOf('=');
		const key = decode(eq < 0 ? part : part.slice(0, eq));
		const value = eq < 0 ? '' : decode(part.slice(eq + 1));
		const open = key.indexOf('[');
		const base = open > 0 ? key.slice(0, open) : key;
		const rest = open > 0 ? key.slice(open) : '';
		/** @type {string[]} */
		const subs = [];
		const re = /\[([^\]]*)\]/g;
		let m;
		let consumed = 0;
		while ((m = re.exec(rest)) && m.index === consumed) {
			subs.push(m[1]);
			consumed = re.lastIndex;
		}
		const path = [base, ...subs];
		let obj = root;
		for (let i = 0; i < path.length; i++) {
			let k = path[i];
			if (k === '' && i > 0) k = nextIndex(obj);
			if (i === path.length - 1) {
				obj[k] = value;
			} else {
				if (!obj[k] || typeof obj[k] !== 'object') obj[k] = Object.create(null);
				obj = obj[k];
			}
		}
	}
	return /** @type {Record<string, any>} */ (finalise(root));
}

module.exports = { parsePhpQuery };
