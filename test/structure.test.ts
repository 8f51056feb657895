import { readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve, sep } from 'path';

/**
 * The package's structure as docs/development.md (Layout) describes it, held against its imports: the TypeScript of
 * nodes/, credentials/ and shared/ imports in no circle (type imports included), the folders of the node's shared/
 * import downward only, nothing below the resources reaches into them, and no product file grows past what a reader
 * takes in at once. Files only: nothing is run.
 */
const ROOT = resolve(__dirname, '..');
const SHARED = 'nodes/RecordManagementService/shared';

/** shared/'s folders, lowest first: each may import those before it, never one after it. */
const FLOORS = ['tool', 'http', 'item', 'fields', 'server', 'list', 'operation'];

/** About what a reader takes in at once; the longest product file today is about 300 lines. */
const MAX_LINES = 450;

function tsFiles(folder: string): string[] {
	return readdirSync(join(ROOT, folder)).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(join(ROOT, path)).isDirectory()) return tsFiles(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

const files = ['nodes', 'credentials', 'shared'].flatMap(tsFiles);

/** Every relative import and re-export of a file (`import type` too), as paths from the root. */
function importsOf(file: string): string[] {
	const text = readFileSync(join(ROOT, file), 'utf8');
	return [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/gm)].map(([, spec]) => {
		const target = relative(ROOT, resolve(ROOT, dirname(file), spec))
			.split(sep)
			.join('/');
		return files.includes(`${target}.ts`) ? `${target}.ts` : `${target}/index.ts`;
	});
}

const imports = new Map(files.map((file) => [file, importsOf(file)]));

/** The import circles: strongly connected components of more than one file (Tarjan). */
function circles(): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const found: string[][] = [];
	const visit = (file: string) => {
		index.set(file, index.size);
		low.set(file, index.get(file)!);
		stack.push(file);
		for (const next of imports.get(file) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(file, Math.min(low.get(file)!, low.get(next)!));
			} else if (stack.includes(next)) {
				low.set(file, Math.min(low.get(file)!, index.get(next)!));
			}
		}
		if (low.get(file) === index.get(file)) {
			const component: string[] = [];
			let member: string;
			do {
				member = stack.pop()!;
				component.push(member);
			} while (member !== file);
			if (component.length > 1 || imports.get(file)?.includes(file)) found.push(component.sort());
		}
	};
	for (const file of files) if (!index.has(file)) visit(file);
	return found;
}

const floorOf = (file: string) =>
	file.startsWith(`${SHARED}/`)
		? FLOORS.indexOf(file.slice(SHARED.length + 1).split('/')[0])
		: undefined;

test('the TypeScript of nodes/, credentials/ and shared/ imports in no circle', () => {
	expect(files.length).toBeGreaterThan(50);
	expect(circles()).toEqual([]);
});

test("shared/'s folders import downward only, and nothing under shared/ or the triggers reaches into resources/", () => {
	const wrong: string[] = [];
	for (const [file, targets] of imports) {
		for (const target of targets) {
			const from = floorOf(file);
			const to = floorOf(target);
			if (from !== undefined && to !== undefined && to > from) wrong.push(`${file} -> ${target}`);
			const belowResources =
				file.startsWith(`${SHARED}/`) || !file.startsWith('nodes/RecordManagementService/');
			if (belowResources && target.startsWith('nodes/RecordManagementService/resources/'))
				wrong.push(`${file} -> ${target}`);
		}
	}
	// Every folder of shared/ has its floor, and shared/ holds folders only.
	const loose = files.filter((file) => file.startsWith(`${SHARED}/`) && floorOf(file) === -1);
	expect({ wrong, loose }).toEqual({ wrong: [], loose: [] });
});

test(`no product file is longer than ${MAX_LINES} lines`, () => {
	const long = files
		.map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length }))
		.filter(({ lines }) => lines > MAX_LINES);
	expect(long).toEqual([]);
});
