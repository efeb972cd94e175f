package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.servicehooks.testsupport.TestDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A URL whose parameters are separated by {@code ;}: the driver takes the whole tail as the user
 * name, and the real server's error repeats it, password and all. The scrub must take it out.
 */
final class DatabaseMessagesTest {

  private static PGSimpleDataSource semicolonUrl() {
    URI db = TestDatabase.hostAndPort();
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(
        "jdbc:postgresql://"
            + db.getHost()
            + ":"
            + db.getPort()
            + "/test?user=postgres;password=S3cretPW;sslmode=disable");
    ds.setConnectTimeout(3);
    ds.setLoginTimeout(3);
    ds.setSocketTimeout(5);
    return ds;
  }

  @Test
  void driverMessage_semicolonUrl_repeatsThePasswordUnscrubbed() {
    // The fault the scrub exists for: without it this is what would be printed.
    assertThatThrownBy(
            () -> {
              try (Connection c = semicolonUrl().getConnection()) {
                c.isValid(1);
              }
            })
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("S3cretPW");
  }

  @Test
  void describe_semicolonUrlDriverError_passwordGone() {
    SQLException failure;
    try (Connection c = semicolonUrl().getConnection()) {
      throw new AssertionError("connected as a role that should not exist");
    } catch (SQLException e) {
      failure = e;
    }
    String line = DatabaseMessages.describe(failure, null);
    assertThat(line).doesNotContain("S3cretPW").contains("password=****").doesNotContain("\n");
  }

  @Test
  void build_createSchemaOnSemicolonUrl_failsWithoutThePasswordAnywhere() {
    assertThatThrownBy(
            () -> PostgresInbox.builder().dataSource(semicolonUrl()).createSchema(true).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("could not create the inbox schema")
        .hasMessageNotContaining("S3cretPW")
        .satisfies(e -> assertThat(e.getCause()).isNull());
  }

  @Test
  void scrub_knownPasswordAndUserInfo_replaced() {
    assertThat(DatabaseMessages.scrub("FATAL: bad login for pw Zq9-x", "Zq9-x"))
        .isEqualTo("FATAL: bad login for pw ****");
    assertThat(DatabaseMessages.scrub("at postgres://app:s3cret@db:5432/x", null))
        .isEqualTo("at postgres://app:****@db:5432/x");
    assertThat(DatabaseMessages.scrub("?user=a&Password = p&ssl=true", null))
        .isEqualTo("?user=a&Password = ****&ssl=true");
    assertThat(DatabaseMessages.scrub(null, "x")).isNull();
  }
}
