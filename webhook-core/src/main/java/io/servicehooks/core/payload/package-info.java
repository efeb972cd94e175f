/**
 * Typed payloads for the event families of the platform's protocol: immutable records that {@link
 * io.servicehooks.core.WebhookEvent#payloadAs(Class)} and {@code WebhookConsumer.Builder.on(Class,
 * ...)} fill from either payload family (activity envelope or legacy batch item). Unknown fields
 * are ignored; a field the payload leaves out is null. The raw JSON stays available as {@link
 * io.servicehooks.core.WebhookEvent#payload()}.
 */
package io.servicehooks.core.payload;
