'use strict';
/*
 * The browser of the editor test: Debian's `chromium` package (apt-get installs it when it is missing; no browser
 * download at npm install time), driven by playwright-core (a devDependency: Playwright's API without its browsers).
 */
const fs = require('fs');
const { ensureDebianPackages, which } = require('../lib/apt');

/** Where Debian installs it; CHROMIUM_PATH points at another Chromium. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * Flags that work on these machines (root, no GPU, no network beyond 127.0.0.1): headless, no sandbox (root), nothing
 * that phones home or updates itself, no QUIC.
 */
const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

function chromiumPath() {
	const given = process.env.CHROMIUM_PATH;
	if (given) return fs.existsSync(given) ? given : '';
	return CANDIDATES.find((p) => fs.existsSync(p)) || which('chromium') || '';
}

function instructions(reason) {
	return [
		`The editor test needs Chromium (${reason}). Install it, then run again:`,
		'',
		'  sudo apt-get install -y chromium',
		'',
		'(on Debian 12; elsewhere: any Chromium or Chrome, given as CHROMIUM_PATH=<its executable>)',
	].join('\n');
}

/** The Chromium executable, installed with apt-get when missing. */
async function ensureChromium({ log }) {
	await ensureDebianPackages({
		what: 'Chromium',
		packages: ['chromium'],
		missing: () => (chromiumPath() ? [] : ['chromium']),
		instructions,
		log,
	});
	return chromiumPath();
}

/** A headless Chromium with a fresh profile of its own (`userDataDir`, removed first). */
async function launchChromium(executablePath, { userDataDir }) {
	const { chromium } = require('playwright-core');
	fs.rmSync(userDataDir, { recursive: true, force: true });
	fs.mkdirSync(userDataDir, { recursive: true });
	// Playwright passes the profile as a persistent context; a plain launch with --user-data-dir is refused.
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath,
		headless: true,
		args: CHROMIUM_ARGS.filter((a) => a !== '--headless'),
		viewport: { width: 1440, height: 900 },
		deviceScaleFactor: 1,
	});
	return context;
}

module.exports = { ensureChromium, launchChromium, CHROMIUM_ARGS };
