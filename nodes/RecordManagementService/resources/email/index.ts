import type { INodeProperties } from 'n8n-workflow';

import { applyEmailDialect, requireSent, sendFields } from './send';

export const emailDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['email'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				action: 'Send an email',
				description: 'Send an e-mail, optionally linked to a record',
				routing: {
					request: { method: 'POST', url: '/Email' },
					send: { paginate: true, preSend: [applyEmailDialect] },
					output: { postReceive: [requireSent] },
				},
			},
		],
		default: 'send',
	},
	...sendFields,
];
