'use strict';
/*
 * n8n 2.41.1's editor as the checks use it: what a person does (log in, open a node, open a list, press a button) and
 * what they see (labels, lists, notices, the output), read from the page. Every wait is for a state of the page; the
 * limits only bound a hang (a loaded 2-core machine is slow, never this slow).
 */
const fs = require('fs');
const path = require('path');

/** How long one step may take before the test calls it a hang (EDITOR_STEP_MS: shorter while writing a check). */
const STEP_MS = Number(process.env.EDITOR_STEP_MS) || 120000;

const NDV = '[data-test-id="ndv"]';
const PARAMETERS = `${NDV} [data-test-id="node-parameters"]`;

class Editor {
	constructor({ browser, baseUrl, owner, screenshots, log }) {
		Object.assign(this, { browser, baseUrl, owner, screenshots, log });
		this.shots = 0;
	}

	/** A fresh page, logged in through the sign-in form. */
	async open() {
		this.page = await this.browser.newPage();
		this.page.setDefaultTimeout(STEP_MS);
		await this.page.goto(`${this.baseUrl}/signin`);
		await this.page
			.locator('input[type="email"], input[name="emailOrLdapLoginId"]')
			.first()
			.fill(this.owner.email);
		await this.page.locator('input[type="password"]').first().fill(this.owner.password);
		await this.page.keyboard.press('Enter');
		await this.page.waitForURL((url) => !/\/signin/.test(String(url)), { timeout: STEP_MS });
	}

	/** After a failed check: a new page, the session kept (the browser context holds its cookie). */
	async reset() {
		await this.page.close().catch(() => {});
		this.page = await this.browser.newPage();
		this.page.setDefaultTimeout(STEP_MS);
		await this.page.goto(`${this.baseUrl}/home/workflows`);
	}

	/** A screenshot of the page (or of `locator`) in the screenshots folder, numbered in the order taken. */
	async screenshot(name, locator) {
		const file = path.join(
			this.screenshots,
			`${String(++this.shots).padStart(2, '0')}-${name.replace(/[^\w.-]+/g, '-').slice(0, 80)}.png`,
		);
		await (locator || this.page).screenshot({ path: file });
		return file;
	}

	/**
	 * A small picture of the form for the README: the parameters panel cropped to `height`, without its scroll bar
	 * (the panel's own screenshot), written to `dir/name.png`.
	 */
	async readmeImage(dir, name, locator, { height } = {}) {
		fs.mkdirSync(dir, { recursive: true });
		// as a person leaves the form: nothing focused, the mouse away from it (no hover controls)
		await this.page.evaluate(() => document.activeElement && document.activeElement.blur());
		await this.page.mouse.move(5, 5);
		const box = await locator.boundingBox();
		const file = path.join(dir, `${name}.png`);
		await this.page.screenshot({
			path: file,
			clip: {
				x: box.x,
				y: box.y,
				width: box.width,
				height: Math.min(height || box.height, box.height),
			},
		});
		return file;
	}

	async goto(url) {
		await this.page.goto(`${this.baseUrl}${url}`);
	}

	/** Opens a workflow on the canvas and waits for its nodes (or, for an empty one, the first-step button). */
	async openWorkflow(workflowId, { empty = false } = {}) {
		await this.goto(`/workflow/${workflowId}`);
		await this.page
			.locator(empty ? '[data-test-id="canvas-add-button"]' : '[data-test-id="canvas-node"]')
			.first()
			.waitFor();
	}

	/** Opens a node's form (n8n's node details view) by its workflow's and its own ID, as a link to it does. */
	async openNode(workflowId, nodeId) {
		await this.goto(`/workflow/${workflowId}/${nodeId}`);
		await this.page.locator(PARAMETERS).waitFor();
		await this.settled();
	}

	/** Until no list of the form is loading (n8n shows "Loading options…" in a list while its method runs). */
	async settled() {
		await this.page.waitForFunction(
			(selector) => {
				const panel = document.querySelector(selector);
				return !!panel && !/Loading options|Loading\.\.\./.test(panel.innerText);
			},
			PARAMETERS,
			{ timeout: STEP_MS, polling: 200 },
		);
	}

	parameters() {
		return this.page.locator(PARAMETERS);
	}

	ndv() {
		return this.page.locator(NDV);
	}

	/** The labels of the parameters the form shows, top to bottom (the node's settings tab left out). */
	async labels() {
		return await this.page.$$eval(`${PARAMETERS} label.n8n-input-label`, (labels) =>
			labels
				.filter((l) => l.offsetParent !== null)
				.map((l) => (l.querySelector('[class*="_title_"]') || l).innerText.trim()),
		);
	}

	/** Labels cut short in the form (an ellipsis instead of their end), with how much is hidden. */
	async cutLabels() {
		return await this.page.$$eval(`${PARAMETERS} label.n8n-input-label`, (labels) =>
			labels
				.filter((l) => l.offsetParent !== null)
				.flatMap((l) => {
					const title = l.querySelector('[class*="_title_"]') || l;
					const cut = [title, ...title.querySelectorAll('*')].find(
						(e) => e.scrollWidth > e.clientWidth + 1,
					);
					return cut
						? [`"${title.innerText.trim()}" (${cut.scrollWidth}px of text in ${cut.clientWidth}px)`]
						: [];
				}),
		);
	}

	/** The notices the form shows (n8n's yellow boxes), as text. */
	async notices() {
		return await this.page.$$eval(
			`${PARAMETERS} .n8n-notice, ${PARAMETERS} [class*="notice"]`,
			(els) => [
				...new Set(
					els
						.filter((e) => e.offsetParent !== null && e.innerText.trim())
						.map((e) => e.innerText.trim()),
				),
			],
		);
	}

	/** The input of one parameter, by its name (`parameter-input-<name>`). */
	input(name) {
		return this.page.locator(`${PARAMETERS} [data-test-id="parameter-input-${name}"]`).first();
	}

	/**
	 * Opens a parameter's list: clicks its input until the list shows (a click while the form still renders is
	 * lost), then waits until the list has loaded its entries. Returns the list's entries.
	 */
	async openList(name) {
		const items = this.page.locator('.el-popper:visible .el-select-dropdown__item');
		const t0 = Date.now();
		for (;;) {
			await this.input(name).locator('.el-select__wrapper, input').first().click();
			if (
				await items
					.first()
					.waitFor({ timeout: 3000 })
					.then(
						() => true,
						() => false,
					)
			)
				break;
			if (Date.now() - t0 > STEP_MS) throw new Error(`the list of "${name}" did not open`);
		}
		await this.page.waitForFunction(
			() =>
				![...document.querySelectorAll('.el-popper')].some(
					(p) => p.offsetParent !== null && /Loading/.test(p.innerText),
				),
			undefined,
			{
				timeout: STEP_MS,
				polling: 200,
			},
		);
		return items;
	}

	/** Closes an open list (Escape) and waits until it is gone. */
	async closeList() {
		await this.page.keyboard.press('Escape');
		await this.page.waitForFunction(
			() =>
				![...document.querySelectorAll('.el-popper .el-select-dropdown__item')].some(
					(e) => e.offsetParent !== null,
				),
			undefined,
			{
				timeout: STEP_MS,
				polling: 200,
			},
		);
	}

	/** Opens a parameter's list and returns the names it offers (as shown, one line each), then closes it. */
	async optionsOf(name) {
		const items = await this.openList(name);
		const names = await items.evaluateAll((els) =>
			els.map((e) => (e.querySelector('.option-headline') || e).innerText.trim()),
		);
		await this.closeList();
		return names;
	}

	/** Chooses `option` in a parameter's list. */
	async choose(name, option) {
		const items = await this.openList(name);
		await items.filter({ hasText: option }).first().click();
		await this.settled();
	}

	/** The value a list shows as chosen. */
	async chosen(name) {
		return await this.input(name).locator('input').first().inputValue();
	}

	/** Whether a switch (boolean parameter) is on. */
	async switchedOn(name) {
		return await this.input(name)
			.locator('.el-switch, [role="switch"]')
			.first()
			.evaluate(
				(e) => e.classList.contains('is-checked') || e.getAttribute('aria-checked') === 'true',
			);
	}

	/** Presses the node's own button in its form: Execute step, or Fetch Test Event of a trigger. */
	async runNode() {
		await this.ndv().locator('[data-test-id="node-execute-button"]').first().click();
	}

	/** The output panel, once it shows a result (items, or an error). */
	async output() {
		const panel = this.ndv().locator('[data-test-id="output-panel"]');
		await this.page.waitForFunction(
			(selector) => {
				const el = document.querySelector(selector);
				return (
					!!el &&
					/\d+ items?|\bError\b|Problem in node|error/i.test(el.innerText) &&
					!/Executing/i.test(el.innerText)
				);
			},
			`${NDV} [data-test-id="output-panel"]`,
			{ timeout: STEP_MS, polling: 250 },
		);
		return panel;
	}
}

module.exports = { Editor, STEP_MS };
