package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class DatabaseSettingsTest {

  @Test
  void fromEnvironment_withoutUrl_isNotDurable() {
    assertThat(DatabaseSettings.fromEnvironment(Map.of())).isNull();
    assertThat(DatabaseSettings.fromEnvironment(Map.of("DATABASE_URL", " "))).isNull();
  }

  @Test
  void parse_jdbcUrl_keptAsGivenWithEnvironmentCredentials() {
    DatabaseSettings d =
        DatabaseSettings.parse(
            "jdbc:postgresql://db.example:6543/app?sslmode=require", "app", "pw");
    assertThat(d.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6543/app?sslmode=require");
    assertThat(d.user()).isEqualTo("app");
    assertThat(d.password()).isEqualTo("pw");
    assertThat(d.redactedUrl()).isEqualTo(d.jdbcUrl());
  }

  @Test
  void parse_jdbcUrlWithCredentials_urlWinsAndPasswordIsRedacted() {
    DatabaseSettings d =
        DatabaseSettings.parse(
            "jdbc:postgresql://127.0.0.1/test?user=postgres&password=s3cret&ssl=false", "x", "y");
    assertThat(d.user()).isNull();
    assertThat(d.password()).isNull();
    assertThat(d.redactedUrl())
        .isEqualTo("jdbc:postgresql://127.0.0.1/test?user=postgres&password=***&ssl=false");
    assertThat(d.toString()).doesNotContain("s3cret");
  }

  @Test
  void parse_postgresUrl_becomesJdbcUrlWithCredentialsApart() {
    DatabaseSettings d =
        DatabaseSettings.parse(
            "postgres://app:s3cret@db.example:6543/inbox?sslmode=require", null, null);
    assertThat(d.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6543/inbox?sslmode=require");
    assertThat(d.user()).isEqualTo("app");
    assertThat(d.password()).isEqualTo("s3cret");
    assertThat(d.redactedUrl())
        .isEqualTo("postgres://app:***@db.example:6543/inbox?sslmode=require");
    assertThat(d.toString()).doesNotContain("s3cret");
  }

  @Test
  void parse_postgresqlSchemeWithoutPort_leavesTheDriverDefault() {
    DatabaseSettings d = DatabaseSettings.parse("postgresql://app@localhost/inbox", null, "pw");
    assertThat(d.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost/inbox");
    assertThat(d.user()).isEqualTo("app");
    // The URL names a user without a password: the URL's credentials win, as a whole.
    assertThat(d.password()).isNull();
  }

  @Test
  void parse_percentEncodedSpecialCharacters_decodedOnceAndPlusKept() {
    // p@ss:w/rd?#%+é  percent-encoded (RFC 3986), as a provider's dashboard gives it
    DatabaseSettings d =
        DatabaseSettings.parse(
            "postgres://us%40er:p%40ss%3Aw%2Frd%3F%23%25+%C3%A9@[::1]:5432/db", null, null);
    assertThat(d.user()).isEqualTo("us@er");
    assertThat(d.password()).isEqualTo("p@ss:w/rd?#%+é");
    assertThat(d.jdbcUrl()).isEqualTo("jdbc:postgresql://[::1]:5432/db");
    assertThat(d.redactedUrl()).isEqualTo("postgres://us%40er:***@[::1]:5432/db");
  }

  @Test
  void parse_postgresUrlWithoutCredentials_takesEnvironment() {
    DatabaseSettings d = DatabaseSettings.parse("postgres://db.example/inbox", "app", "pw");
    assertThat(d.user()).isEqualTo("app");
    assertThat(d.password()).isEqualTo("pw");
    assertThat(d.redactedUrl()).isEqualTo("postgres://db.example/inbox");
  }

  @Test
  void parse_missingParts_refusedNamingThePartNotThePassword() {
    assertThatThrownBy(() -> DatabaseSettings.parse("postgres://app:s3cret@db.example", null, null))
        .hasMessageContaining("no database name")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> DatabaseSettings.parse("postgres://app:s3cret@/inbox", null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> DatabaseSettings.parse("postgres:///inbox", "app", null))
        .hasMessageContaining("no host");
    assertThatThrownBy(() -> DatabaseSettings.parse("postgres://db.example/inbox", null, "s3cret"))
        .hasMessageContaining("no user and DATABASE_USER is not set");
    assertThatThrownBy(() -> DatabaseSettings.parse("mysql://app:s3cret@db/x", null, null))
        .hasMessageContaining("must start with")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> DatabaseSettings.parse("jdbc:postgresql://h:notaport/x", null, null))
        .hasMessageContaining("driver accepts");
  }

  @Test
  void parse_unencodedSpecialCharactersInPassword_refusedWithoutShowingThem() {
    for (String url :
        new String[] {
          "postgres://app:pa ss@db.example/inbox",
          "postgres://app:pa/ss@db.example/inbox",
          "postgres://app:pa%zzss@db.example/inbox"
        }) {
      assertThatThrownBy(() -> DatabaseSettings.parse(url, null, null))
          .as(url)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageNotContaining("pa ss")
          .hasMessageNotContaining("pa/ss")
          .hasMessageNotContaining("zzss");
    }
  }

  @Test
  void redact_unencodedAtOrSlashInPassword_stillHidden() {
    assertThat(DatabaseSettings.redact("postgres://app:p@ss@db/x"))
        .isEqualTo("postgres://app:***@db/x");
    assertThat(DatabaseSettings.redact("postgres://app:p/ss@db/x"))
        .isEqualTo("postgres://app:***@db/x");
  }

  @Test
  void fromEnvironment_inboxSettings_readAndValidated() {
    DatabaseSettings d =
        DatabaseSettings.fromEnvironment(
            Map.of(
                "DATABASE_URL", "jdbc:postgresql://127.0.0.1/test",
                "DATABASE_SCHEMA", "Crash_1",
                "DATABASE_CREATE_SCHEMA", "false",
                "INBOX_MAX_ATTEMPTS", "2",
                "INBOX_RETRY_BASE_MS", "100",
                "INBOX_LEASE_MS", "3000"));
    assertThat(d.schema()).isEqualTo("crash_1");
    assertThat(d.createSchema()).isFalse();
    assertThat(d.maxAttempts()).isEqualTo(2);
    assertThat(d.retryBase()).isEqualTo(Duration.ofMillis(100));
    assertThat(d.lease()).isEqualTo(Duration.ofSeconds(3));

    DatabaseSettings defaults =
        DatabaseSettings.fromEnvironment(
            Map.of("DATABASE_URL", "jdbc:postgresql://127.0.0.1/test"));
    assertThat(defaults.schema()).isEqualTo("servicehooks");
    assertThat(defaults.createSchema()).isTrue();
    assertThat(defaults.maxAttempts()).isZero();
    assertThat(defaults.retryBase()).isNull();
    assertThat(defaults.lease()).isNull();

    Map<String, String> url = Map.of("DATABASE_URL", "jdbc:postgresql://127.0.0.1/test");
    for (Map.Entry<String, String> bad :
        Map.of(
                "DATABASE_SCHEMA", "x; drop table y",
                "DATABASE_CREATE_SCHEMA", "yes",
                "INBOX_MAX_ATTEMPTS", "0",
                "INBOX_RETRY_BASE_MS", "soon",
                "INBOX_LEASE_MS", "10")
            .entrySet()) {
      java.util.Map<String, String> env = new java.util.HashMap<>(url);
      env.put(bad.getKey(), bad.getValue());
      assertThatThrownBy(() -> DatabaseSettings.fromEnvironment(env))
          .as(bad.getKey())
          .hasMessageStartingWith(bad.getKey())
          .hasMessageContaining(bad.getValue());
    }
  }

  @Test
  void parse_semicolonBetweenParameters_refusedInOneLineWithoutThePassword() {
    for (String url :
        new String[] {
          "jdbc:postgresql://127.0.0.1:5432/test?user=postgres;password=S3cretPW",
          "jdbc:postgresql://127.0.0.1:5432/test;user=postgres;password=S3cretPW",
          "postgres://127.0.0.1:5432/test?user=postgres;password=S3cretPW"
        }) {
      assertThatThrownBy(() -> DatabaseSettings.parse(url, null, null))
          .as(url)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("DATABASE_URL separates parameters with ';'")
          .hasMessageNotContaining("S3cretPW")
          .hasMessageNotContaining("\n");
    }
  }

  @Test
  void parse_semicolonInsideUserInfo_isThePasswordsOwn() {
    DatabaseSettings d =
        DatabaseSettings.parse("postgres://app:pa;ss@db.example/inbox", null, null);
    assertThat(d.password()).isEqualTo("pa;ss");
    assertThat(d.toString()).doesNotContain("pa;ss");
  }
}
