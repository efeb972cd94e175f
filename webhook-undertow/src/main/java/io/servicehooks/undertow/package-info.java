/**
 * Serves a {@link io.servicehooks.core.WebhookConsumer} over Undertow: {@link
 * io.servicehooks.undertow.WebhookHandler} is a plain Undertow {@code HttpHandler} to mount at any
 * path of your own server, and {@link io.servicehooks.undertow.WebhookServer} a small embedded
 * server around it, for bots that have none. Both only translate: the handler reads the body
 * without blocking the IO thread and never past the consumer's limit, hands the exact bytes to the
 * core and copies its answer back; listeners run on Undertow's worker pool unless declared
 * non-blocking. Every error answer carries the core's JSON body {@code
 * {"error":"<code>","message":"<why>"}}.
 *
 * <p>Package-private beside them: {@code BodyReceiver} reads a body, {@code ExchangeAnswers} writes
 * an answer from whichever thread it is ready on, {@code ServerRefusals}, {@code HealthHandler},
 * {@code ScrapeHandler} and {@code KeyStoreTls} serve the embedded server.
 */
package io.servicehooks.undertow;
