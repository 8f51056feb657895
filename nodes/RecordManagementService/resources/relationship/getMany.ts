import type { INodeProperties } from 'n8n-workflow';

import { linkFields, recordIdField } from '../../shared/descriptions';
import { filterFields, listFields } from '../../shared/filters';

const show = { resource: ['relationship'], operation: ['getMany'] };

export const getManyRelatedFields: INodeProperties[] = [
	recordIdField(show),
	...linkFields(show),
	...listFields(show),
	...filterFields(show),
];
