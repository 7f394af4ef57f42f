import type { Applicant, ApplicantBuilder, CountryCodes, DefaultApi, Region, Report } from '@onfido/api';
import countries from 'i18n-iso-countries';
import type { Logger } from 'pino';
import type { KycData } from '../../customers/index.ts';
import type { CaptureSources, KycCheckKind, KycProvider } from '../providers/types.ts';
import { dataReport, documentReports, mapOnfidoResult } from './mapping.ts';
import { loadProviderPackage } from '../../providers/index.ts';

export type OnfidoRegion = 'EU' | 'US' | 'CA';

export interface OnfidoOptions {
  /** `onfido` (live) or `onfido-test` (Onfido's sandbox backing sandbox mode): stored on each verification. */
  name: string;
  apiToken: string;
  region: OnfidoRegion;
  /** Tests only: the replica's address (the package's own `basePath` option). */
  basePath?: string;
  /** Where the hosted payout page loads Onfido's web SDK from (ONFIDO_SDK_URL). */
  sdkUrl: string;
  /** The reconciliation poll for checks whose webhook has not come (default 15 minutes). */
  pollIntervalMs?: number;
  timeoutMs?: number;
}

const dashboards: Record<OnfidoRegion, string> = { EU: 'https://dashboard.onfido.com', US: 'https://dashboard.us.onfido.com', CA: 'https://dashboard.ca.onfido.com' };

/**
 * The origins Onfido documents for its web SDK, per CSP directive (Onfido's CSP guide,
 * documentation.onfido.com/sdk/sdk-csp-guide): scripts and styles from sdk.onfido.com and
 * assets.onfido.com, its frame, and the regional APIs it uploads to. The guide's plain
 * `http://onfido.com` is left out (a page served over https would never need it). The configured
 * SDK URL's origin is added to `script` and `connect` (a self-hosted copy, or a test stand-in).
 */
export function onfidoCaptureSources(sdkUrl: string): CaptureSources {
  const sdkOrigin = new URL(sdkUrl).origin;
  const withSdk = (origins: readonly string[]) => [...new Set([...origins, sdkOrigin])];
  return {
    script: withSdk(['https://sdk.onfido.com', 'https://assets.onfido.com']),
    style: ['https://sdk.onfido.com', 'https://assets.onfido.com'],
    font: ['https://sdk.onfido.com'],
    connect: withSdk(['https://api.onfido.com', 'https://api.eu.onfido.com', 'https://api.us.onfido.com', 'https://api.ca.onfido.com']),
    frame: ['https://sdk.onfido.com'],
    img: ['https://assets.onfido.com', 'blob:'],
  };
}

/** The tag that ties an Onfido check to our verification: how a check whose creation answer was lost is found again. */
export function checkTag(verificationId: string, kind: KycCheckKind): string {
  return `paysail:${verificationId}:${kind.toLowerCase()}`;
}

/** Our verification id from a check's tags, or null. */
export function verificationIdOfTags(tags: readonly string[] | undefined): string | null {
  for (const tag of tags ?? []) {
    const match = /^paysail:([^:]+):(data|documents)$/.exec(tag);
    if (match?.[1]) {
      return match[1];
    }
  }
  return null;
}

/**
 * The applicant Onfido needs for a document-less identity check, and nothing more: names, date of
 * birth and the address (ISO alpha-3 country). No phone number, e-mail, middle name or second
 * address line: the check does not use them.
 */
export function applicantFor(data: KycData): ApplicantBuilder {
  const country = countries.alpha2ToAlpha3(data['address.country'] ?? '');
  if (!data.firstName || !data.lastName || !data.dateOfBirth || !data['address.postalCode'] || !country) {
    throw new Error('incomplete identity data for Onfido');
  }
  return {
    first_name: data.firstName,
    last_name: data.lastName,
    dob: data.dateOfBirth,
    address: {
      line1: data['address.line1'] ?? null,
      town: data['address.city'] ?? '',
      postcode: data['address.postalCode'],
      country: country as CountryCodes,
      ...(data['address.state'] ? { state: data['address.state'] } : {}),
    },
  };
}

const applicantSearchPages = 5;
const applicantSearchPageSize = 100;

/** Whether Onfido's applicant holds exactly what we would send (what `applicantFor` builds). */
export function sameApplicant(applicant: Applicant, wanted: ApplicantBuilder): boolean {
  const address = applicant.address;
  const sent = wanted.address;
  return (
    applicant.first_name === wanted.first_name &&
    applicant.last_name === wanted.last_name &&
    (applicant.dob ?? null) === (wanted.dob ?? null) &&
    address !== undefined &&
    sent !== undefined &&
    (address.line1 ?? null) === (sent.line1 ?? null) &&
    (address.town ?? '') === (sent.town ?? '') &&
    address.postcode === sent.postcode &&
    address.country === sent.country &&
    (address.state ?? null) === (sent.state ?? null)
  );
}

/**
 * An Onfido call whose failure is re-thrown as a plain error naming the call and the HTTP status or
 * network code only: the package's (axios) errors carry the request, its Authorization header and
 * its body (applicant PII), and a failed job's error is logged.
 */
export async function onfidoCall<T>(label: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const details = error as { response?: { status?: number }; code?: string };
    const status = details.response?.status;
    throw new Error(`onfido ${label} failed: ${status !== undefined ? `HTTP ${status}` : (details.code ?? 'no answer')}`);
  }
}

export function createOnfidoClient(options: OnfidoOptions): DefaultApi {
  const { Configuration, DefaultApi, Region } = loadProviderPackage('@onfido/api');
  const regions: Record<OnfidoRegion, Region> = { EU: Region.EU, US: Region.US, CA: Region.CA };
  return new DefaultApi(
    new Configuration({
      apiToken: options.apiToken,
      region: regions[options.region],
      ...(options.basePath ? { basePath: options.basePath } : {}),
      baseOptions: { timeout: options.timeoutMs ?? 30_000 },
    }),
  );
}

/**
 * Onfido behind the KYC port, every call made by the official `@onfido/api` package. Onfido has no
 * idempotency keys: a check carries the tag `paysail:<verification>:<kind>`, and `startCheck` lists
 * the applicant's checks for it before creating one, so a retry after a lost answer finds the check
 * instead of starting a second. Logs carry ids only, never the applicant's data.
 */
export function createOnfidoKycProvider(options: OnfidoOptions & { logger: Logger }): KycProvider & { client: DefaultApi } {
  const client = createOnfidoClient(options);
  const logger = options.logger.child({ provider: 'onfido' });

  /**
   * The applicant a lost `createApplicant` made, or null. Onfido applicants carry no reference of
   * ours and cannot be searched, so the most recent ones (listed newest first) are compared on
   * exactly the fields we send; a few pages cover any retry of the `kyc.verify` job. Two
   * verifications of the same person could adopt one applicant: harmless, as checks are tagged by
   * verification and an applicant holds only these fields.
   */
  async function findApplicant(wanted: ApplicantBuilder): Promise<string | null> {
    for (let page = 1; page <= applicantSearchPages; page += 1) {
      const { data } = await onfidoCall('listApplicants', () => client.listApplicants(page, applicantSearchPageSize, false));
      const match = data.applicants.find((candidate) => sameApplicant(candidate, wanted));
      if (match) {
        return match.id;
      }
      if (data.applicants.length < applicantSearchPageSize) {
        return null;
      }
    }
    return null;
  }

  return {
    name: options.name,
    client,
    pollIntervalMs: options.pollIntervalMs ?? 15 * 60 * 1000,

    async createApplicant({ verificationId, data, attemptedBefore }) {
      const wanted = applicantFor(data);
      if (attemptedBefore) {
        const found = await findApplicant(wanted);
        if (found) {
          logger.info({ verificationId, applicantId: found }, 'onfido applicant found (created before, its answer lost)');
          return found;
        }
      }
      const { data: applicant } = await onfidoCall('createApplicant', () => client.createApplicant(wanted));
      logger.info({ verificationId, applicantId: applicant.id }, 'onfido applicant created');
      return applicant.id;
    },

    async startCheck({ verificationId, applicantId, kind }) {
      const tag = checkTag(verificationId, kind);
      const { data: existing } = await onfidoCall('listChecks', () => client.listChecks(applicantId));
      const found = existing.checks.find((check) => check.tags?.includes(tag));
      if (found) {
        logger.info({ verificationId, checkId: found.id }, 'onfido check found (started before)');
        return found.id;
      }
      const { data: check } = await onfidoCall('createCheck', () =>
        client.createCheck({
          applicant_id: applicantId,
          report_names: kind === 'DATA' ? [dataReport] : [...documentReports],
          tags: [tag],
        }),
      );
      logger.info({ verificationId, checkId: check.id, kind }, 'onfido check created');
      return check.id;
    },

    async fetchOutcome(checkId) {
      const { data: check } = await onfidoCall('findCheck', () => client.findCheck(checkId));
      const reports: Report[] = check.status === 'complete' || check.status === 'withdrawn' ? (await onfidoCall('listReports', () => client.listReports(checkId))).data.reports : [];
      const kind: KycCheckKind = reports.some((report) => report.name === dataReport) || check.tags?.some((tag) => tag.endsWith(':data')) ? 'DATA' : 'DOCUMENTS';
      return mapOnfidoResult({ check, reports, kind });
    },

    async stepUpCapture({ applicantId, referrer }) {
      const { data } = await onfidoCall('generateSdkToken', () => client.generateSdkToken({ applicant_id: applicantId, referrer }));
      return { kind: 'SDK', token: data.token, scriptUrl: options.sdkUrl, sources: onfidoCaptureSources(options.sdkUrl) };
    },

    async receiveCapture({ applicantId, captured }) {
      if (!('documentId' in captured)) {
        return false;
      }
      // The SDK uploaded them from the browser: Onfido must hold both for this applicant.
      const [{ data: documents }, { data: photos }] = await Promise.all([
        onfidoCall('listDocuments', () => client.listDocuments(applicantId)),
        onfidoCall('listLivePhotos', () => client.listLivePhotos(applicantId)),
      ]);
      return documents.documents.some((document) => document.id === captured.documentId) && photos.live_photos.some((photo) => photo.id === captured.faceId);
    },

    checkUrl(checkId) {
      return `${dashboards[options.region]}/checks/${encodeURIComponent(checkId)}`;
    },

    async deleteApplicant(applicantId) {
      // Onfido deletes the applicant with their documents, photos and reports. 404: already deleted,
      // the same outcome, so a retry after a lost answer is safe.
      const outcome = await onfidoCall('deleteApplicant', () =>
        client.deleteApplicant(applicantId).then(
          () => 'deleted' as const,
          (error: unknown) => {
            if ((error as { response?: { status?: number } }).response?.status === 404) {
              return 'not_found' as const;
            }
            throw error;
          },
        ),
      );
      logger.info({ applicantId, outcome }, 'onfido applicant deletion');
      return outcome;
    },
  };
}
