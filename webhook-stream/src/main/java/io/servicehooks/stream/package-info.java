/**
 * The activity stream, the platform's other way to deliver events: {@link
 * io.servicehooks.stream.ActivityStream} holds {@code GET /2/activity/stream} open and runs each
 * event through a {@link io.servicehooks.core.WebhookConsumer}, with the platform's reconnect rules
 * and backfill.
 */
package io.servicehooks.stream;
