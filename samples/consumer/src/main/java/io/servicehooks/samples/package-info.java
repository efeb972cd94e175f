/**
 * Examples of embedding servicehooks, and the standalone consumer built from them: {@link
 * io.servicehooks.samples.QuickStart} is the README's first screen, {@link
 * io.servicehooks.samples.EmbeddedBot} mounts the webhook beside a bot's own Undertow routes, and
 * {@link io.servicehooks.samples.ConsumerMain} runs {@link
 * io.servicehooks.samples.StandaloneConsumer} (or the {@code --demo}) from the command line as
 * {@code servicehooks-consumer.jar}. Not a library: code here is copied, not depended on.
 */
package io.servicehooks.samples;
