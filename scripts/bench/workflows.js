'use strict';
/*
 * The bench's workflows, one per job and system, built here because the server's address is known only at run time.
 * Each starts with a Manual Trigger (what `n8n execute` needs); input items come from a Code node (not timed);
 * the node(s) under test are listed in `measured`, the names the bench reads from the run data.
 */

// one credential per server: the sandbox, and the list server of the Return All jobs (see sandbox-server.js)
const CREDENTIAL = { id: 'rmsBenchApiKey01', name: 'RMS bench sandbox (API key)' };
const LIST_CREDENTIAL = { id: 'rmsBenchListKey1', name: 'RMS bench list server (API key)' };
const KEYS_CREDENTIAL = { id: 'rmsBenchKeysKey1', name: 'RMS bench key server (API key)' };
const SECOND_CREDENTIAL = { id: 'rmsBenchSecond01', name: 'RMS bench second server (API key)' };
const API_KEY = 'sandbox-api-key';
const NODE_TYPE = 'n8n-nodes-record-management-service.recordManagementService';

function credentials({ origin, listOrigin, keysOrigin, secondOrigin }) {
	return [
		[CREDENTIAL, origin],
		[LIST_CREDENTIAL, listOrigin],
		[KEYS_CREDENTIAL, keysOrigin],
		[SECOND_CREDENTIAL, secondOrigin],
	].map(([c, baseUrl]) => ({
		...c,
		type: 'recordManagementServiceApi',
		data: {
			baseUrl,
			server: 'standard',
			authentication: 'apiKey',
			apiKey: API_KEY,
			allowUnauthorizedCerts: false,
		},
	}));
}

const MANUAL_TRIGGER = {
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	parameters: {},
};

/** A linear workflow: start → nodes[0] → nodes[1] … */
function workflow(id, name, nodes, measured, start = MANUAL_TRIGGER) {
	const all = [start, ...nodes].map((n, i) => ({
		id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
		position: [i * 220, 0],
		...n,
	}));
	const connections = {};
	for (let i = 0; i + 1 < all.length; i++)
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	const wf = {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: all,
		connections,
	};
	// the nodes the bench times (not part of the file n8n imports)
	return Object.defineProperty(wf, 'measured', { value: measured });
}

/** A Code node that makes `count` items; `json` is the body of an arrow function of `i`. */
const itemsNode = (count, json) => ({
	name: 'Items',
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	parameters: { jsCode: `return Array.from({ length: ${count} }, (_, i) => ({ json: ${json} }));` },
});

// the same items as raw.js sends and sandbox-server.js seeds (benchId)
const CONTACT_ITEM =
	'{ first: `First${i}`, last: `Last${i}`, email: `contact${i}@bench.example.com` }';
const ID_ITEM = "{ id: 'b' + i.toString(16).padStart(16, '0') }";

const ourNode = (name, parameters, credential = CREDENTIAL) => ({
	name,
	type: NODE_TYPE,
	typeVersion: 1,
	parameters: { ...parameters, requestSettings: { maxParallel: 5 } },
	credentials: { recordManagementServiceApi: credential },
});

const httpNode = (name, parameters, extraHeaders = [], apiKey = API_KEY) => ({
	name,
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	parameters: {
		...parameters,
		sendHeaders: true,
		headerParameters: { parameters: [{ name: 'X-Api-Key', value: apiKey }, ...extraHeaders] },
	},
});

const getMany = (credential) =>
	ourNode(
		'Get Many',
		{ resource: 'record', operation: 'getMany', entityType: 'Contact', returnAll: true },
		credential,
	);

/**
 * The HTTP Request node's own pagination (offset until an empty page), then the pages' lists as items. `query`: more
 * query parameters (bench:espocrm's `select`); `apiKey`: another server's than the sandbox's.
 */
const httpPages = (url, { apiKey = API_KEY, query = [] } = {}) => [
	httpNode(
		'Get Pages',
		{
			method: 'GET',
			url: `${url}/Contact`,
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'maxSize', value: '200' }, ...query] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: {
							parameters: [{ type: 'qs', name: 'offset', value: '={{ $pageCount * 200 }}' }],
						},
						paginationCompleteWhen: 'other',
						completeExpression: '={{ $response.body.list.length === 0 }}',
					},
				},
			},
		},
		[],
		apiKey,
	),
	{
		name: 'Split Out',
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		parameters: { fieldToSplitOut: 'list', include: 'noOtherFields', options: {} },
	},
];

/** One item: count_id and unique_count_id of the records that came in. */
const summarizeIds = {
	name: 'Count',
	type: 'n8n-nodes-base.summarize',
	typeVersion: 1.1,
	parameters: {
		fieldsToSummarize: {
			values: [
				{ aggregation: 'count', field: 'id' },
				{ aggregation: 'countUnique', field: 'id' },
			],
		},
		options: {},
	},
};

// The fields of the create jobs as n8n's drag and drop maps them, which the node reads without n8n's expression
// engine (item.ts); and the same values through the engine, `{{ ($json.first) }}`, as any other expression is read.
const FIELDS_AS_DROPPED = {
	firstName: '={{ $json.first }}',
	lastName: '={{ $json.last }}',
	emailAddress: '={{ $json.email }}',
};
const FIELDS_THROUGH_ENGINE = {
	firstName: '={{ ($json.first) }}',
	lastName: '={{ ($json.last) }}',
	emailAddress: '={{ ($json.email) }}',
};

/** The create job's workflow for this node: Create Contact with three fields from expressions, duplicate check off. */
const createsOfThisNode = (id, name, creates, credential, fields = FIELDS_AS_DROPPED) =>
	workflow(
		id,
		name,
		[
			itemsNode(creates, CONTACT_ITEM),
			ourNode(
				'Create',
				{
					resource: 'record',
					operation: 'create',
					entityType: 'Contact',
					bodyMode: 'fields',
					fields,
					createOptions: { skipDuplicateCheck: true },
				},
				credential,
			),
		],
		['Create'],
	);

/** The same creates as a user sets them up in the HTTP Request node: one request per item, the fields as JSON keys. */
const createsOfHttpRequestNode = (id, name, creates, apiBaseUrl, apiKey = API_KEY) =>
	workflow(
		id,
		name,
		[
			itemsNode(creates, CONTACT_ITEM),
			httpNode(
				'Create',
				{
					method: 'POST',
					url: `${apiBaseUrl}/Contact`,
					sendBody: true,
					contentType: 'json',
					specifyBody: 'keypair',
					bodyParameters: {
						parameters: [
							{ name: 'firstName', value: '={{ $json.first }}' },
							{ name: 'lastName', value: '={{ $json.last }}' },
							{ name: 'emailAddress', value: '={{ $json.email }}' },
						],
					},
					options: {},
				},
				[{ name: 'X-Skip-Duplicate-Check', value: 'true' }],
				apiKey,
			),
		],
		['Create'],
	);

/** How long the caller of a memory measurement lets n8n idle before it calls the sub-workflow (see inSubWorkflow). */
const SETTLE_SECONDS = 20;

/**
 * `nodes` in a sub-workflow that ends with a Summarize (count and distinct count of the IDs), and its caller: Manual
 * Trigger → Wait (SETTLE_SECONDS) → Execute Workflow "Run", the node the bench measures (the whole sub-workflow, the
 * same for every system). The memory jobs (`memory` here, the Return All cases of bench:espocrm) run this way:
 * - `n8n execute` prints the whole run data of the workflow it runs as one JSON string, and for 100,000 records the
 *   HTTP Request workflow's (every record twice: in the pages and in the Split Out) is longer than the longest string
 *   V8 can make ("RangeError: Invalid string length"). A sub-workflow's run data is not printed: the caller gets the
 *   Summarize's one item. n8n 2.x runs only published sub-workflows (`publish`); one given in the node ("Define
 *   Below") may not use credentials.
 * - `n8n execute` is a new n8n process, whose start-up leaves about 100 MB of garbage in its heap (seen with
 *   --trace-gc); V8 collects it once the process idles, about 10 s after the start. n8n as users run it (`n8n start`,
 *   queue-mode workers) is long past that when a workflow starts. Without the wait, a node that reads 100,000 records
 *   in 10 s ran amid that garbage and one that takes 90 s had it collected halfway: the peak compared n8n's start-up,
 *   not the nodes.
 */
function inSubWorkflow(subId, callerId, name, nodes) {
	const sub = workflow(subId, `${name} (sub-workflow)`, [...nodes, summarizeIds], [], {
		name: 'Called',
		type: 'n8n-nodes-base.executeWorkflowTrigger',
		typeVersion: 1.1,
		parameters: { inputSource: 'passthrough' },
	});
	const caller = workflow(
		callerId,
		`${name} (caller)`,
		[
			{
				name: 'Settle',
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				parameters: { resume: 'timeInterval', amount: SETTLE_SECONDS, unit: 'seconds' },
			},
			{
				name: 'Run',
				type: 'n8n-nodes-base.executeWorkflow',
				typeVersion: 1.2,
				parameters: {
					source: 'database',
					workflowId: { __rl: true, mode: 'id', value: subId },
					mode: 'once',
					options: { waitForSubWorkflow: true },
				},
			},
		],
		['Run'],
	);
	return [Object.defineProperty(sub, 'publish', { value: true }), caller];
}

function build({ baseUrl, listBaseUrl, secondBaseUrl, creates, massIds, upserts }) {
	return [
		// the creates of rmsBenchCreate01 against the key server, which can spend CPU per request (createServerCpu)
		createsOfThisNode(
			'rmsBenchCreate03',
			'bench: creates on the key server, this node',
			creates,
			KEYS_CREDENTIAL,
		),
		// Create or Update by e-mail address, against the key server (see sandbox-server.js)
		workflow(
			'rmsBenchUpsert01',
			'bench: create or update, this node',
			[
				itemsNode(upserts, CONTACT_ITEM),
				ourNode(
					'Create or Update',
					{
						resource: 'record',
						operation: 'upsert',
						entityType: 'Contact',
						matchField: 'emailAddress',
						matchValue: '={{ $json.email }}',
						bodyMode: 'fields',
						fields: { firstName: '={{ $json.first }}', lastName: '={{ $json.last }}' },
					},
					KEYS_CREDENTIAL,
				),
			],
			['Create or Update'],
		),

		// n8n itself: the memory baseline
		workflow(
			'rmsBenchEmpty001',
			'bench: empty',
			[{ name: 'Nothing', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} }],
			['Nothing'],
		),

		createsOfThisNode('rmsBenchCreate01', 'bench: creates, this node', creates, CREDENTIAL),
		createsOfHttpRequestNode(
			'rmsBenchCreate02',
			'bench: creates, HTTP Request node',
			creates,
			baseUrl,
		),
		createsOfThisNode(
			'rmsBenchCreate06',
			'bench: creates, this node, fields through the engine',
			creates,
			CREDENTIAL,
			FIELDS_THROUGH_ENGINE,
		),
		// the same two against the second server (second-server.py)
		createsOfThisNode(
			'rmsBenchCreate04',
			'bench: creates on the second server, this node',
			creates,
			SECOND_CREDENTIAL,
		),
		createsOfHttpRequestNode(
			'rmsBenchCreate05',
			'bench: creates on the second server, HTTP Request node',
			creates,
			secondBaseUrl,
		),

		...['massUpdate', 'massDelete'].map((operation, i) =>
			workflow(
				`rmsBenchMass000${i + 1}`,
				`bench: ${operation}, this node`,
				[
					itemsNode(massIds, ID_ITEM),
					ourNode('Mass', {
						resource: 'bulk',
						operation,
						entityType: 'Contact',
						idSource: 'field',
						idField: 'id',
						chunkSize: 100,
						...(operation === 'massUpdate' ? { fields: { description: 'bench' } } : {}),
					}),
				],
				['Mass'],
			),
		),

		// Return All from the sandbox (1) and from the list server (2)
		...[
			['1', baseUrl, CREDENTIAL],
			['2', listBaseUrl, LIST_CREDENTIAL],
		].flatMap(([n, url, credential]) => [
			workflow(
				`rmsBenchListN00${n}`,
				'bench: Return All, this node',
				[getMany(credential)],
				['Get Many'],
			),
			workflow(`rmsBenchListH00${n}`, 'bench: Return All, HTTP Request node', httpPages(url), [
				'Get Pages',
				'Split Out',
			]),
		]),

		// The memory job: the same nodes in a sub-workflow (see inSubWorkflow).
		...inSubWorkflow('rmsBenchSubN0001', 'rmsBenchMemN0001', 'bench: memory, this node', [
			getMany(LIST_CREDENTIAL),
		]),
		...inSubWorkflow(
			'rmsBenchSubH0001',
			'rmsBenchMemH0001',
			'bench: memory, HTTP Request node',
			httpPages(listBaseUrl),
		),
	];
}

module.exports = {
	build,
	credentials,
	createsOfThisNode,
	createsOfHttpRequestNode,
	httpPages,
	inSubWorkflow,
	SETTLE_SECONDS,
};
