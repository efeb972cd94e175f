/**
 * Micrometer {@code Observation}s of the consumer: what each one is named, the context it carries
 * and the conventions that turn the context into low- and high-cardinality key values. They are
 * made only when the consumer is given an {@code ObservationRegistry} ({@code
 * WebhookConsumer.Builder.observationRegistry}); micrometer-observation is an optional dependency,
 * and without a registry no class of this package is loaded.
 *
 * <p>The observations, their key names and values are listed in {@link
 * io.servicehooks.core.observation.ServicehooksObservation}. To change what an observation carries,
 * register a {@code GlobalObservationConvention} for its context in the registry (it wins over the
 * default one), or extend the default convention and add to its key values.
 *
 * <p>The event type is a low-cardinality value capped as the {@code webhook.events} meter caps it:
 * the first {@code WebhookConsumer.MAX_TYPE_TAGS} types seen keep their name, later ones read
 * {@code WebhookConsumer.OTHER_TYPE_TAG}.
 */
package io.servicehooks.core.observation;
