import type { INodeProperties } from 'n8n-workflow';

import { recordIdField } from '../../shared/descriptions';

export const deleteFields: INodeProperties[] = [recordIdField({ resource: ['record'], operation: ['delete'] })];
