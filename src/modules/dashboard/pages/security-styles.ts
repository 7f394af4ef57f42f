/** The Account › Security pages: sub-navigation, the enrolment QR code, recovery codes, code inputs. */
export const securityStyles = `
.subnav { display: flex; gap: 0.25rem 1rem; flex-wrap: wrap; margin: 0 0 1rem; padding: 0; list-style: none; border-bottom: 1px solid var(--line); }
.subnav a { display: block; padding: 0.4rem 0.1rem; text-decoration: none; color: var(--muted); font-weight: 600; border-bottom: 3px solid transparent; }
.subnav a[aria-current="page"] { color: var(--ink); border-bottom-color: var(--accent); }
.enrol { display: grid; gap: 1rem 1.5rem; grid-template-columns: 12rem 1fr; align-items: start; }
.qr { width: 12rem; height: 12rem; padding: 0.6rem; background: #fff; border: 1px solid var(--line); border-radius: 8px; }
.qr svg { width: 100%; height: 100%; display: block; }
@media (max-width: 40rem) { .enrol { grid-template-columns: 1fr; } .qr { margin: 0 auto; } }
.recovery-codes { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 0.4rem 1.5rem; list-style: none; padding: 1rem; margin: 0; background: #f1f5f9; border-radius: 8px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 1.05rem; }
input.one-time-code { max-width: 12rem; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 1.25rem; letter-spacing: 0.15em; }
.status-line { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; justify-content: space-between; }
.status-line p { margin: 0; flex: 1 1 20rem; }
.status-line button, .status-line .button { width: auto; margin: 0; padding: 0.55rem 1.2rem; }
.security-card > p:first-child { margin-top: 0; }
input.one-time-code { display: block; }
.enrol .secret { word-break: normal; overflow-wrap: anywhere; word-spacing: 0.2em; }
.after-codes { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; margin-top: 1rem; }
.after-codes .button { width: auto; margin: 0; padding: 0.6rem 1.4rem; }
`;
