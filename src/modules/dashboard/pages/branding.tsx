import type { BrandingSettings } from '../../merchants/index.ts';
import { logoMaxBytes } from '../../merchants/index.ts';
import { buttonColorsFor } from '../../merchants/index.ts';
import { modePath } from '../paths.ts';
import { CsrfField } from './components.tsx';
import { DashboardPage, type Frame } from './layout.tsx';

export type BrandingField = 'displayName' | 'brandColor' | 'supportEmail' | 'supportUrl' | 'logo';

export const brandingFieldLabels: Record<BrandingField, string> = {
  displayName: 'Display name',
  brandColor: 'Brand colour',
  supportEmail: 'Support e-mail',
  supportUrl: 'Support URL',
  logo: 'Logo',
};

/** What the form shows: the saved settings, or what was just sent with the problem found in it. */
export interface BrandingFormState {
  values: Record<Exclude<BrandingField, 'logo'>, string>;
  errors: Partial<Record<BrandingField, string>>;
}

export function brandingFormValues(settings: BrandingSettings): BrandingFormState['values'] {
  return {
    displayName: settings.displayName ?? '',
    brandColor: settings.brandColor ?? '',
    supportEmail: settings.supportEmail ?? '',
    supportUrl: settings.supportUrl ?? '',
  };
}

const styles = `
.branding { display: grid; gap: 1.5rem; grid-template-columns: minmax(0, 34rem) minmax(0, 1fr); align-items: start; }
@media (max-width: 60rem) { .branding { grid-template-columns: 1fr; } }
.branding .hint { font-size: 0.9rem; color: var(--muted); margin: 0.25rem 0 0; }
.branding .field-error { color: var(--bad); font-weight: 600; margin: 0.25rem 0 0; }
.branding input[aria-invalid="true"] { border-color: var(--bad); border-width: 2px; }
.color-row { display: flex; gap: 0.5rem; align-items: center; }
.color-row input[type="color"] { width: 3rem; height: 2.75rem; padding: 0.15rem; flex: none; }
.current-logo { display: flex; gap: 1rem; align-items: center; margin: 0.5rem 0; }
.current-logo img { max-height: 48px; max-width: 180px; border: 1px solid var(--line); border-radius: 6px; padding: 4px; background: #fff; }
.preview { background: var(--bg); border: 1px solid var(--line); border-radius: 12px; padding: 1rem; }
.preview-head { display: flex; gap: 0.6rem; align-items: center; font-weight: 700; }
.preview-head img { max-height: 32px; max-width: 120px; }
.preview-button { display: block; width: 100%; margin-top: 1rem; padding: 0.8rem 1rem; border-radius: 8px; font-weight: 600; text-align: center; }
`;

/**
 * Updates the preview button as the merchant types or picks a colour: the same rule as the server
 * (WCAG contrast; white or near-black text, whichever is higher; below 4.5:1 the colour is refused).
 * Without script the preview shows the saved colour and the server still checks.
 */
const previewScript = `(function(){
var text=document.getElementById('brandColor'),picker=document.getElementById('brandColorPicker'),button=document.getElementById('preview-button'),note=document.getElementById('preview-contrast');
if(!text||!button){return;}
function lum(h){return [1,3,5].map(function(i){var c=parseInt(h.substr(i,2),16)/255;return c<=0.04045?c/12.92:Math.pow((c+0.055)/1.055,2.4);}).reduce(function(s,c,i){return s+c*[0.2126,0.7152,0.0722][i];},0);}
function ratio(a,b){var x=lum(a),y=lum(b);return (Math.max(x,y)+0.05)/(Math.min(x,y)+0.05);}
function show(){var v=(text.value||'').trim().toLowerCase();if(!/^#[0-9a-f]{6}$/.test(v)){v='#1d4ed8';}
var w=ratio(v,'#ffffff'),d=ratio(v,'#0f172a'),ink=w>=d?'#ffffff':'#0f172a',best=Math.max(w,d);
button.style.background=v;button.style.color=ink;
note.textContent=best>=4.5?'Text contrast '+best.toFixed(1)+':1 (with '+(ink==='#ffffff'?'white':'dark')+' text).':'Contrast '+best.toFixed(1)+':1 is below 4.5:1: choose a lighter or darker shade.';
if(picker&&/^#[0-9a-f]{6}$/.test(v)){picker.value=v;}}
text.addEventListener('input',show);
if(picker){picker.addEventListener('input',function(){text.value=picker.value;show();});}
show();})();`;

function FieldProblem(props: { field: BrandingField; errors: BrandingFormState['errors'] }) {
  const message = props.errors[props.field];
  return message ? (
    <p class="field-error" id={`${props.field}-error`}>
      {message}
    </p>
  ) : null;
}

function described(field: BrandingField, errors: BrandingFormState['errors']): string {
  return errors[field] ? `${field}-hint ${field}-error` : `${field}-hint`;
}

export function BrandingPage(props: { frame: Frame; settings: BrandingSettings; state: BrandingFormState; notice?: string | undefined }) {
  const { frame, settings, state } = props;
  const { values, errors } = state;
  const invalid = (field: BrandingField) => (errors[field] ? 'true' : undefined);
  const previewColor = /^#[0-9a-f]{6}$/.test(values.brandColor) ? values.brandColor : '#1d4ed8';
  // Both hex colours checked above or computed from one: safe inside the nonce'd style element (CSP refuses style attributes).
  const previewInk = buttonColorsFor(previewColor)?.text ?? '#ffffff';
  const errorEntries = Object.entries(errors) as Array<[BrandingField, string]>;
  return (
    <DashboardPage frame={frame} section="branding" title="Branding" notice={props.notice}>
      <style nonce={frame.nonce} dangerouslySetInnerHTML={{ __html: `${styles}#preview-button { background: ${previewColor}; color: ${previewInk}; }` }} />
      <h1>Branding</h1>
      <p class="muted">How your business appears to customers on hosted checkout and payout pages, and in the e-mails Paysail sends for you. It applies to both modes.</p>
      {errorEntries.length > 0 ? (
        <div class="error-summary" role="alert" tabindex={-1} id="branding-problems">
          <p class="error">Nothing was saved. Please correct the following:</p>
          <ul>
            {errorEntries.map(([field, message]) => (
              <li>
                <a href={`#${field}`}>
                  {brandingFieldLabels[field]}: {message}
                </a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div class="branding">
        <form method="post" action={modePath(frame.mode, '/settings/branding')} enctype="multipart/form-data" class="card" aria-labelledby="branding-form-heading" novalidate>
          <h2 id="branding-form-heading" class="visually-hidden">
            Branding settings
          </h2>
          <CsrfField token={frame.csrfToken} />
          <label for="displayName">{brandingFieldLabels.displayName}</label>
          <input id="displayName" name="displayName" maxlength={100} value={values.displayName} placeholder={frame.merchantName} aria-invalid={invalid('displayName')} aria-describedby={described('displayName', errors)} />
          <p class="hint" id="displayName-hint">
            Up to 100 characters. Empty: your account name, “{frame.merchantName}”.
          </p>
          <FieldProblem field="displayName" errors={errors} />

          <label for="brandColor">{brandingFieldLabels.brandColor}</label>
          <div class="color-row">
            <input type="color" id="brandColorPicker" value={previewColor} aria-label="Pick the brand colour" tabindex={-1} />
            <input id="brandColor" name="brandColor" maxlength={7} value={values.brandColor} placeholder="#635bff" autocomplete="off" spellcheck={false} aria-invalid={invalid('brandColor')} aria-describedby={described('brandColor', errors)} />
          </div>
          <p class="hint" id="brandColor-hint">
            As #rrggbb. Buttons and focus rings use it; their text is white or near-black, whichever reads better. A colour on which neither reaches a contrast of 4.5:1 is refused.
          </p>
          <FieldProblem field="brandColor" errors={errors} />

          <label for="supportEmail">{brandingFieldLabels.supportEmail}</label>
          <input id="supportEmail" name="supportEmail" type="email" maxlength={254} value={values.supportEmail} autocomplete="off" aria-invalid={invalid('supportEmail')} aria-describedby={described('supportEmail', errors)} />
          <p class="hint" id="supportEmail-hint">
            Shown in the footer of hosted pages and in e-mails. Empty: your account's address.
          </p>
          <FieldProblem field="supportEmail" errors={errors} />

          <label for="supportUrl">{brandingFieldLabels.supportUrl}</label>
          <input id="supportUrl" name="supportUrl" type="url" maxlength={500} value={values.supportUrl} placeholder="https://example.com/help" autocomplete="off" aria-invalid={invalid('supportUrl')} aria-describedby={described('supportUrl', errors)} />
          <p class="hint" id="supportUrl-hint">
            An https:// page where customers get help. Optional.
          </p>
          <FieldProblem field="supportUrl" errors={errors} />

          <label for="logo">{brandingFieldLabels.logo}</label>
          {settings.logoUrl ? (
            <div class="current-logo">
              <img src={settings.logoUrl} alt="Current logo" />
              <label class="choice">
                <input type="checkbox" name="removeLogo" value="yes" /> Remove the logo
              </label>
            </div>
          ) : null}
          <input id="logo" name="logo" type="file" accept="image/png,image/jpeg,image/svg+xml" aria-invalid={invalid('logo')} aria-describedby={described('logo', errors)} />
          <p class="hint" id="logo-hint">
            PNG, JPEG or SVG, at most {logoMaxBytes / 1024} KiB; about 40 px high on the pages. SVG files are cleaned of scripts and external references. Leave empty to keep the current logo.
          </p>
          <FieldProblem field="logo" errors={errors} />

          <button type="submit">Save branding</button>
        </form>
        <section class="card" aria-labelledby="preview-heading">
          <h2 id="preview-heading">Preview</h2>
          <div class="preview">
            <div class="preview-head">
              {settings.logoUrl ? <img src={settings.logoUrl} alt="" /> : null}
              <span>{values.displayName || frame.merchantName}</span>
            </div>
            <p class="amount">$25.00</p>
            <span class="preview-button" id="preview-button" aria-hidden="true">
              Pay $25.00
            </span>
          </div>
          <p class="hint" id="preview-contrast" aria-live="polite"></p>
        </section>
      </div>
      <script nonce={frame.nonce} dangerouslySetInnerHTML={{ __html: previewScript }} />
    </DashboardPage>
  );
}
