// "I bought on my iPhone": the claim of an App Store purchase by the order id of Apple's receipt
// email. A file of its own: the web loads it with the claim form alone, after Purchase History,
// while payments.ts is in the checkout page's first JavaScript.
import * as z from 'zod/mini';

/** Apple's order ids, as its receipt email shows them ("Order ID: MK5TTTVWJH"). */
export const APPLE_ORDER_ID_PATTERN = /^[A-Z0-9]{10,12}$/;

export const appStoreClaimMessages = {
  orderIdInvalid: 'Order ID must be 10 to 12 letters and digits, like MK5TTTVWJH',
} as const;

/**
 * "I bought on my iPhone": the order id of Apple's receipt email, typed by the member. Spaces
 * around it are dropped and letters upper-cased: the email shows it in capitals, people type it
 * as they like.
 */
export const AppStoreClaimRequestSchema = z.object({
  orderId: z
    .string({ error: appStoreClaimMessages.orderIdInvalid })
    .check(
      z.trim(),
      z.toUpperCase(),
      z.regex(APPLE_ORDER_ID_PATTERN, appStoreClaimMessages.orderIdInvalid),
    ),
});
export type AppStoreClaimRequest = z.infer<typeof AppStoreClaimRequestSchema>;
