// The one-click unsubscribe of the mails a member may stop (RFC 8058), in a file of its own: only
// the unsubscribe page loads it, so no other page of the web app carries its bytes.
import * as z from 'zod/mini';

/**
 * A signed unsubscribe link's token (the reminder mails' List-Unsubscribe): it names the member
 * and what it turns off, so no session is needed (RFC 8058).
 */
export const UnsubscribeQuerySchema = z.object({
  token: z.string().check(z.minLength(1), z.maxLength(200)),
});
export type UnsubscribeQuery = z.infer<typeof UnsubscribeQuerySchema>;

export const unsubscribeMessages = {
  done: 'You will no longer get an email before your premium ends.',
  invalidLink:
    'This unsubscribe link is not valid. You can turn reminders off in Account Settings.',
  noAccount: 'The account of this unsubscribe link no longer exists.',
};
