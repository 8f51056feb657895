import { NodeApiError } from 'n8n-workflow';

import type { Run } from '../http/run';
import { readMetadata } from '../server/metadata';
import { runsAsTool } from '../tool/mode';

/** EspoCRM's reason for a value outside a field's list: `Field validation failure; entityType: Lead, field: status, type: valid.` */
const NOT_ALLOWED = /entityType: (\w+), field: (\w+), type: valid/;

/**
 * How the model learns a field's allowed values: n8n gives a tool's arguments no list of values (EspoCRM's MCP
 * extension puts them in its schema), so when EspoCRM refuses a value of a field with a fixed list (an enum), the
 * error the model reads lists the values, from EspoCRM's metadata. Only as a tool; the metadata is read then only, once
 * per run.
 */
export async function withAllowedValues(
	run: Run,
	itemIndex: number,
	error: unknown,
): Promise<void> {
	if (!(error instanceof NodeApiError) || error.httpCode !== '400' || !runsAsTool(run.node)) return;
	const match = NOT_ALLOWED.exec(String(error.errorResponse?.reason ?? ''));
	if (!match) return;
	const [, entityType, field] = match;
	let options: unknown;
	try {
		const metadata = await readMetadata(run, itemIndex);
		options = metadata.entityDefs?.[entityType]?.fields?.[field]?.options;
	} catch {
		// The refusal says enough without the list.
		return;
	}
	if (!Array.isArray(options)) return;
	const values = options
		.filter((value) => value !== '' && value !== null)
		.map((value) => JSON.stringify(value));
	if (values.length === 0) return;
	error.description = `Nothing was stored: "${field}" of a ${entityType} takes one of these values only: ${values.join(', ')}. Call the tool again with one of them.`;
}
