// How zod words a missing value, for every schema of the process: zod 4 says what it expected
// ("Invalid option: expected one of …", "Invalid input: expected string, received undefined"), which
// reads as if a wrong value had been sent. A value that is absent is "Required"; a value that is
// present but wrong keeps zod's own message, and a schema's own message always wins over this one.
// Imported for its effect by src/config/config.ts (loaded first by the server, the CLI and scripts)
// and by the server; importing it again changes nothing.
import { z } from 'zod';

export const REQUIRED_MESSAGE = 'Required';

z.config({ customError: (issue) => (issue.input === undefined ? REQUIRED_MESSAGE : undefined) });
