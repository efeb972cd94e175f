package io.servicehooks.postgres;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Makes a JDBC driver's message safe to print: the driver and the server repeat parts of the URL (a
 * user name that swallowed a {@code ;password=...} tail, a {@code password=} parameter, a {@code
 * user:password@} part). One scrub shared by the inbox's logs, the {@code servicehooks inbox}
 * commands and the standalone consumer, so each prints the same safe line.
 */
public final class DatabaseMessages {

  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)(password\\s*=\\s*)[^&\\s\"')]*");
  private static final Pattern USER_INFO = Pattern.compile("(://[^:/@\\s]*:)[^@\\s]*@");

  private DatabaseMessages() {}

  /**
   * {@code text} with every {@code password=} value, every {@code user:password@} password and
   * every occurrence of {@code password} (when known) replaced by {@code ****}; {@code null} for
   * {@code null}.
   *
   * @param password the password in use, or {@code null} when unknown
   */
  public static String scrub(String text, String password) {
    if (text == null) {
      return null;
    }
    String out = text;
    if (password != null && !password.isEmpty()) {
      out = out.replace(password, "****");
    }
    out = PASSWORD_PARAMETER.matcher(out).replaceAll("$1****");
    return USER_INFO.matcher(out).replaceAll("$1****@");
  }

  /**
   * One line for a database failure: the class, the SQL state and the driver's first line, scrubbed
   * as {@link #scrub}.
   */
  public static String describe(Throwable failure, String password) {
    Objects.requireNonNull(failure, "failure");
    String state =
        failure instanceof java.sql.SQLException sql && sql.getSQLState() != null
            ? " [" + sql.getSQLState() + "]"
            : "";
    String message = failure.getMessage();
    String line = message == null ? "" : ": " + message.strip().lines().findFirst().orElse("");
    return scrub(failure.getClass().getName() + state + line, password);
  }
}
