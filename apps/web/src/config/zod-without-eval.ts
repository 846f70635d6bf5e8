// Zod speeds up object schemas with code it compiles by `new Function`, after probing whether the
// page allows eval. This site's Content-Security-Policy does not, and the browser reports even the
// caught probe as a violation. Jitless mode skips both; it has to be set before the first schema
// is made, so main.tsx imports this module first.
import { config } from 'zod';

config({ jitless: true });
