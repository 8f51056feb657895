import type { INodeProperties } from 'n8n-workflow';

import { recordIdField } from '../../shared/descriptions';

export const getFields: INodeProperties[] = [recordIdField({ resource: ['record'], operation: ['get'] })];
