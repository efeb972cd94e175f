package io.servicehooks.spring;

import io.servicehooks.registration.Webhook;
import io.servicehooks.registration.WebhookApiException;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.registration.WebhookWatch;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Once the application is ready (its endpoint answers CRC checks), makes sure the public URL is
 * registered with the platform, on a thread of its own so that a slow platform never holds up the
 * application. The outcome is logged; a failure never stops the application, which keeps serving
 * deliveries for a webhook registered by other means. Then a {@link WebhookWatch} keeps the webhook
 * switched on ({@code servicehooks.registration.check-interval} and {@code check-silence}) until
 * the context closes.
 */
final class WebhookRegistrar implements ApplicationListener<ApplicationReadyEvent>, DisposableBean {

  /** Hands the watch a registry to count revalidations in; a bean only where Micrometer is. */
  @FunctionalInterface
  interface WatchMetrics {
    void bindTo(WebhookWatch.Builder watch);
  }

  private static final Logger log = LoggerFactory.getLogger(WebhookRegistrar.class);

  private final WebhookClient client;
  private final String publicUrl;
  private final Environment environment;
  private final AtomicBoolean started = new AtomicBoolean();
  private final CompletableFuture<Webhook> outcome = new CompletableFuture<>();
  private final WebhookWatch.Builder watchBuilder;
  private final Object watchLock = new Object();
  private WebhookWatch watch; // guarded by watchLock; null until registration was tried
  private boolean destroyed; // guarded by watchLock

  WebhookRegistrar(
      WebhookClient client,
      String publicUrl,
      Environment environment,
      WebhookWatch.Builder watchBuilder) {
    this.client = client;
    this.publicUrl = publicUrl;
    this.environment = environment;
    this.watchBuilder = watchBuilder;
  }

  /** Stops the watch with the context. */
  @Override
  public void destroy() {
    synchronized (watchLock) {
      destroyed = true;
      if (watch != null) {
        watch.close();
      }
    }
  }

  /** Starts the watch over {@code url} once, whatever registration's outcome. */
  private void watch(String url) {
    synchronized (watchLock) {
      if (destroyed || watch != null) {
        return;
      }
      watch = watchBuilder.webhookUrl(url).build().start();
    }
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
      registerOnce(url);
    } finally {
      watch(url);
    }
  }

  private void registerOnce(String url) {
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
