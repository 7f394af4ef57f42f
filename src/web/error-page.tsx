import { Layout } from './layout.tsx';

const titles: Record<number, string> = {
  400: 'Please check your details',
  403: 'This form has expired',
  404: 'Page not found',
  409: 'This action is no longer possible',
  429: 'Too many attempts',
};

export function ErrorPage(props: { nonce: string; status: number; message: string; requestId: string }) {
  const title = titles[props.status] ?? 'Something went wrong';
  return (
    <Layout title={title} nonce={props.nonce}>
      <h1>{title}</h1>
      <div class="card" role="alert">
        <p>{props.message}</p>
        <p class="muted">Reference: {props.requestId}</p>
      </div>
    </Layout>
  );
}
