import type { INodeProperties } from 'n8n-workflow';

import { recordIdField } from '../../shared/descriptions';
import { recordBodyFields } from '../../shared/recordFields';

const show = { resource: ['record'], operation: ['update'] };

export const updateFields: INodeProperties[] = [recordIdField(show), ...recordBodyFields(show, 'Fields to Update')];
