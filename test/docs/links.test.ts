/**
 * The documentation's links hold: every relative link of the repository's Markdown files reaches a file that exists,
 * and every `#anchor` a heading of that file, as GitHub names headings; the nodes' and the credential's documentation
 * URLs of this repository reach a page and heading that exist; and the README stays an npm page, not a manual.
 *
 * Reads the files only: no n8n, no network.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve, sep } from 'path';

const ROOT = resolve(__dirname, '../..');
const REPOSITORY_URL =
	'https://github.com/record-management-service/n8n-nodes-record-management-service';
const README_MAX_LINES = 260;

/** Folders that hold no documentation of ours: dependencies, build output, git's own. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git']);

function filesUnder(folder: string, wanted: (name: string) => boolean): string[] {
	if (!existsSync(folder)) return [];
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : filesUnder(path, wanted);
		return wanted(entry.name) ? [path] : [];
	});
}

/** README.md, CONTRIBUTING.md, CHANGELOG.md, docs/*.md, and the READMEs of the tests and rigs: every Markdown file. */
const markdownFiles = filesUnder(ROOT, (name) => name.endsWith('.md'));

/** Text outside fenced code blocks (``` or ~~~), line by line; the lines inside a fence are left empty. */
function proseLines(markdown: string): string[] {
	let fence: string | undefined;
	return markdown.split('\n').map((line) => {
		const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
		if (marker && (fence === undefined || marker.startsWith(fence))) {
			fence = fence === undefined ? marker : undefined;
			return '';
		}
		return fence === undefined ? line : '';
	});
}

/** A line without its inline code spans (`[text](url)` in backticks is an example, not a link). */
function withoutInlineCode(line: string): string {
	return line.replace(/(`+)[\s\S]*?\1/g, '');
}

/**
 * The anchor GitHub gives a heading (github-slugger, which github.com follows): the heading's text as rendered (links
 * by their text, code without backticks), in lower case, without punctuation and symbols (letters, digits, `_`, `-`
 * and spaces stay), spaces turned into `-`. A repeated heading gets `-1`, `-2`, … in the order they come.
 */
function githubSlug(headingText: string): string {
	const rendered = headingText
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/`/g, '')
		.replace(/<[^>]+>/g, '');
	return rendered
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
		.replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors of a Markdown file's headings (ATX headings outside code blocks). */
function anchorsOf(file: string): Set<string> {
	const cached = anchorCache.get(file);
	if (cached) return cached;
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of proseLines(readFileSync(file, 'utf8'))) {
		const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
		if (!heading) continue;
		const slug = githubSlug(heading[1]);
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count === 0 ? slug : `${slug}-${count}`);
	}
	anchorCache.set(file, anchors);
	return anchors;
}

interface Link {
	from: string;
	line: number;
	target: string;
}

/** The link targets of a Markdown file: inline links and images `[text](target)`, and reference definitions. */
function linksOf(file: string): Link[] {
	const links: Link[] = [];
	proseLines(readFileSync(file, 'utf8')).forEach((text, index) => {
		const line = withoutInlineCode(text);
		for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
			links.push({ from: file, line: index + 1, target: match[1] });
		}
		const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
		if (definition) links.push({ from: file, line: index + 1, target: definition[1] });
	});
	return links;
}

/** What is wrong with a file and anchor of this repository, or undefined when both exist. */
function problemWith(file: string, anchor: string | undefined): string | undefined {
	const shown = relative(ROOT, file) || '.';
	if (!(file === ROOT || file.startsWith(ROOT + sep))) return `${shown} is outside the repository`;
	if (!existsSync(file)) return `${shown} does not exist`;
	if (anchor === undefined || anchor === '') return undefined;
	if (!file.endsWith('.md') || statSync(file).isDirectory())
		return `${shown} has no headings to point at (#${anchor})`;
	const anchors = anchorsOf(file);
	if (anchors.has(decodeURIComponent(anchor))) return undefined;
	return `${shown} has no heading #${anchor} (its anchors: ${[...anchors].join(', ')})`;
}

/** A URL of this repository on GitHub as the file and anchor it shows, or undefined for any other address. */
function repositoryFile(url: string): { file: string; anchor?: string } | undefined {
	if (!url.startsWith(REPOSITORY_URL)) return undefined;
	const [address, anchor] = url.slice(REPOSITORY_URL.length).split('#', 2);
	if (address === '' || address === '/') return { file: join(ROOT, 'README.md'), anchor };
	const page = /^\/(?:blob|tree)\/[^/]+\/(.+)$/.exec(address);
	// An address GitHub shows no file of this repository at (an issue, a release…) is not documentation: refuse it.
	return {
		file: page ? join(ROOT, decodeURIComponent(page[1])) : join(ROOT, '<not a file>', address),
		anchor,
	};
}

function checkLink(link: Link): string | undefined {
	const { target } = link;
	const ours = repositoryFile(target);
	let problem: string | undefined;
	if (ours) problem = problemWith(ours.file, ours.anchor);
	else if (/^[a-z][a-z0-9+.-]*:/i.test(target))
		return undefined; // another site, mailto:
	else {
		const [path, anchor] = target.split('#', 2);
		const file = path === '' ? link.from : resolve(dirname(link.from), decodeURIComponent(path));
		problem = problemWith(file, anchor);
	}
	return problem && `${relative(ROOT, link.from)}:${link.line}: ${target}: ${problem}`;
}

/** The documentation URLs of the nodes (codex files) and of the credential, with the file each is in. */
function documentationUrls(): Array<{ file: string; url: string }> {
	const codexFiles = filesUnder(join(ROOT, 'nodes'), (name) => name.endsWith('.node.json'));
	const fromCodex = codexFiles.flatMap((file) => {
		const resources = (JSON.parse(readFileSync(file, 'utf8')).resources ?? {}) as Record<
			string,
			Array<{ url: string }>
		>;
		return Object.values(resources).flatMap((entries) => entries.map(({ url }) => ({ file, url })));
	});
	// The codex may also point elsewhere (n8n's own docs): only this repository's addresses are ours to keep.
	const ofThisRepository = fromCodex.filter(({ url }) => url.startsWith(REPOSITORY_URL));
	// Any address of this repository in the product's sources: the credential's documentationUrl, error messages.
	const sources = ['nodes', 'credentials', 'shared'].flatMap((folder) =>
		filesUnder(join(ROOT, folder), (name) => name.endsWith('.ts') && !name.endsWith('.d.ts')),
	);
	const fromSources = sources.flatMap((file) =>
		[
			...readFileSync(file, 'utf8').matchAll(
				/https:\/\/github\.com\/record-management-service\/[^\s'"`)<>]+/g,
			),
		].map(([url]) => ({ file, url })),
	);
	return [...ofThisRepository, ...fromSources];
}

describe('documentation links', () => {
	test('GitHub anchors are made as github.com makes them', () => {
		// Both anchors were linked before this test existed and work on github.com.
		expect(githubSlug('`npm run bench:espocrm`: Return All from the real EspoCRM')).toBe(
			'npm-run-benchespocrm-return-all-from-the-real-espocrm',
		);
		expect(githubSlug('Reliability and security: what the node promises')).toBe(
			'reliability-and-security-what-the-node-promises',
		);
		expect(githubSlug('Record Management Service Trigger (polling, every server)')).toBe(
			'record-management-service-trigger-polling-every-server',
		);
		expect(githubSlug('[0.1.0]')).toBe('010');
	});

	test('the documentation is where the README links it', () => {
		const names = markdownFiles.map((file) => relative(ROOT, file).split(sep).join('/'));
		expect(names).toEqual(
			expect.arrayContaining([
				'README.md',
				'CONTRIBUTING.md',
				'CHANGELOG.md',
				'docs/operations.md',
			]),
		);
	});

	test('every relative link and anchor of the Markdown files resolves', () => {
		const links = markdownFiles.flatMap(linksOf);
		expect(links.length).toBeGreaterThan(50);
		expect(links.map(checkLink).filter(Boolean)).toEqual([]);
	});

	test("every documentation URL of the nodes and the credential reaches this repository's file and heading", () => {
		const urls = documentationUrls();
		// three codex files with a credential and a primary documentation URL each, and the credential's own
		expect(urls.length).toBeGreaterThanOrEqual(7);
		const problems = urls.map(({ file, url }) => {
			const { file: page, anchor } = repositoryFile(url)!;
			const problem = problemWith(page, anchor);
			return problem && `${relative(ROOT, file)}: ${url}: ${problem}`;
		});
		expect(problems.filter(Boolean)).toEqual([]);
	});

	test(`the README stays an npm page: at most ${README_MAX_LINES} lines`, () => {
		const lines = readFileSync(join(ROOT, 'README.md'), 'utf8')
			.replace(/\n$/, '')
			.split('\n').length;
		expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
	});
});
