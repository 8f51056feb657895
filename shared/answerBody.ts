/**
 * Reading an answer's body: from n8n's stream, up to a limit, and as JSON where it is JSON. The credential (its token
 * request) and the node's requests read answers alike.
 */

/** A stream of the answer's body, as n8n's helper gives it for `encoding: 'stream'`. */
interface BodyStream extends AsyncIterable<Buffer | string> {
	destroy?: (error?: Error) => void;
}

export function isBodyStream(value: unknown): value is BodyStream {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as BodyStream)[Symbol.asyncIterator] === 'function' &&
		'pipe' in value
	);
}

/** Reads a body up to `limit` bytes; `undefined` when it is longer (the stream is then closed, the rest never read). */
export async function readUpTo(stream: BodyStream, limit: number): Promise<Buffer | undefined> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of stream) {
		const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
		size += bytes.length;
		if (size > limit) {
			stream.destroy?.();
			return undefined;
		}
		chunks.push(bytes);
	}
	return Buffer.concat(chunks, size);
}

/** The answer's JSON, or its text when it is not JSON (as n8n's helper does); undefined when empty. */
export function parseJsonAnswer(text: string): unknown {
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}
