/**
 * How EspoCRM stores a phone number that starts with "+" (`Espo\Core\PhoneNumber\Sanitizer`, with the default setting
 * `phoneNumberInternational`): parsed with libphonenumber and written in E.164, "+" and digits only. Separators go,
 * letters become keypad digits, other scripts' digits become 0-9, an extension is dropped. A value it cannot parse
 * is stored as given (trimmed), and so is every value without "+". `in` and `equals` compare the stored text, so a
 * look-up must send the stored form.
 *
 * What libphonenumber does without its per-country data is done here. Not done: dropping a trunk prefix written
 * after the country code ("+44 (0)20 …", "+7 8 495 …"), which EspoCRM removes by each country's rules.
 */

/** libphonenumber's punctuation in a phone number (`VALID_PUNCTUATION`) and its star sign. */
const PUNCTUATION =
	'\\-x\\u2010-\\u2015\\u2212\\u30FC\\uFF0D-\\uFF0F \\u00A0\\u00AD\\u200B\\u2060\\u3000()\\uFF08\\uFF09\\uFF3B\\uFF3D.\\[\\]/~\\u2053\\u223C\\uFF5E*';

/** An extension at the end, as libphonenumber parses one (`;ext=`, "ext.", "x", "#", "доб", ",,"…); group 1 or 2 is the number. */
const EXTENSION =
	'(?:;ext=(\\p{Nd}{1,20})' +
	'|[ \\u00A0\\t,]*(?:e?xt(?:ensi(?:ó?|ó))?n?|ｅ?ｘｔｎ?|доб|anexo|[xｘ#＃~～]|int|ｉｎｔ|,{2}|;)[:\\.．]?[ \\u00A0\\t,\\-]*(\\p{Nd}{1,20})#?' +
	'|[\\- ]+(\\p{Nd}{1,6})#)';

/** libphonenumber's `VALID_PHONE_NUMBER` with an optional extension: at least three digits among punctuation, then letters too. */
const VIABLE = new RegExp(
	`^(?:\\p{Nd}{2}|[+＋]*(?:[${PUNCTUATION}]*\\p{Nd}){3,}[${PUNCTUATION}A-Za-z\\p{Nd}]*)(?:${EXTENSION})?$`,
	'iu',
);
const VIABLE_WITHOUT_EXTENSION = new RegExp(
	`^(?:\\p{Nd}{2}|[+＋]*(?:[${PUNCTUATION}]*\\p{Nd}){3,}[${PUNCTUATION}A-Za-z\\p{Nd}]*)$`,
	'iu',
);
const TRAILING_EXTENSION = new RegExp(`${EXTENSION}$`, 'iu');

/** The keypad's letters (libphonenumber's `ALPHA_MAPPINGS`). */
const KEYPAD = ['ABC', 'DEF', 'GHI', 'JKL', 'MNO', 'PQRS', 'TUV', 'WXYZ'];

/** The 0-9 value of a decimal digit of any script: Unicode's decimal digits come in runs of ten, 0 first. */
function digitOf(char: string): string {
	const code = char.codePointAt(0)!;
	let start = code;
	while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
	return String((code - start) % 10);
}

/** libphonenumber's `normalize`: digits to 0-9; letters to keypad digits when there are three or more, else dropped. */
function digitsOf(text: string): string {
	const withLetters = /(?:.*?[A-Za-z]){3}/.test(text);
	let digits = '';
	for (const char of text) {
		if (/\p{Nd}/u.test(char)) digits += digitOf(char);
		else if (withLetters && /[A-Za-z]/.test(char))
			digits += String(KEYPAD.findIndex((keys) => keys.includes(char.toUpperCase())) + 2);
	}
	return digits;
}

/** The E.164 form libphonenumber gives a number written with "+" (`PhoneNumber::parse`), or undefined where it fails. */
function e164Of(text: string): string | undefined {
	if (text.length > 250 || /;(?:phone-context|isub)=/i.test(text)) return undefined;
	// `extractPossibleNumber`: no trailing punctuation; a second number after "/ x" is cut off.
	let number = text.replace(/[^\p{N}\p{L}#]+$/u, '');
	const second = /[\\/] *x/u.exec(number);
	if (second) number = number.slice(0, second.index);
	if (!VIABLE.test(number)) return undefined;
	const extension = TRAILING_EXTENSION.exec(number);
	if (extension && VIABLE_WITHOUT_EXTENSION.test(number.slice(0, extension.index)))
		number = number.slice(0, extension.index);
	const digits = digitsOf(number.replace(/^[+＋]+/, ''));
	// A country code (1 to 3 digits, not starting with 0) and a national number of 2 to 17 digits.
	if (digits.length < 3 || digits.length > 20 || digits.startsWith('0')) return undefined;
	return `+${digits}`;
}

/**
 * EspoCRM 9's form with the setting `phoneNumberExtensions` on: the extension kept as " ext. 12"
 * (`Espo\Core\PhoneNumber\Util::splitExtension`: the last "ext.", "x." "x" or "#" past the second character).
 */
function withExtensionOf(text: string): string | undefined {
	for (const delimiter of ['ext.', 'x.', 'x', '#']) {
		const at = text.lastIndexOf(delimiter);
		if (at < 2) continue;
		const extension = text.slice(at + delimiter.length).trim();
		const number = e164Of(text.slice(0, at).trim());
		return extension && number ? `${number} ext. ${extension}` : undefined;
	}
	return undefined;
}

/**
 * The forms in which EspoCRM may have stored a value written as `text` (trimmed) in a phone field: as given (the
 * setting `phoneNumberInternational` off, or a value it cannot parse), in E.164, and in E.164 with its extension
 * (EspoCRM 9 with `phoneNumberExtensions`). The first is the one EspoCRM stores by default. Only `text` for a value
 * that does not start with "+" or is no phone number.
 */
export function storedPhoneFormsOf(text: string): string[] {
	if (!text.startsWith('+')) return [text];
	const e164 = e164Of(text);
	if (e164 === undefined) return [text];
	return [...new Set([e164, text, withExtensionOf(text) ?? e164])];
}

/**
 * What EspoCRM keeps of a number written with "+" in its `numeric` column (the digits of the stored form:
 * `preg_replace('/[^0-9]/', '', $number)`), whichever form it was stored in: EspoCRM 7 keeps a number as written
 * (`+1 (555) 400-0041`), 8 and later in E.164 (`+15554000041`), 9 with `phoneNumberExtensions` with its extension.
 * The field's `<field>Numeric` attribute (7.5 and later) compares it with every number of the record, so one look-up
 * finds the record however the number was written and stored. Undefined for a value without "+" or that is no phone
 * number (looked up as text). Not found this way: a number stored as written with letters (`+1 800 FLOWERS`, whose
 * column holds only the digits written).
 */
export function storedPhoneDigitsOf(text: string): string[] | undefined {
	if (!text.startsWith('+')) return undefined;
	const e164 = e164Of(text);
	if (e164 === undefined) return undefined;
	return [
		...new Set([e164, withExtensionOf(text) ?? e164].map((form) => form.replace(/[^0-9]/g, ''))),
	];
}
