// @ts-check
'use strict';

const {
	ENTITY_DEFS,
	APP_CONFIG,
	REG_EXP_PATTERNS,
	getAttributes,
	optionsOf,
} = require('./metadata');
const {
	validationError,
	phpError,
	parseDate,
	parseStrictDateTime,
	parseDateTime,
} = require('./util');

/**
 * How EspoCRM 8.1.5 takes written values: first the ORM sets each attribute, converting it by attribute type
 * without complaint (ORM/BaseEntity::prepareAttributeValue: intval, floatval, bool from 1/'1'/true/'true' only,
 * JSON arrays and objects); then the field validation manager (Core/FieldValidation/FieldValidationManager) runs,
 * field by field in entityDefs order, the checks of each field type (`validationList` and the always-run
 * `mandatoryValidationList` of metadata/fields/<type>.json) and stops at the first failure:
 * 400 `Field validation failure; entityType: <Type>, field: <field>, type: <check>.`
 * On update only the fields present in the request are checked.
 *
 * @typedef {import('./metadata').FieldDef} FieldDef
 * @typedef {import('./metadata').AttributeDef} AttributeDef
 * @typedef {{ field: string, fd: FieldDef, entity: Record<string, any>, data: Record<string, any>, entityType: string }} CheckArgs
 * @typedef {(a: CheckArgs) => boolean} Check
 */

const EMAIL_RE = /^[^\s@;,<>()[\]"]+@[^\s@;,<>()[\]"]+\.[^\s@;,<>()[\]"]+$/;

const KEYPAD = ['ABC', 'DEF', 'GHI', 'JKL', 'MNO', 'PQRS', 'TUV', 'WXYZ'];

/**
 * As EspoCRM 8.1.5 stores a phone number (Core/PhoneNumber/Sanitizer.php, with its default `phoneNumberInternational`):
 * one that starts with "+" is parsed by libphonenumber and stored in E.164, `+1 (555) 400-0041 ext. 7` → `+15554000041`
 * (the extension dropped, three or more letters as keypad digits); one it cannot parse, and any without "+", as given,
 * trimmed. Not modelled: the trunk prefix after a country code that libphonenumber drops by country ("+44 (0)20").
 * @param {string} v
 */
function normalisePhone(v) {
	const given = v.trim();
	if (!given.startsWith('+')) return given;
	const number = given.replace(/(?:;ext=|\s*(?:ext\.?|x|#)\s*)\d{1,20}#?$/i, '');
	if (/[^0-9A-Za-z+\s\-().\/]/.test(number)) return given;
	const letters = (number.match(/[A-Za-z]/g) ?? []).length;
	let digits = '';
	for (const c of number.slice(1)) {
		if (/\d/.test(c)) digits += c;
		else if (letters >= 3 && /[A-Za-z]/.test(c))
			digits += String(KEYPAD.findIndex((keys) => keys.includes(c.toUpperCase())) + 2);
	}
	// A country code and a national number of 2 to 17 digits, at least three digits in all.
	if ((number.match(/\d/g) ?? []).length < 3 || digits.length > 20 || digits.startsWith('0'))
		return given;
	return `+${digits}`;
}

/**
 * A phone number as the server stores it: EspoCRM 7 as written (trimmed; measured on 7.5.6), 8.x and later
 * normalised (normalisePhone).
 * @param {string} v @param {{ phoneNumbersAsWritten?: boolean }} opts
 */
function storedPhone(v, opts) {
	return opts.phoneNumbersAsWritten ? v.trim() : normalisePhone(v);
}

/** PHP's is_numeric. @param {unknown} v */
function isNumeric(v) {
	if (typeof v === 'number') return Number.isFinite(v);
	if (typeof v !== 'string') return false;
	return /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(v);
}

/** PHP's floatval. @param {unknown} v */
function floatval(v) {
	if (typeof v === 'number') return v;
	if (typeof v === 'boolean') return v ? 1 : 0;
	if (typeof v === 'string') {
		const m = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(v);
		return m ? Number(m[0]) : 0;
	}
	if (Array.isArray(v)) return v.length ? 1 : 0;
	return v ? 1 : 0;
}

/** PHP's intval. @param {unknown} v */
function intval(v) {
	const f = floatval(v);
	return Number.isFinite(f) ? Math.trunc(f) : 0;
}

/** @param {string} pattern a regExpPatterns name with `$`, or a pattern */
function resolvePattern(pattern) {
	const p = pattern.startsWith('$')
		? (/** @type {Record<string, string>} */ (REG_EXP_PATTERNS)[pattern.slice(1)] ?? pattern)
		: pattern;
	return new RegExp(`^${p}$`);
}

/** mb_strlen: characters, not UTF-16 units. @param {string} s */
const mbLength = (s) => [...s].length;

/** An object of JSON (a PHP stdClass), not an array. @param {unknown} v */
const isJsonObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The value the ORM keeps for a written attribute (prepareAttributeValue), or undefined to leave it unset.
 * @param {AttributeDef} a @param {unknown} input
 */
function toEntityValue(a, input) {
	if (input === null || input === undefined) return null;
	switch (a.kind) {
		case 'bool':
			return input === 1 || input === '1' || input === true || input === 'true';
		case 'int':
			return intval(input);
		case 'float':
			return floatval(input);
		case 'array':
		case 'json': {
			let v = input;
			if (typeof v === 'string') {
				try {
					v = JSON.parse(v);
				} catch {
					return null;
				}
			}
			return Array.isArray(v) ? JSON.parse(JSON.stringify(v)) : null;
		}
		case 'object': {
			let v = input;
			if (typeof v === 'string') {
				try {
					v = JSON.parse(v);
				} catch {
					return null;
				}
			}
			return isJsonObject(v) ? JSON.parse(JSON.stringify(v)) : null;
		}
		default:
			// varchar-like columns: PHP keeps scalars; an array or object reaching mb_strlen or the database is a
			// TypeError, an error 500 without a reason.
			if (typeof input === 'object') throw phpError(500);
			return typeof input === 'string' ? input : String(input);
	}
}

/** @param {CheckArgs} a @param {string} attr */
const has = (a, attr) => Object.prototype.hasOwnProperty.call(a.entity, attr);
/** @param {CheckArgs} a */
const value = (a) => a.entity[a.field];
/** @param {CheckArgs} a */
const notNull = (a) => has(a, a.field) && value(a) !== null && value(a) !== undefined;
/** @param {CheckArgs} a */
const notEmptyString = (a) => notNull(a) && value(a) !== '';
/** @param {CheckArgs} a */
const list = (a) => (Array.isArray(value(a)) ? /** @type {unknown[]} */ (value(a)) : []);

/** @param {number} dflt @returns {Check} */
const maxLength = (dflt) => (a) => {
	if (!notEmptyString(a)) return true;
	const max = a.fd.maxLength ?? dflt;
	return !max || mbLength(String(value(a))) <= max;
};
/** @type {Check} */
const varcharMaxLength = (a) => {
	if (a.fd.notStorable && !a.fd.maxLength) return true;
	return maxLength(255)(a);
};
/** @type {Check} */
const pattern = (a) =>
	!notEmptyString(a) || !a.fd.pattern || resolvePattern(a.fd.pattern).test(String(value(a)));
/** @type {Check} */
const min = (a) => !notNull(a) || a.fd.min === undefined || Number(value(a)) >= a.fd.min;
/** @type {Check} */
const max = (a) => !notNull(a) || a.fd.max === undefined || Number(value(a)) <= a.fd.max;
/** int and float check the raw input: is_numeric or '' (IntType::rawCheckValid). @type {Check} */
const rawNumeric = (a) => {
	const v = a.data[a.field];
	return v === undefined || v === null || v === '' || isNumeric(v);
};
/** @type {Check} */
const enumValid = (a) => {
	const own = optionsOf(a.fd);
	if (!has(a, a.field) || !own) return true;
	const options = own.map((o) => (o === '' ? null : o));
	const v = value(a) === '' ? null : value(a);
	return options.includes(/** @type {any} */ (v));
};
/** @type {Check} */
const urlValid = (a) =>
	value(a) === null ||
	value(a) === undefined ||
	resolvePattern('$uriOptionalProtocol').test(String(value(a)));
/** @type {Check} */
const dateValid = (a) => !notNull(a) || parseDate(value(a)) !== null;
/** @type {Check} */
const dateTimeValid = (a) => !notNull(a) || parseStrictDateTime(value(a)) !== null;
/** @type {Check} */
const dateTimeOptionalValid = (a) => {
	const d = a.entity[`${a.field}Date`];
	if (d !== null && d !== undefined && parseDate(d) === null) return false;
	return dateTimeValid(a);
};
/** jsonArray-stored fields: the raw input, when given, must be a JSON array (rawCheckArray). @type {Check} */
const rawArray = (a) => {
	const v = a.data[a.field];
	return v === undefined || v === null || Array.isArray(v);
};
/** @type {Check} */
const arrayOfString = (a) => list(a).every((x) => typeof x === 'string');
/** @type {Check} */
const arrayValid = (a) => {
	if (!has(a, a.field) || list(a).length === 0 || !a.fd.options) return true;
	return list(a).every((x) => /** @type {unknown[]} */ (a.fd.options).includes(x));
};
/** @param {number} dflt @returns {Check} */
const maxItemLength = (dflt) => (a) =>
	list(a).every((x) => typeof x !== 'string' || mbLength(x) <= dflt);
/** @type {Check} */
const noEmptyString = (a) => list(a).every((x) => x !== '' || (a.fd.options || []).includes(''));
/** @type {Check} */
const urlItemsPattern = (a) =>
	list(a).every((x) => x === '' || resolvePattern('$uriOptionalProtocol').test(String(x)));
/** @type {Check} */
const maxCount = (a) => !a.fd.maxCount || list(a).length <= a.fd.maxCount;
/** @param {string} suffix @returns {Check} */
const idPattern = (suffix) => (a) => {
	const v = a.entity[`${a.field}${suffix}`];
	const ids = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
	return ids.every((id) => typeof id === 'string' && resolvePattern('$id').test(id));
};
/** @type {Check} */
const emailAddress = (a) => {
	if (notEmptyString(a) && !EMAIL_RE.test(String(value(a)))) return false;
	const data = a.entity[`${a.field}Data`];
	if (!Array.isArray(data)) return true;
	return data.every(
		(e) => isJsonObject(e) && (!e.emailAddress || EMAIL_RE.test(String(e.emailAddress))),
	);
};
/** @type {Check} */
const phoneValid = (a) => {
	const loose = resolvePattern('$phoneNumberLoose');
	if (notEmptyString(a) && !loose.test(String(value(a)))) return false;
	const data = a.entity[`${a.field}Data`];
	if (!Array.isArray(data)) return true;
	return data.every((e) => isJsonObject(e) && e.phoneNumber && loose.test(String(e.phoneNumber)));
};
/** @type {Check} */
const validCurrency = (a) => {
	const attr = `${a.field}Currency`;
	if (!has(a, attr)) return true;
	const currency = a.entity[attr];
	if (currency === null && (!has(a, a.field) || value(a) === null)) return true;
	return APP_CONFIG.currencyList.includes(currency);
};
/** @type {Check} */
const linkParentValid = (a) => {
	const t = a.entity[`${a.field}Type`];
	return t === null || t === undefined || !a.fd.entityList || a.fd.entityList.includes(t);
};

/** Required, as each type's checkRequired defines "not empty". @type {Record<string, Check>} */
const REQUIRED = {
	varchar: notEmptyString,
	text: notEmptyString,
	wysiwyg: notEmptyString,
	url: notEmptyString,
	email: (a) =>
		notEmptyString(a) ||
		(Array.isArray(a.entity[`${a.field}Data`]) &&
			a.entity[`${a.field}Data`].some((/** @type {any} */ e) => e && e.emailAddress)),
	phone: (a) =>
		notEmptyString(a) ||
		(Array.isArray(a.entity[`${a.field}Data`]) &&
			a.entity[`${a.field}Data`].some((/** @type {any} */ e) => e && e.phoneNumber)),
	currency: (a) =>
		notNull(a) &&
		a.entity[`${a.field}Currency`] !== null &&
		a.entity[`${a.field}Currency`] !== undefined &&
		a.entity[`${a.field}Currency`] !== '',
	datetimeOptional: (a) =>
		notNull(a) || (a.entity[`${a.field}Date`] !== null && a.entity[`${a.field}Date`] !== undefined),
	link: (a) =>
		a.entity[`${a.field}Id`] !== null &&
		a.entity[`${a.field}Id`] !== undefined &&
		a.entity[`${a.field}Id`] !== '',
	linkParent: (a) => Boolean(a.entity[`${a.field}Id`]) && Boolean(a.entity[`${a.field}Type`]),
	linkMultiple: (a) =>
		Array.isArray(a.entity[`${a.field}Ids`]) && a.entity[`${a.field}Ids`].length > 0,
	array: (a) => list(a).length > 0,
	personName: (a) => Boolean(a.entity.lastName || a.entity.firstName),
};
REQUIRED.linkOne = REQUIRED.link;
REQUIRED.file = REQUIRED.link;
REQUIRED.image = REQUIRED.link;
REQUIRED.attachmentMultiple = REQUIRED.linkMultiple;
REQUIRED.multiEnum = REQUIRED.array;
REQUIRED.checklist = REQUIRED.array;
REQUIRED.urlMultiple = REQUIRED.array;

/**
 * Per field type, the checks in the order EspoCRM runs them (validationList, then the rest of the mandatory
 * list). `true` in the tuple: always run (mandatory); `false`: only when the field has the parameter.
 * @type {Record<string, Array<[string, Check, boolean]>>}
 */
const CHECKS = {
	varchar: [
		['maxLength', varcharMaxLength, true],
		['pattern', pattern, false],
	],
	text: [['maxLength', maxLength(0), false]],
	wysiwyg: [['maxLength', maxLength(0), false]],
	url: [
		['maxLength', varcharMaxLength, true],
		['valid', urlValid, true],
	],
	enum: [
		['valid', enumValid, true],
		['maxLength', maxLength(255), true],
	],
	int: [
		['min', min, false],
		['max', max, false],
		['valid', rawNumeric, true],
	],
	float: [
		['min', min, false],
		['max', max, false],
		['valid', rawNumeric, true],
	],
	// A float currency attribute skips `valid` and `inPermittedRange` (they concern varchar-stored amounts) but
	// the raw input is still checked by FloatType::rawCheckValid.
	currency: [
		['min', min, false],
		['max', max, false],
		['valid', rawNumeric, true],
		['validCurrency', validCurrency, true],
	],
	date: [['valid', dateValid, true]],
	datetime: [['valid', dateTimeValid, true]],
	datetimeOptional: [['valid', dateTimeOptionalValid, true]],
	email: [
		['emailAddress', emailAddress, true],
		['maxLength', maxLength(255), true],
	],
	phone: [
		['valid', phoneValid, true],
		['maxLength', maxLength(36), true],
	],
	multiEnum: [
		['array', rawArray, true],
		['arrayOfString', arrayOfString, true],
		['valid', arrayValid, true],
		['maxCount', maxCount, false],
		['maxItemLength', maxItemLength(100), true],
		['noEmptyString', noEmptyString, true],
	],
	array: [
		['array', rawArray, true],
		['arrayOfString', arrayOfString, true],
		['valid', arrayValid, true],
		['maxCount', maxCount, false],
		['maxItemLength', maxItemLength(100), true],
	],
	checklist: [
		['array', rawArray, true],
		['arrayOfString', arrayOfString, true],
		['valid', arrayValid, true],
		['maxCount', maxCount, false],
	],
	urlMultiple: [
		['maxCount', maxCount, false],
		['array', rawArray, true],
		['arrayOfString', arrayOfString, true],
		['valid', arrayValid, true],
		['maxItemLength', maxItemLength(255), true],
		['pattern', urlItemsPattern, true],
		['noEmptyString', noEmptyString, true],
	],
	jsonArray: [['array', rawArray, true]],
	link: [['pattern', idPattern('Id'), true]],
	linkOne: [['pattern', idPattern('Id'), true]],
	file: [['pattern', idPattern('Id'), true]],
	image: [['pattern', idPattern('Id'), true]],
	linkMultiple: [['pattern', idPattern('Ids'), true]],
	attachmentMultiple: [['pattern', idPattern('Ids'), true]],
	linkParent: [
		['pattern', idPattern('Id'), true],
		['valid', linkParentValid, true],
	],
};

/** Whether the request names the field through any of its attributes (FieldValidationManager::isFieldSetInData). */
function fieldInData(
	/** @type {string} */ entityType,
	/** @type {string} */ field,
	/** @type {Record<string, unknown>} */ data,
) {
	for (const a of getAttributes(entityType).values())
		if (a.field === field && a.name in data) return true;
	return false;
}

/**
 * Runs the field checks; throws the first failure.
 * @param {string} entityType @param {Record<string, any>} entity the record as it would be saved (attributes
 *   that are set) @param {Record<string, any>} data the request body @param {boolean} isCreate
 */
function validateFields(entityType, entity, data, isCreate) {
	for (const [field, fd] of Object.entries(ENTITY_DEFS[entityType].fields)) {
		if (!isCreate && !fieldInData(entityType, field, data)) continue;
		const suppressed = new Set(fd.suppressValidationList || []);
		/** @type {CheckArgs} */
		const args = { field, fd, entity, data, entityType };
		const required = REQUIRED[fd.type] || notNull;
		if (fd.required && !suppressed.has('required') && !required(args))
			throw validationError(entityType, field, 'required');
		for (const [type, check, mandatory] of CHECKS[fd.type] || []) {
			if (suppressed.has(type)) continue;
			if (!mandatory && fd[/** @type {keyof FieldDef} */ (type)] === undefined) continue;
			if (!check(args)) throw validationError(entityType, field, type);
		}
	}
}

/**
 * Attributes a request can set: stored ones, the ids of links (a linkOne's id is stored on the other record),
 * e-mail and phone lists, aliases. Names, types and computed values (duration, foreign) are not.
 * @param {AttributeDef} a
 */
function isWritable(a) {
	if (a.role === 'names' || a.role === 'types' || a.role === 'columns') return false;
	return (
		a.storable || a.role === 'ids' || a.role === 'id' || a.role === 'data' || Boolean(a.def.aliasOf)
	);
}

/**
 * Reads a request body into attribute values. Unknown attributes, read-only ones (unless trusted) and the
 * computed ones are left out silently, as EspoCRM does.
 * @param {string} entityType @param {Record<string, unknown>} data @param {{ trusted?: boolean, phoneNumbersAsWritten?: boolean }} opts
 * @returns {{ values: Record<string, unknown>, multiple: Record<string, string[]> }}
 */
function readInput(entityType, data, opts) {
	const attrs = getAttributes(entityType);
	/** @type {Record<string, unknown>} */
	const values = {};
	/** @type {Record<string, string[]>} */
	const multiple = {};
	for (const [key, input] of Object.entries(data || {})) {
		const a0 = attrs.get(key);
		if (!a0 || key === 'id' || key === 'versionNumber') continue;
		const name = a0.def.aliasOf || key;
		const a = /** @type {AttributeDef} */ (attrs.get(name));
		if ((a.readOnly || a.def.apiReadOnly) && !opts.trusted) continue;
		if (!isWritable(a)) continue;
		if (a.role === 'ids') {
			const v = toEntityValue(a, input);
			if (input !== null && input !== undefined && !Array.isArray(v)) continue;
			multiple[a.field] = [
				...new Set(
					/** @type {unknown[]} */ (v || []).map((x) => (typeof x === 'string' ? x : String(x))),
				),
			];
			values[name] = multiple[a.field];
			continue;
		}
		if (a.role === 'data') {
			readAddressData(a, input, values, opts);
			continue;
		}
		let v = toEntityValue(a, input);
		// 'Y-m-d H:i' is valid and stored with ':00' (EspoCRM's create reply echoes it as sent; reads show seconds).
		// Direct store access also takes ISO 8601 with an offset.
		if (a.kind === 'datetime' && typeof v === 'string')
			v = parseStrictDateTime(v) ?? (opts.trusted ? (parseDateTime(v) ?? v) : v);
		if (a.fieldType === 'phone' && name === a.field && typeof v === 'string')
			v = storedPhone(v, opts);
		if (a.fieldType === 'email' && typeof v === 'string') v = v.trim();
		values[name] = v;
	}
	return { values, multiple };
}

/**
 * emailAddressData / phoneNumberData: the list of addresses; the primary one becomes the plain attribute.
 * @param {AttributeDef} a @param {unknown} input @param {Record<string, unknown>} values
 * @param {{ phoneNumbersAsWritten?: boolean }} opts
 */
function readAddressData(a, input, values, opts) {
	const key = a.fieldType === 'email' ? 'emailAddress' : 'phoneNumber';
	if (input === null || input === undefined) return;
	if (!Array.isArray(input)) {
		values[a.name] = input; // kept for the check, which fails on it
		return;
	}
	const items = input
		.filter((e) => isJsonObject(e) && typeof e[key] === 'string')
		.map((e) => ({
			...e,
			[key]: a.fieldType === 'phone' ? storedPhone(e[key], opts) : e[key].trim(),
			primary: Boolean(e.primary),
		}));
	if (items.length && !items.some((e) => e.primary)) items[0].primary = true;
	values[a.name] = items;
	const primary = items.find((e) => e.primary);
	values[a.field] = primary ? primary[key] : null;
}

module.exports = { readInput, validateFields, toEntityValue, normalisePhone, isNumeric, EMAIL_RE };
