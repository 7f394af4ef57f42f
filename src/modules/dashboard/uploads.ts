import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Api } from '../../http/types.ts';
import { AppError } from '../../http/errors.ts';

/**
 * `multipart/form-data` bodies for the dashboard forms that take a file (today Settings → Branding's
 * logo), parsed by @fastify/busboy and loaded on the first upload (decision 0070). A body becomes
 * what the url-encoded forms give: field name → string, and a file part → a Buffer (empty when the
 * form's file input was left empty) or, past the file limit, an {@link OversizedFile} (its bytes
 * dropped as they arrive) for the screen to refuse beside its field. Too many parts or too long a
 * field refuse the form whole with 413, a body that is not multipart with 400 — both naming the
 * rule, nothing read further and nothing saved.
 */
export interface UploadLimits {
  /** Largest file part, in bytes. */
  fileBytes: number;
  files: number;
  fields: number;
  /** Largest field value, in bytes. */
  fieldBytes: number;
}

/** A file part larger than {@link UploadLimits.fileBytes}: only its size class is kept. */
export class OversizedFile {
  constructor(readonly limitBytes: number) {}
}

export type UploadedForm = Record<string, string | Buffer | OversizedFile>;

/** Registers the parser in `scope` (a Fastify encapsulation scope: other scopes keep refusing multipart). */
export function acceptUploads(scope: Api, limits: UploadLimits): void {
  scope.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    parseUpload(request.headers, payload, limits).then(
      (form) => done(null, form),
      (error: unknown) => done(error as Error),
    );
  });
}

function tooLarge(limits: UploadLimits, what: 'field' | 'count'): AppError {
  const message =
    what === 'field'
      ? `A field of this form may be at most ${limits.fieldBytes} bytes`
      : `This form takes at most ${limits.files} file${limits.files === 1 ? '' : 's'} and ${limits.fields} fields`;
  return new AppError('PAYLOAD_TOO_LARGE', message);
}

const notMultipart = (): AppError => new AppError('WRONG_PARAMETER', 'body is not a valid multipart form', { field: 'body' });

/** Reads one multipart body into an {@link UploadedForm}; rejects at the first count or field limit passed. */
export async function parseUpload(headers: IncomingHttpHeaders, payload: Readable, limits: UploadLimits): Promise<UploadedForm> {
  // Loaded here, not at start: no start pays for a parser only an upload needs. `.default` is what a
  // CommonJS package gives a dynamic import in both tsx and the split bundle (decision 0070).
  const { Busboy } = (await import('@fastify/busboy')).default;
  return new Promise<UploadedForm>((resolve, reject) => {
    const form: UploadedForm = Object.create(null) as UploadedForm;
    let settled = false;
    const fail = (error: AppError): void => {
      if (settled) {
        return;
      }
      settled = true;
      // Stop parsing; the rest of the body is read and dropped so that the answer can be sent.
      payload.unpipe();
      payload.resume();
      reject(error);
    };
    let parser: InstanceType<typeof Busboy>;
    try {
      parser = new Busboy({
        headers: headers as { 'content-type': string },
        limits: { fileSize: limits.fileBytes, files: limits.files, fields: limits.fields, fieldSize: limits.fieldBytes, parts: limits.files + limits.fields, headerPairs: 20 },
      });
    } catch {
      fail(notMultipart());
      return;
    }
    parser.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (valueTruncated) {
        fail(tooLarge(limits, 'field'));
        return;
      }
      form[name] = value;
    });
    parser.on('file', (name: string, file: Readable) => {
      let chunks: Buffer[] | null = [];
      file.on('data', (chunk: Buffer) => chunks?.push(chunk));
      // Past the limit the parser drops the rest of the file; what was kept is dropped too.
      file.on('limit', () => {
        chunks = null;
      });
      file.on('end', () => {
        if (!settled) {
          form[name] = chunks ? Buffer.concat(chunks) : new OversizedFile(limits.fileBytes);
        }
      });
    });
    parser.on('filesLimit', () => fail(tooLarge(limits, 'count')));
    parser.on('fieldsLimit', () => fail(tooLarge(limits, 'count')));
    parser.on('partsLimit', () => fail(tooLarge(limits, 'count')));
    parser.on('error', () => fail(notMultipart()));
    parser.on('finish', () => {
      if (!settled) {
        settled = true;
        resolve(form);
      }
    });
    payload.on('error', () => fail(notMultipart()));
    payload.pipe(parser);
  });
}
