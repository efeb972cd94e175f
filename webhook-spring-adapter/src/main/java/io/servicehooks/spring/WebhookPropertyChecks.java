package io.servicehooks.spring;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.util.unit.DataSize;

/**
 * The checks of the {@code servicehooks.webhook.*} values that Spring's binding cannot express: the
 * body limit's range, the path's shape, and consumer secrets that are unresolved placeholders. Each
 * failure names the property.
 */
final class WebhookPropertyChecks {

  private WebhookPropertyChecks() {}

  /**
   * The largest {@code servicehooks.webhook.max-body-size}. A delivery is read whole into memory
   * before its signature is checked, so the limit is what one unauthenticated request may make the
   * application hold; the platform's deliveries are a few KB of JSON, and 64 times the 1 MB default
   * leaves room for any of them while keeping the adapters' {@code limit + 1} read far from {@code
   * int} overflow (at {@code Integer.MAX_VALUE} every POST failed).
   */
  static final DataSize MAX_BODY_SIZE_LIMIT = DataSize.ofMegabytes(64);

  static int checkedMaxBodyBytes(DataSize size) {
    if (size == null || size.toBytes() < 1 || size.toBytes() > MAX_BODY_SIZE_LIMIT.toBytes()) {
      throw new IllegalStateException(
          "servicehooks.webhook.max-body-size must be from 1B to 64MB, was " + size);
    }
    return (int) size.toBytes();
  }

  /**
   * Each configured element is one whole secret (an indexed {@code consumer-secrets[0]} may hold a
   * comma); a comma-separated value was already split by Spring's binding, which keeps the empty
   * element after a trailing comma: dropped, as before.
   *
   * <p>An element that still holds a {@code ${...}} placeholder is refused: Spring's binding leaves
   * a placeholder it cannot resolve as literal text, so {@code ${SERVICE_CONSUMER_SECRET}} with the
   * variable unset would otherwise become a secret anyone can guess. Checked here, not left to the
   * core, so that the message names the property. Only the placeholder is shown, never the rest of
   * the value.
   */
  static List<String> consumerSecrets(List<String> configured) {
    for (int i = 0; i < configured.size(); i++) {
      String secret = configured.get(i);
      Matcher placeholder = secret == null ? null : PLACEHOLDER.matcher(secret);
      if (placeholder != null && placeholder.find()) {
        String variable = placeholder.group(1);
        throw new WebhookSetupException(
            OnConsumerSecretCondition.PROPERTY
                + "["
                + i
                + "] is the unresolved placeholder "
                + placeholder.group()
                + ": nothing named "
                + variable
                + " is set, and used as it is, that literal text would sign CRC answers and"
                + " accept deliveries that anyone can sign.",
            "Set "
                + variable
                + " (an environment variable or a property) to the app's consumer secret, or give "
                + OnConsumerSecretCondition.PROPERTY
                + " the secret itself.");
      }
    }
    return configured.stream().filter(s -> s != null && !s.isBlank()).toList();
  }

  /** A Spring placeholder left unresolved; group 1 is the name it refers to. */
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}:]*)[^}]*}");

  static String checkedPath(String path) {
    if (path == null
        || !path.startsWith("/")
        || path.contains("*")
        || path.contains("?")
        || path.contains("#")) {
      throw new IllegalStateException(
          "servicehooks.webhook.path must be a plain path starting with '/', such as /webhooks, was: "
              + path);
    }
    return path;
  }
}
