import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { asNodeError } from '../http/errors';
import { inParallel } from '../http/parallel';
import type { Run } from '../http/run';
import { itemOf } from '../item/item';
import type { Item } from '../item/item';
import { withAdviceForModel } from '../tool/mode';
import { withAllowedValues } from './allowedValues';

/**
 * Lets the items of a custom operation read their parameters one at a time, and gives n8n a turn of the event loop
 * (to connect sockets, send requests, read answers) whenever they have held it for a millisecond. Reading an item's
 * parameters costs about as much as a request on a fast server (n8n's expressions): without turns, the items whose
 * requests were just answered are all read in one burst while nothing is sent. A turn can only be a timer (community
 * nodes may not use setImmediate), so one is kept armed while items are read: it is due by the time they have held
 * the loop that long, and items that are cheap to read need not wait for it.
 */
export class ItemTurns {
	private gate: Promise<void> = Promise.resolve();

	private loopHadTurnAt = 0;

	private tick?: Promise<void>;

	private readSinceTick = false;

	private arm(): void {
		this.tick = sleep(0).then(() => {
			this.loopHadTurnAt = Date.now();
			this.tick = undefined;
			// A loop in which nothing is read needs no ticking (a server's long Retry-After, say).
			if (this.readSinceTick) this.arm();
			this.readSinceTick = false;
		});
	}

	/** Runs `work` after the items before it were read; what it does before its first await is this item's read. */
	async run<T>(work: () => Promise<T>): Promise<T> {
		const previous = this.gate;
		let pass!: () => void;
		this.gate = new Promise((resolve) => (pass = resolve));
		await previous;
		if (!this.tick) {
			// Nothing was read for a tick or more: the loop has been free.
			this.loopHadTurnAt = Date.now();
			this.arm();
		}
		this.readSinceTick = true;
		const tick = this.tick;
		let pending: Promise<T>;
		try {
			pending = work();
		} finally {
			if (Date.now() - this.loopHadTurnAt < 1) pass();
			else void tick?.then(pass);
		}
		return await pending;
	}
}

/**
 * The error an item of a custom operation fails with, whatever failed: a node error naming the item, and, as an AI
 * agent's tool, with what the model can do about it (the allowed values of a field it got wrong, advice instead of
 * the author's description). Every custom operation's items fail through here.
 */
export async function failureOf(
	run: Run,
	index: number,
	error: unknown,
): Promise<NodeApiError | NodeOperationError> {
	await withAllowedValues(run, index, error);
	return withAdviceForModel(run.node, asNodeError(run.node, error, index));
}

/**
 * Runs a custom operation for every input item, up to Max Parallel Requests items at once, their parameters read one
 * item at a time with turns of the event loop in between (`ItemTurns`). The output keeps the items' order. With n8n's
 * "Continue on fail", a failed item becomes an item carrying its error and the others go on; without it, no further
 * item starts and the node fails.
 */
export async function forEachItem(
	run: Run<IExecuteFunctions>,
	work: (item: Item) => Promise<IDataObject | IDataObject[]>,
): Promise<INodeExecutionData[][]> {
	const { context } = run;
	const count = context.getInputData().length;
	const turns = new ItemTurns();
	const results: INodeExecutionData[][] = new Array(count);
	let failed = false;
	await inParallel(count, run.settings.maxParallel, async (index) => {
		try {
			const result = await turns.run(async () => {
				// An item that was waiting for its turn when another failed is not sent: the node fails anyway.
				if (failed) return [];
				return await work(itemOf(run, index));
			});
			results[index] = (Array.isArray(result) ? result : [result]).map((json) => ({
				json,
				pairedItem: { item: index },
			}));
		} catch (error) {
			// Stopped before the error is made: as a tool, making it may read the metadata, and no item may start then.
			const stops = !context.continueOnFail();
			if (stops) failed = true;
			const nodeError = await failureOf(run, index, error);
			if (stops) throw nodeError;
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
