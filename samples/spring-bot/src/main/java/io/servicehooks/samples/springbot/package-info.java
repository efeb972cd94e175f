/**
 * A complete webhook bot on Spring Boot: {@link
 * io.servicehooks.samples.springbot.SpringBotApplication} starts it, the {@code
 * webhook-spring-adapter} auto-configuration serves the webhook at {@code /webhooks}, and {@link
 * io.servicehooks.samples.springbot.BotListeners} holds the two {@code @OnWebhookEvent} methods the
 * events reach. Configured from the environment; see the module's README.
 */
package io.servicehooks.samples.springbot;
