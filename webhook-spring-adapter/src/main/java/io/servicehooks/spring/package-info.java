/**
 * Spring Boot auto-configuration for a servicehooks webhook in a servlet application.
 *
 * <p>Setting {@code servicehooks.webhook.consumer-secrets} switches on {@link
 * io.servicehooks.spring.WebhookAutoConfiguration}: it builds the core's {@link
 * io.servicehooks.core.WebhookConsumer} from the {@link io.servicehooks.spring.WebhookProperties},
 * the listener beans, the {@link io.servicehooks.spring.OnWebhookEvent @OnWebhookEvent} methods and
 * any {@link io.servicehooks.spring.WebhookConsumerCustomizer}, and serves it with a plain servlet
 * that only translates HTTP to the core's request and its response back, so the endpoint answers
 * exactly as the core does. Metrics, the {@code webhook} health indicator and registration at
 * start-up ({@link io.servicehooks.spring.RegistrationProperties}) switch on when their libraries
 * are on the class path.
 *
 * <p>Misconfiguration is loud: a consumer secret left as an unresolved placeholder, or listeners
 * without a secret (a misspelt property is named), fail start-up through Spring Boot's failure
 * analysis; an endpoint that is off or served says so in one log line.
 *
 * <p>The public types are what an application uses: the annotation, the customizer and the two
 * properties classes. Everything else is package-private.
 */
package io.servicehooks.spring;
