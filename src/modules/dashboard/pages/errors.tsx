import { dashboardPrefix, modePath } from '../paths.ts';
import { DashboardPage, PlainPage, type Frame } from './layout.tsx';

const titles: Record<number, string> = {
  400: 'Please check what you entered',
  401: 'Please sign in',
  403: 'This action is not allowed',
  404: 'Not found',
  409: 'This action is no longer possible',
  413: 'This form is too large',
  429: 'Too many attempts',
};

function NextSteps(props: { status: number; mode: string | null }) {
  const home = props.mode ? modePath(props.mode === 'live' ? 'live' : 'sandbox') : dashboardPrefix;
  switch (props.status) {
    case 403:
      return (
        <p>
          If you were submitting a form, it may have expired: go back, reload the page and try again. Or <a href={home}>go to the overview</a>.
        </p>
      );
    case 404:
      return (
        <p>
          Check the address, or <a href={home}>go to the overview</a> and find it from the lists there.
        </p>
      );
    case 409:
      return <p>Go back and reload the page to see the current status.</p>;
    case 413:
      return <p>Go back and send the form again with fewer or smaller files, or shorter values.</p>;
    case 429:
      return <p>Wait a minute, then try again.</p>;
    case 400:
      return <p>Go back, correct the form and send it again.</p>;
    default:
      return (
        <p>
          Try again in a moment, or <a href={home}>go to the overview</a>. If it keeps happening, give your operator the reference below.
        </p>
      );
  }
}

export function DashboardErrorPage(props: { frame: Frame | null; nonce: string; status: number; message: string; requestId: string }) {
  const title = titles[props.status] ?? 'Something went wrong';
  const body = (
    <>
      <h1>{title}</h1>
      <div class="card" role="alert">
        <p>{props.message}</p>
        <NextSteps status={props.status} mode={props.frame?.mode ?? null} />
        <p class="muted">Reference: {props.requestId}</p>
      </div>
    </>
  );
  if (props.frame) {
    return (
      <DashboardPage frame={props.frame} section={null} title={title}>
        {body}
      </DashboardPage>
    );
  }
  return (
    <PlainPage title={title} nonce={props.nonce}>
      {body}
    </PlainPage>
  );
}
