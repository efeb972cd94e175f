/**
 * The platform on your laptop or in your tests: {@link io.servicehooks.testkit.PlatformSimulator}
 * serves the token, webhook, replay and activity subscription API on a local port, runs real CRC
 * checks against registered webhook URLs, and signs and POSTs deliveries with retries, on a clock
 * the test can move. Like the platform, it drops an event whose retries all failed, keeps each
 * webhook's delivery history for the replay reach of 24 hours ({@link
 * io.servicehooks.testkit.HistoryEntry}) and replays the events of a window ({@link
 * io.servicehooks.testkit.ReplayRequest}). {@link io.servicehooks.testkit.Events} builds delivery
 * bodies of both payload families, {@link io.servicehooks.testkit.Fault} queues misbehaviours for a
 * client to cope with, and {@link io.servicehooks.testkit.DeliveryAttempt} records what was sent
 * and answered.
 *
 * <p>It also plays the OAuth 1.0a side (sign-in, user access tokens, user-context calls): see
 * {@link io.servicehooks.testkit.PlatformSimulator#approveRequestToken}.
 *
 * <p>The package does not depend on {@code webhook-core}: its HMAC code (and its OAuth 1.0a
 * signature check) is its own, so it checks the consumer side and the client independently (the
 * build enforces this). Everything not public is internal.
 */
package io.servicehooks.testkit;
