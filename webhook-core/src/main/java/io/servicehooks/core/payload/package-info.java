/**
 * Typed payloads for the event families of the platform's protocol: immutable records that {@link
 * io.servicehooks.core.WebhookEvent#payloadAs(Class)}, {@code WebhookConsumer.Builder.on(Class,
 * ...)} and {@code WebhookConsumer.Builder.onEvent(Class, ...)} fill from every shape an event type
 * arrives in (activity envelope, legacy batch item). Unknown fields are ignored. Each record names
 * its required fields: a payload without one fails with {@link
 * io.servicehooks.core.payload.MissingPayloadFieldException} naming the record and the field, never
 * with nulls; its other fields are null where the payload leaves them out. The raw JSON stays
 * available as {@link io.servicehooks.core.WebhookEvent#payload()}.
 */
package io.servicehooks.core.payload;
