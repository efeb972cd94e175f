/**
 * The {@code servicehooks} command line; {@link io.servicehooks.cli.ServicehooksCli} is its entry
 * point, everything else is internal.
 */
package io.servicehooks.cli;
