#!/usr/bin/env node
'use strict';
/*
 * npm run test:editor: the editor as people meet it, in a real browser. See test/editor/README.md.
 *
 *   1. installs or reuses Node 24 + n8n 2.41.1 (test/lib/n8n-env.js) and Debian's Chromium (apt-get when missing:
 *      test/editor/browser.js); npm run build unless --no-build
 *   2. the sandbox as `npm run dev` starts it (both dialects, demo data), in this process
 *   3. a fresh n8n user folder (.e2e/editor/user-folder) with a copy of the built package as a community package; the
 *      dev editor's two credentials (test/lib/dev-credentials.js) and the test's workflows (test/editor/workflows.js)
 *      imported with the n8n CLI
 *   4. n8n start (test/lib/n8n-server.js), the owner account
 *   5. headless Chromium through playwright-core: the checks of test/editor/checks.js, one PASS/FAIL line each, a
 *      screenshot of each form in .e2e/editor/screenshots
 *
 * Options: --no-build; EDITOR_ONLY=<substring>[|<substring>…] runs the checks whose name holds one; EDITOR_KEEP=1 keeps the user
 * folder and n8n's log (they are always kept on failure); --readme-images also writes the README's pictures
 * (docs/images/, cropped to the form, small PNGs).
 */

const fs = require('fs');
const path = require('path');
const env = require('../lib/n8n-env');
const srv = require('../lib/n8n-server');
const { devCredentialFiles } = require('../lib/dev-credentials');
const { startSandbox, DEV_SANDBOX_OPTIONS } = require('../sandbox');
const { ensureChromium, launchChromium } = require('./browser');
const { editorWorkflows } = require('./workflows');
const { CHECKS } = require('./checks');
const { Editor } = require('./editor');

const REPO = env.REPO_ROOT;
const WORK_DIR = path.join(REPO, '.e2e', 'editor');
const SCREENSHOTS = path.join(WORK_DIR, 'screenshots');
const README_IMAGES = path.join(REPO, 'docs', 'images');

const log = (m) =>
	console.log(`[editor ${((Date.now() - T0) / 1000).toFixed(0).padStart(3)}s] ${m}`);
const T0 = Date.now();

async function main() {
	const argv = process.argv.slice(2);
	const only = process.env.EDITOR_ONLY || '';
	const keep = !!process.env.EDITOR_KEEP;
	const procs = new srv.Processes({ log });
	let sandbox;
	let browser;
	procs.handleSignals({
		beforeExit: async () => browser && (await browser.close().catch(() => {})),
	});
	let ok = false;
	try {
		fs.rmSync(WORK_DIR, { recursive: true, force: true });
		fs.mkdirSync(SCREENSHOTS, { recursive: true });
		const chromium = ensureChromium({ log });
		chromium.catch(() => {});
		const p = await env.ensureN8n();
		if (!argv.includes('--no-build')) {
			log('npm run build');
			await env.runNpm(['run', 'build', '--silent']);
		}
		const pkg = srv.snapshotPackage(REPO, path.join(WORK_DIR, 'package'));
		const userFolder = env.prepareUserFolder(path.join(WORK_DIR, 'user-folder'), {
			repoRoot: pkg.dest,
		});

		sandbox = await startSandbox({ ...DEV_SANDBOX_OPTIONS });
		const sandboxOrigin = sandbox.origin;
		log(`sandbox (dev data, both dialects) at ${sandboxOrigin}`);

		const n8nEnv = env.n8nEnv(userFolder, { N8N_LOG_OUTPUT: 'console' });
		const files = {
			credentials: path.join(WORK_DIR, 'credentials.json'),
			workflows: path.join(WORK_DIR, 'workflows'),
		};
		fs.writeFileSync(files.credentials, JSON.stringify(devCredentialFiles(sandboxOrigin)));
		fs.mkdirSync(files.workflows);
		const workflows = editorWorkflows(sandbox);
		for (const wf of Object.values(workflows))
			fs.writeFileSync(path.join(files.workflows, `${wf.id}.json`), JSON.stringify(wf));
		for (const args of [
			['import:credentials', `--input=${files.credentials}`],
			['import:workflow', '--separate', `--input=${files.workflows}`],
		]) {
			const r = await srv.runN8nCommand({ procs, p, env: n8nEnv, args });
			if (r.code !== 0)
				throw new Error(`n8n ${args[0]} failed (${r.code}):\n${r.output.slice(-3000)}`);
		}
		log(`imported the dev credentials and ${Object.keys(workflows).length} workflows`);

		const logFile = path.join(WORK_DIR, 'n8n.log');
		const main = await srv.startN8n({
			procs,
			p,
			role: 'main',
			env: n8nEnv,
			logFile,
			expectPackage: env.PACKAGE_NAME,
		});
		const { owner } = await srv.setupOwner(main.baseUrl);
		log(`n8n ${env.N8N_VERSION} ready at ${main.baseUrl}`);

		browser = await launchChromium(await chromium, {
			userDataDir: path.join(WORK_DIR, 'chromium-profile'),
		});
		const editor = new Editor({
			browser,
			baseUrl: main.baseUrl,
			owner,
			screenshots: SCREENSHOTS,
			log,
		});
		await editor.open();
		const context = {
			editor,
			sandbox,
			sandboxOrigin,
			workflows,
			readmeImages: argv.includes('--readme-images') ? README_IMAGES : undefined,
		};
		let passed = 0;
		let failed = 0;
		for (const check of CHECKS.filter((c) =>
			only.split('|').some((part) => c.name.includes(part)),
		)) {
			const t = Date.now();
			try {
				await check.run(context);
				passed += 1;
				console.log(`PASS ${check.name} (${((Date.now() - t) / 1000).toFixed(1)}s)`);
			} catch (e) {
				failed += 1;
				const shot = await editor.screenshot(`FAILED ${check.name}`).catch(() => undefined);
				console.log(`FAIL ${check.name} (${((Date.now() - t) / 1000).toFixed(1)}s)`);
				console.log(
					`      ${String((e && e.message) || e)
						.split('\n')
						.join('\n      ')}`,
				);
				if (shot) console.log(`      screenshot: ${path.relative(REPO, shot)}`);
				// a failed check may leave a dialog open or the page elsewhere: the next starts from a fresh page
				await editor.reset().catch(() => {});
			}
		}
		console.log(
			`\nScreenshots: ${path.relative(REPO, SCREENSHOTS)}/ (${fs.readdirSync(SCREENSHOTS).length} files)`,
		);
		console.log(`${passed} passed, ${failed} failed`);
		ok = failed === 0 && passed > 0;
		log(`done in ${((Date.now() - T0) / 1000).toFixed(0)}s`);
	} catch (e) {
		console.error(`[editor] failed: ${e && e.userFacing ? e.message : (e && e.stack) || e}`);
	} finally {
		if (browser) await browser.close().catch(() => {});
		await procs.stopAll();
		if (sandbox) await sandbox.close().catch(() => {});
		if (ok && !keep) {
			fs.rmSync(path.join(WORK_DIR, 'user-folder'), { recursive: true, force: true });
			fs.rmSync(path.join(WORK_DIR, 'chromium-profile'), { recursive: true, force: true });
		} else if (!ok)
			console.log(`n8n's log and user folder kept in ${path.relative(REPO, WORK_DIR)}/`);
	}
	process.exit(ok ? 0 : 1);
}

main();
