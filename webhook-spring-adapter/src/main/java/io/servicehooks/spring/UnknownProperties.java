package io.servicehooks.spring;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * The {@code servicehooks.*} properties the environment sets that none of this module's properties
 * classes binds, such as a misspelt {@code servicehooks.webhook.consumer-secret}: Spring ignores
 * them without a word, which leaves the endpoint off. Only names are reported, never values (a
 * misspelt secret property holds a secret).
 */
final class UnknownProperties {

  private static final ConfigurationPropertyName ROOT =
      ConfigurationPropertyName.of("servicehooks");

  /**
   * Every property {@link WebhookProperties}, {@link CatchUpProperties}, {@link StreamProperties},
   * {@link KafkaProperties} and {@link RegistrationProperties} bind.
   */
  static final List<String> KNOWN =
      List.of(
          OnConsumerSecretCondition.PROPERTY,
          "servicehooks.webhook.path",
          "servicehooks.webhook.max-body-size",
          "servicehooks.webhook.ignore-own-events",
          "servicehooks.webhook.user.token",
          "servicehooks.webhook.user.token-secret",
          "servicehooks.webhook.dedup.window",
          "servicehooks.webhook.dedup.max-entries",
          "servicehooks.webhook.dedup.redis.enabled",
          "servicehooks.webhook.dedup.redis.url",
          "servicehooks.webhook.dedup.redis.prefix",
          "servicehooks.webhook.dedup.redis.command-timeout",
          "servicehooks.webhook.catch-up.enabled",
          "servicehooks.webhook.catch-up.store",
          "servicehooks.webhook.catch-up.file",
          "servicehooks.webhook.catch-up.redis-url",
          "servicehooks.webhook.catch-up.redis-prefix",
          "servicehooks.webhook.catch-up.table",
          "servicehooks.webhook.catch-up.create-table",
          "servicehooks.webhook.catch-up.webhook-id",
          "servicehooks.webhook.catch-up.heartbeat-interval",
          "servicehooks.webhook.catch-up.gap-threshold",
          "servicehooks.webhook.catch-up.safety-margin",
          "servicehooks.webhook.stream.enabled",
          "servicehooks.webhook.stream.backfill-minutes",
          "servicehooks.webhook.acknowledgement.mode",
          "servicehooks.webhook.acknowledgement.queue-capacity",
          "servicehooks.webhook.acknowledgement.threads",
          "servicehooks.webhook.acknowledgement.drain-timeout",
          "servicehooks.webhook.inbox.schema",
          "servicehooks.webhook.inbox.table",
          "servicehooks.webhook.inbox.create-schema",
          "servicehooks.webhook.inbox.workers",
          "servicehooks.webhook.inbox.max-attempts",
          "servicehooks.webhook.inbox.readiness",
          "servicehooks.webhook.inbox.lease",
          "servicehooks.webhook.inbox.backoff-base",
          "servicehooks.webhook.inbox.backoff-max",
          "servicehooks.webhook.inbox.retention",
          "servicehooks.webhook.inbox.poll-interval",
          "servicehooks.webhook.inbox.max-poll-interval",
          "servicehooks.webhook.inbox.writers",
          "servicehooks.webhook.inbox.instance-name",
          "servicehooks.webhook.inbox.statement-timeout",
          "servicehooks.webhook.kafka.topic",
          "servicehooks.webhook.kafka.role",
          "servicehooks.webhook.kafka.send-timeout",
          "servicehooks.webhook.kafka.startup-timeout",
          "servicehooks.webhook.kafka.readiness",
          "servicehooks.webhook.kafka.group-id",
          "servicehooks.webhook.kafka.dead-letter-topic",
          "servicehooks.webhook.kafka.max-attempts",
          "servicehooks.webhook.kafka.backoff-base",
          "servicehooks.webhook.kafka.workers",
          OnPublicUrlCondition.PROPERTY,
          "servicehooks.registration.base-url",
          "servicehooks.registration.allow-insecure-url",
          "servicehooks.registration.check-interval",
          "servicehooks.registration.check-silence");

  private static final List<ConfigurationPropertyName> KNOWN_NAMES =
      KNOWN.stream().map(ConfigurationPropertyName::of).toList();

  private UnknownProperties() {}

  /** The unknown {@code servicehooks.*} names the environment sets, sorted, each once. */
  static List<String> in(Environment environment) {
    if (!(environment instanceof ConfigurableEnvironment)) {
      return List.of();
    }
    Set<String> unknown = new TreeSet<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (source instanceof IterableConfigurationPropertySource iterable) {
        iterable.stream()
            .filter(ROOT::isAncestorOf)
            .filter(name -> !isKnown(name))
            .forEach(name -> unknown.add(name.toString()));
      }
    }
    return List.copyOf(unknown);
  }

  /**
   * One sentence naming each unknown property, with the known one it is closest to when it looks
   * like a misspelling of it; empty when there is none.
   */
  static String describe(List<String> unknown) {
    if (unknown.isEmpty()) {
      return "";
    }
    StringBuilder text = new StringBuilder("Not a servicehooks property, ignored: ");
    for (int i = 0; i < unknown.size(); i++) {
      String name = unknown.get(i);
      text.append(i == 0 ? "" : ", ").append(name);
      String near = nearest(name);
      if (near != null) {
        text.append(" (did you mean ").append(near).append("?)");
      }
    }
    return text.append('.').toString();
  }

  private static boolean isKnown(ConfigurationPropertyName name) {
    // An ancestor match covers the list forms, consumer-secrets[0]. The flat comparison covers an
    // environment variable that Spring binds by its legacy form
    // (SERVICEHOOKS_WEBHOOK_CONSUMER_SECRETS
    // is listed as servicehooks.webhook.consumer.secrets but binds to consumer-secrets).
    String flat = flat(name.toString());
    return KNOWN_NAMES.stream()
        .anyMatch(
            known ->
                known.equals(name)
                    || known.isAncestorOf(name)
                    || flat(known.toString()).equals(flat));
  }

  private static String flat(String name) {
    return comparable(name).replace(".", "");
  }

  /** The known property within a few typing mistakes of {@code name}, if any. */
  private static String nearest(String name) {
    String typed = comparable(name);
    return KNOWN.stream()
        .map(
            known -> {
              String candidate = comparable(known);
              // A name cut short (max-body for max-body-size) is a near miss whatever its length.
              boolean cutShort = candidate.startsWith(typed) || typed.startsWith(candidate);
              return new Candidate(known, cutShort ? 0 : distance(typed, candidate));
            })
        .filter(c -> c.distance <= Math.max(2, typed.length() / 8))
        // Most of a long name is the shared prefix: a distance small against the whole name can
        // replace all of a short last segment (inbox.lease was taken for inbox.table). The edits
        // must stay small against the part of the two names that differs.
        .filter(c -> c.distance <= Math.max(1, differingLength(typed, comparable(c.name)) / 2))
        .min(Comparator.comparingInt(Candidate::distance))
        .map(Candidate::name)
        .orElse(null);
  }

  private record Candidate(String name, int distance) {}

  /** The length of the longer of the two middles left after the shared prefix and suffix. */
  static int differingLength(String a, String b) {
    int prefix = 0;
    int max = Math.min(a.length(), b.length());
    while (prefix < max && a.charAt(prefix) == b.charAt(prefix)) {
      prefix++;
    }
    int suffix = 0;
    while (suffix < max - prefix
        && a.charAt(a.length() - 1 - suffix) == b.charAt(b.length() - 1 - suffix)) {
      suffix++;
    }
    return Math.max(a.length(), b.length()) - prefix - suffix;
  }

  private static String comparable(String name) {
    return name.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
