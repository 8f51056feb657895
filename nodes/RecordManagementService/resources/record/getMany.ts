import type { INodeProperties } from 'n8n-workflow';

import { filterFields, listFields } from '../../shared/filters';

const show = { resource: ['record'], operation: ['getMany'] };

export const getManyFields: INodeProperties[] = [...listFields(show), ...filterFields(show)];
