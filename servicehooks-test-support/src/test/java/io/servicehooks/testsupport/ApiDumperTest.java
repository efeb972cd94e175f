package io.servicehooks.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dumper on this module's own classes, and the check's failure message. */
final class ApiDumperTest {

  @Test
  void dump_ownClasses_listsPublicMembersOnlyWithConstants() {
    String dump = ApiDump.dump(Path.of("target", "classes"));

    assertThat(dump)
        .contains("public final class io.servicehooks.testsupport.Ports {\n")
        .contains("  public static int free()\n")
        .contains("public final class io.servicehooks.testsupport.FakeClock extends")
        .contains(
            "  public static final java.lang.String UPDATE_PROPERTY = \"servicehooks.api.update\"")
        .contains("public final class io.servicehooks.testsupport.TestRedis.OwnServer")
        .doesNotContain("diffMessage") // private
        .doesNotContain("Following"); // a private nested type
  }

  @Test
  void check_dumpDiffers_namesTheLinesAndTheCommand(@TempDir Path dir) throws Exception {
    Path api = Path.of("api", "servicehooks-test-support.api");
    Files.createDirectories(api.getParent());
    try {
      Files.writeString(api, "public final class gone.Type {\n}\n");
      assertThatThrownBy(() -> ApiDump.check("servicehooks-test-support"))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("  - public final class gone.Type {")
          .hasMessageContaining("  + public final class io.servicehooks.testsupport.Ports {")
          .hasMessageContaining(ApiDump.UPDATE_COMMAND)
          .hasMessageContaining(
              "commit servicehooks-test-support/api/servicehooks-test-support.api");
    } finally {
      Files.deleteIfExists(api);
      Files.deleteIfExists(api.getParent());
    }
  }
}
