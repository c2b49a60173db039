import { Readable } from 'stream';

import type { Request, ResponseToolkit, RouteOptionsPayload } from '@hapi/hapi';
import Joi from 'joi';
import type { Transaction } from 'sequelize';

import type { Policies } from '../../../gateway/policies/policy-file';
import { attachmentPolicy } from '../../../lib/accounts/messaging-policy';
import { ServiceError } from '../../../lib/errors';
import { contentDisposition } from '../../../lib/file-name-text';
import { memberConversation } from '../../../lib/messaging/access';
import { attachmentFile } from '../../../lib/messaging/attachment-files';
import { sendMessage } from '../../../lib/messaging/messages';
import { declaredFileType, removeUpload, storeWholeUpload, type UploadFilesContext } from '../../../lib/messaging/upload-files';
import { isUnstorableText } from '../../../lib/storable-text';
import type { Message } from '../../../models/message';
import type { SiteContext } from '../context';
import { found } from '../forms';
import { actorOf } from './actor';

/** A file field's part as hapi hands it over (multipart output `stream`): its bytes, read already, and its name and headers. */
interface FilePart extends Readable {
    hapi: { filename: string; headers: Record<string, string> };
}

const isFilePart = (value: unknown): value is FilePart => value instanceof Readable && typeof (value as Partial<FilePart>).hapi?.filename === 'string';

const filePart = Joi.any().custom((value: unknown, helpers) => (isFilePart(value) ? value : helpers.error('any.invalid')));

/** The compose form's `files`: none, one or several file parts; a file input left empty comes as an empty field (other text is a 400). */
export const filesField = Joi.array().items(Joi.string().valid(''), filePart).single().default([]);

// The text fields and the multipart framing around the files: hapi's limit for a form without files.
const textAllowance = 1024 * 1024;
// Files on a slow connection take a while to arrive (hapi's default is 10 seconds): as long as a tus PATCH may take.
const bodyTimeout = 10 * 60 * 1000;

/**
 * The compose form's body: URL-encoded (no file) or multipart, at most `form_max_files` of the largest attachment any
 * plan allows, read at start-up (a route's limit is fixed then); each file is checked against the family's plan after.
 * File parts are kept as bytes, never parsed by the Content-Type a browser gives them (hapi would parse a `.json`).
 */
export function composePayload(policies: Policies): RouteOptionsPayload {

    const largest = Math.max(0, ...policies.messaging.attachments.plans.map((plan) => plan.max_file_bytes));
    return { output: 'data', parse: true, multipart: { output: 'stream' }, maxBytes: largest * policies.messaging.uploads.form_max_files + textAllowance, timeout: bodyTimeout };
}

/** The files a form sent, read; a file input left empty sends no name and no bytes, which is no file. */
async function chosenFiles(parts: (FilePart | '')[]) {

    const files = [];
    for (const part of parts) {
        if (part !== '') {
            const name = isUnstorableText(part.hapi.filename) ? '' : part.hapi.filename;
            const bytes = Buffer.concat(await part.toArray() as Buffer[]);
            files.push({ name, declaredType: declaredFileType(part.hapi.headers['content-type']), bytes });
        }
    }

    return files;
}

const uploadsOf = (context: SiteContext): UploadFilesContext => ({
    models: context.models, transaction: context.messaging.transaction, files: context.uploadFiles, policies: context.policies
});

/**
 * The compose form's send: each file kept as a complete upload of the user (the messaging API's uploads: the same
 * size, quota and content checks), then the message sent claiming them. A refusal (a ServiceError: too many or too
 * large files, the quota, the content, the send's own) or a failure removes what this request had stored.
 */
export async function sendWithFiles(context: SiteContext, request: Request): Promise<Message> {

    const actor = actorOf(request);
    const { body, files: parts } = request.payload as { body: string; files: (FilePart | '')[] };
    const files = await chosenFiles(parts);
    const { form_max_files: maxFiles } = context.policies().messaging.uploads;
    if (files.length > maxFiles) {
        throw new ServiceError('invalid_request', `A message carries at most ${maxFiles} files: choose fewer and send it again.`);
    }

    const family = await context.models.Family.findByPk(actor.familyLongId);
    const owner = { familyLongId: actor.familyLongId, plan: family!.plan, userId: actor.userId, grantId: null };
    const uploads = uploadsOf(context);
    const uploadIds: string[] = [];
    try {
        for (const file of files) {
            uploadIds.push(await storeWholeUpload(uploads, owner, file));
        }

        const claim = (transaction: Transaction, messageId: string) => context.messaging.uploads.claim(actor, messageId, uploadIds, transaction);
        const attach = uploadIds.length === 0 ? undefined : claim;
        return await sendMessage(context.messaging, actor, request.params.conversationId as string, { body, attach });
    }
    catch (error) {
        for (const id of uploadIds) {
            await removeUpload(uploads, id);
        }

        throw error;
    }
}

/** What the compose form tells about files: how many, how large, of which types; undefined when the plan's messages carry none. */
export function composeFiles(policies: Policies, plan: string) {

    const { media_types: types, max_file_bytes: maxBytes } = attachmentPolicy(policies.messaging, plan);
    if (types.length === 0 || maxBytes === 0) {
        return undefined;
    }

    return { maxFiles: policies.messaging.uploads.form_max_files, maxBytes, types: types.join(', '), accept: types.join(',') };
}

/**
 * GET /messages/{conversationId}/files/{uploadId}: a file a message of the conversation carries, to its members only
 * (anyone else, another family, a deleted message: the 404 page). Always downloaded, under a safe name, never shown
 * on the site's origin; its type is what its content was found to be.
 */
export async function serveAttachment(context: SiteContext, request: Request, h: ResponseToolkit) {

    const actor = actorOf(request);
    const { conversationId, uploadId } = request.params as { conversationId: string; uploadId: string };
    await found(memberConversation(context.models, actor, conversationId));
    const file = await found(attachmentFile({ models: context.models, files: context.uploadFiles, policies: context.policies }, actor, { conversationId }, uploadId));
    return h.response(file.bytes)
        .type(file.mediaType)
        .header('content-disposition', contentDisposition('attachment', file.fileName))
        .header('x-content-type-options', 'nosniff');
}
