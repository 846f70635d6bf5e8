// The development clock's page: the server's now, and a form to move it forward.
export const DEV_CLOCK_PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;margin:32px;color:#1b2733;max-width:40em}form{display:inline-block;margin:0 8px 8px 0}button{padding:6px 12px}input{width:6em;padding:5px}';

const STEPS = [
  { label: '+1 hour', seconds: 60 * 60 },
  { label: '+1 day', seconds: 24 * 60 * 60 },
  { label: '+4 days', seconds: 4 * 24 * 60 * 60 },
];

export function devClockPage(now: Date): string {
  const buttons = STEPS.map(
    ({ label, seconds }) =>
      `<form method="post" action="/dev/clock"><input type="hidden" name="advanceSeconds" value="${seconds}"><button type="submit">${label}</button></form>`,
  ).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Development clock</title>
<style>${DEV_CLOCK_PAGE_STYLE}</style></head>
<body><h1>Development clock</h1>
<p>The server's time: <strong><time datetime="${now.toISOString()}">${now.toISOString().replace('T', ' ').slice(0, 19)} UTC</time></strong></p>
<p>Moving it forward moves everything that reads the time: premium end dates, session and token lifetimes, the jobs, and the Stripe and App Store sandboxes (subscriptions renew or expire as their periods pass). It never moves back; it is kept across restarts.</p>
${buttons}
<form method="post" action="/dev/clock"><label>Custom: <input type="number" name="advanceHours" min="0.01" step="any" required> hours</label> <button type="submit">Move forward</button></form>
<p><a href="/dev/inbox">Local inbox</a> · <a href="/dev/app-store">App Store sandbox</a></p>
</body></html>`;
}
