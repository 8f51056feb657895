import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { asNodeError } from './errors';
import type { Item } from './item';
import { itemOf } from './item';
import { runOf } from './transport';

/**
 * Runs `task` for the indexes 0 … count - 1, at most `limit` at once, starting them in order. After a task fails,
 * no further task starts; the ones under way finish, then the first failure is thrown.
 */
export async function inParallel(count: number, limit: number, task: (index: number) => Promise<void>): Promise<void> {
	let next = 0;
	let failure: { error: unknown } | undefined;
	const worker = async () => {
		while (next < count && failure === undefined) {
			const index = next++;
			try {
				await task(index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(count, limit) }, worker));
	if (failure !== undefined) throw failure.error;
}

/**
 * Hands out turns of the event loop, one per call, in the order of the calls. Between two turns n8n answers what
 * arrived meanwhile: an item's parameters (n8n's expressions cost about as much as a request on a fast server) are
 * then resolved while the other items' requests travel, instead of in one burst that holds up every request.
 */
function eventLoopTurns(): () => Promise<void> {
	let last: Promise<void> = Promise.resolve();
	return async () => {
		const mine = last;
		// The next turn is set up before this one's work starts, so that it is due as soon as that work ends.
		last = mine.then(async () => await sleep(0));
		await mine;
	};
}

/**
 * Runs a custom operation for every input item, up to Max Parallel Requests items at once, each item's parameters
 * read in a turn of the event loop of its own. The output keeps the items' order. With n8n's "Continue on fail", a
 * failed item becomes an item carrying its error and the others go on; without it, no further item starts and the
 * node fails.
 */
export async function forEachItem(
	context: IExecuteFunctions,
	run: (item: Item) => Promise<IDataObject | IDataObject[]>,
): Promise<INodeExecutionData[][]> {
	const count = context.getInputData().length;
	const nextTurn = eventLoopTurns();
	const results: INodeExecutionData[][] = new Array(count);
	let failed = false;
	await inParallel(count, runOf(context).settings.maxParallel, async (index) => {
		await nextTurn();
		// An item that was waiting for its turn when another failed is not sent: the node fails anyway.
		if (failed) return;
		try {
			const result = await run(itemOf(context, index));
			results[index] = (Array.isArray(result) ? result : [result]).map((json) => ({ json, pairedItem: { item: index } }));
		} catch (error) {
			const nodeError = asNodeError(runOf(context).node, error, index);
			if (!context.continueOnFail()) {
				failed = true;
				throw nodeError;
			}
			results[index] = [{ json: {}, error: nodeError, pairedItem: { item: index } }];
		}
	});
	return [results.flat()];
}

/**
 * Lets work that must not race run one piece after another per key, and different keys at once: Create or Update
 * and Convert look at a record before they write, and two items about the same record must not both look first.
 */
export class OneAtATime {
	private readonly last = new Map<string, Promise<unknown>>();

	async run<T>(key: string, work: () => Promise<T>): Promise<T> {
		const previous = this.last.get(key) ?? Promise.resolve();
		const current = previous.catch(() => undefined).then(work);
		this.last.set(key, current);
		try {
			return await current;
		} finally {
			if (this.last.get(key) === current) this.last.delete(key);
		}
	}
}
