// Input shapes of the identity routes that several areas take (registration, account, users).
import { z } from 'zod';

export const passwordSchema = z.string().min(8, 'at least 8 characters').max(512);
