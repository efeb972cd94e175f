/**
 * Receives the platform's signed webhook requests without a server of its own: {@link
 * io.servicehooks.core.WebhookConsumer} takes a {@link io.servicehooks.core.WebhookRequest}
 * (method, query, headers, raw body bytes) and gives a {@link io.servicehooks.core.WebhookResponse}
 * (status, headers, JSON body). HTTP adapters only translate, through {@link
 * io.servicehooks.core.AdapterSupport}. Applications use the consumer's builder, {@link
 * io.servicehooks.core.WebhookEvent}, {@link io.servicehooks.core.WebhookListener} and {@link
 * io.servicehooks.core.ErrorHandler}; {@link io.servicehooks.core.Deduplicator} is the SPI for a
 * shared dedup store; tests sign deliveries with {@link io.servicehooks.core.WebhookSigner}.
 * Everything else here is package-private.
 *
 * <h2>The request path</h2>
 *
 * {@code WebhookConsumer.handle} walks each request through package-private steps (assembled by
 * {@code ConsumerWiring}), in this order:
 *
 * <ul>
 *   <li>GET: {@code CrcResponder} reads {@code crc_token}, refuses a token that could be a forged
 *       body, and signs the rest with the current consumer secret.
 *   <li>POST, in {@code DeliveryPath} (one delivery from its bytes to its answer): the size limit,
 *       then {@code SignatureVerifier} (constant-time, every consumer secret), then {@code
 *       PayloadParser} (both payload families, all events or none), then the {@code
 *       AcknowledgementMode}: it claims each event at the {@code DedupGate} (a duplicate of an
 *       event running here waits for the original; one running on another instance polls the store
 *       a bounded time; a store that cannot answer fails the delivery closed, 503), composing the
 *       store's asynchronous answers, and has the {@code Dispatcher} (the one place listeners are
 *       invoked) run the owned ones (synchronous mode: now, moved to the adapter's executor by
 *       {@code HandOff} when listeners must run; asynchronous mode: later, on the consumer's
 *       queue), and {@code Answers} counts and answers.
 *   <li>Any other method: 405.
 * </ul>
 *
 * Metrics attach through a {@code MetricsBinder}; Micrometer is optional at run time.
 */
package io.servicehooks.core;
