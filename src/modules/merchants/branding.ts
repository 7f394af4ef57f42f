import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { merchantBranding, merchants } from '../../db/schema/index.ts';
import { notFound, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { buttonColorsFor, darkInk, hexColorPattern, minimumTextContrast } from './contrast.ts';
import { isLogoType, logoContentTypes, logoPath, prepareLogo, type LogoType } from './logo.ts';

export const displayNameMaxLength = 100;
const supportEmailMaxLength = 254;
const supportUrlMaxLength = 500;

/** What the merchant set; null = not set (Paysail's default is used). */
export interface BrandingSettings {
  displayName: string | null;
  brandColor: string | null;
  /** The text colour buttons get on `brandColor` (white or near-black); null with no colour. */
  buttonTextColor: string | null;
  supportEmail: string | null;
  supportUrl: string | null;
  /** `/brand/logos/<sha256>.<type>` on our origin. */
  logoUrl: string | null;
  updatedAt: Date | null;
}

/**
 * A change: what is left out is unchanged, null clears it. `logo` is the uploaded file's bytes
 * (type decided from them), or null to remove the logo.
 */
export interface BrandingChange {
  displayName?: string | null;
  brandColor?: string | null;
  supportEmail?: string | null;
  supportUrl?: string | null;
  logo?: Buffer | null;
}

/**
 * The branding as hosted pages and e-mails use it, every default filled in: the display name falls
 * back to the merchant's name, the support e-mail to the account's address (receipts always named
 * it), the colours to Paysail's.
 */
export interface Brand {
  merchantId: string;
  displayName: string;
  logoUrl: string | null;
  /** `#rrggbb` of primary buttons; null = Paysail's accent. */
  color: string | null;
  /** White or near-black: the text on `color` (contrast ≥ 4.5:1). */
  buttonTextColor: string;
  /** The focus ring: `color` when it stands out on white, else our ink. */
  focusColor: string;
  supportEmail: string;
  supportUrl: string | null;
}

/** Paysail's own accent (the hosted pages' `--accent`), used when no brand colour is set. */
export const defaultBrandColor = '#1d4ed8';

type BrandingRow = typeof merchantBranding.$inferSelect;

function logoUrlOf(row: Pick<BrandingRow, 'logoSha256' | 'logoType'> | undefined): string | null {
  return row?.logoSha256 && row.logoType && isLogoType(row.logoType) ? logoPath(row.logoSha256, row.logoType) : null;
}

function settingsOf(row: BrandingRow | undefined): BrandingSettings {
  return {
    displayName: row?.displayName ?? null,
    brandColor: row?.brandColor ?? null,
    buttonTextColor: row?.brandColor ? (buttonColorsFor(row.brandColor)?.text ?? null) : null,
    supportEmail: row?.supportEmail ?? null,
    supportUrl: row?.supportUrl ?? null,
    logoUrl: logoUrlOf(row),
    updatedAt: row?.updatedAt ?? null,
  };
}

const emailPattern = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/** Trimmed; empty means "clear" (a form's blank field), like null. */
function blankToNull(value: string | null): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/**
 * Every field checked before anything is written; the first bad one is named (`WRONG_PARAMETER`).
 * Returns the columns to write.
 */
export function validateBrandingChange(change: BrandingChange): Partial<BrandingRow> {
  const columns: Partial<BrandingRow> = {};
  if (change.displayName !== undefined) {
    const name = blankToNull(change.displayName);
    if (name !== null && (name.length > displayNameMaxLength || /\p{Cc}/u.test(name))) {
      throw wrongParameter('displayName', `must be at most ${displayNameMaxLength} characters on one line`);
    }
    columns.displayName = name;
  }
  if (change.brandColor !== undefined) {
    const color = blankToNull(change.brandColor)?.toLowerCase() ?? null;
    if (color !== null) {
      if (!hexColorPattern.test(color)) {
        throw wrongParameter('brandColor', 'must be a colour as #rrggbb, e.g. #635bff');
      }
      if (!buttonColorsFor(color)) {
        throw wrongParameter('brandColor', `is too close to mid-grey: neither white nor near-black text on it reaches a contrast of ${minimumTextContrast}:1; choose a lighter or darker shade`);
      }
    }
    columns.brandColor = color;
  }
  if (change.supportEmail !== undefined) {
    const email = blankToNull(change.supportEmail)?.toLowerCase() ?? null;
    if (email !== null && (email.length > supportEmailMaxLength || !emailPattern.test(email))) {
      throw wrongParameter('supportEmail', 'must be an e-mail address such as support@example.com');
    }
    columns.supportEmail = email;
  }
  if (change.supportUrl !== undefined) {
    const url = blankToNull(change.supportUrl);
    if (url !== null) {
      let parsed: URL | null = null;
      try {
        parsed = new URL(url);
      } catch {
        parsed = null;
      }
      if (!parsed || parsed.protocol !== 'https:' || url.length > supportUrlMaxLength || parsed.username !== '' || parsed.password !== '') {
        throw wrongParameter('supportUrl', `must be an https:// URL of at most ${supportUrlMaxLength} characters`);
      }
      columns.supportUrl = parsed.toString();
    } else {
      columns.supportUrl = null;
    }
  }
  if (change.logo !== undefined) {
    if (change.logo === null) {
      Object.assign(columns, { logo: null, logoSha256: null, logoType: null });
    } else {
      const prepared = prepareLogo(change.logo);
      Object.assign(columns, { logo: prepared.bytes, logoSha256: prepared.sha256, logoType: prepared.type });
    }
  }
  return columns;
}

/** The brand of a merchant from its row and its branding row (either query path below). */
function brandOf(merchant: { id: string; name: string; email: string }, row: Omit<BrandingRow, 'logo'> | undefined): Brand {
  const colors = buttonColorsFor(row?.brandColor ?? defaultBrandColor);
  return {
    merchantId: merchant.id,
    displayName: row?.displayName ?? merchant.name,
    logoUrl: logoUrlOf(row),
    color: row?.brandColor ?? null,
    buttonTextColor: colors?.text ?? '#ffffff',
    focusColor: row?.brandColor ? (colors?.focus ?? darkInk) : '#93c5fd',
    supportEmail: row?.supportEmail ?? merchant.email,
    supportUrl: row?.supportUrl ?? null,
  };
}

const brandColumns = {
  merchantId: merchantBranding.merchantId,
  displayName: merchantBranding.displayName,
  brandColor: merchantBranding.brandColor,
  supportEmail: merchantBranding.supportEmail,
  supportUrl: merchantBranding.supportUrl,
  logoSha256: merchantBranding.logoSha256,
  logoType: merchantBranding.logoType,
  updatedAt: merchantBranding.updatedAt,
};

/**
 * The merchant's brand, read with the caller's executor (inside an e-mail's transaction, or on a
 * page): one query, never the logo's bytes. An unknown merchant gets a neutral brand.
 */
export async function loadBrand(executor: Executor, merchantId: string): Promise<Brand> {
  const [row] = await executor
    .select({ merchant: { id: merchants.id, name: merchants.name, email: merchants.email }, branding: brandColumns })
    .from(merchants)
    .leftJoin(merchantBranding, eq(merchantBranding.merchantId, merchants.id))
    .where(eq(merchants.id, merchantId));
  if (!row) {
    return brandOf({ id: merchantId, name: 'The merchant', email: '' }, undefined);
  }
  return brandOf(row.merchant, row.branding ?? undefined);
}

export function createBrandingService(deps: { database: Database; clock: Clock }) {
  const { database, clock } = deps;

  async function requireMerchant(executor: Executor, merchantId: string): Promise<void> {
    const [merchant] = await executor.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId));
    if (!merchant) {
      throw notFound('merchant', merchantId);
    }
  }

  return {
    async getBranding(merchantId: string): Promise<BrandingSettings> {
      await requireMerchant(database.db, merchantId);
      const [row] = await database.db.select().from(merchantBranding).where(eq(merchantBranding.merchantId, merchantId));
      return settingsOf(row);
    },

    /** Validates every field first (nothing is written when one is wrong), then upserts the row. */
    async updateBranding(merchantId: string, change: BrandingChange): Promise<BrandingSettings> {
      const columns = validateBrandingChange(change);
      const now = clock.now();
      return database.transaction(async (tx) => {
        await requireMerchant(tx, merchantId);
        const [row] = await tx
          .insert(merchantBranding)
          .values({ merchantId, ...columns, updatedAt: now })
          .onConflictDoUpdate({ target: merchantBranding.merchantId, set: { ...columns, updatedAt: now } })
          .returning();
        return settingsOf(row);
      });
    },

    loadBrand(merchantId: string): Promise<Brand> {
      return loadBrand(database.db, merchantId);
    },

    /** A stored logo by its content address; null when no merchant has these bytes as its logo now. */
    async findLogo(sha256: string, type: LogoType): Promise<{ bytes: Buffer; contentType: string } | null> {
      const [row] = await database.db
        .select({ logo: merchantBranding.logo })
        .from(merchantBranding)
        .where(and(eq(merchantBranding.logoSha256, sha256), eq(merchantBranding.logoType, type)))
        .limit(1);
      return row?.logo ? { bytes: row.logo, contentType: logoContentTypes[type] } : null;
    },
  };
}

export type BrandingService = ReturnType<typeof createBrandingService>;
