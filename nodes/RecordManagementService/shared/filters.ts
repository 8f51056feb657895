import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseJsonParameter } from './validation';

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

/** How the value of a where item is given, by operator. */
type ValueShape = 'none' | 'one' | 'list' | 'range' | 'days';

interface Operator {
	name: string;
	value: string;
	shape: ValueShape;
	/** Compares dates: on a date-time field EspoCRM needs `dateTime` and `timeZone`, or it answers wrongly. */
	date?: boolean;
}

/** Every where type of the server, named as users think of them. */
export const OPERATORS: Operator[] = [
	{ name: 'Equals', value: 'equals', shape: 'one' },
	{ name: 'Not Equals', value: 'notEquals', shape: 'one' },
	{ name: 'Is One Of', value: 'in', shape: 'list' },
	{ name: 'Is None Of', value: 'notIn', shape: 'list' },
	{ name: 'Greater Than', value: 'greaterThan', shape: 'one' },
	{ name: 'Greater Than or Equal', value: 'greaterThanOrEquals', shape: 'one' },
	{ name: 'Less Than', value: 'lessThan', shape: 'one' },
	{ name: 'Less Than or Equal', value: 'lessThanOrEquals', shape: 'one' },
	{ name: 'Contains', value: 'contains', shape: 'one' },
	{ name: 'Does Not Contain', value: 'notContains', shape: 'one' },
	{ name: 'Starts With', value: 'startsWith', shape: 'one' },
	{ name: 'Ends With', value: 'endsWith', shape: 'one' },
	{ name: 'Like (Use % as Wildcard)', value: 'like', shape: 'one' },
	{ name: 'Not Like (Use % as Wildcard)', value: 'notLike', shape: 'one' },
	{ name: 'Is Empty', value: 'isNull', shape: 'none' },
	{ name: 'Is Not Empty', value: 'isNotNull', shape: 'none' },
	{ name: 'Is True', value: 'isTrue', shape: 'none' },
	{ name: 'Is False', value: 'isFalse', shape: 'none' },
	{ name: 'Date Is After', value: 'after', shape: 'one', date: true },
	{ name: 'Date Is Before', value: 'before', shape: 'one', date: true },
	{ name: 'Date Is Between', value: 'between', shape: 'range', date: true },
	{ name: 'Date Is On', value: 'on', shape: 'one', date: true },
	{ name: 'Date Is Not On', value: 'notOn', shape: 'one', date: true },
	{ name: 'Date Is Today', value: 'today', shape: 'none', date: true },
	{ name: 'Date Is in the Past', value: 'past', shape: 'none', date: true },
	{ name: 'Date Is in the Future', value: 'future', shape: 'none', date: true },
	{ name: 'Date Is in the Last 7 Days', value: 'lastSevenDays', shape: 'none', date: true },
	{ name: 'Date Is in the Last X Days', value: 'lastXDays', shape: 'days', date: true },
	{ name: 'Date Is in the Next X Days', value: 'nextXDays', shape: 'days', date: true },
	{ name: 'Date Is Older Than X Days', value: 'olderThanXDays', shape: 'days', date: true },
	{ name: 'Date Is More Than X Days Ahead', value: 'afterXDays', shape: 'days', date: true },
	{ name: 'Date Is in the Current Month', value: 'currentMonth', shape: 'none', date: true },
	{ name: 'Date Is in the Last Month', value: 'lastMonth', shape: 'none', date: true },
	{ name: 'Date Is in the Next Month', value: 'nextMonth', shape: 'none', date: true },
	{ name: 'Date Is in the Current Quarter', value: 'currentQuarter', shape: 'none', date: true },
	{ name: 'Date Is in the Last Quarter', value: 'lastQuarter', shape: 'none', date: true },
	{ name: 'Date Is in the Current Year', value: 'currentYear', shape: 'none', date: true },
	{ name: 'Date Is in the Last Year', value: 'lastYear', shape: 'none', date: true },
	{ name: 'List Has Any Of', value: 'arrayAnyOf', shape: 'list' },
	{ name: 'List Has None Of', value: 'arrayNoneOf', shape: 'list' },
	{ name: 'List Has All Of', value: 'arrayAllOf', shape: 'list' },
	{ name: 'List Is Empty', value: 'arrayIsEmpty', shape: 'none' },
	{ name: 'List Is Not Empty', value: 'arrayIsNotEmpty', shape: 'none' },
	{ name: 'Is Linked With (Relationship)', value: 'linkedWith', shape: 'list' },
	{ name: 'Is Not Linked With (Relationship)', value: 'notLinkedWith', shape: 'list' },
	{ name: 'Has Any Linked Record (Relationship)', value: 'isLinked', shape: 'none' },
	{ name: 'Has No Linked Record (Relationship)', value: 'isNotLinked', shape: 'none' },
];

const OPERATOR_BY_VALUE = new Map(OPERATORS.map((operator) => [operator.value, operator]));

function operatorsOfShape(...shapes: ValueShape[]) {
	return OPERATORS.filter((operator) => shapes.includes(operator.shape)).map((operator) => operator.value);
}

/**
 * Date-time fields, which EspoCRM stores as "YYYY-MM-DD HH:MM:SS": createdAt, modifiedAt and, by EspoCRM's
 * naming, other fields ending in "At", plus the date-time fields of its standard entity types.
 */
const DATE_TIME_FIELDS = new Set(['dateStart', 'dateEnd', 'dateSent', 'dateCompleted', 'lastViewedAt']);

export function isDateTimeField(attribute: string) {
	return /[a-z]At$/.test(attribute) || DATE_TIME_FIELDS.has(attribute);
}

export function filterFields(show: Show): INodeProperties[] {
	return [
		{
			displayName: 'Filter',
			name: 'filterMode',
			type: 'options',
			options: [
				{ name: 'None', value: 'none' },
				{ name: 'Build Conditions', value: 'conditions' },
				{ name: 'Where JSON (Advanced)', value: 'json', description: 'A where list as JSON, for nested AND and OR groups' },
			],
			default: 'none',
			displayOptions: { show },
			routing: { send: { preSend: [setWhere] } },
		},
		{
			displayName: 'Must Match',
			name: 'matchType',
			type: 'options',
			options: [
				{ name: 'All Conditions', value: 'and' },
				{ name: 'Any Condition', value: 'or' },
			],
			default: 'and',
			displayOptions: { show: { ...show, filterMode: ['conditions'] } },
		},
		{
			displayName: 'Conditions',
			name: 'conditions',
			type: 'fixedCollection',
			placeholder: 'Add Condition',
			typeOptions: { multipleValues: true },
			default: {},
			displayOptions: { show: { ...show, filterMode: ['conditions'] } },
			options: [
				{
					displayName: 'Condition',
					name: 'condition',
					// n8n's lint wants these sorted by name; only the fields of the chosen operator's value shape show.
					values: [
						{
							displayName: 'Field Name or ID',
							name: 'attribute',
							type: 'options',
							typeOptions: {
								loadOptionsMethod: 'getFilterAttributes',
								loadOptionsDependsOn: ['/entityType', '/customEntityType'],
							},
							default: '',
							description: 'The field to compare, or the relationship for the "Linked" operators. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
						},
						{
							displayName: 'Operator',
							name: 'operator',
							type: 'options',
							options: OPERATORS.map(({ name, value }) => ({ name, value })),
							default: 'equals',
						},
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							displayOptions: { show: { operator: operatorsOfShape('one') } },
						},
						{
							displayName: 'Value (Number of Days)',
							name: 'days',
							type: 'number',
							typeOptions: { minValue: 0 },
							default: 7,
							displayOptions: { show: { operator: operatorsOfShape('days') } },
						},
						{
							displayName: 'Value From',
							name: 'from',
							type: 'string',
							default: '',
							placeholder: '2026-01-01',
							displayOptions: { show: { operator: operatorsOfShape('range') } },
						},
						{
							displayName: 'Value To',
							name: 'to',
							type: 'string',
							default: '',
							placeholder: '2026-12-31',
							displayOptions: { show: { operator: operatorsOfShape('range') } },
						},
						{
							displayName: 'Values',
							name: 'values',
							type: 'string',
							default: '',
							placeholder: 'New, Assigned',
							description: 'Comma-separated values, or an expression that returns a list',
							displayOptions: { show: { operator: operatorsOfShape('list') } },
						},
					],
				},
			],
		},
		{
			displayName: 'Where (JSON)',
			name: 'whereJson',
			type: 'json',
			default:
				'[\n  {\n    "type": "or",\n    "value": [\n      { "type": "equals", "attribute": "status", "value": "New" },\n      { "type": "isNull", "attribute": "assignedUserId" }\n    ]\n  }\n]',
			description: 'A list of where items with type, attribute and value; "and" and "or" items take a list of items as value',
			displayOptions: { show: { ...show, filterMode: ['json'] } },
		},
	];
}

interface Condition {
	attribute?: string;
	operator?: string;
	value?: unknown;
	values?: unknown;
	from?: unknown;
	to?: unknown;
	days?: unknown;
}

type WhereItem = IDataObject & { type: string };

function listOf(value: unknown): unknown[] {
	if (Array.isArray(value)) return value;
	if (typeof value === 'string') return value.split(',').map((part) => part.trim()).filter((part) => part !== '');
	return value === undefined || value === null || value === '' ? [] : [value];
}

/** Builds one where item from a condition, or says which part of which condition is wrong. */
export function whereItemOf(condition: Condition, position: number, timeZone: string): WhereItem | string {
	const attribute = String(condition.attribute ?? '').trim();
	const operator = OPERATOR_BY_VALUE.get(String(condition.operator));
	if (!operator) return `condition ${position} has an unknown operator "${condition.operator}"`;
	if (attribute === '') return `condition ${position} has no field`;

	const item: WhereItem = { type: operator.value, attribute };
	switch (operator.shape) {
		case 'one':
			if (condition.value === undefined || condition.value === null || condition.value === '') {
				return `condition ${position} (${attribute}) needs a value`;
			}
			item.value = condition.value as string;
			break;
		case 'list': {
			const values = listOf(condition.values);
			if (values.length === 0) return `condition ${position} (${attribute}) needs at least one value`;
			item.value = values as string[];
			break;
		}
		case 'range':
			if (!condition.from || !condition.to) return `condition ${position} (${attribute}) needs both From and To`;
			item.value = [condition.from, condition.to] as string[];
			break;
		case 'days': {
			const days = Number(condition.days);
			if (!Number.isInteger(days) || days < 0) return `condition ${position} (${attribute}) needs a whole number of days`;
			item.value = days;
			break;
		}
		case 'none':
			break;
	}
	if (operator.date && isDateTimeField(attribute)) {
		item.dateTime = true;
		item.timeZone = timeZone;
	}
	return item;
}

/** Checks a where list given as JSON: every item needs a type, and "and"/"or" a list of items. */
function checkWhereList(items: unknown, path: string): string | undefined {
	if (!Array.isArray(items)) return `${path} must be a list of where items`;
	for (const [index, item] of items.entries()) {
		const at = `${path}[${index}]`;
		if (item === null || typeof item !== 'object' || Array.isArray(item)) return `${at} must be an object`;
		const { type, value, attribute } = item as IDataObject;
		if (typeof type !== 'string' || type === '') return `${at} has no "type"`;
		if (GROUP_TYPES.has(type) || type === 'subQueryIn' || type === 'subQueryNotIn') {
			const nested = checkWhereList(value, `${at}.value`);
			if (nested) return nested;
			continue;
		}
		if (typeof attribute !== 'string' || attribute === '') return `${at} has no "attribute"`;
		const operator = OPERATOR_BY_VALUE.get(type);
		if (operator && operator.shape !== 'none' && (value === undefined || value === null || value === '')) {
			return `${at} (${type}) needs a "value"`;
		}
		if (operator && (operator.shape === 'list' || operator.shape === 'range') && !Array.isArray(value)) {
			return `${at} (${type}) needs a list as "value"`;
		}
	}
	return undefined;
}

const GROUP_TYPES = new Set(['and', 'or', 'not']);

/**
 * Gives the date operators of a where list written as JSON what the form's conditions get: on a date-time field,
 * `dateTime` and the workflow's time zone, unless the item says otherwise.
 */
function withTimeZones(items: IDataObject[], timeZone: string): IDataObject[] {
	return items.map((item) => {
		const type = String(item.type);
		if (GROUP_TYPES.has(type) && Array.isArray(item.value)) {
			return { ...item, value: withTimeZones(item.value as IDataObject[], timeZone) };
		}
		const dateOperator = OPERATOR_BY_VALUE.get(type)?.date === true;
		if (!dateOperator || item.dateTime !== undefined || !isDateTimeField(String(item.attribute))) return item;
		return { ...item, dateTime: true, timeZone };
	});
}

/** preSend of the filter: puts the where list into the query, or refuses a wrong condition before sending. */
async function setWhere(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const itemIndex = this.getItemIndex();
	const mode = this.getNodeParameter('filterMode', 'none') as string;
	let where: unknown;
	if (mode === 'conditions') {
		const conditions = this.getNodeParameter('conditions.condition', []) as Condition[];
		const items = conditions.map((condition, index) => whereItemOf(condition, index + 1, this.getTimezone()));
		const problem = items.find((item): item is string => typeof item === 'string');
		if (problem) {
			throw new NodeOperationError(this.getNode(), `The parameter "Conditions": ${problem} (item ${itemIndex})`, { itemIndex });
		}
		const matchType = this.getNodeParameter('matchType', 'and') as string;
		where = matchType === 'or' && items.length > 1 ? [{ type: 'or', value: items }] : items;
	} else if (mode === 'json') {
		where = parseJsonParameter(this, this.getNodeParameter('whereJson'), 'Where (JSON)', itemIndex);
		const problem = checkWhereList(where, 'where');
		if (problem) {
			throw new NodeOperationError(this.getNode(), `The parameter "Where (JSON)": ${problem} (item ${itemIndex})`, { itemIndex });
		}
		where = withTimeZones(where as IDataObject[], this.getTimezone());
	}
	if (!Array.isArray(where) || where.length === 0) return request;
	return { ...request, qs: { ...request.qs, where } };
}

/** Return All or Limit, field selection and sorting, shared by every list. */
export function listFields(show: Show): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions: { show },
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { ...show, returnAll: [false] } },
			routing: { output: { maxResults: '={{ $value }}' }, send: { preSend: [checkLimit] } },
		},
		{
			displayName: 'Options',
			name: 'listOptions',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: { show },
			options: [
				{
					displayName: 'Fields to Return Names or IDs',
					name: 'select',
					type: 'multiOptions',
					typeOptions: { loadOptionsMethod: 'getFields', loadOptionsDependsOn: ['entityType', 'customEntityType'] },
					default: [],
					description: 'The fields to return; the server adds the ID. None returns every field. An expression may give a list or names separated by commas. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					routing: {
						send: {
							type: 'query',
							property: 'select',
							value: '={{ [].concat($value).join(",").split(",").map(s => s.trim()).filter(s => s).join(",") || undefined }}',
						},
					},
				},
				{
					displayName: 'Sort By Name or ID',
					name: 'orderBy',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getFields', loadOptionsDependsOn: ['entityType', 'customEntityType'] },
					default: 'createdAt',
					description: 'Field to sort by. The server sorts by creation time, newest first, when not given. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					routing: { send: { type: 'query', property: 'orderBy' } },
				},
				{
					displayName: 'Sort Order',
					name: 'order',
					type: 'options',
					options: [
						{ name: 'Ascending', value: 'asc' },
						{ name: 'Descending', value: 'desc' },
					],
					default: 'desc',
					routing: { send: { type: 'query', property: 'order' } },
				},
			],
		},
	];
}

async function checkLimit(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const limit = this.getNodeParameter('limit') as number;
	if (!Number.isInteger(limit) || limit < 1) {
		throw new NodeOperationError(
			this.getNode(),
			`The parameter "Limit" must be a whole number of at least 1 (item ${this.getItemIndex()}: ${limit})`,
			{ itemIndex: this.getItemIndex() },
		);
	}
	return request;
}
