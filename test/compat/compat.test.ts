/**
 * Saved workflows keep doing what they did (CONTRIBUTING.md, "Saved workflows keep working").
 *
 * test/compat/<version>/workflows.json holds workflows as the editor of that released version saved them (only the
 * parameters that differ from its defaults), covering every resource and operation of the action node and the
 * parameters of both triggers; requests.json beside it, what that version sent for each (recorded by running it).
 * Every later commit must run each of them and send the same requests, compared as compat.ts describes (volatile
 * values replaced, parallel requests as a multiset). A changed default, a renamed parameter or a changed meaning
 * fails here: such a change needs a new node version instead (CONTRIBUTING.md).
 *
 * Recording (once per release, on the release's commit, never again afterwards):
 *   RMS_COMPAT_RECORD=<version> npx jest test/compat   → test/compat/<version>/{workflows,requests}.json from cases.ts
 */
import fs from 'fs';
import path from 'path';

import { startSandbox } from '../sandbox';
import type { Sandbox } from '../sandbox';
import { CredentialStore } from '../harness/engine';
import { CASES } from './cases';
import { runStoredCase, storedCaseOf } from './compat';
import type { Observed, StoredCase } from './compat';

const recording = process.env.RMS_COMPAT_RECORD;
const versions = fs
	.readdirSync(__dirname)
	.filter(
		(entry) =>
			/^\d+\.\d+\.\d+$/.test(entry) && fs.existsSync(path.join(__dirname, entry, 'workflows.json')),
	)
	.sort();

let sandbox: Sandbox;
const store = new CredentialStore();
beforeAll(async () => {
	sandbox = await startSandbox({ failedLoginLimit: 0 });
});
afterAll(async () => {
	await sandbox.close();
});

if (recording) {
	test(`record the workflows of ${recording} and the requests they send`, async () => {
		const dir = path.join(__dirname, recording);
		fs.mkdirSync(dir, { recursive: true });
		const cases: StoredCase[] = [];
		const requests: Record<string, Observed> = {};
		for (const testCase of CASES) {
			sandbox.setDialect(testCase.dialect ?? 'both');
			sandbox.reset();
			const stored = await storedCaseOf(testCase, store);
			const observed = await runStoredCase(stored, sandbox, store);
			// a fixture records behaviour that works: a case that fails or sends nothing is a mistake in cases.ts
			expect({ name: stored.name, error: observed.error }).toEqual({
				name: stored.name,
				error: null,
			});
			expect(observed.requests.length).toBeGreaterThan(0);
			cases.push(stored);
			requests[stored.name] = observed;
		}
		fs.writeFileSync(
			path.join(dir, 'workflows.json'),
			`${JSON.stringify({ version: recording, cases }, null, '\t')}\n`,
		);
		fs.writeFileSync(path.join(dir, 'requests.json'), `${JSON.stringify(requests, null, '\t')}\n`);
	});
} else {
	describe.each(versions)('workflows saved by %s', (version) => {
		const { cases } = JSON.parse(
			fs.readFileSync(path.join(__dirname, version, 'workflows.json'), 'utf8'),
		) as { cases: StoredCase[] };
		const expected = JSON.parse(
			fs.readFileSync(path.join(__dirname, version, 'requests.json'), 'utf8'),
		) as Record<string, Observed>;

		test('every stored workflow has its recorded requests', () => {
			expect(cases.map((c) => c.name).sort()).toEqual(Object.keys(expected).sort());
		});

		test.each(cases.map((c) => [c.name, c] as const))(
			'%s: runs and sends the same requests',
			async (_name, stored) => {
				const observed = await runStoredCase(stored, sandbox, store);
				expect(observed).toEqual(expected[stored.name]);
			},
		);
	});
}
