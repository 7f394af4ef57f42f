import { Readable, pipeline } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { stringify } from 'csv-stringify';

/**
 * Streams rows as a CSV download (csv-stringify; a header row of `columns`; a cell that starts like
 * a formula is escaped so a spreadsheet does not run it). Rows are read as the client takes them,
 * so an export of any size holds one batch in memory. An error after the first byte ends the
 * download early and is logged; the partial file lacks the rows after it.
 */
export function sendCsv<T extends object>(request: FastifyRequest, reply: FastifyReply, input: { filename: string; columns: ReadonlyArray<keyof T & string>; rows: AsyncIterable<T> | Iterable<T> }): FastifyReply {
  const csv = stringify({ header: true, columns: [...input.columns], escape_formulas: true, cast: { date: (value) => value.toISOString(), boolean: (value) => (value ? 'true' : 'false') } });
  pipeline(Readable.from(input.rows), csv, (error) => {
    if (error) {
      request.log.error({ err: error, file: input.filename }, 'a dashboard export stopped');
    }
  });
  return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="${input.filename}"`).header('Cache-Control', 'no-store').send(csv);
}
