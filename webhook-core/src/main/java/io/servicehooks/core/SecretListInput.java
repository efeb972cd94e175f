package io.servicehooks.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the consumer secrets a builder is given: splits or takes each whole, strips, refuses
 * unresolved placeholders, and warns once of short ones. No value ever reaches a message: they name
 * positions only.
 */
final class SecretListInput {

  // Logs under WebhookConsumer's name, the one logger users' log configuration names for the
  // whole consumer; the class that does the work is an implementation detail.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private SecretListInput() {}

  /** The comma convenience: every argument split at commas, blank parts dropped. */
  static List<String> splittingCommas(String... secrets) {
    Objects.requireNonNull(secrets, "secrets");
    List<String> all = new ArrayList<>();
    for (String s : secrets) {
      if (s == null) {
        throw new IllegalArgumentException("consumer secret must not be null");
      }
      for (String part : s.split(",")) {
        if (!part.isBlank()) {
          all.add(part.strip());
        }
      }
    }
    if (all.isEmpty()) {
      throw new IllegalArgumentException("at least one non-blank consumer secret is required");
    }
    for (int i = 0; i < all.size(); i++) {
      refusePlaceholder(all.get(i), i, " (counted after splitting at commas)");
    }
    return List.copyOf(all);
  }

  /** Each element one whole secret: never split, so a secret may hold any character. */
  static List<String> whole(List<String> secrets) {
    Objects.requireNonNull(secrets, "secrets");
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("at least one consumer secret is required");
    }
    List<String> all = new ArrayList<>(secrets.size());
    for (int i = 0; i < secrets.size(); i++) {
      String s = secrets.get(i);
      // The index, never the value: a secret must not reach an exception message.
      if (s == null) {
        throw new IllegalArgumentException("consumer secret at index " + i + " is null");
      }
      if (s.isBlank()) {
        throw new IllegalArgumentException("consumer secret at index " + i + " is blank");
      }
      // The platform's secrets have no surrounding whitespace; a copied one often has (a
      // trailing newline from a secrets file), and every caller stripped it before this split.
      String stripped = s.strip();
      refusePlaceholder(stripped, i, "");
      all.add(stripped);
    }
    return List.copyOf(all);
  }

  /**
   * Refuses a value that is a configuration placeholder nobody resolved: {@code ${...}} anywhere in
   * it (Spring, Maven, shell, Compose), or the whole value a shell variable, {@code $NAME} (an env
   * file that is not expanded). Such a secret is text anyone can read in the configuration, so the
   * endpoint would accept deliveries anyone can sign. The message gives the shape only: not even
   * the variable's name, which a value that merely looks like a placeholder could be part of.
   */
  private static void refusePlaceholder(String secret, int index, String note) {
    String shape = placeholderShape(secret);
    if (shape != null) {
      throw new IllegalArgumentException(
          "consumer secret at index "
              + index
              + note
              + " looks like an unresolved placeholder ("
              + shape
              + "): set the variable it names, or resolve it before passing it here");
    }
  }

  /** {@code "${...}"} or {@code "$NAME"} when the value looks unresolved, otherwise null. */
  private static String placeholderShape(String secret) {
    int open = secret.indexOf("${");
    if (open >= 0 && secret.indexOf('}', open + 2) >= 0) {
      return "${...}";
    }
    if (secret.length() > 1
        && secret.charAt(0) == '$'
        && isNameStart(secret.charAt(1))
        && secret.chars().skip(2).allMatch(SecretListInput::isNamePart)) {
      return "$NAME";
    }
    return null;
  }

  private static boolean isNameStart(int c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  }

  private static boolean isNamePart(int c) {
    return isNameStart(c) || (c >= '0' && c <= '9');
  }

  /**
   * One WARN line for the whole list when any secret is shorter than {@link
   * WebhookConsumer#MIN_SECRET_LENGTH}: positions only, never values or lengths of a value.
   */
  static void warnShort(List<String> secrets) {
    List<Integer> shortOnes = new ArrayList<>();
    for (int i = 0; i < secrets.size(); i++) {
      if (secrets.get(i).length() < WebhookConsumer.MIN_SECRET_LENGTH) {
        shortOnes.add(i);
      }
    }
    if (shortOnes.isEmpty()) {
      return;
    }
    String positions = shortOnes.toString().replace("[", "").replace("]", "");
    log.warn(
        "Consumer {} at index {} {} shorter than {} characters: the platform issues long random"
            + " consumer secrets, so check that this is your app's consumer secret and not a test"
            + " value, a key or a token; a short secret is easier to guess",
        shortOnes.size() == 1 ? "secret" : "secrets",
        positions,
        shortOnes.size() == 1 ? "is" : "are",
        WebhookConsumer.MIN_SECRET_LENGTH);
  }
}
