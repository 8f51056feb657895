import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** Errors whose message was written to say what to do already. */
const saysWhatToDo = new WeakSet<Error>();

/** An error whose message already says what to do (it is left as it is by `withRemedyInMessage`). */
export function remedied<E extends Error>(error: E): E {
	saysWhatToDo.add(error);
	return error;
}

/**
 * n8n 2.41 shows only an error's message when a workflow fails to publish (a trigger's activation): the
 * description, which says what to do, is lost there. So an error raised on activation carries it in its message,
 * and no longer as a description: where n8n shows both (Fetch Test Event, a failed poll's execution), the sentence
 * would stand twice. Set after the error is made, so n8n's own wording for network errors (chosen when the error is
 * made) stays out.
 */
export function withRemedyInMessage<E>(error: E): E {
	if (
		!(error instanceof NodeApiError || error instanceof NodeOperationError) ||
		saysWhatToDo.has(error)
	)
		return error;
	const description = typeof error.description === 'string' ? error.description.trim() : '';
	if (description) {
		if (!error.message.includes(description))
			error.message = `${error.message.replace(/[.\s]+$/, '')}. ${description}`;
		error.description = null;
	}
	saysWhatToDo.add(error);
	return error;
}
