package io.servicehooks.cli;

import io.servicehooks.postgres.InboxAdmin;
import io.servicehooks.postgres.InboxStatus;
import java.sql.SQLException;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code servicehooks inbox ...}: counts, lists, retries and purges the rows of a durable inbox
 * (webhook-postgres) straight in its database, without a running consumer.
 */
@Command(
    name = "inbox",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Inspect and repair the durable inbox on PostgreSQL: stats, dead letters, retry, discard.",
    footerHeading = "%nEnvironment:%n",
    footer = {
      "  " + InboxDatabase.URL_VARIABLE + "       jdbc:postgresql://host:5432/db",
      "  " + InboxDatabase.USER_VARIABLE + ", " + InboxDatabase.PASSWORD_VARIABLE,
      "                              the database user and password",
      "  DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD",
      "                              the standalone consumer's, used when the above are unset",
      "                              (DATABASE_URL: jdbc:postgresql:... or postgres://user:pw@host/db)",
      "The password comes from the environment only, never from arguments."
    })
final class InboxCommand implements Runnable {

  static final int DEFAULT_LIMIT = 20;

  @ParentCommand TopCommand top;

  @Spec CommandSpec spec;

  @Option(
      names = "--jdbc-url",
      scope = ScopeType.INHERIT,
      paramLabel = "URL",
      description =
          "jdbc:postgresql:// URL of the inbox's database; default $"
              + InboxDatabase.URL_VARIABLE
              + ". Give the password in $"
              + InboxDatabase.PASSWORD_VARIABLE
              + ", not here.")
  String jdbcUrl;

  @Option(
      names = "--schema",
      scope = ScopeType.INHERIT,
      paramLabel = "NAME",
      description = "the inbox's schema (default: ${DEFAULT-VALUE})",
      defaultValue = "servicehooks")
  String schema;

  @Option(
      names = "--table",
      scope = ScopeType.INHERIT,
      paramLabel = "NAME",
      description = "the inbox's table (default: ${DEFAULT-VALUE})",
      defaultValue = "webhook_inbox")
  String table;

  @Override
  public void run() {
    spec.commandLine().usage(top.out());
  }

  @Command(
      name = "stats",
      mixinStandardHelpOptions = true,
      description = "Rows by status and the age of the oldest due row.")
  int stats() {
    return inDatabase(admin -> top.output().inbox().stats(admin.stats()));
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List rows in a status, oldest first (default: dead letters).")
  int list(
      @Option(
              names = "--status",
              paramLabel = "STATUS",
              defaultValue = "dead",
              converter = StatusConverter.class,
              description = "dead, pending, running or done (default: ${DEFAULT-VALUE})")
          InboxStatus status,
      @Option(
              names = "--limit",
              paramLabel = "N",
              defaultValue = "" + DEFAULT_LIMIT,
              description = "at most N rows (default: ${DEFAULT-VALUE})")
          int limit) {
    if (limit < 1) {
      throw new ServicehooksCli.UsageException("--limit must be at least 1, was " + limit);
    }
    return inDatabase(admin -> top.output().inbox().entries(admin.list(status, limit)));
  }

  @Command(
      name = "retry",
      mixinStandardHelpOptions = true,
      description =
          "Make a dead (or pending) row due now with a fresh set of attempts, or every dead letter"
              + " with --all-dead.")
  int retry(
      @Parameters(paramLabel = "ID", arity = "0..1", description = "the row's id (inbox list)")
          Long id,
      @Option(names = "--all-dead", description = "retry every dead letter") boolean allDead) {
    if ((id == null) == !allDead) {
      throw new ServicehooksCli.UsageException("give either a row ID or --all-dead");
    }
    if (allDead) {
      return inDatabase(admin -> top.output().inbox().retriedAll(admin.retryAllDead()));
    }
    int[] code = {ServicehooksCli.EXIT_OK};
    int exit =
        inDatabase(
            admin -> {
              if (admin.retry(id)) {
                top.output().inbox().retried(id);
              } else {
                top.err().println("error: no dead or pending inbox row has id " + id);
                top.err().flush();
                code[0] = ServicehooksCli.EXIT_API_ERROR;
              }
            });
    return exit != ServicehooksCli.EXIT_OK ? exit : code[0];
  }

  @Command(
      name = "discard",
      mixinStandardHelpOptions = true,
      description =
          "Give up on a dead letter: the row becomes done (a copy of the event is still a"
              + " duplicate) and the retention purges it.")
  int discard(
      @Parameters(paramLabel = "ID", description = "the dead letter's row id (inbox list)")
          long id) {
    int[] code = {ServicehooksCli.EXIT_OK};
    int exit =
        inDatabase(
            admin -> {
              if (admin.discard(id)) {
                top.output().inbox().discarded(id);
              } else {
                top.err().println("error: no dead inbox row has id " + id);
                top.err().flush();
                code[0] = ServicehooksCli.EXIT_API_ERROR;
              }
            });
    return exit != ServicehooksCli.EXIT_OK ? exit : code[0];
  }

  @Command(
      name = "purge",
      mixinStandardHelpOptions = true,
      description =
          "Delete done rows older than the retention (24 h, the dedup window) now, in batches;"
              + " dead letters and rows not yet done are kept.")
  int purge() {
    return inDatabase(admin -> top.output().inbox().purged(admin.purge()));
  }

  /** One admin call; a database failure is one line on stderr and the failure exit code. */
  private int inDatabase(AdminCall call) {
    InboxDatabase database = InboxDatabase.of(top, jdbcUrl);
    InboxAdmin admin =
        InboxAdmin.builder().dataSource(database.dataSource()).schema(schema).table(table).build();
    try {
      call.run(admin);
      return ServicehooksCli.EXIT_OK;
    } catch (SQLException e) {
      top.err().println("error: " + database.describe(e));
      top.err().flush();
      return ServicehooksCli.EXIT_API_ERROR;
    }
  }

  @FunctionalInterface
  private interface AdminCall {
    void run(InboxAdmin admin) throws SQLException;
  }

  /** {@code dead}, {@code pending}, ... in any case. */
  static final class StatusConverter implements ITypeConverter<InboxStatus> {
    @Override
    public InboxStatus convert(String value) {
      try {
        return InboxStatus.valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(
            "'" + value + "' is not a status: dead, pending, running or done");
      }
    }
  }
}
