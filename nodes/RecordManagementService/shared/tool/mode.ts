import type { INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

/**
 * Whether the node runs as a tool of an AI agent: n8n offers every `usableAsTool` node a second type, named like the
 * node with "Tool" at the end ("Record Management Service Tool"), whose results go to the model instead of the
 * next node.
 */
export function runsAsTool(node: Pick<INode, 'type'>): boolean {
	return node.type.endsWith('Tool');
}

/**
 * The message of an error, as the model sees it when the node runs as a tool: n8n hands a failed tool's error message,
 * and nothing else, back to the agent (its workflow goes on), so what to do about it (the description users read
 * under the message) is told in the message too. Elsewhere the message stays as it is.
 */
export function messageForModel(
	node: Pick<INode, 'type'>,
	message: string,
	description?: string,
): string {
	if (!description || !runsAsTool(node)) return message;
	return `${message}${/[.!?]$/.test(message) ? '' : '.'} ${description}`;
}

/**
 * The message of an API error for the model once the operation is done with it: some operations add to the
 * description after the error was made (what they left on the server, which role the post needs), and the model
 * should read that too. The message without advice is the one the error was made from (`errorResponse.message`).
 */
export function withAdviceForModel<E extends Error>(node: Pick<INode, 'type'>, error: E): E {
	if (!runsAsTool(node) || !(error instanceof NodeApiError)) return error;
	const plain = (error.errorResponse as { message?: unknown } | undefined)?.message;
	if (typeof plain === 'string')
		error.message = messageForModel(node, plain, error.description ?? undefined);
	return error;
}
