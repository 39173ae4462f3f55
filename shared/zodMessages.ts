import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * The schemas use zod's functional build (`zod/mini`): a process pays only for the checks it uses, where the
 * method-chaining build costs a few MiB at start. That build leaves messages generic ("Invalid input"), so every
 * module that declares schemas imports this one first, and errors keep naming what was expected and what came.
 */
config(en());
