/**
 * A webhook bot on Spring Boot, built as {@code servicehooks-spring-bot.jar}: {@link
 * io.servicehooks.samples.springbot.SpringBotApplication} lets the servicehooks auto-configuration
 * serve the webhook and routes events to the annotated methods of {@link
 * io.servicehooks.samples.springbot.BotListeners}. Not a library: an example to copy.
 */
package io.servicehooks.samples.springbot;
