// The one story every example tells, so that they agree with each other: Alex registers on 2
// November 2026, buys 1 Month on the web (Stripe) the next day, turns two-step sign-in on, adds a
// passkey, buys 1 Week in the iPhone app (App Store) on 20 November, and on 25 November Sam of
// the support team grants him 7 days after an outage. "Now" is the morning of 26 November.
// Every token and id here is shaped like the real one and is no secret of any server: the JWTs'
// signatures are random bytes, and so are the codes.

// --- the member ---------------------------------------------------------------------------------

export const MEMBER_ID = '5f0c2a9e-8b1d-4c3e-9a57-2d4e6f8b1c03';
export const MEMBER_EMAIL = 'alex@example.com';
/** The address he moves his account to (confirmEmailChange). */
export const MEMBER_NEW_EMAIL = 'alex.rivera@example.com';
/** A password of his (he types it; the API keeps only its hash). */
export const MEMBER_PASSWORD = 'velvet-otter-lantern-58';
export const MEMBER_NEW_PASSWORD = 'quiet-fjord-copper-93';

export const REGISTERED_AT = '2026-11-02T09:14:27.512Z';
export const EMAIL_VERIFIED_AT = '2026-11-02T09:16:03.221Z';
export const TWO_STEP_ON_AT = '2026-11-05T20:11:48.904Z';
/** The moment of the examples' calls. */
export const NOW = '2026-11-26T10:05:00.000Z';

// --- his sessions and tokens --------------------------------------------------------------------

/** The session making the calls: Chrome on his Mac, signed in with his password. */
export const SESSION_ID = 'c41d7e02-6a3b-4f9e-b8d5-0e9f27a3c6b1';
export const SESSION_STARTED_AT = '2026-11-05T20:09:31.552Z';
/** Another session of his: Safari on his iPhone, begun with the passkey. */
export const PHONE_SESSION_ID = '550351d7-9112-4b23-b970-8bdcc161d4eb';
export const PHONE_SESSION_STARTED_AT = '2026-11-20T08:27:40.118Z';
export const PHONE_SESSION_LAST_USED_AT = '2026-11-25T21:40:09.655Z';

/**
 * An access token of the session (HS256; `sub` the member, `sid` the session, 15 minutes), the
 * bearer token of every signed-in call.
 */
export const ACCESS_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOiJjNDFkN2UwMi02YTNiLTRmOWUtYjhkNS0wZTlmMjdhM2M2YjEiLCJ0eXAiOiJhY2Nlc3MiLCJzdWIiOiI1ZjBjMmE5ZS04YjFkLTRjM2UtOWE1Ny0yZDRlNmY4YjFjMDMiLCJpc3MiOiJrZWdlbC1jb2FjaCIsImF1ZCI6ImtlZ2VsLWNvYWNoOmFjY2VzcyIsImlhdCI6MTc5NTY4NzUwMCwiZXhwIjoxNzk1Njg4NDAwfQ.y5KcAMmsgybmkEtrz1msodaJXcbCgdZbV8iVAx3seqI';
/** Its refresh token (`jti` the secret the server keeps a hash of). */
export const REFRESH_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOiJjNDFkN2UwMi02YTNiLTRmOWUtYjhkNS0wZTlmMjdhM2M2YjEiLCJ0eXAiOiJyZWZyZXNoIiwianRpIjoiVW92bmVzRTB5QzRkblJ6czJrcHdfZXNvaGEzN0lQd3huU19OQkthdUx1USIsImlzcyI6ImtlZ2VsLWNvYWNoIiwiYXVkIjoia2VnZWwtY29hY2g6cmVmcmVzaCIsImV4cCI6MTc5ODI3OTUwMH0.a0lbx7rZE5t19HNjtczRlbqOUF2fPJdh3W6Hil8lwCE';
/** The pair a refresh gives for REFRESH_TOKEN, 15 minutes later (the old one is spent). */
export const RENEWED_ACCESS_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOiJjNDFkN2UwMi02YTNiLTRmOWUtYjhkNS0wZTlmMjdhM2M2YjEiLCJ0eXAiOiJhY2Nlc3MiLCJzdWIiOiI1ZjBjMmE5ZS04YjFkLTRjM2UtOWE1Ny0yZDRlNmY4YjFjMDMiLCJpc3MiOiJrZWdlbC1jb2FjaCIsImF1ZCI6ImtlZ2VsLWNvYWNoOmFjY2VzcyIsImlhdCI6MTc5NTY4ODQwMCwiZXhwIjoxNzk1Njg5MzAwfQ.3_hzo9JEDMMBbP7D-LSTqzMTVdV29s19h1jwMwUWsdI';
export const RENEWED_REFRESH_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOiJjNDFkN2UwMi02YTNiLTRmOWUtYjhkNS0wZTlmMjdhM2M2YjEiLCJ0eXAiOiJyZWZyZXNoIiwianRpIjoiVUd0bVd0ZktMTWh5T3NPcnlCOGxFbUJpaUdmdmszQ1hIdnhmVGtGTmxHMCIsImlzcyI6ImtlZ2VsLWNvYWNoIiwiYXVkIjoia2VnZWwtY29hY2g6cmVmcmVzaCIsImV4cCI6MTc5ODI4MDQwMH0.BAcqLLxSuwUpjC94SO5cYrULeHEOpRZbXYsd_rEebec';

export const TOKEN_PAIR = { accessToken: ACCESS_TOKEN, refreshToken: REFRESH_TOKEN };
/** The pair his passkey sign-in on his iPhone gave (PHONE_SESSION_ID). */
export const PHONE_TOKEN_PAIR = {
  accessToken:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOiI1NTAzNTFkNy05MTEyLTRiMjMtYjk3MC04YmRjYzE2MWQ0ZWIiLCJ0eXAiOiJhY2Nlc3MiLCJzdWIiOiI1ZjBjMmE5ZS04YjFkLTRjM2UtOWE1Ny0yZDRlNmY4YjFjMDMiLCJpc3MiOiJrZWdlbC1jb2FjaCIsImF1ZCI6ImtlZ2VsLWNvYWNoOmFjY2VzcyIsImlhdCI6MTc5NTE2MzI2MCwiZXhwIjoxNzk1MTY0MTYwfQ.e_7DXDVRQSvkJJMVWFvsqVVGmeM05TKkNFA5ETZRs74',
  refreshToken:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOiI1NTAzNTFkNy05MTEyLTRiMjMtYjk3MC04YmRjYzE2MWQ0ZWIiLCJ0eXAiOiJyZWZyZXNoIiwianRpIjoiMjhDM0RrUkxERjJsbU9pZ3JBQ1pjekJWU1NPWTBYbHVOZUJqYWlKNnlDayIsImlzcyI6ImtlZ2VsLWNvYWNoIiwiYXVkIjoia2VnZWwtY29hY2g6cmVmcmVzaCIsImV4cCI6MTc5Nzc1NTI2MH0.7gYU8VJP0P1Y2pE0Iz2FWu_RFBOQVH4pCAPSDhmQEYo',
};

// --- two-step sign-in ---------------------------------------------------------------------------

/** What a password sign-in answers him while two-step sign-in is on (single use, 5 minutes). */
export const MFA_TOKEN = 'Do4Hmkh8lYgeojThE2eljeC46ZwjC86sYqEuaHD4aeA';
/** A current code of his authenticator app. */
export const AUTHENTICATOR_CODE = '492071';
/** His authenticator secret (base32) and the QR code's URL. */
export const AUTHENTICATOR_SECRET = 'VOVESM5KYDDYOZQNIDCJVET4Y4SEWP4B';
export const AUTHENTICATOR_URL = `otpauth://totp/Kegel%20Coach:${encodeURIComponent(MEMBER_EMAIL)}?issuer=Kegel%20Coach&secret=${AUTHENTICATOR_SECRET}&algorithm=SHA1&digits=6&period=30`;
/** The recovery code he spends to turn two-step sign-in off. */
export const RECOVERY_CODE = '97k7-hct1-4fns-r1ww';
export const RECOVERY_CODES = [
  RECOVERY_CODE,
  'fwjc-mv3h-q5d8-ybzf',
  'm3e9-mt8w-89ad-neey',
  '2p6b-h0k6-3sxq-q70k',
  '5bcj-4x7e-amb8-b1wz',
  'g5vy-1t24-tt88-0svw',
  'rj4e-616e-4knz-gtzy',
  '4xrc-6b20-sdvh-tg89',
  '0jz5-de06-dh8a-yj0b',
  '65kt-japg-4s41-bj11',
];

// --- codes of emailed links (32 random bytes, base64url) -------------------------------------

export const PASSWORD_RESET_CODE = 'uW8A-tVZ0GD6EQEUnTlteQt6ysOyBr6UQcG-EKMdX3s';
export const EMAIL_CHANGE_CODE = 'FVWVILZjq4--dFBofL2k1rmfWhjgjucV4wCUMeH9ynM';
export const EMAIL_CHANGE_CANCEL_CODE = '6e5mncDwd0MU98UoiLgrrqYnts2xEHP9YJXmF5unheM';
export const NOT_ME_CODE = 'j8PrJ41RD2qeLtxrqDxC4ioS8q9x6Jwv0B22hOpK3Ps';
/** The reminder mail's one-click unsubscribe token: `<member id>.<list>.<HMAC-SHA256>`. */
export const UNSUBSCRIBE_TOKEN = `${MEMBER_ID}.expiry-reminders.3kQ9vXw2bL7nR0yTzA5cH8mE1dJ6uPfG4sV_oK-iWqY`;

// --- where he signs in from ---------------------------------------------------------------------

export const MAC_DEVICE = 'Chrome on macOS';
export const PHONE_DEVICE = 'Safari on iOS';
export const MAC_CLIENT_ADDRESS = '203.0.113.42';
export const PHONE_CLIENT_ADDRESS = '2001:db8:4a1c:7e00::/64';

// --- the plans and his purchases ----------------------------------------------------------------

/** The four plans on sale (the API's migration 0001, in US dollars). */
export const PLANS = [
  { id: '1-day', name: '1 Day', days: 1, price: 2.99 },
  { id: '1-week', name: '1 Week', days: 7, price: 9.99 },
  { id: '1-month', name: '1 Month', days: 30, price: 29.99 },
  { id: '1-year', name: '1 Year', days: 365, price: 119.99 },
];

/** His Stripe checkout of 1 Month. */
export const CHECKOUT_SESSION_ID =
  'cs_test_a1xZMEEoXaSuyo7pnIJP9LpteMe4kxhzhdHP3KtlitpHVQHZNcViEYsyAV';
export const STRIPE_CUSTOMER_ID = 'cus_ezAb7kOyTMOB8H';
export const PAYMENT_INTENT_ID = 'pi_3VCfNs7x6GDCaWYzpvFbfAWR';
export const CHARGE_ID = 'ch_3zCqlxvsJGq7EwFaTUX2BAKe';
export const STRIPE_EVENT_ID = 'evt_1JpOUqhkHlXzoQ0y1ulFywIl';
export const STRIPE_REFUND_ID = 're_3z3754FtT17kZ73p0pO2VNFw';
export const STRIPE_PURCHASE_ID = 'cbc76617-2ade-4772-a8e8-4cc0f9a495e5';
export const STRIPE_PURCHASED_AT = '2026-11-03T18:42:05.000Z';
export const STRIPE_PURCHASE_ENDS_AT = '2026-12-03T18:42:05.000Z';

/** His App Store purchase of 1 Week (premium.week), its days after the month's. */
export const APP_STORE_PRODUCT_ID = 'premium.week';
export const ORIGINAL_TRANSACTION_ID = '2000000847391026';
/** The order id of Apple's receipt email. */
export const APPLE_ORDER_ID = 'MQ7KX2LR9D';
export const APPLE_PURCHASE_ID = '18a59360-4e22-4da0-996a-c321ef473ef4';
export const APPLE_PURCHASED_AT = '2026-11-20T08:31:12.000Z';
export const APPLE_PURCHASE_ENDS_AT = '2026-12-10T18:42:05.000Z';

/** Sam's grant of 7 days after the outage of 24 November. */
export const GRANT_PURCHASE_ID = '78137fe4-a0a1-48fa-a9b5-dc3fa1bc1170';
export const GRANT_ID = 'daaf6d75-b174-4a1e-a476-854ef68e7f70';
export const GRANT_DAYS = 7;
export const GRANT_REASON = 'Service outage on 24 November';
export const GRANT_NAME = `Granted by support: ${GRANT_DAYS} days, ${GRANT_REASON}`;
export const GRANTED_AT = '2026-11-25T14:20:37.480Z';
/** His premium's end: the month, then the week, then the grant. */
export const PREMIUM_ENDS_AT = '2026-12-17T18:42:05.000Z';

// --- the support desk ---------------------------------------------------------------------------

/** Sam, an admin of the support desk, with two-step sign-in on. */
export const OPERATOR_ID = 'c1adf472-3437-44fc-b478-edb8607afda8';
export const OPERATOR_EMAIL = 'sam@kegelcoach.app';
/** When Sam's session last proved a second factor (the desk stays open 12 hours). */
export const OPERATOR_STEPPED_UP_AT = '2026-11-26T09:02:44.107Z';
/** Sam's note on Alex's story (kept in the audit trail: the note's id is its audit row's). */
export const NOTE_ID = 'ede98112-5c7f-4f89-a023-d26d51b6a511';
export const NOTE_TEXT =
  'Asked by chat why his week from the App Store starts on 3 December: explained.';
export const NOTED_AT = '2026-11-25T14:24:02.775Z';
/** A current code of Sam's authenticator app. */
export const OPERATOR_CODE = '815203';

// --- the site -----------------------------------------------------------------------------------

export const PUBLIC_URL = 'https://kegelcoach.app';
/** The passkeys' relying party: PUBLIC_URL's host. */
export const RELYING_PARTY_ID = 'kegelcoach.app';

// --- Google and Apple ---------------------------------------------------------------------------

/** The single-use nonce of his next Apple sign-in (10 minutes), carried by Apple's token. */
export const APPLE_NONCE = 'mNq--4uNI6r_W1GQG3n1FlbGvVZhX63aYFfeaqHit44';
/** Apple's identity token (RS256, `nonce` as above, `aud` the web's Services ID). */
export const APPLE_ID_TOKEN =
  'eyJraWQiOiJTZjJsRnF3a3BYIiwiYWxnIjoiUlMyNTYifQ.eyJpc3MiOiJodHRwczovL2FwcGxlaWQuYXBwbGUuY29tIiwiYXVkIjoiYXBwLmtlZ2VsY29hY2gud2ViIiwiZXhwIjoxNzk1Njg4MDgwLCJpYXQiOjE3OTU2ODc0ODAsInN1YiI6IjAwMTc0Mi42YjFjMmYwZTlkOGE0YzdiOGUzZjVhMWQyYzRiNmU4Zi4wOTUzIiwibm9uY2UiOiJtTnEtLTR1Tkk2cl9XMUdRRzNuMUZsYkd2VlpoWDYzYVlGZmVhcUhpdDQ0IiwiY19oYXNoIjoicDYwVHdjQUVEbmpkWWx5TG1PVFVUQSIsImVtYWlsIjoiYWxleEBleGFtcGxlLmNvbSIsImVtYWlsX3ZlcmlmaWVkIjp0cnVlLCJhdXRoX3RpbWUiOjE3OTU2ODc0ODAsIm5vbmNlX3N1cHBvcnRlZCI6dHJ1ZX0.r7KuxWZgY0eItveuwOfDo4bUCj7NAErZ9HCg8CKQlPE9b4U6DpeYVteSvlnFiuVHmSLF42divcYH3OovU-M7QI965rVizU4l6wQdLhnXhgdZSPijEoCfdl3CSW7xk7eIdEQq8QwU5Jl0xp5mrc_jDL32j5IjYL2oTkBhoMd5zXXd9La6ZXKl1YxOIY_jCi_9Dd2WaZWNpcOhm1beBik4PYyb_1ZDQlm7BHsH9jaDh-CqQ9wGCjkZ6e9n8Su75SvcKYHf1e4fiuhfNFHGw03EVzozBXM4Hmnz3B9HB7-7g9VxZKRMzet88ZnRQnMZ9s1QXoSnKN2fxRTo-Ie-DTUVig';
/** The authorization code Google Identity Services hands the page (the server exchanges it). */
export const GOOGLE_AUTHORIZATION_CODE =
  '4/0AVGzR1E6Gz2J_MDDXOZWuCZ5Dgi2XeL0z1KP86tRGk2tR6TRtEPp128emcNrybcdkZet5Uu7gIgS1f';

// --- passkeys -----------------------------------------------------------------------------------

/** The WebAuthn user handle of his account (base64url), what a passkey signs in as. */
export const PASSKEY_USER_HANDLE = 'ZKY1vU1Ya-UY95N5noV1WwrhArXPj4U_IgJwi6Zow0M';
/** His passkey on his iPhone, synced by iCloud Keychain. */
export const PASSKEY_ID = '3e8a7368-a077-4230-ac82-7e2cc6c3a252';
/** The credential id the authenticator chose (base64url). */
export const PASSKEY_CREDENTIAL_ID = 'z0DOOB-600s6G2hQmuZHUo3QtNo';
export const PASSKEY_NAME = 'iPhone';
export const PASSKEY_ADDED_AT = '2026-11-08T19:40:22.615Z';
/** A second passkey, added this morning on his Mac (the registration examples). */
export const MAC_PASSKEY_ID = '90f436df-495c-4b34-94b7-a4052c2a8cd1';
export const MAC_PASSKEY_CREDENTIAL_ID = '6c4B2xS0byGgtHl_85Eu_w';
export const MAC_PASSKEY_NAME = 'MacBook Air';
export const MAC_PASSKEY_ADDED_AT = '2026-11-26T10:03:18.402Z';

// --- his email change (the undo-window calls come after it) -----------------------------------

export const EMAIL_CHANGED_AT = '2026-11-26T09:48:51.093Z';
/** 72 hours after the change: until then his previous address can undo it. */
export const EMAIL_CHANGE_UNDOABLE_UNTIL = '2026-11-29T09:48:51.093Z';

// --- his Google and Apple identities ------------------------------------------------------------

export const GOOGLE_LINKED_AT = '2026-11-10T12:30:05.871Z';
export const APPLE_LINKED_AT = '2026-11-14T17:02:19.336Z';

// --- the App Store's signed values (JWS, ES256, Apple's certificate chain in x5c; shortened) ---

/** The StoreKit 2 transaction of his week (premium.week, bound to him by appAccountToken). */
export const SIGNED_TRANSACTION =
  'eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlFTURDQ0E3YWdBd0lCQWdJUWFQb1BsZHZwU29FSDBsQnJqRFB2OWpBS0JnZ3Foa2pPUFFRREF6QjFNVVF3UWdZRFZRUURERHRCY0hCc1pTQlhiM0pzWkhkcFpHVWdSR1YyWld4dmNHVnlJRkpsYkdGMGFXOXVjeUJEWlhKMGFXWnBZMkYwYVc5dUlFRjFkR2h2Y21sMGVURUxNQWtHQTFVRUN3d0NSell4RXpBUkJnTlZCQW9NQ2tGd2NHeGxJRWx1WXk0eEN6QUpCZ05WQkFZVEFsVlQiXX0.eyJ0cmFuc2FjdGlvbklkIjoiMjAwMDAwMDg0NzM5MTAyNiIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjIwMDAwMDA4NDczOTEwMjYiLCJ3ZWJPcmRlckxpbmVJdGVtSWQiOiIyMDAwMDAwMDczNTI4ODE0IiwiYnVuZGxlSWQiOiJhcHAua2VnZWxjb2FjaC5pb3MiLCJwcm9kdWN0SWQiOiJwcmVtaXVtLndlZWsiLCJzdWJzY3JpcHRpb25Hcm91cElkZW50aWZpZXIiOiIyMTQ4MjE1NyIsInB1cmNoYXNlRGF0ZSI6MTc5NTE2MzQ3MjAwMCwib3JpZ2luYWxQdXJjaGFzZURhdGUiOjE3OTUxNjM0NzIwMDAsImV4cGlyZXNEYXRlIjoxNzk1NzY4MjcyMDAwLCJxdWFudGl0eSI6MSwidHlwZSI6IkF1dG8tUmVuZXdhYmxlIFN1YnNjcmlwdGlvbiIsImFwcEFjY291bnRUb2tlbiI6IjVmMGMyYTllLThiMWQtNGMzZS05YTU3LTJkNGU2ZjhiMWMwMyIsImluQXBwT3duZXJzaGlwVHlwZSI6IlBVUkNIQVNFRCIsInNpZ25lZERhdGUiOjE3OTUxNjM0NzMwMDAsImVudmlyb25tZW50IjoiUHJvZHVjdGlvbiIsInRyYW5zYWN0aW9uUmVhc29uIjoiUFVSQ0hBU0UiLCJzdG9yZWZyb250IjoiVVNBIiwic3RvcmVmcm9udElkIjoiMTQzNDQxIiwicHJpY2UiOjk5OTAsImN1cnJlbmN5IjoiVVNEIn0.Lq1YSq5_gM3SUX044bBLhYrskxce3pXiJ1p0d_u_Lak3XQGigKWll2Zrep0dJKuRmb-1Rw2wXwmC1u6RffTsVA';
/** An App Store Server Notification V2 about his subscription (DID_RENEW). */
export const SIGNED_NOTIFICATION =
  'eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlFTURDQ0E3YWdBd0lCQWdJUWFQb1BsZHZwU29FSDBsQnJqRFB2OWpBS0JnZ3Foa2pPUFFRREF6QjFNVVF3UWdZRFZRUURERHRCY0hCc1pTQlhiM0pzWkhkcFpHVWdSR1YyWld4dmNHVnlJRkpsYkdGMGFXOXVjeUJEWlhKMGFXWnBZMkYwYVc5dUlFRjFkR2h2Y21sMGVURUxNQWtHQTFVRUN3d0NSell4RXpBUkJnTlZCQW9NQ2tGd2NHeGxJRWx1WXk0eEN6QUpCZ05WQkFZVEFsVlQiXX0.eyJub3RpZmljYXRpb25UeXBlIjoiRElEX1JFTkVXIiwibm90aWZpY2F0aW9uVVVJRCI6IjAxM2Q1ZDhhLTY4OWItNGRiZC05MjUyLWVhZTY0OTZlYTBiZSIsImRhdGEiOnsiYXBwQXBwbGVJZCI6NjczOTIwNDgxNSwiYnVuZGxlSWQiOiJhcHAua2VnZWxjb2FjaC5pb3MiLCJidW5kbGVWZXJzaW9uIjoiNDIiLCJlbnZpcm9ubWVudCI6IlByb2R1Y3Rpb24iLCJzaWduZWRUcmFuc2FjdGlvbkluZm8iOiLigKYiLCJzdGF0dXMiOjF9LCJ2ZXJzaW9uIjoiMi4wIiwic2lnbmVkRGF0ZSI6MTc5NTc2ODI4MDAwMH0.SPBRMT8erkb7CXzillEml71CIL3W_imh8D1jPapKonigjP1-bGLnvUlEuuiiki-Ykk2duQYf_gs56-H9kzGZeA';
