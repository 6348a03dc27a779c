import { z } from 'zod';
import { defineMessage } from '@bedrequest/contracts';

/** The reply the messaging tests' consumer sends to a TestJob request. */
export const TestJobDoneV1 = defineMessage('test.job-done', 1, z.object({ doubled: z.number().int() }));
