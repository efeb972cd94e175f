package io.servicehooks.registration;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook calls of {@link WebhookClient} ({@code /2/webhooks}): create with recovery of a lost
 * answer by listing, list, revalidate, delete, and the start-up {@code ensureRegistered}.
 */
final class WebhooksResource {

  private static final Logger LOG = LoggerFactory.getLogger(WebhookClient.class);

  private final ApiCaller api;
  private final boolean allowInsecureUrls;

  WebhooksResource(ApiCaller api, boolean allowInsecureUrls) {
    this.api = api;
    this.allowInsecureUrls = allowInsecureUrls;
  }

  Webhook create(String url) throws IOException {
    WebhookUrls.check(url, allowInsecureUrls);
    ObjectNode body = Responses.JSON.createObjectNode().put("url", url);
    try {
      return Responses.webhook(
          api.call("POST", "/2/webhooks", Responses.bytes(body), ApiCaller.Repeat.UNSAFE));
    } catch (WebhookApiException e) {
      if (e.status() < 500) {
        throw e;
      }
      return recoverLostCreate(url, e);
    } catch (IOException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw e;
      }
      return recoverLostCreate(url, e);
    }
  }

  private Webhook recoverLostCreate(String url, IOException original) throws IOException {
    LOG.info(
        "the answer to creating a webhook was lost ({}); listing to see whether it was created",
        original.getClass().getSimpleName());
    Optional<Webhook> found;
    try {
      found = find(list(), url);
    } catch (IOException listFailed) {
      original.addSuppressed(listFailed);
      throw original;
    }
    if (found.isPresent()) {
      LOG.info("webhook {} was created despite the lost answer", found.get().id());
      return found.get();
    }
    throw original;
  }

  List<Webhook> list() throws IOException {
    return Responses.webhooks(api.call("GET", "/2/webhooks", null, ApiCaller.Repeat.SAFE));
  }

  boolean revalidate(String webhookId) throws IOException {
    String path = "/2/webhooks/" + WebhookUrls.checkWebhookId(webhookId);
    return Responses.validity(api.call("PUT", path, null, ApiCaller.Repeat.SAFE));
  }

  boolean delete(String webhookId) throws IOException {
    String path = "/2/webhooks/" + WebhookUrls.checkWebhookId(webhookId);
    Optional<ApiResponse> answer = api.delete(path);
    return answer.isEmpty() || Responses.deleted(answer.get());
  }

  Webhook ensureRegistered(String url) throws IOException {
    WebhookUrls.check(url, allowInsecureUrls);
    Optional<Webhook> existing = find(list(), url);
    if (existing.isPresent()) {
      Webhook webhook = existing.get();
      if (webhook.valid()) {
        return webhook;
      }
      LOG.info("webhook {} is registered but invalid, asking for a new check", webhook.id());
      return webhook.withValid(revalidate(webhook.id()));
    }
    try {
      return create(url);
    } catch (WebhookApiException e) {
      if (e.reason() != WebhookApiException.Reason.DUPLICATE_URL_FAILED) {
        throw e;
      }
      Optional<Webhook> registered = find(list(), url);
      if (registered.isPresent()) {
        return registered.get();
      }
      throw e;
    }
  }

  private static Optional<Webhook> find(List<Webhook> webhooks, String url) {
    return webhooks.stream().filter(w -> w.url().equals(url)).findFirst();
  }
}
