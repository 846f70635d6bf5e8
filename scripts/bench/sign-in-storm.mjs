// The storm's sign-ins, from a process of their own (scripts/bench/run.mjs starts it): building
// and sending 200 requests at once takes tens of milliseconds of CPU, and in the process that
// measures the profile's latency that time would be counted as the product's.
//
// Started with { port, emails, password } as its argument; says 'ready', signs every member in
// at once on 'go', then answers 'done' (or the first failure).
const { port, emails, password } = JSON.parse(process.argv[2]);

async function signIn(email) {
  const response = await fetch(`http://127.0.0.1:${port}/api/auth/local/login/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`sign-in: ${response.status} ${text}`);
}

process.on('message', async () => {
  try {
    await Promise.all(emails.map(signIn));
    process.send({ done: true });
  } catch (error) {
    process.send({ error: String(error) });
  }
});
process.send('ready');
