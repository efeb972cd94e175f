package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.testsupport.JarProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class-data sharing archive the build writes beside the jar is one this JDK maps: with {@code
 * -Xshare:on} the JVM refuses to start unless it can use it, so a stale archive, one for another
 * path or a training run that wrote nothing fails here rather than in production as a warning.
 */
final class ClassDataSharingIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final Path ARCHIVE = Path.of("target/servicehooks-consumer.jsa");

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);

  @Test
  void buildsArchive_isMappedByThisJdk_forThisJar(@TempDir Path dir) throws Exception {
    assertThat(ARCHIVE).exists();
    Path out = dir.resolve("out.txt");
    Process p =
        jars.launch()
            .jvm("-Xshare:on", "-XX:SharedArchiveFile=" + ARCHIVE.toAbsolutePath())
            .args("--help")
            .output(out)
            .start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String printed = Files.readString(out);
    assertThat(p.exitValue()).as(printed).isZero();
    assertThat(printed)
        .startsWith("usage: java -jar servicehooks-consumer.jar")
        .doesNotContain("cds");
  }
}
