/**
 * Catch-up after downtime: {@link io.servicehooks.catchup.CatchUp} records a heartbeat in a shared
 * {@link io.servicehooks.catchup.HeartbeatStore} while the consumer serves, and when it finds a gap
 * one instance asks the platform to replay it, once. The public API is {@code CatchUp} with its
 * builder, the {@code HeartbeatStore} interface with its three factories, and the {@link
 * io.servicehooks.catchup.CatchUpJob} record stores keep; everything else is package-private.
 */
package io.servicehooks.catchup;
