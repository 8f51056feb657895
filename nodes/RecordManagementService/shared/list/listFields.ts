import type { INodeProperties } from 'n8n-workflow';

/**
 * The parameters of a list (Get Many, Get Many Related, Stream > Get Many, the polling trigger): Return All or Limit,
 * the filter's conditions, fields to return and sorting. Each is declared once for all the operations that show it.
 * What they are turned into is in where.ts.
 */

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

/** How the value of a where item is given, by operator. */
export type ValueShape = 'none' | 'one' | 'list' | 'range' | 'days';

export interface Operator {
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

function operatorsOfShape(...shapes: ValueShape[]) {
	return OPERATORS.filter((operator) => shapes.includes(operator.shape)).map(
		(operator) => operator.value,
	);
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
				{
					name: 'Where JSON (Advanced)',
					value: 'json',
					description: 'A where list as JSON, for nested AND and OR groups',
				},
			],
			default: 'none',
			displayOptions: { show },
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
								// Get Many Related filters the records its relationship leads to.
								loadOptionsDependsOn: ['/entityType', '/customEntityType', '/link', '/customLink'],
							},
							default: '',
							description:
								'The field to compare, or the relationship for the "Linked" operators. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
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
			description:
				'A list of where items with type, attribute and value; "and" and "or" items take a list of items as value',
			displayOptions: { show: { ...show, filterMode: ['json'] } },
		},
	];
}

/**
 * Return All or Limit, the filter, field selection and sorting: the parameters of a list. `pagedOperations` are lists
 * that have Return All and Limit only (Stream > Get Many): the paging parameters are declared once for all.
 */
export function listFields(show: Show, pagedOperations: string[] = []): INodeProperties[] {
	const paged = pagedOperations.length
		? { ...show, operation: [...((show?.operation as string[]) ?? []), ...pagedOperations] }
		: show;
	return [...pagingFields(paged), ...filterFields(show), listOptionsField(show)];
}

function pagingFields(show: Show): INodeProperties[] {
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
		},
	];
}

function listOptionsField(show: Show): INodeProperties {
	return {
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
				typeOptions: {
					loadOptionsMethod: 'getFields',
					loadOptionsDependsOn: ['entityType', 'customEntityType', 'link', 'customLink'],
				},
				default: [],
				description:
					'The fields to return; the server adds the ID. None returns every field. An expression may give a list or names separated by commas. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Sort By Name or ID',
				name: 'orderBy',
				type: 'options',
				typeOptions: {
					loadOptionsMethod: 'getSortableFields',
					loadOptionsDependsOn: ['entityType', 'customEntityType', 'link', 'customLink'],
				},
				default: 'createdAt',
				description:
					'Field to sort by. The server sorts by creation time, newest first, when not given. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
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
			},
		],
	};
}
