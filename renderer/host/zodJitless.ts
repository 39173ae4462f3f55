import { config } from 'zod/mini';

// The UI's CSP allows no eval, so zod must not compile its parsers: its probe alone reports a CSP violation. Schemas
// read this setting when they are built, so this module is imported before anything that declares one.
config({ jitless: true });
