package io.servicehooks.cli;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The inbox's database for the {@code inbox} commands: a plain driver DataSource (a command makes
 * one or two calls, a pool would only slow its start) with every wait bounded, and failures
 * described in one line without the password.
 */
final class InboxDatabase {

  static final String URL_VARIABLE = "SERVICEHOOKS_JDBC_URL";
  static final String USER_VARIABLE = "SERVICEHOOKS_JDBC_USER";
  static final String PASSWORD_VARIABLE = "SERVICEHOOKS_JDBC_PASSWORD";

  /** Seconds; every wait stays below 10 s, so an unreachable database fails a command soon. */
  static final int CONNECT_TIMEOUT_SECONDS = 5;

  static final int SOCKET_TIMEOUT_SECONDS = 8;

  private final PGSimpleDataSource dataSource;
  private final String password;

  private InboxDatabase(PGSimpleDataSource dataSource, String password) {
    this.dataSource = dataSource;
    this.password = password;
  }

  /** The database named by {@code --jdbc-url}, else the environment. */
  static InboxDatabase of(TopCommand top, String jdbcUrlFlag) {
    String url = jdbcUrlFlag != null ? jdbcUrlFlag.trim() : top.env(URL_VARIABLE);
    if (url == null || url.isEmpty()) {
      throw new ServicehooksCli.UsageException(
          "no inbox database: set " + URL_VARIABLE + " (or --jdbc-url) to jdbc:postgresql://...");
    }
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new ServicehooksCli.UsageException(
          "the inbox database URL must start with jdbc:postgresql:");
    }
    if (url.indexOf(';') >= 0) {
      // pgjdbc does not split on ';': "?user=u;password=p" makes the whole tail the user name,
      // and the server's "role does not exist" would repeat the password
      throw new ServicehooksCli.UsageException(
          "the inbox database URL separates parameters with ';': use '&' (and %3B for a ';' in a"
              + " value)");
    }
    if (jdbcUrlFlag != null && url.toLowerCase(Locale.ROOT).contains("password=")) {
      // a flag is visible in the process list and the shell history
      throw new ServicehooksCli.UsageException(
          "--jdbc-url must not carry a password: set " + PASSWORD_VARIABLE + " instead");
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    try {
      ds.setURL(url);
    } catch (IllegalArgumentException e) {
      // the driver's message repeats the URL, which may hold a password
      throw new ServicehooksCli.UsageException(
          "the inbox database URL is malformed (expected jdbc:postgresql://host:port/database)");
    }
    String user = top.env(USER_VARIABLE);
    String password = top.env(PASSWORD_VARIABLE);
    if (user != null) {
      ds.setUser(user);
    }
    if (password != null) {
      ds.setPassword(password);
    }
    ds.setConnectTimeout(CONNECT_TIMEOUT_SECONDS);
    ds.setLoginTimeout(CONNECT_TIMEOUT_SECONDS);
    ds.setSocketTimeout(SOCKET_TIMEOUT_SECONDS);
    ds.setApplicationName("servicehooks-cli");
    return new InboxDatabase(ds, password);
  }

  DataSource dataSource() {
    return dataSource;
  }

  /** One line: unreachable, or what the database refused; never the password. */
  String describe(SQLException e) {
    String message = firstLine(e.getMessage());
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String text;
    if (state.startsWith("08") || state.equals("28P01") || state.equals("28000")) {
      text = "cannot reach the inbox database at " + where() + " (" + message + ")";
    } else {
      text =
          "the inbox database refused the call: "
              + message
              + (state.isEmpty() ? "" : " (SQLState " + state + ")");
    }
    return redact(text);
  }

  private String where() {
    String[] hosts = dataSource.getServerNames();
    int[] ports = dataSource.getPortNumbers();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < hosts.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(hosts[i]);
      if (ports != null && i < ports.length && ports[i] > 0) {
        sb.append(':').append(ports[i]);
      }
    }
    return sb + "/" + dataSource.getDatabaseName();
  }

  private String redact(String text) {
    return io.servicehooks.postgres.DatabaseMessages.scrub(text, password);
  }

  private static String firstLine(String message) {
    if (message == null || message.isBlank()) {
      return "no detail";
    }
    return Arrays.stream(message.strip().split("\\R")).limit(1).collect(Collectors.joining());
  }
}
