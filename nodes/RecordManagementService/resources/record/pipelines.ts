import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Item } from '../../shared/item/item';
import { forItem } from '../../shared/http/errors';
import { apiRequest } from '../../shared/http/request';

/**
 * EspoCRM 10's Pipelines (its docs: general/pipelines.md). On an entity type with pipelines (Lead, Opportunity, custom
 * types, once an administrator enabled them) each record sits in a pipeline and in one of its stages, and the status
 * field (an Opportunity's stage, a Lead's status) follows the stage: it becomes read-only, so a value written to it is
 * dropped without a word (200, the record as it was; Core/Utils/Metadata/AdditionalBuilder/Pipelines, the read-only
 * attributes of Core/Acl/GlobalRestriction). The stage is changed through `pipelineStageId` (a stage of the record's
 * pipeline, `pipelineId`: Hooks/Common/PipelineStageStatus then sets the status it maps to), and a new record without
 * them gets the user's first pipeline and its first stage (Core/Record/Defaults/DefaultPopulator::processPipeline).
 *
 * So Create, Update and Create or Update send the record as before, and when the server's answer shows that the record
 * is in a pipeline (`pipelineStageId`) and kept another status than the one written, the node sets the stage of the
 * record's pipeline that maps to the status written (`PUT {pipelineStageId}`), from the user's pipelines
 * (`GET /App/user`: `appParams.pipelines`, read once per run). A workflow that sets "Stage: Closed Won" then works on
 * EspoCRM 10 with pipelines as before, at one more request per record whose stage it changes. When no stage of the
 * pipeline, or several, map to that status, the item fails (the other fields are written): give `pipelineStageId`.
 * An item that gives `pipelineStageId` itself is sent as it is. Nothing changes for a server without pipelines.
 */

interface Stage {
	id: string;
	name?: string;
	mappedStatus?: string;
}

interface Pipeline {
	id: string;
	name?: string;
	stages?: Stage[];
}

/** The user's pipelines by entity type (appParams.pipelines of GET /App/user), once per run. */
async function pipelinesOf(item: Item): Promise<Record<string, Pipeline[]>> {
	// A failed read is the item's error; the next item reads again.
	return await item.run
		.once(
			'pipelines',
			async () => {
				const app = await apiRequest(item.run, item.index, { method: 'GET', url: '/App/user' });
				return ((app.appParams as IDataObject | undefined)?.pipelines ?? {}) as Record<
					string,
					Pipeline[]
				>;
			},
			{ againAfterFailure: true },
		)
		.catch((error: unknown) => {
			// Items that waited for the same read share its failure: each fails as itself.
			throw forItem(error, item.index);
		});
}

/**
 * The record as written, its status set through its pipeline when the server kept another one (see above).
 * `path`: `/{entityType}`; `body`: what was sent; `written`: the server's answer.
 */
export async function withStatusThroughPipeline(
	item: Item,
	entityType: string,
	path: string,
	body: IDataObject,
	written: IDataObject,
): Promise<IDataObject> {
	if (
		typeof written.pipelineStageId !== 'string' ||
		typeof written.pipelineId !== 'string' ||
		body.pipelineStageId !== undefined
	)
		return written;
	// Fields written as text whose value the answer does not show: the status field is one of them, if any.
	const ignored = Object.keys(body).filter(
		(field) =>
			typeof body[field] === 'string' &&
			typeof written[field] === 'string' &&
			written[field] !== body[field],
	);
	if (ignored.length === 0 || (await item.run.credentials()).server !== 'espocrm') return written;

	const pipeline = (await pipelinesOf(item))[entityType]?.find(
		(candidate) => candidate.id === written.pipelineId,
	);
	const stages = pipeline?.stages ?? [];
	const current = stages.find((stage) => stage.id === written.pipelineStageId);
	// The status field is the one that shows the mapped status of the record's stage.
	const statusField = ignored.find(
		(field) => current !== undefined && written[field] === current.mappedStatus,
	);
	if (!pipeline || statusField === undefined) return written;

	const wanted = body[statusField] as string;
	const mapped = stages.filter((stage) => stage.mappedStatus === wanted);
	if (mapped.length !== 1) {
		const offered = stages
			.map((stage) => `${stage.name ?? stage.id} (${stage.id}: ${stage.mappedStatus})`)
			.join(', ');
		throw new NodeOperationError(
			item.node,
			`${statusField} "${wanted}" was not set: ${entityType} records follow pipelines on this server, and ${
				mapped.length ? `several stages` : 'no stage'
			} of the pipeline "${pipeline.name ?? pipeline.id}" map to "${wanted}" (item ${item.index})`,
			{
				itemIndex: item.index,
				description: `EspoCRM sets ${statusField} from the record's pipeline stage. The record ${String(written.id)} was written with its other fields and stays at its stage. Give the stage instead: a field pipelineStageId with one of ${offered || 'the stages of its pipeline'}.`,
			},
		);
	}
	return await apiRequest(item.run, item.index, {
		method: 'PUT',
		url: `${path}/${encodeURIComponent(String(written.id))}`,
		expect: 'record',
		body: { pipelineStageId: mapped[0].id },
	});
}
