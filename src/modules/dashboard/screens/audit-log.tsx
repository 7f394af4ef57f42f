import { Readable, pipeline } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { stringify } from 'csv-stringify';
import type { Api } from '../../../http/types.ts';
import { wrongParameter } from '../../../http/errors.ts';
import { auditActorTypes } from '../../../db/schema/index.ts';
import type { AuditLog, AuditPageInput } from '../../audit/index.ts';
import { field, screen, type ScreenTools } from '../context.ts';
import { dayMs, parseDay } from '../date-range.ts';
import { AuditLogPage, type AuditLogFilters } from '../pages/audit-log.tsx';

/** Rows the screen shows a page; the CSV reads the log in pages of `exportBatch`. */
const screenPageSize = 50;
const exportBatch = 500;

/** The screen's and the CSV's filters, checked: a value that is not one of ours is 400 WRONG_PARAMETER naming it. */
export function parseAuditFilters(query: unknown): { filters: AuditLogFilters; input: AuditPageInput } {
  const action = field(query, 'action', 200);
  if (action !== '' && !/^[A-Za-z_]{1,100}$|^dashboard:[/:A-Za-z_-]{1,100}$/.test(action)) {
    throw wrongParameter('action', 'must be one of the actions of the list');
  }
  const actorType = field(query, 'actorType', 40);
  if (actorType !== '' && !(auditActorTypes as readonly string[]).includes(actorType)) {
    throw wrongParameter('actorType', `must be one of ${auditActorTypes.join(', ')}`);
  }
  const from = field(query, 'from', 20);
  const to = field(query, 'to', 20);
  const createdFrom = parseDay(from, 'from');
  const toDay = parseDay(to, 'to');
  if (createdFrom !== undefined && toDay !== undefined && toDay < createdFrom) {
    throw wrongParameter('to', 'must not be before from');
  }
  const typed = actorType === '' ? undefined : (actorType as AuditLogFilters['actorType']);
  return {
    filters: { action: action || undefined, actorType: typed, from: from || undefined, to: to || undefined },
    input: { action: action || undefined, actorType: typed, createdFrom, createdTo: toDay === undefined ? undefined : toDay + dayMs - 1 },
  };
}

export const auditCsvColumns = ['id', 'createdAt', 'mode', 'actorType', 'actorId', 'action', 'target', 'address', 'outcome', 'statusCode', 'errorCode', 'requestId'] as const;

/**
 * The merchant's audit log (`/:mode/audit-log`): its events of this mode and those tied to no mode
 * (the operator's), filtered, paged newest first; `/:mode/audit-log/export.csv` streams every row of
 * the same filters as CSV (csv-stringify; cells that start like a formula are escaped).
 */
export function registerAuditLogScreens(web: Api, tools: ScreenTools, deps: { audit: AuditLog }): void {
  const { audit } = deps;

  web.get('/:mode/audit-log', async (request, reply) => {
    const view = screen(tools, request, reply);
    const { filters, input } = parseAuditFilters(request.query);
    const after = field(request.query, 'after', 600);
    const [page, actions] = await Promise.all([
      audit.listForMerchant(view.session.merchant.id, view.livemode, { ...input, limit: screenPageSize, ...(after ? { startingAfter: after } : {}) }),
      audit.actionsOf(view.session.merchant.id),
    ]);
    return view.page((frame) => AuditLogPage({ frame, filters, actions, events: page.items, nextCursor: page.nextCursor, isFirstPage: after === '' }));
  });

  web.get('/:mode/audit-log/export.csv', async (request: FastifyRequest, reply) => {
    const view = screen(tools, request, reply);
    const { input } = parseAuditFilters(request.query);
    const merchantId = view.session.merchant.id;
    async function* rows() {
      let startingAfter: string | undefined;
      do {
        const page = await audit.listForMerchant(merchantId, view.livemode, { ...input, limit: exportBatch, ...(startingAfter ? { startingAfter } : {}) });
        for (const event of page.items) {
          yield {
            ...event,
            createdAt: event.createdAt.toISOString(),
            mode: event.livemode === null ? '' : event.livemode ? 'live' : 'sandbox',
          };
        }
        startingAfter = page.nextCursor;
      } while (startingAfter);
    }
    const csv = stringify({ header: true, columns: [...auditCsvColumns], escape_formulas: true });
    pipeline(Readable.from(rows()), csv, (error) => {
      if (error) {
        request.log.error({ err: error }, 'the audit log export stopped');
      }
    });
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="audit-log-${view.mode}.csv"`)
      .header('Cache-Control', 'no-store')
      .send(csv);
  });
}
