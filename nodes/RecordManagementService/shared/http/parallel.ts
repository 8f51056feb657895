/**
 * Runs `task` for the indexes 0 … count - 1, at most `limit` at once, starting them in order. After a task fails,
 * no further task starts; the ones under way finish, then the first failure is thrown.
 */
export async function inParallel(
	count: number,
	limit: number,
	task: (index: number) => Promise<void>,
): Promise<void> {
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
