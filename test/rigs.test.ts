/**
 * The tests stand on their own: every rig lives beside the suite it serves (`test/<suite>/`) or in `test/lib/`, and
 * nothing under `test/` requires or imports a file of `scripts/`, which keeps only what is run by hand (`npm run dev`,
 * the bench, the release guard) and may itself use the tests' rigs. A reader of a test never has to go to `scripts/`.
 *
 * Reads the files only: no n8n, no network.
 */
import { existsSync, readdirSync, readFileSync } from 'fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'path';

const ROOT = resolve(__dirname, '..');
const TESTS = join(ROOT, 'test');
const SCRIPTS = join(ROOT, 'scripts');

function sourceFilesUnder(folder: string): string[] {
	if (!existsSync(folder)) return [];
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFilesUnder(path);
		return /\.(js|ts)$/.test(entry.name) ? [path] : [];
	});
}

/**
 * Every module a source names, with its line: `require('…')`, `require.resolve('…')`, `import … from '…'`,
 * `import '…'`, `import('…')` and `export … from '…'`, quoted with ', " or a template without substitutions.
 */
function modulesNamedIn(source: string): Array<{ line: number; specifier: string }> {
	const pattern =
		/\b(?:require(?:\.resolve)?\s*\(\s*|import\s*\(\s*|(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?)(['"`])([^'"`$]+)\1/g;
	return [...source.matchAll(pattern)].map((match) => ({
		line: source.slice(0, match.index).split('\n').length,
		specifier: match[2],
	}));
}

/** The file a specifier of `file` reaches, when it is a path (relative or absolute), else undefined (a package). */
function reached(file: string, specifier: string): string | undefined {
	if (specifier.startsWith('.')) return resolve(dirname(file), specifier);
	if (isAbsolute(specifier)) return specifier;
	return undefined;
}

const isUnder = (folder: string, path: string) => path === folder || path.startsWith(folder + sep);

describe('rigs beside the tests they serve', () => {
	test('the finder sees each way a file names a module', () => {
		const source = [
			"const srv = require('../../scripts/dev');",
			'const { run } = require("./run");',
			'const path = require.resolve(`../scripts/dev.js`);',
			"import { a, b } from '../scripts/x';",
			"import type { T } from './types';",
			"import '../scripts/side-effect';",
			"const later = await import('../scripts/later');",
			"export { c } from './c';",
			'const name = `template ${with} substitution`;',
		].join('\n');
		expect(modulesNamedIn(source)).toEqual([
			{ line: 1, specifier: '../../scripts/dev' },
			{ line: 2, specifier: './run' },
			{ line: 3, specifier: '../scripts/dev.js' },
			{ line: 4, specifier: '../scripts/x' },
			{ line: 5, specifier: './types' },
			{ line: 6, specifier: '../scripts/side-effect' },
			{ line: 7, specifier: '../scripts/later' },
			{ line: 8, specifier: './c' },
		]);
	});

	test('nothing under test/ requires or imports a file of scripts/', () => {
		// This file's own examples above name scripts/ on purpose.
		const files = sourceFilesUnder(TESTS).filter((file) => file !== __filename);
		const named = files.flatMap((file) =>
			modulesNamedIn(readFileSync(file, 'utf8')).map((found) => ({ file, ...found })),
		);
		// The scan reads the rigs and the tests (hundreds of requires and imports), not an empty folder.
		expect(files.length).toBeGreaterThan(100);
		expect(named.length).toBeGreaterThan(300);

		const intoScripts = named
			.filter(({ file, specifier }) => {
				const target = reached(file, specifier);
				return target !== undefined && isUnder(SCRIPTS, target);
			})
			.map(({ file, line, specifier }) => `${relative(ROOT, file)}:${line} requires ${specifier}`);
		expect(intoScripts).toEqual([]);
	});
});
