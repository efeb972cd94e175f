package io.servicehooks.spring;

import io.servicehooks.registration.Webhook;
import io.servicehooks.registration.WebhookApiException;
import io.servicehooks.registration.WebhookClient;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Once the application is ready (its endpoint answers CRC checks), makes sure the public URL is
 * registered with the platform, on a thread of its own so that a slow platform never holds up the
 * application. The outcome is logged; a failure never stops the application, which keeps serving
 * deliveries for a webhook registered by other means.
 */
final class WebhookRegistrar implements ApplicationListener<ApplicationReadyEvent> {

  private static final Logger log = LoggerFactory.getLogger(WebhookRegistrar.class);

  private final WebhookClient client;
  private final String publicUrl;
  private final Environment environment;
  private final AtomicBoolean started = new AtomicBoolean();
  private final CompletableFuture<Webhook> outcome = new CompletableFuture<>();

  WebhookRegistrar(WebhookClient client, String publicUrl, Environment environment) {
    this.client = client;
    this.publicUrl = publicUrl;
    this.environment = environment;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    // Child contexts pass their events up: register once.
    if (!started.compareAndSet(false, true)) {
      return;
    }
    Thread thread = new Thread(this::register, "servicehooks-registration");
    thread.setDaemon(true);
    thread.start();
  }

  /** Completes with the registered webhook, or exceptionally with why registration failed. */
  CompletableFuture<Webhook> outcome() {
    return outcome;
  }

  private void register() {
    String url;
    try {
      // Resolved now, so that ${local.server.port} names the port actually bound.
      url = environment.resolveRequiredPlaceholders(publicUrl);
    } catch (IllegalArgumentException unresolved) {
      log.error(
          "Webhook not registered: servicehooks.registration.public-url cannot be resolved: {}",
          unresolved.getMessage());
      outcome.completeExceptionally(unresolved);
      return;
    }
    try {
      Webhook webhook = client.ensureRegistered(url);
      if (webhook.valid()) {
        log.info("Webhook {} registered for {} and valid", webhook.id(), url);
      } else {
        log.warn(
            "Webhook {} registered for {} but not valid: the platform's CRC check failed",
            webhook.id(),
            url);
      }
      outcome.complete(webhook);
    } catch (WebhookApiException e) {
      log.warn(
          "Webhook not registered for {}: the platform answered {}: {}",
          url,
          e.status(),
          e.getMessage());
      outcome.completeExceptionally(e);
    } catch (IOException e) {
      log.warn(
          "Webhook not registered for {}: the platform at {} cannot be reached ({})",
          url,
          client.baseUrl(),
          e.toString());
      outcome.completeExceptionally(e);
    } catch (RuntimeException e) {
      log.warn("Webhook not registered for {}: {}", url, e.toString());
      outcome.completeExceptionally(e);
    }
  }

  @Override
  public String toString() {
    return "WebhookRegistrar[" + publicUrl + "]";
  }
}
