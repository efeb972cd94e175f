/**
 * Registration with the platform: {@link io.servicehooks.registration.WebhookClient} registers,
 * lists, revalidates, deletes and replays webhooks and manages activity subscriptions, holding the
 * app-only bearer token. Results are immutable records ({@link
 * io.servicehooks.registration.Webhook}, {@link io.servicehooks.registration.ReplayJob}, {@link
 * io.servicehooks.registration.Subscription}); the platform's refusals are {@link
 * io.servicehooks.registration.WebhookApiException}s, network failures plain {@code IOException}s.
 * Acting for a user (OAuth 1.0a, docs/acting-for-a-user.md#how-it-works): {@link
 * io.servicehooks.registration.UserSignIn} runs the three legs of sign-in, giving {@link
 * io.servicehooks.registration.UserCredentials}, and {@link
 * io.servicehooks.registration.UserClient} signs calls in the user's context, as subscriptions to
 * private events need. Everything else in the package is internal.
 */
package io.servicehooks.registration;
