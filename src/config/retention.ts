/**
 * How long Paysail keeps personal data and logs it no longer needs (issue 21, item 3): the
 * environment gives each category's default, the operator admin API (`POST /admin/v1/retention`)
 * may override it, and the retention job (src/modules/retention/) purges what is past its time.
 * One table gives each category's variable, unit, default and bounds: configuration, the admin API
 * schema and the docs all read it.
 */
export const retentionCategories = ['kycDetails', 'emailBodies', 'webhookDeliveryLogs', 'idempotencyRecords'] as const;
export type RetentionCategory = (typeof retentionCategories)[number];

export interface RetentionRule {
  /** The admin API field (`kycDetailsDays`). */
  readonly field: string;
  readonly variable: string;
  readonly unit: 'days' | 'hours';
  readonly fallback: number;
  readonly minimum: number;
  readonly maximum: number;
  readonly meaning: string;
}

export const hourMs = 60 * 60 * 1000;
export const dayMs = 24 * hourMs;

export const retentionRules: Readonly<Record<RetentionCategory, RetentionRule>> = {
  kycDetails: {
    field: 'kycDetailsDays',
    variable: 'RETENTION_KYC_DETAILS_DAYS',
    unit: 'days',
    // Anti-money-laundering rules (EU AMLD art. 40, the US BSA) keep identity records 5 years after
    // the business relationship ends; an operator outside them may choose less.
    fallback: 1825,
    minimum: 1,
    maximum: 36_500,
    meaning:
      "Days a customer's identity details (names, date of birth, phone, address) are kept after their last activity; then they are removed (the e-mail and the KYC outcome stay) and the KYC provider is asked to delete its applicant. Default: 5 years, the anti-money-laundering record period.",
  },
  emailBodies: {
    field: 'emailBodiesDays',
    variable: 'RETENTION_EMAIL_BODIES_DAYS',
    unit: 'days',
    fallback: 30,
    minimum: 1,
    maximum: 3_650,
    meaning: 'Days the recipient, subject and bodies of a sent (or failed, or sandbox-stored) e-mail are kept; the record that it was sent stays.',
  },
  webhookDeliveryLogs: {
    field: 'webhookDeliveryLogsDays',
    variable: 'RETENTION_WEBHOOK_LOGS_DAYS',
    unit: 'days',
    fallback: 30,
    minimum: 1,
    // Events, their deliveries and attempts leave after 30 days anyway (events retention).
    maximum: 30,
    meaning: 'Days each webhook delivery attempt (URL, status code, first 1 KiB of the answer, error) is kept; at most 30, when the event and its deliveries leave.',
  },
  idempotencyRecords: {
    field: 'idempotencyRecordsHours',
    variable: 'RETENTION_IDEMPOTENCY_HOURS',
    unit: 'hours',
    fallback: 24,
    // docs/API.md §5 promises the replay for 24 hours: a shorter setting would break that promise.
    minimum: 24,
    maximum: 720,
    meaning: 'Hours a stored idempotent request and its answer are kept; at least 24, the replay window docs/API.md §5 promises (a key is never replayed after 24 hours, however long it is kept).',
  },
};

export const retentionUnitMs: Readonly<Record<RetentionRule['unit'], number>> = { days: dayMs, hours: hourMs };

export type RetentionDefaults = Readonly<Record<RetentionCategory, number>>;

type Env = Record<string, string | undefined>;

/** Each category's default from RETENTION_* (an integer within the category's bounds). */
export function readRetentionDefaults(env: Env, readInteger: (env: Env, name: string, fallback: number, min: number, max: number) => number): RetentionDefaults {
  const defaults = {} as Record<RetentionCategory, number>;
  for (const category of retentionCategories) {
    const rule = retentionRules[category];
    defaults[category] = readInteger(env, rule.variable, rule.fallback, rule.minimum, rule.maximum);
  }
  return Object.freeze(defaults);
}

export const retentionConfigDocumentation: ReadonlyArray<{ name: string; fallback: string; meaning: string }> = retentionCategories.map((category) => {
  const rule = retentionRules[category];
  return { name: rule.variable, fallback: String(rule.fallback), meaning: `${rule.meaning} ${rule.minimum}–${rule.maximum}; \`POST /admin/v1/retention\` overrides it.` };
});
