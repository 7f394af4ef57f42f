import { Type } from 'typebox';
import { StatusWatch, statusWatchScript, statusWatchStyles } from '../../status-watch.tsx';
import type { Child } from 'hono/jsx';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../../../http/types.ts';
import { AppError } from '../../../http/errors.ts';
import { Layout } from '../../layout.tsx';
import type { RenderOptions, WebTools } from '../../scope.ts';
import type { CapturedDocuments, KycService, StepUpCapture } from '../../../modules/kyc/index.ts';
import { formatAmount, type PayoutPageRow } from '../../../modules/payout-pages/index.ts';
import { pageStyles, type PageSummary } from './views.tsx';

/**
 * The document step-up on the hosted payout page: when the identity provider cannot confirm the
 * customer from their data, the page (KYC_IN_REVIEW) asks for an identity document and a selfie.
 * Live: the provider's web SDK (Onfido) captures and uploads them straight to the provider; the
 * page then posts the upload ids here, the provider confirms it holds them, and the document +
 * facial-similarity check starts. Sandbox: a plain form of test documents (no image), no
 * JavaScript needed. Then "we're checking your documents", refreshing itself until the decision
 * moves the page (the usual status views show the outcome).
 */

const PageParams = Type.Object({ payoutPageId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
const refreshSeconds = 5;
const idPattern = /^[A-Za-z0-9_-]{1,100}$/;

export type StepUpStage = 'CAPTURE' | 'CHECKING';

const stepUpStyles = `
.capture { min-height: 12rem; }
.capture h2 { margin-top: 0; }
.choices { list-style: none; padding: 0; margin: 0; }
.choices li { border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem; margin: 0.5rem 0; }
.choices label { display: flex; gap: 0.75rem; align-items: flex-start; margin: 0; font-weight: 600; cursor: pointer; }
.choices input { width: auto; margin-top: 0.3rem; }
.choices .hint { display: block; font-weight: 400; }
.test-documents fieldset { border: 0; margin: 0; padding: 0; }
.test-documents legend { padding: 0; font-size: 1.05rem; }
.steps { padding-left: 1.25rem; }
.steps li { margin: 0.25rem 0; }
.spinner { width: 2.5rem; height: 2.5rem; border-radius: 50%; border: 4px solid #bfdbfe; border-top-color: var(--accent); margin: 0.5rem auto 1rem; animation: spin 1s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
`;

function StepUpShell(props: { nonce: string; title: string; summary: PageSummary; children?: Child; script?: string }) {
  const amount = formatAmount(props.summary.amount, props.summary.currency);
  return (
    <Layout
      title={`${props.title} · ${props.summary.merchantName}`}
      nonce={props.nonce}
      brand={props.summary.brand}
      styles={pageStyles + stepUpStyles + statusWatchStyles}
      {...(props.script ? { script: props.script } : {})}
    >
      {props.summary.livemode ? null : (
        <p class="sandbox" role="note">
          Sandbox: no real money moves.
        </p>
      )}
      <p class="amount" aria-label={`Amount: ${amount}`}>
        {amount}
      </p>
      {props.children}
    </Layout>
  );
}

function Intro(props: { summary: PageSummary }) {
  return (
    <>
      <h1>Verify your identity with a photo ID</h1>
      <p>We couldn’t confirm your identity from the details on file. Before {props.summary.merchantName} can pay you, please show an identity document and take a selfie. It takes about two minutes.</p>
    </>
  );
}

function ErrorNote(props: { error: string | null }) {
  return props.error ? (
    <p class="error-summary error" role="alert">
      {props.error}
    </p>
  ) : null;
}

function DeclineLink(props: { id: string }) {
  return (
    <p class="links">
      <a href={`/payout-page/${props.id}?step=decline`}>I don’t want this payout</a>
    </p>
  );
}

/** Sandbox: test documents with known outcomes; a plain form, no JavaScript, no image. */
export function TestDocumentsPage(props: { nonce: string; summary: PageSummary; csrfToken: string; documents: Extract<StepUpCapture, { kind: 'TEST_DOCUMENTS' }>['documents']; error: string | null }) {
  const { summary } = props;
  return (
    <StepUpShell nonce={props.nonce} title="Verify your identity" summary={summary}>
      <Intro summary={summary} />
      <ErrorNote error={props.error} />
      <form method="post" action={`/payout-page/${summary.id}/documents`} class="card test-documents">
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <fieldset>
          <legend>Sandbox: choose a test document</legend>
          <p class="hint">No photo is taken or stored in sandbox. Each test document decides the check.</p>
          <ul class="choices">
            {props.documents.map((document, index) => (
              <li>
                <label>
                  <input type="radio" name="testDocument" value={document.value} required {...(index === 0 ? { checked: true } : {})} />
                  <span>
                    {document.label}
                    <span class="hint">{document.hint}</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <button type="submit">Submit document</button>
      </form>
      <DeclineLink id={summary.id} />
    </StepUpShell>
  );
}

/**
 * Live: the provider's web SDK renders the capture in `#onfido-mount`. It needs JavaScript (the
 * camera is used in the browser and the photos go straight to the provider); without it the page
 * says so. On completion the ids go to our server in a plain form post.
 */
export function SdkCapturePage(props: { nonce: string; summary: PageSummary; csrfToken: string; capture: Extract<StepUpCapture, { kind: 'SDK' }>; error: string | null }) {
  const { summary } = props;
  return (
    <StepUpShell nonce={props.nonce} title="Verify your identity" summary={summary} script={sdkBootstrap}>
      <Intro summary={summary} />
      <ol class="steps">
        <li>Take a photo of your passport, driving licence or national ID card.</li>
        <li>Take a selfie, so we can match it with the photo on your document.</li>
      </ol>
      <ErrorNote error={props.error} />
      <noscript>
        <p class="notice">Taking the photos needs JavaScript: your camera is used in this browser and the photos go straight to Onfido, our identity verification partner. Please turn JavaScript on and reload this page, or open the link on your phone.</p>
      </noscript>
      <div id="step-up-capture" class="card capture" hidden>
        <p id="step-up-loading" class="muted">
          Loading the camera step…
        </p>
        <p id="step-up-error" class="error" role="alert" hidden>
          The camera step could not start. Please reload the page to try again.
        </p>
        <div id="onfido-mount" data-token={props.capture.token} />
      </div>
      <form id="step-up-done" method="post" action={`/payout-page/${summary.id}/documents`} hidden>
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <input type="hidden" name="documentId" value="" />
        <input type="hidden" name="faceId" value="" />
      </form>
      <p class="hint">Your photos go directly to Onfido, our identity verification partner, and are used only to verify your identity; {summary.merchantName} doesn’t see them.</p>
      <script nonce={props.nonce} src={props.capture.scriptUrl} />
      <DeclineLink id={summary.id} />
    </StepUpShell>
  );
}

/** Starts the SDK once its script has loaded (the script element precedes this one). */
const sdkBootstrap = `(function () {
  var mount = document.getElementById('onfido-mount');
  var form = document.getElementById('step-up-done');
  var loading = document.getElementById('step-up-loading');
  var failure = document.getElementById('step-up-error');
  document.getElementById('step-up-capture').hidden = false;
  function fail() { loading.hidden = true; failure.hidden = false; }
  if (!window.Onfido || !mount || !form) { fail(); return; }
  loading.hidden = true;
  window.Onfido.init({
    token: mount.getAttribute('data-token'),
    containerId: 'onfido-mount',
    steps: ['welcome', 'document', 'face', 'complete'],
    onComplete: function (data) {
      form.elements.documentId.value = data.document_front.id;
      form.elements.faceId.value = data.face.id;
      form.submit();
    },
    onError: fail,
  });
})();`;

export function CheckingDocumentsPage(props: { nonce: string; summary: PageSummary }) {
  const { summary } = props;
  return (
    <StepUpShell nonce={props.nonce} title="Checking your documents" summary={summary} script={statusWatchScript}>
      <h1>We’re checking your documents</h1>
      <div class="card" role="status">
        <div class="spinner" aria-hidden="true" />
        <p class="status">Checking your identity document and selfie</p>
        <p>This usually takes a few minutes. You can close this page: we’ll e-mail you when your payout moves on.</p>
      </div>
      <StatusWatch href={`/payout-page/${summary.id}`} statusKey="checking-documents" seconds={refreshSeconds} />
    </StepUpShell>
  );
}

function capturedFrom(body: Record<string, unknown>): CapturedDocuments | null {
  const { testDocument, documentId, faceId } = body;
  if (typeof testDocument === 'string' && idPattern.test(testDocument)) {
    return { testDocument };
  }
  if (typeof documentId === 'string' && typeof faceId === 'string' && idPattern.test(documentId) && idPattern.test(faceId)) {
    return { documentId, faceId };
  }
  return null;
}

/**
 * The step-up's part of the payout page routes: which stage a page is in, its views, and
 * `POST /payout-page/:id/documents`. The page's own routes (routes.tsx) call `stageOf` and `render`.
 */
export function createPayoutStepUp<Loaded extends { page: PayoutPageRow }>(
  web: Api,
  tools: WebTools,
  deps: {
    kyc: Pick<KycService, 'stepUpStage' | 'stepUpCapture' | 'submitDocuments'>;
    publicUrl: string;
    csrfScope: (id: string) => string;
    load: (id: string) => Promise<Loaded>;
    summaryOf: (loaded: Loaded) => PageSummary;
    renderOptions: (page: PayoutPageRow, status?: number) => RenderOptions;
    isVerified: (request: FastifyRequest, id: string) => Promise<boolean>;
  },
) {
  const { kyc } = deps;
  // Onfido binds SDK tokens to a referrer pattern; the page sends only its origin (strict-origin).
  const referrer = `${new URL(deps.publicUrl).origin}/*`;

  async function current(page: PayoutPageRow) {
    return page.status === 'PENDING' && page.subStatus === 'KYC_IN_REVIEW' ? kyc.stepUpStage(page.customerId) : null;
  }

  async function renderCapture(request: FastifyRequest, reply: FastifyReply, loaded: Loaded, verification: { livemode: boolean; providerApplicantId: string | null }, error: string | null, status = 200): Promise<FastifyReply | null> {
    const capture = await kyc.stepUpCapture(verification, referrer);
    if (!capture) {
      return null;
    }
    const summary = deps.summaryOf(loaded);
    const csrfToken = tools.csrf.issue(request, reply, deps.csrfScope(loaded.page.id));
    const options = deps.renderOptions(loaded.page, status);
    if (capture.kind === 'TEST_DOCUMENTS') {
      return tools.render(reply, (nonce) => TestDocumentsPage({ nonce, summary, csrfToken, documents: capture.documents, error }), options);
    }
    return tools.render(reply, (nonce) => SdkCapturePage({ nonce, summary, csrfToken, capture, error }), { ...options, sources: capture.sources, referrerPolicy: 'strict-origin' });
  }

  web.post('/payout-page/:payoutPageId/documents', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!tools.csrf.verify(request, deps.csrfScope(id), body._csrf)) {
      throw new AppError('FORBIDDEN', 'This form has expired or did not come from the payout page. Go back, reload the page and try again.');
    }
    if (!(await deps.isVerified(request, id))) {
      return reply.redirect(`/payout-page/${id}?notice=session_expired`, 303);
    }
    const loaded = await deps.load(id);
    const stage = await current(loaded.page);
    if (stage?.stage !== 'CAPTURE') {
      return reply.redirect(`/payout-page/${id}`, 303);
    }
    const captured = capturedFrom(body);
    const outcome = captured ? await kyc.submitDocuments(stage.verification.id, captured) : 'CAPTURE_MISSING';
    if (outcome === 'CAPTURE_MISSING') {
      const message = 'We didn’t receive your document and selfie. Please try again.';
      return (await renderCapture(request, reply, loaded, stage.verification, message, 400)) ?? reply.redirect(`/payout-page/${id}`, 303);
    }
    return reply.redirect(`/payout-page/${id}`, 303);
  });

  return {
    /** The page's step-up stage: `CAPTURE` (the customer is asked for documents), `CHECKING`, or null. */
    async stageOf(page: PayoutPageRow): Promise<StepUpStage | null> {
      return (await current(page))?.stage ?? null;
    },

    /**
     * The step-up view for this visit, or null when none applies: "checking" for anyone with the
     * link (it shows nothing stored); the capture only after the e-mailed code was entered.
     */
    async render(request: FastifyRequest, reply: FastifyReply, loaded: Loaded, verified: boolean): Promise<FastifyReply | null> {
      const stage = await current(loaded.page);
      if (stage?.stage === 'CHECKING') {
        const summary = deps.summaryOf(loaded);
        return tools.render(reply, (nonce) => CheckingDocumentsPage({ nonce, summary }), deps.renderOptions(loaded.page));
      }
      if (stage?.stage === 'CAPTURE' && verified) {
        return renderCapture(request, reply, loaded, stage.verification, null);
      }
      return null;
    },
  };
}
